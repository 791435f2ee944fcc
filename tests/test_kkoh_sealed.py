"""kkoh's hidden orders through the real engine (docs/protocol.md §8; K-ORD-1, K-ORD-4, K-ORD-6,
K-MRK-1, K-DF-5): each side seals one order chit for each battle group and lone unit; a chit
stays sealed - in no state, report or packet of the opponent - until the rules reveal it
(Direct Fire, Close Assault, a `show` before the group moves, the end of the turn); the sealer
must then open exactly what it sealed, so it can neither change nor hold back a chit after
seeing the other side's; every die a chit rolls comes from a segment after both were sealed."""

from __future__ import annotations

import re

import pytest

from pbem import rulesets
from pbem.core import engine, game, sealing
from pbem.core.canonical import dumps, load_mapping
from pbem.core.audit import audit
from pbem.core.errors import FileError, PbemError, RulesError, UsageError, VerificationError
from tests.support.games import Match


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def need(match: Match):
    return match.game.next_step(match.state()["rules"])


def step(match: Match, seal_orders: bool = True):
    """The sender's packet: `end` for a step of its own (sealed where the rules ask for
    sealed orders: one chit kept for each group), else an acknowledgement; `pbem submit`
    opens what is due."""
    n, state = need(match), match.state()
    sender = state["awaiting"]["packet_from"]
    mine = n is not None and n.side == sender and not n.decision and not n.opens
    if state["sealed"].get(sender, {}).get("due"):
        return match.send(sender, [])
    if n is not None and n.side == sender and state["awaiting"]["waiting_for"] == "decision":
        return match.send(sender, [answer(match)])                  # turn 1's minelets (K-SFX-5)
    return match.send(sender, [{"type": "end"}] if mine else [], seal=bool(mine and n.sealed and seal_orders))


def answer(match: Match) -> dict:
    """The first legal answer to the decision the game waits for, named."""
    state = match.state()
    return dict(match.game.legal_orders(state["rules"], need(match))[0], decision=state["awaiting"]["decision"])


def drive_to(match: Match, kind: str, turn: int = 1, limit: int = 300, seal_orders: bool = True):
    """Play `step`s until the game waits for `kind` in game turn `turn` and the side it waits
    for sends next."""
    for _ in range(limit):
        n = need(match)
        state = match.state()
        if n is not None and n.kind == kind and state["rules"]["turn"] == turn and n.side == state["awaiting"]["packet_from"]:
            return n
        step(match, seal_orders)
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


def folder_text(match: Match, side: str) -> str:
    root = match.folders[side].path
    return "".join(p.read_text() for kind in ("states", "aar", "packets") for p in sorted((root / kind).glob("*")))


def sealed_chits(match: Match, side: str) -> list[dict]:
    """The items `side` keeps in its private folder (its own, unopened chits)."""
    kept = sorted((match.folders[side].path / "private").glob(f"seal-*-{side}.yaml"))
    from pbem.core.canonical import load_mapping

    return [item for path in kept for item in load_mapping(path)["items"]]


def step_until(match: Match, kind: str, limit: int) -> list[dict]:
    """The events of `step`s until one brings an event of `kind` (at most `limit` of them)."""
    events = []
    for _ in range(limit):
        applied = step(match)
        events += applied.events
        if any(e["type"] == kind for e in applied.events):
            break
    return events


def hand_seal(match: Match, side: str, items: list) -> int:
    """`side` seals `items` as they are, with no check, as a cheater's own program would, and
    keeps them where `pbem submit` opens them from; every folder adjudicates the packet. Its seq."""
    folder, g, key = match.folders[side], match.game, match.keys[side]
    seq = folder.state["seq"] + 1
    salts = sealing.salts(g, seq, side, key, len(items))
    sealing.keep(folder, seq, side, items, salts)
    packet = game.build_packet(g, folder.state, side, [], None, key, "2026-11-29T10:00:00Z",
                               {"sealed": [engine.seal_hash(g.game_id, seq, side, s, i) for s, i in zip(salts, items)]})
    data = game.packet_yaml(packet).encode()
    for each in match.folders.values():
        game.adjudicate(each, packet, data, "crafted.yaml")
    return seq


def test_the_opponent_learns_no_test_die_before_the_chit_opens(tmp_path):
    """A players' probe: each sealed group's test die was said at Issuing Orders, and a change
    holds only on 3 or more (K-ORD-3), so a 1 told the opponent, for the whole turn, that the
    group kept the chit he had seen opened at the end of the last one (K-ORD-1, K-ORD-4,
    K-ORD-6). The die is drawn there and sealed with the group's item: made from the segment's
    seed and the item's salt (docs/protocol.md §8), known to its owner, said to the opponent
    only when the chit opens, and checked by audit."""
    from pbem.core import dice
    from tests.test_kkoh_sealed_templates import show, two_groups_each

    match = two_groups_each(tmp_path, chain_length=512)
    drive_to(match, "orders", turn=2)
    seq = match.send("red", [{"type": "chit", "units": ["R1"], "order": "M"}, {"type": "end"}], seal=True).state["seq"]
    match.send("blue", [{"type": "end"}], seal=True)
    step_until(match, "chit-test", 6)
    entry = next(e for e in match.state("blue")["rules"]["hidden"]["red"] if e["units"] == ["R1"])
    assert set(entry["draw"]) == {"label", "segment", "seed"} and entry["item"] == f"{seq}.1"
    salt = load_mapping(sealing.path(match.folders["red"], seq, "red"))["salts"][0]
    die = dice.sealed_die(entry["draw"], salt)
    assert len({dice.sealed_die(entry["draw"], f"{n:064x}") for n in range(12)}) > 1   # the salt decides it
    # blue's folder says the test and no die of it; red's own folder says what the die makes of the chit
    text = folder_text(match, "blue")
    assert ("R1: a sealed order chit, tested now; its test die is sealed with it, and shows when the chit is revealed, "
            "if it was to change (K-ORD-3, K-ORD-4, K-ORD-6).") in text
    assert not re.search(r"R1: die \d", text) and "test die is " not in text.replace("test die is sealed", "")
    assert not any("die" in line for line in show(match, "blue", "--unit", "R1"))
    assert f"when the rules reveal it: R1: die {die}, majority inferior -1 = {die - 1}: " in " ".join(
        show(match, "red", "--unit", "R1"))
    # at the opening the die is said, with its segment and item, and the chit follows from it
    events: list[dict] = []
    while not any(e["type"] == "chit-revealed" and e["units"] == ["R1"] for e in events) and len(events) < 2000:
        applied = step(match)
        events += applied.events
    revealed = next(e for e in events if e["type"] == "chit-revealed" and e["units"] == ["R1"])
    from pbem.core import report

    said = (match.folders["blue"].path / "aar" / f"{applied.state['seq']:04d}.md").read_text()
    assert said.count(report.SEALED_DICE_KEY) == 1 and report.SEALED_DICE_KEY not in text   # the key, where one is read
    assert revealed["die"] == die and revealed["success"] == (die - 1 >= 3)
    roll = next(e for e in events if e["type"] == "roll" and e.get("item") == f"{seq}.1")
    assert roll["value"] == die and roll["text"] == (f"Die: {die} (segment {entry['draw']['segment']}, "
                                                      f"{entry['draw']['label']}, sealed with item {seq}.1).")
    for side in ("blue", "red"):
        assert audit(match.folders[side].path).ok


def test_chits_are_sealed_one_per_group_tested_at_once_and_hidden_from_the_opponent(tmp_path):
    match = Match(tmp_path, "kkoh", chain_length=512, key_seed="sealed")
    first = drive_to(match, "orders", turn=2)
    assert first.sealed and first.reveal == "asked" and "sealed" in first.accepts
    second = "red" if first.side == "blue" else "blue"
    assert match.state()["rules"]["initiative"] == second      # the side without initiative issues orders first (K-SEQ-1)
    groups = match.game.legal_orders(match.state()["rules"], first)
    bodies = len({tuple(o["units"]) for o in groups if o["type"] == "chit"})
    mine = chits_for(match, first.side)
    sealing_packet = match.send(first.side, mine, seal=True)
    items = sealed_chits(match, first.side)
    assert len(items) == len(game.read_packet(sealing_packet.packet_path)[0]["sealed"]) >= bodies
    changed = {tuple(o["units"]): o["order"] for o in mine[:-1]}
    assert [i["order"] for i in items if tuple(i["units"]) in changed] == list(changed.values())
    match.send(second, chits_for(match, second, 1), seal=True)
    tested = step(match)                                         # the tests: one die drawn for every sealed group
    tests = [e for e in tested.events if e["type"] == "chit-test"]
    assert len(tests) == len(items) + len(sealed_chits(match, second))
    # each drawn in this segment and sealed with its group's item: no die is said (K-ORD-4)
    draws = [e["draw"] for entries in tested.state["rules"]["hidden"].values() for e in entries]
    assert len(draws) == len(tests) and {d["segment"] for d in draws} == {tested.state["seq"]}
    assert not any(e["type"] == "roll" and ".orders." in e["label"] for e in tested.events)
    assert not any("die" in e for e in tests)
    # the opponent knows neither a die nor the chit: they are in no state, report or packet
    seal_seq = game.read_packet(sealing_packet.packet_path)[0]["seq"]
    state = match.state(second)
    for item in items:
        assert all(state["rules"]["pieces"][u]["o"] is None for u in item["units"] if u in state["rules"]["pieces"])
    text = folder_text(match, second)
    assert f"(item {seal_seq}." not in text and f'seal: "{seal_seq}.' not in text
    assert not any(e["type"] == "chit-change" for e in tested.events)
    assert (match.folders[first.side].path / "private").is_dir()
    assert not list((match.folders[second].path / "private").glob(f"seal-*-{first.side}.yaml"))


def test_the_end_of_the_turn_reveals_every_chit_the_turn_did_not(tmp_path):
    """§8: the next turn's chit is a change from this one, so the chits the turn kept hidden
    are revealed at its end, and the core refuses a new seal over unopened ones."""
    match = Match(tmp_path, "kkoh", chain_length=1024, key_seed="turn-end")
    drive_to(match, "orders", turn=2)
    assert match.state()["sealed"] == {}                         # every chit of turn 1 is open
    rules = match.state()["rules"]
    assert all(rec["o"] is not None for rec in rules["pieces"].values()) and "hidden" not in rules
    reports = folder_text(match, "blue")
    assert "revealed (item" in reports
    for folder in match.folders.values():
        assert audit(folder.path).ok


def test_a_sealer_cannot_change_or_hold_back_a_chit_the_rules_reveal(tmp_path):
    match = Match(tmp_path, "kkoh", chain_length=1024, key_seed="cheat")
    for _ in range(300):
        n, state = need(match), match.state()
        if n is not None and n.opens and state["awaiting"]["packet_from"] == n.side:
            break
        step(match)
    else:
        raise AssertionError("the rules never revealed a chit")
    side = n.side
    folder = match.folders[side]
    state, g, key = folder.state, folder.game, match.keys[side]
    due = state["sealed"][side]["due"]
    assert list(n.opens) == due
    honest = sealing.opening(folder, side, due)
    # 1. holding the chits back is refused
    quiet = game.build_packet(g, state, side, [], None, key, "")
    with pytest.raises(VerificationError, match=f"must open its sealed item\\(s\\) {due[0]}"):
        engine.apply_packet(g, state, quiet, "quiet")
    # 2. opening another chit than was sealed is refused
    changed = [dict(o) for o in honest]
    other_order = "HD" if changed[0]["item"]["order"] != "HD" else "HA"
    changed[0] = dict(changed[0], item=dict(changed[0]["item"], order=other_order))
    with pytest.raises(VerificationError, match="differs from what"):
        engine.apply_packet(g, state, game.build_packet(g, state, side, [], None, key, "", {"opens": changed}), "altered")
    # 3. opening a chit the rules have not revealed is refused
    kept = [item["id"] for item in state["sealed"][side]["items"] if item["id"] not in due]
    if kept:
        seq, number = (int(x) for x in kept[0].split("."))
        salt = sealing.salts(g, seq, side, key, number)[-1].hex()
        early = honest + [{"seal": kept[0], "salt": salt, "item": {"type": "end"}}]
        with pytest.raises(VerificationError, match=f"opens item {kept[0]}, which the rules have not revealed"):
            engine.apply_packet(g, state, game.build_packet(g, state, side, [], None, key, "", {"opens": early}), "early")
    # 4. the sealer's own file changed since it was sealed (a mind changed): `pbem submit` names
    #    the file and the item (players' probe: "opened item 12 or its salt differs")
    seq, number = (int(x) for x in due[0].split("."))
    kept_file = sealing.path(folder, seq, side)
    original = kept_file.read_text()
    record = load_mapping(kept_file)
    record["items"][number - 1] = dict(record["items"][number - 1], order=other_order)
    kept_file.write_text(dumps(record))
    with pytest.raises(VerificationError, match=rf"^private/seal-{seq:04d}-{side}\.yaml: item {number} \(chit "
                                                rf".*order={other_order}.*\) is not what {side} sealed in packet {seq}: "
                                                rf"the file was changed since"):
        sealing.opening(folder, side, due)
    kept_file.write_text(original)
    # the honest opening goes through and reveals the chit
    applied = match.send(side, [])
    revealed = [e for e in applied.events if e["type"] == "chit-revealed"]
    assert [e["item"] for e in revealed] == due


def test_direct_fire_reveals_the_firers_and_targets_chits_before_its_dice(tmp_path):
    """K-ORD-6: a chit is revealed when it may change a Direct Fire roll; pbem opens the chits of
    every firer and target (it cannot tell without opening whether one changes the roll), and
    the fire dice come from a segment after both openings (K-DF-5)."""
    from tests.test_kkoh_cases import scenario_doc

    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0202", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0203", "cell": "21", "facing": "S", "order": "M"}]})
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="fire", scenario_doc=doc)
    first = drive_to(match, "fire")
    second = "red" if first.side == "blue" else "blue"
    assert match.state()["rules"]["pieces"]["B1"]["o"] is None and match.state()["rules"]["pieces"]["R1"]["o"] is None
    mine = match.game.legal_orders(match.state()["rules"], first)
    match.send(first.side, [o for o in mine if o["type"] == "fire"] + [{"type": "end"}], seal=True)
    theirs = match.game.legal_orders(match.state()["rules"], need(match))
    match.send(second, [o for o in theirs if o["type"] == "fire"] + [{"type": "end"}], seal=True)
    events, openings = [], []
    for _ in range(12):
        applied = step(match)
        events += [dict(e, packet=applied.state["seq"]) for e in applied.events]
        if "opens" in game.read_packet(applied.packet_path)[0]:
            openings.append(applied.state["seq"])
        if any(e["type"] == "fire" for e in applied.events):
            break
    kinds = [e["type"] for e in events]
    revealed = [e for e in events if e["type"] == "chit-revealed"]
    assert sorted(u for e in revealed for u in e["units"]) == ["B1", "R1"]
    assert max(kinds.index("chit-revealed"), len(kinds) - 1 - kinds[::-1].index("chit-revealed")) < kinds.index("fire")
    shots = [e for e in events if e["type"] == "fire"]
    assert sorted(e["unit"] for e in shots) == ["B1", "R1"]
    assert {e["segment"] for e in events if e["type"] == "roll" and ".fire." in e["label"]} == {shots[0]["packet"]}
    assert len(openings) >= 2 and shots[0]["packet"] > max(openings)      # the chits' openings, then the fire plans'
    for e in revealed:
        assert e["order"] == "M"          # the scenario's chits, kept at deployment (no chit was given)
    for folder in match.folders.values():
        assert audit(folder.path).ok


def test_a_group_with_a_sealed_chit_shows_it_before_it_moves(tmp_path):
    """pbem checks a move against the chit (K-ORD-5, K-MOV-4): a move of a group whose chit is
    sealed is refused until a `show` has revealed it; then it moves."""
    from tests.test_kkoh_cases import scenario_doc

    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "M"},
        # M for both: which side moves first is the initiative dice's, and only M moves in Action Phase 1
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0505", "cell": "21", "facing": "S", "order": "M"}]})
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="show", scenario_doc=doc)
    n = drive_to(match, "move")
    side = n.side
    unit = "B1" if side == "blue" else "R1"
    options = match.game.legal_orders(match.state()["rules"], n)
    assert {"type": "show", "units": [unit]} in options and not any(o["type"] == "move" for o in options)
    square = match.state()["rules"]["pieces"][unit]["sq"]
    move = {"type": "move", "units": [unit], "to": square, "facing": "E"}
    with pytest.raises(RulesError, match=f"move: the order chit of {unit} is sealed: show it first"):
        match.send(side, [move])
    # the packet that shows the chit opens it too (docs/protocol.md §8), and its move goes on
    # at once (a players' probe: it took an empty packet of the opponent's and one that only
    # opened the chit)
    shown = match.send(side, [{"type": "show", "units": [unit]}, move, {"type": "end"}])
    assert [e["units"] for e in shown.events if e["type"] == "chit-revealed"] == [[unit]]
    assert [entry["seal"] for entry in load_mapping(shown.packet_path)["opens"]] == \
        [e["items"] for e in shown.events if e["type"] == "opened"][0]
    assert match.state()["rules"]["pieces"][unit]["o"] is not None
    assert match.state()["rules"]["pieces"][unit]["f"] == "E", "\n".join(e["text"] for e in shown.events)
    assert side not in match.state()["sealed"] or not match.state()["sealed"][side]["due"]


def test_orders_may_also_be_given_openly_and_the_other_side_still_seals(tmp_path):
    """A side may give its chits openly where the rules let it seal them (they are then public and
    tested at once): the game goes on, and the other side's stay sealed."""
    match = Match(tmp_path, "kkoh", chain_length=512, key_seed="open")
    first = drive_to(match, "orders", turn=2)
    second = "red" if first.side == "blue" else "blue"
    mine = chits_for(match, first.side)
    # legal, but most often `--seal` left out: open orders where sealed ones are asked are refused
    # unless the sender says so (players' probe: the warning came after signing, the chits shown for good)
    seq = match.state(first.side)["seq"]
    with pytest.raises(UsageError) as refused:
        match.send(first.side, mine)
    assert refused.value.message.startswith("orders: the rules ask you for sealed orders (")
    assert refused.value.message.endswith("), and these are not sealed: `pbem submit --seal` seals them; to send "
                                          "them open, for your opponent to read, give --no-seal (nothing was signed "
                                          "or sent)")
    folder = match.folders[first.side]
    assert folder.state["seq"] == seq and not list((folder.path / "packets").glob(f"{seq + 1:04d}-*"))   # nothing signed
    match.send(first.side, mine, seal=False)
    assert [p["units"] for p in match.state(second)["rules"]["plans"]["chits"][first.side]] == [o["units"] for o in mine[:-1]]
    n = need(match)
    assert (n.side, n.kind, n.sealed) == (second, "orders", True)
    assert not any("not sealed" in w for w in match.send(second, chits_for(match, second, 1), seal=True).warnings)
    after = step(match)
    assert [e["side"] for e in after.events if e["type"] == "chit-change"] == [first.side] * 2
    assert {e["side"] for e in after.events if e["type"] == "chit-test"} == {second}


def test_a_seal_where_no_sealed_orders_are_asked_is_refused(tmp_path):
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="noseal")
    state = match.state()
    sender = state["awaiting"]["packet_from"]
    with pytest.raises(RulesError, match="rules ask for no sealed orders"):
        match.send(sender, [{"type": "end"}], seal=True)


def test_a_seal_of_the_wrong_number_of_chits_is_refused(tmp_path):
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="count")
    first = drive_to(match, "orders")
    folder = match.folders[first.side]
    state, g, key = folder.state, folder.game, match.keys[first.side]
    packet = game.build_packet(g, state, first.side, [], None, key, "", {"sealed": ["ab" * 32]})
    with pytest.raises(PbemError, match="seal one order chit for each of your"):
        engine.apply_packet(g, state, packet, "one")


def test_a_close_assault_reveals_the_defenders_chits_before_the_fight(tmp_path):
    """K-ORD-6: the chits of everyone engaged are revealed in a Close Assault (here the
    defender's, which no fire revealed: neither unit faces the other), before its dice."""
    from tests.test_kkoh_cases import scenario_doc

    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0202", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0203", "cell": "01", "facing": "N", "order": "HD"}]})
    match = Match(tmp_path, "kkoh", chain_length=512, key_seed="assault", scenario_doc=doc)
    for _ in range(100):
        n = drive_to(match, "move")
        if n.side == "blue":
            break
        step(match)
    match.send("blue", [{"type": "show", "units": ["B1"]}])
    step(match)
    match.send("blue", [])                                        # opens B1's chit
    step(match)
    assert match.state()["rules"]["pieces"]["R1"]["o"] is None    # the defender's chit is still sealed
    options = match.game.legal_orders(match.state()["rules"], need(match))
    attack = next(o for o in options if o["type"] == "assault" and o["target"] == "0203")
    match.send("blue", [attack, {"type": "end"}])
    events = step_until(match, "orders-revealed", 20)
    kinds = [e["type"] for e in events]
    revealed = [e for e in events if e["type"] == "chit-revealed"]
    assert [e["units"] for e in revealed] == [["R1"]] and revealed[0]["order"] == "HD"
    assert kinds.index("chit-revealed") < kinds.index("orders-revealed")
    shown = next(e for e in events if e["type"] == "orders-revealed")
    assert shown["orders"] == {"B1": "M", "R1": "HD"}
    for folder in match.folders.values():
        assert audit(folder.path).ok


def test_the_owner_places_his_minelets_in_his_first_packet(tmp_path):
    """K-SFX-5: "the owner places one marker in a square of his choice". State 0 waits for blue's
    minelets, whose standing order is `ask`: `pbem orders` offers the answer, blue's packet 1
    gives the square and the marker goes there (the other to an adjoining square, by a die);
    an answer the rules refuse (a pair or square that does not exist) refuses the packet."""
    from pbem.core import templates

    match = Match(tmp_path, "kkoh")
    state = match.state("blue")
    assert state["awaiting"]["decision"] == "0.0/minelets"
    text = templates.orders_template(match.game, state, "blue")
    suggested = match.game.policy(state["rules"], engine.awaited_need(state), {"minelets": "enemy-front"})
    assert "This decision is 0.0/minelets" in text
    assert f'\n  - {{type: minelets, pair: blue-1, square: "{suggested["square"]}", decision: "0.0/minelets"}}' in text
    for pair, square in (("blue-9", "1505"), ("blue-1", "9999")):
        with pytest.raises(RulesError):
            match.send("blue", [{"type": "minelets", "pair": pair, "square": square, "decision": "0.0/minelets"}])
    assert match.state("blue")["seq"] == 0                            # nothing applied
    applied = match.send("blue", [{"type": "minelets", "pair": "blue-1", "square": "1505", "decision": "0.0/minelets"}])
    assert [m["square"] for m in applied.state["rules"]["minelets"]] == ["1505"]    # the die of the other: next segment
    assert applied.state["awaiting"]["waiting_for"] == "dice"
    second = match.send("red", []).state["rules"]["minelets"][1]["square"]
    assert second in ("1405", "1605", "1504", "1506")                # an edge-neighbour (K-SFX-5 reading)


def test_the_chit_template_says_each_groups_chit_now_and_tests_only_after_turn_1(tmp_path):
    """K-ORD-1: turn 1's chits are the deployment's, with no test; from turn 2 each change is
    tested (K-ORD-3). The template says which, and what every group carries now, the chit it
    keeps unless changed (players' probe: it described a test on turn 1, and gave nothing to
    compare the options against)."""
    from pbem.rulesets.kkoh import report
    from pbem.rulesets.base import IllegalOrder
    from pbem.rulesets.kkoh.state import Board
    from pbem.rulesets.kkoh import command

    match = Match(tmp_path, "kkoh", chain_length=1024, key_seed="chits-now")
    for turn, said in ((1, "On turn 1 these are the deployment's chits: any order but FA and FD, and no test (K-ORD-1)."),
                       (2, "Every group's test is rolled now (K-ORD-3)")):
        n = drive_to(match, "orders", turn=turn)
        rules = match.state()["rules"]
        text = " ".join(report.describe_need(match.game.scenario, rules, n))
        assert said in text
        board = Board(match.game.scenario, rules)
        body = command.bodies(board, n.side)[0]
        assert f"Chits now (kept unless changed): {', '.join(body)}: {board.order(body[0])};" in text
        if turn == 1:   # FA at deployment is refused under the deployment's rule, not a change's (a new user's probe)
            with pytest.raises(IllegalOrder) as refused:
                command.check_chit(match.game.scenario, rules, n.side, {"type": "chit", "units": body, "order": "FA"})
            assert (refused.value.rule, refused.value.message.split(":")[1].strip()) == (
                "K-ORD-1", f"at deployment {', '.join(body)} may be given any order but FA and FD (they are the "
                           "scenario's alone)")


def test_a_show_is_offered_for_each_sealed_group_not_only_for_all_at_once(tmp_path):
    """A chit shown is seen by the opponent: the template offers a `show` of each group, so
    that a player shows only those he will move, and not one of them all (players' probes: the
    only `show` offered named every unit of the side; then, listed beside the others, the one
    of them all was copied and gave a whole deployment away)."""
    from tests.test_kkoh_cases import scenario_doc

    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "M"},
        {"id": "B2", "side": "blue", "row": "tank-1", "square": "0301", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0505", "cell": "21", "facing": "S", "order": "HA"},
        {"id": "R2", "side": "red", "row": "tr1-tank", "square": "0305", "cell": "21", "facing": "S", "order": "HA"}]})
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="show-each", scenario_doc=doc)
    n = drive_to(match, "move")
    units = ["B1", "B2"] if n.side == "blue" else ["R1", "R2"]
    shows = [o["units"] for o in match.game.listing(match.state()["rules"], n)[0] if o["type"] == "show"]
    assert shows == [[units[0]], [units[1]]]
    # the bots' representative set keeps one show of them all, and the engine takes it
    assert [o["units"] for o in match.game.legal_orders(match.state()["rules"], n) if o["type"] == "show"] == [units]


def test_a_template_whose_reveal_comes_to_the_senders_sealed_orders_fills_them_in_and_says_seal(tmp_path):
    """A referee's probe: red's packet 2 reveals the dice of its initiative roll and so comes to
    red's own sealed chits; the template said orders below take effect in this same packet over
    `orders: []`, with no word of --seal, and a packet sent as it stood cost a round trip."""
    from pbem.core.templates import orders_template

    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="look-2")
    step(match)                                                   # blue's packet 1
    state = match.state("red")
    assert state["awaiting"]["packet_from"] == "red" and state["awaiting"]["waiting_for"] == "dice"
    text = orders_template(match.game, state, "red", match.keys["red"])
    assert ("# Your reveal resolves what is queued, and then the game comes to your own sealed orders.\n"
            "# Write them below and send this packet with `pbem submit --seal`: they are sealed in this\n"
            "# same packet (a round trip saved); your opponent sees only their seals.\n") in text
    assert "orders:\n  - {type: end}\n" in text and "Your opponent reads this packet whole" not in text
    with pytest.raises(UsageError) as refused:   # --seal forgotten: the step its reveal brings is sealed (a review)
        match.send("red", [{"type": "end"}])
    assert "the rules ask you for sealed orders (turn 1: seal your order chits" in refused.value.message
    sent = match.send("red", [{"type": "end"}], seal=True)        # as filled in: every group keeps its chit
    assert sent.state["sealed"]["red"]["items"] and sent.state["awaiting"]["packet_from"] == "blue"


def _fire_match(tmp_path, n: int = 3) -> Match:
    """Three blue tanks facing three red ones across a square edge, every chit M."""
    from tests.test_kkoh_cases import scenario_doc

    units = []
    for i in range(1, n + 1):
        units += [{"id": f"B{i}", "side": "blue", "row": "tank-1", "square": f"0{i}02", "cell": "01", "facing": "N",
                   "order": "M"},
                  {"id": f"R{i}", "side": "red", "row": "tr1-tank", "square": f"0{i}03", "cell": "21", "facing": "S",
                   "order": "M"}]
    doc = scenario_doc({"columns": 6, "rows": 6, "units": units})
    return Match(tmp_path, "kkoh", chain_length=256, key_seed="padding", scenario_doc=doc)


def _second_seals_and_both_fire(match: Match, second: str) -> list[dict]:
    """`second` seals a plan of one shot; both plans are opened and fired: the events."""
    theirs = [o for o in match.game.legal_orders(match.state()["rules"], need(match)) if o["type"] == "fire"]
    match.send(second, theirs[:1] + [{"type": "end"}], seal=True)
    return step_until(match, "fire", 12)


@pytest.mark.parametrize("shots", [0, 1, 3])
def test_a_sealed_fire_plan_shows_its_opponent_no_count_of_its_shots(tmp_path, shots):
    """K-DF-5: Direct Fire is simultaneous, and the side that seals second saw the first side's
    number of items, so its number of shots (a cheater's probe). `pbem submit --seal` pads a plan
    with `end` to one item more than the side has units on the table, whatever it holds; opened,
    the padding is part of the plan, never an order for a later step."""
    match = _fire_match(tmp_path)
    first = drive_to(match, "fire")
    second = "red" if first.side == "blue" else "blue"
    mine = [o for o in match.game.legal_orders(match.state()["rules"], first) if o["type"] == "fire"]
    planned = list({o["unit"]: o for o in mine}.values())[:shots]
    applied = match.send(first.side, planned + [{"type": "end"}], seal=True)
    assert len(game.read_packet(applied.packet_path)[0]["sealed"]) == 4
    assert [e["text"] for e in applied.events if e["type"] == "sealed-orders"] == [
        f"{first.side} has sealed its fire plan (4 items)."]
    events = _second_seals_and_both_fire(match, second)
    assert sorted(e["unit"] for e in events if e["type"] == "fire" and e.get("side") == first.side) == \
        sorted(o["unit"] for o in planned)
    assert not [e for e in events if e["type"] in ("void", "void-item")]
    assert not [q for q in match.state()["queue"] if q["side"] == first.side]   # no padding left queued
    # the report says what the `end`s after the plan's end are (a players' probe: "orders 2 to 84:
    # end, each" read as a mistake); the second side's plan of one shot has 2 after its end
    padding = {e["side"]: e["text"] for e in events if e["type"] == "fire-padding"}
    assert padding == {side: f"{side}'s fire plan ends at its first `end`; the {n} item{'s' if n > 1 else ''} after it "
                             f"{'are' if n > 1 else 'is'} padding, which pbem seals with every plan (one item for each "
                             f"unit on the table, and an end) so that how many shots it holds tells the opponent "
                             f"nothing (K-DF-5)." for side, n in ((first.side, 3 - shots), (second, 2)) if n}
    for folder in match.folders.values():
        assert audit(folder.path).ok


def _uneven_match(tmp_path) -> Match:
    """Two blue tanks and two red ones across an edge: two shots at one and none at the other is
    uneven (K-DF-5)."""
    from tests.test_kkoh_cases import scenario_doc

    units = [{"id": "B1", "side": "blue", "row": "tank-1", "square": "0202", "cell": "01", "facing": "N", "order": "M"},
             {"id": "B2", "side": "blue", "row": "tank-1", "square": "0202", "cell": "02", "facing": "N", "order": "M"},
             {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0203", "cell": "21", "facing": "S", "order": "M"},
             {"id": "R2", "side": "red", "row": "tr1-tank", "square": "0203", "cell": "20", "facing": "S", "order": "M"}]
    return Match(tmp_path, "kkoh", chain_length=256, key_seed="uneven",
                 scenario_doc=scenario_doc({"columns": 6, "rows": 6, "units": units}))


def _uneven_plan(first) -> list[dict]:
    me, them = ("B", "R") if first.side == "blue" else ("R", "B")
    return [{"type": "fire", "unit": f"{me}1", "target": f"{them}1"},
            {"type": "fire", "unit": f"{me}2", "target": f"{them}1"}, {"type": "end"}]


def test_a_sealed_plan_that_turns_uneven_is_void_in_part_and_submit_goes_on(tmp_path, monkeypatch):
    """K-DF-5: two shots at R1 and none at R2 is uneven: opened, one of them is void. `pbem
    submit`, opening it, failed after signing with a KeyError (it read the rules' void item as
    one of the engine's void orders); it now applies the packet and says which is void. (`pbem
    submit --seal` refuses to seal such a plan; a packet made by another program seals what it
    likes, as this one does with that check off.)"""
    from pbem.rulesets.kkoh import command

    monkeypatch.setattr(command, "_check_plan", lambda *args: None)
    match = _uneven_match(tmp_path)
    first = drive_to(match, "fire")
    second = "red" if first.side == "blue" else "blue"
    match.send(first.side, _uneven_plan(first), seal=True)
    events = _second_seals_and_both_fire(match, second)
    void = [e["text"] for e in events if e["type"] == "void-item"]
    assert len(void) == 1 and void[0].startswith(f"{first.side}'s sealed fire of ") and "is void" in void[0]
    for folder in match.folders.values():
        assert audit(folder.path).ok


def test_a_fire_plan_longer_than_any_plan_can_be_is_refused_before_sealing(tmp_path):
    """Padding hides the count of shots only if no plan is longer than the padded size: one shot
    for each unit on the table and `end`. More could only be orders of later steps, void once
    opened and seen in the count (a review): `pbem submit --seal` refuses them."""
    match = _fire_match(tmp_path)
    first = drive_to(match, "fire")
    rules = match.state()["rules"]
    mine = [o for o in match.game.legal_orders(rules, first) if o["type"] == "fire"]
    assert len(match.game.seal_items(rules, first, mine[:1] + [{"type": "end"}])) == 4
    from pbem.rulesets.base import IllegalOrder

    with pytest.raises(IllegalOrder, match="a fire plan is at most one shot for each of your 3 units on the table and end"):
        match.game.seal_items(rules, first, mine[:1] + [{"type": "end"}] * 4)


@pytest.mark.parametrize("item", ["fire", {"type": "fire", "unit": ["B1"], "target": "R1"}])
def test_a_malformed_item_to_seal_is_refused_by_the_schema_before_the_rules_read_it(tmp_path, item):
    """A review: the fire plan's check read the items before the orders schema had, so an item
    that is no order, or a unit id that is a list, broke `pbem submit --seal` with a traceback."""
    match = _fire_match(tmp_path)
    first = drive_to(match, "fire")
    with pytest.raises(RulesError) as refused:
        match.send(first.side, [item, {"type": "end"}], seal=True)
    assert refused.value.message.startswith("order 1") or ": order 1" in refused.value.message
    assert refused.value.message.endswith("; nothing was sealed or signed")


@pytest.mark.parametrize("plan, refusal", [
    ([{"type": "fire", "unit": "X9", "target": "{them}1"}],
     "item 1: fire: 'X9' is not a unit of {me_side} on the table (K-DF-3)"),
    ([{"type": "fire", "unit": "{them}1", "target": "{me}1"}],
     "item 1: fire: '{them}1' is not a unit of {me_side} on the table (K-DF-3)"),
    ([{"type": "fire", "unit": "{me}1", "target": "{them}1"}, {"type": "fire", "unit": "{me}1", "target": "{them}2"}],
     "item 2: fire: {me}1 already has its target this Action Phase (K-DF-5)"),
    ([{"type": "move", "units": ["{me}1"], "to": "0204", "facing": "N"}],
     "item 1: move: a fire plan holds fire orders and end only (K-DF-5)"),
    ([{"type": "end"}, {"type": "fire", "unit": "{me}1", "target": "{them}1"}],
     "item 2 (fire) comes after the plan's end, where it would be void: end the plan after its last shot (K-DF-5)"),
    ([{"type": "fire", "unit": "{me}1", "target": "{them}1"}, {"type": "fire", "unit": "{me}2", "target": "{them}1"}],
     "the plan would lose a shot when it opens: fire must be spread as evenly as possible"),
])
def test_a_fire_plan_is_checked_before_it_is_sealed_as_if_given_openly(tmp_path, plan, refusal):
    """A sealed fire plan was not checked at all (a players' probe): a typo in a unit id, a shot
    by an enemy unit or a move order was sealed, `--dry-run` called the packet legal, and the
    fire was lost, void, when the plan opened. Nothing moves between sealing and opening, so
    `pbem submit --seal` checks the plan as an open one is checked, and refuses it with nothing
    sealed or signed."""
    match = _uneven_match(tmp_path)
    first = drive_to(match, "fire")
    me, them = ("B", "R") if first.side == "blue" else ("R", "B")
    orders = [{k: ([u.format(me=me, them=them) for u in v] if isinstance(v, list) else v.format(me=me, them=them))
               for k, v in order.items()} for order in plan] + [{"type": "end"}]
    before = folder_text(match, first.side)
    with pytest.raises(RulesError) as refused:
        match.send(first.side, orders, seal=True)
    assert refused.value.message.endswith("; nothing was sealed or signed"), refused.value.message
    assert "the orders cannot be sealed: " + refusal.format(me=me, them=them, me_side=first.side) \
        in refused.value.message
    cited = re.findall(r"K-[A-Z]+-\d+", refused.value.message)   # each rule once (a probe: "(K-DF-3) (K-DF-3)")
    assert cited and len(cited) == len(set(cited)), refused.value.message
    assert folder_text(match, first.side) == before
    # the same plan, mended, is sealed
    sent = match.send(first.side, [{"type": "fire", "unit": f"{me}1", "target": f"{them}1"},
                                   {"type": "fire", "unit": f"{me}2", "target": f"{them}2"}, {"type": "end"}], seal=True)
    assert sent.state["sealed"][first.side]["items"]


def test_the_template_of_the_packet_that_opens_a_fire_plan_fills_in_no_end(tmp_path):
    """The packet that opens a side's sealed fire plan: `pbem orders` filled in `end` for the
    step, though the opened plan takes it whole (its own `end` and padding); sent as it was, the
    `end` stayed queued and, packets later, ended that side's movement unasked (a players'
    probe). The template now fills in nothing and says why; sent as it is, nothing is left in
    the queue."""
    from pbem.core.templates import orders_template

    match = _fire_match(tmp_path)
    first = drive_to(match, "fire")
    second = "red" if first.side == "blue" else "blue"
    match.send(first.side, [{"type": "end"}], seal=True)
    match.send(second, [{"type": "end"}], seal=True)
    state = match.state()
    assert (state["awaiting"]["packet_from"], need(match).kind, bool(state["sealed"][first.side]["due"])) == \
        (first.side, "fire-open", True)
    text = orders_template(match.game, state, first.side, match.keys[first.side])
    assert "\norders: []\n" in text and "  - {type: end}" not in text
    assert "# This step takes only the items you sealed, opened: write no orders for it. An order written\n" \
           "# here waits in the queue for a later step of yours, and applies there.\n" in text
    match.send(first.side, [])
    assert not [item for item in match.state()["queue"] if item["side"] == first.side]


def test_a_lost_private_seal_file_is_said_by_orders_and_status_before_submit_fails(tmp_path):
    """A players' probe: with private/ lost, `pbem orders` and `pbem status --key` still said
    `pbem submit` would open the sealed chits from it, and submit failed only when one was due,
    with no word of what to do. Both warn now, naming the file and the way back; the file's own
    header says to keep it (it said "until your next packet opens them", though chits stay
    sealed for many packets)."""
    import os

    from click.testing import CliRunner

    from pbem.cli import cli
    from pbem.core import keys

    match = _fire_match(tmp_path)
    drive_to(match, "move")                          # both sides' chits sealed at Issuing Orders
    side = "red"
    folder = match.folders[side]
    [kept] = sorted((folder.path / "private").glob(f"seal-*-{side}.yaml"))
    assert kept.read_text().startswith("# pbem: orders you sealed; keep this file private, and keep it: `pbem submit` "
                                       "opens each order\n# from it when the rules reveal it")
    key_file = tmp_path / "red-key"
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(keys.private_key_bytes(match.keys[side]))
    runner = CliRunner()
    for command in ("orders", "status"):
        result = runner.invoke(cli, [command, str(folder.path), "--key", str(key_file)])
        assert result.exit_code == 0 and "warning:" not in result.stderr
    seq = int(kept.name.split("-")[1])
    # the sealer reads what she sealed in her own template (a new user's probe: only by opening
    # private/ by hand); without the key, as an onlooker would run it, nothing of it
    from pbem.core.canonical import load_mapping
    from pbem.core.templates import flow

    items = load_mapping(kept, kept.name)["items"]
    template = runner.invoke(cli, ["orders", str(folder.path), "--key", str(key_file)]).output
    assert "stay sealed until the rules reveal them: what you sealed (kept in private/, for your eyes only):\n" in template
    assert f"#   {seq}.1: {flow(items[0])}\n#   {seq}.2: {flow(items[1])}\n" in template
    onlooker = runner.invoke(cli, ["orders", str(folder.path), "--side", side]).output
    assert flow(items[0]) not in onlooker
    # edited by hand, or damaged: the template is still written, without the items it cannot vouch
    # for, and both commands say so (a cheater's probe: the item was left out, unsaid)
    whole = kept.read_text()
    kept.write_text(whole.replace("salts: [", "salts: [" + "ab" * 32 + ", ", 1))   # every salt one place on
    edited = (f"warning: private/{kept.name}, where pbem kept the orders {side} sealed in packet {seq}, no longer "
              f"holds items {', '.join(f'{seq}.{n}' for n in range(1, len(items) + 1))} as sealed (the file was "
              f"damaged or changed since `pbem submit --seal` wrote it): `pbem submit` cannot open them when the rules "
              f"reveal them, and the game stops there; restore the file from a copy\n")
    for command in ("orders", "status"):
        result = runner.invoke(cli, [command, str(folder.path), "--key", str(key_file)])
        assert (result.exit_code, result.stderr) == (0, edited)
    kept.write_text("items: [\n")
    damaged = runner.invoke(cli, ["orders", str(folder.path), "--key", str(key_file)])
    assert damaged.exit_code == 0 and "stay sealed until the rules reveal them.\n" in damaged.output
    assert damaged.stderr == edited
    kept.unlink()
    warning = (f"warning: private/{kept.name}, where pbem kept the orders {side} sealed in packet {seq}, is missing: "
               f"`pbem submit` cannot open them when the rules reveal them, and the game stops there; copy it back "
               f"from the folder where you sealed them, or from a backup\n")
    for command in ("orders", "status"):
        result = runner.invoke(cli, [command, str(folder.path), "--key", str(key_file)])
        assert (result.exit_code, result.stderr) == (0, warning)
    result = runner.invoke(cli, ["status", str(folder.path)])     # an onlooker's status: no private/ of its own
    assert result.exit_code == 0 and "warning:" not in result.stderr
    public = tmp_path / "red-key.pub"   # a public key tells the side, not that the folder is the player's (a review)
    public.write_text(match.keys[side].public.line() + "\n")
    result = runner.invoke(cli, ["status", str(folder.path), "--key", str(public)])
    assert result.exit_code == 0 and "warning:" not in result.stderr
    # and when an item is due, the refusal says the same way back (a players' probe: "is missing", no more)
    with pytest.raises(FileError) as refused:
        sealing.opening(folder, side, [f"{seq}.1"])
    assert refused.value.exit_code == 4 and refused.value.message == (
        f"{side} must open item {seq}.1, sealed in packet {seq}, now, but {kept} (where pbem kept it) is missing: copy "
        f"it back from the folder where you sealed it, or from a backup; without it the item cannot be opened, and the "
        f"game cannot go on")


def test_a_seal_made_in_a_folder_that_keeps_the_opponents_seals_is_warned_of(tmp_path):
    """A players' probe: red ran `pbem submit --seal` in blue's folder (a copy of it); red's
    sealed chits went into blue's private/, and red's own folder never had them. `pbem submit`
    now says whose seals the folder keeps, and which file to copy where."""
    import shutil

    from pbem.core import game as core_game
    from pbem.core.submit import submit_orders

    match = _fire_match(tmp_path)
    first = drive_to(match, "orders")
    second = "red" if first.side == "blue" else "blue"
    match.send(first.side, [{"type": "end"}], seal=True)
    wrong = tmp_path / "copy-of-first"
    shutil.copytree(match.folders[first.side].path, wrong)
    applied = submit_orders(core_game.open_folder(wrong), [{"type": "end"}], None, key=match.keys[second],
                            sent="2026-11-29T10:00:00Z", seal=True)
    seq = applied.state["seq"]
    assert (f"this folder's private/ keeps {first.side}'s sealed orders: if it is not your own game folder, copy "
            f"private/seal-{seq:04d}-{second}.yaml into yours, where `pbem submit` opens your sealed orders from when "
            f"the rules reveal them") in applied.warnings
    own = match.send(second, [{"type": "end"}], seal=True)        # in its own folder: no such warning
    assert not [w for w in own.warnings if "keeps" in w and "sealed orders" in w]


def test_a_sealed_item_no_order_schema_accepts_is_void_when_opened_and_the_game_goes_on(tmp_path):
    """A cheater's probe: a sealer who seals, by hand, an order chit the orders schema refuses (an
    extra key) could jam the game when the rules reveal it: the exact opening was refused by the
    schema, any other as not what was sealed. Now the opened item is void (docs/protocol.md §8):
    the group keeps its chit, the game goes on, and the audit passes."""
    from pbem.rulesets.kkoh import command

    match = Match(tmp_path, "kkoh", chain_length=1024, key_seed="poison")
    n = drive_to(match, "orders")
    side = n.side
    items = command.seal_items(match.game.scenario, match.folders[side].state["rules"], n, [{"type": "end"}])
    first = items[0]
    seq = hand_seal(match, side, [dict(first, note="poison")] + items[1:])
    for _ in range(300):
        applied = step(match)
        voids = [e["text"] for e in applied.events if e["type"] == "void"]
        if voids:
            break
    else:
        raise AssertionError(f"item {seq}.1 was never opened")
    assert voids == [f"{side}'s sealed item {seq}.1 is void: it is no order the rules read (unknown key `note`; an "
                     f"order of type chit takes the keys type, units, order) (docs/protocol.md §8)."]
    revealed = next(e for e in applied.events if e["type"] == "chit-revealed" and e["item"] == f"{seq}.1")
    units = ", ".join(first["units"])
    assert revealed["text"].startswith(f"{side}'s sealed order chit {seq}.1 is void: it is not a chit of {units}; "
                                       f"they keep ")
    step(match)                                         # the game goes on
    assert match.state()["seq"] == applied.state["seq"] + 1
    assert all(audit(each.path).ok for each in match.folders.values())


def test_a_sealed_fire_plan_with_an_item_no_order_schema_accepts_is_opened_and_goes_on(tmp_path):
    """A cheater's probe (a second one): the same for a Direct Fire plan, opened in the sealer's
    next packet: an item the schema refuses, hidden in the padding after `end`, was queued as
    `void`, which the step of opening a plan did not take, so every opening was refused and the
    game stopped for good (after the sealer had read its opponent's opened plan). The opened
    item now reaches the rules, which void it; the sealer's shot is planned."""
    from tests.test_kkoh_cases import scenario_doc

    units = []
    for i in range(1, 4):
        units += [{"id": f"B{i}", "side": "blue", "row": "tank-1", "square": f"0{i}02", "cell": "01", "facing": "N",
                   "order": "M"},
                  {"id": f"R{i}", "side": "red", "row": "tr1-tank", "square": f"0{i}03", "cell": "21", "facing": "S",
                   "order": "M"}]
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="jam",
                  scenario_doc=scenario_doc({"columns": 6, "rows": 6, "units": units}))
    first = drive_to(match, "fire")
    second = "red" if first.side == "blue" else "blue"

    def shots(n):
        return [o for o in match.game.legal_orders(match.state()["rules"], n) if o["type"] == "fire"]

    match.send(first.side, shots(first)[:1] + [{"type": "end"}], seal=True)
    shot = shots(need(match))[0]
    seq = hand_seal(match, second, [shot, {"type": "end"}, {"type": "end", "x": 1}, {"type": "end"}])
    match.send(first.side, [])                               # the first sealer opens its plan
    opened = match.send(second, [])                          # the opening no longer stops the game
    assert [e["text"] for e in opened.events if e["type"] == "void"] == [
        f"{second}'s sealed item {seq}.3 is void: it is no order the rules read (unknown key `x`; an order of type "
        f"end takes the keys type) (docs/protocol.md §8)."]
    assert any(e["type"] == "fire-planned" and e.get("unit") == shot["unit"] for e in opened.events), \
        [e["text"] for e in opened.events]
    step(match)
    assert all(audit(each.path).ok for each in match.folders.values())


def test_a_refused_order_behind_the_items_a_packet_opens_is_counted_as_its_orders_file_counts_it(tmp_path):
    """The items a packet opens come first in it (§8), so a player whose orders file held one
    order read "order 14: missing key `facing`" (a probe): the refusal now counts it out."""
    match = Match(tmp_path, "kkoh")
    for _ in range(300):
        state = match.state()
        sender = state["awaiting"]["packet_from"]
        if state["sealed"].get(sender, {}).get("due"):
            break
        step(match)
    due = len(state["sealed"][sender]["due"])
    assert due > 1
    with pytest.raises(RulesError) as refused:
        match.send(sender, [{"type": "end"}, {"type": "move", "units": ["B1"], "to": "0101"}])
    assert refused.value.message.startswith(
        f"orders: order {due + 2} (its order 2, behind the {due} sealed items the packet opens): missing key `facing`")
    assert match.state()["seq"] == state["seq"]   # nothing applied


def test_the_template_of_sealed_orders_does_not_say_the_next_phases_orders_go_below_its_end(tmp_path):
    """A players' probe: kkoh's Issuing Orders template said of its `end` "this phase's orders go
    above it, the next phase's below", and a move put below it was refused by --seal (a sealed
    packet holds the step's orders alone)."""
    from pbem.core.templates import orders_template

    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="look")
    for _ in range(60):
        state = match.state()
        n = need(match)
        if n is not None and n.sealed and n.side == state["awaiting"]["packet_from"]:
            break
        step(match)
    else:
        pytest.fail("no sealed step came")
    text = orders_template(match.game, state, n.side, match.keys[n.side])
    assert "orders:\n  - {type: end}\n" in text and "closes the phase" not in text


def test_a_chit_refused_before_it_is_sealed_is_named_by_its_place_in_the_file(tmp_path):
    """An orders probe: "the orders cannot be sealed: chit: R-AD1 is given two chits (K-ORD-1)"
    left the player to find which of a dozen chits was meant; the refusal numbers the item."""
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="open")
    first = drive_to(match, "orders", turn=2)
    mine = chits_for(match, first.side)
    before = folder_text(match, first.side)
    for orders, said in (([mine[0], mine[1], mine[0], mine[2]],
                          f"item 3: chit: {', '.join(mine[0]['units'])} is given two chits (K-ORD-1)"),
                         ([mine[0], {"type": "show", "units": mine[1]["units"]}, mine[2]],
                          "item 2: show: only order chits (and end) are sealed at Issuing Orders (K-ORD-1)")):
        with pytest.raises(RulesError) as refused:
            match.send(first.side, orders, seal=True)
        assert f"the orders cannot be sealed: {said}; nothing was sealed or signed" in refused.value.message
    assert folder_text(match, first.side) == before


def test_an_open_order_for_a_sealed_step_the_packets_own_orders_come_to_is_refused_without_no_seal(tmp_path):
    """A cheater's reading of the openings a packet's own orders reveal: `pbem submit` refused
    open orders for the sealed step the packet meets first, and no later one. Here blue's
    `end` closes its movement and a second `end` would be its Direct Fire plan, open: an
    opponent reads "no shots" from it. Refused without --no-seal, nothing signed; the first
    `end` alone, or both with --no-seal, go."""
    from pbem.core.submit import submit_orders

    match = _fire_match(tmp_path)
    both_ends = [{"type": "end"}, {"type": "end"}]
    for _ in range(40):   # the first packet whose second `end` comes to its sender's fire plan
        side = match.state()["awaiting"]["packet_from"]
        try:
            submit_orders(match.folders[side], both_ends, None, key=match.keys[side], sent="2026-12-06T12:00:00Z",
                          dry_run=True)
        except UsageError as exc:
            if "which the packet's orders come to" in exc.message:
                refused = exc
                break
        step(match)
    else:
        pytest.fail("no packet of two `end`s came to its sender's sealed fire plan")
    n, seq = need(match), match.state()["seq"] + 1
    assert (n.side, n.kind, match.state()["rules"]["ap"]) == (side, "move", 1)
    before = folder_text(match, side)
    with pytest.raises(UsageError) as refused_too:
        match.send(side, both_ends)
    assert refused_too.value.message == refused.message == (
        "orders: order 2 (end) answers your own sealed orders, which the packet's orders come to, and it is not "
        "sealed: send those orders in a packet of their own with `pbem submit --seal`; to send them open, for your "
        "opponent to read, give --no-seal (nothing was signed or sent)")
    assert folder_text(match, side) == before
    submit_orders(match.folders[side], both_ends[:1], None, key=match.keys[side], sent="2026-12-06T12:00:00Z",
                  dry_run=True)
    sent = match.send(side, both_ends, seal=False)
    assert sent.state["seq"] == seq and [e["index"] for e in sent.events if e.get("open_at_sealed")] == [2]


def test_the_side_that_seals_second_is_told_it_may_give_its_fire_plan_openly(tmp_path):
    """A kkoh player's probe: each phase of fire took six packets, the second side sealing its
    plan and then opening it. Its opponent's plan is fixed by its seals and opened in its next
    packet: the template says the second side may give its plan openly, and the shots are fired
    a packet sooner where no chit waits to be opened (the chits given openly here), with both
    plans as sealed ones would be (K-DF-5, K-DF-7). Not for order chits, opened only as the
    rules reveal them: there the opponent would play knowing them."""
    from pbem.core.templates import orders_template

    told = ("sealed its orders of this step already, to be opened in its next packet: seeing yours cannot\n# change "
            "them, and they take effect with yours. You may give yours openly (`pbem submit --no-seal`):\n")
    fired = {}
    for seal in (True, False):
        match = _fire_match(tmp_path / str(seal))
        first = drive_to(match, "fire", seal_orders=False)
        second = "red" if first.side == "blue" else "blue"
        assert told not in orders_template(match.game, match.state(first.side), first.side, match.keys[first.side])
        mine = [o for o in match.game.legal_orders(match.state()["rules"], first) if o["type"] == "fire"]
        match.send(first.side, mine[:1] + [{"type": "end"}], seal=True)
        assert f"# {first.side} {told}" in orders_template(match.game, match.state(second), second, match.keys[second])
        theirs = [o for o in match.game.legal_orders(match.state()["rules"], need(match)) if o["type"] == "fire"]
        match.send(second, theirs[:1] + [{"type": "end"}], seal=seal)
        for _ in range(6):
            applied = step(match, False)
            if any(e["type"] == "fire" for e in applied.events):
                break
        fired[seal] = (applied.state["seq"], sorted((e["side"], e["unit"], e["target"]) for e in applied.events
                                                    if e["type"] == "fire"))
    assert fired[False][0] == fired[True][0] - 1 and fired[False][1] == fired[True][1] and len(fired[True][1]) == 2
    # order chits are not so: sealed first by one side, the other is not told to give them openly
    from pbem.core import templates
    from pbem.rulesets.base import Need

    chits = {"sealed": {"red": {"items": [{"id": "2.1", "hash": "0" * 64, "kind": "orders", "reveal": "asked"}],
                                "due": []}}}
    asked = Need("blue", "orders", "seal your order chits", ("sealed", "chit", "end"), "K-ORD-1", sealed=True,
                 reveal="asked")
    assert templates._sealed_before_you(chits, "blue", asked) == []
    fire = {"sealed": {"red": {"items": [{"id": "2.1", "hash": "0" * 64, "kind": "fire", "reveal": "next"}], "due": []}}}
    assert templates._sealed_before_you(fire, "blue", asked._replace(kind="fire", reveal="next"))
    assert templates._sealed_before_you(fire, "red", asked._replace(side="red", kind="fire", reveal="next")) == []
