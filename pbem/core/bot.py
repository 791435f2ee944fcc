"""A player that picks among the engine's own legal orders: for the conformance tests,
benchmarks, and `pbem demo` of a ruleset without bots of its own (dos, kkoh). It plans a
side's packet by simulating its orders on a private copy, rolling imagined dice (the real
ones come later), so it writes several orders per packet as a person would; orders the real
dice make impossible become void.
The bots that play on purpose, and self-play, are in `pbem.core.bots`.
"""

from __future__ import annotations

from pbem.core import engine
from pbem.core.sha import sha256
from pbem.rulesets.base import IllegalOrder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

MAX_ORDERS = 200


class _NoDiceYet(Exception):
    """A standing order that resolves before the packet's orders needs a die the segment
    does not have yet: the engine waits there, and so does the plan."""


class SealedMadeUp:
    """The sealed draws of a Context with made-up dice (planning only): the die is made up when
    drawn, as every die there is, and kept in the draw."""

    def sealed_draw(self, label: str) -> dict:
        return {"label": label, "value": self.d6(label)}

    def sealed_d6(self, draw: dict) -> int:
        return draw["value"] if "value" in draw else self.d6(draw["label"])


class _Imagined(SealedMadeUp):
    """A Context with made-up dice: only for planning, never for a state that is kept.
    `roll(label)` gives a die and `roll(label, among)` a draw where they are known in
    advance (a seeded sandbox)."""

    chosen_by = "order"
    opened = None

    def __init__(self, seed: bytes, roll: Callable[..., int] | None = None):
        self._seed = seed
        self._n = 0
        self._roll = roll
        self.dice = True   # False: no die can be rolled yet (_NoDiceYet)

    def _digest(self) -> bytes:
        self._n += 1
        return sha256(self._seed + self._n.to_bytes(4, "big")).digest()

    def d6(self, label: str) -> int:
        if not self.dice:
            raise _NoDiceYet(label)
        return self._roll(label) if self._roll is not None else 1 + self._digest()[0] % 6

    def pick(self, label: str, among: int) -> int:
        if not self.dice:
            raise _NoDiceYet(label)
        if self._roll is not None:
            return self._roll(label, among)
        return int.from_bytes(self._digest()[:4], "big") % among

    def event(self, type: str, text: str, **fields: Any) -> None:
        pass


def plan(game: engine.Game, state: dict, side: str, choose: Callable[[list[dict]], dict],
         roll: Callable[..., int] | None = None) -> list[dict]:
    """Orders for `side`'s next packet (see `plan_packet`), when they are not to be sealed."""
    orders, seal = plan_packet(game, state, side, choose, roll)
    if seal:
        raise ValueError(f"{side}'s next packet must seal its orders: use plan_packet")
    return orders


def plan_packet(game: engine.Game, state: dict, side: str, choose: Callable[[list[dict]], dict],
                roll: Callable[..., int] | None = None) -> tuple[list[dict], bool]:
    """Orders for `side`'s next packet and whether they are to be sealed: choices for each
    need of that side, in turn, until the flow passes to the other side or the game ends
    (answering by hand any decision too). Where the rules ask for sealed orders, one legal
    item is chosen and sealed, and the packet ends there; a packet that opens items due
    gives nothing else, and planning stops where the rules reveal sealed items. `roll(label)` gives the dice and `roll(label, among)` the
    draws by label where they are known in advance (a seeded sandbox)."""
    ruleset = game.ruleset
    if state["awaiting"]["waiting_for"] == "dice" or any(item["side"] == side for item in state["queue"]):
        return [], False  # earlier orders are still waiting for their dice
    if state["sealed"].get(side, {}).get("due"):
        return [], False  # this packet opens the side's items due; they answer the needs
    rules = engine.clone(state["rules"])
    game.share_strings(rules)
    context = _Imagined(state["state_hash"].encode(), roll)
    # Until the packet's first order, the engine resolves what was queued with this
    # segment's dice (DESIGN §3.6 b), which the first packet of a secure game does not
    # have: segment 1 rolls nothing, its seed needing the reveal before it.
    context.dice = not game.secure or state["last_reveal"] is not None
    orders: list[dict] = []
    while len(orders) < MAX_ORDERS:
        need = game.next_step(rules)
        if need is None or need.opens:
            break  # over, or sealed items the rules reveal: they are opened in a packet of their own
        if need.side != side or (need.decision and not orders):
            # Standing orders answer decisions as the engine will: the opponent's always, and
            # the side's own before the packet's first order takes effect (what was queued
            # resolves first: a state made from the genesis alone may wait for a decision
            # that the side's standing order answers when the packet brings the dice).
            answer = game.policy(rules, need, engine.effective_policies(ruleset, state, need.side)) if need.decision else None
            if answer is not None:
                try:
                    game.apply(rules, need, answer, context)
                except _NoDiceYet:
                    return [], False   # the game waits there for the next packet's dice
                continue
            if need.side != side:
                break
        context.dice = True   # the packet's own orders: imagined dice, the real ones come later
        if need.sealed and orders:
            break  # the seal comes in a packet of its own
        if need.sealed and game.ruleset.seal_items is not None:
            return game.seal_items(engine.clone(rules), need, _plan_step(game, rules, need, choose, context)), True
        options = game.legal_orders(rules, need)
        if not options:
            break
        order = choose(options)
        if need.sealed:
            return [order], True
        try:
            game.apply(rules, need, order, context)
        except IllegalOrder as exc:  # legal_orders offered it: a ruleset bug worth knowing
            raise AssertionError(f"{ruleset.id}: legal_orders offered {order}, which apply rejects: {exc.message} ({exc.rule})")
        orders.append(order)
    return orders, False


def _plan_step(game: engine.Game, rules: dict, need: Any, choose: Callable[[list[dict]], dict],
               context: _Imagined) -> list[dict]:
    """The orders a side gives openly for one need, until the flow passes on: what it seals
    there, as the ruleset arranges them."""
    planned: list[dict] = []
    while len(planned) < MAX_ORDERS:
        now = game.next_step(rules)
        if now is None or (now.side, now.kind) != (need.side, need.kind):
            break
        options = [o for o in game.legal_orders(rules, now) if o.get("type") != "sealed"]
        if not options:
            break
        order = choose(options)
        game.apply(rules, now, order, context)
        planned.append(order)
    return planned


def chooser(seed: str) -> Callable[[list[dict]], dict]:
    """A deterministic pseudo-random pick, preferring action to ending the phase."""
    counter = [0]

    def choose(options: list[dict]) -> dict:
        counter[0] += 1
        h = int.from_bytes(sha256(f"{seed}/{counter[0]}".encode()).digest()[:8], "big")
        acting = [o for o in options if o.get("type") != "end"]
        if acting and h % 4 != 0:
            return acting[(h >> 3) % len(acting)]
        return options[(h >> 3) % len(options)]

    return choose
