"""kkoh's hidden orders through the real engine (DESIGN §3 sealed orders; K-ORD-1, K-MRK-1,
K-DF-5): each side's order chits are sealed, so neither sees the other's before its own are
fixed; the sealer must open exactly what it sealed in its next packet, so it can neither
change nor hold back its chits after seeing the other side's; every die the chits roll comes
from a segment after both were opened."""

from __future__ import annotations

import pytest

from pbem import rulesets
from pbem.core import engine, game
from pbem.core.audit import audit
from pbem.core.errors import PbemError, RulesError, VerificationError
from tests.support.games import Match


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def need(match: Match):
    return match.game.next_step(match.state()["rules"])


def drive_to(match: Match, kind: str, turn: int = 1, limit: int = 200):
    """Send acknowledgements (and `end` for every step of the sender's) until the game waits
    for `kind` in game turn `turn` and the side it waits for sends next."""
    for _ in range(limit):
        n = need(match)
        state = match.state()
        sender = state["awaiting"]["packet_from"]
        if n is not None and n.kind == kind and state["rules"]["turn"] == turn and n.side == sender:
            return n
        match.send(sender, [{"type": "end"}] if n is not None and n.side == sender and not n.decision else [])
    raise AssertionError(f"the game never waited for {kind}")


def chits_for(match: Match, side: str, n: int = 2) -> list[dict]:
    """`n` chit changes of different groups, and end."""
    options = match.game.legal_orders(match.state()["rules"], need(match))
    chosen, used = [], set()
    for o in options:
        if o["type"] == "chit" and o["units"][0] not in used and len(chosen) < n:
            chosen.append(o)
            used.add(o["units"][0])
    return chosen + [{"type": "end"}]


def test_order_chits_are_sealed_opened_in_order_and_rolled_after_both_are_fixed(tmp_path):
    match = Match(tmp_path, "kkoh", chain_length=512, key_seed="sealed")
    first = drive_to(match, "orders", turn=2)
    assert first.sealed and "sealed" in first.accepts
    second = "red" if first.side == "blue" else "blue"
    rules = match.state()["rules"]
    assert rules["initiative"] == second        # the side without initiative issues orders first (K-SEQ-1)
    mine = chits_for(match, first.side)
    sealing = match.send(first.side, mine, seal=True)
    assert [e["type"] for e in sealing.events if e["type"] in ("sealed", "sealed-orders")] == ["sealed", "sealed-orders"]
    # the other side sees a seal, never the chits (K-ORD-1, K-MRK-1)
    seen = match.state(second)["rules"]
    assert "chits" not in seen["plans"] and seen["plans"]["xc"]["sealed"] == {first.side: len(mine)}
    assert not any(o for o in match.state(second)["queue"] if o["side"] == first.side)
    n2 = need(match)
    assert (n2.side, n2.kind, n2.sealed) == (second, "orders", True)
    theirs = chits_for(match, second, 1)
    match.send(second, theirs, seal=True)
    # the first side's next packet must open exactly what it sealed
    opened = match.send(first.side, [])
    rules = match.state(second)["rules"]
    assert [p["units"] for p in rules["plans"]["chits"][first.side]] == [o["units"] for o in mine[:-1]]
    assert not [e for e in opened.events if e["type"] == "roll"]
    resolved = match.send(second, [])                       # opens the second side's; the tests wait for dice
    assert not [e for e in resolved.events if e["type"] == "chit-change"]
    after = match.send(first.side, [])
    tests = [e for e in after.events if e["type"] == "chit-change"]
    assert len(tests) == len(mine) - 1 + len(theirs) - 1
    rolls = [e for e in after.events if e["type"] == "roll" and "orders" in e["label"]]
    assert rolls and {e["segment"] for e in rolls} == {after.state["seq"]}
    assert [t["side"] for t in tests] == [first.side] * (len(mine) - 1) + [second] * (len(theirs) - 1)
    for folder in match.folders.values():
        assert audit(folder.path).ok


def test_a_sealer_cannot_change_or_hold_back_its_chits_after_seeing_the_others(tmp_path):
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="cheat")
    first = drive_to(match, "orders")
    second = "red" if first.side == "blue" else "blue"
    mine = chits_for(match, first.side)
    match.send(first.side, mine, seal=True)
    match.send(second, chits_for(match, second, 1), seal=True)
    folder = match.folders[first.side]
    state = folder.state
    g = folder.game
    from pbem.core import sealing

    pending = state["sealed"][first.side]
    honest = sealing.opening(folder, first.side, pending["due"])
    key = match.keys[first.side]
    # 1. not opening (holding the chits back) is refused
    quiet = game.build_packet(g, state, first.side, [], None, key, "")
    with pytest.raises(VerificationError, match="must open the 3 item"):
        engine.apply_packet(g, state, quiet, "quiet")
    # 2. opening other chits than were sealed is refused
    changed = [dict(o) for o in honest]
    changed[0] = {"salt": changed[0]["salt"], "item": dict(changed[0]["item"], order="HA" if changed[0]["item"]["order"] != "HA" else "HD")}
    altered = game.build_packet(g, state, first.side, [], None, key, "", {"opens": changed})
    with pytest.raises(VerificationError, match="differs from what"):
        engine.apply_packet(g, state, altered, "altered")
    # 3. dropping a sealed item is refused too
    fewer = game.build_packet(g, state, first.side, [], None, key, "", {"opens": honest[:-1]})
    with pytest.raises(VerificationError, match="sealed 3 item"):
        engine.apply_packet(g, state, fewer, "fewer")
    # 4. sealing again instead of opening is refused
    again = game.build_packet(g, state, first.side, [], None, key, "", {"opens": honest, "sealed": ["ab" * 32]})
    with pytest.raises(PbemError):
        engine.apply_packet(g, state, again, "again")
    # the honest opening goes through
    match.send(first.side, [])
    assert [p["order"] for p in match.state(second)["rules"]["plans"]["chits"][first.side]] == [o["order"] for o in mine[:-1]]


def test_orders_may_also_be_given_openly_and_the_other_side_still_seals(tmp_path):
    """A side may give its chits openly where the rules let it seal them (they are then public): the
    game goes on, and the other side still seals."""
    match = Match(tmp_path, "kkoh", chain_length=512, key_seed="open")
    first = drive_to(match, "orders", turn=2)
    second = "red" if first.side == "blue" else "blue"
    mine = chits_for(match, first.side)
    match.send(first.side, mine)
    assert [p["units"] for p in match.state(second)["rules"]["plans"]["chits"][first.side]] == [o["units"] for o in mine[:-1]]
    n = need(match)
    assert (n.side, n.kind, n.sealed) == (second, "orders", True)
    match.send(second, chits_for(match, second, 1), seal=True)
    match.send(first.side, [])
    match.send(second, [])                # opens; the tests wait for the next segment
    after = match.send(first.side, [])
    assert [e["side"] for e in after.events if e["type"] == "chit-change"] == [first.side] * 2 + [second]


def test_a_seal_where_no_sealed_orders_are_asked_is_refused(tmp_path):
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="noseal")
    state = match.state()
    sender = state["awaiting"]["packet_from"]
    with pytest.raises(RulesError, match="rules ask for no sealed orders"):
        match.send(sender, [{"type": "end"}], seal=True)


def test_both_fire_plans_are_sealed_and_every_die_comes_after_both_are_open(tmp_path):
    """K-DF-5: fire is simultaneous: each side seals its plan before seeing the other's; all the
    dice of both plans come from one later segment, rolled before any result applies."""
    from tests.test_kkoh_cases import scenario_doc

    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0202", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0203", "cell": "21", "facing": "S", "order": "M"}]})
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="fire", scenario_doc=doc)
    first = drive_to(match, "fire")
    second = "red" if first.side == "blue" else "blue"
    assert first.sealed
    mine = match.game.legal_orders(match.state()["rules"], first)
    match.send(first.side, [o for o in mine if o["type"] == "fire"] + [{"type": "end"}], seal=True)
    assert "fire" not in match.state(second)["rules"]["plans"]           # the second side sees only a seal
    theirs = match.game.legal_orders(match.state()["rules"], need(match))
    match.send(second, [o for o in theirs if o["type"] == "fire"] + [{"type": "end"}], seal=True)
    match.send(first.side, [])
    opened = match.send(second, [])
    assert not [e for e in opened.events if e["type"] == "fire"]
    after = match.send(first.side, [])
    shots = [e for e in after.events if e["type"] == "fire"]
    assert sorted(e["unit"] for e in shots) == ["B1", "R1"]
    kinds = [e["type"] for e in after.events]
    assert max(i for i, k in enumerate(kinds) if k == "fire") < min(
        [i for i, k in enumerate(kinds) if k in ("loss", "give-ground", "destroyed")] or [len(kinds)])
    assert {e["segment"] for e in after.events if e["type"] == "roll" and ".fire." in e["label"]} == {after.state["seq"]}
