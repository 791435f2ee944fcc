"""A scene drawn as SVG, with the standard library only.

The picture is a map (the grid's box) with a panel on its right: title, caption (turn and
phase), legend and notes. Everything is drawn in a fixed order of layers, each a list of
pieces (one SVG element each); `pbem replay` shares the pieces that every state has in
common and keeps only the others per state. Numbers are written with one decimal and
every text is escaped, so the same scene always gives the same bytes.
"""

from __future__ import annotations

import functools
import itertools
import math
from xml.sax.saxutils import escape, quoteattr

from pbem.core.record import Record
from pbem.core.text import shown

from .scene import Grid, Point, check
from .style import DEFAULT_SIDE, DEFAULT_STYLES, FONT, INK, MARKERS, PAPER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# An arrow's line goes under the names and the counters, so that it never hides one it passes;
# its head and its result go over them (`trails`, `arrows`)
LAYERS = ("terrain", "shade", "sides", "paths", "outlines", "marks", "trails", "labels", "stacks", "arrows", "panel")
ITEM_LAYER = {"cell": "terrain", "shade": "shade", "side": "sides", "path": "paths", "outline": "outlines",
              "mark": "marks", "label": "labels", "stack": "stacks"}   # arrows: trails and arrows
MARGIN = 24
ARROW_START = ("An arrow starts at a dot in the counter colour of the units that moved, attacked or fired: "
               "it says whose the arrow is where they are gone.")
PANEL = 330
MAX_PART_SCALE = 3.0   # how much larger than the whole map a part of it (`pbem render --around`) is drawn
CAPTION_LINES = 10  # the room of the caption (turn, phase, score) in the panel, in lines
CHAR = 0.6  # the width of an average character of the font, in font sizes
LEADER = 1.6   # a result box farther than this many cell sizes from its attack gets a leader line
# where an attack's result box may go, in order: (cell sizes aside, fraction along its last
# step); beside it first, then farther out in a dense part of the map
_NEAR = [(d, along) for d in (0, 0.7, -0.7, 1.3, -1.3, 2, -2) for along in (0.5, 0.25, 0.75, 0, 1)]
LABEL_PLACES = _NEAR + [(d, along) for d in (0.7, -0.7, 1.3, -1.3, 2, -2, 2.7, -2.7, 3.4, -3.4)
                        for along in (0.5, 0.25, 0.75, 0, 1, -0.5, 1.5) if (d, along) not in _NEAR]


_NUMS: dict[float, str] = {}
MAX_NUMS = 100_000


def num(v: float) -> str:
    """A coordinate with at most one decimal, the same on every machine. Each value's text is
    kept once made: a map's coordinates repeat (a hex's corners are its neighbours', a row's
    centres share a height), and writing them was a fifth of drawing a dos map afresh."""
    text = _NUMS.get(v)
    if text is None:
        text = f"{v:.1f}"
        if text.endswith(".0"):
            text = text[:-2]
        if text == "-0":
            text = "0"
        if len(_NUMS) >= MAX_NUMS:
            _NUMS.clear()
        _NUMS[v] = text
    return text


def text_of(value: object) -> str:
    return escape(shown(str(value)))


def attr(value: object) -> str:
    return quoteattr(shown(str(value)))


def pts(points: list[Point]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in points)


def polygon_d(points: list[Point]) -> str:
    return "M" + " L".join(f"{num(x)} {num(y)}" for x, y in points) + "Z"


class _Boxes:
    """Boxes (x0, y0, x1, y1) in the order given, and by the squares of SQUARE pixels each
    reaches into: which of them a box meets, or whether it meets any, reads the few in its own
    squares, not all of them. A box that meets another, overlapping it by some area, shares a
    square with it, so the answers are those of a test of every box. (Each name and attack
    result of a dos map was tried against every box placed before it, and each place's name
    looked for the hex ids near it among all 4,000: an eighth of drawing the map.)"""

    SQUARE = 64.0

    def __init__(self, boxes: list[tuple[float, float, float, float]]):
        self.boxes: list[tuple[float, float, float, float]] = []
        self._in: dict[tuple[int, int], list[tuple[int, tuple[float, float, float, float]]]] = {}
        for box in boxes:
            self.append(box)

    def _squares(self, box: tuple[float, float, float, float]) -> itertools.product[tuple[int, int]]:
        s = self.SQUARE
        return itertools.product(range(math.floor(box[0] / s), math.floor(box[2] / s) + 1),
                                 range(math.floor(box[1] / s), math.floor(box[3] / s) + 1))

    def append(self, box: tuple[float, float, float, float]) -> None:
        entry = (len(self.boxes), box)
        self.boxes.append(box)
        for square in self._squares(box):
            self._in.setdefault(square, []).append(entry)

    def clear_of(self, b: tuple[float, float, float, float]) -> bool:
        """Whether `b` meets none of the boxes (touching edges do not meet)."""
        found = self._in.get
        return all(b[2] <= t[0] or t[2] <= b[0] or b[3] <= t[1] or t[3] <= b[1]   # (inline: many boxes)
                   for square in self._squares(b) for _, t in found(square, ()))

    def meeting(self, b: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
        """The boxes `b` meets, in the order given."""
        found = self._in.get
        near = dict(entry for square in self._squares(b) for entry in found(square, ()))
        return [t for _, t in sorted(near.items())
                if not (b[2] <= t[0] or t[2] <= b[0] or b[3] <= t[1] or t[3] <= b[1])]


class Picture(Record):
    """A drawn scene: its size, title and style rules, and its layers of pieces."""

    width: float
    height: float
    title: str
    css: list[str]
    layers: list[tuple[str, list[str]]]
    clip: tuple[float, float, float, float] | None = None   # x, y, width, height of a part of the map
    scale: float = 1.0   # of the map's layers, about the map's corner (a part of the map is drawn larger)
    panel_x: float = 0.0       # where the panel begins: the map and both its margins are left of it
    map_height: float = 0.0    # the map's, with its margins (the picture is as high as the taller part)
    panel_height: float = 0.0  # the panel's, with its margins
    part: tuple[float, float, float, float] | None = None   # a part's box on the grid (x0, y0, x1, y1)

    def head(self, height: float | None = None, css: list[str] | None = None,
             box: tuple[float, float] | None = None) -> str:
        """The document's start: the svg element, its title, style rules and paper; `box`
        (left edge, width): that strip of the picture alone (a replay's map, its panel)."""
        h = self.height if height is None else height
        x, w = box if box is not None else (0.0, self.width)
        at = f' x="{num(x)}"' if box is not None else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(w)}" height="{num(h)}" '
                f'viewBox="{num(x)} 0 {num(w)} {num(h)}" font-family="{FONT}" text-anchor="middle">\n'
                f"<title>{text_of(self.title)}</title>\n"
                f"<style>{''.join(self.css if css is None else css)}</style>\n"
                f'<rect{at} width="{num(w)}" height="{num(h)}" fill="{PAPER}"/>\n')

    def document(self) -> str:
        def groups(panel: bool | None) -> str:   # the layers, or those of the map, or the panel
            return "".join(f'<g id="{name}">' + "".join(pieces) + "</g>\n" for name, pieces in self.layers
                           if panel is None or in_panel(name) == panel)

        if self.clip is None:
            return self.head() + groups(None) + "</svg>\n"
        # a part of the map: the map's layers drawn at the part's scale about the map's corner,
        # then paper over all but the part's box. Paper, not a clip path: a rasteriser such as
        # resvg draws a clipped group on a layer as large as all it holds, and a part's PNG
        # took four times as long with one.
        m, k = num(MARGIN), f"{self.scale:.3f}".rstrip("0").rstrip(".")
        # the hole's far edges rounded up, never into a counter at the edge
        x, y, w, ch = num(self.clip[0]), num(self.clip[1]), num(math.ceil(self.clip[2] * 10) / 10), \
            num(math.ceil(self.clip[3] * 10) / 10)
        # the paper reaches past the canvas: a PNG a fraction of a pixel wider shows no map there
        paper = (f'<path id="cut" d="M-2 -2H{num(self.width + 2)}V{num(self.height + 2)}H-2Z M{x} {y}v{ch}h{w}v-{ch}Z" '
                 f'fill="{PAPER}" fill-rule="evenodd"/>\n')
        return (self.head() + f'<g transform="translate({m} {m}) scale({k}) translate(-{m} -{m})">\n' + groups(False)
                + "</g>\n" + paper + groups(True) + "</svg>\n")


def in_panel(layer: str) -> bool:
    """Whether a layer is the panel's (title, caption, compass, legend), not the map's."""
    return layer == "panel"


def to_svg(scene: dict, show: tuple[str, ...] = (), view: list[str] | None = None) -> str:
    """The scene as one SVG document, with the optional items named in `show` ("zoc"),
    of the whole map or of the part that holds the cells of `view`."""
    return draw(scene, show, view).document()


def draw(scene: dict, show: tuple[str, ...] = (), view: list[str] | None = None, grid: Grid | None = None, *,
         filled: bool = False) -> Picture:
    """The scene's picture. Items and legend entries with a `show` name are drawn only
    when `show` names it (zones of control on request, set-up areas in the set-up). With
    `view`, the map is the box of those cells: what reaches into it is drawn and cut at its
    edge, the rest left out, so a part of a large map is a small picture. `grid`: the Grid
    of the scene's grid, when the caller has it (a replay draws one map many times)."""
    check(scene)
    given = scene   # (the legend below may add to the scene: a taller part is drawn from the scene given)
    if grid is None:
        grid = Grid(scene["grid"])
    styles = {name: spec for name, spec in {**DEFAULT_STYLES, **(scene.get("styles") or {})}.items()
              if spec.get("show") is None or spec["show"] in show}
    sides = {name: {**DEFAULT_SIDE, **spec} for name, spec in (scene.get("sides") or {}).items()}
    x0, y0, x1, y1 = grid.box
    items = [i for i in scene.get("items") or [] if i.get("show") is None or i["show"] in show]
    # how each style is drawn on the whole map (also for the legend of a part, which shows a mark
    # absent from it with the map's symbol, not a plain square drawn nowhere: a probe, kkoh's
    # flags); a style no item uses, with its own `symbol` if it gives one
    first: dict[str, str] = {}
    for item in items:
        if "style" in item:
            first.setdefault(item["style"], item.get("symbol", item["type"]))
    drawn_anywhere = set(first)
    symbols = {**{name: spec["symbol"] for name, spec in styles.items() if "symbol" in spec}, **first}
    if view:
        (x0, y0, x1, y1), whole = _part_box(grid, view, items)
        pad = grid.size * 2   # a cell just outside may still draw into the box (an arrow, a hexside)
        near = {c for c in grid.cells
                if x0 - pad <= grid.centre(c)[0] <= x1 + pad and y0 - pad <= grid.centre(c)[1] <= y1 + pad}
        items = [i for i in items if (i["cell"] in whole if i["type"] == "stack" else
                                      any(c in near for c in _cells_of(i)))]
    ox, oy = MARGIN - x0, MARGIN - y0  # the map's box starts at the margin
    map_w, map_h = x1 - x0, y1 - y0
    scale = 1.0
    painter = _Painter(grid, styles, sides, ox, oy, items,
                       (MARGIN, MARGIN, MARGIN + map_w, MARGIN + map_h) if view else None)
    layers: dict[str, list[str]] = {name: [] for name in LAYERS}
    # cells of one style share one path: a map of a thousand hexes stays small
    by_style: dict[str, list[str]] = {}
    for item in items:   # (one pass: a large map has thousands of items, in every state of a replay)
        kind = item["type"]
        if kind == "cell":
            by_style.setdefault(item.get("style", "clear"), []).append(item["cell"])
        elif kind == "arrow":
            trail, head = painter.arrow(item)
            layers["trails"].append(trail)
            layers["arrows"].append(head)
        elif kind == "mark":
            shape, words = painter.mark(item)
            layers["marks"].extend(shape)
            layers["labels"].extend(words)
        else:
            layers[ITEM_LAYER[kind]].extend(painter.item(item))
    for style, cells in by_style.items():
        layers["terrain"].append(painter.cells(style, cells))
    uses = first   # the styles drawn, each with its first item's symbol: on the whole map, `first`
    if view:
        uses = {}
        for item in items:
            if "style" in item and item["style"] not in uses:
                uses[item["style"]] = item.get("symbol", item["type"])
    # a style marked `legend: used` (what the last packet did) is in the legend where it is drawn
    legend = {name: styles[name] for name in (scene.get("styles") or {})
              if name in styles and (styles[name].get("legend") != "used" or name in uses)}
    packet = [name for name, spec in styles.items() if spec.get("legend") == "used"]
    if packet and not any(name in uses for name in packet):
        # (an audience probe: "nothing of it to draw" read as a riddle)
        where = "in this part of the map" if any(name in drawn_anywhere for name in packet) else "on the map"
        scene = {**scene, "legend": [*(scene.get("legend") or []), f"Last packet: nothing it did shows {where}."]}
    if grid.kind != "area" and any(i["type"] == "arrow" and i.get("side") in sides for i in items):
        scene = {**scene, "legend": [*(scene.get("legend") or []), ARROW_START]}
    samples = {**symbols, **uses}   # each legend entry drawn as the picture draws it
    if view:
        # a part of the map is drawn larger, up to the height of the panel beside it (at most
        # MAX_PART_SCALE times): a corner posted on a forum shows its stacks legibly, not a
        # small map beside a long legend
        panel_h = _panel(scene, legend, samples, sides, 0, MARGIN)[1]
        if not filled and map_h > 0 and panel_h / map_h > MAX_PART_SCALE:
            # a part too low to reach the panel's height at the largest scale is drawn taller, with
            # the rows above and below it, as high as that scale needs: not a band of map over an
            # empty page beside a long legend (an audience's probe of a dos part 2 hexes about a hex)
            # (at the map's top or bottom edge, the rows the edge denies are taken from the other side)
            grow = panel_h / MAX_PART_SCALE - map_h
            low, high = y0 - grow / 2, y1 + grow / 2
            top, bottom = grid.box[1], grid.box[3]
            low, high = (top, high + top - low) if low < top else (low, high)
            low, high = (max(top, low - (high - bottom)), bottom) if high > bottom else (low, high)
            taller = [c for c in grid.cells if x0 <= grid.centre(c)[0] <= x1 and low <= grid.centre(c)[1] <= high]
            if all("." in c for c in view):
                # places inside larger squares (kkoh's 1 km squares, `SQUARE.PLACE`): whole squares,
                # as a player counts the map, so that no square shows some of its rows only
                squares = {c.partition(".")[0] for c in taller}
                taller = [c for c in grid.cells if c.partition(".")[0] in squares]
            # said under the caption that names the part (a code review: "0 squares around 0705"
            # stood over three squares)
            grown = {**given, "caption": [*(given.get("caption") or []),
                                          "With more of the map above and below it, to the legend's height."]}
            return draw(grown, show, list(dict.fromkeys([*view, *taller])), grid, filled=True)
        scale = min(MAX_PART_SCALE, max(1.0, panel_h / map_h)) if map_h > 0 else 1.0
        # to the thousandth, down, as the transform writes it: a scale written rounded up drew
        # the map larger than its box, and cut the counters along its far edges
        scale = math.floor(scale * 1000) / 1000
    panel_x = MARGIN * 2 + map_w * scale
    panel, panel_h = _panel(scene, legend, samples, sides, panel_x, MARGIN)
    layers["panel"] = panel
    width = panel_x + PANEL + MARGIN
    height = max(map_h * scale + 2 * MARGIN, panel_h + 2 * MARGIN)
    return Picture(width, height, str(scene.get("title", "pbem")), _css(styles, sides),
                   [(name, layers[name]) for name in LAYERS],
                   (MARGIN, MARGIN, map_w * scale, map_h * scale) if view else None, scale,
                   panel_x, map_h * scale + 2 * MARGIN, panel_h + 2 * MARGIN, (x0, y0, x1, y1) if view else None)


def _part_box(grid: Grid, view: list[str], items: list[dict]) -> tuple[tuple[float, float, float, float], set[str]]:
    """The box of a part of the map and the cells drawn whole in it, stacks and all: the box
    of the `view` cells, grown until it holds whole every cell whose centre lies inside it and
    every counter of their stacks (a stack of several may reach beyond its cell). So no
    counter is cut, and a cell cut at the edge shows less than half of itself (its centre
    lies outside), without its counters."""
    corners = [p for c in view for p in grid.outline(c)]
    stacks = {i["cell"]: len(i["counters"]) for i in items if i["type"] == "stack" and i["counters"]}
    inside = grid.size * 0.01   # a centre on the very edge is outside: the box would creep on
    whole: set[str] = set()
    for _ in range(8):          # two rounds settle it; the bound only guards against a loop
        x0, y0, x1, y1 = _bounds(corners)
        found = {c for c in grid.cells
                 if x0 + inside < grid.centre(c)[0] < x1 - inside and y0 + inside < grid.centre(c)[1] < y1 - inside}
        if found <= whole:
            break
        whole |= found
        for c in sorted(found):
            corners += grid.outline(c)
            if c in stacks:
                corners += [corner for box in _counter_boxes(grid, c, stacks[c], grid.centre(c))
                            for corner in (box[:2], box[2:])]
    return _bounds(corners), whole   # the box of all that was added


def _bounds(points: list[Point]) -> tuple[float, float, float, float]:
    return min(x for x, _ in points), min(y for _, y in points), max(x for x, _ in points), max(y for _, y in points)


def _stack_bounds(boxes: list[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    """The box around a stack's counter boxes."""
    return _bounds([corner for box in boxes for corner in (box[:2], box[2:])])


def _counter_boxes(grid: Grid, cell: str, n: int, centre: Point) -> list[tuple[float, float, float, float]]:
    """The boxes (x0, y0, x1, y1) of the n counters of a stack in `cell`, whose centre is drawn at `centre`."""
    (w, h) = grid.extent(cell)
    return [(cx - c / 2, cy - c / 2, cx + c / 2, cy + c / 2)
            for cx, cy, c in _places(n, centre[0], centre[1], w, h, grid.kind, grid.size)]


def _cells_of(item: dict) -> list[str]:
    if "cell" in item:
        return [item["cell"]]
    if item["type"] == "side":
        return [item["a"], item["b"]]
    return list(item.get("cells", ()))


def _css(styles: dict, sides: dict) -> list[str]:
    """One class per style (`s-NAME`) and per side (`side-NAME`): pieces name a class
    instead of repeating colours."""
    rules = []
    for name, spec in styles.items():
        props = []
        if "fill" in spec:
            props.append(f"fill:{spec['fill']}")
        if "stroke" in spec:
            props.append(f"stroke:{spec['stroke']};stroke-width:{num(spec.get('width', 1))}")
        if "dash" in spec:
            props.append(f"stroke-dasharray:{spec['dash']}")
        if "opacity" in spec:
            props.append(f"opacity:{num(spec['opacity']) if spec['opacity'] >= 0.1 else spec['opacity']}")
        if props:
            rules.append(f".s-{name}{{{';'.join(props)}}}")
        if "ink" in spec:
            rules.append(f".i-{name}{{fill:{spec['ink']}}}")
    for name, spec in sides.items():
        rules.append(f".side-{name}{{fill:{spec['fill']};stroke:{INK};stroke-width:0.8}}")
        rules.append(f".ink-{name}{{fill:{spec['ink']}}}")
    rules.append(".halo{paint-order:stroke;stroke:#ffffff;stroke-width:3px;stroke-linejoin:round}")
    rules.append(".ln{fill:none;stroke-linecap:round;stroke-linejoin:round}")
    return rules


class _Painter:
    def __init__(self, grid: Grid, styles: dict, sides: dict, ox: float, oy: float, items: list[dict] = (),
                 bounds: tuple[float, float, float, float] | None = None):
        self.grid, self.styles, self.sides, self.ox, self.oy = grid, styles, sides, ox, oy
        self.items = items
        # a part of the map: the box shown (x0, y0, x1, y1), which words placed for something in
        # it stay inside where they can
        self.bounds = bounds
        # what a label must not cover: every counter on the map, and the labels placed so far
        # (worked out at the first label: most pictures of a replay have none)
        self._taken: _Boxes | None = None
        self._stacks: dict[str, list[tuple[float, float, float, float]]] | None = None
        self._pairs: set[tuple[str, ...]] | None = None   # the one-step arrows, by their two cells
        self._marks_in: dict[str, list[int]] = {}   # the marks of each cell met so far, by id (`mark`)

    @property
    def stacks(self) -> dict[str, list[tuple[float, float, float, float]]]:
        """The boxes of each stack's counters, by cell (worked out at the first label or arrow
        that needs them: most pictures of a replay have neither)."""
        if self._stacks is None:
            self._stacks = {item["cell"]: _counter_boxes(self.grid, item["cell"], len(item["counters"]),
                                                         self.centre(item["cell"]))
                            for item in self.items if item["type"] == "stack" and item["counters"]}
        return self._stacks

    @property
    def taken(self) -> _Boxes:
        if self._taken is None:
            self._taken = _Boxes([box for boxes in self.stacks.values() for box in boxes])
        return self._taken

    @property
    def id_boxes(self) -> list[tuple[float, float, float, float]]:
        """The boxes of the map's cell ids (`_label`'s "cell-id" words), which a place's name
        keeps off: worked out once per grid and offset, at the first name placed."""
        key = ("id-boxes", self.ox, self.oy, self.bounds)   # the items drawn are those of the part shown
        boxes = self.grid.drawn.get(key)
        if boxes is None:
            boxes = []
            size = float(self.styles.get("cell-id", {}).get("width", 8))
            for item in self.items:
                if item["type"] == "label" and item.get("style") == "cell-id":
                    x, y = self.centre(item["cell"])
                    h = self.grid.extent(item["cell"])[1]
                    y = _baseline(y, h, size, item.get("at", "center"))
                    half = _words_width(item["text"], size) / 2
                    boxes.append((x - half, y - size, x + half, y + size * 0.3))
            boxes = self.grid.drawn[key] = boxes
        return boxes

    def ids_near(self, x: float, y: float, width: float, w: float, h: float) -> list[tuple[float, float, float, float]]:
        """The cell ids that words `width` wide placed about (x, y), in or beside a cell of half
        width `w` and half height `h`, could meet (the spots beside a cell reach w + width
        from its centre). Kept with the grid: a replay places the same names in every state."""
        key = ("ids-near", x, y, width, self.ox, self.oy, self.bounds)
        found = self.grid.drawn.get(key)
        if found is None:
            reach = width + 2 * w
            found = self.grid.drawn[key] = self.id_index.meeting((x - reach, y - 3 * h, x + reach, y + 3 * h))
        return found

    @property
    def id_index(self) -> _Boxes:
        """`id_boxes`, by the squares of the map each reaches into (kept as they are)."""
        key = ("id-index", self.ox, self.oy, self.bounds)
        index = self.grid.drawn.get(key)
        if index is None:
            index = self.grid.drawn[key] = _Boxes(self.id_boxes)
        return index

    def free_spot(self, spots: list[Point], width: float, height: float, rise: float,
                  avoid: list[Point] = (), least: bool = False, owner: Point | None = None,
                  under: list[tuple[float, float, float, float]] = ()) -> Point:
        """The first of `spots` (a text's anchor: centre, baseline `rise` below the box's top)
        whose box of `width` x `height` covers no counter, no label placed before, none of the
        points `avoid` and none of the boxes `under` (words drawn before that stay where they
        are: hex ids); where none is, with `least`, of those that cover only such words, the one
        meeting fewest, else of those that cover none of `avoid` (all, if none), the first, or
        with `least` the one covering least of the rest. The box is then taken. In a
        part of the map, where the point the words belong to (`owner`, else the first spot) is
        in it, only the spots whose box is whole in it, else each moved in past its edge."""
        def box(p: Point) -> tuple[float, float, float, float]:
            return p[0] - width / 2, p[1] - rise, p[0] + width / 2, p[1] - rise + height

        def covered(b: tuple[float, float, float, float]) -> float:
            return sum(max(0.0, min(b[2], t[2]) - max(b[0], t[0])) * max(0.0, min(b[3], t[3]) - max(b[1], t[1]))
                       for boxes in (self.taken.boxes, under) for t in boxes)

        def hits(b: tuple[float, float, float, float]) -> bool:
            return any(b[0] < x < b[2] and b[1] < y < b[3] for x, y in avoid)

        def meets(b: tuple[float, float, float, float], t: tuple[float, float, float, float]) -> bool:
            return not (b[2] <= t[0] or t[2] <= b[0] or b[3] <= t[1] or t[3] <= b[1])

        def clear(b: tuple[float, float, float, float], ids: bool = True) -> bool:
            return self.taken.clear_of(b) and not hits(b) and not (ids and any(meets(b, t) for t in under))

        if self.bounds is not None:
            # in a part of the map, the words of what stands in it go where they are not cut at
            # its edge (an audience probe: a dos result box at the edge read "...t 1-3 die 1: A1");
            # the words of what stands outside and reach in are moved in just past the edge, by
            # the place they name (an audience probe: "Belgorod", its hex outside the part, was
            # cut in half at the top)
            x0, y0, x1, y1 = self.bounds
            ox, oy = owner or spots[0]
            if x0 <= ox <= x1 and y0 <= oy <= y1:
                # where no spot is whole in it (an attack into a cell at its edge from outside: its
                # last step and the tip's sides all cut), each spot moved in just past the edge
                spots = ([p for p in spots if _within(box(p), self.bounds)]
                         or [_shifted_in(p, box(p), self.bounds) for p in spots])
            else:
                spots = [_moved_in(p, box(p), self.bounds) for p in spots]
        spot = next((p for p in spots if clear(box(p))), None)
        if spot is None and least:
            # none clear of all: before one that covers a counter or words placed before, one that
            # covers only hex ids, the fewest of them and of those the first of `spots`, nearest its
            # own place (a place's name on a crowded whole map, where every spot meets an id, went
            # over the stack it fought around: the least covered, counting a counter's area as an
            # id's; then, by the area of ids, across a river over the next hex's id, a review)
            spot = min((p for p in spots if clear(box(p), ids=False)),
                       key=lambda p: sum(meets(box(p), t) for t in under), default=None)
        if spot is None:
            # none clear: of those that cover none of the points to avoid (an arrow's own shaft and
            # head), if any, the first, or the one covering least (a dos probe: above the tip of
            # an attack drawn downwards, its box hid the attack's head)
            spots = [p for p in spots if not hits(box(p))] or spots
            spot = min(spots, key=lambda p: covered(box(p))) if least else spots[0]
        self.taken.append(box(spot))
        return spot

    def at(self, p: Point) -> Point:
        return p[0] + self.ox, p[1] + self.oy

    def centre(self, cell: str) -> Point:
        return self.at(self.grid.centre(cell))

    def cells(self, style: str, cells: list[str]) -> str:
        key = ("cells", style, tuple(cells), self.ox, self.oy)
        piece = self.grid.drawn.get(key)
        if piece is None:
            d = "".join(polygon_d([self.at(p) for p in self.grid.outline(c)]) for c in cells)
            piece = self.grid.drawn[key] = f'<path class="s-{style}" d="{d}"/>'
        return piece

    def item(self, item: dict) -> list[str]:
        kind = item["type"]
        key = self._settled_key(kind, item)
        if key is None:
            return getattr(self, "_" + kind)(item)
        # drawn once per grid: a replay draws the same thousands of hex ids, hexsides and
        # roads in every state (a dos game's page took 6.8 s, most of it drawing them again)
        pieces = self.grid.drawn.get(key)
        if pieces is None:
            pieces = self.grid.drawn[key] = getattr(self, "_" + kind)(item)
        return list(pieces)

    def _settled_key(self, kind: str, item: dict) -> tuple | None:
        """All that decides how an item is drawn, where that is the item alone (with its style
        and the map's offset): a hexside, road, outline or shading, and a label drawn where it
        stands (a hex id, an area's name). None for an item placed among others (a place's name
        that moves off a counter, a stack, an arrow)."""
        if kind == "label":
            style = item.get("style", "name")
            if style != "cell-id" and self.grid.kind != "area":
                return None
            return (kind, item["cell"], str(item["text"]), style, item.get("at", "center"),
                    self.styles.get(style, {}).get("width"), self.ox, self.oy)
        if kind in ("side", "path", "outline", "shade"):
            style = item.get("style")
            return (kind, item.get("a"), item.get("b"), tuple(item.get("cells", ())), style,
                    self.styles.get(style, {}).get("width"), self.ox, self.oy)
        return None

    def _shade(self, item: dict) -> list[str]:
        # one piece per cell: the replay page stores a cell shaded in many states once
        style = item.get("style", "shade")
        return [self.cells(style, [c]) for c in item["cells"]]

    def _side(self, item: dict) -> list[str]:
        p, q = self.grid.side(item["a"], item["b"])
        style = item.get("style", "river")
        if style == "bridge" or self.styles.get(style, {}).get("width", 1) >= 6:
            # a bridge: a short bar across the middle of the side
            p, q = _shrink(p, q, 0.45)
        p, q = self.at(p), self.at(q)
        return [f'<path class="ln s-{style}" d="M{num(p[0])} {num(p[1])} L{num(q[0])} {num(q[1])}"/>']

    def _path(self, item: dict) -> list[str]:
        points = [self.centre(c) for c in item["cells"]]
        if len(points) < 2:
            return []
        return [f'<path class="ln s-{item.get("style", "road")}" d="M' + " L".join(
            f"{num(x)} {num(y)}" for x, y in points) + '"/>']

    def _outline(self, item: dict) -> list[str]:
        # one piece per cell on the edge of the region, with the sides it has on that edge
        out = []
        style = item.get("style", "front")
        for cell, segments in self.grid.boundary(item["cells"]):
            d = "".join(f"M{num(p[0] + self.ox)} {num(p[1] + self.oy)} L{num(q[0] + self.ox)} {num(q[1] + self.oy)}"
                        for p, q in segments)
            out.append(f'<path class="ln s-{style}" d="{d}"/>')
        return out

    def mark(self, item: dict) -> tuple[list[str], list[str]]:
        """A mark's symbol, and its words if it has any (for the layer of names)."""
        x, y = self.centre(item["cell"])
        w, h = self.grid.extent(item["cell"])
        r = min(w, h) * 0.26
        style = f's-{item.get("style", "mark")}'
        symbol = item["symbol"]
        # marks sit at the left of the cell, clear of the counters in its middle; a cell's second
        # mark at its right, a third and fourth under those, which may meet the words of the
        # marks above them: three in a hex are rare (an audience's probe: a dos Air Interdiction
        # marker hid the control flag of its hex, and the flag's "GT2" read as the marker's)
        met = self._marks_in.setdefault(item["cell"], [])
        if id(item) not in met:
            met.append(id(item))
        slot = met.index(id(item))          # (the same mark drawn again stays where it was)
        side = 1 if slot % 2 else -1
        mx, my = x + side * w * 0.97, y - h * 0.1 + r * 2.4 * (slot // 2)
        if symbol == "star":
            shape = f'<polygon class="{style}" points="{pts(_star(mx, my, r))}"/>'
        elif symbol == "circle":
            shape = f'<circle class="{style}" cx="{num(mx)}" cy="{num(my)}" r="{num(r * 0.8)}"/>'
        elif symbol == "dot":
            shape = f'<circle class="{style}" cx="{num(mx)}" cy="{num(my)}" r="{num(r * 0.45)}"/>'
        elif symbol == "square":
            shape = f'<rect class="{style}" x="{num(mx - r * 0.7)}" y="{num(my - r * 0.7)}" width="{num(r * 1.4)}" height="{num(r * 1.4)}"/>'
        elif symbol == "flag":
            shape = (f'<path class="ln" stroke="{INK}" stroke-width="1.5" d="M{num(mx - r * 0.5)} {num(my + r)} L{num(mx - r * 0.5)} {num(my - r)}"/>'
                     f'<polygon class="{style}" points="{pts([(mx - r * 0.5, my - r), (mx + r * 0.9, my - r * 0.55), (mx - r * 0.5, my - r * 0.1)])}"/>')
        else:  # "in" and "out": an arrow head pointing into the map or off it
            sign = 1 if symbol == "in" else -1
            shape = f'<polygon class="{style}" points="{pts([(mx - sign * r * 0.8, my - r * 0.8), (mx + sign * r * 0.8, my), (mx - sign * r * 0.8, my + r * 0.8)])}"/>'
        out = shape
        if item.get("text"):   # under the mark if that covers no counter, else below or inside the foot of its cell
            size = 8
            bw = _words_width(item["text"], size)
            # beginning under the mark, so that it runs into its own cell, not the one left of it
            # (audience probe: a stalingrad combat's words stood in the neighbouring area)
            # (a hex narrows to the left of its centre: there the words start under the mark, as before)
            first = (x - w + 2 + bw / 2, my + r + size) if self.grid.kind == "area" and side < 0 else (mx, my + r + size)
            spots = [first, (x, y + h + size + 2), (x, y + h - size * 1.6), (x, y - h - 3),
                     (mx - side * (bw / 2 - r), my + r + size)]
            tx, ty = self.free_spot(spots, bw, size * 1.3, size, owner=(mx, my), under=self.ids_near(mx, my, bw, w, h))
            # its words among the names, over the lines of moves, as every name is (a probe: a
            # move's line hid the "T" of a kkoh command marker's name)
            return [f"<g>{out}</g>"], [_text(tx, ty, item["text"], size, "i-name halo", bold=True)]
        return [f"<g>{out}</g>"], []

    def _label(self, item: dict) -> list[str]:
        x, y = self.centre(item["cell"])
        w, h = self.grid.extent(item["cell"])
        style = item.get("style", "name")
        spec = self.styles.get(style, {})
        size = float(spec.get("width", 8 if style == "cell-id" else 10))
        at = item.get("at", "center")
        if style == "cell-id" or self.grid.kind == "area":   # (thousands of hex ids a map: the short way)
            y = _baseline(y, h, size, at)
        else:
            ys = {a: _baseline(y, h, size, a) for a in ("top", "bottom", "center")}
            # a place's name where it covers no counter (a probe: a stack hid "Kursk 5 VP" of the
            # city it held): its own place first, then the cell's other two, then just outside it
            spots = [(x, ys[a]) for a in dict.fromkeys([at if at in ys else "center", "bottom", "top", "center"])]
            bw = _words_width(item["text"], size)
            spots += [(x + dx, ys[a]) for a in ("bottom", "top") for dx in (-w * 0.45, w * 0.45)]
            spots += [(x + dx, y + dy) for dy in (h + size, -h - size * 0.4) for dx in (0, -w, w)]
            spots += [(x + dx, ys["center"]) for dx in (-w - bw / 2, w + bw / 2)]
            # nor a hex id (a probe: "Kharkov 15 VP" over the ids of the two hexes below it); where
            # every spot meets a counter (a dense front on a whole map), the least covered
            x, y = self.free_spot(spots, bw, size * 1.3, size, least=True, owner=(x, y), under=self.ids_near(x, y, bw, w, h))
        cls = f"i-{style}" + ("" if style == "cell-id" else " halo")
        bold = style != "cell-id"
        # an area's labels stay inside its box; a hex id inside its hex
        limit = 2 * w - 8 if self.grid.kind == "area" else (w * 1.5 if style == "cell-id" else None)
        return [_text(x, y, item["text"], size, cls, bold=bold, fit=limit)]

    def _stack(self, item: dict) -> list[str]:
        counters = item["counters"]
        if not counters:
            return []
        x, y = self.centre(item["cell"])
        w, h = self.grid.extent(item["cell"])
        places = _places(len(counters), x, y, w, h, self.grid.kind, self.grid.size)
        body = []
        for counter, (cx, cy, c) in zip(counters, places):
            body.append(self.counter(counter, cx, cy, c))
        if places and len(counters) > len(places):   # (none fit a cell a few pixels high: nothing is drawn)
            cx, cy, c = places[-1]
            more = len(counters) - len(places) + 1
            body[-1] = (f'<g><rect x="{num(cx - c / 2)}" y="{num(cy - c / 2)}" width="{num(c)}" height="{num(c)}" '
                        f'rx="2" fill="#ffffff" stroke="{INK}"/>'
                        + _text(cx, cy + c * 0.12, f"+{more}", c * 0.38, "", bold=True) + "</g>")
        ids = " ".join(str(k["unit"]) for k in counters)
        return [f'<g class="stack" data-cell={attr(item["cell"])} data-units={attr(ids)}>' + "".join(body) + "</g>"]

    def counter(self, k: dict, cx: float, cy: float, c: float) -> str:
        side = str(k["side"])
        x, y = cx - c / 2, cy - c / 2
        facing = k.get("facing")
        out = [f'<g class="counter" data-unit={attr(k["unit"])}'
               + ("" if facing is None else f' data-facing="{num(facing)}"') + '>',
               f'<rect class="side-{side}" x="{num(x)}" y="{num(y)}" width="{num(c)}" height="{num(c)}" rx="{num(c * 0.08)}"/>']
        ink = f"ink-{side}"
        small = c < 34  # a counter of a big stack: larger type, a smaller symbol
        fs = c * (0.25 if small else 0.2)
        vs = c * (0.36 if small else 0.3)
        out.append(_text(cx, y + fs * 1.02, k.get("label", k["unit"]), fs, ink, fit=c * 0.94))
        out.append(_symbol(k.get("symbol"), cx, y + fs * 1.25 + (c - fs * 1.25 - vs) / 2, c * 0.46,
                           (c - fs * 1.25 - vs) * 0.72, side))
        values = k.get("values")
        if values:
            out.append(_text(cx, y + c - vs * 0.22, values, vs, ink, bold=True, fit=c * 0.94,
                             fill="#b00000" if k.get("reduced") else None))
        if k.get("reduced"):
            out.append(f'<rect x="{num(x)}" y="{num(y + c - c * 0.07)}" width="{num(c)}" height="{num(c * 0.07)}" fill="#b00000"/>')
        # marker tabs down the right edge and then the left, between the id and the values
        # line, never over the values (a second tab once hid a kkoh counter's "HD3" as "HD")
        markers = k.get("markers") or []
        room = c - vs - fs * 1.2
        rows = max(1, math.ceil(len(markers) / 2))
        tab = min(c * 0.27, (room - 0.8 * rows) / rows)
        for i, marker in enumerate(markers):
            letter, colour = MARKERS.get(marker, (str(marker)[:1].upper(), "#ffffff"))
            tx = x + c - tab - 0.8 if i % 2 == 0 else x + 0.8
            ty = y + fs * 1.2 + (i // 2) * (tab + 0.8)
            out.append(f'<rect x="{num(tx)}" y="{num(ty)}" width="{num(tab)}" height="{num(tab)}" fill="{colour}" '
                       f'stroke="{INK}" stroke-width="0.6"/>'
                       + _text(tx + tab / 2, ty + tab * 0.8, letter, tab * 0.85, "", bold=True))
        if facing is not None:
            out.append(_facing(cx, cy, c, facing))
        out.append("</g>")
        return "".join(out)

    def _reversed(self, cells: list[str]) -> bool:
        """Whether the scene has an arrow of one step from the second of `cells` to the first."""
        if self._pairs is None:
            self._pairs = {tuple(i["cells"]) for i in self.items if i["type"] == "arrow" and len(i["cells"]) == 2}
        return (cells[1], cells[0]) in self._pairs

    def arrow(self, item: dict) -> tuple[str, str]:
        """An arrow's two pieces: its line (drawn under names and counters) and its head with
        the result it carries (drawn over them)."""
        style = item.get("style", "move")
        spec = self.styles.get(style, {})
        width = float(spec.get("width", 2.5))
        cells = item["cells"]
        points = [self.centre(c) for c in cells]
        last = points[-2], points[-1]   # the last step's two centres
        head = width * 3.2
        if self.grid.kind == "area":  # from box to box
            points[0] = self.at(self.grid.rim(cells[0], self.grid.centre(cells[1])))
            points[-1] = self.at(self.grid.rim(cells[-1], self.grid.centre(cells[-2])))
        else:  # the head stops at the edge of a counter in the last cell, clear of its text
            reach, most = max(self.grid.extent(cells[-1])) * 0.62, 0.45
            stack = self.stacks.get(cells[-1])
            if stack:   # a block of counters reaches further: the tip stops at its edge, off its values
                reach = max(reach, _exit(points[-1], points[-2], _stack_bounds(stack)) + 2)
                most = 0.8
            points[-1] = _towards(points[-1], points[-2], reach, most)
        if len(cells) == 2 and self._reversed(cells):
            # two arrows between the same two cells, one each way (chir: an attack and the defensive
            # fire back): each keeps to its own right, so that neither hides the other
            (ax, ay), (bx, by) = points
            length = math.hypot(bx - ax, by - ay) or 1.0
            dx, dy = -(by - ay) / length * width * 1.6, (bx - ax) / length * width * 1.6
            points = [(ax + dx, ay + dy), (bx + dx, by + dy)]
        tip = points[-1]
        base = _towards(tip, points[-2], head)
        line = points[:-1] + [base]
        colour = spec.get("stroke", INK)
        d = "M" + " L".join(f"{num(x)} {num(y)}" for x, y in line)
        # a dot where it starts, so that a line among many says which way it runs; in the counter
        # colour of the side whose arrow it is, ringed in the arrow's, so that it says whose even
        # where those units are gone and the enemy stands in their cell (players' probe: a dos
        # Soviet attack eliminated, drawn from a hex German units had advanced into)
        side = self.sides.get(str(item.get("side", "")))
        start = ("" if len(cells) < 2 or self.grid.kind == "area" else
                 f'<circle cx="{num(line[0][0])}" cy="{num(line[0][1])}" r="{num(width * 1.3)}" '
                 + (f'fill="{side["fill"]}" stroke="{colour}" stroke-width="1.5"/>' if side else
                    f'fill="{colour}" stroke="#ffffff" stroke-width="1"/>'))
        trail = (f'<g class="trail"><path class="ln" stroke="#ffffff" stroke-width="{num(width + 3)}" opacity="0.95" '
                 f'd="{d}"/><path class="ln s-{style}" d="{d}"/>{start}</g>')
        over = ""
        first = self.stacks.get(cells[0]) if len(cells) == 2 and self.grid.kind != "area" else None
        if first and math.dist(line[0], base) - _exit(line[0], base, _stack_bounds(first)) < 2 * head:
            # a step between two stacks whose line the first stack's counters would hide: drawn over
            # them, so that it runs from that stack into the next (players' probe: of chir's attack
            # from 2830 into 2730 only the head showed, at the attacker's corner, as if it were the target)
            trail, over = "", trail
        out = [f'<g class="arrow" data-style="{style}">', over,
               f'<polygon fill="{colour}" stroke="#ffffff" stroke-width="0.8" points="{pts(_head(tip, base, head))}"/>']
        if item.get("text"):
            size = 10
            label = str(item["text"])
            bw = _words_width(label, size) + 2
            # above the tip if that covers no counter, else the nearest clear place along the
            # last step or to either side of it (the result of an attack beside the attack)
            (ax, ay), (bx, by) = last
            length = math.hypot(bx - ax, by - ay) or 1.0
            nx, ny = -(by - ay) / length, (bx - ax) / length
            r = self.grid.size
            # (in a dense part of the map, then farther out: beyond either end, and further aside)
            spots = [(tip[0], tip[1] - head - 4)]
            for d, along in LABEL_PLACES:
                mx, my = ax + (bx - ax) * along, ay + (by - ay) * along + size * 0.35
                spots.append((mx + nx * d * r, my + ny * d * r))
            # nor on the arrow's own last step and head: a result box there hid the whole of a
            # one-hex attack but its head (players' probe: chir's defensive fire read as coming
            # from nowhere)
            (sx, sy), (ex, ey) = line[-2], base
            shaft = [(sx + (ex - sx) * k / 12, sy + (ey - sy) * k / 12) for k in range(13)]
            # nor on the last step of another arrow into the same cell (an attack from two hexes:
            # players' probe, a dos result box hid the shaft of its attack's second arrow), nor on
            # the dot where any other arrow starts, which says whose it is
            for other in self.items:
                if other is item or other["type"] != "arrow" or len(other["cells"]) < 2:
                    continue
                shaft.append(self.centre(other["cells"][0]))
                if other["cells"][-1] == cells[-1] and other["cells"][-2] != cells[-1]:
                    (px, py), (qx, qy) = self.centre(other["cells"][-2]), self.centre(cells[-1])
                    shaft += [(px + (qx - px) * k / 12, py + (qy - py) * k / 12) for k in range(1, 10)]
            tx, ty = self.free_spot(spots, bw, size * 1.35, size, shaft + _head(tip, base, head), least=True, owner=tip)
            mid = ((ax + bx) / 2, (ay + by) / 2)
            if math.hypot(tx - mid[0], ty - size * 0.35 - mid[1]) > LEADER * r:   # a leader line ties it to its attack
                out.append(f'<path class="ln" d="M{num(tx)} {num(ty - size * 0.3)} L{num(mid[0])} {num(mid[1])}" '
                           f'stroke="{colour}" stroke-width="1" stroke-dasharray="2 2"/>')
            out.append(f'<rect x="{num(tx - bw / 2)}" y="{num(ty - size)}" width="{num(bw)}" height="{num(size * 1.35)}" '
                       f'rx="2" fill="#ffffff" stroke="{colour}" stroke-width="1.2"/>')
            out.append(_text(tx, ty, label, size, "", bold=True, fill=colour))
        out.append("</g>")
        return trail, "".join(out)


def _text(x: float, y: float, value: object, size: float, cls: str, *, bold: bool = False,
          fit: float | None = None, fill: str | None = None, anchor: str = "middle") -> str:
    """A line of text centred on x; squeezed to `fit` pixels when it would be wider."""
    s = shown(str(value))
    extra = ""
    if fit is not None and len(s) * size * CHAR * (1.08 if bold else 1) > fit:
        extra = f' textLength="{num(fit)}" lengthAdjust="spacingAndGlyphs"'
    weight = ' font-weight="bold"' if bold else ""
    colour = f' fill="{fill}"' if fill else ""
    klass = f' class="{cls}"' if cls else ""
    align = "" if anchor == "middle" else f' text-anchor="{anchor}"'  # the svg element's default is middle
    return (f'<text x="{num(x)}" y="{num(y)}" font-size="{num(size)}"{align}'
            f"{weight}{klass}{colour}{extra}>{escape(s)}</text>")


# The advance widths of DejaVu Sans Bold, the face pbem draws its bold words in first (png.py;
# the SVG asks for it too), in font sizes, by character, as the font file's metrics give them
# (Debian's fonts-dejavu-core, DejaVuSans-Bold.ttf), written here once. Other characters count
# 0.85, a wide letter's width (they are rare in names; an em dash, at 1, is wider). An average
# width per character (CHAR) made a box too narrow for a long name, and a browser drew
# "Novocherkassk" over the counter beside its box.
_BOLD_WIDTHS = {ch: width for chars, width in (
    ("'", 0.306),
    ('ijl', 0.343),
    (' ', 0.348),
    ('/\\|', 0.365),
    ('IJ', 0.372),
    (',.', 0.38),
    (':;', 0.4),
    ('-', 0.415),
    ('f', 0.435),
    ('!', 0.456),
    ('()[]', 0.457),
    ('t', 0.478),
    ('r', 0.493),
    ('_`', 0.5),
    ('"', 0.521),
    ('*', 0.523),
    ('?', 0.58),
    ('z', 0.582),
    ('c', 0.593),
    ('s', 0.595),
    ('L', 0.637),
    ('x', 0.645),
    ('vy', 0.652),
    ('k', 0.665),
    ('a', 0.675),
    ('e', 0.678),
    ('T', 0.682),
    ('EF', 0.683),
    ('o', 0.687),
    ('$0123456789', 0.696),
    ('hnu{}', 0.712),
    ('bdgpq', 0.716),
    ('S', 0.72),
    ('Y', 0.724),
    ('Z', 0.725),
    ('P', 0.733),
    ('C', 0.734),
    ('B', 0.762),
    ('R', 0.77),
    ('X', 0.771),
    ('AV', 0.774),
    ('K', 0.775),
    ('U', 0.812),
    ('G', 0.821),
    ('D', 0.83),
    ('HN', 0.837),
    ('#+<=>^~', 0.838),
    ('OQ', 0.85),
    ('&', 0.872),
    ('w', 0.924),
    ('M', 0.995),
    ('@', 1.0),
    ('%', 1.002),
    ('m', 1.042),
    ('W', 1.103),
) for ch in chars}


def _words_width(text: Any, size: float) -> float:
    """The width of a box that holds `text` in bold type of `size`, with a little room."""
    return sum(_BOLD_WIDTHS.get(ch, 0.85) for ch in str(text)) * size + 4


def _baseline(y: float, h: float, size: float, at: str) -> float:
    """The baseline of words of `size` at the "top", "bottom" or centre of a cell whose centre
    is at `y` and half height `h`."""
    return y - h + size * 0.95 if at == "top" else (y + h - size * 0.3 if at == "bottom" else y + size * 0.35)


def _places(n: int, x: float, y: float, w: float, h: float, kind: str, size: float) -> list[tuple[float, float, float]]:
    """Where the counters of a stack of n go in a cell: (centre x, centre y, side).
    A hex or square holds one counter, or two side by side, below its id; a larger stack
    (up to MOST_SHOWN counters, the last a "+N" for the rest) in rows below the id, each
    counter inside the cell, as large as the cell's shape lets them be (`_rows`). An area
    fills rows between its name and the words at its bottom, its counters smaller where
    more rows are needed (a probe: the third row of 13 counters covered the area's id and VP)."""
    if kind == "area":
        c, gap = size, 3
        room = 2 * h - AREA_NAME_BAND - AREA_NOTE_BAND
        while True:
            per_row = max(1, int((2 * w - gap) // (c + gap)))
            if -(-n // per_row) * (c + gap) - gap <= room or c <= size / 2:
                break
            c -= 1
        top = y - h + AREA_NAME_BAND
        out = []
        for i in range(n):
            row, col = divmod(i, per_row)
            out.append((x - w + gap + c / 2 + col * (c + gap), top + c / 2 + row * (c + gap), c))
        return out
    # a hex or square: one counter, or two side by side, below the cell id
    cy = y + h * 0.14
    m = max(w, h)
    if n == 1:
        return [(x, cy, m * 1.2)]
    gap = 1.5
    if n == 2:
        # the size of a 2 x 2 block's counters, side by side: both stay inside their cell (players'
        # probe: two counters of a cell's width each stood half in the cells beside it)
        c = (m * 1.76 - gap) / 2
        return [(x - c / 2 - gap / 2, cy, c), (x + c / 2 + gap / 2, cy, c)]
    c, rows, top = _rows(min(n, MOST_SHOWN), round(w, 3), round(h, 3), kind, round(size, 3))
    out = []
    for row, k in enumerate(rows):
        ry = y + top + row * (c + gap) + c / 2
        out += [(x + (col - (k - 1) / 2) * (c + gap), ry, c) for col in range(k)]
    return out


AREA_NAME_BAND, AREA_NOTE_BAND = 22.0, 14.0   # an area's top its name takes, its bottom its id, cover and VP
MOST_SHOWN = 10   # counters a hex or square shows: dos stacks 3 divisions of 3 regiments and an HQ (7.1, 7.22)
ID_BAND = 9.0     # the top of a hex or square its id takes, in pixels: an id is at most 9 px, its baseline 0.95 of it down


@functools.lru_cache(maxsize=256)
def _rows(n: int, w: float, h: float, kind: str, size: float) -> tuple[float, tuple[int, ...], float]:
    """The largest counters n of them can be in a hex or square, in rows of them centred
    one under the other below the cell id, each wholly inside the cell: (side, counters in
    each row, the top of the first row below the cell's centre). Each way of parting n into
    at most four rows is tried; a row's corners inside the cell, less a margin and the band
    of its id at the top, bound the side (players' probe: of a dos stack of four, two stood
    in the hexes below and over the id). A hex is pointy-topped if its inner box is wider
    than high. The same sizes for every state: worked out once per cell shape."""
    gap, margin = 1.5, max(1.0, size * 0.03)
    if kind == "hex":
        r = size - margin * 2 / math.sqrt(3)   # the hexagon inset by the margin
        start = -30 if w > h else 0
        corners = [(r * math.cos(math.radians(start + 60 * i)), r * math.sin(math.radians(start + 60 * i)))
                   for i in range(6)]
    else:
        corners = [(-w + margin, -h + margin), (w - margin, -h + margin), (w - margin, h - margin),
                   (-w + margin, h - margin)]
    # the cell as half-planes a.x + b.y <= d, and the id's band: y >= its bottom
    planes = []
    for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1]):
        a, b = y1 - y0, x0 - x1
        d = a * x0 + b * y0
        planes.append((a, b, d) if d >= 0 else (-a, -b, -d))
    planes.append((0.0, -1.0, h - ID_BAND))

    def top(rows: tuple[int, ...], c: float) -> float | None:
        """Where the first row's top may go with counters of side c: the middle of what fits."""
        lo, hi, dy = -math.inf, math.inf, 0.0
        for k in rows:
            half = (k * c + (k - 1) * gap) / 2
            for px in (-half, half):
                for py in (dy, dy + c):
                    for a, b, d in planes:
                        room = d - a * px
                        if b > 1e-9:
                            hi = min(hi, room / b - py)
                        elif b < -1e-9:
                            lo = max(lo, room / b - py)
                        elif room < 0:
                            return None
            dy += c + gap
        return (lo + hi) / 2 if lo <= hi else None

    best = (0.0, (), 0.0)
    for count in range(1, min(n, 4) + 1):
        for cuts in itertools.combinations(range(1, n), count - 1):
            bounds = (0,) + cuts + (n,)
            rows = tuple(b - a for a, b in zip(bounds, bounds[1:]))
            small, large = 0.0, 2.0 * size
            for _ in range(24):   # the side that fits, to a thousandth of a cell
                mid = (small + large) / 2
                small, large = (mid, large) if top(rows, mid) is not None else (small, mid)
            # the largest side; of sides alike to a hundredth of a pixel, fewer rows, the fuller on top
            if (round(small, 2), -len(rows), rows) > (round(best[0], 2), -len(best[1]), best[1]):
                best = (small, rows, top(rows, small))
    return best


def _symbol(kind: object, x: float, y: float, w: float, h: float, side: str) -> str:
    """A small unit-type symbol in the NATO manner."""
    if not kind:
        return ""
    x0, y0, x1, y1 = x - w / 2, y - h / 2, x + w / 2, y + h / 2
    box = f'<rect x="{num(x0)}" y="{num(y0)}" width="{num(w)}" height="{num(h)}" fill="none" stroke="{INK}" stroke-width="0.8"/>'
    line = f' stroke="{INK}" stroke-width="0.8" fill="none"'
    cross = f'<path d="M{num(x0)} {num(y0)} L{num(x1)} {num(y1)} M{num(x0)} {num(y1)} L{num(x1)} {num(y0)}"{line}/>'
    oval = f'<ellipse cx="{num(x)}" cy="{num(y)}" rx="{num(w * 0.33)}" ry="{num(h * 0.3)}"{line}/>'
    if kind == "infantry":
        inner = cross
    elif kind in ("tank", "armour"):
        inner = oval
    elif kind in ("mechanised", "motorised"):
        inner = cross + oval
    elif kind == "artillery":
        inner = f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(h * 0.18)}" fill="{INK}"/>'
    elif kind == "anti-tank":
        inner = f'<path d="M{num(x0)} {num(y1)} L{num(x)} {num(y0)} L{num(x1)} {num(y1)}"{line}/>'
    elif kind == "anti-aircraft":
        inner = f'<path d="M{num(x0 + w * 0.1)} {num(y1)} Q{num(x)} {num(y0 - h * 0.2)} {num(x1 - w * 0.1)} {num(y1)}"{line}/>'
    elif kind == "cavalry":
        inner = f'<path d="M{num(x0)} {num(y1)} L{num(x1)} {num(y0)}"{line}/>'
    elif kind == "engineers":
        inner = (f'<path d="M{num(x - w * 0.25)} {num(y + h * 0.2)} L{num(x - w * 0.25)} {num(y - h * 0.15)} '
                 f'L{num(x + w * 0.25)} {num(y - h * 0.15)} L{num(x + w * 0.25)} {num(y + h * 0.2)} '
                 f'M{num(x)} {num(y - h * 0.15)} L{num(x)} {num(y + h * 0.2)}"{line}/>')
    else:
        inner = ""
    return box + inner


def _facing(cx: float, cy: float, c: float, degrees: float) -> str:
    """The way a counter faces (degrees clockwise from up): a bar along that side of the
    counter and a wedge pointing out of it."""
    a = math.radians(degrees)
    dx, dy = math.sin(a), -math.cos(a)  # outwards
    px, py = -dy, dx  # along the side
    ex, ey = cx + dx * c / 2, cy + dy * c / 2
    bar = c * 0.42
    tip = (ex + dx * c * 0.22, ey + dy * c * 0.22)
    wedge = [tip, (ex + px * c * 0.2, ey + py * c * 0.2), (ex - px * c * 0.2, ey - py * c * 0.2)]
    return (f'<path class="ln" stroke="{INK}" stroke-width="{num(c * 0.08)}" d="M{num(ex + px * bar)} '
            f'{num(ey + py * bar)} L{num(ex - px * bar)} {num(ey - py * bar)}"/>'
            f'<polygon class="facing" fill="{INK}" stroke="#ffffff" stroke-width="0.8" points="{pts(wedge)}"/>')


def _exit(p: Point, q: Point, box: tuple[float, float, float, float]) -> float:
    """How far from p, towards q, a line leaves `box` (x0, y0, x1, y1), which holds p."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return 0.0
    dx, dy = dx / length, dy / length
    ts = [((box[2] if dx > 0 else box[0]) - p[0]) / dx] if dx else []
    ts += [((box[3] if dy > 0 else box[1]) - p[1]) / dy] if dy else []
    return max(0.0, min(ts)) if ts else 0.0


def _towards(p: Point, q: Point, d: float, most: float = 0.45) -> Point:
    """The point d pixels from p towards q, at most `most` of the way (p itself if they coincide)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return p
    d = min(d, length * most)
    return p[0] + dx / length * d, p[1] + dy / length * d


def _within(box: tuple[float, float, float, float], bounds: tuple[float, float, float, float]) -> bool:
    return bounds[0] <= box[0] and box[2] <= bounds[2] and bounds[1] <= box[1] and box[3] <= bounds[3]


def _moved_in(p: Point, box: tuple[float, float, float, float], bounds: tuple[float, float, float, float]) -> Point:
    """Anchor `p` of words whose `box` reaches into `bounds` but is cut at its edge, moved the
    least that puts the box whole inside (as far as it fits); `p` itself where the box is whole
    inside (no move), or wholly outside (drawn there, and not seen)."""
    if box[2] <= bounds[0] or bounds[2] <= box[0] or box[3] <= bounds[1] or bounds[3] <= box[1]:
        return p
    return _shifted_in(p, box, bounds)


def _shifted_in(p: Point, box: tuple[float, float, float, float], bounds: tuple[float, float, float, float]) -> Point:
    """Anchor `p` of words whose `box` is cut at the edge of `bounds`, or wholly outside it,
    moved the least that puts the box whole inside (as far as it fits)."""
    dx = max(0.0, bounds[0] - box[0]) - max(0.0, box[2] - bounds[2])
    dy = max(0.0, bounds[1] - box[1]) - max(0.0, box[3] - bounds[3])
    return p[0] + dx, p[1] + dy


def _head(tip: Point, base: Point, length: float) -> list[Point]:
    dx, dy = tip[0] - base[0], tip[1] - base[1]
    n = math.hypot(dx, dy) or 1.0
    px, py = -dy / n * length * 0.55, dx / n * length * 0.55
    return [tip, (base[0] + px, base[1] + py), (base[0] - px, base[1] - py)]


def _shrink(p: Point, q: Point, keep: float) -> tuple[Point, Point]:
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    return (mx + (p[0] - mx) * keep, my + (p[1] - my) * keep), (mx + (q[0] - mx) * keep, my + (q[1] - my) * keep)


def _star(x: float, y: float, r: float) -> list[Point]:
    out = []
    for i in range(10):
        a = math.radians(-90 + 36 * i)
        rr = r if i % 2 == 0 else r * 0.45
        out.append((x + rr * math.cos(a), y + rr * math.sin(a)))
    return out


# --- the panel ---------------------------------------------------------------------------------

def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = shown(text).split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def _panel(scene: dict, styles: dict, uses: dict, sides: dict, x: float, y: float) -> tuple[list[str], float]:
    """Title, caption, compass, legend and notes, one piece each, from the top down."""
    pieces = []
    top = y

    def lines(text: str, size: float, width: int, *, bold: bool = False, fill: str = INK) -> str:
        nonlocal y
        out = []
        for line in _wrap(text, width):
            y += size * 1.3
            out.append(_text(x, y, line, size, "", bold=bold, fill=fill, anchor="start"))
        return "".join(out)

    pieces.append("<g>" + lines(scene.get("title", ""), 15, 34, bold=True) + "</g>")
    caption = scene.get("caption")
    if caption:
        y += 4
        start = y
        pieces.append('<g id="caption">' + "".join(lines(c, 12, 44) for c in
                                                   (caption if isinstance(caption, list) else [caption])) + "</g>")
        # a caption of any length takes the same room, so that the legend below it stays put
        y = max(y, start + CAPTION_LINES * 12 * 1.3)
    north = scene.get("north")
    if north is not None:
        y += 10
        cx, cy = x + 22, y + 22
        a = math.radians(north)
        tip = (cx + 18 * math.sin(a), cy - 18 * math.cos(a))
        tail = (cx - 14 * math.sin(a), cy + 14 * math.cos(a))
        pieces.append(f'<g><circle cx="{num(cx)}" cy="{num(cy)}" r="20" fill="#ffffff" stroke="{INK}"/>'
                      f'<path class="ln" stroke="{INK}" stroke-width="2" d="M{num(tail[0])} {num(tail[1])} L{num(tip[0])} {num(tip[1])}"/>'
                      f'<polygon fill="{INK}" points="{pts(_head(tip, _towards(tip, tail, 8), 8))}"/>'
                      + _text(cx + 34, cy + 5, "N", 14, "", bold=True, anchor="start")
                      + _text(cx + 50, cy + 5, "north " + _bearing(north), 11, "", anchor="start") + "</g>")
        y += 46
    y += 8
    entries = []
    for name, spec in sides.items():
        label = spec.get("label", name)
        entries.append(("side", name, label))
    for name, spec in styles.items():
        if spec.get("label"):
            entries.append(("style", name, spec["label"]))
    if entries:
        y += 4
        pieces.append(_text(x, y + 13, "Legend", 13, "", bold=True, anchor="start"))
        y += 20
    for what, name, label in entries:
        sy = y + 3
        if what == "side":
            swatch = f'<rect class="side-{name}" x="{num(x)}" y="{num(sy)}" width="18" height="18" rx="1.5"/>'
        else:
            swatch = _swatch(name, styles[name], uses.get(name), x, sy)
        text_lines = _wrap(label, 40)
        body = "".join(_text(x + 28, sy + 13 + i * 13, line, 11, "", anchor="start") for i, line in enumerate(text_lines))
        pieces.append(f"<g>{swatch}{body}</g>")
        y += max(24, 13 * len(text_lines) + 10)
    for line in scene.get("legend") or []:
        pieces.append("<g>" + lines(line, 11, 46) + "</g>")
    notes = scene.get("notes") or []
    if notes:
        y += 10
        start = y
        body = "".join(lines(note, 11, 44, fill="#7a2000") for note in notes)
        pieces.append(f'<g class="notes"><rect x="{num(x - 6)}" y="{num(start)}" width="{num(PANEL - 10)}" '
                      f'height="{num(y - start + 8)}" fill="#fff3d6" stroke="#c08a2a"/>{body}</g>')
        y += 8
    return pieces, y - top


def _bearing(north: float) -> str:
    names = {0: "up", 90: "to the right", 180: "down", 270: "to the left"}
    return names.get(int(north) % 360, f"at {num(north)}°")


def _swatch(name: str, spec: dict, use: str | None, x: float, y: float) -> str:
    """A legend's sample of a style, drawn as the scene uses it."""
    cls = f"s-{name}"
    if use in ("star", "circle", "square", "flag", "in", "out", "dot"):
        r = 8
        mx, my = x + 10, y + 9
        if use == "star":
            return f'<polygon class="{cls}" points="{pts(_star(mx, my, r))}"/>'
        if use == "flag":
            return (f'<path class="ln" stroke="{INK}" stroke-width="1.5" d="M{num(mx - 4)} {num(my + r)} L{num(mx - 4)} {num(my - r)}"/>'
                    f'<polygon class="{cls}" points="{pts([(mx - 4, my - r), (mx + 7, my - 4), (mx - 4, my)])}"/>')
        if use in ("in", "out"):
            sign = 1 if use == "in" else -1
            return f'<polygon class="{cls}" points="{pts([(mx - sign * 7, my - 7), (mx + sign * 7, my), (mx - sign * 7, my + 7)])}"/>'
        if use == "square":   # as the map draws each mark (a square railhead was a circle here)
            return f'<rect class="{cls}" x="{num(mx - r * 0.7)}" y="{num(my - r * 0.7)}" width="{num(r * 1.4)}" height="{num(r * 1.4)}"/>'
        if use == "dot":
            return f'<circle class="{cls}" cx="{num(mx)}" cy="{num(my)}" r="{num(r * 0.45)}"/>'
        return f'<circle class="{cls}" cx="{num(mx)}" cy="{num(my)}" r="{num(r * 0.8)}"/>'
    if use == "arrow":
        colour = spec.get("stroke", INK)
        return (f'<path class="ln {cls}" d="M{num(x)} {num(y + 9)} L{num(x + 13)} {num(y + 9)}"/>'
                f'<polygon fill="{colour}" points="{pts([(x + 21, y + 9), (x + 12, y + 4), (x + 12, y + 14)])}"/>')
    if use == "side" and spec.get("width", 1) >= 6:  # a bridge over a river
        return (f'<path class="ln s-river" d="M{num(x)} {num(y + 9)} L{num(x + 20)} {num(y + 9)}"/>'
                f'<path class="ln {cls}" d="M{num(x + 10)} {num(y + 4)} L{num(x + 10)} {num(y + 14)}"/>')
    if "stroke" in spec and "fill" not in spec:
        return f'<path class="ln {cls}" d="M{num(x)} {num(y + 9)} L{num(x + 20)} {num(y + 9)}"/>'
    if "ink" in spec and "fill" not in spec:
        return _text(x + 10, y + 14, "Aa", 11, f"i-{name}", bold=True)
    return f'<rect class="{cls}" x="{num(x)}" y="{num(y)}" width="20" height="18" stroke="{INK}" stroke-width="0.5"/>'
