"""Unit tests of the stalingrad ruleset: the fragment's rules (10.3, 11.x) with exact
outcomes, the house rules around them, and the ruleset contract."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import jsonschema
import pytest

from pbem.rulesets.base import IllegalOrder, Need
from pbem.rulesets.stalingrad import RULESET, retreat
from pbem.rulesets.stalingrad.orders import ORDER_SCHEMA
from tests.stalingrad_driver import ScriptedContext, play, position, scenario

SCENARIO = scenario(RULESET)

ROOT = Path(__file__).resolve().parent.parent
ORDER_VALIDATOR = jsonschema.Draft202012Validator(ORDER_SCHEMA)


def fresh() -> dict:
    return RULESET.setup(SCENARIO)


def where(rules: dict, uid: str) -> str:
    """The area of a unit on the map, or the box it is in."""
    return rules["units"][uid]


def steps(rules: dict, uid: str) -> int:
    assert where(rules, uid) not in ("pool", "eliminated", "withdrawn"), f"{uid} is not on the map"
    return 1 if uid in rules["reduced"] else 2


def apply_one(rules: dict, order: dict, dice=(), chosen_by="order"):
    """Apply one order to the current need on a copy, as the core does."""
    need = RULESET.next_step(SCENARIO, rules)
    trial = copy.deepcopy(rules)
    ctx = ScriptedContext(list(dice), 0, chosen_by)
    RULESET.apply(SCENARIO, trial, need, order, ctx)
    return trial, ctx.events


def json_like(value) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and json_like(v) for k, v in value.items())
    if isinstance(value, list):
        return all(json_like(v) for v in value)
    return value is None or isinstance(value, (str, bool, int)) and not isinstance(value, float)


# ---- the record, data and schemas ---------------------------------------------------------

def test_record_and_scenario():
    assert RULESET.id == "stalingrad"
    assert RULESET.sides == ("german", "soviet")
    assert RULESET.default_scenario in RULESET.scenarios
    scenario = RULESET.scenarios["city-1942"]()
    assert scenario["reconstructed"] is True and scenario["house_rule"] is True
    assert scenario["loss_table"]["house_rule"] is True
    names = " ".join(a["name"] for a in scenario["areas"])
    for historical in ("Tractor Factory", "Barrikady", "Krasny Oktyabr", "Mamayev Kurgan",
                       "Railway Station No. 1", "Grain Elevator", "Central Landing Stage",
                       "Tsaritsa gorge", "Dzerzhinsky Square"):
        assert historical in names
    city = [a for a in scenario["areas"] if not a.get("crossing")]
    crossings = [a for a in scenario["areas"] if a.get("crossing")]
    assert len(city) >= 20 and len(crossings) >= 3
    assert all(a["control"] == "soviet" for a in crossings)
    black = [u for u in scenario["units"]["german"] if u.get("black")]
    assert {u["id"].split("-")[0] for u in black} == {"60md", "29md"}
    assert {u["arm"] for u in black} == {"infantry", "armour"}


def test_order_schema_file_matches_and_policies_validate():
    on_disk = json.loads((ROOT / "schemas" / "stalingrad-orders.schema.json").read_text())
    assert on_disk == RULESET.order_schema == ORDER_SCHEMA
    jsonschema.Draft202012Validator.check_schema(RULESET.order_schema)
    jsonschema.validate(dict(RULESET.default_policies), RULESET.policy_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"retreat_tie": "random"}, RULESET.policy_schema)


def test_a_malformed_order_is_refused_with_the_schemas_reason():
    rules = fresh()
    need = RULESET.next_step(SCENARIO, rules)
    for order, reason in (({"type": "end", "phase": "German"}, "'German' does not match"),
                          ({"type": "end", "extra": 1}, "unknown key `extra`; an order of type end takes the keys "
                                                        "type, phase"),
                          ({"type": "end", "phase": 7}, "7 is not of type 'string'"),
                          # in words, not as the pattern (a new user's probe: "does not match '^[a-z0-9]...'")
                          ({"type": "reinforce", "unit": "71id-191", "area": "mamayev_kurgan"},
                           "'mamayev_kurgan' is not an area's id, in lower-case letters, digits and hyphens, such as "
                           "mamayev-kurgan"),
                          ({"type": "reinforce", "unit": "71ID-191", "area": "mamayev-kurgan"},
                           "'71ID-191' is not a unit's id, in lower-case letters, digits and hyphens (without the * that "
                           "`pbem show` writes after a black counter's id), such as 71id-191"),
                          # copied from `pbem show`, with its mark of a black counter (a players' probe)
                          ({"type": "reinforce", "unit": "60md-92mir*", "area": "mamayev-kurgan"},
                           "'60md-92mir*' is not a unit's id, in lower-case letters, digits and hyphens (without the * "
                           "that `pbem show` writes after a black counter's id), such as 71id-191")):
        with pytest.raises(IllegalOrder, match=re.escape(f"is malformed: {reason}")):
            RULESET.apply(SCENARIO, rules, need, order, ScriptedContext([], 0, "order"))


def test_setup_state_is_json_like_and_round_trips():
    rules = fresh()
    assert json_like(rules)
    assert json.loads(json.dumps(rules, sort_keys=True)) == rules
    need = RULESET.next_step(SCENARIO, rules)
    assert (need.side, need.kind, need.decision) == ("german", "german-reinforcement", False)
    assert {"type": "end"} in RULESET.legal_orders(SCENARIO, rules, need)
    s = RULESET.summary(SCENARIO, rules)
    assert s["turn"] == 1 and s["result"] is None and s["vp"]["german"] == 0


def test_state_holds_only_what_play_changes():
    rules = fresh()
    assert sorted(rules) == ["cards", "control", "phase", "phase_state", "reduced", "turn", "units"]
    assert rules["control"]["mamayev-kurgan"] == "soviet" and len(rules["control"]) == 26
    assert rules["units"]["71id-191"] == "aerodromny" and rules["units"]["13gd-34"] == "pool"
    assert rules["reduced"] == [] and rules["phase_state"] == {"open": True}
    assert list(rules["units"]) == sorted(rules["units"]) and list(rules["control"]) == sorted(rules["control"])
    text = json.dumps(rules)
    assert "Mamayev" not in text and "infantry" not in text and "adjacent" not in text
    assert len(text) < 3000


def test_scenario_object_is_read_only_and_play_leaves_it_alone():
    before = repr(SCENARIO)
    assert SCENARIO.areas["mamayev-kurgan"].adjacent == (  # sorted once, in the scenario
        "aerodromny", "banny-ravine", "dolgiy-ravine", "ko-settlement", "station-1")
    assert SCENARIO.areas["crossing-62"].crossing and SCENARIO.crossings[0] == "crossing-62"
    assert SCENARIO.units["60md-160pz"].black and SCENARIO.units["13gd-34"].turn == 1
    assert (SCENARIO.last_turn, SCENARIO.withdrawal_turn, SCENARIO.stacking_limit) == (6, 3, 10)
    with pytest.raises(TypeError):
        SCENARIO.areas["mamayev-kurgan"] = None
    with pytest.raises(AttributeError):
        SCENARIO.units["71id-191"].side = "soviet"
    random_game(11, decide_by_policy=True)
    assert repr(SCENARIO) == before


def test_position_refuses_what_it_cannot_set_up():
    with pytest.raises(ValueError, match="unknown phase_state key combats"):
        position(RULESET, {"phase_state": {"combats": 2}})
    with pytest.raises(ValueError, match="1 or 2 steps"):
        position(RULESET, {"areas": {"station-1": {"units": [{"id": "71id-191", "steps": 0}]}}})
    with pytest.raises(ValueError, match="unknown units"):
        position(RULESET, {"pool": ["no-such-unit"]})
    rules = position(RULESET, {"areas": {"station-1": {"units": [{"id": "71id-191", "steps": 1}]}},
                               "eliminated": ["71id-194"], "phase_state": {"moved": ["71id-191"]}})
    assert rules["units"] == {"71id-191": "station-1", "71id-194": "eliminated"}
    assert rules["reduced"] == ["71id-191"]
    assert rules["phase_state"] == {"moved": ["71id-191"], "open": True}


def test_scenario_check_rejects_one_way_adjacency():
    scenario = RULESET.scenarios["city-1942"]()
    scenario["areas"][0]["adjacent"].append("kuporosnoye")
    with pytest.raises(ValueError, match="both ways"):
        RULESET.setup(RULESET.scenario(scenario, {}))


# ---- 10.3 retreat ---------------------------------------------------------------------------

RING = {  # station-1 and its five neighbours
    "station-1": {"control": "soviet", "units": ["71id-191", "10nkvd-272"]},
}


def ring(**areas) -> dict:
    spec = {"turn": 2, "phase": "german-combat", "areas": dict(RING)}
    spec["areas"].update(areas)
    return position(RULESET, spec)


def test_10_3_own_controlled_fewest_enemy_first():
    rules = ring(**{
        "mamayev-kurgan": {"control": "soviet", "units": ["71id-194", "295id-517"]},
        "dolgiy-ravine": {"control": "soviet", "units": ["295id-518"]},
        "aerodromny": {"control": "german"}, "january-9-square": {"control": "german"},
        "fallen-fighters": {"control": "german"}})
    assert retreat.candidates(SCENARIO, rules, "10nkvd-272", "station-1", [], False) == ["dolgiy-ravine"]


def test_10_3_enemy_free_only_when_no_own_area():
    rules = ring(**{
        "mamayev-kurgan": {"control": "german", "units": ["71id-194"]},
        "dolgiy-ravine": {"control": "german"}, "aerodromny": {"control": "german"},
        "january-9-square": {"control": "german", "units": ["295id-518"]},
        "fallen-fighters": {"control": "german", "units": ["71id-211"]}})
    assert retreat.candidates(SCENARIO, rules, "10nkvd-272", "station-1", [], False) == [
        "aerodromny", "dolgiy-ravine"]


def test_10_3_flip_control_and_eliminate():
    rules = ring(**{
        "mamayev-kurgan": {"control": "german", "units": ["71id-194"]},
        "dolgiy-ravine": {"control": "german"}, "aerodromny": {"control": "german",
                                                              "units": ["295id-517"]},
        "january-9-square": {"control": "german", "units": ["295id-518"]},
        "fallen-fighters": {"control": "german", "units": ["71id-211"]}})
    # 2 loss points on a full unit: a step and a retreat (house 6.5)
    after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]},
                         [6, 1])
    assert where(after, "10nkvd-272") == "dolgiy-ravine"
    assert after["control"]["dolgiy-ravine"] == "soviet"
    flip = [e for e in events if e["type"] == "control" and e["area"] == "dolgiy-ravine"]
    assert flip and flip[0]["rule"] == "10.3" and "house_rule" not in flip[0]
    rules["units"]["24pd-21pgr"] = "dolgiy-ravine"  # a German unit there too: no retreat
    after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]},
                         [6, 1])
    assert where(after, "10nkvd-272") == "eliminated"
    assert [e["rule"] for e in events if e["type"] == "eliminated"] == ["10.3"]


def test_10_3_2_soviet_retreat_onto_crossing_has_no_limit():
    crowd = ["2mrb", "stz-militia", "115rb", "149rb", "112rd-385", "23tc-189tb",
             "112rd-524", "6gtb", "112rd-416", "10nkvd-269", "42rb"]
    rules = position(RULESET, {"turn": 2, "phase": "german-combat", "areas": {
        "january-9-square": {"control": "soviet", "units": ["71id-191", "71id-194", "71id-211", "10nkvd-270"]},
        "crossing-central": {"control": "soviet", "units": crowd},
        "dolgiy-ravine": {"control": "german"},
        "station-1": {"control": "german", "units": ["295id-517"]},
        "fallen-fighters": {"control": "german", "units": ["295id-518"]},
        "central-landing": {"control": "german"}}})
    # a full unit takes its 2 loss points as a step and a retreat by standing order (house 6.5)
    after, events = play(RULESET, rules, {"german": [{"type": "attack",
                                                      "area": "january-9-square"}]}, [6, 1],
                         {"soviet": {"apply_losses": "retreat"}})
    assert where(after, "10nkvd-270") == "crossing-central"
    assert [e["points"] for e in events if e["type"] == "allocate"] == [2]
    assert not [e for e in events if e["type"] == "overstack"]


def test_10_3_2_tie_choice_of_a_full_area_goes_further():
    full = ["71id-191", "71id-194", "71id-211", "71id-pi171", "24pd-24pzr", "295id-516",
            "295id-517", "295id-518", "94id-267", "24pd-26pgr"]
    rules = position(RULESET, {"turn": 2, "phase": "soviet-combat", "areas": {
        "station-1": {"control": "soviet", "units": ["24pd-21pgr", "10nkvd-272", "10nkvd-269"]},
        "aerodromny": {"control": "german", "units": full},
        "dolgiy-ravine": {"control": "german"},
        "mamayev-kurgan": {"control": "soviet", "units": ["112rd-416"]},
        "january-9-square": {"control": "soviet", "units": ["10nkvd-270"]},
        "fallen-fighters": {"control": "soviet", "units": ["10nkvd-271"]}}})
    orders = {"soviet": [{"type": "attack", "area": "station-1"}],
              "german": [{"type": "retreat", "unit": "24pd-21pgr", "to": "aerodromny"}]}
    retreating = {"german": {"apply_losses": "retreat"}}  # a full unit's 2 points as a step and a retreat (house 6.5)
    after, events = play(RULESET, rules, orders, [6, 1], retreating)
    assert [e["points"] for e in events if e["type"] == "allocate"] == [2]
    # aerodromny is full: one area further, to razgulyayevka or station-2 (tie, policy)
    assert where(after, "24pd-21pgr") == "razgulyayevka"
    assert after["control"]["razgulyayevka"] == "german"
    # the standing order alone prefers the tied area with room: dolgiy-ravine
    after, _ = play(RULESET, rules, {"soviet": orders["soviet"]}, [6, 1], retreating)
    assert where(after, "24pd-21pgr") == "dolgiy-ravine"
    assert after["control"]["dolgiy-ravine"] == "german"


# ---- movement and control (house rules 4 and 5) ---------------------------------------------

def test_move_and_control_flip_house_rule():
    rules = position(RULESET, {"turn": 1, "phase": "german-movement", "areas": {
        "aerodromny": {"control": "german", "units": ["71id-191"]},
        "station-1": {"control": "soviet"}, "mamayev-kurgan": {"control": "soviet",
                                                             "units": ["112rd-416"]}}})
    after, events = apply_one(rules, {"type": "move", "unit": "71id-191", "to": "station-1"})
    assert where(after, "71id-191") == "station-1"
    assert after["control"]["station-1"] == "german"
    flip = [e for e in events if e["type"] == "control"][0]
    assert flip["rule"] == "house 4.2" and flip["house_rule"] is True
    assert flip["text"].endswith("(house 4.2).")
    move = [e for e in events if e["type"] == "move"][0]
    assert move["rule"] == "house 5.1" and move["text"].endswith("(house 5.1).")
    with pytest.raises(IllegalOrder) as info:
        apply_one(after, {"type": "move", "unit": "71id-191", "to": "fallen-fighters"})
    assert info.value.rule == "house 5.1" and "already moved" in info.value.message
    after, _ = apply_one(rules, {"type": "move", "unit": "71id-191", "to": "mamayev-kurgan"})
    assert after["control"]["mamayev-kurgan"] == "soviet"  # contested: unchanged


def test_move_illegal_orders_name_the_rule():
    rules = position(RULESET, {"turn": 1, "phase": "german-movement", "areas": {
        "aerodromny": {"control": "german", "units": ["71id-191", "10nkvd-272"]},
        "station-2": {"control": "german", "units": ["71id-194"]},
        "station-1": {"control": "german"}}})
    cases = [
        ({"type": "move", "unit": "71id-191", "to": "tractor-factory"}, "house 5.1",
         "not adjacent"),
        ({"type": "move", "unit": "71id-191", "to": "mamayev-kurgan"}, "house 5.2",
         "enemy units"),
        ({"type": "move", "unit": "10nkvd-272", "to": "station-1"}, "house 5.1",
         "soviet unit"),
        ({"type": "move", "unit": "no-such-unit", "to": "station-1"}, "house 2.1", "no unit"),
        ({"type": "move", "unit": "71id-191", "to": "red-square"}, "house 1.1", "no area"),
        ({"type": "attack", "area": "aerodromny"}, "house 5", "german-movement"),
        ({"type": "end", "phase": "german-combat"}, "house 5", "names phase"),
        ({"type": "move", "unit": "71id-191"}, "house 5", "malformed"),
    ]
    for order, rule, text in cases:
        with pytest.raises(IllegalOrder) as info:
            apply_one(rules, order)
        assert info.value.rule == rule, (order, info.value.message)
        assert text in info.value.message, info.value.message
    legal = RULESET.legal_orders(SCENARIO, rules, RULESET.next_step(SCENARIO, rules))
    assert {"type": "move", "unit": "71id-191", "to": "station-2"} in legal
    assert {"type": "move", "unit": "71id-191", "to": "mamayev-kurgan"} not in legal


def test_stacking_limit_for_movement():
    ten = ["71id-194", "71id-211", "71id-pi171", "24pd-24pzr", "295id-516", "295id-517",
           "295id-518", "94id-267", "24pd-26pgr", "24pd-21pgr"]
    rules = position(RULESET, {"turn": 1, "phase": "german-movement", "areas": {
        "aerodromny": {"control": "german", "units": ["71id-191"]},
        "station-2": {"control": "german", "units": ten}}})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "move", "unit": "71id-191", "to": "station-2"})
    assert info.value.rule == "house 5.3"


# ---- combat and tactical cards (house rules 6 and 7) ----------------------------------------

def battle(cards: dict, **extra) -> dict:
    spec = {"turn": 2, "phase": "german-combat", "cards": cards, "areas": {
        "station-1": {"control": "soviet",
                      "units": ["71id-191", "71id-194", "10nkvd-272", "10nkvd-269", "42rb"]},
        "dolgiy-ravine": {"control": "soviet"}, "mamayev-kurgan": {"control": "soviet"},
        "january-9-square": {"control": "soviet"}, "fallen-fighters": {"control": "soviet"},
        "aerodromny": {"control": "german"}}}
    spec.update(extra)
    return position(RULESET, spec)


def test_loss_table_and_cover():
    from pbem.rulesets.stalingrad.combat import table
    assert [table(SCENARIO, 4, d) for d in range(1, 7)] == [0, 0, 1, 1, 1, 2]
    assert table(SCENARIO, 30, 6) == 4
    spec = {"turn": 2, "phase": "german-combat", "cards": {"german": 0, "soviet": 0}, "areas": {
        "mamayev-kurgan": {"control": "soviet", "units": ["71id-191", "71id-194", "112rd-416"]}}}
    spec_rules = position(RULESET, spec)
    _, events = play(RULESET, spec_rules, {"german": [{"type": "attack",
                                                       "area": "mamayev-kurgan"}]}, [6, 1])
    combat = [e for e in events if e["type"] == "combat"][0]
    assert combat["loss"] == {"soviet": 1, "german": 0} and combat["cover"] == 1  # 2 - cover
    assert combat["house_rule"] is True
    spec["areas"]["mamayev-kurgan"]["units"].append("pi-45")  # engineers, strength 3: 11 in all
    spec_rules = position(RULESET, spec)
    _, events = play(RULESET, spec_rules, {"german": [{"type": "attack",
                                                       "area": "mamayev-kurgan"}]}, [6, 1])
    combat = [e for e in events if e["type"] == "combat"][0]
    assert combat["cover"] == 0 and combat["loss"]["soviet"] == 3


def test_owner_distributes_own_losses_by_default():
    rules = battle({"german": 0, "soviet": 0})
    # German strength 8 rolls 5: 2 points; Soviet strength 6 rolls 1: none
    after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]},
                         [5, 1])
    allocs = [e for e in events if e["type"] == "allocate"]
    assert {e["allocator"] for e in allocs} == {"soviet"}
    # weakest-first puts both points on the weakest unit (all strength 2 -> lowest id),
    # which then retreats and is reduced (save-units)
    assert [e["unit"] for e in allocs] == ["10nkvd-269", "10nkvd-269"]
    assert steps(after, "10nkvd-269") == 1
    assert where(after, "10nkvd-269") in ("dolgiy-ravine", "fallen-fighters",
                                          "january-9-square", "mamayev-kurgan")


def test_by_default_the_owner_spares_a_reduced_unit_and_a_card_player_aims_at_it():
    """House 6.4, 6.5, 7: a point on a reduced unit eliminates it, where a full unit takes a
    point as a step or a retreat. The owner's default (`save-units`) puts points on full units
    first, two on one before the next; a card player's default (`kill-units`) puts them on
    reduced units first. The former defaults did the opposite (`weakest-first` killed the
    owner's reduced unit; `strongest-first` steered a card's points away from it)."""
    def fight(dice, cards, policies=None):
        rules = position(RULESET, {"turn": 2, "phase": "german-combat", "cards": cards, "areas": {
            "station-1": {"control": "soviet", "units": [{"id": "10nkvd-272", "steps": 1}, "10nkvd-271", "71id-191",
                                                         "71id-194"]},
            "dolgiy-ravine": {"control": "soviet"}}})
        after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]}, dice, policies)
        return after, [(e["allocator"], e["unit"]) for e in events if e["type"] == "allocate"]

    after, allocs = fight([4, 1], {"german": 0, "soviet": 0})                  # 1 point, the Soviet side's
    assert allocs == [("soviet", "10nkvd-271")] and steps(after, "10nkvd-272") == 1
    after, allocs = fight([4, 1], {"german": 0, "soviet": 0}, {"soviet": {"allocate_own_losses": "weakest-first"}})
    assert allocs == [("soviet", "10nkvd-272")] and where(after, "10nkvd-272") == "eliminated"
    after, allocs = fight([5, 1], {"german": 0, "soviet": 0})                  # 2 points: on the full unit
    assert allocs == [("soviet", "10nkvd-271"), ("soviet", "10nkvd-271")] and steps(after, "10nkvd-272") == 1
    after, allocs = fight([5, 1], {"german": 1, "soviet": 0})                  # the German card: the reduced first
    assert allocs == [("german", "10nkvd-272"), ("german", "10nkvd-271")]
    assert where(after, "10nkvd-272") == "eliminated" and after["cards"]["german"] == 0
    after, allocs = fight([5, 1], {"german": 1, "soviet": 0}, {"german": {"allocate_enemy_losses": "strongest-first"}})
    assert allocs == [("german", "10nkvd-271"), ("german", "10nkvd-271")] and steps(after, "10nkvd-272") == 1


def test_the_owner_spreads_points_where_a_full_unit_cannot_retreat_and_concentrates_them_where_it_can():
    """House 6.4, 6.5, 10.3: two points on a full unit that can retreat cost it a step and a
    retreat; on one with nowhere to go (every area around enemy-held and occupied) they
    eliminate it. `save-units` then spreads them, one step on each of two full units; a card
    player's `kill-units` puts them together on one, the strongest."""
    def fight(closed, cards=None, policies=None):
        areas = {"station-1": {"control": "soviet", "units": ["10nkvd-271", "10nkvd-269", "71id-191", "71id-194"]}}
        if closed:
            for area, unit in zip(["aerodromny", "dolgiy-ravine", "fallen-fighters", "january-9-square", "mamayev-kurgan"],
                                  ["71id-211", "24pd-24pzr", "14pd-36pzr", "60md-160pz", "24pd-21pgr"]):
                areas[area] = {"control": "german", "units": [unit]}
        else:
            areas["dolgiy-ravine"] = {"control": "soviet"}
        rules = position(RULESET, {"turn": 2, "phase": "german-combat", "cards": cards or {"german": 0, "soviet": 0},
                                   "areas": areas})
        after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]}, [5, 1], policies)
        return after, [e["unit"] for e in events if e["type"] == "allocate"]

    after, allocs = fight(closed=False)
    assert allocs == ["10nkvd-269", "10nkvd-269"] and where(after, "10nkvd-269") == "dolgiy-ravine"
    assert steps(after, "10nkvd-269") == 1 and steps(after, "10nkvd-271") == 2
    after, allocs = fight(closed=True)
    assert allocs == ["10nkvd-269", "10nkvd-271"]
    assert (where(after, "10nkvd-269"), where(after, "10nkvd-271")) == ("station-1", "station-1")
    assert steps(after, "10nkvd-269") == 1 and steps(after, "10nkvd-271") == 1
    after, allocs = fight(closed=True, cards={"german": 1, "soviet": 0})
    assert allocs == ["10nkvd-269", "10nkvd-269"] and where(after, "10nkvd-269") == "eliminated"


def test_tactical_card_lets_the_enemy_distribute_but_not_apply():
    rules = battle({"german": 2, "soviet": 0})
    after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]},
                         [5, 1])
    assert after["cards"]["german"] == 1
    card = [e for e in events if e["type"] == "card"][0]
    assert card["play"] is True and card["rule"] == "house 7" and "standing order" in card["text"]
    allocs = [e for e in events if e["type"] == "allocate"]
    assert {e["allocator"] for e in allocs} == {"german"}
    # the card player's standing order (kill-units) puts one point on each of two full units:
    # a lone point is a step (house 6.5), so each loses one and none may retreat; two on one
    # unit would let its owner take the second as a retreat, as the owner's own allocation
    # does (a rules review: the card then changed nothing)
    hit = [e["unit"] for e in allocs]
    assert len(hit) == 2 == len(set(hit))
    assert all(where(after, u) == "station-1" and steps(after, u) == 1 for u in hit), after["units"]
    # the Soviet side still applies them; with its queued orders it takes steps
    rules2 = battle({"german": 2, "soviet": 0})
    german = [{"type": "attack", "area": "station-1"}, {"type": "card", "play": True},
              {"type": "allocate", "unit": hit[0]}, {"type": "allocate", "unit": hit[0]}]
    soviet = [{"type": "apply", "unit": hit[0], "how": "step"}]
    after2, _ = play(RULESET, rules2, {"german": german, "soviet": soviet}, [5, 1])
    assert where(after2, hit[0]) == "eliminated"


def test_no_tactical_card_is_spent_when_the_points_leave_nothing_to_distribute():
    rules = position(RULESET, {"turn": 2, "phase": "german-combat", "areas": {"station-1": {"control": "soviet", "units": [
        "71id-191", "71id-194", {"id": "10nkvd-272", "steps": 1}, {"id": "10nkvd-269", "steps": 1}]}}})
    rules["cards"]["german"] = 2
    # German strength 8 rolls 5: 2 points, as many as the two reduced Soviet units can take
    after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]}, [5, 1])
    assert after["cards"]["german"] == 2 and not [e for e in events if e["type"] == "card"]
    assert sorted(e["unit"] for e in events if e["type"] == "allocate") == ["10nkvd-269", "10nkvd-272"]


def test_tactical_card_decision_can_be_declined_by_order():
    rules = battle({"german": 2, "soviet": 0})
    orders = {"german": [{"type": "attack", "area": "station-1"}, {"type": "card", "play": False}]}
    after, events = play(RULESET, rules, orders, [5, 1])
    assert after["cards"]["german"] == 2
    assert {e["allocator"] for e in events if e["type"] == "allocate"} == {"soviet"}


def test_excess_loss_points_are_lost():
    rules = position(RULESET, {"turn": 2, "phase": "german-combat", "areas": {
        "station-1": {"control": "soviet", "units": [
            "24pd-24pzr", "71id-191", "71id-194", "71id-211", {"id": "10nkvd-272", "steps": 1}]},
        "dolgiy-ravine": {"control": "german", "units": ["295id-517"]},
        "mamayev-kurgan": {"control": "german", "units": ["295id-518"]},
        "january-9-square": {"control": "german", "units": ["295id-516"]},
        "fallen-fighters": {"control": "german", "units": ["94id-267"]},
        "aerodromny": {"control": "german", "units": ["24pd-26pgr"]}}})
    after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]},
                         [6, 1])
    assert [e["taken"] for e in events if e["type"] == "losses"] == [1]
    assert where(after, "10nkvd-272") == "eliminated"
    assert after["control"]["station-1"] == "german"


def test_attack_needs_both_sides_and_once_per_area():
    rules = battle({"german": 0, "soviet": 0})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "attack", "area": "dolgiy-ravine"})
    assert info.value.rule == "house 6.1" and "station-1" in info.value.message
    after, _ = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]}, [1, 1])
    with pytest.raises(IllegalOrder) as info:
        apply_one(after, {"type": "attack", "area": "station-1"})
    assert "already attacked" in info.value.message


def test_dice_labels_come_from_the_flow():
    rules = battle({"german": 0, "soviet": 0})
    _, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]},
                     [1, 1])
    assert [e["label"] for e in events if e["type"] == "roll"] == [
        "t2.german.combat1.attacker", "t2.german.combat1.defender"]


def test_missing_die_leaves_the_step_to_retry():
    rules = battle({"german": 0, "soviet": 0})
    after, events = play(RULESET, rules, {"german": [{"type": "attack", "area": "station-1"}]},
                         [4])
    assert after == rules and events == []


# ---- 11 reinforcements and withdrawal ---------------------------------------------------------

def test_11_1_reinforcements_enter_on_their_turn_and_may_wait():
    rules = position(RULESET, {"turn": 1, "phase": "german-reinforcement", "pool": [
        "24pd-26pgr", "100jd-54"], "areas": {"station-2": {"control": "german",
                                                           "units": ["71id-211"]}}})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "reinforce", "unit": "100jd-54", "area": "station-2"})
    assert info.value.rule == "11.1" and "turn 2" in info.value.message
    after, _ = apply_one(rules, {"type": "end"})  # 24pd-26pgr waits (house rule 8.1)
    assert where(after, "24pd-26pgr") == "pool"
    after["turn"], after["phase"] = 2, "german-reinforcement"
    after["phase_state"]["open"] = True
    legal = RULESET.legal_orders(SCENARIO, after, RULESET.next_step(SCENARIO, after))
    assert {"type": "reinforce", "unit": "24pd-26pgr", "area": "station-2"} in legal
    assert {"type": "reinforce", "unit": "100jd-54", "area": "station-2"} in legal


def test_11_2_german_placement_respects_stacking_limit():
    ten = ["71id-191", "71id-194", "71id-211", "71id-pi171", "24pd-24pzr", "295id-516",
           "295id-517", "295id-518", "94id-267", "24pd-26pgr"]
    rules = position(RULESET, {"turn": 2, "phase": "german-reinforcement", "pool": ["100jd-54"],
                               "areas": {"station-2": {"control": "german", "units": ten},
                                         "minina": {"control": "german"}}})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "reinforce", "unit": "100jd-54", "area": "station-2"})
    # the limit of 10.3(2) applied to placement is house 8.2, not the fragment's 11.2
    assert info.value.rule == "house 8.2" and "minina" in info.value.message
    assert "(house 8.2)" in info.value.message and "10.3(2)" in info.value.message


def test_11_2_soviet_needs_a_soviet_controlled_crossing():
    rules = position(RULESET, {"turn": 2, "phase": "soviet-reinforcement", "pool": ["95rd-90"],
                               "areas": {"crossing-62": {"control": "german"},
                                         "crossing-central": {"control": "soviet"}}})
    legal = RULESET.legal_orders(SCENARIO, rules, RULESET.next_step(SCENARIO, rules))
    assert [o for o in legal if o["type"] == "reinforce"] == [
        {"type": "reinforce", "unit": "95rd-90", "area": "crossing-central"},
        {"type": "reinforce", "unit": "95rd-90", "area": "crossing-skudri"},
        {"type": "reinforce", "unit": "95rd-90", "area": "crossing-tractor"}]


def test_a_misspelt_area_offers_what_the_unit_may_do_not_every_area():
    """A new user's probe: `area: crossing-centrl` for a Soviet reinforcement was refused with
    every one of the 26 areas as "Legal now", most of them illegal. The refusal of the sender's
    own order offers the orders its unit may give; a void line keeps the areas (`legal`), as
    stalingrad 1.16.0 writes them in reports."""
    every = list(SCENARIO.area_ids)
    rules = position(RULESET, {"turn": 2, "phase": "soviet-reinforcement", "pool": ["95rd-90"],
                               "areas": {"crossing-62": {"control": "german"},
                                         "crossing-central": {"control": "soviet", "units": ["13gd-34"]}}})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "reinforce", "unit": "95rd-90", "area": "crossing-centrl"})
    assert info.value.rule == "house 1.1" and "did you mean crossing-central?" in info.value.message
    assert info.value.legal == every
    assert info.value.offer == [{"type": "reinforce", "unit": "95rd-90", "area": area}
                                for area in ("crossing-central", "crossing-skudri", "crossing-tractor")]
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "shift", "unit": "13gd-34", "to": "crossing-skudr"})
    assert (info.value.legal, info.value.offer) == (every, [{"type": "shift", "unit": "13gd-34", "to": area}
                                                           for area in ("crossing-skudri", "crossing-tractor")])
    rules = position(RULESET, {"turn": 1, "phase": "german-movement", "areas": {
        "aerodromny": {"control": "german", "units": ["71id-191", "10nkvd-272"]},
        "station-2": {"control": "german", "units": ["71id-194"]},
        "station-1": {"control": "german"}}})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "move", "unit": "71id-194", "to": "statoin-1"})
    assert info.value.legal == every
    assert info.value.offer == [o for o in RULESET.legal_orders(SCENARIO, rules, RULESET.next_step(SCENARIO, rules))
                                if o.get("unit") == "71id-194"] and len(info.value.offer) >= 2


def test_soviet_control_of_a_crossing_is_cited_as_house_8_3():
    rules = position(RULESET, {"turn": 2, "phase": "soviet-reinforcement", "pool": ["95rd-90"],
                               "areas": {"crossing-62": {"control": "german"},
                                         "crossing-central": {"control": "soviet", "units": ["13gd-34"]},
                                         "crossing-skudri": {"control": "soviet"}}})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "reinforce", "unit": "95rd-90", "area": "crossing-62"})
    assert info.value.rule == "house 8.3" and "(house 8.3)" in info.value.message
    assert "11.2" not in info.value.message
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "reinforce", "unit": "95rd-90", "area": "station-1"})
    assert info.value.rule == "11.2(2)" and "only on crossings" in info.value.message
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "shift", "unit": "13gd-34", "to": "crossing-62"})
    assert info.value.rule == "house 8.3" and "not controlled by the Soviet side" in info.value.message
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "shift", "unit": "13gd-34", "to": "station-1"})
    assert info.value.rule == "11.2(3)" and "not another crossing" in info.value.message


def test_11_3_black_counters_not_yet_placed_and_substitute_options():
    rules = position(RULESET, {"turn": 3, "phase": "soviet-combat", "pool": ["60md-160pz"],
                               "eliminated": ["29md-15mir"], "areas": {
        "minina": {"control": "german", "units": ["71id-191", "24pd-21pgr"]},
        "tractor-factory": {"control": "soviet", "units": ["2mrb"]}}})
    after, events = apply_one(rules, {"type": "end"})
    assert where(after, "60md-160pz") == "withdrawn"
    need = RULESET.next_step(SCENARIO, after)
    assert (need.kind, need.side, need.rule, need.decision) == ("substitute", "german",
                                                                "11.3(1)", True)
    assert RULESET.legal_orders(SCENARIO, after, need) == [{"type": "substitute", "unit": "24pd-21pgr"},
                                                 {"type": "substitute", "unit": "71id-191"}]
    with pytest.raises(IllegalOrder) as info:
        apply_one(after, {"type": "substitute", "unit": "2mrb"})
    assert info.value.rule == "11.3(1)"
    assert RULESET.policy(SCENARIO, after, need, {"withdrawal_substitute": "strongest"}) == {
        "type": "substitute", "unit": "71id-191"}


# ---- victory and the end of the game (house rule 9) -----------------------------------------

def test_sudden_death_when_germans_hold_every_crossing():
    rules = position(RULESET, {"turn": 2, "phase": "soviet-combat", "areas": {
        "crossing-tractor": {"control": "german", "units": ["71id-191"]},
        "crossing-62": {"control": "german"}, "crossing-skudri": {"control": "german"},
        "crossing-central": {"control": "german"},
        "station-1": {"control": "soviet", "units": ["10nkvd-272", "71id-194"]}}})
    after, events = apply_one(rules, {"type": "end"})
    assert RULESET.next_step(SCENARIO, after) is None
    assert after["result"]["winner"] == "german" and after["result"]["level"] == "sudden death"
    assert "sudden-death" in RULESET.summary(SCENARIO, after)["result"]


@pytest.mark.parametrize("held,winner", [   # house 9.1 (1.2.0): German 4 or more, Soviet 2 or less
    (["mamayev-kurgan", "tractor-factory", "barrikady", "krasny-oktyabr", "central-landing"],
     "german"),
    (["mamayev-kurgan", "station-1"], "german"),
    (["mamayev-kurgan"], None),
    (["tractor-factory"], "soviet"),
    ([], "soviet")])
def test_final_victory_levels(held, winner):
    rules = position(RULESET, {"turn": 6, "phase": "soviet-combat", "areas": {
        a: {"control": "german"} for a in held}})
    for a in rules["control"]:
        if a not in held:
            rules["control"][a] = "soviet"
    after, events = apply_one(rules, {"type": "end"})
    assert RULESET.next_step(SCENARIO, after) is None
    assert after["result"]["winner"] == winner
    over = [e for e in events if e["type"] == "game-over"][0]
    assert over["rule"] == "house 9.1" and over["house_rule"] is True
    assert "self-play" in over["reason"]


# ---- the contract: random legal play, policies, determinism, reports ------------------------

def random_game(seed: int, decide_by_policy: bool):
    rng = random.Random(seed)
    rules, events, steps = fresh(), [], 0
    while (need := RULESET.next_step(SCENARIO, rules)) is not None:
        legal = RULESET.legal_orders(SCENARIO, rules, need)
        assert legal
        if need.decision and decide_by_policy:
            order, chosen_by = RULESET.policy(SCENARIO, rules, need, dict(RULESET.default_policies)), "policy"
            assert order in legal
        else:
            actions = [o for o in legal if o["type"] != "end"]
            order = rng.choice(actions) if actions and rng.random() < 0.9 else rng.choice(legal)
            chosen_by = "order"
        for o in (legal if steps % 40 == 0 else [order]):
            assert not list(ORDER_VALIDATOR.iter_errors(o)), o
        trial = copy.deepcopy(rules)
        ctx = ScriptedContext([rng.randint(1, 6) for _ in range(2)], 0, chosen_by)
        RULESET.apply(SCENARIO, trial, need, order, ctx)
        rules = trial
        events += ctx.events
        steps += 1
        assert steps < 5000
    return rules, events


def test_random_legal_game_terminates_with_a_result():
    rules, events = random_game(7, decide_by_policy=True)
    assert json_like(rules)
    s = RULESET.summary(SCENARIO, rules)
    assert s["result"] and s["turn"] == SCENARIO.last_turn or rules["result"]["level"] == "sudden death"
    for e in events:
        rule = e.get("rule") or ""
        assert (e.get("house_rule") is True) == rule.startswith("house"), e
        assert e["text"].endswith(".") or e["type"] == "roll"
        assert not rule or f"({rule})" in e["text"], e   # the report names the rule it applies
    assert {e["type"] for e in events} >= {"phase", "move", "combat", "reinforce", "withdraw"}


def test_random_game_is_deterministic():
    a, ea = random_game(3, decide_by_policy=False)
    b, eb = random_game(3, decide_by_policy=True)
    a2, ea2 = random_game(3, decide_by_policy=False)
    assert json.dumps(a, sort_keys=True) == json.dumps(a2, sort_keys=True) and ea == ea2


def test_policy_answers_only_decisions():
    rules = fresh()
    assert RULESET.policy(SCENARIO, rules, RULESET.next_step(SCENARIO, rules), {}) is None


def test_wrong_need_is_refused():
    rules = fresh()
    bogus = Need("soviet", "soviet-movement", "", ("move", "end"), "house 5")
    with pytest.raises(IllegalOrder):
        RULESET.apply(SCENARIO, copy.deepcopy(rules), bogus, {"type": "end"}, ScriptedContext([], 0, "order"))


def test_render_and_describe_need():
    rules = fresh()
    text = RULESET.render(SCENARIO, rules)
    assert "mamayev-kurgan - Mamayev Kurgan (Hill 102.0) [soviet, cover 1, 3 VP]" in text
    assert "60md-160pz*" in text and "crossing-62" in text
    lines = RULESET.describe_need(SCENARIO, rules, RULESET.next_step(SCENARIO, rules))
    assert any("24pd-26pgr" in line for line in lines)
    rules, _ = apply_one(rules, {"type": "end"})
    lines = RULESET.describe_need(SCENARIO, rules, RULESET.next_step(SCENARIO, rules))
    assert any(line.startswith("71id-191 in aerodromny: may move to") for line in lines)


def test_11_2_3_a_unit_retreated_onto_a_crossing_may_shift_the_next_turn():
    rules = position(RULESET, {"turn": 2, "phase": "soviet-combat", "areas": {
        "crossing-62": {"control": "soviet", "units": ["13gd-34"]},
        "crossing-central": {"control": "soviet"},
        "mamayev-kurgan": {"control": "soviet", "units": ["71id-191", "112rd-416"]}},
        "crossing_arrivals": ["13gd-34"]})   # it retreated there this turn (10.3)
    assert rules["crossing_arrivals"] == ["13gd-34"]
    with pytest.raises(ValueError):
        position(RULESET, {"areas": {"mamayev-kurgan": {"units": ["112rd-416"]}},
                           "crossing_arrivals": ["112rd-416"]})
    after, _ = play(RULESET, rules, {"soviet": [{"type": "end"}]}, [])
    assert "crossing_arrivals" not in after and after["turn"] == 3
    after["phase"], after["phase_state"] = "soviet-reinforcement", {"open": True}
    legal = RULESET.legal_orders(SCENARIO, after, RULESET.next_step(SCENARIO, after))
    assert {"type": "shift", "unit": "13gd-34", "to": "crossing-central"} in legal


def test_the_need_of_a_phase_kept_between_asks_is_the_one_made_anew():
    """The flow keeps the need of a phase in a turn once made (it is asked several times a
    step): asked again, it is the need made anew with nothing kept, for every phase and turn,
    and for a turn that is no integer (which a dict would take for 1) what the rules say then."""
    from pbem.rulesets.stalingrad import flow

    sc, rules = SCENARIO, fresh()
    asked: dict = {}
    for _ in range(2):     # the second time round, every need is one kept
        for turn in (1, 2, 5):
            for phase in flow.PHASES + (flow.WITHDRAWAL,):
                rules.update(phase=phase, turn=turn, phase_state={})
                asked.setdefault((phase, turn), []).append(flow.next_step(sc, rules))
    flow._PHASE_NEED.clear()
    for (phase, turn), needs in asked.items():
        rules.update(phase=phase, turn=turn, phase_state={})
        made = flow.next_step(sc, rules)
        assert needs == [made, made] and made.prompt.startswith(f"Turn {turn}, ") and made.side == phase.split("-")[0]
    assert len({made.prompt for made in flow._PHASE_NEED.values()}) == len(asked) == 21
    rules.update(phase="german-movement", turn=1)
    flow.next_step(sc, rules)
    rules["turn"] = True
    assert flow.next_step(sc, rules).prompt.startswith("Turn True, ")


def test_a_units_moves_counted_around_it_alone_are_those_the_whole_map_counted_gives():
    """`targets` of one unit counts the units of its area and the areas next to it only (an
    order checked): for every unit on the map in every state of the example game, the areas it
    may move to are those the occupancy of the whole map gives."""
    from pbem.core import game
    from pbem.core.canonical import load_mapping
    from pbem.rulesets.stalingrad import areas, movement

    folder = ROOT / "examples" / "stalingrad-demo"
    sc = game.open_genesis(load_mapping(folder / "game.yaml"), kept=False).scenario
    checked = 0
    for path in sorted((folder / "states").glob("*.yaml")):
        rules = load_mapping(path)["rules"]
        occ = areas.occupancy(sc, rules)
        for uid in areas.side_units(sc, rules, "german", "map") + areas.side_units(sc, rules, "soviet", "map"):
            assert movement.targets(sc, rules, uid) == movement.targets(sc, rules, uid, occ), (path.name, uid)
            checked += 1
    assert checked > 500
