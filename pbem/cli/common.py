"""What several commands share: error handling, key loading, JSON output."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable

import click

PASSPHRASE_HELP = ("Passphrase-protected keys: the passphrase is read from the environment variable "
                   "PBEM_PASSPHRASE if set, else asked for at a prompt.")


def handles_errors(func: Callable) -> Callable:
    """Turn a PbemError into one clear sentence on stderr and its exit code (DESIGN §5)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from pbem.core.errors import PbemError

        try:
            return func(*args, **kwargs)
        except PbemError as exc:
            echo(f"pbem: {exc.message}", err=True)
            sys.exit(exc.exit_code)

    return wrapper


def load_key(path: str) -> Any:
    from pbem.core import keys

    def prompt(message: str) -> str:
        return click.prompt(message, hide_input=True, err=True)

    return keys.load_private_key(path, prompt=prompt if sys.stdin.isatty() else None)


def echo(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print text with every control, bidirectional and invisible character that could
    come from a packet escaped (DESIGN §5): no packet can send the terminal a sequence."""
    from pbem.core.text import for_output

    click.echo(for_output(text), err=err, nl=nl)


def echo_json(data: Any) -> None:
    # ASCII only: every character beyond it, control and bidi ones included, as \uXXXX.
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True))


game_dir = click.argument("game_dir", type=click.Path(file_okay=False, path_type=str))
