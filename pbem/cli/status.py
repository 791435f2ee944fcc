from __future__ import annotations

import click

from pbem.cli import plain
from pbem.cli.common import PASSPHRASE_HELP, game_dir


@click.command("status", epilog=PASSPHRASE_HELP,
               short_help="Where the game stands, in words: who is awaited, for what, since when; VP.")
@game_dir
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Your key (private, or its .pub): status then says which side is you; a private key "
                   "also says where your next reveal brings the game, when it brings it to a step of yours.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(game_dir: str, key_file: str | None, as_json: bool) -> None:
    """Where the game stands, in words: turn and phase, who is awaited for what (orders, a
    decision and its key, dice) and since which packet of the opponent, sealed items and
    queued orders pending, VP as the rulebook counts them."""
    plain.status(game_dir, key_file=key_file, as_json=as_json)

