"""A dry run looks ahead through the sender's own sealed chits (players' probe of kkoh: a
`show` and a move out of the square passed the dry run with "orders 2 to 3 wait in the
queue", and the real packet's move was void, the group's own chit being HD: K-ORD-5,
K-MOV-4). The sender keeps what it sealed in its folder, so the look ahead opens it as the
sender's next packet will, and reaches the queued move."""

from __future__ import annotations

import pytest

from pbem import rulesets
from pbem.core.submit import submit_orders
from tests.support.games import Match
from tests.test_kkoh_sealed import drive_to, step

UNIT = "B-Rec1"
VOID = f"{UNIT} (on HD) may move only within its square (K-ORD-5, K-MOV-4)"


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def blue_to_move(tmp_path, chit: str) -> Match:
    """A kkoh game in which blue sealed `chit` for its recce (which moves from Action Phase 1
    on any chit, K-MOV-4), now at blue's movement step, the chit still sealed."""
    from tests.test_kkoh_cases import scenario_doc

    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": UNIT, "side": "blue", "row": "recce-1", "square": "0101", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0505", "cell": "21", "facing": "S", "order": "HA"}]})
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="foresee-seals", scenario_doc=doc)
    n = drive_to(match, "orders")
    if n.side == "red":
        step(match)                                               # red seals its chits as they are
    match.send("blue", [{"type": "chit", "units": [UNIT], "order": chit}, {"type": "end"}], seal=True)
    for _ in range(50):
        if drive_to(match, "move").side == "blue":
            break
        step(match)
    assert match.state()["rules"]["pieces"][UNIT]["o"] is None    # sealed: in blue's folder only
    return match


def orders(to: str, facing: str = "N") -> list[dict]:
    return [{"type": "show", "units": [UNIT]}, {"type": "move", "units": [UNIT], "to": to, "facing": facing},
            {"type": "end"}]


def dry_run(match: Match, given: list[dict]) -> list[str]:
    tried = submit_orders(match.folders["blue"], given, None, key=match.keys["blue"], sent="2026-11-29T10:00:00Z",
                          dry_run=True)
    return tried.warnings


def test_a_dry_run_foresees_a_move_void_against_the_senders_own_sealed_hd_chit(tmp_path):
    match = blue_to_move(tmp_path, "HD")
    seq = match.state()["seq"] + 1
    kept = sorted((match.folders["blue"].path / "private").glob("seal-*-blue.yaml"))
    warned = dry_run(match, orders("0102"))
    foreseen = [w for w in warned if VOID in w]
    assert len(foreseen) == 1, warned
    # no die comes before it: void by the rules alone, said so, not as a likelihood of imagined
    # rolls (a players' probe: "most likely void whatever the dice", where no die is rolled)
    assert foreseen[0].startswith(f"blue order 2 of packet {seq} (move facing=N to=0102 units={UNIT}) is void")
    assert foreseen[0].endswith("It is void whatever the dice: no die is rolled before it.")
    assert any("wait in the queue" in w for w in warned)          # still said: they wait for the chit's opening
    assert sorted((match.folders["blue"].path / "private").glob("seal-*-blue.yaml")) == kept   # nothing forgotten
    assert match.state()["seq"] == seq - 1                        # nothing applied
    # the real packet warns alike, and its move is void as foreseen once blue's next packet opens the chit
    assert [w for w in match.send("blue", orders("0102")).warnings if VOID in w] == foreseen
    step(match)
    opened = match.send("blue", [])
    assert [e["text"] for e in opened.events if e["type"] == "void"][0].endswith(
        f"{VOID}; its queued order 3 of packet {seq} is dropped too (standing order on_void: stop).")


def test_no_void_is_foreseen_for_a_move_the_sealed_chit_allows(tmp_path):
    """The same packet with a move within the square (HD allows it), and with the move out
    of the square under an M chit: the look ahead opens the chit and warns of nothing."""
    match = blue_to_move(tmp_path / "hd", "HD")
    warned = dry_run(match, orders("0101", "E"))
    assert not any("imagined roll" in w for w in warned), warned
    match.send("blue", orders("0101", "E"))                      # and indeed: the chit opened, the unit turns
    step(match)
    opened = match.send("blue", [])
    assert not [e for e in opened.events if e["type"] == "void"] and match.state()["rules"]["pieces"][UNIT]["f"] == "E"
    match = blue_to_move(tmp_path / "m", "M")
    warned = dry_run(match, orders("0102"))
    assert not any("imagined roll" in w for w in warned), warned
    assert any("wait in the queue" in w for w in warned)


def test_without_the_kept_chits_the_look_ahead_stops_at_the_openings(tmp_path):
    """The folder's kept file is missing (moved away): the dry run still tries the packet and
    warns as before, of the orders waiting in the queue, never of the void it cannot see."""
    match = blue_to_move(tmp_path, "HD")
    for path in (match.folders["blue"].path / "private").glob("seal-*-blue.yaml"):
        path.rename(tmp_path / path.name)
    warned = dry_run(match, orders("0102"))
    assert not any("imagined roll" in w for w in warned), warned
    assert any("wait in the queue" in w for w in warned)
