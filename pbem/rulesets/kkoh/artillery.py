"""Indirect Fire (K-IF-1 to K-IF-10) with counter-battery (K-IF-10, K-SFX-2) and chemical
attack (K-SFX-4).

Bombardment only supports a Close Assault (K-IF-1). After a side has moved and declared its
assaults, the side that did not move calls first, then the mover (K-SEQ-2, reading of the
main text): each battery is tasked to one assault, dedicated to one friendly unit or group
in it (K-IF-7, K-CA-9), or to counter-battery (declared before its dice, K-IF-10). Then
every call is rolled: counter-battery first (K-IF-10 reading), then each battery's
availability roll against the table of K-IF-5 for its level and the Action Phase, with the
modifiers of K-IF-6. A battery that responds counts in its assault's factors (K-IF-9).
"""

from __future__ import annotations

from ..base import IllegalOrder
from .command import group_in_command, majority, special_left
from .common import dice_choice, lose
from .scenario import SIDES, Scenario, other
from .state import Board, mark

CALL_TYPES = ("bombard", "counter-battery", "chemical")

# K-IF-10 (L107), the effects of counter-battery fire in the words the Direct Fire line uses for
# its own ("no effect", "Give Ground", "a loss and Give Ground"), a loss said before the Give
# Ground as the events that follow it come
CB_EFFECT_WORDS = {"none": "no effect", "cancelled": "fire cancelled",
                   "cancelled-give-ground": "fire cancelled and Give Ground",
                   "cancelled-give-ground-loss": "fire cancelled, a loss and Give Ground"}


def calls(rules: dict, side: str) -> list[dict]:
    """The calls made so far by a side in this step (read only: never creates them)."""
    return rules["plans"].get("calls", {}).get(side, [])


def revealed_by_calls(sc: Scenario, rules: dict) -> list[str]:
    """The pieces whose sealed chits the calls made reveal (K-ORD-6), each once: the unit each
    bombardment supports (FA/FD +1, K-IF-6), and each bombarding battery an enemy counter-
    battery call can reach, whose roll its chit changes (target on HD3 or lower -1, K-IF-10,
    reaching as `resolve` has it, K-IF-2, K-IF-3); never the caller's own batteries, nor one out
    of its reach (a players' probe: every bombarding battery's chit was opened, the caller's own
    among them; a cheater's probe: a counter-battery call reaching nothing opened the enemy's)."""
    made = {side: calls(rules, side) for side in SIDES}
    board = Board(sc, rules)
    out = [c["support"] for side in SIDES for c in made[side] if c.get("support")]
    for side in SIDES:
        hunters = [c["unit"] for c in made[other(side)] if c["type"] == "counter-battery"]
        out += [c["unit"] for c in made[side] if c["type"] == "bombard" and board.alive(c["unit"])
                and any(board.alive(h) and in_reach(sc, board, h, board.piece(c["unit"])["sq"]) for h in hunters)]
    return list(dict.fromkeys(out))


def battery_block(sc: Scenario, board: Board, pid: str) -> str | None:
    """Why a unit may not fire indirectly in this Action Phase, or None (K-IF-4, K-DF-4, K-CA-8)."""
    rules = board.rules
    piece = sc.pieces[pid]
    if piece.if_class is None:
        return f"{pid} is not field or rocket artillery (K-ART-1)"
    if board.piece(pid).get("mode") == "limbered":
        return f"{pid} is limbered: only deployed guns fire (K-ART-7)"
    ps = rules["ps"]
    if pid in ps["fired"] or pid in ps["ifired"] or pid in ps["rolled"]:
        return f"{pid} has fired or been called in this Action Phase (K-IF-4, K-IF-7)"
    if pid in ps["left"] and not piece.sp:
        return f"{pid} moved to another square in this Action Phase and is not self-propelled (K-IF-4)"
    if piece.rocket and pid in rules["ts"]["rockets"]:
        return f"{pid} is rocket artillery and has fired this turn (K-ART-6, K-IF-4)"
    if pid in ps["engaged"] or any(pid in a["units"] for a in rules["assaults"]):
        return f"{pid} is engaged in a Close Assault in this Action Phase (K-IF-4, K-CA-8)"
    square = board.piece(pid)["sq"]
    if any(a["target"] == square and not a.get("done") for a in rules["assaults"]):
        return f"{pid} is in a square under Close Assault (K-IF-4, K-CA-8)"
    if any(c.get("unit") == pid for side in ("blue", "red") for c in calls(rules, side)):
        return f"{pid} is already called in this step (K-IF-7)"
    if needed(sc, rules, pid) is None:
        # NA on the availability table: no call to make (a rules lawyer's probe: offered and taken, the
        # call opened chits and spent the battery's roll for a fire that could not come)
        return (f"{pid} ({piece.level}) has no fire in Action Phase {rules['ap']}: the availability table gives its "
                f"level none then (K-IF-5)")
    return None


def in_reach(sc: Scenario, board: Board, pid: str, square: str) -> bool:
    """Range (diagonals counting one, the target square included) and arc: any row of squares
    in front of the battery's square (K-IF-2, K-IF-3)."""
    rec = board.piece(pid)
    if sc.grid.distance(rec["sq"], square) > sc.pieces[pid].if_range:
        return False
    ahead, _ = sc.grid.relative(rec["sq"], rec["f"], square)
    return ahead >= 1


def _assault(rules: dict, n) -> dict | None:
    return next((a for a in rules["assaults"] if a["n"] == n and not a.get("done")), None)


def chemical_due(rules: dict, side: str) -> int | None:
    """The Close Assault of the side's chemical attack declared in this step for which it has
    not yet called a battery, or None (K-SFX-4: the attack is declared "before any artillery
    fire is called for", for "a Close Assault that involves your bombarding artillery fire")."""
    made = calls(rules, side)
    return next((c["assault"] for c in made if c["type"] == "chemical" and
                 not any(b["type"] == "bombard" and b["assault"] == c["assault"] for b in made)), None)


def _supported(board: Board, side: str, a: dict) -> list[str]:
    """The side's units in the assault `a` that a battery's fire may be dedicated to (K-CA-9,
    K-IF-7): its attackers (at most 3), or the at most 6 defenders of the square (K-GM-1)."""
    return a["units"] if a["side"] == side else board.at(a["target"], side)


def _can_bombard(sc: Scenario, board: Board, side: str, a: dict) -> bool:
    """Whether a battery of the side may now be called to bombard the assault `a` (K-IF-1..4),
    as `options` offers the call: a side with no unit there (a defender whose units have all
    left the square) has none."""
    return not a.get("breakthrough") and bool(_supported(board, side, a)) and any(
        pid in board.rules["pieces"] and battery_block(sc, board, pid) is None and in_reach(sc, board, pid, a["target"])
        for pid in sc.side_pieces[side])


def end_block(sc: Scenario, rules: dict, side: str, opts: list[dict] | None = None) -> str | None:
    """Why the side may not end its calls now, or None: a chemical attack declared waits for the
    bombardment it is declared for (K-SFX-4). It is declared only while that call can be made
    (`check_call`); should none be left, the side may end, never held in the step for good.
    `opts`: the side's `options` now, when the caller has them."""
    due = chemical_due(rules, side)
    if due is None or not (opts if opts is not None else options(sc, rules, side)):
        return None
    return (f"end: {side} has declared a chemical attack on Close Assault {due}: call a battery to bombard it first; the "
            f"attack is made with your bombarding artillery fire (K-SFX-4)")


def check_call(sc: Scenario, rules: dict, side: str, order: dict) -> dict:
    board = Board(sc, rules)
    kind = order["type"]
    due = chemical_due(rules, side)
    if kind == "chemical":
        a = _assault(rules, order.get("assault"))
        if a is None:
            raise IllegalOrder("K-SFX-4", f"chemical: there is no Close Assault {order.get('assault')!r} to support", None)
        if special_left(sc, rules, side, "chemical") <= 0:
            raise IllegalOrder("K-SFX-4", f"chemical: {side} has no chemical attack left (K-SFX-4)", None)
        # K-SFX-4 "One attack is allowed per Close Assault": one of the side's attacks per assault
        # (README reading: each side may make its own)
        if any(c["type"] == "chemical" and c["assault"] == a["n"] for c in calls(rules, side)):
            raise IllegalOrder("K-SFX-4", "chemical: one chemical attack per Close Assault (K-SFX-4)", None)
        # K-SFX-4 "This must be declared before any artillery fire is called for": before the side
        # calls any battery for that assault, then followed by the call (`chemical_due`)
        if any(c["type"] == "bombard" and c["assault"] == a["n"] for c in calls(rules, side)):
            raise IllegalOrder("K-SFX-4", f"chemical: {side} has already called artillery fire for Close Assault "
                               f"{a['n']}; a chemical attack must be declared before any artillery fire is called for "
                               f"(K-SFX-4)", None)
        if due is not None:
            raise IllegalOrder("K-SFX-4", f"chemical: call a battery for Close Assault {due} first, whose chemical attack "
                               f"is declared (K-SFX-4)", None)
        if not _can_bombard(sc, board, side, a):
            raise IllegalOrder("K-SFX-4", f"chemical: only with your bombarding artillery, and none of {side}'s batteries "
                               f"can be called for Close Assault {a['n']} (K-SFX-4, K-IF-1)", None)
        return {"type": "chemical", "assault": a["n"]}
    if due is not None and not (kind == "bombard" and order.get("assault") == due):
        raise IllegalOrder("K-SFX-4", f"{kind}: {side} has declared a chemical attack on Close Assault {due}: its next "
                           f"call is a battery to bombard that assault, the fire the attack is declared for (K-SFX-4)",
                           None)
    pid = order.get("unit")
    if pid not in rules["pieces"] or sc.pieces[pid].side != side:
        raise IllegalOrder("K-IF-1", f"{kind}: {pid!r} is not a unit of {side} on the table", None)
    why = battery_block(sc, board, pid)
    if why:
        raise IllegalOrder("K-IF-4", f"{kind}: {why}", None)
    if kind == "counter-battery":
        assets = bool(order.get("assets", False))
        if assets and special_left(sc, rules, side, "counter_battery") <= 0:
            raise IllegalOrder("K-SFX-2", f"counter-battery: {side} has no counter-battery assets left (K-SFX-2)", None)
        return {"type": "counter-battery", "unit": pid, "assets": assets}
    a = _assault(rules, order.get("assault"))
    if a is None:
        raise IllegalOrder("K-IF-1", f"bombard: there is no Close Assault {order.get('assault')!r} this step; "
                           f"bombardment only supports a Close Assault (K-IF-1)", None)
    if a.get("breakthrough"):
        raise IllegalOrder("K-IF-8", "bombard: no bombardment in a Breakthrough Close Assault (K-IF-8)", None)
    if not in_reach(sc, board, pid, a["target"]):
        raise IllegalOrder("K-IF-2", f"bombard: {a['target']} is out of {pid}'s range ({sc.pieces[pid].if_range}) or "
                           f"not in the rows ahead of its facing (K-IF-2, K-IF-3)", None)
    support = order.get("support")
    allowed = a["units"] if a["side"] == side else board.at(a["target"], side)
    if support not in allowed:
        raise IllegalOrder("K-CA-9", f"bombard: the fire is dedicated to one of your units in Close Assault {a['n']}: "
                           f"{', '.join(allowed)} (K-CA-9, K-IF-7)", allowed)
    return {"type": "bombard", "unit": pid, "assault": a["n"], "support": support}


def add_call(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    call = check_call(sc, rules, side, order)
    rules["plans"].setdefault("calls", {}).setdefault(side, []).append(call)
    if call.get("assets"):
        # K-SFX-2: an attempt is spent as it is declared, so the next call sees it gone (counted
        # as the fire resolved, one bought was used by every battery of a calls step)
        rules["used"][side]["counter_battery"] = rules["used"][side].get("counter_battery", 0) + 1
    if call["type"] == "chemical":
        rules["used"][side]["chemical"] = rules["used"][side].get("chemical", 0) + 1
        ctx.event("chemical", f"{side} declares a chemical attack on Close Assault {call['assault']} (K-SFX-4).", side=side,
                  assault=call["assault"], rule="K-SFX-4")
    else:
        what = ("counter-battery fire" + (" with its counter-battery assets" if call.get("assets") else "")
                if call["type"] == "counter-battery" else f"bombardment of Close Assault {call['assault']} for {call['support']}")
        ctx.event("call", f"{side} calls {call['unit']} for {what} (K-IF-5).", side=side, call=call["type"], unit=call["unit"],
                  assault=call.get("assault"), support=call.get("support"),
                  rule="K-IF-10" if call["type"] == "counter-battery" else "K-IF-5")


def options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    board = Board(sc, rules)
    out = []
    live = [a for a in rules["assaults"] if not a.get("done")]
    due = chemical_due(rules, side)
    if due is not None:
        # K-SFX-4: the chemical attack declared waits for its bombardment call, the only call now
        live = [a for a in live if a["n"] == due]
    assets = special_left(sc, rules, side, "counter_battery") > 0
    for pid in sc.side_pieces[side]:
        if pid not in rules["pieces"] or battery_block(sc, board, pid) is not None:
            continue
        for a in live:
            if a.get("breakthrough") or not in_reach(sc, board, pid, a["target"]):
                continue
            for support in _supported(board, side, a):      # every one is offered
                out.append({"type": "bombard", "unit": pid, "assault": a["n"], "support": support})
        if due is not None:
            continue
        out.append({"type": "counter-battery", "unit": pid, "assets": False})
        if assets:
            out.append({"type": "counter-battery", "unit": pid, "assets": True})     # K-SFX-2: +2 with the assets
    for a in live:
        try:
            check_call(sc, rules, side, {"type": "chemical", "assault": a["n"]})
        except IllegalOrder:
            continue
        out.append({"type": "chemical", "assault": a["n"]})
    return out


def can_call(sc: Scenario, rules: dict, side: str) -> bool:
    board = Board(sc, rules)
    live = [a for a in rules["assaults"] if not a.get("done") and not a.get("breakthrough")]
    return bool(live) and any(pid in rules["pieces"] and battery_block(sc, board, pid) is None
                              for pid in sc.side_pieces[side])


# --- resolution ------------------------------------------------------------------------------

def needed(sc: Scenario, rules: dict, pid: str) -> int | None:
    """The least adjusted score that brings the battery's fire now (K-IF-5), None: not available."""
    table = sc.tables["artillery"]["availability"][sc.pieces[pid].level]
    return table[rules["ap"] - 1]


def supported_body(sc: Scenario, board: Board, support: str, a: dict | None = None) -> list[str]:
    """The units the fire is called for (K-IF-6, K-IF-7, K-CA-9): for the attacker, the units
    actually in the assault (`a`) - one unit of a battle group that assaults alone (K-CA-3),
    or the part of it that assaults (K-CA-2), calls as what it is, not as its whole group; for
    the defender (who names his defending body only in the fight, K-CA-7), the supported unit's
    battle group. A supported unit no longer on the table: itself."""
    if not board.alive(support):
        return [support]
    if a is not None and a["side"] == sc.pieces[support].side and support in a["units"]:
        return [p for p in a["units"] if board.alive(p)]
    return board.members(support)


def call_modifiers(sc: Scenario, board: Board, support: str, a: dict | None = None) -> dict[str, int]:
    """K-IF-6, for the unit or group the fire is called for: the units in the assault `a`
    (`supported_body`), or, with no assault given, the supported unit's battle group."""
    m = sc.tables["artillery"]["modifiers"]
    # K-IF-6: "majority of own troops involved", "a single unit is calling", Out of Command: of
    # the supported body (K-CA-3: a unit of a group assaulting alone is a single unit calling)
    body = supported_body(sc, board, support, a)
    out: dict[str, int] = {}
    if majority(sc, [p for p in body if board.alive(p)], "I"):
        out["majority_inferior"] = m["majority_inferior"]
    if len(body) == 1:
        out["single_unit"] = m["single_unit"]
    if board.alive(support) and not group_in_command(sc, board, [p for p in body if board.alive(p)]):
        out["out_of_command"] = m["out_of_command"]
    if board.alive(support) and board.order(support) in ("FA", "FD"):
        out["fa_or_fd"] = m["fa_or_fd"]
    return out


def resolve(sc: Scenario, rules: dict, ctx) -> bool:
    """Roll every call of the step: counter-battery first, then availability (K-IF-5..10).
    False while a battery that Gives Ground waits for its owner's choice of place (K-GG-5):
    called again, it goes on with the next counter-battery call (each is marked `done`)."""
    from .giveground import give_ground, waiting

    board = Board(sc, rules)
    mover = rules["assaults"][0]["side"] if rules["assaults"] else rules["initiative"]
    order = (other(mover), mover)
    cancelled: list[str] = rules["plans"].setdefault("cancelled", [])
    cb = sc.tables["counter_battery"]
    label = f"t{rules['turn']}.ap{rules['ap']}.arty"
    for side in order:
        for call in [c for c in calls(rules, side) if c["type"] == "counter-battery" and not c.get("done")]:
            call["done"] = True
            pid = call["unit"]
            mark(rules, "ps", "rolled", pid)
            need = needed(sc, rules, pid)
            if need is None:
                ctx.event("arty-unavailable", f"{pid} ({sc.pieces[pid].level}) cannot fire in Action Phase {rules['ap']} "
                          f"(K-IF-5).", unit=pid, rule="K-IF-5")
                continue
            die = ctx.d6(f"{label}.cb.{pid}")
            if die < need:
                ctx.event("arty-roll", f"{pid} counter-battery: die {die}, {need} needed: no fire (K-IF-5).", unit=pid,
                          die=die, needed=need, success=False, rule="K-IF-10")
                continue
            ctx.event("arty-roll", f"{pid} counter-battery: die {die}, {need} needed: it fires (K-IF-5, K-IF-10).",
                      unit=pid, die=die, needed=need, success=True, rule="K-IF-10")
            mark(rules, "ps", "ifired", pid)
            if sc.pieces[pid].rocket:
                mark(rules, "ts", "rockets", pid)
            # counter-battery is Indirect Fire: range and arc, as any bombardment (K-IF-2, K-IF-3)
            targets = sorted(c["unit"] for c in calls(rules, other(side)) if c["type"] == "bombard" and c["unit"] not in cancelled
                             and board.alive(c["unit"]) and in_reach(sc, board, pid, board.piece(c["unit"])["sq"]))
            if not targets:
                ctx.event("counter-battery", f"{pid} finds no enemy battery trying to bombard in its range and arc "
                          f"(K-IF-3, K-IF-10).",
                          unit=pid, target=None, effect="none", rule="K-IF-10")
                continue
            target = targets[dice_choice(ctx, f"{label}.cb.{pid}.target", len(targets))]
            mods: dict[str, int] = {}
            if sc.pieces[pid].if_class == "H" or sc.pieces[pid].rocket:
                mods["heavy_or_rocket"] = cb["modifiers"]["heavy_or_rocket"]
            if sc.pieces[target].is_towed:
                mods["target_towed"] = cb["modifiers"]["target_towed"]
            from .command import below
            if below(sc, board.order(target), "HD3"):
                mods["target_hd3_or_lower"] = cb["modifiers"]["target_hd3_or_lower"]
            if board.damaged(pid):
                mods["firer_losses"] = cb["modifiers"]["firer_losses"]
            if call.get("assets"):
                mods["cb_assets"] = cb["modifiers"]["cb_assets"]
            effect_die = ctx.d6(f"{label}.cb.{pid}.effect")
            score = effect_die + sum(mods.values())
            effect = next(r["effect"] for r in cb["results"]
                          if (r["from"] is None or score >= r["from"]) and (r["to"] is None or score <= r["to"]))
            ctx.event("counter-battery", f"{pid} fires counter-battery at {target}: die {effect_die}" + "".join(
                f", {k.replace('_', ' ')} {v:+d}" for k, v in mods.items()) + f" = {score}: {CB_EFFECT_WORDS[effect]} "
                f"(K-IF-10).", unit=pid, target=target, die=effect_die, modifiers=mods, score=score, effect=effect,
                rule="K-IF-10")
            if effect != "none" and target not in cancelled:
                cancelled.append(target)
                cancelled.sort()
            if "loss" in effect:
                lose(sc, board, target, 1, ctx, "K-IF-10", "counter-battery fire")
            if "give-ground" in effect and board.alive(target):
                give_ground(sc, board, [target], board.piece(pid)["sq"], ctx, f"{label}.cb.{pid}.gg", fire=True,
                            rule="K-IF-10")
                if waiting(rules):
                    return False
    for side in order:
        for call in [c for c in calls(rules, side) if c["type"] == "bombard"]:
            pid, a = call["unit"], _assault(rules, call["assault"])
            mark(rules, "ps", "rolled", pid)
            if pid in cancelled or not board.alive(pid) or a is None:
                ctx.event("arty-cancelled", f"{pid}'s bombardment is cancelled (K-IF-10).", unit=pid, rule="K-IF-10")
                continue
            need = needed(sc, rules, pid)
            if need is None:
                ctx.event("arty-unavailable", f"{pid} ({sc.pieces[pid].level}) cannot fire in Action Phase {rules['ap']} "
                          f"(K-IF-5).", unit=pid, rule="K-IF-5")
                continue
            mods = call_modifiers(sc, board, call["support"], a)
            die = ctx.d6(f"{label}.{pid}")
            score = die + sum(mods.values())
            ok = score >= need
            ctx.event("arty-roll", f"{pid} ({sc.pieces[pid].level}) for Close Assault {a['n']}: die {die}" + "".join(
                f", {k.replace('_', ' ')} {v:+d}" for k, v in mods.items()) + f" = {score}, {need} needed: "
                + ("it fires" if ok else "no fire") + " (K-IF-5, K-IF-6).", unit=pid, assault=a["n"], die=die,
                modifiers=mods, score=score, needed=need, success=ok, rule="K-IF-5")
            if ok:
                mark(rules, "ps", "ifired", pid)
                if sc.pieces[pid].rocket:
                    mark(rules, "ts", "rockets", pid)
                # dedicated "to one particular friendly unit or Group" (K-IF-9): the group the unit
                # named fights in, as it fires; it goes on firing for the group's survivors (K-CAR-4)
                a.setdefault("fire", {}).setdefault(side, []).append(
                    {"unit": pid, "support": call["support"], "group": sorted(board.members(call["support"]))})
    for side in order:
        for call in calls(rules, side):
            if call["type"] == "chemical":
                a = _assault(rules, call["assault"])
                if a is not None:
                    a.setdefault("chemical", []).append(side)
    rules["plans"].pop("calls", None)
    rules["plans"].pop("cancelled", None)
    return True


def bombardment(sc: Scenario, board: Board, a: dict, engaged: dict[str, list[str]]) -> dict[str, int]:
    """The bombardment factors of an assault (K-CAF-1, L143-L147): batteries whose dedicated
    unit or group is engaged count; one more than the enemy +2, each further +1 (and the
    reverse); each heavy unit and each rocket unit +1 for the attacker, -1 for the defender;
    a chemical attack +2 for the side that made it (K-SFX-4)."""
    f = sc.tables["assault"]["factors"]
    fire = a.get("fire") or {}
    counts, heavy, rockets = {}, {}, {}
    for side, units in engaged.items():
        firing = [e["unit"] for e in fire.get(side, []) if set(e["group"]) & set(units)]
        counts[side] = len(firing)
        # a heavy rocket battery (the BM-21, printed "HR (20)") is a Heavy artillery unit and a
        # Rocket unit: each line of L143 counts it, as the points of L225 count it heavy and rocket
        heavy[side] = sum(1 for p in firing if sc.pieces[p].if_class == "H")
        rockets[side] = sum(1 for p in firing if sc.pieces[p].rocket)
    att, dfn = a["side"], other(a["side"])
    out: dict[str, int] = {}
    diff = counts.get(att, 0) - counts.get(dfn, 0)
    if diff > 0:
        out["bombardment"] = f["one_battery_more"] + (diff - 1) * f["each_further_battery_more"]
    elif diff < 0:
        out["bombardment"] = f["one_battery_fewer"] + (-diff - 1) * f["each_further_battery_fewer"]
    if heavy.get(att):
        out["attacker_heavy_artillery"] = heavy[att] * f["attacker_heavy_artillery"]
    if heavy.get(dfn):
        out["defender_heavy_artillery"] = heavy[dfn] * f["defender_heavy_artillery"]
    if rockets.get(att):
        out["attacker_rocket"] = rockets[att] * f["attacker_rocket"]
    if rockets.get(dfn):
        out["defender_rocket"] = rockets[dfn] * f["defender_rocket"]
    chem = a.get("chemical") or []
    if att in chem:
        out["chemical"] = f["chemical"]
    if dfn in chem:
        out["defender_chemical"] = -f["chemical"]
    return out
