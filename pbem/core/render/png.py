"""SVG to PNG with resvg (the `resvg-py` package: resvg compiled into a wheel, nothing else
to install). Text uses the system's fonts, DejaVu Sans first: on one machine the same SVG
always gives the same bytes."""

from __future__ import annotations

from pbem.core.errors import FileError


def to_png(svg: str, zoom: float = 1.0) -> bytes:
    try:
        import resvg_py
    except ImportError:  # pragma: no cover - a dependency of pbem
        raise FileError("PNG output needs the resvg-py package (pip install resvg-py); SVG works without it") from None
    try:
        return resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, font_family="DejaVu Sans",
                                     sans_serif_family="DejaVu Sans")
    except ValueError as exc:
        raise FileError(f"the picture could not be rasterised: {exc}") from None
