from __future__ import annotations

from pathlib import Path

import click

from pbem.cli import plain
from pbem.cli.common import PASSPHRASE_HELP, game_dir, load_key


@click.command("status", epilog=PASSPHRASE_HELP,
               short_help="Where the game stands, in words: who is awaited, for what, since when; VP.")
@game_dir
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Your key (private, or its .pub): status then says which side is you.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(game_dir: str, key_file: str | None, as_json: bool) -> None:
    """Where the game stands, in words: turn and phase, who is awaited for what (orders, a
    decision and its key, dice) and since which packet of the opponent, sealed items and
    queued orders pending, VP as the rulebook counts them."""
    plain.status(game_dir, key_file, as_json, load_key=_key)


def _key(path: str):
    """A public key file is enough to say which side is you; a private one works too."""
    from pbem.core import keys
    from pbem.core.errors import FileError

    try:
        head = Path(path).read_bytes()[:64]
    except OSError as exc:
        raise FileError(f"{path}: cannot read the key file ({exc.strerror})") from None
    if head.startswith(b"ssh-"):
        return _Public(keys.load_public_key_file(path))
    return load_key(path)


class _Public:
    """A public key where the core asks for a key's `public` half."""

    def __init__(self, public):
        self.public = public
