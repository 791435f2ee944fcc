from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import PASSPHRASE_HELP, echo, game_dir, handles_errors, load_key, warn_missing_seals


@click.command("orders", epilog=PASSPHRASE_HELP)
@game_dir
@click.option("--side", default=None,
              help="The side whose orders to prepare; in a secure game given --key, the side that key plays "
                   "unless named.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Your private key (secure games): it tells your side, and when your packet is next and you have "
                   "nothing to decide, the template says where your reveal brings the game, and lists your own "
                   "orders if it is your turn then.")
@click.option("--only", default=None, metavar="UNIT",
              help="List only the legal orders that name this unit, hex or order type (a phase may have thousands).")
@handles_errors
def command(game_dir: str, side: str | None, key_file: str | None, only: str | None) -> None:
    """Print a ready-to-edit YAML template of what SIDE must decide now, with the legal
    options as comments. SIDE is --side, or in a secure game the side --key plays. Edit it,
    then `pbem submit GAME_DIR FILE --key KEY`."""
    from pbem.core import describe, game, keys, sealing, templates
    from pbem.core.errors import UsageError

    folder = game.open_folder(Path(game_dir))
    secure = folder.game.secure
    if side is None and not (key_file and secure):
        sides = " or ".join(folder.game.sides)
        raise UsageError(f"--side SIDE ({sides}) is needed without --key KEYFILE, which tells the side it plays"
                         if secure else f"--side SIDE ({sides}) is needed: a sandbox game has no keys to tell the "
                                        f"side by")
    loaded = []   # the private key, once read (and its passphrase asked)

    def played(public) -> str:   # the side a key plays; a key of no side is refused
        return game.side_of_public(folder.game, public, key_file)

    def refuse_other_side(public) -> None:   # a template for a side the key does not play is refused
        if (their := played(public)) != side:
            raise UsageError(f"--key {key_file} plays {their}, not {side}: give --side {their}, "
                             f"or the {side} player's key")

    if key_file and secure and (side is None or side in folder.game.sides):
        public = keys.public_key_of_private_file(key_file)   # no passphrase asked: the public half is in the clear
        if public is None and side is None:   # not a key file of that kind: reading it says what is wrong
            loaded.append(load_key(key_file))
            public = loaded[0].public
        if public is not None:
            side = side or played(public)
            refuse_other_side(public)

    def key():   # read (and its passphrase asked) only if the template needs it; another side's key is refused
        if not loaded:
            loaded.append(load_key(key_file))
        refuse_other_side(loaded[0].public)
        return loaded[0]

    # with the key, the player's own folder: what the side sealed is listed from its private/
    own = sealing.own_items(folder, side) if key_file and secure and side in folder.game.sides else None
    echo(templates.orders_template(folder.game, folder.state, side, key if key_file else None, only, own,
                                   describe.last_voids(describe.latest_events(folder), side)), nl=False)
    if key_file and secure:   # the player's own folder: its sealed orders are kept there
        warn_missing_seals(folder, side)
