"""examples/dos-demo: a signed dos game of at least two full Game-Turns from the historical
scenario, auditing clean (tests/test_examples.py audits every example)."""

from pathlib import Path

from pbem.core.game import open_folder

DEMO = Path(__file__).resolve().parents[1] / "examples" / "dos-demo"


def test_the_dos_demo_has_two_game_turns():
    folder = open_folder(DEMO)
    rules = folder.state["rules"]
    assert folder.game.genesis["ruleset"] == "dos"
    assert rules["turn"] >= 3 and rules["phase"] != "selection"
