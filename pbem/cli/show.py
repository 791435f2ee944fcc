from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, echo_json, game_dir, handles_errors


@click.command("show")
@game_dir
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--state", "seq", type=int, default=None, help="Show state N instead of the latest.")
@handles_errors
def command(game_dir: str, fmt: str, as_json: bool, seq: int | None) -> None:
    """The board and the units."""
    from pbem.core import game
    from pbem.core.canonical import load_mapping

    folder = game.open_folder(Path(game_dir))
    state = folder.state
    if seq is not None:
        state = load_mapping(Path(game_dir) / "states" / f"{seq:04d}.yaml")
    if as_json or fmt == "json":
        echo_json({"seq": state["seq"], "summary": folder.game.summary(state["rules"]), "rules": state["rules"]})
    else:
        echo(folder.game.render(state["rules"]), nl=False)
