"""Counter-battery fire (K-IF-10, K-SFX-2) with exact outcomes: the words of its report line,
which enemy battery it may hit, and the batteries that may not fire indirectly at all (K-IF-4,
K-CA-8). Positions are built as in tests/test_kkoh_rules.py (a 10 x 10 open table, the test
lists, one Close Assault declared by blue from 0505 into 0506 in Action Phase 2)."""

from __future__ import annotations

import pytest

from pbem import rulesets
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import artillery
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_rules import POS_AP, Ctx, U, settle, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def _assault_table(units, **spec):
    """Blue's B1 assaults 0506 from 0505 (Close Assault 1, pending), Action Phase 2: a battery
    needs 4 or more, a Bn/Bde battery 5 (K-IF-5)."""
    sc, rules = table(units, position=POS_AP(2), **spec)
    rules["assaults"] = [{"n": 1, "side": "blue", "units": ["B1"], "from": "0505", "target": "0506", "dismount": False,
                          "hqs": []}]
    return sc, rules


def _counter_battery(units, calls, dice, **spec):
    """The calls made (blue's bombardment, red's counter-battery), then rolled with `dice`."""
    sc, rules = _assault_table(units, **spec)
    ctx = Ctx()
    for side, call in calls:
        artillery.add_call(sc, rules, side, call, ctx)
    ctx = Ctx(dice)
    settle(sc, rules, ctx, lambda: artillery.resolve(sc, rules, ctx))
    return sc, rules, ctx


# --- the report line: the effect in words (K-IF-10, L107) ---------------------------------------------

@pytest.mark.parametrize("die, effect, words", [
    (1, "none", "no effect"),
    (2, "cancelled", "fire cancelled"),
    (3, "cancelled-give-ground", "fire cancelled and Give Ground"),
    (4, "cancelled-give-ground-loss", "fire cancelled, a loss and Give Ground"),
])
def test_the_counter_battery_line_names_its_effect_in_words(die, effect, words):
    """K-IF-10: the heavy battery RA (+1) hits the bombarding BA; the score die + 1 falls in each
    band of L105/L107 in turn. The line names the effect as the Direct Fire line names its own
    ("no effect", "Give Ground", "a loss and Give Ground"), not the table's key split at every
    hyphen ("cancelled, give, ground, loss")."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("BA", "blue", "sp", "0502", "01", "N", level="battery"),
             U("R1", "red", "tank", "0506", "21", "S"), U("RA", "red", "sp-h", "0509", "21", "S", level="battery")]
    calls = [("blue", {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}),
             ("red", {"type": "counter-battery", "unit": "RA", "assets": False})]
    # RA's availability die (a battery needs 4 in phase 2), its effect die, then BA's own roll if not cancelled
    sc, rules, ctx = _counter_battery(units, calls, [6, die, 6])
    cb = ctx.of("counter-battery")
    assert len(cb) == 1 and (cb[0]["target"], cb[0]["effect"], cb[0]["score"]) == ("BA", effect, die + 1)
    assert cb[0]["text"] == f"RA fires counter-battery at BA: die {die}, heavy or rocket +1 = {die + 1}: {words} (K-IF-10)."


def test_the_line_of_every_effect_of_the_table_has_its_words():
    """Every result row of the counter-battery table (data/tables.yaml, K-IF-10) has its words, and
    none of them is a key split at its hyphens."""
    sc, _ = table([U("B1", "blue", "tank", "0505", "01", "N")])
    effects = {r["effect"] for r in sc.tables["counter_battery"]["results"]}
    assert set(artillery.CB_EFFECT_WORDS) == effects
    assert artillery.CB_EFFECT_WORDS == {"none": "no effect", "cancelled": "fire cancelled",
                                         "cancelled-give-ground": "fire cancelled and Give Ground",
                                         "cancelled-give-ground-loss": "fire cancelled, a loss and Give Ground"}


def test_the_report_of_a_counter_battery_hit_that_costs_a_loss_and_gives_ground():
    """K-IF-10 (5+: the enemy fire cancelled, a loss and Give Ground), K-SFX-2 (assets +2),
    K-GG-5: every event of the resolution, in order and in words; the loss comes before the
    Give Ground, as the effect's words say."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("BA", "blue", "sp", "0502", "01", "N", level="battery"),
             U("R1", "red", "tank", "0506", "21", "S"), U("RA", "red", "sp", "0509", "21", "S", level="battery")]
    calls = [("blue", {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}),
             ("red", {"type": "counter-battery", "unit": "RA", "assets": True})]
    sc, rules, ctx = _counter_battery(units, calls, [4, 3], red={"specials": {"counter_battery": 1}})
    assert [(e["type"], e["text"]) for e in ctx.events] == [
        ("arty-roll", "RA counter-battery: die 4, 4 needed: it fires (K-IF-5, K-IF-10)."),
        ("counter-battery", "RA fires counter-battery at BA: die 3, cb assets +2 = 5: fire cancelled, a loss and Give "
                            "Ground (K-IF-10)."),
        ("loss", "BA takes a loss (counter-battery fire, K-IF-10)."),
        ("give-ground", "BA gives ground from 0502 to 0501, to place 01, of 01, 00, 02, by its owner (K-IF-10, K-GG-5)."),
        ("arty-cancelled", "BA's bombardment is cancelled (K-IF-10)."),
    ]
    assert rules["pieces"]["BA"]["sq"] == "0501" and rules["pieces"]["BA"]["hits"] == 1
    assert "fire" not in rules["assaults"][0] and rules["used"]["red"]["counter_battery"] == 1


# --- which enemy battery counter-battery fire may hit (K-IF-10, K-IF-2, K-IF-3) ----------------------

def _mortar_against_two_batteries(facing, dice=(6, 3, 6)):
    """Red's mortar company RM (range 5, K-IF-2) in 0509 fires counter-battery; blue bombards
    Close Assault 1 with BB in 0405 (4 squares from RM) and BA in 0502 (7 squares: out of range)."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"),
             U("BA", "blue", "sp", "0502", "01", "N", level="battery"), U("BB", "blue", "sp", "0405", "01", "N", level="battery"),
             U("R1", "red", "tank", "0506", "21", "S"), U("RM", "red", "mortar", "0509", "01" if facing == "N" else "21",
                                                          facing, level="battery")]
    calls = [("blue", {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}),
             ("blue", {"type": "bombard", "unit": "BB", "assault": 1, "support": "B1"}),
             ("red", {"type": "counter-battery", "unit": "RM", "assets": False})]
    # RM's availability die and its effect die (one battery in range: no die draws the target),
    # then BA's roll (BB is cancelled)
    return _counter_battery(units, calls, list(dice))


def test_counter_battery_hits_only_an_enemy_battery_bombarding_within_its_range():
    """K-IF-10 ("any enemy battery within their range that is even attempting to bombard ...
    Limitations of range still apply"), K-IF-2 (range counts diagonals as one): RM, facing the
    blue batteries, reaches BB (4 squares) and not BA (7 squares, beyond the mortar's 5), so
    BB is hit with no die to choose and BA's bombardment goes on."""
    sc, rules, ctx = _mortar_against_two_batteries("S")
    cb = ctx.of("counter-battery")
    assert [(e["unit"], e["target"], e["effect"]) for e in cb] == [("RM", "BB", "cancelled")]
    assert cb[0]["text"] == "RM fires counter-battery at BB: die 3 = 3: fire cancelled (K-IF-10)."
    assert [(e["type"], e["unit"]) for e in ctx.events if e["type"].startswith("arty")] == [
        ("arty-roll", "RM"), ("arty-roll", "BA"), ("arty-cancelled", "BB")]
    assert rules["assaults"][0]["fire"] == {"blue": [{"unit": "BA", "support": "B1", "group": ["B1"]}]}


def test_counter_battery_reaches_only_the_batteries_in_its_arc():
    """K-IF-10 with K-IF-3: counter-battery is Indirect Fire, so the arc ("any row of squares
    in front of the square occupied by the firing artillery unit") holds as for bombardment,
    and "Limitations of range still apply" adds range to it (kkoh 1.11.0; a rules probe: RM,
    facing away from BB, hit it, though it could not bombard the assault behind it). RM faces
    north, away from both blue batteries: it finds no target, rolls no effect die, and BB's
    bombardment goes on."""
    sc, rules, ctx = _mortar_against_two_batteries("N", dice=[6, 6, 6])
    assert not artillery.in_reach(sc, st.Board(sc, rules), "RM", "0405")
    cb = ctx.of("counter-battery")
    assert [(e["unit"], e["target"], e["text"]) for e in cb] == [
        ("RM", None, "RM finds no enemy battery trying to bombard in its range and arc (K-IF-3, K-IF-10).")]
    assert not ctx.of("arty-cancelled")
    assert sorted(f["unit"] for f in rules["assaults"][0]["fire"]["blue"]) == ["BA", "BB"]


# --- who may fire counter-battery at all (K-IF-4, K-CA-8) --------------------------------------------

def test_a_battery_in_a_square_under_close_assault_may_not_fire_counter_battery():
    """K-IF-4 ("Artillery may not Indirect Fire in an Action Phase if it is also engaged in a
    Close Assault"), K-CA-8 ("Any artillery that is involved in an Assault may not conduct
    indirect fire in that Action Phase"), the README's reading "K-IF-4, K-CA-8 (a battery in an
    assaulted square)": the calls come before the defender names his units (K-CA-7), so a
    battery in a square under a pending Close Assault is read as involved and fires neither
    bombardment nor counter-battery; RA, behind R1 and facing away from the assault, is offered
    nothing, and red, with no other battery, has no call to make. A battery named in an
    assault already fought this phase (`engaged`) is refused as well."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("BA", "blue", "sp", "0502", "01", "N", level="battery"),
             U("R1", "red", "tank", "0506", "21", "S"), U("RA", "red", "sp", "0506", "01", "N", level="battery"),
             U("RB", "red", "sp", "0309", "21", "S", level="battery")]
    sc, rules = _assault_table(units)
    for call in ({"type": "counter-battery", "unit": "RA", "assets": False},
                 {"type": "bombard", "unit": "RA", "assault": 1, "support": "R1"}):
        with pytest.raises(IllegalOrder) as info:
            artillery.check_call(sc, rules, "red", call)
        assert info.value.message == f"{call['type']}: RA is in a square under Close Assault (K-IF-4, K-CA-8)"
    offered = artillery.options(sc, rules, "red")
    assert {o["unit"] for o in offered} == {"RB"}
    assert {"type": "counter-battery", "unit": "RB", "assets": False} in offered
    rules["ps"]["engaged"] = ["RB"]
    with pytest.raises(IllegalOrder) as info:
        artillery.check_call(sc, rules, "red", {"type": "counter-battery", "unit": "RB", "assets": False})
    assert info.value.message == "counter-battery: RB is engaged in a Close Assault in this Action Phase (K-IF-4, K-CA-8)"
    assert not artillery.can_call(sc, rules, "red") and artillery.can_call(sc, rules, "blue")


def test_a_battery_that_indirect_fired_in_the_action_phase_may_not_then_close_assault():
    """K-IF-4: "Artillery may not Indirect Fire in an Action Phase if it is also engaged in a
    Close Assault": a self-propelled battery that bombarded earlier in the Action Phase, or is
    called to, may not declare a Close Assault in it (a rules probe: one that bombarded in the
    first calls step assaulted in the second move step); one that has not fired may."""
    from pbem.rulesets.kkoh import assault

    units = [U("BS", "blue", "sp", "0505", "01", "N", "HA", level="battery"), U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules = table(units, position={"turn": 1, "ap": 2, "step": "move", "mover": "first", "initiative": "blue"})
    order = {"type": "assault", "units": ["BS"], "target": "0506"}
    assert assault.check_declare(sc, rules, "blue", order, 2)["target"] == "0506"
    rules["ps"]["ifired"] = ["BS"]
    with pytest.raises(IllegalOrder) as info:
        assault.check_declare(sc, rules, "blue", order, 2)
    assert (info.value.rule, info.value.message) == (
        "K-IF-4", "assault: BS is called for Indirect Fire in this Action Phase, and artillery engaged in a Close "
                  "Assault may not Indirect Fire in the same Action Phase (K-IF-4)")


def test_counter_battery_reveals_the_enemys_bombarding_batteries_never_the_callers_own():
    """K-ORD-6: chits are revealed where they change a roll; a bombarding battery's chit changes
    the roll of counter-battery fire against it (HD3 or lower -1, K-IF-10), and only the enemy's
    counter-battery can hit it. Red calls counter-battery and bombards with RB: blue's BA is
    revealed, with B1 and R1, the units the bombardments support (K-IF-6); red's own RB is not
    (a players' probe: every bombarding battery's chit was opened, the caller's own among them),
    nor BA once RA's fire cannot reach it (K-IF-2, K-IF-3)."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("BA", "blue", "sp", "0502", "01", "N", level="battery"),
             U("R1", "red", "tank", "0506", "21", "S"), U("RA", "red", "sp-h", "0509", "21", "S", level="battery"),
             U("RB", "red", "sp", "0508", "21", "S", level="battery")]
    sc, rules = _assault_table(units)
    ctx = Ctx()
    for side, call in [("blue", {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}),
                       ("red", {"type": "counter-battery", "unit": "RA", "assets": False}),
                       ("red", {"type": "bombard", "unit": "RB", "assault": 1, "support": "R1"})]:
        artillery.add_call(sc, rules, side, call, ctx)
    assert artillery.in_reach(sc, st.Board(sc, rules), "RA", "0502")
    assert artillery.revealed_by_calls(sc, rules) == ["B1", "R1", "BA"]
    # a counter-battery call that reaches no bombarding battery opens none (a cheater's probe:
    # RA turned away, K-IF-3, its call still opened BA's chit)
    rules["pieces"]["RA"]["f"] = "N"
    assert not artillery.in_reach(sc, st.Board(sc, rules), "RA", "0502")
    assert artillery.revealed_by_calls(sc, rules) == ["B1", "R1"]
    # without a counter-battery call, no battery's chit is opened
    rules["pieces"]["RA"]["f"] = "S"
    rules["plans"]["calls"]["red"] = [c for c in rules["plans"]["calls"]["red"] if c["type"] != "counter-battery"]
    assert artillery.revealed_by_calls(sc, rules) == ["B1", "R1"]
