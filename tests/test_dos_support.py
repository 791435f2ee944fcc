"""Helpers of the dos rule tests (no tests here): one shared scenario, rules from a given
position, and `play`, which applies orders through the ruleset's own flow with scripted dice
and answers the decisions no order answers by the standing orders, as the engine does."""

from __future__ import annotations

from functools import lru_cache

import pytest

from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.dos import flow, scenario
from pbem.rulesets.dos.orders import DEFAULT_POLICIES

__all__ = ["SC", "at", "play", "refused", "Ctx", "IllegalOrder", "events_of", "find_step"]


@lru_cache(maxsize=1)
def SC() -> scenario.Scenario:
    return scenario.Scenario(scenario.load_historical(), {})


class Ctx:
    """Scripted dice (`dice` for d6, `picks` for draws, 0-based) and the events."""

    def __init__(self, dice=(), picks=()):
        self.dice, self.picks = list(dice), list(picks)
        self.events: list[dict] = []
        self.chosen_by = "order"
        self.labels: list[str] = []

    def d6(self, label: str) -> int:
        self.labels.append(label)
        assert self.dice, f"no scripted die left for {label}"
        return self.dice.pop(0)

    def pick(self, label: str, among: int) -> int:
        self.labels.append(label)
        value = self.picks.pop(0) if self.picks else 0
        assert value < among, (label, value, among)
        return value

    def event(self, type: str, text: str, **fields) -> None:
        self.events.append({"type": type, "text": text, **fields})


def at(**pos) -> dict:
    """Rules at a position: turn 3, the Axis Initial Movement Phase and no unit unless given."""
    base = {"turn": 3, "player": "axis", "phase": "move", "units": {}}
    base.update(pos)
    return flow.rules_for(SC(), base)


def refused(rules: dict, order: dict, rule: str, text: str = "") -> IllegalOrder:
    """`order` is refused under `rule`, with `text` in its message."""
    with pytest.raises(IllegalOrder) as info:
        play(rules, [order])
    assert info.value.rule == rule, (info.value.rule, info.value.message)
    assert text in info.value.message, info.value.message
    return info.value


def play(rules: dict, orders=(), dice=(), picks=(), policies=None, ctx: Ctx | None = None) -> Ctx:
    """Apply `orders` in turn; a decision that the next order does not answer is answered by
    the standing orders (the defaults, updated by `policies`). Stops when the orders are used
    up and no standing order answers (or the game is over)."""
    sc = SC()
    ctx = ctx or Ctx(dice, picks)
    pol = dict(DEFAULT_POLICIES)
    pol.update(policies or {})
    queue = list(orders)
    while True:
        need = flow.next_step(sc, rules)
        if need is None:
            break
        if need.decision and (not queue or queue[0].get("type") not in need.accepts):
            answer = flow.policy(sc, rules, need, pol)
            if answer is None:
                break
            ctx.chosen_by = "policy"
            flow.apply(sc, rules, need, answer, ctx)
            continue
        if not queue:
            break
        ctx.chosen_by = "order"
        flow.apply(sc, rules, need, queue.pop(0), ctx)
    return ctx


def events_of(ctx: Ctx, type_: str) -> list[dict]:
    return [e for e in ctx.events if e["type"] == type_]


def find_step(to: str, frm: str = "clear", kind=None, where=lambda sc, a, b: True, rail: bool = False) -> tuple[str, str]:
    """The first pair of neighbours (a, b), b of terrain `to`, a of terrain `frm`, the hexside
    between them of `kind` (None: no river or lake), neither a rail or city hex (unless `rail`)."""
    sc = SC()
    for a in range(len(sc.ids)):
        if sc.terrain_of[a] != frm or (not rail and (a in sc.rail_hex)):
            continue
        for b in sc.nb[a]:
            if sc.terrain_of[b] == to and sc.side_kind.get((a, b)) == kind and (rail or b not in sc.rail_hex) \
                    and where(sc, a, b):
                return sc.ids[a], sc.ids[b]
    raise AssertionError(f"no {frm} hex next to a {to} hex across {kind}")


def rail_chain(sc, length: int) -> list[str]:
    """The longest chain of up to `length` rail hexes leading out of the Axis start area, hex
    by hex (the first neighbour in id order at each step): track for clearing and supply."""
    def chain_from(w):
        out, cur, seen = [], w, {w}
        while len(out) < length:
            nxt = next((j for j in sorted(sc.rail_nb[cur]) if j not in seen and j not in sc.axis_start), None)
            if nxt is None:
                break
            out.append(sc.ids[nxt])
            seen.add(nxt)
            cur = nxt
        return out
    return max((chain_from(w) for w in sorted(sc.rail_hex & sc.axis_start)), key=len)
