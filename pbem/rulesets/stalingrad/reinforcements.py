"""11.0 Reinforcements and withdrawal (from the fragment).

11.1 Each side receives the units whose counters show the current turn.
11.2(1) The German player may place reinforcements in any area he controls, even if
        enemy units are there. (2) The Soviet player may place reinforcements only on
        crossings. (3) Soviet units left on a crossing from the previous turn may move to
        another crossing or stay; there is no stacking limit for Soviet units on crossings.
11.3 German units with black counters leave the game at the end of turn 3. (1) For each
     black unit already eliminated, another unit of the same arm is removed instead;
     (2) if the map has no unit of that arm, the German removes any unit he chooses;
     (3) withdrawal happens together with reinforcement entry, and an area emptied by the
     withdrawal and refilled with reinforcements at once stays German-controlled.

House rules (NOT from the fragment):
8.1 Reinforcements not placed in their phase wait off the map and may be placed in any
    later reinforcement phase of their side.
8.2 The stacking limit (10.3(2)) applies to placement, except Soviet units on crossings.
8.3 Soviet units may be placed on, and shifted to, crossings the Soviet side controls.
8.4 The withdrawal is carried out in a "german-withdrawal" phase at the end of turn 3:
    the black counters on the map leave first, then substitutions (11.3(1)-(2)) are
    chosen, then the German places his turn-4 reinforcements, and any earlier ones still
    waiting (8.1), with the withdrawal (11.3(3)); control is
    checked (house rule 4.3) only when the phase ends, so an area emptied and refilled
    at once never changes hands.
"""

from __future__ import annotations

from ..base import IllegalOrder, Need
from .areas import (has_room, known_area, known_unit, listing, name, occupancy_of, place,
                    side_name, side_units, status, unit_strength)


def entry_turn(rules: dict) -> int:
    """Reinforcements of this turn enter now; in the withdrawal phase of turn 3 the
    German turn-4 reinforcements enter together with the withdrawal (11.3(3)), and with
    them any earlier ones still waiting (house 8.1)."""
    return rules["turn"] + (1 if rules["phase"] == "german-withdrawal" else 0)


def available(sc, rules: dict, side: str) -> list[str]:
    """11.1 and house 8.1: units of `side` due by now and not yet placed."""
    due = entry_turn(rules)
    return [uid for uid in side_units(sc, rules, side, "pool") if sc.units[uid].turn <= due]


def places(sc, rules: dict, side: str) -> list[str]:
    """11.2(1) German: any German-controlled area (house 8.2: stacking);
    11.2(2) Soviet: only crossings (house 8.3: Soviet-controlled), no stacking limit (11.2(3))."""
    control = rules["control"]
    own = tuple(area for area in (sc.crossings if side == "soviet" else sc.area_ids) if control[area] == side)
    occ = occupancy_of(sc, rules, own)
    return [area for area in own if has_room(sc, rules, area, side, occ=occ)]


def shiftable(sc, rules: dict) -> list[str]:
    """11.2(3): Soviet units left on a crossing from the previous turn, not yet shifted:
    not placed this phase, and not come onto a crossing this turn (by a retreat, 10.3;
    `rules["crossing_arrivals"]`)."""
    ps = rules["phase_state"]
    done = set(ps.get("placed", []) + ps.get("shifted", []) + rules.get("crossing_arrivals", []))
    return [uid for uid in side_units(sc, rules, "soviet", "map")
            if sc.areas[rules["units"][uid]].crossing and uid not in done]


def legal(sc, rules: dict, side: str) -> list[dict]:
    spots = places(sc, rules, side)
    out = [{"type": "reinforce", "unit": uid, "area": a}
           for uid in available(sc, rules, side) for a in spots]
    if side == "soviet" and rules["phase"] == "soviet-reinforcement":
        for uid in shiftable(sc, rules):
            here = rules["units"][uid]
            out += [{"type": "shift", "unit": uid, "to": a} for a in spots if a != here]
    return out


def has_legal(sc, rules: dict, side: str) -> bool:
    """Whether `legal` offers an order: a unit to place and an area to place it in, or a
    Soviet unit to shift and another crossing to shift it to."""
    spots = places(sc, rules, side)
    if not spots:
        return False
    if available(sc, rules, side):
        return True
    if side == "soviet" and rules["phase"] == "soviet-reinforcement":
        return any(a != rules["units"][uid] for uid in shiftable(sc, rules) for a in spots)
    return False


def apply_reinforce(sc, rules: dict, side: str, order: dict, ctx) -> None:
    unit = known_unit(sc, rules, order)
    area = known_area(sc, order, "area", lambda: [o for o in legal(sc, rules, side) if o["type"] == "reinforce"])
    uid = order["unit"]
    ready = available(sc, rules, side)
    if uid not in ready:
        if unit.side != side:
            why = f"{uid} is a {unit.side} unit"
        elif status(rules, uid) != "pool":
            why = f"{uid} is not waiting to enter ({status(rules, uid)})"
        else:
            why = f"{uid} enters on turn {unit.turn}"
        raise IllegalOrder("11.1", f"{why} (11.1); reinforcements that may "
                           f"enter now: {listing(ready)}.", ready)
    spots = places(sc, rules, side)
    if area not in spots:
        if side == "soviet" and not sc.areas[area].crossing:
            why, rule = "Soviet reinforcements may be placed only on crossings", "11.2(2)"
        elif rules["control"][area] != side:
            why = f"{area} is not controlled by the {side_name(side)} side"
            # the fragment asks German control (11.2(1)); Soviet control of a crossing is house 8.3
            rule = "11.2(1)" if side == "german" else "house 8.3"
        else:
            why = (f"{area} already holds {sc.stacking_limit} {side_name(side)} units (the stacking limit "
                   f"of 10.3(2), applied to placement)")
            rule = "house 8.2"
        raise IllegalOrder(rule, f"{why} ({rule}); legal areas: "
                           f"{listing(spots)}.", [{"type": "reinforce", "unit": uid, "area": a}
                                                  for a in spots])
    place(rules, uid, area)
    ps = rules["phase_state"]
    ps["placed"] = sorted(ps.get("placed", []) + [uid])
    rule = "11.2(1)" if side == "german" else "11.2(2)"
    if rules["phase"] == "german-withdrawal":
        rule = "11.2(1), 11.3(3)"   # placed together with the withdrawal (a rules review: 11.2(1) alone)
    ctx.event("reinforce", f"{unit.name} ({uid}) enters in {name(sc, area)} ({rule}).",
              unit=uid, side=side, area=area, rule=rule)


def apply_shift(sc, rules: dict, order: dict, ctx) -> None:
    unit = known_unit(sc, rules, order)
    to = known_area(sc, order, "to", lambda: [o for o in legal(sc, rules, "soviet") if o["type"] == "shift"])
    uid = order["unit"]
    ps = rules["phase_state"]
    ok = shiftable(sc, rules)
    if uid not in ok:
        if unit.side != "soviet":
            why = f"{uid} is not a Soviet unit"
        elif uid in ps.get("placed", []):
            why = f"{uid} entered this turn and was not on a crossing from the previous turn"
        elif uid in rules.get("crossing_arrivals", []):
            why = (f"{uid} came onto {rules['units'][uid]} this turn by a retreat and was not "
                   f"left on a crossing from the previous turn")
        elif uid in ps.get("shifted", []):
            why = f"{uid} has already moved to another crossing this phase"
        else:
            why = f"{uid} is not on a crossing"
        raise IllegalOrder("11.2(3)", f"{why} (11.2(3)); units that may move "
                           f"to another crossing: {listing(ok)}.", ok)
    here = rules["units"][uid]
    spots = [a for a in places(sc, rules, "soviet") if a != here]
    if to not in spots:
        if sc.areas[to].crossing and to != here:
            why, rule = f"{to} is not controlled by the Soviet side", "house 8.3"
        else:
            why, rule = f"{to} is not another crossing", "11.2(3)"
        raise IllegalOrder(rule, f"{why} ({rule}); legal: {listing(spots)}.",
                           [{"type": "shift", "unit": uid, "to": a} for a in spots])
    place(rules, uid, to)
    ps["shifted"] = sorted(ps.get("shifted", []) + [uid])
    ctx.event("shift", f"{unit.name} ({uid}) moves from {name(sc, here)} to "
              f"{name(sc, to)} (11.2(3)).", unit=uid, side="soviet", origin=here, to=to,
              rule="11.2(3)")


# ---- 11.3 withdrawal ----------------------------------------------------------------------
# `rules["substitute_for"]`: the eliminated black units still waiting for a substitute
# (11.3(1)), in unit id order; left out when there are none.

def start_withdrawal(sc, rules: dict, ctx) -> None:
    """11.3: the black counters on the map leave; black units already eliminated are
    queued for substitution (11.3(1)); black units never placed simply leave."""
    pending = []
    for uid, where in sorted(rules["units"].items()):
        u = sc.units[uid]
        if u.side != "german" or not u.black:
            continue
        if status(rules, uid) == "map":
            place(rules, uid, "withdrawn")
            ctx.event("withdraw", f"{u.name} ({uid}) leaves {name(sc, where)} for the "
                      f"southern flank (11.3).", unit=uid, origin=where, rule="11.3")
        elif where == "pool":
            place(rules, uid, "withdrawn")
            ctx.event("withdraw", f"{u.name} ({uid}) never enters the city (11.3).",
                      unit=uid, origin=None, rule="11.3")
        elif where == "eliminated":
            pending.append(uid)
    if pending:
        rules["substitute_for"] = pending


def substitutes(sc, rules: dict, black: str) -> tuple[list[str], str]:
    """11.3(1): German units on the map of the same arm; 11.3(2): if none, any."""
    arm = sc.units[black].arm
    on_map = side_units(sc, rules, "german", "map")
    same = [uid for uid in on_map if sc.units[uid].arm == arm]
    return (same, "11.3(1)") if same else (on_map, "11.3(2)")


def decision(sc, rules: dict) -> Need | None:
    black = rules["substitute_for"][0]
    cands, rule = substitutes(sc, rules, black)
    if len(cands) >= 2:
        return Need("german", "substitute", f"Choose the unit withdrawn in place of the "
                    f"eliminated {black}: {listing(cands)}.", ("substitute",), rule, True)
    return None


def _next_black(rules: dict) -> str:
    """Take the next black unit off the queue of substitutions."""
    black = rules["substitute_for"].pop(0)
    if not rules["substitute_for"]:
        del rules["substitute_for"]
    return black


def step(sc, rules: dict, ctx) -> bool:
    """Settle the next substitution alone if there is no choice; False if it waits."""
    if decision(sc, rules) is not None:
        return False
    black = _next_black(rules)
    cands, rule = substitutes(sc, rules, black)
    if cands:
        _remove(sc, rules, black, cands[0], rule, ctx, "the only possible unit")
    else:
        ctx.event("withdraw", f"No German unit is left on the map to leave in place of "
                  f"{black} ({rule}).", unit=None, instead_of=black, rule=rule)
    return True


def _remove(sc, rules: dict, black: str, uid: str, rule: str, ctx, how: str) -> None:
    here = rules["units"][uid]
    place(rules, uid, "withdrawn")
    ctx.event("withdraw", f"{sc.units[uid].name} ({uid}) leaves {name(sc, here)} in place of the "
              f"eliminated {sc.units[black].name} ({black}), {how} ({rule}).",
              unit=uid, instead_of=black, origin=here, rule=rule)


def answer(sc, rules: dict, need: Need, order: dict, ctx) -> None:
    known_unit(sc, rules, order)
    black = rules["substitute_for"][0]
    cands, rule = substitutes(sc, rules, black)
    uid = order["unit"]
    if uid not in cands:
        what = (f"a German {sc.units[black].arm} unit on the map" if rule == "11.3(1)"
                else "a German unit on the map")
        raise IllegalOrder(rule, f"{uid} is not {what} ({rule}); "
                           f"legal: {listing(cands)}.", legal_decision(sc, rules, need))
    _next_black(rules)
    how = ("by standing order withdrawal_substitute" if ctx.chosen_by == "policy"
           else "chosen by the German player")
    _remove(sc, rules, black, uid, rule, ctx, how)


def legal_decision(sc, rules: dict, need: Need) -> list[dict]:
    cands, _ = substitutes(sc, rules, rules["substitute_for"][0])
    return [{"type": "substitute", "unit": u} for u in cands]


def policy(sc, rules: dict, need: Need, pol: dict) -> dict | None:
    cands, _ = substitutes(sc, rules, rules["substitute_for"][0])
    how = pol["withdrawal_substitute"]
    if how == "ask":
        return None     # the German player's next packet names the unit (11.3(2))
    if how == "weakest":
        cands.sort(key=lambda u: (unit_strength(sc, rules, u), u))
    elif how == "strongest":
        cands.sort(key=lambda u: (-unit_strength(sc, rules, u), u))
    return {"type": "substitute", "unit": cands[0]}
