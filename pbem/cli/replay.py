from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, game_dir, handles_errors


@click.command("replay")
@game_dir
@click.option("-o", "--output", "--out", "output", required=True, type=click.Path(dir_okay=False, path_type=str),
              help="The page to write: FILE.html.")
@click.option("--zoc", is_flag=True, help="Shade each side's zones of control.")
@handles_errors
def command(game_dir: str, output: str, zoc: bool) -> None:
    """One self-contained HTML page stepping through the whole game: the map at every
    state, the report and the dice of each packet (keys: arrows, Home, End)."""
    from pbem.core.errors import UsageError
    from pbem.core.render import frames, replay

    if Path(output).suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"-o {output}: the page's name must end in .html (a browser opens it by its name)")
    folder = frames.open_game(Path(game_dir))
    for warning in frames.shades(folder, frames.scene(folder, frames.frame(folder, 0)), ("zoc",) if zoc else ()):
        echo(f"warning: {warning}", err=True)
    page, count = replay.page(folder, ("zoc",) if zoc else ())
    data = page.encode("utf-8")
    frames.write(Path(output), data)
    echo(f"{output}: {count} states of game {folder.game.game_id} ({len(data)} bytes)")
