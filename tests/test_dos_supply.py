"""dos supply: 12.0-12.5, the HQ lines of communications (11.3), air supply (14.5), and the
terrain of supply lines (8.24, 10.28, 10.35, 10.48, 14.46). The supply of every unit at
once (supply.field) and at the instant of combat (supply.supplied) must agree.

Test names begin with the case they test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.rulesets.dos import board as bd
from pbem.rulesets.dos import flow
from pbem.rulesets.dos import state as st
from pbem.rulesets.dos import supply as sp
from tests.test_dos_support import rail_chain, SC, Ctx, IllegalOrder, at, events_of, find_step, play, refused


def supplied(rules, side, uids=None):
    sc = SC()
    found, _ = sp.field(sc, rules, bd.Board(sc, rules), side)
    return found if uids is None else {u for u in uids if u in found}


def dist_from_sources(rules, side):
    sc = SC()
    lines = sp.lines_of(sc, rules, side)
    return lines.distances(lines.sources(), 40)


def edge_of_reach(rules, side, bound, where=lambda sc, i: True):
    """(a hex at exactly `bound` MP from a source, a clear neighbour at bound + 1)."""
    sc = SC()
    dist = dist_from_sources(rules, side)
    for i in range(len(sc.ids)):
        if dist[i] == bound and sc.terrain_of[i] == "clear" and where(sc, i) and i not in sc.rail_hex:
            for j in sc.nb[i]:
                if dist[j] == bound + 1 and sc.terrain_of[j] == "clear" and j not in sc.rail_hex:
                    return sc.ids[i], sc.ids[j]
    raise AssertionError("no such hexes")


# --- 12.1: Soviet supply through HQs --------------------------------------------------------------------

def test_12_11_12_14_a_soviet_hq_within_twelve_mp_of_a_source():
    inside, outside = edge_of_reach(at(), "soviet", 12)
    assert supplied(at(player="soviet", units={"A/21": {"hex": inside}}), "soviet") == {"A/21"}
    assert supplied(at(player="soviet", units={"A/21": {"hex": outside}}), "soviet") == set()


def test_12_12_12_13_lines_of_communications_and_tufanov():
    sc = SC()
    hq = "N2245"
    row = ["N2244", "N2243", "N2242", "N2241"]                        # 1 to 4 hexes east of the HQ
    units = {"A/51": {"hex": hq}}                                     # Trufanov ("Tufanov", 12.12): rating 3
    units.update({f"R/{n}": {"hex": h, "revealed": [2, 4]} for n, h in zip((6, 38, 63, 77), row)})
    rules = at(player="soviet", units=units)
    assert [sc.distance(sc.idx[hq], sc.idx[h]) for h in row] == [1, 2, 3, 4]
    assert supplied(rules, "soviet", ["R/6", "R/38", "R/63", "R/77"]) == {"R/6", "R/38", "R/63"}
    source = next(sc.ids[i] for i in sorted(sp.lines_of(sc, rules, "soviet").sources())
                  if sc.terrain_of[i] == "clear" and not bd.Board(sc, rules).units_at(i))
    rules = at(player="soviet", units={"R/6": {"hex": source, "revealed": [2, 4]}})
    assert supplied(rules, "soviet") == set()                          # 12.13: never straight from a source


def test_10_49_12_15_soviet_sources_rail_to_an_edge_or_the_volga_and_volga_towns():
    sc = SC()
    rules = at()
    sources = set(sp.lines_of(sc, rules, "soviet").sources())
    assert sc.idx["N3117"] in sources and sc.idx["N2013"] in sources                # Volga towns
    assert not sources & sc.axis_start                                                # Axis rail: never
    cut = at(control={h: "axis" for h in ["N1228"]})
    assert sc.idx["N1228"] not in set(sp.lines_of(sc, cut, "soviet").sources())


def test_6_36_12_15_a_city_on_a_branch_line_is_a_source_and_elista_is_none():
    """The branch lines of 1942 (dos 1.3.0) put Kalach, Nalchik, Mozdok, Yeysk, Budyonnovsk and
    Cherkessk on the Soviet rail net, so each is a Soviet Supply Source, and Izium an Axis one;
    Elista, with no railroad, is neither."""
    sc = SC()
    soviet = set(sp.lines_of(sc, at(), "soviet").sources())
    axis = set(sp.lines_of(sc, at(), "axis").sources())
    branch = ["N3221", "S3720", "S3414", "S1045", "S2617", "S3128"]
    assert [h for h in branch if sc.idx[h] not in soviet] == []
    assert sc.idx["N2950"] in axis and sc.idx["N2950"] not in soviet
    assert sc.idx["S1416"] not in soviet | axis


def test_11_31_11_33_11_32_hqs_of_the_same_nationality_and_their_own_supply():
    rules = at(units={"Hun/6": {"hex": "N2253", "revealed": 3}, "HQ/3Rum": {"hex": "N2253"},
                      "Rum/1": {"hex": "N2253", "revealed": 3}})
    assert supplied(rules, "axis", ["Hun/6", "Rum/1"]) == {"Rum/1"}                  # 12.21: the Rumanian HQ only
    rules = at(units={"Hun/6": {"hex": "N2253", "revealed": 3}, "Hun/7": {"hex": "N2252", "revealed": 3},
                      "HQ/2Hun": {"hex": "N2253"}})
    assert supplied(rules, "axis", ["Hun/6", "Hun/7"]) == {"Hun/6", "Hun/7"}          # 11.32: any number
    cut = {"HQ/2Hun": {"hex": "N2520"}, "Hun/6": {"hex": "N2520", "revealed": 3}}
    assert supplied(at(units=cut), "axis", ["Hun/6"]) == set()                       # 11.33: HQ out of supply


def test_10_35_11_33_12_11_an_hq_in_a_mountain_hex_supplies_nobody():
    sc = SC()
    # A/21 (rating 3) in the mountain hex S3139, 6 MP from a source; R/6 next to it in rough
    rules = at(player="soviet", units={"A/21": {"hex": "S3139"}, "R/6": {"hex": "S3038", "revealed": [2, 4]},
                                       "R/38": {"hex": "S3139", "revealed": [2, 4]}})
    board = bd.Board(sc, rules)
    found, radius = sp.field(sc, rules, board, "soviet")
    assert found == set()                                                              # at the start of a phase
    assert sp.supplied(sc, rules, board, "soviet", ["A/21", "R/6", "R/38"]) == set()   # at the instant of combat
    # 10.35: no Line of Communications is traced into the HQ's mountain hex (11.47: R/6 may not
    # attack through it); a unit of its own hex needs no line
    assert radius == {"A/21", "R/38"}
    assert not sp.in_radius(sc, rules, board, "soviet", "R/6") and sp.in_radius(sc, rules, board, "soviet", "R/38")
    # the same HQ one hex west, in rough: everything but the unit in the mountains is supplied,
    # and that unit is within the radius (its end of the line may be in the mountains)
    rules = at(player="soviet", units={"A/21": {"hex": "S3038"}, "R/6": {"hex": "S3039", "revealed": [2, 4]},
                                       "R/38": {"hex": "S3139", "revealed": [2, 4]}})
    board = bd.Board(sc, rules)
    found, radius = sp.field(sc, rules, board, "soviet")
    assert found == {"A/21", "R/6"} and radius == {"A/21", "R/6", "R/38"}
    assert sp.supplied(sc, rules, board, "soviet", ["A/21", "R/6", "R/38"]) == {"A/21", "R/6"}
    assert sp.in_radius(sc, rules, board, "soviet", "R/38")
    # a rail hex in the mountains is no source: no line is traced into it
    assert sc.idx["S3440"] not in set(sp.lines_of(sc, at(player="soviet"), "soviet").sources())


# --- 12.2: Axis supply ----------------------------------------------------------------------------------

def test_12_22_a_german_unit_within_fourteen_mp():
    inside, outside = edge_of_reach(at(), "axis", 14)
    assert supplied(at(units={"G/57": {"hex": inside}}), "axis") == {"G/57"}
    assert supplied(at(units={"G/57": {"hex": outside}}), "axis") == set()


def test_12_2_12_21_an_axis_allied_hq_within_fourteen_mp():
    inside, outside = edge_of_reach(at(), "axis", 14)
    assert supplied(at(units={"HQ/2Hun": {"hex": inside}}), "axis") == {"HQ/2Hun"}
    assert supplied(at(units={"HQ/2Hun": {"hex": outside}}), "axis") == set()


def test_12_23_cleared_rail_free_of_enemy_zoc_is_a_source():
    sc = SC()

    chain = rail_chain(sc, 4)
    rules = at(control={h: "axis" for h in chain}, cleared=chain)
    assert sc.idx[chain[-1]] in set(sp.lines_of(sc, rules, "axis").sources())
    enemy = next(sc.ids[j] for j in sc.nb[sc.idx[chain[1]]] if sc.ids[j] not in chain and j not in sc.rail_hex)
    rules = at(control={h: "axis" for h in chain}, cleared=chain, units={"R/6": {"hex": enemy, "revealed": [2, 4]}})
    assert sc.idx[chain[-1]] not in set(sp.lines_of(sc, rules, "axis").sources())


def test_12_23_every_rail_hex_west_of_the_line_is_an_axis_source_but_cleared_rail_needs_an_axis_anchor():
    sc = SC()
    west = sc.idx["N0154"]
    assert west in sc.axis_start and west in sc.rail_hex
    rules = at(control={"N0154": "soviet"})                         # a Soviet unit passed through, and left
    assert st.control(sc, rules, west) == "soviet"
    assert west in set(sp.lines_of(sc, rules, "axis").sources())
    # the cleared chain N0750-N0747 leads back to the west only through N0751: once that hex is
    # Soviet-controlled, the chain is cut (12.23: "leading back to an Axis-controlled Rail hex")
    chain = rail_chain(sc, 4)
    anchors = sorted({sc.ids[j] for h in chain for j in sc.rail_nb[sc.idx[h]] if j in sc.axis_start})
    assert chain == ["N0750", "N0749", "N0748", "N0747"] and anchors == ["N0751"]
    rules = at(control={**{h: "axis" for h in chain}, "N0751": "soviet"}, cleared=chain)
    sources = set(sp.lines_of(sc, rules, "axis").sources())
    assert sc.idx["N0751"] in sources and not {sc.idx[h] for h in chain} & sources


# --- terrain and supply -------------------------------------------------------------------------------

def test_10_35_12_45_nothing_in_the_mountains_is_supplied():
    a, m = find_step("mountain", frm="rough")
    rules = at(units={"Mt/1": {"hex": m}, "AirK/4": {"hex": a}})
    assert "Mt/1" not in supplied(rules, "axis")
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["Mt/1"]}])
    assert info.value.rule in ("12.45", "12.46")


def test_8_24_14_46_friendly_units_negate_enemy_zoc_markers_do_nothing():
    inside, _ = edge_of_reach(at(), "axis", 10)
    sc = SC()
    rules = at(units={"G/57": {"hex": inside}}, interdiction={"soviet": [inside]})
    assert supplied(rules, "axis") == {"G/57"}                                         # 14.46
    lines = sp.lines_of(sc, at(units={"R/6": {"hex": "N2244", "revealed": [2, 4]}}), "axis")
    assert lines.blocked[sc.idx["N2245"]]                                             # an Enemy ZOC hex blocks
    lines = sp.lines_of(sc, at(units={"R/6": {"hex": "N2244", "revealed": [2, 4]}, "G/57": {"hex": "N2245"}}), "axis")
    assert not lines.blocked[sc.idx["N2245"]]                                         # unless a friend holds it


def test_10_48_12_14_supply_lines_run_along_friendly_rail_at_one_mp():
    sc = SC()
    rules = at()
    lines = sp.lines_of(sc, rules, "soviet")
    a = next(i for i in sorted(sc.rail_hex) if lines.friendly[i] and any(
        lines.friendly[j] and sc.terrain_of[j] in ("light-woods", "heavy-woods", "rough")
        and sc.side_kind.get((i, j)) is None for j in sc.rail_nb[i]))
    b = next(j for j in sorted(sc.rail_nb[a]) if lines.friendly[j] and sc.terrain_of[j] in ("light-woods", "heavy-woods", "rough")
             and sc.side_kind.get((a, j)) is None)
    step = next(x for x in sc.steps("soviet", "mech")[a] if x[0] == b)
    assert step[1] > 1 and lines.cost(a, b, step[1], step[2]) == 1
    enemy_held = at(control={sc.ids[b]: "axis"})
    assert sp.lines_of(sc, enemy_held, "soviet").cost(a, b, step[1], step[2]) == step[1]


def test_6_44_6_47_10_48_no_soviet_line_at_one_mp_along_axis_cleared_or_just_retaken_rail():
    sc = SC()
    a, b = sc.idx["N0131"], sc.idx["N0230"]                          # rail into light woods: 2 MP
    step = next(x for x in sc.steps("soviet", "mech")[a] if x[0] == b)
    assert step[1] == 2 and b in sc.rail_nb[a]
    never = at(player="soviet")
    cleared = at(player="soviet", cleared=["N0230"], control={"N0230": "soviet"})    # 6.44: recaptured
    retaken = at(player="soviet")
    retaken["control"]["N0230"] = f"s{retaken['turn']}"                              # 6.47: this Game-Turn
    for rules, mp in ((never, 1), (cleared, 2), (retaken, 2)):
        lines = sp.lines_of(sc, rules, "soviet")
        assert lines.rail_usable(b) == (mp == 1)
        assert lines.cost(a, b, step[1], step[2]) == mp                               # Lines.cost
        assert lines.distances([b], 40)[a] == mp                                      # field's search
        assert lines.reaches(a, {b}, 1) == (mp == 1) and lines.reaches(a, {b}, 2)       # supplied's search
    # the Axis line still runs at 1 MP along its own cleared rail (6.45, 10.48)
    axis = sp.lines_of(sc, at(cleared=["N0230"], control={"N0131": "axis", "N0230": "axis"}), "axis")
    assert axis.cost(a, b, step[1], step[2]) == 1


def test_10_28_soviet_supply_across_the_volga_at_a_friendly_city():
    sc = SC()
    rules = at(player="soviet", units={"A/21": {"hex": "N3116"}})
    lines = sp.lines_of(sc, rules, "soviet")
    assert lines.passable(sc.idx["N3116"], sc.idx["N3117"], 1)                        # into Soviet Stalingrad
    taken = at(player="soviet", control={"N3117": "axis", "N3217": "axis"})
    assert not sp.lines_of(sc, taken, "soviet").passable(sc.idx["N3116"], sc.idx["N3117"], 1)


# --- 12.3: trucks ------------------------------------------------------------------------------------------

def test_12_31_to_12_36_12_39_a_truck_chain_and_its_railhead():
    from pbem.rulesets.dos import interphase

    sc = SC()
    inside, outside = edge_of_reach(at(), "axis", 3)
    rules = at(units={"Tr/1": {"hex": inside}})
    assert interphase.chains(sc, rules) == [["Tr/1"]]                                  # 12.31: within 5 hexes
    far, _ = edge_of_reach(at(), "axis", 12)
    lines = sp.lines_of(sc, at(), "axis")
    near_truck = lines.within(sc.idx[inside], 14)
    beyond = next(sc.ids[j] for j in sorted(near_truck) if dist_from_sources(at(), "axis")[j] == 17
                  and sc.terrain_of[j] == "clear")
    rules = at(units={"Tr/1": {"hex": inside}, "G/57": {"hex": beyond}})
    found, _ = sp.field(sc, rules, bd.Board(sc, rules), "axis")
    assert "G/57" not in found                                                         # 17 MP: no railhead, none
    rules["railheads"] = [{"truck": "Tr/1", "chain": ["Tr/1"], "used": False}]
    found, _ = sp.field(sc, rules, bd.Board(sc, rules), "axis", mark=True)
    assert "G/57" in found and rules["railheads"][0]["used"]                           # 12.33: supplied by it, used
    from pbem.rulesets.dos import words
    assert "a railhead: an Axis supply source (12.32, 12.33)" in words.markers_of(sc, rules, "Tr/1")   # show says so
    play(rules, [{"type": "move", "units": ["Tr/1"], "path": [sc.ids[next(iter(sc.nb[sc.idx[inside]]))]]}])
    assert rules["railheads"] == []                                                    # 12.39


def test_12_37_any_number_of_chains_from_any_source():
    from pbem.rulesets.dos import interphase

    sc = SC()
    a, _ = edge_of_reach(at(), "axis", 3, where=lambda sc, i: sc.sheet[i] == "N" and sc.row[i] < 15)
    b, _ = edge_of_reach(at(), "axis", 3, where=lambda sc, i: sc.sheet[i] == "S")
    rules = at(units={"Tr/1": {"hex": a}, "Tr/2": {"hex": b}})
    assert sorted(interphase.chains(sc, rules)) == [["Tr/1"], ["Tr/2"]]


def test_12_38_trucks_have_no_combat_value_and_no_zoc():
    sc = SC()
    rules = at(units={"Tr/1": {"hex": "N2245"}})
    assert bd.Board(sc, rules).zoc("axis") == frozenset() and st.strengths(sc, rules, "Tr/1") == (0, 0)


# --- 12.4, 14.5: air supply ----------------------------------------------------------------------------------

def test_12_4_12_41_12_42_12_47_14_52_an_air_point_supplies_five_steps_close_together():
    rules = at(units={"G/57": {"hex": "N2520"}, "Jg/97": {"hex": "N2521"}, "G/75": {"hex": "N2519"},
                      "AirK/4": {"hex": "N2538"}})
    assert st.has(rules["ps"]["oos"], "G/57")
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["G/57", "G/75"]}])
    assert info.value.rule == "12.41"                                                  # 8 steps
    ctx = play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["G/57"]}])
    assert not st.has(rules["ps"]["oos"], "G/57") and st.has(rules["ps"]["air_supplied"], "G/57")
    assert events_of(ctx, "air-supply") and rules["air"]["AirK/4"] == 1
    far = at(units={"G/57": {"hex": "N2520"}, "AirK/4": {"hex": "N2541"}})              # 21 hexes
    with pytest.raises(IllegalOrder) as info:
        play(far, [{"type": "air-supply", "air": "AirK/4", "units": ["G/57"]}])
    assert info.value.rule == "12.47"
    apart = at(units={"Jg/97": {"hex": "N2520"}, "Jg/101": {"hex": "N2536"}, "AirK/4": {"hex": "N2538"}})
    with pytest.raises(IllegalOrder) as info:
        play(apart, [{"type": "air-supply", "air": "AirK/4", "units": ["Jg/97", "Jg/101"]}])
    assert info.value.rule == "12.42"


def test_12_42_14_52_every_unit_of_an_air_point_within_fourteen_mp_of_every_other():
    sc = SC()
    units = {"Jg/97": {"hex": "N2528", "steps_lost": 1}, "Jg/101": {"hex": "N2520", "steps_lost": 1},
             "36/14Pz": {"hex": "N2536", "steps_lost": 1}, "AirK/4": {"hex": "N2538"}}
    lines = sp.lines_of(sc, at(units=units), "axis")
    ix = sc.idx
    assert lines.reaches(ix["N2528"], {ix["N2520"]}, 14) and lines.reaches(ix["N2528"], {ix["N2536"]}, 14)
    assert not lines.reaches(ix["N2520"], {ix["N2536"]}, 14)          # the outer two are too far apart
    for order in (["Jg/97", "Jg/101", "36/14Pz"], ["Jg/101", "Jg/97", "36/14Pz"], ["36/14Pz", "Jg/101", "Jg/97"]):
        rules = at(units=units)
        with pytest.raises(IllegalOrder) as info:
            play(rules, [{"type": "air-supply", "air": "AirK/4", "units": order}])
        assert info.value.rule == "12.42" and rules["air"].get("AirK/4", 0) == 0
    for order in (["Jg/97", "Jg/101"], ["Jg/101", "Jg/97"]):           # each within 14 of the other
        rules = at(units=units)
        play(rules, [{"type": "air-supply", "air": "AirK/4", "units": order}])
        assert set(rules["ps"]["air_supplied"]) == {"Jg/97", "Jg/101"}


def test_12_46_an_air_unit_supplies_itself_never_another_air_unit():
    for units in (["AirK/4", "AirK/8"], ["AirK/8"]):
        rules = at(units={"AirK/4": {"hex": "N2520"}, "AirK/8": {"hex": "N2521"}})
        with pytest.raises(IllegalOrder) as info:
            play(rules, [{"type": "air-supply", "air": "AirK/4", "units": units}])
        assert info.value.rule == "12.41"
    rules = at(units={"AirK/4": {"hex": "N2520"}, "AirK/8": {"hex": "N2521"}})
    play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["AirK/4"]}])
    assert rules["ps"]["air_supplied"] == ["AirK/4"]


def test_12_43_14_51_12_44_12_46_who_when_and_the_air_unit_itself():
    rules = at(player="soviet", units={"AA/2": {"hex": "N2245"}, "R/6": {"hex": "N2244", "revealed": [2, 4]}})
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "air-supply", "air": "AA/2", "units": ["R/6"]}])
    assert info.value.rule == "12.43"
    rules = at(phase="interdiction", units={"AirK/4": {"hex": "N2538"}, "G/57": {"hex": "N2520"}})
    with pytest.raises(IllegalOrder):
        play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["G/57"]}])          # not in this phase
    rules = at(units={"AirK/4": {"hex": "N2520"}, "G/57": {"hex": "N2520"}})
    play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["AirK/4", "G/57"]}])  # itself: one step
    assert {"AirK/4", "G/57"} <= set(rules["ps"]["air_supplied"])


def test_12_44_14_0_german_defenders_supplied_in_the_soviet_combat_phase():
    rules = at(player="soviet", phase="combat", units={"G/57": {"hex": "N2519"}, "AirK/4": {"hex": "N2538"},
                                                        "TC/1": {"hex": "N2520"}, "A/21": {"hex": "N2520"}})
    ctx = play(rules, [{"type": "attack", "targets": ["N2519"], "units": ["TC/1"]}], dice=[6])
    assert events_of(ctx, "air-supply")[0]["units"] == ["G/57"]
    assert events_of(ctx, "combat")[0]["defence"] == 9


# --- 12.5 ----------------------------------------------------------------------------------------------------

def test_12_53_12_54_reinforcements_supplied_in_their_first_phase_and_nobody_starves():
    sc = SC()
    rules = at(units={"G/73": {"status": "ready"}, "G/57": {"hex": "N2520"}})
    edge = next(sc.ids[i] for i in sorted(sc.edge["west"]) if sc.terrain_of[i] == "clear")
    play(rules, [{"type": "enter", "units": ["G/73"], "path": [edge]}])
    assert "G/73" in supplied(rules, "axis")
    play(rules, [{"type": "end"}, {"type": "end"}, {"type": "end"}, {"type": "end"}])
    assert st.status(rules, "G/57") == "map"                                           # 12.54


# --- agreement and speed ---------------------------------------------------------------------------------------

def _midgame() -> dict:
    path = Path(__file__).parent / "cases" / "dos" / "midgame-rules.json"     # a random game at Game-Turn 10
    return json.loads(path.read_text())


def test_12_0_12_51_a_movement_phase_names_the_units_out_of_supply_as_it_begins():
    """The report's phase line cites the supply rules for its list (it cited 4.2 alone)."""
    _, outside = edge_of_reach(at(), "axis", 14)
    inside, _ = edge_of_reach(at(), "axis", 10)
    rules = at(phase="combat", units={"G/57": {"hex": outside}, "G/75": {"hex": inside}})
    ctx = play(rules, [{"type": "end"}])
    assert [e["text"] for e in events_of(ctx, "phase")] == [
        "Game-Turn 3: axis Mechanized/Cavalry Movement Phase (4.2); out of supply as it begins (12.0; halved, "
        "12.51): G/57."]


def test_12_0_why_a_unit_is_out_of_supply_in_words():
    """`pbem show --unit` and the set-up's check of 5.25 say why a unit is out of supply: the
    first cause met as a line is traced (players' probe: "beyond every HQ's radius" was said
    of a unit whose HQ was two hexes away, its line cut by Axis ZOC)."""
    sc = SC()

    def why(rules, uid):
        return sp.reason(sc, rules, bd.Board(sc, rules), uid)

    tufanov = at(player="soviet", units={"A/51": {"hex": "N2245"}, "R/6": {"hex": "N2244", "revealed": [2, 4]},
                                         "R/77": {"hex": "N2241", "revealed": [2, 4]}})
    assert why(tufanov, "R/6") is None
    assert why(tufanov, "R/77") == ("no soviet HQ within its Leadership Rating: the nearest, A/51, is 4 hexes "
                                    "away, rating 3 (12.12)")
    cut = at(player="soviet", units={"A/51": {"hex": "N2245"}, "R/38": {"hex": "N2243", "revealed": [2, 4]},
                                     "G/57": {"hex": "N2244"}})
    assert "R/38" not in supplied(cut, "soviet")
    assert why(cut, "R/38") == ("A/51 is 2 hexes away (rating 3), but every Line of Communications to it would pass "
                                "through enemy units, an Enemy ZOC no friendly unit stands in, or impassable terrain "
                                "(12.11): N2144 is in an Enemy ZOC, no friendly unit there; N2244 holds enemy units; "
                                "N2344 is in an Enemy ZOC, no friendly unit there")          # where it is cut
    hq_cut = at(units={"HQ/2Hun": {"hex": "N2520"}, "Hun/6": {"hex": "N2520", "revealed": 3}})
    assert why(hq_cut, "Hun/6") == ("its HQ HQ/2Hun is out of supply: no Line of Supply of 14 mechanized MP or less "
                                    "reaches a source (12.21)")
    disrupted = at(player="soviet", units={"A/51": {"hex": "N2245"}, "R/6": {"hex": "N2244", "revealed": [2, 4]}})
    st.mark(disrupted["disrupted"], "A/51")                                             # 6.61: overrun
    assert why(disrupted, "R/6") == "its HQ A/51 is disrupted, and a disrupted HQ coordinates no supply (6.64)"
    a, m = find_step("mountain", frm="rough")
    high = at(player="soviet", units={"A/51": {"hex": m}, "R/6": {"hex": a, "revealed": [2, 4]}})
    assert why(high, "R/6") == ("A/51 stands in a mountain hex, into which no Line of Communications is traced "
                                "(10.35, 12.11)")
    _, outside = edge_of_reach(at(), "axis", 14)
    assert why(at(units={"G/57": {"hex": outside}}), "G/57") == ("no Supply Line of 14 mechanized MP or less "
                                                                 "reaches a supply source (12.22)")
    _, m = find_step("mountain", frm="rough")
    assert why(at(units={"Mt/1": {"hex": m}}), "Mt/1") == ("it stands in a mountain hex, where no unit is in supply "
                                                            "(10.35, 12.11)")
    assert why(at(units={"Rum/1": {"hex": "N2253", "revealed": 3}}), "Rum/1") == (
        "no rumanian HQ is on the map (12.21)")


def test_the_field_and_the_instant_of_combat_agree():
    sc = SC()
    rules = _midgame()
    board = bd.Board(sc, rules)
    for side in ("axis", "soviet"):
        found, _ = sp.field(sc, rules, board, side)
        mine = [u for u in sc.side_units[side] if st.on_map(rules, u)]
        assert sp.supplied(sc, rules, board, side, mine) == found & set(mine), side


# --- a fifth rules probe: truck railheads ----------------------------------------------------------

RAILHEADS = {"rail_clearing": "none", "truck_railheads": "auto"}


def test_12_33_12_34_a_chains_own_trucks_never_spend_its_railhead():
    """Tr/1 (N0151, 3 MP from the rail), Tr/2 (N0146, 8 MP) and Tr/3 (N0141, 16 MP: beyond the
    rail's 14) form a chain; the railhead goes on Tr/1 (12.32). No Axis unit but the trucks is on
    the map, so nothing utilizes it in Game-Turn 4, and it moves on to Tr/2 (12.34). A truck's
    supply matters only for a move, and a moved truck of the chain removes the railhead anyway
    (12.39): no truck spends one. Tr/3 stays out of supply (12.51). 1.12.0 counted Tr/3 as using
    the railhead, which was removed at the Inter-Phase and could never move along the chain."""
    from pbem.rulesets.dos import interphase

    sc = SC()
    rules = at(turn=3, player="soviet", phase="interdiction",
               units={"Tr/1": {"hex": "N0151"}, "Tr/2": {"hex": "N0146"}, "Tr/3": {"hex": "N0141"}})
    assert interphase.chains(sc, rules) == [["Tr/1", "Tr/2", "Tr/3"]]
    ctx = play(rules, [{"type": "end"}], dice=[2], policies=RAILHEADS)
    assert [e["text"] for e in events_of(ctx, "railhead")] == ["An Axis railhead on truck Tr/1 at N0151 (12.32)."]
    assert (rules["turn"], rules["player"], rules["phase"]) == (4, "axis", "move")
    assert rules["railheads"] == [{"truck": "Tr/1", "chain": ["Tr/1", "Tr/2", "Tr/3"], "used": False}]
    assert rules["ps"]["oos"] == ["Tr/3"]
    ctx = play(rules, [{"type": "end"}] * 9, dice=[2] * 3, policies=RAILHEADS)
    assert [e["text"] for e in events_of(ctx, "railhead")] == ["The unused railhead moves on to truck Tr/2 (12.34)."]
    assert rules["railheads"][0]["truck"] == "Tr/2" and rules["turn"] == 5


def test_12_39_a_truck_that_joined_the_chain_since_takes_its_railhead_with_it_when_it_moves():
    """Railheads go on Tr/1 of the chain Tr/1 (N0151), Tr/2 (N0146), and on Tr/4 (N0251), a chain
    of its own. Tr/4 then moves to N0244 (its own railhead goes, 12.39), within five hexes of Tr/2: the chain is now Tr/1, Tr/2, Tr/4, and when Tr/4, "part of
    a Truck Supply Chain", moves again, the railhead is removed (12.39). 1.12.0 kept the chain as
    it stood when the railhead was placed, and the railhead stayed."""
    from pbem.rulesets.dos import interphase

    sc = SC()
    rules = at(turn=3, player="soviet", phase="interdiction",
               units={"Tr/1": {"hex": "N0151"}, "Tr/2": {"hex": "N0146"}, "Tr/4": {"hex": "N0251"}})
    play(rules, [{"type": "end"}], dice=[2], policies=RAILHEADS)
    assert [r["truck"] for r in rules["railheads"]] == ["Tr/1", "Tr/4"]
    play(rules, [{"type": "move", "units": ["Tr/4"], "path": ["N0250", "N0249", "N0248", "N0247", "N0246", "N0245",
                                                               "N0244"]}])
    assert interphase.chains(sc, rules) == [["Tr/1", "Tr/2", "Tr/4"]] and [r["truck"] for r in rules["railheads"]] == ["Tr/1"]
    play(rules, [{"type": "end"}, {"type": "end"}])
    assert rules["phase"] == "mech"
    ctx = play(rules, [{"type": "move", "units": ["Tr/4"], "path": ["N0243"]}])
    assert [e["text"] for e in events_of(ctx, "railhead")] == [
        "The railhead on Tr/1 is removed: Tr/4 of its chain moved or left (12.39)."]
    assert rules["railheads"] == []


def test_12_44_air_supply_of_german_defenders_against_a_soviet_overrun():
    """14.0: "During any Phase of either Player-Turn, the Axis Player may expend Air Points to
    put Axis units in Supply"; 6.51: an overrun is resolved with "all terrain and Supply rules
    affecting combat ... in effect. (Supply state is judged at the instant of Overrun.)" G/57,
    cut off in N2032, is overrun by TC/1 in the Soviet Movement Phase: AirK/8, in range,
    supplies it (the standing order `when-needed`), and it defends at 9, not halved to 4 (1-3,
    not 1-1). 1.13.0 offered air supply against attacks only. (14.3 bars only die shifts.)"""
    units = {"TC/1": {"hex": "N1932"}, "A/21": {"hex": "N1831"}, "G/57": {"hex": "N2032"}, "AirK/8": {"hex": "N2050"}}
    overrun = {"type": "overrun", "units": ["TC/1"], "target": "N2032"}
    rules = at(player="soviet", phase="move", units=units)
    ctx = play(rules, [overrun], dice=[3])
    assert events_of(ctx, "air-supply")[0]["text"] == "AirK/8 spends an Air Point to supply G/57 for this phase (12.4)."
    assert "Defence strength 9: G/57 9 in N2032. 4 against 9: 1-3; die 3: A2" in events_of(ctx, "combat")[0]["text"]
    assert rules["air"] == {"AirK/8": 1}
    rules = at(player="soviet", phase="move", units=units)
    ctx = play(rules, [overrun], dice=[3], policies={"defence_air_supply": "none"})
    assert "G/57 9 halved out of supply = 4 (12.51) in N2032. 4 against 4: 1-1" in events_of(ctx, "combat")[0]["text"]
    rules = at(player="soviet", phase="move", units=units)
    play(rules, [overrun], dice=[3], policies={"defence_air_supply": "ask"})
    need = flow.next_step(SC(), rules)
    assert (need.side, need.kind) == ("axis", "air-supply-defence")


def test_12_41_12_51_the_standing_order_supplies_the_strongest_defenders_its_point_can():
    """One Air Point supplies five steps (12.41) and a unit out of supply defends at half
    (12.51): with three regiments of 9 Pz cut off, two steps each, `when-needed` supplies 33/9Pz
    (4) and one of 2, not the two regiments of 2 that come first by id (a players' probe: the
    defence was 2 + 2 + 4 halved = 2, where it could have been 4 + 2 + 1)."""
    units = {"TC/1": {"hex": "N1932"}, "A/21": {"hex": "N1831"}, "AirK/8": {"hex": "N2050"},
             "10/9Pz": {"hex": "N2032"}, "11/9Pz": {"hex": "N2032"}, "33/9Pz": {"hex": "N2032"}}
    rules = at(player="soviet", phase="move", units=units)
    assert [st.strengths(SC(), rules, u)[1] for u in ("10/9Pz", "11/9Pz", "33/9Pz")] == [2, 2, 4]
    ctx = play(rules, [{"type": "overrun", "units": ["TC/1"], "target": "N2032"}], dice=[3])
    assert events_of(ctx, "air-supply")[0]["text"] == \
        "AirK/8 spends an Air Point to supply 10/9Pz, 33/9Pz for this phase (12.4)."
    # the halving of 11/9Pz shows inside the doubled division (7.21, 12.51; a players' probe)
    assert "Defence strength 14: 9Pz: 10/9Pz 2 + 11/9Pz 2 halved out of supply = 1 (12.51) + 33/9Pz 4 = 7, x2 for " \
           "integrity = 14 (7.21) in N2032. 4 against 14: 1-3" in events_of(ctx, "combat")[0]["text"]


def test_12_23_12_31_a_railhead_whose_truck_no_chain_reaches_supplies_nothing():
    """12.23: a truck is an Axis source while it "is part of a Truck Supply Chain", whose first
    truck "must be within five hexes of any valid Axis Source" (12.31). The railhead on Tr/1
    supplies G/57, 15 MP from the rail, as the Axis Initial Movement Phase begins; with R/6 and
    R/38 cutting every five-hex line from Tr/1 to a source, Tr/1 is in no chain, and G/57 is out
    of supply (1.13.0 kept the railhead supplying behind the encirclement)."""
    from pbem.rulesets.dos import interphase

    sc = SC()
    for blocked in (False, True):
        units = {"Tr/1": {"hex": "N0151"}, "G/57": {"hex": "N0142"}}
        if blocked:
            units |= {"R/6": {"hex": "N0147", "revealed": [2, 4]}, "R/38": {"hex": "N0251", "revealed": [2, 4]}}
        rules = at(turn=4, units=units)
        rules["railheads"] = [{"truck": "Tr/1", "chain": ["Tr/1"], "used": False}]
        ctx = Ctx()
        flow.begin_phase(sc, rules, ctx)
        assert interphase.chains(sc, rules) == ([] if blocked else [["Tr/1"]])
        assert rules["ps"]["oos"] == (["G/57"] if blocked else [])
        assert rules["railheads"][0]["used"] is not blocked


def test_12_31_12_34_the_axis_player_strings_his_own_truck_chain():
    """12.31: "the first Truck unit must be within five hexes of any valid Axis Source, the
    second Truck unit within five hexes of the first"; which trucks make the chain is the Axis
    player's ("he has formed a Truck Supply Chain by deploying a Truck unit(s)", 12.32). Tr/1
    in N0348 is five hexes from the rail; Tr/2 (N0144) and Tr/3 (N0745) are each within five of
    Tr/1 but not of each other, and neither of a source. The engine's stringing takes Tr/2 after
    Tr/1 and leaves Tr/3 in no chain; the player names the line Tr/1, Tr/3, the railhead moves
    on to Tr/3 (12.34), supplies G/57 out beyond it (12.33), and goes when Tr/1 moves (12.39).
    1.16.0 strung chains by id only: Tr/3 could never carry a railhead."""
    from pbem.rulesets.dos import interphase

    sc = SC()
    trucks = {"Tr/1": {"hex": "N0348"}, "Tr/2": {"hex": "N0144"}, "Tr/3": {"hex": "N0745"}}
    rules = at(turn=3, player="soviet", phase="interdiction", units=dict(trucks))
    assert interphase.chains(sc, rules) == [["Tr/1", "Tr/2"]]
    ask = {"rail_clearing": "none", "truck_railheads": "ask"}
    play(rules, [{"type": "end"}], dice=[2], policies=ask)
    assert flow.next_step(sc, rules).kind == "railhead"
    for chains, rule, text in (
            ([["Tr/2", "Tr/3"]], "12.31", "the truck chain Tr/2, Tr/3 begins with Tr/2, which is not within five "
                                          "hexes of an Axis supply source"),
            ([["Tr/1", "Tr/2", "Tr/3"]], "12.31", "has Tr/3 more than five hexes of supply line from Tr/2"),
            ([["Tr/1", "Tr/3"], ["Tr/1"]], "12.31", "the chains named share a truck"),
            ([["Tr/1", "G/57"]], "12.31", "names G/57, which is not a truck")):
        refused(rules, {"type": "railheads", "place": ["Tr/1"], "advance": [], "chains": chains}, rule, text)
    ctx = play(rules, [{"type": "railheads", "place": ["Tr/1"], "advance": [], "chains": [["Tr/1", "Tr/3"]]}],
               dice=[2], policies=ask)
    assert [e["text"] for e in events_of(ctx, "railhead")] == ["An Axis railhead on truck Tr/1 at N0348 (12.32)."]
    assert rules["railheads"] == [{"truck": "Tr/1", "chain": ["Tr/1", "Tr/3"], "used": False}]
    assert (rules["turn"], rules["player"], rules["phase"]) == (4, "axis", "move")
    play(rules, [{"type": "end"}] * 9, dice=[2] * 3, policies=ask)
    assert (rules["turn"], flow.next_step(sc, rules).kind) == (4, "railhead")
    refused(rules, {"type": "railheads", "place": ["Tr/1"], "advance": []}, "12.36", "the chain Tr/1, Tr/2 already has")
    # moved on along the line it was placed on, not named again (the standing order's plan too)
    assert interphase.railhead_plan(sc, rules) == {"place": [], "advance": ["Tr/1"]}
    play(rules, [{"type": "railheads", "place": [], "advance": ["Tr/1"]}], dice=[2], policies=ask)
    assert rules["railheads"] == [{"truck": "Tr/3", "chain": ["Tr/1", "Tr/3"], "used": False}]
    assert interphase.chains(sc, rules) == [["Tr/1", "Tr/2"]]                     # Tr/3 still in none of the engine's
    rules["units"]["G/57"] = "N0840"            # five hexes on from Tr/3: beyond a railhead on Tr/1, and the rail
    found, _ = sp.field(sc, rules, bd.Board(sc, rules), "axis")
    assert "G/57" in found                                                          # 12.33: by the railhead on Tr/3
    on_tr1 = json.loads(json.dumps(rules))
    on_tr1["railheads"][0]["truck"] = "Tr/1"
    assert "G/57" not in sp.field(sc, on_tr1, bd.Board(sc, on_tr1), "axis")[0]
    assert (rules["turn"], rules["player"], rules["phase"]) == (5, "axis", "move")
    play(rules, [{"type": "move", "units": ["Tr/1"], "path": ["N0347"]}])
    assert rules["railheads"] == []                                                 # 12.39


def test_12_46_14_21_an_air_corps_out_of_supply_supplies_itself_with_the_defenders_then_shifts_the_die():
    """12.46: "Air units may expend Air Points to keep themselves in Supply; one Air unit counts
    as a single step"; 12.44: points may be spent "during ... the Soviet Combat Phase (to
    supply German units under attack)"; 14.21: Air Points on a combat come "after the ratio
    ... and all other factors". GR/9 attacks G/57, cut off in N1021; AirK/4 (two points),
    cut off too in N1022, spends one on itself and G/57 (1 + 4 steps), and the other on the
    die: G/57 defends at 9, not 4, and the die 3 becomes 4. 1.16.0 asked the Axis nothing:
    an air corps out of supply was never offered, and the die was asked before supply."""
    units = {"G/57": {"hex": "N1021"}, "GR/9": {"hex": "N1020"}, "A/21": {"hex": "N1020"}, "AirK/4": {"hex": "N1022"}}
    attack = {"type": "attack", "targets": ["N1021"], "units": ["GR/9"]}
    ask = {"defence_air": "ask", "defence_air_supply": "ask"}
    rules = at(player="soviet", phase="combat", units=units)
    assert not {"G/57", "AirK/4"} & supplied(rules, "axis", ["G/57", "AirK/4"])
    play(rules, [attack], dice=[3], policies=ask)
    need = flow.next_step(SC(), rules)
    assert (need.side, need.kind) == ("axis", "air-supply-defence")
    assert flow.decision_options(SC(), rules, need.kind) == [
        {"type": "air-supply", "air": None, "units": []},
        {"type": "air-supply", "air": "AirK/4", "units": ["AirK/4", "G/57"]},
        {"type": "air-supply", "air": "AirK/4", "units": ["AirK/4"]}]
    play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["AirK/4", "G/57"]}], dice=[3], policies=ask)
    need = flow.next_step(SC(), rules)
    assert (need.side, need.kind) == ("axis", "air-defence")
    assert flow.decision_options(SC(), rules, need.kind)[1] == {"type": "air", "units": ["AirK/4"], "shift": 1}
    ctx = play(rules, [{"type": "air", "units": ["AirK/4"], "shift": 1}], dice=[3], policies=ask)
    combat_text = events_of(ctx, "combat")[0]["text"]
    assert "Defence strength 9: G/57 9 in N1021" in combat_text and "die 3 +1 = 4" in combat_text, combat_text
    assert rules["air"] == {"AirK/4": 2}
    # the standing order `when-needed` buys the defenders' supply, not a point for the corps alone
    rules = at(player="soviet", phase="combat", units=units)
    ctx = play(rules, [attack], dice=[3])
    assert events_of(ctx, "air-supply")[0]["text"] == "AirK/4 spends an Air Point to supply AirK/4, G/57 for this phase (12.4)."
    from pbem.rulesets.dos.orders import DEFAULT_POLICIES, decision_policy

    alone = [{"type": "air-supply", "air": None, "units": []}, {"type": "air-supply", "air": "AirK/4", "units": ["AirK/4"]}]
    assert decision_policy(SC(), rules, "air-supply-defence", DEFAULT_POLICIES, alone) == alone[0]


def test_12_46_14_41_an_air_corps_out_of_supply_supplies_itself_to_interdict():
    """12.44: "Air Points may be expended for Supply purposes at any time during a Game-Turn";
    12.46: an air unit may keep itself in supply, and must be to operate (14.11). AirK/4, cut
    off in N1512, buys its own supply in the Axis Air Interdiction Phase and places markers
    with its second point; it may not supply anything else there. 1.16.0 refused both."""
    rules = at(phase="interdiction", units={"AirK/4": {"hex": "N1512"}, "G/57": {"hex": "N1511"}})
    assert not supplied(rules, "axis", ["AirK/4"])
    refused(rules, {"type": "interdict", "air": "AirK/4", "hexes": ["N1513"]}, "14.11", "out of supply")
    refused(rules, {"type": "air-supply", "air": "AirK/4", "units": ["AirK/4", "G/57"]}, "12.44",
            "in the Air Interdiction Phase an air unit may supply only itself (12.46)")
    ctx = play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["AirK/4"]},
                       {"type": "interdict", "air": "AirK/4", "hexes": ["N1513"]}])
    assert [e["type"] for e in ctx.events if e["type"] in ("air-supply", "interdiction")] == ["air-supply", "interdiction"]
    assert rules["air"] == {"AirK/4": 2} and rules["interdiction"]["axis"] == ["N1513"]


def test_the_memo_of_board_views_is_emptied_once_a_scenario_of_it_is_gone():
    """A review: the memo of board views names each scenario by `id(sc)`, and some views (the
    friendly rail hexes, supply sources, distances, the cities' VP) hold nothing that keeps their
    scenario alive; a scenario made once another is gone may take its address (a test's crafted
    position, a second game in one process) and, with rules of the same control, read the other's
    views. Once a scenario that has views in the memo is gone, the memo is emptied: as its last
    reference goes, for nothing of pbem's keeps a scenario in a reference cycle (no collection
    of the whole heap is waited for, which took the suite's worker half a second)."""
    from pbem.rulesets.dos import board, movement, scenario

    sc = scenario.Scenario(scenario.load_historical(), {})
    movement._friendly(sc, {"control": {}}, "axis")
    key = ("friendly", "axis", id(sc), ((), ()))
    assert key in board._MEMO
    del sc
    assert key not in board._MEMO and board._MEMO == {}
