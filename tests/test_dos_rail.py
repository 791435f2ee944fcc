"""dos rail movement and rail clearing: 6.31 (each player's own rail limit per Game-Turn),
8.22 with 6.3 (no rail move out of an Enemy Zone of Control), 6.42 and 6.43 with the errata
(up to three rail hexes a turn, on any lines, named in any order).

Test names begin with the case they test."""

from __future__ import annotations

from itertools import combinations


from pbem.rulesets.dos import flow, interphase
from pbem.rulesets.dos import state as st
from tests.test_dos_support import SC, IllegalOrder, at, events_of, play, refused

AXIS_LINE = ["N0154", "N0254", "N0354", "N0454", "N0554"]
CORPS = ["GMC/1", "GMC/2", "MC/13"]          # Soviet mechanized corps: 3 rail units each (6.31)


def offered(rules, kind):
    sc = SC()
    need = flow.next_step(sc, rules)
    return [o for o in flow.legal_orders(sc, rules, need) if o["type"] == kind]


# --- 6.31: each player's own limit --------------------------------------------------------------------

def test_6_31_each_player_has_his_own_rail_limit_per_game_turn():
    units = {"G/57": {"hex": "N0154"}, "G/75": {"hex": "N0154"}, "G/79": {"hex": "N0154"},
             "R/1": {"hex": "N1229", "revealed": [2, 4]}, "R/100": {"hex": "N1229", "revealed": [2, 4]}}
    units.update({u: {"hex": "N1228"} for u in CORPS})
    rules = at(units=units)
    play(rules, [{"type": "rail", "units": ["G/57", "G/75", "G/79"], "path": AXIS_LINE[1:4]}])
    assert rules["rail_used"] == 3                                   # the Axis limit is used up
    play(rules, [{"type": "end"}] * 4)                               # on to the Soviet Initial Movement Phase
    assert (rules["turn"], rules["player"], rules["phase"]) == (3, "soviet", "move")
    # the legal orders offer the corps' rail move (9 of the Soviet 10), as 3 + 9 once hid it
    assert [o["units"] for o in offered(rules, "rail")] == [CORPS] * 3
    assert rules["rail_used"] == 0                                   # the Soviet player's own count
    ctx = play(rules, [{"type": "rail", "units": CORPS, "path": ["N1227", "N1127"]}])
    assert events_of(ctx, "rail")[0]["text"].endswith(            # why 3 units count 9 (players' probe)
        "9 of the soviet player's 10 rail units this Game-Turn, this move 9: a Soviet tank or mechanized corps or an "
        "air unit counts three, an HQ none (6.31, 11.22)).")
    ctx = play(rules, [{"type": "rail", "units": ["R/1"], "path": ["N1230", "N1231"]}])
    assert events_of(ctx, "rail")[0]["text"].endswith("10 of the soviet player's 10 rail units this Game-Turn).")
    assert rules["rail_used"] == 10
    assert st.hex_of(rules, "GMC/1") == "N1127" and st.hex_of(rules, "R/1") == "N1231"
    refused(rules, {"type": "rail", "units": ["R/100"], "path": ["N1230"]}, "6.31",
            "rail movement would count 11 units this Game-Turn, over the soviet limit of 10")
    assert offered(rules, "rail") == []
    play(rules, [{"type": "end"}] * 4, dice=[2, 2, 2])               # the inter-phase: a new Game-Turn
    assert (rules["turn"], rules["player"], rules["phase"]) == (4, "axis", "move")
    assert rules["rail_used"] == 0
    play(rules, [{"type": "rail", "units": ["G/57", "G/75", "G/79"], "path": ["N0554"]}])
    assert rules["rail_used"] == 3


# --- 8.22: no rail move out of an Enemy ZOC -------------------------------------------------------------

def test_8_22_6_3_no_rail_move_out_of_an_enemy_zone_of_control():
    soviet = {"R/1": {"hex": "N0153", "revealed": [2, 4]}}           # N0154 is in its ZOC, N0254 is not
    rules = at(units={"G/57": {"hex": "N0154"}, **soviet})
    refused(rules, {"type": "rail", "units": ["G/57"], "path": AXIS_LINE[1:3]}, "8.22",
            "N0154 is in an Enemy Zone of Control: units may not leave it voluntarily")
    assert st.hex_of(rules, "G/57") == "N0154" and rules["rail_used"] == 0
    assert offered(rules, "rail") == [] and offered(rules, "move") == []
    rules = at(units={"G/73": {"status": "ready"}, **soviet})        # 8.0: entering the ZOC ends the move
    refused(rules, {"type": "enter", "units": ["G/73"], "path": AXIS_LINE[:3], "rail": True}, "8.22")
    rules = at(units={"G/57": {"hex": "N0154"}})                     # no enemy there: the same move is legal
    play(rules, [{"type": "rail", "units": ["G/57"], "path": AXIS_LINE[1:3]}])
    assert st.hex_of(rules, "G/57") == "N0354"


# --- 6.42, 6.43: clearing ----------------------------------------------------------------------------

def at_clearing(control):
    """The Game-Turn Record Inter-Phase of Game-Turn 3, waiting for the Axis player's clearing."""
    rules = at(player="soviet", phase="interdiction", control={h: "axis" for h in control})
    play(rules, [{"type": "end"}], policies={"rail_clearing": "ask"})
    assert flow.next_step(SC(), rules).kind == "clear"
    return rules


def clear(rules, hexes):
    return play(rules, [{"type": "clear", "hexes": hexes}], dice=[2])


def test_6_42_6_43_one_hex_on_each_of_two_railroads():
    """N0750 (to Voronezh) and S0642 (to Rostov) each lie next to Axis rail west of the line."""
    rules = at_clearing(["N0750", "S0642"])
    assert [o["hexes"] for o in offered(rules, "clear")] == [[], ["N0750"], ["S0642"], ["N0750", "S0642"]]
    ctx = clear(rules, ["S0642", "N0750"])                           # in any order
    assert rules["cleared"] == ["N0750", "S0642"]
    assert [(e["hexes"], e["rule"]) for e in events_of(ctx, "clear")] == [(["S0642", "N0750"], "6.42")]


def test_6_43_consecutive_hexes_either_side_of_the_qualifying_hex():
    """N2448 (Kupiansk) meets (b); N2348 and N2548 lead away from it on two branches."""
    rules = at_clearing(["N2348", "N2448", "N2548"])
    assert [o["hexes"] for o in offered(rules, "clear")] == [[], ["N2448"], ["N2448", "N2348"], ["N2448", "N2548"],
                                                            ["N2348", "N2448", "N2548"]]
    clear(rules, ["N2548", "N2348", "N2448"])
    assert rules["cleared"] == ["N2348", "N2448", "N2548"]


def test_6_42_6_43_a_chain_named_in_any_order_and_what_is_refused():
    line = ["N0750", "N0749", "N0748", "N0747"]                      # outward from the Front Line
    rules = at_clearing(line)
    refused(rules, {"type": "clear", "hexes": line}, "6.42", "up to 3")
    refused(rules, {"type": "clear", "hexes": ["N0750", "N0750"]}, "6.42")
    refused(rules, {"type": "clear", "hexes": ["N0749"]}, "6.43", "N0749 is neither next to")
    refused(rules, {"type": "clear", "hexes": ["N0750", "N0748"]}, "6.43", "N0748 is neither next to")
    refused(rules, {"type": "clear", "hexes": ["N0750", "N0749", "N0746"]}, "6.43", "N0746 may not be cleared")
    refused(rules, {"type": "clear", "hexes": ["N0751"]}, "6.43", "N0751 may not be cleared")   # west of the line
    assert rules["cleared"] == []
    clear(rules, ["N0748", "N0749", "N0750"])
    assert rules["cleared"] == ["N0748", "N0749", "N0750"]


def test_6_42_6_43_every_legal_clearing_is_offered():
    """Every rail hex east of the line last passed by an Axis unit: the options are exactly the
    sets of one to three hexes that the order check accepts, more than the 50 once offered."""
    sc = SC()
    east = [sc.ids[i] for i in sorted(sc.rail_hex) if i not in sc.axis_start]
    rules = at(control={h: "axis" for h in east})      # read as they stand (with the cities the game would end)
    options = interphase.pending_options(sc, rules, interphase.pending("clear", "axis"))
    assert options[0] == {"type": "clear", "hexes": []}
    sets = [o["hexes"] for o in options[1:]]
    assert len({frozenset(s) for s in sets}) == len(sets) == 91
    for s in sets:
        interphase.check_clear(sc, rules, s)
    clearable, qualifies = interphase._clear_tests(sc, rules)
    near = {i for i in sc.rail_hex if clearable(i) and qualifies(i)}
    for _ in range(2):
        near |= {j for i in near for j in sc.rail_nb[i] if clearable(j)}
    legal = set()
    for n in (1, 2, 3):
        for c in combinations(sorted(sc.ids[i] for i in near), n):
            try:
                interphase.check_clear(sc, rules, list(c))
            except IllegalOrder:
                continue
            legal.add(frozenset(c))
    assert legal == {frozenset(s) for s in sets}


def test_6_1_6_3_a_path_that_begins_where_the_units_stand_is_told_so():
    """A players' probe: a path written from the unit's own hex read "N2146 is not next to
    N2146". A path is the hexes entered, by foot as by rail."""
    rules = at(units={"G/57": {"hex": "N2146"}})
    refused(rules, {"type": "move", "units": ["G/57"], "path": ["N2146", "N2145"]}, "6.1",
            "the path lists the hexes entered, one after another: leave out N2146, where the units stand")
    rules = at(units={"G/57": {"hex": AXIS_LINE[0]}})
    refused(rules, {"type": "rail", "units": ["G/57"], "path": AXIS_LINE[:3]}, "6.3",
            f"the path lists the hexes entered, one after another: leave out {AXIS_LINE[0]}, where the units stand")


# --- 6.3: the path of a rail move ----------------------------------------------------------------------

def test_6_3_a_rail_move_given_by_its_destination_is_told_to_list_every_hex():
    """A players' probe: `path: [N0454]` for a rail move from N0154 along the line was refused as
    "no railroad connects N0154 and N0454", which one does, three hexes on; the refusal says the
    path lists every hex entered. A next hex off the railroad is still refused under 6.32."""
    rules = at(units={"G/57": {"hex": "N0154"}})
    refused(rules, {"type": "rail", "units": ["G/57"], "path": ["N0454"]}, "6.3",
            "N0454 is not next to N0154, where the units stand: the path of a rail move lists every hex entered, one after another, along "
            "the railroad (`pbem orders GAME_DIR --only G/57` lists its rail moves)")
    off = next(h for h in SC().nb[SC().idx["N0154"]] if h not in SC().rail_hex)
    refused(rules, {"type": "rail", "units": ["G/57"], "path": [SC().ids[off]]}, "6.32",
            f"no railroad connects N0154 and {SC().ids[off]}")
    play(rules, [{"type": "rail", "units": ["G/57"], "path": AXIS_LINE[1:4]}])
    assert st.hex_of(rules, "G/57") == "N0454"
