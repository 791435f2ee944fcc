"""Enemy air units and trucks are enemy units wherever a rule names "Enemy units" and no case
excepts them: a retreat never enters their hex (9.71), no line of supply or communication passes
it (12.11). The movement of 6.21 is what 12.38 and 14.13 except, and a retreat is not movement
(6.24). And 6.41's rail west of the Front Line serves the Axis player whoever last passed it.
Positions through the real flow (tests/test_dos_support.py)."""

from __future__ import annotations

import pytest

from pbem.rulesets.dos import board as bd, scenario, state as st, supply as sp

from tests.test_dos_support import SC, at, events_of, play


@pytest.mark.parametrize("blocker", ["AirK/4", "Tr/1"])
def test_9_71_a_retreat_never_enters_a_hex_an_enemy_air_unit_or_truck_holds_alone(blocker):
    """R/6 in N2245 takes D1 from three German regiments in N2246. Every other neighbour holds
    three Soviet units (the 7.1 limit); the one left holds only an Axis air unit (or truck). No
    retreat is open, so the result is taken as a loss (9.67), which eliminates R/6, and the air
    unit stays. 1.11.0 let the retreat in and displaced the air unit (14.13) or truck (12.38) for
    three Game-Turns."""
    sc = SC()
    x, att = sc.idx["N2245"], sc.idx["N2246"]
    opp = next(y for y in sc.nb[x] if y != att and not sc.adjacent(y, att))
    units = {"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"},
             "G/79": {"hex": "N2246"}, "A/21": {"hex": "N2143"}, blocker: {"hex": sc.ids[opp]}}
    rifles = iter(sorted(u for u in sc.units if u.startswith("R/") and u != "R/6"))
    for y in sc.nb[x]:
        if y not in (att, opp):
            for _ in range(3):
                units[next(rifles)] = {"hex": sc.ids[y], "revealed": [2, 4]}
    rules = at(phase="combat", units=units)
    ctx = play(rules, [{"type": "attack", "targets": ["N2245"], "units": ["G/57", "G/75", "G/79"]}], dice=[3],
               policies={"defender_result": "retreat", "advance": "ask"})
    assert st.status(rules, "R/6") == "gone" and [e["rule"] for e in events_of(ctx, "eliminated")] == ["9.67"]
    assert st.hex_of(rules, blocker) == sc.ids[opp] and events_of(ctx, "displaced") == []


@pytest.mark.parametrize("blocker", ["AirK/4", "Tr/1"])
def test_12_11_no_line_of_communications_passes_a_hex_an_enemy_air_unit_or_truck_holds(blocker):
    """R/6 stands two hexes from A/18 (Leadership Rating 2) with one hex between them; that hex
    holds only an Axis air unit (or truck): R/6 traces no Line of Communications, so it is out of
    supply and outside the HQ's radius (11.47). With the hex empty it is in both. 1.11.0 blocked
    lines only at enemy combat units and HQs."""
    sc = SC()
    hq = sc.idx["N2143"]
    far, mid = next((j, (set(sc.nb[hq]) & set(sc.nb[j])).pop()) for j in range(len(sc.ids))
                    if sc.distance(hq, j) == 2 and len(set(sc.nb[hq]) & set(sc.nb[j])) == 1)
    for there, supplied in ((None, True), (blocker, False)):
        units = {"A/18": {"hex": "N2143"}, "R/6": {"hex": sc.ids[far], "revealed": [2, 4]}}
        if there:
            units[there] = {"hex": sc.ids[mid]}
        rules = at(player="soviet", units=units)
        board = bd.view(sc, rules)
        assert ("R/6" in sp.supplied(sc, rules, board, "soviet", ["R/6", "A/18"])) is supplied
        assert sp.in_radius(sc, rules, board, "soviet", "R/6") is supplied


def test_6_41_axis_rail_west_of_the_front_line_whoever_last_passed_it():
    """G/57 moves by rail along the Kharkov-Kupiansk line, every hex of it west of the Front Line;
    a Soviet unit last passed one of them (a raid since gone). 6.41 puts no condition on rail west
    of the line, so the move stands. 1.11.0 refused it until an Axis unit passed the hex again."""
    sc = SC()
    line = next(ln for ln in scenario.load_historical()["map"]["rail"] if ln[0] == "N2154" and "N2449" in ln)
    west = [h for h in line[1:] if sc.idx[h] in sc.axis_start][:4]
    assert len(west) == 4
    for control in ({}, {west[1]: "soviet"}):
        rules = at(units={"G/57": {"hex": "N2154"}}, control=control)
        play(rules, [{"type": "rail", "units": ["G/57"], "path": west}])
        assert st.hex_of(rules, "G/57") == west[-1]
