"""The fifth rules probe of kkoh: the supporting unit of a Breakthrough's defender (K-CA-7,
K-EX-3); command markers share the result of the units they fought with (K-CMK-4); a chemical
attack is declared before the artillery fire it goes with (K-SFX-4); markers that go with units
roll for minelets (K-SFX-5); all that Give Ground after a Close Assault go slowest first,
volunteers included (K-GG-6, K-CAR-2). Each test fails on the code before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import rulesets
from pbem.core.canonical import load_file
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import RULESET, artillery, flow
from tests.test_kkoh_cases import scenario_doc
from tests.test_kkoh_probe3 import drive as drive3, texts
from tests.test_kkoh_rules import HQS, POS_AP, U, table

CASES = Path(__file__).parent / "cases" / "kkoh"


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def drive(sc, rules, orders, dice, policies=None, stop_step="move2"):
    """tests/test_kkoh_probe3.py's `drive`, stopping by default at the second movement step (the
    first side's assaults are over), every scripted order played."""
    return drive3(sc, rules, orders, dice, policies, stop_step=stop_step, all_used=True)


def events(ctx, *types):
    return [e for e in ctx.events if e["type"] in types]


# --- 1. K-CA-7, K-EX-3: a unit that supported may support again; a target may not ------------------

def example_to_the_breakthrough():
    """The rulebook's example (case close-assault-example.yaml) and the orders that play it to
    the Marder's Breakthrough: the Russians defend Close Assault 1 with R-BTR1 supported by
    R-BTR2 and Close Assault 2 with the T-64s supported by R-BTR3 (K-EX-3)."""
    case = load_file(CASES / "close-assault-example.yaml")
    sc = RULESET.scenario(scenario_doc(case["scenario"]), {})
    orders = case["packets"][0]["orders"] + [
        {"_for": "ca-defence", "type": "defend", "units": ["R-BTR1"], "support": "R-BTR2"},
        {"_for": "ca-defence", "type": "defend", "units": ["R-T64"], "support": "R-BTR3"}]
    return sc, RULESET.setup(sc), orders


def test_k_ex_3_the_breakthrough_defender_may_be_supported_by_the_unit_that_supported_it_before():
    """K-CA-7: the defender names a unit or group "plus up to one other single unit in support
    that has not already Given Ground or is not already the target of an Assault itself";
    K-EX-3: in the Marder's Breakthrough "the Russians could defend with the T64s supported by
    the remaining BTR company", R-BTR3, which had supported the T64s against the Leopards
    (Close Assault 2). The T-64s, the target of Close Assault 2, may not in turn support R-BTR3;
    R-BTR1 and R-BTR2 have given ground. The engine before the fix barred every unit engaged in
    the step as a supporter, so the T-64s could only defend alone."""
    sc, rules, orders = example_to_the_breakthrough()
    ctx = drive(sc, rules, orders, [5, 1, 4, 2, 3, 5, 2, 6, 3, 6, 6],
                policies={"breakthrough": "take", "ca_defence": "ask"})
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("red", "ca-defence")
    assert texts(ctx, "breakthrough") == ["Breakthrough Close Assault 3: B-Marder go on into 0303 (no bombardment, one "
                                          "round of Desperate Fighting, K-CA-20)."]
    assert flow.legal_orders(sc, rules, need) == [
        {"type": "defend", "units": ["R-BTR3"], "support": None},
        {"type": "defend", "units": ["R-T64"], "support": None},
        {"type": "defend", "units": ["R-T64"], "support": "R-BTR3"}]
    flow.apply(sc, rules, need, {"type": "defend", "units": ["R-T64"], "support": "R-BTR3"}, ctx)
    defence = events(ctx, "defence")[-1]
    assert (defence["assault"], defence["units"], defence["support"], defence["rule"]) == (3, ["R-T64"], "R-BTR3",
                                                                                           "K-CA-7")
    assert defence["text"] == "Close Assault 3: R-T64 defend, supported by R-BTR3 (K-CA-7)."
    assert rules["ca"]["def"] == ["R-T64", "R-BTR3"]
    assert [a.get("body") for a in rules["assaults"]] == [["R-BTR1"], ["R-T64"], ["R-T64"]]


# --- 2. K-CMK-4: a marker shares the result of the units it fought with -----------------------------

def _marker_fight(red_extra=()):
    hqs = [dict(HQS[0]), {"id": "R-HQ", "side": "red", "row": "hq", "level": "division", "square": "0505"}]
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"),
             U("R1", "red", "tank", "0505", "21", "S", "HD", losses=1), *red_extra]
    sc, rules = table(units, position=POS_AP(2), turns=3, commands=hqs)
    # defenders more losses +1, die 1: AR; B1's attrition 6, R1's 1: R1 destroyed
    ctx = drive(sc, rules, [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"}], [1, 6, 1],
                policies={"ca_defence": "alone"})
    return sc, rules, ctx


def test_k_cmk_4_the_defenders_marker_is_destroyed_when_attrition_after_an_ar_destroys_its_last_unit():
    """K-CMK-4 ("they suffer the result of the other units fighting, being destroyed if all other
    friendly units are"): on an AR the attacker goes back, and attrition destroys R1, the last red
    unit in 0505: R-HQ is destroyed with it. Before the fix it stayed alone in the square."""
    sc, rules, ctx = _marker_fight()
    assert "R1" not in rules["pieces"] and rules["pieces"]["B1"]["sq"] == "0504"
    assert rules["hqs"]["R-HQ"] == {"lost": 1}
    gone = events(ctx, "hq-destroyed")
    assert [(e["hq"], e["side"], e["assault"], e["rule"]) for e in gone] == [("R-HQ", "red", 1, "K-CMK-4")]
    assert gone[0]["text"] == "R-HQ is destroyed in 0505: no unit of red is left there after Close Assault 1 (K-CMK-4)."
    # with another red unit left in the square, the marker stays with it
    sc, rules, ctx = _marker_fight([U("R2", "red", "tank", "0505", "00", "N", "HD")])
    assert "R1" not in rules["pieces"] and rules["hqs"]["R-HQ"] == {"sq": "0505"} and not events(ctx, "hq-destroyed")


def test_k_cmk_4_a_marker_that_went_in_with_attackers_all_destroyed_is_destroyed():
    """K-CMK-4, K-CA-2 (markers may go with the attackers, "who do not fight"): B-HQ goes in with
    B1, which the AR+1 destroys; B-HQ is destroyed with it, although it never left 0504. Before the
    fix it stayed in 0504."""
    hqs = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "brigade", "square": "0504"}, dict(HQS[1])]
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA", losses=1),
             U("B9", "blue", "tank", "0000", "01", "N", "HA"),
             U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(2), turns=3, commands=hqs)
    # attackers more losses -1, die 1: AR+1, B1 destroyed; R1's attrition 1: a loss
    ctx = drive(sc, rules, [{"type": "assault", "units": ["B1"], "target": "0505", "hqs": ["B-HQ"]}, {"type": "end"}],
                [1, 1])
    assert "B1" not in rules["pieces"] and rules["pieces"]["R1"]["hits"] == 1
    assert rules["hqs"]["B-HQ"] == {"lost": 1}
    gone = events(ctx, "hq-destroyed")
    assert [(e["hq"], e["side"], e["assault"], e["rule"]) for e in gone] == [("B-HQ", "blue", 1, "K-CMK-4")]
    assert gone[0]["text"] == "B-HQ, who went in with B1 in Close Assault 1, is destroyed with them (K-CMK-4)."


# --- 3. K-SFX-4: the chemical attack comes before the artillery fire it goes with --------------------

def _chemical_table():
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"),
             U("BA", "blue", "sp", "0502", "01", "N", "HA", level="bn-bde"),
             U("R1", "red", "tank", "0505", "21", "S", "HD"),
             U("RA", "red", "sp", "0507", "21", "S", "HD", level="bn-bde")]
    return table(units, position=POS_AP(2), turns=3, blue={"specials": {"chemical": 1}},
                 red={"specials": {"chemical": 1}})


def test_k_sfx_4_a_side_with_one_battery_declares_its_chemical_attack_before_calling_it():
    """K-SFX-4: "This must be declared before any artillery fire is called for ... One attack is
    allowed per Close Assault" (README reading: one of each side's). Each side has one battery:
    red, calling first (K-SEQ-2), declares its attack, then calls RA; blue the same with BA. Both
    count: chemical +2 and defender chemical -2, with the batteries' own factors (both fail: die
    4, single unit -1 = 3, 5 needed). Before the fix the declaration was refused before the call,
    and after the call the side's calls were over, so neither side could ever make it."""
    sc, rules = _chemical_table()
    orders = [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"},
              {"type": "chemical", "assault": 1}, {"type": "bombard", "unit": "RA", "assault": 1, "support": "R1"},
              {"type": "chemical", "assault": 1}, {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}]
    # RA 4, BA 4; die 4 at EVENS: DF; attrition 6, 6; again die 5: DR; attrition 6, 6; R1 gives ground
    ctx = drive(sc, rules, orders, [4, 4, 4, 6, 6, 5, 6, 6])
    chem = events(ctx, "chemical")
    assert [(e["side"], e["assault"], e["rule"]) for e in chem] == [("red", 1, "K-SFX-4"), ("blue", 1, "K-SFX-4")]
    assert rules["used"]["red"]["chemical"] == 1 and rules["used"]["blue"]["chemical"] == 1
    fight = events(ctx, "assault")[0]
    assert fight["factors"] == {"chemical": 2, "defender_chemical": -2}
    assert fight["text"] == ("Close Assault 1 (B1 against R1): final factor EVENS (chemical +2, defender chemical -2), "
                             "die 4: DF (K-CAF-1, K-CAT-1).")


def test_k_sfx_4_a_chemical_attack_is_not_declared_after_the_call_and_waits_for_its_bombardment():
    """K-SFX-4: declared "before any artillery fire is called for" (for that assault, by the side),
    and for "a Close Assault that involves your bombarding artillery fire": after the side's
    call it is refused; once declared, the side's next call is a battery bombarding that assault,
    and it may not end its calls before. Before the fix the attack was refused before the call."""
    sc, rules = _chemical_table()
    drive(sc, rules, [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"}], [])
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("red", "calls")
    assert {"type": "chemical", "assault": 1} in flow.legal_orders(sc, rules, need)
    ctx = drive(sc, rules, [{"type": "chemical", "assault": 1}], [])
    assert flow.legal_orders(sc, rules, need) == [{"type": "bombard", "unit": "RA", "assault": 1, "support": "R1"}]
    with pytest.raises(IllegalOrder, match=r"declared a chemical attack on Close Assault 1: call a battery to bombard "
                                           r"it first.*\(K-SFX-4\)"):
        flow.apply(sc, rules, need, {"type": "end"}, ctx)
    with pytest.raises(IllegalOrder, match=r"counter-battery: red has declared a chemical attack on Close Assault 1"):
        flow.apply(sc, rules, need, {"type": "counter-battery", "unit": "RA", "assets": False}, ctx)
    # blue, with its call made first, may no longer declare one
    sc, rules = _chemical_table()
    drive(sc, rules, [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"}, {"type": "end"}], [])
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("blue", "calls")
    artillery.add_call(sc, rules, "blue", {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}, ctx)
    with pytest.raises(IllegalOrder, match=r"chemical: blue has already called artillery fire for Close Assault 1; a "
                                           r"chemical attack must be declared before any artillery fire is called for "
                                           r"\(K-SFX-4\)"):
        artillery.check_call(sc, rules, "blue", {"type": "chemical", "assault": 1})


def test_k_sfx_4_no_chemical_attack_without_a_unit_of_the_side_its_battery_could_fire_for():
    """A battery's fire is dedicated to one of the side's units in the assault (K-CA-9, K-IF-7):
    with red's units gone from the assaulted square, RA in reach can fire for none of them, so
    red may declare no chemical attack there and may end its calls. (A first form of the fix let
    red declare it, then offered no call and no end: the example game stood still in red's calls
    for the rest of its 2000 packets.)"""
    sc, rules = _chemical_table()
    drive(sc, rules, [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"}], [])
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("red", "calls")
    rules["pieces"]["R1"]["sq"] = "0506"                           # as a unit gone from the square would be
    with pytest.raises(IllegalOrder, match=r"chemical: only with your bombarding artillery, and none of red's "
                                           r"batteries can be called for Close Assault 1"):
        artillery.check_call(sc, rules, "red", {"type": "chemical", "assault": 1})
    legal = flow.legal_orders(sc, rules, need)
    assert {"type": "chemical", "assault": 1} not in legal and legal[-1] == {"type": "end"}


# --- 4. K-SFX-5: a marker that goes with units rolls for minelets ----------------------------------

MINES = [{"pair": "m1", "side": "red", "square": "0505", "real": True},
         {"pair": "m1", "side": "red", "square": "0909", "real": False}]


def test_k_sfx_5_a_marker_going_in_with_the_occupiers_rolls_for_minelets():
    """K-SFX-5 ("Any vehicle movement, including command markers, within, in or out of such a
    square may take a loss ... on a 2D6 roll of 2 to 4"): B-HQ (mechanised, Action Phase 2: in
    its vehicles) goes into 0505 with B1 after a DR: it rolls 1+1 and is destroyed (a loss
    destroys a marker, README reading), as a plain move into 0505 does. Before the fix it went
    in with no roll."""
    hqs = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "brigade", "square": "0504"}, dict(HQS[1])]
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"), U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=dict(POS_AP(2), minelets=MINES), turns=3, commands=hqs)
    # die 6 at EVENS: DR; attrition 6, 6; R1 leaves 0505: 6+6; B1 enters: 6+6; B-HQ enters: 1+1
    ctx = drive(sc, rules, [{"type": "assault", "units": ["B1"], "target": "0505", "hqs": ["B-HQ"]}, {"type": "end"}],
                [6, 6, 6, 6, 6, 6, 6, 1, 1])
    assert rules["pieces"]["B1"]["sq"] == "0505" and rules["hqs"]["B-HQ"] == {"lost": 1}
    gone = events(ctx, "hq-destroyed")
    assert [(e["hq"], e["side"], e["rule"]) for e in gone] == [("B-HQ", "blue", "K-SFX-5")]
    assert gone[0]["text"] == "B-HQ is destroyed by the minelets in 0505 (1+1, K-SFX-5)."
    assert [e.get("unit", e.get("hq")) for e in events(ctx, "minelets")] == ["R1", "B1"]


def test_k_sfx_5_a_marker_going_back_with_its_units_rolls_for_minelets():
    """K-SFX-5, K-CMK-4: R-HQ (mechanised) goes back with R1 out of the minelet square 0505 after
    a DR and rolls as a vehicle: 2+1, destroyed. Before the fix it followed with no roll."""
    hqs = [dict(HQS[0]), {"id": "R-HQ", "side": "red", "row": "hq", "level": "division", "square": "0505"}]
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"), U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=dict(POS_AP(2), minelets=MINES), turns=3, commands=hqs)
    # DR; attrition 6, 6; R1 leaves 0505: 6+6, no loss; R-HQ leaves it: 2+1
    ctx = drive(sc, rules, [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"}],
                [6, 6, 6, 6, 6, 2, 1, 6, 6])
    assert rules["pieces"]["R1"]["sq"] == "0506" and rules["hqs"]["R-HQ"] == {"lost": 1}
    assert texts(ctx, "hq-retreats", "hq-destroyed") == [
        "R-HQ goes back with its units to 0506 (K-CMK-4).",
        "R-HQ is destroyed by the minelets in 0505 (2+1, K-SFX-5)."]


# --- 5. K-GG-6, K-CAR-2: all that Give Ground after an assault go slowest first ---------------------

def test_k_gg_6_the_volunteers_give_ground_with_the_engaged_defenders_slowest_first():
    """K-GG-6 ("Units that Give Ground as a result of a Close Assault must move in a sequence of
    the slowest moving first"), K-CAR-2 ("Any non-engaged defending units in the square may elect
    to Give Ground voluntarily ... All that Give Ground do so immediately"): R1 (a tank, engaged)
    and R2 (infantry on foot, unengaged, electing to go, attrition 6: no loss) give ground from
    0505, where 0506 has room for one: R2, the slower, goes first and takes it; R1 goes on to
    0507. Before the fix the engaged R1 moved first and took 0506, and R2 was asked afterwards."""
    full = [U(f"F{i}", "red", "tank", "0506", c, "S", "HD") for i, c in enumerate(["20", "21", "22", "10", "11"])]
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"),
             U("R1", "red", "tank", "0505", "21", "S", "HD"),
             U("R2", "red", "ri", "0505", "01", "N", "HD")] + full
    sc, rules = table(units, position=POS_AP(2), turns=3)
    orders = [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"},
              {"_for": "ca-defence", "type": "defend", "units": ["R1"], "support": None},
              {"_for": "counter-attack", "type": "counter", "attempt": False},
              {"_for": "withdraw", "type": "withdraw", "unit": "R2", "go": True}]
    # die 5 at EVENS: DR; attrition R1 6, B1 6; R2's attrition 6
    ctx = drive(sc, rules, orders, [5, 6, 6, 6])
    assert rules["pieces"]["R2"]["sq"] == "0506" and rules["pieces"]["R1"]["sq"] == "0507"
    moves = events(ctx, "give-ground")
    assert [(e["unit"], e["origin"], e["to"], e["path"], e["rule"]) for e in moves] == [
        ("R2", "0505", "0506", ["0506"], "K-CAR-1"), ("R1", "0505", "0507", ["0506", "0507"], "K-CAR-1")]
    # the volunteer's attrition comes before anyone moves
    kinds = [e["type"] for e in ctx.events if e["type"] in ("attrition", "give-ground")]
    assert kinds == ["attrition", "attrition", "attrition", "give-ground", "give-ground"]
    assert rules["pieces"]["B1"]["sq"] == "0505"


def test_k_atr_3_a_volunteer_gives_ground_without_a_test_once_its_side_took_the_rounds_loss():
    """K-ATR-3 (L199: "When rolling for attritional losses a maximum of one may be caused from
    any one Assault, unless a Counter Attack or DF is involved"): a plain DR, R1 engaged loses a
    step to attrition (die 1), and R2, unengaged, elects to give ground: its side has had the
    assault's one loss, so it goes without a test and loses nothing. With R1's die a 6, R2 rolls
    (its 1 is a loss). 1.16.0 rolled for R2 either way: Red lost two steps to one assault."""
    for r1_die, r2_tests, red_lost in ((1, False, {"R1": 1}), (6, True, {"R2": 1})):
        units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"),
                 U("R1", "red", "tank", "0505", "21", "S", "HD"),
                 U("R2", "red", "tank", "0505", "11", "S", "HD")]
        sc, rules = table(units, position=POS_AP(2), turns=3)
        orders = [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"},
                  {"_for": "ca-defence", "type": "defend", "units": ["R1"], "support": None},
                  {"_for": "counter-attack", "type": "counter", "attempt": False},
                  {"_for": "withdraw", "type": "withdraw", "unit": "R2", "go": True}]
        # die 5 at EVENS: DR; attrition R1, then B1 6; R2's attrition 1 if it rolls
        ctx = drive(sc, rules, orders, [5, r1_die, 6, 1])
        attrition = [e for e in ctx.events if e["type"] == "attrition" and e["unit"] == "R2"]
        assert [("die" in e, e["loss"], e["rule"]) for e in attrition] == [(r2_tests, r2_tests, "K-CAR-1" if r2_tests else "K-ATR-3")]
        assert {p: rules["pieces"][p]["hits"] for p in ("R1", "R2") if rules["pieces"][p].get("hits")} == red_lost
        assert rules["pieces"]["R2"]["sq"] != "0505"
