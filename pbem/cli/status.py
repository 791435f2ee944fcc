from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import PASSPHRASE_HELP, echo, echo_json, game_dir, handles_errors, load_key


@click.command("status", epilog=PASSPHRASE_HELP,
               short_help="Where the game stands, in words: who is awaited, for what, since when; VP.")
@game_dir
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Your key (private, or its .pub): status then says which side is you.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@handles_errors
def command(game_dir: str, key_file: str | None, as_json: bool) -> None:
    """Where the game stands, in words: turn and phase, who is awaited for what (orders, a
    decision and its key, dice) and since which packet of the opponent, sealed items and
    queued orders pending, VP as the rulebook counts them."""
    from pbem.core import describe, game

    folder = game.open_folder(Path(game_dir))
    you = game.side_of_key(folder.game, _key(key_file)) if key_file else None
    info = describe.status(folder, you)
    if as_json:
        echo_json(info)
    else:
        echo("\n".join(info["text"]))


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
