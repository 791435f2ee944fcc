"""Enemy air units and trucks are enemy units wherever a rule names "Enemy units" and no case
excepts them: a retreat never enters their hex (9.71), no advance after combat does (9.81, 9.86),
no line of supply or communication passes it (12.11). The movement of 6.21 is what 12.38 and
14.13 except, and neither a retreat nor an advance is movement (6.24); an advance still enters
each hex as the unit could move into it (10.33). And 6.41's rail west of the Front Line serves
the Axis player whoever last passed it. Positions through the real flow (tests/test_dos_support.py)."""

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


def _advance_offers(rules) -> list:
    """The advances the pending combat offers ([] when it ended with none to offer)."""
    from pbem.rulesets.dos import combat

    c = rules["combat"]
    return [(o.get("units"), o.get("path")) for o in combat.advance_options(SC(), rules, c)] if c else []


@pytest.mark.parametrize("with_air", [False, True])
def test_6_24_9_81_no_advance_enters_a_hex_an_enemy_air_unit_still_holds(with_air):
    """G/57 attacks R/6 in N2245 at 2-1; die 2, D1: R/6 retreats to N2145. Alone, R/6 leaves
    N2245 vacant and G/57 may advance into it (9.81). Stacked with the Soviet air army AA/8, which
    stays, it leaves no vacant hex: an advance is not movement (6.24), so the exception of 14.13
    (a unit that *moves* in displaces the air unit) does not open it. 1.12.0 offered the advance
    and displaced AA/8 for three Game-Turns."""
    units = {"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, "A/21": {"hex": "N2143"}}
    if with_air:
        units["AA/8"] = {"hex": "N2245"}
    rules = at(phase="combat", units=units)
    play(rules, [{"type": "attack", "targets": ["N2245"], "units": ["G/57"]}], dice=[2],
         policies={"defender_result": "retreat", "advance": "ask", "retreat_paths": "first"})
    assert st.hex_of(rules, "R/6") == "N2145"
    if with_air:
        assert rules["combat"] is None and st.hex_of(rules, "AA/8") == "N2245"
    else:
        assert _advance_offers(rules) == [([], None), (["G/57"], ["N2245"])]


@pytest.mark.parametrize("attacker, defenders, blocker, attack, die", [
    ("axis", {"R/6": {"hex": "N2245", "revealed": [2, 4]}, "AA/8": {"hex": "N2245"}}, "AA/8",
     {"targets": ["N2245"], "units": ["G/57", "G/75", "G/79"]}, 1),
    ("soviet", {"G/57": {"hex": "N2245", "steps_lost": 3}, "Tr/1": {"hex": "N2245"}}, "Tr/1",
     {"targets": ["N2245"], "units": ["TC/22", "TC/24"]}, 4),
])
def test_9_86_an_elimination_that_leaves_an_air_unit_or_truck_opens_no_advance(attacker, defenders, blocker, attack,
                                                                                die):
    """De eliminates every combat unit in N2245, but the Soviet air army (or the Axis truck)
    stays: not "all units in a hex are eliminated" (9.86) and the hex is not vacant (9.81), so
    neither the advance into it nor the two-hex advance is offered, and the unit stays where it
    is. 1.12.0 offered both and displaced it (14.13, 12.38)."""
    units = dict(defenders)
    if attacker == "axis":   # 27 against 4: 6-1, die 1: De/A1, A1 taken as a step
        units |= {"G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"}, "G/79": {"hex": "N2246"}, "A/21": {"hex": "N2143"}}
    else:                    # 16 against 1: 10-1, die 4: De
        units |= {"TC/22": {"hex": "N2244"}, "TC/24": {"hex": "N2244"}, "A/21": {"hex": "N2244"}}
    rules = at(player=attacker, phase="combat", units=units)
    ctx = play(rules, [{"type": "attack", **attack}], dice=[die],
               policies={"defender_result": "retreat", "attacker_result": "loss", "advance": "ask",
                         "retreat_paths": "first"})
    assert [e["rule"] for e in events_of(ctx, "eliminated")] == ["9.66"] and events_of(ctx, "retreat") == []
    assert rules["combat"] is None and st.hex_of(rules, blocker) == "N2245" and events_of(ctx, "displaced") == []


def test_10_33_a_mechanized_advance_stops_before_a_mountain_on_the_path_of_retreat():
    """15/11Pz and G/57 in S3817 (rough) attack R/6 in S3918 (clear); D2, and the Axis player retreats
    R/6 by S4017 (mountain) to S4016. The infantry regiment may follow it into the mountain; the
    panzer regiment may advance into S3918 only: mechanized and cavalry units never enter a
    mountain hex (10.33), and an advance enters its hexes as the unit could. 1.12.0 checked the
    mountain on the first hex of an advance only."""
    sc = SC()
    assert [sc.terrain_of[sc.idx[h]] for h in ("S3817", "S3918", "S4017", "S4016")] == \
        ["rough", "clear", "mountain", "clear"]
    units = {"R/6": {"hex": "S3918", "revealed": [2, 4]}, "A/21": {"hex": "S3720"},
             "15/11Pz": {"hex": "S3817"}, "G/57": {"hex": "S3817"}}
    rules = at(phase="combat", units=units)
    play(rules, [{"type": "attack", "targets": ["S3918"], "units": ["15/11Pz", "G/57"]}], dice=[2],
         policies={"defender_result": "retreat", "advance": "ask", "retreat_paths": "ask"})
    play(rules, [{"type": "retreat", "unit": "R/6", "path": ["S4017", "S4016"]}], policies={"advance": "ask"})
    assert st.hex_of(rules, "R/6") == "S4016"
    assert _advance_offers(rules) == [([], None), (["15/11Pz"], ["S3918"]), (["G/57"], ["S3918"]),
                                      (["G/57"], ["S3918", "S4017"])]
