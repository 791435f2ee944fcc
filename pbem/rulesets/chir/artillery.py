"""Artillery fire support (10.x): who may support whom, and the one-per-group limit."""

from __future__ import annotations

from pbem.core.text import no_unit

from . import board as bd
from . import state as st
from .scenario import Scenario


def why_not_support(sc: Scenario, rules: dict, art: str, group: list[str], target: str,
                    kind: str) -> tuple[str, str] | None:
    """None if `art` may give supporting fire to the firing `group` against (or, in defence,
    for) the defending hex `target`; else (rule, reason). Supporting fire is the same in attack
    and in defence (10.2): once per player-turn, never with a fired marker; the fired
    artillery that 10.5 lets fire in defence is artillery of the attacked stack firing at the
    attackers next to it, not supporting fire (see README.md, readings)."""
    u = sc.units.get(art) if isinstance(art, str) else None
    if u is None:
        guns = [u for u in sc.unit_ids if sc.units[u].cls == "artillery" and st.on_map(rules, u)]
        return "10.3", no_unit(sc.unit_ids, art, guns)
    h = st.hex_of(rules, art)
    if u.cls != "artillery" or h is None:
        return "10.0", f"{art} is not artillery on the map"
    if any(g == art for g in group):
        return "10.0", f"{art} fires with its own stack, not in support"
    if bd.adjacent_enemy(sc, rules, h, u.side):
        return "10.2", f"{art} is adjacent to enemy units and may not give supporting fire"
    if st.marked(rules, "confusion", art):
        return "10.2", f"{art} has a confusion marker"
    if st.marked(rules, "fired", art):
        return "10.2", f"{art} has a fired marker: it has given its supporting fire for this turn"
    rng = u.range or 0
    if sc.distance(h, target) > rng:
        return "10.1", f"{target} is beyond the range {rng} of {art}"
    if kind == "manoeuvre":
        if u.side != "german":
            return "10.2", "only German artillery supports manoeuvre attacks"
        if st.moved(rules, art) and not (u.sp and st.used(rules, art) < u.mp):
            if u.sp:
                return "9.2", f"{art} used half its movement points or more in this movement phase"
            return "10.2", f"{art} moved in this movement phase"
    members = [sc.units[g] for g in group]
    if not members:
        return "10.2", "the supported group is empty"
    if u.support == "own" and any(m.aff != u.aff for m in members):
        return "10.2", f"{art} has the colour of {u.aff} and supports only units of {u.aff}"
    if u.support == "5TA" and any(m.army != "5TA" for m in members):
        others = sorted(g for g in group if sc.units[g].army != "5TA")
        return "10.2", (f"{art} is 5th Tank Army artillery without a division colour and supports only units of "
                        f"the 5th Tank Army, not {', '.join(others)}")
    return None


def serves(sc: Scenario, art: str, uid: str) -> bool:
    """10.2: whether `art` may give supporting fire to a group holding `uid`: artillery with a
    division's colour to units of that division, 5th Tank Army artillery without one to units of
    that army, any other to any unit."""
    u, m = sc.units[art], sc.units[uid]
    if u.support == "own":
        return m.aff == u.aff
    if u.support == "5TA":
        return m.army == "5TA"
    return True


def defence_candidates(sc: Scenario, rules: dict, side: str, stack: list[str], target: str, kind: str) -> list[str]:
    """The artillery that may support the defence of `stack`: in defence the group of units
    firing is the defender's choice (9.4: fire is optional, and the `fire` order may name its
    units), so a coloured battery may support the units of its colour in the stack, which then
    fire without the others (10.2; a review: one unit of another formation in the hex barred it)."""
    return [a for a in bd.on_map(sc, rules, side) if sc.units[a].cls == "artillery"
            and why_not_support(sc, rules, a, [u for u in stack if serves(sc, a, u)], target, kind) is None]


def candidates(sc: Scenario, rules: dict, side: str, group: list[str], target: str, kind: str) -> list[str]:
    return [a for a in bd.on_map(sc, rules, side) if sc.units[a].cls == "artillery"
            and why_not_support(sc, rules, a, group, target, kind) is None]


def matching(sc: Scenario, rules: dict, arts: list[str], groups: dict[str, list[str]], target: str, kind: str) -> dict[str, str] | None:
    """10.2: one supporting artillery per firing group. A complete assignment art -> group
    hex, or None if there is none."""
    can = {a: [h for h, g in sorted(groups.items())
               if why_not_support(sc, rules, a, g, target, kind) is None] for a in arts}
    owner: dict[str, str] = {}
    for a in sorted(arts):
        if not _place(a, set(), can, owner):
            return None
    return {a: h for h, a in sorted(owner.items())}


def _place(a: str, seen: set[str], can: dict[str, list[str]], owner: dict[str, str]) -> bool:
    """An augmenting path for artillery a (bipartite matching): a free group hex, or one
    whose artillery can move to another."""
    for h in can[a]:
        if h in seen:
            continue
        seen.add(h)
        if h not in owner or _place(owner[h], seen, can, owner):
            owner[h] = a
            return True
    return False


def best_support(sc: Scenario, rules: dict, side: str, groups: dict[str, list[str]], target: str, kind: str) -> list[str]:
    """A greedy largest set of supporting artillery (strongest first) that can be matched."""
    if kind == "manoeuvre" and side != "german":
        return []
    pool = set()
    for g in groups.values():
        pool.update(candidates(sc, rules, side, g, target, kind))
    chosen: list[str] = []
    for a in sorted(pool, key=lambda x: (-st.strength(sc, rules, x), x)):
        if len(chosen) >= len(groups):
            break
        if matching(sc, rules, chosen + [a], groups, target, kind) is not None:
            chosen.append(a)
    return sorted(chosen)
