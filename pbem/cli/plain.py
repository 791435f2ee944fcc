"""The bodies of `pbem adjudicate` and `pbem audit`, the commands a game runs every round,
and of `pbem status`, which players and onlookers run between rounds, as plain functions.
Their click commands (adjudicate.py, audit.py, status.py) call them; so does
`pbem.entry` for their plain command lines (positional arguments only), without
importing click, which costs about as much again as a bare interpreter's start."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pbem.cli.common import echo, echo_json, handles_errors


@handles_errors
def adjudicate(game_dir: str, packet_file: str, key_file: str | None = None, fmt: str = "text",
               load_key: Any = None) -> None:
    from pbem.core import game, report
    from pbem.core.text import shown

    folder = game.open_folder(Path(game_dir))
    key = load_key(key_file) if key_file else None
    packet, data = game.read_packet(Path(packet_file), packet_file)
    applied = game.adjudicate(folder, packet, data, packet_file, preview_key=key)
    echo(report.render(folder.game, applied.state, applied.events, fmt), nl=False)
    if applied.preview is not None:
        echo("\nPREVIEW (not written): what your next packet's reveal unlocks, whatever your packet says (§3.6):")
        for event in applied.preview[1:]:
            echo(f"  - {shown(event['text'])}")


@handles_errors
def audit(game_dir: str, as_json: bool = False) -> None:
    from pbem.core.audit import audit
    from pbem.core.game import check_game_folder

    check_game_folder(Path(game_dir))
    result = audit(Path(game_dir))
    if as_json:
        echo_json(result.as_dict())
    elif result.ok:
        echo(f"audit OK: game {result.game}, {result.packets} packets, {result.signatures} signatures, "
             f"{result.reveals} reveals, {result.rolls} dice rolls, {result.states} states and their reports "
             f"verified; final state {result.final_state}" + (f"; result: {result.result}" if result.result else ""))
    else:
        echo(f"pbem: audit failed: {result.divergence.sentence()}", err=True)
    if not result.ok:
        sys.exit(3)


@handles_errors
def status(game_dir: str, key_file: str | None = None, as_json: bool = False, load_key: Any = None) -> None:
    from pbem.core import describe, game

    folder = game.open_folder(Path(game_dir))
    you = game.side_of_key(folder.game, load_key(key_file)) if key_file else None
    info = describe.status(folder, you)
    if as_json:
        echo_json(info)
    else:
        echo("\n".join(info["text"]))
