"""A packet meets the sender's own sealed chits (players' probe of kkoh: a `show` and a move
out of the square passed the dry run with "orders 2 to 3 wait in the queue", and the real
packet's move was void, the group's own chit being HD: K-ORD-5, K-MOV-4). The sender keeps what
it sealed in its folder, so the packet that shows a chit opens it (docs/protocol.md §8) and its
move meets the chit at once; without the kept file, the look ahead stops at the opening."""

from __future__ import annotations

import re

import pytest

from pbem import rulesets
from pbem.core.errors import RulesError, VerificationError
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


def test_a_packet_that_shows_the_senders_own_sealed_hd_chit_refuses_a_move_the_chit_forbids(tmp_path):
    """The packet that shows the chit opens it too (docs/protocol.md §8), so its move meets the
    chit in the same packet: a move that the HD chit forbids is refused at once, by the dry run
    and by the real submit alike, with nothing sent or forgotten (a players' probe: the dry run
    passed it, and the move was void two packets later, its queued orders dropped)."""
    match = blue_to_move(tmp_path, "HD")
    seq = match.state()["seq"] + 1
    kept = sorted((match.folders["blue"].path / "private").glob("seal-*-blue.yaml"))
    refusal = f"orders: order 2 (move facing=N to=0102 units={UNIT}) is illegal: move: {VOID}."
    with pytest.raises(RulesError) as refused:
        dry_run(match, orders("0102"))
    assert refused.value.message == refusal
    with pytest.raises(RulesError) as refused:
        match.send("blue", orders("0102"))
    assert refused.value.message == refusal
    assert sorted((match.folders["blue"].path / "private").glob("seal-*-blue.yaml")) == kept   # nothing forgotten
    assert match.state()["seq"] == seq - 1                        # nothing applied


def test_a_move_the_sealed_chit_allows_is_made_in_the_packet_that_shows_it(tmp_path):
    """The same packet with a move within the square (HD allows it), and with the move out
    of the square under an M chit: the chit opens, and the move is made, in that packet."""
    match = blue_to_move(tmp_path / "hd", "HD")
    warned = dry_run(match, orders("0101", "E"))
    assert not any("imagined roll" in w or "wait in the queue" in w for w in warned), warned
    shown = match.send("blue", orders("0101", "E"))
    assert not [e for e in shown.events if e["type"] == "void"] and match.state()["rules"]["pieces"][UNIT]["f"] == "E"
    assert [e["units"] for e in shown.events if e["type"] == "chit-revealed"] == [[UNIT]]
    match = blue_to_move(tmp_path / "m", "M")
    warned = dry_run(match, orders("0102"))
    assert not any("imagined roll" in w or "wait in the queue" in w for w in warned), warned
    match.send("blue", orders("0102"))
    assert match.state()["rules"]["pieces"][UNIT]["sq"] == "0102"


def test_without_the_kept_chits_the_look_ahead_stops_at_the_openings(tmp_path):
    """The folder's kept file is missing (moved away): the packet cannot open the chit its
    `show` reveals, which is then due in its next packet; the dry run still tries the packet
    and warns, of the orders waiting in the queue, never of the void it cannot see."""
    match = blue_to_move(tmp_path, "HD")
    for path in (match.folders["blue"].path / "private").glob("seal-*-blue.yaml"):
        path.rename(tmp_path / path.name)
    warned = dry_run(match, orders("0102"))
    assert not any("imagined roll" in w for w in warned), warned
    assert any("wait in the queue" in w for w in warned)


@pytest.mark.parametrize("damage, says", [
    (lambda text: "\n".join(line for line in text.splitlines() if not line.startswith("salts:")) + "\n",
     "item 1, which blue sealed in packet {seq}, cannot be read from it: the file was damaged or changed since "
     "`pbem submit --seal` wrote it; restore the file from a copy"),
    # the salt quoted or plain, as its first digit has YAML write it: "zz" makes either no hex
    (lambda text: re.sub(r'salts: \["?', lambda m: m.group(0) + "zz", text, count=1),
     "item 1 (chit order=M units=B-Rec1) is not what blue sealed in packet {seq}: the file was changed since `pbem "
     "submit --seal` wrote it, and a sealed order cannot be changed (docs/protocol.md §8); restore the file from a "
     "copy"),
])
def test_a_kept_file_damaged_past_reading_is_named_when_its_item_is_due(tmp_path, damage, says):
    """The file in private/ that keeps what blue sealed, a line of it lost or its salt no longer
    hexadecimal: the packet that opens the chit ended `pbem submit` in a KeyError or a ValueError
    (a damaged-file probe). The look ahead leaves the chit due, as for a missing file (above), the
    packet that shows it warns of the file, and the packet that must open it is refused naming
    the file; nothing is written."""
    match = blue_to_move(tmp_path, "M")
    [kept] = (match.folders["blue"].path / "private").glob("seal-*-blue.yaml")
    seq = int(kept.name[5:9])
    kept.write_text(damage(kept.read_text()))
    warned = match.send("blue", orders("0102")).warnings     # the show: the chit is left due, and said why
    assert f"private/{kept.name}, where pbem kept the orders blue sealed in packet {seq}, no longer holds item " \
           f"{seq}.1 as sealed" in "\n".join(warned), warned
    while match.state()["awaiting"]["packet_from"] != "blue":
        step(match)
    assert match.state()["sealed"]["blue"]["due"] == [f"{seq}.1"]
    before = sorted(p.name for p in (match.folders["blue"].path / "packets").iterdir())
    with pytest.raises(VerificationError) as refused:
        submit_orders(match.folders["blue"], [{"type": "end"}], None, key=match.keys["blue"], sent="2026-11-29T10:00:00Z")
    assert refused.value.message == f"private/{kept.name}: " + says.format(seq=seq)
    assert sorted(p.name for p in (match.folders["blue"].path / "packets").iterdir()) == before
