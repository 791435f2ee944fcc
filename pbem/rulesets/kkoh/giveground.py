"""Giving Ground (K-GG-1 to K-GG-11).

A unit forced back moves one square keeping its facing, by the first possible of: (1)
directly away from the fire or assault (under Direct Fire possibly a diagonal move, if
otherwise legal); (2) diagonally away, unless the square is enemy-occupied or the move
passes the junction of two enemy-held corners; (3) to a flank. A die chooses among equal
routes (K-GG-3). If the square reached is over-full it goes on, the same way, until it finds
room, filling every place on the way (K-GG-8); a unit that finds no route, the table edge
included, is destroyed (K-GG-10). Markers hold no square: one met on the way is displaced
(K-GG-2). "Away" from fire arriving from several squares is away from the square of the
first shot that caused the result (K-GG-11 reading). In the square it reaches the unit takes
the place its owner chooses, facing unchanged, but not one that would shield a friendly unit
from other enemy Direct Fire into that square this Action Phase (K-GG-5): with more than one
such place the Give Ground waits for the decision `give-ground-place`, answered by a `place`
order or the standing order `give_ground_place` (front-most first), and then goes on exactly
where it stopped (`rules["gg"]`, README "Decision points").
"""

from __future__ import annotations

from collections import deque

from pbem.core.geometry.squaregrid import Square

from ..base import IllegalOrder
from . import layout, movement
from .common import dice_choice, lose
from .scenario import Scenario, other
from .state import Board, mark


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def routes(sc: Scenario, board: Board, pid: str, here: str, source: str, fire: bool) -> list[list[str]]:
    """The squares a unit in `here` may Give Ground to, away from `source`, priority by
    priority (K-GG-2): each a list of open squares."""
    h, s = sc.grid.square(here), sc.grid.square(source)
    dx, dy = h.x - s.x, h.y - s.y
    vx, vy = _sign(dx), _sign(dy)
    if vx and vy and (not fire or abs(dx) != abs(dy)):
        # away along the main direction; a diagonal only for fire from a diagonal (an assault
        # never comes diagonally, K-CA-5)
        if abs(dx) > abs(dy):
            vy = 0
        else:
            vx = 0
    if vx and vy:
        direct = [(vx, vy)]
        diagonal = [(vx, 0), (0, vy)]
        flank = [(vx, -vy), (-vx, vy)]
    else:
        px, py = (0, 1) if vx else (1, 0)
        direct = [(vx, vy)]
        diagonal = [(vx + px, vy + py), (vx - px, vy - py)]
        flank = [(px, py), (-px, -py)]
    side = sc.pieces[pid].side
    profile = board.profile(pid)
    out = []
    for number, steps in enumerate((direct, diagonal, flank), start=1):
        found = []
        for dx, dy in steps:
            target = sc.grid.on_map(Square(h.x + dx, h.y + dy))
            if target is None or board.occupied_by(target) == other(side):
                continue
            if dx and dy:
                c1, c2 = sc.grid.corner_squares(here, target)
                held = [c for c in (c1, c2) if c in sc.grid and board.occupied_by(c) == other(side)]
                # priority 1 must be a legal diagonal move (K-MOV-2: no enemy-held corner); priority 2
                # is stopped by the junction of two enemy-held corners (K-GG-2)
                if (number == 1 and held) or (number == 2 and len(held) == 2):
                    continue
            if movement.terrain_block(sc, profile, here, target) is not None:
                continue
            found.append(target)
        out.append(sorted(found))
    return out


def give_ground(sc: Scenario, board: Board, pids: list[str], source: str, ctx, label: str, *, fire: bool,
                rule: str = "K-GG-2") -> None:
    """The pieces (one unit, or the engaged units of one side in an assault, slowest first,
    K-GG-6) Give Ground away from `source`: one after another, each by the priorities of
    K-GG-2 to the first square with room (K-GG-8), then to the place its owner chooses there
    (K-GG-5). Where a unit has more than one legal place the Give Ground waits, kept in
    `rules["gg"]`, for the decision `give-ground-place` (`waiting`, `answer`); the caller
    goes on once `waiting` is None. A group that lands together stays a group where it can
    (K-CA-18)."""
    rules = board.rules
    assert not rules.get("gg"), "one Give Ground at a time"
    order = sorted((p for p in pids if board.alive(p)), key=lambda p: (layout_speed(sc, board, p), p))
    if fire:
        for pid in order:
            board.leave_group(pid)     # under Direct Fire each unit Gives Ground alone (K-GG-4)
    rules["gg"] = {"units": order, "k": 0, "from": source, "label": label, "fire": fire, "rule": rule, "to": {},
                   "routes": {}, "left": []}
    _go_on(sc, board, ctx)


def waiting(rules: dict) -> dict | None:
    """The unit waiting for its owner's choice of place, if any: {unit, sq, path, start, cells}."""
    job = rules.get("gg")
    return job.get("wait") if job else None


def _go_on(sc: Scenario, board: Board, ctx) -> None:
    """Give Ground unit by unit until one waits for its place or all are done (K-GG-4, K-GG-6)."""
    rules = board.rules
    job = rules["gg"]
    while job["k"] < len(job["units"]):
        n = job["k"]
        pid = job["units"][n]
        if not board.alive(pid):
            job["k"] += 1
            continue
        start = board.piece(pid)["sq"]
        square, path = _route(sc, board, pid, job, n, ctx)
        if square is None:
            lose(sc, board, pid, board.points_left(pid), ctx, "K-GG-10",
                 "it cannot Give Ground" if not path else "it finds no room to Give Ground into")
            job["to"][pid] = None
            job["k"] += 1
            continue
        cells = options(sc, board, pid, square)
        if len(cells) > 1:     # the owner's choice (K-GG-5): a decision
            job["wait"] = {"unit": pid, "sq": square, "path": path, "start": start, "cells": cells}
            return
        _settle(sc, board, pid, square, cells[0], path, start, ctx, None)
        job["k"] += 1
    # those behind the places left close up once all have gone, not while a group is still on
    # its way out (it keeps its route and lands a group, K-CA-18)
    layout.close_ranks(sc, board, job["left"], ctx)
    _regroup(sc, board, job["units"], job["to"])
    del rules["gg"]


def _route(sc: Scenario, board: Board, pid: str, job: dict, n: int, ctx) -> tuple[str | None, list[str]]:
    """The square where the unit stops, and the squares it crosses: by the priorities, a die
    choosing among equals (K-GG-2, K-GG-3), on while over-full, the same way (K-GG-8). None:
    no route, or no room on any (K-GG-10)."""
    group = board.group(pid)
    current, away_from, path = board.piece(pid)["sq"], job["from"], []
    while len(path) <= len(sc.grid):
        level = next((o for o in routes(sc, board, pid, current, away_from, job["fire"]) if o), None)
        if level is None:
            return None, path
        key = f"{current}:{group}" if group else None
        if key and key in job["routes"] and job["routes"][key] in level:
            nxt = job["routes"][key]
        else:
            nxt = level[dice_choice(ctx, f"{job['label']}.{n + 1}.{len(path) + 1}", len(level))]
            if len(level) > 1:
                ctx.event("give-ground-choice", f"{pid}: routes {', '.join(level)} are open; the die picks {nxt} "
                          f"(K-GG-3).", unit=pid, options=level, chosen=nxt, rule="K-GG-3")
            if key:
                job["routes"][key] = nxt
        path.append(nxt)
        if options(sc, board, pid, nxt):
            return nxt, path
        away_from, current = current, nxt      # over-full: on again, the same way (K-GG-8)
    return None, path


def way_out(sc: Scenario, board: Board, pid: str, start: str, away_from: str) -> bool:
    """Whether some route the dice may pick (K-GG-3) brings `pid`, giving ground under fire from
    `start`, come from `away_from`, to a square with room: a square of the first open priority
    with room, or one full on the way to another (K-GG-8), within as many squares as `_route`
    walks (the table's). Each (square, square come from) is walked once, nearest first: the
    board does not change while it is looked at, so a pair met again is a loop, which the real
    walk goes round until it is destroyed (a review: without the record, the routes through full
    squares doubled at every fork, hours on a full table)."""
    todo, seen = deque([(start, away_from, 0)]), {(start, away_from)}
    while todo:
        current, came, walked = todo.popleft()
        level = next((o for o in routes(sc, board, pid, current, came, True) if o), None)
        for nxt in level or ():
            if options(sc, board, pid, nxt):
                return True
            if walked + 1 <= len(sc.grid) and (nxt, current) not in seen:
                seen.add((nxt, current))
                todo.append((nxt, current, walked + 1))
    return False


def answer(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    """The owner's place for the waiting unit (K-GG-5); then the Give Ground goes on."""
    wait = waiting(rules)
    legal = legal_places(rules)
    if order not in legal:
        raise IllegalOrder("K-GG-5", f"place: {wait['unit']} gives ground into {wait['sq']} and may take only "
                           f"{', '.join(wait['cells'])}: a free place of its facing that does not block other incoming "
                           f"Direct Fire into the square", legal)
    board = Board(sc, rules)
    job = rules["gg"]
    del job["wait"]
    _settle(sc, board, order["unit"], wait["sq"], order["cell"], wait["path"], wait["start"], ctx, wait["cells"])
    job["k"] += 1
    _go_on(sc, board, ctx)


def legal_places(rules: dict) -> list[dict]:
    wait = waiting(rules)
    return [{"type": "place", "unit": wait["unit"], "cell": c} for c in wait["cells"]] if wait else []


def _settle(sc: Scenario, board: Board, pid: str, square: str, cell: str, path: list[str], start: str, ctx,
            offered: list[str] | None) -> None:
    """The unit takes its place, facing unchanged (K-GG-5); enemy markers there are displaced
    (K-GG-2), and reported after the Give Ground; its movement is over for the phase (K-GG-9)."""
    rules = board.rules
    job = rules["gg"]
    side = sc.pieces[pid].side
    board.place(pid, square, cell, board.piece(pid)["f"])
    job["to"][pid] = square
    mark(rules, "ps", "gg", pid)
    mark(rules, "ps", "moved", pid)
    mark(rules, "ps", "left", pid)
    how = ("the only place open to it" if offered is None else
           f"of {', '.join(offered)}, by {'its standing order' if ctx.chosen_by == 'policy' else 'its owner'}")
    ctx.event("give-ground", f"{pid} gives ground from {start} to {square}" + (f" by {', '.join(path)}" if len(path) > 1
              else "") + f", to place {cell}, {how} ({job['rule']}, K-GG-5).", unit=pid, side=side, origin=start,
              to=square, path=path, cell=cell, places=offered or [cell], rule=job["rule"],
              **({"chosen_by": ctx.chosen_by} if offered else {}))
    if start not in job["left"]:
        job["left"].append(start)      # its place there is closed up once the Give Ground is done (K-GM-2)
        job["left"].sort()
    displace_markers(sc, board, square, side, ctx, f"where {pid} gives ground")
    # K-SFX-5 with K-GG-8: a vehicle rolls for minelets in each square it leaves, passes through or enters
    movement.after_step(sc, board, pid, start, square, ctx, f"{job['label']}.{job['k'] + 1}.mines", path)
    if not board.alive(pid):
        job["to"][pid] = None          # the minelets on its way destroyed it


def layout_speed(sc: Scenario, board: Board, pid: str) -> int:
    from .scenario import SPEED

    return SPEED[board.profile(pid).move]


def options(sc: Scenario, board: Board, pid: str, square: str) -> list[str]:
    """The places the unit may take in `square`, front-most first (rank by rank, the middle
    file first), facing unchanged (K-GG-5): free cells where it stands closest to its edge
    (K-GM-2) in a legal square (K-GG-8: none if over-full), that do not block other incoming
    Direct Fire into the square (`blocks`). If every free place would block, the unit takes
    any of them (K-GG-5 reading: the rule limits its choice, not the room)."""
    rules = board.rules
    side = sc.pieces[pid].side
    if len(board.at(square, side)) >= layout.MAX_UNITS:
        return []
    there = {p: rules["pieces"][p] for p in board.at(square)}
    rec = rules["pieces"][pid]
    free = [c for c in layout.places(sc, board, square, rec["f"])
            if layout.check_entries(sc, square, {**there, pid: dict(rec, cell=c)}, groups=False) is None]
    clear = [c for c in free if not blocks(sc, board, pid, square, c)]
    return clear or free


def incoming(rules: dict, square: str, side: str) -> list[str]:
    """The squares enemy Direct Fire came into `square` from this Action Phase (planned shots
    still to be rolled, and those rolled), at `side`'s units (K-GG-5)."""
    found = {s["from"] for s in rules["plans"].get("fire", {}).get(other(side), []) if s["sq"] == square}
    found |= {src for sq, src, by in rules["ps"].get("fire_in", []) if sq == square and by == other(side)}
    return sorted(found)


def blocks(sc: Scenario, board: Board, pid: str, square: str, cell: str) -> bool:
    """K-GG-5 (L81 "not so as to prevent other incoming Direct Fire into that new square"; L79
    "cannot be placed so as to shield other units"): standing in `cell` the unit would be hit,
    by the priorities of incoming fire (K-GM-10), in place of a friendly unit that enemy fire
    into the square this Action Phase reaches without it. Units that have given ground in the
    phase are neither reached nor shielded (K-DF-8)."""
    rules = board.rules
    side = sc.pieces[pid].side
    sources = incoming(rules, square, side)
    if not sources:
        return False
    gave = set(rules["ps"]["gg"])
    without = {p: rules["pieces"][p] for p in board.at(square, side) if p not in gave and p != pid}
    with_it = {**without, pid: dict(rules["pieces"][pid], cell=cell)}
    return any(set(layout.targets_among(sc, without, square, s)[0]) - set(layout.targets_among(sc, with_it, square, s)[0])
               for s in sources)


def displace_markers(sc: Scenario, board: Board, square: str, side: str, ctx, arrival: str) -> None:
    """Enemy command markers in a square a unit of `side` enters (by a plain move, Give Ground
    or occupation) are displaced to the nearest square holding their own side's units, or
    destroyed if there is none (K-GG-2 reading, K-CMK-4), in marker order, each with its
    event; `arrival` says how the square was entered ("which B1 enters"). Only a Close
    Assault destroys a marker alone in its square (K-CMK-4, assault.py)."""
    for hid in list(board.hqs_at(square)):
        whose = sc.commands[hid].side
        if whose == side:
            continue
        own = board.squares(whose)
        if not own:
            board.move_hq(hid, None)
            ctx.event("hq-destroyed", f"{hid} holds no square and must leave {square}, {arrival}, but no unit of {whose} "
                      f"is left on the table: it is destroyed (K-GG-2, K-CMK-4).", hq=hid, side=whose, origin=square, rule="K-GG-2")
            continue
        to = min(own, key=lambda s: (sc.grid.distance(square, s), s))
        board.move_hq(hid, to)
        ctx.event("hq-displaced", f"{hid} holds no square and is displaced from {square}, {arrival}, to {to}, the "
                  f"nearest square held by {whose}'s units (K-GG-2, K-CMK-4).", side=whose, hq=hid, origin=square, to=to,
                  rule="K-GG-2")


def _regroup(sc: Scenario, board: Board, moved: list[str], result: dict[str, str | None]) -> None:
    """No new groups form by Giving Ground (K-GG-4); a group stays one where its units landed
    together in contact (K-CA-18); a unit cut off from it leaves it."""
    rules = board.rules
    for g in sorted({board.group(p) for p in moved if result.get(p) and board.alive(p) and board.group(p)}):
        everyone = sorted(p for p in rules["pieces"] if rules["pieces"][p].get("g") == g)
        by_square: dict[str, list[str]] = {}
        for p in everyone:
            by_square.setdefault(rules["pieces"][p]["sq"], []).append(p)
        best = max(sorted(by_square.values()), key=len)
        for p in everyone:
            if p not in best or len(best) < 2 or layout.check_group(sc, board, best) is not None:
                rules["pieces"][p].pop("g", None)
    for square in sorted({sq for sq in result.values() if sq}):
        if layout.check_square(sc, board, square) is not None:
            for p in moved:
                if result.get(p) == square and board.alive(p):
                    board.leave_group(p)
