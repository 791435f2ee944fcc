"""dos combat: 9.0-9.8, overrun and disruption (6.5, 6.6), divisional integrity (7.2), the
terrain in combat (10.x), HQs in combat (11.4), untried units (13.x) and air points (14.2,
14.3). Most fights are on the open steppe about N2245, where both sides are in supply (the
Soviet units through the 21st Army HQ at N2143).

Test names begin with the case they test. The CRT (data/crt.yaml) read by these tests:
row 1 = A1 D1/A1 D1 D2 D2 D2 D2 De/A1 De De De De; row 2 = A1 Eng D1/A1 D1 D2 ...;
row 3 = A2 A1 Eng D1/A1 D1 D2 ...; row 4 = A2 A2 A1 Eng D1/A1 D1 ...; row 6 = Ae Ae A2 A2 A1 Eng."""

from __future__ import annotations

import pytest

from pbem.rulesets.dos import board as bd
from pbem.rulesets.dos import combat
from pbem.rulesets.dos import state as st
from pbem.rulesets.dos import untried
from tests.test_dos_support import SC, IllegalOrder, at, events_of, find_step, play, refused

HQ = {"A/21": {"hex": "N2143"}}          # the Soviet HQ that supplies the Soviet units about N2245


def fight(ctx) -> dict:
    return events_of(ctx, "combat")[-1]


def attack(targets, units, **extra) -> dict:
    return {"type": "attack", "targets": targets, "units": units, **extra}


# --- 9.1-9.5 ---------------------------------------------------------------------------------------

def test_9_4_odds_rounded_for_the_defender_and_capped():
    c = lambda a, d: combat.column(SC(), a, d)
    assert c(26, 9) == "2-1" and c(9, 9) == "1-1" and c(8, 9) == "1-2" and c(5, 9) == "1-2"
    assert c(3, 9) == "1-3" and c(1, 9) == "1-3" and c(100, 1) == "10-1" and c(99, 10) == "9-1"


def test_9_11_9_23_attackers_next_to_every_hex_attacked():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "R/38": {"hex": "N2246", "revealed": [2, 4]},
                                      "G/57": {"hex": "N2146"}, "G/75": {"hex": "N2247"}, **HQ})
    refused(rules, attack(["N2245"], ["G/75"]), "9.23")
    ctx = play(rules, [attack(["N2245", "N2246"], ["G/57"])], dice=[6])            # 9.23: two hexes at once
    assert len(fight(ctx)["defence_parts"]) == 2 and sorted(events_of(ctx, "attack")[0]["targets"]) == ["N2245", "N2246"]


def test_9_1_an_attacker_off_the_map_is_refused_saying_why():
    """A players' probe: a unit eliminated earlier in the packet, named again to attack, was said
    only to be "not on the map"."""
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                      "G/75": {"hex": "N2246"}, **HQ})
    for where, words in (("gone", "was eliminated"), ("due", "is off the map until it comes back"),
                         ("out", "has left the game")):
        rules["units"]["G/75"] = where
        refused(rules, attack(["N2245"], ["G/57", "G/75"]), "9.1", f"G/75 is not on the map: it {words}")


def test_9_12_9_14_9_22_9_24_voluntary_once_each_and_bystanders_untouched():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "R/38": {"hex": "N2144", "revealed": [2, 4]},
                                      "G/57": {"hex": "N2146"}, "G/75": {"hex": "N2146"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[6],                     # 1 loses? 9 vs 4 = 2-1, die 6: A2
               policies={"attacker_result": "loss"})
    assert fight(ctx)["result"] == "A2" and st.lost(rules, "G/75") == 0             # 9.12: G/75 did not attack
    assert st.lost(rules, "G/57") == 2
    refused(rules, attack(["N2245"], ["G/75"]), "9.14", "every unit there has been attacked")
    refused(rules, attack(["N2245"], ["G/57"]), "9.14")


def test_9_21_every_unit_in_the_hex_defends_together():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "R/38": {"hex": "N2245", "revealed": [1, 3]},
                                      "A/9": {"hex": "N2245"}, "G/57": {"hex": "N2246"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[6])
    assert fight(ctx)["defence"] == 7                                               # 4 + 3; the HQ adds nothing (11.41)


def test_9_5_14_23_a_die_modified_beyond_the_table_reads_its_edge():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                      "AirK/4": {"hex": "N2250"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"], air={"units": ["AirK/4", "AirK/4"], "shift": -1})], dice=[1])
    assert fight(ctx)["row"] == 1 and fight(ctx)["result"] == "D2"                  # 9 against 4: 2-1
    assert "2-1; die 1 -2 = -1, read as 1: D2 (9.5)." in fight(ctx)["text"]        # off the table, said so
    assert rules["air"]["AirK/4"] == 2                                              # 3.33: two points a turn


# --- 9.33 (errata) -------------------------------------------------------------------------------------

def test_9_33_step_losses_doubled_in_a_major_city():
    units = {"TC/1": {"hex": "N2252"}, "TC/4": {"hex": "N2252"}, "GR/9": {"hex": "N2252"}, "A/21": {"hex": "N2252"},
             "G/57": {"hex": "N2253"}}
    rules = at(player="soviet", phase="combat", units=units)
    ctx = play(rules, [attack(["N2253"], ["TC/1", "TC/4", "GR/9"])], dice=[1],
               policies={"defender_result": "loss", "major_city_double": "yes"})
    assert fight(ctx)["column"] == "1-1" and fight(ctx)["result"] == "D1"           # 24 against 9 x2 (10.47)
    assert events_of(ctx, "double") and st.lost(rules, "G/57") == 2                 # one step, doubled
    rules = at(player="soviet", phase="combat", units=units)
    play(rules, [attack(["N2253"], ["TC/1", "TC/4", "GR/9"])], dice=[1],
         policies={"defender_result": "retreat", "major_city_double": "yes"})
    assert st.lost(rules, "G/57") == 0                                              # a retreat: as printed
    # a split result there: the attacker chooses before either part is taken, as the option to
    # double is his "only if both Players choose to stand" (9.68 has him choose after, elsewhere)
    rules = at(player="soviet", phase="combat", units=units)
    ctx = play(rules, [attack(["N2253"], ["TC/1", "TC/4", "GR/9"])], dice=[2],
               policies={"defender_result": "loss", "attacker_result": "ask"})
    assert fight(ctx)["result"] == "D1/A1" and rules["combat"]["step"] == "att-choice"
    assert st.lost(rules, "G/57") == 0 and not events_of(ctx, "step")            # nothing taken yet
    play(rules, [{"type": "result", "choice": "loss"}], policies={"major_city_double": "yes"})
    assert st.lost(rules, "G/57") == 2                                              # D1 doubled


# --- 9.6: steps --------------------------------------------------------------------------------------

def test_9_6_9_61_to_9_63_steps_and_their_strengths():
    sc, rules = SC(), at(units={"G/57": {"hex": "N2246"}, "Jg/97": {"hex": "N2246"}, "6/3Pz": {"hex": "N2246"},
                                 "Ita/Celere": {"hex": "N2246"}, "HQ/2Hun": {"hex": "N2246"}})
    seen = []
    while not st.take_step(sc, rules, "G/57"):
        seen.append(st.strengths(sc, rules, "G/57")[0])
    assert seen == [4, 2, 1]                                                        # 9.63: 9-9, 4-9, 2-9, 1-9
    assert not st.take_step(sc, rules, "Jg/97") and st.strengths(sc, rules, "Jg/97")[0] == 3 and st.take_step(sc, rules, "Jg/97")
    assert not st.take_step(sc, rules, "6/3Pz") and st.strengths(sc, rules, "6/3Pz")[0] == 2   # 9.62
    assert not st.take_step(sc, rules, "Ita/Celere") and st.take_step(sc, rules, "Ita/Celere")
    assert st.take_step(sc, rules, "HQ/2Hun")                                       # 11.42: one step
    assert SC().units["Hun/6"].step_count == 1 and SC().units["R/6"].step_count == 1          # 9.61, 9.65 errata


def test_9_64_9_65_an_untried_unit_has_one_step_whatever_its_defence():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [6, 8]}, "G/57": {"hex": "N2246"},
                                      "G/75": {"hex": "N2246"}, "G/79": {"hex": "N2146"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75", "G/79"])], dice=[2], policies={"defender_result": "loss"})
    assert fight(ctx)["column"] == "3-1" and fight(ctx)["result"] == "D2"
    assert st.status(rules, "R/6") == "gone"


# --- 9.66-9.69: results ---------------------------------------------------------------------------------

def test_9_66_9_86_defenders_eliminated_and_an_advance_of_two_hexes():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, "G/57": {"hex": "N2246"},
                                      "G/75": {"hex": "N2246"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[1], policies={"advance": "ask"})
    assert fight(ctx)["result"] == "De" and st.status(rules, "R/6") == "gone"
    opts = combat.advance_options(SC(), rules, rules["combat"])
    assert {"type": "advance", "units": ["G/57"], "path": ["N2245", "N2244"]} in opts        # 9.86: a second hex
    play(rules, [{"type": "advance", "units": ["G/57"], "path": ["N2245", "N2244"]}, {"type": "advance", "units": []}],
         policies={"advance": "ask"})
    assert st.hex_of(rules, "G/57") == "N2244" and st.has(rules["ps"]["advanced"], "G/57")


PANZERS = {"15/11Pz": {"hex": "N2246"}, "110/11Pz": {"hex": "N2246"}, "111/11Pz": {"hex": "N2246"},
           "Hun/7": {"hex": "N2246"}, "Hun/9": {"hex": "N2246"}}          # a whole division counts as one (7.22)


def test_9_8_7_22_the_standing_order_advances_a_division_whole():
    """`advance: one` (the default) takes the whole 11th Panzer Division forward, which then
    still counts as one unit in both hexes; its strongest regiment alone would have left four
    units behind, and the end of the phase would have eliminated one of them (7.1)."""
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, **PANZERS, **HQ})
    ctx = play(rules, [attack(["N2245"], ["15/11Pz", "110/11Pz", "111/11Pz"]), {"type": "end", "phase": "combat"}],
               dice=[1])
    assert fight(ctx)["result"] == "De"
    assert [e["units"] for e in events_of(ctx, "advance") if e.get("units")] == [["110/11Pz", "111/11Pz", "15/11Pz"]]
    assert {u: st.hex_of(rules, u) for u in PANZERS} == {"15/11Pz": "N2245", "110/11Pz": "N2245", "111/11Pz": "N2245",
                                                         "Hun/7": "N2246", "Hun/9": "N2246"}
    assert [(e["units"], e["side"]) for e in events_of(ctx, "eliminated")] == [(["R/6"], "soviet")]   # no Axis unit


def test_9_8_7_21_the_standing_order_keeps_a_division_whole_and_counts_it_doubled():
    """A division whole in its hex advances whole or not at all (7.21: a regiment alone would
    leave it undoubled in both hexes), and it is worth its doubled strength when the standing
    order picks the strongest: 11 Pz's 4-4, 2-2, 2-2, doubled 32, before G/387's 9-9, 18
    (players' probe: G/387 went first, the printed 16 beating nobody)."""
    whole = {u: {"hex": "N2246"} for u in ("15/11Pz", "110/11Pz", "111/11Pz")}
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, **whole, **HQ})
    ctx = play(rules, [attack(["N2245"], ["15/11Pz"])], dice=[1])
    assert fight(ctx)["result"] == "D2" and st.hex_of(rules, "R/6") != "N2245"
    assert [e for e in events_of(ctx, "advance") if e.get("units")] == [] and st.hex_of(rules, "15/11Pz") == "N2246"
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, **whole,
                                      "G/387": {"hex": "N2146"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["15/11Pz", "110/11Pz", "111/11Pz", "G/387"])], dice=[1])
    assert fight(ctx)["result"] == "De"
    assert [e["units"] for e in events_of(ctx, "advance") if e.get("units")] == [["110/11Pz", "111/11Pz", "15/11Pz"]]


def test_9_8_7_1_the_standing_order_never_advances_into_a_loss():
    """Only 15/11Pz attacked: its advance alone would split the division and leave four units
    in N2246, so the standing order advances no one, and an order to advance it is refused
    (7.1: never more than three at any time of the Combat Phase; it was obeyed, and the end of
    the phase eliminated a unit)."""
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, **PANZERS, **HQ})
    ctx = play(rules, [attack(["N2245"], ["15/11Pz"])], dice=[1])
    assert fight(ctx)["result"] == "D2" and st.hex_of(rules, "R/6") != "N2245"           # 4-1, die 1: D2, retreated
    assert st.hex_of(rules, "15/11Pz") == "N2246"
    assert [e["units"] for e in events_of(ctx, "advance") if e.get("units")] == []
    refused(rules, {"type": "advance", "units": ["15/11Pz"], "path": ["N2245"]}, "7.1",
            "N2246 would be left holding 4 combat units")


def test_9_67_the_attackers_standing_order_retreats_them_where_each_has_a_path_else_they_lose_steps():
    """The attacker's standing order, as the defender's: retreat where every attacking unit has
    a path (9.71-9.73), else lose the steps. 1.24.0 took the steps first: an A2 eliminated
    one-step divisions that could have stepped back (a players' probe: R/284 and R/295 gone,
    their hex left to the defender's advance)."""
    units = {"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2146"}, **HQ}
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[6])                      # 9 vs 4 = 2-1, die 6: A2
    assert fight(ctx)["result"] == "A2" and st.lost(rules, "G/57") == 0
    (retreat,) = [e for e in events_of(ctx, "retreat") if e.get("unit") == "G/57"]
    assert len(retreat["path"]) == 3 and st.hex_of(rules, "G/57") == retreat["path"][-1] != "N2146"
    # every other side of N2146 held by Soviet units: no path, so the steps are lost
    around = {u: {"hex": h, "revealed": [2, 4]} for u, h in
              zip(["R/38", "R/63", "R/91", "R/100", "R/61"], ["N2045", "N2046", "N2145", "N2147", "N2246"])}
    rules = at(phase="combat", units={**units, **around})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[6])
    assert fight(ctx)["result"] == "A2" and st.lost(rules, "G/57") == 2
    assert not [e for e in events_of(ctx, "retreat") if e.get("unit") == "G/57"]


def test_9_13_9_67_one_step_in_all_or_every_unit_retreats():
    units = {"R/6": {"hex": "N2245", "revealed": [2, 4]}, "R/38": {"hex": "N2245", "revealed": [2, 4]},
             "R/63": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"},
             "G/79": {"hex": "N2146"}, "G/113": {"hex": "N2146"}, **HQ}
    attackers = ["G/57", "G/75", "G/79", "G/113"]
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], attackers)], dice=[4], policies={"defender_result": "loss",
                                                                          "attacker_result": "loss"})
    assert fight(ctx)["column"] == "3-1" and fight(ctx)["result"] == "D1/A1"
    assert sum(st.status(rules, u) == "gone" for u in ("R/6", "R/38", "R/63")) == 1
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], attackers)], dice=[4], policies={"defender_result": "retreat",
                                                                          "attacker_result": "loss"})
    assert len(events_of(ctx, "retreat")) == 3 and all(st.hex_of(rules, u) != "N2245" for u in ("R/6", "R/38", "R/63"))


def test_9_68_split_result_defender_first_then_attacker():
    units = {"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, **HQ}
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[1], policies={"defender_result": "retreat"})
    # 9 against 4 is 2-1: die 1 D2 -- take die 5 on 1-1 for the split result
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [4, 6]}, "G/57": {"hex": "N2246"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[2], policies={"defender_result": "retreat",
                                                                          "attacker_result": "loss"})
    assert fight(ctx)["column"] == "1-1" and fight(ctx)["result"] == "D1/A1"
    kinds = [e["type"] for e in ctx.events if e["type"] in ("retreat", "step", "advance")]
    assert kinds[:2] == ["retreat", "step"]                                         # defender first
    assert st.hex_of(rules, "G/57") == "N2245"                                      # took its loss: may advance


def test_9_68_an_attacker_retreating_never_enters_the_hex_it_attacked():
    """A cheater's probe: in a split result the defender goes first (9.68) and may leave his
    hex empty (here, and in no enemy ZOC); the attacker who then chose to retreat rather than lose a step had the defender's
    own standing order (`retreat_paths: first`) put him on the hex just won, an advance for no
    step. Only attackers still in their hex advance (9.68, 9.81): a retreat goes elsewhere."""
    sc = SC()
    units = {"R/6": {"hex": "N2245", "revealed": [4, 6]}, "G/57": {"hex": "N2246"}, **HQ}
    for answer in ("first", "ask"):
        rules = at(phase="combat", units=units)
        play(rules, [attack(["N2245"], ["G/57"])], dice=[2],
             policies={"defender_result": "loss", "attacker_result": "retreat", "retreat_paths": answer})
        assert rules["units"]["R/6"] == "gone"              # D1/A1: the defender's one step lost, N2245 empty
        if answer == "ask":
            paths = [o["path"] for o in combat.retreat_options(sc, rules, rules["combat"])]
            assert paths and all(len(p) == 1 and "N2245" not in p for p in paths), paths
            assert all(sc.distance(sc.idx["N2246"], sc.idx[p[0]]) == 1 for p in paths)
            refused(rules, {"type": "retreat", "unit": "G/57", "path": ["N2245"]}, "9.72",
                    "not a legal path of retreat")
        else:
            here = st.hex_of(rules, "G/57")
            assert here not in ("N2245", "N2246") and sc.distance(sc.idx["N2246"], sc.idx[here]) == 1


def test_9_68_the_attacker_chooses_after_the_defenders_part_on_the_board_it_left():
    """A cheater's probe: the attacker's choice of loss or retreat was asked before the
    defender's part was taken, so that the defender's ZOC, about to go, closed the attacker's
    ways out: he was told "no path of retreat", and his standing order lost a step. 9.68: "the
    defender always takes his result first ... Then the attacker takes his result"; the CRT:
    "then Attacker must decide". G/57's other neighbours are full, and N2146 and N2346 are in
    R/6's ZOC until R/6 loses its one step."""
    sc = SC()
    germans = ["G/111", "G/113", "G/125", "G/132", "G/16", "G/168", "G/170", "G/198", "G/22"]
    full = {u: {"hex": h} for u, h in zip(germans, ["N2147"] * 3 + ["N2247"] * 3 + ["N2347"] * 3)}
    units = {"R/6": {"hex": "N2245", "revealed": [4, 6]}, "G/57": {"hex": "N2246"}, **full, **HQ}
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[2], policies={"defender_result": "loss",
                                                                        "attacker_result": "ask"})
    assert fight(ctx)["result"] == "D1/A1" and rules["units"]["R/6"] == "gone"       # the defender's part first
    assert rules["combat"]["step"] == "att-choice" and combat.trapped(sc, rules, rules["combat"], "att") == []
    assert {tuple(p) for p in (combat.retreat_paths(sc, rules, "G/57", 1, rules["combat"]))} == \
        {(sc.idx["N2146"],), (sc.idx["N2346"],)}
    rules = at(phase="combat", units=units)                                            # the default standing order
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[2], policies={"defender_result": "loss"})
    assert st.lost(rules, "G/57") == 0 and st.hex_of(rules, "G/57") in ("N2146", "N2346")
    kinds = [e["type"] for e in ctx.events if e["type"] in ("choice", "eliminated", "retreat", "step")]
    assert kinds == ["choice", "eliminated", "choice", "retreat"], kinds        # the attacker's choice after


def test_11_44_11_45_hqs_retreat_after_the_combat_units_they_follow():
    """A review: a Soviet attack by R/6 with its HQ A/21 (11.43), A/9 beside them not attacking,
    took a D1/A1 and retreated: the HQs went first, by strength, and took the vacant hexes. An
    HQ retreats "if the combat units ... retreat" (11.44), "the same number of hexes as the
    last combat unit to be retreated" (11.45): the combat units go first."""
    sc = SC()
    units = {"R/6": {"hex": "N2245", "revealed": [1, 1]}, "A/21": {"hex": "N2245"}, "A/9": {"hex": "N2245"},
             "G/57": {"hex": "N2246", "steps_lost": 2}}
    rules = at(player="soviet", phase="combat", units=units)
    asked = {"defender_result": "retreat", "attacker_result": "retreat", "retreat_paths": "ask"}
    play(rules, [attack(["N2246"], ["R/6"], hqs=["A/21"])], dice=[2], policies=asked)
    c = rules["combat"]
    assert c["result"] == "D1/A1" and c["retreat"]["queue"] == ["G/57"]         # the defender's part first
    play(rules, [{"type": "retreat", "unit": "G/57", "path": combat.retreat_options(sc, rules, c)[0]["path"]}],
         policies=asked)
    c = rules["combat"]
    assert c["retreat"]["which"] == "att" and c["retreat"]["queue"] == ["R/6", "A/21", "A/9"]
    paths = [o["path"] for o in combat.retreat_options(sc, rules, c)]
    assert len(paths) >= 3 and all("N2246" not in p for p in paths)          # every vacant hex open to R/6 first


def test_9_69_engaged_both_lose_a_step_nobody_moves():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [3, 9]}, "GR/9": {"hex": "N2245"},
                                      "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[3])
    assert fight(ctx)["column"] == "1-1" and fight(ctx)["result"] == "Eng"
    assert not events_of(ctx, "retreat") and not events_of(ctx, "advance")
    assert st.lost(rules, "G/57") + st.lost(rules, "G/75") == 1


# --- 9.7: retreats --------------------------------------------------------------------------------------

def test_9_71_9_72_the_opponent_picks_a_path_ending_as_far_as_the_result():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                      "G/75": {"hex": "N2246"}, "G/79": {"hex": "N2247"}, **HQ})
    play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[1], policies={"retreat_paths": "ask"})
    need = __import__("pbem.rulesets.dos.flow", fromlist=["x"]).next_step(SC(), rules)
    assert need.kind == "retreat" and need.side == "axis" and need.rule == "9.72"
    paths = combat.retreat_options(SC(), rules, rules["combat"])
    sc = SC()
    assert paths and all(sc.distance(sc.idx["N2245"], sc.idx[o["path"][-1]]) == 2 for o in paths)
    ezoc = bd.Board(sc, rules).ezoc("soviet")
    assert all(sc.idx[h] not in ezoc for o in paths for h in o["path"])             # 9.71


def test_9_73_9_74_vacant_hexes_first_and_never_over_the_stacking_limit():
    sc = SC()
    blockers = {f"R/{n}": {"hex": h, "revealed": [1, 1]} for n, h in zip((38, 63, 77), ("N2144", "N2144", "N2144"))}
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                      "G/75": {"hex": "N2146"}, "G/79": {"hex": "N2346"}, **blockers, **HQ})
    opts = None
    play(rules, [attack(["N2245"], ["G/57", "G/75", "G/79"])], dice=[4], policies={"retreat_paths": "ask"})
    opts = combat.retreat_options(sc, rules, rules["combat"])
    assert opts and all(not bd.Board(sc, rules).units_at(sc.idx[o["path"][0]]) for o in opts)    # vacant first


def test_9_73_9_75_through_a_friendly_hex_into_a_vacant_one_before_into_a_friendly_one():
    """Every path of R/6's D2 retreat passes through a Soviet hex (N2145, N2244, N2345; the
    rest of the first ring is the ZOC of G/57): of those, only the ones that end in a vacant hex
    are offered and accepted while any exists (9.73: "into a vacant hex"; 9.75: a unit that
    ends in an occupied hex dies with it); with every second-ring hex held, all the paths within
    stacking are."""
    sc = SC()
    ring = {"R/38": "N2145", "R/63": "N2244", "R/77": "N2345", "R/1": "N2144"}
    far = {"R/100": "N2044", "R/102": "N2045", "R/106": "N2243", "R/107": "N2344", "R/112": "N2444", "R/119": "N2445"}

    def retreat_of_r6(friends):
        units = {u: {"hex": h, "revealed": [1, 1]} for u, h in friends.items()}
        rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                          **units, **HQ})
        play(rules, [attack(["N2245"], ["G/57"])], dice=[1],
             policies={"defender_result": "retreat", "retreat_paths": "ask"})            # 9 against 4, 2-1: D2
        return rules, [o["path"] for o in combat.retreat_options(sc, rules, rules["combat"])]

    rules, paths = retreat_of_r6(ring)
    held = set(ring.values())
    assert sorted(paths) == [["N2145", "N2044"], ["N2145", "N2045"], ["N2244", "N2243"], ["N2244", "N2344"],
                             ["N2345", "N2344"], ["N2345", "N2444"], ["N2345", "N2445"]]
    assert all(p[0] in held and p[-1] not in held for p in paths)
    refused(rules, {"type": "retreat", "unit": "R/6", "path": ["N2145", "N2144"]}, "9.72")
    play(rules, [{"type": "retreat", "unit": "R/6", "path": ["N2244", "N2243"]}], policies={"retreat_paths": "ask"})
    assert st.hex_of(rules, "R/6") == "N2243"
    rules, paths = retreat_of_r6({**ring, **far})                                     # no vacant end: 9.73's second tier
    assert len(paths) == 9 and ["N2145", "N2144"] in paths and all(p[-1] in {**ring, **far}.values() for p in paths)


def test_8_24_9_71_a_hex_held_by_a_friendly_air_unit_alone_opens_a_retreat_through_enemy_zoc():
    """8.24: Friendly units negate Enemy ZOC for retreat; an air unit is a Friendly unit (14.13
    takes away only its own ZOC, 17.12 only its place in the front): R/6's D2 retreat goes
    through N2244, in G/9's zone of control, where the 8th Air Army stands alone; every other
    way out is shut by the ZOC of G/57, G/75 and G/9 (README, readings chosen)."""
    sc = SC()
    rules = at(turn=5, phase="combat", units={"R/6": {"hex": "N2245", "revealed": [4, 4]}, "AA/8": {"hex": "N2244"},
                                              "A/21": {"hex": "N2143"}, "G/57": {"hex": "N2146"},
                                              "G/75": {"hex": "N2346"}, "G/9": {"hex": "N2344"}})
    assert sc.idx["N2244"] in bd.Board(sc, rules).ezoc("soviet")
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[1],
               policies={"defender_result": "retreat", "retreat_paths": "ask", "advance": "none"})
    assert (fight(ctx)["column"], fight(ctx)["result"]) == ("4-1", "D2")                # 18 against 4, die 1
    retreat, = events_of(ctx, "retreat")                         # no choice to ask for: one path only
    assert retreat["path"] == ["N2245", "N2244", "N2144"] and retreat["chosen_by"] == "only path"
    assert retreat["text"] == "R/6 retreats N2245 -> N2244 -> N2144 (the only path open, 9.72)."
    assert (st.status(rules, "R/6"), st.hex_of(rules, "R/6")) == ("map", "N2144")


@pytest.mark.parametrize("through", [True, False])
def test_9_73_the_rules_example_two_units_retreat_into_or_through_a_hex_of_two_and_one_is_eliminated(through):
    """9.73: "if the Axis Player desired to retreat two German units, and the only retreat path
    available led into or through a hex occupied by two other German units, only one of the
    retreating units could successfully be retreated; the other would be eliminated". G/111
    and G/113 in N2245 (D2 through N2246, or D1 into it, held by G/125 and G/132); the other
    five sides of N2245 are held by Guards rifle corps. 1.17.0 judged the two apart going
    through, and both got through to N2247."""
    sov = dict(zip(["GR/13", "GR/14", "GR/15", "GR/2", "GR/20"], ["N2145", "N2146", "N2244", "N2345", "N2346"]))
    units = {u: {"hex": h} for u, h in sov.items()}
    units.update({"A/1Gds": {"hex": "N2244"}, "G/111": {"hex": "N2245"}, "G/113": {"hex": "N2245"},
                  "G/125": {"hex": "N2246"}, "G/132": {"hex": "N2246"}})
    rules = at(turn=3, player="soviet", phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], sorted(sov)), {"type": "result", "choice": "retreat"}],
               dice=[1 if through else 2])
    assert (fight(ctx)["attack"], fight(ctx)["defence"], fight(ctx)["column"], fight(ctx)["result"]) == (
        40, 18, "2-1", "D2" if through else "D1")
    retreat, = events_of(ctx, "retreat")
    assert retreat["text"] == ("G/111 retreats N2245 -> N2246 -> N2247 (the only path open, 9.72)." if through else
                               "G/111 retreats N2245 -> N2246 (the only path open, 9.72).")
    eliminated, = [e for e in events_of(ctx, "eliminated") if e["units"] == ["G/113"]]
    assert eliminated["text"] == "G/113 has no path of retreat and is eliminated (9.73)."
    assert (st.hex_of(rules, "G/111"), st.status(rules, "G/113")) == ("N2247" if through else "N2246", "gone")
    assert {u for u in ("G/125", "G/132") if st.hex_of(rules, u) == "N2246"} == {"G/125", "G/132"}


def test_9_73_no_path_of_retreat_means_elimination():
    surround = {"G/57": {"hex": "N2246"}, "G/75": {"hex": "N2146"}, "G/79": {"hex": "N2145"}, "G/113": {"hex": "N2244"},
                "G/168": {"hex": "N2345"}, "G/294": {"hex": "N2346"}}
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, **surround, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[1], policies={"defender_result": "retreat"})
    assert fight(ctx)["result"] in ("D2", "D1")
    assert st.status(rules, "R/6") == "gone"
    # asked, the defender is told before choosing (a new user's probe: the retreat offered
    # eliminated the unit unforewarned)
    from pbem.rulesets.dos import flow, report

    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, **surround, **HQ})
    play(rules, [attack(["N2245"], ["G/57"])], dice=[1], policies={"defender_result": "ask"})
    need = flow.next_step(SC(), rules)
    assert need.kind == "defender-result"
    assert ("No path of retreat for R/6: a retreat eliminates it (9.73); losing steps does not."
            in report.describe_need(SC(), rules, need))


def test_9_73_9_86_eliminated_for_want_of_a_path_of_retreat_opens_the_two_hex_advance():
    rules = at(turn=3, phase="combat", units={"GR/13": {"hex": "N1002"}, "G/57": {"hex": "N0902"}, "G/75": {"hex": "N1103"}})
    ctx = play(rules, [attack(["N1002"], ["G/57", "G/75"]), {"type": "result", "choice": "retreat"}], dice=[2],
               policies={"defender_result": "ask", "advance": "ask"})     # the standing order would take the step
    assert fight(ctx)["result"] == "D1" and [(e["rule"], e["side"]) for e in events_of(ctx, "eliminated")][:1] == [("9.73", "soviet")]
    opts = combat.advance_options(SC(), rules, rules["combat"])
    assert {"type": "advance", "units": ["G/57"], "path": ["N1002"]} in opts
    assert {"type": "advance", "units": ["G/57"], "path": ["N1002", "N1001"]} in opts    # 9.86: a second, empty hex
    assert not any(len(o.get("path", [])) > 1 and o["path"][1] in ("N0902", "N1103") for o in opts)


def test_9_75_a_unit_retreated_into_a_friendly_hex_dies_with_it():
    rules = at(phase="combat", units={"R/6": {"hex": "N2244", "revealed": [2, 4]}, "R/38": {"hex": "N2245", "revealed": [2, 4]},
                                      "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2145"}, "G/79": {"hex": "N2143"},
                                      "G/113": {"hex": "N2343"}, **HQ})
    rules["pt"]["retreated"] = {"R/38": "N2245"}
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[6], policies={"defender_result": "loss"})
    assert fight(ctx)["defence"] == 1 or fight(ctx)["defence"] == 4
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "R/38": {"hex": "N2245", "revealed": [2, 4]},
                                      "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2146"}, **HQ})
    rules["pt"]["retreated"] = {"R/38": "N2245"}
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[2], policies={"defender_result": "loss"})
    assert fight(ctx)["defence"] == 4                                               # R/38 adds nothing
    assert st.status(rules, "R/38") == "gone" and events_of(ctx, "eliminated")[0]["rule"] == "9.75"


# --- 9.8: advance after combat -------------------------------------------------------------------------

def test_9_81_to_9_85_advance_along_the_path_of_retreat_then_out_of_the_fight():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "R/38": {"hex": "N2243", "revealed": [2, 4]},
                                      "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[1], policies={"advance": "ask"})
    path = events_of(ctx, "retreat")[0]["path"]
    opts = combat.advance_options(SC(), rules, rules["combat"])
    # 9.81, 9.82, 9.84: into the emptied hex, then along the path of retreat, short of the unit at its end
    assert {"type": "advance", "units": ["G/57"], "path": path[:1]} in opts
    assert {"type": "advance", "units": ["G/57"], "path": path[:-1]} in opts
    assert all(o["path"] == path[:len(o["path"])] for o in opts if o["units"])
    for units in (["player"], ["G/57", "N2245"], ["R/6"]):   # an orders probe: an id of no unit was a KeyError
        with pytest.raises(IllegalOrder, match="advance victorious units of the combat that have not advanced, from "
                                               "one hex") as refused:
            play(rules, [{"type": "advance", "units": units, "path": path[:1]}], policies={"advance": "ask"})
        assert refused.value.rule == "9.81"
    play(rules, [{"type": "advance", "units": ["G/57"], "path": path[:-1]}, {"type": "advance", "units": []}],
         policies={"advance": "ask"})
    assert st.hex_of(rules, "G/57") == path[-2] and st.has(rules["ps"]["advanced"], "G/57")   # 9.83: through the ZOC


def test_9_87_the_defender_advances_when_the_attackers_give_way():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [4, 6]}, "G/57": {"hex": "N2246", "steps_lost": 3},
                                      "G/75": {"hex": "N2247"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[6], policies={"attacker_result": "retreat"})
    assert fight(ctx)["result"] in ("Ae", "A2") and st.hex_of(rules, "G/57") != "N2246"
    assert events_of(ctx, "advance") and st.hex_of(rules, "R/6") == "N2246"
    refused(rules, attack(["N2246"], ["G/75"]), "9.85")                             # advanced: not attacked again


# --- 10.x in combat -------------------------------------------------------------------------------------

def test_10_22_a_river_doubles_only_when_every_attacker_crosses_it():
    a, b = "N3028", "N3027"
    sc = SC()
    other = next(sc.ids[j] for j in sc.nb[sc.idx[b]] if sc.side_kind.get((j, sc.idx[b])) is None and sc.ids[j] != a
                 and sc.terrain_of[j] == "clear")
    rules = at(phase="combat", units={"R/6": {"hex": b, "revealed": [2, 4]}, "A/21": {"hex": b}, "G/57": {"hex": a}})
    assert fight(play(rules, [attack([b], ["G/57"])], dice=[6]))["defence"] == 8
    rules = at(phase="combat", units={"R/6": {"hex": b, "revealed": [2, 4]}, "A/21": {"hex": b}, "G/57": {"hex": a},
                                      "G/75": {"hex": other}})
    assert fight(play(rules, [attack([b], ["G/57", "G/75"])], dice=[6]))["defence"] == 4


def test_10_24_the_don_triples():
    rules = at(phase="combat", units={"R/6": {"hex": "N3020", "revealed": [2, 4]}, "A/21": {"hex": "N3020"},
                                      "G/57": {"hex": "N3121"}})
    assert fight(play(rules, [attack(["N3020"], ["G/57"])], dice=[6]))["defence"] == 12


DON_BANKS = {"G/57": {"hex": "N2036"}, "R/6": {"hex": "N2035", "revealed": [1, 1]},   # N2036/N2035: a Don hexside
             "R/38": {"hex": "N2135", "revealed": [2, 4]}, "A/21": {"hex": "N2134"}}   # R/38 on the Don, its ZOC on N2035


def _advances(rules: dict) -> list[tuple[str, tuple[str, ...]]]:
    c = rules["combat"]
    return sorted((o["units"][0], tuple(o["path"])) for o in combat.advance_options(SC(), rules, c) if o["units"]) if c else []


def test_10_23_the_defender_advances_across_the_don_into_the_zoc_of_a_unit_on_the_don_never():
    """10.23 (errata): "no unit may ever be moved through a Don River hexside into a hex that is in
    the Zone of Control of an Enemy unit that is adjacent to the Don River"; the exception is an
    advance "during the Friendly Combat Phase". R/6 attacks G/57 across the Don and dies (1-3, die
    6: Ae); G/57, advancing in the Soviet Combat Phase, may not enter N2035, in the ZOC of R/38 on
    the Don. Without R/38 it may, and on (9.86)."""
    rules = at(player="soviet", phase="combat", units=DON_BANKS)
    ctx = play(rules, [attack(["N2036"], ["R/6"])], dice=[6], policies={"advance": "ask"})
    assert fight(ctx)["result"] == "Ae" and not st.on_map(rules, "R/6")
    assert _advances(rules) == [] and st.hex_of(rules, "G/57") == "N2036"
    rules = at(player="soviet", phase="combat", units={u: v for u, v in DON_BANKS.items() if u != "R/38"})
    play(rules, [attack(["N2036"], ["R/6"])], dice=[6], policies={"advance": "ask"})
    assert _advances(rules) == [("G/57", ("N2035",))] + [("G/57", ("N2035", h)) for h in
                                                          ("N1935", "N1936", "N2034", "N2135", "N2136")]


def test_10_23_the_attacker_advances_across_the_don_into_the_zoc_of_a_unit_on_the_don():
    """10.23 (errata), the exception: in the Axis Combat Phase G/57 attacks R/6 across the Don
    (1-1, die 1: D1) and may advance into N2035, in the ZOC of R/38 on the Don."""
    rules = at(player="axis", phase="combat", units=DON_BANKS)
    ctx = play(rules, [attack(["N2035"], ["G/57"])], dice=[1], policies={"advance": "ask"})
    assert fight(ctx)["result"] == "D1" and st.hex_of(rules, "R/6") != "N2035"
    assert _advances(rules) == [("G/57", ("N2035",))]


def test_10_27_no_attack_across_the_volga():
    rules = at(phase="combat", units={"R/6": {"hex": "N3117", "revealed": [2, 4]}, "G/57": {"hex": "N3116"}})
    refused(rules, attack(["N3117"], ["G/57"]), "10.27")


def test_9_31_9_32_10_32_10_34_rough_doubles_mountains_triple_or_double():
    r_from, r = find_step("rough", where=lambda sc, a, b: sc.ids[a].startswith("S2"))
    rules = at(phase="combat", units={"R/6": {"hex": r, "revealed": [2, 4]}, "G/57": {"hex": r_from}})
    d = fight(play(rules, [attack([r], ["G/57"])], dice=[6]))["defence"]
    assert d in (4, 8) and "rough x2" in fight(play(at(phase="combat", units={"R/6": {"hex": r, "revealed": [2, 4]},
                                                                                 "G/57": {"hex": r_from}}),
                                                      [attack([r], ["G/57"])], dice=[6]))["defence_parts"][0]
    m_from, m = find_step("mountain", frm="rough")
    rules = at(phase="combat", units={"R/6": {"hex": m, "revealed": [2, 4]}, "G/57": {"hex": m_from}})
    assert "mountain x3" in fight(play(rules, [attack([m], ["G/57"])], dice=[6]))["defence_parts"][0]
    rules = at(phase="combat", units={"R/6": {"hex": m, "revealed": [2, 4]}, "Mt/1": {"hex": m_from}})
    assert "mountain x2" in fight(play(rules, [attack([m], ["Mt/1"])], dice=[6]))["defence_parts"][0]
    rules = at(phase="combat", units={"R/6": {"hex": m, "revealed": [2, 4]}, "6/3Pz": {"hex": m_from}})
    refused(rules, attack([m], ["6/3Pz"]), "10.34")


def test_10_47_10_52_a_major_city_and_its_terrain_are_two_bonuses():
    from pbem.rulesets.dos import scenario

    doc = scenario.load_historical()
    row = doc["map"]["hexrows"]["N22"]
    assert row[52] == "l"                                       # Kharkov, N2253: light woods, no bonus of its own
    c = {"units": [], "air": {"att": [], "def": []}}
    assert combat.terrain_multiplier(SC(), {"units": {}}, c, SC().idx["N2253"]) == (2, "Major city x2 (10.47)")
    doc["map"]["hexrows"]["N22"] = row[:52] + "h" + row[53:]    # as a printed map with heavy woods there would
    sc = scenario.Scenario(doc, {})
    assert combat.terrain_multiplier(sc, {"units": {}}, c, sc.idx["N2253"]) == (3, "heavy-woods x2 (10.12), Major city x2 (10.47): x3 (10.52)")


def test_10_46_a_minor_city_gives_nothing():
    sc = SC()
    city = next(h for c in sc.cities if c.cls == "minor" for h in c.hexes
                if sc.terrain_of[sc.idx[h]] == "clear" and sc.idx[h] not in sc.axis_start
                and any(sc.side_kind.get((sc.idx[h], j)) is None and sc.terrain_of[j] == "clear" for j in sc.nb[sc.idx[h]]))
    frm = next(sc.ids[j] for j in sc.nb[sc.idx[city]] if sc.side_kind.get((sc.idx[city], j)) is None)
    rules = at(phase="combat", units={"GR/9": {"hex": city}, "A/21": {"hex": city}, "G/57": {"hex": frm}})
    d = fight(play(rules, [attack([city], ["G/57"])], dice=[6]))
    assert d["defence"] in (9, 4) and "x" not in d["defence_parts"][0]


# --- 11.4: HQs in combat --------------------------------------------------------------------------------

def test_11_1_11_41_11_44_an_hq_alone_defends_with_its_rating_doubled_by_terrain():
    rules = at(phase="combat", units={"A/21": {"hex": "N2245"}, "G/57": {"hex": "N2246"}})
    assert fight(play(rules, [attack(["N2245"], ["G/57"])], dice=[6]))["defence"] == 3
    rules = at(player="soviet", phase="combat", units={"HQ/2Hun": {"hex": "N2253"}, "R/6": {"hex": "N2252", "revealed": [2, 4]},
                                                        "A/21": {"hex": "N2252"}})
    assert fight(play(rules, [attack(["N2253"], ["R/6"])], dice=[6]))["defence"] == 4   # 5 // 2, x2 in Kharkov


def test_11_42_an_hq_may_take_the_step_loss():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "A/9": {"hex": "N2245"},
                                      "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"}, **HQ})
    play(rules, [attack(["N2245"], ["G/57", "G/75"]), {"type": "loss", "unit": "A/9"}], dice=[4],
         policies={"defender_result": "loss", "losses": "ask"})
    assert st.status(rules, "A/9") == "gone" and st.status(rules, "R/6") == "map"


def test_11_44_11_45_hqs_retreat_with_their_stack():
    rules = at(player="soviet", phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, "A/21": {"hex": "N2245"},
                                                        "A/9": {"hex": "N2245"}, "G/57": {"hex": "N2246"}})
    ctx = play(rules, [attack(["N2246"], ["R/6"], hqs=["A/21"])], dice=[3], policies={"attacker_result": "retreat"})
    assert fight(ctx)["result"] == "A2"
    moved = {e["unit"] for e in events_of(ctx, "retreat")}
    assert moved == {"R/6", "A/21", "A/9"}                                          # A/9 was not in the attack


def test_11_44_an_hq_advances_only_with_the_combat_units_of_its_attack():
    rules = at(player="soviet", phase="combat", units={"GR/9": {"hex": "N2245"}, "A/21": {"hex": "N2245"},
                                                        "G/57": {"hex": "N2246", "steps_lost": 3}})
    ctx = play(rules, [attack(["N2246"], ["GR/9"], hqs=["A/21"])], dice=[1], policies={"advance": "ask"})
    assert st.status(rules, "G/57") == "gone" and events_of(ctx, "eliminated")
    opts = combat.advance_options(SC(), rules, rules["combat"])
    assert {"type": "advance", "units": ["GR/9"], "path": ["N2246"]} in opts
    assert not any(o["units"] == ["A/21"] for o in opts)                             # not ahead of its units
    refused(rules, {"type": "advance", "units": ["A/21"], "path": ["N2246"]}, "11.44")
    play(rules, [{"type": "advance", "units": ["GR/9"], "path": ["N2246"]}], policies={"advance": "ask"})
    opts = combat.advance_options(SC(), rules, rules["combat"])
    assert {o["path"][-1] for o in opts if o["units"] == ["A/21"]} == {"N2246"}       # after them, where they went
    play(rules, [{"type": "advance", "units": ["A/21"], "path": ["N2246"]}], policies={"advance": "ask"})
    assert st.hex_of(rules, "A/21") == st.hex_of(rules, "GR/9") == "N2246"


def test_11_46_11_47_6_53_hq_limits():
    rules = at(player="soviet", units={"A/21": {"hex": "N2245"}, "G/57": {"hex": "N2246"}})
    refused(rules, {"type": "overrun", "units": ["A/21"], "target": "N2246"}, "11.46")
    rules = at(player="soviet", phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}})
    refused(rules, attack(["N2246"], ["R/6"]), "11.47")                              # no HQ in reach
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, **HQ})
    play(rules, [attack(["N2245"], ["G/57"])], dice=[6])                           # German units need none


# --- 6.5, 6.6: overrun and disruption ---------------------------------------------------------------------

def test_6_51_11_47_allied_units_overrun_only_within_the_radius_of_their_own_hq():
    base = {"Hun/Pz": {"hex": "N2246"}, "R/6": {"hex": "N2245", "revealed": [1, 1]}}
    refused(at(phase="combat", units=dict(base)), attack(["N2245"], ["Hun/Pz"]), "11.47")
    rules = at(units=dict(base))
    assert rules["ps"]["no_overrun"] == ["Hun/Pz"]                       # no Hungarian HQ: judged as the phase began
    refused(rules, {"type": "overrun", "units": ["Hun/Pz"], "target": "N2245"}, "11.47", "Hungarian HQ")
    rules = at(units={**base, "G/57": {"hex": "N2246"}})
    assert rules["ps"]["no_overrun"] == ["Hun/Pz"]                       # German units need no HQ (11.47)

def test_6_5_6_51_6_52_6_56_overrun_from_a_zoc_then_on_or_stop():
    rules = at(units={"6/3Pz": {"hex": "N2246"}, "3/3Pz": {"hex": "N2246"}, "394/3Pz": {"hex": "N2246"},
                      "R/6": {"hex": "N2245", "revealed": [1, 1]}, **HQ})
    ctx = play(rules, [{"type": "overrun", "units": ["3/3Pz", "394/3Pz", "6/3Pz"], "target": "N2245"}], dice=[1])
    assert fight(ctx)["attack"] == 8 and st.hex_of(rules, "6/3Pz") == "N2245"      # 16 / 2; in the emptied hex
    play(rules, [{"type": "move", "units": ["3/3Pz", "394/3Pz", "6/3Pz"], "path": ["N2244"]}])    # and on
    rules = at(units={"6/3Pz": {"hex": "N2246"}, "R/6": {"hex": "N2245", "revealed": [3, 9]}, **HQ})
    play(rules, [{"type": "overrun", "units": ["6/3Pz"], "target": "N2245"}], dice=[1], policies={"attacker_result": "loss"})
    assert st.has(rules["ps"]["stopped"], "6/3Pz")                                   # 6.52
    refused(rules, {"type": "move", "units": ["6/3Pz"], "path": ["N2247"]}, "6.52")
    rules = at(phase="combat", units={"6/3Pz": {"hex": "N2246"}, "R/6": {"hex": "N2245", "revealed": [1, 1]}, **HQ})
    refused(rules, {"type": "overrun", "units": ["6/3Pz"], "target": "N2245"}, "6.5")    # Movement Phases only


def test_6_24_a_retreat_spends_no_movement_points():
    rules = at(units={"6/3Pz": {"hex": "N2246"}, "R/6": {"hex": "N2245", "revealed": [3, 9]}, **HQ})
    ctx = play(rules, [{"type": "overrun", "units": ["6/3Pz"], "target": "N2245"}], dice=[1],
               policies={"attacker_result": "retreat"})
    assert fight(ctx)["column"] == "1-3" and fight(ctx)["result"] == "A1"          # 2 against 9
    assert st.hex_of(rules, "6/3Pz") != "N2246" and rules["ps"]["moved"]["6/3Pz"] == 3   # the overrun's 3 only


def test_13_4_an_eliminated_untried_unit_never_returns():
    from pbem.rulesets.dos import reinforce
    from tests.test_dos_support import Ctx

    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [1, 1]}, "G/57": {"hex": "N2246"}, **HQ})
    play(rules, [attack(["N2245"], ["G/57"])], dice=[1], policies={"advance": "none"})
    assert st.status(rules, "R/6") == "gone"
    rifle = SC().groups["rifle"]
    rules["units"].update({u: "pool" for u in rifle[:3] if u != "R/6"})
    drawn = reinforce.draw(SC(), rules, "rifle", 5, Ctx(), "t3.test", "ready")
    assert "R/6" not in drawn and len(drawn) == len([u for u in rifle[:3] if u != "R/6"])


def test_6_54_6_59_overrun_stacks_start_together_never_across_the_don():
    rules = at(units={"6/3Pz": {"hex": "N2246"}, "3/3Pz": {"hex": "N2247"}, "R/6": {"hex": "N2245", "revealed": [1, 1]}, **HQ})
    play(rules, [{"type": "move", "units": ["3/3Pz"], "path": ["N2246"]}])
    refused(rules, {"type": "overrun", "units": ["3/3Pz", "6/3Pz"], "target": "N2245"}, "6.28")
    rules = at(units={"6/3Pz": {"hex": "N3121"}, "R/6": {"hex": "N3020", "revealed": [1, 1]}, **HQ})
    refused(rules, {"type": "overrun", "units": ["6/3Pz"], "target": "N3020"}, "6.59")


def test_6_57_6_58_9_88_no_advance_after_an_overrun():
    rules = at(units={"6/3Pz": {"hex": "N2246"}, "R/6": {"hex": "N2245", "revealed": [1, 1]}, **HQ})
    ctx = play(rules, [{"type": "overrun", "units": ["6/3Pz"], "target": "N2245"}], dice=[1],
               policies={"defender_result": "retreat"})
    assert not events_of(ctx, "advance") and events_of(ctx, "overrun")[-1]["rule"] == "6.51"


def test_6_61_to_6_64_disruption():
    sc = SC()
    rules = at(units={"6/3Pz": {"hex": "N2246"}, "3/3Pz": {"hex": "N2246"}, "394/3Pz": {"hex": "N2246"},
                      "R/6": {"hex": "N2245", "revealed": [3, 5]}, "A/21": {"hex": "N2245"}})
    ctx = play(rules, [{"type": "overrun", "units": ["3/3Pz", "394/3Pz", "6/3Pz"], "target": "N2245"}], dice=[3],
               policies={"defender_result": "loss", "losses": "least-strength"})
    assert events_of(ctx, "disrupted") and st.has(rules["disrupted"], "R/6") or st.has(rules["disrupted"], "A/21")
    assert bd.Board(sc, rules).zoc("soviet") == frozenset()                       # 6.62: no ZOC
    hq_rules = at(player="soviet", units={"A/21": {"hex": "N2245", "markers": ["disrupted"]},
                                          "R/6": {"hex": "N2245", "revealed": [2, 4]}})
    assert st.has(hq_rules["ps"]["oos"], "R/6")                                      # 6.64: a disrupted HQ supplies none
    with pytest.raises(IllegalOrder):
        play(hq_rules, [{"type": "move", "units": ["A/21"], "path": ["N2244"]}])     # 6.62
    play(hq_rules, [{"type": "end"}, {"type": "end"}, {"type": "end"}])
    assert not st.has(hq_rules["disrupted"], "A/21")                                 # 6.63


# --- 7.2: divisional integrity ---------------------------------------------------------------------------

def test_7_2_7_21_7_23_a_whole_division_doubles_until_a_regiment_is_lost():
    units = {"6/3Pz": {"hex": "N2245"}, "3/3Pz": {"hex": "N2245"}, "394/3Pz": {"hex": "N2245"},
             "R/6": {"hex": "N2244", "revealed": [6, 8]}, "A/21": {"hex": "N2244"}}
    rules = at(player="soviet", phase="combat", units=units)
    assert fight(play(rules, [attack(["N2245"], ["R/6"], hqs=["A/21"])], dice=[6]))["defence"] == 16
    rules = at(player="soviet", phase="combat", units=units)
    rules["broken"] = ["3Pz"]
    assert fight(play(rules, [attack(["N2245"], ["R/6"], hqs=["A/21"])], dice=[6]))["defence"] == 8


def test_9_67_7_23_the_standing_order_for_losses_keeps_a_divisions_regiments_alive_where_it_can():
    """A D2 on two regiments of 3 Pz: `least-strength` takes a step from each rather than both
    from the weaker, which would eliminate it and cost the division its integrity for good
    (7.23); `most-steps` takes one from each anyway."""
    for losses in ("least-strength", "most-steps"):
        rules = at(player="soviet", phase="combat",
                   units={"6/3Pz": {"hex": "N2245"}, "3/3Pz": {"hex": "N2245"}, "394/3Pz": {"hex": "N2345"},
                          "R/6": {"hex": "N2244", "revealed": [12, 9]}, "A/21": {"hex": "N2143"}})
        ctx = play(rules, [attack(["N2245"], ["R/6"])], dice=[1],
                   policies={"defender_result": "loss", "losses": losses, "defence_air_supply": "none"})
        assert fight(ctx)["result"] == "D2", fight(ctx)
        assert st.lost(rules, "6/3Pz") == 1 and st.lost(rules, "3/3Pz") == 1, (losses, rules["lost"])
        assert st.on_map(rules, "3/3Pz") and st.on_map(rules, "6/3Pz") and rules["broken"] == []
    # where every step left eliminates a regiment, one goes, and the division is broken (7.23)
    rules = at(player="soviet", phase="combat",
               units={"6/3Pz": {"hex": "N2245", "steps_lost": 1}, "3/3Pz": {"hex": "N2245", "steps_lost": 1},
                      "394/3Pz": {"hex": "N2345"}, "R/6": {"hex": "N2244", "revealed": [12, 9]}, "A/21": {"hex": "N2143"}})
    ctx = play(rules, [attack(["N2245"], ["R/6"])], dice=[1], policies={"defender_result": "loss"})
    assert fight(ctx)["result"] in ("D2", "De") and rules["broken"] == ["3Pz"]


# --- 13.x: untried units ------------------------------------------------------------------------------------

def test_13_0_13_1_13_2_revealed_at_the_instant_of_combat_from_the_remaining_pool():
    sc = SC()
    rules = at(phase="combat", units={"R/6": {"hex": "N2245"}, "G/57": {"hex": "N2246"}, **HQ})
    before = untried.remaining(sc, rules, "sov-rifle")
    assert st.untried(sc, rules, "R/6")
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[6], picks=[len(before) - 1])
    assert rules["revealed"]["R/6"] == list(before[-1]) and events_of(ctx, "reveal")[0]["rule"] == "13.2"
    assert len(untried.remaining(sc, rules, "sov-rifle")) == len(before) - 1
    assert ctx.labels[0].endswith(".draw.R/6")                                       # drawn before the die


def test_13_3_a_no_strength_unit_is_removed_and_its_hex_is_empty():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245"}, "G/57": {"hex": "N2246"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], picks=[0])                    # the pool's first counter: 0-0
    assert st.status(rules, "R/6") == "gone" and events_of(ctx, "eliminated")[0]["rule"] == "13.3"
    assert not events_of(ctx, "combat") or fight(ctx).get("result") is None


# --- 14.1-14.3: air points on combat ------------------------------------------------------------------------

def test_14_11_14_14_14_15_supply_and_range_of_air_units():
    rules = at(player="soviet", phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                                        "AA/2": {"hex": "N2230"}, "AA/4": {"hex": "N2245"}, **HQ})
    refused(rules, attack(["N2246"], ["R/6"], air={"units": ["AA/2"], "shift": -1}), "14.14")
    ctx = play(rules, [attack(["N2246"], ["R/6"], air={"units": ["AA/4"], "shift": -1})], dice=[2])
    assert fight(ctx)["row"] == 1
    rules = at(player="soviet", phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                                        "AA/4": {"hex": "N2250"}, **HQ})
    refused(rules, attack(["N2246"], ["R/6"], air={"units": ["AA/4"], "shift": -1}), "14.11")


def test_14_21_14_22_14_7_the_defender_answers_second_a_soviet_army_has_one_point():
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"},
                                      "AA/4": {"hex": "N2143"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57"])], dice=[1], policies={"defence_air": "all"})
    assert events_of(ctx, "air")[0]["units"] == ["AA/4"] and fight(ctx)["row"] == 2
    assert rules["air"] == {"AA/4": 1}
    assert combat._available_air(SC(), rules, "soviet", [SC().idx["N2245"]]) == []   # its one point is spent


def test_14_22_14_23_the_die_line_gives_each_sides_air_points():
    """Both sides spend a point: "die 5 -1 +1 = 5", not "die 5" as though neither counted (a
    players' probe); one side alone reads as before, and a roll off the table says the row it
    reads, "die 1 -1 = 0, read as 1" (a players' probe: "die 1 -1 = 1" hid the 0)."""
    units = {"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, "AirK/4": {"hex": "N2250"},
             "AA/4": {"hex": "N2143"}, **HQ}
    ctx = play(at(phase="combat", units=units), [attack(["N2245"], ["G/57"], air={"units": ["AirK/4"], "shift": -1})],
               dice=[5], policies={"defence_air": "all"})
    assert fight(ctx)["row"] == 5 and "2-1; die 5 -1 +1 = 5: " in fight(ctx)["text"], fight(ctx)["text"]
    ctx = play(at(phase="combat", units=units), [attack(["N2245"], ["G/57"], air={"units": ["AirK/4"], "shift": -1})],
               dice=[1], policies={"defence_air": "none"})
    assert "2-1; die 1 -1 = 0, read as 1: D2 (9.5)." in fight(ctx)["text"], fight(ctx)["text"]


def test_14_24_more_attacking_air_points_cancel_the_river():
    a, b = "N3028", "N3027"
    sc = SC()
    base = next(sc.ids[i] for i in sorted(sc.axis_start) if sc.distance(i, sc.idx[b]) <= 20)
    rules = at(phase="combat", units={"R/6": {"hex": b, "revealed": [2, 4]}, "A/21": {"hex": b}, "G/57": {"hex": a},
                                      "AirK/4": {"hex": base}})
    ctx = play(rules, [attack([b], ["G/57"], air={"units": ["AirK/4"], "shift": -1})], dice=[6])
    assert fight(ctx)["defence"] == 4 and "negated" in fight(ctx)["defence_parts"][0]


def test_14_3_air_points_on_overruns_axis_only():
    rules = at(player="soviet", units={"TC/1": {"hex": "N2245"}, "G/57": {"hex": "N2246"}, "AA/4": {"hex": "N2245"}, **HQ})
    refused(rules, {"type": "overrun", "units": ["TC/1"], "target": "N2246", "air": {"units": ["AA/4"], "shift": -1}}, "14.3")
    rules = at(units={"6/3Pz": {"hex": "N2246"}, "R/6": {"hex": "N2245", "revealed": [1, 1]}, "AirK/8": {"hex": "N2250"}, **HQ})
    ctx = play(rules, [{"type": "overrun", "units": ["6/3Pz"], "target": "N2245", "air": {"units": ["AirK/8"], "shift": -1}}],
               dice=[2])
    assert fight(ctx)["row"] == 1 and rules["air"] == {"AirK/8": 1}


def test_9_69_a_unit_an_engaged_result_eliminates_is_eliminated_under_9_69():
    """Players' probe: "4-1; die 6: Eng (9.5). R/30 eliminated (9.67)": the loss of an Engaged
    result is 9.69's, not the A1/D1 choice of 9.67."""
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [3, 9]}, "G/57": {"hex": "N2246"},
                                      "G/75": {"hex": "N2246"}, **HQ})
    ctx = play(rules, [attack(["N2245"], ["G/57", "G/75"])], dice=[4])
    assert fight(ctx)["column"] == "2-1" and fight(ctx)["result"] == "Eng"
    assert [(e["units"], e["rule"], e["text"]) for e in events_of(ctx, "eliminated")] == [
        (["R/6"], "9.69", "R/6 eliminated (9.69).")]


# --- a third rules probe ------------------------------------------------------------------------------

@pytest.mark.parametrize("policy", ["add", "ask"])
def test_11_43_an_axis_hq_adds_to_the_stack_in_its_hex_one_in_each_hex_of_the_defence(policy):
    """GR/9 (8) attacks Rum/1 in N2246 and Rum/2 in N2146 (4 each), each stacked with a Rumanian
    HQ (rating 5: +2 to the stack in its hex, 11.43). Each HQ adds to its own stack, as each
    Soviet HQ adds to the stack in its hex in an attack from two hexes: defence 12 (8 against 12,
    1-2). 1.12.0 let one HQ add to the whole combat and refused the second (defence 10)."""
    units = {"GR/9": {"hex": "N2245"}, **HQ, "Rum/1": {"hex": "N2246", "revealed": 4}, "HQ/3Rum": {"hex": "N2246"},
             "Rum/2": {"hex": "N2146", "revealed": 4}, "HQ/4Rum": {"hex": "N2146"}}
    rules = at(player="soviet", phase="combat", units=units)
    answers = [] if policy == "add" else [{"type": "hq", "hq": "HQ/3Rum"}, {"type": "hq", "hq": "HQ/4Rum"}]
    ctx = play(rules, [attack(["N2146", "N2246"], ["GR/9"])] + answers, dice=[6], policies={"hq_defence": policy})
    assert sorted(e["unit"] for e in events_of(ctx, "hq")) == ["HQ/3Rum", "HQ/4Rum"]
    f = fight(ctx)
    assert (f["column"], f["result"]) == ("1-2", "Ae")
    assert "Defence strength 12: Rum/2 4 in N2146, HQ/4Rum +2 (11.43) = 6; Rum/1 4 in N2246, HQ/3Rum +2 (11.43) = 6." \
        in f["text"]


def test_11_43_one_axis_hq_named_and_then_none_adds_one():
    """The defender may stop after one HQ: the decision asked again takes `hq: null`."""
    units = {"GR/9": {"hex": "N2245"}, **HQ, "Rum/1": {"hex": "N2246", "revealed": 4}, "HQ/3Rum": {"hex": "N2246"},
             "Rum/2": {"hex": "N2146", "revealed": 4}, "HQ/4Rum": {"hex": "N2146"}}
    rules = at(player="soviet", phase="combat", units=units)
    ctx = play(rules, [attack(["N2146", "N2246"], ["GR/9"]), {"type": "hq", "hq": "HQ/3Rum"},
                       {"type": "hq", "hq": None}], dice=[6], policies={"hq_defence": "ask"})
    assert [e["unit"] for e in events_of(ctx, "hq")] == ["HQ/3Rum"]
    assert "Defence strength 10: Rum/2 4 in N2146; Rum/1 4 in N2246, HQ/3Rum +2 (11.43) = 6." in fight(ctx)["text"]


def test_9_14_13_3_an_attack_that_does_not_take_place_leaves_its_defenders_free_to_be_attacked():
    """R/6, untried, attacks G/57 alone and is revealed 0-0: it is removed and the attack does
    not take place (13.3). G/57 was not attacked, so R/38 may attack it in the same phase
    (9.14). 1.12.0 counted G/57 as attacked and refused the second attack."""
    sc = SC()
    units = {"R/6": {"hex": "N2245"}, "R/38": {"hex": "N2146", "revealed": [6, 8]}, "G/57": {"hex": "N2246"}, **HQ}
    rules = at(player="soviet", phase="combat", units=units)
    pool = untried.remaining(sc, rules, "sov-rifle")
    ctx = play(rules, [attack(["N2246"], ["R/6"])], picks=[list(map(list, pool)).index([0, 0])])
    assert [e["rule"] for e in events_of(ctx, "combat")] == ["13.3"] and st.status(rules, "R/6") == "gone"
    assert not st.has(rules["ps"]["targets"], "G/57")
    ctx = play(rules, [attack(["N2246"], ["R/38"])], dice=[6])
    assert fight(ctx)["text"].startswith("Attack strength 6: R/38 6.")


@pytest.mark.parametrize("die, result", [(1, "A1"), (3, "A2")])
def test_9_81_9_86_9_87_attackers_lost_to_an_a1_or_a2_step_loss_open_the_defenders_advance(die, result):
    """R/6 (one step) attacks G/57 at 1-3 and takes the A1 or A2 as a step loss: eliminated,
    its hex N2245 is left vacant "as a result of combat" (9.81), "all units in [the] hex are
    eliminated" (9.86), and "any victorious unit may advance after combat, regardless of
    whether it was the attacker or the defender" (9.87). 1.13.0 offered G/57 an advance after
    an Ae or a retreat, not after a loss of steps."""
    units = {"R/6": {"hex": "N2245", "revealed": [3, 4]}, "A/21": {"hex": "N2143"}, "G/57": {"hex": "N2246"}}
    rules = at(player="soviet", phase="combat", units=units)
    ctx = play(rules, [attack(["N2246"], ["R/6"])], dice=[die],
               policies={"attacker_result": "loss", "advance": "ask"})
    assert fight(ctx)["text"].endswith(f"3 against 9: 1-3; die {die}: {result} (9.5).")
    assert [e["text"] for e in events_of(ctx, "eliminated")] == ["R/6 eliminated (9.67)."]
    options = combat.advance_options(SC(), rules, rules["combat"])
    assert [o.get("path") for o in options] == [None, ["N2245"], ["N2245", "N2145"], ["N2245", "N2146"],
                                                ["N2245", "N2244"], ["N2245", "N2345"], ["N2245", "N2346"]]
    play(rules, [{"type": "advance", "units": ["G/57"], "path": ["N2245", "N2145"]}])
    assert st.hex_of(rules, "G/57") == "N2145"
