"""Inside a square (Game Mechanism, K-GM-1 to K-GM-10; Basic Concepts, K-BAS-1 to K-BAS-3).

A square's inside is a grid of 3 x 3 cells (pbem.core.geometry.squaregrid.Interior): a unit
stands in one cell facing one edge, so a frontage and a depth of three follow from the grid
(K-GM-3, K-TRP-4). Units need not touch: each may act alone (K-GM-4); a unit outside a group
fights alone, with no second-rank fire and no group assault (K-BG-3). Command markers are
not units: they take no cell and count for no limit (K-CMK-6). The rules of the layout:

- at most six units of one army in a square at the end of any phase (K-GM-1, K-BAS-1);
- a unit facing an edge stands closest to it: any unit behind the front rank has a friendly
  unit facing the same way in the cell in front of it (K-GM-2);
- a battle group is two or more units in edge contact, facing the same way, on the same
  order chit, permitted by doctrine to group (K-GM-5, K-BG-1/2, K-DOC-1/2); at most three
  groups in a square (K-GM-5);
- in a square a vehicle may enter only by road (steep ridges, woods, built-up areas), at most
  three vehicle units stand, in column: all facing the same way (K-TER-5/6/7).

Incoming fire and assaults find their target by the priorities of K-GM-10 (K-BAS-3): a unit
or group facing the fire; else the nearest flank; else the nearest rear.
"""

from __future__ import annotations

from itertools import combinations

from pbem.core.geometry import squaregrid as sg

from .scenario import INSIDE, Scenario
from .state import Board

MAX_UNITS = 6          # K-GM-1
MAX_GROUPS = 3         # K-GM-5
# the places a unit facing each edge takes, front-most first: rank by rank, the middle file first
PLACES = {f: tuple(cell for rank in INSIDE.ranks(f) for cell in (rank[1], rank[0], rank[2])) for f in sg.EDGES}
# the inside of a square never changes: the cell in front of each cell for each facing, and
# whether each set of cells is in edge contact, worked out once
FRONT = {(f, cell): INSIDE.in_front(f, cell) for f in sg.EDGES for cell in INSIDE.cells}
CONNECTED = {frozenset(chosen): INSIDE.connected(chosen)
             for n in range(len(INSIDE.cells) + 1) for chosen in combinations(INSIDE.cells, n)}


def in_front(facing: str, cell: str) -> str | None:
    """`INSIDE.in_front`, from the table."""
    try:
        return FRONT[(facing, cell)]
    except KeyError:
        return INSIDE.in_front(facing, cell)


def connected(cells) -> bool:
    """`INSIDE.connected` (through cell sides), from the table."""
    chosen = frozenset(cells)
    found = CONNECTED.get(chosen)
    return INSIDE.connected(chosen) if found is None else found


def can_group(sc: Scenario, a: str, b: str) -> bool:
    """May two pieces be in one battle group (K-GM-6: grouping is not automatic; K-BG-2,
    K-DOC-1, K-DOC-2, K-LST-3)? Same
    commanding marker (their formation's, or the one they are attached to); AA never with
    others; NATO field and rocket artillery only with artillery; Soviet reconnaissance, field
    and rocket artillery only with their own type. Remembered in the scenario: it depends on
    nothing that play changes."""
    key = ("group", a, b)
    found = sc.memo.get(key)
    if found is None:
        found = sc.memo[key] = _can_group(sc, a, b)
    return found


def _can_group(sc: Scenario, a: str, b: str) -> bool:
    pa, pb = sc.pieces[a], sc.pieces[b]
    if pa.side != pb.side or pa.hq != pb.hq:
        return False
    if (pa.kind == "aa-arty") != (pb.kind == "aa-arty"):
        return False
    artillery = ("fd-arty", "at-arty", "atgw")
    if pa.doctrine == "nato" or pb.doctrine == "nato":
        if (pa.kind == "fd-arty") and pb.kind not in artillery or (pb.kind == "fd-arty") and pa.kind not in artillery:
            return False
    if pa.doctrine == "soviet" or pb.doctrine == "soviet":
        if pa.recce != pb.recce:
            return False
        if (pa.kind == "fd-arty" or pb.kind == "fd-arty") and (pa.kind != pb.kind or pa.rocket != pb.rocket):
            return False
    return True


def road_square(sc: Scenario, square: str) -> bool:
    return sc.area[square].vehicles == "road"


def check_square(sc: Scenario, board: Board, square: str, groups: bool = True) -> str | None:
    """Why the layout of a square breaks the rules, or None if it is legal (with `groups`
    False, battle groups are not checked: while units Give Ground one by one)."""
    rules = board.rules
    return check_entries(sc, square, {p: rules["pieces"][p] for p in board.at(square)}, groups)


def close_up(sc: Scenario, entries: dict[str, dict]) -> tuple[dict[str, str], list[str]]:
    """K-GM-2: "units that are facing an edge of a square are placed closest to that edge".
    When a unit leaves a square, is destroyed, or moves or faces anew inside it, those behind
    the place it left close up: each unit with an empty place in front of it steps forward,
    until none has (K-GM-7: any unit may leave whatever stands behind it). Then a battle
    group no longer in contact, or left with one unit, is a group no more (K-GM-5).
    `entries` (piece -> its record, the caller's copies) change in place. Returns ({piece: its
    new cell}, the pieces out of a group)."""
    by_cell = {rec["cell"]: p for p, rec in entries.items()}
    moved: dict[str, str] = {}
    stepping = True
    while stepping:
        stepping = False
        for p in sorted(entries):
            rec = entries[p]
            ahead = in_front(rec["f"], rec["cell"])
            if ahead is not None and ahead not in by_cell:
                del by_cell[rec["cell"]]
                by_cell[ahead] = p
                rec["cell"] = moved[p] = ahead
                stepping = True
    groups: dict[str, list[str]] = {}
    for p, rec in sorted(entries.items()):
        if rec.get("g"):
            groups.setdefault(rec["g"], []).append(p)
    dropped = []
    for members in groups.values():
        if len(members) < 2 or _check_group(sc, members, entries) is not None:
            for p in members:
                entries[p].pop("g", None)
                dropped.append(p)
    return moved, sorted(dropped)


def close_ranks(sc: Scenario, board: Board, squares, ctx, absent=(), told: list | None = None) -> None:
    """`close_up` on the board, in each of `squares`, said in the report; `absent`: pieces
    about to take other places, whose present ones count as empty; `told`: where to keep the
    events instead, for the caller to tell after its own."""
    say = ctx.event if told is None else (lambda kind, text, **fields: told.append((kind, text, fields)))
    rules = board.rules
    for square in sorted(set(squares)):
        entries = {p: dict(rules["pieces"][p]) for p in board.at(square) if p not in absent}
        moved, dropped = close_up(sc, entries)
        for p, cell in sorted(moved.items()):
            board.place(p, square, cell, entries[p]["f"])
        for p in dropped:
            rules["pieces"][p].pop("g", None)
        broken = (f"{', '.join(dropped)} no longer form{'s' if len(dropped) == 1 else ''} a battle group (K-GM-5)"
                  if dropped else "")
        if moved:
            steps = ", ".join(f"{p} steps up to cell {cell}" for p, cell in sorted(moved.items()))
            why = "to stand" if len(moved) == 1 else "each to stand"
            say("close-up", f"In {square}, {steps}, {why} closest to the edge it faces (K-GM-2)"
                + (f"; {broken}." if broken else "."), square=square, cells=dict(sorted(moved.items())),
                groups_ended=dropped, rule="K-GM-2")
        elif dropped:
            say("close-up", f"In {square}, {broken}.", square=square, cells={}, groups_ended=dropped, rule="K-GM-5")


def check_entries(sc: Scenario, square: str, entries: dict[str, dict], groups: bool = True,
                  count: bool = True) -> str | None:
    """`check_square` for a square holding `entries` (piece -> its record: cell, f, o, g, mode),
    real or planned. With `count` False, more than six units may stand there: a square in the
    middle of a movement step, which K-MOV-5 lets be over-full until the step ends."""
    pieces = sorted(entries)
    if not pieces:
        return None
    if count and len(pieces) > MAX_UNITS:
        return f"{square} would hold {len(pieces)} units; a square holds at most {MAX_UNITS} (K-GM-1)"
    by_cell: dict[str, str] = {}
    for p in pieces:
        cell = entries[p]["cell"]
        if cell in by_cell:
            return f"{p} and {by_cell[cell]} would stand in the same place ({square} cell {cell}) (K-GM-3)"
        by_cell[cell] = p
    for p in pieces:
        rec = entries[p]
        front = in_front(rec["f"], rec["cell"])
        if front is not None:
            ahead = by_cell.get(front)
            if ahead is None or entries[ahead]["f"] != rec["f"]:
                return (f"{p} faces {rec['f']} but would stand behind an empty place or a unit facing elsewhere: a "
                        f"unit facing an edge stands closest to it (K-GM-2)")
    found: dict[str, list[str]] = {}
    for p in pieces:
        g = entries[p].get("g")
        if g is not None:
            found.setdefault(g, []).append(p)
    if groups and len(found) > MAX_GROUPS:
        return f"{square} would hold {len(found)} battle groups; at most {MAX_GROUPS} (K-GM-5)"
    for g, members in sorted(found.items()) if groups else ():
        why = _check_group(sc, members, entries)
        if why:
            return why
    if road_square(sc, square):
        vehicles = [p for p in pieces if sc.profile(p, entries[p].get("mode")).vehicle]
        if len(vehicles) > sc.tables["terrain"]["road_column"]:
            return (f"{square} ({sc.area[square].name}) would hold {len(vehicles)} vehicle units; on its road at most "
                    f"{sc.tables['terrain']['road_column']} (K-TER-5)")
        if len({entries[p]['f'] for p in vehicles}) > 1:
            return f"vehicles on the road in {square} ({sc.area[square].name}) stay in column, facing one way (K-TER-5)"
    return None


def check_group(sc: Scenario, board: Board, members: list[str]) -> str | None:
    rules = board.rules
    return _check_group(sc, members, {p: rules["pieces"][p] for p in members})


def _check_group(sc: Scenario, members: list[str], entries: dict[str, dict]) -> str | None:
    if len(members) < 2:
        return f"a battle group is two or more units ({members[0]} is alone) (K-GM-5)"
    first = entries[members[0]]
    for p in members[1:]:
        rec = entries[p]
        if rec.get("sq", first.get("sq")) != first.get("sq") or rec["f"] != first["f"]:
            return f"a battle group faces one way in one square ({members[0]}, {p}) (K-GM-5)"
        if rec["o"] != first["o"]:
            return f"a battle group has one order chit ({members[0]} {first['o']}, {p} {rec['o']}) (K-GM-5, K-ORD-8)"
        if not can_group(sc, members[0], p):
            return f"{members[0]} and {p} may not battle group (formation or national doctrine, K-BG-2, K-DOC)"
    if not connected(entries[p]["cell"] for p in members):
        return f"a battle group is in edge contact: {', '.join(members)} are not (K-GM-5)"
    square = first.get("sq")
    if square is not None and road_square(sc, square):
        vehicles = [p for p in members if sc.profile(p, entries[p].get("mode")).vehicle]
        if 1 < len(vehicles) < len(members):
            return f"in {square} only one vehicle unit may battle group with units not in vehicles (K-TER-5)"
    return None


def place_cells(sc: Scenario, board: Board, square: str, movers: list[str], facing: str,
                grouped: bool, others: dict[str, dict] | None = None) -> list[str] | None:
    """Cells for `movers` (in order) facing `facing` in `square`, the front-most legal
    placement: every mover stands closest to its edge and, if `grouped`, the movers are in
    edge contact. The other pieces stay where they are (or as `others`, their records, has
    them: closed up once the movers have left their places); the movers' own present places
    count as free. None if there is no room."""
    if others is None:
        others = {p: board.rules["pieces"][p] for p in board.at(square) if p not in set(movers)}
    taken = {rec["cell"]: p for p, rec in others.items()}
    facings = {rec["cell"]: rec["f"] for rec in others.values()}
    free = [c for c in PLACES[facing] if c not in taken]
    if len(free) < len(movers):
        return None
    for chosen in combinations(free, len(movers)):
        # each stands in the front rank, or behind a mover or a unit there facing the same way
        for c in chosen:
            front = FRONT[(facing, c)]
            if front is not None and front not in chosen and facings.get(front) != facing:
                break
        else:
            if not grouped or len(chosen) < 2 or connected(chosen):
                return list(chosen)
    return None


def places(sc: Scenario, board: Board, square: str, facing: str) -> list[str]:
    """Every place one more unit facing `facing` may take in `square`, front-most first (rank by
    rank, the middle file first): a free cell in the front rank, or behind a unit facing the
    same way (K-GM-2)."""
    rules = board.rules
    taken = {rules["pieces"][p]["cell"]: rules["pieces"][p]["f"] for p in board.at(square)}
    out = []
    for cell in PLACES[facing]:
        front = in_front(facing, cell)
        if cell not in taken and (front is None or taken.get(front) == facing):
            out.append(cell)
    return out


def free_cell(board: Board, square: str, facing: str) -> str | None:
    """The front-most place a single unit facing `facing` may take in `square`."""
    cells = place_cells(board.sc, board, square, ["?"], facing, False)
    return cells[0] if cells else None


# --- incoming fire and assaults -------------------------------------------------------------

def incoming(sc: Scenario, target: str, source: str) -> str:
    """The edge ("N") or corner ("NE") of `target` through which fire from `source` arrives:
    the dominant direction; a corner when the two differences are equal."""
    t, s = sc.grid.square(target), sc.grid.square(source)
    dx, dy = s.x - t.x, s.y - t.y
    if abs(dx) == abs(dy):
        return sg.heading(t, s)
    if abs(dx) > abs(dy):
        return "E" if dx > 0 else "W"
    return "N" if dy > 0 else "S"


def exposure(facing: str, entry: str) -> str:
    """front, flank or rear of a unit facing `facing` to something arriving through `entry`
    (an edge or a corner): a corner is a front if it touches the faced edge, else a flank;
    rear only straight through the edge behind (K-GM-11 "Rear")."""
    if len(entry) == 2:
        return "front" if facing in entry else "flank"
    if entry == facing:
        return "front"
    if entry == sg.opposite(facing):
        return "rear"
    return "flank"


def _nearness(cell: str, entry: str) -> int:
    return INSIDE.corner_depth(cell, entry) if len(entry) == 2 else INSIDE.depth(cell, entry)


def fire_targets(sc: Scenario, board: Board, target: str, source: str, side: str,
                 skip: set[str] = frozenset()) -> tuple[list[str], str]:
    """The units of `side` in `target` that fire from `source` may hit (K-GM-10, K-DF-3): the
    front rank of units facing it; else the nearest flank; else the nearest rear. Units in
    `skip` (that have Given Ground, K-DF-8) neither count nor shield; command markers are never
    targets (K-CMK-3). Returns them and how
    the shot takes them (front, flank, rear)."""
    rules = board.rules
    return targets_among(sc, {p: rules["pieces"][p] for p in board.at(target, side) if p not in skip}, target, source)


def targets_among(sc: Scenario, entries: dict[str, dict], target: str, source: str) -> tuple[list[str], str]:
    """`fire_targets` among `entries` (piece -> its record: cell, f), real or planned."""
    entry = incoming(sc, target, source)
    classes: dict[str, list[str]] = {"front": [], "flank": [], "rear": []}
    for p in sorted(entries):
        classes[exposure(entries[p]["f"], entry)].append(p)
    if classes["front"]:
        nearest = min(INSIDE.rank(entries[q]["f"], entries[q]["cell"]) for q in classes["front"])
        return [p for p in classes["front"] if INSIDE.rank(entries[p]["f"], entries[p]["cell"]) == nearest], "front"
    for how in ("flank", "rear"):
        if classes[how]:
            near = min(_nearness(entries[p]["cell"], entry) for p in classes[how])
            return [p for p in classes[how] if _nearness(entries[p]["cell"], entry) == near], how
    return [], "front"


def defence_levels(sc: Scenario, board: Board, target: str, source: str, side: str,
                   engaged: set[str]) -> list[list[list[str]]]:
    """The defender's choices for an assault from `source` (K-CA-7), level by level: each a
    list of units or groups. (1) the nearest facing the assault; (2) whatever its facing, the
    closest to the edge assaulted; (3) the nearest outflanked (flank to the edge) closest to
    it; (4) any other unengaged unit or group. Groups and units already engaged in another
    assault of this phase come last (level 4 when nothing else is left)."""
    entry = incoming(sc, target, source)
    rules = board.rules
    bodies: list[list[str]] = []
    seen: set[str] = set()
    for p in board.at(target, side):
        if p not in seen:
            m = board.members(p)
            seen.update(m)
            bodies.append(m)
    free = [b for b in bodies if not set(b) & engaged]

    def nearest(found: list[list[str]]) -> list[list[str]]:
        if not found:
            return []
        near = min(min(_nearness(rules["pieces"][p]["cell"], entry) for p in b) for b in found)
        return [b for b in found if min(_nearness(rules["pieces"][p]["cell"], entry) for p in b) == near]

    # K-CA-7's own order, not the Direct Fire one (K-GM-10): facing, then closest to the edge
    # whatever the facing, then outflanked
    levels: list[list[list[str]]] = [
        nearest([b for b in free if exposure(rules["pieces"][b[0]]["f"], entry) == "front"]),
        nearest([b for b in free if exposure(rules["pieces"][b[0]]["f"], entry) != "front"]),
        nearest([b for b in free if exposure(rules["pieces"][b[0]]["f"], entry) == "flank"])]
    chosen = {tuple(b) for level in levels for b in level}
    levels.append([b for b in bodies if tuple(b) not in chosen])
    return levels
