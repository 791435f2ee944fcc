"""Tests of the kkoh review's findings (F1, F2, F3, F4, F5, F7, F8, F9, F10) with exact outcomes; checklist
ids (K-...) in the names and docstrings. Helpers are those of tests/test_kkoh_rules.py and
tests/test_kkoh_cases.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import rulesets
from pbem.core.errors import RulesError
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import state as st
from tests.support.cases import run_case
from tests.test_kkoh_cases import ROOT, expand, scenario_doc
from tests.test_kkoh_rules import ARMIES, HQS, POS_AP, POS_FIRE, POS_MOVE, Ctx, U, _air, mv, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def doc(units, position, **spec):
    """The scenario document of `table` (10 x 10, the test lists), for a run through the engine."""
    return scenario_doc({"units": units, "armies": ARMIES, "columns": 10, "rows": 10, "commands": HQS,
                         "blue": {"army": "test-nato", **spec.pop("blue", {})},
                         "red": {"army": "test-soviet", **spec.pop("red", {})}, "position": position, **spec})


def _assault_on(rules, side, units, origin, target):
    """One declared Close Assault being fought (its defender not yet named)."""
    rules["assaults"] = [{"n": 1, "side": side, "units": units, "from": origin, "target": target, "dismount": False,
                          "hqs": []}]
    rules["ca"] = {"n": 1, "att": list(units), "def": [], "body": [], "round": 1, "steps": [{"do": "nominate"}]}


# --- F1: dismounting in a Close Assault only when the unit may move in its vehicles -----------------

def test_mounted_infantry_dismounts_to_assault_only_in_a_phase_it_may_move_in_its_vehicles():
    """K-INF-4, K-MOV-4, K-CA-10: motorised infantry (wheeled carriers) moves from Action Phase 3;
    in Phase 2 it may neither assault mounted nor dismount to assault; in Phase 3 it may. Mounted
    infantry on PA moves from Phase 3 whatever its carrier. A unit that moved in its vehicles
    earlier in the turn may still dismount in a Close Assault."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "ri", "0505", "01", "N", "HA", carrier="wheeled", mounted=True),
             U("B2", "blue", "ri", "0305", "01", "N", "PA", carrier="aifv", mounted=True),
             U("R1", "red", "tank", "0506", "21", "S"), U("R2", "red", "tank", "0306", "21", "S")]
    for ap in (1, 2):
        sc, rules = table(units, position=POS_AP(ap))
        with pytest.raises(IllegalOrder) as info:
            assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B1"], "target": "0506",
                                                      "dismount": True}, ap)
        assert info.value.rule == "K-INF-4"
        assert info.value.message == (f"assault: B1 may dismount in a Close Assault only in an Action Phase in which it "
                                      f"may move in its vehicles, and it may not move in Action Phase {ap} "
                                      f"(K-INF-4, K-MOV-4)")
        with pytest.raises(IllegalOrder) as info:
            assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B2"], "target": "0306",
                                                      "dismount": True}, ap)
        assert info.value.rule == "K-INF-4"
        with pytest.raises(IllegalOrder) as info:       # mounted, as before
            assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B1"], "target": "0506"}, ap)
        assert info.value.rule == "K-CA-5" and "may not move in Action Phase" in info.value.message
    sc, rules = table(units, position=POS_AP(3))
    plan = assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B1"], "target": "0506",
                                                     "dismount": True}, 3)
    assert (plan["units"], plan["dismount"], plan["vehicles"]) == (["B1"], True, [])
    assert assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B2"], "target": "0306",
                                                     "dismount": True}, 3)["dismount"]
    sc, rules = table(units, position=POS_AP(4))
    rules["ts"]["moved"]["B1"] = "vehicle"          # it moved in its vehicles in Phase 3 (K-INF-4)
    assert assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B1"], "target": "0506",
                                                     "dismount": True}, 4)["dismount"]


def test_a_dismounting_assault_in_phase_two_is_refused_through_the_engine(tmp_path: Path):
    """K-INF-4, K-MOV-4 (review r1): the packet is refused, citing K-INF-4; nothing is declared."""
    units = [U("R-BTR", "red", "ri", "0303", "01", "S", "HA", carrier="wheeled", mounted=True),
             U("B1", "blue", "tank", "0302", "01", "N")]
    position = {"turn": 1, "ap": 2, "step": "move", "mover": "first", "initiative": "red"}
    with pytest.raises(RulesError) as info:
        run_case(tmp_path, "kkoh", doc(units, position), [{"side": "red", "orders": [
            {"type": "assault", "units": ["R-BTR"], "target": "0302", "dismount": True}, {"type": "end"}]}], [])
    assert "may not move in Action Phase 2 (K-INF-4, K-MOV-4)." in str(info.value)


def test_assault_options_offer_the_dismounting_assault_when_legal():
    """K-CA-10, K-INF-4 (review F7): infantry in vehicles is offered the assault mounted and
    dismounting in a phase it may move in its vehicles, and neither before."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "ri", "0505", "01", "N", "HA", carrier="wheeled", mounted=True),
             U("B2", "blue", "tank", "0405", "01", "N", "HA"),
             U("R1", "red", "tank", "0506", "21", "S"), U("R2", "red", "tank", "0406", "21", "S")]
    sc, rules = table(units, position=POS_AP(3))
    assert assault.options(sc, rules, "blue", 3) == [
        {"type": "assault", "units": ["B1"], "target": "0506"},
        {"type": "assault", "units": ["B1"], "target": "0506", "dismount": True},
        {"type": "assault", "units": ["B2"], "target": "0406"}]
    sc, rules = table(units, position=POS_AP(2))
    assert assault.options(sc, rules, "blue", 2) == [{"type": "assault", "units": ["B2"], "target": "0406"}]


# --- F5: a won attacker occupies when a later friendly assault clears the square --------------------

def test_an_attacker_that_won_occupies_when_a_later_assault_clears_the_square(tmp_path: Path):
    """K-CA-14, K-CA-15 (review r6): the rulebook's Close Assault example position, the Leopards
    rolling 6 (DR at -1). The Marder fights and wins while the T-64 and a BTR remain; the
    Leopards win and clear 0303 and occupy it; then the Marder, who fought and won, must occupy
    it too (facing the way it came in, east), and no Breakthrough is left to offer."""
    path = ROOT / "tests" / "cases" / "kkoh" / "close-assault-example.yaml"
    case = expand(path)[0]
    dice = [5, 1, 4, 6, 6, 6, 6, 6]     # Marder DR; BTR1 1, Marder 4; Leopards DR; four attrition dice, no loss
    folder, events = run_case(tmp_path, "kkoh", scenario_doc(case["scenario"]), case["packets"], dice)
    assert len([e for e in events if e["type"] == "roll"]) == len(dice)
    rules = folder.state["rules"]
    seen = [(e["type"], e.get("assault"), e.get("units")) for e in events
            if e["type"] in ("assault-won", "occupy", "assault-cleared", "breakthrough", "breakthrough-declined",
                             "attackers-back")]
    assert seen == [("assault-won", 1, None), ("occupy", 2, ["B-Leo1", "B-Leo2"]),
                    ("assault-cleared", 1, ["B-Marder"]), ("occupy", 1, ["B-Marder"])]
    cleared = next(e for e in events if e["type"] == "assault-cleared")
    assert (cleared["square"], cleared["rule"]) == ("0303", "K-CA-14")
    assert {u: (rules["pieces"][u]["sq"], rules["pieces"][u]["f"]) for u in ("B-Marder", "B-Leo1", "B-Leo2")} == {
        "B-Marder": ("0303", "E"), "B-Leo1": ("0303", "S"), "B-Leo2": ("0303", "S")}
    assert rules["pieces"]["B-Marder"]["mode"] == "mounted" and rules["pieces"]["B-Marder"]["o"] == "HA"
    assert folder.game.next_step(rules).kind == "move"


# --- F2: a limbered gun counts for nothing in an assault ----------------------------------------------

def test_a_limbered_gun_adds_no_strength_and_is_not_named_in_support():
    """K-CA-11, K-CAF-1 (review r4): a limbered towed gun engaged with the defenders does not
    count as a unit (units 1 v 1: no factor, only orders HA v HA +1); it is not offered as the
    supporting unit."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("R1", "red", "tank", "0506", "21", "S", "HA"),
             U("R2", "red", "tank", "0506", "20", "S", "HA"),
             U("RG", "red", "towed", "0506", "01", "N", "HA", level="battery", limbered=True)]
    sc, rules = table(units, position=POS_AP(2))
    board = st.Board(sc, rules)
    a = {"n": 1, "side": "blue", "units": ["B1"], "from": "0505", "target": "0506"}
    assert assault.factors(sc, board, a, ["B1"], ["R1", "RG"], ["R1"]) == {"orders": 1}
    assert assault.factors(sc, board, a, ["B1"], ["R1", "R2"], ["R1"]) == {"units_fewer": -1, "orders": 1}
    _assault_on(rules, "blue", ["B1"], "0505", "0506")
    assert assault.defence_options(sc, board, rules) == [
        {"type": "defend", "units": ["R1"], "support": None}, {"type": "defend", "units": ["R1"], "support": "R2"},
        {"type": "defend", "units": ["R2"], "support": None}, {"type": "defend", "units": ["R2"], "support": "R1"}]


# --- F10: the defender's choice follows K-CA-7's order -------------------------------------------------

def test_the_defender_is_the_facing_unit_then_the_one_closest_to_the_edge():
    """K-CA-7 (review r10): nobody faces the assault from the south; the unit closest to the
    south edge (R3, its back to it) defends before a flank-on unit deeper in the square (R4);
    the attacker then has the rear +3. With a unit facing south, that unit defends."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0303", "01", "N", "HA"),
             U("R1", "red", "tank", "0304", "01", "N"), U("R2", "red", "tank", "0304", "11", "N"),
             U("R3", "red", "tank", "0304", "21", "N"), U("R4", "red", "tank", "0304", "02", "E")]
    sc, rules = table(units, position=POS_AP(2))
    board = st.Board(sc, rules)
    _assault_on(rules, "blue", ["B1"], "0303", "0304")
    assert assault.defence_options(sc, board, rules) == [
        {"type": "defend", "units": ["R3"], "support": s} for s in (None, "R1", "R2", "R4")]
    a = rules["assaults"][0]
    assert assault.factors(sc, board, a, ["B1"], ["R3"], ["R3"])["rear"] == 3
    units[4] = U("R4", "red", "tank", "0304", "00", "S")      # now R4 faces the assault
    sc, rules = table(units, position=POS_AP(2))
    board = st.Board(sc, rules)
    _assault_on(rules, "blue", ["B1"], "0303", "0304")
    assert [o["units"] for o in assault.defence_options(sc, board, rules)] == [["R4"]] * 4


# --- F3: every AA unit fires ----------------------------------------------------------------------------

def test_every_aa_unit_fires_and_a_later_six_drives_off_after_a_five():
    """K-AIR-6 (review r2): the first AA unit's 5 aborts the run, but the second still rolls and
    its 6 drives the air unit away for the day; no attack is made."""
    from pbem.rulesets.kkoh import air

    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("BA", "blue", "aa-gun", "0405", "01", "N"),
             U("BS", "blue", "aa-sam", "0105", "01", "N"), U("R1", "red", "tank", "0909", "01", "S")]
    sc, rules = _air(units, {"red": [{"id": "R-AIR", "kind": "fixed"}]})
    ctx = Ctx([4, 5, 1, 1, 6])      # arrives (4); BA 5, 1: aborted; BS 1, 6: driven off
    air.run(sc, rules, ctx)
    air.answer(sc, rules, "air-target", {"type": "air-target", "square": "0505"}, ctx)
    assert [(e["unit"], e["dice"], e["effect"]) for e in ctx.of("air-defence")] == [
        ("BA", [5, 1], "aborted"), ("BS", [1, 6], "driven-off")]
    assert ctx.dice == [] and not ctx.of("air-strike") and not ctx.of("air-attack")
    assert rules["air"]["R-AIR"]["state"] == "gone"


# --- F7: the calls' option lists ------------------------------------------------------------------------

def test_call_options_offer_every_defender_and_counter_battery_assets(tmp_path: Path):
    """K-CA-9, K-IF-7 (bombardment dedicated to any one unit of the assault), K-SFX-2 (counter-
    battery with the assets) (review r7): five defenders, each offered; the assets offered while
    one is left."""
    units = [U("B1", "blue", "tank", "0303", "01", "N", "HA")]
    units += [U(f"R{i + 1}", "red", "tank", "0304", c, "S") for i, c in enumerate(["20", "21", "22", "10", "11"])]
    units.append(U("R-ART", "red", "sp", "0306", "01", "S", level="bn-bde"))
    folder, _ = run_case(tmp_path, "kkoh", doc(units, POS_AP(2), red={"specials": {"counter_battery": 1}}),
                         [{"side": "blue", "orders": [{"type": "assault", "units": ["B1"], "target": "0304"},
                                                      {"type": "end"}]}], [])
    rules = folder.state["rules"]
    need = folder.game.next_step(rules)
    assert (need.side, need.kind) == ("red", "calls")
    assert folder.game.legal_orders(rules, need) == [
        *({"type": "bombard", "unit": "R-ART", "assault": 1, "support": f"R{i}"} for i in range(1, 6)),
        {"type": "counter-battery", "unit": "R-ART", "assets": False},
        {"type": "counter-battery", "unit": "R-ART", "assets": True}, {"type": "end"}]


# --- F4: one vehicle unit of a side per face, for Direct Fire INTO woods / built-up / steep ridge ---

def test_one_vehicle_unit_a_side_fires_into_a_wood_through_each_face(tmp_path: Path):
    """K-TER-5, K-TER-7 ("otherwise as steep ridges") (review r3; README reading "from or into"):
    two Blue tank companies in 0505 facing N both fire through the S face of woods square 0506:
    the second is refused. A diagonal shot (B3 from 0605 facing N) leaves through its faced edge
    and enters through the face opposite it, the S face too: not offered once B1 has fired; B4
    fires in through the W face and is offered, accepted and rolled."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("B2", "blue", "tank", "0505", "00", "N", "HA"),
             U("B3", "blue", "tank", "0605", "01", "N", "HA"), U("B4", "blue", "tank", "0406", "12", "E", "HA"),
             U("R1", "red", "ri", "0506", "21", "N"), U("R2", "red", "ri", "0506", "20", "N")]
    scenario = doc(units, POS_FIRE, area={"0506": "woods"})
    b1 = {"type": "fire", "unit": "B1", "target": "R1"}
    with pytest.raises(RulesError) as info:
        run_case(tmp_path / "a", "kkoh", scenario, [{"side": "blue", "orders": [
            b1, {"type": "fire", "unit": "B2", "target": "R2"}, {"type": "end"}]}], [])
    assert ("fire: into 0506 (woods) one vehicle unit of a side only fires through each face: B2 would fire through "
            "its S face, as B1 does (K-TER-5)") in str(info.value)
    with pytest.raises(RulesError) as info:
        run_case(tmp_path / "b", "kkoh", scenario, [{"side": "blue", "orders": [
            b1, {"type": "fire", "unit": "B3", "target": "R1"}, {"type": "end"}]}], [])
    assert "B3 would fire through its S face, as B1 does (K-TER-5)" in str(info.value)
    folder, _ = run_case(tmp_path / "c", "kkoh", scenario, [{"side": "blue", "orders": [b1]}], [])
    rules = folder.state["rules"]
    need = folder.game.next_step(rules)
    assert (need.side, need.kind) == ("blue", "fire")
    assert folder.game.legal_orders(rules, need) == [{"type": "fire", "unit": "B4", "target": "R2"}, {"type": "end"}]
    folder, events = run_case(tmp_path / "d", "kkoh", scenario, [{"side": "blue", "orders": [
        b1, {"type": "fire", "unit": "B4", "target": "R2"}, {"type": "end"}]}], [1, 1])
    assert [(e["unit"], e["target"]) for e in events if e["type"] == "fire"] == [("B1", "R1"), ("B4", "R2")]
    # each modifier in the Direct Fire table's words (a players' probe: "firer m -1" left M unexplained)
    assert [e["text"] for e in events if e["type"] == "fire"] == [
        "B1 fires at R1 in 0506: die 1, firer with IR +1, target on PD orders or in cover -1, rear shot +1 = 2: no "
        "effect (K-DF-6, K-DF-7).",
        "B4 fires at R2 in 0506: die 1, firer with IR +1, target on PD orders or in cover -1 = 1: no effect (K-DF-6, "
        "K-DF-7)."]


# --- F9: a plain move displaces enemy command markers ---------------------------------------------

def test_a_move_into_a_square_held_only_by_an_enemy_marker_displaces_it(tmp_path: Path):
    """K-GG-2 ("markers may not hold squares and are displaced"), K-CMK-4 (review r9): B1 moves
    (a plain move, not an assault) into 0304, where only the Red marker R-HQ stands. The move is
    offered and accepted, and R-HQ is displaced as on Give Ground or occupation, to the nearest
    square holding Red units (0306, two squares away, before 0707), with an event; the assault
    into 0304 (which would destroy it, K-CMK-4) is still offered too."""
    commands = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "brigade", "square": "0000"},
                {"id": "R-HQ", "side": "red", "row": "hq", "level": "division", "square": "0304"}]
    units = [U("B1", "blue", "tank", "0303", "01", "N", "M"), U("R1", "red", "tank", "0707", "01", "S"),
             U("R2", "red", "tank", "0306", "01", "S")]
    scenario = doc(units, POS_MOVE, commands=commands)
    move = {"type": "move", "units": ["B1"], "to": "0304", "facing": "N"}
    folder, _ = run_case(tmp_path / "a", "kkoh", scenario, [], [])
    rules = folder.state["rules"]
    options = folder.game.legal_orders(rules, folder.game.next_step(rules))
    assert move in options and {"type": "assault", "units": ["B1"], "target": "0304"} in options
    folder, events = run_case(tmp_path / "b", "kkoh", scenario, [{"side": "blue", "orders": [move]}], [])
    rules = folder.state["rules"]
    assert rules["pieces"]["B1"]["sq"] == "0304"
    assert rules["hqs"]["R-HQ"] == {"sq": "0306"}
    shown = [e for e in events if e["type"] == "hq-displaced"]
    assert [(e["hq"], e["origin"], e["to"], e["rule"]) for e in shown] == [("R-HQ", "0304", "0306", "K-GG-2")]
    assert shown[0]["text"] == ("R-HQ holds no square and is displaced from 0304, which B1 enters, to 0306, the "
                                "nearest square held by red's units (K-GG-2, K-CMK-4).")
    assert [e["type"] for e in events if e["type"] in ("move", "hq-displaced")] == ["move", "hq-displaced"]
    # with no Red unit left on the table there is nowhere to go: the marker is destroyed (K-GG-2 reading)
    sc, rules = table(units, commands=commands, position=POS_MOVE)
    for p in ("R1", "R2"):
        st.Board(sc, rules).remove(p)
    ctx = mv(sc, rules, ["B1"], "0304", "N", 2)
    assert rules["hqs"]["R-HQ"] == {"lost": 1}
    assert [(e["type"], e["hq"], e["side"], e["rule"]) for e in ctx.events if e["type"].startswith("hq-")] == [
        ("hq-destroyed", "R-HQ", "red", "K-GG-2")]


# --- F8: every area terrain feature stops a diagonal shot beyond one square (K-DF-2) ------------

@pytest.mark.parametrize("feature, sight", [("open", False), ("marsh", False), ("light-woods", False),
                                            ("impassable", False), ("woods", True), ("ridge", True)])
def test_a_diagonal_shot_beyond_one_square_stops_at_any_area_terrain_feature(feature, sight):
    """K-DF-2 (L75: "Diagonal Fire may not pass ... beyond a square that contains an area terrain
    feature when firing at more than one squares range"; L23 lists Marsh, Light Woods and
    Impassable among the "Area features" with ridges, built-up areas and woods): the heavy ATGW
    in 0202, facing N, fires diagonally at 0304 past 0303, and is stopped by any feature there;
    straight ahead at 0204 past 0203, only by one that blocks line of sight (K-TER-4..7). At one
    square's range the feature stops nothing."""
    from tests.test_kkoh_rules import shot

    jaguar = U("B1", "blue", "jaguar", "0202", "01", "N")
    for target, between, blocked, words in (("0204", "0203", sight, None),
                                            ("0304", "0303", feature != "open",
                                             "is an area terrain feature, which no diagonal shot beyond one square passes")):
        sc, rules = table([jaguar, U("R1", "red", "tank", target, "21", "S")], position=POS_FIRE, area={between: feature})
        if blocked:
            with pytest.raises(IllegalOrder) as info:
                shot(sc, rules, "blue", "B1", "R1")
            why = "blocks the line of sight" if sight else words
            assert info.value.rule == "K-DF-2" and info.value.message == (
                f"fire: {between} ({feature}) {why} (K-DF-2, K-TER-{4 if sight else 1})")
        else:
            made = shot(sc, rules, "blue", "B1", "R1")
            assert (made["ahead"], made["right"]) == (2, 0 if target == "0204" else 1)
    if feature != "impassable":   # no unit stands in an impassable square
        sc, rules = table([jaguar, U("R2", "red", "tank", "0203", "21", "S")], position=POS_FIRE, area={"0203": feature})
        assert shot(sc, rules, "blue", "B1", "R2")["ahead"] == 1


# --- K-TER-11: the face a shot crosses into its target's square is defensive terrain too ---------

@pytest.mark.parametrize("firer, target, edge, covered", [
    (("0502", "tank"), "0503", "0502/0503", True),     # straight, across the stream on the target's face
    (("0502", "tank"), "0503", None, False),           # the same shot over no stream
    (("0502", "jaguar"), "0504", "0503/0504", True),   # two squares ahead: the face into the target's square
    (("0502", "jaguar"), "0504", "0502/0503", False),  # a stream crossed on the way, not at the target
    (("0502", "tank"), "0603", "0503/0603", False),    # front diagonal: it arrives by a corner, across no face
])
def test_a_stream_on_the_face_a_shot_enters_by_covers_the_target(firer, target, edge, covered):
    """K-DF-6 "Target in PD or defensive terrain" with K-TER-11 (recommended: "any square (or edge
    crossed) whose feature gives the target/defender a Close Assault advantage"): a stream that
    gives its defenders a Close Assault advantage (K-TER-2) covers a target behind it against
    Direct Fire across it, -1, as it does against a Close Assault across it."""
    from pbem.rulesets.kkoh import fire

    square, kind = firer
    units = [U("B1", "blue", kind, square, "01", "N"), U("R1", "red", "tank", target, "21", "S")]
    sc, rules = table(units, position=POS_FIRE, edges={edge: "stream"} if edge else {})
    if edge:
        assert sc.edges[edge].ca_defence < 0      # the stream gives its defenders the advantage (K-TER-2)
    shot = fire.check_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
    mods = fire.modifiers(sc, st.Board(sc, rules), shot)
    assert mods.get("target_pd_or_cover") == (-1 if covered else None)


# --- K-CAR-4, K-CA-20: a Breakthrough's one round of Desperate Fighting ---------------------------

@pytest.mark.parametrize("breakthrough", [False, True])
def test_a_first_desperate_fighting_is_fought_again_in_a_breakthrough_too(breakthrough):
    """K-CAR-4 as the acceptance list reads it: DF means attrition for both sides and the assault
    fought again at once; "a second DF means another attrition round and the attacker Gives
    Ground; in a Breakthrough Assault no second DF round is allowed (treat a second DF as the
    attacker Giving Ground after attrition)". So a Breakthrough's first DF is fought again, as an
    assault's is (1.15.0 ended the Breakthrough at its first DF): B1 against R1, EVENS, die 3, DF
    twice; no attrition loss (dice 6); B1 is thrown back to 0504."""
    from pbem.rulesets.kkoh import assault, flow

    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"), U("R1", "red", "tank", "0505", "21", "S", "HD"),
             U("R2", "red", "tank", "0505", "20", "S", "HD")]
    sc, rules = table(units, position={"turn": 1, "ap": 2, "step": "move", "mover": "first", "initiative": "blue"})
    rules["assaults"] = [{"n": 1, "side": "blue", "units": ["B1"], "from": "0504", "target": "0505", "dismount": False,
                          "hqs": [], **({"breakthrough": True} if breakthrough else {})}]
    rules["step"] = "assault1"
    ctx = Ctx([3, 6, 6, 3, 6, 6])
    flow.advance(sc, rules, ctx)
    while (asked := assault.decision(sc, rules)) is not None:
        options = assault.legal(sc, rules, asked[1])
        assault.answer(sc, rules, asked[1], next((o for o in options if o.get("support") is None), options[0]), ctx)
        flow.advance(sc, rules, ctx)
    assert [(e["round"], e["result"]) for e in ctx.of("assault")] == [(1, "DF"), (2, "DF")]
    assert len(ctx.of("desperate-fighting")) == 1 and len(ctx.of("attrition")) == 4 and ctx.dice == []
    assert rules["pieces"]["B1"]["sq"] == "0504" and {p: rules["pieces"][p]["sq"] for p in ("R1", "R2")} == {
        "R1": "0505", "R2": "0505"}
