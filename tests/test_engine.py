"""The engine: the soundness rule of §3.6, decisions and standing orders, void orders,
sandbox dice, previews."""

import hashlib

import pytest

from pbem.core import dice, engine, game, text
from pbem.core.errors import RulesError
from pbem.core.submit import submit_orders
from tests.support.games import Match, sandbox


def rolls(events):
    return [e for e in events if e["type"] == "roll"]


def seed_of(match, k):
    """seed_k recomputed from the reveals in the stored packets, independently of the engine."""
    folder = match.folders["red"].path
    packets = {seq: game.read_packet(path)[0] for seq, path in game.packet_files(folder)}
    return dice.segment_seed(bytes.fromhex(match.game.game_id), k,
                             bytes.fromhex(packets[k - 1]["reveal"]["value"]), bytes.fromhex(packets[k]["reveal"]["value"]))


def test_an_order_never_rolls_from_its_own_packets_segment(tmp_path):
    match = Match(tmp_path)
    match.send("red", [])                                  # 1: red acknowledges, nothing to roll
    match.send("blue", [])                                 # 2
    applied = match.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}])   # 3
    assert rolls(applied.events) == []
    assert applied.state["awaiting"]["waiting_for"] == "dice"
    assert [item["order"]["type"] for item in applied.state["queue"]] == ["fire"]
    applied = match.send("blue", [])                       # 4 opens segment 4
    [roll] = rolls(applied.events)
    assert roll["segment"] == 4 and roll["label"] == "t1.red.fire1" and roll["index"] == 0
    assert roll["value"] == dice.first_d6(seed_of(match, 4), "t1.red.fire1", 1)[0]
    assert applied.state["queue"] == []


def test_once_a_packet_takes_effect_no_die_of_its_segment_is_rolled(tmp_path):
    # Blue's hand-made decision (absorb) in packet 6 takes effect after what was queued
    # before packet 6 has resolved; red's queued second fire, which comes after it, must
    # wait for packet 7, though red decided it in packet 3 (§3.6 c).
    match = Match(tmp_path, key_seed="test2")  # fixed keys: r1's die in segment 4 is a 6, a hit
    match.send("red", [], {"absorb": "ask"})
    match.send("blue", [], {"absorb": "ask"})
    match.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r2", "target": "b2"}])
    applied = match.send("blue", [])
    assert [(r["value"], r["segment"]) for r in rolls(applied.events)] == [(6, 4)]
    assert applied.state["awaiting"]["waiting_for"] == "decision"
    assert applied.state["awaiting"]["need"]["kind"] == "absorb"
    assert applied.state["awaiting"]["options"] == [{"type": "absorb", "unit": "b1"}, {"type": "absorb", "unit": "b2"}]
    match.send("red", [])
    applied = match.send("blue", [{"type": "absorb", "unit": "b2"}])
    assert rolls(applied.events) == []
    assert applied.state["rules"]["units"]["b2"]["strength"] == 1
    assert applied.state["awaiting"]["waiting_for"] == "dice"
    applied = match.send("red", [])
    [roll] = rolls(applied.events)
    assert (roll["segment"], roll["label"]) == (7, "t1.red.fire2")
    assert roll["value"] == dice.first_d6(seed_of(match, 7), "t1.red.fire2", 1)[0]


def test_standing_order_answers_without_a_round_trip(tmp_path):
    match = Match(tmp_path)
    match.send("red", [])
    match.send("blue", [], {"absorb": "strongest"})
    match.send("red", [{"type": "fire", "unit": "r1", "target": "b2"}, {"type": "fire", "unit": "r2", "target": "b2"},
                       {"type": "end"}])
    applied = match.send("blue", [])
    hits = [e for e in applied.events if e["type"] == "hit"]
    policies = [e for e in applied.events if e["type"] == "policy"]
    assert len(policies) == len(hits)
    assert all(p["order"] == {"type": "absorb", "unit": "b1"} for p in policies[:1])
    assert applied.state["rules"]["phase"] == "blue"


def test_an_order_that_became_illegal_is_void_and_stops_the_side(tmp_path):
    match = Match(tmp_path)
    match.send("red", [])
    match.send("blue", [])
    # Order 2 is only checked when its turn comes, after order 1's dice: then it is void.
    match.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r1", "target": "b2"},
                       {"type": "end"}])
    applied = match.send("blue", [])
    [void] = [e for e in applied.events if e["type"] == "void"]
    assert void["text"] == ("red order 2 of packet 3 (fire target=b2 unit=r1) is void: r1 has already fired this phase "
                            "(D2); its queued order 3 of packet 3 is dropped too (standing order on_void: stop).")
    assert void["dropped"] == 2
    assert applied.state["queue"] == []
    assert applied.state["awaiting"]["need"]["kind"] == "red-fire"


def test_skip_policy_carries_on_after_a_void_order(tmp_path):
    match = Match(tmp_path)
    match.send("red", [], {"on_void": "skip"})
    match.send("blue", [])
    match.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r1", "target": "b2"},
                       {"type": "end"}])
    applied = match.send("blue", [])
    [void] = [e for e in applied.events if e["type"] == "void"]
    assert void["dropped"] == 1 and "its next order follows" in void["text"]
    assert applied.state["rules"]["phase"] == "blue"


def test_a_void_order_names_the_orders_of_its_phase_once():
    """"the game waits for PROMPT" lists the order types only where the prompt does not name
    them all; a legal list that is only those types is not said again after it."""
    from pbem.rulesets.base import Need

    named = Need("axis", "axis-move", "Game-Turn 2, axis Initial Movement Phase: move, rail, air-supply, then end",
                 ("move", "rail", "air-supply", "end"), "6.0")
    assert named.waits_for() == "the game waits for " + named.prompt
    terse = Need("blue", "blue", "blue's turn", ("fire", "end"), "D1")
    assert terse.waits_for() == "the game waits for blue's turn, which takes fire, end"
    # a type is named as a word, not inside another ("move" in "moves" or "remove")
    moves = Need("red", "red", "red moves or removes, then end", ("move", "end"))
    assert moves.waits_for().endswith(", which takes move, end")
    # a prompt's full stop does not end up inside the sentence; a need that takes nothing says so
    assert Need("red", "red", "reinforce (11.2(1)), then end.", ("reinforce", "end")).waits_for() == \
        "the game waits for reinforce (11.2(1)), then end"
    assert Need("red", "red", "nothing to do", ()).waits_for() == "the game waits for nothing to do, which takes no order"
    assert engine._legal_text(["move", "rail", "air-supply", "end"], named.waits_for()) == ""
    assert engine._legal_text(["fire", "end"], terse.waits_for()) == ""          # its "which takes" named them
    assert engine._legal_text(["fire", "end"], "the game waits for blue's turn") == "fire; end"
    assert engine._legal_text([{"type": "fire", "unit": "r1"}], "the game waits for fire") == "fire unit=r1"
    # only a need's own message: the one unit left to move is still named after a message that
    # happens to quote it (the rejected order's own units)
    assert engine._legal_text(["CC/21a"], "move path=3001 units=CC/112a,CC/21a: CC/112a has completed its movement") \
        == "CC/21a"


def test_dropped_orders_are_named_by_number():
    assert text.numbers([{"seq": 9, "index": 4}]) == "order 4 of packet 9"
    assert text.numbers([{"seq": 9, "index": i} for i in (8, 4, 5, 6)] + [{"seq": 11, "index": 1}]) == \
        "orders 4 to 6 and 8 of packet 9, and 1 of packet 11"
    assert text.numbers([{"seq": 9, "index": 4}, {"seq": 9, "index": 7}, {"seq": 9, "index": 9}]) == \
        "orders 4, 7 and 9 of packet 9"
    assert text.numbers([{"seq": 2, "index": 1}, {"seq": 2, "index": 2}, {"seq": 2, "index": 5}]) == \
        "orders 1, 2 and 5 of packet 2"


def test_an_orders_empty_list_and_null_read_none():
    """`support: []` is "support=none", not "support=" (a value left out), and never the same
    words as an order without the key, which may mean another thing (chir's fire without
    `units` is every eligible unit, with `units: []` illegal); null is "none", not "None"."""
    assert engine.order_text({"type": "attack", "support": [], "target": "2733", "units": ["89/b"]}) == \
        "attack support=none target=2733 units=89/b"
    assert engine.order_text({"type": "fire", "target": "3320", "units": []}) != \
        engine.order_text({"type": "fire", "target": "3320"})
    assert engine.order_text({"type": "retreat", "to": None}) == "retreat to=none"
    assert engine.order_text({"type": "card", "play": False}) == "card play=false"


def test_a_refusal_says_an_option_of_no_value_as_the_orders_file_writes_it():
    assert engine.refused_legal([None, "LW/ArtI"]) == "null; LW/ArtI"
    assert engine.refused_legal([{"type": "artillery", "unit": None}]) == "artillery unit=none"
    assert engine.refused_legal(None) == "" and engine.refused_legal("b1") == "b1"


def test_illegal_order_in_the_current_packet_rejects_it(tmp_path):
    match = Match(tmp_path)
    before = match.state()
    with pytest.raises(RulesError) as caught:
        submit_orders(match.folders["red"], [{"type": "fire", "unit": "b1", "target": "r1"}], None, key=match.keys["red"])
    assert caught.value.exit_code == 1
    assert "order 1 (fire target=r1 unit=b1) is illegal: b1 cannot fire for red (D1)" in caught.value.message
    assert "Legal now: r1; r2" in caught.value.message
    assert match.state() == before
    assert game.state_numbers(match.folders["red"].path) == [0]


def test_sandbox_decision_without_standing_order_waits_with_legal_options(tmp_path):
    folder = sandbox(tmp_path / "g", dice=[6, 2])
    orders = [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r2", "target": "b2"}]
    packet = game.build_packet(folder.game, folder.state, "red", orders, None, None, "")
    applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "p1")
    packet = game.build_packet(folder.game, folder.state, "blue", [], {"absorb": "ask"}, None, "")
    assert [r["value"] for r in rolls(applied.events)] == [6, 2]  # blue's default policy took the hit on b1
    folder2 = sandbox(tmp_path / "h", dice=[6, 2])
    packet = game.build_packet(folder2.game, folder2.state, "blue", [], {"absorb": "ask"}, None, "")
    game.adjudicate(folder2, packet, game.packet_yaml(packet).encode(), "p1")
    packet = game.build_packet(folder2.game, folder2.state, "red", orders, None, None, "")
    applied = game.adjudicate(folder2, packet, game.packet_yaml(packet).encode(), "p2")
    assert [r["value"] for r in rolls(applied.events)] == [6]
    assert applied.state["awaiting"]["waiting_for"] == "decision"
    assert applied.state["awaiting"]["packet_from"] == "blue"
    assert applied.state["awaiting"]["options"] == [{"type": "absorb", "unit": "b1"}, {"type": "absorb", "unit": "b2"}]


def test_sandbox_default_policy_and_script(tmp_path):
    folder = sandbox(tmp_path / "g", dice=[6, 2])
    orders = [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r2", "target": "b2"}, {"type": "end"}]
    packet = game.build_packet(folder.game, folder.state, "red", orders, {}, None, "")
    applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "p1")
    assert [r["value"] for r in rolls(applied.events)] == [6, 2]
    assert applied.state["rules"]["units"]["b1"]["strength"] == 2
    assert applied.state["rules"]["phase"] == "blue"
    assert applied.state["dice"] == {"script": [6, 2], "script_used": 2}
    report = (folder.path / "aar" / "0001.md").read_text()
    assert "SANDBOX GAME" in report
    assert "SANDBOX GAME" in (folder.path / "states" / "0001.yaml").read_text()
    assert "scripted die 1" in report


def test_sandbox_script_runs_out_and_waits_for_more_dice(tmp_path):
    folder = sandbox(tmp_path / "g", dice=[])
    packet = game.build_packet(folder.game, folder.state, "red", [{"type": "fire", "unit": "r1", "target": "b1"}], None, None, "")
    applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "p1")
    assert applied.state["awaiting"]["waiting_for"] == "dice"
    packet = game.build_packet(folder.game, folder.state, "red", [], None, None, "", extra={"dice": [5]})
    applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "p2")
    assert [r["value"] for r in rolls(applied.events)] == [5]


def test_sandbox_seed_is_reproducible(tmp_path):
    values = []
    for name in ("a", "b"):
        folder = sandbox(tmp_path / name, seed="table 3")
        packet = game.build_packet(folder.game, folder.state, "red", [{"type": "fire", "unit": "r1", "target": "b1"}], None, None, "")
        applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "p1")
        values.append([(r["value"], r["segment"]) for r in rolls(applied.events)])
    expected = dice.first_d6(dice.sandbox_seed("table 3", 1), "t1.red.fire1", 1)[0]
    assert values == [[(expected, 1)], [(expected, 1)]]


def test_preview_with_the_receivers_key_shows_what_its_reveal_unlocks(tmp_path):
    match = Match(tmp_path)
    match.send("red", [])
    match.send("blue", [])
    applied = submit_orders(match.folders["red"], [{"type": "fire", "unit": "r1", "target": "b1"}], None, key=match.keys["red"])
    packet, data = game.read_packet(applied.packet_path)
    result = game.adjudicate(match.folders["blue"], packet, data, "p3", preview_key=match.keys["blue"])
    [preview_roll] = rolls(result.preview)
    assert result.state["seq"] == 3 and game.state_numbers(match.folders["blue"].path)[-1] == 3  # nothing written
    ack = submit_orders(match.folders["blue"], [], None, key=match.keys["blue"])  # blue's real acknowledgement
    [real_roll] = rolls(ack.events)
    assert preview_roll == real_roll and real_roll["segment"] == 4


def test_every_state_round_trips_through_its_file(tmp_path):
    from pbem.core.canonical import load_mapping

    match = Match(tmp_path)
    for side, orders in (("red", []), ("blue", []), ("red", [{"type": "fire", "unit": "r1", "target": "b1"}]), ("blue", [])):
        applied = match.send(side, orders)
        path = match.folders["red"].path / "states" / f"{applied.state['seq']:04d}.yaml"
        assert load_mapping(path) == applied.state


def test_a_decision_answer_from_a_later_packet_is_found_behind_older_orders(tmp_path):
    # Red's orders of packet 3 wait behind its first fire's dice; blue, asked to decide,
    # answers in packet 6 while its own old orders (packet 4) still wait for its phase.
    from tests.support.games import sandbox

    folder = sandbox(tmp_path / "g", dice=[6, 1, 1, 1])

    def send(side, orders, policies=None):
        packet = game.build_packet(folder.game, folder.state, side, orders, policies, None, "")
        return game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), f"{side} packet")

    send("blue", [{"type": "fire", "unit": "b1", "target": "r1"}], {"absorb": "ask"})
    applied = send("red", [{"type": "fire", "unit": "r1", "target": "b2"}])
    assert applied.state["awaiting"]["waiting_for"] == "decision"
    applied = send("blue", [{"type": "absorb", "unit": "b1"}])
    assert applied.state["rules"]["units"]["b1"]["strength"] == 2
    assert [item["order"]["type"] for item in applied.state["queue"]] == ["fire"]
    from pbem.core.audit import audit

    assert audit(folder.path).ok


# --- answers matched to their decision (§4.3) ---------------------------------------------------

TWO_FIRES = [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r2", "target": "b2"}, {"type": "end"}]
ANSWERS = [{"type": "absorb", "unit": "b2", "decision": "3.2/absorb"}, {"type": "absorb", "unit": "b1", "decision": "3.1/absorb"}]


def _asked_for_3_1(tmp_path, key_seed):
    """Blue (standing order `ask`) is asked for decision 3.1/absorb after r1's hit in
    segment 4; its packet 4 answers 3.1 and, in advance, 3.2 (listed first)."""
    match = Match(tmp_path, key_seed=key_seed)
    match.send("red", [])
    match.send("blue", [], {"absorb": "ask"})
    match.send("red", TWO_FIRES)
    applied = match.send("blue", ANSWERS)
    loss = [e for e in applied.events if e["type"] == "loss"]
    assert [e["unit"] for e in loss] == ["b1"]          # 3.1 answered, though its answer came second
    queued = applied.state["queue"]
    assert [(q["order"], q.get("decision")) for q in queued if q["side"] == "blue"] == \
        [({"type": "absorb", "unit": "b2"}, "3.2/absorb")]
    return match


def test_an_answer_in_advance_is_applied_to_its_decision_only(tmp_path):
    match = _asked_for_3_1(tmp_path, "named9")            # r2 hits in segment 5
    applied = match.send("red", [])
    assert [e["text"] for e in applied.events if e["type"] == "order" and e["side"] == "blue"] == \
        ["blue order 1 of packet 4: absorb unit=b2 (answers decision 3.2/absorb)"]
    assert applied.state["rules"]["units"]["b2"]["strength"] == 1
    assert [e for e in applied.events if e["type"] == "void"] == []


def test_an_answer_whose_decision_never_comes_is_void_and_blocks_nothing(tmp_path):
    match = _asked_for_3_1(tmp_path, "named4")            # r2 misses in segment 5
    applied = match.send("red", [])
    [void] = [e for e in applied.events if e["type"] == "void"]
    assert void["text"] == "blue order 1 of packet 4 (absorb unit=b2) is void: its decision 3.2/absorb never came."
    assert applied.state["queue"] == []
    assert applied.state["rules"]["phase"] == "blue"       # red's end went through
    applied = match.send("blue", [{"type": "fire", "unit": "b1", "target": "r1"}, {"type": "end"}])
    assert applied.state["queue"][0]["order"]["type"] == "fire"


def test_a_later_answer_to_the_same_decision_replaces_the_earlier(tmp_path):
    match = Match(tmp_path, key_seed="named9")
    match.send("red", [])
    match.send("blue", [], {"absorb": "ask"})
    match.send("red", TWO_FIRES)
    applied = match.send("blue", [{"type": "absorb", "unit": "b2", "decision": "3.1/absorb"},
                                  {"type": "absorb", "unit": "b1", "decision": "3.1/absorb"}])
    assert [e["unit"] for e in applied.events if e["type"] == "loss"] == ["b1"]
    assert applied.state["queue"][0]["order"]["type"] == "fire"   # r2's fire, waiting for segment 5


def test_an_answer_illegal_when_its_decision_comes_is_void_and_the_standing_order_answers(tmp_path):
    folder = sandbox(tmp_path / "g", dice=[6])

    def send(side, orders, policies=None, dice_=None):
        packet = game.build_packet(folder.game, folder.state, side, orders, policies, None, "",
                                   {"dice": dice_} if dice_ else None)
        return game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), f"{side} packet")

    send("blue", [], {"absorb": "ask"})
    applied = send("red", TWO_FIRES[:2])
    assert applied.state["awaiting"]["decision"] == "2.1/absorb"
    applied = send("blue", [{"type": "absorb", "unit": "b1", "decision": "2.1/absorb"},
                            {"type": "absorb", "unit": "r1", "decision": "2.2/absorb"}], {"absorb": "strongest"})
    assert applied.state["awaiting"]["waiting_for"] == "dice"     # the script is used up
    applied = send("red", [], dice_=[5])
    [void] = [e for e in applied.events if e["type"] == "void"]
    assert "blue order 2 of packet 3 (absorb unit=r1) is void: r1 is not a unit of blue" in void["text"]
    assert "the standing order answers instead" in void["text"]
    [policy] = [e for e in applied.events if e["type"] == "policy"]
    assert policy["decision"] == "2.2/absorb" and policy["order"] == {"type": "absorb", "unit": "b1"}


def test_a_decision_key_counts_decisions_of_one_kind_from_one_order(tmp_path):
    from pbem.rulesets.base import Need

    state = {"decisions": {"origin": "7.3", "answered": {"blue/loss": 2, "red/loss": 1}}}
    assert engine.decision_key(state, Need("blue", "loss", "", ("loss",), decision=True)) == "7.3/loss/3"
    assert engine.decision_key(state, Need("red", "loss", "", ("loss",), decision=True)) == "7.3/loss/2"
    assert engine.decision_key(state, Need("red", "retreat", "", ("retreat",), decision=True)) == "7.3/retreat"


# --- recovery (§2.3): a crash between the packet and the state ------------------------------------

def test_submit_after_a_crash_before_the_state_resends_the_stored_packet(tmp_path):
    import shutil

    match = Match(tmp_path)
    match.send("red", [])
    red, blue = match.folders["red"], match.folders["blue"]
    # What a kill between the packet file and the state leaves: blue's packet 2 filed, no state 2.
    shutil.copytree(blue.path, tmp_path / "elsewhere")
    crashed = submit_orders(game.open_folder(tmp_path / "elsewhere"), [{"type": "fire", "unit": "b1", "target": "r1"}],
                            None, key=match.keys["blue"], sent="2026-11-29T10:00:00Z")
    stored = crashed.packet_path.read_bytes()
    (blue.path / "packets" / "0002-blue.yaml").write_bytes(stored)
    again = submit_orders(game.open_folder(blue.path), [{"type": "end"}], None, key=match.keys["blue"],
                          sent="2026-11-30T10:00:00Z")
    assert again.state["seq"] == 2 and again.state == crashed.state
    assert (blue.path / "packets" / "0002-blue.yaml").read_bytes() == stored   # nothing signed twice
    assert any("was already signed" in w and "were not used" in w for w in again.warnings)
    packet, data = game.read_packet(again.packet_path)
    game.adjudicate(red, packet, data, "p2")
    from pbem.core.audit import audit

    assert audit(red.path).ok and audit(blue.path).ok


def test_submit_out_to_an_existing_file_refuses_before_signing(tmp_path):
    from pbem.core.errors import FileError

    match = Match(tmp_path)
    out = tmp_path / "to-blue.yaml"
    out.write_text("my notes\n")
    with pytest.raises(FileError, match="already exists; pbem never overwrites it"):
        submit_orders(match.folders["red"], [], None, key=match.keys["red"], out=out)
    assert game.state_numbers(match.folders["red"].path) == [0]
    assert not list((match.folders["red"].path / "packets").iterdir())
    assert out.read_text() == "my notes\n"


# --- sealed orders end to end (§3): the simultaneous test ruleset `blind` --------------------------

def test_a_whole_blind_game_of_sealed_plans_by_submit_and_audit(tmp_path):
    from pbem.core.audit import audit

    match = Match(tmp_path, "blind")
    plans = {"north": [{"type": "plan", "attack": a, "guard": "a"} for a in "abc"],
             "south": [{"type": "plan", "attack": "a", "guard": g} for g in "cab"]}
    seen_by_south = []
    for turn in range(3):
        match.send("north", [plans["north"][turn]], seal=True)
        seen_by_south.append(match.state("south")["rules"]["plans"])      # south sees a seal only
        match.send("south", [plans["south"][turn]], seal=True)
        opened = match.send("north", [])                                    # opens north's plan
        assert opened.state["rules"]["plans"] == {"north": {"attack": "abc"[turn], "guard": "a"}}
        resolved = match.send("south", [])                                  # opens south's; dice wait
        assert not [e for e in resolved.events if e["type"] == "roll"]
        if turn < 2:
            continue
        final = match.send("north", [])
        assert [e["segment"] for e in final.events if e["type"] == "roll"] == [final.state["seq"]] * 2
    assert seen_by_south == [{}, {}, {}]
    state = match.state()
    assert state["awaiting"]["need"] is None and match.game.summary(state["rules"])["result"]
    for folder in match.folders.values():
        assert audit(folder.path).ok
        assert not list((folder.path / "private").glob("*"))    # every seal opened, nothing kept


def test_an_answer_to_a_decision_the_standing_order_answered_first_is_refused(tmp_path):
    # Red's fire resolves in part 2 of blue's packet 4 and blue's standing order answers the
    # absorb it causes; blue's own answer to 3.1/absorb in packet 4 could never be used: it is
    # refused, not left in the queue (the origin 3.1 is still current, so it looked alive).
    match = Match(tmp_path, key_seed="test2")             # r1's die in segment 4 is a 6, a hit
    match.send("red", [])
    match.send("blue", [])
    match.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}])
    with pytest.raises(RulesError, match=r"answers decision 3\.1/absorb, which was answered already, before this packet"):
        match.send("blue", [{"type": "absorb", "unit": "b2", "decision": "3.1/absorb"}])
    assert match.state("blue")["seq"] == 3                # nothing applied
    applied = match.send("blue", [])
    assert applied.state["queue"] == [] and applied.state["decisions"]["answered"] == {"blue/absorb": 1}


def test_an_opened_item_answers_the_need_that_revealed_it_whatever_decision_it_names(tmp_path):
    """§8: a sealed plan carrying a `decision` field was opened but queued as a named answer to
    that decision, never used as the plan: the game waited for the sealer's plan again, the
    opponent had to open his, and the sealer then chose with it in view. The opened item is
    the plan, whatever it names."""
    import hashlib

    match = Match(tmp_path, "blind")
    north = match.folders["north"]

    def send_raw(extra: dict) -> game.Applied:
        packet = game.build_packet(north.game, north.state, "north", [], None, match.keys["north"], "2026-11-29T10:00:00Z",
                                   extra)
        data = game.packet_yaml(packet).encode()
        for side, folder in match.folders.items():
            applied = game.adjudicate(folder, packet, data, f"{side} packet {packet['seq']}")
        return applied

    plan = {"type": "plan", "attack": "a", "guard": "a", "decision": "2.1/plan"}
    salt = hashlib.sha256(b"salt").digest()
    send_raw({"sealed": [engine.seal_hash(north.game.game_id, 1, "north", salt, plan)]})
    match.send("south", [{"type": "plan", "attack": "b", "guard": "c"}], seal=True)
    opened = send_raw({"opens": [{"seal": "1.1", "salt": salt.hex(), "item": plan}]})
    assert opened.state["rules"]["plans"] == {"north": {"attack": "a", "guard": "a"}}
    assert opened.state["queue"] == [] and opened.state["awaiting"]["need"]["kind"] == "south-open"


def test_a_preview_never_stops_the_packet_received(tmp_path):
    """The preview of `adjudicate --key` plays a stand-in packet of the previewer's; where the
    previewer owes an answer to a decision (`ask`), that stand-in answers none: it must neither
    fail nor keep the packet received from being applied."""
    match = Match(tmp_path, key_seed="test2")
    match.send("red", [], {"absorb": "ask"})
    match.send("blue", [], {"absorb": "ask"})
    match.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r2", "target": "b2"}])
    waiting = match.send("blue", []).state["awaiting"]
    assert (waiting["waiting_for"], waiting["need"]["side"]) == ("decision", "blue")
    sent = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent="2026-11-29T10:00:00Z")
    packet, data = game.read_packet(sent.packet_path)
    applied = game.adjudicate(match.folders["blue"], packet, data, "red's packet 5", preview_key=match.keys["blue"])
    # (blue owed the decision before: the preview does not say it again as where the reveal brings the game)
    assert applied.state["seq"] == 5 and [e["type"] for e in applied.preview] == ["packet"]


def test_a_states_packet_is_the_hash_of_what_the_signature_covers(tmp_path):
    """state["packet"] names the packet it was made from: SHA-256 of the packet domain line and
    the canonical bytes of the packet without its signature (§2.3), the bytes the signature
    check worked on, in the sender's folder and in the opponent's."""
    import hashlib
    import json

    from pbem.core.canonical import DOMAIN_PACKET
    from pbem.core.packet import packet_id, signed_bytes

    match = Match(tmp_path)
    applied = match.send("red", [])
    packet, _ = game.read_packet(applied.packet_path)
    unsigned = {k: v for k, v in packet.items() if k != "signature"}
    expected = hashlib.sha256(DOMAIN_PACKET + json.dumps(unsigned, sort_keys=True, separators=(",", ":"),
                                                         ensure_ascii=False).encode()).hexdigest()
    assert packet_id(packet) == packet_id(packet, signed_bytes(packet)) == expected
    assert applied.state["packet"] == expected
    assert [match.state(side)["packet"] for side in ("red", "blue")] == [expected, expected]


def test_a_packet_applied_to_a_state_with_its_keys_reordered_gives_the_same_state_and_report():
    """The rules see a state's mappings in sorted order, as its file gives them, whatever
    order they came in: the same content gives the same step (a probe: dos listed a stack's
    defenders in the order of a reordered state file, and the report changed)."""
    from pathlib import Path

    from pbem.core import report
    from pbem.core.canonical import load_mapping

    def reversed_keys(value):
        if isinstance(value, dict):
            return {key: reversed_keys(value[key]) for key in reversed(list(value))}
        return [reversed_keys(item) for item in value] if isinstance(value, list) else value

    folder = Path(__file__).resolve().parent.parent / "examples" / "dos-demo"
    played = game.open_genesis(load_mapping(folder / "game.yaml"), kept=False)
    seq = 23                      # a combat whose report lists each stack's units
    state = load_mapping(folder / "states" / f"{seq - 1:04d}.yaml")
    packet, _ = game.read_packet(next((folder / "packets").glob(f"{seq:04d}-*.yaml")))
    as_read = engine.apply_packet(played, state, packet, "packet")
    reordered = engine.apply_packet(played, reversed_keys(state), packet, "packet")
    assert reordered[0] == as_read[0] and reordered[0]["state_hash"] == load_mapping(
        folder / "states" / f"{seq:04d}.yaml")["state_hash"]
    assert report.render(played, *reordered) == report.render(played, *as_read) == (
        folder / "aar" / f"{seq:04d}.md").read_text()


def test_a_replay_that_keeps_each_states_canonical_form_gives_what_applying_each_packet_gives():
    """`replay_packet` (audit) hands each state on with its canonical form, which the next
    packet's copy is read from: packet after packet, the states, their hashes and the events
    are those `apply_packet` gives from each state as stored, and the form kept is the one its
    hash is taken of."""
    from pathlib import Path

    from pbem.core.canonical import DOMAIN_STATE, canonical, load_mapping

    folder = Path(__file__).resolve().parent.parent / "examples" / "dos-demo"
    played = game.open_genesis(load_mapping(folder / "game.yaml"), kept=False)
    state, content = game.initial_state(played), None
    paths = sorted((folder / "packets").glob("*.yaml"))
    assert len(paths) > 20
    for seq, path in enumerate(paths, 1):
        packet, _ = game.read_packet(path)
        stored = load_mapping(folder / "states" / f"{seq - 1:04d}.yaml")
        assert engine.state_hash(state) == stored["state_hash"]
        expected = engine.apply_packet(played, stored, packet, path.name)
        state, events, content = engine.replay_packet(played, state, content, packet, path.name)
        assert (state, events) == expected, path.name
        assert content == canonical({k: v for k, v in state.items() if k != "state_hash"})
        assert state["state_hash"] == hashlib.sha256(DOMAIN_STATE + content).hexdigest() == engine.state_hash(state)


def test_a_markdown_reports_head_and_tail_are_a_paragraph_each(tmp_path):
    """An audience's probe: the lines of a Markdown report's head (the game, a sandbox's warning,
    `Now:`) and of its tail (the result, `Awaited:`) followed each other, so a Markdown viewer
    joined them into one paragraph. A blank line stands between every two of them; the events
    stay one list."""
    from pbem.core import report

    folder = sandbox(tmp_path / "g", "duel", seed="md")
    applied = submit_orders(folder, [], None, side="red", sent="2026-11-29T10:00:00Z")
    md = (folder.path / "aar" / "0001.md").read_text()
    assert md == report.render(folder.game, applied.state, applied.events, "md")
    head, rest = md.split("\n\n- ", 1)
    events, tail = ("- " + rest).split("\n\n", 1)
    paragraphs = head.split("\n\n")
    assert paragraphs[0].startswith("# ") and [p.split(" ", 1)[0] for p in paragraphs[1:]] == ["Game", "SANDBOX", "Now:"]
    assert all("\n" not in p for p in paragraphs)
    assert all(line.startswith(("- ", "  - ")) for line in events.split("\n"))
    assert tail.startswith("Awaited:") and tail.endswith("\n") and "\n" not in tail[:-1]


def test_the_rules_kept_before_a_step_are_put_back_as_they_were_whatever_the_step_changed():
    """`keep` copies a large map of strings and serialises the rest; `put_back` gives the
    rules of that moment, in their key order, however the step changed them in place."""
    units = {f"u{n:03d}": f"{n:04d}" for n in range(engine.FLAT_AT_LEAST + 8)}
    rules = {"turn": 3, "units": units, "lost": {"u001": [1, 2]}, "phase": "move"}
    before = engine.clone(rules)
    kept = engine.keep(rules)
    assert kept[1] is not None and set(kept[1]) == {"units"}   # the map of strings, copied
    units["u001"] = "9999"
    units["new"] = "0101"
    rules["lost"]["u001"].append(3)
    rules["turn"] = 4
    del rules["phase"]
    rules["combat"] = {"hex": "0101"}
    again = engine.put_back(kept)
    assert again == before and list(again) == list(before) and list(again["units"]) == list(before["units"])
    assert again["units"] is not units


def test_a_large_map_holding_anything_but_strings_is_kept_by_value():
    """A map of lists (or of maps) can change in place: kept by marshal, never by a copy
    that would share what the step changes."""
    rules = {"units": {f"u{n:03d}": [n, "0101"] for n in range(engine.FLAT_AT_LEAST + 8)}}
    rules["units"]["u005"] = "0101"    # strings among them are not enough
    kept = engine.keep(rules)
    assert kept[1] is None
    rules["units"]["u001"].append("moved")
    rules["units"]["u005"] = "0202"
    assert engine.put_back(kept)["units"]["u001"] == [1, "0101"]
    assert engine.put_back(kept)["units"]["u005"] == "0101"


def test_a_map_of_strings_that_comes_to_hold_a_list_is_then_kept_by_value():
    """Which keys hold maps of strings is looked for once per layout of the rules, and each
    such map checked again every time it is kept."""
    units = {f"u{n:03d}": "0101" for n in range(engine.FLAT_AT_LEAST)}
    rules = {"units": units, "keep-test-marker": 1}   # a key no other test uses: a layout of its own
    assert set(engine.keep(rules)[1]) == {"units"}
    units["u000"] = ["0101"]
    kept = engine.keep(rules)
    units["u000"].append("0202")
    assert kept[1] is None
    assert engine.put_back(kept) == {"units": {**units, "u000": ["0101"]}, "keep-test-marker": 1}
