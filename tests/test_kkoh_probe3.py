"""The third rules probe of kkoh 1.11.0 (tester's scripts p03, p04, p06, p07, p08, p09): exact
outcomes of the six departures it found, each test failing on the code before the fix.
Checklist ids (K-...) in the names and docstrings; positions built with the helpers of
test_kkoh_rules.py."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from pbem import rulesets
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import RULESET, air, artillery, assault, fire, flow, points, victory
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_cases import scenario_doc
from tests.test_kkoh_rules import POS_AP, POS_FIRE, Ctx, U, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def drive(sc, rules, orders, dice, policies=None, stop_kind=None, stop_step=None, all_used=False):
    """Play the flow: the scripted orders in turn (a decision's only when its kind is the
    order's `_for`), every other decision by the standing orders `policies`; stop before a
    need of `stop_kind`, at the step `stop_step`, or when nothing answers (`all_used`: every
    scripted order must have been played). Returns the context (its events)."""
    ctx = Ctx(dice)
    orders = list(orders)
    for _ in range(500):
        need = flow.next_step(sc, rules)
        if need is None or need.kind == stop_kind or (stop_step is not None and rules["step"] == stop_step):
            break
        if orders and (not need.decision or orders[0].get("_for") == need.kind):
            order = dict(orders.pop(0))
            order.pop("_for", None)
        elif need.decision:
            order = flow.policy(sc, rules, need, policies)
            if order is None:
                break
        else:
            break
        flow.apply(sc, rules, need, order, ctx)
    assert not (all_used and orders), f"orders left unused: {orders}"
    return ctx


def texts(ctx, *types):
    return [e["text"] for e in ctx.events if e["type"] in types]


# --- 1. K-IF-6: the caller is the body actually in the assault ------------------------------------

def test_a_unit_of_a_group_assaulting_alone_calls_bombardment_as_a_single_unit():
    """K-IF-6 (L99-L101: "A single unit is calling for the Fire -1"), K-CA-3 (a group "may instead
    choose to Assault as separate units"), K-IF-5. B1 of the battle group {B1, B2} assaults
    alone; its Bn/Bde battery needs 5 in Action Phase 2: die 5, single unit -1 = 4, no fire.
    1.11.0 read the caller as B1's whole group: no -1, and the battery fired."""
    units = [U("B1", "blue", "tank", "0504", "00", "N", "HA", group="a"),
             U("B2", "blue", "tank", "0504", "01", "N", "HA", group="a"),
             U("BA", "blue", "sp", "0502", "01", "N", "HA", level="bn-bde"),
             U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    orders = [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"},
              {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}, {"type": "end"}]
    ctx = drive(sc, rules, orders, [5] + [4] * 12, stop_kind="attrition")
    assert texts(ctx, "arty-roll") == [
        "BA (bn-bde) for Close Assault 1: die 5, single unit -1 = 4, 5 needed: no fire (K-IF-5, K-IF-6)."]
    assert texts(ctx, "assault")[0] == ("Close Assault 1 (B1 against R1): final factor EVENS (no factor), die 4: DF "
                                        "(K-CAF-1, K-CAT-1).")


def test_the_majority_inferior_of_a_bombardment_call_is_read_from_the_units_in_the_assault():
    """K-IF-6 ("Majority of own troops involved are Inferior -1", "a single unit is calling -1"),
    K-CA-2, K-CA-3: of the group {B1 I, B2 I, B3, B4} that started the phase as one, B1 and B2
    assault together, B3 and B4 left behind: the troops involved are all Inferior (-1), and two
    units call (no single-unit -1). B3 assaulting alone from the same group: a single unit, not
    Inferior. For the defender, who names his body only in the fight (K-CA-7), the supported
    unit's group still counts."""
    units = [U("B1", "blue", "tank", "0504", "00", "N", "HA", group="a", quality="I"),
             U("B2", "blue", "tank", "0504", "01", "N", "HA", group="a", quality="I"),
             U("B3", "blue", "tank", "0504", "10", "N", "HA", group="a"),
             U("B4", "blue", "tank", "0504", "11", "N", "HA", group="a"),
             U("R1", "red", "tank", "0505", "21", "S", "HD", group="r"),
             U("R2", "red", "tank", "0505", "22", "S", "HD", group="r")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    flow._start_ap(sc, rules, 2, Ctx())
    rules["step"] = "move1"
    assault.declare(sc, rules, "blue", {"type": "assault", "units": ["B1", "B2"], "target": "0505"}, Ctx(), 2)
    a = rules["assaults"][0]
    board = st.Board(sc, rules)
    assert artillery.supported_body(sc, board, "B1", a) == ["B1", "B2"]
    assert artillery.call_modifiers(sc, board, "B1", a) == {"majority_inferior": -1}
    assert artillery.call_modifiers(sc, board, "B1") == {}          # the whole group, as before: 2 of 4 Inferior
    assert artillery.call_modifiers(sc, board, "R1", a) == {}       # the defender: R1's group {R1, R2}
    single = {"n": 2, "side": "blue", "units": ["B3"], "from": "0504", "target": "0505"}
    assert artillery.call_modifiers(sc, board, "B3", single) == {"single_unit": -1}


# --- 2. K-DF-8 with K-AIR-3: aircraft use Direct Fire ---------------------------------------------

def _air_table():
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HD"), U("R1", "red", "tank", "0505", "21", "S", "HD"),
             U("R2", "red", "tank", "0507", "21", "S", "HD")]
    sc, _ = table(units, position={"turn": 1, "ap": 4, "step": "fire", "initiative": "blue"}, turns=3)
    doc = dict(sc.doc)
    doc["sides"] = {**doc["sides"], "blue": {**doc["sides"]["blue"], "air": [{"id": "B-AIR", "kind": "fixed"}]}}
    sc = RULESET.scenario(doc, {})
    return sc, RULESET.setup(sc)


def test_an_aircraft_may_not_attack_a_unit_that_gave_ground_in_the_phase():
    """K-DF-8 (L79: "a unit that has Given Ground may not be shot at again in the same phase"),
    K-AIR-3 (L109: aircraft "use Direct Fire"), K-AIR-2. B1's Direct Fire in Action Phase 4
    makes R1 give ground from 0505 to 0506 (die 4, IR +1 = 5); blue's aircraft then arrives
    (4) in the same Direct Fire section: 0506 is no square to strike, and struck at 0507 the
    die has no other square to pick (0506 holds only R1), so it attacks R2. 1.11.0 offered
    0506 and R1."""
    sc, rules = _air_table()
    orders = [{"type": "end"}, {"type": "fire", "unit": "B1", "target": "R1"}, {"type": "end"}]
    ctx = drive(sc, rules, orders, [4, 4], policies={"air_target": "ask", "soviet_hold": "give-ground"},
                stop_kind="air-target")
    assert rules["pieces"]["R1"]["sq"] == "0506" and "R1" in rules["ps"]["gg"]
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("blue", "air-target")
    assert flow.legal_orders(sc, rules, need) == [{"type": "air-target", "square": "0507"}]
    with pytest.raises(IllegalOrder) as refused:
        flow.apply(sc, rules, need, {"type": "air-target", "square": "0506"}, ctx)
    assert (refused.value.rule, refused.value.message) == (
        "K-DF-8", "air-target: R1 in 0506 gave ground in this phase and may not be shot at again; aircraft use Direct "
                  "Fire (K-AIR-3, K-DF-8)")
    flow.apply(sc, rules, need, {"type": "air-target", "square": "0507"}, ctx)
    assert texts(ctx, "air-strike") == [
        "B-AIR strikes at 0507; 0507 is the only square there with a unit it may attack (K-AIR-2)."]
    need = flow.next_step(sc, rules)
    assert flow.legal_orders(sc, rules, need) == [{"type": "air-unit", "unit": "R2"}]
    assert flow.policy(sc, rules, need, None) == {"type": "air-unit", "unit": "R2"}
    with pytest.raises(IllegalOrder) as refused:
        flow.apply(sc, rules, need, {"type": "air-unit", "unit": "R1"}, ctx)
    assert (refused.value.rule, refused.value.message) == (
        "K-DF-8", "air-unit: R1 has Given Ground in this phase and may not be shot at again; aircraft use Direct Fire "
                  "(K-AIR-3, K-DF-8)")


def test_air_targets_leave_out_units_that_gave_ground_or_evaded():
    """K-DF-8, K-REC-2, K-AIR-3: `air.targets` is every unit of the square but those that have
    Given Ground or evaded the fire in this phase."""
    sc, rules = _air_table()
    board = st.Board(sc, rules)
    rules["pieces"]["R2"]["sq"] = "0505"
    rules["pieces"]["R2"]["cell"] = "20"
    board = st.Board(sc, rules)
    assert air.targets(board, "0505") == ["R1", "R2"]
    rules["ps"]["gg"].append("R1")
    rules["ps"]["evaded"].append("R2")
    assert air.targets(board, "0505") == [] and air.targets(board, "0504") == ["B1"]


# --- 3. K-CA-2, K-CA-3: a group assaults with some of its units left behind ---------------------------

def _phase_two(units):
    sc, rules = table(units, position=POS_AP(2), turns=3)
    flow._start_ap(sc, rules, 2, Ctx())
    rules["step"] = "move1"
    return sc, rules


def test_a_group_may_assault_with_the_units_that_may_not_attack_left_behind():
    """K-CA-2 (L113: "all other units must be left behind in the assault move as indeed may any
    unit"), K-CA-3, K-ART-2. The battle group {T1, T2, J} (J a Jaguar ATGW, which may not
    attack) started the phase as one: whole it is refused (K-CA-2: J); T1 and T2 assault
    together, J left behind. 1.11.0 refused T1, T2 (K-CA-3) and offered only each tank alone."""
    units = [U("T1", "blue", "tank", "0504", "00", "N", "HA", group="a"),
             U("T2", "blue", "tank", "0504", "01", "N", "HA", group="a"),
             U("J", "blue", "jaguar", "0504", "02", "N", "HA", group="a"),
             U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = _phase_two(units)
    with pytest.raises(IllegalOrder) as refused:
        assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["T1", "T2", "J"], "target": "0505"}, 2)
    assert (refused.value.rule, refused.value.message) == (
        "K-CA-2", "assault: J may not attack in a Close Assault (only armour, mechanised armoured self-propelled "
                  "artillery, reconnaissance and infantry, K-CA-2, K-CA-11); leave it behind and assault with T1, T2")
    assert [o["units"] for o in assault.options(sc, rules, "blue", 2)] == [["T1", "T2"], ["T1"], ["T2"]]
    ctx = Ctx()
    assault.declare(sc, rules, "blue", {"type": "assault", "units": ["T1", "T2"], "target": "0505"}, ctx, 2)
    assert rules["assaults"][0]["units"] == ["T1", "T2"]
    assert [e["text"] for e in ctx.events] == ["Close Assault 1: T1, T2 from 0504 into 0505 (K-CA-5)."]
    assert st.Board(sc, rules).members("J") == ["J", "T1", "T2"]      # left behind, in the square it started in
    assert assault.options(sc, rules, "blue", 2) == []                # J may not attack; the tanks have gone


def test_any_part_of_a_group_that_started_the_phase_as_one_may_assault_together():
    """K-CA-2 ("as indeed may any unit"), K-CA-3: of the three tanks {T0, T1, T2} that started
    the phase as a group, T0 and T1 assault together, T2 left behind, which may then assault
    alone. Two tanks that did not start the phase as a group still may not assault together."""
    units = [U(f"T{i}", "blue", "tank", "0504", f"0{i}", "N", "HA", group="a") for i in range(3)] + [
        U("L1", "blue", "tank", "0503", "00", "N", "HA"), U("L2", "blue", "tank", "0503", "01", "N", "HA"),
        U("R1", "red", "tank", "0505", "21", "S", "HD"), U("R2", "red", "tank", "0403", "21", "E", "HD")]
    sc, rules = _phase_two(units)
    plan = assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["T1", "T0"], "target": "0505"}, 2)
    assert plan["units"] == ["T0", "T1"]
    with pytest.raises(IllegalOrder) as refused:
        assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["L1", "L2"], "target": "0403"}, 2)
    assert (refused.value.rule, refused.value.message) == (
        "K-CA-3", "assault: units assault together only as a battle group that started the phase as one, or part of "
                  "one, the rest left behind (L1, L2 are not); each may assault alone (K-CA-2, K-CA-3, K-ORD-8)")
    assault.declare(sc, rules, "blue", {"type": "assault", "units": ["T0", "T1"], "target": "0505"}, Ctx(), 2)
    assert {"type": "assault", "units": ["T2"], "target": "0505"} in assault.options(sc, rules, "blue", 2)


# --- 4. K-CA-17, K-CAR-1: occupiers face as they wish and form their own groups ----------------------

def _occupied():
    """B1, B2, B3 (a group) have assaulted 0505 and destroyed R1: blue decides their facing."""
    units = [U("B1", "blue", "tank", "0504", "00", "N", "HA", group="a"),
             U("B2", "blue", "tank", "0504", "01", "N", "HA", group="a"),
             U("B3", "blue", "tank", "0504", "02", "N", "HA", group="a"),
             U("R1", "red", "light", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    orders = [{"type": "assault", "units": ["B1", "B2", "B3"], "target": "0505"}, {"type": "end"}]
    ctx = drive(sc, rules, orders, [6] * 7, policies={"occupy_facing": "ask"})
    assert texts(ctx, "occupy") == ["B1, B2, B3 occupy 0505, facing N (K-CA-14, K-CA-17)."]
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("blue", "occupy-facing")
    return sc, rules, need


def test_a_lone_occupier_faces_its_way_in_the_singular():
    """K-CA-17: one unit that occupied a square "faces S", not "face S" (an audience's
    walkthrough of the kkoh example)."""
    units = [U("B1", "blue", "tank", "0504", "00", "N", "HA"), U("R1", "red", "light", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    orders = [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"}]
    ctx = drive(sc, rules, orders, [6] * 7, policies={"occupy_facing": "ask"})
    assert texts(ctx, "occupy") == ["B1 occupies 0505, facing N (K-CA-14, K-CA-17)."]
    need = flow.next_step(sc, rules)
    ctx = Ctx()
    flow.apply(sc, rules, need, {"type": "face", "facing": "S", "group": False}, ctx)
    assert texts(ctx, "occupy-facing") == ["B1 faces S in 0505 (K-CA-17)."]


def _layout(rules, units=("B1", "B2", "B3")):
    recs = rules["pieces"]
    groups = {}
    for p in units:
        if recs[p].get("g"):
            groups.setdefault(recs[p]["g"], []).append(p)
    return {p: (recs[p]["cell"], recs[p]["f"]) for p in units}, sorted(groups.values())


def test_occupiers_may_each_take_their_own_facing_and_form_new_groups():
    """K-CA-17 (L115: "Close Assaulters that occupy a square may reorganise in any legal facing
    and any group may split down to smaller groups or individual units"), K-CAR-1 ("face as they
    wish"), K-GM-2, K-GM-5. B1 and B2 stay one group facing N, B3 alone faces E; or each faces
    its own way as single units. 1.11.0 took only one facing for all of them. The simple form
    (one facing for all, grouped or single), which the standing order answers, is unchanged."""
    _simple_form_unchanged()
    sc, rules, need = _occupied()
    order = {"type": "face", "facing": "N", "facings": {"B3": "E"}, "groups": [["B1", "B2"]]}
    jsonschema.validate(order, RULESET.order_schema)
    ctx = Ctx()
    flow.apply(sc, rules, need, order, ctx)
    assert texts(ctx, "occupy-facing") == ["In 0505: B1, B2 face N as one battle group; B3 faces E alone (K-CA-17)."]
    assert _layout(rules) == ({"B1": ("01", "N"), "B2": ("00", "N"), "B3": ("12", "E")}, [["B1", "B2"]])

    sc, rules, need = _occupied()
    ctx = Ctx()
    flow.apply(sc, rules, need, {"type": "face", "facing": "N", "facings": {"B1": "E", "B2": "S", "B3": "W"},
                                 "group": False}, ctx)
    assert texts(ctx, "occupy-facing") == ["In 0505: B1 faces E alone; B2 faces S alone; B3 faces W alone (K-CA-17)."]
    assert _layout(rules) == ({"B1": ("12", "E"), "B2": ("21", "S"), "B3": ("10", "W")}, [])


@pytest.mark.parametrize("order, rule, message", [
    ({"type": "face", "facing": "N", "facings": {"B3": "E"}, "group": True}, "K-GM-5",
     "face: a battle group faces one way: B1, B2, B3 would face E and N (K-GM-5, K-CA-17)"),
    ({"type": "face", "facing": "N", "groups": [["B1"]]}, "K-GM-5",
     "face: a battle group is two or more units: B1 alone is none (leave it out of `groups`, K-GM-5)"),
    ({"type": "face", "facing": "N", "facings": {"R1": "E"}, "group": False}, "K-CA-17",
     "face: R1 is not one of the units that occupied the square (B1, B2, B3)"),
    ({"type": "face", "facing": "N", "group": False, "groups": [["B1", "B2"]]}, "K-CA-17",
     "face: give `group` (all the occupiers one battle group, or none) or `groups` (the battle groups they form), not "
     "both nor neither"),
    ({"type": "face", "facing": "N", "groups": [["B1", "B2"], ["B2", "B3"]]}, "K-CA-17",
     "face: B2 is named in more than one battle group"),
], ids=["group-two-ways", "group-of-one", "not-an-occupier", "group-and-groups", "unit-twice"])
def test_an_arrangement_of_the_occupiers_the_rules_refuse(order, rule, message):
    """K-CA-17 with K-GM-5 (a battle group is two or more units, facing one way): each refusal
    names what is wrong; the occupiers are not moved."""
    sc, rules, need = _occupied()
    before = copy.deepcopy(rules["pieces"])
    with pytest.raises(IllegalOrder) as refused:
        flow.apply(sc, rules, need, order, Ctx())
    assert (refused.value.rule, refused.value.message) == (rule, message)
    assert rules["pieces"] == before


def _simple_form_unchanged():
    """K-CA-17: the simple form (one facing, all grouped or all single) is still listed and
    taken, the way they came first: the standing order keeps them one group facing N."""
    sc, rules, need = _occupied()
    options = flow.legal_orders(sc, rules, need)
    assert options[:2] == [{"type": "face", "facing": "N", "group": True}, {"type": "face", "facing": "N", "group": False}]
    assert len(options) == 8
    assert flow.policy(sc, rules, need, None) == {"type": "face", "facing": "N", "group": True}
    ctx = Ctx()
    flow.apply(sc, rules, need, {"type": "face", "facing": "S", "group": True}, ctx)
    assert texts(ctx, "occupy-facing") == ["B1, B2, B3 face S in 0505 as one battle group (K-CA-17)."]
    assert _layout(rules) == ({"B1": ("21", "S"), "B2": ("22", "S"), "B3": ("20", "S")}, [["B1", "B2", "B3"]])


def test_the_order_schema_takes_each_unit_its_facing_and_the_groups():
    """The `face` order's full form in the schema (`schemas/kkoh-orders.schema.json` is
    RULESET.order_schema, test_kkoh_rules.py): `facings` and `groups` in place of `group`."""
    check = jsonschema.Draft202012Validator(RULESET.order_schema)
    assert check.is_valid({"type": "face", "facing": "N", "group": True})
    assert check.is_valid({"type": "face", "facing": "N", "facings": {"B1": "E"}, "group": False})
    assert check.is_valid({"type": "face", "facing": "N", "groups": [["B1", "B2"]]})
    assert not check.is_valid({"type": "face", "facing": "N"})                        # group or groups
    assert not check.is_valid({"type": "face", "facing": "N", "facings": {"B1": "X"}, "group": False})
    assert not check.is_valid({"type": "face", "facing": "N", "groups": [["B1"]]})    # a group is two or more


# --- 5. K-DF-5: the spread is judged over the whole plan -------------------------------------------

# BS (in 0504) may fire only at R1 in 0505; BSE (in 0604, a front diagonal) at R1 or R2
SPREAD = {"BS": ("0504", "01", "N"), "BSE": ("0604", "01", "N")}
UNEVEN = ("fire: fire must be spread as evenly as possible over the eligible targets before any die is rolled: R1 is "
          "fired at twice and R2 not at all, though BSE could fire at R2 instead (K-DF-5)")


def _spread(red_can_fire: bool):
    red = ([U("R1", "red", "tank", "0505", "21", "S", "HD"), U("R2", "red", "tank", "0505", "12", "E", "HD")]
           if red_can_fire else
           [U("R1", "red", "tank", "0505", "20", "W", "HD"), U("R2", "red", "tank", "0505", "02", "N", "HD")])
    units = [U(p, "blue", "tank", sq, cell, f, "HD") for p, (sq, cell, f) in SPREAD.items()] + red
    sc, rules = table(units, position=POS_FIRE)
    flow.advance(sc, rules, Ctx())
    return sc, rules


@pytest.mark.parametrize("first", ["BS", "BSE"])
def test_an_uneven_fire_plan_loses_its_extra_shot_at_its_end_in_whichever_order_its_shots_are_listed(first):
    """K-DF-5 (L77: fire "must be spread as evenly as possible, as per the firers' choice, amongst
    the eligible targets, before firing dice are rolled"). Blue alone can fire (its plan is
    open): BS and BSE both at R1 leave R2, which BSE could fire at, out. Listed either way, the
    shot that should have gone to R2 (BSE's) is void at the plan's `end`, as the shots were
    accepted one by one, maybe in earlier packets, and cannot be taken back (a refused `end`
    would leave the side no way on); no shot that makes the plan uneven is offered; BS at R1
    and BSE at R2 ends as given. 1.11.0 refused one order of listing at its second shot and took
    the other."""
    sc, rules = _spread(red_can_fire=False)
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind, need.sealed) == ("blue", "fire", False)
    second = "BSE" if first == "BS" else "BS"
    probe = copy.deepcopy(rules)
    fire.add_fire(sc, probe, "blue", {"type": "fire", "unit": "BS", "target": "R1"})
    assert fire.options(sc, probe, "blue") == [{"type": "fire", "unit": "BSE", "target": "R2"}]
    ctx = Ctx([1])            # the one fire die left: no effect
    for unit in (first, second):
        flow.apply(sc, rules, need, {"type": "fire", "unit": unit, "target": "R1"}, ctx)
    assert {"type": "end"} in flow.legal_orders(sc, rules, need)
    flow.apply(sc, rules, need, {"type": "end"}, ctx)
    assert texts(ctx, "void-item") == ["blue's fire of BSE at R1 is void: " + UNEVEN[len("fire: "):] + "."]
    assert [(e["unit"], e["target"]) for e in ctx.of("fire")] == [("BS", "R1")]

    sc, rules = _spread(red_can_fire=False)
    shots = {"BS": "R1", "BSE": "R2"}
    ctx = Ctx([1, 1])         # the fire dice: no effect
    for unit in (first, second):
        flow.apply(sc, rules, need, {"type": "fire", "unit": unit, "target": shots[unit]}, ctx)
    flow.apply(sc, rules, need, {"type": "end"}, ctx)
    assert texts(ctx, "void-item") == []
    assert sorted((e["unit"], e["target"]) for e in ctx.of("fire")) == [("BS", "R1"), ("BSE", "R2")]


@pytest.mark.parametrize("first", ["BS", "BSE"])
def test_an_uneven_sealed_fire_plan_loses_the_shot_that_should_have_gone_elsewhere(first):
    """K-DF-5 with sealed fire plans (README "Sealed orders"): the plan is judged when it is
    opened, as a whole; it cannot be sent again, so the shot that should have gone to the target
    left out (BSE's at R1) is void, whichever order the two shots were listed in; BS still
    fires at R1."""
    sc, rules = _spread(red_can_fire=True)
    ctx = Ctx()
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind, need.sealed) == ("blue", "fire", True)
    flow.apply(sc, rules, need, {"type": "sealed", "items": 3}, ctx)
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("red", "fire")
    flow.apply(sc, rules, need, {"type": "sealed", "items": 1}, ctx)
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("blue", "fire-open")
    second = "BSE" if first == "BS" else "BS"
    for order in ({"type": "fire", "unit": first, "target": "R1"}, {"type": "fire", "unit": second, "target": "R1"},
                  {"type": "end"}):
        flow.apply(sc, rules, need, order, ctx)
    assert texts(ctx, "void-item") == ["blue's sealed fire of BSE at R1 is void: " + UNEVEN[len("fire: "):] + "."]
    assert [(s["unit"], s["target"]) for s in fire.plan(rules, "blue")] == [("BS", "R1")]



# --- 6. K-LST-1, K-PTS: the British mortar platoon costs its printed 10 ------------------------------

def test_the_british_mortar_platoon_costs_its_printed_price():
    """K-LST-1, K-PTS-1 (README "Army lists": the mortar platoon prints 10 where the formula gives
    12, `misprint: 12`, and the list price is kept), K-PTS-3 (a unit fielded "(-)" at half, 5). 1.11.0 gave the piece the formula's 12, which
    the score counted."""
    units = [{"id": "B-MOR", "side": "blue", "row": "mortar", "square": "0101", "cell": "01", "facing": "N",
              "order": "HD", "level": "battery"},
             {"id": "B-MOR2", "side": "blue", "row": "mortar", "square": "0102", "cell": "01", "facing": "N",
              "order": "HD", "level": "battery", "reduced": True},
             {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0404", "cell": "01", "facing": "S", "order": "HD"}]
    doc = scenario_doc({"units": units, "blue": {"army": "uk-1970s"}, "commands": [
        {"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "0000"},
        {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": "0505"}]})
    sc = RULESET.scenario(doc, {})
    row = next(r for r in doc["armies"]["lists"]["uk-1970s"]["rows"] if r["id"] == "mortar")
    assert (row["cost"], row["misprint"]) == (10, 12)
    assert points.cost(row, sc.tables["points"], "nato") == 12                   # the formula, as the data test has it
    assert (sc.pieces["B-MOR"].cost, sc.pieces["B-MOR2"].cost) == (10, 5)      # the list price; "(-)" half of it
    rules = RULESET.setup(sc)
    rules["gone"].append("B-MOR")
    del rules["pieces"]["B-MOR"]
    assert victory.scores(sc, rules)["red"] == 10


def test_a_moves_verb_agrees_with_its_units():
    """A players' probe: "B-Pz2-1, B-Pz2-2, B-Pz2-3 moves to 0810" (K-MOV-8)."""
    units = [U("B1", "blue", "tank", "0504", "00", "N", "M", group="a"),
             U("B2", "blue", "tank", "0504", "01", "N", "M", group="a"),
             U("B3", "blue", "tank", "0304", "01", "N", "M"),
             U("R1", "red", "tank", "0509", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(1), turns=3)
    orders = [{"type": "move", "units": ["B1", "B2"], "to": "0503", "facing": "N"},
              {"type": "move", "units": ["B3"], "to": "0303", "facing": "N"}, {"type": "end"}]
    ctx = drive(sc, rules, orders, [4] * 12, stop_kind="fire")
    assert texts(ctx, "move") == ["B1, B2 move to 0503, facing N, as one battle group (K-MOV-8).",
                                  "B3 moves to 0303, facing N (K-MOV-8)."]
