from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, game_dir, handles_errors


class _Scale(click.FloatRange):
    """click.FloatRange, which lets `nan` through: it compares false with both bounds (a probe:
    `--zoom nan` ended in a traceback where the PNG's size was worked out)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail(f"{value!r} is not a number in the range {self._describe_range()}.", param, ctx)
        return number


@click.command("render")
@game_dir
@click.option("--state", "--seq", "seq", type=int, default=None, help="Draw state N instead of the latest (as show --state).")
@click.option("-o", "--output", "--out", "output", required=True, type=click.Path(dir_okay=False, path_type=str),
              help="The picture to write: FILE.svg or FILE.png.")
@click.option("--zoc", is_flag=True, help="Shade each side's zones of control.")
@click.option("--zoom", type=_Scale(0.1, 8), default=None, help="Scale of a PNG (1 unless given).")
@click.option("--around", metavar="CELL", default=None,
              help="Draw only the part of the map around this hex (or square, or cell), larger: a large map's corner for a "
                   "forum post. Not on a map of areas (stalingrad), which is always drawn whole.")
@click.option("--radius", type=click.IntRange(1, 99), default=None,
              help="With --around: how many hexes or cells around it (default 6), or squares (default 2).")
@handles_errors
def command(game_dir: str, seq: int | None, output: str, zoc: bool, zoom: float | None, around: str | None,
            radius: int | None) -> None:
    """The board as a picture: terrain, places, fronts, every stack of counters, and the
    last packet's moves and attacks with their results. PNG is what forums accept."""
    from pbem.core.errors import UsageError
    from pbem.core.render import frames, svg
    from pbem.core.render.scene import Grid

    kind = Path(output).suffix.lower()
    if kind not in (".svg", ".png"):
        raise UsageError(f"-o {output}: the picture's name must end in .svg or .png")
    # options that would change nothing are said so, not ignored (a probe)
    if zoom is not None and kind == ".svg":
        raise UsageError(f"--zoom {zoom:g} scales a PNG; an SVG is drawn at any size by what shows it: "
                         f"leave --zoom out, or write {Path(output).with_suffix('.png').name}")
    if radius is not None and around is None:
        raise UsageError(f"--radius {radius} is the size of the part drawn with --around CELL; give --around too")
    folder = frames.open_game(Path(game_dir))
    frame = frames.frame(folder, seq)
    scene = frames.scene(folder, frame)
    view = None
    if around is not None:
        grid = Grid(scene["grid"])
        if grid.kind == "area":
            raise UsageError(f"--around {around}: the {folder.game.ruleset.id} map is made of areas, and is always "
                             f"drawn whole")
        noun, nouns = ("hex", "hexes") if grid.kind == "hex" else ("cell", "cells")
        if around in grid.cells:
            radius = 6 if radius is None else radius
            view = grid.around(around, radius)
        elif any(c.startswith(around + ".") for c in grid.cells):
            # a square grid's cells may be places inside squares ("0905.11", kkoh): a square's
            # id names all its places, and the radius counts squares
            noun, nouns = "square", "squares"
            radius = 2 if radius is None else radius   # 6 squares would be most of a kkoh table
            view = grid.around_block(around, radius)
        else:
            example = next(iter(grid.cells))
            named = (f"its squares are named like {example.partition('.')[0]}, the cells in them like {example}"
                     if "." in example else f"its {nouns} are named like {example}")
            raise UsageError(f"--around {around}: there is no {noun} {around} on the {folder.game.ruleset.id} map "
                             f"({named})")
        caption = scene.get("caption") or []
        scene["caption"] = (caption if isinstance(caption, list) else [caption]) + [
            f"Part of the map: {radius} {noun if radius == 1 else nouns} around {around}."]
    for warning in frames.shades(folder, scene, ("zoc",) if zoc else ()):
        echo(f"warning: {warning}", err=True)
    text = svg.to_svg(scene, ("zoc",) if zoc else (), view)
    if kind == ".png":
        from pbem.core.render.png import to_png

        data = to_png(text, 1.0 if zoom is None else zoom)
    else:
        data = text.encode("utf-8")
    frames.write(Path(output), data)
    echo(f"{output}: state {frame.seq} of game {folder.game.game_id} ({len(data)} bytes)")
