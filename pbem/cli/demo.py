from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from pbem.cli.common import echo, handles_errors


@click.command("demo")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--ruleset", "ruleset_id", default="stalingrad", show_default=True, help="Which game to play.")
@click.option("--turns", type=click.IntRange(1), default=None, help="Stop after this many game turns (default: play to the end).")
@handles_errors
def command(directory: str | None, ruleset_id: str, turns: int | None) -> None:
    """Play a whole signed example game between two freshly generated keys, packet by
    packet between two folders as by email, and audit both (default DIRECTORY: a new
    temporary folder).

    The ruleset's own bots play where it has them (chir, stalingrad: the heuristic bots of
    `pbem selfplay`), with the standing order `on_void: skip`; elsewhere random legal orders."""
    from pbem.core import demo

    target = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    if directory and target.exists() and any(target.iterdir()):
        from pbem.core.errors import FileError

        raise FileError(f"{target} is not empty; give a new folder for the demo")
    outcome = demo.play(target, ruleset_id, say=echo, turns=turns)
    echo(f"the game folders are in {target}; try `pbem status {outcome['folders'][0]}`")
    if not outcome["ok"]:
        sys.exit(3)
