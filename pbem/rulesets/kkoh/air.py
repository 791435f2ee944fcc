"""Attack aircraft and air defence (K-AIR-1 to K-AIR-6) with Air Support (K-SFX-3).

In the Direct Fire section of Action Phase 4, after the ground fire (reading), each air unit
not yet arrived dices to arrive as Div/Corps artillery does in phase 4 (no other modifier;
+2 with Air Support). A fixed-wing unit is placed on the square it wants to hit; a die picks
the square attacked among it and the eight around it that hold units (K-AIR-2). A rotary-
wing unit is placed within two squares of a friendly unit and fires up to two squares
(K-AIR-5). Enemy AA within range fires first: one die per strength point, a 6 drives the
unit off for the day, a 5 aborts this run (K-AIR-6). The attack hits any unit of the square
(frontally): a loss on 5-6, a re-roll on 4, +1 against unarmoured vehicles; no Give Ground
(K-AIR-3). Aircraft "use Direct Fire" (K-AIR-3), so a unit that has Given Ground, or evaded
the fire, in this phase may not be attacked (K-DF-8, K-REC-2): a square holding none else is
no square to strike. Each air unit attacks in two consecutive turns, then leaves (K-AIR-4, K-AIR-5); a
rotary unit moves up to three squares before its second: as reconnaissance, one a phase, in
Action Phases 1 to 3 of the next turn (phase 4's movement comes after its Direct Fire).
"""

from __future__ import annotations

from ..base import IllegalOrder
from .command import special_left
from .common import dice_choice, lose
from .scenario import Scenario, other
from .state import Board

DECISIONS = ("air-support", "air-target", "air-unit")


def queue(sc: Scenario, rules: dict) -> list[str]:
    """The air units that act this turn, the side without initiative first."""
    first = other(rules["initiative"])
    out = []
    for side in (first, other(first)):
        for aid in sorted(a for a in sc.air if sc.air[a]["side"] == side):
            st = rules["air"][aid]
            if st["state"] == "ready" or (st["state"] == "active" and st.get("turn") == rules["turn"] - 1):
                out.append(aid)
            elif st["state"] == "active":
                st["state"] = "gone"     # its second attack was due last turn (K-AIR-4)
    return out


def begin(sc: Scenario, rules: dict) -> None:
    rules["plans"]["air"] = {"queue": queue(sc, rules), "now": None}


def targets(board: Board, square: str, side: str | None = None) -> list[str]:
    """The units in `square` (of `side`, if given) an air attack may hit: aircraft use Direct
    Fire (K-AIR-3), and a unit that has Given Ground (or evaded the fire, K-REC-2) in this phase
    may not be shot at again in it (K-DF-8)."""
    safe = spared(board.rules)
    return [p for p in board.at(square, side) if p not in safe]


def spared(rules: dict) -> set[str]:
    """The units no fire may hit again this phase: those that Gave Ground or evaded (K-DF-8, K-REC-2)."""
    ps = rules["ps"]
    return set(ps["gg"]) | set(ps["evaded"])


def decision(sc: Scenario, rules: dict) -> tuple[str, str, str] | None:
    plan = rules["plans"].get("air")
    if not plan or not plan["now"]:
        return None
    now = plan["now"]
    aid = now["id"]
    side = sc.air[aid]["side"]
    if now["stage"] == "support":
        return side, "air-support", f"{aid}: use Air Support (+2 to arrive, K-SFX-3)?"
    if now["stage"] == "target":
        return side, "air-target", f"{aid} ({sc.air[aid]['kind']}-wing) has arrived: choose where it attacks (K-AIR-2, K-AIR-5)"
    if now["stage"] == "unit":
        return now["chooser"], "air-unit", f"{aid} attacks {now['square']}: choose the unit it hits (K-AIR-3)"
    return None


def legal(sc: Scenario, rules: dict, kind: str) -> list[dict]:
    board = Board(sc, rules)
    now = rules["plans"]["air"]["now"]
    aid = now["id"]
    side = sc.air[aid]["side"]
    if kind == "air-support":
        return [{"type": "air-support", "use": True}, {"type": "air-support", "use": False}]
    if kind == "air-unit":
        # K-AIR-3 with K-DF-8: any unit of the square, but one that has Given Ground this phase
        return [{"type": "air-unit", "unit": p} for p in targets(board, now["square"])]
    # the squares holding an enemy unit it may hit (K-AIR-2, K-AIR-3, K-DF-8)
    enemy = [s for s in board.squares(other(side)) if targets(board, s, other(side))]
    if sc.air[aid]["kind"] == "fixed":
        return [{"type": "air-target", "square": s} for s in enemy]
    rot = sc.tables["air"]
    friends = board.squares(side)
    st = rules["air"][aid]
    if st["state"] == "active":     # second attack: it moves as reconnaissance from where it was
        places = list(_within(sc, st["sq"], rot["rotary_move"]))
    else:
        places = sorted({s for f in friends for s in _within(sc, f, rot["rotary_placement"])})
    out = []
    for place in places:
        reach = _within(sc, place, rot["rotary_range"])
        for target in enemy:
            if target in reach:
                out.append({"type": "air-target", "square": target, "from": place})
    return out


def _within(sc: Scenario, square: str, radius: int) -> dict[str, None]:
    """`sc.grid.within` (the squares at distance `radius` or less, sorted) as the keys of a dict:
    remembered in the scenario, the table never changes."""
    key = ("within", square, radius)
    found = sc.memo.get(key)
    if found is None:
        found = sc.memo[key] = dict.fromkeys(sc.grid.within(square, radius))
    return found


def support_helps(sc: Scenario, rules: dict) -> bool:
    """Whether the arriving air unit would find an enemy unit to attack, were it to arrive now
    (nothing moves between its arrival and its choice of target): Air Support spent on one that
    would find none buys nothing (K-SFX-3 with K-AIR-2), and no standing order spends it so."""
    return bool(legal(sc, rules, "air-target"))


def default(sc: Scenario, rules: dict, kind: str) -> dict:
    """The standing order `air_target: most-units`: attack the square with the most enemy units
    (from the nearest place); hit the strongest unit there. (Air Support, `air_support: use`,
    is flow.policy's, with `support_helps`.)"""
    options = legal(sc, rules, kind)
    board = Board(sc, rules)
    if kind == "air-unit":
        now = rules["plans"]["air"]["now"]
        chooser = now["chooser"]
        enemy = [o for o in options if sc.pieces[o["unit"]].side != chooser]
        pool = enemy or options
        return max(pool, key=lambda o: (board.points_left(o["unit"]), board.profile(o["unit"]).armour or "", o["unit"]))
    return max(options, key=lambda o: (len(targets(board, o["square"])), -sc.grid.distance(o.get("from", o["square"]), o["square"]),
                                       [-ord(c) for c in o["square"]]))


def run(sc: Scenario, rules: dict, ctx) -> None:
    """Work through the air units of the turn until one waits for a decision."""
    plan = rules["plans"]["air"]
    while True:
        if plan["now"] is None:
            if not plan["queue"]:
                return
            aid = plan["queue"].pop(0)
            plan["now"] = {"id": aid, "stage": "arrive"}
        now = plan["now"]
        if now["stage"] == "target" and not legal(sc, rules, "air-target"):
            # no enemy unit it may hit where it may strike (K-AIR-2, K-AIR-5; K-DF-8: not one that
            # has Given Ground this phase): no attack is made this turn
            ctx.event("air-no-target", f"{now['id']} finds no enemy unit it may attack (K-AIR-2, K-AIR-3, K-DF-8).",
                      air=now["id"], rule="K-AIR-2")
            now["stage"] = "done"
            continue
        if decision(sc, rules) is not None:
            return
        if now["stage"] == "arrive":
            _arrive(sc, rules, now, ctx)
        elif now["stage"] == "attack":
            _attack(sc, rules, now, ctx)
        elif now["stage"] == "done":
            plan["now"] = None


def _arrive(sc: Scenario, rules: dict, now: dict, ctx) -> None:
    aid = now["id"]
    side = sc.air[aid]["side"]
    st = rules["air"][aid]
    if st["state"] == "active":
        now["stage"] = "target"       # the second attack of the day: it is already over the battlefield
        return
    if special_left(sc, rules, side, "air_support") > 0 and "support" not in now:
        now["stage"] = "support"
        return
    need = sc.tables["artillery"]["availability"][sc.tables["air"]["arrival_level"]][sc.tables["air"]["arrival_phase"] - 1]
    bonus = sc.tables["specials"]["air_support"]["bonus"] if now.get("support") else 0
    die = ctx.d6(f"t{rules['turn']}.air.{aid}.arrive")
    ok = die + bonus >= need
    ctx.event("air-arrival", f"{aid} dices to arrive: {die}" + (f" +{bonus} (Air Support)" if bonus else "")
              + f", {need} needed: " + ("it arrives" if ok else "it does not come this turn") + " (K-AIR-1).", side=side,
              air=aid, die=die, bonus=bonus, needed=need, success=ok, rule="K-SFX-3" if bonus else "K-AIR-1")
    now["stage"] = "target" if ok else "done"


def answer(sc: Scenario, rules: dict, kind: str, order: dict, ctx) -> None:
    options = legal(sc, rules, kind)
    if kind == "air-unit" and order not in options and order.get("unit") in spared(rules):
        raise IllegalOrder("K-DF-8", f"air-unit: {order['unit']} has Given Ground in this phase and may not be shot at "
                           f"again; aircraft use Direct Fire (K-AIR-3, K-DF-8)", options[:12])
    if kind == "air-target" and order not in options and order.get("square") in sc.grid:
        held = Board(sc, rules).at(order["square"], other(sc.air[rules["plans"]["air"]["now"]["id"]]["side"]))
        if held and set(held) <= spared(rules):
            raise IllegalOrder("K-DF-8", f"air-target: {', '.join(held)} in {order['square']} gave ground in this phase "
                               f"and may not be shot at again; aircraft use Direct Fire (K-AIR-3, K-DF-8)", options[:12])
    if order not in options:
        raise IllegalOrder("K-AIR-2", f"{kind}: that answer is not one of the legal ones now", options[:12])
    now = rules["plans"]["air"]["now"]
    aid = now["id"]
    side = sc.air[aid]["side"]
    if kind == "air-support":
        now["support"] = order["use"]
        if order["use"]:
            rules["used"][side]["air_support"] = rules["used"][side].get("air_support", 0) + 1
        now["stage"] = "arrive"
    elif kind == "air-target":
        now["aim"] = order["square"]
        now["from"] = order.get("from", order["square"])
        now["stage"] = "attack"
    elif kind == "air-unit":
        _hit(sc, rules, now, order["unit"], ctx)
        now["stage"] = "done"
    run(sc, rules, ctx)


def _attack(sc: Scenario, rules: dict, now: dict, ctx) -> None:
    board = Board(sc, rules)
    aid = now["id"]
    side = sc.air[aid]["side"]
    st = rules["air"][aid]
    first = st["state"] == "ready"
    st.update({"state": "active" if first else "gone", "turn": rules["turn"], "sq": now["from"]})
    label = f"t{rules['turn']}.air.{aid}"
    # K-AIR-6: enemy AA within range of the air unit fires first, every AA unit in range rolling
    # its dice: a 5 aborts this run, but a later unit's 6 still drives the air unit off for the day
    aborted = False
    for pid in sc.side_pieces[other(side)]:
        if not board.alive(pid) or sc.pieces[pid].aa_range is None:
            continue
        if sc.grid.distance(board.piece(pid)["sq"], now["from"]) > sc.pieces[pid].aa_range:
            continue
        dice = [ctx.d6(f"{label}.aa.{pid}") for _ in range(board.points_left(pid))]
        if 6 in dice:
            st["state"] = "gone"
            ctx.event("air-defence", f"{pid} fires at {aid}: {', '.join(map(str, dice))}: a 6 drives it away for the day "
                      f"(K-AIR-6).", unit=pid, air=aid, dice=dice, effect="driven-off", rule="K-AIR-6")
            now["stage"] = "done"
            return
        if 5 in dice:
            ctx.event("air-defence", f"{pid} fires at {aid}: {', '.join(map(str, dice))}: a 5 aborts this attack run "
                      f"(K-AIR-6).", unit=pid, air=aid, dice=dice, effect="aborted", rule="K-AIR-6")
            aborted = True
            continue
        ctx.event("air-defence", f"{pid} fires at {aid}: {', '.join(map(str, dice))}: no effect (K-AIR-6).", unit=pid,
                  air=aid, dice=dice, effect="none", rule="K-AIR-6")
    if aborted:
        now["stage"] = "done"
        return
    square = now["aim"]
    if sc.air[aid]["kind"] == "fixed":
        # K-AIR-2: the squares "that contain any units", among them the target square: a unit that
        # has Given Ground this phase may not be shot at again (K-AIR-3 "use Direct Fire", K-DF-8),
        # so a square holding no other unit is not among them
        candidates = [s for s in [square] + list(sc.neighbours[square]) if targets(board, s)]
        if len(candidates) > 1:
            square = candidates[dice_choice(ctx, f"{label}.square", len(candidates))]
            ctx.event("air-strike", f"{aid} strikes at {now['aim']}; among {', '.join(candidates)} the die picks {square} "
                      f"(K-AIR-2).", air=aid, aim=now["aim"], options=candidates, square=square, rule="K-AIR-2")
        elif candidates:
            square = candidates[0]      # no die: one square only
            ctx.event("air-strike", f"{aid} strikes at {now['aim']}; {square} is the only square there with a unit it "
                      f"may attack (K-AIR-2).", air=aid, aim=now["aim"], options=candidates, square=square,
                      rule="K-AIR-2")
    if not targets(board, square):
        ctx.event("air-no-target", f"{aid} finds no unit it may attack in or around {now['aim']}: units that have Given "
                  f"Ground this phase may not be shot at again (K-AIR-3, K-DF-8).", air=aid, aim=now["aim"],
                  rule="K-DF-8")
        now["stage"] = "done"
        return
    now["square"] = square
    owner = board.occupied_by(square)
    # on a friendly square the attack is made as if by the enemy (K-AIR-2)
    now["chooser"] = side if owner != side else other(side)
    now["stage"] = "unit"


def _hit(sc: Scenario, rules: dict, now: dict, pid: str, ctx) -> None:
    board = Board(sc, rules)
    table = sc.tables["air"]
    aid = now["id"]
    label = f"t{rules['turn']}.air.{aid}.hit"
    bonus = table["soft_target"] if board.profile(pid).vulnerable else 0
    die = ctx.d6(label)
    rolls = [die]
    if die + bonus == table["reroll"]:
        die = ctx.d6(label)
        rolls.append(die)
    hit = die + bonus >= table["hit"]
    ctx.event("air-attack", f"{aid} attacks {pid}: {', '.join(map(str, rolls))}" + (f" +{bonus} (soft target)" if bonus else "")
              + (": a loss" if hit else ": no effect") + " (K-AIR-3).", air=aid, unit=pid, dice=rolls, bonus=bonus,
              loss=hit, square=now["square"], rule="K-AIR-3")
    if hit:
        lose(sc, board, pid, 1, ctx, "K-AIR-3", f"air attack by {aid}")
