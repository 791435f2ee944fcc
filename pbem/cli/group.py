"""The click group of `pbem`: one module per command (STYLE 8), imported when that
command runs."""

from __future__ import annotations

import importlib

import click

from pbem import __version__, version_line

# every command: name -> its module of pbem.cli (`pbem --help` lists them by name)
COMMANDS = {"keygen": "keygen", "new": "new", "join": "join", "status": "status", "orders": "orders",
            "submit": "submit", "adjudicate": "adjudicate", "audit": "audit", "show": "show", "render": "render",
            "replay": "replay", "canonical": "canonical", "demo": "demo", "selfplay": "selfplay"}


class LazyGroup(click.Group):
    """A group whose commands are imported when they are used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        return importlib.import_module(f"pbem.cli.{COMMANDS[name]}").command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100, "terminal_width": 100})
@click.version_option(__version__, prog_name="pbem", message=version_line())
def cli() -> None:
    """Play board wargames by email: signed turn files, fair dice committed by hash,
    a rules engine that adjudicates every order, and a full audit of any game.

    A new game: `pbem new --key` writes a signed proposal; your opponent's `pbem join`
    adds their dice chain; your `pbem join` of their file completes the game.

    A round by email: `pbem adjudicate` the packet you received (with --key to preview
    what your reveal unlocks), `pbem orders` for a template, `pbem submit` your orders,
    email the packet file it writes.

    Keys are OpenSSH Ed25519 keys (`pbem keygen`, or ~/.ssh/id_ed25519). For a
    passphrase-protected key, set PBEM_PASSPHRASE or answer the prompt.

    Exit codes: 0 success, 1 illegal orders or a rules error, 2 usage, 3 verification
    failure (signature, chain, hash, sequence), 4 file or I/O error."""



def main() -> None:
    cli(prog_name="pbem")
