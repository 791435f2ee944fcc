"""pbem makes no reference cycles (tests/support/cycles.py), so the command line can let the
garbage collector wait for a million new objects (pbem/entry.py). The conformance games check
the engine, the bots and the audit of every ruleset (tests/test_conformance.py); this checks
the commands around them, run in one process as the command line runs them."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

DRIVER = r"""
import contextlib, io, json, sys
from tests.support.cycles import cycles_of_pbem
from pbem.entry import main

results = []
for argv in json.loads(sys.argv[1]):
    sys.argv = ["pbem"] + argv
    with cycles_of_pbem() as found:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code or 0
    results.append({"argv": argv, "exit": code, "error": err.getvalue()[:300], "cycles": found})
print(json.dumps(results))
"""


def run_in_one_process(commands: list[list[str]], script: str = DRIVER) -> list[dict]:
    done = subprocess.run([sys.executable, "-c", script, json.dumps(commands)], capture_output=True,
                          text=True, cwd=ROOT, check=True)
    return json.loads(done.stdout)


def test_no_command_leaves_a_reference_cycle_of_pbems(tmp_path):
    commands = []
    for example in sorted(p for p in EXAMPLES.iterdir() if (p / "game.yaml").exists()):
        commands += [["audit", str(example)], ["status", str(example)], ["show", str(example)],
                     ["render", str(example), "--out", str(tmp_path / f"{example.name}.svg")]]
        commands += [["orders", str(example), "--side", side] for side in ("axis", "soviet") if "dos" in example.name]
        if example.name.startswith(("chir", "stalingrad")):    # the other replays draw the same pictures
            commands.append(["replay", str(example), "--out", str(tmp_path / f"{example.name}.html")])
    commands.append(["selfplay", "--ruleset", "stalingrad", "--games", "1"])
    results = run_in_one_process(commands)
    assert len(results) == len(commands) == 4 * 4 + 2 + 2 + 1
    assert [r for r in results if r["exit"] != 0] == []   # each command did its work
    assert [(r["argv"], r["cycles"]) for r in results if r["cycles"]] == []


def test_the_test_finds_a_cycle():
    """A cycle of pbem's is found when there is one: a board of dos that keeps an object
    keeping the board, as supply's lines of communication once did."""
    before = ("from pbem.rulesets.dos import board\n"
              "class Keeper:\n    pass\n"
              "def cycle():\n"
              "    b = board.Board.__new__(board.Board)\n    b.derived = {'lines': Keeper()}\n"
              "    b.derived['lines'].board = b\n")
    driver = DRIVER.replace("                main()\n", "                main()\n                cycle()\n")
    assert driver != DRIVER
    results = run_in_one_process([["--version"]], before + driver)
    assert results[0]["cycles"] == ["Board"]
