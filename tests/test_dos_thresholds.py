"""The thresholds of the score, judged "at any point": the doubled north-map reinforcements of
15.41 (their start) and 15.44 (their end for good), and the automatic Decisive Axis Victory of
19.0, seen after every order and after every VP an automatic stage awards (victory.judge).
Positions and scripted dice through the real flow (tests/test_dos_support.py)."""

from __future__ import annotations

from pbem.rulesets.dos import flow, victory

from tests.test_dos_support import SC, at, events_of, play

NO_CLEARING = {"acceleration": "double", "rail_clearing": "none", "truck_railheads": "none"}


def _texts(ctx, type_: str) -> list[str]:
    return [e["text"] for e in events_of(ctx, type_)]


def test_15_44_the_doubling_met_and_lost_in_one_move_is_over_for_good():
    """An Axis regiment passes N0840 while the Soviet player holds exactly 100 VP (15.41 met) and,
    in the same move, takes Voronezh (Soviet 90: below 100, 15.44). The option came into force
    and ended: retaking Voronezh later (100 VP again) does not bring it back. 1.11.0 only noted
    the passage, and granted the doubling once the Soviet total was back at 100."""
    sc = SC()
    rules = at(turn=5, player="axis", phase="move", rest="pool",
               units={"24/24Pz": {"hex": "N0940", "markers": ["fresh"]}, "TC/1": {"hex": "N0540"}},
               vp_adjust={"soviet": -75})
    assert victory.vp(sc, rules)["soviet"] == 100 and rules["accel"] is None
    ctx = play(rules, [{"type": "move", "units": ["24/24Pz"],
                        "path": ["N0840", "N0841", "N0741", "N0742", "N0743", "N0744", "N0745"]}])
    assert victory.vp(sc, rules)["soviet"] == 90
    assert [e["rule"] for e in events_of(ctx, "acceleration")] == ["15.41", "15.44"]
    assert rules["accel"] == "over"
    play(rules, [{"type": "end"}] * 4, policies={"acceleration": "double"})
    play(rules, [{"type": "move", "units": ["TC/1"], "path": ["N0640", "N0741", "N0841"]}])
    assert victory.vp(sc, rules)["soviet"] == 100 and rules["accel"] == "over"
    ctx = play(rules, [{"type": "end"}] * 8, dice=[2, 2, 2, 2], policies=NO_CLEARING)
    drawn = [e for e in events_of(ctx, "reinforcements") if e["text"].startswith("Soviet reinforcements of Game-Turn 6")]
    assert len(drawn) == 1 and "doubled" not in drawn[0]["text"]
    assert events_of(ctx, "acceleration") == []


def test_15_41_a_no_retreats_award_that_brings_100_vp_offers_the_doubling_that_game_turn():
    """An Axis unit stands in N0840 with the Soviet player at 99 VP. At the end of the Axis
    player-turn No Retreats gives him 3 VP (16.55): 102, the conditions of 15.41 are met, and he
    may double "starting with ... the current Game-Turn": the Soviet draw that follows is doubled.
    1.11.0 judged 15.41 only after the order, once the draw had been made."""
    sc = SC()
    rules = at(turn=5, player="soviet", phase="interdiction", rest="pool",
               units={"G/57": {"hex": "N0840"}, "G/75": {"hex": "N3028"}},
               vp_adjust={"soviet": -77}, directive={"letter": "A", "obtained": 5})
    play(rules, [{"type": "end"}], dice=[2], policies=NO_CLEARING)
    assert (rules["turn"], rules["player"], victory.vp(sc, rules)["soviet"]) == (6, "axis", 99)
    ctx = play(rules, [{"type": "move", "units": ["G/75"], "path": ["N3029"]}] + [{"type": "end"}] * 4,
               policies=NO_CLEARING)
    order = [(e["type"], e.get("rule")) for e in ctx.events if e["type"] in ("vp", "acceleration", "reinforcements")]
    assert order[:4] == [("vp", "16.55"), ("acceleration", "15.41"), ("acceleration", "15.42"),
                         ("reinforcements", "15.3")]
    assert _texts(ctx, "reinforcements")[0].startswith("Soviet reinforcements of Game-Turn 6 (north map doubled, 15.42)")
    assert victory.vp(sc, rules)["soviet"] == 102 and rules["accel"] == "on"


def test_15_44_a_dip_below_100_inside_the_record_inter_phase_ends_the_doubling():
    """The doubling is in force at 100 VP. In one Game-Turn Record Inter-Phase the Soviet total
    goes 100 -> 101 (17.2) -> 98 (18.14: a strategic withdrawal on Game-Turn 6 costs 3) -> 102
    (16.63): it fell below 100, so the option ends for good (15.44), and Game-Turn 7's draw is
    not doubled. 1.11.0 looked only after the order, at 102, and kept it."""
    sc = SC()
    rules = at(turn=6, player="soviet", phase="interdiction", rest="pool", units={}, accelerated=True,
               vp_adjust={"soviet": -75}, directive={"letter": "A", "obtained": 2})
    rules["strategic"] = True
    assert victory.vp(sc, rules)["soviet"] == 100 and rules["accel"] == "on"
    ctx = play(rules, [{"type": "end"}], dice=[2], policies=NO_CLEARING)
    soviet = [(e["rule"], e["vp"]) for e in events_of(ctx, "vp") if e["side"] == "soviet"]
    assert soviet == [("17.2", 1), ("18.14", -3), ("16.63", 2), ("16.63", 2)]
    assert [e["rule"] for e in events_of(ctx, "acceleration")] == ["15.44"]
    assert rules["accel"] == "over" and victory.vp(sc, rules)["soviet"] == 102
    ctx = play(rules, [{"type": "end"}] * 4, policies=NO_CLEARING)
    drawn = [t for t in _texts(ctx, "reinforcements") if t.startswith("Soviet reinforcements of Game-Turn 7")]
    assert len(drawn) == 1 and "doubled" not in drawn[0]


def test_19_0_three_to_one_reached_by_an_award_ends_the_game_there():
    """"If at any point, the Axis Player achieves a 3:1 or better superiority in Victory Points,
    the game ends in a Decisive Axis Victory." In the Record Inter-Phase of Game-Turn 18 the
    Don-line award (18.22) brings Axis 129 to Soviet 41; the directive deadlines (16.63) that come
    later in the inter-phase would bring it back below 3:1, but the game ended at 129 to 41 and
    nothing after is counted. 1.11.0 judged only after the order and played on."""
    sc = SC()
    rules = at(turn=18, player="soviet", phase="interdiction", units={},
               vp_adjust={"axis": 60, "soviet": -135}, directive={"letter": "D", "obtained": 10})
    assert victory.vp(sc, rules) == {"axis": 90, "soviet": 40}
    ctx = play(rules, [{"type": "end"}], dice=[2], policies=NO_CLEARING)
    assert [(e["rule"], e["side"], e["vp"]) for e in events_of(ctx, "vp")] == [
        ("17.2", "soviet", 1), ("17.2", "axis", 1), ("18.22", "axis", 38)]
    assert rules["result"] == {"winner": "axis", "level": "Decisive Axis Victory", "vp": {"axis": 129, "soviet": 41},
                               "automatic": True,
                               "text": "Decisive Axis Victory: 129 VP against 41, 3:1 or better (19.0)."}
    assert (rules["phase"], rules["stage"], rules["turn"]) == ("over", None, 18)
    assert ctx.events[-1]["type"] == "victory" and flow.next_step(sc, rules) is None
