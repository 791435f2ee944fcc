from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, echo_json, game_dir, handles_errors


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
@handles_errors
def command(game_dir: str, fmt: str, as_json: bool, seq: int | None, unit: str | None, hex_: str | None,
            area: str | None, square: str | None, diff: tuple[int, int] | None) -> None:
    """The board and the units in words: each unit's arm, strength/full, morale, markers and
    position; each area's neighbours and control. --unit, --hex, --area, --square look at one thing;
    --diff A B says what changed between two states."""
    from pbem.core import describe, game
    from pbem.core.errors import UsageError

    asked = [(what, ident) for what, ident in (("unit", unit), ("hex", hex_), ("area", area), ("square", square))
             if ident is not None]
    if len(asked) + bool(diff) > 1:
        raise UsageError("show one thing at a time: --unit, --hex, --area, --square or --diff")
    if diff and seq is not None:
        raise UsageError("--diff names its two states; leave out --state")
    folder = game.open_folder(Path(game_dir))
    as_json = as_json or fmt == "json"
    if diff:
        before, after = (describe.state_at(folder, n) for n in diff)
        if as_json:
            echo_json({"from": before["seq"], "to": after["seq"], "changes": describe.changes(folder.game, before, after)})
        else:
            echo("\n".join(describe.changes_text(folder.game, before, after)))
        return
    state = describe.state_at(folder, seq)
    if asked:
        (what, ident), = asked
        lines = describe.look(folder.game, state["rules"], what, ident)
        if as_json:
            echo_json({"seq": state["seq"], what: ident, "text": lines})
        else:
            echo("\n".join(lines))
    elif as_json:
        board = folder.game.view(state["rules"])
        echo_json({"seq": state["seq"], "summary": folder.game.summary(state["rules"]), "rules": state["rules"],
                   **({"board": board} if board is not None else {})})
    else:
        echo(folder.game.render(state["rules"]), nl=False)
