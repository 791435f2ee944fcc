"""A rules probe of stalingrad (1.9.0): where a unit can retreat, as the standing orders see
it, counts the stacking limit as the retreat itself does (10.3(2)); a move refused for
stacking says so (house 5.3); the words of the stacking events, of the withdrawal prompt
and of the loss question; the reading of 10.3(1)-(2) for a full area ranked first."""

from __future__ import annotations

import copy

import pytest

from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.stalingrad import RULESET, retreat
from pbem.rulesets.stalingrad.combat import _allocation_rank
from tests.stalingrad_driver import ScriptedContext, play, position, scenario

SC = scenario(RULESET)

# ten German units: a full area (10.3(2), house 2.2)
TEN = ["71id-194", "71id-211", "71id-pi171", "24pd-24pzr", "295id-516", "295id-517",
       "295id-518", "94id-267", "24pd-26pgr", "14pd-36pzr"]
TEN_MORE = ["94id-274", "100jd-54", "100jd-227", "389id-545", "389id-546", "305id-576",
            "305id-577", "305id-578", "pi-45", "79id-208"]
ATTACK = {"soviet": [{"type": "attack", "area": "station-1"}]}
BOT = RULESET.bot.policies["german"]   # the bots answer their decisions by these standing orders


def apply_one(rules: dict, order: dict):
    need = RULESET.next_step(SC, rules)
    trial = copy.deepcopy(rules)
    ctx = ScriptedContext([], 0, "order")
    RULESET.apply(SC, trial, need, order, ctx)
    return trial, ctx.events


def allocations(events: list[dict]) -> list[str]:
    return [e["unit"] for e in events if e["type"] == "allocate"]


def texts(events: list[dict], kind: str) -> list[str]:
    return [e["text"] for e in events if e["type"] == kind]


def reduced(rules: dict, uid: str) -> bool:
    assert rules["units"][uid] not in ("pool", "eliminated", "withdrawn"), uid
    return uid in rules["reduced"]


# ---- 1. save-units: "nowhere to retreat" counts the stacking limit (10.3(2)) -------------------

def station_1_fight(razgulyayevka: str = "soviet") -> dict:
    """Two full German units (strength 3 each) and three Soviet units in Railway Station No. 1.
    The only area the Germans may retreat to is Aerodromny (own, no enemy units, 10 German units:
    full); one area further, Mamayev Kurgan and Station No. 2 are Soviet with Soviet units, and
    Razgulyayevka is Soviet-held (`razgulyayevka="soviet"`) or German and empty (`"german"`)."""
    areas = {
        "station-1": {"control": "soviet", "units": ["24pd-21pgr", "389id-544", "10nkvd-272", "10nkvd-269",
                                                      "10nkvd-271"]},
        "aerodromny": {"control": "german", "units": TEN},
        "fallen-fighters": {"control": "soviet", "units": ["10nkvd-270"]},
        "mamayev-kurgan": {"control": "soviet", "units": ["112rd-416"]},
        "dolgiy-ravine": {"control": "soviet", "units": ["42rb"]},
        "january-9-square": {"control": "soviet", "units": ["112rd-524"]},
        "station-2": {"control": "soviet", "units": ["115rb"]},
        "razgulyayevka": ({"control": "soviet", "units": ["112rd-385"]} if razgulyayevka == "soviet"
                          else {"control": "german"}),
    }
    return position(RULESET, {"turn": 2, "phase": "soviet-combat", "cards": {"german": 0, "soviet": 0},
                              "areas": areas})


def test_save_units_spreads_the_points_where_the_only_retreat_is_full_and_nothing_beyond_takes_a_unit():
    """The Soviet strength 6 rolls 6: 2 loss points on the Germans. A second point on a full unit
    that must retreat into a full area with no area beyond it eliminates it (10.3(2)): the owner's
    default `save-units` puts one point on each unit, two steps and no unit lost (1.8.0 put both
    on 24pd-21pgr, which retreated into Aerodromny and was eliminated). The bots do the same."""
    rules = station_1_fight()
    for policies in (None, {"german": BOT}):
        after, events = play(RULESET, rules, ATTACK, [6, 1], policies)
        assert allocations(events) == ["24pd-21pgr", "389id-544"]
        assert [e["allocator"] for e in events if e["type"] == "allocate"] == ["german", "german"]
        assert (after["units"]["24pd-21pgr"], after["units"]["389id-544"]) == ("station-1", "station-1")
        assert reduced(after, "24pd-21pgr") and reduced(after, "389id-544")
        assert not [e for e in events if e["type"] in ("eliminated", "retreat", "overstack")]
        assert "eliminated" not in after["units"].values()
        assert after["control"]["station-1"] == "soviet" and "combat" not in after
    assert retreat.candidates(SC, rules, "24pd-21pgr", "station-1", [], False) == ["aerodromny"]
    assert not retreat.can_retreat(SC, rules, "24pd-21pgr")


def test_save_units_still_concentrates_the_points_where_the_full_area_lets_the_unit_go_one_further():
    """As above, but Razgulyayevka (beyond Aerodromny) is German and empty: the unit retreats
    through the full Aerodromny into it (10.3(2)), so a second point costs a retreat, not the unit,
    and `save-units` puts both points on one unit (a step and a retreat), sparing the other."""
    rules = station_1_fight(razgulyayevka="german")
    after, events = play(RULESET, rules, ATTACK, [6, 1])
    assert allocations(events) == ["24pd-21pgr", "24pd-21pgr"]
    assert after["units"]["24pd-21pgr"] == "razgulyayevka" and reduced(after, "24pd-21pgr")
    assert after["units"]["389id-544"] == "station-1" and not reduced(after, "389id-544")
    assert texts(events, "retreat") == [
        "21st Panzergrenadier Regiment (24th Pz.) (24pd-21pgr) retreats from Railway Station No. 1 through "
        "Aerodromny settlement to Razgulyayevka station (10.3(2))."]
    # and where nothing takes it, the same two points go one on each (the test above)
    after, events = play(RULESET, station_1_fight(), ATTACK, [6, 1])
    assert allocations(events) == ["24pd-21pgr", "389id-544"]
    assert retreat.can_retreat(SC, rules, "24pd-21pgr") and not retreat.can_retreat(SC, station_1_fight(), "24pd-21pgr")


def test_a_card_players_kill_units_counts_the_full_area_as_nowhere_to_retreat():
    """The Soviet card player's default `kill-units`: the points that eliminate a unit first. With
    Aerodromny full and nothing beyond it, a second point on 24pd-21pgr eliminates it (10.3(2)),
    so it goes there, and the unit dies; where Razgulyayevka takes it, the second point is a
    retreat (the allocation is the same, the unit lives)."""
    cards = {"german": 0, "soviet": 1}
    rules = station_1_fight()
    rules["cards"] = cards
    after, events = play(RULESET, rules, ATTACK, [6, 1])
    assert allocations(events) == ["24pd-21pgr", "24pd-21pgr"] and after["cards"]["soviet"] == 0
    assert {e["allocator"] for e in events if e["type"] == "allocate"} == {"soviet"}
    assert after["units"]["24pd-21pgr"] == "eliminated"
    assert texts(events, "eliminated") == [
        "21st Panzergrenadier Regiment (24th Pz.) (24pd-21pgr) cannot retreat from Railway Station No. 1: "
        "Aerodromny settlement is at the stacking limit and no area beyond it can take it; it goes to the "
        "eliminated-units box (10.3(2))."]
    # 1.8.0 saw a retreat there, so the rank of the second point was a hit unit's, not a kill's
    c = {"area": "station-1", "attacker": "soviet", "loss": {"german": 2, "soviet": 0},
         "stage": "losses-defender", "cards": {"soviet": True}, "alloc": {"24pd-21pgr": 1}, "to_allocate": 1}
    assert _allocation_rank(SC, rules, c, "24pd-21pgr", "kill-units") == (0, -3)
    assert _allocation_rank(SC, rules, c, "24pd-21pgr", "save-units") == (2, 3)
    assert _allocation_rank(SC, rules, c, "389id-544", "save-units") == (1, 3)


def test_engine_priority_sends_a_unit_to_the_full_tied_area_it_can_leave_one_further():
    """10.3(1): Aerodromny and Dolgiy ravine, both German, without Soviet units and full, tie; the
    German player decides. From Aerodromny nothing takes the unit (its neighbours are Soviet-held);
    from Dolgiy ravine, Banny ravine (German, empty) does. The default `engine-priority` picks
    Dolgiy ravine (1.8.0 took the lowest id, Aerodromny, and the unit was eliminated); so a unit
    counted as able to retreat (save-units) does retreat."""
    areas = {
        "station-1": {"control": "soviet", "units": ["24pd-21pgr", "10nkvd-272", "10nkvd-269"]},
        "aerodromny": {"control": "german", "units": TEN},
        "dolgiy-ravine": {"control": "german", "units": TEN_MORE},
        "banny-ravine": {"control": "german"},
        "mamayev-kurgan": {"control": "soviet", "units": ["112rd-416"]},
        "razgulyayevka": {"control": "soviet", "units": ["112rd-385"]},
        "station-2": {"control": "soviet", "units": ["115rb"]},
        "january-9-square": {"control": "soviet", "units": ["10nkvd-270"]},
        "fallen-fighters": {"control": "soviet", "units": ["10nkvd-271"]},
        "crossing-skudri": {"control": "soviet", "units": ["42rb"]},
    }
    rules = position(RULESET, {"turn": 2, "phase": "soviet-combat", "cards": {"german": 0, "soviet": 0},
                               "areas": areas})
    assert retreat.candidates(SC, rules, "24pd-21pgr", "station-1", [], False) == ["aerodromny", "dolgiy-ravine"]
    after, events = play(RULESET, rules, ATTACK, [6, 1])   # strength 4 rolls 6: 2 points, a step and a retreat
    assert after["units"]["24pd-21pgr"] == "banny-ravine" and reduced(after, "24pd-21pgr")
    assert texts(events, "retreat-choice") == [
        "The German side picks Dolgiy and Krutoy ravines for 24pd-21pgr by standing order retreat_tie (10.3(1))."]
    assert texts(events, "overstack") == [
        "Dolgiy and Krutoy ravines already holds 10 German units, so 24pd-21pgr may retreat one area further "
        "(10.3(2))."]
    assert texts(events, "retreat") == [
        "21st Panzergrenadier Regiment (24th Pz.) (24pd-21pgr) retreats from Railway Station No. 1 through "
        "Dolgiy and Krutoy ravines to Banny ravine (10.3(2))."]
    # `lowest-id` is the player's own choice: Aerodromny, and the unit is lost
    after, _ = play(RULESET, rules, ATTACK, [6, 1], {"german": {"retreat_tie": "lowest-id"}})
    assert after["units"]["24pd-21pgr"] == "eliminated"
    assert retreat.can_retreat(SC, rules, "24pd-21pgr")


# ---- 2. a move refused for stacking cites stacking (house 5.3) ---------------------------------

def test_an_engaged_unit_refused_a_full_own_area_is_told_of_the_stacking_limit():
    rules = position(RULESET, {"turn": 1, "phase": "german-movement", "areas": {
        "station-1": {"control": "german", "units": ["71id-191", "10nkvd-272"]},
        "aerodromny": {"control": "german", "units": TEN}}})
    def refusal(to: str) -> tuple[str, str]:
        with pytest.raises(IllegalOrder) as info:
            apply_one(rules, {"type": "move", "unit": "71id-191", "to": to})
        return info.value.rule, info.value.message

    assert refusal("aerodromny") == ("house 5.3", (
        "aerodromny already holds 10 German units, the stacking limit of "
        "10.3(2), which applies to movement too (house 5.3); 71id-191 may move to: none."))
    # an area house 5.2 bars (Soviet-controlled) is still refused under house 5.2
    assert refusal("mamayev-kurgan") == ("house 5.2", (
        "71id-191 starts in station-1 with enemy units and may only "
        "move to an area its side controls without enemy units (house 5.2); 71id-191 may move to: none."))
    # and the template names it among the units that cannot move, and why (a players' probe: the
    # list left out engaged units that could not move, and a player went looking for them)
    lines = RULESET.describe_need(SC, rules, RULESET.next_step(SC, rules))
    assert "71id-191 in station-1, engaged: cannot move (house 5.3: aerodromny is full)" in lines
    rules["control"]["aerodromny"] = "soviet"
    lines = RULESET.describe_need(SC, rules, RULESET.next_step(SC, rules))
    assert "71id-191 in station-1, engaged: cannot move (house 5.2: no adjacent area of its side without enemy " \
           "units)" in lines


def test_a_placement_refused_for_stacking_names_the_side_as_players_do():
    rules = position(RULESET, {"turn": 2, "phase": "german-reinforcement", "pool": ["100jd-54"],
                               "areas": {"station-2": {"control": "german", "units": TEN}}})
    with pytest.raises(IllegalOrder) as info:
        apply_one(rules, {"type": "reinforce", "unit": "100jd-54", "area": "station-2"})
    assert info.value.rule == "house 8.2"
    assert info.value.message.startswith(
        "station-2 already holds 10 German units (the stacking limit "
        "of 10.3(2), applied to placement) (house 8.2); legal areas: ")


# ---- 3. words: the stacking events, the loss question, the withdrawal prompt --------------------

def test_the_events_of_a_full_area_name_the_side_and_say_at_the_limit():
    """10.3(1) ranks Aerodromny (German, no Soviet units, full) first; nothing beyond takes the unit."""
    rules = station_1_fight()
    after, events = play(RULESET, rules, ATTACK, [6, 1], {"german": {"allocate_own_losses": "lowest-id"}})
    assert allocations(events) == ["24pd-21pgr", "24pd-21pgr"] and after["units"]["24pd-21pgr"] == "eliminated"
    assert texts(events, "overstack") == [
        "Aerodromny settlement already holds 10 German units, so 24pd-21pgr may retreat one area further "
        "(10.3(2))."]
    assert texts(events, "eliminated") == [
        "21st Panzergrenadier Regiment (24th Pz.) (24pd-21pgr) cannot retreat from Railway Station No. 1: "
        "Aerodromny settlement is at the stacking limit and no area beyond it can take it; it goes to the "
        "eliminated-units box (10.3(2))."]
    overstack = [e for e in events if e["type"] == "overstack"][0]
    assert (overstack["side"], overstack["area"], overstack["rule"]) == ("german", "aerodromny", "10.3(2)")


def test_the_loss_question_names_the_side_as_players_do():
    """The question of house 6.4 names the suffering side as `status` writes it (it read "on a
    german unit")."""
    after, _ = play(RULESET, station_1_fight(), ATTACK, [6, 1], max_steps=1)   # the attack alone
    need = RULESET.next_step(SC, after)
    assert (need.side, need.kind, need.rule) == ("german", "allocate-loss", "house 6.4")
    assert need.prompt == "Put one of 2 loss points on a German unit in station-1."


def test_the_withdrawal_prompt_names_the_reinforcements_still_waiting():
    """House 8.1: reinforcements not placed wait; in the withdrawal phase the German places the
    turn-4 units and any earlier ones still waiting (here 24pd-26pgr, of turn 1)."""
    rules = position(RULESET, {"turn": 3, "phase": "german-withdrawal", "pool": ["305id-576", "24pd-26pgr"],
                               "areas": {"mechetka": {"control": "german", "units": ["71id-191"]}}})
    need = RULESET.next_step(SC, rules)
    assert need.prompt == (
        "Turn 3, German withdrawal phase (11.3): black counters have left (11.3); place the turn-4 "
        "reinforcements, and earlier ones still waiting (house 8.1), in German-controlled areas (11.3(3)), "
        "then end.")
    placed = {o["unit"] for o in RULESET.legal_orders(SC, rules, need) if o["type"] == "reinforce"}
    assert placed == {"305id-576", "24pd-26pgr"}
    after, events = apply_one(rules, {"type": "reinforce", "unit": "24pd-26pgr", "area": "mechetka"})
    assert after["units"]["24pd-26pgr"] == "mechetka"


# ---- 4. 10.3(1)-(2): the area ranked first is the one the unit must retreat to -------------------

def test_a_full_own_area_ranked_first_is_where_the_unit_must_go_though_another_own_area_has_room():
    """10.3(1) puts own-controlled areas first, the one with the fewest enemy units first:
    Aerodromny (German, no Soviet units, full) before Square of the Fallen Fighters (German, one
    Soviet unit, room). The stacking limit does not enter that ranking: the unit must retreat to
    Aerodromny (10.3(2)); nothing beyond it takes the unit, so it is eliminated, although the
    Square had room (README, house clarifications)."""
    rules = position(RULESET, {"turn": 2, "phase": "soviet-combat", "cards": {"german": 0, "soviet": 0}, "areas": {
        "station-1": {"control": "soviet", "units": ["24pd-21pgr", "10nkvd-272", "10nkvd-269"]},
        "aerodromny": {"control": "german", "units": TEN},
        "fallen-fighters": {"control": "german", "units": ["71id-191", "10nkvd-271"]},
        "mamayev-kurgan": {"control": "soviet", "units": ["112rd-416"]},
        "dolgiy-ravine": {"control": "soviet", "units": ["42rb"]},
        "january-9-square": {"control": "soviet", "units": ["10nkvd-270"]},
        "razgulyayevka": {"control": "soviet", "units": ["112rd-385"]},
        "station-2": {"control": "soviet", "units": ["112rd-524"]}}})
    assert retreat.candidates(SC, rules, "24pd-21pgr", "station-1", [], False) == ["aerodromny"]
    assert retreat.candidates(SC, rules, "24pd-21pgr", "station-1", [], True) == ["fallen-fighters"]
    after, events = play(RULESET, rules, ATTACK, [6, 1])   # strength 4 rolls 6: 2 points on the one unit
    assert allocations(events) == ["24pd-21pgr"] and [e["points"] for e in events if e["type"] == "allocate"] == [2]
    assert after["units"]["24pd-21pgr"] == "eliminated"
    assert after["units"]["71id-191"] == "fallen-fighters" and after["units"]["10nkvd-271"] == "fallen-fighters"
    assert [(e["type"], e.get("rule")) for e in events if e["type"] in ("overstack", "eliminated", "retreat")] == [
        ("overstack", "10.3(2)"), ("eliminated", "10.3(2)")]
    assert texts(events, "eliminated") == [
        "21st Panzergrenadier Regiment (24th Pz.) (24pd-21pgr) cannot retreat from Railway Station No. 1: "
        "Aerodromny settlement is at the stacking limit and no area beyond it can take it; it goes to the "
        "eliminated-units box (10.3(2))."]
    assert not retreat.can_retreat(SC, rules, "24pd-21pgr")
