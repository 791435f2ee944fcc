"""The states of a game folder with the events that made them, for pictures.

A state file holds no events: the events of state N are those of packet N applied to
state N-1, so they are recomputed here by the pure adjudication step, and the result
must be the stored state N (its hash), as `pbem audit` would find. A folder whose states
do not follow from its packets is refused with the audit's advice.
"""

from __future__ import annotations

import os
from pathlib import Path

from pbem.core import engine, game
from pbem.core.errors import FileError, RulesError, UsageError, VerificationError
from pbem.core.packet import packet_id
from pbem.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator


class Frame(Record):
    """One state of the game with the events of the packet that made it (none for state 0)."""

    seq: int
    state: dict
    events: list[dict]
    side: str | None  # who sent the packet


def open_game(path: Path) -> game.Folder:
    folder = game.open_folder(Path(path))
    if folder.game.ruleset.draw is None:
        raise RulesError(f"ruleset {folder.game.ruleset.id} draws no picture yet (its Ruleset record has no draw)")
    return folder


def frame(folder: game.Folder, seq: int | None = None) -> Frame:
    """State `seq` (the latest if None) and the events of its packet."""
    latest = folder.state["seq"]
    seq = latest if seq is None else seq
    if not 0 <= seq <= latest:
        raise UsageError(f"--state {seq}: the game has states 0 to {latest}")
    if seq == 0:
        return Frame(0, game.initial_state(folder.game), [], None)
    before = game.initial_state(folder.game) if seq == 1 else game.load_state(folder.path, seq - 1, folder.game)
    stored = folder.state if seq == latest else game.load_state(folder.path, seq, folder.game)
    return _step(folder, before, stored)


def frames(folder: game.Folder) -> Iterator[Frame]:
    """Every state of the game from state 0, each with its packet's events."""
    state = game.initial_state(folder.game)
    yield Frame(0, state, [], None)
    for seq in range(1, folder.state["seq"] + 1):
        stored = folder.state if seq == folder.state["seq"] else game.load_state(folder.path, seq, folder.game)
        made = _step(folder, state, stored)
        state = made.state
        yield made


def _step(folder: game.Folder, before: dict, stored: dict) -> Frame:
    seq = stored["seq"]
    packet = _packet(folder, seq, stored["packet"])
    rel = f"packets/{seq:04d}-{packet['side']}.yaml"
    state, events = engine.apply_packet(folder.game, before, packet, rel)
    if state["state_hash"] != stored["state_hash"]:
        raise VerificationError(f"states/{seq:04d}.yaml is not the state packet {seq} gives; run `pbem audit {folder.path}`")
    return Frame(seq, state, events, packet["side"])


def _packet(folder: game.Folder, seq: int, wanted: str) -> dict:
    found = []
    for _, path in game.packet_files(folder.path, seq):
        packet, _ = game.read_packet(path, f"packets/{path.name}")
        if packet_id(packet) == wanted:
            return packet
        found.append(f"packets/{path.name}")
    if found:
        # the file there is named: it was changed after the state was made from it (a probe: a
        # digit changed in a packet was "no file in packets/ is packet 12", which named none)
        raise VerificationError(f"{' and '.join(found)} {'is' if len(found) == 1 else 'are'} not packet {seq} of "
                                f"states/{seq:04d}.yaml: the state was made from a packet of other content, so "
                                f"{'this file was' if len(found) == 1 else 'these files were'} altered or damaged "
                                f"after it; run `pbem audit {folder.path}`")
    raise FileError(f"{folder.path}: no file in packets/ is packet {seq} of states/{seq:04d}.yaml; "
                    f"run `pbem audit {folder.path}`")


def scene(folder: game.Folder, fr: Frame) -> Any:
    """The ruleset's scene of a frame; a sandbox game's caption says it is one first, as its
    states and reports do, so that a picture posted on a forum cannot pass for a secure game's."""
    g = folder.game
    drawn = g.ruleset.draw(g.scenario, fr.state["rules"], fr.events)
    if fr.seq == 0:   # no packet yet: its legend has no "last packet"
        drawn["styles"] = {k: v for k, v in (drawn.get("styles") or {}).items() if v.get("legend") != "used"}
    caption = drawn.get("caption") or []
    caption = caption if isinstance(caption, list) else [caption]
    # which state it is, and whose packet made it: a picture posted on a forum is read without
    # the command that drew it (an audience's probe: state 21 and 22 could not be told apart)
    caption = caption + [f"State {fr.seq}, after packet {fr.seq}" + (f" from {fr.side}." if fr.side else ".")
                         if fr.seq else "State 0: the set-up, before any packet."]
    if not g.secure:
        from pbem.core.report import SANDBOX

        caption = [SANDBOX] + caption
    drawn["caption"] = caption
    return drawn


def shades(folder: game.Folder, scene: dict, show: tuple[str, ...]) -> list[str]:
    """Warnings for what `show` asks that the ruleset's pictures do not have (`--zoc` on a map
    without zones of control), so that a flag is never ignored without a word."""
    have = {spec.get("show") for spec in (scene.get("styles") or {}).values()}
    return [f"--{name}: the {folder.game.ruleset.id} map has no {'zones of control' if name == 'zoc' else name} to shade"
            for name in show if name not in have]


def write(path: Path, data: bytes) -> None:
    """Write a picture or page: a temporary file beside it, then a rename over the target."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileError(f"{path}: cannot be written ({exc.strerror})") from None
