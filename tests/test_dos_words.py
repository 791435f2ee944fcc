"""dos in words (words.py): `pbem status` and `pbem show` of the example game, one hex and one
unit looked at closely, and what changed between two states."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.rulesets.dos import state as st
from pbem.rulesets.dos import words
from tests.support import examples
from tests.test_dos_support import SC, at

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dos-demo"


def pbem(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, [*args])
    assert result.exit_code == code, result.output
    return result.output


def _example():
    """The example's last state, its scenario and board: the tests below read the particulars
    of the game the example is (`examples/regenerate.sh dos` plays a new one)."""
    from pbem.core import game
    from pbem.rulesets.dos.board import view

    folder = game.open_folder(EXAMPLE)
    sc, rules = folder.game.scenario, folder.state["rules"]
    return folder, sc, rules, view(sc, rules)


def test_status_and_show_of_the_example_game():
    from pbem.rulesets.dos import victory

    folder, sc, rules, board = _example()
    now = words.now_text(sc, rules)
    text = pbem("status", str(EXAMPLE))
    assert f"{now}." in text.splitlines()
    # what the VP would make of the game if it ended now (a players' probe: the onlooker could not tell)
    vp = victory.vp(sc, rules)
    line = next(line for line in text.splitlines() if line.startswith("VP as they stand"))
    assert re.fullmatch(rf"VP as they stand \(19\.1\): Axis {vp['axis']}, Soviet {vp['soviet']}; if the game ended now: "
                        rf"[A-Z][a-z]+( [A-Za-z]+)* \(19\.0\); Hitler Directive in force \(16\.0\): "
                        rf"{(rules['directive'] or {}).get('letter', 'none')}\.", line), line
    shown = pbem("show", str(EXAMPLE))
    # the phase as status says it (players' probe: show read "soviet interdiction", an internal word)
    assert shown.startswith(f"Drive on Stalingrad (dos): {now}; ")
    uid = next(u for u in sc.side_units["soviet"] if st.on_map(rules, u))
    assert f"{st.hex_of(rules, uid)} soviet: " in shown and f" {uid} " in shown
    assert '"board"' in pbem("show", "--json", str(EXAMPLE))


def test_show_one_hex_and_one_unit():
    from pbem.rulesets.dos import supply as sp

    folder, sc, rules, board = _example()
    city = pbem("show", "--hex", "N3117", str(EXAMPLE)).splitlines()
    assert city[1] == "Major city: Stalingrad (N3117, N3217), 15 VP (19.2), held by soviet."
    assert "  N3016: clear, across the Volga" in city
    # a Front Line hex an Axis unit holds
    i = next(i for i in sc.front if any(sc.side_of[u] == "axis" for u in board.occ.get(i, [])))
    front = pbem("show", "--hex", sc.ids[i], str(EXAMPLE))
    assert "On the Front Line of 28 June 1942" in front and f"Units: {board.occ[i][0]} " in front
    # an untried Soviet unit, and one out of supply as the board stands, told why
    supplied, _ = sp.field(sc, rules, board, "soviet")
    uid = next(u for u in sc.side_units["soviet"] if st.on_map(rules, u) and st.untried(sc, rules, u)
               and sc.units[u].combat and u not in supplied)
    unit = pbem("show", "--unit", uid, str(EXAMPLE))
    assert re.search(r"untried, drawn from the [a-z-]+ pool \(13\.0\)", unit) and \
        f"Now: in {st.hex_of(rules, uid)} (" in unit
    assert any(re.fullmatch(r"Supply as the board stands now \(12\.0\): out: .+ \(12\.[0-9]+\)(: .+)?\.", line)
               for line in unit.splitlines()), unit
    # a unit in a city is said to be there (players' probe: one in Voronezh stood "in N0741 (clear)")
    there = next(u for u in sc.side_units["soviet"] if st.on_map(rules, u) and sc.idx[st.hex_of(rules, u)] in sc.city_of)
    town = sc.city_of[sc.idx[st.hex_of(rules, there)]]
    assert re.search(rf"Now: in {st.hex_of(rules, there)} \([a-z ]+, {town.cls.capitalize()} city of {town.name}\): "
                     rf"{re.escape(there)} ", pbem("show", "--unit", there, str(EXAMPLE)))
    axis = next(u for u in sc.side_units["axis"] if st.on_map(rules, u) and sc.units[u].combat
                and u in sp.field(sc, rules, board, "axis")[0])
    assert "Supply as the board stands now (12.0): in supply." in pbem("show", "--unit", axis, str(EXAMPLE))
    air = next(u for u in sc.side_units["axis"] if st.on_map(rules, u) and sc.units[u].air)
    assert "Supply as the board stands now (12.0): in supply." in pbem("show", "--unit", air, str(EXAMPLE))  # 14.11
    assert "is a sea hex" in pbem("show", "--hex", "S3250", str(EXAMPLE), code=2)
    assert "no unit X/9" in pbem("show", "--unit", "X/9", str(EXAMPLE), code=2)
    assert pbem("show", "--unit", "10/9PZ", str(EXAMPLE), code=2) == (   # the id meant, as an order's typo has it
        "pbem: there is no unit 10/9PZ (did you mean 10/9Pz?) in the dos orders of battle (ids such as G/57, R/6, A/21)\n")


def test_show_diff_names_moves_and_the_turn():
    from pbem.core.render import frames

    # the example's first advance after combat: the packet that made it, and the units
    f = frames.open_game(EXAMPLE)
    seq, advance = next((fr.seq, e) for fr in frames.frames(f) for e in fr.events if e["type"] == "advance")
    text = pbem("show", "--diff", str(seq - 1), str(seq), str(EXAMPLE))
    assert re.search(rf"- {re.escape(advance['units'][0])} \((axis|soviet)\) advanced after combat from [NS]\d{{4}} "
                     rf"to [NS]\d{{4}}\.", text), text
    # players' probe: a retreat "moved"
    assert re.search(r"- \S+ \((axis|soviet)\) retreated from [NS]\d{4} to [NS]\d{4}\.", text), text
    assert "Now: Game-Turn 1 of 25 (28 Jun-4 Jul), axis Combat Phase" in pbem("show", "--diff", "4", "5", str(EXAMPLE))


def test_show_diff_counts_losses_in_steps():
    """dos units lose steps (9.6), not strength points: `--diff` says so."""
    # the example's first packet after which an Axis unit has lost its first step
    f = examples.opened(EXAMPLE)
    states = [fr.state["rules"] for fr in examples.every_frame(f)]
    seq, uid = next((k, u) for k in range(1, len(states)) for u in SC().side_units["axis"]
                    if st.on_map(states[k], u) and st.on_map(states[k - 1], u)
                    and st.lost(states[k], u) == 1 and st.lost(states[k - 1], u) == 0)
    text = pbem("show", "--diff", str(seq - 1), str(seq), str(EXAMPLE))
    full = len(SC().units[uid].steps)
    assert f"- {uid} (axis) lost 1 step: {full - 1} of {full} left." in text, text
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


def test_a_unit_on_a_withdrawal_or_moved_west_is_told_what_18_11_leaves_it_this_phase():
    """18.11 is judged over a unit's whole move in the phase (movement.check_east_only): `pbem
    show` says which way it binds a unit, from the position the rules keep, not from a replay."""
    sc = SC()
    rules = at(player="soviet", units={"R/6": {"hex": "N3031", "revealed": [2, 3]}, "R/351": {"hex": "N0506"},
                                       "G/57": {"hex": "N3133"}})
    assert "withdrawing" not in rules["ps"] and "not_east" not in rules["ps"]   # a phase without either
    before = {u: words.view(sc, rules)["units"][u]["markers"] for u in ("R/6", "R/351")}
    assert not any("18.11" in m for marks in before.values() for m in marks), before
    rules["ps"].update(withdrawing=["R/6"], not_east=["R/351"])
    after = {u: words.view(sc, rules)["units"][u]["markers"] for u in ("R/6", "R/351")}
    assert after == {"R/6": before["R/6"] + ["ignored Axis ZOC this phase: moves on east only in it (18.11)"],
                     "R/351": before["R/351"] + ["moved into a hex not east this phase: may not ignore Axis ZOC "
                                                 "in it (18.11)"]}


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
