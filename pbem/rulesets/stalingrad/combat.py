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
    eliminated), or, for a unit at full strength that takes two points, one as a retreat
    (10.3) and the other as a step; a lone point is a step, and a reduced unit takes its
    point as a step and is eliminated (revised in 1.2.0: before, a reduced unit could shed
    its point by retreating, so a unit that could retreat never died and combat wore nothing
    down; and in 1.10.0: before, a full unit could shed a lone point by retreating, so a side
    that spread its points one to a unit lost no step at all).
6.6 The defender's losses are distributed and applied first, then the attacker's; then
    control is checked (house rule 4.3).
7   Tactical cards (the fragment's note: they let a player distribute the loss points
    among the enemy's units himself, but not apply them). Each side has the supply given
    in the scenario. A side whose result inflicts loss points on an enemy with two or
    more units in the area may play one card in that combat: it then distributes those
    points (6.4); the owner still applies them (6.5). The attacker decides first, then
    the defender.
"""

from __future__ import annotations

from ..base import IllegalOrder, Need
from . import retreat
from .areas import (FULL_STEPS, enemy, known_area, known_unit, listing, name,
                    occupancy, place, reduce, side_name, steps, unit_strength, units_in, update_control)

STAGES = ("card-attacker", "card-defender", "losses-defender", "losses-attacker")

# The combat in progress, `rules["combat"]`: `area`, `attacker`, `loss` {side: points it
# suffers}, `stage` (one of STAGES), and while they matter `cards` {side: played?} (sides
# that have decided), `to_allocate` (points still to distribute), `alloc` {unit: points},
# `apply_queue` (units whose points are still to apply) and `retreat` (a retreat waiting
# for the player's choice). Left out when empty; the defender, the suffering side and the
# side that distributes follow from the rest.


def _put_field(c: dict, key: str, value) -> None:
    """Set a field of the combat record, leaving it out when it is empty."""
    if value in (None, 0, [], {}):
        c.pop(key, None)
    else:
        c[key] = value


def defender(c: dict) -> str:
    return enemy(c["attacker"])


def suffering(c: dict) -> str | None:
    """The side whose losses are being distributed and applied (6.6), if any yet."""
    return {"losses-defender": defender(c), "losses-attacker": c["attacker"]}.get(c["stage"])


def allocator(c: dict) -> str:
    """The side that distributes the suffering side's points: its enemy if that side
    played a tactical card in this combat (house 7), else the side itself (6.4)."""
    side = suffering(c)
    return enemy(side) if c.get("cards", {}).get(enemy(side)) else side


# ---- declaring an attack (6.1, 6.2) -------------------------------------------------------

def attackable(sc, rules: dict) -> list[str]:
    done = rules["phase_state"].get("attacked", [])
    return [a for a, occ in occupancy(sc, rules).items()
            if a not in done and occ["german"] > 0 and occ["soviet"] > 0]


def legal(sc, rules: dict) -> list[dict]:
    return [{"type": "attack", "area": a} for a in attackable(sc, rules)]


def table(sc, strength: int, die: int) -> int:
    for col in sc.loss_table:
        if col.min <= strength <= col.max:
            return col.results[die - 1]
    return 0


def declare(sc, rules: dict, side: str, order: dict, ctx) -> None:
    area = known_area(sc, order, "area", lambda: legal(sc, rules))
    ps = rules["phase_state"]
    foe = enemy(side)
    att, dfd = units_in(sc, rules, area, side), units_in(sc, rules, area, foe)
    if area in ps.get("attacked", []) or not (att and dfd):   # not one of `attackable`
        ok = attackable(sc, rules)
        why = ("was already attacked this phase" if area in ps.get("attacked", [])
               else "does not hold units of both sides")
        raise IllegalOrder("house 6.1", f"{area} {why} (house 6.1); "
                           f"areas where the {side} side may attack: {listing(ok)}.", legal(sc, rules))
    ps["attacked"] = sorted(ps.get("attacked", []) + [area])
    n = len(ps["attacked"])  # the ordinal of this combat in the phase
    s_att = sum(unit_strength(sc, rules, u) for u in att)
    s_def = sum(unit_strength(sc, rules, u) for u in dfd)
    label = f"t{rules['turn']}.{side}.combat{n}"
    die_att = ctx.d6(label + ".attacker")
    die_def = ctx.d6(label + ".defender")
    to_def = table(sc, s_att, die_att)
    cover = sc.areas[area].cover
    engineers = any(sc.units[u].arm == "engineers" for u in att)
    covered = 0 if engineers else min(cover, to_def)
    to_def -= covered
    to_att = table(sc, s_def, die_def)
    cover_text = (f" ({to_def + covered} less {covered} for cover)" if covered
                  else (", engineers cancel the cover" if cover and engineers else ""))
    ctx.event("combat", f"The {side_name(side)} side attacks in {name(sc, area)}: strength {s_att} "
              f"rolls {die_att} and inflicts {_points(to_def)}{cover_text}; the {side_name(foe)} "
              f"strength {s_def} rolls {die_def} and inflicts {to_att} (house 6.2).",
              area=area, attacker=side, defender=foe, strength={side: s_att, foe: s_def},
              dice={side: die_att, foe: die_def}, loss={foe: to_def, side: to_att},
              cover=covered, rule="house 6.2", house_rule=True)
    rules["combat"] = {"area": area, "attacker": side, "loss": {foe: to_def, side: to_att},
                       "stage": "card-attacker"}


# ---- the sub-steps of a combat in progress ------------------------------------------------

def _stage_side(c: dict) -> str:
    return c["attacker"] if c["stage"] in ("card-attacker", "losses-attacker") else defender(c)


def _card_eligible(sc, rules: dict, c: dict, side: str) -> bool:
    """House 7: a card to distribute the enemy's loss points, when there is a distribution to
    choose (house 6.4, `_choice`): else a card would be spent for nothing."""
    foe = enemy(side)
    return rules["cards"][side] > 0 and _choice(_steps_in(sc, rules, c, foe), c["loss"][foe])


def _steps_in(sc, rules: dict, c: dict, side: str) -> list[int]:
    """The steps of each unit of `side` in the combat's area: the loss points each can take."""
    return [steps(rules, u) for u in units_in(sc, rules, c["area"], side)]


def _choice(caps: list[int], points: int) -> bool:
    """House 6.4: a distribution to choose: two or more units, and fewer loss points than they
    can take in all (else every unit takes all it can)."""
    return len(caps) >= 2 and 0 < points < sum(caps)


def _capacity(rules: dict, c: dict, uid: str) -> int:
    return steps(rules, uid) - c.get("alloc", {}).get(uid, 0)


def _alloc_candidates(sc, rules: dict, c: dict) -> list[str]:
    return [u for u in units_in(sc, rules, c["area"], suffering(c)) if _capacity(rules, c, u) > 0]


def _points(n: int) -> str:
    return f"{n} loss point{'' if n == 1 else 's'}"


def decision(sc, rules: dict) -> Need | None:
    """The decision the combat in progress waits for, or None if it can go on alone."""
    c = rules["combat"]
    st = c["stage"]
    if st.startswith("card-"):
        side = _stage_side(c)
        if side not in c.get("cards", {}) and _card_eligible(sc, rules, c, side):
            return Need(side, "tactical-card",
                        f"Play a tactical card to distribute the {_points(c['loss'][enemy(side)])} of the "
                        f"{side_name(enemy(side))} units in {c['area']}?",
                        ("card",), "house 7", True)
        return None
    if "retreat" in c:
        p = c["retreat"]
        owner = sc.units[p["unit"]].side
        return Need(owner, "retreat", f"Choose where {p['unit']} retreats: "
                    f"{listing(p['options'])}.", ("retreat",),
                    "10.3(2)" if p["step"] == 2 else "10.3(1)", True)
    if c.get("to_allocate", 0) > 0:
        if _choice([_capacity(rules, c, u) for u in _alloc_candidates(sc, rules, c)], c["to_allocate"]):
            return Need(allocator(c), "allocate-loss",
                        f"Put one of {_points(c['to_allocate'])} on a {side_name(suffering(c))} unit "
                        f"in {c['area']}.", ("allocate",), "house 6.4", True)
        return None
    if c.get("apply_queue"):
        uid = c["apply_queue"][0]
        if not may_retreat(rules, c, uid):
            return None  # a lone point, or a point on a reduced unit, is a step: no choice (house 6.5)
        return Need(suffering(c), "apply-loss",
                    f"Apply the {_points(c['alloc'][uid])} of {uid}: as steps, or one as a "
                    f"retreat.", ("apply",), "house 6.5", True)
    return None


# Why house 6.5 was revised (1.2.0, 1.10.0), for the events it decides alone and the README.
ATTRITION = ("house 6.5 revised in 1.2.0 and 1.10.0: a retreat takes the second of two loss points on "
             "a full unit, never a lone point, so that units die in sustained fighting")


def _allocation_rank(sc, rules: dict, c: dict, uid: str, how: str) -> tuple:
    """Where the next loss point goes first, by standing order. A point on a reduced unit
    eliminates it; so does a second point on a full unit that has nowhere to retreat (10.3),
    counting the stacking limit as the retreat will (10.3(2): a full area it must retreat to
    and nothing one area further is nowhere); a full unit that can retreat takes two points
    as a step and a retreat (house 6.5).
    `save-units`: a full unit already hit that can retreat, then untouched full units, the
    weakest first, then the points that eliminate a unit, on the weakest. `kill-units` (a card
    player's): the points that eliminate a unit first, on the strongest, then untouched full
    units, the strongest first, then a full unit already hit. (Until 1.13.0 the full unit
    already hit came before the untouched ones: since house 6.5's revision in 1.10.0 a lone
    point is a step and a second one on the same unit may be taken as a retreat, so the card
    put its points where the owner's `save-units` would have, and changed nothing: a rules
    review found 106 of 271 cards of 40 bot games so spent. One point on each of two full
    units costs the owner two steps and no retreat.)"""
    hit = c.get("alloc", {}).get(uid, 0) > 0
    strength = unit_strength(sc, rules, uid)
    kills = steps(rules, uid) != FULL_STEPS or hit and not retreat.can_retreat(sc, rules, uid)
    if how == "save-units":
        return (2 if kills else 0 if hit else 1, strength)
    return (0 if kills else 2 if hit else 1, -strength)


def may_retreat(rules: dict, c: dict, uid: str) -> bool:
    """House 6.5 (revised in 1.2.0 and 1.10.0): only a unit at full strength that takes two
    points may take one as a retreat (and the other as a step); a lone point is a step, and a
    reduced unit takes its point as a step and is eliminated. (A stalingrad probe: with a
    lone point taken as a retreat, a side that spread its points one to a unit lost no step,
    and `apply_losses: retreat` won about 15 games in 100 more than the default.)"""
    return steps(rules, uid) == FULL_STEPS and c.get("alloc", {}).get(uid, 0) >= 2


def _start_losses(sc, rules: dict, c: dict, stage: str, ctx) -> None:
    c["stage"] = stage
    side = suffering(c)
    cap = sum(_steps_in(sc, rules, c, side))
    points = c["loss"][side]
    if points > cap:
        ctx.event("losses", f"The {side_name(side)} units in {name(sc, c['area'])} can take only {cap} "
                  f"of {_points(points)}; the rest are lost (house 6.4).", side=side,
                  area=c["area"], points=points, taken=cap, rule="house 6.4", house_rule=True)
        points = cap
    for key in ("alloc", "apply_queue", "retreat"):
        c.pop(key, None)
    _put_field(c, "to_allocate", points)


def _queue_applications(c: dict) -> None:
    c.pop("to_allocate", None)
    _put_field(c, "apply_queue", sorted(u for u, p in c.get("alloc", {}).items() if p > 0))


def _put(sc, c: dict, uid: str, points: int, ctx, how: str) -> None:
    alloc = c.setdefault("alloc", {})
    alloc[uid] = alloc.get(uid, 0) + points
    c["to_allocate"] -= points
    ctx.event("allocate", f"{_points(points)} on {sc.units[uid].name} ({uid}), {how} (house 6.4).",
              unit=uid, points=points, allocator=allocator(c), rule="house 6.4",
              house_rule=True)
    if c["to_allocate"] == 0:
        _queue_applications(c)


def step(sc, rules: dict, ctx) -> bool:
    """Do the next automatic part of the combat in progress. Returns False when it waits
    for a decision (see `decision`)."""
    if decision(sc, rules) is not None:
        return False
    c = rules["combat"]
    st = c["stage"]
    if st == "card-attacker":
        c["stage"] = "card-defender"
        return True
    if st == "card-defender":
        _start_losses(sc, rules, c, "losses-defender", ctx)
        return True
    if c.get("to_allocate", 0) > 0:
        cands = _alloc_candidates(sc, rules, c)
        if not cands:
            _queue_applications(c)
            return True
        for uid in cands:  # no choice: every unit takes what it can (house 6.4)
            n = min(_capacity(rules, c, uid), c["to_allocate"])
            if n:
                _put(sc, c, uid, n, ctx, "the only possible distribution")
        return True
    if c.get("apply_queue"):  # a lone point, or a point on a reduced unit: a step (house 6.5)
        uid = c["apply_queue"].pop(0)
        _put_field(c, "apply_queue", c["apply_queue"])
        why = (" (a reduced unit cannot take its point as a retreat)" if steps(rules, uid) != FULL_STEPS
               else " (a lone point is a step: a retreat takes the second of two)")
        _apply_points(sc, rules, c, uid, "step", ctx, why, ATTRITION)
        return True
    if st == "losses-defender":
        _start_losses(sc, rules, c, "losses-attacker", ctx)
        return True
    update_control(sc, rules, ctx)  # 6.6 / house 4.3
    del rules["combat"]
    return True


def _policy_note(ctx, standing: str) -> str:
    return f" (standing order {standing})" if ctx.chosen_by == "policy" else ""


def answer(sc, rules: dict, need: Need, order: dict, ctx) -> None:
    c = rules["combat"]
    kind = need.kind
    if kind == "tactical-card":
        play = order.get("play")
        if not isinstance(play, bool):
            raise IllegalOrder("house 7", "`play` must be true or false (house 7); legal: play: true, play: false.",
                               legal_decision(sc, rules, need))
        side = need.side
        c.setdefault("cards", {})[side] = play
        if play:
            rules["cards"][side] -= 1
        note = _policy_note(ctx, "tactical_card")
        ctx.event("card", (f"The {side_name(side)} side plays a tactical card and will distribute the "
                           f"{side_name(enemy(side))} loss points itself{note} (house 7)." if play else
                           f"The {side_name(side)} side keeps its tactical cards{note} (house 7)."),
                  side=side, play=play, cards_left=rules["cards"][side], rule="house 7",
                  house_rule=True)
        return
    if kind == "allocate-loss":
        unit = known_unit(sc, rules, order)
        uid = order["unit"]
        cands = _alloc_candidates(sc, rules, c)
        if uid not in cands:
            raise IllegalOrder("house 6.4", f"{uid} cannot take a "
                               f"loss point in this combat (house 6.4); legal units: "
                               f"{listing(cands)}.", legal_decision(sc, rules, need))
        by = allocator(c)
        std = "allocate_own_losses" if by == unit.side else "allocate_enemy_losses"
        _put(sc, c, uid, 1, ctx, f"by the {side_name(by)} side" + _policy_note(ctx, std))
        return
    if kind == "apply-loss":
        known_unit(sc, rules, order)
        uid, how = order["unit"], order.get("how")
        queue = c["apply_queue"]
        if uid != queue[0] or how not in ("step", "retreat"):
            raise IllegalOrder("house 6.5", f"the losses to apply "
                               f"now are those of {queue[0]} (house 6.5); legal: "
                               f"how: step or how: retreat for {queue[0]}.",
                               legal_decision(sc, rules, need))
        queue.pop(0)
        _put_field(c, "apply_queue", queue)
        _apply_points(sc, rules, c, uid, how, ctx, _policy_note(ctx, "apply_losses"))
        return
    if kind == "retreat":
        p = c["retreat"]
        known_unit(sc, rules, order)
        to = known_area(sc, order, "to", lambda: legal_decision(sc, rules, need))
        if order["unit"] != p["unit"] or to not in p["options"]:
            raise IllegalOrder(need.rule, f"{p['unit']} must retreat "
                               f"to one of the areas 10.3(1) ranks first ({need.rule}); legal: "
                               f"{listing(p['options'])}.", legal_decision(sc, rules, need))
        if ctx.chosen_by == "policy":
            ctx.event("retreat-choice", f"The {side_name(sc.units[p['unit']].side)} side picks {name(sc, to)} for "
                      f"{p['unit']} by standing order retreat_tie ({need.rule}).", unit=p["unit"], to=to,
                      rule=need.rule)
        _put_field(c, "retreat", retreat.choose(sc, rules, p, to, ctx))
        return
    raise AssertionError(kind)


def _apply_points(sc, rules: dict, c: dict, uid: str, how: str, ctx, note: str,
                  reason: str | None = None) -> None:
    """House 6.5: the unit's points as step losses, or one as a retreat (10.3) and the rest
    as steps. `reason`: why the rule decided alone (an event field)."""
    points = c["alloc"][uid]
    unit = sc.units[uid]
    lost = points if how == "step" else points - 1
    if lost:
        left = steps(rules, uid) - lost
        if left <= 0:
            here = rules["units"][uid]
            place(rules, uid, "eliminated")
            fields = {"reason": reason} if reason else {}
            ctx.event("eliminated", f"{unit.name} ({uid}) takes {lost} step "
                      f"loss{'es' if lost > 1 else ''} in {name(sc, here)} and is "
                      f"eliminated{note} (house 6.5).", unit=uid, side=unit.side, origin=here,
                      rule="house 6.5", house_rule=True, **fields)
            return
        reduce(rules, uid)
        ctx.event("step-loss", f"{unit.name} ({uid}) is reduced{note} (house 6.5).",
                  unit=uid, side=unit.side, steps=left, rule="house 6.5", house_rule=True)
    if how == "retreat":
        ctx.event("retreat-order", f"{unit.name} ({uid}) takes one loss point as a "
                  f"retreat{note} (house 6.5).", unit=uid, side=unit.side,
                  rule="house 6.5", house_rule=True)
        _put_field(c, "retreat", retreat.start(sc, rules, uid, ctx))


def legal_decision(sc, rules: dict, need: Need) -> list[dict]:
    c = rules["combat"]
    if need.kind == "tactical-card":
        return [{"type": "card", "play": True}, {"type": "card", "play": False}]
    if need.kind == "allocate-loss":
        return [{"type": "allocate", "unit": u} for u in _alloc_candidates(sc, rules, c)]
    if need.kind == "apply-loss":
        uid = c["apply_queue"][0]
        return [{"type": "apply", "unit": uid, "how": "step"},
                {"type": "apply", "unit": uid, "how": "retreat"}]
    if need.kind == "retreat":
        p = c["retreat"]
        return [{"type": "retreat", "unit": p["unit"], "to": a} for a in p["options"]]
    return []


def policy(sc, rules: dict, need: Need, pol: dict) -> dict | None:
    c = rules["combat"]
    if need.kind == "tactical-card":
        how = pol["tactical_card"]
        inflicted = c["loss"][enemy(need.side)]
        play = {"always": True, "never": False, "at-least-2": inflicted >= 2,
                "at-least-3": inflicted >= 3}[how]
        return {"type": "card", "play": play}
    if need.kind == "allocate-loss":
        mine = allocator(c) == suffering(c)
        how = pol["allocate_own_losses" if mine else "allocate_enemy_losses"]
        cands = _alloc_candidates(sc, rules, c)
        if how in ("save-units", "kill-units"):
            cands.sort(key=lambda u: (_allocation_rank(sc, rules, c, u, how), u))
        elif how == "strongest-first":
            cands.sort(key=lambda u: (-unit_strength(sc, rules, u), u))
        elif how == "weakest-first":
            cands.sort(key=lambda u: (unit_strength(sc, rules, u), u))
        return {"type": "allocate", "unit": cands[0]}
    if need.kind == "apply-loss":
        uid = c["apply_queue"][0]
        how = pol["apply_losses"]
        if how == "save-units":
            how = "retreat" if c["alloc"][uid] >= steps(rules, uid) else "step"
        return {"type": "apply", "unit": uid, "how": how}
    if need.kind == "retreat":
        p = c["retreat"]
        if pol["retreat_tie"] == "ask":
            return None
        return {"type": "retreat", "unit": p["unit"],
                "to": retreat.policy_choice(sc, rules, p, pol["retreat_tie"])}
    return None
