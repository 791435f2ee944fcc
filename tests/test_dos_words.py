"""dos in words (words.py): `pbem status` and `pbem show` of the example game, one hex and one
unit looked at closely, and what changed between two states."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli
from pbem.rulesets.dos import words
from tests.test_dos_support import SC, at

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dos-demo"


def pbem(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, [*args])
    assert result.exit_code == code, result.output
    return result.output


def test_status_and_show_of_the_example_game():
    text = pbem("status", str(EXAMPLE))
    assert "Game-Turn 3 of 25 (12-18 Jul), axis Initial Movement Phase." in text
    assert "VP as they stand (19.1): Axis 32, Soviet 176; Hitler Directive in force (16.0): E." in text
    board = pbem("show", str(EXAMPLE))
    assert board.startswith("Drive on Stalingrad (dos): Game-Turn 3 of 25") and "N3744 soviet: A/44 (3)12, AA/4 air 1/1" in board
    assert '"board"' in pbem("show", "--json", str(EXAMPLE))


def test_show_one_hex_and_one_unit():
    city = pbem("show", "--hex", "N3117", str(EXAMPLE)).splitlines()
    assert city[1] == "Major city: Stalingrad (N3117, N3217), 15 VP (19.2), held by soviet."
    assert "  N3016: clear, across the Volga" in city
    front = pbem("show", "--hex", "N1349", str(EXAMPLE))
    assert "On the Front Line of 28 June 1942" in front and "Units: G/88 9-9." in front
    unit = pbem("show", "--unit", "R/131", str(EXAMPLE))
    assert "untried, drawn from the sov-rifle pool (13.0)" in unit and "R/131 U-8" in unit
    assert "is a sea hex" in pbem("show", "--hex", "S3250", str(EXAMPLE), code=2)
    assert "no unit X/9" in pbem("show", "--unit", "X/9", str(EXAMPLE), code=2)


def test_show_diff_names_moves_and_the_turn():
    text = pbem("show", "--diff", "41", "43", str(EXAMPLE))
    assert "- A/62 (soviet) moved from N1241 to N0549." in text
    assert "Now: Game-Turn 3 of 25" in text


def test_show_diff_counts_losses_in_steps():
    """dos units lose steps (9.6), not strength points: `--diff` says so."""
    text = pbem("show", "--diff", "18", "19", str(EXAMPLE))
    assert "- GR/41 (soviet) lost 1 step: 1 of 2 left." in text
    assert "strength point" not in text


def test_show_diff_cites_no_combat_rule_for_a_unit_eliminated_over_the_stacking_limit():
    """Units go from the map for combat (9.6), for the stacking limit (7.1) or revealed at no
    strength (13.3): `--diff` says "eliminated", and the report why (players' probe: a unit lost
    for stacking was "eliminated (9.6)")."""
    report = (EXAMPLE / "aar" / "0039.md").read_text()
    assert "- G/387 eliminated: N0850 was over the stacking limit (7.1)." in report
    text = pbem("show", "--diff", "38", "39", str(EXAMPLE))
    assert "- G/387 (axis) is now eliminated; it was in N0850." in text and "(9.6)" not in text


def test_view_counts_steps_and_marks_a_unit_out_of_supply():
    sc = SC()
    rules = at(units={"G/57": {"hex": "N0505"}, "G/75": {"hex": "N2146", "steps_lost": 1}})
    board = words.view(sc, rules)
    assert board["units"]["G/57"]["markers"] == ["out of supply this phase (12.0)"]
    assert (board["units"]["G/75"]["strength"], board["units"]["G/75"]["full"]) == (3, 4)
    assert board["control"]["N2154"] == "axis" and board["control"]["N3117"] == "soviet"


def test_a_unit_that_may_not_overrun_is_told_why_as_the_rules_count_it():
    """6.55: a Soviet unit beyond the Radius of every HQ may not overrun; the Radius is a Line
    of Communications no longer than the Leadership Rating (12.12), which Enemy ZOC blocks
    (players' probe: "beyond every HQ's radius" of a unit 2 hexes from a Rating-2 HQ, whose line
    an Axis ZOC cut)."""
    sc = SC()
    rules = at(player="soviet", units={"R/351": {"hex": "N0506"}, "G/57": {"hex": "N0505"}})
    rules["ps"]["no_overrun"] = ["R/351"]
    assert words.view(sc, rules)["units"]["R/351"]["markers"][-1:] == [
        "no Line of Communications to an HQ within its Leadership Rating as the phase began (12.12; Enemy ZOC "
        "blocks one): may not overrun (6.55)"]


def test_a_unit_in_an_enemy_zone_of_control_says_whose_in_words():
    """8.0 in `pbem show --unit`: "In an Axis zone of control", the side named as everywhere else."""
    sc = SC()
    rules = at(units={"G/57": {"hex": "N0505"}, "R/351": {"hex": "N0506"}})
    assert sc.adjacent(sc.idx["N0505"], sc.idx["N0506"])
    assert "In a Soviet zone of control (8.0)." in words.look_unit(sc, rules, "G/57")
    assert "In an Axis zone of control (8.0)." in words.look_unit(sc, rules, "R/351")
