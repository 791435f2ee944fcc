"""The default look: colours and line styles every scene may use by name. A scene's own
`styles` add to these or replace them; a style with a `label` appears in the legend."""

from __future__ import annotations

DEFAULT_STYLES: dict[str, dict] = {
    # cells
    "clear": {"fill": "#f4f0dc", "stroke": "#b9b39a", "width": 0.6},
    "rough": {"fill": "#e3d3ad", "stroke": "#b9b39a", "width": 0.6},
    "boggy": {"fill": "#c8ddd0", "stroke": "#b9b39a", "width": 0.6},
    "woods": {"fill": "#a9cc8f", "stroke": "#b9b39a", "width": 0.6},
    "town": {"fill": "#dcc0a0", "stroke": "#b9b39a", "width": 0.6},
    "city": {"fill": "#c9a27e", "stroke": "#b9b39a", "width": 0.6},
    "water": {"fill": "#a9cbe8", "stroke": "#b9b39a", "width": 0.6},
    "area": {"fill": "#efe9d6", "stroke": "#6b6457", "width": 1.5},
    # sides and paths
    "river": {"stroke": "#2f6fd0", "width": 4},
    "bridge": {"stroke": "#4a3422", "width": 7},
    "road": {"stroke": "#9a5b2b", "width": 2.5},
    "rail": {"stroke": "#333333", "width": 2, "dash": "6 3"},
    "link": {"stroke": "#6b6457", "width": 2},
    # arrows
    "move": {"stroke": "#1d1d1d", "width": 2.5, "opacity": 0.85},
    "attack": {"stroke": "#d01c1c", "width": 3.5, "opacity": 0.9},
    "retreat": {"stroke": "#7a2fb0", "width": 2.5, "dash": "6 3", "opacity": 0.9},
    "advance": {"stroke": "#d07a00", "width": 2.5, "dash": "2 3", "opacity": 0.9},
    # shades and outlines
    "shade": {"fill": "#808080", "opacity": 0.25},
    "front": {"stroke": "#d01c1c", "width": 3},
    # labels
    "cell-id": {"ink": "#8a8470"},
    "name": {"ink": "#1d1d1d"},
    "note": {"ink": "#4a4a4a"},
    # marks
    "mark": {"fill": "#ffd400", "stroke": "#1d1d1d", "width": 1},
}

# Counter markers: the letter on the marker's tab and its colour.
MARKERS: dict[str, tuple[str, str]] = {
    "confused": ("C", "#ffd400"),
    "fired": ("F", "#ff8c1a"),
    "half": ("½", "#5ec8f0"),
    "no-move": ("N", "#c0c0c0"),
    "turned": ("T", "#c0c0c0"),
    "disrupted": ("D", "#ffd400"),
    "suppressed": ("S", "#ff8c1a"),
    "out-of-supply": ("S", "#ff6a4d"),
    "withdrew": ("W", "#c0c0c0"),
    "air-supplied": ("A", "#5ec8f0"),
}

DEFAULT_SIDE = {"fill": "#d8d8d8", "ink": "#1d1d1d"}
PAPER = "#fbfaf5"
INK = "#1d1d1d"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
