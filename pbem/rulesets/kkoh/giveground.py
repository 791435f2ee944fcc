"""Giving Ground (K-GG-1 to K-GG-11).

A unit forced back moves one square keeping its facing, by the first possible of: (1)
directly away from the fire or assault (under Direct Fire possibly a diagonal move, if
otherwise legal); (2) diagonally away, unless the square is enemy-occupied or the move
passes the junction of two enemy-held corners; (3) to a flank. A die chooses among equal
routes (K-GG-3). If the square reached is over-full it goes on, the same way, until it finds
room, filling every place on the way (K-GG-8); a unit that finds no route, the table edge
included, is destroyed (K-GG-10). Markers hold no square: one met on the way is displaced
(K-GG-2). "Away" from fire arriving from several squares is away from the square of the
first shot that caused the result (K-GG-11 reading).
"""

from __future__ import annotations

from pbem.core.geometry.squaregrid import Square

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
                rule: str = "K-GG-2") -> dict[str, str | None]:
    """The pieces (one unit, or the engaged units of one side in an assault, slowest first,
    K-GG-6) Give Ground away from `source`. A group that lands together stays a group where it
    can (K-CA-18). Returns where each went (None: destroyed)."""
    rules = board.rules
    order = sorted((p for p in pids if board.alive(p)),
                   key=lambda p: (layout_speed(sc, board, p), p))
    result: dict[str, str | None] = {}
    chosen_route: dict[str, str] = {}
    if fire:
        for pid in order:
            board.leave_group(pid)     # under Direct Fire each unit Gives Ground alone (K-GG-4)
    for n, pid in enumerate(order):
        start = board.piece(pid)["sq"]
        facing = board.piece(pid)["f"]
        group = board.group(pid)
        current, away_from, path, placed = start, source, [], False
        while len(path) <= len(sc.grid):
            level = next((o for o in routes(sc, board, pid, current, away_from, fire) if o), None)
            if level is None:
                break
            key = f"{current}:{group}" if group else None
            if key and key in chosen_route and chosen_route[key] in level:
                nxt = chosen_route[key]
            else:
                nxt = level[dice_choice(ctx, f"{label}.{n + 1}.{len(path) + 1}", len(level))]
                if len(level) > 1:
                    ctx.event("give-ground-choice", f"{pid}: routes {', '.join(level)} are open; the die picks {nxt} "
                              f"(K-GG-3).", unit=pid, options=level, chosen=nxt, rule="K-GG-3")
                if key:
                    chosen_route[key] = nxt
            path.append(nxt)
            mates = [p for p, where in result.items() if where == nxt and group is not None and board.alive(p)
                     and board.group(p) == group]
            if _place(sc, board, pid, nxt, facing, mates) is not None:
                placed = True
                break
            away_from, current = current, nxt      # over-full: on again, the same way (K-GG-8)
        if not placed:
            lose(sc, board, pid, board.points_left(pid), ctx, "K-GG-10",
                 "it cannot Give Ground" if not path else "it finds no room to Give Ground into")
            result[pid] = None
            continue
        result[pid] = board.piece(pid)["sq"]
        mark(rules, "ps", "gg", pid)
        mark(rules, "ps", "moved", pid)
        mark(rules, "ps", "left", pid)
        ctx.event("give-ground", f"{pid} gives ground from {start} to {result[pid]}"
                  + (f" by {', '.join(path)}" if len(path) > 1 else "") + f" ({rule}).", unit=pid,
                  side=sc.pieces[pid].side, origin=start, to=result[pid], path=path, rule=rule)
        movement.after_step(sc, board, pid, start, result[pid], ctx, f"{label}.{n + 1}.mines")
        if not board.alive(pid):
            result[pid] = None          # the minelets on its way destroyed it
    _regroup(sc, board, order, result)
    return result


def layout_speed(sc: Scenario, board: Board, pid: str) -> int:
    from .scenario import SPEED

    return SPEED[board.profile(pid).move]


def _place(sc: Scenario, board: Board, pid: str, square: str, facing: str, mates: list[str]) -> str | None:
    """Put the piece in the front-most free place of its facing in `square` (K-GG-5), if the
    square has room for it (K-GG-8); displace enemy markers there (K-GG-2). Groups are
    settled once every unit has moved (`_regroup`)."""
    side = sc.pieces[pid].side
    if len(board.at(square, side)) >= layout.MAX_UNITS:
        return None
    cells = layout.place_cells(sc, board, square, [pid], facing, False)
    if not cells:
        return None
    old = dict(board.piece(pid))
    board.place(pid, square, cells[0], facing)
    if layout.check_square(sc, board, square, groups=False) is not None:
        board.place(pid, old["sq"], old["cell"], old["f"])
        return None
    displace_markers(sc, board, square, side)
    return cells[0]


def displace_markers(sc: Scenario, board: Board, square: str, side: str) -> None:
    """Enemy command markers in a square a unit enters are displaced to the nearest square
    holding their own side's units, or destroyed if there is none (K-GG-2 reading)."""
    for hid in list(board.hqs_at(square)):
        if sc.commands[hid].side == side:
            continue
        own = board.squares(sc.commands[hid].side)
        if own:
            to = min(own, key=lambda s: (sc.grid.distance(square, s), s))
            board.move_hq(hid, to)
        else:
            board.move_hq(hid, None)


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
