"""Movement: house rule 5, NOT from the fragment.

5.1 In its movement phase a side may move each of its units on the map once, to an
    adjacent area.
5.2 A unit that starts its move in an area holding enemy units may move only to an
    area its side controls that holds no enemy units.
5.3 The stacking limit of 10 own units (10.3(2)) applies to movement (house rule 2.2);
    Soviet units on crossings have no limit (11.2(3)).
5.4 Entering an enemy-controlled area that holds no enemy units takes control of it
    (house rule 4.2); entering an area with enemy units leaves control unchanged.
"""

from __future__ import annotations

from ..base import IllegalOrder
from .areas import (count, enemy, has_room, known_area, known_unit, listing, name,
                    occupancy, occupancy_of, set_control, side_name, side_units, status)


def targets(sc, rules: dict, uid: str, occ: dict | None = None) -> list[str]:
    """The areas unit `uid` may move to now (5.1-5.3), sorted."""
    side, here = sc.units[uid].side, rules["units"][uid]
    adjacent = sc.areas[here].adjacent
    if occ is None:
        occ = occupancy_of(sc, rules, (here,) + adjacent)
    foe = enemy(side)
    engaged = occ[here][foe] > 0
    control = rules["control"]
    out = []
    for area in adjacent:
        if engaged and not (control[area] == side and occ[area][foe] == 0):
            continue  # house 5.2
        if not has_room(sc, rules, area, side, occ=occ):
            continue  # house 5.3 / 10.3(2)
        out.append(area)
    return out


def movable(sc, rules: dict, side: str) -> list[str]:
    moved = rules["phase_state"].get("moved", [])
    return [uid for uid in side_units(sc, rules, side, "map") if uid not in moved]


def can_move(sc, rules: dict, side: str) -> bool:
    """Whether `legal` offers a move: a unit yet to move with an area to move to."""
    occ = occupancy(sc, rules)
    return any(targets(sc, rules, uid, occ) for uid in movable(sc, rules, side))


def legal(sc, rules: dict, side: str) -> list[dict]:
    occ = occupancy(sc, rules)
    return [{"type": "move", "unit": uid, "to": to}
            for uid in movable(sc, rules, side) for to in targets(sc, rules, uid, occ)]


def apply_move(sc, rules: dict, side: str, order: dict, ctx) -> None:
    unit = known_unit(sc, rules, order)
    to = known_area(sc, order, "to", lambda: legal(sc, rules, side))
    uid = order["unit"]
    moved = rules["phase_state"].get("moved", [])
    if unit.side != side or status(rules, uid) != "map" or uid in moved:
        occ = occupancy(sc, rules)
        mine = [u for u in movable(sc, rules, side) if targets(sc, rules, u, occ)]
    if unit.side != side:
        raise IllegalOrder("house 5.1", f"{uid} is a {unit.side} unit and "
                           f"the {side} side is moving (house 5.1); units that may move: "
                           f"{listing(mine)}.", mine)
    if status(rules, uid) != "map":
        raise IllegalOrder("house 5.1", f"{uid} is not on the map "
                           f"({status(rules, uid)}) (house 5.1); units that may move: {listing(mine)}.",
                           mine)
    if uid in moved:
        raise IllegalOrder("house 5.1", f"{uid} has already moved this phase "
                           f"(house 5.1); units that may move: {listing(mine)}.", mine)
    here = rules["units"][uid]
    occ = occupancy_of(sc, rules, (here,) + sc.areas[here].adjacent)
    ok = targets(sc, rules, uid, occ)
    if to not in ok:
        foe = enemy(side)
        if to not in sc.areas[here].adjacent:
            why, rule = f"{to} is not adjacent to {here}", "house 5.1"
        elif count(sc, rules, here, foe) > 0 and not (rules["control"][to] == side
                                                       and count(sc, rules, to, foe) == 0):
            why, rule = (f"{uid} starts in {here} with enemy units and may only move to an "
                         f"area its side controls without enemy units"), "house 5.2"
        else:  # the area 5.2 leaves open, or any area for a unit not engaged: full
            why, rule = (f"{to} already holds {sc.stacking_limit} {side_name(side)} units, the "
                         f"stacking limit of 10.3(2), which applies to movement too"), "house 5.3"
        raise IllegalOrder(rule, f"{why} ({rule}); {uid} may move to: "
                           f"{listing(ok)}.", [{"type": "move", "unit": uid, "to": a} for a in ok])
    rules["units"][uid] = to
    rules["phase_state"]["moved"] = sorted(moved + [uid])
    ctx.event("move", f"{unit.name} ({uid}) moves from {name(sc, here)} to "
              f"{name(sc, to)} (house 5.1).", unit=uid, side=side, origin=here, to=to,
              rule="house 5.1", house_rule=True)
    # house 4.2; `occ` was counted before the move, which changes no enemy count
    if rules["control"][to] != side and occ[to][enemy(side)] == 0:
        set_control(sc, rules, to, side, ctx, "house 4.2",
                    f"{uid} entered it and no enemy units are there", True)
