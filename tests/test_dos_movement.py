"""dos movement: 6.0-6.4 (movement, rail, clearing), 7.1 at the end of a Movement Phase, 8.2
(zones of control and movement), 10.1-10.5 (terrain costs), 11.2, 11.5, 14.12, 14.13, 14.4
(interdiction), 15.0-15.3 (entry), 18.1 (strategic withdrawal), 19.22 (exits).

Test names begin with the case they test."""

from __future__ import annotations

from pbem.rulesets.dos import flow
from pbem.rulesets.dos import board as bd
from pbem.rulesets.dos import movement as mv
from pbem.rulesets.dos import state as st
from tests.test_dos_support import rail_chain, SC, at, events_of, find_step, play, refused


def mp_of(ctx, uid):
    return [e for e in ctx.events if e["type"] in ("move", "enter")][-1]["mp"][uid]


# --- 6.1, 6.2: moving -------------------------------------------------------------------------------

def test_6_11_only_the_phasing_player_moves():
    rules = at(units={"R/6": {"hex": "N2245", "revealed": [2, 4]}})
    refused(rules, {"type": "move", "units": ["R/6"], "path": ["N2244"]}, "6.1", "R/6 is a Soviet unit")


def test_6_12_10_11_11_21_costs_by_movement_class():
    a, b = find_step("light-woods")
    rules = at(units={"6/3Pz": {"hex": a}, "G/57": {"hex": a}, "HQ/2Hun": {"hex": a}})
    ctx = play(rules, [{"type": "move", "units": ["6/3Pz"], "path": [b]}])
    assert mp_of(ctx, "6/3Pz") == 2                                   # 10.11: mechanized 2
    ctx = play(rules, [{"type": "move", "units": ["G/57"], "path": [b]}])
    assert mp_of(ctx, "G/57") == 1                                    # 10.11: infantry 1
    ctx = play(rules, [{"type": "move", "units": ["HQ/2Hun"], "path": [b]}])
    assert mp_of(ctx, "HQ/2Hun") == 1                                 # 11.21: HQs as infantry


def test_10_1_10_5_a_hex_of_no_river_lake_or_rail_hexside_steps_at_the_price_of_the_hex_entered():
    """The step tables take a shortcut for most hexes (no river, lake or rail hexside): each
    step costs the price of the hex entered, with no flag. Every row, read in any order,
    equals the row priced hexside by hexside; every row of the backward tables of supply
    (12.14) holds exactly the steps into its hex."""
    import functools

    from pbem.rulesets.dos import scenario

    sc = scenario.Scenario(scenario.load_historical(), {})
    every = frozenset(range(len(sc.ids)))
    shortcut = 0
    for side in scenario.SIDES:
        for cls in scenario.CLASSES:
            table = sc.steps(side, cls)
            priced = functools.partial(scenario._step_row, sc.nb, every, None, sc._enter[cls], sc._extra[side],
                                       sc.side_kind, sc.rail_nb, sc.mountain if cls == "mech" else None)
            for a in reversed(range(len(sc.ids))):
                assert table[a] == priced(a), (side, cls, sc.ids[a])
                shortcut += a not in sc._special_rows
        steps, back = sc.steps(side, "mech"), sc.back(side)
        for b in range(len(sc.ids)):
            assert back[b] == tuple((a, c, flag) for a in sc.nb[b] for to, c, flag in steps[a]
                                    if to == b and c != scenario.BLOCKED), (side, sc.ids[b])
    assert shortcut > 6 * 2000     # most rows take it


def test_6_13_10_31_10_51_costs_add_up():
    a, b = find_step("rough", where=lambda sc, a, b: sc.ids[a].startswith("S2"))
    rules = at(units={"6/3Pz": {"hex": a}, "G/57": {"hex": a}})
    assert mp_of(play(rules, [{"type": "move", "units": ["G/57"], "path": [b]}]), "G/57") == 2      # 10.31
    rules = at(units={"6/3Pz": {"hex": a}})
    ctx = play(rules, [{"type": "move", "units": ["6/3Pz"], "path": [b]}])
    assert mp_of(ctx, "6/3Pz") == 3


def test_6_14_6_27_one_hex_always_in_the_initial_phase_only():
    a, b = find_step("rough", where=lambda sc, a, b: sc.ids[a].startswith("S2"))
    rules = at(units={"RumCav/5": {"hex": a}})
    assert st.has(rules["ps"]["oos"], "RumCav/5")                    # out of supply: allowance 5 // 2 = 2
    play(rules, [{"type": "move", "units": ["RumCav/5"], "path": [b]}])
    assert st.hex_of(rules, "RumCav/5") == b                          # 3 MP into rough, more than 2
    rules = at(phase="mech", units={"RumCav/5": {"hex": a}})
    refused(rules, {"type": "move", "units": ["RumCav/5"], "path": [b]}, "6.23")


def test_6_14_judged_where_the_unit_stood_as_the_initial_phase_began():
    """RumCav/5 (out of supply: 2 MP) begins the phase in the ZOC of R/6, which 6/3Pz then
    overruns (eliminated). Free to leave now, RumCav/5 still began the phase in an Enemy ZOC:
    no one-hex guarantee into the rough S2226 (3 MP), neither offered nor accepted; the
    moves offered are all accepted. The record is kept for the Initial Movement Phase only."""
    sc = SC()

    def after_the_overrun():
        rules = at(units={"RumCav/5": {"hex": "S2126"}, "R/6": {"hex": "S2125", "revealed": [1, 1]},
                          "6/3Pz": {"hex": "S2121"}})
        assert rules["ps"]["in_ezoc"] == ["RumCav/5"]                 # as the phase began
        play(rules, [{"type": "overrun", "units": ["6/3Pz"], "target": "S2125", "path": ["S2122", "S2123", "S2124"]}],
             dice=[1])                                                # 1 against 1, D1: R/6 eliminated
        assert st.status(rules, "R/6") == "gone" and mv.remaining(sc, rules, "6/3Pz") == 0
        assert sc.idx["S2126"] not in mv.context(sc, rules, "axis").ezoc
        return rules

    rules = after_the_overrun()
    need = flow.next_step(sc, rules)
    offered = [o for o in flow.legal_orders(sc, rules, need) if o["type"] == "move" and o["units"] == ["RumCav/5"]]
    assert offered and ["S2226"] not in [o["path"] for o in offered]
    refused(rules, {"type": "move", "units": ["RumCav/5"], "path": ["S2226"]}, "6.23", "has 2 left")
    for order in offered:                                             # every move offered applies
        rules = after_the_overrun()
        play(rules, [order])
        assert st.hex_of(rules, "RumCav/5") == order["path"][-1]
    play(rules, [{"type": "end"}])
    assert rules["phase"] == "combat" and "in_ezoc" not in rules["ps"]
    assert "in_ezoc" not in at(phase="mech", units={"RumCav/5": {"hex": "S2126"},
                                                    "R/6": {"hex": "S2125", "revealed": [1, 1]}})["ps"]   # 6.14: Initial only


def test_6_21_no_entry_into_an_enemy_hex():
    rules = at(units={"G/57": {"hex": "N2246"}, "R/6": {"hex": "N2245", "revealed": [2, 4], "markers": ["disrupted"]}})
    refused(rules, {"type": "move", "units": ["G/57"], "path": ["N2245"]}, "6.21")


def test_12_38_14_13_6_21_trucks_and_air_units_are_displaced():
    rules = at(player="soviet", units={"R/6": {"hex": "N2246", "revealed": [2, 4]}, "Tr/1": {"hex": "N2245"},
                                        "A/21": {"hex": "N2246"}})
    rules["railheads"] = [{"truck": "Tr/1", "chain": ["Tr/1"], "used": False}]
    ctx = play(rules, [{"type": "move", "units": ["R/6"], "path": ["N2245", "N2244"]}])
    assert st.status(rules, "Tr/1") == "due" and rules["due"]["Tr/1"] == 6 and rules["railheads"] == []   # 12.38, 12.39
    assert events_of(ctx, "displaced")[0]["rule"] == "12.38"
    rules = at(units={"G/57": {"hex": "N2246"}, "AA/2": {"hex": "N2245"}})
    play(rules, [{"type": "move", "units": ["G/57"], "path": ["N2245"]}])
    assert st.status(rules, "AA/2") == "due" and rules["due"]["AA/2"] == 6                            # 14.13


def test_6_23_mechanized_units_move_again_in_their_second_phase():
    rules = at(units={"6/3Pz": {"hex": "N2245"}})
    play(rules, [{"type": "move", "units": ["6/3Pz"], "path": ["N2244", "N2243"]}, {"type": "end"}, {"type": "end"}])
    assert rules["phase"] == "mech" and rules["ps"]["moved"] == {}
    play(rules, [{"type": "move", "units": ["6/3Pz"], "path": ["N2242"]}])
    assert st.hex_of(rules, "6/3Pz") == "N2242"
    rules = at(phase="mech", units={"G/57": {"hex": "N2245"}})
    refused(rules, {"type": "move", "units": ["G/57"], "path": ["N2244"]}, "6.0")


def test_6_28_one_unit_at_a_time_and_stacks_that_began_together():
    rules = at(units={"G/57": {"hex": "N2245"}, "G/75": {"hex": "N2245"}, "G/79": {"hex": "N2246"}})
    play(rules, [{"type": "move", "units": ["G/57"], "path": ["N2244"]}])
    play(rules, [{"type": "move", "units": ["G/57"], "path": ["N2243"]}])            # still the unit moving
    play(rules, [{"type": "move", "units": ["G/79"], "path": ["N2146"]}])
    refused(rules, {"type": "move", "units": ["G/57"], "path": ["N2242"]}, "6.28")
    refused(rules, {"type": "move", "units": ["G/75", "G/79"], "path": ["N2244"]}, "6.28", "same hex")


# --- 6.26, 10.23, 10.26: the major rivers ----------------------------------------------------------

def test_6_26_10_23_crossing_the_don_costs_and_the_errata_zoc_rule():
    west, east = "N3121", "N3020"
    sc = SC()
    assert sc.side_kind[(sc.idx[west], sc.idx[east])] == "don"
    rules = at(player="soviet", units={"R/6": {"hex": west, "revealed": [2, 4]}})
    assert mp_of(play(rules, [{"type": "move", "units": ["R/6"], "path": [east]}]), "R/6") == 3   # +2, 10.23
    rules = at(units={"G/57": {"hex": west}})
    assert mp_of(play(rules, [{"type": "move", "units": ["G/57"], "path": [east]}]), "G/57") == 4  # +3
    # an enemy unit on the Don with its ZOC in the hex across: no crossing (errata), unless a friend holds it
    on_don = next(sc.ids[j] for j in sc.nb[sc.idx[east]] if j in sc.don_hex and sc.ids[j] != west)
    rules = at(units={"G/57": {"hex": west}, "R/6": {"hex": on_don, "revealed": [2, 4]}})
    refused(rules, {"type": "move", "units": ["G/57"], "path": [east]}, "10.23")
    rules = at(units={"G/57": {"hex": west}, "G/75": {"hex": east}, "R/6": {"hex": on_don, "revealed": [2, 4]}})
    play(rules, [{"type": "move", "units": ["G/57"], "path": [east]}])
    assert st.hex_of(rules, "G/57") == east


def test_10_26_the_volga_only_at_friendly_cities():
    rules = at(player="soviet", units={"R/6": {"hex": "N3117", "revealed": [2, 4]}})
    ctx = play(rules, [{"type": "move", "units": ["R/6"], "path": ["N3116"]}])
    assert mp_of(ctx, "R/6") == 4                                     # 1 + 3 from a friendly city
    rules = at(units={"G/57": {"hex": "N3116"}})                      # Stalingrad is Soviet: no crossing
    refused(rules, {"type": "move", "units": ["G/57"], "path": ["N3117"]}, "10.26")


def test_10_29_no_movement_across_a_lake_hexside():
    a, b = find_step("clear", kind="lake")
    rules = at(player="soviet", units={"R/6": {"hex": a, "revealed": [2, 4]}})
    refused(rules, {"type": "move", "units": ["R/6"], "path": [b]}, "10.29")


def test_10_33_mountains():
    a, b = find_step("mountain", frm="rough")
    rules = at(units={"6/3Pz": {"hex": a}, "G/57": {"hex": a}, "Mt/1": {"hex": a}})
    refused(rules, {"type": "move", "units": ["6/3Pz"], "path": [b]}, "10.33")
    assert mp_of(play(rules, [{"type": "move", "units": ["G/57"], "path": [b]}]), "G/57") == 3
    assert mp_of(play(rules, [{"type": "move", "units": ["Mt/1"], "path": [b]}]), "Mt/1") == 2


def test_10_4_10_41_10_42_10_43_6_36_railroads_and_cities():
    sc = SC()
    # 10.43 example: N3426 to N3326 along the railroad across the Chir, N3326 Axis-controlled: 1 MP
    rules = at(units={"G/57": {"hex": "N3426"}}, control={"N3326": "axis", "N3426": "axis"})
    assert mp_of(play(rules, [{"type": "move", "units": ["G/57"], "path": ["N3326"]}]), "G/57") == 1
    rules = at(units={"G/57": {"hex": "N3426"}})                     # Soviet-controlled: river and all, 3
    assert mp_of(play(rules, [{"type": "move", "units": ["G/57"], "path": ["N3326"]}]), "G/57") == 3
    # 10.43 example: the Soviet player from N1616 to N1419 along the railroad: 4 MP in all
    line = next(ln for ln in __import__("pbem.rulesets.dos.scenario", fromlist=["x"]).load_historical()["map"]["rail"]
                if "N1419" in ln and "N1616" in ln)
    a, b = sorted((line.index("N1419"), line.index("N1616")))
    path = line[a:b + 1][::-1] if line[a] == "N1419" else line[a:b + 1]
    rules = at(player="soviet", units={"R/6": {"hex": "N1616", "revealed": [2, 4]}})
    assert mp_of(play(rules, [{"type": "move", "units": ["R/6"], "path": path[1:]}]), "R/6") == 4
    # 10.41, 10.44: a city costs the other terrain of its hex; cities count as rail hexes (6.36)
    assert all(sc.idx[h] in sc.rail_hex for c in sc.cities for h in c.hexes)


# --- 8.2: zones of control ----------------------------------------------------------------------------

def test_8_21_8_22_8_23_zoc_stops_movement_costs_nothing_and_is_never_left():
    rules = at(units={"G/57": {"hex": "N2146"}, "G/75": {"hex": "N2146"}, "R/6": {"hex": "N2244", "revealed": [2, 4]}})
    refused(rules, {"type": "move", "units": ["G/57"], "path": ["N2245", "N2145"]}, "8.0", "must stop")
    ctx = play(rules, [{"type": "move", "units": ["G/57"], "path": ["N2245"]}])
    assert mp_of(ctx, "G/57") == 1                                    # 8.21, and 8.23: own ZOC no obstacle
    rules = at(units={"G/57": {"hex": "N2245"}, "R/6": {"hex": "N2244", "revealed": [2, 4]}})
    refused(rules, {"type": "move", "units": ["G/57"], "path": ["N2246"]}, "8.22")


def test_8_11_8_12_8_13_8_25_8_26_where_zones_of_control_reach():
    sc = SC()
    b = bd.Board(sc, at(units={"R/6": {"hex": "N3020", "revealed": [2, 4]}, "G/57": {"hex": "N3019"},
                                "G/75": {"hex": "N3021"}}))
    assert sc.idx["N3121"] not in b.zoc("soviet")                    # 8.11, 10.25: not across the Don
    assert sc.idx["N3019"] in b.zoc("soviet") and sc.idx["N3020"] in b.zoc("axis")   # 8.25: mutual
    rules = at(units={"R/6": {"hex": "N3020", "revealed": [2, 4], "markers": ["disrupted"]}})
    assert bd.Board(sc, rules).zoc("soviet") == frozenset()          # 8.12
    a, m = find_step("mountain", frm="rough")
    assert sc.idx[m] not in bd.Board(sc, at(units={"G/57": {"hex": a}})).zoc("axis")       # 8.13 errata
    assert sc.idx[m] in bd.Board(sc, at(units={"Mt/1": {"hex": a}})).zoc("axis")


# --- 6.3, 6.4: rail movement ---------------------------------------------------------------------------

AXIS_LINE = ["N0154", "N0254", "N0354", "N0454", "N0554", "N0654", "N0754", "N0853", "N0954", "N1053", "N1154",
             "N1253", "N1353", "N1453", "N1553", "N1653", "N1753", "N1853", "N1954", "N2053", "N2154"]
SOVIET_LINE = ["N1228", "N1227", "N1127", "N1126", "N1025", "N1024", "N0924"]


def test_6_31_6_32_6_33_rail_movement():
    rules = at(units={"G/57": {"hex": "N0154"}, "G/75": {"hex": "N0154"}, "G/79": {"hex": "N0154"},
                      "G/113": {"hex": "N0154"}, "HQ/2Hun": {"hex": "N0154"}})
    ctx = play(rules, [{"type": "rail", "units": ["G/57", "G/75"], "path": AXIS_LINE[1:]}])
    assert events_of(ctx, "rail")[0]["rmp"] == 20 and rules["rail_used"] == 2
    play(rules, [{"type": "rail", "units": ["HQ/2Hun"], "path": AXIS_LINE[1:5]}])                 # 11.22: free
    play(rules, [{"type": "rail", "units": ["G/79"], "path": AXIS_LINE[1:5]}])
    refused(rules, {"type": "rail", "units": ["G/113"], "path": AXIS_LINE[1:5]}, "6.31", "limit of 3")
    assert mv.rail_units(SC(), "TC/1") == 3 and mv.rail_units(SC(), "AA/2") == 3 and mv.rail_units(SC(), "A/21") == 0


def test_6_32_6_34_6_35_rail_from_and_to_rail_hexes_never_into_an_enemy_zoc():
    rules = at(units={"G/57": {"hex": "N0154"}, "R/6": {"hex": "N0553", "revealed": [2, 4]}})
    refused(rules, {"type": "rail", "units": ["G/57"], "path": AXIS_LINE[1:6]}, "6.32", "Enemy Zone of Control")
    rules = at(units={"G/57": {"hex": "N2245"}})
    refused(rules, {"type": "rail", "units": ["G/57"], "path": ["N2244"]}, "6.32", "not a rail hex")
    rules = at(phase="mech", units={"6/3Pz": {"hex": "N0154"}})
    refused(rules, {"type": "rail", "units": ["6/3Pz"], "path": AXIS_LINE[1:3]}, "6.34")


def test_6_33_14_43_interdicted_rail_hexes_cost_five():
    rules = at(units={"G/57": {"hex": "N0154"}}, interdiction={"soviet": ["N0354"]})
    ctx = play(rules, [{"type": "rail", "units": ["G/57"], "path": AXIS_LINE[1:4]}])
    assert events_of(ctx, "rail")[0]["rmp"] == 1 + 5 + 1
    rules = at(units={"G/57": {"hex": "N0154"}})
    long_way = AXIS_LINE[1:] + ["N2254", "N2354", "N2454", "N2554", "N2654", "N2754", "N2854", "N2954", "N3054",
                                "N3154", "N3254", "N3253", "N3252", "N3251", "N3250", "N3249", "N3248", "N3348", "N3447",
                                "N3547", "N3546"]
    refused(rules, {"type": "rail", "units": ["G/57"], "path": long_way}, "6.33")


def test_6_37_6_38_6_39_links():
    rules = at(player="soviet", units={"R/6": {"hex": "S1001", "revealed": [2, 4]}})
    ctx = play(rules, [{"type": "rail", "units": ["R/6"], "path": ["S0601"]}])
    assert events_of(ctx, "rail")[0]["rmp"] == 10
    rules = at(player="soviet", units={"R/6": {"hex": "S1001", "revealed": [2, 4]}})
    ctx = play(rules, [{"type": "rail", "units": ["R/6"], "path": ["N1001"]}])
    assert events_of(ctx, "rail")[0]["rmp"] == 40
    rules = at(player="soviet", units={"R/6": {"hex": "N0811", "revealed": [2, 4]}})
    ctx = play(rules, [{"type": "rail", "units": ["R/6"], "path": ["N0911"]}])                    # across the Volga
    assert events_of(ctx, "rail")[0]["rmp"] == 10
    rules = at(units={"G/57": {"hex": "N2154"}})
    ctx = play(rules, [{"type": "rail", "units": ["G/57"], "path": ["N2253"]}])
    assert events_of(ctx, "rail")[0]["rmp"] == 4
    rules = at(units={"G/57": {"hex": "N2154"}})
    ctx = play(rules, [{"type": "rail", "units": ["G/57"], "path": ["N3754"]}])
    assert events_of(ctx, "rail")[0]["rmp"] == 25


def kharkov_line() -> tuple[list[str], str]:
    """The Kharkov-Kupiansk railroad from Kharkov to its first hex east of the Front Line."""
    from pbem.rulesets.dos import scenario

    sc = SC()
    line = next(ln for ln in scenario.load_historical()["map"]["rail"] if ln[0] == "N2154" and "N2449" in ln)
    first_east = next(h for h in line if sc.idx[h] not in sc.axis_start)
    return line[1:line.index(first_east) + 1], first_east


def test_6_41_6_44_6_45_axis_rail_west_of_the_line_or_cleared():
    path, first_east = kharkov_line()
    path = path[1:]
    rules = at(units={"G/57": {"hex": "N2154"}}, control={h: "axis" for h in path})
    refused(rules, {"type": "rail", "units": ["G/57"], "path": ["N2153"] + path}, "6.41")
    rules = at(units={"G/57": {"hex": "N2154"}}, control={h: "axis" for h in path}, cleared=[first_east])
    play(rules, [{"type": "rail", "units": ["G/57"], "path": ["N2153"] + path}])
    assert st.hex_of(rules, "G/57") == first_east
    # 6.45: recaptured by the Soviet player, the cleared hex is no use until an Axis unit is there again
    rules = at(units={"G/57": {"hex": "N2154"}}, control={h: "axis" for h in path[:-1]}, cleared=[first_east])
    refused(rules, {"type": "rail", "units": ["G/57"], "path": ["N2153"] + path}, "6.41")


def test_6_44_6_46_6_47_soviet_rail():
    sc = SC()
    rules = at(player="soviet", units={"R/6": {"hex": "N1228", "revealed": [2, 4]}})
    play(rules, [{"type": "rail", "units": ["R/6"], "path": SOVIET_LINE[1:]}])
    assert st.hex_of(rules, "R/6") == "N0924"
    rules = at(player="soviet", units={"R/6": {"hex": "N1228", "revealed": [2, 4]}}, cleared=["N1126"])
    refused(rules, {"type": "rail", "units": ["R/6"], "path": SOVIET_LINE[1:]}, "6.46")    # 6.44: never cleared ones
    rules = at(player="soviet", units={"R/6": {"hex": "N1228", "revealed": [2, 4]}}, control={"N1126": "axis"})
    refused(rules, {"type": "rail", "units": ["R/6"], "path": SOVIET_LINE[1:]}, "6.46")    # last passed by Axis
    # 6.47: retaken this Game-Turn: usable from the next
    rules = at(player="soviet", units={"R/6": {"hex": "N1228", "revealed": [2, 4]}})
    rules["control"]["N1126"] = "s3"
    refused(rules, {"type": "rail", "units": ["R/6"], "path": SOVIET_LINE[1:]}, "6.46")
    rules["turn"] = 4
    play(rules, [{"type": "rail", "units": ["R/6"], "path": SOVIET_LINE[1:]}])
    assert sc.idx["N1126"] in sc.rail_hex


def test_6_42_6_43_6_48_clearing_up_to_three_consecutive_hexes():
    from pbem.rulesets.dos import interphase

    sc = SC()

    east = rail_chain(sc, 5)
    assert len(east) >= 4
    rules = at(control={h: "axis" for h in east})
    chains = interphase.clear_chains(sc, rules)
    assert east[:3] in chains and max(len(c) for c in chains) == 3
    assert not any(set(c) - set(east) for c in chains)               # only hexes last passed by Axis units
    rules = at(control={h: "axis" for h in east[1:]})                # the first is Soviet: nothing joins the line
    assert interphase.clear_chains(sc, rules) == []


# --- 7.1 at the end of the Movement Phase ------------------------------------------------------------

def test_7_1_11_23_excess_eliminated_at_the_end_of_the_movement_phase():
    rules = at(units={"G/57": {"hex": "N2245"}, "G/75": {"hex": "N2245"}, "G/79": {"hex": "N2246"},
                      "G/113": {"hex": "N2246", "steps_lost": 2}, "HQ/2Hun": {"hex": "N2246"},
                      "Tr/1": {"hex": "N2245"}, "AirK/4": {"hex": "N2245"}})
    play(rules, [{"type": "move", "units": ["G/79", "G/113", "HQ/2Hun"], "path": ["N2245"]}])
    ctx = play(rules, [{"type": "end"}])
    # the standing order: the weakest unit whose loss makes the hex legal (3 divisions and the HQ)
    assert [(e["units"], e["rule"]) for e in events_of(ctx, "eliminated")] == [(["G/113"], "7.1")]
    assert rules["phase"] == "combat"
    here = [u for u, w in rules["units"].items() if w == "N2245"]
    assert sorted(here) == ["AirK/4", "G/57", "G/75", "G/79", "HQ/2Hun", "Tr/1"]      # trucks, air: not counted


def test_7_22_three_whole_panzer_divisions_stack():
    regs = SC().divisions["14Pz"] + SC().divisions["16Pz"] + SC().divisions["22Pz"]
    assert bd.stacking_ok(SC(), at(), list(regs))
    assert not bd.stacking_ok(SC(), at(), list(regs) + ["G/57"])
    assert not bd.stacking_ok(SC(), at(), list(regs[:2]) + ["G/57", "G/75"])


# --- 14.44, 15.x, 11.5 ---------------------------------------------------------------------------------

def test_14_44_interdicted_hex_costs_one_more():
    rules = at(units={"G/57": {"hex": "N2245"}}, interdiction={"soviet": ["N2244"]})
    assert mp_of(play(rules, [{"type": "move", "units": ["G/57"], "path": ["N2244"]}]), "G/57") == 2
    rules = at(units={"G/57": {"hex": "N2245"}}, interdiction={"axis": ["N2244"]})     # own markers: nothing
    assert mp_of(play(rules, [{"type": "move", "units": ["G/57"], "path": ["N2244"]}]), "G/57") == 1


def test_15_1_axis_reinforcements_enter_on_the_west_edge():
    rules = at(units={"G/73": {"status": "ready"}, "G/125": {"status": "ready"}})
    sc = SC()
    edge, inner = next((sc.ids[a], sc.ids[b]) for a in sorted(sc.edge["west"]) for b in sc.nb[a]
                       if sc.terrain_of[a] == "clear" and sc.terrain_of[b] == "clear" and b not in sc.edge["west"]
                       and sc.side_kind.get((a, b)) is None and a in sc.axis_start)
    play(rules, [{"type": "enter", "units": ["G/73"], "path": [edge, inner]}])
    assert st.hex_of(rules, "G/73") == inner and st.has(rules["ps"]["fresh"], "G/73")            # 12.53
    assert rules["ps"]["moved"]["G/73"] == 2                          # 15.0: the entry hex's cost, then one more
    refused(rules, {"type": "enter", "units": ["G/125"], "path": ["N2245"]}, "15.1")
    rules = at(units={"G/73": {"status": "ready"}})
    play(rules, [{"type": "enter", "units": ["G/73"], "path": ["N0154"] + AXIS_LINE[1:4], "rail": True}])
    assert rules["rail_used"] == 1                                                                # 6.32


def test_15_3_soviet_reinforcements_in_cities_and_on_edge_rail():
    rules = at(player="soviet", units={"R/1": {"status": "ready", "map": "north"}, "R/29": {"status": "ready", "map": "north"},
                                        "R/102": {"status": "ready", "map": "north"}, "R/112": {"status": "ready", "map": "north"},
                                        "R/127": {"status": "ready", "map": "south"}})
    ctx = play(rules, [{"type": "enter", "units": ["R/1"], "path": ["N3117"]}])
    assert mp_of(ctx, "R/1") == 0                                     # a city: placed at no cost
    play(rules, [{"type": "enter", "units": ["R/29", "R/102"], "path": ["N3217"]}])
    refused(rules, {"type": "enter", "units": ["R/112"], "path": ["N3117"]}, "15.3", "at most 3")   # Major: 3
    play(rules, [{"type": "enter", "units": ["R/112"], "path": ["N2013"]}])                         # Minor: 1
    refused(rules, {"type": "enter", "units": ["R/127"], "path": ["N2013"]}, "15.3",               # south map unit
            "it enters on the south map section")
    # where the orders are written, the reinforcements ready to enter, by their map section
    from pbem.rulesets.dos import report

    words = " ".join(report.ready_words(SC(), rules, "soviet"))
    assert words.startswith("1 reinforcement ready to enter (15.3), on the south map: R/127;"), words


def test_11_5_14_6_evacuation_at_the_start_of_the_phase_only():
    rules = at(player="soviet", units={"A/21": {"hex": "N2245"}, "AA/2": {"hex": "N2245"}, "R/6": {"hex": "N2246", "revealed": [2, 4]},
                                        "A/9": {"hex": "N2244", "markers": ["disrupted"]}})
    refused(rules, {"type": "evacuate", "units": ["A/9"]}, "11.5", "disrupted")
    play(rules, [{"type": "evacuate", "units": ["A/21", "AA/2"]}])
    assert rules["due"] == {"A/21": 6, "AA/2": 6}
    play(rules, [{"type": "move", "units": ["R/6"], "path": ["N2247"]}])
    refused(rules, {"type": "evacuate", "units": ["A/9"]}, "11.5", "beginning")


def test_14_12_air_units_move_by_rail_only_and_not_after_spending():
    rules = at(units={"AirK/4": {"hex": "N0154"}})
    refused(rules, {"type": "move", "units": ["AirK/4"], "path": ["N0254"]}, "14.12")
    play(rules, [{"type": "rail", "units": ["AirK/4"], "path": AXIS_LINE[1:4]}])
    assert rules["rail_used"] == 3 and st.has(rules["air_moved"], "AirK/4")
    rules = at(units={"AirK/4": {"hex": "N0154"}}, air_spent={"AirK/4": 1})
    refused(rules, {"type": "rail", "units": ["AirK/4"], "path": AXIS_LINE[1:4]}, "14.12")


# --- 18.1: strategic withdrawal -------------------------------------------------------------------------

def test_18_1_18_11_18_13_east_only_ignoring_zoc_never_by_rail():
    rules = at(player="soviet", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}})
    refused(rules, {"type": "move", "units": ["R/6"], "path": ["N2146"], "withdraw": True}, "18.11")
    play(rules, [{"type": "move", "units": ["R/6"], "path": ["N2145", "N2144"], "withdraw": True}])
    assert rules["strategic"] and st.has(rules["pt"]["withdrew"], "R/6")
    from pbem.core.schema import order_errors
    from pbem.rulesets.dos.orders import ORDER_SCHEMA

    assert order_errors(ORDER_SCHEMA, {"type": "rail", "units": ["R/6"], "path": ["N1227"], "withdraw": True})   # 18.13


def test_18_12_18_16_withdrawn_units_lose_zoc_and_die_in_an_enemy_zoc():
    rules = at(player="soviet", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                        "G/75": {"hex": "N2243"}})
    play(rules, [{"type": "move", "units": ["R/6"], "path": ["N2244"], "withdraw": True}])
    assert SC().idx["N2245"] not in bd.Board(SC(), rules).zoc("soviet")                          # 18.16
    ctx = play(rules, [{"type": "end"}])
    assert st.status(rules, "R/6") == "gone" and events_of(ctx, "eliminated")[0]["rule"] == "18.12"


def test_18_15_18_26_no_withdrawal_after_attacking_or_across_the_don():
    rules = at(player="soviet", phase="mech", units={"TC/1": {"hex": "N2245", "markers": ["attacked"]},
                                                      "G/57": {"hex": "N2246"}})
    refused(rules, {"type": "move", "units": ["TC/1"], "path": ["N2244"], "withdraw": True}, "18.15")
    sc = SC()
    inside = next(sc.ids[i] for i in sorted(sc.across_don) if sc.terrain_of[i] == "clear"
                  and any(sc.east_of(i, j) and j in sc.across_don and sc.terrain_of[j] == "clear" for j in sc.nb[i]))
    target = next(sc.ids[j] for j in sc.nb[sc.idx[inside]] if sc.east_of(sc.idx[inside], j) and j in sc.across_don)
    rules = at(player="soviet", units={"R/6": {"hex": inside, "revealed": [2, 4]}})
    refused(rules, {"type": "move", "units": ["R/6"], "path": [target], "withdraw": True}, "18.26")


# --- 19.22: leaving from S1001 ----------------------------------------------------------------------------

def test_19_22_exit_from_s1001_and_return():
    sc = SC()
    near = next(sc.ids[j] for j in sc.nb[sc.idx["S1001"]] if sc.terrain_of[j] == "clear"
                and sc.side_kind.get((sc.idx["S1001"], j)) is None)
    rules = at(units={"G/57": {"hex": near}, "G/75": {"hex": "S1001"}})
    play(rules, [{"type": "move", "units": ["G/57"], "path": ["S1001"], "exit": True}])
    assert st.status(rules, "G/57") == "exited" and rules["exits"] == ["G/57"]
    refused(rules, {"type": "move", "units": ["G/75"], "path": [near], "exit": True}, "19.22", "only from S1001")
    # back elsewhere: refused for Astrakhan's reason, not the west edge's (a code review)
    refused(rules, {"type": "enter", "units": ["G/57"], "path": [sc.ids[min(sc.edge["west"])]]}, "19.22",
            "a unit that exited comes back at Astrakhan, S1001, while an Axis combat unit or HQ stands there")
    play(rules, [{"type": "enter", "units": ["G/57"], "path": ["S1001"]}])          # back, an Axis unit being there
    assert st.hex_of(rules, "G/57") == "S1001" and rules["exits"] == []


def test_19_22_an_army_hq_is_no_division_and_a_truck_or_air_unit_holds_no_s1001():
    """19.22: "the Axis Player must exit three divisions ... and have at least one unit in hex
    S1001". An Army HQ that exits counts for no division (11.0); a truck or an air unit in S1001
    holds nothing (the reading: they count for no stacking, 7.1, and Soviet units pass through
    them, 12.38, 14.13). A rules probe: an HQ as the third division and a truck in S1001 gave
    the Axis Astrakhan's 15 VP. The exit line's verb agrees with one unit."""
    from pbem.rulesets.dos import victory

    sc = SC()
    out = {"G/57": {"status": "exited"}, "G/75": {"status": "exited"}}
    rules = at(turn=10, units={**out, "HQ/3Rum": {"hex": "S1002"}, "G/79": {"hex": "S1001"}})
    before = victory.vp(sc, rules)
    ctx = play(rules, [{"type": "move", "units": ["HQ/3Rum"], "path": ["S1001"], "exit": True}])
    assert events_of(ctx, "exit")[0]["text"] == "HQ/3Rum leaves the map eastward from S1001 (19.22)."
    assert victory.exited_divisions(sc, rules) == 2 and victory.city_control(sc, rules, "Astrakhan") == "soviet"
    assert victory.vp(sc, rules) == before
    for holder in ("Tr/1", "AirK/4", "G/79"):
        rules = at(turn=10, units={**out, "6/3Pz": {"hex": "S1002"}, holder: {"hex": "S1001"}})
        play(rules, [{"type": "move", "units": ["6/3Pz"], "path": ["S1001"], "exit": True}])
        assert victory.exited_divisions(sc, rules) == 3
        assert victory.city_control(sc, rules, "Astrakhan") == ("axis" if holder == "G/79" else "soviet"), holder


def test_12_0_a_unit_that_began_moving_out_of_supply_is_not_air_supplied_for_the_rest_of_the_phase():
    """12.0: "a unit that starts its Movement Phase out of Supply is considered out of Supply for
    that entire Movement Phase": air supply bought before it moves counts (12.44), not after. A
    rules probe: G/57 moved its halved allowance, was air supplied, and moved on at full."""
    rules = at(turn=3, units={"G/57": {"hex": "N2234"}, "AirK/4": {"hex": "N2245"}})
    play(rules, [{"type": "move", "units": ["G/57"], "path": ["N2233", "N2232", "N2231", "N2230"]}])
    refused(rules, {"type": "air-supply", "air": "AirK/4", "units": ["G/57"]}, "12.0",
            "G/57 began moving out of supply and stays out of supply for this Movement Phase (12.0): air supply it "
            "before it moves")
    rules = at(turn=3, units={"G/57": {"hex": "N2234"}, "AirK/4": {"hex": "N2245"}})
    play(rules, [{"type": "air-supply", "air": "AirK/4", "units": ["G/57"]},
                 {"type": "move", "units": ["G/57"], "path": ["N2233", "N2232", "N2231", "N2230", "N2229", "N2228"]}])
    assert st.hex_of(rules, "G/57") == "N2228"


def test_10_44_10_45_control_follows_the_last_unit_through_a_hex():
    path, first_east = kharkov_line()
    sc = SC()
    rules = at(units={"G/57": {"hex": path[0]}})
    assert st.control(sc, rules, sc.idx[first_east]) == "soviet"                     # 10.44: east of the line
    i = path.index(first_east)
    play(rules, [{"type": "move", "units": ["G/57"], "path": path[1:i + 2]}])
    assert st.control(sc, rules, sc.idx[first_east]) == "axis" and rules["control"][first_east] == "a3"   # 10.45
    rules["player"] = "soviet"
    st.enter_hex(sc, rules, sc.idx[first_east], "soviet")
    assert st.control(sc, rules, sc.idx[first_east]) == "soviet"


def test_14_42_markers_do_not_count_for_stacking():
    rules = at(units={"G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"}, "G/79": {"hex": "N2246"}},
               interdiction={"soviet": ["N2245"], "axis": ["N2245"]})
    ctx = play(rules, [{"type": "move", "units": ["G/57", "G/75", "G/79"], "path": ["N2245"]}, {"type": "end"}])
    assert not events_of(ctx, "eliminated") and rules["phase"] == "combat"



def test_15_3_6_21_no_entry_is_offered_into_a_hex_the_enemy_holds():
    """The entries offered in the Initial Movement Phase leave out every hex enemy units
    hold (6.21), as applying the order would refuse them."""
    sc = SC()
    edge, cities = sc.soviet_entry["north"]
    held = [h for h in list(cities) + list(edge) if sc.terrain_of[h] != "mountain"][:12]
    axis = [u for u in sc.side_units["axis"] if sc.units[u].arm == "infantry"][:len(held)]   # not air (14.13)
    units = {"R/1": {"status": "ready", "map": "north"}}
    units.update({uid: {"hex": sc.ids[h]} for uid, h in zip(axis, held)})
    rules = at(player="soviet", units=units)
    need = flow.next_step(sc, rules)
    offered = [o["path"][0] for o in flow.legal_orders(sc, rules, need) if o["type"] == "enter"]
    assert offered and not set(offered) & {sc.ids[h] for h in held}
    for entry in offered:   # and every one offered applies
        play(at(player="soviet", units=units), [{"type": "enter", "units": ["R/1"], "path": [entry]}])
