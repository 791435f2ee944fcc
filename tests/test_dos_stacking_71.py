"""dos 7.1 in the Combat Phase: "A Player may never have more than three combat units in any
one hex at the end of his Movement Phase and at any time during the Combat Phase ... If units
are found to be in excess of the Stacking restrictions at the end of a Friendly Movement Phase
or any Combat Phase, the excess must be eliminated ..., at the choice of the Owning Player."
With 7.22 (a whole division counts as one unit) and 7.23 (no longer once a regiment is lost).

- The excess of either player's hexes is eliminated at the end of a Combat Phase, the phasing
  player's first, each by its owner (decision `stack`), the non-phasing player asked for his
  own (testers' probe: a D1 that took 103/14Pz left N2130 with four units into the Soviet
  Mechanized Phase).
- A player's own choice may not put a hex over the limit during the Combat Phase: an advance
  after combat (9.8) or an attacker's retreat (9.67) that would leave the hex it leaves over it
  is refused under 7.1, and neither is offered (testers' probe: 36/14Pz advanced alone from a
  hex of 14Pz, 29Pg and G/57, the end of the phase took 103/14Pz, and 14Pz lost its integrity
  for good)."""

from __future__ import annotations

import copy

import pytest

from pbem.core import game
from pbem.core.errors import RulesError
from pbem.rulesets.dos import RULESET, combat, flow
from pbem.rulesets.dos import state as st
from pbem.rulesets.dos.board import stacking_ok
from tests.support.cases import run_case
from tests.test_dos_support import SC, at, events_of, play, refused

HQ = {"A/21": {"hex": "N2143"}}          # the Soviet HQ that supplies the Soviet units about N2245
LIMIT = "and no more than 3 combat units may stand in a hex at any time of the Combat Phase (7.1)"


def attack(targets, units, **extra) -> dict:
    return {"type": "attack", "targets": targets, "units": units, **extra}


def on(rules: dict, h: str) -> list[str]:
    return sorted(u for u, w in rules["units"].items() if w == h)


def over_stack_events_raw(ctx) -> list[dict]:
    return [e for e in events_of(ctx, "eliminated") if e["rule"] == "7.1"]


def over_stack_events(ctx) -> list[tuple]:
    return [(e["units"], e["text"], e["chosen_by"], e["side"], e["phase"]) for e in events_of(ctx, "eliminated")
            if e["rule"] == "7.1"]


# --- the end of a Combat Phase: either player's excess --------------------------------------------------

# the testers' position: three whole divisions in N2130 (3 units, 7.22), 103/14Pz a step down
N2130 = {"103/14Pz": {"hex": "N2130", "steps_lost": 1}, "36/14Pz": {"hex": "N2130"}, "108/14Pz": {"hex": "N2130"},
         "15/29Pg": {"hex": "N2130"}, "71/29Pg": {"hex": "N2130"},
         "29/3Pg": {"hex": "N2130"}, "8/3Pg": {"hex": "N2130"},
         "TC/1": {"hex": "N2030"}, "TC/16": {"hex": "N2030"}, "A/21": {"hex": "N2030"},
         "TC/4": {"hex": "N2029"}, "TC/24": {"hex": "N2029"}}
TANKS = attack(["N2130"], ["TC/1", "TC/16", "TC/4", "TC/24"], hqs=["A/21"])
# the testers' loss: the Axis player's own choice, as the standing order `losses` keeps a
# division whole where another step may go (7.23)
LOSS = {"type": "loss", "unit": "103/14Pz"}
SOVIET_FIGHT = {"turn": 3, "player": "soviet", "phase": "combat", "units": N2130}


def test_7_1_7_22_7_23_the_defenders_excess_is_eliminated_at_the_end_of_the_enemy_combat_phase():
    """D1 (35 against 16, 2-1, die 2): the Axis loses 103/14Pz, 14Pz breaks up (7.23) and N2130
    holds four units; the end of the Soviet Combat Phase eliminates one of them, the Axis
    standing order choosing the weakest whose loss makes the hex legal (a 14Pz regiment: a
    29Pg regiment lost would leave the other counting one, still four)."""
    rules = at(**SOVIET_FIGHT)
    ctx = play(rules, [TANKS, LOSS, {"type": "end", "phase": "combat"}], dice=[2],
               policies={"defender_result": "loss", "advance": "none", "losses": "ask"})
    assert events_of(ctx, "combat")[0]["result"] == "D1"
    assert [(e["units"], e["rule"]) for e in events_of(ctx, "eliminated")] == [(["103/14Pz"], "9.6"),
                                                                                (["108/14Pz"], "7.1")]
    assert over_stack_events(ctx) == [(["108/14Pz"], "108/14Pz eliminated: N2130 was over the stacking limit (7.1).",
                                       "policy", "axis", "combat")]
    assert on(rules, "N2130") == ["15/29Pg", "29/3Pg", "36/14Pz", "71/29Pg", "8/3Pg"]
    assert stacking_ok(SC(), rules, on(rules, "N2130")) and rules["broken"] == ["14Pz"]
    # eliminated as the Combat Phase ended, before the Mechanized Phase began
    assert [e["type"] for e in ctx.events][-2:] == ["eliminated", "phase"] and ctx.events[-1]["phase"] == "mech"
    assert (rules["player"], rules["phase"]) == ("soviet", "mech")


def test_7_1_the_non_phasing_owner_chooses_and_is_asked_again_until_the_hex_is_legal():
    rules = at(**SOVIET_FIGHT)
    play(rules, [TANKS, LOSS, {"type": "end"}], dice=[2], policies={"defender_result": "loss", "advance": "none",
                                                                   "overstack": "ask", "losses": "ask"})
    sc = SC()
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind, need.rule, need.decision) == ("axis", "stack", "7.1", True)
    assert need.prompt == "N2130 is over the stacking limit: eliminate units (7.1)"
    assert (rules["player"], rules["phase"]) == ("soviet", "combat")                 # the phase waits for it
    assert flow.legal_orders(sc, rules, need) == [{"type": "eliminate", "units": [u]} for u in
                                                  ("108/14Pz", "15/29Pg", "29/3Pg", "36/14Pz", "71/29Pg", "8/3Pg")]
    # 15/29Pg lost: 71/29Pg counts one of its own, and the hex still holds four; asked again
    ctx = play(rules, [{"type": "eliminate", "units": ["15/29Pg"]}], policies={"overstack": "ask"})
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind, need.prompt) == ("axis", "stack", "N2130 is over the stacking limit: eliminate units "
                                                                       "(7.1)")
    ctx = play(rules, [{"type": "eliminate", "units": ["36/14Pz"]}], policies={"overstack": "ask"}, ctx=ctx)
    assert over_stack_events(ctx) == [
        (["15/29Pg"], "15/29Pg eliminated: N2130 was over the stacking limit (7.1).", "order", "axis", "combat"),
        (["36/14Pz"], "36/14Pz eliminated: N2130 was over the stacking limit (7.1).", "order", "axis", "combat")]
    assert on(rules, "N2130") == ["108/14Pz", "29/3Pg", "71/29Pg", "8/3Pg"]
    assert (rules["player"], rules["phase"]) == ("soviet", "mech")
    assert sorted(rules["broken"]) == ["14Pz", "29Pg"]


def test_7_1_the_game_waits_for_the_non_phasing_players_packet(tmp_path):
    """Through the engine: the Soviet packet that ends the phase leaves the game waiting for a
    packet from the Axis player, whose standing order asks; his answer ends the phase."""
    doc = RULESET.scenarios["historical"]()
    doc["position"] = SOVIET_FIGHT
    folder, events = run_case(tmp_path, "dos", doc, [
        {"side": "axis", "policies": {"defender_result": "loss", "overstack": "ask", "losses": "ask"}},
        {"side": "soviet", "orders": [TANKS, {"type": "end"}], "policies": {"advance": "none"}}], [2])
    assert folder.state["awaiting"]["decision"] == "2.1/loss"
    packet = game.build_packet(folder.game, folder.state, "axis", [LOSS], None, None, "")
    events = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "axis loss").events
    awaiting = folder.state["awaiting"]
    assert (awaiting["packet_from"], awaiting["waiting_for"], awaiting["decision"]) == ("axis", "decision", "2.2/stack")
    assert (awaiting["need"]["side"], awaiting["need"]["kind"]) == ("axis", "stack")
    assert not [e for e in events if e["type"] == "eliminated" and e["rule"] == "7.1"]
    packet = game.build_packet(folder.game, folder.state, "axis", [{"type": "eliminate", "units": ["36/14Pz"]}], None,
                               None, "")
    applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "axis answer")
    lost = [e for e in applied.events if e["type"] == "eliminated"]
    assert [(e["text"], e["chosen_by"]) for e in lost] == [
        ("36/14Pz eliminated: N2130 was over the stacking limit (7.1).", "order")]
    rules = folder.state["rules"]
    assert (rules["player"], rules["phase"], folder.state["awaiting"]["packet_from"]) == ("soviet", "mech", "soviet")


def test_7_1_the_phasing_players_hexes_first_then_the_others():
    """Both players over the limit as the Soviet Combat Phase ends (a position: four Soviet
    rifle divisions in N2244, four German infantry divisions in N2130): the Soviet player's hex
    is asked first, of him, then the Axis player's, of him."""
    soviet = {u: {"hex": "N2244", "revealed": [1, 1]} for u in ("R/6", "R/38", "R/63", "R/77")}
    axis = {u: {"hex": "N2130"} for u in ("G/57", "G/75", "G/79", "G/113")}
    rules = at(turn=3, player="soviet", phase="combat", units={**soviet, **axis, **HQ})
    sc = SC()
    play(rules, [{"type": "end"}], policies={"overstack": "ask"})
    need = flow.next_step(sc, rules)
    assert (need.side, need.prompt) == ("soviet", "N2244 is over the stacking limit: eliminate units (7.1)")
    ctx = play(rules, [{"type": "eliminate", "units": ["R/77"]}], policies={"overstack": "ask"})
    need = flow.next_step(sc, rules)
    assert (need.side, need.prompt) == ("axis", "N2130 is over the stacking limit: eliminate units (7.1)")
    play(rules, [{"type": "eliminate", "units": ["G/113"]}], policies={"overstack": "ask"}, ctx=ctx)
    assert [(e["units"], e["side"]) for e in over_stack_events_raw(ctx)] == [(["R/77"], "soviet"), (["G/113"], "axis")]
    assert (rules["player"], rules["phase"]) == ("soviet", "mech")
    # the same with the standing orders: the weakest unit of each
    weak = {"G/113": {"hex": "N2130", "steps_lost": 2}}
    rules = at(turn=3, player="soviet", phase="combat", units={**soviet, **axis, **weak, **HQ})
    ctx = play(rules, [{"type": "end"}])
    assert [(e["units"], e["side"], e["chosen_by"]) for e in over_stack_events_raw(ctx)] == [
        (["R/38"], "soviet", "policy"), (["G/113"], "axis", "policy")]


def test_7_1_submit_says_the_combat_phase_ended():
    """`pbem submit` warns a player of units his packet lost for the stacking limit; lost as a
    Combat Phase ended, it says so (it said the Movement Phase for every loss)."""
    rules = at(**SOVIET_FIGHT)
    ctx = play(rules, [TANKS, LOSS, {"type": "end"}], dice=[2], policies={"defender_result": "loss", "advance": "none",
                                                                        "losses": "ask"})
    warned = [w for w in flow.cautions(SC(), rules, ctx.events, "axis", []) if "stacking limit" in w]
    assert warned == ["108/14Pz was eliminated: N2130 was over the stacking limit as the Combat Phase ended (7.1: at "
                      "any time of a Combat Phase a hex may hold at most 3 combat units, or 4 units if one is an HQ; "
                      "trucks and air units do not count)"]
    assert not [w for w in flow.cautions(SC(), rules, ctx.events, "soviet", []) if "stacking limit" in w]


# --- advances that would leave a hex over the limit ---------------------------------------------------------

# the testers' position: 14Pz and 29Pg whole and G/57 in N2241 (3 units, 7.22), R/6 next door
N2241 = {"36/14Pz": {"hex": "N2241"}, "103/14Pz": {"hex": "N2241"}, "108/14Pz": {"hex": "N2241"},
         "15/29Pg": {"hex": "N2241"}, "71/29Pg": {"hex": "N2241"}, "G/57": {"hex": "N2241"},
         "R/6": {"hex": "N2240", "revealed": [2, 4]}}
ALL_OF_N2241 = ["36/14Pz", "103/14Pz", "108/14Pz", "15/29Pg", "71/29Pg", "G/57"]
SPLIT_14PZ = ("36/14Pz may not advance: N2241 would be left holding 4 combat units (103/14Pz and 108/14Pz of 14Pz "
              f"count one each once the division is split, 7.22), {LIMIT}")


def won_at_n2240(**policies):
    """De (37 against 2, 10-1, die 1): R/6 eliminated, the attackers may advance (9.86)."""
    rules = at(phase="combat", units=N2241)
    ctx = play(rules, [attack(["N2240"], ALL_OF_N2241)], dice=[1], policies={"advance": "ask", **policies})
    assert events_of(ctx, "combat")[0]["result"] == "De" and st.status(rules, "R/6") == "gone"
    return rules


def test_7_1_7_22_a_regiment_may_not_advance_alone_from_its_whole_division_in_a_full_hex():
    rules = won_at_n2240()
    err = refused(rules, {"type": "advance", "units": ["36/14Pz"], "path": ["N2240"]}, "7.1")
    assert err.message == SPLIT_14PZ
    assert {"type": "advance", "units": ["103/14Pz", "108/14Pz", "36/14Pz"], "path": ["N2240"]} in err.legal
    err = refused(rules, {"type": "advance", "units": ["108/14Pz"], "path": ["N2240", "N2140"]}, "7.1")
    assert err.message == ("108/14Pz may not advance: N2241 would be left holding 4 combat units (103/14Pz and "
                           f"36/14Pz of 14Pz count one each once the division is split, 7.22), {LIMIT}")
    assert on(rules, "N2240") == [] and rules["broken"] == []                    # nothing moved, nothing lost
    # the division advances whole, in one order, and still counts one in each hex
    ctx = play(rules, [{"type": "advance", "units": ["36/14Pz", "103/14Pz", "108/14Pz"], "path": ["N2240"]},
                       {"type": "advance", "units": []}, {"type": "end"}], policies={"advance": "ask"})
    assert [e["text"] for e in events_of(ctx, "advance")] == [
        "36/14Pz, 103/14Pz, 108/14Pz advance N2241 -> N2240 (9.8).", "No further advance after combat (9.85)."]
    assert not events_of(ctx, "eliminated") and rules["broken"] == [] and rules["phase"] == "mech"
    assert on(rules, "N2240") == ["103/14Pz", "108/14Pz", "36/14Pz"]


def test_7_1_through_the_engine_the_advance_is_refused_with_its_hex_and_count(tmp_path):
    doc = RULESET.scenarios["historical"]()
    doc["position"] = {"turn": 3, "player": "axis", "phase": "combat", "units": N2241}
    orders = [attack(["N2240"], ALL_OF_N2241), {"type": "advance", "units": ["36/14Pz"], "path": ["N2240"]},
              {"type": "end"}]
    with pytest.raises(RulesError) as info:
        run_case(tmp_path, "dos", doc, [{"side": "soviet", "policies": {"defender_result": "retreat"}},
                                        {"side": "axis", "orders": orders}], [1])
    text = str(info.value)
    assert f"order 2 (advance path=N2240 units=36/14Pz) is illegal: {SPLIT_14PZ}.\nLegal now: advance units=none; " \
           in text and text.count("(7.1)") == 1


def test_7_1_the_options_offer_only_advances_within_the_limit_in_both_hexes():
    """What `pbem orders` lists, and a bot chooses from: no regiment of 14Pz alone; 14Pz's
    regiments together (two of them leave one, counting one, 3 in all: legal, if costly);
    29Pg's regiments alone too (the other, 14Pz and G/57 make three). Every option, taken,
    ends the phase with nothing eliminated."""
    sc = SC()
    rules = won_at_n2240()
    need = flow.next_step(sc, rules)
    options = flow.legal_orders(sc, rules, need)
    assert options == combat.advance_options(sc, rules, rules["combat"]) and options[0] == {"type": "advance",
                                                                                          "units": []}
    into = {tuple(o["units"]) for o in options if o.get("path") == ["N2240"]}
    assert into == {("103/14Pz", "108/14Pz"), ("103/14Pz", "36/14Pz"), ("108/14Pz", "36/14Pz"),
                    ("103/14Pz", "108/14Pz", "36/14Pz"), ("15/29Pg",), ("71/29Pg",), ("15/29Pg", "71/29Pg"),
                    ("G/57",)}
    for option in options[1:]:
        after = copy.deepcopy(rules)
        ctx = play(after, [option, {"type": "advance", "units": []}, {"type": "end"}], policies={"advance": "ask"})
        assert not events_of(ctx, "eliminated") and after["phase"] == "mech", option
        assert stacking_ok(sc, after, on(after, "N2241")), option


def test_7_1_7_21_the_standing_orders_advance_the_division_whole():
    """`advance: one` takes 14Pz forward whole (doubled, 32, the strongest), `all` every
    unit, a whole division at a time: nothing is eliminated at the end of the phase."""
    for value, ahead in (("one", ["103/14Pz", "108/14Pz", "36/14Pz"]), ("all", sorted(ALL_OF_N2241))):
        rules = won_at_n2240(advance=value)
        ctx = play(rules, [{"type": "end"}], policies={"advance": value})
        assert [e["units"] for e in events_of(ctx, "eliminated")] == [] and rules["broken"] == []
        assert on(rules, "N2240") == ahead and rules["phase"] == "mech"


PANZERS = {"15/11Pz": {"hex": "N2246"}, "110/11Pz": {"hex": "N2246"}, "111/11Pz": {"hex": "N2246"},
           "Hun/7": {"hex": "N2246"}, "Hun/9": {"hex": "N2246"}}          # a whole division counts as one (7.22)


def test_7_1_an_order_to_advance_when_the_limit_left_no_advance_open_says_why():
    """Only 15/11Pz attacked: its advance alone would leave N2246 with 110/11Pz, 111/11Pz and
    the two Hungarian divisions, four units, so no advance is open; an order to advance it is
    refused under 7.1 (it was obeyed, and the end of the phase eliminated a unit)."""
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, **PANZERS, **HQ})
    ctx = play(rules, [attack(["N2245"], ["15/11Pz"])], dice=[1])
    assert events_of(ctx, "combat")[0]["result"] == "D2" and st.hex_of(rules, "R/6") != "N2245"
    err = refused(rules, {"type": "advance", "units": ["15/11Pz"], "path": ["N2245"]}, "7.1")
    assert err.message == ("15/11Pz may not advance: N2246 would be left holding 4 combat units (110/11Pz and 111/11Pz "
                           f"of 11Pz count one each once the division is split, 7.22), {LIMIT}")
    # a unit that did not fight is told that no advance is open, as before
    refused(rules, {"type": "advance", "units": ["Hun/7"], "path": ["N2245"]}, "9.0", "the game waits for")
    ctx = play(rules, [{"type": "end"}])
    assert not events_of(ctx, "eliminated") and on(rules, "N2246") == sorted(PANZERS) and rules["broken"] == []


def test_7_1_a_hex_already_over_the_limit_may_be_left_by_units_that_bring_it_nearer():
    """N2246 holds 14Pz whole and three German infantry divisions, four units (as a combat
    result may leave a hex): G/57 may advance (three left); 36/14Pz may not (five left); the end
    of the phase has nothing to eliminate once G/57 has gone."""
    units = {"36/14Pz": {"hex": "N2246"}, "103/14Pz": {"hex": "N2246"}, "108/14Pz": {"hex": "N2246"},
             "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"}, "G/79": {"hex": "N2246"},
             "R/6": {"hex": "N2245", "revealed": [1, 1]}, **HQ}
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], ["36/14Pz", "G/57"])], dice=[1], policies={"advance": "ask"})
    assert events_of(ctx, "combat")[0]["result"] == "De"
    options = combat.advance_options(SC(), rules, rules["combat"])
    assert {tuple(o["units"]) for o in options} == {(), ("G/57",)}
    err = refused(rules, {"type": "advance", "units": ["36/14Pz"], "path": ["N2245"]}, "7.1")
    assert err.message == ("36/14Pz may not advance: N2246 would be left holding 5 combat units (103/14Pz and 108/14Pz "
                           f"of 14Pz count one each once the division is split, 7.22), {LIMIT}")
    ctx = play(rules, [{"type": "advance", "units": ["G/57"], "path": ["N2245"]}, {"type": "end"}])
    assert not events_of(ctx, "eliminated") and st.hex_of(rules, "G/57") == "N2245" and rules["phase"] == "mech"


# --- an attacker's retreat that would leave a hex over the limit ---------------------------------------------

def test_7_1_9_67_an_attackers_retreat_that_would_split_a_whole_division_is_refused():
    """36/14Pz alone attacks R/6 (4 against 9, 1-3, die 1: A1) from N2246, where 14Pz and 29Pg
    stand whole with G/57: its retreat would leave 103/14Pz and 108/14Pz counting one each, four
    units, so the attacker must lose the step. The defenders of a hex all retreat: their
    retreat leaves nothing behind."""
    sc = SC()
    units = {"36/14Pz": {"hex": "N2246"}, "103/14Pz": {"hex": "N2246"}, "108/14Pz": {"hex": "N2246"},
             "15/29Pg": {"hex": "N2246"}, "71/29Pg": {"hex": "N2246"}, "G/57": {"hex": "N2246"},
             "R/6": {"hex": "N2245", "revealed": [2, 9]}, **HQ}
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], ["36/14Pz"])], dice=[1], policies={"attacker_result": "ask"})
    assert events_of(ctx, "combat")[0]["result"] == "A1"
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("axis", "attacker-result")
    assert flow.legal_orders(sc, rules, need) == [{"type": "result", "choice": "loss"}]
    err = refused(rules, {"type": "result", "choice": "retreat"}, "7.1")
    assert err.message == ("the attackers may not retreat: N2246 would be left holding 4 combat units (103/14Pz and "
                           f"108/14Pz of 14Pz count one each once the division is split, 7.22), {LIMIT}")
    assert err.legal == ["loss"]
    # the standing order `retreat` loses the step instead, and nothing is eliminated as the phase ends
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], ["36/14Pz"]), {"type": "end"}], dice=[1],
               policies={"attacker_result": "retreat"})
    assert [(e["text"], e["chosen_by"]) for e in events_of(ctx, "choice")] == [
        ("The attacker answers A1 with step losses (9.67).", "policy")]
    assert st.lost(rules, "36/14Pz") == 1 and not events_of(ctx, "retreat") and not events_of(ctx, "eliminated")
    assert rules["phase"] == "mech" and rules["broken"] == []
    # without 29Pg the three left behind make three: the retreat is offered and taken
    del units["15/29Pg"], units["71/29Pg"]
    rules = at(phase="combat", units=units)
    play(rules, [attack(["N2245"], ["36/14Pz"])], dice=[1], policies={"attacker_result": "ask"})
    assert flow.legal_orders(sc, rules, flow.next_step(sc, rules)) == [{"type": "result", "choice": "retreat"},
                                                                       {"type": "result", "choice": "loss"}]
    ctx = play(rules, [{"type": "result", "choice": "retreat"}, {"type": "end"}])
    assert len(events_of(ctx, "retreat")) == 1 and st.hex_of(rules, "36/14Pz") != "N2246"
    assert not events_of(ctx, "eliminated") and rules["phase"] == "mech"


def test_7_1_6_5_an_overrun_is_movement_its_attackers_may_retreat_out_of_a_full_hex():
    """The same fight as an overrun in the Initial Movement Phase (2 against 9, die 1: A1): the
    limit holds at the end of the Movement Phase only, so the retreat is offered; what is still
    over the limit as the phase ends is eliminated then (7.1)."""
    sc = SC()
    units = {"36/14Pz": {"hex": "N2246"}, "103/14Pz": {"hex": "N2246"}, "108/14Pz": {"hex": "N2246"},
             "15/29Pg": {"hex": "N2246"}, "71/29Pg": {"hex": "N2246"}, "G/57": {"hex": "N2246"},
             "R/6": {"hex": "N2245", "revealed": [2, 9]}, **HQ}
    rules = at(units=units)
    ctx = play(rules, [{"type": "overrun", "units": ["36/14Pz"], "target": "N2245"}], dice=[1],
               policies={"attacker_result": "ask"})
    assert events_of(ctx, "combat")[0]["result"] == "A1"
    assert flow.legal_orders(sc, rules, flow.next_step(sc, rules)) == [{"type": "result", "choice": "retreat"},
                                                                       {"type": "result", "choice": "loss"}]
    ctx = play(rules, [{"type": "result", "choice": "retreat"}, {"type": "end"}])
    assert st.hex_of(rules, "36/14Pz") != "N2246" and rules["phase"] == "combat"
    assert [(e["units"], e["phase"]) for e in over_stack_events_raw(ctx)] == [(["103/14Pz"], "move")]
