"""Answers written in advance are matched to their decision (DESIGN §4.3), in a secure
chir game: the defender queues [no defensive artillery, fire at a named group, morale:
retreat] for one attack, and no artillery of his can support the defence. The artillery
answer's decision never comes: it is void, and it blocks neither the fire target nor the
retreat, which apply as ordered."""

from __future__ import annotations

import pytest

from pbem.rulesets.chir import RULESET
from tests.support.games import Match

POSITION = {
    "turn": 1, "player": "soviet", "phase": "attack",
    "units": {
        "LW/I": {"hex": "3320"},
        "333/1116": {"hex": "3220"}, "333/1118": {"hex": "3321"}, "333/1120": {"hex": "3420"},
        "333/Art": {"hex": "3522"},
    },
}
ATTACK = {"type": "attack", "target": "3320", "units": ["333/1116", "333/1118", "333/1120"], "support": ["333/Art"]}
QUEUE = [{"type": "artillery", "unit": None, "decision": "2.1/defensive-artillery"},
         {"type": "fire", "target": "3220", "decision": "2.1/defensive-fire"},
         {"type": "morale", "choice": "retreat", "decision": "2.1/morale"}]


def test_a_defenders_queue_of_answers_applies_to_the_decisions_that_come(tmp_path):
    doc = RULESET.scenarios["historical"]()
    doc["position"] = POSITION
    match = Match(tmp_path, "chir", key_seed="answers69", scenario_doc=doc, chain_length=64)
    match.send("german", [], {"defensive_artillery": "ask", "defensive_fire": "ask", "morale": "ask"})
    applied = match.send("soviet", [ATTACK, {"type": "end", "phase": "attack"}])
    awaiting = applied.state["awaiting"]
    assert (awaiting["waiting_for"], awaiting["decision"]) == ("decision", "2.1/defensive-fire")  # no artillery asked
    applied = match.send("german", QUEUE)
    assert applied.state["awaiting"]["waiting_for"] == "dice"
    applied = match.send("soviet", [])
    events = applied.events
    orders = [e["text"] for e in events if e["type"] == "order" and e["side"] == "german"]
    assert orders == ["german order 2 of packet 3: fire target=3220 (answers decision 2.1/defensive-fire)",
                      "german order 3 of packet 3: morale choice=retreat (answers decision 2.1/morale)"]
    [fire] = [e for e in events if e["type"] == "fire" and e.get("fire") == "defensive"]
    assert fire["target"] == ["333/1116"]          # the group in 3220, as ordered
    [void] = [e for e in events if e["type"] == "void"]
    assert void["text"] == ("german order 1 of packet 3 (artillery unit=none) is void: its decision "
                            "2.1/defensive-artillery never came.")
    assert not [e for e in events if e["type"] == "policy" and e["side"] == "german"
                and e["kind"] in ("defensive-fire", "morale")]
    assert "LW/I: morale damage 2, retreat at least 2 hexes (player's order)." in [e["text"] for e in events]
    assert applied.state["rules"]["units"]["LW/I"] == "3218"  # where the unit is (with these keys and chir 1.18.0's game id)
    # the Soviet side's own morale decision of the same attack was its standing order's
    assert [e["decision"] for e in events if e["type"] == "policy" and e["kind"] == "morale"] == ["2.1/morale"]


def _asked_for_defensive_fire(tmp_path):
    """The game of the test above at the German defensive-fire decision (asked for: `ask`)."""
    doc = RULESET.scenarios["historical"]()
    doc["position"] = POSITION
    match = Match(tmp_path, "chir", key_seed="answers69", scenario_doc=doc, chain_length=64)
    match.send("german", [], {"defensive_artillery": "ask", "defensive_fire": "ask", "morale": "ask"})
    match.send("soviet", [ATTACK, {"type": "end", "phase": "attack"}])
    return match, match.state("german")


def test_the_template_of_a_decision_fills_in_the_default_standing_orders_answer(tmp_path):
    """A side that set `defensive_fire: ask` and runs `pbem orders` for the decision finds
    filled in the answer the default standing order (strongest-group) gives, the fire at the
    strongest attacking group, not the first answer listed, "no fire" (players' probe: a
    template sent as it was gave the fire up)."""
    import re

    import yaml

    from pbem.core import templates

    match, state = _asked_for_defensive_fire(tmp_path)
    assert state["awaiting"]["decision"] == "2.1/defensive-fire"
    text = templates.orders_template(match.game, state, "german")
    listed = [yaml.safe_load(line) for line in re.findall(r"^#   - (.*)$", text, re.M)]
    assert listed[0] == {"type": "fire", "target": None, "decision": "2.1/defensive-fire"}
    default = match.game.policy(state["rules"], match.game.next_step(state["rules"]), dict(RULESET.default_policies))
    assert default["target"] is not None and dict(default, decision="2.1/defensive-fire") in listed
    assert "# The answer of the default standing order is filled in below: replace it with your choice." in text
    filled = yaml.safe_load(text.split("\norders:\n")[1].split("\n")[0][4:])
    assert filled == dict(default, decision="2.1/defensive-fire") != listed[0]


def test_only_narrows_the_answers_listed_not_the_answer_filled_in(tmp_path):
    """`pbem orders --only` lists fewer answers; the answer filled in is still the default
    standing order's, listed or not (review: a filter that hid it brought "no fire" back)."""
    import re

    import yaml

    from pbem.core import templates

    match, state = _asked_for_defensive_fire(tmp_path)
    default = match.game.policy(state["rules"], match.game.next_step(state["rules"]), dict(RULESET.default_policies))
    other = next(h for h in ("3220", "3321", "3420") if h != default["target"])
    text = templates.orders_template(match.game, state, "german", only=other)
    listed = [yaml.safe_load(line) for line in re.findall(r"^#   - (.*)$", text, re.M)]
    assert listed == [{"type": "fire", "target": other, "decision": "2.1/defensive-fire"}]
    assert yaml.safe_load(text.split("\norders:\n")[1].split("\n")[0][4:]) == dict(default, decision="2.1/defensive-fire")


def test_show_unit_says_a_unit_that_attacked_may_not_attack_again():
    """Players' probe: `show --unit` read "attacked in this concentrated attack phase (9.1); may
    attack in this concentrated attack phase (9.1)", though 9.1 allows one attack a phase."""
    from pathlib import Path

    from pbem.core import describe, game
    from pbem.rulesets.chir import report as chir_report

    folder = game.open_folder(Path(__file__).resolve().parents[1] / "examples" / "chir-demo")
    # a unit eligible as a concentrated attack phase began that has attacked since, in the example
    found = [(seq, uid) for seq in range(1, folder.state["seq"] + 1)
             for rules in [describe.state_at(folder, seq)["rules"]]
             for uid in rules["ps"].get("eligible", []) if uid in rules["markers"]["attacked"]]
    assert found
    seq, uid = found[0]
    rules = describe.state_at(folder, seq)["rules"]
    text = chir_report.look_unit(folder.game.scenario, rules, uid)
    assert "This phase: attacked in this concentrated attack phase (9.1)." in text
    assert "may attack in this concentrated attack phase" not in text


def test_the_score_names_the_level_of_victory_the_vp_give():
    """Audience probe: "VP if the game ended now (4.0): Soviet 13, German 35" left the reader to
    work out a German Brilliant victory (4.5); a half point counts down, 0-4 is a Draw."""
    from pbem import rulesets
    from pbem.core import genesis
    from pbem.core.game import open_genesis
    from pbem.rulesets.chir.report import score_text

    sc = open_genesis(genesis.sandbox(rulesets.get("chir"), {"seed": "x"}, created="2026-11-29T10:00:00Z")).scenario
    now = {"phase": "attack"}
    assert score_text(sc, {"halves": {"soviet": 20, "german": 29}, "line": True}, now) == (
        "VP if the game ended now (4.0): Soviet 10, German 14.5, a draw, 4.5 apart, counted as 4 (4.5); the German line of "
        "communication to the Don is open (4.3)")
    assert score_text(sc, {"halves": {"soviet": 40, "german": 20}, "line": False}, {"phase": "over"}) == (
        "VP at the end (4.0): Soviet 20, German 10, a Soviet narrow victory by 10 (4.5); the German line of "
        "communication to the Don is cut (4.3)")



def test_a_key_that_names_no_decision_is_refused_with_the_decision_awaited_as_example(tmp_path):
    """A players' probe: a key naming no decision was refused with an example made of the
    order's type ("such as "5.1/result""), a kind of decision the ruleset has not; written as
    shown, it was accepted and answered nothing. The example is now the sender's decision the
    game waits for, or none."""
    import pytest

    from pbem.core import engine
    from pbem.core.errors import RulesError

    match, state = _asked_for_defensive_fire(tmp_path)
    with pytest.raises(RulesError) as refused:
        match.send("german", [{"type": "fire", "target": "3220", "decision": "2.1/defensive_fire"}])
    assert refused.value.message.endswith(
        "order 1, field `decision`: 2.1/defensive_fire does not name a decision: write ORDER-SEQ.ORDER-INDEX/KIND[/N] "
        "of an order sent so far, such as \"2.1/defensive-fire\", your decision the game waits for"), refused.value.message
    assert engine.awaited_decision(state, "soviet") is None      # the Soviet side awaits no decision of its own
    with pytest.raises(RulesError) as refused:
        engine.check_orders(match.game, [{"type": "morale", "choice": "retreat", "decision": "2.1"}], 4, "o.yaml",
                            engine.awaited_decision(state, "soviet"))
    assert refused.value.message == (
        "o.yaml: order 1, field `decision`: 2.1 does not name a decision: write ORDER-SEQ.ORDER-INDEX/KIND[/N] of an "
        "order sent so far (`pbem orders` writes each answer with the key of its decision)")


@pytest.mark.parametrize("key, written", [(3, "3"), (None, "null"), (True, "true"), (["2.1/defensive-fire"],
                                                                                  '["2.1/defensive-fire"]')])
def test_a_decision_key_that_is_no_string_is_refused_in_words(tmp_path, key, written):
    """A cheater's probe: a signed packet whose order said `decision: 3` stopped the
    opponent's `pbem adjudicate` with a Python traceback (its refusal could not show the
    number), nothing written; it is refused as any key naming no decision is."""
    from pbem.core.errors import RulesError

    from pbem.core import game

    match, state = _asked_for_defensive_fire(tmp_path)
    order = {"type": "fire", "target": "3220", "decision": key}
    words = f"order 1, field `decision`: {written} does not name a decision: write ORDER-SEQ.ORDER-INDEX/KIND[/N]"
    with pytest.raises(RulesError) as refused:   # the sender's own submit
        match.send("german", [order])
    assert words in refused.value.message
    # the packet signed anyway, as the opponent's adjudicate receives it
    sender = match.folders["german"]
    packet = game.build_packet(sender.game, sender.state, "german", [order], None, match.keys["german"],
                               "2026-11-29T10:00:00Z")
    data = game.packet_yaml(packet).encode()
    receiver = match.folders["soviet"]
    with pytest.raises(RulesError) as refused:
        game.adjudicate(receiver, packet, data, "evil.yaml")
    assert words in refused.value.message
    assert receiver.state["seq"] == state["seq"] and not (receiver.path / "states" / f"{state['seq'] + 1:04d}.yaml").exists()


def test_an_answer_named_for_another_decision_than_the_one_awaited_is_warned_of(tmp_path):
    """Where a packet's reveal brings the game to its sender's own decision (dos: a defender's
    result after the dice of its air defence), an answer named `5.1/result` for
    5.1/defender-result names a decision that never comes, and the one awaited stays unanswered
    (a players' probe): `pbem submit` says so, and which key was meant. An answer named for a
    decision still to come is said to wait for it, not for the side's next orders. Here the
    German defensive-fire decision stands for it, the packet's queue as it would be after."""
    from pbem.core import submit

    match, state = _asked_for_defensive_fire(tmp_path)
    after = dict(state, queue=state["queue"] + [
        {"seq": state["seq"], "side": "german", "index": 1, "order": {"type": "fire", "target": "3220"},
         "decision": "2.1/fire"},
        {"seq": state["seq"], "side": "german", "index": 2, "order": {"type": "morale", "choice": "retreat"},
         "decision": "2.1/morale"}])
    assert submit.misnamed(after, "german") == [
        "order 1 (fire target=3220) answers decision 2.1/fire, but the game now waits for your decision "
        "2.1/defensive-fire, which no order of yours answers: if you meant it, name it `decision: "
        "\"2.1/defensive-fire\"` (an answer to a decision that never comes is never applied)"]
    assert submit.kept(after, "german") == [
        "order 2 answers decision 2.1/morale: it waits in the queue for that decision, and applies when it comes "
        "(never, if it does not)"]
    assert submit.misnamed(after, "soviet") == []
