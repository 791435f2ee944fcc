"""The `pbem` console script. Two kinds of command line are answered without importing
click, which costs about as much again as a bare interpreter takes to start:

- `pbem --help` and `pbem --version`, from stored text; `tests/test_cli.py` checks that
  it is exactly what click prints (`python -m pbem.cli.helptext` rewrites it);
- the plain forms of the commands a game runs every round, `pbem adjudicate GAME_DIR
  PACKET_FILE` and `pbem audit GAME_DIR`, and those onlookers run between rounds, `pbem
  status GAME_DIR` and `pbem show GAME_DIR` (positional arguments only), through the same
  functions their click commands call (pbem/cli/plain.py). An argument that click would
  refuse (a GAME_DIR that is a file, an unreadable one) or any option sends the command
  line to click, so it is click that explains; `tests/test_cli.py` checks that both ways
  print the same bytes and exit with the same code.

Everything else goes to the click command line in `pbem.cli`."""

from __future__ import annotations

import io
import os
import sys

HELP_FILE = "help.txt"
COLLECT_AFTER = 1_000_000   # the garbage collector's first threshold in a one-command process (main)

# command (its function in pbem.cli.plain has its name) -> for each argument, whether it may
# be a file and whether it may be a directory, as its click.Path says
PLAIN = {"adjudicate": ((False, True), (True, False)),
         "audit": ((False, True),),
         "status": ((False, True),),
         "show": ((False, True),)}


def main() -> None:
    _pipe_may_close()
    args = sys.argv[1:]
    if args in (["--help"], ["-h"], ["--version"]):
        from pbem import version_line

        if args == ["--version"]:
            sys.stdout.write(version_line() + "\n")
        else:
            with open(os.path.join(os.path.dirname(__file__), "cli", HELP_FILE), encoding="utf-8") as handle:
                sys.stdout.write(handle.read())
        return
    import gc

    import pbem.core.cache

    pbem.core.cache.FREEZE = True   # this process runs one command (core/cache.py, `settled`)
    # The collector waits until a million more containers are alive than were freed, not 700:
    # pbem makes no reference cycles (tests/test_cycles.py), so its objects are freed as they
    # are let go, the collector in practice never runs, and a busy dos adjudicate spends a tenth
    # less time. A library's cycles, should one make them, are still collected in the end.
    gc.set_threshold(COLLECT_AFTER, 10, 10)
    if _plain(args):
        _run_plain(args)
        return
    from pbem.cli import main as click_main

    click_main()


class _Output(io.RawIOBase):
    """Standard output's file descriptor, written as usual until the reader closes it (`pbem
    audit GAME | head -1`): the rest of the output is then dropped, and the command goes on
    to exit with its own code (an audit's verdict, say), not with an error of its own (a
    review: such an audit exited 1, which DESIGN §5 keeps for illegal orders and rules
    errors). A raw stream, so that the text and buffer layers over it stay Python's own."""

    def __init__(self, fd: int):
        super().__init__()
        self.fd = fd
        self.closed_by_reader = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def write(self, data) -> int:
        if not self.closed_by_reader:
            try:
                return os.write(self.fd, data)
            except BrokenPipeError:
                self.closed_by_reader = True
        return len(data)


def _pipe_may_close() -> None:
    """Standard output written through `_Output` (a closed pipe drops the rest of the
    output, the exit code stays the command's), with the encoding and buffering it had."""
    out = sys.stdout
    try:
        fd = out.fileno()
    except (AttributeError, ValueError, OSError):
        return   # no file descriptor behind it: nothing to close
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Output(fd)), encoding=out.encoding, errors=out.errors,
                                  line_buffering=out.line_buffering)


def _plain(args: list[str]) -> bool:
    """Whether args are the plain form of a command of PLAIN that click would accept as
    they are: the right number of arguments, none an option, each path one that
    click.Path lets through (missing, or of the kind allowed and readable)."""
    import stat

    if not args or args[0] not in PLAIN or os.name == "nt":   # click expands wildcards on Windows
        return False
    kinds = PLAIN[args[0]]
    rest = args[1:]
    if len(rest) != len(kinds) or any(arg.startswith("-") for arg in rest):
        return False
    for arg, (file_okay, dir_okay) in zip(rest, kinds):
        try:
            mode = os.stat(arg).st_mode
        except OSError:
            continue   # click.Path(exists=False) lets a missing path through
        if (stat.S_ISREG(mode) and not file_okay) or (stat.S_ISDIR(mode) and not dir_okay) \
                or not os.access(arg, os.R_OK):
            return False
    return True


def _run_plain(args: list[str]) -> None:
    """Run a plain command line as click's standalone mode would: an interrupt prints
    "Aborted!" and exits 1 (a closed pipe on stdout is `_Output`'s)."""
    from pbem.cli import plain

    try:
        getattr(plain, args[0])(*args[1:])
    except KeyboardInterrupt:
        sys.stderr.write("\nAborted!\n")
        sys.exit(1)
