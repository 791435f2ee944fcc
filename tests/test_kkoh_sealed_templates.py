"""kkoh's sealed order chits as a player meets them (a new players' probe): the move refused
for a sealed chit offers the `show` of that group alone; `pbem orders` lists, from the
player's own seal file, what each sealed group may do once shown; `pbem show --unit` says a
chit sealed anew is sealed, not the chit it had. Each test fails on the code before the fix."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pbem import rulesets
from pbem.cli import cli
from pbem.core.errors import RulesError
from tests.support.games import Match
from tests.test_kkoh_cases import scenario_doc
from tests.test_kkoh_sealed import drive_to, step

MOVE_B1 = {"type": "move", "units": ["B1"], "to": "0101", "facing": "E"}


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def two_groups_each(tmp_path, chain_length: int = 256) -> Match:
    """Two lone tanks a side, far apart, every chit sealed at deployment (kept); blue has the
    initiative."""
    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "M"},
        {"id": "B2", "side": "blue", "row": "tank-1", "square": "0301", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0505", "cell": "21", "facing": "S", "order": "HA"},
        {"id": "R2", "side": "red", "row": "tr1-tank", "square": "0305", "cell": "21", "facing": "S", "order": "HA"}]})
    return Match(tmp_path, "kkoh", chain_length=chain_length, key_seed="show-each", scenario_doc=doc)


def blue_moves(tmp_path) -> Match:
    """`two_groups_each` at blue's first movement step, Action Phase 1 of turn 1."""
    match = two_groups_each(tmp_path)
    n = drive_to(match, "move")
    assert (n.side, match.state()["rules"]["ap"]) == ("blue", 1)
    return match


def show(match: Match, side: str, *args: str) -> list[str]:
    """`pbem show` in `side`'s own folder (its private/ keeps what it sealed)."""
    result = CliRunner().invoke(cli, ["show", str(match.folders[side].path), *args])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_a_move_refused_for_a_sealed_chit_offers_the_show_of_its_group_alone(tmp_path):
    """The refusal offered one `show` of every sealed group of the side (B1 and B2), and a chit
    shown is seen by the opponent: it offers B1's alone, which lets the move go ahead. A queued
    move voided for the same reason keeps its report's words (bound to the ruleset's version)."""
    match = blue_moves(tmp_path)
    with pytest.raises(RulesError) as refused:
        match.send("blue", [MOVE_B1])
    assert refused.value.message == (
        "orders: order 1 (move facing=E to=0101 units=B1) is illegal: move: the order chit of B1 is sealed: show it "
        "first (a `show` order; pbem checks every move against the chit, K-ORD-5, K-MOV-4, K-ORD-8) (K-ORD-6).\n"
        "Legal now: show units=B1")
    match.send("blue", [{"type": "end"}, MOVE_B1])          # the move waits for blue's next movement step
    voids = []
    for _ in range(8):
        voids = [e["text"] for e in step(match).events if e["type"] == "void"]
        if voids:
            break
    assert voids == ["blue order 2 of packet 7 (move facing=E to=0101 units=B1) is void: move: the order chit of B1 "
                     "is sealed: show it first (a `show` order; pbem checks every move against the chit, K-ORD-5, "
                     "K-MOV-4, K-ORD-8) (K-ORD-6); legal then: show units=B1,B2."]


def test_show_says_a_chit_sealed_anew_is_sealed_and_tells_its_owner_which(tmp_path):
    """Red, without the initiative, seals its turn-2 chits first (R1 to M). Until Issuing Orders
    tests them the state keeps the chits each group carried, and `pbem show --unit R1` gave
    HA as its chit, in both folders. Now it is sealed (the board says ?); red's own folder,
    whose private/ keeps the seal, says which chit red sealed, and once tested what the opening
    will give (the die is known: it was rolled at the test)."""
    match = two_groups_each(tmp_path, chain_length=512)
    assert drive_to(match, "orders", turn=2).side == "red"
    assert match.state()["rules"]["pieces"]["R1"]["o"] == "HA"
    seq = match.send("red", [{"type": "chit", "units": ["R1"], "order": "M"}, {"type": "end"}],
                     seal=True).state["seq"]
    chit = (f"Order chit sealed (K-ORD-6): red sealed new chits in packet {seq}, each tested when Issuing Orders ends "
            f"(K-ORD-3); it carried HA before them; 2 of 2 strength points.")
    assert show(match, "blue", "--unit", "R1")[3:5] == [chit, "Not in a battle group: it acts alone (K-GM-4)."]
    assert show(match, "red", "--unit", "R1")[3:5] == [
        chit, f"red sealed M for it (item {seq}.1, kept in private/: for red's eyes only)."]
    assert "  0505 open: R1[21S ?]; HQ R-HQ" in show(match, "blue")
    assert show(match, "blue", "--unit", "B1")[3] == "Order chit M; 2 of 2 strength points."   # blue has sealed nothing
    # a change given openly is public, and said beside the chit until it is tested
    match.send("blue", [{"type": "chit", "units": ["B1"], "order": "HA"}, {"type": "end"}], seal=False)
    assert show(match, "red", "--unit", "B1")[3] == ("Order chit M; a change to HA given openly, tested when Issuing "
                                                     "Orders ends (K-ORD-3); 2 of 2 strength points.")
    step(match)                                                   # the tests roll
    assert match.state()["rules"]["hidden"]["red"][0] == {"units": ["R1"], "item": f"{seq}.1", "was": "HA",
                                                          "mods": {"majority_inferior": -1}, "die": 4}
    assert show(match, "blue", "--unit", "R1")[3:5] == [
        "Order chit sealed (K-ORD-6); 2 of 2 strength points.", "Not in a battle group: it acts alone (K-GM-4)."]
    assert show(match, "red", "--unit", "R1")[3:5] == [
        "Order chit sealed (K-ORD-6); 2 of 2 strength points.",
        f"red sealed M for it (item {seq}.1, kept in private/: for red's eyes only); when the rules reveal it: R1: "
        "die 4, majority inferior -1 = 3: changes HA to M (3 or more needed, K-ORD-3)."]
