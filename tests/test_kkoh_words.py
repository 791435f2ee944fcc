"""kkoh in words: `pbem status` and `pbem show` (one unit, command marker or square, and the
changes between two states) on a position built for the test and on the example game."""

from __future__ import annotations

import re
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core import describe
from pbem.core.game import open_folder
from pbem.rulesets.kkoh import RULESET, words
from tests.test_kkoh_cases import scenario_doc

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "kkoh-demo"


def run(*args, code: int = 0) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return result.output if code == 0 else result.stderr


def position():
    units = [
        {"id": "B-N1", "side": "blue", "row": "tank-1", "square": "0202", "cell": "01", "facing": "N", "order": "HD",
         "group": "a"},
        {"id": "B-N2", "side": "blue", "row": "tank-1", "square": "0202", "cell": "00", "facing": "N", "order": "HD",
         "group": "a"},
        {"id": "R-W1", "side": "red", "row": "tr1-tank", "square": "0402", "cell": "10", "facing": "W", "order": "HA",
         "losses": 1},
    ]
    doc = scenario_doc({"units": units, "columns": 6, "rows": 6, "area": {"0402": "woods", "0103": "bua"},
                        "edges": {"0302/0402": "stream"}, "roads": ["0302/0402"], "objectives": ["0103"]})
    sc = RULESET.scenario(doc, {})
    return sc, RULESET.setup(sc)


def test_one_unit_says_where_it_stands_its_rank_file_and_facing_its_chit_and_group():
    sc, rules = position()
    assert words.look(sc, rules, "unit", "B-N1")[2:] == [
        "In 0202 (open ground), cell 01, facing N (north): rank 1, file 2 (K-GM-2, K-GM-3).",  # as orders write it
        "Order chit HD; 2 of 2 strength points.",
        "In battle group g1 with B-N2 (K-BG-1).",
        # what a shot by or at it reads (a players' probe checked a roll from the army lists' data)
        "Fire and armour: Direct Fire class M with improved ranging (IR) (K-DF-4, K-TNK-2); armour M (K-TNK-1); fired "
        "at as M (K-DF-6); moves as mechanised (K-MOV-4).",
    ]
    red = words.look(sc, rules, "unit", "R-W1")
    assert red[2:] == ["In 0402 (woods), cell 10, facing W (west): rank 1, file 2 (K-GM-2, K-GM-3).",
                       # deployed with its loss: it counts 1 in the starting strength (K-MOR-2)
                       "Order chit HA; 1 of 2 strength points (deployed with its loss marker: 1 in its formation's "
                       "starting strength, K-MOR-2); 1 loss marker.",
                       "Not in a battle group: it acts alone (K-GM-4).",
                       "Fire and armour: Direct Fire class M (K-DF-4); armour H (K-TNK-1); fired at as H (K-DF-6); "
                       "moves as mechanised (K-MOV-4)."]
    assert red[0].startswith("R-W1 (red): ") and "Soviet doctrine" in red[0]


def test_a_self_ordering_unit_is_said_to_be_in_command_for_that_reason(tmp_path):
    """A players' probe: "Formation b-bde, commanded by B-Bde, In Command." of a recce unit whose
    marker B-Bde was Out of Command by EW read as if the marker were in command (K-REC-3)."""
    folder = tmp_path / "sb"
    run("new", folder, "--ruleset", "kkoh", "--side", "blue", "--side", "red", "--sandbox", "--seed", "x")
    assert run("show", folder, "--unit", "B-Rec1").splitlines()[1] == (
        "Formation b-bde, commanded by B-Bde, In Command: self-ordering reconnaissance, never Out of Command (K-REC-3).")
    assert run("show", folder, "--unit", "B-Pz1-1").splitlines()[1] == "Formation b-pz1, commanded by B-Pz1, In Command."


def test_one_square_says_its_terrain_edges_roads_and_who_is_where():
    sc, rules = position()
    assert words.look(sc, rules, "square", "0402") == [
        "0402: woods.",
        "Edges: stream on the west edge (to 0302).",
        "Roads to the west (to 0302) (K-TER-3).",
        "red: R-W1 in cell 10 facing W.",
    ]
    assert words.look(sc, rules, "square", "0103")[0] == "0103: built-up area (an objective, held by blue)."
    assert words.look(sc, rules, "square", "0000")[-1] == "Command markers: B-HQ."
    with pytest.raises(ValueError, match="not hexes: use --square CCRR"):
        words.look(sc, rules, "hex", "0402")
    with pytest.raises(ValueError, match="0606 is no square of the table"):
        words.look(sc, rules, "square", "0606")


def test_the_view_gives_every_unit_its_place_and_a_destroyed_one_its_status():
    sc, rules = position()
    before = words.view(sc, rules)
    assert before["units"]["B-N1"]["where"] == "0202 cell 01 facing N"
    after_rules = {**rules, "pieces": {k: v for k, v in rules["pieces"].items() if k != "R-W1"}, "gone": ["R-W1"]}
    after = words.view(sc, after_rules)
    assert after["units"]["R-W1"]["status"] == "destroyed"
    game = type("G", (), {"view": lambda self, r: words.view(sc, r), "summary": lambda self, r: RULESET.summary(sc, r),
                          "sides": ["blue", "red"]})()
    texts = [c["text"] for c in describe.changes(game, {"rules": rules}, {"rules": after_rules})]
    assert "R-W1 (red) is now destroyed; it was in 0402 cell 10 facing W." in texts

    # its battle group too, as the text names it (an audience probe: `show --json` had it only in rules.pieces)
    data = json.loads(run("show", str(EXAMPLE), "--json"))
    pieces = data["rules"]["pieces"]
    grouped = {uid: unit["group"] for uid, unit in data["board"]["units"].items() if "group" in unit}
    assert grouped and grouped == {uid: rec["g"] for uid, rec in pieces.items() if rec.get("g")}


def test_status_and_show_speak_of_the_example_in_words():
    folder = open_folder(EXAMPLE)
    rules = folder.state["rules"]
    summary = folder.game.summary(rules)
    status = run("status", EXAMPLE)
    assert f"Turn {rules['turn']} of 8, {summary['phase']}." in status
    assert f"Score: blue {summary['vp']['blue']}, red {summary['vp']['red']} (house rule of the scenario" in status
    board = run("show", EXAMPLE)
    assert board.startswith("Kalt Krieg ohne Hass")
    pid, rec = sorted(rules["pieces"].items())[0]
    # each unit's chit is on the board, with a key to the bracket (players' probe: "02E" unexplained, no chit)
    assert "Each unit: ID[cell facing group chit ...]" in board
    assert f"{pid}[{rec['cell']}{rec['f']}{' ' + rec['g'] if rec.get('g') else ''} {rec['o'] or '?'}" in board
    unit = run("show", EXAMPLE, "--unit", pid)
    assert f"In {rec['sq']} (" in unit and f"cell {rec['cell']}, facing" in unit
    square = run("show", EXAMPLE, "--square", rec["sq"])
    assert f"{pid} in cell {rec['cell']} facing {rec['f']}" in square
    assert run("show", EXAMPLE, "--hex", rec["sq"], code=2) == "pbem: kkoh's table has 1 km squares, not hexes: use --square CCRR\n"
    # a typo is answered with the id meant (a new user's probe), as an order's is
    assert run("show", EXAMPLE, "--unit", "B-Pz1-I", code=2) == (
        f"pbem: B-Pz1-I is no unit or command marker of this game (did you mean B-Pz1-1?) (ids as in `pbem show`, "
        f"such as {folder.game.scenario.piece_ids[0]})\n")
    diff = run("show", EXAMPLE, "--diff", 0, folder.state["seq"])
    assert "Now: turn" in diff and "moved from" in diff


def test_the_board_before_initiative_is_rolled_says_so():
    """The board of `pbem show` before the first initiative roll (K-INI-1) says it is not yet
    decided, where it printed a bare "-"."""
    from pbem.rulesets.kkoh import report

    sc, rules = position()
    assert rules["initiative"] is None
    head = report.render(sc, rules).splitlines()[1]
    assert "; initiative: not yet decided (K-INI-1); score " in head
    rules["initiative"] = "red"
    assert "; initiative: red; score " in report.render(sc, rules).splitlines()[1]


def test_a_command_marker_out_of_command_is_said_so_also_where_it_stands_without_units():
    """The picture flags a marker Out of Command (K-CMD-3); `show` said so only in a square that
    also held units, and `--square` never (a probe). Each marker of the example's last state
    alone in its square is checked against the rules' own status."""
    from pbem.core import game
    from pbem.rulesets.kkoh import command
    from pbem.rulesets.kkoh.state import Board

    folder = game.open_folder(EXAMPLE)
    sc, rules = folder.game.scenario, folder.state["rules"]
    board = Board(sc, rules)
    status = command.marker_status(sc, board)
    alone = {r["sq"] for r in rules["hqs"].values() if "sq" in r and not board.at(r["sq"])}
    out = sorted(h for h, r in rules["hqs"].items() if r.get("sq") in alone and not status.get(h))
    assert out, "the example has no marker out of command alone in its square: choose another state"
    shown = run("show", EXAMPLE)
    for h in out:
        square = rules["hqs"][h]["sq"]
        # each side's markers on a line of their own: both sides' may stand in one square
        lines = [line for line in shown.splitlines() if line.startswith(f"  {square}: HQ ") 
                 and re.search(rf"(?<![\w/-]){re.escape(h)}(?![\w/-])", line)]
        assert len(lines) == 1 and f"{h} (out of command)" in lines[0], lines
        assert f"{h} (out of command)" in run("show", EXAMPLE, "--square", square)
    assert "its cell in the square (row from the north edge and column from the west edge, 0-2;" in shown


def test_show_diff_says_the_units_of_a_side_whose_markers_changed_alike_in_one_line():
    """A players' probe: `show --last` read "R-AD1 (red): order marker sealed changed to HD" 39
    times as a turn's chits were revealed. Units of one side with the same change are one line,
    where the first of them was; other changes keep their place; `--json` keeps one a unit."""
    unit = {"side": "red", "where": "0705", "status": "map", "strength": 3, "full": 3}
    found = []
    for uid, was, now in (("R1", "sealed", "HD"), ("R2", "sealed", "HA"), ("R3", "sealed", "HD"), ("R4", "HD", "HD")):
        found += describe._unit_changes(uid, dict(unit, markers=[f"order {was}"]), dict(unit, markers=[f"order {now}"],
                                        where="0706" if uid == "R4" else "0705"), {}, {}, "strength point")
    found += describe._unit_changes("B1", dict(unit, side="blue", markers=["order sealed"]),
                                    dict(unit, side="blue", markers=["order HD"]), {}, {}, "strength point")
    assert describe._alike_together(found) == [
        "R1, R3 (red): order marker revealed: HD.", "R2 (red): order marker revealed: HA.",
        "R4 (red) moved from 0705 to 0706.", "B1 (blue): order marker revealed: HD."]


def test_show_says_an_order_chit_that_changed_as_one_change():
    """A players' probe: `show --last` read "order sealed marker placed; order HD marker removed"
    for a chit sealed in place of another. A marker of a family ("order HD", "order sealed")
    that takes the place of another of its family is one change; other markers are placed and
    removed as before, and a marker of many words is no family's."""
    unit = {"side": "red", "where": "0705", "status": "map", "strength": 3, "full": 3}
    said = describe._unit_changes("R-AD1", dict(unit, markers=["order HD", "mounted"]),
                                  dict(unit, markers=["order sealed", "dismounted"]), {}, {}, "strength point")
    assert [c["text"] for c in said] == [
        "R-AD1 (red): order marker HD replaced by a sealed one; dismounted marker placed; mounted marker removed."]
    said = describe._unit_changes("Tr/1", dict(unit, markers=["a railhead: an Axis supply source (12.32)"]),
                                  dict(unit, markers=["a truck: out of supply"]), {}, {}, "strength point")
    assert [c["text"] for c in said] == ["Tr/1 (red): a truck: out of supply marker placed; a railhead: an Axis "
                                         "supply source (12.32) marker removed."]
    # a chit opened is revealed, not changed (an audience probe: K-ORD-2 makes a change of order a test)
    said = describe._unit_changes("R-AD1", dict(unit, markers=["order sealed"]), dict(unit, markers=["order HA"]), {}, {},
                                  "strength point")
    assert [c["text"] for c in said] == ["R-AD1 (red): order marker revealed: HA."]
    said = describe._unit_changes("R-AD1", dict(unit, markers=["order HD"]), dict(unit, markers=["order HA"]), {}, {},
                                  "strength point")
    assert [c["text"] for c in said] == ["R-AD1 (red): order marker HD changed to HA."]
    # the example's own chits, as `show --diff` says them: the first packet that seals some
    for seq in range(1, 13):
        text = run("show", str(EXAMPLE), "--diff", str(seq - 1), str(seq))
        assert "order sealed marker" not in text, text
        if re.search(r"order marker [A-Z]+[0-9]? replaced by a sealed one\.", text):
            break
    else:
        pytest.fail("no packet of the example's first 12 seals an order chit")
