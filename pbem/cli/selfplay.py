from __future__ import annotations

import sys

import click

from pbem.cli.common import echo, handles_errors

BOT_KINDS = "heuristic, generic, passive, random"


@click.command("selfplay")
@click.option("--ruleset", "ruleset_id", required=True, help="Which game the bots play.")
@click.option("--games", type=click.IntRange(1, 100000), required=True, help="How many games.")
@click.option("--bots", default=None, metavar="A,B",
              help=f"One bot per side, in the ruleset's side order ({BOT_KINDS}; default heuristic for every side).")
@click.option("--seed", default="selfplay", show_default=True, help="Game n rolls its dice from the seed SEED/n.")
@handles_errors
def command(ruleset_id: str, games: int, bots: str | None, seed: str) -> None:
    """Bots play sandbox games against each other, through the real engine: win, draw
    and loss counts, mean VP and mean units eliminated per side, for balancing a ruleset. A
    designer's tool: the dice come from a plain seed, not from the players."""
    from pbem import rulesets
    from pbem.core import bots as players

    ruleset = rulesets.get(ruleset_id)
    kinds = bots.split(",") if bots else ["heuristic"] * len(ruleset.sides)
    terminal = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        click.echo(f"\r{ruleset.id}: game {done} of {total}", err=True, nl=done == total)

    table = players.selfplay(ruleset_id, games, [k.strip() for k in kinds], seed, progress if terminal else None)
    for line in table.lines():
        echo(line)
