"""Hex grid geometry, game-agnostic (STYLE 5).

Inside, every hex is an axial coordinate `Hex(q, r)` (the third cube coordinate is
`s = -q - r`), as in Red Blob Games' hexagon guide. A rulebook's printed ids such as
"2541" (column 25, row 41) exist only at the edges: `HexIdFormat` parses and formats
them, and `HexMap` offers the id-level operations a ruleset needs (neighbours, distance,
hexside keys, edge tests) on the finite set of hexes that are on its map.

Offset layouts (how printed columns and rows map to axial coordinates):

    "odd-q"   vertical columns of flat-topped hexes, odd columns drawn half a hex lower
    "even-q"  vertical columns of flat-topped hexes, even columns drawn half a hex lower
    "odd-r"   horizontal rows of pointy-topped hexes, odd rows drawn half a hex right
    "even-r"  horizontal rows of pointy-topped hexes, even rows drawn half a hex right

For the "q" layouts the axial q is the column. Columns and rows are the printed numbers,
so the conversion depends on their parity exactly as printed (a map whose first column
is 10 keeps column 10 even).

Everything here is deterministic: neighbours come in the fixed order of `DIRECTIONS`,
lines are computed with exact fractions, and collections are returned sorted or in a
documented fixed order.
"""

from __future__ import annotations

import functools
import math

from pbem.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Iterable, Iterator

LAYOUTS = ("odd-q", "even-q", "odd-r", "even-r")


class Hex(Record):
    """An axial hex coordinate. Ordered by (q, r), hashable, immutable. A named tuple, as
    pbem's records are (pbem/core/__init__.py), so equal to the plain pair (q, r); `+` and
    `-` are sums of vectors, not tuple concatenation."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __add__(self, other: Hex) -> Hex:
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def scale(self, k: int) -> Hex:
        return Hex(self.q * k, self.r * k)


# The six axial directions, in a fixed counter-clockwise order. For flat-topped hexes
# drawn with q to the right and r downwards these are: lower right, upper right, up,
# upper left, lower left, down.
DIRECTIONS: tuple[Hex, ...] = (
    Hex(1, 0),
    Hex(1, -1),
    Hex(0, -1),
    Hex(-1, 0),
    Hex(-1, 1),
    Hex(0, 1),
)


def neighbour(h: Hex, direction: int) -> Hex:
    return h + DIRECTIONS[direction % 6]


def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The six neighbours of `h`, in the order of `DIRECTIONS`."""
    return tuple(h + d for d in DIRECTIONS)


def distance(a: Hex, b: Hex) -> int:
    """Number of hex steps from `a` to `b`."""
    d = a - b
    return max(abs(d.q), abs(d.r), abs(d.s))


def is_adjacent(a: Hex, b: Hex) -> bool:
    return distance(a, b) == 1


def direction_to(a: Hex, b: Hex) -> int | None:
    """The index in `DIRECTIONS` of the step from `a` to adjacent `b`; None if not adjacent."""
    d = b - a
    try:
        return DIRECTIONS.index(d)
    except ValueError:
        return None


def hexside(a: Hex, b: Hex) -> tuple[Hex, Hex]:
    """The canonical key of the hexside shared by adjacent `a` and `b`: the pair, sorted.

    The same side seen from either hex gives the same key, so a map can attach features
    (river, road, bridge) to it."""
    if not is_adjacent(a, b):
        raise ValueError(f"{a} and {b} are not adjacent: they share no hexside")
    return (a, b) if a < b else (b, a)


def _cube_round(q: Fraction, r: Fraction) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return Hex(int(rq), int(rr))


# A small fixed nudge keeps a line that runs exactly along hexsides on one side of it
# (Red Blob's epsilon, exact here so that every machine agrees): 1/1,000,000.
_NUDGE = (1, 1_000_000)


def line(a: Hex, b: Hex) -> list[Hex]:
    """The hexes on the straight line from `a` to `b`, both included, `distance + 1` of them."""
    from fractions import Fraction   # here, not at import: `fractions` costs every start of pbem ~3 ms

    n = distance(a, b)
    if n == 0:
        return [a]
    nudge = Fraction(*_NUDGE)
    aq, ar = Fraction(a.q) + nudge, Fraction(a.r) + nudge
    bq, br = Fraction(b.q) + nudge, Fraction(b.r) + nudge
    out = []
    for i in range(n + 1):
        t = Fraction(i, n)
        out.append(_cube_round(aq + (bq - aq) * t, ar + (br - ar) * t))
    return out


def ring(center: Hex, radius: int) -> list[Hex]:
    """The hexes at exactly `radius` from `center`, walking counter-clockwise from
    `center + DIRECTIONS[4] * radius`. Radius 0 is the centre itself."""
    if radius < 0:
        raise ValueError("radius must be >= 0")
    if radius == 0:
        return [center]
    out = []
    h = center + DIRECTIONS[4].scale(radius)
    for side in range(6):
        for _ in range(radius):
            out.append(h)
            h = h + DIRECTIONS[side]
    return out


def within(center: Hex, radius: int) -> list[Hex]:
    """All hexes at distance <= `radius` from `center`, sorted."""
    out = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            out.append(Hex(center.q + dq, center.r + dr))
    return sorted(out)


# ---------------------------------------------------------------------------------------
# Offset coordinates (the printed columns and rows)


def offset_to_axial(col: int, row: int, layout: str) -> Hex:
    if layout == "odd-q":
        return Hex(col, row - (col - (col & 1)) // 2)
    if layout == "even-q":
        return Hex(col, row - (col + (col & 1)) // 2)
    if layout == "odd-r":
        return Hex(col - (row - (row & 1)) // 2, row)
    if layout == "even-r":
        return Hex(col - (row + (row & 1)) // 2, row)
    raise ValueError(f"unknown offset layout {layout!r}; expected one of {', '.join(LAYOUTS)}")


def axial_to_offset(h: Hex, layout: str) -> tuple[int, int]:
    """(column, row) of `h` in `layout`."""
    if layout == "odd-q":
        return h.q, h.r + (h.q - (h.q & 1)) // 2
    if layout == "even-q":
        return h.q, h.r + (h.q + (h.q & 1)) // 2
    if layout == "odd-r":
        return h.q + (h.r - (h.r & 1)) // 2, h.r
    if layout == "even-r":
        return h.q + (h.r + (h.r & 1)) // 2, h.r
    raise ValueError(f"unknown offset layout {layout!r}; expected one of {', '.join(LAYOUTS)}")


class _IdFormat(Record):
    layout: str = "even-q"
    digits: int = 2
    prefix: str = ""


class HexIdFormat(_IdFormat):
    """Printed hex ids such as "2541": an optional prefix, then the column and the row,
    each zero-padded to `digits` digits, in the offset `layout`."""

    __slots__ = ()

    def __new__(cls, layout: str = "even-q", digits: int = 2, prefix: str = "") -> HexIdFormat:
        if layout not in LAYOUTS:
            raise ValueError(f"unknown offset layout {layout!r}")
        if digits < 1:
            raise ValueError("digits must be >= 1")
        return super().__new__(cls, layout, digits, prefix)

    def _replace(self, **changes: object) -> HexIdFormat:   # checked like a new one
        return HexIdFormat(**{**self._asdict(), **changes})

    def parse_offset(self, hex_id: str) -> tuple[int, int]:
        if not isinstance(hex_id, str):
            raise ValueError(f"hex id must be a string, not {type(hex_id).__name__}: {hex_id!r}")
        body = hex_id[len(self.prefix):] if hex_id.startswith(self.prefix) else None
        n = self.digits
        if body is None or len(body) != 2 * n or not body.isascii() or not body.isdigit():
            raise ValueError(
                f"{hex_id!r} is not a hex id of the form {self.prefix}{'C' * n}{'R' * n}"
            )
        return int(body[:n]), int(body[n:])

    def parse(self, hex_id: str) -> Hex:
        col, row = self.parse_offset(hex_id)
        return offset_to_axial(col, row, self.layout)

    def format_offset(self, col: int, row: int) -> str:
        limit = 10 ** self.digits
        if not (0 <= col < limit and 0 <= row < limit):
            raise ValueError(f"column {col}, row {row} cannot be written with {self.digits} digits each")
        return f"{self.prefix}{col:0{self.digits}d}{row:0{self.digits}d}"

    def format(self, h: Hex) -> str:
        col, row = axial_to_offset(h, self.layout)
        return self.format_offset(col, row)


# ---------------------------------------------------------------------------------------
# A finite map, addressed by printed ids


HEXSIDE_SEPARATOR = "/"


class HexMap:
    """The hexes of a playing area, addressed by printed ids.

    All results are ids (strings). Neighbour lists keep the order of `DIRECTIONS`;
    other collections are sorted by id."""

    def __init__(self, ids: Iterable[str], fmt: HexIdFormat):
        self.format = fmt
        by_id: dict[str, Hex] = {}
        for hex_id in ids:
            h = fmt.parse(hex_id)
            if fmt.format(h) != hex_id:
                raise ValueError(f"{hex_id!r} is not in canonical form ({fmt.format(h)!r})")
            by_id[hex_id] = h
        # the hexes as worked out here; a map loaded from a pickle works them out again where
        # first read (the cached properties below)
        self._hex = by_id
        self._id = {h: i for i, h in by_id.items()}
        self.ids: tuple[str, ...] = tuple(sorted(by_id))

    def __getstate__(self) -> dict:
        """Pickled (pbem's cache of built scenarios, pbem/core/cache.py) without its hexes: the
        ids were checked when the map was made, and the hexes are worked out from them where
        first read, which a command that asks the map nothing never does. Loading a map's
        coordinates cost more than any other table of a chir scenario."""
        state = dict(vars(self))
        state.pop("_hex", None)       # a map loaded so has them only once read
        state.pop("_id", None)
        return state

    @functools.cached_property
    def _hex(self) -> dict[str, Hex]:
        return {hex_id: self.format.parse(hex_id) for hex_id in self.ids}

    @functools.cached_property
    def _id(self) -> dict[Hex, str]:
        return {h: i for i, h in self._hex.items()}

    @classmethod
    def rectangle(cls, fmt: HexIdFormat, columns: range, rows: range) -> HexMap:
        """Every (column, row) of the given ranges: the usual printed rectangle."""
        return cls((fmt.format_offset(c, r) for c in columns for r in rows), fmt)

    def __contains__(self, hex_id: object) -> bool:
        return hex_id in self._hex

    def __len__(self) -> int:
        return len(self._hex)

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def hex(self, hex_id: str) -> Hex:
        """Axial coordinate of an id; the id need not be on the map, only well formed."""
        h = self._hex.get(hex_id)
        return h if h is not None else self.format.parse(hex_id)

    def id(self, h: Hex) -> str:
        i = self._id.get(h)
        return i if i is not None else self.format.format(h)

    def offset(self, hex_id: str) -> tuple[int, int]:
        """(column, row) as printed."""
        return self.format.parse_offset(hex_id)

    def require(self, hex_id: str) -> Hex:
        if hex_id not in self._hex:
            raise KeyError(f"hex {hex_id!r} is not on the map")
        return self._hex[hex_id]

    def neighbours(self, hex_id: str) -> list[str]:
        """On-map neighbours, in the order of `DIRECTIONS`."""
        h = self.hex(hex_id)
        return [self._id[n] for n in neighbours(h) if n in self._id]

    def all_neighbours(self, hex_id: str) -> list[str]:
        """All six neighbour ids (on the map or not), in the order of `DIRECTIONS`.
        Off-map neighbours that cannot be written as ids are left out."""
        out = []
        for n in neighbours(self.hex(hex_id)):
            try:
                out.append(self.id(n))
            except ValueError:
                pass
        return out

    def distance(self, a: str, b: str) -> int:
        return distance(self.hex(a), self.hex(b))

    def adjacent(self, a: str, b: str) -> bool:
        return is_adjacent(self.hex(a), self.hex(b))

    def is_edge(self, hex_id: str) -> bool:
        """True for an on-map hex with at least one neighbour off the map."""
        h = self.require(hex_id)
        return any(n not in self._id for n in neighbours(h))

    def edge_hexes(self) -> list[str]:
        return [i for i in self.ids if self.is_edge(i)]

    def hexside(self, a: str, b: str) -> str:
        """Canonical key of the hexside between adjacent ids: "lower/higher" in id order."""
        if not self.adjacent(a, b):
            raise ValueError(f"{a} and {b} are not adjacent: they share no hexside")
        lo, hi = (a, b) if a < b else (b, a)
        return f"{lo}{HEXSIDE_SEPARATOR}{hi}"

    def parse_hexside(self, key: str) -> tuple[str, str]:
        """The two ids of a hexside key; the key must be canonical."""
        parts = key.split(HEXSIDE_SEPARATOR) if isinstance(key, str) else []
        if len(parts) != 2:
            raise ValueError(f"{key!r} is not a hexside key of the form 'AAAA/BBBB'")
        a, b = parts
        if self.hexside(a, b) != key:
            raise ValueError(f"{key!r} is not canonical; write it as {self.hexside(a, b)!r}")
        return a, b

    def hexsides_of(self, hex_id: str) -> list[str]:
        """Keys of the hexsides between `hex_id` and its on-map neighbours."""
        return [self.hexside(hex_id, n) for n in self.neighbours(hex_id)]

    def within(self, hex_id: str, radius: int) -> list[str]:
        """On-map ids at distance <= radius, sorted."""
        return sorted(self._id[h] for h in within(self.hex(hex_id), radius) if h in self._id)

    def ring(self, hex_id: str, radius: int) -> list[str]:
        """On-map ids at exactly `radius`, in the walking order of `ring`."""
        return [self._id[h] for h in ring(self.hex(hex_id), radius) if h in self._id]

    def line(self, a: str, b: str) -> list[str]:
        """Ids on the straight line from a to b (off-map hexes included if they occur)."""
        return [self.id(h) for h in line(self.hex(a), self.hex(b))]


# ---------------------------------------------------------------------------------------
# Several mapsheets joined into one grid


class Sheet(Record):
    """One printed mapsheet of a joined map: its id prefix (such as "N" or "S"), the
    printed columns and rows its ids use (inclusive ranges), and the shift that takes its
    printed (column, row) to the offset coordinates of the joined grid."""

    prefix: str
    columns: tuple[int, int]
    rows: tuple[int, int]
    shift: tuple[int, int] = (0, 0)

    def holds(self, col: int, row: int) -> bool:
        """Does this sheet's printed range hold the joined grid's offset (col, row)?"""
        c, r = col - self.shift[0], row - self.shift[1]
        return self.columns[0] <= c <= self.columns[1] and self.rows[0] <= r <= self.rows[1]


class SheetedFormat:
    """Ids such as "N3117" and "S0639" of mapsheets printed each with its own numbering
    and joined into one grid (a game-map of two sheets, north and south).

    Each sheet's printed numbering is the joined grid's offset layout shifted by the
    sheet's `shift`, so a shift must keep the layout's parity: an even column shift for
    the "q" layouts, an even row shift for the "r" layouts (otherwise the printed hexes
    of that sheet would not meet their neighbours as the layout says). Offsets here are
    those of the joined grid; `printed` gives a sheet's own numbers back. Sheets may
    not overlap."""

    def __init__(self, layout: str, digits: int, sheets: Iterable[Sheet]):
        if layout not in LAYOUTS:
            raise ValueError(f"unknown offset layout {layout!r}")
        self.layout = layout
        self.digits = digits
        self.sheets: tuple[Sheet, ...] = tuple(sheets)
        self._by_prefix = {}
        axis = 0 if layout.endswith("q") else 1
        for sheet in self.sheets:
            if not sheet.prefix or sheet.prefix in self._by_prefix:
                raise ValueError(f"sheet prefix {sheet.prefix!r} is empty or used twice")
            if any(p.startswith(sheet.prefix) or sheet.prefix.startswith(p) for p in self._by_prefix):
                raise ValueError(f"sheet prefix {sheet.prefix!r} is a prefix of another sheet's")
            if sheet.shift[axis] % 2:
                raise ValueError(f"sheet {sheet.prefix}: a shift of {sheet.shift} breaks the parity of the "
                                 f"{layout} layout; shift the {'columns' if axis == 0 else 'rows'} by an even number")
            self._by_prefix[sheet.prefix] = (sheet, HexIdFormat(layout, digits, sheet.prefix))
        for i, a in enumerate(self.sheets):
            for b in self.sheets[i + 1:]:
                cols = (max(a.columns[0] + a.shift[0], b.columns[0] + b.shift[0]),
                        min(a.columns[1] + a.shift[0], b.columns[1] + b.shift[0]))
                rows = (max(a.rows[0] + a.shift[1], b.rows[0] + b.shift[1]),
                        min(a.rows[1] + a.shift[1], b.rows[1] + b.shift[1]))
                if cols[0] <= cols[1] and rows[0] <= rows[1]:
                    raise ValueError(f"sheets {a.prefix} and {b.prefix} overlap")

    def _sheet(self, hex_id: str) -> tuple[Sheet, HexIdFormat]:
        if isinstance(hex_id, str):
            for prefix, entry in self._by_prefix.items():
                if hex_id.startswith(prefix):
                    return entry
        prefixes = "/".join(self._by_prefix)
        raise ValueError(f"{hex_id!r} is not a hex id of the form ({prefixes}){'C' * self.digits}{'R' * self.digits}")

    def printed(self, hex_id: str) -> tuple[str, int, int]:
        """(prefix, column, row) as printed on the id's sheet."""
        sheet, fmt = self._sheet(hex_id)
        col, row = fmt.parse_offset(hex_id)
        if not sheet.holds(col + sheet.shift[0], row + sheet.shift[1]):
            raise ValueError(f"{hex_id!r} is outside sheet {sheet.prefix}'s numbering")
        return sheet.prefix, col, row

    def parse_offset(self, hex_id: str) -> tuple[int, int]:
        """Offset (column, row) of the id in the joined grid."""
        prefix, col, row = self.printed(hex_id)
        sheet = self._by_prefix[prefix][0]
        return col + sheet.shift[0], row + sheet.shift[1]

    def parse(self, hex_id: str) -> Hex:
        col, row = self.parse_offset(hex_id)
        return offset_to_axial(col, row, self.layout)

    def format_offset(self, col: int, row: int) -> str:
        for sheet in self.sheets:
            if sheet.holds(col, row):
                return self._by_prefix[sheet.prefix][1].format_offset(col - sheet.shift[0], row - sheet.shift[1])
        raise ValueError(f"offset ({col}, {row}) lies on no sheet")

    def format(self, h: Hex) -> str:
        col, row = axial_to_offset(h, self.layout)
        return self.format_offset(col, row)


# ---------------------------------------------------------------------------------------
# Pixels, for pictures of a map (pbem.core.render): y grows downwards, as on a printed
# sheet and in SVG. The "q" layouts draw flat-topped hexes, the "r" layouts pointy-topped
# ones; `size` is the distance from a hex's centre to each of its corners.

SQRT3 = math.sqrt(3)


def flat(layout: str) -> bool:
    """True for the layouts of flat-topped hexes (vertical columns)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown offset layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    return layout.endswith("-q")


def pixel(h: Hex, size: float, layout: str) -> tuple[float, float]:
    """The centre of `h` in pixels, the centre of Hex(0, 0) at the origin."""
    if flat(layout):
        return size * 1.5 * h.q, size * SQRT3 * (h.r + h.q / 2)
    return size * SQRT3 * (h.q + h.r / 2), size * 1.5 * h.r


def corners(h: Hex, size: float, layout: str) -> list[tuple[float, float]]:
    """The six corners of `h`, clockwise on the screen, starting with the rightmost (flat
    tops) or the upper right one (pointy tops)."""
    cx, cy = pixel(h, size, layout)
    start = 0 if flat(layout) else -30
    out = []
    for i in range(6):
        a = math.radians(start + 60 * i)
        out.append((cx + size * math.cos(a), cy + size * math.sin(a)))
    return out


def side_ends(a: Hex, b: Hex, size: float, layout: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two end points of the hexside between adjacent `a` and `b`, in pixels."""
    if not is_adjacent(a, b):
        raise ValueError(f"{a} and {b} are not adjacent: they share no hexside")
    (ax, ay), (bx, by) = pixel(a, size, layout), pixel(b, size, layout)
    mx, my = (ax + bx) / 2, (ay + by) / 2
    dx, dy = bx - ax, by - ay
    k = size / 2 / (dx * dx + dy * dy) ** 0.5  # the side is as long as the radius, across the line of centres
    return (mx - dy * k, my + dx * k), (mx + dy * k, my - dx * k)

