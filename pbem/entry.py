"""The `pbem` console script. `pbem --help` and `pbem --version` are answered from stored
text without importing click (about as long again as a bare interpreter takes to start);
everything else goes to the click command line in `pbem.cli`. `tests/test_cli.py` checks
that the stored text is exactly what click prints (`python -m pbem.cli.helptext` rewrites it)."""

from __future__ import annotations

import sys

HELP_FILE = "help.txt"


def main() -> None:
    args = sys.argv[1:]
    if args in (["--help"], ["-h"], ["--version"]):
        import os

        from pbem import __version__

        if args == ["--version"]:
            sys.stdout.write(f"pbem, version {__version__}\n")
        else:
            with open(os.path.join(os.path.dirname(__file__), "cli", HELP_FILE), encoding="utf-8") as handle:
                sys.stdout.write(handle.read())
        return
    from pbem.cli import main as click_main

    click_main()
