from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, game_dir, handles_errors


@click.command("render")
@game_dir
@click.option("--seq", type=int, default=None, help="Draw state N instead of the latest.")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=str),
              help="The picture to write: FILE.svg or FILE.png.")
@click.option("--zoc", is_flag=True, help="Shade each side's zones of control.")
@click.option("--zoom", type=click.FloatRange(0.1, 8), default=1.0, show_default=True, help="Scale of a PNG.")
@handles_errors
def command(game_dir: str, seq: int | None, output: str, zoc: bool, zoom: float) -> None:
    """The board as a picture: terrain, places, fronts, every stack of counters, and the
    last packet's moves and attacks with their results. PNG is what forums accept."""
    from pbem.core.errors import UsageError
    from pbem.core.render import frames, svg

    kind = Path(output).suffix.lower()
    if kind not in (".svg", ".png"):
        raise UsageError(f"-o {output}: the picture's name must end in .svg or .png")
    folder = frames.open_game(Path(game_dir))
    frame = frames.frame(folder, seq)
    text = svg.to_svg(frames.scene(folder, frame), ("zoc",) if zoc else ())
    if kind == ".png":
        from pbem.core.render.png import to_png

        data = to_png(text, zoom)
    else:
        data = text.encode("utf-8")
    frames.write(Path(output), data)
    echo(f"{output}: state {frame.seq} of game {folder.game.game_id} ({len(data)} bytes)")
