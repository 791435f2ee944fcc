from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, handles_errors


@click.command("keygen")
@click.argument("name")
@click.option("--dir", "directory", default=".", show_default=True, type=click.Path(file_okay=False),
              help="Folder for NAME (private key, mode 600) and NAME.pub.")
@click.option("--comment", default=None, help="Comment in the public key line (default: NAME).")
@handles_errors
def command(name: str, directory: str, comment: str | None) -> None:
    """Write a new Ed25519 key pair in OpenSSH format: DIR/NAME and DIR/NAME.pub.

    An existing ~/.ssh/id_ed25519 works as well; share the .pub line with your opponent."""
    from pbem.core import keys

    Path(directory).mkdir(parents=True, exist_ok=True)
    private, public = keys.write_keypair(name, directory, comment=comment if comment is not None else name)
    key = keys.load_public_key_file(public)
    echo(f"wrote {private} (private, mode 600) and {public}")
    echo(f"fingerprint {key.fingerprint()}")
