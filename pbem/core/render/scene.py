"""The scene a ruleset's `draw` returns, its check, and the geometry of its grid.

A scene is plain JSON-like data (docs/scene.md has the full format):

    {"title": str, "caption": str, "notes": [str], "legend": [str], "north": degrees or None,
     "grid": {"kind": "hex", "layout": "even-q", "size": 40, "cells": {id: [column, row]}}
           | {"kind": "square", "size": 40, "cells": {id: [column, row]}}
           | {"kind": "area", "cells": {id: [x, y, width, height]}},
     "sides": {side: {"label": str, "fill": "#rrggbb", "ink": "#rrggbb"}},
     "styles": {name: {"fill", "stroke", "width", "dash", "opacity", "label", "legend", "show", "symbol"}},
     "items": [primitive, ...]}

The primitives name cells by id and never carry pixels: `cell`, `shade`, `side`, `path`,
`outline`, `mark`, `label`, `stack`, `arrow`. The same primitives draw a hex map, a map of
squares and an area graph; only the grid's geometry (`Grid` below) differs.
"""

from __future__ import annotations

import math
import re

from pbem.core.geometry import hexgrid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COLOUR = re.compile(r"#[0-9a-f]{6}\Z")
NAME = re.compile(r"[a-z][a-z0-9-]{0,40}\Z")
KINDS = ("hex", "square", "area")
SYMBOLS = ("star", "circle", "square", "flag", "in", "out", "dot")
ITEM_FIELDS = {
    "cell": {"cell", "style"},
    "shade": {"cells", "style"},
    "side": {"a", "b", "style"},
    "path": {"cells", "style"},
    "outline": {"cells", "style"},
    "mark": {"cell", "symbol", "style", "text"},
    "label": {"cell", "text", "style", "at"},
    "stack": {"cell", "counters"},
    "arrow": {"cells", "style", "text", "side"},
}
COUNTER_FIELDS = {"unit", "side", "symbol", "values", "markers", "reduced", "label", "facing"}
STYLE_FIELDS = {"fill", "stroke", "width", "dash", "opacity", "label", "ink", "show", "legend", "symbol"}
AT = ("center", "top", "bottom")
_ALLOWED = {kind: frozenset(fields | {"type", "show"}) for kind, fields in ITEM_FIELDS.items()}
_CELL_KEYS = {kind: tuple(key for key in ("cell", "a", "b") if key in fields) for kind, fields in ITEM_FIELDS.items()}


class SceneError(ValueError):
    """A scene that breaks the format: a ruleset's bug, named in one sentence."""


def check(scene: Any) -> None:
    """Refuse a scene that breaks the format (SceneError), so that a drawing bug shows as
    one sentence and never as broken SVG."""
    if not isinstance(scene, dict):
        raise SceneError("a scene is a mapping")
    grid = scene.get("grid")
    if not isinstance(grid, dict) or grid.get("kind") not in KINDS or not isinstance(grid.get("cells"), dict):
        raise SceneError(f"the scene's grid must have a kind ({', '.join(KINDS)}) and cells")
    cells = grid["cells"]
    for name, spec in (scene.get("styles") or {}).items():
        _style(name, spec)
    for side, spec in (scene.get("sides") or {}).items():
        if not isinstance(side, str) or not NAME.match(side):
            raise SceneError(f"side name {side!r} is not a plain name")
        _style(side, spec)
    plain: set[str] = set()   # the style names found plain so far (a map's items share a few)
    for i, item in enumerate(scene.get("items") or []):
        kind = item.get("type") if isinstance(item, dict) else None
        allowed = _ALLOWED.get(kind)
        if allowed is None:
            raise SceneError(f"scene item {i} has no known type ({', '.join(ITEM_FIELDS)})")
        if not item.keys() <= allowed:
            extra = set(item) - allowed
            raise SceneError(f"scene item {i} ({kind}) has unknown field {sorted(extra)[0]}")
        for key in _CELL_KEYS[kind]:
            if key in item and item[key] not in cells:
                raise SceneError(f"scene item {i} ({kind}) names cell {item[key]!r}, which is not on the grid")
        if "cells" in item:
            for c in item["cells"]:
                if c not in cells:
                    raise SceneError(f"scene item {i} ({kind}) names cell {c!r}, which is not on the grid")
        if "style" in item and not (isinstance(item["style"], str) and item["style"] in plain):
            if not NAME.match(str(item["style"])):
                raise SceneError(f"scene item {i} ({kind}) has style {item['style']!r}, not a plain name")
            if isinstance(item["style"], str):
                plain.add(item["style"])
        if kind == "mark" and item.get("symbol") not in SYMBOLS:
            raise SceneError(f"scene item {i} (mark) has symbol {item.get('symbol')!r}; known: {', '.join(SYMBOLS)}")
        if kind == "label" and item.get("at", "center") not in AT:
            raise SceneError(f"scene item {i} (label) has at={item.get('at')!r}; known: {', '.join(AT)}")
        if kind == "arrow" and len(item.get("cells", ())) < 2:
            raise SceneError(f"scene item {i} (arrow) needs two cells or more")
        for counter in item.get("counters", ()):
            extra = set(counter) - COUNTER_FIELDS
            if extra or "unit" not in counter or "side" not in counter:
                raise SceneError(f"scene item {i} (stack) has a counter without unit and side, or with "
                                 f"unknown field {sorted(extra)[0] if extra else ''}")
            if "facing" in counter and (isinstance(counter["facing"], bool) or not isinstance(counter["facing"], (int, float))):
                raise SceneError(f"scene item {i} (stack): counter {counter['unit']}'s facing must be degrees clockwise from up")


def _style(name: Any, spec: Any) -> None:
    if not isinstance(name, str) or not NAME.match(name) or not isinstance(spec, dict):
        raise SceneError(f"style {name!r} is not a plain name with a mapping")
    extra = set(spec) - STYLE_FIELDS
    if extra:
        raise SceneError(f"style {name} has unknown field {sorted(extra)[0]}")
    for key in ("fill", "stroke", "ink"):
        if key in spec and spec[key] != "none" and not COLOUR.match(str(spec[key])):
            raise SceneError(f"style {name}: {key} {spec[key]!r} is not a colour #rrggbb")
    for key in ("width", "opacity"):
        if key in spec and not isinstance(spec[key], (int, float)):
            raise SceneError(f"style {name}: {key} must be a number")
    if "dash" in spec and not re.fullmatch(r"[0-9]+( [0-9]+)*", str(spec["dash"])):
        raise SceneError(f"style {name}: dash must be numbers separated by spaces")
    if spec.get("legend", "used") != "used":
        raise SceneError(f"style {name}: legend must be \"used\" (in the legend only where an item uses it)")
    if spec.get("symbol", SYMBOLS[0]) not in SYMBOLS:
        raise SceneError(f"style {name}: symbol {spec['symbol']!r}; known: {', '.join(SYMBOLS)}")


# --- geometry -----------------------------------------------------------------------------

Point = tuple[float, float]


class Grid:
    """Where a grid's cells are on the picture: centre, outline, the line between two
    neighbours, and the box that holds them all. Every value in pixels."""

    def __init__(self, spec: dict):
        self.kind = spec["kind"]
        self.size = float(spec.get("size", 40))
        self.cells: dict[str, Any] = spec["cells"]
        if self.kind == "hex":
            self.layout = spec.get("layout", "even-q")
            self._hex = {c: hexgrid.offset_to_axial(v[0], v[1], self.layout) for c, v in self.cells.items()}
            # hexgrid.corners, once for all hexes: the same six steps from every centre
            start = 0 if hexgrid.flat(self.layout) else -30
            self._corners = [(self.size * math.cos(math.radians(start + 60 * i)),
                              self.size * math.sin(math.radians(start + 60 * i))) for i in range(6)]
        self._centre = {c: self._compute_centre(c) for c in self.cells}
        xs, ys = [], []
        for c in self.cells:
            for x, y in self.outline(c):
                xs.append(x)
                ys.append(y)
        self.box = (min(xs), min(ys), max(xs), max(ys)) if xs else (0.0, 0.0, 0.0, 0.0)
        self._boundaries: dict[tuple, list] = {}
        # pieces of SVG drawn on this grid, and boxes worked out on it, by all that decides them
        self.drawn: dict[tuple, Any] = {}

    def _compute_centre(self, cell: str) -> Point:
        v = self.cells[cell]
        if self.kind == "hex":
            return hexgrid.pixel(self._hex[cell], self.size, self.layout)
        if self.kind == "square":
            return v[0] * self.size, v[1] * self.size
        return float(v[0]), float(v[1])

    def centre(self, cell: str) -> Point:
        return self._centre[cell]

    def around(self, cell: str, radius: int) -> list[str]:
        """The cells at most `radius` steps from `cell` (on squares, the square of side
        2 x radius + 1 about it), in the grid's order: the part of a map `pbem render
        --around` draws. An area map has no such distance: it is drawn whole."""
        if self.kind == "hex":
            centre = self._hex[cell]
            return [c for c, h in self._hex.items() if hexgrid.distance(centre, h) <= radius]
        if self.kind == "square":
            col, row = self.cells[cell][:2]
            return [c for c, v in self.cells.items() if max(abs(v[0] - col), abs(v[1] - row)) <= radius]
        raise ValueError("an area map is always drawn whole")

    def around_block(self, block: str, radius: int) -> list[str]:
        """On a square grid whose cells are places inside larger squares, named `BLOCK.PLACE`
        (kkoh's 1 km squares of 3 x 3 places: `0707.11`): the cells of every block at most
        `radius` blocks from `block` (the square of side 2 x radius + 1 blocks about it), in
        the grid's order. A player counts the map in its squares, not in their places."""
        corner: dict[str, tuple[int, int]] = {}
        for c, v in self.cells.items():
            name = c.partition(".")[0]
            col, row = corner.get(name, (v[0], v[1]))
            corner[name] = (min(col, v[0]), min(row, v[1]))
        side = len({v[0] for c, v in self.cells.items() if c.startswith(block + ".")})
        col, row = corner[block]
        return [c for c in self.cells
                if max(abs(corner[c.partition(".")[0]][0] - col), abs(corner[c.partition(".")[0]][1] - row))
                <= radius * side]

    def outline(self, cell: str) -> list[Point]:
        if self.kind == "hex":
            cx, cy = self._centre[cell]
            return [(cx + dx, cy + dy) for dx, dy in self._corners]
        x, y = self._centre[cell]
        if self.kind == "square":
            w = h = self.size / 2
        else:
            w, h = self.cells[cell][2] / 2, self.cells[cell][3] / 2
        return [(x - w, y - h), (x + w, y - h), (x + w, y + h), (x - w, y + h)]

    def extent(self, cell: str) -> tuple[float, float]:
        """Half the width and half the height of the cell's inner box (for counters, labels)."""
        if self.kind == "hex":
            if hexgrid.flat(self.layout):
                return self.size * 0.75, self.size * hexgrid.SQRT3 / 2
            return self.size * hexgrid.SQRT3 / 2, self.size * 0.75
        if self.kind == "square":
            return self.size / 2, self.size / 2
        return self.cells[cell][2] / 2, self.cells[cell][3] / 2

    def adjacent(self, a: str, b: str) -> bool:
        if self.kind == "hex":
            return hexgrid.is_adjacent(self._hex[a], self._hex[b])
        if self.kind == "square":
            (ca, ra), (cb, rb) = self.cells[a][:2], self.cells[b][:2]
            return abs(ca - cb) + abs(ra - rb) == 1
        return False

    def side(self, a: str, b: str) -> tuple[Point, Point]:
        """The line that stands for what lies between two cells: the shared hexside or
        square side; between areas (or cells that do not touch), the line joining the two
        outlines along the line of centres."""
        if self.kind == "hex" and self.adjacent(a, b):
            return hexgrid.side_ends(self._hex[a], self._hex[b], self.size, self.layout)
        if self.kind == "square" and self.adjacent(a, b):
            (ax, ay), (bx, by) = self._centre[a], self._centre[b]
            mx, my = (ax + bx) / 2, (ay + by) / 2
            h = self.size / 2
            return ((mx, my - h), (mx, my + h)) if ax != bx else ((mx - h, my), (mx + h, my))
        return self.rim(a, self._centre[b]), self.rim(b, self._centre[a])

    def rim(self, cell: str, towards: Point) -> Point:
        """Where the line from the cell's centre towards a point leaves the cell's box."""
        x, y = self._centre[cell]
        dx, dy = towards[0] - x, towards[1] - y
        w, h = self.extent(cell)
        if dx == 0 and dy == 0:
            return x, y
        t = min(w / abs(dx) if dx else math.inf, h / abs(dy) if dy else math.inf)
        return x + dx * t, y + dy * t

    def boundary(self, cells: list[str]) -> list[tuple[str, list[tuple[Point, Point]]]]:
        """The outline of a region: each cell of the set that has sides towards cells
        outside it (or the map's edge), with those sides, in the order of the set
        (remembered: the same region is outlined in every state of a replay)."""
        key = tuple(cells)
        found = self._boundaries.get(key)
        if found is None:
            found = self._boundaries[key] = self._boundary(cells)
        return found

    def _boundary(self, cells: list[str]) -> list[tuple[str, list[tuple[Point, Point]]]]:
        inside = set(cells)
        out = []
        for c in cells:
            pts = self.outline(c)
            edges = list(zip(pts, pts[1:] + pts[:1]))
            if self.kind == "hex":   # side i of the corners faces the neighbour HEX_SIDE_STEPS[i] away
                h = self._hex[c]
                across = [self._hex_id(hexgrid.Hex(h.q + dq, h.r + dr)) for dq, dr in HEX_SIDE_STEPS]
            else:
                across = [self._across(c, ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)) for p, q in edges]
            sides = [edge for edge, other in zip(edges, across) if other is None or other not in inside]
            if sides:
                out.append((c, sides))
        return out

    def _across(self, cell: str, mid: Point) -> str | None:
        """The square or area on the other side of the side whose midpoint is `mid`."""
        x, y = self._centre[cell]
        for other, centre in self._near((2 * mid[0] - x, 2 * mid[1] - y)):
            return other
        return None

    def _hex_id(self, h: hexgrid.Hex) -> str | None:
        if not hasattr(self, "_by_hex"):
            self._by_hex = {v: c for c, v in self._hex.items()}
        return self._by_hex.get(h)

    def _near(self, target: Point):
        if not hasattr(self, "_by_centre"):
            self._by_centre = {(round(x, 3), round(y, 3)): c for c, (x, y) in self._centre.items()}
        c = self._by_centre.get((round(target[0], 3), round(target[1], 3)))
        return [(c, target)] if c is not None else []


# The axial step to the hex across each side of `hexgrid.corners` (side i joins corners i and
# i + 1): the sides face 30, 90, ... degrees on flat-topped hexes and 0, 60, ... on pointy-
# topped ones, which are the same six steps in the same order.
HEX_SIDE_STEPS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
