from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, game_dir, handles_errors


@click.command("orders")
@game_dir
@click.option("--side", required=True, help="The side whose orders to prepare.")
@handles_errors
def command(game_dir: str, side: str) -> None:
    """Print a ready-to-edit YAML template of what SIDE must decide now, with the legal
    options as comments. Edit it, then `pbem submit GAME_DIR FILE --key KEY`."""
    from pbem.core import game, templates

    folder = game.open_folder(Path(game_dir))
    echo(templates.orders_template(folder.game, folder.state, side), nl=False)
