"""`python -m pbem.cli.helptext` writes `pbem --help` as click prints it to pbem/cli/help.txt,
the text `pbem.entry` serves without importing click."""

from __future__ import annotations

from pathlib import Path


def current() -> str:
    from click.testing import CliRunner

    from pbem.cli import cli

    return CliRunner().invoke(cli, ["--help"], prog_name="pbem").output


if __name__ == "__main__":
    (Path(__file__).parent / "help.txt").write_text(current(), encoding="utf-8")
