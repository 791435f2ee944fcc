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
H8.1 Reinforcements not placed in their phase wait off the map and may be placed in any
     later reinforcement phase of their side.
H8.2 The stacking limit (10.3(2)) applies to placement, except Soviet units on crossings.
H8.3 Soviet units may be placed on, and shifted to, crossings the Soviet side controls.
H8.4 The withdrawal is carried out in a "german-withdrawal" phase at the end of turn 3:
     the black counters on the map leave first, then substitutions (11.3(1)-(2)) are
     chosen, then the German places his turn-4 reinforcements (11.3(3)); control is
     checked (house rule 4.3) only when the phase ends, so an area emptied and refilled
     at once never changes hands.
"""

from __future__ import annotations

from ..base import IllegalOrder, Need
from .areas import describe, has_room, known_area, known_unit, listing, name, unit_strength


def entry_turn(rules: dict) -> int:
    """Reinforcements of this turn enter now; in the withdrawal phase of turn 3 the
    German turn-4 reinforcements enter together with the withdrawal (11.3(3))."""
    return rules["turn"] + (1 if rules["phase"] == "german-withdrawal" else 0)


def available(rules: dict, side: str) -> list[str]:
    """11.1 and H8.1: units of `side` due by now and not yet placed."""
    due = entry_turn(rules)
    return [uid for uid, u in sorted(rules["units"].items())
            if u["side"] == side and u["status"] == "pool" and u["turn"] <= due]


def places(rules: dict, side: str) -> list[str]:
    """11.2(1) German: any German-controlled area (H8.2 stacking);
    11.2(2) Soviet: only crossings (H8.3 Soviet-controlled), no stacking limit."""
    out = []
    for area in sorted(rules["areas"]):
        a = rules["areas"][area]
        if a["control"] != side:
            continue
        if side == "soviet" and not a["crossing"]:
            continue
        if has_room(rules, area, side):
            out.append(area)
    return out


def shiftable(rules: dict) -> list[str]:
    """11.2(3): Soviet units on a crossing since before this phase, not yet shifted."""
    ps = rules["phase_state"]
    return [uid for uid, u in sorted(rules["units"].items())
            if u["side"] == "soviet" and u["status"] == "map" and u["area"] is not None
            and rules["areas"][u["area"]]["crossing"]
            and uid not in ps["placed"] and uid not in ps["shifted"]]


def legal(rules: dict, side: str) -> list[dict]:
    spots = places(rules, side)
    out = [{"type": "reinforce", "unit": uid, "area": a}
           for uid in available(rules, side) for a in spots]
    if side == "soviet" and rules["phase"] == "soviet-reinforcement":
        for uid in shiftable(rules):
            here = rules["units"][uid]["area"]
            out += [{"type": "shift", "unit": uid, "to": a} for a in spots if a != here]
    return out


def apply_reinforce(rules: dict, side: str, order: dict, ctx) -> None:
    unit = known_unit(rules, order)
    area = known_area(rules, order, "area")
    uid, text = order["unit"], describe(order)
    ready = available(rules, side)
    if uid not in ready:
        if unit["side"] != side:
            why = f"{uid} is a {unit['side']} unit"
        elif unit["status"] != "pool":
            why = f"{uid} is not waiting to enter ({unit['status']})"
        else:
            why = f"{uid} enters on turn {unit['turn']}"
        raise IllegalOrder("11.1", f"Order '{text}': {why} (11.1); reinforcements that may "
                           f"enter now: {listing(ready)}.", ready)
    spots = places(rules, side)
    if area not in spots:
        if side == "soviet" and not rules["areas"][area]["crossing"]:
            why, rule = "Soviet reinforcements may be placed only on crossings", "11.2(2)"
        elif rules["areas"][area]["control"] != side:
            why = f"{area} is not controlled by the {side} side"
            rule = "11.2(1)" if side == "german" else "11.2(2)"
        else:
            why, rule = f"{area} already holds {rules['stacking_limit']} {side} units", "11.2"
        raise IllegalOrder(rule, f"Order '{text}': {why} ({rule}); legal areas: "
                           f"{listing(spots)}.", [{"type": "reinforce", "unit": uid, "area": a}
                                                  for a in spots])
    unit["status"], unit["area"] = "map", area
    rules["phase_state"]["placed"] = sorted(rules["phase_state"]["placed"] + [uid])
    rule = "11.2(1)" if side == "german" else "11.2(2)"
    ctx.event("reinforce", f"{unit['name']} ({uid}) enters in {name(rules, area)} ({rule}).",
              unit=uid, side=side, area=area, rule=rule)


def apply_shift(rules: dict, order: dict, ctx) -> None:
    unit = known_unit(rules, order)
    to = known_area(rules, order, "to")
    uid, text = order["unit"], describe(order)
    ok = shiftable(rules)
    if uid not in ok:
        if unit["side"] != "soviet":
            why = f"{uid} is not a Soviet unit"
        elif uid in rules["phase_state"]["placed"]:
            why = f"{uid} entered this turn and was not on a crossing from the previous turn"
        elif uid in rules["phase_state"]["shifted"]:
            why = f"{uid} has already moved to another crossing this phase"
        else:
            why = f"{uid} is not on a crossing"
        raise IllegalOrder("11.2(3)", f"Order '{text}': {why} (11.2(3)); units that may move "
                           f"to another crossing: {listing(ok)}.", ok)
    here = unit["area"]
    spots = [a for a in places(rules, "soviet") if a != here]
    if to not in spots:
        raise IllegalOrder("11.2(3)", f"Order '{text}': {to} is not another Soviet-controlled "
                           f"crossing (11.2(3)); legal: {listing(spots)}.",
                           [{"type": "shift", "unit": uid, "to": a} for a in spots])
    unit["area"] = to
    rules["phase_state"]["shifted"] = sorted(rules["phase_state"]["shifted"] + [uid])
    ctx.event("shift", f"{unit['name']} ({uid}) moves from {name(rules, here)} to "
              f"{name(rules, to)} (11.2(3)).", unit=uid, side="soviet", origin=here, to=to,
              rule="11.2(3)")


# ---- 11.3 withdrawal ----------------------------------------------------------------------

def start_withdrawal(rules: dict, ctx) -> None:
    """11.3: the black counters on the map leave; black units already eliminated are
    queued for substitution (11.3(1)); black units never placed simply leave."""
    pending = []
    for uid, u in sorted(rules["units"].items()):
        if u["side"] != "german" or not u["black"]:
            continue
        if u["status"] == "map":
            here = u["area"]
            u["status"], u["area"] = "withdrawn", None
            ctx.event("withdraw", f"{u['name']} ({uid}) leaves {name(rules, here)} for the "
                      f"southern flank (11.3).", unit=uid, origin=here, rule="11.3")
        elif u["status"] == "pool":
            u["status"] = "withdrawn"
            ctx.event("withdraw", f"{u['name']} ({uid}) never enters the city (11.3).",
                      unit=uid, origin=None, rule="11.3")
        elif u["status"] == "eliminated":
            pending.append(uid)
    rules["withdrawal"] = {"pending": pending}


def substitutes(rules: dict, black: str) -> tuple[list[str], str]:
    """11.3(1): German units on the map of the same arm; 11.3(2): if none, any."""
    arm = rules["units"][black]["arm"]
    on_map = [uid for uid, u in sorted(rules["units"].items())
              if u["side"] == "german" and u["status"] == "map"]
    same = [uid for uid in on_map if rules["units"][uid]["arm"] == arm]
    return (same, "11.3(1)") if same else (on_map, "11.3(2)")


def decision(rules: dict) -> Need | None:
    black = rules["withdrawal"]["pending"][0]
    cands, rule = substitutes(rules, black)
    if len(cands) >= 2:
        return Need("german", "substitute", f"Choose the unit withdrawn in place of the "
                    f"eliminated {black}: {listing(cands)}.", ("substitute",), rule, True)
    return None


def step(rules: dict, ctx) -> bool:
    """Settle the next substitution alone if there is no choice; False if it waits."""
    if decision(rules) is not None:
        return False
    black = rules["withdrawal"]["pending"].pop(0)
    cands, rule = substitutes(rules, black)
    if cands:
        _remove(rules, black, cands[0], rule, ctx, "the only possible unit")
    else:
        ctx.event("withdraw", f"No German unit is left on the map to leave in place of "
                  f"{black} ({rule}).", unit=None, instead_of=black, rule=rule)
    return True


def _remove(rules: dict, black: str, uid: str, rule: str, ctx, how: str) -> None:
    u = rules["units"][uid]
    here = u["area"]
    u["status"], u["area"] = "withdrawn", None
    ctx.event("withdraw", f"{u['name']} ({uid}) leaves {name(rules, here)} in place of the "
              f"eliminated {rules['units'][black]['name']} ({black}), {how} ({rule}).",
              unit=uid, instead_of=black, origin=here, rule=rule)


def answer(rules: dict, need: Need, order: dict, ctx) -> None:
    known_unit(rules, order)
    black = rules["withdrawal"]["pending"][0]
    cands, rule = substitutes(rules, black)
    uid = order["unit"]
    if uid not in cands:
        what = (f"a German {rules['units'][black]['arm']} unit on the map" if rule == "11.3(1)"
                else "a German unit on the map")
        raise IllegalOrder(rule, f"Order '{describe(order)}': {uid} is not {what} ({rule}); "
                           f"legal: {listing(cands)}.", legal_decision(rules, need))
    rules["withdrawal"]["pending"].pop(0)
    how = ("by standing order withdrawal_substitute" if ctx.chosen_by == "policy"
           else "chosen by the German player")
    _remove(rules, black, uid, rule, ctx, how)


def legal_decision(rules: dict, need: Need) -> list[dict]:
    cands, _ = substitutes(rules, rules["withdrawal"]["pending"][0])
    return [{"type": "substitute", "unit": u} for u in cands]


def policy(rules: dict, need: Need, pol: dict) -> dict:
    cands, _ = substitutes(rules, rules["withdrawal"]["pending"][0])
    how = pol["withdrawal_substitute"]
    if how == "weakest":
        cands.sort(key=lambda u: (unit_strength(rules["units"][u]), u))
    elif how == "strongest":
        cands.sort(key=lambda u: (-unit_strength(rules["units"][u]), u))
    return {"type": "substitute", "unit": cands[0]}
