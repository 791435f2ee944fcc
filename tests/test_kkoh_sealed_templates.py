"""kkoh's sealed order chits as a player meets them (a new players' probe): the move refused
for a sealed chit offers the `show` of that group alone; `pbem orders` lists, from the
player's own seal file, what each sealed group may do once shown; `pbem show --unit` says a
chit sealed anew is sealed, not the chit it had. Each test fails on the code before the fix."""

from __future__ import annotations

import pytest

from pbem import rulesets
from pbem.core.errors import RulesError
from tests.support.games import Match
from tests.test_kkoh_cases import scenario_doc
from tests.test_kkoh_sealed import drive_to, step

MOVE_B1 = {"type": "move", "units": ["B1"], "to": "0101", "facing": "E"}


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def two_groups_each(tmp_path) -> Match:
    """Two lone tanks a side, far apart, every chit sealed at deployment (kept): blue moves
    first in Action Phase 1 of turn 1."""
    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "M"},
        {"id": "B2", "side": "blue", "row": "tank-1", "square": "0301", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0505", "cell": "21", "facing": "S", "order": "HA"},
        {"id": "R2", "side": "red", "row": "tr1-tank", "square": "0305", "cell": "21", "facing": "S", "order": "HA"}]})
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="show-each", scenario_doc=doc)
    n = drive_to(match, "move")
    assert (n.side, match.state()["rules"]["ap"]) == ("blue", 1)
    return match


def test_a_move_refused_for_a_sealed_chit_offers_the_show_of_its_group_alone(tmp_path):
    """The refusal offered one `show` of every sealed group of the side (B1 and B2), and a chit
    shown is seen by the opponent: it offers B1's alone, which lets the move go ahead. A queued
    move voided for the same reason keeps its report's words (bound to the ruleset's version)."""
    match = two_groups_each(tmp_path)
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
