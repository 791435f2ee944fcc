"""dos German withdrawals when the unit named is unavailable: 15.22 (b) (a unit withdrawn before
in place of another is unavailable), 15.24 (units of the type whose steps make exactly the full
steps of the unit named: the legal sets, the options offered, the rule logged) and 15.25 with
20.1 (only the unit ordered to withdraw comes back, at full strength; the units withdrawn in
its place leave for good).

Test names begin with the case they test."""

from __future__ import annotations

import copy

import pytest

from pbem.rulesets.dos import flow, reinforce, report
from pbem.rulesets.dos import state as st
from tests.test_dos_support import SC, Ctx, IllegalOrder, at, events_of, play

# two Soviet Guards divisions whose ZOC covers N1940, N1941, N2039, N2140 and N2141
SOVIETS = {"GR/9": {"hex": "N2040"}, "GR/14": {"hex": "N2041"}}
# seven German infantry divisions down to their last step (3 of 4 lost), all in a Soviet ZOC
REDUCED = {"G/9": "N1941", "G/94": "N1941", "G/111": "N2039", "G/198": "N2039",
           "G/295": "N2140", "G/370": "N2140", "G/44": "N2141"}
POLICIES = {"withdrawal": "ask", "rail_clearing": "none", "truck_railheads": "none"}


def withdrawal_due(turn: int, units: dict, withdrawn: dict | None = None) -> dict:
    """The state at the withdrawal of `turn` (15.21), the standing order set to ask; `withdrawn`
    records the withdrawals of earlier Game-Turns."""
    rules = at(turn=turn - 1, player="soviet", phase="interdiction", units=units)
    rules["withdrawn"] = dict(withdrawn or {})
    play(rules, [{"type": "end"}], dice=[2], policies=POLICIES)
    assert rules["pending"] and rules["pending"][0]["kind"] == "withdrawal"
    assert rules["turn"] == turn
    return rules


def options(rules) -> list[list[str]]:
    need = flow.next_step(SC(), rules)
    return [o["units"] for o in flow.legal_orders(SC(), rules, need)]


def refused(rules, units: list[str], rule: str) -> None:
    before = copy.deepcopy(rules)
    with pytest.raises(IllegalOrder) as e:
        play(rules, [{"type": "withdraw", "units": units}])
    assert e.value.rule == rule
    assert rules == before


def turn_2_all_in_zoc(g76: dict | None = None) -> dict:
    """Game-Turn 2 (the 76th ordered out): every German infantry division in a Soviet ZOC, so no
    unit is available (15.22 d) and 15.24 applies; the 76th at full strength unless given."""
    units = dict(SOVIETS, **{"G/76": g76 or {"hex": "N1940"}})
    units.update({u: {"hex": h, "steps_lost": 3} for u, h in REDUCED.items()})
    return withdrawal_due(2, units)


def steps(rules, units) -> int:
    return sum(st.steps_left(SC(), rules, u) for u in units)


def return_turn(rules, turn: int) -> Ctx:
    """The Axis reinforcements of `turn` (15.1), the returns among them (15.25)."""
    rules["turn"] = turn
    ctx = Ctx()
    reinforce.axis_turn(SC(), rules, ctx)
    return ctx


# --- 15.24 with 15.25 and 20.1: what comes back ---------------------------------------------------------

def test_15_24_15_25_20_1_units_withdrawn_in_place_of_the_76th_leave_for_good():
    rules = turn_2_all_in_zoc()
    four = ["G/111", "G/198", "G/295", "G/370"]                          # 4 x 1 step = the 76th's 4 steps
    ctx = play(rules, [{"type": "withdraw", "units": four}])
    assert [st.status(rules, u) for u in four] == ["out"] * 4
    assert rules["due"] == {} and rules["withdrawn"] == {"2": four}
    e = events_of(ctx, "withdrawal")[0]
    assert (e["units"], e["returning"], e["rule"]) == (four, [], "15.24")
    assert e["text"] == ("G/111, G/198, G/295, G/370 withdrawn from the game (ordered: G/76); none comes back on "
                         "Game-Turn 20: only the unit ordered to withdraw returns (15.24, 15.25, 20.1).")
    assert st.on_map(rules, "G/76")
    ctx = return_turn(rules, 20)
    assert events_of(ctx, "reinforcements") == [] and [st.status(rules, u) for u in four] == ["out"] * 4


def test_15_24_15_25_20_1_the_76th_among_them_comes_back_alone_at_full_strength():
    rules = turn_2_all_in_zoc({"hex": "N1940", "steps_lost": 3})          # the 76th down to 1 step
    units = ["G/111", "G/198", "G/295", "G/76"]
    ctx = play(rules, [{"type": "withdraw", "units": units}])
    assert rules["due"] == {"G/76": 20}
    assert [st.status(rules, u) for u in units] == ["out", "out", "out", "due"]
    e = events_of(ctx, "withdrawal")[0]
    assert (e["returning"], e["rule"]) == (["G/76"], "15.24")
    assert e["text"].endswith("; G/76 back on Game-Turn 20 at full strength, the others for good (15.24, 15.25).")
    ctx = return_turn(rules, 20)
    assert events_of(ctx, "reinforcements")[0]["units"] == ["G/76"]
    assert st.status(rules, "G/76") == "ready" and st.steps_left(SC(), rules, "G/76") == 4
    assert [st.status(rules, u) for u in units[:3]] == ["out"] * 3


def test_15_24_15_25_20_1_of_a_mechanized_set_only_the_11th_panzer_regiments_come_back():
    # Game-Turn 10, 11 Pz ordered out: in a Soviet ZOC, one regiment reduced; 24 Pz not whole
    rules = withdrawal_due(10, dict(SOVIETS, **{
        "15/11Pz": {"hex": "N1940"}, "110/11Pz": {"hex": "N1940", "steps_lost": 1}, "111/11Pz": {"hex": "N1940"},
        "24/24Pz": {"hex": "N2039", "steps_lost": 1}, "21/24Pz": {"hex": "N2039"}}))
    assert options(rules) == [["111/11Pz", "15/11Pz", "21/24Pz"],                      # 2 + 2 + 2 = 6 steps
                              ["110/11Pz", "111/11Pz", "15/11Pz", "24/24Pz"],          # 1 + 2 + 2 + 1
                              ["110/11Pz", "111/11Pz", "21/24Pz", "24/24Pz"],
                              ["110/11Pz", "15/11Pz", "21/24Pz", "24/24Pz"]]
    ctx = play(rules, [{"type": "withdraw", "units": ["110/11Pz", "111/11Pz", "15/11Pz", "24/24Pz"]}])
    assert rules["due"] == {"110/11Pz": 21, "111/11Pz": 21, "15/11Pz": 21}
    assert st.status(rules, "24/24Pz") == "out" and st.on_map(rules, "21/24Pz")
    assert events_of(ctx, "withdrawal")[0]["rule"] == "15.24"
    return_turn(rules, 21)
    assert [st.steps_left(SC(), rules, u) for u in ("110/11Pz", "111/11Pz", "15/11Pz")] == [2, 2, 2]
    assert st.status(rules, "24/24Pz") == "out"


# --- 15.24: the legal sets and the options offered --------------------------------------------------------

def test_15_24_the_76th_whole_in_an_enemy_zoc_alone_offered_first_and_accepted():
    rules = turn_2_all_in_zoc()
    opts = options(rules)
    assert opts[0] == ["G/76"]                                                         # the simplest first
    assert opts[1] == ["G/111", "G/198", "G/295", "G/370"]                             # then 4 x 1 step
    assert len(opts) == reinforce.OPTIONS_15_24 and len({tuple(o) for o in opts}) == len(opts)
    assert all(steps(rules, o) == 4 for o in opts)                                     # never an over-withdrawal
    ctx = play(rules, [{"type": "withdraw", "units": ["G/76"]}])
    assert rules["due"] == {"G/76": 20} and all(st.on_map(rules, u) for u in REDUCED)
    e = events_of(ctx, "withdrawal")[0]
    assert e["rule"] == "15.24"
    assert e["text"] == ("G/76 withdrawn from the game (ordered: G/76); G/76 back on Game-Turn 20 at full "
                         "strength (15.24, 15.25).")


def test_15_24_the_standing_order_withdraws_the_76th_itself():
    """Under 15.24 the 76th, whole in an Enemy ZOC, may go itself: `named` withdraws it, and
    `pbem orders` says so, and why no other answer is made for the player."""
    rules = turn_2_all_in_zoc()
    assert report.describe_need(SC(), rules, flow.next_step(SC(), rules))[-1] == (
        "The track names G/76 (15.21), which is unavailable: G/76 is in an Enemy ZOC in N1940 (15.22 d); and no unit "
        "of its type is available either, so units of its type, in an Enemy ZOC or not, whose steps make its full "
        "strength go (15.24): G/76 itself among them, which the standing order `withdrawal: named` withdraws.")
    play(rules, [], policies={"withdrawal": "named"})
    assert rules["withdrawn"] == {"2": ["G/76"]} and rules["due"] == {"G/76": 20}


def test_15_24_exactly_the_steps_any_exact_set_accepted_others_refused():
    rules = turn_2_all_in_zoc()
    refused(rules, ["G/76", "G/9"], "15.24")                                           # 5 steps
    refused(rules, ["G/44", "G/76", "G/9", "G/94"], "15.24")                           # 7 steps
    refused(rules, ["G/111", "G/198", "G/295"], "15.24")                               # 3 steps
    refused(rules, ["G/111", "G/111", "G/198", "G/295"], "15.24")                      # one unit twice
    refused(rules, ["G/111", "G/198", "G/295", "GR/9"], "15.24")                       # not of the type
    late = ["G/370", "G/44", "G/9", "G/94"]
    assert late not in options(rules)                                                  # not offered, yet legal
    ctx = play(rules, [{"type": "withdraw", "units": late}])
    assert events_of(ctx, "withdrawal")[0]["rule"] == "15.24" and rules["withdrawn"] == {"2": late}


def test_15_24_no_exact_set_the_least_total_above():
    # the 76th gone; two 3-step divisions: no set makes 4, the least above is 6 (both)
    rules = withdrawal_due(2, dict(SOVIETS, **{"G/9": {"hex": "N1941", "steps_lost": 1},
                                               "G/94": {"hex": "N2039", "steps_lost": 1}}))
    assert options(rules) == [["G/9", "G/94"]]
    refused(rules, ["G/9"], "15.24")
    play(rules, [{"type": "withdraw", "units": ["G/9", "G/94"]}])
    assert rules["withdrawn"] == {"2": ["G/9", "G/94"]} and rules["due"] == {}


# --- 15.22 (b): a substitute withdrawn before ------------------------------------------------------------

def test_15_22_b_a_unit_withdrawn_in_place_of_another_is_no_substitute_again():
    # G/9 went in place of the 76th on Game-Turn 2 and came back (15.23, 15.25); Game-Turn 21:
    # G/94 ordered out, in a Soviet ZOC
    units = dict(SOVIETS, **{"G/94": {"hex": "N1940"}, "G/9": {"hex": "N2045"}, "G/76": {"hex": "N3045"}})
    rules = withdrawal_due(21, units, {"2": ["G/9"], "10": ["110/11Pz", "111/11Pz", "15/11Pz"]})
    assert options(rules) == [["G/76"]]                                                # not G/9
    refused(rules, ["G/9"], "15.23")
    ctx = play(rules, [{"type": "withdraw", "units": ["G/76"]}])
    assert events_of(ctx, "withdrawal")[0]["rule"] == "15.23" and st.status(rules, "G/76") == "out"


def test_15_22_b_nor_in_a_15_24_set():
    # the same, the 76th in a Soviet ZOC too: 15.24, among G/94 and the 76th only
    units = dict(SOVIETS, **{"G/94": {"hex": "N1940"}, "G/9": {"hex": "N2045"}, "G/76": {"hex": "N1941"}})
    rules = withdrawal_due(21, units, {"2": ["G/9"]})
    assert options(rules) == [["G/94"], ["G/76"]]
    refused(rules, ["G/9"], "15.24")
    ctx = play(rules, [{"type": "withdraw", "units": ["G/76"]}])
    assert events_of(ctx, "withdrawal")[0]["rule"] == "15.24" and st.status(rules, "G/76") == "out"
