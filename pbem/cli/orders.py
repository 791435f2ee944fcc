from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import PASSPHRASE_HELP, echo, game_dir, handles_errors, load_key


@click.command("orders", epilog=PASSPHRASE_HELP)
@game_dir
@click.option("--side", required=True, help="The side whose orders to prepare.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Your private key (secure games): when your packet is next and you have nothing to decide, "
                   "the template says where your reveal brings the game, and lists your own orders if it is "
                   "your turn then.")
@click.option("--only", default=None, metavar="UNIT",
              help="List only the legal orders that name this unit, hex or order type (a phase may have thousands).")
@handles_errors
def command(game_dir: str, side: str, key_file: str | None, only: str | None) -> None:
    """Print a ready-to-edit YAML template of what SIDE must decide now, with the legal
    options as comments. Edit it, then `pbem submit GAME_DIR FILE --key KEY`."""
    from pbem.core import game, keys, templates
    from pbem.core.errors import UsageError

    folder = game.open_folder(Path(game_dir))

    def refuse_other_side(public) -> None:   # a template for a side the key does not play is refused
        played = game.side_of_public(folder.game, public)
        if played != side:
            raise UsageError(f"--key {key_file} plays {played}, not {side}: give --side {played}, "
                             f"or the {side} player's key")

    if key_file and folder.game.secure and side in folder.game.sides:
        public = keys.public_key_of_private_file(key_file)   # no passphrase asked: the public half is in the clear
        if public is not None:
            refuse_other_side(public)

    def key():   # read (and its passphrase asked) only if the template needs it; another side's key is refused
        found = load_key(key_file)
        refuse_other_side(found.public)
        return found

    echo(templates.orders_template(folder.game, folder.state, side, key if key_file else None, only), nl=False)
