"""Untried units (13.0): their true side is drawn when the rules reveal it (13.2), at random
from the counters of their pool not yet revealed (13.1), with a pick of the dice of that
moment (DESIGN §3.6: never from the genesis, so neither player knows it before). Nothing is
drawn at set-up (5.26, 5.37): untried units set up and enter with no value at all. 13.4 is
omitted by the errata: an eliminated untried unit is gone for good, never back in a pool."""

from __future__ import annotations

from .scenario import Scenario
from . import state as st


def remaining(sc: Scenario, rules: dict, pool: str) -> list[tuple]:
    """The values of the pool's counters not yet revealed, one entry per counter, in the
    pool's order."""
    used: dict = {}
    for uid, v in rules["revealed"].items():
        if sc.units[uid].untried == pool:
            key = tuple(v) if isinstance(v, list) else v
            used[key] = used.get(key, 0) + 1
    out = []
    for value, count in sc.pools[pool]:
        out += [value] * max(0, count - used.get(value, 0))
    return out


def reveal(sc: Scenario, rules: dict, uid: str, ctx, label: str) -> None:
    """13.2: turn the unit over; 13.3: a no-strength unit is removed at once."""
    pool = sc.units[uid].untried
    left = remaining(sc, rules, pool)
    k = ctx.pick(label, len(left))   # a uniform draw from what is left (DESIGN §3.5)
    value = left[k]
    rules["revealed"][uid] = list(value) if isinstance(value, tuple) else value
    shown = "-".join(str(x) for x in value) if isinstance(value, tuple) else str(value)
    ctx.event("reveal", f"{uid} is revealed: {shown} (13.2).", unit=uid, strength=rules["revealed"][uid],
              pool=pool, rule="13.2")
    if (value == (0, 0)) or value == 0:
        st.remove(rules, uid, "gone")
        ctx.event("eliminated", f"{uid} has no strength and is removed from the game (13.3).", units=[uid],
                  side=sc.side_of[uid], rule="13.3")
