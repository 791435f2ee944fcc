"""Unit tests of the chir rules, each with exact outcomes (rule sections in the names)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache

import pytest

from pbem.core.canonical import load_mapping
from pbem.core.geometry.hexgrid import HexIdFormat, HexMap
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.chir import RULESET, artillery, board as bd, combat, movement, retreat, setup, victory

from pbem.rulesets.chir import state as st

SCENARIO = RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options))


def next_step(rules: dict):
    return RULESET.next_step(SCENARIO, rules)


@lru_cache(maxsize=1)
def _doc() -> str:
    return json.dumps(RULESET.scenarios["historical"]())


def position(units: dict, phase: str = "movement", player: str = "soviet", turn: int = 1, **extra) -> dict:
    doc = json.loads(_doc())
    doc["position"] = {"turn": turn, "player": player, "phase": phase, "units": units, **extra}
    return RULESET.setup(RULESET.scenario(doc, dict(RULESET.options)))


class Ctx:
    def __init__(self, dice=(), chosen_by="order"):
        self.dice = list(dice)
        self.events: list[dict] = []
        self.chosen_by = chosen_by

    def d6(self, label: str) -> int:
        return self.dice.pop(0)

    def event(self, type: str, text: str, **fields) -> None:
        self.events.append({"type": type, "text": text, **fields})

    def of(self, type_: str) -> list[dict]:
        return [e for e in self.events if e["type"] == type_]


def play(rules: dict, order: dict, dice=(), chosen_by="order") -> Ctx:
    ctx = Ctx(dice, chosen_by)
    RULESET.apply(SCENARIO, rules, next_step(rules), order, ctx)
    return ctx


# --- the record --------------------------------------------------------------------------------

def test_ruleset_record_and_schemas():
    assert RULESET.id == "chir" and RULESET.sides == ("german", "soviet")
    assert RULESET.default_policies["on_void"] == "stop"
    with open("schemas/chir-orders.schema.json", encoding="utf-8") as fh:
        assert json.load(fh) == RULESET.order_schema
    assert RULESET.options == {"never_soviet_city_multiplier": False, "line_never_cut": False}


def test_state_is_json_like_without_floats():
    rules = RULESET.setup(RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options)))

    def walk(x):
        assert not isinstance(x, (float, tuple, set))
        if isinstance(x, dict):
            assert all(isinstance(k, str) for k in x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(rules)


def test_state_keeps_only_what_play_changes():
    """What the genesis fixes (board, options, last turn, the fixed attributes of units) is the
    scenario's; a unit in the state is where it is, and its strength, markers and MP used only
    where they differ from the default."""
    rules = position({"11Pz/15a": {"hex": "2520", "strength": 3, "markers": ["half"]}, "LW/I": {"hex": "3320"},
                      "8GT/a": "pool", "CC/21b": {"status": "gone"}})
    assert set(rules) == {"turn", "player", "phase", "units", "strength", "markers", "moved", "exit_vp", "control",
                          "ever_soviet", "loc_ever_cut", "ps", "attack", "removal", "result"}
    assert (rules["units"]["11Pz/15a"], rules["units"]["LW/I"], rules["units"]["8GT/a"], rules["units"]["CC/21b"],
            rules["units"]["Ob/I"]) == ("2520", "3320", "pool", "gone", "out")
    assert rules["strength"] == {"11Pz/15a": 3}
    assert {name: ids for name, ids in rules["markers"].items() if ids} == {"half": ["11Pz/15a"]}
    assert rules["moved"] == {} and rules["exit_vp"] == {} and rules["control"] == {"german": [], "soviet": []}


def _plain(x):
    """The scenario object's contents as plain data, to compare two moments of it."""
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted(_plain(v) for v in x)
    if hasattr(x, "__dict__"):
        return {k: _plain(v) for k, v in sorted(vars(x).items())}
    return x


def test_play_never_changes_the_scenario():
    """The core builds the scenario once and every game with it shares it (DESIGN §4.2)."""
    scenario = RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options))
    before = json.dumps(_plain(scenario), sort_keys=True)
    rules = RULESET.setup(scenario)
    for step in range(400):  # set-up, then attacks and moves, with every decision by standing order
        need = RULESET.next_step(scenario, rules)
        order = RULESET.policy(scenario, rules, need, dict(RULESET.default_policies)) if need.decision else None
        if order is None:
            options = RULESET.legal_orders(scenario, rules, need)
            order = options[(step * 7) % len(options)] if need.kind != "setup" else options[-1]
        RULESET.apply(scenario, rules, need, order, Ctx(dice=[3] * 50))
        RULESET.summary(scenario, rules)
    assert rules["turn"] > 1
    assert json.dumps(_plain(scenario), sort_keys=True) == before


def test_control_is_kept_as_runs_of_hexes_in_id_order():
    """3.3's first clause where it differs from the start, as the shortest list of runs."""
    rules = position({})
    for h in ("1637", "1639", "1638", "1043", "1044", "1101", "2832"):
        st.record(SCENARIO, rules, h, "soviet")
    assert rules["control"] == {"german": [], "soviet": ["1043-1101", "1637-1639"]}  # 2832 is Soviet at the start
    st.record(SCENARIO, rules, "1638", "german")
    st.record(SCENARIO, rules, "2832", "german")
    assert rules["control"] == {"german": ["2832"], "soviet": ["1043-1101", "1637", "1639"]}
    first = st.recorded(SCENARIO, rules)
    assert [first(h) for h in ("1044", "1638", "1639", "2832", "2833")] == ["soviet", "german", "soviet", "german",
                                                                              "german"]


# --- 3.x set-up ----------------------------------------------------------------------------------

def test_3_setup_by_end_is_the_default_placement_legal_and_complete():
    rules = RULESET.setup(RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options)))
    need = next_step(rules)
    # a phase, not a decision: no standing order sets up before the player's own packet
    assert (need.side, need.kind, need.decision) == ("german", "setup", False)
    assert RULESET.policy(SCENARIO, rules, need, dict(RULESET.default_policies)) is None
    play(rules, {"type": "end"})
    assert (next_step(rules).side, next_step(rules).kind) == ("soviet", "setup")
    play(rules, {"type": "end"})
    assert (rules["turn"], rules["player"], rules["phase"]) == (1, "soviet", "attack")
    placed = [u for u in rules["units"] if st.status(rules, u) == "map"]
    assert not [u for u in rules["units"] if st.status(rules, u) in ("setup", "out")]
    for h, us in bd.stacks(SCENARIO, rules).items():
        assert bd.stacking_ok(SCENARIO, us), h
    assert st.hex_of(rules, "GCC/32C") == "2832" and len(placed) > 80


def fresh() -> dict:
    return RULESET.setup(RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options)))


def refusal(rules: dict, order: dict) -> tuple[str, str]:
    """The rule and message of an illegal order, tried on a copy (the core throws away the
    copy an illegal order was applied to)."""
    with pytest.raises(IllegalOrder) as info:
        play(json.loads(json.dumps(rules)), order)
    return info.value.rule, info.value.message


def test_3_2_infantry_only_on_front_and_3107_not_behind_front_A():
    rules = fresh()
    assert setup.placement_error(SCENARIO, rules, "Ob/I", "3201") is None
    assert setup.placement_error(SCENARIO, rules, "Ob/I", "3105") == (
        "3.2", "infantry of group A sets up on its front hexes: 3201, 3202, 3203, 3204, 3205, 3206")
    assert setup.placement_error(SCENARIO, rules, "Ob/Art", "3105") is None  # south of the front
    assert setup.placement_error(SCENARIO, rules, "Ob/Art", "3107") == (  # 3.2's example
        "3.2", "Ob/Art sets up on the front of group A or south or west of it: no hex of that front has 3107 "
        "straight south or west of it in its column or row")
    assert setup.placement_error(SCENARIO, rules, "Ob/Flak", "3105") is None  # anti-aircraft exception
    assert refusal(rules, {"type": "place", "unit": "Ob/I", "hex": "3105"})[0] == "3.2"


@pytest.mark.parametrize("hex_, group", [(f"33{r:02d}", "A") for r in range(1, 8)] + [("3308", "B")])
def test_3_2_german_non_infantry_never_on_the_soviet_front_across_the_chir(hex_, group):
    rules = fresh()
    assert refusal(rules, {"type": "place", "unit": "Art/I", "hex": hex_}) == (
        "3.2", f"place Art/I in {hex_}: {hex_} is on the front of Soviet group {group}: German units set up only on "
        "their own front or behind it")


@pytest.mark.parametrize("typed, meant", [("LW/1", "LW/I"), ("lw/i", "LW/I"), ("A/l", "A/I")])
def test_3_0_a_mistyped_unit_in_the_set_up_names_the_unit_most_likely_meant(typed, meant):
    """A players' probe: `place` answered a typo with "not a german unit waiting to be set up"
    and a list cut short, where other orders say which unit was most likely meant."""
    assert refusal(fresh(), {"type": "place", "unit": typed, "hex": "3201"}) == (
        "3.0", f"place {typed}: there is no unit {typed} (did you mean {meant}?)")


def test_3_2_a_unit_behind_its_front_stays_on_its_bank_of_the_chir():
    rules = fresh()
    assert setup.placement_error(SCENARIO, rules, "Art/I", "3401") == (
        "3.2", "Art/I sets up on the front of group B or south or west of it: 3401 is across the Chir from 3410")
    assert setup.placement_error(SCENARIO, rules, "LW/ArtI", "2820") == (
        "3.2", "2820 is in the Soviet set-up area of group C, D (3.3): German units set up only on their own front "
        "or behind it")
    assert setup.placement_error(SCENARIO, rules, "Art/I", "3108") is None
    # the nearest front hex in line is named: 2030, next to 1930, not 2730 further along row 30
    assert setup.placement_error(SCENARIO, rules, "Art/III", "1930") == (
        "3.2", "Art/III sets up on the front of group E or south or west of it: 1930 is across the Chir from 2030")


def test_3_2_3_3_german_artillery_offered_no_soviet_hex_and_front_a_stays_soviet():
    """Before, the template offered German group B's artillery 3308 across the Chir (and 3.2
    let it take 3301-3308), leaving the Soviet regiments of front A without a hex."""
    rules = fresh()
    offered = [o["hex"] for o in RULESET.legal_orders(SCENARIO, rules, next_step(rules)) if o.get("unit") == "Art/I"]
    assert offered == ["3207", "3208", "3309", "3310", "3410", "3411", "3412", "3513", "3514", "3515", "3615", "3616",
                       "3717", "3817", "3818", "3719", "3107", "3108", "3206", "3109", "3209", "3210", "3311", "3312",
                       "3313", "3413", "3414", "3415", "3516", "3517", "3617", "3718", "3618", "3619"]
    play(rules, {"type": "place", "unit": "Art/I", "hex": "3309"})
    play(rules, {"type": "end"})
    play(rules, {"type": "end"})
    soviet_a = {u: st.hex_of(rules, u) for u, x in SCENARIO.units.items() if x.side == "soviet" and x.setup == "A"}
    assert soviet_a == {"CC/112a": "3301", "CC/21a": "3302", "CC/21b": "3303", "CC/55a": "3304", "CC/55b": "3305",
                        "CC/Art": "3401"}


@pytest.mark.parametrize("uid, hex_, message", [
    ("258/Art", "2541", "2541 is on the front of German group E: Soviet units set up only on their own front or "
     "behind it"),
    ("119/Art", "3410", "3410 is on the front of German group B: Soviet units set up only on their own front or "
     "behind it"),
    ("119/Art", "3409", "Soviet non-infantry never sets up on front hexes, and 3409 is one"),
    ("333/Art", "4020", "333/Art sets up north or east of the front of group D: 4020 is across the Chir from 3720"),
    ("258/Art", "2943", "258/Art sets up north or east of the front of group F: 2943 is across the Don from 2843"),
])
def test_3_3_soviet_non_infantry_only_north_or_east_of_its_front_on_its_bank(uid, hex_, message):
    rules = fresh()
    play(rules, {"type": "end"})
    assert refusal(rules, {"type": "place", "unit": uid, "hex": hex_}) == ("3.3", f"place {uid} in {hex_}: {message}")


@pytest.mark.parametrize("uids, hex_, expected", [
    (["Sch/I", "Sch/II", "St/I", "St/II"], "3207", ("6.1", "place St/II in 3207: St/II would break the stacking "
                                                    "limit in 3207 with Sch/I, Sch/II, St/I")),
    (["1TC/117a", "1TC/117b", "26TC/19"], "2820", ("6.2", "place 26TC/19 in 2820: 26TC/19 would break the stacking "
                                                   "limit in 2820 with 1TC/117a, 1TC/117b")),
    (["GCC/5GCa", "GCC/5GCb"], "3232", ("6.3", "place GCC/5GCb in 3232: GCC/5GCb would break the stacking limit in "
                                        "3232 with GCC/5GCa")),
])
def test_3_0_stacking_at_set_up_cites_6_1_to_6_3(uids, hex_, expected):
    rules = fresh()
    if SCENARIO.units[uids[0]].side == "soviet":
        play(rules, {"type": "end"})
    for uid in uids[:-1]:
        play(rules, {"type": "place", "unit": uid, "hex": hex_})
    assert refusal(rules, {"type": "place", "unit": uids[-1], "hex": hex_}) == expected


def test_3_set_up_options_and_default_placement_of_every_group_keep_to_its_side():
    """Each option the template offers, and each unit the default placement sets up, is on the
    unit's own front or behind it (3.2, 3.3), or on its special placement, and never on a hex
    of the enemy's set-up."""
    rules = fresh()
    b = SCENARIO
    for side in ("german", "soviet"):
        offered = [o for o in RULESET.legal_orders(SCENARIO, rules, next_step(rules)) if o["type"] == "place"]
        assert {b.units[o["unit"]].setup for o in offered} == {
            u.setup for uid, u in b.units.items() if u.side == side and st.status(rules, uid) == "setup"}
        play(rules, {"type": "end"})
        placed = [(o["unit"], o["hex"]) for o in offered] + [
            (u, st.hex_of(rules, u)) for u, x in b.units.items() if x.side == side and st.status(rules, u) == "map"]
        for uid, h in placed:
            u = b.units[uid]
            code = u.setup
            assert h not in b.setup_hexes["soviet" if side == "german" else "german"], (uid, h)
            if code in b.fronts[side]:
                front = b.fronts[side][code]
                assert h in front or (not u.front_infantry and b.behind(h, side, code)), (uid, h)
                if side == "soviet" and not u.front_infantry:
                    assert h not in front, (uid, h)
    assert not [u for u in rules["units"] if st.status(rules, u) in ("setup", "out")]


# --- 6.x stacking, 7.x ZOC ---------------------------------------------------------------------

def test_6_stacking_limits():
    assert bd.stacking_ok(SCENARIO, ["LW/I", "LW/II", "LW/III"])
    assert bd.stacking_ok(SCENARIO, ["LW/I", "LW/II", "LW/III", "LW/IV"])  # 4 of one unit
    assert not bd.stacking_ok(SCENARIO, ["Sch/I", "Sch/II", "St/I", "St/II"])  # 4 of different units
    assert bd.stacking_ok(SCENARIO, ["Sch/I", "Sch/II", "Ob/AT", "AT/III", "Art/StuG"])  # 3 companies = 1 battalion
    assert not bd.stacking_ok(SCENARIO, ["GCC/5GCa", "89/a"])  # 6.3 a regiment stands alone
    assert bd.stacking_ok(SCENARIO, ["89/a", "89/b", "5TA/510"])  # 3 battalions of one army
    assert not bd.stacking_ok(SCENARIO, ["1TC/159a", "26TC/19", "26TC/216"])  # 1TC and 26TC: different armies
    assert bd.stacking_ok(SCENARIO, ["1TC/159a", "26TC/19"])  # 2 battalions of any affiliation


def test_7_zoc_needs_3_strength_and_confusion_counts_0():
    rules = position({"5TA/510": {"hex": "3020"}, "GCC/5GCa": {"hex": "3420"},
                      "LW/II": {"hex": "3120", "strength": 2}, "LW/III": {"hex": "3120", "strength": 2, "markers": ["confusion"]}})
    zone, tank = bd.zoc(SCENARIO, rules, "soviet")
    assert "3019" in zone and "3019" in tank  # 3 tank points: a tank ZOC
    assert "3419" not in zone  # 5GC with 2 points: no ZOC (7.0's example)
    german, _ = bd.zoc(SCENARIO, rules, "german")
    assert german == set()  # 2 + 2, one confused: counts 2 (7.1)


def test_7_zoc_is_worked_out_anew_whenever_what_it_rests_on_changes():
    """board.zoc keeps its last answer per side: a rules dict changed in place (as the
    engine changes it) by a move, a confusion marker, a strength loss or one removed gets
    the zone a fresh computation gives, never the one kept."""
    rules = position({"5TA/510": {"hex": "3020"}, "LW/II": {"hex": "3120", "strength": 2},
                      "LW/III": {"hex": "3120", "strength": 2}})

    def fresh_zoc(side: str) -> tuple:
        bd._ZOC_MEMO.clear()
        return bd.zoc(SCENARIO, rules, side)

    changes = [
        lambda: rules["units"].__setitem__("5TA/510", "3021"),                      # a move
        lambda: rules["markers"]["confusion"].append("LW/III"),                     # 7.1: confused, counts 0
        lambda: rules["markers"]["confusion"].remove("LW/III"),
        lambda: rules["strength"].__setitem__("LW/II", 1),                          # a step lost: 1 + 2
        lambda: rules["strength"].__setitem__("5TA/510", 2),                        # below 3: no tank ZOC
        lambda: rules["strength"].pop("5TA/510"),
    ]
    seen = {side: [fresh_zoc(side)] for side in ("german", "soviet")}
    for change in changes:
        for side in ("german", "soviet"):
            bd.zoc(SCENARIO, rules, side)        # kept
        change()
        kept = {side: bd.zoc(SCENARIO, rules, side) for side in ("german", "soviet")}
        for side in ("german", "soviet"):
            assert kept[side] == fresh_zoc(side)
            seen[side].append(kept[side])
    german = [zone for zone, _ in seen["german"]]
    assert "3020" in german[0] and "3020" not in german[2] and "3020" in german[3] and "3020" in german[4]
    assert german[4] == german[3]          # 1 + 2 still make 3
    soviet = seen["soviet"]
    assert "3121" in soviet[0][1] and "3122" in soviet[1][1] and soviet[5][1] == frozenset() and soviet[6] == soviet[1]


# --- 8.x movement ----------------------------------------------------------------------------------

def test_8_3_motorised_boggy_across_river_costs_3_mp_and_8_4_road():
    assert movement.step_cost(SCENARIO, "89/a", "1133", "1134") == 6
    assert movement.step_cost(SCENARIO, "GCC/5GCa", "1232", "1233") == 4 + 2  # boggy 2 MP + river 1 MP on foot
    assert movement.step_cost(SCENARIO, "89/a", "2541", "2540") == 1  # bridge on the road: 0.5 MP


def test_step_costs_are_made_as_read_and_the_table_stays_whole_and_read_only():
    """The price of every step (8.3, 8.4) is a row a hex, made when first read: a command meets
    a few hundred of the 1,500 hexes, and loading every row was the largest part of loading a
    built scenario. The tables still read as the whole, fixed tables they stand for."""
    import importlib
    import operator
    import pickle

    from pbem.rulesets.chir.scenario import Rows

    importlib.import_module("pbem.core.cache")     # which tells pickle how to keep read-only views

    scenario = RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options))
    mot, dearer = scenario.cost["mot"], scenario.cost_max
    assert isinstance(mot, Rows) and dict.__len__(mot) == 0     # nothing made yet
    assert mot["1133"]["1134"] == 6 and scenario.cost["non"]["1232"]["1233"] == 6 and mot["2541"]["2540"] == 1
    assert dict.__len__(mot) == 2                                # the rows read, and no other
    assert dict(dearer["1232"]) == {c: max(mot["1232"][c], scenario.cost["non"]["1232"][c])
                                    for c in scenario.neigh["1232"]}
    # whole: every hex, and only hexes
    assert len(mot) == len(scenario.ids) and list(mot) == list(scenario.ids) and set(mot.keys()) == set(scenario.ids)
    assert "1133" in mot and "0000" not in mot and mot.get("0000") is None and mot.get("1133") is mot["1133"]
    with pytest.raises(KeyError):
        mot["0000"]
    assert dict.__len__(mot) == 3    # the unknown hex made no row
    every = {a: dict(mot[a]) for a in scenario.ids}
    assert mot == every and mot != dict(every, **{"1133": {}}) and dict(mot.items()) == mot.copy()
    assert list(reversed(mot)) == list(reversed(scenario.ids)) and (mot | {}) == every == ({} | mot)
    # read-only, as the rest of the scenario
    for change in (lambda: mot.__setitem__("1133", {}), lambda: mot.pop("1133"), lambda: mot.update({}),
                   lambda: mot.setdefault("1133", {}), lambda: mot.clear(), lambda: mot.__delitem__("1133"),
                   lambda: operator.setitem(mot["1133"], "1134", 0)):
        with pytest.raises(TypeError):
            change()
    # kept as its recipe, as pbem's cache keeps a built scenario: loaded, it makes its rows afresh, and the same
    loaded = pickle.loads(pickle.dumps(scenario, protocol=pickle.HIGHEST_PROTOCOL))
    assert dict.__len__(loaded.cost["mot"]) == 0 and dict.__len__(loaded.cost_max) == 0
    assert loaded.cost["mot"] == every and loaded.cost_max == {a: dict(dearer[a]) for a in scenario.ids}


def test_a_kept_scenario_works_out_the_coordinates_of_the_hexes_it_reads_only():
    """Each hex's printed and axial coordinates are rows made when first read, and the map of a
    kept scenario keeps its ids only: a command reads a few hundred hexes, and loading the
    coordinates of all 1,496 was the largest part of loading a built scenario. Distances,
    neighbours and river crossings read the same as before it was kept."""
    import importlib
    import pickle

    importlib.import_module("pbem.core.cache")     # which tells pickle how to keep read-only views

    built = RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options))
    loaded = pickle.loads(pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL))
    assert len(loaded.ids) == 1496 and "_hex" not in vars(loaded.grid) and dict.__len__(loaded._axial) == 0
    # the tables of rows share the set of the hexes, loaded once
    assert all(table._key_set is loaded.hexes for table in (loaded._axial, loaded._offset, loaded.cost["mot"],
                                                             loaded.cost["non"], loaded.cost_max))
    # against the map's own arithmetic (hexgrid) and the map's data, which the rows do not read
    grid = HexMap.rectangle(HexIdFormat("even-q", 2), range(10, 44), range(1, 45))
    assert grid.ids == built.ids
    assert loaded.distance("3320", "3217") == 3 and loaded.offset("3320") == (33, 20)
    assert dict.__len__(loaded._axial) == 2 and dict.__len__(loaded._offset) == 1
    assert "_hex" not in vars(loaded.grid)                  # asked of the scenario, not of its map
    assert [loaded.distance(a, "2541") for a in grid.ids] == [grid.distance(a, "2541") for a in grid.ids]
    assert [loaded.offset(a) for a in grid.ids] == [grid.offset(a) for a in grid.ids]
    assert loaded.distance("3320", "9999") == grid.distance("3320", "9999")   # off the map: the map's arithmetic
    near = [(a, b) for a in ("3320", "1001", "2541", "9999") for b in grid.within(a, 2) + ["9999", "0000"]]
    assert [loaded.adjacent(a, b) for a, b in near] == [grid.adjacent(a, b) for a, b in near]
    assert sum(loaded.adjacent(a, b) for a, b in near) == 6 + 3 + 6     # 1001, a corner, has three
    assert loaded.adjacent("4345", "4344") and loaded.adjacent("0945", "0944") is grid.adjacent("0945", "0944")
    # 9.10, 9.11.1: the river hexsides without a bridge, both ways, and no other
    m = RULESET.scenarios["historical"]()["map"]
    bridged = {b["hexside"] for b in m["bridges"]}
    unbridged = sorted({(a, b) for r in m["rivers"] for key in r["hexsides"] if key not in bridged
                        for a, b in [key.split("/"), key.split("/")[::-1]]})
    assert unbridged and [(a, b) for a in grid.ids for b in grid.neighbours(a) if not loaded.crossable(a, b)] == \
        [(a, b) for a in grid.ids for b in grid.neighbours(a) if (a, b) in set(unbridged)]
    assert len(unbridged) == len([(a, b) for a in grid.ids for b in grid.neighbours(a) if not built.crossable(a, b)])
    with pytest.raises(KeyError):
        loaded.crossable("9999", "3320")


def test_a_scenario_with_its_step_costs_made_is_freed_when_dropped():
    """The rows are made from the tables they read, not from the scenario that holds them: a
    scenario is no reference cycle, and is freed when its last reference goes (pbem starts
    with the garbage collector's passes far apart, on that ground: see tests/test_cycles.py)."""
    import gc
    import weakref

    enabled = gc.isenabled()
    gc.disable()
    try:
        scenario = RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options))
        assert scenario.cost_max["1133"]["1134"] == 6 and scenario.cost["non"]["1232"]["1233"] == 6
        gone = weakref.ref(scenario)
        del scenario
        assert gone() is None
    finally:
        if enabled:
            gc.enable()


def test_8_1_no_move_beyond_allowance_and_8_6_half_move():
    rules = position({"333/1116": {"hex": "3220", "markers": ["half"]}})
    assert movement.budget(SCENARIO, rules, "333/1116") == 4  # 4 MP halved: 2 MP
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "move", "units": ["333/1116"], "path": ["3221", "3222", "3223"]})
    assert info.value.rule == "8.1"
    # a path that begins where the unit stands is told so (a players' probe: "3220 and 3220 are
    # not adjacent")
    assert refusal(rules, {"type": "move", "units": ["333/1116"], "path": ["3220", "3221"]}) == (
        "8.1", "move 333/1116: the path lists the hexes entered, one after another: leave out 3220, where the units "
        "stand")


def test_a_move_given_by_its_destination_is_told_what_its_path_lists():
    """A players' probe: `path: ["3222"]`, the destination alone, two hexes away, was refused as
    "3220 and 3222 are not adjacent", which said nothing of what `path` is; a later hex of a path
    that skips one is still told so plainly."""
    rules = position({"333/1116": {"hex": "3220"}})
    assert refusal(rules, {"type": "move", "units": ["333/1116"], "path": ["3222"]}) == (
        "8.1", "move 333/1116: 3220 and 3222 are not adjacent: the units stand in 3220, and `path` lists every hex "
        "they enter, one after another, the last where they stop (`pbem orders GAME_DIR --only 333/1116` lists their "
        "paths)")
    assert refusal(rules, {"type": "move", "units": ["333/1116"], "path": ["3221", "3223"]}) == (
        "8.1", "move 333/1116: 3221 and 3223 are not adjacent")


def test_8_5_1_ezoc_stops_and_artillery_alone_may_not_enter():
    rules = position({"LW/I": {"hex": "3320"}, "1TC/Art": {"hex": "3122"}, "1TC/44a": {"hex": "3123"}})
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "move", "units": ["1TC/44a"], "path": ["3222", "3221", "3220", "3219"]})
    assert info.value.rule == "8.5.1"  # 3221 is in the EZOC of 3320: movement ends there
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "move", "units": ["1TC/Art"], "path": ["3221", "3220"]})
    assert info.value.rule == "8.5.1"
    play(rules, {"type": "move", "units": ["1TC/44a"], "path": ["3222", "3221", "3220"]})
    play(rules, {"type": "move", "units": ["1TC/Art"], "path": ["3221", "3220"]})  # a friendly infantry unit is there


@pytest.mark.parametrize("die, motorised_only, ok", [(3, False, True), (4, False, False), (4, True, True), (5, True, False)])
def test_8_5_2_tactical_retreat_die(die, motorised_only, ok):
    unit = "1TC/44b" if motorised_only else "333/1116"
    rules = position({"LW/I": {"hex": "3320"}, unit: {"hex": "3220"}})
    ctx = play(rules, {"type": "move", "units": [unit], "path": ["3221"]}, dice=[die])
    tr = ctx.of("tactical-retreat")[0]
    assert (tr["die"], tr["modifier"], tr["success"]) == (die, -1 if motorised_only else 0, ok)
    assert st.hex_of(rules, unit) == ("3221" if ok else "3220")
    assert tr["text"].startswith(f"{unit} attempts a tactical retreat from 3220 without support: die {die}")
    # the roll it needs, for a reader without the rulebook
    assert tr["text"].endswith(("success" if ok else "failure, movement ends") + " (3 or less succeeds, 8.5.2).")


def test_8_5_2_a_tactical_retreats_words_agree_with_how_many_units_go():
    """One unit "attempts" and "leaves", a stack "attempt" and "leave" (chir 1.7.0 wrote "CC/21a
    attempt a tactical retreat")."""
    rules = position({"11Pz/15a": {"hex": "3320"}, "1TC/44b": {"hex": "3220"}, "1TC/44a": {"hex": "3220"},
                      "1TC/44c": {"hex": "3220"}})
    ctx = play(rules, {"type": "move", "units": ["1TC/44b"], "path": ["3221"]})
    assert ctx.of("tactical-retreat")[0]["text"] == ("1TC/44b leaves the enemy zone of control in 3220 with support "
                                                     "(1TC/44a, 1TC/44c stay): automatic success.")
    ctx = play(rules, {"type": "move", "units": ["1TC/44a", "1TC/44c"], "path": ["3221"]}, dice=[3])
    assert ctx.of("tactical-retreat")[0]["text"].startswith("1TC/44a, 1TC/44c attempt a tactical retreat from 3220")


def test_8_5_2_a_unit_that_moved_in_earlier_in_the_phase_supports_the_retreat_of_the_one_it_relieves():
    """The README's reading of "at the start of movement": the start of the leaving stack's own
    move; 1TC/44b, which moved into 2516 (and had to stop there, 8.5.1), relieves 1TC/44a."""
    rules = position({"Hei/I": {"hex": "2515"}, "1TC/44a": {"hex": "2516"}, "1TC/44b": {"hex": "2517"}})
    play(rules, {"type": "move", "units": ["1TC/44b"], "path": ["2516"]})
    ctx = play(rules, {"type": "move", "units": ["1TC/44a"], "path": ["2517", "2518"]})
    assert ctx.of("tactical-retreat")[0]["text"] == ("1TC/44a leaves the enemy zone of control in 2516 with support "
                                                     "(1TC/44b stays): automatic success.")


def test_8_5_2_supported_retreat_is_automatic_and_tank_zoc_cancels_modifier():
    rules = position({"11Pz/15a": {"hex": "3320"}, "1TC/44b": {"hex": "3220"}, "1TC/44a": {"hex": "3220"}})
    ctx = play(rules, {"type": "move", "units": ["1TC/44b"], "path": ["3221"]})
    assert ctx.of("tactical-retreat")[0]["supported"] is True
    ctx = play(rules, {"type": "move", "units": ["1TC/44a"], "path": ["3221"]}, dice=[4])
    assert ctx.of("tactical-retreat")[0]["modifier"] == 0  # a tank ZOC: no -1


def test_8_5_3_no_move_from_ezoc_straight_into_ezoc():
    rules = position({"LW/I": {"hex": "3320"}, "1TC/44b": {"hex": "3220"}})
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "move", "units": ["1TC/44b"], "path": ["3321"]})
    assert info.value.rule == "8.5.3"


def test_8_7_fired_artillery_does_not_move_but_german_sp_moves_at_half():
    rules = position({"333/Art": {"hex": "3522", "markers": ["fired"]}, "11Pz/119II": {"hex": "1520", "markers": ["fired"]}})
    assert movement.why_not_move(SCENARIO, rules, "333/Art", "soviet") == ("8.7", "333/Art is artillery with a fired marker and may not move")
    assert movement.why_not_move(SCENARIO, rules, "11Pz/119II", "german") is None
    assert movement.budget(SCENARIO, rules, "11Pz/119II") == 6  # 7 MP halved: 3 MP


def test_11_reinforcements_enter_on_their_turn_and_4_4_exit():
    rules = position({"11Pz/15a": "pool", "LW/I": {"hex": "3320"}}, player="german")
    opts = [o for o in RULESET.legal_orders(SCENARIO, rules, next_step(rules)) if o["type"] == "enter"]
    assert opts and all(o["path"][0] == "1020" for o in opts)
    play(rules, {"type": "enter", "units": ["11Pz/15a"], "path": ["1020", "1121"]})
    assert st.hex_of(rules, "11Pz/15a") == "1121"
    rules = position({"8GT/a": "pool"}, turn=7)
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "enter", "units": ["8GT/a"], "path": ["4323"]})
    assert info.value.rule == "11.1"
    rules = position({"89/a": {"hex": "1121"}}, control={"1121": "soviet"})
    ctx = play(rules, {"type": "move", "units": ["89/a"], "path": ["1020"], "exit": True})
    assert st.status(rules, "89/a") == "exited" and ctx.of("exit")[0]["line"] is False
    with pytest.raises(IllegalOrder) as info:
        play(position({"LW/I": {"hex": "1121"}}, player="german"),
             {"type": "move", "units": ["LW/I"], "path": ["1020"], "exit": True})
    assert info.value.rule == "4.4"


# --- 9.x combat -------------------------------------------------------------------------------------

def test_9_6_weapon_effects_per_class_fractions_dropped():
    rules = position({"LW/II": {"hex": "3120"}, "LW/III": {"hex": "3120"}, "LW/ArtI": {"hex": "3118"}})
    total, parts = combat.fire_strength(SCENARIO, rules, ["LW/II", "LW/III"], ["LW/ArtI"], True)
    assert total == 2 and [p["value"] for p in parts] == [1, 1]
    total, _ = combat.fire_strength(SCENARIO, rules, ["LW/II", "LW/III"], ["LW/ArtI"], False)
    assert total == 9
    total, _ = combat.fire_strength(SCENARIO, rules, ["LW/ArtI"], [], False)
    assert total == 6  # adjacent artillery x2 against a target without tanks


@pytest.mark.parametrize("strength, shift, expected", [
    (22, 2, ("20-24", "30-34", "ok")), (5, -1, ("5-7", "3-4", "ok")), (1, -1, ("1-2", None, "cancelled")),
    (0, 3, (None, None, "zero")), (40, 2, ("35+", "35+", "ok")), (33, 3, ("30-34", "35+", "ok"))])
def test_9_7_columns_and_limits(strength, shift, expected):
    assert combat.resolve_column(SCENARIO, strength, shift) == expected


def test_9_7_4_light_and_heavy_tank_shifts():
    assert [s["shift"] for s in combat.tank_shifts(SCENARIO, ["11Pz/15a"], ["89/b"])] == [2]  # two red circles
    assert combat.tank_shifts(SCENARIO, ["11Pz/110I"], ["89/b"]) == []  # no tank firing
    assert combat.tank_shifts(SCENARIO, ["11Pz/15a"], ["89/b", "89/a"]) == []  # not only light tanks
    assert [s["shift"] for s in combat.tank_shifts(SCENARIO, ["11Pz/110I"], ["26TC/216"])] == [-1]


def test_9_7_1_9_7_3_multi_group_terrain_and_river_shifts():
    rules = position({"LW/I": {"hex": "3203"}, "CC/21a": {"hex": "3303"}, "CC/21b": {"hex": "3304"}},
                     phase="attack")
    a = {"kind": "concentrated", "target": "3203", "att": "soviet"}
    groups = {"3303": ["CC/21a"], "3304": ["CC/21b"]}
    shifts = {s["id"]: s["shift"] for s in combat.offensive_shifts(SCENARIO, rules, a, groups, ["CC/21a", "CC/21b"], ["LW/I"])}
    assert shifts == {"multi_group": 1, "terrain": -1, "river": -2}  # Oblivskaya is a town across the Chir


def test_9_1_only_units_adjacent_at_phase_start_and_once_per_target():
    rules = position({"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}, "333/1118": {"hex": "3221"}},
                     phase="attack")
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "attack", "target": "3320", "units": ["333/1118"]})
    assert info.value.rule in ("9.0", "9.1")
    assert "333/1116" in rules["ps"]["eligible"] and "333/1118" not in rules["ps"]["eligible"]


def test_9_1_the_same_group_of_enemy_units_is_not_attacked_twice_even_after_it_retreated():
    rules = position({"LW/I": {"hex": "2520"}, "Ob/I": {"hex": "2318"}, "333/1116": {"hex": "2620"},
                      "CC/112a": {"hex": "2319"}}, phase="attack")
    assert "CC/112a" in rules["ps"]["eligible"]
    ctx = Ctx([6, 1], "policy")
    RULESET.apply(SCENARIO, rules, next_step(rules), {"type": "attack", "target": "2520", "units": ["333/1116"]}, ctx)
    while (need := next_step(rules)) is not None and need.decision:
        RULESET.apply(SCENARIO, rules, need, RULESET.policy(SCENARIO, rules, need, {"morale": "retreat"}), ctx)
    assert st.hex_of(rules, "LW/I") == "2419" and rules["ps"]["attacked_groups"] == [["LW/I"]]
    with pytest.raises(IllegalOrder) as info:                        # next to CC/112a now, but the same group
        play(rules, {"type": "attack", "target": "2419", "units": ["CC/112a"]})
    assert info.value.rule == "9.1" and "the same group of enemy units" in info.value.message
    assert not any(o.get("target") == "2419" for o in combat.concentrated_options(SCENARIO, rules, "soviet"))


def test_8_5_1_11_1_no_entry_offered_for_artillery_alone_into_an_entry_hex_in_an_ezoc():
    units = {u: "pool" for u in SCENARIO.units if SCENARIO.units[u].entry_hex == "4316"}
    units["Sch/I"] = {"hex": "4215"}                                   # its ZOC covers the entry hex
    rules = position(units, turn=9)
    entries = [o for o in RULESET.legal_orders(SCENARIO, rules, next_step(rules)) if o["type"] == "enter"]
    assert entries and all(o["path"] == ["4316"] for o in entries)       # they stop there (11.1)
    assert ["5MC/Art"] not in [o["units"] for o in entries]             # 8.5.1: not without armour or infantry
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "enter", "units": ["5MC/Art"], "path": ["4316"]})
    assert info.value.rule == "8.5.1"
    for order in entries:                                              # every offered entry is accepted
        play(position(units, turn=9), order)


def test_4_4_9_1_9_2_the_option_lists_hold_what_apply_accepts():
    rules = position({"1TC/117a": {"hex": "1020"}})
    offered = RULESET.legal_orders(SCENARIO, rules, next_step(rules))
    assert {"type": "move", "units": ["1TC/117a"], "path": [], "exit": True} in offered    # 4.4: from the exit hex
    rules = position({"LW/I": {"hex": "2520"}, "333/1116": {"hex": "2620"}, "333/1118": {"hex": "2521"},
                      "333/1120": {"hex": "2619"}}, phase="attack")
    attacks = [o["units"] for o in RULESET.legal_orders(SCENARIO, rules, next_step(rules)) if o["type"] == "attack"]
    assert ["333/1116", "333/1118"] in attacks and ["333/1116", "333/1118", "333/1120"] in attacks  # 9.1: two of three
    rules = position({"LW/I": {"hex": "2520"}, "1TC/117a": {"hex": "2620"}, "1TC/44a": {"hex": "2620"}})
    attacks = [o["units"] for o in RULESET.legal_orders(SCENARIO, rules, next_step(rules)) if o["type"] == "attack"]
    assert attacks[:3] == [["1TC/117a", "1TC/44a"], ["1TC/117a"], ["1TC/44a"]]         # 9.2: one unit of a stack
    play(rules, {"type": "attack", "target": "2520", "units": ["1TC/117a"], "support": []}, dice=[6, 6])


def test_9_2_manoeuvre_attack_limits():
    rules = position({"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220", "markers": ["half"]},
                      "1TC/Art": {"hex": "3321"}, "333/1118": {"hex": "3420"}})
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "attack", "target": "3320", "units": ["333/1116"]})
    assert info.value.rule == "8.6"
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "attack", "target": "3320", "units": ["1TC/Art"]})
    assert info.value.rule == "9.2"
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "attack", "target": "3320", "units": ["333/1118"], "support": ["1TC/Art"]})
    assert info.value.rule == "10.2"  # Soviet artillery never supports a manoeuvre attack


def test_9_8_loss_allocation_tanks_first_then_strongest_tie_is_a_decision():
    rules = position({"11Pz/15c": {"hex": "2520"}, "11Pz/110I": {"hex": "2520"}})
    hit = combat.new_hit(SCENARIO, "german", "2520", ["11Pz/15c", "11Pz/110I"], 0, 1, "x")
    assert combat.loss_candidates(SCENARIO, rules, hit) == ["11Pz/15c"]  # tank first although weaker
    rules = position({"11Pz/110I": {"hex": "2520"}, "11Pz/110II": {"hex": "2520"}})
    hit = combat.new_hit(SCENARIO, "german", "2520", ["11Pz/110I", "11Pz/110II"], 0, 1, "x")
    assert combat.loss_candidates(SCENARIO, rules, hit) == ["11Pz/110I", "11Pz/110II"]


def test_9_9_test_only_if_strength_left_covers_morale_damage():
    rules = position({"LW/I": {"hex": "3320", "strength": 2}})
    hit = combat.new_hit(SCENARIO, "german", "3320", ["LW/I"], 3, 0, "x")
    hit["stage"] = "choice"
    assert not combat.test_allowed(SCENARIO, rules, hit)
    hit["M"] = 2
    assert combat.test_allowed(SCENARIO, rules, hit)


def test_9_9_1_one_die_per_group_morale_per_unit():
    rules = position({"11Pz/15a": {"hex": "2520"}, "K593/I": {"hex": "2520"}})
    hit = combat.new_hit(SCENARIO, "german", "2520", ["11Pz/15a", "K593/I"], 1, 0, "x")
    hit["stage"] = "test"
    ctx = Ctx([3])
    combat.run_hit(SCENARIO, rules, hit, ctx)
    test = ctx.of("morale-test")[0]
    assert test["passed"] == ["11Pz/15a"] and test["failed"] == ["K593/I"]  # morale 5 and 2
    assert test["text"] == ("Morale test of 11Pz/15a, K593/I (a unit passes on its morale or less, 9.9.1): die 3; "
                            "11Pz/15a (morale 5) passes; K593/I (morale 2) fails.")


def test_9_10_retreat_priorities_and_ezoc_losses():
    rules = position({"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}, "333/1118": {"hex": "3321"},
                      "333/1120": {"hex": "3420"}, "5TA/510": {"hex": "3219"}})
    hit = combat.new_hit(SCENARIO, "german", "3320", ["LW/I"], 1, 0, "x")
    hit["retreaters"], hit["stage"] = ["LW/I"], "retreat"
    ctx = Ctx()
    combat.run_hit(SCENARIO, rules, hit, ctx)
    # 3319 is the only hex next to 3320 outside the Soviet ZOC; but 3319 is next to the tank in 3219
    step = ctx.of("retreat-step")[0]
    assert step["to"] in ("3319", "3419")
    rules = position({"LW/I": {"hex": "3120"}, "5TA/510": {"hex": "3219"}, "1TC/44b": {"hex": "3020"},
                      "1TC/44a": {"hex": "3121"}, "GCC/32C": {"hex": "3220"}})
    hit = combat.new_hit(SCENARIO, "german", "3120", ["LW/I"], 1, 0, "x")
    hit["retreaters"], hit["stage"] = ["LW/I"], "retreat"
    assert retreat.candidates(SCENARIO, rules, dict(hit, r_started=True, at="3120", path=["3120"], steps=0))[1] == ["3019", "3119"]
    ctx = Ctx()
    assert combat.run_hit(SCENARIO, rules, hit, ctx) is False  # tie: the owner chooses
    retreat.choose(SCENARIO, rules, hit, {"type": "retreat", "to": "3119"}, ctx)
    loss = ctx.of("loss")[0]
    assert (loss["unit"], loss["points"]) == ("LW/I", 2)  # a tank ZOC costs 2 (9.10.2)


def _retreat_from_3320() -> dict:
    """333/1116 hits LW/I in 3320 for 1-0 (6 on 5-7, die 2); the German player retreats."""
    rules = position({"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}}, phase="attack")
    play(rules, {"type": "attack", "target": "3320", "units": ["333/1116"]})
    play(rules, {"type": "fire", "target": "3220"}, dice=[6, 2])
    ctx = play(rules, {"type": "morale", "choice": "retreat"})
    assert [e["to"] for e in ctx.of("retreat-step")] == ["3319"]
    return rules


@pytest.mark.parametrize("gone", [0, 1])
def test_9_10_a_retreat_with_no_hex_to_go_to_is_said_before_the_units_are_eliminated(gone):
    """A players' probe: the report read "119/a is eliminated (no hex to retreat to)." and then
    "119/a retreats 3309.", as if it had retreated after all. LW/I in 3320 with a Soviet unit on
    each side finds no hex; the same with 3319 open, then closed behind it, after one hex."""
    ring = list(SCENARIO.neigh["3320"])
    soviet = ["333/1116", "333/1118", "333/1120", "5TA/510", "1TC/44a", "1TC/44b", "GCC/32C", "GCC/6GCa",
              "GCC/6GCb"]
    units = {"LW/I": {"hex": "3320"}}
    if gone:   # 3319 is free, and every hex beyond it is held
        units.update({u: {"hex": h} for u, h in zip(soviet, [h for h in ring if h != "3319"]
                                                          + [h for h in SCENARIO.neigh["3319"]
                                                             if h not in ring and h != "3320"])})
    else:
        units.update({u: {"hex": h} for u, h in zip(soviet, ring)})
    rules = position(units)
    hit = combat.new_hit(SCENARIO, "german", "3320", ["LW/I"], 2, 0, "x")
    hit["retreaters"], hit["stage"] = ["LW/I"], "retreat"
    ctx = Ctx()
    assert combat.run_hit(SCENARIO, rules, hit, ctx) is not False
    said = [(e["type"], e["text"]) for e in ctx.events if e["type"] in ("retreat", "eliminated")]
    assert said[0] == ("retreat", "LW/I finds no hex to retreat to from 3320." if not gone else
                       "LW/I retreats 3320 -> 3319 and can go no farther; EZOC losses: LW/I -2 in 3319.") \
        and said[1][0] == "eliminated"
    assert "no hex to retreat to" in said[1][1] and not st.on_map(rules, "LW/I")
    assert ctx.of("retreat")[0]["survivors"] == []


def test_9_10_the_retreat_may_end_at_the_morale_damage_or_go_farther():
    rules = _retreat_from_3320()
    need = next_step(rules)
    assert (need.side, need.kind, need.rule) == ("german", "retreat", "9.10")
    assert RULESET.legal_orders(SCENARIO, rules, need) == [{"type": "retreat", "to": None}, {"type": "retreat", "to": "3218"},
                                                 {"type": "retreat", "to": "3318"}]
    assert refusal(rules, {"type": "retreat", "path": ["3318", "3419"]}) == (
        "9.10.1", "retreat path 3318 3419: hex 2 (3419) must be 3217 or 3218 or 3317 (priority: outside enemy ZOC, within "
        "stacking, towards the own rear)")
    answer = RULESET.policy(SCENARIO, rules, need, {})
    assert answer == {"type": "retreat", "to": None}  # the default ends it at the morale damage
    ctx = play(rules, answer, chosen_by="policy")
    assert [(e["path"], e["hexes"]) for e in ctx.of("retreat")] == [(["3320", "3319"], 1)]
    assert st.hex_of(rules, "LW/I") == "3319"


def test_9_10_2_a_retreat_that_may_end_outside_every_ezoc_may_not_go_on_into_one():
    """2414, one hex from 2515, lies outside the Soviet ZOC; every hex beyond it lies inside.
    Ending the retreat there is an option, so entering the zone is not: the retreat ends."""
    rules = position({"LW/I": {"hex": "2515"}, "333/1116": {"hex": "2615"}, "119/a": {"hex": "2214"},
                      "119/b": {"hex": "2513"}, "321/a": {"hex": "2416"}}, phase="attack")
    zone, _ = bd.ezoc(SCENARIO, rules, "german")
    assert "2414" not in zone and {"2314", "2315", "2413"} <= zone
    play(rules, {"type": "attack", "target": "2515", "units": ["333/1116"]})
    play(rules, {"type": "fire", "target": None}, dice=[2])      # 6 on 5-7, die 2: 1-0
    ctx = play(rules, {"type": "morale", "choice": "retreat"})
    assert [(e["path"], e["hexes"]) for e in ctx.of("retreat")] == [(["2515", "2414"], 1)]
    assert ctx.of("loss") == [] and st.hex_of(rules, "LW/I") == "2414" and st.strength(SCENARIO, rules, "LW/I") == 3
    assert next_step(rules).kind != "retreat"   # no decision to go on is asked


def test_9_10_2_the_default_retreat_looks_ahead_past_a_hex_whose_every_way_on_enters_a_zone():
    """LW/I in 2515 retreats 2 hexes. Two first hexes are tied at the best 9.10.1 priority (out of
    every Soviet ZOC): 2415, from which every next hex is in a Soviet zone, and 2514, from which
    2513 is not. The default standing order (engine-priority) counts the zones each way on
    enters before the retreat may end, as a player would, and takes 2514: LW/I ends in 2513 at
    strength 2 (the 2-1 result's point). Without the look-ahead it took 2415, the hex farther
    back, and lost a point more in the zone of control beyond."""
    rules = position({"LW/I": {"hex": "2515"}, "333/1116": {"hex": "2615"}, "333/Art": {"hex": "2817"},
                      "119/a": {"hex": "2314"}, "119/b": {"hex": "2417"}, "321/a": {"hex": "2215"},
                      "346/a": {"hex": "2216"}}, phase="attack")
    zone, _ = bd.ezoc(SCENARIO, rules, "german")
    assert {"2415", "2514", "2513"}.isdisjoint(zone)
    assert all(n in zone for n in SCENARIO.neigh["2415"] if n not in ("2515", "2514") and bd.side_in(SCENARIO, rules, n) is None)
    play(rules, {"type": "attack", "target": "2515", "units": ["333/1116"], "support": ["333/Art"]})
    play(rules, {"type": "fire", "target": None}, dice=[1])            # 10 on 8-11, die 1: 2-1
    play(rules, {"type": "morale", "choice": "retreat"})
    need = next_step(rules)
    assert [o["to"] for o in RULESET.legal_orders(SCENARIO, rules, need)] == ["2415", "2514"]
    answer = RULESET.policy(SCENARIO, rules, need, {})
    assert answer == {"type": "retreat", "to": "2514"}
    play(rules, answer, chosen_by="policy")                            # 2514, then 2513, the only way on
    need = next_step(rules)                                            # it has gone 2 hexes: it may end
    ctx = play(rules, RULESET.policy(SCENARIO, rules, need, {}), chosen_by="policy")
    assert [(e["path"], e["losses"]) for e in ctx.of("retreat")] == [(["2515", "2514", "2513"], [])]
    assert st.hex_of(rules, "LW/I") == "2513" and st.strength(SCENARIO, rules, "LW/I") == 2


def test_9_10_the_retreat_may_not_end_short_of_the_morale_damage():
    rules = position({"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}})
    hit = combat.new_hit(SCENARIO, "german", "3320", ["LW/I"], 2, 0, "x")
    hit["retreaters"], hit["stage"] = ["LW/I"], "retreat"
    retreat.start(SCENARIO, rules, hit, Ctx())
    with pytest.raises(IllegalOrder) as info:
        retreat.choose(SCENARIO, rules, hit, {"type": "retreat", "to": None}, Ctx())
    assert (info.value.rule, info.value.message) == (
        "9.10", "retreat: the units may not end the retreat in 3320: they have gone 0 of the 2 hexes of the morale damage")


def test_9_10_4_confused_anti_tank_retreating_is_removed():
    rules = position({"LW/ATI": {"hex": "2719", "markers": ["confusion"]}})
    hit = combat.new_hit(SCENARIO, "german", "2719", ["LW/ATI"], 1, 0, "x")
    hit["retreaters"], hit["stage"] = ["LW/ATI"], "retreat"
    ctx = Ctx()
    combat.run_hit(SCENARIO, rules, hit, ctx)
    assert st.status(rules, "LW/ATI") == "gone" and ctx.of("eliminated")[0]["rule"] == "9.10.4"


def test_9_11_advance_limits():
    rules = position({"333/1116": {"hex": "3220"}, "333/Art": {"hex": "3321"}, "LW/II": {"hex": "3118"}})
    a = {"kind": "concentrated", "att": "soviet", "target": "3320", "groups": {"3220": ["333/1116"], "3321": ["333/Art"]},
         "fired_groups": ["3220", "3321"], "att_retreated": [], "advanced": [], "M": 3, "def_route": ["3320", "3319"]}
    assert retreat.eligible(SCENARIO, rules, a) == ["333/1116"]  # artillery never advances
    assert retreat.check_path(SCENARIO, rules, a, ["333/1116"], ["3320", "3319", "3318", "3317"]) == ("9.11", "an advance is 1 to 3 hexes")
    assert retreat.check_path(SCENARIO, rules, a, ["333/1116"], ["3219", "3218", "3217"]) == (  # 3218: EZOC of 3118
        "9.11.2", "3218 is in an enemy zone of control off the defenders' retreat route: the advance stops there")
    assert retreat.check_path(SCENARIO, rules, a, ["333/1116"], ["3219", "3218"]) is None  # it may end there
    assert retreat.check_path(SCENARIO, rules, a, ["333/1116"], ["3320", "3319"]) is None  # along the retreat route


def test_9_11_the_legal_advances_are_every_hex_a_legal_path_reaches_where_the_units_fit():
    """`retreat.options` walks out from each attacking hex once for all the units there and
    once for each alone, and lists the first path to each hex: exactly the hexes that some
    walk which `check_path` allows reaches, and where `bd.fits` lets the units end (6.4),
    each by a shortest such walk. The walks are the test's own; `check_path` and `bd.fits`
    are the rules of one path and one hex."""
    rules = position({"333/1116": {"hex": "3220"}, "333/1118": {"hex": "3220"}, "1TC/44a": {"hex": "3321"},
                      "1TC/44b": {"hex": "3321"}, "333/Art": {"hex": "3321"}, "LW/II": {"hex": "3118"},
                      "315/a": {"hex": "3219"}, "315/b": {"hex": "3219"}})
    a = {"kind": "concentrated", "att": "soviet", "target": "3320",
         "groups": {"3220": ["333/1116", "333/1118"], "3321": ["1TC/44a", "1TC/44b", "333/Art"]},
         "fired_groups": ["3220", "3321"], "att_retreated": [], "advanced": [], "M": 3, "def_route": ["3320", "3319"]}
    groups = [("333/1116", "333/1118"), ("333/1116",), ("333/1118",),
              ("1TC/44a", "1TC/44b"), ("1TC/44a",), ("1TC/44b",)]
    ends, refused = _advances_by_their_definition(rules, a, groups)   # artillery never advances
    # 6.3: a regiment stands alone, so the two regiments of 3220 advance one at a time, and
    # into no hex another unit holds: 3219 (two regiments), 3321 (the battalions' hex)
    assert ends[("333/1116", "333/1118")] == {} and len(ends[("333/1116",)]) == 32
    assert not {"3219", "3321"} & set(ends[("333/1116",)]) and "3220" not in ends[("1TC/44a", "1TC/44b")]
    assert ends[("1TC/44a",)]["3320"] == 1 and ends[("1TC/44a",)]["3319"] == 2 and max(ends[("1TC/44a",)].values()) == 3
    assert refused == {"9.11.2"}      # off the retreat route in LW/II's zone: the advance stops there

    # across a river: the first step into the target crosses it without a bridge (9.11.1 lets
    # it), no other step does; an enemy unit's hex is never entered
    assert not SCENARIO.crossable("1233", "1133") and not SCENARIO.crossable("1233", "1232")
    rules = position({"1TC/44a": {"hex": "1233"}, "1TC/44b": {"hex": "1233"}, "11Pz/15a": {"hex": "1334"}})
    a = dict(a, target="1133", groups={"1233": ["1TC/44a", "1TC/44b"]}, fired_groups=["1233"], M=2, def_route=["1133"])
    ends, refused = _advances_by_their_definition(rules, a, [("1TC/44a", "1TC/44b"), ("1TC/44a",), ("1TC/44b",)])
    assert refused == {"9.11", "9.11.1", "9.11.2"}
    assert ends[("1TC/44a", "1TC/44b")]["1133"] == 1          # into the target, across the river
    assert ends[("1TC/44a", "1TC/44b")]["1232"] == 2          # round by the target, not across
    assert "1334" not in ends[("1TC/44a",)] and len(ends[("1TC/44a",)]) == 10     # 1334: the enemy's


def _advances_by_their_definition(rules: dict, a: dict, groups: list[tuple]) -> tuple[dict, set]:
    """What `retreat.options` lists, held to its definition: for each group, the hexes its
    units may end in and the length of the path listed to each; and the rules `check_path`
    refused some walk by."""
    listed = retreat.options(SCENARIO, rules, a)
    assert listed[-1] == {"type": "advance-end"}
    found: dict[tuple, dict[str, list[str]]] = {}
    for o in listed[:-1]:
        there = found.setdefault(tuple(o["units"]), {})
        assert o["path"][-1] not in there          # one path to each hex
        assert retreat.check_path(SCENARIO, rules, a, o["units"], o["path"]) is None
        there[o["path"][-1]] = o["path"]
    assert set(found) <= set(groups)
    ends, refused = {}, set()
    for group in groups:
        start = st.hex_of(rules, group[0])
        legal: dict[str, int] = {}                 # hex -> length of the shortest legal path there
        for length in range(1, a["M"] + 1):
            for path in _walks(start, length):
                why = retreat.check_path(SCENARIO, rules, a, list(group), path)
                if why is None:
                    legal.setdefault(path[-1], length)
                else:
                    refused.add(why[0])
        expected = {h: n for h, n in legal.items() if bd.fits(SCENARIO, rules, h, list(group))}
        assert {h: len(p) for h, p in found.get(group, {}).items()} == expected, group
        ends[group] = expected
    return ends, refused


def _walks(start: str, length: int):
    """Every walk of `length` steps from `start` along neighbours, never back to a hex it has
    been in."""
    if length == 0:
        yield []
        return
    for walk in _walks(start, length - 1):
        here = walk[-1] if walk else start
        for n in SCENARIO.neigh[here]:
            if n != start and n not in walk:
                yield walk + [n]


def test_9_11_a_unit_that_advanced_after_a_concentrated_attack_moves_at_half_in_the_movement_phase():
    """9.12.1 and the example of play: "the three Soviet rifle units may carry out a post-combat
    advance of 3 hexes ... During the subsequent movement phase, these units may move using half
    of their movement capacity" (13.0). 9.11's "its movement has been completed" ends the move of
    a manoeuvre attack's stack (the next test); chir 1.4.0 to 1.7.0 read it for every advance, and
    the rifle regiment that advanced could not move at all (a rules probe)."""
    r = position({"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}}, phase="attack")
    play(r, {"type": "attack", "target": "3320", "units": ["333/1116"]})
    play(r, {"type": "fire", "target": None}, dice=[2])          # 5-7 column, die 2: 1-0
    play(r, {"type": "morale", "choice": "retreat"})             # LW/I retreats to 3319
    play(r, {"type": "retreat", "to": None})
    play(r, {"type": "advance", "units": ["333/1116"], "path": ["3320"]})
    assert "333/1116" not in r["markers"]["done"] and "333/1116" in r["markers"]["half"]
    play(r, {"type": "end"})                                     # the Soviet Movement Phase
    with pytest.raises(IllegalOrder) as refused:
        play(r, {"type": "move", "units": ["333/1116"], "path": ["3321", "3322", "3323"]}, dice=[1])
    assert (refused.value.rule, refused.value.message) == ("8.1", "move 333/1116: 333/1116 needs 3 MP and has 2")
    ctx = play(r, {"type": "move", "units": ["333/1116"], "path": ["3321", "3322"]}, dice=[1])
    assert ctx.of("move")[0]["text"] == "333/1116 moves 3320 -> 3321 -> 3322 (2 MP)."


def test_9_11_a_unit_that_advanced_after_a_manoeuvre_attack_has_completed_its_movement():
    """9.11: "the facing of the unit is changed by 90 degrees to indicate that its movement has
    been completed": a manoeuvre attack follows the stack's move (9.2), and its advance ends it."""
    r = position({"LW/I": {"hex": "3320"}, "1TC/44a": {"hex": "3222"}}, phase="movement")
    play(r, {"type": "move", "units": ["1TC/44a"], "path": ["3221", "3220"]})
    play(r, {"type": "attack", "target": "3320", "units": ["1TC/44a"]})
    play(r, {"type": "fire", "target": None}, dice=[1])           # 3-4 column, die 1: 1-0
    play(r, {"type": "morale", "choice": "retreat"})
    play(r, {"type": "retreat", "to": None})
    play(r, {"type": "advance", "units": ["1TC/44a"], "path": ["3320"]})
    assert "1TC/44a" in r["markers"]["done"]
    with pytest.raises(IllegalOrder) as refused:
        play(r, {"type": "move", "units": ["1TC/44a"], "path": ["3321"]}, dice=[1])
    assert (refused.value.rule, refused.value.message) == ("8.1", "move 1TC/44a: 1TC/44a has completed its movement")


# --- 10.x artillery ----------------------------------------------------------------------------------

def test_10_artillery_eligibility():
    rules = position({"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}, "333/Art": {"hex": "3522"},
                      "5TA/Arta": {"hex": "3523"}, "26TC/Art": {"hex": "3223"}, "119/Art": {"hex": "3321"}})
    group = ["333/1116"]
    assert artillery.why_not_support(SCENARIO, rules, "333/Art", group, "3320", "concentrated") is None
    assert artillery.why_not_support(SCENARIO, rules, "119/Art", group, "3320", "concentrated") == \
        ("10.2", "119/Art is adjacent to enemy units and may not give supporting fire")
    assert artillery.why_not_support(SCENARIO, rules, "26TC/Art", group, "3320", "concentrated") == \
        ("10.1", "3320 is beyond the range 3 of 26TC/Art")
    assert artillery.why_not_support(SCENARIO, rules, "5TA/Arta", group, "3320", "concentrated") is None  # 333 is 5TA
    assert artillery.why_not_support(SCENARIO, rules, "333/Art", group, "2520", "concentrated") == \
        ("10.1", "2520 is beyond the range 4 of 333/Art")
    assert artillery.matching(SCENARIO, rules, ["333/Art", "5TA/Arta"], {"3220": group}, "3320", "concentrated") is None
    st.mark(rules, "fired", "333/Art")
    assert artillery.why_not_support(SCENARIO, rules, "333/Art", group, "3320", "concentrated") == \
        ("10.2", "333/Art has a fired marker: it has given its supporting fire for this turn")


def test_10_2_5th_tank_army_artillery_never_supports_26tc():
    """6.2: 1TC and 26TC are in different armies; the order of battle puts 26TC in the 5th
    Shock Army, so artillery without a division colour, which supports 5TA units only, gives
    26TC no support, nor any group with a 26TC unit in it; 26TC's own artillery supports it."""
    rules = position({"LW/I": {"hex": "3320"}, "1TC/117b": {"hex": "3220"}, "26TC/19": {"hex": "3220"},
                      "5TA/Arta": {"hex": "3323"}, "26TC/Art": {"hex": "3222"}})
    assert (SCENARIO.units["1TC/117b"].army, SCENARIO.units["26TC/19"].army) == ("5TA", "5SA")
    assert artillery.why_not_support(SCENARIO, rules, "5TA/Arta", ["1TC/117b"], "3320", "concentrated") is None
    assert artillery.why_not_support(SCENARIO, rules, "5TA/Arta", ["1TC/117b", "26TC/19"], "3320", "concentrated") == (
        "10.2", "5TA/Arta is 5th Tank Army artillery without a division colour and supports only units of the 5th "
        "Tank Army, not 26TC/19")
    assert artillery.why_not_support(SCENARIO, rules, "26TC/Art", ["26TC/19"], "3320", "concentrated") is None
    assert artillery.why_not_support(SCENARIO, rules, "26TC/Art", ["1TC/117b", "26TC/19"], "3320", "concentrated") == (
        "10.2", "26TC/Art has the colour of 26TC and supports only units of 26TC")


def _attack_on_3320(**markers) -> dict:
    """The Soviet 333/1116 attacks LW/I in 3320; German artillery Art/I (range 4) and Ob/Art
    (range 3) are in range, Art/II (range 4, in 2917) is not."""
    units = {"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}, "Art/I": {"hex": "3117"},
             "Ob/Art": {"hex": "3118", "markers": ["fired"]}, "Art/II": {"hex": "2917"}}
    for uid, marks in markers.items():
        units[uid.replace("_", "/")]["markers"] = marks
    rules = position(units, phase="attack")
    play(rules, {"type": "attack", "target": "3320", "units": ["333/1116"]})
    return rules


def test_10_2_defensive_artillery_decision_offers_only_eligible_units():
    rules = _attack_on_3320()
    need = next_step(rules)
    assert (need.side, need.kind) == ("german", "defensive-artillery")
    assert RULESET.legal_orders(SCENARIO, rules, need) == [{"type": "artillery", "unit": None}, {"type": "artillery", "unit": "Art/I"}]
    assert refusal(rules, {"type": "artillery", "unit": "Ob/Art"}) == (
        "10.2", "artillery Ob/Art: Ob/Art has a fired marker: it has given its supporting fire for this turn")
    assert refusal(rules, {"type": "artillery", "unit": "Art/II"}) == (
        "10.1", "artillery Art/II: 3320 is beyond the range 4 of Art/II")
    # the template lists them as orders are written: `null`, not Python's None (players' probe)
    lines = RULESET.describe_need(SCENARIO, rules, need)
    assert "legal: {type: artillery, unit: null}" in lines and "legal: {type: artillery, unit: Art/I}" in lines


def test_10_2_no_eligible_artillery_no_defensive_artillery_decision():
    rules = _attack_on_3320(Art_I=["fired"])
    need = next_step(rules)
    assert (need.side, need.kind) == ("german", "defensive-fire")
    assert rules["attack"]["def_support"] is None


def test_10_2_a_coloured_battery_supports_the_units_of_its_division_in_a_mixed_stack_which_then_fire_alone():
    """10.2: artillery with a division's colour "may give supporting fire only if the group of
    units firing belongs to the same division"; in defence the group firing is the defender's
    choice (9.4), so one unit of another formation in the hex attacked no longer bars it (a
    review: LW/ArtI was offered for LW/II alone in 3120, and not at all once Art/StuG stood with
    it). Declared, it supports LW/II, which fires without Art/StuG."""
    rules = position({"LW/II": {"hex": "3120"}, "Art/StuG": {"hex": "3120"}, "LW/ArtI": {"hex": "3018"},
                      "333/1116": {"hex": "3220"}}, phase="attack")
    play(rules, {"type": "attack", "target": "3120", "units": ["333/1116"], "support": []})
    need = next_step(rules)
    assert (need.side, need.kind) == ("german", "defensive-artillery")
    assert RULESET.legal_orders(SCENARIO, rules, need) == [{"type": "artillery", "unit": None},
                                                           {"type": "artillery", "unit": "LW/ArtI"}]
    play(rules, {"type": "artillery", "unit": "LW/ArtI"})
    need = next_step(rules)
    assert need.kind == "defensive-fire"
    assert RULESET.legal_orders(SCENARIO, rules, need) == [{"type": "fire", "target": None},
                                                           {"type": "fire", "target": "3220"}]
    assert refusal(rules, {"type": "fire", "target": "3220", "units": ["Art/StuG"]}) == (
        "10.2", "fire: Art/StuG may not fire with the supporting artillery LW/ArtI, which supports only the group of "
                "units firing of its own formation; the units that may are LW/II")
    ctx = play(rules, {"type": "fire", "target": "3220"}, dice=[1] * 6)
    assert [e["units"] for e in ctx.of("defensive-target")] == [["LW/II"]]
    [shot] = [e for e in ctx.events if e["type"] == "fire"]
    assert (shot["firers"], shot["strength"], shot["column"], shot["die"]) == (["LW/II"], 6, "5-7", 1)
    assert "Infantry: 3 x1 = 3; Artillery (support): 3 x1 = 3; strength 6" in shot["text"]
    # and a battery of a colour no unit of the hex has is refused by its colour, as before
    rules = position({"Art/StuG": {"hex": "3120"}, "Ob/I": {"hex": "3120"}, "LW/ArtI": {"hex": "3018"},
                      "Art/I": {"hex": "3019"}, "333/1116": {"hex": "3220"}}, phase="attack")
    play(rules, {"type": "attack", "target": "3120", "units": ["333/1116"], "support": []})
    assert next_step(rules).kind == "defensive-artillery" and "LW/ArtI" not in combat.def_support_options(
        SCENARIO, rules, rules["attack"])
    assert refusal(rules, {"type": "artillery", "unit": "LW/ArtI"}) == (
        "10.2", "artillery LW/ArtI: LW/ArtI has the colour of LW and supports only units of LW")


# --- 4.x victory ----------------------------------------------------------------------------------

def test_4_1_and_4_2_vp_in_halves():
    rules = position({"CC/21a": {"hex": "4010", "strength": 1}, "CC/21b": {"status": "gone"}},
                     control={"3203": "soviet"})
    score = victory.vp(SCENARIO, rules)
    items = {i["what"]: i["halves"] for i in score["items"]}
    assert items["CC/21a lost 2"] == 2 and items["CC/21b eliminated"] == 6
    assert "Oblivskaya" not in items  # only one of its two hexes is Soviet: nobody scores


@pytest.mark.parametrize("soviet, german, level, winner", [
    (0, 8, "Draw", None), (0, 9, "Draw", None), (0, 10, "Narrow victory", "german"), (20, 0, "Narrow victory", "soviet"),
    (22, 0, "Substantial victory", "soviet"), (0, 32, "Major victory", "german"), (0, 42, "Brilliant victory", "german")])
def test_4_5_levels(soviet, german, level, winner):
    lv = victory.level(SCENARIO, {"soviet": soviet, "german": german})
    assert (lv["level"], lv["winner"]) == (level, winner)


def test_4_3_line_of_communication():
    assert victory.german_line(SCENARIO, position({}))
    assert not victory.german_line(SCENARIO, position({"5TA/510": {"hex": "2541"}}))  # a Soviet unit on 2541
    near = [h for h in SCENARIO.neigh["2541"] if h not in ("2540", "2542")][0]
    assert not victory.german_line(SCENARIO, position({"5TA/510": {"hex": near}}))  # its ZOC covers 2541


def test_3_3_control_by_zone_of_control_and_its_places():
    """3.3's second clause: a hex into which only one side's ZOC extends, holding no unit of
    the other side, is that side's; otherwise the player who last moved into it (at the start
    German but 2832). Places of 4.2 follow, and 14.0 notes them at the end of the phase."""
    rules = position({"1TC/117a": {"hex": "2620"}, "LW/I": {"hex": "2420"}, "Ob/AT": {"hex": "2619"},
                      "CC/21a": {"hex": "3304"}}, control={"2521": "soviet", "2419": "soviet"})
    of = bd.control(SCENARIO, rules)
    assert of("2621") == "soviet"  # Soviet ZOC only: 3.3's second clause
    assert (of("2520"), of("2521")) == ("german", "soviet")  # in both ZOCs: the last to move in (or the start)
    assert of("2619") == "german"  # Soviet ZOC only, but a German unit is there
    assert of("2419") == "german"  # German ZOC only, though a Soviet unit moved in last
    items = {i["what"]: (i["side"], i["halves"]) for i in victory.vp(SCENARIO, rules)["items"]}
    assert items["Oblivskaya"] == ("soviet", 10)  # 3203 and 3204 both in CC/21a's ZOC only
    assert rules["ever_soviet"] == ["Novomaksimovskiy"]
    play(rules, {"type": "end"})
    assert rules["ever_soviet"] == ["Novomaksimovskiy", "Oblivskaya"]


def test_3_3_a_hex_holding_units_is_their_sides_whatever_zones_reach_it():
    """A hex that holds units is their side's, though they were set up there and never moved
    in: the other side holds it by neither clause of 3.3 (a probe: Soviet tank battalions
    that had stood in 2823 since set-up handed it to the German side when Hei/I's zone of
    control reached it, with no German unit entering)."""
    rules = position({"1TC/159a": {"hex": "2823"}, "1TC/117a": {"hex": "2822"}, "Hei/I": {"hex": "2622"}},
                     player="german")
    assert st.recorded(SCENARIO, rules)("2823") == "german"   # nobody moved into it: German at the start
    assert bd.control(SCENARIO, rules)("2823") == "soviet"
    play(rules, {"type": "move", "units": ["Hei/I"], "path": ["2723"]})
    assert "2823" in bd.zoc(SCENARIO, rules, "german")[0]      # both zones of control reach it now
    of = bd.control(SCENARIO, rules)
    assert (of("2823"), of("2822"), of("2723")) == ("soviet", "soviet", "german")
    # an empty hex both zones reach goes to the last to move in, or to its side at the start
    assert of("2724") == "german"


def test_4_4_8_5_2_a_unit_on_the_exit_hex_in_an_enemy_zoc_is_offered_its_exit():
    """26TC/216 on the exit hex 1020, in the zone of control of 11Pz/110I: it may leave by a
    tactical retreat (8.5.2) and then the map (4.4), which the engine took but never offered
    (a rules probe: the options hold what the engine accepts)."""
    rules = position({"26TC/216": {"hex": "1020"}, "11Pz/110I": {"hex": "1121"}})
    exit_order = {"type": "move", "units": ["26TC/216"], "path": [], "exit": True}
    assert exit_order in RULESET.legal_orders(SCENARIO, rules, next_step(rules))
    ctx = play(rules, exit_order, dice=[1])
    assert ctx.of("tactical-retreat") and ctx.of("exit") and rules["units"]["26TC/216"] == "exited"


def test_4_4_an_exit_line_runs_through_a_hex_soviet_units_have_held_since_set_up():
    """4.4's line may not pass hexes "under German control": a hex Soviet units hold is not,
    though they never moved into it (3.3). With a strength-2 battalion, whose zone of control
    stays in its hex (2.3.3), standing in the gap hex 2621 of the case
    4-4-exit-line-through-soviet-zone-of-control, the exit still scores 4 VP (it scored 0)."""
    case = load_mapping("tests/cases/chir/4-4-exit-line-through-soviet-zone-of-control.yaml")
    units = {uid: spot for uid, spot in case["position"]["units"].items() if uid != "1TC/117a"}
    rules = position(dict(units, **{"1TC/159a": {"hex": "2621"}}), turn=10, control=case["position"]["control"])
    assert bd.control(SCENARIO, rules)("2621") == "soviet"
    ctx = play(rules, {"type": "move", "units": ["5MC/168"], "path": ["1020"], "exit": True})
    assert [(e["line"], e["vp"]) for e in ctx.events if e["type"] == "exit"] == [(True, 4)]
    assert rules["exit_vp"] == {"5MC/168": 4}


def test_14_0_optional_multiplier_rounds_up():
    rules = position({})
    multiplier = RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options, never_soviet_city_multiplier=True))
    items = {i["what"]: i["halves"] for i in victory.vp(multiplier, rules)["items"]}
    assert items["Surovikino"] == 16 and items["Nizhne-Chirskaya"] == 30


# --- flow, policies, orders -------------------------------------------------------------------------

def test_illegal_orders_name_rule_and_unknown_ids():
    rules = position({"LW/I": {"hex": "3320"}})
    with pytest.raises(IllegalOrder):
        play(rules, {"type": "move", "units": ["NOPE"], "path": ["3221"]})
    rules = position({"333/1116": {"hex": "3220"}})
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "move", "units": ["333/1116"], "path": ["9999"]})
    assert info.value.rule == "2.1"


def test_every_decision_has_a_standing_order_and_ask_stops():
    for key, choices in RULESET.policy_schema["properties"].items():
        if key != "on_void":
            assert "ask" in choices["enum"], key


# --- 9.4 fire is optional ---------------------------------------------------------------------------

def _defensive_fire_position():
    rules = position({"11Pz/15a": {"hex": "2520"}, "11Pz/110I": {"hex": "2520"}, "11Pz/110II": {"hex": "2520"},
                      "89/a": {"hex": "2620"}, "5TA/510": {"hex": "2620"}, "89/b": {"hex": "2621"}},
                     phase="attack", turn=2)
    play(rules, {"type": "attack", "target": "2520", "units": ["89/a", "5TA/510"]})
    return rules


def test_9_4_defensive_fire_options_all_none_and_single_units():
    rules = _defensive_fire_position()
    need = next_step(rules)
    assert (need.side, need.kind) == ("german", "defensive-fire")
    assert RULESET.legal_orders(SCENARIO, rules, need) == [
        {"type": "fire", "target": None}, {"type": "fire", "target": "2620"},
        {"type": "fire", "target": "2620", "units": ["11Pz/110I"]},
        {"type": "fire", "target": "2620", "units": ["11Pz/110II"]},
        {"type": "fire", "target": "2620", "units": ["11Pz/15a"]}]
    # the standing order: every eligible unit fires at the strongest group
    assert RULESET.policy(SCENARIO, rules, need, dict(RULESET.default_policies)) == {"type": "fire", "target": "2620"}


def test_9_4_defender_chooses_which_units_fire():
    rules = _defensive_fire_position()
    ctx = play(rules, {"type": "fire", "target": "2620", "units": ["11Pz/110I", "11Pz/15a"]}, dice=[6, 6])
    target = ctx.of("defensive-target")[0]
    assert target["units"] == ["11Pz/110I", "11Pz/15a"] and target["chosen_by"] == "order"
    fire = ctx.of("fire")[0]
    assert fire["fire"] == "defensive" and fire["firers"] == ["11Pz/110I", "11Pz/15a"]
    assert fire["strength"] == 8  # tanks 4 x2 = 8; infantry 3 x1/4 = 0 (11Pz/110II holds its fire)
    offensive = ctx.of("fire")[1]
    assert offensive["firers"] == ["5TA/510", "89/a"]  # exactly the declared attackers (89/b in 2621 does not fire)


def test_9_4_defensive_fire_default_is_every_eligible_unit_and_bad_choices_are_illegal():
    rules = _defensive_fire_position()
    ctx = play(rules, {"type": "fire", "target": "2620"}, dice=[6, 6])
    fire = ctx.of("fire")[0]
    assert fire["firers"] == ["11Pz/110I", "11Pz/110II", "11Pz/15a"] and fire["strength"] == 9  # (3+3) x1/4 = 1
    for order in ({"type": "fire", "target": "2620", "units": ["89/a"]},
                  {"type": "fire", "target": "2620", "units": []},
                  {"type": "fire", "target": None, "units": ["11Pz/15a"]},
                  {"type": "fire", "target": "2620", "units": ["11Pz/15a", "11Pz/15a"]}):
        with pytest.raises(IllegalOrder) as info:
            play(_defensive_fire_position(), order)
        assert info.value.rule == "9.4"


# --- 6.4 and 9.10.3: removal to comply with the stacking limit ------------------------------------

def _overstacked_german_move():
    rules = position({"Sch/I": {"hex": "2020"}, "Sch/II": {"hex": "2020"}, "St/I": {"hex": "2020"},
                      "St/II": {"hex": "2021"}}, player="german")
    ctx = play(rules, {"type": "move", "units": ["St/II"], "path": ["2020"]})
    return rules, ctx


def test_6_5_a_stack_moves_from_one_hex_and_the_refusal_says_where_each_unit_stands():
    """6.5: units move together only from the same hex. A players' probe: a move of Ob/AT and
    Ob/II queued behind their attack was void after Ob/II advanced, and the refusal did not
    say that the two no longer stood together."""
    rules = position({"Sch/I": {"hex": "2020"}, "Sch/II": {"hex": "2020"}, "St/I": {"hex": "2021"}}, player="german")
    assert refusal(rules, {"type": "move", "units": ["Sch/I", "St/I", "Sch/II"], "path": ["2120"]}) == (
        "6.5", "move Sch/I,Sch/II,St/I: only units in the same hex may move together as a stack, and Sch/I, Sch/II are "
               "in 2020, St/I is in 2021")


def test_6_4_move_may_end_over_the_limit_then_the_owner_removes_units():
    rules, ctx = _overstacked_german_move()
    assert st.hex_of(rules, "St/II") == "2020"
    over = ctx.of("over-stacked")[0]
    assert (over["hex"], over["pool"], over["rule"]) == ("2020", ["Sch/I", "Sch/II", "St/I", "St/II"], "6.4")
    need = next_step(rules)
    assert (need.side, need.kind, need.rule, need.accepts, need.decision) == ("german", "stack-removal", "6.4", ("remove",), True)
    assert RULESET.legal_orders(SCENARIO, rules, need) == [{"type": "remove", "units": [u]} for u in ("Sch/I", "Sch/II", "St/I", "St/II")]
    # default standing order: the weakest (St/I and St/II have 2), then lowest morale (both 3), then id
    order = RULESET.policy(SCENARIO, rules, need, dict(RULESET.default_policies))
    assert order == {"type": "remove", "units": ["St/I"]}
    assert RULESET.policy(SCENARIO, rules, need, {"stack_removal": "ask"}) is None
    ctx = play(rules, order, chosen_by="policy")
    gone = ctx.of("eliminated")[0]
    assert (gone["unit"], gone["hex"], gone["rule"]) == ("St/I", "2020", "6.4")
    assert ctx.of("stack-removal")[0]["left"] == ["Sch/I", "Sch/II", "St/II"]
    assert st.status(rules, "St/I") == "gone" and rules["removal"] is None
    assert next_step(rules).kind == "german-movement"
    items = {i["what"]: (i["side"], i["halves"]) for i in victory.vp(SCENARIO, rules)["items"]}
    assert items["St/I eliminated"] == ("soviet", 4)  # 4.1: 1 VP per printed point (2)
    # `pbem submit` warns the mover that his standing order removed a unit (players' probe), not the other side,
    # and not where he named the unit himself
    from pbem.rulesets.chir import removal
    events = ctx.events
    assert removal.cautions(SCENARIO, rules, events, "german", []) == [
        "St/I was removed from 2020 by your standing order stack_removal: the hex was over the stacking limit (6.4)"]
    assert removal.cautions(SCENARIO, rules, events, "soviet", []) == []
    assert removal.cautions(SCENARIO, rules, [dict(e, chosen_by="order") for e in events], "german", []) == []


def test_9_11_submit_warns_of_a_queued_order_for_units_its_standing_order_may_advance():
    """A players' probe: German packet 13 attacked 3303 with groups 3202 (Ob/AT, Ob/II) and 3203,
    then moved Ob/AT and Ob/II on in the movement phase. The dice cleared 3303, the standing
    order `advance: vacated` advanced Ob/II, and the move was void with the rest of the phase
    (6.5); the dry run's imagined roll had not cleared the hex, and it said nothing. `pbem
    submit` now warns of an order queued behind an attack (begun, or queued before it) that
    names its units that may advance (tank and infantry, 9.11), while the standing order
    advances and no order of the packet answers an advance itself (a review)."""
    from pathlib import Path

    from pbem.core import game
    from pbem.core.engine import effective_policies
    from pbem.rulesets.chir import flow, retreat

    rules = {"attack": {"att": "german", "n": 1, "target": "3303", "advanced": [],
                        "groups": {"3202": ["Ob/AT", "Ob/II"], "3203": ["Ob/Flak", "Ob/I", "Ob/III"]}}}
    queued = [{"seq": 13, "index": 2, "order": {"type": "attack", "target": "3308", "units": ["53W/I", "Sch/I"],
                                                  "support": []}},
              {"seq": 13, "index": 3, "order": {"type": "end", "phase": "attack"}},
              {"seq": 13, "index": 4, "order": {"type": "move", "units": ["Ob/AT", "Ob/II"], "path": ["3103"]}},
              {"seq": 13, "index": 5, "order": {"type": "move", "units": ["11Pz/15a"], "path": ["1625"]}},
              {"seq": 13, "index": 6, "order": {"type": "move", "units": ["St/I", "Sch/I"], "path": ["3209"]}},
              {"seq": 13, "index": 7, "order": {"type": "move", "units": ["53W/I"], "path": ["3209"]}},
              {"seq": 13, "index": 8, "order": {"type": "move", "units": ["Ob/AT"], "path": ["3103"]}}]
    assert [SCENARIO.units[u].cls for u in ("Ob/AT", "53W/I", "Ob/II", "Sch/I")] == [
        "anti-tank", "artillery", "infantry", "infantry"]     # anti-tank and artillery never advance (9.11)
    policies = effective_policies(RULESET, {"policies": {"german": {"seq": 0, "values": {}}}}, "german")
    assert policies["advance"] == "vacated"    # the default
    warned = [
        "order 4 of packet 13 (move) names Ob/II, of attack 1 on 3303: should that attack clear 3303, your standing "
        "order `advance: vacated` may advance it there first (9.11), and the order, written for where it stands now, "
        "may then be void; `advance: none` (or `ask`) under policies keeps it where it stands",
        "order 6 of packet 13 (move) names Sch/I, of the attack of order 2 on 3308: should that attack clear 3308, "
        "your standing order `advance: vacated` may advance it there first (9.11), and the order, written for where "
        "it stands now, may then be void; `advance: none` (or `ask`) under policies keeps it where it stands"]
    assert retreat.advance_cautions(SCENARIO, rules, "german", queued, policies) == warned
    assert flow.cautions(SCENARIO, rules, [], "german", queued, policies) == warned
    assert RULESET.cautions is flow.cautions
    for other_policy in ("none", "ask"):   # no advance by the standing order: nothing to warn of
        assert retreat.advance_cautions(SCENARIO, rules, "german", queued, dict(policies, advance=other_policy)) == []
    for answer in ({"type": "advance", "units": ["Ob/II"], "path": ["3303"]}, {"type": "advance-end"}):
        # the packet answers an advance itself: the standing order decides none of its units' advance
        answered = queued[:3] + [{"seq": 13, "index": 9, "order": answer}] + queued[3:]
        assert retreat.advance_cautions(SCENARIO, rules, "german", answered, policies) == []
    # `pbem submit` asks the game, which gives the ruleset the sender's standing orders as the state has them
    g = game.open_folder(Path(__file__).resolve().parent.parent / "examples" / "chir-demo").game
    state = {"rules": rules, "policies": {"german": {"seq": 12, "values": {}}}}
    assert g.cautions(state, [], "german", queued) == warned
    state["policies"]["german"]["values"] = {"advance": "none"}
    assert g.cautions(state, [], "german", queued) == []
    # the other side's attack, and one whose advance is made already, advance none of the sender's units now
    assert retreat.advance_cautions(SCENARIO, rules, "soviet", queued[2:3], policies) == []
    rules["attack"]["advanced"] = ["Ob/II"]
    assert retreat.advance_cautions(SCENARIO, rules, "german", queued[2:3], policies) == []


def test_6_4_removal_only_what_is_necessary():
    rules, _ = _overstacked_german_move()
    with pytest.raises(IllegalOrder) as info:
        play(rules, {"type": "remove", "units": ["Sch/I", "St/I"]})
    assert info.value.rule == "6.4"  # one removal suffices
    with pytest.raises(IllegalOrder):
        play(rules, {"type": "remove", "units": ["LW/I"]})
    play(rules, {"type": "remove", "units": ["Sch/II"]})
    assert [u for u in bd.units_in(SCENARIO, rules, "2020", "german")] == ["Sch/I", "St/I", "St/II"]


def test_6_4_minimal_sets_and_one_at_a_time_for_a_soviet_regiment():
    rules = position({"1TC/44a": {"hex": "3123"}, "1TC/44b": {"hex": "3123"}, "333/1116": {"hex": "3122"}})
    play(rules, {"type": "move", "units": ["333/1116"], "path": ["3123"]})
    need = next_step(rules)
    assert need.kind == "stack-removal" and need.side == "soviet"
    assert RULESET.legal_orders(SCENARIO, rules, need) == [
        {"type": "remove", "units": ["333/1116"]}, {"type": "remove", "units": ["1TC/44a", "1TC/44b"]},
        {"type": "remove", "units": ["1TC/44a"]}, {"type": "remove", "units": ["1TC/44b"]}]
    play(rules, {"type": "remove", "units": ["1TC/44a"]})
    assert next_step(rules).kind == "stack-removal"  # still over the limit (6.3): ask again
    assert RULESET.legal_orders(SCENARIO, rules, next_step(rules)) == [
        {"type": "remove", "units": ["1TC/44b"]}, {"type": "remove", "units": ["333/1116"]}]
    play(rules, {"type": "remove", "units": ["1TC/44b"]})
    assert rules["removal"] is None and bd.units_in(SCENARIO, rules, "3123", "soviet") == ["333/1116"]
    assert rules["ps"]["last_move"] == {"units": ["333/1116"], "may_attack": True}


def test_6_4_advance_may_end_over_the_limit_and_legal_orders_offer_only_fitting_ends():
    rules = position({"1TC/44a": {"hex": "3220"}, "333/1118": {"hex": "3321"}}, phase="attack")
    rules["attack"] = {"n": 1, "kind": "concentrated", "att": "soviet", "def": "german", "target": "3320",
                       "defenders": ["LW/I"], "groups": {"3220": ["1TC/44a"]}, "support": [], "def_support": None,
                       "def_target": None, "def_units": [], "step": "advance", "hit": None, "att_retreated": [],
                       "def_route": [], "M": 1, "advanced": [], "invalid": [], "fired_groups": ["3220"],
                       "def_result": "-", "att_result": "1-0"}
    need = next_step(rules)
    assert need.kind == "advance"
    assert {"type": "advance", "units": ["1TC/44a"], "path": ["3321"]} not in RULESET.legal_orders(SCENARIO, rules, need)
    ctx = play(rules, {"type": "advance", "units": ["1TC/44a"], "path": ["3321"]})
    assert ctx.of("over-stacked")[0]["pool"] == ["1TC/44a", "333/1118"]
    assert next_step(rules).kind == "stack-removal"
    ctx = play(rules, RULESET.policy(SCENARIO, rules, next_step(rules), {}), chosen_by="policy")
    assert [e["unit"] for e in ctx.of("eliminated")] == ["1TC/44a"]  # strength 3 < 6
    assert rules["attack"] is None and ctx.of("attack-end")  # the attack then goes on to its end


def test_9_10_3_no_hex_within_the_limit_the_owner_removes_retreated_units():
    # LW/I and LW/II retreat 1 hex from 2020 to 2021 (the only hex free of Soviet units), where
    # Sch/I and St/I already stand (4 battalions of two units: over 6.1); every other neighbour of 2021 holds a Soviet unit of
    # 1 strength (no ZOC), so the retreat ends there over the limit
    soviet = ["1TC/44c", "89/b", "26TC/19", "1TC/159a", "1TC/159b", "119/a", "119/b", "119/c"]
    b = SCENARIO
    blocked = sorted((set(b.neigh["2020"]) | set(b.neigh["2021"])) - {"2020", "2021"})
    units = {"LW/I": {"hex": "2020"}, "LW/II": {"hex": "2020"}, "Sch/I": {"hex": "2021"}, "St/I": {"hex": "2021"}}
    assert len(blocked) == len(soviet)
    units.update({u: {"hex": h, "strength": 1} for u, h in zip(soviet, blocked)})
    rules = position(units)
    hit = combat.new_hit(SCENARIO, "german", "2020", ["LW/I", "LW/II"], 1, 0, "x")
    hit["retreaters"], hit["stage"] = ["LW/I", "LW/II"], "retreat"
    ctx = Ctx()
    assert combat.run_hit(SCENARIO, rules, hit, ctx) is False
    assert ctx.of("retreat-step")[0]["to"] == "2021"
    need = next_step(rules)
    assert (need.side, need.kind, need.rule) == ("german", "stack-removal", "9.10.3")
    assert RULESET.legal_orders(SCENARIO, rules, need) == [{"type": "remove", "units": ["LW/I"]},
                                                 {"type": "remove", "units": ["LW/II"]}]
    ctx = play(rules, {"type": "remove", "units": ["LW/II"]})
    assert [(e["unit"], e["rule"]) for e in ctx.of("eliminated")] == [("LW/II", "9.10.3")]
    ctx = Ctx()
    assert combat.run_hit(SCENARIO, rules, hit, ctx) is True
    assert ctx.of("retreat")[0]["survivors"] == ["LW/I"] and st.hex_of(rules, "LW/I") == "2021"


def test_3_setup_has_no_standing_order():
    assert "setup" not in RULESET.policy_schema["properties"]
    assert RULESET.default_policies["stack_removal"] == "weakest"


def test_an_id_of_no_unit_names_the_unit_it_most_likely_meant():
    """Players' probe: `346/A` was refused with "there is no unit 346/A" alone; the same letters
    in another case, else the closest id, are named (as dos does)."""
    rules = position({"346/a": {"hex": "2930"}, "LW/I": {"hex": "2830"}}, phase="movement", player="soviet")
    assert refusal(rules, {"type": "move", "units": ["346/A"], "path": ["2931"]}) == (
        "8.0", "move 346/A: there is no unit 346/A (did you mean 346/a?)")
    assert refusal(rules, {"type": "move", "units": ["XX/99"], "path": ["2931"]}) == ("8.0", "move XX/99: there is no unit XX/99")
    from pbem.rulesets.chir import report

    with pytest.raises(ValueError, match=r"^there is no unit lw/i \(did you mean LW/I\?\) in the chir order of battle"):
        report.look(SCENARIO, rules, "unit", "lw/i")
