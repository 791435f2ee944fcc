from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import PASSPHRASE_HELP, echo, game_dir, handles_errors, load_key


@click.command("adjudicate", epilog=PASSPHRASE_HELP)
@game_dir
@click.argument("packet_file", type=click.Path(dir_okay=False))
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Your private key: preview what your next reveal unlocks (nothing of it is written).")
@click.option("--format", "fmt", type=click.Choice(["text", "md", "bbcode"]), default="text", show_default=True,
              help="Report format to print (aar/NNNN.md is always Markdown).")
@handles_errors
def command(game_dir: str, packet_file: str, key_file: str | None, fmt: str) -> None:
    """Verify PACKET_FILE, apply it, write states/NNNN.yaml and aar/NNNN.md, print the report."""
    from pbem.core import game, report
    from pbem.core.text import shown

    folder = game.open_folder(Path(game_dir))
    key = load_key(key_file) if key_file else None
    packet, data = game.read_packet(Path(packet_file), packet_file)
    applied = game.adjudicate(folder, packet, data, packet_file, preview_key=key)
    echo(report.render(folder.game, applied.state, applied.events, fmt), nl=False)
    if applied.preview is not None:
        echo("\nPREVIEW (not written): what your next packet's reveal unlocks, whatever your packet says (§3.6):")
        for event in applied.preview[1:]:
            echo(f"  - {shown(event['text'])}")
