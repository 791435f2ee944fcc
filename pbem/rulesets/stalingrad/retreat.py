"""10.3 Retreat (from the fragment).

Units may retreat either into areas controlled by their own side (even if enemy units
are there) or into areas with no enemy units (these may be enemy-controlled: retreating
into one changes its control). If neither is possible, the unit is eliminated.
10.3(1) With several possible retreats, an own-controlled area with the fewest enemy
units comes first; only if there is none, an enemy-free enemy-controlled area. If several
areas qualify, the retreating player decides (decision "retreat").
10.3(2) If the area it must retreat to already holds 10 own units, the unit may retreat
one area further; if it cannot retreat further from that area, it is eliminated.

House clarifications (NOT from the fragment): a retreat goes to an adjacent area; the
area it must retreat to (10.3(2)) is the one 10.3(1) ranks first, whether or not it has
room, so a full own area with no enemy units is chosen over an own area with room and
enemy units there (and over an empty enemy-controlled one); the step "one area further"
of 10.3(2) never returns to the area the unit was driven from, and chooses by the order
of 10.3(1) among the areas where the unit fits under the limit.
"""

from __future__ import annotations

from .areas import count, enemy, has_room, name, place, set_control, side_name


def candidates(sc, rules: dict, uid: str, origin: str, exclude: list[str],
               room_only: bool) -> list[str]:
    """The areas of the best 10.3(1) tier a unit in `origin` may retreat to, sorted."""
    side = sc.units[uid].side
    foe = enemy(side)
    control = rules["control"]
    eligible = []
    for area in sc.areas[origin].adjacent:
        if area in exclude:
            continue
        own = control[area] == side
        if not (own or count(sc, rules, area, foe) == 0):  # 10.3
            continue
        if room_only and not has_room(sc, rules, area, side):
            continue
        eligible.append(area)
    own_areas = [a for a in eligible if control[a] == side]
    if own_areas:  # 10.3(1): own-controlled, fewest enemy units first
        fewest = min(count(sc, rules, a, foe) for a in own_areas)
        return [a for a in own_areas if count(sc, rules, a, foe) == fewest]
    return eligible  # enemy-free enemy-controlled areas, all equal under 10.3(1)


def further(sc, rules: dict, uid: str, origin: str, to: str) -> list[str]:
    """10.3(2): the areas one further from a full `to` that take a unit driven from `origin`:
    by the order of 10.3(1) among the neighbours of `to` with room, never back to `origin`."""
    return candidates(sc, rules, uid, to, [origin], True)


def lands(sc, rules: dict, uid: str, origin: str, to: str) -> bool:
    """Whether a unit that must retreat from `origin` to `to` (10.3(1)) stays on the map:
    `to` has room for it, or an area one further takes it (10.3(2)); as `arrive` decides."""
    return has_room(sc, rules, to, sc.units[uid].side) or bool(further(sc, rules, uid, origin, to))


def can_retreat(sc, rules: dict, uid: str) -> bool:
    """Whether `uid`, driven from its area now, can retreat and stay on the map, as `start`
    and `arrive` carry a retreat out: an area of the tier 10.3(1) ranks first qualifies
    (10.3), and it has room or an area one further takes the unit (10.3(2)). Between tied
    areas the retreating player decides (the standing order `engine-priority` takes one where
    the unit lands), so one such area is enough."""
    origin = rules["units"][uid]
    return any(lands(sc, rules, uid, origin, to) for to in candidates(sc, rules, uid, origin, [], False))


def _eliminate(sc, rules: dict, uid: str, ctx, rule: str, why: str) -> None:
    unit = sc.units[uid]
    here = rules["units"][uid]
    place(rules, uid, "eliminated")
    ctx.event("eliminated", f"{unit.name} ({uid}) cannot retreat from {name(sc, here)}: "
              f"{why}; it goes to the eliminated-units box ({rule}).",
              unit=uid, side=unit.side, origin=here, rule=rule)


def _place(sc, rules: dict, uid: str, to: str, ctx, rule: str, via: str | None) -> None:
    unit = sc.units[uid]
    side, here = unit.side, rules["units"][uid]
    place(rules, uid, to)
    if side == "soviet" and sc.areas[to].crossing:
        # 11.2(3): a unit that comes onto a crossing now is not one left there from the previous turn
        rules["crossing_arrivals"] = sorted(set(rules.get("crossing_arrivals", [])) | {uid})
    path = f"through {name(sc, via)} " if via else ""
    ctx.event("retreat", f"{unit.name} ({uid}) retreats from {name(sc, here)} {path}to "
              f"{name(sc, to)} ({rule}).", unit=uid, side=side, origin=here, via=via,
              to=to, rule=rule)
    if rules["control"][to] != side:
        # 10.3: an enemy-controlled area without enemy units changes control
        set_control(sc, rules, to, side, ctx, "10.3",
                    f"{uid} retreated into it and no enemy units are there", False)


def start(sc, rules: dict, uid: str, ctx) -> dict | None:
    """Begin the retreat of `uid` from its area. Returns a pending decision (the player
    picks among tied areas) or None when the retreat is complete."""
    origin = rules["units"][uid]
    tier = candidates(sc, rules, uid, origin, [], False)
    if not tier:
        _eliminate(sc, rules, uid, ctx, "10.3", "no adjacent area is own-controlled or free of enemy units")
        return None
    if len(tier) == 1:
        return arrive(sc, rules, uid, origin, tier[0], ctx)
    return {"unit": uid, "origin": origin, "step": 1, "options": tier}


def arrive(sc, rules: dict, uid: str, origin: str, to: str, ctx) -> dict | None:
    """The unit must retreat to `to` (10.3(1)); apply the stacking rule 10.3(2)."""
    side = sc.units[uid].side
    if has_room(sc, rules, to, side):
        _place(sc, rules, uid, to, ctx, "10.3", None)
        return None
    tier = further(sc, rules, uid, origin, to)
    ctx.event("overstack", f"{name(sc, to)} already holds {sc.stacking_limit} {side_name(side)} "
              f"units, so {uid} may retreat one area further (10.3(2)).",
              unit=uid, side=side, area=to, rule="10.3(2)")
    if not tier:
        _eliminate(sc, rules, uid, ctx, "10.3(2)",
                   f"{name(sc, to)} is at the stacking limit and no area beyond it can take it")
        return None
    if len(tier) == 1:
        _place(sc, rules, uid, tier[0], ctx, "10.3(2)", to)
        return None
    return {"unit": uid, "origin": origin, "step": 2, "via": to, "options": tier}


def choose(sc, rules: dict, pending: dict, to: str, ctx) -> dict | None:
    """Carry out the retreating player's choice among tied areas (10.3(1))."""
    if pending["step"] == 1:
        return arrive(sc, rules, pending["unit"], pending["origin"], to, ctx)
    _place(sc, rules, pending["unit"], to, ctx, "10.3(2)", pending["via"])
    return None


def policy_choice(sc, rules: dict, pending: dict, how: str) -> str:
    """Standing order `retreat_tie`: "engine-priority" prefers an area where the unit fits
    under the stacking limit, then a full one from which an area one further takes it
    (10.3(2)), then the lowest area id; "lowest-id" takes the lowest id."""
    options = sorted(pending["options"])
    if how == "engine-priority":
        uid = pending["unit"]
        side = sc.units[uid].side
        roomy = [a for a in options if has_room(sc, rules, a, side)]
        if roomy:
            return roomy[0]
        if pending["step"] == 1:
            onward = [a for a in options if further(sc, rules, uid, pending["origin"], a)]
            if onward:
                return onward[0]
    return options[0]
