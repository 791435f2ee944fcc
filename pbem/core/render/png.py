"""SVG to PNG with resvg (the `resvg-py` package: resvg compiled into a wheel, nothing else
to install). Text uses the system's fonts, DejaVu Sans first: on one machine the same SVG
always gives the same bytes."""

from __future__ import annotations

import re

from pbem.core.errors import FileError, UsageError

# About 8 bytes of memory a pixel while resvg draws: a dos map at --zoom 8 (29k x 33k pixels)
# took 7.6 GB (a probe). A picture is limited to what a forum shows and a laptop draws.
MAX_PIXELS = 60_000_000


def size(svg: str, zoom: float = 1.0) -> tuple[int, int]:
    """The PNG's width and height in pixels: the SVG's own, times zoom."""
    head = svg[:svg.index(">", svg.index("<svg")) + 1] if "<svg" in svg else ""
    width = re.search(r'\swidth="([0-9.]+)"', head)
    height = re.search(r'\sheight="([0-9.]+)"', head)
    if width is None or height is None:
        return 0, 0
    return round(float(width.group(1)) * zoom), round(float(height.group(1)) * zoom)


def to_png(svg: str, zoom: float = 1.0) -> bytes:
    width, height = size(svg, zoom)
    if width * height > MAX_PIXELS:
        most = (MAX_PIXELS / (width * height)) ** 0.5 * zoom
        raise UsageError(f"--zoom {zoom:g}: the picture would be {width} x {height} pixels, over pbem's limit of "
                         f"{MAX_PIXELS // 1_000_000} million (drawing it takes about 8 bytes a pixel); use --zoom "
                         f"{int(most * 10) / 10:g} or less, or draw a part of the map larger with --around")
    try:
        import resvg_py
    except ImportError:  # pragma: no cover - a dependency of pbem
        raise FileError("PNG output needs the resvg-py package (pip install resvg-py); SVG works without it") from None
    try:
        return resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, font_family="DejaVu Sans",
                                     sans_serif_family="DejaVu Sans")
    except ValueError as exc:
        raise FileError(f"the picture could not be rasterised: {exc}") from None
