"""Removal to comply with the stacking limit (6.4, 9.10.3) as the owner's decision.

6.4: a move, an entry or an advance after combat may end over the stacking limit; the player
then "must remove any units necessary to comply". 9.10.3: when retreating units find no hex
within the limit, "the units that have retreated must be removed". Either way the flow stops
at the decision `stack-removal` (`rules["removal"]`):

    {"side": owner, "hex": the hex over the limit, "pool": the units that may be removed,
     "rule": "6.4" or "9.10.3", "why": what ended over the limit}

The answer is `{type: remove, units: [...]}`: units of the pool, none of them superfluous
(with any one of them kept, the hex would still be over the limit). A set that does not
yet make the hex legal is allowed: the decision is asked again until the hex complies.
Removed units are eliminated (4.1 scores them as such)."""

from __future__ import annotations

from itertools import combinations

from pbem.core.text import agreeing

from ..base import IllegalOrder
from . import board as bd
from . import state as st
from .scenario import Scenario

MAX_SET_OPTIONS = 40  # minimal complete sets listed in legal_orders (single units always are)


def require(sc: Scenario, rules: dict, h: str, side: str, pool: list[str], rule: str, why: str, ctx) -> bool:
    """Open a removal decision if the side's units in `h` break the stacking limit; True if
    one was opened."""
    there = bd.units_in(sc, rules, h, side)
    if bd.stacking_ok(sc, there):
        return False
    pool = sorted(u for u in pool if u in there)
    rules["removal"] = {"side": side, "hex": h, "pool": pool, "rule": rule, "why": why}
    ctx.event("over-stacked", f"{', '.join(there)} in {h} {agreeing(there, 'breaks', 'break')} the stacking limit "
              f"after {why}: "
              f"{side} must remove units to comply ({rule}).", side=side, hex=h, units=there, pool=pool,
              rule=rule)
    return True


def pending(rules: dict) -> dict | None:
    return rules.get("removal")


def _pool(sc: Scenario, rules: dict, r: dict) -> list[str]:
    return [u for u in r["pool"] if st.on_map(rules, u) and st.hex_of(rules, u) == r["hex"]]


def _superfluous(sc: Scenario, rules: dict, r: dict, chosen: list[str]) -> str | None:
    """A unit of `chosen` whose removal is not needed (the hex breaks no limit with it kept)."""
    rest = [u for u in bd.units_in(sc, rules, r["hex"], r["side"]) if u not in chosen]
    for u in chosen:
        if bd.stacking_ok(sc, rest + [u]):
            return u
    return None


def options(sc: Scenario, rules: dict) -> list[dict]:
    """Every minimal set of pool units whose removal makes the hex legal (smallest first, at
    most MAX_SET_OPTIONS), then each single unit of the pool (one at a time until legal)."""
    r = rules["removal"]
    pool = _pool(sc, rules, r)
    there = bd.units_in(sc, rules, r["hex"], r["side"])
    out: list[dict] = []
    for size in range(1, len(pool) + 1):
        for combo in combinations(pool, size):
            chosen = list(combo)
            if bd.stacking_ok(sc, [u for u in there if u not in chosen]) and _superfluous(sc, rules, r, chosen) is None:
                out.append({"type": "remove", "units": chosen})
                if len(out) >= MAX_SET_OPTIONS:
                    break
        if len(out) >= MAX_SET_OPTIONS:
            break
    singles = [{"type": "remove", "units": [u]} for u in pool]
    return out + [o for o in singles if o not in out]


def policy(sc: Scenario, rules: dict, pol: dict) -> dict | None:
    """weakest: one unit at a time, the weakest, then the lowest morale, then the lowest id."""
    if pol.get("stack_removal", "weakest") == "ask":
        return None
    r = rules["removal"]
    pool = sorted(_pool(sc, rules, r), key=lambda u: (st.strength(sc, rules, u), sc.units[u].morale, u))
    return {"type": "remove", "units": pool[:1]}


def apply(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    from .retreat import eliminate

    r = rules["removal"]
    pool = _pool(sc, rules, r)
    chosen = sorted(order.get("units") or [])
    if not chosen or len(set(chosen)) != len(chosen):
        raise IllegalOrder(r["rule"], "remove: name each unit to remove once", options(sc, rules))
    bad = [u for u in chosen if u not in pool]
    if bad:
        raise IllegalOrder(r["rule"], f"remove {', '.join(bad)}: only {', '.join(pool)} may be removed from "
                           f"{r['hex']} ({r['rule']})", options(sc, rules))
    extra = _superfluous(sc, rules, r, chosen)
    if extra is not None:
        raise IllegalOrder(r["rule"], f"remove {', '.join(chosen)}: {extra} need not be removed; only the units "
                           f"necessary to comply with the stacking limit are removed", options(sc, rules))
    by = "standing order" if ctx.chosen_by == "policy" else "owner's choice"
    for u in chosen:
        eliminate(sc, rules, u, ctx, f"removed to comply with the stacking limit in {r['hex']}, {by}", r["rule"])
    last = rules["ps"].get("last_move")
    if last is not None and any(u in last["units"] for u in chosen):
        # 6.6, 9.2: only the moved units still on the map may make the manoeuvre attack
        kept = [u for u in last["units"] if u not in chosen]
        rules["ps"]["last_move"] = dict(last, units=kept) if kept else None
    left = bd.units_in(sc, rules, r["hex"], r["side"])
    ctx.event("stack-removal", f"{r['side']} removes {', '.join(chosen)} from {r['hex']} ({by}, {r['rule']})"
              + (f"; {', '.join(left)} stay." if left else "."), side=r["side"], hex=r["hex"], units=chosen,
              left=left, chosen_by=ctx.chosen_by, rule=r["rule"])
    if bd.stacking_ok(sc, left):
        rules["removal"] = None


def cautions(sc: Scenario, rules: dict, events: list[dict], side: str, queued: list[dict]) -> list[str]:
    """What `pbem submit` warns a chir player of: units of his that his standing order
    removed for the stacking limit (6.4): a move into a full hex is legal, and the unit
    removed may be the one that was there (players' probe: a 6-strength regiment lost under
    'a legal packet')."""
    return [f"{', '.join(e['units'])} {'was' if len(e['units']) == 1 else 'were'} removed from {e['hex']} by your "
            f"standing order stack_removal: the hex was over the stacking limit ({e['rule']})"
            for e in events if e["type"] == "stack-removal" and e["side"] == side and e.get("chosen_by") == "policy"]
