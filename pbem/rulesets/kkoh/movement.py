"""Movement (K-MOV-1 to K-MOV-8), terrain limits (K-TER), mounting and dismounting (K-INF-3
to K-INF-8), limbering (K-ART-7), command markers (K-CMK-2), minelets (K-SFX-5).

In each Action Phase the units the table of K-MOV-4 lets move may each make one move of one
square (edge or corner), or reposition and re-face within their square (K-MOV-3, K-MOV-8);
units on HD or a lower order only within their square (K-ORD-5). Moving units may form a
new battle group if they share an order chit (K-ORD-8). A diagonal move may not pass the
corner of an enemy-held square (K-MOV-2). Terrain may close a square or an edge to vehicles
or infantry, or allow a move only as the unit's one move of the turn, in the first Action
Phase it may move (K-TER-8, K-MOV-7). A unit need not move in a phase it may (K-MOV-6):
its side ends the step. Moves are of one square, so no move passes through a square. Friendly
units pass through each other and overcrowding need only be resolved by the end of the Action
Phase (K-MOV-5): a square may be over-full (more than six units, K-GM-1) during the movement
step, so two full squares may swap units. After every order of the step each over-full square
must still be relievable, now, by moves of its own units into squares with room (`relief`, a
bounded search); an order after which one is not is refused, and so is `end` while one is
over-full: no packet can leave a step that cannot end. While one is, the legal orders offer
the first move of its relief. The options offered to bots and standing orders never over-fill
a square.
Command markers hold no square: enemy markers in the square a unit moves into are displaced
as on Give Ground (K-GG-2, K-CMK-4).
"""

from __future__ import annotations

import itertools

from pbem.core.text import agreeing, listed

from ..base import IllegalOrder
from . import layout
from .command import below
from .common import lose
from .scenario import Profile, Scenario, other
from .state import Board, mark

MOVE_TYPES = ("move", "dismount", "mount", "limber", "unlimber", "hq")


# --- who may move (K-MOV-4) ---------------------------------------------------------------------

def classes(sc: Scenario, board: Board, pid: str, order: str | None = None) -> set[str]:
    """The rows of the movement table (K-MOV-4) a piece belongs to now (or on `order`)."""
    rec = board.piece(pid)
    prof = board.profile(pid)
    order = order or rec["o"]
    if rec.get("mode") == "mounted" and order == "PA":
        return {"mounted-pa"}          # mounted infantry on PA moves from phase 3 (reading)
    found = set()
    if prof.move == "recce":
        found.add("recce")          # specialist reconnaissance: from phase 1 (K-REC-1, K-REC-4)
    elif prof.move in ("mechanised", "motorised"):
        found.add(prof.move)
        if order == "M":
            found.add(prof.move + "-m")
    elif prof.move == "foot":
        found.add("foot")
    elif prof.move == "guns":
        found.add("guns-in-square")
    return found


def phase_classes(sc: Scenario, ap: int) -> set[str]:
    """The rows of the movement table open in Action Phase `ap` (each phase adds to the last)."""
    key = ("phases", ap)
    found = sc.memo.get(key)
    if found is None:
        found = set()
        for n in range(1, ap + 1):
            found.update(sc.tables["movement"]["phases"][str(n)])
        sc.memo[key] = found = frozenset(found)
    return found


def may_move(sc: Scenario, board: Board, pid: str, ap: int, order: str | None = None) -> bool:
    """Whether the piece may move in Action Phase `ap` (on `order`, or its own chit): remembered
    in the scenario by what `classes` reads (movement class, mounted, chit) and the phase."""
    rec = board.piece(pid)
    order = order or rec["o"]
    key = ("may-move", board.profile(pid).move, rec.get("mode") == "mounted", order, ap)
    found = sc.memo.get(key)
    if found is None:
        found = sc.memo[key] = bool(classes(sc, board, pid, order) & phase_classes(sc, ap))
    return found


def first_ap(sc: Scenario, board: Board, pid: str) -> int | None:
    for ap in range(1, 5):
        if may_move(sc, board, pid, ap):
            return ap
    return None


def in_square_only(sc: Scenario, board: Board, pid: str) -> bool:
    """HD and lower orders move only within their square (K-ORD-5); so do deployed guns
    (K-MOV-4 "unlimbered artillery within a square")."""
    return below(sc, board.order(pid), "HD") or board.profile(pid).move == "guns"


_TROOPS_CLASS = {"recce": "recce", "mechanised": "mechanised", "motorised": "motorised", "infantry": "foot"}


def marker_ways(sc: Scenario, hid: str, ap: int) -> list[str]:
    """How a command marker may move in Action Phase `ap` (K-CMK-2: "may move as the troops that
    they lead/command or as Infantry"): `infantry` (on foot) in the Action Phase units on foot
    move, `troops` (in its vehicles, its own mobility class, K-MOV-4) in those its class moves.
    Infantry comes first: where both reach a square the marker goes on foot, its owner's better
    choice (the same one square, and minelets touch only vehicles, K-SFX-5; README reading)."""
    key = ("marker-ways", hid, ap)     # remembered in the scenario: it reads nothing that play changes
    found = sc.memo.get(key)
    if found is None:
        c = sc.commands[hid]
        open_now = phase_classes(sc, ap)
        ways = ["infantry"] if "foot" in open_now else []
        if c.vehicle and _TROOPS_CLASS[c.move] in open_now:
            ways.append("troops")
        found = sc.memo[key] = tuple(ways)
    return list(found)


def hq_may_move(sc: Scenario, rules: dict, hid: str, ap: int) -> bool:
    """A command marker moves like its troops (its own mobility) or like infantry (K-CMK-2)."""
    return bool(marker_ways(sc, hid, ap))


# --- terrain (K-TER, K-MOV-2, K-MOV-7) ---------------------------------------------------------

def _corner_edges(sc: Scenario, a: str, b: str) -> list[str]:
    c1, c2 = sc.grid.corner_squares(a, b)
    keys = []
    for x, y in ((a, c1), (a, c2), (c1, b), (c2, b)):
        if x in sc.grid and y in sc.grid:
            keys.append(sc.grid.edge_key(x, y))
    return keys


def _crossed_features(sc: Scenario, a: str, b: str):
    if a == b:
        return []
    if sc.grid.orthogonal_distance(a, b) == 1:
        feature = sc.edge_feature(a, b)
        return [(feature, sc.road(a, b))] if feature else []
    return [(sc.edges[k], False) for k in _corner_edges(sc, a, b) if k in sc.edges]


def terrain_block(sc: Scenario, prof: Profile, a: str, b: str) -> str | None:
    """Why terrain stops a unit of this profile stepping from a to b, or None (remembered in the
    scenario per kind of unit and step: terrain never changes)."""
    if a == b:
        return None
    key = ("terrain", prof.vehicle, a, b)
    found = sc.memo.get(key, False)
    if found is False:
        found = sc.memo[key] = _terrain_block(sc, prof, a, b)
    return found


def _terrain_block(sc: Scenario, prof: Profile, a: str, b: str) -> str | None:
    diagonal = sc.grid.orthogonal_distance(a, b) == 2
    fa, fb = sc.area[a], sc.area[b]
    road = not diagonal and sc.road(a, b)
    if prof.vehicle:
        if fb.vehicles == "no":
            return f"{b} ({fb.name}) is impassable to vehicles (K-TER-10)"
        if fb.vehicles == "road" and not road:
            return f"vehicles enter {b} ({fb.name}) only by a road, through a face (K-TER-5, K-TER-6, K-TER-7)"
        if fa.vehicles == "road" and not road:
            return f"vehicles leave {a} ({fa.name}) only by a road, through a face (K-TER-5, K-GM-7)"
    elif fb.infantry == "no":
        return f"{b} ({fb.name}) is impassable to units on foot (K-TER-10)"
    for feature, bridged in _crossed_features(sc, a, b):
        rule = "vehicles" if prof.vehicle else "infantry"
        if getattr(feature, rule) == "no" and not bridged:
            return f"the {feature.name} between {a} and {b} is impassable to {'vehicles' if prof.vehicle else 'units on foot'} (K-TER-2)"
    return None


def slowed(sc: Scenario, prof: Profile, a: str, b: str) -> bool:
    """The step is the unit's one move of the turn (K-TER-8, K-TER-9, K-TER-2, K-MOV-7);
    remembered in the scenario like `terrain_block`."""
    key = ("slowed", prof.vehicle, a, b)
    found = sc.memo.get(key)
    if found is None:
        found = sc.memo[key] = _slowed(sc, prof, a, b)
    return found


def _slowed(sc: Scenario, prof: Profile, a: str, b: str) -> bool:
    rule = "vehicles" if prof.vehicle else "infantry"
    if a != b and (getattr(sc.area[a], rule) == "one-phase" or getattr(sc.area[b], rule) == "one-phase"):
        return True
    return any(getattr(f, rule) == "one-phase" and not bridged for f, bridged in _crossed_features(sc, a, b))


def slow_block(sc: Scenario, board: Board, pid: str, prof: Profile, a: str, b: str, ap: int) -> str | None:
    """Why terrain that allows one move a turn stops the unit stepping from a to b now (K-TER-8,
    K-TER-9, K-TER-2, K-MOV-7: "the unit can move when first normally entitled to, but cannot then
    move again in that game turn"): it has moved this turn, or this is not the first Action Phase
    it may move; None if the step is not slowed or may be made. A Close Assault is such a step
    (assault.check_declare)."""
    if a == b or not slowed(sc, prof, a, b):
        return None
    first = first_ap(sc, board, pid)
    moved = board.rules["ts"]["moved"].get(pid)
    if moved or first != ap:
        # the squares, the Action Phase and which condition failed, in words (a kkoh player's
        # probe: "... the first Action Phase it may move (2) ..." named neither)
        why = "it has moved this turn" if moved else f"this is Action Phase {ap}"
        return (f"{pid} crosses terrain that allows one move a turn from {a} to {b}: that move is made in the first "
                f"Action Phase it may move (Action Phase {first}), and only if it has not moved this turn; {why}")
    return None


def step_block(sc: Scenario, board: Board, side: str, prof: Profile, a: str, b: str) -> str | None:
    """Why a move from a to b is not allowed (enemy, corners, terrain), or None."""
    if a == b:
        return None
    corners = sc.steps.get((a, b))
    if corners is None:
        return f"{b} is not next to {a}: a move is one square (K-MOV-8)"
    enemy = other(side)
    if board.occupied_by(b) == enemy:
        return f"{b} is held by the enemy: only a Close Assault goes there (K-CA-5)"
    for c in corners:
        if board.occupied_by(c) == enemy:
            return f"a diagonal move from {a} to {b} may not pass the corner of enemy-held {c} (K-MOV-2, K-GM-7)"
    return terrain_block(sc, prof, a, b)


# --- moves ------------------------------------------------------------------------------------

def check_body(sc: Scenario, board: Board, side: str, units: list, what: str) -> list[str]:
    rules = board.rules
    if not isinstance(units, list) or not units:
        raise IllegalOrder("K-MOV-4", f"{what} names no unit", None)
    bad = [u for u in units if u not in rules["pieces"] or sc.pieces[u].side != side]
    if bad:
        raise IllegalOrder("K-MOV-4", f"{what}: {bad[0]} is not a unit of {side} on the table", None)
    if len(set(units)) != len(units):
        raise IllegalOrder("K-MOV-4", f"{what} names a unit twice", None)
    squares = {rules["pieces"][u]["sq"] for u in units}
    if len(squares) > 1:
        raise IllegalOrder("K-ORD-8", f"{what}: units that move together start in one square", None)
    return sorted(units)


def unit_may_move(sc: Scenario, board: Board, pid: str, ap: int, leave: bool) -> str | None:
    """Why the unit may not move now (or leave its square, with `leave`), or None."""
    rules = board.rules
    ps, ts = rules["ps"], rules["ts"]
    if pid in ps["moved"] or pid in ps["gg"] or pid in ps["evaded"]:
        return f"{pid} has already moved or given ground in this Action Phase (K-MOV-8, K-GG-9)"
    if any(pid in a["units"] for a in rules["assaults"]):
        return f"{pid} is making a Close Assault (K-CA-5)"
    if not may_move(sc, board, pid, ap):
        # when it may, by its chit and its kind (a kkoh player's probe: the refusal said neither)
        when = [str(n) for n in range(1, 5) if may_move(sc, board, pid, n)]
        return (f"{pid} may not move in Action Phase {ap} (K-MOV-4): on its {board.order(pid)} chit, "
                + (f"it moves in Action Phase{'s' if len(when) > 1 else ''} {listed(when)}" if when
                   else "it moves in no Action Phase this turn"))
    prof = board.profile(pid)
    if prof.move == "foot" and ts["moved"].get(pid) == "vehicle":
        return f"{pid} has moved in its vehicles this turn: it may not move again on foot (K-INF-4)"
    if pid in ts["locked"]:
        return f"{pid} has made its one move of the turn in difficult terrain (K-MOV-7)"
    if leave:
        if in_square_only(sc, board, pid):
            what = "deployed guns" if prof.move == "guns" else f"on {board.order(pid)}"
            return f"{pid} ({what}) may move only within its square (K-ORD-5, K-MOV-4)"
        if sc.pieces[pid].is_towed and pid in ps["fired"]:
            return f"{pid} fired in this Action Phase: towed guns may not also move out of their square (K-DF-4)"
        if pid in ps["ifired"] and not sc.pieces[pid].sp:
            return (f"{pid} bombarded in this Action Phase and is not self-propelled: it may not also move to another "
                    f"square (K-IF-4)")
    return None


def overfull(board: Board, side: str) -> list[tuple[str, int]]:
    """The squares holding more than six of `side`'s units, with how many: a movement step may
    leave none so when it ends (K-MOV-5, K-GM-1)."""
    # a square of the side's (`Board.squares`) can hold more than six of its units only if it
    # holds more than six pieces: the few such squares are counted, not every square
    counts = [(square, len(board.at(square, side))) for square in board.crowded(layout.MAX_UNITS)
              if board.occupied_by(square) == side]
    return [(square, n) for square, n in counts if n > layout.MAX_UNITS]


def overfull_error(board: Board, side: str, what: str) -> IllegalOrder | None:
    """The refusal of whatever would end `side`'s movement step while a square is over-full."""
    found = overfull(board, side)
    if not found:
        return None
    where = ", ".join(f"{square} holds {n}" for square, n in found)
    return IllegalOrder("K-MOV-5", f"{what}: {where} of {side}'s units; overcrowding must be resolved by the end of "
                        f"the Action Phase, at most {layout.MAX_UNITS} units of one army to a square (K-MOV-5, "
                        f"K-GM-1): move units out before the movement step ends", None)


RELIEF_BUDGET = 1000   # moves a relief search may try: a bounded, deterministic search


def relief(sc: Scenario, rules: dict, side: str, ap: int) -> list[dict] | None:
    """Moves of `side`'s units out of its over-full squares into squares with room, legal now
    and made one after another, after which no square is over-full: [] if none is over-full,
    None if no such moves are found within RELIEF_BUDGET tries (a depth-first search in a fixed
    order that never tries the same set of moves twice). A unit whose order chit is still
    sealed is not counted on: it moves only once shown (K-ORD-6)."""
    return _relief(sc, rules, side, ap, [RELIEF_BUDGET], set(), frozenset())


def _relief(sc: Scenario, rules: dict, side: str, ap: int, budget: list[int], seen: set,
            made: frozenset) -> list[dict] | None:
    board = Board(sc, rules)
    found = overfull(board, side)
    if not found:
        return []
    square = found[0][0]
    pieces = rules["pieces"]
    here = board.at(square, side)
    bodies = [[p] for p in here] + sorted({tuple(board.members(p)) for p in here if board.group(p)})
    for body in bodies:
        if any(pieces[p]["o"] is None or unit_may_move(sc, board, p, ap, True) for p in body):
            continue
        for to in sc.neighbours[square]:
            if board.occupied_by(to) not in (None, side) or len(board.at(to, side)) + len(body) > layout.MAX_UNITS:
                continue
            after = made | {(tuple(body), to)}
            if after in seen:
                continue        # the same moves in another order: the same position
            seen.add(after)
            if budget[0] <= 0:
                return None
            budget[0] -= 1
            order = {"type": "move", "units": list(body), "to": to,
                     "facing": _travel_facing(sc, square, to, pieces[body[0]]["f"])}
            try:
                plan = plan_move(sc, board, side, order, ap)
            except IllegalOrder:
                continue
            rest = _relief(sc, _moved(sc, rules, plan), side, ap, budget, seen, after)
            if rest is not None:
                return [order] + rest
    return None


def _moved(sc: Scenario, rules: dict, plan: dict) -> dict:
    """The rules after a planned move, as far as where units stand and who has moved go: what a
    relief search reads (never stored)."""
    pieces = dict(rules["pieces"])
    movers = plan["units"] + plan["join"]
    for square in sorted({plan["from"], plan["to"]}):      # as `move` leaves them (K-GM-2)
        others = {p: dict(r) for p, r in pieces.items() if r["sq"] == square and p not in movers}
        layout.close_up(sc, others)
        pieces.update(others)
    pieces.update(_with_movers(rules, {}, plan["to"], movers, plan["cells"], plan["facing"], False))
    moved = sorted(set(rules["ps"]["moved"]) | set(plan["units"]) | set(plan["join"]))
    return dict(rules, pieces=pieces, ps=dict(rules["ps"], moved=moved))


def check_relief(sc: Scenario, rules: dict, side: str, ap: int, what: str) -> None:
    """K-MOV-5 after each order of a movement step: every over-full square of the side can still
    be brought back to six by its own units' moves, legal now; else the order is refused (so no
    order can leave a square over-full that nothing could relieve before the step ends)."""
    if relief(sc, rules, side, ap) is None:
        board = Board(sc, rules)
        where = ", ".join(f"{square} would hold {n}" for square, n in overfull(board, side))
        raise IllegalOrder("K-MOV-5", f"{what}: {where} of {side}'s units, and pbem finds no moves of units out of it "
                           f"into squares with room, legal now, that would bring it back to {layout.MAX_UNITS} (it "
                           f"tries at most {RELIEF_BUDGET}): overcrowding must be resolved by the end of the Action "
                           f"Phase (K-MOV-5, K-GM-1)", None)


def plan_move(sc: Scenario, board: Board, side: str, order: dict, ap: int) -> dict:
    """Check a move order without changing anything; returns the plan (cells, group)."""
    units = check_body(sc, board, side, order.get("units"), "move")
    rules = board.rules
    here = rules["pieces"][units[0]]["sq"]
    to = order.get("to", here)
    facing = order.get("facing")
    if facing not in ("N", "E", "S", "W"):
        raise IllegalOrder("K-GM-2", f"move: facing must be N, E, S or W, not {facing!r}", ["N", "E", "S", "W"])
    if to not in sc.grid:
        raise IllegalOrder("K-BTF-1", f"move: {to!r} is not a square of the table", None)
    leave = to != here
    for u in units:
        why = unit_may_move(sc, board, u, ap, leave)
        if why:
            raise IllegalOrder("K-MOV-4", f"move: {why}", None)
    for u in units:
        why = step_block(sc, board, side, board.profile(u), here, to)
        if why:
            raise IllegalOrder("K-MOV-2", f"move: {why}", None)
        why = slow_block(sc, board, u, board.profile(u), here, to, ap)
        if why:
            raise IllegalOrder("K-MOV-7", f"move: {why}", None)
    join = sorted(order.get("join") or [])
    for j in join:
        if j not in rules["pieces"] or sc.pieces[j].side != side or rules["pieces"][j]["sq"] != to or j in units:
            raise IllegalOrder("K-ORD-8", f"move: join names {j}, which is not another of {side}'s units in {to}", None)
        why = unit_may_move(sc, board, j, ap, False)
        if why:
            raise IllegalOrder("K-ORD-8", f"move: {j} cannot join the group: {why}", None)
    grouped = len(units) + len(join) > 1
    if grouped and order.get("group", True):
        chits = {rules["pieces"][u]["o"] for u in units + join}
        if len(chits) > 1:
            raise IllegalOrder("K-ORD-8", f"move: a group forms on the move only from units with the same order chit "
                               f"({', '.join(sorted(chits))})", None)
    else:
        grouped = False
    movers = units + join
    others = _closed(sc, board, to, movers)     # those behind the places movers leave there step up (K-GM-2)
    cells = order.get("cells")
    if cells is not None:
        if not isinstance(cells, list) or len(cells) != len(movers):
            raise IllegalOrder("K-GM-2", f"move: give one cell for each unit placed ({', '.join(movers)})", None)
    else:
        cells = layout.place_cells(sc, board, to, movers, facing, grouped, others)
        if cells is None:
            raise IllegalOrder("K-GM-1", f"move: there is no room for {', '.join(movers)} facing {facing} in {to} (at "
                               "most six units, three deep and three wide, each closest to its edge, K-GM-1/2/3)", None)
    entries = _with_movers(rules, others, to, movers, cells, facing, grouped)
    why = layout.check_entries(sc, to, entries, count=False)   # over-full for now: K-MOV-5, check_relief
    if why:
        raise IllegalOrder("K-GM-2", f"move: {why}", None)
    if leave:
        rest = _closed(sc, board, here, units)
        why = layout.check_entries(sc, here, rest, count=False)
        if why:
            raise IllegalOrder("K-GM-5", f"move: what stays behind in {here}: {why}", None)
    return {"units": units, "join": join, "from": here, "to": to, "facing": facing, "cells": cells, "grouped": grouped}


def _closed(sc: Scenario, board: Board, square: str, without: list[str]) -> dict[str, dict]:
    """The records (copies) of the pieces of `square` but `without`, closed up as they will be
    once those have left their places (K-GM-2)."""
    others = {p: dict(board.rules["pieces"][p]) for p in board.at(square) if p not in without}
    layout.close_up(sc, others)
    return others


def _with_movers(rules: dict, others: dict[str, dict], to: str, movers: list[str], cells: list[str], facing: str,
                 grouped: bool) -> dict[str, dict]:
    """The records of a square after a move: `others` (copies), and the movers in their cells,
    out of their old groups, in a new one if `grouped`."""
    entries = dict(others)
    for p, cell in zip(movers, cells):
        entries[p] = dict(rules["pieces"][p], sq=to, cell=cell, f=facing)
        entries[p].pop("g", None)
        if grouped:
            entries[p]["g"] = "new"
    return entries


def move(sc: Scenario, rules: dict, side: str, order: dict, ctx, ap: int) -> None:
    board = Board(sc, rules)
    plan = plan_move(sc, board, side, order, ap)
    movers = plan["units"] + plan["join"]
    here, to = plan["from"], plan["to"]
    for p in movers:
        board.leave_group(p)
    told: list = []      # those behind the places movers leave there step up, told after the move
    layout.close_ranks(sc, board, [to], ctx, absent=movers, told=told)
    group = board.new_group() if plan["grouped"] else None
    for p, cell in zip(movers, plan["cells"]):
        board.place(p, to, cell, plan["facing"])
        if group:
            board.piece(p)["g"] = group
    for p in plan["units"]:
        mark(rules, "ps", "moved", p)
        prof = board.profile(p)
        if here != to:
            mark(rules, "ps", "left", p)
            rules["ts"]["moved"][p] = "vehicle" if prof.vehicle else "foot"
            if slowed(sc, prof, here, to):
                mark(rules, "ts", "locked", p)
    for p in plan["join"]:
        mark(rules, "ps", "moved", p)
    # the verb agrees with its units (a players' probe: "B-Pz2-1, B-Pz2-2, B-Pz2-3 moves to 0810")
    what = agreeing(plan["units"], "moves to", "move to") if here != to else agreeing(plan["units"], "re-forms in",
                                                                                      "re-form in")
    ctx.event("move", f"{', '.join(plan['units'])} {what} {to}, facing {plan['facing']}"
              + (", as one battle group" if group else "") + (f" with {', '.join(plan['join'])}" if plan["join"] else "")
              + " (K-MOV-8).", side=side, units=plan["units"], origin=here, to=to, facing=plan["facing"], group=group,
              rule="K-MOV-8" if here != to else "K-MOV-3")
    for kind, text, fields in told:
        ctx.event(kind, text, **fields)
    if here != to:
        layout.close_ranks(sc, board, [here], ctx)       # those behind the places they left step up (K-GM-2)
        # K-GG-2, K-CMK-4: enemy markers in the square entered are displaced, as on Give Ground
        from .giveground import displace_markers

        displace_markers(sc, board, to, side, ctx,
                         f"which {', '.join(plan['units'])} {'enters' if len(plan['units']) == 1 else 'enter'}")
    for n, p in enumerate(plan["units"]):
        after_step(sc, board, p, here, to, ctx, f"t{rules['turn']}.ap{ap}.mines.{p}")


# --- dismount, mount, limber (K-INF-4/5, K-ART-7) ------------------------------------------------

def change_mode(sc: Scenario, rules: dict, side: str, order: dict, ctx, ap: int) -> None:
    board = Board(sc, rules)
    kind = order["type"]
    units = check_body(sc, board, side, order.get("units"), kind)
    want = {"dismount": ("mounted", "dismounted"), "mount": ("dismounted", "mounted"),
            "limber": ("deployed", "limbered"), "unlimber": ("limbered", "deployed")}[kind]
    for u in units:
        why = mode_block(sc, board, u, kind, ap)
        if why:
            raise IllegalOrder("K-INF-4" if kind in ("dismount", "mount") else "K-ART-7", f"{kind}: {why}", None)
    why = _mode_layout(sc, board, units, want[1])
    if why:
        raise IllegalOrder("K-TER-5", f"{kind}: {why}", None)
    square = rules["pieces"][units[0]]["sq"]
    for u in units:
        rules["pieces"][u]["mode"] = want[1]
    for u in units:
        mark(rules, "ps", "mounted", f"{u}:{kind}")
    rule = {"dismount": "K-INF-4", "mount": "K-INF-5", "limber": "K-ART-7", "unlimber": "K-ART-7"}[kind]
    ctx.event(kind, f"{', '.join(units)} {kind}{'s' if len(units) == 1 else ''} in {square} ({rule}).", side=side,
              units=units, square=square, rule=rule)


def _mode_layout(sc: Scenario, board: Board, units: list[str], mode: str) -> str | None:
    """Why the square would break the layout rules with these units in `mode` (vehicles on a
    road square, K-TER-5), or None."""
    rules = board.rules
    square = rules["pieces"][units[0]]["sq"]
    entries = {p: dict(rules["pieces"][p]) for p in board.at(square)}
    for u in units:
        entries[u]["mode"] = mode
    return layout.check_entries(sc, square, entries, count=False)   # a change of mode adds no unit


def mode_block(sc: Scenario, board: Board, pid: str, kind: str, ap: int) -> str | None:
    rules = board.rules
    rec = rules["pieces"][pid]
    piece = sc.pieces[pid]
    if pid in rules["ps"]["gg"] or f"{pid}:{kind}" in rules["ps"]["mounted"]:
        return f"{pid} has given ground, or already {kind}ed in this Action Phase"
    if any(pid in a["units"] for a in rules["assaults"]):
        return f"{pid} is making a Close Assault"
    if kind in ("dismount", "mount"):
        if not piece.paired:
            return f"{pid} has no transports (K-INF-3)"
        if kind == "dismount":
            if rec.get("mode") != "mounted":
                return f"{pid} is not mounted"
            if not may_move(sc, board, pid, ap):
                return f"{pid} dismounts only in an Action Phase in which it may move in its vehicles (K-INF-4)"
        else:
            if rec.get("mode") != "dismounted":
                return f"{pid} is not dismounted"
            if ap != 4:
                return "infantry remounts only in Action Phase 4 (K-INF-5)"
        return None
    if not piece.is_towed:
        return f"{pid} is not a towed gun (K-ART-7)"
    if kind == "limber":
        if rec.get("mode") != "deployed":
            return f"{pid} is not deployed"
        limbered = sc.profile(pid, "limbered")
        eligible = ap == 4 or ("motorised" in phase_classes(sc, ap)) or (rec["o"] == "M" and ap >= 2)
        if not eligible or limbered is None:
            return f"{pid} limbers only in an Action Phase in which it may move (K-ART-7)"
        return None
    if rec.get("mode") != "limbered":
        return f"{pid} is not limbered"
    if not may_move(sc, board, pid, ap) and pid not in rules["ps"]["moved"]:
        return f"{pid} unlimbers only in an Action Phase in which it may move (K-ART-7)"
    return None


# --- command markers (K-CMK-2) ------------------------------------------------------------------

def move_hq(sc: Scenario, rules: dict, side: str, order: dict, ctx, ap: int) -> None:
    board = Board(sc, rules)
    hid = order.get("hq")
    if hid not in sc.commands or sc.commands[hid].side != side or "sq" not in rules["hqs"].get(hid, {}):
        raise IllegalOrder("K-CMK-2", f"hq: {hid!r} is not a command marker of {side} on the table", None)
    if hid in rules["ps"]["moved"]:
        raise IllegalOrder("K-CMK-2", f"hq: {hid} has already moved in this Action Phase", None)
    if not hq_may_move(sc, rules, hid, ap):
        raise IllegalOrder("K-CMK-2", f"hq: {hid} moves like its troops ({sc.commands[hid].move}) or like infantry "
                           f"(Action Phase 4), not in Action Phase {ap}", None)
    here = rules["hqs"][hid]["sq"]
    to = order.get("to")
    if to not in sc.grid:
        raise IllegalOrder("K-BTF-1", f"hq: {to!r} is not a square of the table", None)
    if to == here:
        raise IllegalOrder("K-CMK-2", "hq: the marker must move to another square", None)
    way, blocked = marker_way(sc, board, side, hid, here, to, ap)
    if way is None:
        raise IllegalOrder("K-CMK-2", f"hq: {_marker_refusal(sc, board, side, hid, here, to, ap, blocked)}", None)
    c = sc.commands[hid]
    board.move_hq(hid, to)
    mark(rules, "ps", "moved", hid)
    # a marker in vehicles that walks says so where it matters: where its troops could not have gone now
    on_foot = c.vehicle and way == "infantry"
    said = " as infantry, on foot" if on_foot and "troops" in blocked else ""
    ctx.event("hq-move", f"{hid} moves to {to}{said} (K-CMK-2).", side=side, hq=hid, origin=here, to=to,
              way=way, rule="K-CMK-2")
    marker_mines(sc, board, hid, here, to, way, ctx, f"t{rules['turn']}.ap{ap}.mines.{hid}")


def marker_mines(sc: Scenario, board: Board, hid: str, here: str, to: str, way: str, ctx, label: str) -> None:
    """A command marker's minelet rolls for leaving `here` and entering `to` (K-SFX-5), by a move
    of its own or with units (after a Close Assault): in its vehicles, as its troops, it is hit
    like a vehicle (a loss destroys it); on foot, as infantry (K-CMK-2), it rolls nothing."""
    if _marker_profile(sc, hid, way).vehicle:
        mines_for_marker(sc, board, hid, here, to, ctx, label)
    elif sc.commands[hid].vehicle and way == "infantry":
        for square in _crossed_mines(board.rules, here, [to]):
            ctx.event("minelets", f"{hid} moves on foot, as infantry: the minelets in {square} touch only vehicles, no "
                      f"roll (K-SFX-5, K-CMK-2).", hq=hid, square=square, dice=[], rule="K-SFX-5")


def marker_way(sc: Scenario, board: Board, side: str, hid: str, here: str, to: str,
               ap: int) -> tuple[str | None, dict[str, str]]:
    """The way the marker moves from `here` to `to` now (K-CMK-2: `marker_ways`, infantry first),
    or None; and why each way it may use now does not reach `to`."""
    ways = marker_ways(sc, hid, ap)
    found = {way: step_block(sc, board, side, _marker_profile(sc, hid, way), here, to) for way in ways}
    blocked = {way: why for way, why in found.items() if why is not None}
    return next((way for way in ways if found[way] is None), None), blocked


def _marker_refusal(sc: Scenario, board: Board, side: str, hid: str, here: str, to: str, ap: int,
                    blocked: dict[str, str]) -> str:
    """Why the marker reaches `to` in neither of the ways open to it now (K-CMK-2)."""
    c = sc.commands[hid]
    reasons = list(dict.fromkeys(blocked.values()))
    if len(reasons) > 1:
        return (f"{hid} may move as its troops ({c.move}, in vehicles) or as infantry, and neither reaches {to}: as its "
                f"troops, {blocked['troops']}; as infantry, {blocked['infantry']} (K-CMK-2)")
    why = reasons[0]
    if "infantry" not in blocked and c.vehicle and \
            step_block(sc, board, side, _marker_profile(sc, hid, "infantry"), here, to) is None:
        why += f"; {hid} may go there as infantry, on foot, but only in Action Phase 4, when infantry moves (K-CMK-2)"
    return why


def _marker_profile(sc: Scenario, hid: str, way: str) -> Profile:
    """The marker moving `way` (K-CMK-2): in its vehicles as its troops, or on foot as infantry;
    remembered in the scenario (a marker's troops never change)."""
    key = ("marker-profile", hid, way)
    found = sc.memo.get(key)
    if found is None:
        c = sc.commands[hid]
        vehicle = c.vehicle and way == "troops"
        found = sc.memo[key] = Profile(vehicle=vehicle, armour=None, ia=False, df=None, ir=False, heavy_atgw=False,
                                       mortar=False, target="M", vulnerable=False, infantry=None, artillery=False,
                                       unlimbered=False, move="mechanised" if vehicle else "foot", assault=False)
    return found


# --- minelets (K-SFX-5) ---------------------------------------------------------------------------

def mines_in(rules: dict, square: str) -> list[dict]:
    return [m for m in rules["minelets"] if m["square"] == square]


def _crossed_mines(rules: dict, here: str, path: list[str]) -> list[str]:
    """The squares holding minelets that a move from `here` along `path` (the squares entered,
    in order) is made within, into or out of: each once, in the order crossed (K-SFX-5)."""
    return [square for square in dict.fromkeys([here, *path]) if mines_in(rules, square)]


def after_step(sc: Scenario, board: Board, pid: str, here: str, to: str, ctx, label: str,
               path: list[str] | None = None) -> None:
    """A vehicle moving within, into or out of a minelet square rolls 2D6: a loss on 2-4, one
    more for each marker beyond the first; only then is the marker found real or a dummy
    (K-SFX-5). One roll for each such square it moves within, leaves, passes through or
    enters, in the order crossed: `path` is the squares entered, ending in `to` (a Give Ground
    on through over-full squares, K-GG-8), by default `to` alone (README reading)."""
    if not board.alive(pid) or not board.profile(pid).vehicle:
        return
    for square in _crossed_mines(board.rules, here, path or [to]):
        markers = mines_in(board.rules, square)
        table = sc.tables["specials"]["minelets"]
        top = table["loss_to"] + table["per_extra_marker"] * (len(markers) - 1)
        a, b = ctx.d6(f"{label}.{square}.1"), ctx.d6(f"{label}.{square}.2")
        hit = table["loss_from"] <= a + b <= top
        if not hit:
            ctx.event("minelets", f"{pid} crosses the minelets in {square}: {a}+{b} = {a + b}, no loss "
                      f"({table['loss_from']} to {top}, K-SFX-5).", unit=pid, square=square, dice=[a, b], rule="K-SFX-5")
            continue
        if not any(_real(board.rules, m, ctx, f"{label}.{square}.real") for m in markers):
            ctx.event("minelets", f"{pid} in {square}: {a}+{b} = {a + b} would be a loss, but the minelets there are "
                      f"dummies (K-SFX-5).", unit=pid, square=square, dice=[a, b], rule="K-SFX-5")
            continue
        lose(sc, board, pid, 1, ctx, "K-SFX-5", f"minelets in {square}, {a}+{b} = {a + b}")
        if not board.alive(pid):
            return


def mines_for_marker(sc: Scenario, board: Board, hid: str, here: str, to: str, ctx, label: str) -> None:
    """A command marker in vehicles is hit like a vehicle; a loss destroys it (K-SFX-5 reading)."""
    for square in _crossed_mines(board.rules, here, [to]):
        markers = mines_in(board.rules, square)
        if "sq" not in board.rules["hqs"][hid]:
            continue
        table = sc.tables["specials"]["minelets"]
        top = table["loss_to"] + table["per_extra_marker"] * (len(markers) - 1)
        a, b = ctx.d6(f"{label}.{square}.1"), ctx.d6(f"{label}.{square}.2")
        if table["loss_from"] <= a + b <= top and any(_real(board.rules, m, ctx, f"{label}.{square}.real") for m in markers):
            board.move_hq(hid, None)
            ctx.event("hq-destroyed", f"{hid} is destroyed by the minelets in {square} ({a}+{b}, K-SFX-5).", hq=hid,
                      side=sc.commands[hid].side, rule="K-SFX-5")
        else:
            ctx.event("minelets", f"{hid} crosses the minelets in {square}: {a}+{b}, no loss (K-SFX-5).", hq=hid,
                      square=square, dice=[a, b], rule="K-SFX-5")


def _real(rules: dict, marker: dict, ctx, label: str) -> bool:
    """Whether a minelet marker is the real minefield of its pair: unknown to both players until
    first checked, then drawn by a die (1-3 the real one) and known for the pair (K-SFX-5)."""
    if marker.get("real") is not None:
        return marker["real"]
    real = ctx.d6(label) <= 3
    for m in rules["minelets"]:
        if m["pair"] == marker["pair"]:
            m["real"] = real if m is marker else not real
    ctx.event("minelets-revealed", f"The minelet marker in {marker['square']} is {'the real minefield' if real else 'a dummy'}"
              f" (K-SFX-5).", pair=marker["pair"], square=marker["square"], real=real, rule="K-SFX-5")
    return real


# --- legal moves ------------------------------------------------------------------------------------

def _body_moves(sc: Scenario, board: Board, side: str, body: list[str], here: str, facing: str, ap: int):
    """The legal moves of one body, each as `plan_move` would accept it (its checks, shared
    for all destinations)."""
    rules = board.rules
    pieces = rules["pieces"]
    leave = not any(unit_may_move(sc, board, u, ap, True) for u in body)
    grouped = len(body) > 1 and len({pieces[u]["o"] for u in body}) == 1
    if len(body) > 1 and not grouped:
        return
    rest_ok = True
    if leave:
        rest = _closed(sc, board, here, body)
        rest_ok = layout.check_entries(sc, here, rest, count=False) is None
    targets = [here] + (list(sc.neighbours[here]) if leave and rest_ok else [])
    profiles = [board.profile(u) for u in body]
    # step_block reads a unit's profile only for terrain, which asks only whether it is a vehicle
    kinds = list({prof.vehicle: prof for prof in profiles}.values())
    for to in targets:
        if to != here:
            if any(step_block(sc, board, side, prof, here, to) for prof in kinds):
                continue
            if any(slow_block(sc, board, u, prof, here, to, ap) for u, prof in zip(body, profiles)):
                continue
        if to == here:
            facings = [f for f in ("N", "E", "S", "W") if f != facing]
        else:
            # facing the way it goes; where that is no legal end (a built-up square's faces held,
            # K-TER-5), the first other facing that is, so that every square it may enter is
            # listed (a players' probe: a tank's move into a town was missing from the template)
            travel = _travel_facing(sc, here, to, facing)
            facings = [travel] + [f for f in ("N", "E", "S", "W") if f != travel]
        others = _closed(sc, board, to, body)      # as `plan_move` has them
        for f in facings:
            cells = layout.place_cells(sc, board, to, body, f, grouped, others)
            if cells is None:
                continue
            entries = _with_movers(rules, others, to, body, cells, f, grouped)
            if layout.check_entries(sc, to, entries) is None:
                yield {"type": "move", "units": body, "to": to, "facing": f}
                if to != here:
                    break


def _travel_facing(sc: Scenario, here: str, to: str, current: str) -> str:
    d = sc.grid.direction(here, to)
    if d is None:
        return current
    if len(d) == 1:
        return d
    return d[0] if current not in d else current


def options(sc: Scenario, rules: dict, side: str, ap: int) -> list[dict]:
    """A finite, representative set of legal movement orders: each battle group or lone unit
    to each square it may enter, facing the way it goes where it may end so, else the first
    other facing it may end in (or, in its own square, each other facing); dismounting,
    remounting, limbering; command markers."""
    return list(iter_options(sc, rules, side, ap))


def _body_options(sc: Scenario, board: Board, side: str, body: list[str], ap: int):
    """The legal moves and changes of mode of one battle group or lone unit."""
    rec = board.piece(body[0])
    here, facing = rec["sq"], rec["f"]
    stay = {u: unit_may_move(sc, board, u, ap, False) for u in body}
    if any(stay.values()):
        bodies = [[u] for u in body if stay[u] is None] if len(body) > 1 else []
    else:
        bodies = [body]
    for b in bodies:
        yield from _body_moves(sc, board, side, b, here, facing, ap)
    for u in body:
        for kind, mode in _MODE_CHANGES[sc.pieces[u].paired, sc.pieces[u].is_towed]:
            if mode_block(sc, board, u, kind, ap) is None and _mode_layout(sc, board, [u], mode) is None:
                yield {"type": kind, "units": [u]}


class MovesMemo:
    """The options of a body (`_body_options`), remembered by everything they read: the side,
    the Action Phase, the body, the pieces in its square and the eight around it (where they
    stand, facing, chit, group, mode; its square alone for a body that may not leave it) and
    what the phase and the turn record of its units.
    Successive positions of a movement step differ in a few squares, so most bodies are found
    here. The contents of a square are keyed by a number (never given twice); when full, the
    memo starts again."""

    LIMIT = 50_000

    def __init__(self):
        self.moves: dict[tuple, list[dict]] = {}
        self.contents: dict[tuple, int] = {}
        self.numbers = itertools.count()

    def number(self, content: tuple) -> int:
        n = self.contents.get(content)
        if n is None:
            if len(self.moves) > self.LIMIT:
                self.moves.clear()
                self.contents.clear()
            n = self.contents[content] = next(self.numbers)
        return n


class _Position:
    """The keys of `MovesMemo` for the bodies of one position."""

    def __init__(self, sc: Scenario, board: Board, side: str, ap: int):
        memo = sc.memo.get("moves")
        if memo is None:
            memo = sc.memo["moves"] = MovesMemo()
        self.memo, self.sc, self.board, self.side, self.ap = memo, sc, board, side, ap
        rules = board.rules
        ps, ts = rules["ps"], rules["ts"]
        self.marks = [set(ps[k]) for k in ("moved", "gg", "evaded", "fired", "ifired")] + [set(ts["locked"])]
        # `_unit` of a unit no record names: not assaulting, no move this turn, no mark
        self.unrecorded = (False, None, *(False for _ in self.marks), *(False for _ in _KINDS))
        self.changed = set(ps["mounted"])
        self.assaulting = {u for a in rules["assaults"] for u in a["units"]}
        self.turn_moves = ts["moved"]
        # the units these records name (`changed` holds "unit:kind"); every other unit's part of
        # a key is the same: nothing recorded
        self.named = set().union(*self.marks, self.assaulting, self.turn_moves,
                                 (c.rpartition(":")[0] for c in self.changed))
        self.contents: dict[str, int] = {}
        self.around: dict[str, tuple[int, ...]] = {}

    def _content(self, square: str) -> int:
        """The number of the contents of `square` (worked out once for all the bodies that read it)."""
        found = self.contents.get(square)
        if found is None:
            pieces, there = self.board.rules["pieces"], self.board.at(square)
            found = self.contents[square] = self.memo.number(
                tuple([(p, tuple(pieces[p].items())) for p in there]) if there else ())
        return found

    def _around(self, here: str) -> tuple[int, ...]:
        """The numbers of the contents of `here` and the squares around it."""
        found = self.around.get(here)
        if found is None:
            found = self.around[here] = tuple([self._content(s) for s in (here, *self.sc.neighbours[here])])
        return found

    def _in_square(self, u: str) -> bool:
        """`in_square_only`, for a unit whose chit is known (a sealed one is not read here)."""
        return self.board.piece(u)["o"] is not None and in_square_only(self.sc, self.board, u)

    def _unit(self, u: str) -> tuple:
        if u not in self.named:
            return self.unrecorded
        return (u in self.assaulting, self.turn_moves.get(u), *(u in m for m in self.marks),
                *(f"{u}:{kind}" in self.changed for kind in _KINDS))

    def key(self, body: list[str]) -> tuple:
        units = tuple([self._unit(u) for u in body])
        here = self.board.piece(body[0])["sq"]
        # a body whose every unit moves only within its square (K-ORD-5, K-MOV-4) has no move out
        # of it (`unit_may_move`): its options read nothing around it, and are keyed by its square
        # alone, so that they still hold when the squares around it change
        if all(self._in_square(u) for u in body):
            return self.side, self.ap, tuple(body), (self._content(here),), units
        return self.side, self.ap, tuple(body), self._around(here), units


_KINDS = ("dismount", "mount", "limber", "unlimber")
# the changes of mode `mode_block` may allow a piece: with transports, or a towed gun, or none
_MODE_CHANGES = {(paired, towed): (((("dismount", "dismounted"), ("mount", "mounted")) if paired else ())
                                   + ((("limber", "limbered"), ("unlimber", "deployed")) if towed else ()))
                 for paired in (False, True) for towed in (False, True)}


def iter_options(sc: Scenario, rules: dict, side: str, ap: int, board: Board | None = None):
    board = board or Board(sc, rules)
    position = _Position(sc, board, side, ap)
    moved = set(rules["ps"]["moved"])
    for body in board.each_mover(side):     # read as far as the options are wanted (flow._can_act)
        if all(u in moved for u in body) or board.hidden(body[0]):
            continue    # a sealed chit is shown first (`show`, K-ORD-6 reading)
        key = position.key(body)
        found = position.memo.moves.get(key)
        if found is None:
            found = position.memo.moves[key] = list(_body_options(sc, board, side, body, ap))
        for option in found:
            yield dict(option, units=list(option["units"]))
    enemy_held = set(board.squares(other(side)))
    for hid in sorted(h for h, rec in rules["hqs"].items() if "sq" in rec and sc.commands[h].side == side):
        if hid in rules["ps"]["moved"] or not hq_may_move(sc, rules, hid, ap):
            continue
        for to in _hq_moves(sc, board, side, hid, rules["hqs"][hid]["sq"], ap, enemy_held):
            yield {"type": "hq", "hq": hid, "to": to}


def _hq_moves(sc: Scenario, board: Board, side: str, hid: str, here: str, ap: int,
              enemy_held: set[str]) -> tuple[str, ...]:
    """The squares around `here` the marker may move to now, as its troops or as infantry
    (K-CMK-2, `marker_way`). Besides terrain, which never changes, a step is stopped only by the
    enemy holding the square entered or a corner passed (`step_block`, K-MOV-2): remembered in
    the scenario by which of those squares the enemy holds (`enemy_held`: the squares held by
    the enemy's units)."""
    watched = sc.memo.get(("step-squares", here))
    if watched is None:
        watched = sc.memo["step-squares", here] = tuple(dict.fromkeys(
            s for to in sc.neighbours[here] for s in (to, *sc.steps[here, to])))
    key = ("hq-moves", side, hid, ap, here, tuple([s in enemy_held for s in watched]))
    found = sc.memo.get(key)
    if found is None:
        found = sc.memo[key] = tuple(to for to in sc.neighbours[here]
                                     if marker_way(sc, board, side, hid, here, to, ap)[0] is not None)
    return found
