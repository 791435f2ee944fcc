"""Combat: house rules 6 and 7, NOT from the fragment, feeding the fragment's retreat
(10.3) and its note on tactical cards.

6.1 In its combat phase a side may attack once in each area that holds units of both
    sides (order `attack`). All units of both sides in the area take part.
6.2 Both sides fire at once: each rolls one die on the loss table (scenario data) in the
    column of the total strength of its units there; the result is the loss points the
    enemy suffers.
6.3 The area's cover reduces the loss points the defender suffers, unless the attacker
    has an engineers unit in the area.
6.4 Loss points are distributed among the suffering side's units one point at a time; a
    unit takes at most as many points as it has steps; points beyond that are lost.
6.5 The owner applies each of its units' points: all as step losses (full -> reduced ->
    eliminated), or one as a retreat (10.3) and the rest as step losses.
6.6 The defender's losses are distributed and applied first, then the attacker's; then
    control is checked (house rule 4.3).
7   Tactical cards (the fragment's note: they let a player distribute the loss points
    among the enemy's units himself, but not apply them). Each side has the supply given
    in the scenario. A side that inflicts loss points on two or more enemy units may play
    one card in that combat: it then distributes those points (6.4); the owner still
    applies them (6.5). The attacker decides first, then the defender.
"""

from __future__ import annotations

from ..base import IllegalOrder, Need
from . import retreat
from .areas import (contested, describe, enemy, known_area, known_unit, listing, name,
                    unit_strength, units_in, update_control)

STAGES = ("card-attacker", "card-defender", "losses-defender", "losses-attacker")


# ---- declaring an attack (6.1, 6.2) -------------------------------------------------------

def attackable(rules: dict) -> list[str]:
    done = rules["phase_state"]["attacked"]
    return [a for a in sorted(rules["areas"]) if a not in done and contested(rules, a)]


def legal(rules: dict) -> list[dict]:
    return [{"type": "attack", "area": a} for a in attackable(rules)]


def table(rules: dict, strength: int, die: int) -> int:
    for col in rules["loss_table"]:
        if col["min"] <= strength <= col["max"]:
            return col["results"][die - 1]
    return 0


def declare(rules: dict, side: str, order: dict, ctx) -> None:
    area = known_area(rules, order, "area")
    ok = attackable(rules)
    if area not in ok:
        why = ("was already attacked this phase" if area in rules["phase_state"]["attacked"]
               else "does not hold units of both sides")
        raise IllegalOrder("house 6.1", f"Order '{describe(order)}': {area} {why} (house 6.1); "
                           f"areas where the {side} side may attack: {listing(ok)}.", legal(rules))
    ps = rules["phase_state"]
    ps["attacked"] = sorted(ps["attacked"] + [area])
    ps["combats"] += 1
    n = ps["combats"]
    foe = enemy(side)
    att, dfd = units_in(rules, area, side), units_in(rules, area, foe)
    s_att = sum(unit_strength(rules["units"][u]) for u in att)
    s_def = sum(unit_strength(rules["units"][u]) for u in dfd)
    label = f"t{rules['turn']}.{side}.combat{n}"
    die_att = ctx.d6(label + ".attacker")
    die_def = ctx.d6(label + ".defender")
    to_def = table(rules, s_att, die_att)
    cover = rules["areas"][area]["cover"]
    engineers = any(rules["units"][u]["arm"] == "engineers" for u in att)
    covered = 0 if engineers else min(cover, to_def)
    to_def -= covered
    to_att = table(rules, s_def, die_def)
    cover_text = (f", cover saves {covered}" if covered
                  else (", engineers cancel the cover" if cover and engineers else ""))
    ctx.event("combat", f"The {side} side attacks in {name(rules, area)}: strength {s_att} "
              f"rolls {die_att} and inflicts {to_def} loss points{cover_text}; the {foe} "
              f"strength {s_def} rolls {die_def} and inflicts {to_att} (house 6.2).",
              area=area, attacker=side, defender=foe, strength={side: s_att, foe: s_def},
              dice={side: die_att, foe: die_def}, loss={foe: to_def, side: to_att},
              cover=covered, rule="house 6.2", house_rule=True)
    rules["combat"] = {
        "area": area, "n": n, "attacker": side, "defender": foe,
        "loss": {foe: to_def, side: to_att},
        "cards": {side: None, foe: None},
        "stage": "card-attacker",
        "suffering": None, "allocator": None, "to_allocate": 0, "alloc": {},
        "apply_queue": [], "retreat": None,
    }


# ---- the sub-steps of a combat in progress ------------------------------------------------

def _stage_side(c: dict) -> str:
    return c["attacker"] if c["stage"] in ("card-attacker", "losses-attacker") else c["defender"]


def _card_eligible(rules: dict, c: dict, side: str) -> bool:
    foe = enemy(side)
    return (rules["cards"][side] > 0 and c["loss"][foe] > 0
            and len(units_in(rules, c["area"], foe)) >= 2)


def _capacity(rules: dict, c: dict, uid: str) -> int:
    return rules["units"][uid]["steps"] - c["alloc"].get(uid, 0)


def _alloc_candidates(rules: dict, c: dict) -> list[str]:
    return [u for u in units_in(rules, c["area"], c["suffering"]) if _capacity(rules, c, u) > 0]


def decision(rules: dict) -> Need | None:
    """The decision the combat in progress waits for, or None if it can go on alone."""
    c = rules["combat"]
    st = c["stage"]
    if st.startswith("card-"):
        side = _stage_side(c)
        if c["cards"][side] is None and _card_eligible(rules, c, side):
            return Need(side, "tactical-card",
                        f"Play a tactical card to distribute the {c['loss'][enemy(side)]} loss "
                        f"points of the {enemy(side)} units in {c['area']}?",
                        ("card",), "house 7", True)
        return None
    if c["retreat"] is not None:
        p = c["retreat"]
        owner = rules["units"][p["unit"]]["side"]
        return Need(owner, "retreat", f"Choose where {p['unit']} retreats: "
                    f"{listing(p['options'])}.", ("retreat",),
                    "10.3(2)" if p["step"] == 2 else "10.3(1)", True)
    if c["to_allocate"] > 0:
        cands = _alloc_candidates(rules, c)
        cap = sum(_capacity(rules, c, u) for u in cands)
        if len(cands) >= 2 and cap > c["to_allocate"]:
            return Need(c["allocator"], "allocate-loss",
                        f"Put one of {c['to_allocate']} loss points on a {c['suffering']} unit "
                        f"in {c['area']}.", ("allocate",), "house 6.4", True)
        return None
    if c["apply_queue"]:
        uid = c["apply_queue"][0]
        return Need(c["suffering"], "apply-loss",
                    f"Apply the {c['alloc'][uid]} loss points of {uid}: as steps, or one as a "
                    f"retreat.", ("apply",), "house 6.5", True)
    return None


def _start_losses(rules: dict, c: dict, side: str, ctx) -> None:
    c["suffering"] = side
    c["allocator"] = enemy(side) if c["cards"][enemy(side)] else side
    units = units_in(rules, c["area"], side)
    cap = sum(rules["units"][u]["steps"] for u in units)
    points = c["loss"][side]
    if points > cap:
        ctx.event("losses", f"The {side} units in {name(rules, c['area'])} can take only {cap} "
                  f"of {points} loss points; the rest are lost (house 6.4).", side=side,
                  area=c["area"], points=points, taken=cap, rule="house 6.4", house_rule=True)
        points = cap
    c["to_allocate"], c["alloc"], c["apply_queue"], c["retreat"] = points, {}, [], None


def _put(rules: dict, c: dict, uid: str, points: int, ctx, how: str) -> None:
    c["alloc"][uid] = c["alloc"].get(uid, 0) + points
    c["to_allocate"] -= points
    ctx.event("allocate", f"{points} loss point{'s' if points > 1 else ''} on "
              f"{rules['units'][uid]['name']} ({uid}), {how} (house 6.4).",
              unit=uid, points=points, allocator=c["allocator"], rule="house 6.4",
              house_rule=True)
    if c["to_allocate"] == 0:
        c["apply_queue"] = sorted(u for u, p in c["alloc"].items() if p > 0)


def step(rules: dict, ctx) -> bool:
    """Do the next automatic part of the combat in progress. Returns False when it waits
    for a decision (see `decision`)."""
    if decision(rules) is not None:
        return False
    c = rules["combat"]
    st = c["stage"]
    if st == "card-attacker":
        c["stage"] = "card-defender"
        return True
    if st == "card-defender":
        c["stage"] = "losses-defender"
        _start_losses(rules, c, c["defender"], ctx)
        return True
    if c["to_allocate"] > 0:
        cands = _alloc_candidates(rules, c)
        if not cands:
            c["to_allocate"] = 0
            c["apply_queue"] = sorted(u for u, p in c["alloc"].items() if p > 0)
            return True
        for uid in cands:  # no choice: every unit takes what it can (house 6.4)
            n = min(_capacity(rules, c, uid), c["to_allocate"])
            if n:
                _put(rules, c, uid, n, ctx, "the only possible distribution")
        return True
    if st == "losses-defender":
        c["stage"] = "losses-attacker"
        _start_losses(rules, c, c["attacker"], ctx)
        return True
    update_control(rules, ctx)  # 6.6 / house 4.3
    rules["combat"] = None
    return True


def _policy_note(ctx, standing: str) -> str:
    return f" (standing order {standing})" if ctx.chosen_by == "policy" else ""


def answer(rules: dict, need: Need, order: dict, ctx) -> None:
    c = rules["combat"]
    kind = need.kind
    if kind == "tactical-card":
        play = order.get("play")
        if not isinstance(play, bool):
            raise IllegalOrder("house 7", f"Order '{describe(order)}': `play` must be true or "
                               f"false (house 7); legal: play: true, play: false.", legal_decision(rules, need))
        side = need.side
        c["cards"][side] = play
        if play:
            rules["cards"][side] -= 1
        note = _policy_note(ctx, "tactical_card")
        ctx.event("card", (f"The {side} side plays a tactical card and will distribute the "
                           f"{enemy(side)} loss points itself{note} (house 7)." if play else
                           f"The {side} side keeps its tactical cards{note} (house 7)."),
                  side=side, play=play, cards_left=rules["cards"][side], rule="house 7",
                  house_rule=True)
        return
    if kind == "allocate-loss":
        unit = known_unit(rules, order)
        uid = order["unit"]
        cands = _alloc_candidates(rules, c)
        if uid not in cands:
            raise IllegalOrder("house 6.4", f"Order '{describe(order)}': {uid} cannot take a "
                               f"loss point in this combat (house 6.4); legal units: "
                               f"{listing(cands)}.", legal_decision(rules, need))
        mine = c["allocator"] == unit["side"]
        std = "allocate_own_losses" if mine else "allocate_enemy_losses"
        _put(rules, c, uid, 1, ctx, f"by the {c['allocator']} side" +
             _policy_note(ctx, std))
        return
    if kind == "apply-loss":
        known_unit(rules, order)
        uid, how = order["unit"], order.get("how")
        if uid != c["apply_queue"][0] or how not in ("step", "retreat"):
            raise IllegalOrder("house 6.5", f"Order '{describe(order)}': the losses to apply "
                               f"now are those of {c['apply_queue'][0]} (house 6.5); legal: "
                               f"how: step or how: retreat for {c['apply_queue'][0]}.",
                               legal_decision(rules, need))
        c["apply_queue"].pop(0)
        points = c["alloc"][uid]
        unit = rules["units"][uid]
        note = _policy_note(ctx, "apply_losses")
        steps = points if how == "step" else points - 1
        if steps:
            unit["steps"] -= steps
            if unit["steps"] <= 0:
                here = unit["area"]
                unit["steps"], unit["status"], unit["area"] = 0, "eliminated", None
                ctx.event("eliminated", f"{unit['name']} ({uid}) takes {steps} step losses in "
                          f"{name(rules, here)} and is eliminated{note} (house 6.5).", unit=uid,
                          side=unit["side"], origin=here, rule="house 6.5", house_rule=True)
                return
            ctx.event("step-loss", f"{unit['name']} ({uid}) is reduced{note} (house 6.5).",
                      unit=uid, side=unit["side"], steps=unit["steps"], rule="house 6.5",
                      house_rule=True)
        if how == "retreat":
            ctx.event("retreat-order", f"{unit['name']} ({uid}) takes one loss point as a "
                      f"retreat{note} (house 6.5).", unit=uid, side=unit["side"],
                      rule="house 6.5", house_rule=True)
            c["retreat"] = retreat.start(rules, uid, ctx)
        return
    if kind == "retreat":
        p = c["retreat"]
        known_unit(rules, order)
        to = known_area(rules, order, "to")
        if order["unit"] != p["unit"] or to not in p["options"]:
            raise IllegalOrder(need.rule, f"Order '{describe(order)}': {p['unit']} must retreat "
                               f"to one of the areas 10.3(1) ranks first ({need.rule}); legal: "
                               f"{listing(p['options'])}.", legal_decision(rules, need))
        unit = rules["units"][p["unit"]]
        if ctx.chosen_by == "policy":
            ctx.event("retreat-choice", f"The {unit['side']} side picks {name(rules, to)} for "
                      f"{p['unit']} by standing order retreat_tie ({need.rule}).", unit=p["unit"], to=to,
                      rule=need.rule)
        c["retreat"] = retreat.choose(rules, p, to, ctx)
        return
    raise AssertionError(kind)


def legal_decision(rules: dict, need: Need) -> list[dict]:
    c = rules["combat"]
    if need.kind == "tactical-card":
        return [{"type": "card", "play": True}, {"type": "card", "play": False}]
    if need.kind == "allocate-loss":
        return [{"type": "allocate", "unit": u} for u in _alloc_candidates(rules, c)]
    if need.kind == "apply-loss":
        uid = c["apply_queue"][0]
        return [{"type": "apply", "unit": uid, "how": "step"},
                {"type": "apply", "unit": uid, "how": "retreat"}]
    if need.kind == "retreat":
        p = c["retreat"]
        return [{"type": "retreat", "unit": p["unit"], "to": a} for a in p["options"]]
    return []


def policy(rules: dict, need: Need, pol: dict) -> dict | None:
    c = rules["combat"]
    if need.kind == "tactical-card":
        how = pol["tactical_card"]
        inflicted = c["loss"][enemy(need.side)]
        play = {"always": True, "never": False, "at-least-2": inflicted >= 2,
                "at-least-3": inflicted >= 3}[how]
        return {"type": "card", "play": play}
    if need.kind == "allocate-loss":
        mine = c["allocator"] == c["suffering"]
        how = pol["allocate_own_losses" if mine else "allocate_enemy_losses"]
        cands = _alloc_candidates(rules, c)
        if how == "strongest-first":
            cands.sort(key=lambda u: (-unit_strength(rules["units"][u]), u))
        elif how == "weakest-first":
            cands.sort(key=lambda u: (unit_strength(rules["units"][u]), u))
        return {"type": "allocate", "unit": cands[0]}
    if need.kind == "apply-loss":
        uid = c["apply_queue"][0]
        how = pol["apply_losses"]
        if how == "save-units":
            how = "retreat" if c["alloc"][uid] >= rules["units"][uid]["steps"] else "step"
        return {"type": "apply", "unit": uid, "how": how}
    if need.kind == "retreat":
        p = c["retreat"]
        return {"type": "retreat", "unit": p["unit"],
                "to": retreat.policy_choice(rules, p, pol["retreat_tie"])}
    return None
