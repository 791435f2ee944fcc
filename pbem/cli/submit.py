from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import PASSPHRASE_HELP, dice_script, echo, game_dir, handles_errors, load_key


@click.command("submit", epilog=PASSPHRASE_HELP)
@game_dir
@click.argument("orders_file", type=click.Path(dir_okay=False))
@click.option("--key", "key_file", type=click.Path(dir_okay=False), help="Your private key (secure games).")
@click.option("--side", default=None, help="Sandbox games: the side sending the orders.")
@click.option("--out", default=None, type=click.Path(dir_okay=False), help="Also write the packet here (the file to email).")
@click.option("--seal/--no-seal", default=None,
              help="--seal: seal the orders (where the rules ask for sealed orders); your next submit opens them. "
                   "--no-seal: send them open there, for your opponent to read (orders where the rules ask for "
                   "sealed ones are refused unless one of the two is given).")
@click.option("--dice", default=None, metavar="3,5,1",
              help="Sandbox games with scripted dice: more dice, added to the end of the script before the "
                   "packet's orders take effect.")
@click.option("--dry-run", is_flag=True, help="Try the orders: show what the packet would do, and warn of its queued "
              "orders that imagined rolls of the dice would make void (up to four rolls); nothing is written or sent.")
@click.option("--format", "fmt", type=click.Choice(["text", "md", "bbcode"]), default="text", show_default=True,
              help="Report format to print (bbcode: to post on a forum; aar/NNNN.md is always Markdown).")
@handles_errors
def command(game_dir: str, orders_file: str, key_file: str | None, side: str | None, out: str | None,
            seal: bool | None, dice: str | None, dry_run: bool, fmt: str) -> None:
    """Check ORDERS_FILE against the rules, reveal your next dice value, sign, apply the
    packet to your own folder and write the packet file to email."""
    from pbem.core import game, report, submit
    from pbem.core.errors import UsageError

    folder = game.open_folder(Path(game_dir))
    key = load_key(key_file) if key_file else None
    if folder.game.secure and key is None:
        raise UsageError("a secure game needs --key KEYFILE to sign the packet")
    applied = submit.submit(folder, Path(orders_file), key=key, side=side, out=Path(out) if out else None, seal=seal,
                            dice=dice_script(dice) if dice is not None else None, dry_run=dry_run)
    if applied.events:
        echo(report.render(folder.game, applied.state, applied.events, fmt))
    for warning in applied.warnings:
        echo(f"warning: {warning}", err=True)
    if dry_run:
        echo(f"dry run: {orders_file} is a legal packet {applied.state['seq']}; nothing was written or sent "
             f"(the same command without --dry-run sends it)")
        return
    # a sandbox game has no opponent to send to: both sides play in the one folder (a players' probe)
    echo(f"packet written: {applied.packet_path}" + (f" and {out}" if out else "")
         + (" - send it to your opponent" if folder.game.secure else
            " - applied in this folder, where both sides of a sandbox game play"))
