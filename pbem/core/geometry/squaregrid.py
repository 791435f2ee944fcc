"""Square grid geometry, game-agnostic (STYLE 5): a sibling of `hexgrid` with the same small
interface (neighbours, distance, ids at the edges; paths through `paths`).

Squares. Inside, a square is a coordinate `Square(x, y)`: x grows eastwards, y northwards
(a map's easting and northing). A rulebook's printed ids such as "0507" (column 5, row 7)
exist only at the edges: `SquareIdFormat` parses and formats them, and `SquareMap` offers
the id-level operations on the finite set of squares on a table.

Edges and corners. A square has four edges, named by the compass: N, E, S, W, in that
(clockwise) order, and four corners NE, SE, SW, NW. Orthogonal neighbours share an edge;
diagonal neighbours share only a corner, which the two squares between them also touch
(`corner_squares`): a move or a line "past a corner" is judged by those two.

Lines. `crossed(a, b)` follows the straight line between the centres of two squares and
returns, in order, the squares whose inside it passes through and the corners it passes
exactly through (each with the two squares beside it that touch that corner). Exact
fractions: every machine agrees.

Relative positions. `relative(origin, facing, square)` gives (ahead, right): how far a
square lies in front of `origin` as seen by someone facing the edge `facing`, and how far to
the right; `from_relative` inverts it. An "arc" of a facing is then a set of (ahead, right).

The inside of a square (`Interior`). A square's inside is a grid of `size` x `size` cells
(size 3: a frontage and a depth of three). Cell (r, c): r counts rows from the N edge, c
columns from the W edge, both from 0; the id is the two digits "rc". Something placed in a
cell faces one edge; seen from that edge, the cell has a rank (1 = the row touching the
edge, 2 behind it, ...) and a file (1 = leftmost as seen looking out through the edge).
Cells in edge contact share a cell side; in corner contact they share only a cell corner.

Everything here is deterministic: directions come in the fixed orders above, other
collections sorted.
"""

from __future__ import annotations

from fractions import Fraction

from pbem.core.record import Record

from . import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Iterator

EDGES = ("N", "E", "S", "W")
CORNERS = ("NE", "SE", "SW", "NW")
VECTORS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
DIAGONAL_VECTORS = {"NE": (1, 1), "SE": (1, -1), "SW": (-1, -1), "NW": (-1, 1)}
_EDGE_OF_VECTOR = {v: e for e, v in VECTORS.items()}
_CORNER_OF_VECTOR = {v: c for c, v in DIAGONAL_VECTORS.items()}


class Square(Record):
    """A square of the grid: x eastwards, y northwards. Ordered, hashable, immutable; a named
    tuple (pbem/core/__init__.py), so `+` and `-` are sums of vectors."""

    x: int
    y: int

    def __add__(self, other: Square) -> Square:
        return Square(self.x + other.x, self.y + other.y)

    def __sub__(self, other: Square) -> Square:
        return Square(self.x - other.x, self.y - other.y)

    def step(self, direction: str, n: int = 1) -> Square:
        """The square `n` steps towards an edge ("N") or a corner ("NE")."""
        dx, dy = VECTORS.get(direction) or DIAGONAL_VECTORS[direction]
        return Square(self.x + n * dx, self.y + n * dy)


# --- directions ---------------------------------------------------------------------------

def opposite(edge: str) -> str:
    return EDGES[(EDGES.index(edge) + 2) % 4]


def turn_right(edge: str, quarters: int = 1) -> str:
    return EDGES[(EDGES.index(edge) + quarters) % 4]


def turn_left(edge: str, quarters: int = 1) -> str:
    return EDGES[(EDGES.index(edge) - quarters) % 4]


def corner_edges(corner: str) -> tuple[str, str]:
    """The two edges that meet at a corner: "NE" -> ("N", "E")."""
    return corner[0], corner[1]


def corner_of(edge_a: str, edge_b: str) -> str:
    """The corner where two perpendicular edges meet."""
    for corner in CORNERS:
        if {edge_a, edge_b} == set(corner):
            return corner
    raise ValueError(f"edges {edge_a} and {edge_b} do not meet at a corner")


def sign(n: int) -> int:
    return (n > 0) - (n < 0)


# --- squares ------------------------------------------------------------------------------

def neighbours(s: Square) -> tuple[Square, ...]:
    """The four edge neighbours, in the order of EDGES."""
    return tuple(s.step(e) for e in EDGES)


def diagonal_neighbours(s: Square) -> tuple[Square, ...]:
    """The four corner neighbours, in the order of CORNERS."""
    return tuple(s.step(c) for c in CORNERS)


def all_neighbours(s: Square) -> tuple[Square, ...]:
    """The eight squares around `s`: N, NE, E, SE, S, SW, W, NW."""
    return tuple(s.step(d) for d in ("N", "NE", "E", "SE", "S", "SW", "W", "NW"))


def distance(a: Square, b: Square) -> int:
    """Steps from a to b when a diagonal step counts as one (the larger of the column and
    row differences)."""
    return max(abs(a.x - b.x), abs(a.y - b.y))


def orthogonal_distance(a: Square, b: Square) -> int:
    """Steps from a to b through edges only."""
    return abs(a.x - b.x) + abs(a.y - b.y)


def direction_to(a: Square, b: Square) -> str | None:
    """The edge ("N") or corner ("NE") of `a` that `b` lies beyond, for a neighbour `b`;
    None if they are not neighbours."""
    v = (b.x - a.x, b.y - a.y)
    return _EDGE_OF_VECTOR.get(v) or _CORNER_OF_VECTOR.get(v)


def heading(a: Square, b: Square) -> str | None:
    """The direction from a towards b reduced to one step: an edge, a corner, or None for
    a == b."""
    v = (sign(b.x - a.x), sign(b.y - a.y))
    if v == (0, 0):
        return None
    return _EDGE_OF_VECTOR.get(v) or _CORNER_OF_VECTOR[v]


def is_diagonal(a: Square, b: Square) -> bool:
    return abs(a.x - b.x) == 1 and abs(a.y - b.y) == 1


def corner_squares(a: Square, b: Square) -> tuple[Square, Square]:
    """For diagonal neighbours: the two squares that touch the corner a and b share, sorted."""
    if not is_diagonal(a, b):
        raise ValueError(f"{a} and {b} are not diagonal neighbours")
    pair = (Square(b.x, a.y), Square(a.x, b.y))
    return (pair[0], pair[1]) if pair[0] < pair[1] else (pair[1], pair[0])


def relative(origin: Square, facing: str, s: Square) -> tuple[int, int]:
    """(ahead, right) of `s` for someone in `origin` looking out through edge `facing`."""
    fx, fy = VECTORS[facing]
    rx, ry = VECTORS[turn_right(facing)]
    dx, dy = s.x - origin.x, s.y - origin.y
    return dx * fx + dy * fy, dx * rx + dy * ry


def from_relative(origin: Square, facing: str, ahead: int, right: int) -> Square:
    fx, fy = VECTORS[facing]
    rx, ry = VECTORS[turn_right(facing)]
    return Square(origin.x + ahead * fx + right * rx, origin.y + ahead * fy + right * ry)


def side_towards(s: Square, facing: str, source: Square) -> str:
    """How `source` lies as seen from a square `s` whose occupant faces `facing`: "front"
    (through the faced edge or its two corners), "rear" (straight through the opposite
    edge), or "flank" (anything else)."""
    ahead, right = relative(s, facing, source)
    if ahead > 0 and abs(right) <= ahead:
        return "front"
    if ahead < 0 and right == 0:
        return "rear"
    return "flank"


def crossed(a: Square, b: Square) -> tuple[list[Square], list[tuple[Square, Square]]]:
    """The straight line between the centres of a and b: the squares it passes through on
    the way (a and b left out), in order, and the grid corners it passes exactly through,
    each given as the two squares beside the line that touch it (sorted).

    A line through a corner enters neither of the two squares beside it; a line along no
    corner passes through every square it touches inside."""
    dx, dy = b.x - a.x, b.y - a.y
    n = max(abs(dx), abs(dy))
    if n == 0:
        return [], []
    # Walk the line in fine exact steps: the boundaries a line can cross are at half
    # integers, so sampling at the midpoints between successive crossings is exact.
    ts: set[Fraction] = {Fraction(0), Fraction(1)}
    for d in (dx, dy):
        if d:
            for k in range(-abs(d), abs(d) + 1):
                t = (Fraction(2 * k + 1, 2)) / d
                if 0 < t < 1:
                    ts.add(t)
    ordered = sorted(ts)
    squares: list[Square] = []
    corners: list[tuple[Square, Square]] = []
    for t0, t1 in zip(ordered, ordered[1:]):
        mid = (t0 + t1) / 2
        x, y = a.x + dx * mid, a.y + dy * mid
        s = Square(_round_half(x), _round_half(y))
        if s not in (a, b) and (not squares or squares[-1] != s):
            squares.append(s)
    for t in ordered[1:-1]:
        x, y = a.x + dx * t, a.y + dy * t
        if x.denominator == 2 and y.denominator == 2:   # exactly on a grid corner
            lo_x, lo_y = int(x - Fraction(1, 2)), int(y - Fraction(1, 2))
            quad = [Square(lo_x, lo_y), Square(lo_x + 1, lo_y), Square(lo_x, lo_y + 1), Square(lo_x + 1, lo_y + 1)]
            beside = sorted(q for q in quad if (q.x - x) * dy - (q.y - y) * dx != 0)
            corners.append((beside[0], beside[1]))
    return squares, corners


def _round_half(v: Fraction) -> int:
    """The square index of a coordinate strictly inside a square (never on a boundary)."""
    return int((v + Fraction(1, 2)) // 1)


# --- printed ids --------------------------------------------------------------------------

class SquareIdFormat(Record):
    """Printed square ids such as "0507": an optional prefix, then the column and the row,
    each zero-padded to `digits` digits."""

    digits: int = 2
    prefix: str = ""

    def parse(self, square_id: str) -> Square:
        if not isinstance(square_id, str):
            raise ValueError(f"square id must be a string, not {type(square_id).__name__}: {square_id!r}")
        body = square_id[len(self.prefix):] if square_id.startswith(self.prefix) else None
        n = self.digits
        if body is None or len(body) != 2 * n or not body.isascii() or not body.isdigit():
            raise ValueError(f"{square_id!r} is not a square id of the form {self.prefix}{'C' * n}{'R' * n}")
        return Square(int(body[:n]), int(body[n:]))

    def format(self, s: Square) -> str:
        limit = 10 ** self.digits
        if not (0 <= s.x < limit and 0 <= s.y < limit):
            raise ValueError(f"column {s.x}, row {s.y} cannot be written with {self.digits} digits each")
        return f"{self.prefix}{s.x:0{self.digits}d}{s.y:0{self.digits}d}"


EDGE_SEPARATOR = "/"


class SquareMap:
    """The squares of a table, addressed by printed ids. Results are ids; neighbour lists
    keep the documented direction orders, other collections are sorted by id."""

    def __init__(self, ids: Iterable[str], fmt: SquareIdFormat | None = None):
        self.format = fmt or SquareIdFormat()
        by_id: dict[str, Square] = {}
        for square_id in ids:
            s = self.format.parse(square_id)
            if self.format.format(s) != square_id:
                raise ValueError(f"{square_id!r} is not in canonical form ({self.format.format(s)!r})")
            by_id[square_id] = s
        self._sq = by_id
        self._id = {s: i for i, s in by_id.items()}
        self.ids: tuple[str, ...] = tuple(sorted(by_id))

    @classmethod
    def rectangle(cls, columns: range, rows: range, fmt: SquareIdFormat | None = None) -> SquareMap:
        fmt = fmt or SquareIdFormat()
        return cls((fmt.format(Square(c, r)) for c in columns for r in rows), fmt)

    def __contains__(self, square_id: object) -> bool:
        return square_id in self._sq

    def __len__(self) -> int:
        return len(self._sq)

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def square(self, square_id: str) -> Square:
        s = self._sq.get(square_id)
        return s if s is not None else self.format.parse(square_id)

    def id(self, s: Square) -> str:
        i = self._id.get(s)
        return i if i is not None else self.format.format(s)

    def on_map(self, s: Square) -> str | None:
        """The id of `s` if it is on the table, else None."""
        return self._id.get(s)

    def require(self, square_id: str) -> Square:
        if square_id not in self._sq:
            raise KeyError(f"square {square_id!r} is not on the table")
        return self._sq[square_id]

    def neighbours(self, square_id: str, diagonal: bool = False) -> list[str]:
        """On-table neighbours: the four edge neighbours (order of EDGES), or with
        `diagonal` all eight (N, NE, E, SE, S, SW, W, NW)."""
        s = self.square(square_id)
        around = all_neighbours(s) if diagonal else neighbours(s)
        return [self._id[n] for n in around if n in self._id]

    def step(self, square_id: str, direction: str, n: int = 1) -> str | None:
        """The id `n` steps towards an edge or corner, or None off the table."""
        return self._id.get(self.square(square_id).step(direction, n))

    def distance(self, a: str, b: str) -> int:
        return distance(self.square(a), self.square(b))

    def orthogonal_distance(self, a: str, b: str) -> int:
        return orthogonal_distance(self.square(a), self.square(b))

    def direction(self, a: str, b: str) -> str | None:
        return direction_to(self.square(a), self.square(b))

    def heading(self, a: str, b: str) -> str | None:
        return heading(self.square(a), self.square(b))

    def corner_squares(self, a: str, b: str) -> tuple[str, str]:
        """The ids of the two squares touching the corner between diagonal neighbours
        (off-table squares included, as ids, where they can be written)."""
        p, q = corner_squares(self.square(a), self.square(b))
        return self.id(p), self.id(q)

    def relative(self, origin: str, facing: str, square_id: str) -> tuple[int, int]:
        return relative(self.square(origin), facing, self.square(square_id))

    def from_relative(self, origin: str, facing: str, ahead: int, right: int) -> str | None:
        return self._id.get(from_relative(self.square(origin), facing, ahead, right))

    def crossed(self, a: str, b: str) -> tuple[list[str], list[tuple[str, str]]]:
        squares, corners = crossed(self.square(a), self.square(b))
        return [self.id(s) for s in squares], [(self.id(p), self.id(q)) for p, q in corners]

    def within(self, square_id: str, radius: int) -> list[str]:
        """On-table ids at distance <= radius (diagonals counting one), sorted."""
        s = self.square(square_id)
        return sorted(self._id[Square(x, y)] for x in range(s.x - radius, s.x + radius + 1)
                      for y in range(s.y - radius, s.y + radius + 1) if Square(x, y) in self._id)

    def is_edge(self, square_id: str) -> bool:
        """True for an on-table square with an edge neighbour off the table."""
        return any(n not in self._id for n in neighbours(self.require(square_id)))

    def edge_key(self, a: str, b: str) -> str:
        """Canonical key of the edge between edge neighbours: "lower/higher" in id order."""
        if orthogonal_distance(self.square(a), self.square(b)) != 1:
            raise ValueError(f"{a} and {b} are not edge neighbours: they share no edge")
        lo, hi = (a, b) if a < b else (b, a)
        return f"{lo}{EDGE_SEPARATOR}{hi}"

    def parse_edge(self, key: str) -> tuple[str, str]:
        parts = key.split(EDGE_SEPARATOR) if isinstance(key, str) else []
        if len(parts) != 2:
            raise ValueError(f"{key!r} is not an edge key of the form 'AAAA/BBBB'")
        a, b = parts
        if self.edge_key(a, b) != key:
            raise ValueError(f"{key!r} is not canonical; write it as {self.edge_key(a, b)!r}")
        return a, b

    def path_costs(self, start: str, cost: Callable[[str, str], int | None], *, diagonal: bool = True,
                   budget: int | None = None) -> dict[str, int]:
        """The cheapest cost from `start` to every square it can reach (paths.all_costs
        over this table's neighbours; `cost(a, b)` None: no step)."""
        around = lambda s: self.neighbours(s, diagonal)  # noqa: E731
        if budget is None:
            return paths.all_costs(start, around, cost)
        return paths.reachable(start, budget, around, cost)


# --- the inside of a square ---------------------------------------------------------------

_TABLES: dict[int, dict] = {}


def _interior_tables(n: int) -> dict:
    """Rank, file, depth and contact of every cell for every facing, worked out once."""
    if n not in _TABLES:
        cells = [f"{r}{c}" for r in range(n) for c in range(n)]
        cell_of = {}
        for f in EDGES:
            for rank in range(1, n + 1):
                for file in range(1, n + 1):
                    r, c = {"N": (rank - 1, file - 1), "S": (n - rank, n - file),
                            "E": (file - 1, n - rank), "W": (n - file, rank - 1)}[f]
                    cell_of[(f, rank, file)] = f"{r}{c}"
        rank_of = {(f, cell): rank for (f, rank, file), cell in cell_of.items()}
        file_of = {(f, cell): file for (f, rank, file), cell in cell_of.items()}
        depth = {}
        for cell in cells:
            r, c = int(cell[0]), int(cell[1])
            depth.update({(cell, "N"): r, (cell, "S"): n - 1 - r, (cell, "W"): c, (cell, "E"): n - 1 - c})
        _TABLES[n] = {"cells": tuple(cells), "cell": cell_of, "rank": rank_of, "file": file_of, "depth": depth}
    return _TABLES[n]


class Interior(Record):
    """The cells inside a square: `size` x `size`, placed by facing edge, rank and file."""

    size: int = 3

    @property
    def _t(self) -> dict:
        return _interior_tables(self.size)

    @property
    def cells(self) -> tuple[str, ...]:
        return tuple(f"{r}{c}" for r in range(self.size) for c in range(self.size))

    def parse(self, cell: str) -> tuple[int, int]:
        if (not isinstance(cell, str) or len(cell) != 2 or not cell.isascii() or not cell.isdigit()
                or int(cell[0]) >= self.size or int(cell[1]) >= self.size):
            raise ValueError(f"{cell!r} is not a cell of a {self.size}x{self.size} square (two digits: row from the N "
                             f"edge, column from the W edge, from 0)")
        return int(cell[0]), int(cell[1])

    def cell(self, facing: str, rank: int, file: int) -> str:
        """The cell at `rank` (1 = touching the faced edge) and `file` (1 = leftmost, looking
        out through the edge) for something facing `facing`."""
        found = self._t["cell"].get((facing, rank, file))
        if found is None:
            raise ValueError(f"rank {rank} and file {file} must be 1 to {self.size}")
        return found

    def rank(self, facing: str, cell: str) -> int:
        """1 for the row touching the faced edge, 2 behind it, ..."""
        found = self._t["rank"].get((facing, cell))
        if found is None:
            self.parse(cell)
        return found

    def file(self, facing: str, cell: str) -> int:
        found = self._t["file"].get((facing, cell))
        if found is None:
            self.parse(cell)
        return found

    def depth(self, cell: str, edge: str) -> int:
        """How many cells lie between `cell` and `edge` (0 for a cell touching it)."""
        found = self._t["depth"].get((cell, edge))
        if found is None:
            self.parse(cell)
        return found

    def corner_depth(self, cell: str, corner: str) -> int:
        """Cells to walk from `cell` to the cell in `corner` through cell sides."""
        a, b = corner_edges(corner)
        return self.depth(cell, a) + self.depth(cell, b)

    def in_front(self, facing: str, cell: str) -> str | None:
        """The cell one rank nearer the faced edge, or None in the front rank."""
        rank = self.rank(facing, cell)
        return None if rank == 1 else self._t["cell"][(facing, rank - 1, self._t["file"][(facing, cell)])]

    def behind(self, facing: str, cell: str) -> str | None:
        rank = self.rank(facing, cell)
        return None if rank == self.size else self.cell(facing, rank + 1, self.file(facing, cell))

    def edge_contact(self, a: str, b: str) -> bool:
        if a in self._t["cells"] and b in self._t["cells"]:
            return abs(ord(a[0]) - ord(b[0])) + abs(ord(a[1]) - ord(b[1])) == 1
        (ra, ca), (rb, cb) = self.parse(a), self.parse(b)
        return abs(ra - rb) + abs(ca - cb) == 1

    def corner_contact(self, a: str, b: str) -> bool:
        (ra, ca), (rb, cb) = self.parse(a), self.parse(b)
        return abs(ra - rb) == 1 and abs(ca - cb) == 1

    def touching(self, a: str, b: str) -> bool:
        return self.edge_contact(a, b) or self.corner_contact(a, b)

    def connected(self, cells: Iterable[str], corners: bool = False) -> bool:
        """True if the cells form one piece through cell sides (and, with `corners`, also
        through cell corners)."""
        todo = sorted(set(cells))
        if not todo:
            return True
        linked = self.touching if corners else self.edge_contact
        seen = {todo[0]}
        frontier = [todo[0]]
        while frontier:
            here = frontier.pop()
            for other in todo:
                if other not in seen and linked(here, other):
                    seen.add(other)
                    frontier.append(other)
        return len(seen) == len(todo)

    def ranks(self, facing: str) -> list[list[str]]:
        """The cells rank by rank from the faced edge, each rank from file 1."""
        return [[self.cell(facing, rank, file) for file in range(1, self.size + 1)] for rank in range(1, self.size + 1)]
