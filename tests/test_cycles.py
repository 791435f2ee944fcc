"""pbem makes no reference cycles (tests/support/cycles.py), so the command line can let the
garbage collector wait for a million new objects (pbem/entry.py). The conformance games check
the engine, the bots and the audit of every ruleset (tests/test_conformance.py); this checks
the commands around them, run in one process as the command line runs them."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.core import game

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

DRIVER = r"""
import contextlib, io, json, sys
from tests.support.cycles import cycles_of_pbem
from pbem.entry import main

def run(argv, every):
    sys.argv = ["pbem"] + argv
    with cycles_of_pbem(every) as found:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code or 0
            after()
    return {"argv": argv, "exit": code, "error": err.getvalue()[:300], "cycles": found}

def after():
    pass

first, again = json.loads(sys.argv[1])
results = [run(argv, False) for argv in first] + [run(argv, True) for argv in again]
print(json.dumps(results))
"""


def run_in_one_process(first: list[list[str]], again: list[list[str]], script: str = DRIVER) -> list[dict]:
    """Each command of `first` run once, reporting pbem's objects in cycles; then each of
    `again`, run when every module is imported, reporting every object in a cycle."""
    done = subprocess.run([sys.executable, "-c", script, json.dumps([first, again])], capture_output=True,
                          text=True, cwd=ROOT, check=True)
    return json.loads(done.stdout)


def commands(tmp_path: Path, name: str) -> list[list[str]]:
    """The commands around the conformance games: every example's audit, status, show and
    render, a replay, dos's orders for both sides, a command-line adjudicate (the last packet
    of the dos example, into a copy without its last state) and a dry run of a submit."""
    out = []
    for example in sorted(p for p in EXAMPLES.iterdir() if (p / "game.yaml").exists()):
        out += [["audit", str(example)], ["status", str(example)], ["show", str(example)],
                ["render", str(example), "--out", str(tmp_path / f"{name}-{example.name}.svg")]]
    out.append(["replay", str(EXAMPLES / "stalingrad-demo"), "--out", str(tmp_path / f"{name}.html")])
    out += [["orders", str(EXAMPLES / "dos-demo"), "--side", side] for side in ("axis", "soviet")]
    copy = tmp_path / f"{name}-dos"
    shutil.copytree(EXAMPLES / "dos-demo", copy)
    last = max(copy.glob("states/*.yaml"))
    last.unlink()
    out.append(["adjudicate", str(copy), str(next(copy.glob(f"packets/{last.stem}-*.yaml")))])
    demo = tmp_path / "demo"
    sender = game.open_folder(demo / "player-1").state["awaiting"]["packet_from"]   # the demo's dice are its own
    out.append(["submit", str(demo / "player-1"), str(tmp_path / "none.yaml"), "--key",
                str(demo / "keys" / sender), "--dry-run"])
    return out


@pytest.mark.long(8)
def test_no_command_leaves_a_reference_cycle(tmp_path):
    # the folder the dry run of a submit reads: made here, in the test's own process (what is
    # checked for cycles is the commands below, each run in the driver's process)
    from click.testing import CliRunner

    from pbem.cli import cli

    made = CliRunner().invoke(cli, ["demo", "--ruleset", "stalingrad", "--turns", "1", str(tmp_path / "demo")],
                              catch_exceptions=False)
    assert made.exit_code == 0, made.output
    (tmp_path / "none.yaml").write_text("orders: []\n")
    first, again = commands(tmp_path, "first"), commands(tmp_path, "again")
    results = run_in_one_process(first, again)
    assert len(results) == len(first) + len(again) == 2 * (4 * 4 + 1 + 2 + 1 + 1)
    assert [r for r in results if r["exit"] != 0] == []   # each command did its work
    assert [(r["argv"], r["cycles"]) for r in results if r["cycles"]] == []


def test_the_test_finds_a_cycle():
    """A cycle is found when there is one: of pbem's objects the first time a command runs (a
    board of dos that keeps an object keeping the board, as supply's lines of communication
    once did); of any objects when it runs again (a recursive closure, a dict that holds
    itself)."""
    plant = """
from pbem.rulesets.dos import board

class Keeper:
    pass

def after():
    b = board.Board.__new__(board.Board)
    b.derived = {"lines": Keeper()}
    b.derived["lines"].board = b
    def walk(n):
        return n and walk(n - 1)
    walk(2)
    d = {}
    d["self"] = d
"""
    script = DRIVER.replace("def after():\n    pass\n", plant)
    assert script != DRIVER
    first, again = run_in_one_process([["--version"]], [["--version"]], script)
    assert first["cycles"] == ["Board"]
    assert {"Board", "Keeper", "dict", "cell", "after.<locals>.walk"} <= set(again["cycles"])
