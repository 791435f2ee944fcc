"""dos in words (words.py): `pbem status` and `pbem show` of the example game, one hex and one
unit looked at closely, and what changed between two states."""

from __future__ import annotations

from pathlib import Path

import pytest
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
    # what the VP would make of the game if it ended now (a players' probe: the onlooker could not tell)
    assert ("VP as they stand (19.1): Axis 33, Soviet 177; if the game ended now: Decisive Soviet Victory (19.0); "
            "Hitler Directive in force (16.0): none.") in text
    board = pbem("show", str(EXAMPLE))
    # the phase as status says it (players' probe: show read "soviet interdiction", an internal word)
    assert board.startswith("Drive on Stalingrad (dos): Game-Turn 3 of 25 (12-18 Jul), axis Initial Movement Phase; ") and "N0324 soviet: C/55 U-6" in board
    assert '"board"' in pbem("show", "--json", str(EXAMPLE))


def test_show_one_hex_and_one_unit():
    city = pbem("show", "--hex", "N3117", str(EXAMPLE)).splitlines()
    assert city[1] == "Major city: Stalingrad (N3117, N3217), 15 VP (19.2), held by soviet."
    assert "  N3016: clear, across the Volga" in city
    front = pbem("show", "--hex", "N0349", str(EXAMPLE))
    assert "On the Front Line of 28 June 1942" in front and "Units: G/377 4-9." in front
    unit = pbem("show", "--unit", "C/55", str(EXAMPLE))
    assert "untried, drawn from the sov-cav pool (13.0)" in unit and "Now: in N0324 (clear): C/55 U-6." in unit
    # a unit in a city is said to be there (players' probe: one in Voronezh stood "in N0741 (clear)")
    assert "Now: in N0741 (clear, Major city of Voronezh): R/229 U-8." in pbem("show", "--unit", "R/229", str(EXAMPLE))
    assert ("Supply as the board stands now (12.0): out: no soviet HQ within its Leadership Rating: the nearest, "
            "A/1Gds, is 21 hexes away, rating 5 (12.12).") in unit.splitlines()
    assert "Supply as the board stands now (12.0): in supply." in pbem("show", "--unit", "G/82", str(EXAMPLE))
    assert "Supply as the board stands now (12.0): in supply." in pbem("show", "--unit", "AirK/4", str(EXAMPLE))  # 14.11
    assert "is a sea hex" in pbem("show", "--hex", "S3250", str(EXAMPLE), code=2)
    assert "no unit X/9" in pbem("show", "--unit", "X/9", str(EXAMPLE), code=2)
    assert pbem("show", "--unit", "10/9PZ", str(EXAMPLE), code=2) == (   # the id meant, as an order's typo has it
        "pbem: there is no unit 10/9PZ (did you mean 10/9Pz?) in the dos orders of battle (ids such as G/57, R/6, A/21)\n")


def test_show_diff_names_moves_and_the_turn():
    text = pbem("show", "--diff", "16", "17", str(EXAMPLE))
    assert "- G/75 (axis) advanced after combat from N2549 to N2648." in text
    assert "- GR/13 (soviet) retreated from N2648 to N2647." in text   # players' probe: a retreat "moved"
    assert "Now: Game-Turn 1 of 25 (28 Jun-4 Jul), axis Combat Phase" in pbem("show", "--diff", "4", "5", str(EXAMPLE))


def test_show_diff_counts_losses_in_steps():
    """dos units lose steps (9.6), not strength points: `--diff` says so."""
    text = pbem("show", "--diff", "21", "22", str(EXAMPLE))
    assert "- G/377 (axis) lost 1 step: 3 of 4 left." in text
    assert "strength point" not in text


def test_show_diff_cites_no_combat_rule_for_a_unit_eliminated_over_the_stacking_limit():
    """Units go from the map for combat (9.6), for the stacking limit (7.1) or revealed at no
    strength (13.3): `--diff` says "eliminated", and the report why (players' probe: a unit lost
    for stacking was "eliminated (9.6)")."""
    import copy

    from pbem.core import describe, game

    dos = game.open_folder(EXAMPLE).game
    before = at(units={"G/57": {"hex": "N2146"}, "G/75": {"hex": "N2146"}})
    after = copy.deepcopy(before)
    after["units"]["G/75"] = "gone"
    found = describe.changes_text(dos, {"seq": 1, "rules": before}, {"seq": 2, "rules": after})
    assert "- G/75 (axis) is now eliminated; it was in N2146." in found and "(9.6)" not in " ".join(found)
    # out of the game: by a withdrawal (15.2) or by a directive's limit (16.4), each with its own rule (probe)
    after = copy.deepcopy(before)
    after["units"].update({"G/57": "out", "G/75": "out"})
    after["withdrawn"] = {"2": ["G/57"]}
    found = describe.changes_text(dos, {"seq": 1, "rules": before}, {"seq": 2, "rules": after})
    assert "- G/57 (axis) is now withdrawn from the game (15.2); it was in N2146." in found
    assert "- G/75 (axis) is now out of the game, sent to the Leningrad front (16.33, 16.4); it was in N2146." in found


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


def test_the_now_line_names_the_step_under_way_between_phases():
    """Between two phases the game may stop for a decision or dice in an automatic stage: the
    "Now:" line of reports and `pbem status` names that stage, not the phase before it
    (players' probe: "soviet Air Interdiction Phase" during the Game-Turn Record Inter-Phase)."""
    sc = SC()
    rules = at(player="soviet")
    rules["phase"] = "interdiction"
    assert words.now_text(sc, rules).endswith(", soviet Air Interdiction Phase")
    for stage, words_ in (("interphase", "Game-Turn Record Inter-Phase (4.2 D)"),
                          ("directive", "Hitler Directive Inter-Phase (16.0)"),
                          ("axis-start", "axis Initial Movement Phase, before any unit moves (15.21)"),
                          ("soviet-start", "soviet Initial Movement Phase, before it begins (15.4)"),
                          ("axis-end", "end of the axis Player-Turn (16.33, 16.4)")):
        rules["stage"] = stage
        assert words.now_text(sc, rules) == f"Game-Turn {rules['turn']} of 25 ({words.date(sc, rules['turn'])}), {words_}"


def test_a_reports_verbs_agree_with_their_units():
    """Players' probe: "G/9 attack S0642", "A/46 enter at", "21/24Pz, 24/24Pz overruns"."""
    from tests.test_dos_support import play

    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2146"},
                                      "G/75": {"hex": "N2146"}, "A/21": {"hex": "N2143"}})
    one = play(rules, [{"type": "attack", "targets": ["N2245"], "units": ["G/57"]}], dice=[6])
    assert "G/57 attacks N2245." in [e["text"] for e in one.events]
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2146"},
                                      "G/75": {"hex": "N2146"}, "A/21": {"hex": "N2143"}})
    two = play(rules, [{"type": "attack", "targets": ["N2245"], "units": ["G/57", "G/75"]}], dice=[6])
    assert "G/57, G/75 attack N2245." in [e["text"] for e in two.events]


@pytest.mark.parametrize("axis, soviet, level", [(90, 30, "Decisive Axis Victory"), (89, 30, "Marginal Axis Victory"),
                                                  (60, 30, "Marginal Axis Victory"), (59, 30, "Marginal Soviet Victory"),
                                                  (31, 30, "Marginal Soviet Victory"), (30, 30, "Decisive Soviet Victory")])
def test_19_0_the_level_a_score_would_make_at_the_end(axis, soviet, level):
    """19.0's ratios: 3:1 or better Decisive Axis, 2:1 Marginal Axis, better than 1:1 Marginal
    Soviet, else Decisive Soviet; `pbem status` says it of the VP as they stand."""
    from pbem.rulesets.dos import victory

    assert victory.level_of({"axis": axis, "soviet": soviet}) == (level, "axis" if "Axis" in level else "soviet")
