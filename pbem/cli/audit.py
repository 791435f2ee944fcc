from __future__ import annotations

import click

from pbem.cli import plain
from pbem.cli.common import game_dir


@click.command("audit")
@game_dir
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(game_dir: str, as_json: bool) -> None:
    """Replay the whole game from game.yaml: every signature, reveal, roll, state and report.
    Exit 0 only if everything verifies; 3 with the first divergence otherwise."""
    plain.audit(game_dir, as_json=as_json)
