from __future__ import annotations

import click

from pbem.cli import plain
from pbem.cli.common import PASSPHRASE_HELP, game_dir


@click.command("adjudicate", epilog=PASSPHRASE_HELP)
@game_dir
@click.argument("packet_files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Your private key: preview what your next reveal unlocks (nothing of it is written).")
@click.option("--format", "fmt", type=click.Choice(["text", "md", "bbcode"]), default="text", show_default=True,
              help="Report format to print (bbcode: to post on a forum; aar/NNNN.md is always Markdown).")
def command(game_dir: str, packet_files: tuple[str, ...], key_file: str | None, fmt: str) -> None:
    """Verify a packet, apply it, write states/NNNN.yaml and aar/NNNN.md, print the report.

    Given several packet files (`packets/*.yaml` of another folder, or a thread's
    attachments under any names), apply them in the order of their seq, skipping those
    applied already."""
    plain.adjudicate(game_dir, *packet_files, key_file=key_file, fmt=fmt)
