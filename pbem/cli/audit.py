from __future__ import annotations

import sys
from pathlib import Path

import click

from pbem.cli.common import echo, echo_json, game_dir, handles_errors


@click.command("audit")
@game_dir
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@handles_errors
def command(game_dir: str, as_json: bool) -> None:
    """Replay the whole game from game.yaml: every signature, reveal, roll, state and report.
    Exit 0 only if everything verifies; 3 with the first divergence otherwise."""
    from pbem.core.audit import audit

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
