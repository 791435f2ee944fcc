from __future__ import annotations

import click

from pbem.cli import plain
from pbem.cli.common import game_dir


@click.command("show", short_help="The board and the units in words; one unit, hex, area or square; what changed.")
@game_dir
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--state", "seq", type=int, default=None, help="Show state N instead of the latest.")
@click.option("--unit", "unit", metavar="ID", help="Everything about one unit: its counter and its status.")
@click.option("--hex", "hex_", metavar="ID", help="Everything about one hex: terrain, river sides, roads, towns, "
              "zones of control, who is there.")
@click.option("--area", "area", metavar="ID", help="Everything about one area: neighbours, control, who is there.")
@click.option("--square", "square", metavar="ID", help="Everything about one square of a table of squares: terrain, "
              "edges, roads, who is there and where.")
@click.option("--diff", "diff", nargs=2, type=int, metavar="A B", help="What changed from state A to state B: moves, "
              "losses, eliminations, control, markers, turn and phase.")
@click.option("--last", "last", is_flag=True, help="What the last packet changed: --diff from the state before the "
              "latest to the latest.")
def command(game_dir: str, fmt: str, as_json: bool, seq: int | None, unit: str | None, hex_: str | None,
            area: str | None, square: str | None, diff: tuple[int, int] | None, last: bool) -> None:
    """The board and the units in words: each unit's arm, strength/full, morale, markers and
    position; each area's neighbours and control. --unit, --hex, --area, --square look at one thing;
    --diff A B says what changed between two states, --last what the last packet changed."""
    plain.show(game_dir, fmt=fmt, as_json=as_json, seq=seq, unit=unit, hex_=hex_, area=area, square=square, diff=diff,
               last=last)
