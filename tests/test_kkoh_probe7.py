"""The seventh rules probe of kkoh, of the turn as a whole: one In Command marker per square is
one whose own chain holds (K-CMD-2, K-CMK-7); an attachment fights in its host battlegroup's
morale, not its home battalion's (K-MOR-1, K-MOR-2); AA units are never attached (K-DOC-1,
K-DOC-2). Each test fails on the code before the fix."""

from __future__ import annotations

import pytest

from pbem import rulesets
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import assault, command, common
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_rules import POS_AP, Ctx, U, make, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def test_k_cmk_7_a_marker_whose_chain_is_broken_takes_no_place_in_its_square():
    """"Only one command marker may be 'In Command' in any one square at any time": R-BN1 and
    R-BN2 share 0101; R-BN1 is 8 squares from its regiment (range 4), so it is Out of Command
    whatever the square; R-BN2, 2 squares from its own, is the one In Command there, and R2 of
    its battalion with it. 1.12.0 gave the place to R-BN1 by seniority and id, and neither was."""
    commands = [{"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "0000"},
                {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": "0909"},
                {"id": "R-RG1", "side": "red", "row": "tr1-hq", "level": "regiment", "superior": "R-HQ", "square": "0908"},
                {"id": "R-RG2", "side": "red", "row": "tr1-hq", "level": "regiment", "superior": "R-HQ", "square": "0303"},
                {"id": "R-BN1", "side": "red", "row": "tr1-bn-hq", "level": "battalion", "superior": "R-RG1",
                 "square": "0101"},
                {"id": "R-BN2", "side": "red", "row": "tr1-bn-hq", "level": "battalion", "superior": "R-RG2",
                 "square": "0101"}]
    formations = {"b": {"hq": "B-HQ"}, "r": {"hq": "R-HQ"}, "r1": {"hq": "R-BN1"}, "r2": {"hq": "R-BN2"}}
    units = [U("B1", "blue", "tank-1", "0505", "00", "N"), U("R2", "red", "tr1-tank", "0102", "00", "S", formation="r2")]
    sc, rules = make(units, commands=commands, formations=formations, columns=10, rows=10)
    board = st.Board(sc, rules)
    status = command.marker_status(sc, board)
    assert (status["R-BN1"], status["R-BN2"]) == (False, True)
    assert command.piece_in_command(sc, board, "R2")
    assert "out_of_command" not in command.change_modifiers(sc, board, ["R2"], "HD1")
    rules["hqs"]["R-RG1"]["sq"] = "0102"        # R-BN1's chain whole again: the senior by id takes the square
    status = command.marker_status(sc, st.Board(sc, rules))
    assert (status["R-BN1"], status["R-BN2"]) == (True, False)


BLUE_COMMANDS = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "brigade", "square": "0000"},
                 {"id": "B-BN1", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-HQ", "square": "0404"},
                 {"id": "B-BN2", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-HQ", "square": "0504"},
                 {"id": "R-HQ", "side": "red", "row": "hq", "level": "division", "square": "0909"}]
BLUE_FORMATIONS = {"a": {"hq": "B-BN1"}, "b": {"hq": "B-BN2"}, "r": {"hq": "R-HQ"}, "top": {"hq": "B-HQ"}}


def test_k_mor_1_an_attachment_assaults_with_its_host_battlegroup_whatever_its_home_battalion():
    """X of battalion a is attached to B-BN2's battlegroup b. Battalion a falls below half (1 of
    4 strength points, X not counted, K-MOR-2) and is Demoralised: its own units may launch no
    Close Assault, but X fights in b, which is not, and may ("this then applies to the
    attachments as well": the attachments of the Demoralised battlegroup). 1.12.0 barred X."""
    units = [U("A1", "blue", "tank", "0303", "01", "N", "HA", formation="a"),
             U("A2", "blue", "tank", "0303", "02", "N", "HA", formation="a"),
             U("X", "blue", "tank", "0504", "01", "N", "HA", formation="a", attached_to="B-BN2"),
             U("B1", "blue", "tank", "0504", "00", "N", "HA", formation="b"),
             U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, commands=BLUE_COMMANDS, formations=BLUE_FORMATIONS,
                      position={**POS_AP(2), "losses": {"A2": 1}}, turns=3)     # A2's loss taken in the day
    assert sc.body("a") == ["A1", "A2"] and sc.morale_start["a"] == 4
    board = st.Board(sc, rules)
    ctx = Ctx()
    common.lose(sc, board, "A2", 1, ctx, "test", "test")      # A2 destroyed: 2 of 4, not below half
    assert rules["demoralised"] == []
    common.lose(sc, board, "A1", 1, ctx, "test", "test")      # 1 of 4
    assert rules["demoralised"] == ["a"]
    assert common.demoralised(sc, board, "A1") and not common.demoralised(sc, board, "X")
    assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["X"], "target": "0505"}, 2, board)
    rules["demoralised"] = ["b"]                 # the host Demoralised: the attachment with it
    with pytest.raises(IllegalOrder, match="Demoralised"):
        assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["X"], "target": "0505"}, 2,
                              st.Board(sc, rules))


@pytest.mark.parametrize("side, formation, host, square", [("blue", "a", "B-BN2", "0504"), ("red", "r1", "R-BN2", "0807")])
def test_k_doc_1_k_doc_2_an_aa_unit_is_never_attached(side, formation, host, square):
    """"AA can never be attached", NATO (K-DOC-1) or Soviet (K-DOC-2): a scenario attaching an AA
    unit to another battalion is refused, naming the unit and the rule. 1.12.0 accepted it."""
    commands = BLUE_COMMANDS + [
        {"id": "R-BN1", "side": "red", "row": "bn", "level": "battalion", "superior": "R-HQ", "square": "0808"},
        {"id": "R-BN2", "side": "red", "row": "bn", "level": "battalion", "superior": "R-HQ", "square": "0807"}]
    formations = dict(BLUE_FORMATIONS, r1={"hq": "R-BN1"}, r2={"hq": "R-BN2"})
    units = [U("X", side, "aa-gun", square, "01", "N", formation=formation, attached_to=host),
             U("B9", "blue", "tank", "0101", "01", "N", formation="b")]
    with pytest.raises(ValueError, match=r"units\.X: AA units are never attached to another unit \(K-DOC-1, K-DOC-2\)"):
        table(units, commands=commands, formations=formations)
