"""What several commands share: error handling, key loading, output. Nothing here imports click
at import time: `pbem.entry` runs the plain forms of `pbem adjudicate`, `pbem audit`, `pbem
status` and `pbem show` through these functions without click (pbem/cli/plain.py), and a
command run through click prints by the same `echo`, so both ways print the same bytes."""

from __future__ import annotations

import functools
import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

PASSPHRASE_HELP = ("Passphrase-protected keys: the passphrase is read from the environment variable "
                   "PBEM_PASSPHRASE if set, else asked for at a prompt.")


def handles_errors(func: Callable) -> Callable:
    """Turn a PbemError into one clear sentence on stderr and its exit code (DESIGN §5). A
    fault of the kind rules meet on data no play gives is first laid at an altered file of a
    folder the command opened, if a replay of the game finds one (pbem.core.game.altered_state);
    if none, it is pbem's own and shows as it is."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from pbem.core.errors import OPENED, PbemError

        OPENED.clear()
        try:
            return func(*args, **kwargs)
        except PbemError as exc:
            echo(f"pbem: {exc.message}", err=True)
            sys.exit(exc.exit_code)
        except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError, RecursionError):
            # what rules fail with on data no play gives (not an interrupted prompt: click.Abort)
            if not OPENED:
                raise
            from pbem.core.game import altered_state

            try:
                found = altered_state(list(OPENED))
            except Exception:   # the replay failed too: the command's own fault is the one to show
                found = None
            if found is None:
                raise
            echo(f"pbem: {found.message}", err=True)
            sys.exit(found.exit_code)

    return wrapper


def load_key(path: str) -> Any:
    from pbem.core import keys

    def prompt(message: str) -> str:
        import click

        return click.prompt(message, hide_input=True, err=True, prompt_suffix="")   # the message ends ": "

    return keys.load_private_key(path, prompt=prompt if sys.stdin.isatty() else None)


def echo(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print text with every control, bidirectional and invisible character that could
    come from a packet escaped (DESIGN §5): no packet can send the terminal a sequence."""
    from pbem.core.text import for_output

    _write(for_output(text) + ("\n" if nl else ""), sys.stderr if err else sys.stdout)


def warn_missing_seals(folder: Any, side: str) -> None:
    """Warn of private/ files holding `side`'s still-sealed orders that are not there, or not
    as sealed (the player's own folder, told by a private key)."""
    from pbem.core import sealing

    for line in sealing.unopenable(folder, side):
        echo(f"warning: {line}", err=True)


def echo_json(data: Any) -> None:
    # ASCII only: every character beyond it, control and bidi ones included, as \uXXXX.
    _write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True) + "\n", sys.stdout)


def _write(text: str, stream: Any) -> None:
    """Write and flush, as click.echo does; a stream set to ASCII (a C locale on an old
    system) gets the text as UTF-8 bytes, as click.echo would give it, rather than an
    encoding error."""
    if stream is None:   # no standard stream (pythonw)
        return
    try:
        stream.write(text)
    except UnicodeEncodeError:
        stream.flush()
        stream.buffer.write(text.encode("utf-8", "replace"))
    stream.flush()


def game_dir(func: Callable) -> Callable:
    """The GAME_DIR argument of a command (click imported when the command is built)."""
    import click

    class GameDir(click.Path):
        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            if os.path.isfile(value):
                command = ctx.info_name if ctx is not None else "pbem"
                self.fail(file_for_folder(value, command), param, ctx)
            return super().convert(value, param, ctx)

    return click.argument("game_dir", type=GameDir(file_okay=False, path_type=str))(func)


def file_for_folder(path: str, command: str) -> str:
    """Why a file given where a game folder belongs is refused, and what to type instead: a
    user who names the game's game.yaml, a state or a packet means the folder that holds it
    (a state's number goes to --state). The folder is named as the user wrote the path."""
    parent = os.path.dirname(path) or "."
    # a game folder holds states/ beside game.yaml: a game.yaml saved from an email beside the
    # packet does not make its directory one (a user's probe: the hint named `.`)
    folder = next((d for d in (parent, os.path.normpath(os.path.join(parent, os.pardir)))
                   if os.path.isfile(os.path.join(d, "game.yaml")) and os.path.isdir(os.path.join(d, "states"))), None)
    if folder is None:
        return f"{path} is a file; give the game folder (the one holding game.yaml and states/)"
    name = os.path.basename(path)
    if os.path.basename(os.path.abspath(parent)) == "states" and name.endswith(".yaml") and name[:-5].isdigit() \
            and command in ("show", "render"):
        return (f"{path} is a state file, not a game folder; to see state {int(name[:-5])} of that game: "
                f"pbem {command} {folder} --state {int(name[:-5])}")
    return f"{path} is a file, not a game folder; give the folder that holds it: pbem {command} {folder}"


def dice_script(dice: str) -> list[int]:
    """`--dice 3,5,1`: a sandbox game's scripted dice, in the order they are rolled."""
    from pbem.core.errors import UsageError

    try:
        script = [int(v) for v in dice.replace(" ", "").split(",") if v]
    except ValueError:
        raise UsageError(f"--dice {dice}: give dice as integers 1 to 6 separated by commas") from None
    if not script:
        raise UsageError(f"--dice {dice!r}: give at least one die, as integers 1 to 6 separated by commas")
    if any(not 1 <= v <= 6 for v in script):
        raise UsageError(f"--dice {dice}: every die must be 1 to 6")
    return script
