"""The example games of examples/, opened and played through once in each process of the
suite for the tests that only read them: nothing writes to examples/, and many tests draw,
replay or describe the same states of the same games."""

from __future__ import annotations

import functools
from pathlib import Path

from pbem.core import game
from pbem.core.render import frames


def opened(folder: Path) -> game.Folder:
    """An example's folder as `frames.open_game` opens it."""
    return _opened(Path(folder).resolve())


@functools.cache
def _opened(folder: Path) -> game.Folder:
    return frames.open_game(folder)


@functools.cache
def frame(f: game.Folder, seq: int | None = None) -> frames.Frame:
    """`frames.frame` of an opened example: state `seq` (the latest if None) with its packet's
    events."""
    return frames.frame(f, seq)


@functools.cache
def every_frame(f: game.Folder) -> tuple[frames.Frame, ...]:
    """`frames.frames` of an opened example: every state from state 0, each with its packet's
    events."""
    return tuple(frames.frames(f))
