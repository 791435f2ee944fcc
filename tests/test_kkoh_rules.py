"""Unit tests of the kkoh rules with exact outcomes; checklist ids (K-...) in the names and
docstrings. Positions are built from compact specs (tests/test_kkoh_cases.py: scenario_doc)."""

from __future__ import annotations

import copy

import pytest

from pbem import rulesets
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import RULESET, command, flow, layout, movement
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_cases import scenario_doc


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def U(uid: str, side: str, row: str, square: str, cell: str, facing: str, order: str = "HD", **extra) -> dict:
    return {"id": uid, "side": side, "row": row, "square": square, "cell": cell, "facing": facing, "order": order, **extra}


def make(units: list[dict], **spec):
    doc = scenario_doc({"units": units, **spec})
    sc = RULESET.scenario(doc, {})
    return sc, RULESET.setup(sc)


class Ctx:
    def __init__(self, dice=(), chosen_by="order"):
        self.dice = list(dice)
        self.events: list[dict] = []
        self.labels: list[str] = []
        self.chosen_by = chosen_by

    def d6(self, label: str) -> int:
        self.labels.append(label)
        if not self.dice:
            raise AssertionError(f"no scripted die left for {label}")
        return self.dice.pop(0)

    def event(self, type: str, text: str, **fields) -> None:
        self.events.append({"type": type, "text": text, **fields})

    def of(self, type_: str) -> list[dict]:
        return [e for e in self.events if e["type"] == type_]


POS_MOVE = {"turn": 1, "ap": 2, "step": "move", "mover": "first", "initiative": "blue"}


# --- Game Mechanism, Basic Concepts (K-GM, K-BAS, K-TRP-4, K-BG, K-DOC) --------------------------

def test_a_square_holds_six_units_three_wide_three_deep_each_closest_to_its_edge():
    """K-GM-1, K-BAS-1, K-TRP-4, K-GM-2, K-GM-3, K-GM-4 (six lone units, none touching another,
    are legal): layout checks on planned square contents."""
    sc, rules = make([U("B1", "blue", "tank-1", "0202", "00", "N")])
    full = {f"P{i}": {"cell": c, "f": "N", "o": "HD"} for i, c in enumerate(["00", "01", "02", "10", "11", "12", "20"])}
    assert "at most 6" in layout.check_entries(sc, "0202", {**{k: dict(v) for k, v in list(full.items())[:7]}})
    six = dict(list(full.items())[:6])
    assert layout.check_entries(sc, "0202", six) is None
    behind = {"P0": {"cell": "10", "f": "N", "o": "HD"}}
    assert "closest to it (K-GM-2)" in layout.check_entries(sc, "0202", behind)
    crossed = {"P0": {"cell": "00", "f": "E", "o": "HD"}, "P1": {"cell": "10", "f": "N", "o": "HD"}}
    assert "closest to it (K-GM-2)" in layout.check_entries(sc, "0202", crossed)
    assert layout.check_entries(sc, "0202", {"P0": {"cell": "00", "f": "N", "o": "HD"},
                                              "P1": {"cell": "10", "f": "N", "o": "HD"}}) is None
    assert layout.check_entries(sc, "0202", {"P0": {"cell": "00", "f": "N", "o": "HD"},
                                              "P0b": {"cell": "00", "f": "W", "o": "HD"}}).endswith("(K-GM-3)")


def test_battle_groups_edge_contact_one_chit_doctrine_and_three_a_square():
    """K-GM-5, K-GM-6 (grouping is not automatic), K-BG-1, K-BG-2, K-DOC-1, K-DOC-2, K-LST-3."""
    units = [U("B1", "blue", "tank-1", "0202", "00", "N", group="a"), U("B2", "blue", "tank-1", "0202", "01", "N", group="a"),
             U("BA", "blue", "arty", "0303", "00", "N", level="bn-bde"),
             U("BM", "blue", "mortar", "0303", "01", "N", level="battery"),
             U("R1", "red", "tr1-recce", "0505", "00", "S"), U("R2", "red", "tr1-tank", "0505", "01", "S"),
             U("RA", "red", "tr1-aa", "0404", "00", "S"), U("RT", "red", "tr1-tank", "0404", "01", "S")]
    sc, rules = make(units)
    board = st.Board(sc, rules)
    assert layout.check_square(sc, board, "0202") is None
    rules["pieces"]["B2"]["o"] = "HA"
    assert "one order chit" in layout.check_square(sc, board, "0202")
    rules["pieces"]["B2"].update(o="HD", cell="02")
    assert "edge contact" in layout.check_square(sc, board, "0202")
    assert layout.can_group(sc, "BA", "BM")              # NATO field artillery with artillery
    assert not layout.can_group(sc, "BA", "B1")          # ... only with artillery (K-DOC-1)
    assert not layout.can_group(sc, "R1", "R2")          # Soviet recce only with recce (K-DOC-2)
    assert not layout.can_group(sc, "RA", "RT")          # AA never with others
    # three groups of two fill a square: with six units at most, a fourth group cannot form (K-GM-5)
    six = [U(f"T{i}", "blue", "tank-1", "0101", c, "N", group=f"g{i // 2}")
           for i, c in enumerate(["00", "10", "01", "11", "02", "12"])]
    sc6, rules6 = make(six)
    assert layout.check_square(sc6, st.Board(sc6, rules6), "0101") is None
    assert len({r["g"] for r in rules6["pieces"].values()}) == 3


def test_incoming_fire_priorities_of_the_cover_picture():
    """K-BAS-3, K-GM-10, K-DF-3: the cover picture's square (facing north: two T-64s in front,
    BMPs behind, the mortar company at the rear). Fire from ahead or the front diagonals takes
    the front rank; from the right flank the right-flank BMP; from behind the mortar, a rear
    shot."""
    units = [U("T1", "red", "tr1-tank", "0202", "00", "N", "HA", group="g"),
             U("T2", "red", "tr1-tank", "0202", "01", "N", "HA", group="g"),
             U("B1", "red", "tr1-rifle", "0202", "10", "N", "HA", group="g", carrier="tr1-bmp", mounted=True),
             U("B2", "red", "tr1-rifle", "0202", "11", "N", "HA", group="g", carrier="tr1-bmp", mounted=True),
             U("B3", "red", "tr1-rifle", "0202", "12", "E", "HA", carrier="tr1-bmp", mounted=True),
             U("M", "red", "tr1-mortar", "0202", "21", "N", "HA", group="g", level="battery")]
    sc, rules = make(units, position=POS_MOVE)
    board = st.Board(sc, rules)
    assert layout.fire_targets(sc, board, "0202", "0203", "red") == (["T1", "T2"], "front")   # B
    assert layout.fire_targets(sc, board, "0202", "0103", "red") == (["T1", "T2"], "front")   # A
    assert layout.fire_targets(sc, board, "0202", "0303", "red")[0] == ["B3", "T1", "T2"]       # C: B3 faces east
    assert layout.fire_targets(sc, board, "0202", "0302", "red") == (["B3"], "front")
    rules["pieces"]["B3"]["f"] = "N"
    rules["pieces"]["B3"]["cell"] = "02"
    assert layout.fire_targets(sc, board, "0202", "0302", "red") == (["B3"], "flank")        # the black arrow
    assert layout.fire_targets(sc, board, "0202", "0201", "red") == (["M"], "rear")          # the white arrow
    assert layout.fire_targets(sc, board, "0202", "0201", "red", skip={"M"}) == (["B1", "B2"], "rear")


# --- Command Phase (K-INI, K-ORD, K-CMD, K-CMK, K-REC-3) ---------------------------------------

def test_initiative_factors_and_the_re_roll_dropping_factors_cumulatively():
    """K-INI-1, K-INI-2: red (Inferior leader in command, majority Inferior) against blue
    (Average leader, Average troops; qualities K-TRP-6). Roll 1: blue 3, red 5-2 = 3, a draw; roll 2: red drops
    the leader's factor: blue 2, red 3-1 = 2; roll 3: red drops both: blue 4 beats red 3."""
    units = [U("B1", "blue", "tank-1", "0100", "00", "N"), U("R1", "red", "tr1-tank", "0505", "00", "S"),
             U("R2", "red", "tr1-tank", "0505", "01", "S")]
    sc, rules = make(units)
    board = st.Board(sc, rules)
    assert command.initiative_factors(sc, board, "red") == [("inferior_leader", -1), ("majority_inferior", -1)]
    assert command.initiative_factors(sc, board, "blue") == []
    ctx = Ctx([3, 5, 2, 3, 4, 3])
    assert command.roll_initiative(sc, rules, ctx) == "blue"
    scores = [(e["side"], e["score"]) for e in ctx.of("initiative-roll")]
    assert scores == [("blue", 3), ("red", 3), ("blue", 2), ("red", 2), ("blue", 4), ("red", 3)]
    assert [e["factors"] for e in ctx.of("initiative-roll") if e["side"] == "red"] == [
        {"inferior_leader": -1, "majority_inferior": -1}, {"majority_inferior": -1}, {}]
    assert rules["initiative"] == "blue" and len(ctx.of("initiative-tie")) == 2


def test_a_re_roll_drops_first_the_factor_against_its_side():
    """K-INI-2, as the acceptance list recommends: "each side drops its modifier of largest absolute
    value, owner's choice among equals", the choice made in the owner's favour. Blue, a Superior
    commander over Inferior troops (+1, -1), ties at 3 with red; its re-roll drops the -1 and keeps
    the +1: 3 + 1 = 4 beats red's 3 (1.15.0 dropped the leader's +1 first, as printed)."""
    armies = copy.deepcopy(ARMIES)
    next(r for r in armies["test-nato"]["rows"] if r["id"] == "hq")["quality"] = "S"
    units = [U("B1", "blue", "tank", "0100", "00", "N", quality="I"), U("B2", "blue", "tank", "0101", "00", "N", quality="I"),
             U("R1", "red", "tank", "0505", "00", "S")]
    sc, rules = make(units, armies=armies, columns=10, rows=10, commands=HQS, blue={"army": "test-nato"},
                     red={"army": "test-soviet"})
    assert command.initiative_factors(sc, st.Board(sc, rules), "blue") == [("majority_inferior", -1),
                                                                           ("superior_leader", 1)]
    ctx = Ctx([3, 3, 3, 3])
    assert command.roll_initiative(sc, rules, ctx) == "blue"
    assert [(e["side"], e["factors"], e["score"]) for e in ctx.of("initiative-roll")] == [
        ("blue", {"majority_inferior": -1, "superior_leader": 1}, 3), ("red", {}, 3),
        ("blue", {"superior_leader": 1}, 4), ("red", {}, 3)]


def test_superior_leader_and_troops_add_one_each():
    """K-INI-1: +1 for a Superior leader In Command, +1 for a majority of Superior troops."""
    units = [U("B1", "blue", "tank-1", "0100", "00", "N", quality="S"), U("R1", "red", "tr1-tank", "0505", "00", "S")]
    sc, rules = make(units, commands=[
        {"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "0000"},
        {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": "0505"}])
    board = st.Board(sc, rules)
    assert command.initiative_factors(sc, board, "blue") == [("majority_superior", 1)]
    rules["ooc"] = ["R-HQ"]     # an Inferior leader Out of Command loses his -1
    assert command.initiative_factors(sc, board, "red") == [("majority_inferior", -1)]


@pytest.mark.parametrize("current, legal", [
    ("PA", ["PA", "HA"]), ("HA", ["HA", "M", "HD"]), ("M", ["PA", "HA", "M", "HD"]),
    ("HD", ["M", "HD", "HD1"]), ("HD1", ["M", "HD1", "HD2"]), ("HD3", ["M", "HD3", "PD"]),
    ("PD", ["HD", "HD1", "HD2", "HD3", "PD"]), ("FA", ["FA", "PA"]), ("FD", ["HD", "HD1", "HD2", "HD3", "FD"]),
])
def test_voluntary_chit_changes_down_a_line_up_a_block(current, legal):
    """K-ORD-2 (down one line, M not counted; up one block to any order in it), K-ORD-4 (the
    same chit as a bluff), K-ORD-7 (never to FA or FD); blocks as read in K-ORD-1."""
    sc, _ = make([U("B1", "blue", "tank-1", "0100", "00", "N")])
    assert command.voluntary_targets(sc, current) == legal


def test_chit_change_test_three_or_more_with_its_modifiers():
    """K-ORD-3: D6 of 3 or more; majority Superior +1, Inferior -1, Out of Command -1, to PA -1,
    counter attack -1."""
    units = [U("B1", "blue", "tank-1", "0100", "00", "N", quality="S"), U("R1", "red", "tr1-tank", "0505", "00", "S")]
    sc, rules = make(units)
    board = st.Board(sc, rules)
    assert command.change_modifiers(sc, board, ["B1"], "PA") == {"majority_superior": 1, "to_pa": -1}
    assert command.change_modifiers(sc, board, ["R1"], "HA", counter_attack=True) == {"majority_inferior": -1,
                                                                                      "counter_attack": -1}
    rules["ooc"] = ["B-HQ"]
    assert command.change_modifiers(sc, board, ["B1"], "HD") == {"majority_superior": 1, "out_of_command": -1}


def test_issued_chits_are_tested_after_both_sides_fixed_theirs():
    """K-ORD-3, K-ORD-4: the side without initiative's changes first; a success changes the
    chit, a failure keeps it, a bluff (the same chit) rolls and changes nothing."""
    units = [U("B1", "blue", "tank-1", "0100", "00", "N", "HD"), U("B2", "blue", "tank-1", "0101", "00", "N", "HD"),
             U("R1", "red", "tr1-tank", "0505", "00", "S", "HD")]
    sc, rules = make(units, position={"turn": 2, "ap": 0, "step": "orders", "initiative": "red"})
    assert flow.next_step(sc, rules).side == "blue"
    rules["plans"]["chits"] = {"blue": [{"units": ["B1"], "order": "HD1"}, {"units": ["B2"], "order": "HD"}],
                               "red": [{"units": ["R1"], "order": "M"}]}
    ctx = Ctx([3, 6, 3])
    command.resolve_chits(sc, rules, ctx)
    assert [(e["units"], e["score"], e["success"], e["order"]) for e in ctx.of("chit-change")] == [
        (["B1"], 3, True, "HD1"), (["B2"], 6, True, "HD"), (["R1"], 2, False, "HD")]
    assert "bluff" in ctx.of("chit-change")[1]["text"]
    assert [rules["pieces"][u]["o"] for u in ("B1", "B2", "R1")] == ["HD1", "HD", "HD"]


def test_chit_orders_name_a_whole_group_once_with_a_legal_change():
    """K-ORD-1: one chit per group or lone unit; K-ORD-2 legality."""
    units = [U("B1", "blue", "tank-1", "0100", "00", "N", group="a"), U("B2", "blue", "tank-1", "0100", "01", "N", group="a")]
    sc, rules = make(units, position={"turn": 2, "ap": 0, "step": "orders", "initiative": "red"})
    with pytest.raises(IllegalOrder, match="carries one order chit"):
        command.check_chit(sc, rules, "blue", {"type": "chit", "units": ["B1"], "order": "HD1"})
    with pytest.raises(IllegalOrder, match="K-ORD|may be given"):
        command.check_chit(sc, rules, "blue", {"type": "chit", "units": ["B1", "B2"], "order": "PD"})
    assert command.check_chit(sc, rules, "blue", {"type": "chit", "units": ["B1", "B2"], "order": "HD1"}) == ["B1", "B2"]
    rules["plans"]["chits"] = {"blue": [{"units": ["B1", "B2"], "order": "HD1"}]}
    with pytest.raises(IllegalOrder, match="already has its chit"):
        command.check_chit(sc, rules, "blue", {"type": "chit", "units": ["B1", "B2"], "order": "M"})


def test_first_turn_chits_are_set_freely_except_fa_and_fd():
    """K-ORD-1 reading: the first Issuing Orders is the deployment: any chit but FA and FD, no test."""
    units = [U("B1", "blue", "tank-1", "0100", "00", "N", "HD")]
    sc, rules = make(units)
    rules["turn"] = 1
    assert command.check_chit(sc, rules, "blue", {"type": "chit", "units": ["B1"], "order": "PA"}) == ["B1"]
    with pytest.raises(IllegalOrder):
        command.check_chit(sc, rules, "blue", {"type": "chit", "units": ["B1"], "order": "FA"})


def test_ew_attack_two_to_four_and_with_the_ew_unit_two_to_six():
    """K-CMD-3, K-CMD-5, K-CMD-6, K-SFX-1: 2D6 per marker, most senior first."""
    units = [U("R1", "red", "tr1-tank", "0505", "00", "S")]
    commands = [{"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "0000"},
                {"id": "B-BN", "side": "blue", "row": "pz-hq-1", "level": "battalion", "superior": "B-HQ", "square": "0101"},
                {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": "0505"}]
    sc, rules = make(units, commands=commands, formations={"b": {"hq": "B-HQ"}, "r": {"hq": "R-HQ"}},
                     red={"specials": {"ew": 1}})
    ctx = Ctx([2, 3, 4, 1])
    command.ew_attack(sc, rules, "red", False, ctx)
    assert [(e["hq"], e["dice"], e["success"]) for e in ctx.of("ew")] == [("B-HQ", [2, 3], False), ("B-BN", [4, 1], False)]
    ctx = Ctx([2, 3, 4, 1])
    rules["ooc"] = []
    command.ew_attack(sc, rules, "red", True, ctx)
    assert rules["ooc"] == ["B-BN", "B-HQ"] and rules["used"]["red"]["ew"] == 1
    ctx = Ctx([1, 2, 1, 3])
    rules["ooc"] = []
    command.ew_attack(sc, rules, "red", False, ctx)
    assert rules["ooc"] == ["B-BN", "B-HQ"]


def _command_table():
    commands = [{"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "0000"},
                {"id": "B-BN", "side": "blue", "row": "pz-hq-1", "level": "battalion", "superior": "B-HQ", "square": "0101"},
                {"id": "B-BN2", "side": "blue", "row": "pz-hq-2", "level": "battalion", "superior": "B-HQ", "square": "0101"},
                {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": "0909"},
                {"id": "R-RG", "side": "red", "row": "tr1-hq", "level": "regiment", "superior": "R-HQ", "square": "0505"},
                {"id": "R-BN", "side": "red", "row": "tr1-bn-hq", "level": "battalion", "superior": "R-RG", "square": "0509"}]
    formations = {"b": {"hq": "B-HQ"}, "bb": {"hq": "B-BN"}, "r": {"hq": "R-HQ"}, "rb": {"hq": "R-BN"}}
    units = [U("B1", "blue", "tank-1", "0505", "00", "N", formation="bb"),
             U("B2", "blue", "tank-1", "0606", "00", "N", formation="bb"),
             U("BR", "blue", "recce-1", "0909", "00", "N", formation="b"),
             U("R1", "red", "tr1-tank", "0510", "00", "S", formation="rb"),
             U("R2", "red", "tr1-tank", "0511", "00", "S", formation="rb")]
    return make(units, commands=commands, formations=formations, columns=12, rows=12)


def test_command_ranges_chain_and_one_marker_in_command_per_square():
    """K-CMD-2, K-CMK-7 (one In Command marker a square: the senior, reading; here two battalion
    markers: the lower id), K-CMD-7 (NATO battalion 4 squares), K-CMD-8 (Soviet regiment to
    battalion 4, battalion to units 1), K-CMD-9 (diagonals count one), K-CMD-10 (a broken chain,
    out of range = Out of Command), K-REC-3 (self-ordering)."""
    sc, rules = _command_table()
    board = st.Board(sc, rules)
    status = command.marker_status(sc, board)
    assert status == {"B-HQ": True, "B-BN": True, "B-BN2": False, "R-HQ": True, "R-RG": True, "R-BN": True}
    assert command.piece_in_command(sc, board, "B1")           # 4 squares diagonally from 0101
    assert not command.piece_in_command(sc, board, "B2")       # 5 squares
    assert command.piece_in_command(sc, board, "R1") and not command.piece_in_command(sc, board, "R2")
    rules["hqs"]["R-BN"]["sq"] = "0410"                        # 5 from the regiment: the chain breaks
    board = st.Board(sc, rules)
    assert not command.marker_status(sc, board)["R-BN"] and not command.piece_in_command(sc, board, "R1")
    rules["ooc"] = ["B-HQ"]                                    # an EW attack on the brigade
    board = st.Board(sc, rules)
    assert not command.piece_in_command(sc, board, "B1")
    assert command.piece_in_command(sc, board, "BR")           # self-ordering recce never Out of Command


def test_a_destroyed_marker_comes_back_on_the_fourth_turn_after():
    """K-CMD-11."""
    sc, rules = _command_table()
    rules["hqs"]["B-BN"] = {"lost": 2}
    rules["turn"] = 5
    assert command.replacements_due(sc, rules) == []
    rules["turn"] = 6
    assert command.replacements_due(sc, rules) == ["B-BN"]
    assert command.replace_default(sc, rules, "B-BN") == {"type": "replace", "hq": "B-BN", "square": "0505"}
    board = st.Board(sc, rules)
    assert not command.piece_in_command(sc, board, "B1")


# --- test army lists: every kind of unit the rules distinguish --------------------------------

def _rows(prefix: str, quality: str) -> list[dict]:
    rows = [
        {"id": "hq", "unit": "HQ", "type": "command", "mobility": "mechanised"},
        {"id": "bn", "unit": "Bn HQ", "type": "command", "mobility": "mechanised"},
        {"id": "tank", "unit": "Tank Coy", "type": "armour", "mobility": "mechanised", "gun": "M", "ir": True, "armour": "M"},
        {"id": "heavy", "unit": "Heavy Tank Coy", "type": "armour", "mobility": "mechanised", "gun": "H", "armour": "H"},
        {"id": "ia-tank", "unit": "IA Tank Coy", "type": "armour", "mobility": "mechanised", "gun": "M", "armour": "M", "ia": True},
        {"id": "light", "unit": "Light Tank Coy", "type": "armour", "mobility": "mechanised", "gun": "L", "armour": "L"},
        {"id": "recce", "unit": "Recce", "type": "armour", "mobility": "recce", "gun": "L", "armour": "L", "self_ordering": True},
        {"id": "jaguar", "unit": "ATGW Coy", "type": "atgw", "mobility": "mechanised", "gun": "H", "atgw": "H", "armour": "M"},
        {"id": "aifv", "unit": "AIFV Coy", "type": "armour", "mobility": "mechanised", "gun": "L", "armour": "L", "aifv": True},
        {"id": "apc", "unit": "APC Coy", "type": "armour", "mobility": "mechanised", "armour": "L"},
        {"id": "truck", "unit": "Trucks", "type": "transport", "mobility": "motorised"},
        {"id": "wheeled", "unit": "Wheeled APC", "type": "armour", "mobility": "motorised", "armour": "L"},
        {"id": "ri", "unit": "RI Coy", "type": "infantry", "mobility": "infantry", "infantry": "RI"},
        {"id": "gi", "unit": "GI Coy", "type": "infantry", "mobility": "infantry", "infantry": "GI"},
        {"id": "mi", "unit": "MI Coy", "type": "infantry", "mobility": "infantry", "infantry": "MI"},
        {"id": "sp", "unit": "SP battery", "type": "fd-arty", "sp": True, "mobility": "mechanised", "gun": "M", "range": 10, "armour": "L"},
        {"id": "sp-h", "unit": "Heavy SP battery", "type": "fd-arty", "sp": True, "mobility": "mechanised", "gun": "H", "armour": "L"},
        {"id": "towed", "unit": "Towed battery", "type": "fd-arty", "towed": True, "mobility": "motorised", "gun": "L"},
        {"id": "mortar", "unit": "Mortar Coy", "type": "fd-arty", "sp": True, "mortar": True, "mobility": "mechanised", "gun": "M", "range": 5, "armour": "L"},
        {"id": "rocket", "unit": "Rocket battery", "type": "fd-arty", "sp": True, "rocket": True, "mobility": "motorised", "missile": "H", "range": 20},
        {"id": "aa-gun", "unit": "AA gun Coy", "type": "aa-arty", "mobility": "mechanised", "gun": "L", "range": 3, "armour": "L"},
        {"id": "aa-sam", "unit": "SAM Coy", "type": "aa-arty", "mobility": "mechanised", "missile": "M", "range": 6, "armour": "L"},
    ]
    return [dict(r, quality=r.get("quality", quality), cost=1) for r in rows]


ARMIES = {"test-nato": {"title": "test NATO units", "doctrine": "nato", "rows": _rows("n", "A")},
          "test-soviet": {"title": "test Soviet units", "doctrine": "soviet", "rows": _rows("s", "A")}}
HQS = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "brigade", "square": "0000"},
       {"id": "R-HQ", "side": "red", "row": "hq", "level": "division", "square": "0909"}]


def table(units, columns=10, rows=10, **spec):
    """A 10 x 10 open table with the test lists: blue NATO, red Soviet, both brigade/division HQs
    (unlimited range, so every unit is In Command)."""
    spec.setdefault("commands", HQS)
    spec["blue"] = {"army": "test-nato", **spec.get("blue", {})}
    spec["red"] = {"army": "test-soviet", **spec.get("red", {})}
    return make(units, armies=ARMIES, columns=columns, rows=rows, **spec)


POS_FIRE = {"turn": 1, "ap": 2, "step": "fire", "initiative": "red"}


def settle(sc, rules, ctx, step=None) -> None:
    """Answers every unit giving ground that waits for its place with the default standing
    order, the front-most legal place (K-GG-5), and runs `step` (a resolution that returns
    False while one waits) again until it is done."""
    from pbem.rulesets.kkoh import giveground

    while True:
        while giveground.waiting(rules):
            giveground.answer(sc, rules, giveground.legal_places(rules)[0], ctx)
        if step is None or step():
            return


def shot(sc, rules, side, unit, target):
    from pbem.rulesets.kkoh import fire

    return fire.check_fire(sc, rules, side, {"type": "fire", "unit": unit, "target": target})


# --- Direct Fire (K-DF, K-GM-8/9, K-INT-3, K-TNK-2) ---------------------------------------------

def test_direct_fire_modifiers_each_as_printed():
    """K-DF-6 (the reading of L75/L77), K-TNK-1 (gun and target classes), K-TNK-2, K-INF-1, K-TER-11,
    K-GM-11 (Vulnerable: an unarmoured vehicle)."""
    from pbem.rulesets.kkoh import fire

    units = [U("B1", "blue", "tank", "0202", "01", "N", "HD"), U("B2", "blue", "jaguar", "0302", "01", "N", "HD"),
             U("B3", "blue", "light", "0502", "01", "N", "M"),
             U("R1", "red", "heavy", "0203", "21", "S", "M", losses=1), U("R2", "red", "ia-tank", "0304", "21", "S", "PD"),
             U("R3", "red", "ri", "0503", "21", "S", "FD"), U("R4", "red", "truck", "0603", "21", "S", "HA")]
    sc, rules = table(units, area={"0503": "woods"}, position=POS_FIRE)
    board = st.Board(sc, rules)
    m = lambda s: fire.modifiers(sc, board, s)  # noqa: E731
    # Leopard-like (M gun, IR) at a heavy tank on M orders, from a firer on HD
    assert m(shot(sc, rules, "blue", "B1", "R1")) == {"class": -1, "firer_ir": 1, "target_m": 1}
    # the damaged heavy tank on M fires back at the M/IR tank: losses -1, one class above +1, firer on M -1
    assert m(shot(sc, rules, "red", "R1", "B1")) == {"firer_losses": -1, "class": 1, "firer_m": -1}
    # a typo in a fire order's unit or target is answered with the id meant (a new user's probe)
    for unit, target, said in (("B1", "R-1", "fire: 'R-1' is not an enemy unit on the table (did you mean R1?)"),
                               ("b1", "R1", "fire: 'b1' is not a unit of blue on the table (did you mean B1?)")):
        with pytest.raises(IllegalOrder) as refused:
            shot(sc, rules, "blue", unit, target)
        assert refused.value.message == said
    # heavy ATGW at two squares: -1; the target has IA -1 and is on PD -1
    assert m(shot(sc, rules, "blue", "B2", "R2")) == {"heavy_atgw_long_range": -1, "class": 1, "target_ia": -1,
                                                      "target_pd_or_cover": -1}
    # infantry counts as a Medium target; on FD -2, not also -1 for the woods; firer on M -1
    assert m(shot(sc, rules, "blue", "B3", "R3")) == {"class": -1, "firer_m": -1, "target_fd": -2}
    rules["pieces"]["R3"]["o"] = "HD"
    assert m(shot(sc, rules, "blue", "B3", "R3")) == {"class": -1, "firer_m": -1, "target_pd_or_cover": -1}
    rules["pieces"]["B3"]["sq"] = "0602"
    assert m(shot(sc, rules, "blue", "B3", "R4")) == {"firer_m": -1, "vulnerable": 2}


def test_every_direct_fire_modifier_has_the_tables_words_for_the_report():
    from pbem.rulesets.kkoh import fire

    from tests.test_kkoh_data import TABLES

    printed = set(TABLES["direct_fire"]["modifiers"]) - {"per_class_above", "per_class_below"}
    assert set(fire.MODIFIER_WORDS) == printed | {"class"}


def test_a_rear_shot_adds_one_and_vulnerable_targets_do_not_add_it_again():
    """K-DF-6: rear +1; vulnerable +2 not added to the rear +1 (the reading of 'the above factor')."""
    from pbem.rulesets.kkoh import fire

    units = [U("B1", "blue", "tank", "0202", "01", "N"), U("B2", "blue", "tank", "0402", "01", "N"),
             U("R1", "red", "tank", "0203", "01", "N"), U("R2", "red", "truck", "0403", "01", "N")]
    sc, rules = table(units, position=POS_FIRE)
    board = st.Board(sc, rules)
    assert fire.modifiers(sc, board, shot(sc, rules, "blue", "B1", "R1")) == {"firer_ir": 1, "rear": 1}
    assert fire.modifiers(sc, board, shot(sc, rules, "blue", "B2", "R2")) == {"class": 1, "firer_ir": 1, "vulnerable": 2}


def test_a_shot_two_squares_out_and_one_aside_through_the_face_behind_is_a_rear_shot():
    """K-DF-6 rear +1, K-GM-11: a heavy ATGW's shot from two squares away enters by its main
    direction; into the face behind the target it picks the target as a rear shot and adds the
    +1, as the straight shot does."""
    from pbem.rulesets.kkoh import fire

    for target_square in ("0602", "0502"):     # one to the side, and straight ahead
        units = [U("BJ", "blue", "jaguar", "0504", "21", "S", "HA"), U("R1", "red", "tank", target_square, "21", "S", "HA")]
        sc, rules = table(units, position=POS_FIRE)
        board = st.Board(sc, rules)
        assert layout.fire_targets(sc, board, target_square, "0504", "red") == (["R1"], "rear")
        assert fire.modifiers(sc, board, shot(sc, rules, "blue", "BJ", "R1")) == {
            "heavy_atgw_long_range": -1, "class": 1, "rear": 1}, target_square


def test_fire_results_exactly():
    """K-DF-5, K-DF-7, K-DF-9, K-TRP-2 (two strength points: a loss marked, the second
    destroys), K-GG-7: three shots at three targets, then the results."""
    from pbem.rulesets.kkoh import fire

    units = [U("B1", "blue", "tank", "0202", "00", "N", "HD"), U("B2", "blue", "tank", "0202", "01", "N", "HD"),
             U("B3", "blue", "tank", "0202", "02", "N", "HD"),
             U("R1", "red", "tank", "0203", "20", "S", "HD2", losses=1), U("R2", "red", "tank", "0203", "21", "S", "HD1"),
             U("R3", "red", "tank", "0203", "22", "S", "HD")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "red", {"type": "fire", "unit": "R1", "target": "B2"})
    for unit, target in (("B1", "R1"), ("B2", "R2"), ("B3", "R3")):
        fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": unit, "target": target})
    ctx = Ctx([5, 4, 3, 1])       # the side without initiative (blue) first; each +1 for IR
    fire.resolve(sc, rules, ctx)
    scores = {(e["unit"], e["target"]): (e["score"], e["effect"]) for e in ctx.of("fire")}
    assert scores == {("B1", "R1"): (6, "loss"), ("B2", "R2"): (5, "give-ground"), ("B3", "R3"): (4, "none"),
                      ("R1", "B2"): (1, "none")}        # R1 has losses -1, IR +1
    assert [e["unit"] for e in ctx.of("fire")][:3] == ["B1", "B2", "B3"]   # blue (without initiative) first
    settle(sc, rules, ctx, lambda: fire.apply_results(sc, rules, ctx))
    assert "R1" in rules["gone"]                                   # its second loss (K-DF-9)
    assert rules["pieces"]["R2"]["sq"] == "0204" and rules["pieces"]["R2"]["o"] == "HD"   # K-GG-7: HD1 becomes HD
    assert rules["pieces"]["R3"]["sq"] == "0203"


def test_fire_is_spread_evenly_one_shot_a_diagonal_and_one_second_rank_shooter():
    """K-DF-5 (evenly), K-GM-8 and K-BAS-2 (one unit per front diagonal per edge), K-GM-9 (one
    second-rank unit of a group per edge), K-DF-3 and K-BG-3 (a unit outside a group: only from
    the front rank)."""
    units = [U("B1", "blue", "tank", "0202", "00", "N", group="a"), U("B2", "blue", "tank", "0202", "01", "N", group="a"),
             U("B3", "blue", "tank", "0202", "10", "N", group="a"), U("B4", "blue", "tank", "0202", "11", "N", group="a"),
             U("B5", "blue", "tank", "0202", "12", "N"), U("B6", "blue", "tank", "0202", "02", "N"),
             U("R1", "red", "tank", "0203", "20", "S"), U("R2", "red", "tank", "0203", "21", "S"),
             U("R3", "red", "tank", "0103", "21", "S"), U("R4", "red", "tank", "0303", "21", "S")]
    sc, rules = table(units, position=POS_FIRE)
    from pbem.rulesets.kkoh import fire

    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
    # K-DF-5 is judged over the whole plan (1.12.0): R1 twice and R2 not at all is uneven, and not offered
    uneven = fire.uneven(sc, st.Board(sc, rules), fire.plan(rules, "blue") + [shot(sc, rules, "blue", "B2", "R1")])
    assert (uneven["over"], uneven["left"]) == ("R1", "R2")
    assert {"type": "fire", "unit": "B2", "target": "R1"} not in fire.options(sc, rules, "blue")
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B2", "target": "R3"})     # a front diagonal
    with pytest.raises(IllegalOrder, match="each front diagonal"):
        shot(sc, rules, "blue", "B6", "R3")
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B6", "target": "R4"})     # the other diagonal
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B3", "target": "R2"})     # a second-rank unit of the group
    with pytest.raises(IllegalOrder, match="one second-rank unit only"):
        shot(sc, rules, "blue", "B4", "R2")
    with pytest.raises(IllegalOrder, match="front rank"):
        shot(sc, rules, "blue", "B5", "R2")                                               # not in a group


def test_range_arc_and_lines_of_fire():
    """K-DF-1 (one square; heavy ATGW two, a block of six), K-DF-2 (a diagonal shot between two
    occupied corners; beyond area terrain), K-ART-3, K-INT-3 (open terrain doubles)."""
    units = [U("B1", "blue", "jaguar", "0202", "01", "N"), U("B2", "blue", "tank", "0502", "01", "N"),
             U("R1", "red", "tank", "0304", "21", "S"), U("R2", "red", "tank", "0504", "21", "S"),
             U("R3", "red", "tank", "0603", "21", "S"), U("R4", "red", "tank", "0503", "01", "S"),
             U("X1", "blue", "tank", "0702", "01", "N")]
    sc, rules = table(units, position=POS_FIRE)
    assert shot(sc, rules, "blue", "B1", "R1")["ahead"] == 2          # two ahead, one aside: in the block
    with pytest.raises(IllegalOrder, match="arc of fire"):
        shot(sc, rules, "blue", "B2", "R2")                            # a tank reaches one square
    sc2, rules2 = table(units, position=POS_FIRE, open_terrain=True)
    assert shot(sc2, rules2, "blue", "B2", "R2")["ahead"] == 2         # doubled in open terrain
    sc3, rules3 = table(units, position=POS_FIRE, area={"0203": "woods"})
    with pytest.raises(IllegalOrder, match="blocks the line of sight"):
        shot(sc3, rules3, "blue", "B1", "R1")
    # B2 at 0502 fires diagonally at R3 in 0603: the corner squares 0503 (red) and 0602 are not both occupied
    assert shot(sc, rules, "blue", "B2", "R3")["right"] == 1
    units[-1] = U("X1", "blue", "tank", "0602", "01", "N")
    sc4, rules4 = table(units, position=POS_FIRE)
    with pytest.raises(IllegalOrder, match="between the corners"):
        shot(sc4, rules4, "blue", "B2", "R3")


def test_who_may_not_fire():
    """K-DF-4 (mortars not at vehicles), K-ART-7 (limbered guns do not fire), K-INF-1 (infantry
    without ATGW does not fire), K-ART-4 (missile-armed AA does not fire at the ground), K-ART-5
    (field artillery over open sights at infantry)."""
    units = [U("B1", "blue", "mortar", "0202", "01", "N", level="battery"), U("B2", "blue", "towed", "0302", "01", "N",
             level="battery", limbered=True), U("B3", "blue", "ri", "0402", "01", "N"), U("B4", "blue", "aa-sam", "0502", "01", "N"),
             U("B5", "blue", "aa-gun", "0602", "01", "N"),
             U("R1", "red", "tank", "0203", "21", "S"), U("R2", "red", "ri", "0303", "21", "S"),
             U("R3", "red", "tank", "0403", "21", "S"), U("R4", "red", "tank", "0503", "21", "S"),
             U("R5", "red", "tank", "0603", "21", "S")]
    sc, rules = table(units, position=POS_FIRE)
    with pytest.raises(IllegalOrder, match="mortars not at vehicles"):
        shot(sc, rules, "blue", "B1", "R1")
    with pytest.raises(IllegalOrder, match="no Direct Fire weapon"):
        shot(sc, rules, "blue", "B2", "R2")
    with pytest.raises(IllegalOrder, match="no Direct Fire weapon"):
        shot(sc, rules, "blue", "B3", "R3")
    with pytest.raises(IllegalOrder, match="no Direct Fire weapon"):
        shot(sc, rules, "blue", "B4", "R4")
    assert shot(sc, rules, "blue", "B5", "R5")["target"] == "R5"     # a gun-armed AA unit may (K-ART-4)
    rules["pieces"]["B2"]["mode"] = "deployed"
    assert shot(sc, rules, "blue", "B2", "R2")["target"] == "R2"



# --- Giving Ground (K-GG) ------------------------------------------------------------------------

def _gg(units, unit, source, dice=(), fire=True, removed=(), **spec):
    """`unit` gives ground from `source`, on a table of `units` less the `removed` ones."""
    from pbem.rulesets.kkoh import giveground

    sc, rules = table(units, position=POS_FIRE, **spec)
    board = st.Board(sc, rules)
    for p in removed:
        board.remove(p)
    ctx = Ctx(dice)
    giveground.give_ground(sc, board, [unit], source, ctx, "t", fire=fire)
    settle(sc, rules, ctx)
    return sc, rules, ctx


def test_give_ground_directly_away_keeping_facing_and_alone():
    """K-GG-2 (1), K-GG-4 (under fire alone: it leaves its group), K-GG-5 (facing kept), K-GG-9."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", group="a"), U("B2", "blue", "tank", "0505", "00", "N", group="a"),
             U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules, ctx = _gg(units, "B1", "0506")
    assert rules["pieces"]["B1"]["sq"] == "0504" and rules["pieces"]["B1"]["f"] == "N"
    assert "g" not in rules["pieces"]["B1"] and "g" not in rules["pieces"]["B2"]
    assert "B1" in rules["ps"]["gg"] and "B1" in rules["ps"]["moved"]


def test_give_ground_from_a_diagonal_shot_is_diagonal_if_legal():
    """K-GG-2: under Direct Fire "directly away" may be a diagonal move, if otherwise legal; past
    an enemy-held corner it is not, and the next priority (diagonally away) applies."""
    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0606", "21", "S")]
    sc, rules, ctx = _gg(units, "B1", "0606")
    assert rules["pieces"]["B1"]["sq"] == "0404"
    units.append(U("R2", "red", "tank", "0405", "21", "S"))
    sc, rules, ctx = _gg(units, "B1", "0606")
    assert rules["pieces"]["B1"]["sq"] == "0504" and not ctx.of("give-ground-choice")


def test_give_ground_priorities_diagonal_then_flank_a_die_choosing():
    """K-GG-2 (2) diagonally away, (3) to a flank; K-GG-3 (a die picks among equals)."""
    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0506", "21", "S"),
             U("R2", "red", "tank", "0504", "21", "S")]
    sc, rules, ctx = _gg(units, "B1", "0506", dice=[4])
    # directly away (0504) is enemy-held; diagonally away 0404 and 0604: the die (4 of 1-6 among two) picks 0604
    assert ctx.of("give-ground-choice")[0]["options"] == ["0404", "0604"]
    assert rules["pieces"]["B1"]["sq"] == "0604"
    units += [U("R3", "red", "tank", "0404", "21", "S"), U("R4", "red", "tank", "0604", "21", "S")]
    sc, rules, ctx = _gg(units, "B1", "0506", dice=[1])
    assert ctx.of("give-ground-choice")[0]["options"] == ["0405", "0605"] and rules["pieces"]["B1"]["sq"] == "0405"


def test_give_ground_impossible_destroys_the_unit_even_at_the_table_edge():
    """K-GG-10."""
    units = [U("B1", "blue", "tank", "0500", "01", "N"), U("R1", "red", "tank", "0501", "21", "S"),
             U("R2", "red", "tank", "0400", "21", "S"), U("R3", "red", "tank", "0600", "21", "S")]
    sc, rules, ctx = _gg(units, "B1", "0501")
    assert "B1" in rules["gone"] and ctx.of("destroyed")[0]["rule"] == "K-GG-10"


def test_give_ground_over_a_full_square_goes_on_the_same_way():
    """K-GG-8: over-full (six units there): it Gives Ground again, the same way."""
    six = [U(f"B{i}", "blue", "tank", "0504", c, "N") for i, c in enumerate(["00", "01", "02", "10", "11", "12"])]
    units = six + [U("BX", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules, ctx = _gg(units, "BX", "0506")
    assert rules["pieces"]["BX"]["sq"] == "0503" and ctx.of("give-ground")[0]["path"] == ["0504", "0503"]


def test_give_ground_displaces_enemy_markers():
    """K-GG-2: markers hold no square; one where a unit lands is displaced, and the report says
    so, after the Give Ground that displaced it."""
    commands = HQS + [{"id": "R-BN", "side": "red", "row": "bn", "level": "battalion", "superior": "R-HQ", "square": "0504"}]
    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0506", "21", "S"),
             U("R2", "red", "tank", "0708", "21", "S")]
    sc, rules, ctx = _gg(units, "B1", "0506", commands=commands)
    assert rules["pieces"]["B1"]["sq"] == "0504" and rules["hqs"]["R-BN"] == {"sq": "0506"}
    shown = [e for e in ctx.events if e["type"] in ("give-ground", "hq-displaced")]
    assert [e["type"] for e in shown] == ["give-ground", "hq-displaced"]
    assert (shown[1]["hq"], shown[1]["origin"], shown[1]["to"], shown[1]["side"], shown[1]["rule"]) == (
        "R-BN", "0504", "0506", "red", "K-GG-2")
    assert shown[1]["text"] == ("R-BN holds no square and is displaced from 0504, where B1 gives ground, to 0506, the "
                                "nearest square held by red's units (K-GG-2, K-CMK-4).")


def test_give_ground_destroys_an_enemy_marker_with_nowhere_to_go():
    """K-GG-2 reading, K-CMK-4: with no unit of its side left on the table, a marker where a unit
    gives ground is destroyed, and the report says so after the Give Ground."""
    commands = HQS + [{"id": "R-BN", "side": "red", "row": "bn", "level": "battalion", "superior": "R-HQ", "square": "0504"}]
    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules, ctx = _gg(units, "B1", "0506", removed=["R1"], commands=commands)
    assert rules["pieces"]["B1"]["sq"] == "0504" and rules["hqs"]["R-BN"] == {"lost": 1}
    shown = [e for e in ctx.events if e["type"] in ("give-ground", "hq-destroyed", "hq-displaced")]
    assert [e["type"] for e in shown] == ["give-ground", "hq-destroyed"]
    assert (shown[1]["hq"], shown[1]["side"], shown[1]["origin"], shown[1]["rule"]) == ("R-BN", "red", "0504", "K-GG-2")
    assert shown[1]["text"] == ("R-BN holds no square and must leave 0504, where B1 gives ground, but no unit of red is "
                                "left on the table: it is destroyed (K-GG-2, K-CMK-4).")


def test_recce_alone_may_evade_all_fire_and_loses_its_shot():
    """K-REC-2: a lone specialist recce unit not on HD or lower, that has not fired, may Give
    Ground before the dice; every shot at it is spent; K-GG-1."""
    from pbem.rulesets.kkoh import fire

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HD"), U("B2", "blue", "tank", "0405", "01", "N", "HD"),
             U("R1", "red", "recce", "0506", "21", "S", "M")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B2", "target": "R1"})
    assert fire.evaders(sc, rules) == ["R1"]
    ctx = Ctx()
    fire.evade(sc, rules, "R1", True, ctx)
    settle(sc, rules, ctx)
    assert rules["pieces"]["R1"]["sq"] == "0507" and "R1" in rules["ps"]["evaded"]
    fire.resolve(sc, rules, ctx)
    assert len(ctx.of("fire-spent")) == 2 and not ctx.of("fire")
    rules["pieces"]["R1"]["o"] = "HD"
    assert fire.evaders(sc, rules) == []


def test_soviet_doctrine_turns_give_ground_into_a_loss():
    """K-DOC-3: a Soviet-style unit that must Give Ground from Direct Fire may take a loss instead."""
    from pbem.rulesets.kkoh import fire

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HD"), U("R1", "red", "tank", "0506", "21", "S", "HD")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
    ctx = Ctx([4])                           # 4 + IR 1 = 5: Give Ground
    fire.resolve(sc, rules, ctx)
    assert fire.soviet_choices(sc, rules) == ["R1"]
    fire.hold(sc, rules, "R1", True, ctx)
    settle(sc, rules, ctx, lambda: fire.apply_results(sc, rules, ctx))
    assert rules["pieces"]["R1"] == {"sq": "0506", "cell": "21", "f": "S", "o": "HD", "hits": 1}
    assert ctx.of("soviet-hold")[0]["rule"] == "K-DOC-3"


def test_the_soviet_hold_decision_says_when_standing_destroys_the_unit():
    """K-DOC-3, K-TRP-2: the owner is asked whether the unit takes a loss instead of giving
    ground; where the fire's result leaves it one strength point (a 6 or more on a fresh unit,
    or a 5 on a unit already hit), the question says that standing destroys it."""
    from pbem.rulesets.kkoh import fire

    for die, hits, destroys in ((4, 0, False), (5, 0, True), (4, 1, True), (5, 1, None)):   # + IR 1: 5, 6, 5, 6
        units = [U("B1", "blue", "tank", "0505", "01", "N", "HD"), U("R1", "red", "tank", "0506", "21", "S", "HD")]
        sc, rules = table(units, position=POS_FIRE)
        if hits:
            rules["pieces"]["R1"]["hits"] = hits
        fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
        fire.resolve(sc, rules, Ctx([die]))
        if destroys is None:                    # already hit, a loss and Give Ground: the fire destroys it
            assert fire.soviet_choices(sc, rules) == []
            continue
        assert fire.soviet_choices(sc, rules) == ["R1"]
        rules["step"] = "hold"
        prompt = flow.next_step(sc, rules).prompt
        assert "R1 must give ground: take a loss instead (K-DOC-3)?" in prompt, prompt
        assert prompt.endswith("? After this fire it has 1 strength point left, so standing destroys it (K-TRP-2).") \
            is destroys, (die, hits, prompt)


# --- Movement (K-MOV, K-TER, K-INF, K-ART-7, K-CMK-2, K-ORD-5/8) -----------------------------------

POS_AP = lambda ap, mover="first": {"turn": 1, "ap": ap, "step": "move", "mover": mover, "initiative": "blue"}  # noqa: E731


def mv(sc, rules, units, to, facing, ap, side="blue", **extra):
    from pbem.rulesets.kkoh import movement

    ctx = Ctx()
    movement.move(sc, rules, side, {"type": "move", "units": units, "to": to, "facing": facing, **extra}, ctx, ap)
    return ctx


@pytest.mark.parametrize("row, order, mode, moves, leaves", [
    ("tank", "M", None, [1, 2, 3, 4], [1, 2, 3, 4]), ("tank", "HA", None, [2, 3, 4], [2, 3, 4]),
    ("recce", "HD1", None, [1, 2, 3, 4], []), ("recce", "HA", None, [1, 2, 3, 4], [1, 2, 3, 4]),
    ("wheeled", "M", None, [2, 3, 4], [2, 3, 4]), ("wheeled", "HA", None, [3, 4], [3, 4]),
    ("ri", "HA", None, [4], [4]), ("towed", "HA", "limbered", [3, 4], [3, 4]), ("towed", "HA", "deployed", [4], []),
])
def test_who_moves_in_which_action_phase(row, order, mode, moves, leaves):
    """K-MOV-4 (the reading of L85: phase 1 mechanised on M and recce (K-REC-1); 2 all mechanised and
    motorised on M; 3 motorised; 4 units on foot and deployed guns within their square),
    K-REC-4, K-ART-7 (limbered guns as motorised), K-ORD-5 (HD and lower only within the square)."""
    from pbem.rulesets.kkoh import movement

    extra = {"level": "battery"} if row == "towed" else {}
    if mode:
        extra["limbered"] = mode == "limbered"
    sc, rules = table([U("B1", "blue", row, "0505", "01", "N", order, **extra)], position=POS_AP(1))
    board = st.Board(sc, rules)
    assert [ap for ap in range(1, 5) if movement.may_move(sc, board, "B1", ap)] == moves
    assert [ap for ap in moves if not movement.in_square_only(sc, board, "B1")] == leaves


def test_mounted_infantry_on_pa_moves_from_phase_three():
    """K-MOV-4 reading: mounted infantry on PA orders moves no earlier than Action Phase 3."""
    from pbem.rulesets.kkoh import movement

    sc, rules = table([U("B1", "blue", "ri", "0505", "01", "N", "PA", carrier="aifv", mounted=True)], position=POS_AP(1))
    board = st.Board(sc, rules)
    assert [ap for ap in range(1, 5) if movement.may_move(sc, board, "B1", ap)] == [3, 4]


def test_one_square_a_phase_diagonals_not_past_an_enemy_corner():
    """K-MOV-8, K-MOV-2, K-GM-7, K-MOV-3 (re-facing within the square)."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("R1", "red", "tank", "0606", "21", "S"),
             U("R2", "red", "tank", "0706", "21", "S")]
    sc, rules = table(units, position=POS_AP(2))
    with pytest.raises(IllegalOrder, match="one square"):
        mv(sc, rules, ["B1"], "0507", "N", 2)
    rules["pieces"]["R1"]["sq"] = "0605"
    with pytest.raises(IllegalOrder, match="may not pass the corner"):
        mv(sc, rules, ["B1"], "0606", "N", 2)
    with pytest.raises(IllegalOrder, match="held by the enemy"):
        mv(sc, rules, ["B1"], "0605", "E", 2)
    ctx = mv(sc, rules, ["B1"], "0505", "E", 2)
    assert rules["pieces"]["B1"]["f"] == "E" and ctx.of("move")[0]["rule"] == "K-MOV-3"
    with pytest.raises(IllegalOrder, match="already moved"):
        mv(sc, rules, ["B1"], "0504", "S", 2)


def _full(prefix: str, square: str, row: str = "tank", order: str = "HA") -> list[dict]:
    """Six blue units filling `square`, facing north in the front two ranks."""
    return [U(f"{prefix}{i}", "blue", row, square, c, "N", order) for i, c in enumerate(["00", "01", "02", "10", "11", "12"])]


def test_two_full_squares_swap_units_overcrowding_resolved_by_the_end_of_the_phase():
    """K-MOV-5: friendly units pass through each other; a square may be over-full until the
    Action Phase ends, so two full squares may swap a unit each (refused before kkoh 1.6.0)."""
    sc, rules = table(_full("A", "0505") + _full("B", "0504") + [U("R1", "red", "tank", "0909", "21", "S", "HA")],
                      position=POS_AP(2))
    offered = RULESET.legal_orders(sc, rules, RULESET.next_step(sc, rules))
    moves = [o for o in offered if o["type"] == "move" and rules["pieces"][o["units"][0]]["sq"] != o["to"]]
    assert moves and not [o for o in moves if o["to"] in ("0504", "0505")]     # the options never over-fill
    order = lambda **o: RULESET.apply(sc, rules, RULESET.next_step(sc, rules), o, Ctx())  # noqa: E731
    order(type="move", units=["A3"], to="0504", facing="N")
    board = st.Board(sc, rules)
    assert len(board.at("0504")) == 7
    need = RULESET.next_step(sc, rules)
    assert {"type": "end"} not in RULESET.legal_orders(sc, rules, need)     # over-full: no end offered
    with pytest.raises(IllegalOrder, match=r"0504 holds 7 of blue's units.*K-MOV-5") as refused:
        RULESET.apply(sc, rules, need, {"type": "end"}, Ctx())
    assert refused.value.rule == "K-MOV-5"
    order(type="move", units=["B3"], to="0505", facing="N")
    board = st.Board(sc, rules)
    assert (len(board.at("0504")), len(board.at("0505"))) == (6, 6)
    ctx = Ctx()
    RULESET.apply(sc, rules, RULESET.next_step(sc, rules), {"type": "end"}, ctx)
    assert ctx.of("end") and rules["step"] != "move1"


def _crowd(extra: list[dict], ap: int = 2, **spec):
    """Five blue tanks dug in (HD) in 0504 with `extra`, a blue tank far off and a red tank in
    0503; and a function giving one order through the turn sequence, as a packet does."""
    dug_in = [U(f"H{i}", "blue", "tank", "0504", c, "N", "HD") for i, c in enumerate(["00", "01", "02", "10", "11"])]
    sc, rules = table(dug_in + extra + [U("C0", "blue", "tank", "0101", "01", "N", "HA"),
                                        U("R1", "red", "tank", "0503", "21", "S", "HA")], position=POS_AP(ap), **spec)
    return sc, rules, lambda **o: RULESET.apply(sc, rules, RULESET.next_step(sc, rules), o, Ctx())


def test_a_square_may_be_over_full_only_while_its_own_units_can_relieve_it():
    """K-MOV-5: a move over-fills a square only if units there can move out, now, into squares
    with room, until it holds six again: not if they are dug in (HD, K-ORD-5), not if every
    way out is closed, not on a unit whose chit is still sealed (K-ORD-6: it moves only once
    shown). The position stays as it was (the engine keeps the state of a refused step)."""
    sc, rules, order = _crowd([U("H5", "blue", "tank", "0504", "12", "N", "HD"), U("A0", "blue", "tank", "0505", "01", "N", "HA")])
    with pytest.raises(IllegalOrder, match=r"move: 0504 would hold 7 of blue's units, and pbem finds no moves of units out") as refused:
        order(type="move", units=["A0"], to="0504", facing="N")
    assert refused.value.rule == "K-MOV-5"
    closed = {s: "impassable" for s in ["0403", "0603", "0404", "0604", "0405", "0605"]}
    sc, rules, order = _crowd([U("F", "blue", "tank", "0504", "12", "N", "HA"), U("A0", "blue", "ri", "0505", "01", "N", "HA")],
                              4, area=closed, edges={"0504/0505": "river"})
    with pytest.raises(IllegalOrder, match=r"0504 would hold 7 of blue's units, and pbem finds no moves"):
        order(type="move", units=["A0"], to="0504", facing="N")     # F may move, but has nowhere to go
    sc, rules, order = _crowd([U("F", "blue", "tank", "0504", "12", "N", "HA"), U("A0", "blue", "tank", "0505", "01", "N", "HA")])
    rules["pieces"]["F"]["o"] = None                                 # F's chit still sealed
    kept = copy.deepcopy(rules)
    with pytest.raises(IllegalOrder, match=r"0504 would hold 7 of blue's units, and pbem finds no moves"):
        order(type="move", units=["A0"], to="0504", facing="N")
    rules.clear()
    rules.update(kept)
    rules["pieces"]["F"]["o"] = "HA"
    order(type="move", units=["A0"], to="0504", facing="N")         # shown, F may go: 7 for now
    assert len(st.Board(sc, rules).at("0504")) == 7 and movement.relief(sc, rules, "blue", 2) == [
        {"type": "move", "units": ["F"], "to": "0505", "facing": "N"}]


@pytest.mark.parametrize("takes_it_away", [
    {"type": "assault", "units": ["F"], "target": "0503"},           # F makes a Close Assault, stays put
    {"type": "dismount", "units": ["F"]},                             # on foot under HA, F moves only in phase 4
])
def test_an_order_that_takes_away_the_relief_of_an_over_full_square_is_refused(takes_it_away):
    """K-MOV-5: after every order of the movement step each over-full square must still be
    relievable; an order that leaves it over-full for good is refused, so no packet can leave
    the game with a movement step that cannot end."""
    f = (U("F", "blue", "ri", "0504", "12", "N", "HA", carrier="aifv", mounted=True) if takes_it_away["type"] == "dismount"
         else U("F", "blue", "tank", "0504", "12", "N", "HA"))
    sc, rules, order = _crowd([f, U("A0", "blue", "tank", "0505", "01", "N", "HA")])
    order(type="move", units=["A0"], to="0504", facing="N")
    offered = RULESET.legal_orders(sc, rules, RULESET.next_step(sc, rules))     # the legal orders leave it out
    assert takes_it_away not in offered and {"type": "move", "units": ["F"], "to": "0505", "facing": "N"} in offered
    assert {"type": "end"} not in offered
    kept = copy.deepcopy(rules)
    with pytest.raises(IllegalOrder, match=rf"{takes_it_away['type']}: 0504 would hold 7 of blue's units") as refused:
        order(**takes_it_away)
    assert refused.value.rule == "K-MOV-5"
    rules.clear()
    rules.update(kept)
    order(type="move", units=["F"], to="0505", facing="N")          # F leaves instead
    order(type="end")
    assert rules["step"] != "move1" and len(st.Board(sc, rules).at("0504")) == 6


def test_a_move_that_keeps_the_relief_only_if_the_minelets_destroy_the_mover_is_not_offered():
    """K-MOV-5, K-SFX-5: 0504 is over-full and F can relieve it only into 0505, the one way
    out. A tank entering 0505 through its minelets fills it, so the relief stays only if the
    minelets destroy that tank. Its acceptance hangs on the dice, so the legal orders leave it
    out (tried with the dice that destroy nothing); the relief itself is offered."""
    closed = {square: "impassable" for square in ["0403", "0603", "0404", "0604", "0405", "0605"]}
    dug_in = [U(f"H{i}", "blue", "tank", "0504", c, "N", "HD") for i, c in enumerate(["00", "01", "02", "10", "11"])]
    full = [U(f"B{i}", "blue", "tank", "0505", c, "N", "HA") for i, c in enumerate(["00", "01", "02", "10", "11"])]
    units = dug_in + full + [U("F", "blue", "tank", "0504", "12", "N", "HA"), U("A0", "blue", "tank", "0505", "12", "N", "HA"),
                             U("X", "blue", "tank", "0506", "01", "N", "HA"), U("R1", "red", "tank", "0503", "21", "S", "HA")]
    mines = [{"pair": "red-1", "side": "red", "square": "0505"}, {"pair": "red-1", "side": "red", "square": "0909"}]
    sc, rules = table(units, area=closed, position=dict(POS_AP(2), minelets=mines))
    RULESET.apply(sc, rules, RULESET.next_step(sc, rules), {"type": "move", "units": ["A0"], "to": "0504", "facing": "N"},
                  Ctx([6, 6]))
    board = st.Board(sc, rules)
    assert (len(board.at("0504")), len(board.at("0505"))) == (7, 5)
    offered = RULESET.legal_orders(sc, rules, RULESET.next_step(sc, rules))
    assert {"type": "move", "units": ["F"], "to": "0505", "facing": "N"} in offered
    assert not [o for o in offered if o["type"] == "move" and o["units"] == ["X"] and o["to"] == "0505"]
    assert [o for o in offered if o["type"] == "move" and o["units"] == ["X"] and o["to"] == "0507"]


def test_the_relief_of_an_over_full_square_is_offered_where_it_moves_one_unit_of_a_group():
    """K-MOV-5: the options move whole battle groups; where an over-full square is relieved only
    by one unit of its group leaving (the group finds no room), that move is offered, `end` is
    not, and another order (the HQ's move) leaves the step waiting for it, not refused."""
    cells = ["00", "01", "02", "10", "11", "12"]
    full = lambda p, sq, n, order: [U(f"{p}{i}", "blue", "tank", sq, c, "N", order) for i, c in enumerate(cells[:n])]  # noqa: E731
    units = [U("G0", "blue", "tank", "0505", "10", "N", "HA", group="g"), U("G1", "blue", "tank", "0505", "11", "N", "HA", group="g")]
    units += [U(f"H{i}", "blue", "tank", "0505", c, "N", "HD") for i, c in enumerate(["00", "01", "02", "12"])]
    units += [U("X", "blue", "tank", "0606", "12", "N", "HA")] + full("K", "0606", 5, "HA")
    for k, sq in enumerate(["0506", "0605", "0604", "0404", "0405", "0406"]):
        units += full(f"N{k}", sq, 6, "HD")
    units += full("S", "0504", 5, "HD") + [U("R1", "red", "tank", "0109", "21", "S", "HA")]
    sc, rules = table(units, position=POS_AP(2))
    rules["ps"]["moved"] = sorted(p for p in rules["pieces"] if p not in ("G0", "G1", "X") and sc.pieces[p].side == "blue")
    order = lambda **o: RULESET.apply(sc, rules, RULESET.next_step(sc, rules), o, Ctx())  # noqa: E731
    order(type="move", units=["X"], to="0505", facing="N")
    relieving = {"type": "move", "units": ["G0"], "to": "0606", "facing": "N"}
    offered = RULESET.legal_orders(sc, rules, RULESET.next_step(sc, rules))
    assert relieving in offered and {"type": "end"} not in offered
    assert not [o for o in offered if o["type"] == "move" and o["units"] == ["G0", "G1"]]   # the group finds no room
    order(type="hq", hq="B-HQ", to="0001")
    assert rules["step"] == "move1" and RULESET.legal_orders(sc, rules, RULESET.next_step(sc, rules)) == [relieving]
    order(**relieving)
    # relieved: the step may end, and G1, unmoved, may still leave: nothing behind holds it (K-GM-7)
    assert len(st.Board(sc, rules).at("0505")) == 6
    offered = RULESET.legal_orders(sc, rules, RULESET.next_step(sc, rules))
    assert {"type": "end"} in offered
    assert any(o["type"] == "move" and o["units"] == ["G1"] and o["to"] != "0505" for o in offered)


def test_hd_and_lower_move_only_within_their_square():
    """K-ORD-5."""
    sc, rules = table([U("B1", "blue", "tank", "0505", "01", "N", "HD")], position=POS_AP(2))
    with pytest.raises(IllegalOrder, match="only within its square"):
        mv(sc, rules, ["B1"], "0506", "N", 2)
    mv(sc, rules, ["B1"], "0505", "W", 2)
    assert rules["pieces"]["B1"]["f"] == "W"


def test_terrain_roads_woods_rivers_marsh_and_impassable():
    """K-TER-1 (area and linear features), K-TER-3 (roads through area features), K-TER-5,
    K-TER-6, K-TER-7 (vehicles only by road, through a face), K-TER-2 (a river closed to
    vehicles, bridged by a road), K-TER-8 (marsh: one Action Phase a turn, the first it may move
    in, K-MOV-7), K-TER-10 (impassable), K-BTF-3 (the feature of a square applies to all in it)."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "M"), U("B2", "blue", "tank", "0305", "01", "N", "M"),
             U("B3", "blue", "tank", "0705", "01", "N", "M"), U("B4", "blue", "ri", "0105", "01", "N", "M"),
             U("B5", "blue", "tank", "0905", "01", "N", "HA"), U("B6", "blue", "tank", "0405", "01", "N", "M")]
    area = {"0506": "woods", "0306": "bua", "0805": "marsh", "0106": "impassable", "0906": "marsh"}
    spec = dict(position=POS_AP(1), area=area, roads=["0505/0506"], edges={"0705/0706": "river"})
    sc, rules = table(units, **spec)
    with pytest.raises(IllegalOrder, match=r"enter 0506 \(woods\) only by a road"):
        mv(sc, rules, ["B6"], "0506", "N", 1)                         # diagonal, no road
    mv(sc, rules, ["B1"], "0506", "N", 1)                             # by its road
    rules["ps"] = st.fresh_ps()
    with pytest.raises(IllegalOrder, match=r"leave 0506 \(woods\) only by a road"):
        mv(sc, rules, ["B1"], "0507", "N", 2)
    mv(sc, rules, ["B2"], "0306", "N", 1)                             # a built-up area has a road to each face
    with pytest.raises(IllegalOrder, match="river between 0705 and 0706 is impassable to vehicles"):
        mv(sc, rules, ["B3"], "0706", "N", 1)
    with pytest.raises(IllegalOrder, match="impassable to units on foot"):
        mv(sc, rules, ["B4"], "0106", "N", 4)
    mv(sc, rules, ["B3"], "0805", "E", 1)                             # marsh: its first phase, its one move
    rules["ps"] = st.fresh_ps()
    with pytest.raises(IllegalOrder, match="one move of the turn in difficult terrain"):
        mv(sc, rules, ["B3"], "0804", "S", 2)
    with pytest.raises(IllegalOrder, match=r"B5 crosses terrain that allows one move a turn from 0905 to 0906: that move "
                       r"is made in the first Action Phase it may move \(Action Phase 2\), and only if it has not "
                       r"moved this turn; this is Action Phase 3"):
        mv(sc, rules, ["B5"], "0906", "N", 3)                         # an HA tank is first entitled in phase 2
    # K-MOV-4: all mechanised troops move from Action Phase 2; the refusal says when, by its chit
    # (a kkoh player's probe: "may not move in Action Phase 1" named neither)
    with pytest.raises(IllegalOrder) as info:
        mv(sc, rules, ["B5"], "0904", "N", 1)
    assert (info.value.rule, info.value.message) == (
        "K-MOV-4", "move: B5 may not move in Action Phase 1 (K-MOV-4): on its HA chit, it moves in Action Phases 2, 3 "
        "and 4")
    sc, rules = table(units, **dict(spec, roads=["0505/0506", "0705/0706"]))
    mv(sc, rules, ["B3"], "0706", "N", 1)                             # the road bridges the river
    assert rules["pieces"]["B3"]["sq"] == "0706"
    sc, rules = table(units, **spec)
    with pytest.raises(IllegalOrder, match="river between 0705 and 0806"):
        mv(sc, rules, ["B3"], "0806", "N", 1)                         # a diagonal crossing the river's line


def test_every_square_a_unit_may_enter_is_listed_with_a_facing_it_may_end_in():
    """A players' probe: the move of a tank into a built-up square was missing from the template.
    The listing gave each square with the facing the move takes (N into 0306 here), and where
    that facing was no legal end (B9 already in the square facing E, K-TER-5) dropped the square.
    It now gives the first facing the unit may end in."""
    from pbem.rulesets.kkoh import movement

    units = [U("B1", "blue", "tank", "0305", "01", "N", "M"), U("B9", "blue", "tank", "0306", "22", "E", "M")]
    sc, rules = table(units, position=POS_AP(1), area={"0306": "bua"})
    listed = [o for o in movement.iter_options(sc, rules, "blue", 1) if o["units"] == ["B1"] and o.get("to") == "0306"]
    assert listed == [{"type": "move", "units": ["B1"], "to": "0306", "facing": "E"}]
    with pytest.raises(IllegalOrder):
        mv(sc, rules, ["B1"], "0306", "N", 1)
    mv(sc, rules, ["B1"], "0306", "E", 1)
    assert (rules["pieces"]["B1"]["sq"], rules["pieces"]["B1"]["f"]) == ("0306", "E")


def test_road_column_at_most_three_vehicles_facing_one_way():
    """K-TER-5."""
    units = [U(f"B{i}", "blue", "tank", "0506", c, "N") for i, c in enumerate(["01", "11", "21"])] + \
        [U("B9", "blue", "tank", "0505", "01", "N", "M")]
    sc, rules = table(units, position=POS_AP(1), area={"0506": "woods"}, roads=["0505/0506"])
    with pytest.raises(IllegalOrder, match="at most 3"):
        mv(sc, rules, ["B9"], "0506", "N", 1)


def test_dismount_remount_and_no_foot_move_after_a_vehicle_move():
    """K-INF-4 (dismount in a phase it may move in its vehicles, without penalty; after a
    vehicle move no move on foot that turn), K-INF-5 (remount only in Action Phase 4), K-INF-6."""
    from pbem.rulesets.kkoh import movement

    units = [U("B1", "blue", "ri", "0505", "01", "N", "HA", carrier="aifv", mounted=True)]
    sc, rules = table(units, position=POS_AP(2))
    mv(sc, rules, ["B1"], "0506", "N", 2)
    movement.change_mode(sc, rules, "blue", {"type": "dismount", "units": ["B1"]}, Ctx(), 2)
    assert rules["pieces"]["B1"]["mode"] == "dismounted"
    rules["ps"] = st.fresh_ps()
    with pytest.raises(IllegalOrder, match="remounts only in Action Phase 4"):
        movement.change_mode(sc, rules, "blue", {"type": "mount", "units": ["B1"]}, Ctx(), 3)
    with pytest.raises(IllegalOrder, match="may not move again on foot"):
        mv(sc, rules, ["B1"], "0507", "N", 4)
    movement.change_mode(sc, rules, "blue", {"type": "mount", "units": ["B1"]}, Ctx(), 4)
    assert rules["pieces"]["B1"]["mode"] == "mounted"


def test_limber_and_unlimber():
    """K-ART-7: in a phase the gun may move; only the deployed gun line or the limbered guns exist."""
    from pbem.rulesets.kkoh import movement

    units = [U("B1", "blue", "towed", "0505", "01", "N", "HA", level="battery")]
    sc, rules = table(units, position=POS_AP(2))
    with pytest.raises(IllegalOrder, match="limbers only in an Action Phase"):
        movement.change_mode(sc, rules, "blue", {"type": "limber", "units": ["B1"]}, Ctx(), 2)
    movement.change_mode(sc, rules, "blue", {"type": "limber", "units": ["B1"]}, Ctx(), 3)
    assert rules["pieces"]["B1"]["mode"] == "limbered"
    mv(sc, rules, ["B1"], "0506", "N", 3)
    movement.change_mode(sc, rules, "blue", {"type": "unlimber", "units": ["B1"]}, Ctx(), 3)
    assert rules["pieces"]["B1"]["mode"] == "deployed"


def test_a_towed_battery_that_bombarded_may_not_then_leave_its_square_in_that_phase():
    """K-IF-4: 'It may not move from one square to another and Bombard in a phase unless
    self-propelled', in either order: after bombarding (for its side's defence, earlier in the
    Action Phase) a towed battery may limber but not leave; a self-propelled one may."""
    from pbem.rulesets.kkoh import movement

    for kind, refused in (("towed", True), ("sp", False)):
        units = [U("RT", "red", kind, "0505", "01", "N", "HA", level="battery"), U("B1", "blue", "tank", "0101", "01", "N")]
        sc, rules = table(units, position={"turn": 1, "ap": 3, "step": "move", "mover": "second", "initiative": "blue"})
        rules["ps"]["ifired"] = ["RT"]
        rules["ps"]["rolled"] = ["RT"]
        if kind == "towed":
            movement.change_mode(sc, rules, "red", {"type": "limber", "units": ["RT"]}, Ctx(), 3)
        order = {"type": "move", "units": ["RT"], "to": "0504", "facing": "N"}
        if refused:
            rules["ps"]["ifired"] = []
            leaving = [o for o in movement.options(sc, rules, "red", 3) if o["type"] == "move" and o["units"] == ["RT"]]
            assert leaving                                      # the moves a battery that has not bombarded has
            rules["ps"]["ifired"] = ["RT"]
            assert not [o for o in movement.options(sc, rules, "red", 3) if o["type"] == "move" and o["units"] == ["RT"]
                        and o["to"] != "0505"]                  # none out of its square once it has (options remembered)
            with pytest.raises(IllegalOrder, match=r"RT bombarded in this Action Phase and is not self-propelled.*K-IF-4"):
                movement.move(sc, rules, "red", order, Ctx(), 3)
            assert rules["pieces"]["RT"]["sq"] == "0505"
        else:
            movement.move(sc, rules, "red", order, Ctx(), 3)
            assert rules["pieces"]["RT"]["sq"] == "0504"


def test_groups_form_on_the_move_from_one_chit():
    """K-ORD-8, K-GM-5."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("B2", "blue", "tank", "0505", "00", "N", "HA"),
             U("B3", "blue", "tank", "0505", "02", "N", "M")]
    sc, rules = table(units, position=POS_AP(2))
    with pytest.raises(IllegalOrder, match="same order chit"):
        mv(sc, rules, ["B1", "B3"], "0506", "N", 2)
    ctx = mv(sc, rules, ["B1", "B2"], "0506", "N", 2)
    assert rules["pieces"]["B1"]["g"] == rules["pieces"]["B2"]["g"] and ctx.of("move")[0]["group"]


def test_command_markers_move_like_their_troops_or_like_infantry():
    """K-CMK-2."""
    from pbem.rulesets.kkoh import movement

    sc, rules = table([U("B1", "blue", "tank", "0505", "01", "N")], position=POS_AP(1))
    with pytest.raises(IllegalOrder, match="not in Action Phase 1"):
        movement.move_hq(sc, rules, "blue", {"type": "hq", "hq": "B-HQ", "to": "0101"}, Ctx(), 1)
    movement.move_hq(sc, rules, "blue", {"type": "hq", "hq": "B-HQ", "to": "0101"}, Ctx(), 2)
    assert rules["hqs"]["B-HQ"] == {"sq": "0101"}


def test_minelets_two_to_four_per_vehicle_then_real_or_dummy():
    """K-SFX-5: a vehicle moving into, out of or within a minelet square rolls 2D6: a loss on 2 to
    4, one more for each marker beyond the first; only then is the marker found real or a
    dummy (a die: 1-3 the real one), and the other of its pair is then known too."""
    from pbem.rulesets.kkoh import movement

    units = [U("B1", "blue", "tank", "0505", "01", "N", "M"), U("B2", "blue", "tank", "0305", "01", "N", "M"),
             U("B3", "blue", "ri", "0205", "01", "N", "M")]
    mines = [{"pair": "red-1", "side": "red", "square": "0506"}, {"pair": "red-1", "side": "red", "square": "0507"},
             {"pair": "red-2", "side": "red", "square": "0306"}, {"pair": "red-2", "side": "red", "square": "0106"},
             {"pair": "red-3", "side": "red", "square": "0306"}, {"pair": "red-3", "side": "red", "square": "0206"}]
    sc, rules = table(units, position=dict(POS_AP(1), minelets=mines))
    board = st.Board(sc, rules)
    ctx = Ctx([5, 1])                   # 6: no loss with one marker
    movement.after_step(sc, board, "B1", "0505", "0506", ctx, "t")
    assert "hits" not in rules["pieces"]["B1"] and not ctx.of("minelets-revealed")
    ctx = Ctx([1, 2, 2])                # 3: a loss if real; 2: red-1 in 0506 is the real one
    movement.after_step(sc, board, "B1", "0505", "0506", ctx, "t")
    assert rules["pieces"]["B1"]["hits"] == 1 and [m["real"] for m in rules["minelets"][:2]] == [True, False]
    ctx = Ctx([3, 2, 5, 2])             # 5: a loss with two markers; red-2 a dummy (5), red-3 real (2)
    movement.after_step(sc, board, "B2", "0305", "0306", ctx, "t")
    assert rules["pieces"]["B2"]["hits"] == 1
    assert [m["real"] for m in rules["minelets"][2:]] == [False, True, True, False]
    ctx = Ctx([3, 2])                   # no vehicle, no roll
    movement.after_step(sc, board, "B3", "0205", "0206", ctx, "t")
    assert ctx.dice == [3, 2]


# --- Indirect Fire (K-IF, K-SFX-2, K-SFX-4) ---------------------------------------------------------

@pytest.mark.parametrize("level, needed", [("battery", [5, 4, 3, 2]), ("bn-bde", [6, 5, 4, 3]),
                                           ("div-corps", [None, 6, 5, 4])])
def test_artillery_availability_by_level_and_phase(level, needed):
    """K-IF-5: the table read from L89-L97 (the Battery column reconstructed)."""
    from pbem.rulesets.kkoh import artillery

    sc, rules = table([U("B1", "blue", "sp", "0101", "01", "N", level=level)], position=POS_AP(1))
    found = []
    for ap in range(1, 5):
        rules["ap"] = ap
        found.append(artillery.needed(sc, rules, "B1"))
    assert found == needed


def _assault_table(units, **spec):
    sc, rules = table(units, position=POS_AP(2), **spec)
    rules["assaults"] = [{"n": 1, "side": "blue", "units": ["B1"], "from": "0505", "target": "0506", "dismount": False,
                          "hqs": []}]
    return sc, rules


def test_call_modifiers_range_and_arc():
    """K-IF-6 (majority Inferior -1, a single unit -1, Out of Command -1, FA or FD +1), K-IF-2
    (range counting diagonals, the target square included), K-IF-3 (the rows ahead)."""
    from pbem.rulesets.kkoh import artillery

    units = [U("B1", "blue", "tank", "0505", "01", "N", "FA", quality="I"),
             U("B2", "blue", "tank", "0405", "01", "N", "HA", group="g"), U("B3", "blue", "tank", "0405", "00", "N", "HA", group="g"),
             U("BA", "blue", "sp", "0500", "01", "N", level="bn-bde"), U("BB", "blue", "sp", "0507", "01", "N", level="bn-bde"),
             U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules = _assault_table(units)
    board = st.Board(sc, rules)
    assert artillery.call_modifiers(sc, board, "B1") == {"majority_inferior": -1, "single_unit": -1, "fa_or_fd": 1}
    assert artillery.call_modifiers(sc, board, "B2") == {}
    rules["ooc"] = ["B-HQ"]
    assert artillery.call_modifiers(sc, board, "B2") == {"out_of_command": -1}
    assert artillery.in_reach(sc, board, "BA", "0506")            # 6 rows ahead, range 10
    assert not artillery.in_reach(sc, board, "BB", "0506")        # behind its facing
    rules["pieces"]["BA"]["sq"] = "0100"
    assert artillery.in_reach(sc, board, "BA", "0506")            # 6 squares, diagonals counting one
    with pytest.raises(IllegalOrder, match="out of BB's range"):
        artillery.check_call(sc, rules, "blue", {"type": "bombard", "unit": "BB", "assault": 1, "support": "B1"})


def test_who_may_bombard():
    """K-IF-4 (once a phase; not after Direct Fire; not after moving unless self-propelled;
    rockets once a turn, K-ART-6; not when engaged in a Close Assault), K-ART-1 (field, rocket
    and mortar units bombard), K-ART-7 (limbered guns do not fire), K-CA-9 (dedicated to a unit
    in that assault), K-IF-1 (only for a Close Assault)."""
    from pbem.rulesets.kkoh import artillery

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("BA", "blue", "sp", "0502", "01", "N", level="bn-bde"),
             U("BT", "blue", "towed", "0402", "01", "N", level="battery"), U("BR", "blue", "rocket", "0302", "01", "N", level="div-corps"),
             U("BM", "blue", "mortar", "0503", "01", "N", level="battery"), U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules = _assault_table(units)
    call = lambda u, s="B1": artillery.check_call(sc, rules, "blue", {"type": "bombard", "unit": u, "assault": 1, "support": s})  # noqa: E731
    with pytest.raises(IllegalOrder, match="no Close Assault 2"):
        artillery.check_call(sc, rules, "blue", {"type": "bombard", "unit": "BA", "assault": 2, "support": "B1"})
    assert call("BA")["unit"] == "BA"
    with pytest.raises(IllegalOrder, match="dedicated to one of your units"):
        call("BA", "BM")
    rules["ps"]["fired"] = ["BA"]
    with pytest.raises(IllegalOrder, match="has fired or been called"):
        call("BA")
    rules["ps"]["left"] = ["BT"]
    with pytest.raises(IllegalOrder, match="not self-propelled"):
        call("BT")
    rules["ps"]["left"] = ["BM"]
    assert call("BM")["unit"] == "BM"                             # self-propelled: it may move and bombard
    rules["ts"]["rockets"] = ["BR"]
    with pytest.raises(IllegalOrder, match="fired this turn"):
        call("BR")
    rules["pieces"]["BT"]["mode"] = "limbered"
    rules["ps"]["left"] = []
    with pytest.raises(IllegalOrder, match="limbered"):
        call("BT")
    rules["ps"]["engaged"] = ["BM"]
    with pytest.raises(IllegalOrder, match="engaged"):
        call("BM")


def test_availability_rolls_and_counter_battery_results():
    """K-IF-5/6 (the availability roll), K-IF-10 (counter-battery first: the target drawn by a
    die among enemy batteries bombarding in range; effect modifiers; 0-2 no effect, 3
    cancelled, 4 cancelled and Give Ground, 5+ also a loss), K-SFX-2 (+2 with assets)."""
    from pbem.rulesets.kkoh import artillery

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA", group="g"), U("B2", "blue", "tank", "0505", "00", "N", "HA", group="g"),
             U("BA", "blue", "sp", "0502", "01", "N", level="battery"), U("BB", "blue", "sp", "0402", "01", "N", level="battery"),
             U("R1", "red", "tank", "0506", "21", "S"), U("RA", "red", "sp-h", "0509", "21", "S", level="bn-bde")]
    sc, rules = _assault_table(units, blue={"specials": {"counter_battery": 1}})
    rules["assaults"][0]["units"] = ["B1", "B2"]
    ctx = Ctx()
    artillery.add_call(sc, rules, "blue", {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}, ctx)
    artillery.add_call(sc, rules, "blue", {"type": "bombard", "unit": "BB", "assault": 1, "support": "B1"}, ctx)
    artillery.add_call(sc, rules, "red", {"type": "counter-battery", "unit": "RA", "assets": False}, ctx)
    # phase 2: bn-bde needs 5; RA fires (5), picks BB (die 4 of two: the second), effect 3 +1 heavy = 4
    ctx = Ctx([5, 4, 3, 4])
    settle(sc, rules, ctx, lambda: artillery.resolve(sc, rules, ctx))
    cb = ctx.of("counter-battery")[0]
    assert (cb["target"], cb["score"], cb["effect"]) == ("BB", 4, "cancelled-give-ground")
    assert rules["pieces"]["BB"]["sq"] == "0401" and ctx.of("arty-cancelled")[0]["unit"] == "BB"
    rolls = ctx.of("arty-roll")
    assert [(r["unit"], r.get("needed"), r.get("success")) for r in rolls] == [("RA", 5, True), ("BA", 4, True)]
    assert rules["assaults"][0]["fire"] == {"blue": [{"unit": "BA", "support": "B1", "group": ["B1", "B2"]}]}
    assert rules["ps"]["rolled"] == ["BA", "BB", "RA"]


@pytest.mark.parametrize("die, assets, effect", [(1, False, "none"), (2, False, "none"), (3, False, "cancelled"),
                                                 (4, False, "cancelled-give-ground"), (5, False, "cancelled-give-ground-loss"),
                                                 (1, True, "cancelled"), (3, True, "cancelled-give-ground-loss")])
def test_counter_battery_result_rows(die, assets, effect):
    """K-IF-10 bands, K-SFX-2: a heavy CB battery (+1) at a towed target (+1) on HD3 (-1) with
    losses (-1): die + 0; assets +2."""
    from pbem.rulesets.kkoh import artillery

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("BT", "blue", "towed", "0502", "01", "N", "HD3", level="battery"),
             U("R1", "red", "tank", "0506", "21", "S"), U("RA", "red", "sp-h", "0509", "21", "S", level="battery", losses=1)]
    sc, rules = _assault_table(units, red={"specials": {"counter_battery": 1}})
    ctx = Ctx()
    artillery.add_call(sc, rules, "blue", {"type": "bombard", "unit": "BT", "assault": 1, "support": "B1"}, ctx)
    artillery.add_call(sc, rules, "red", {"type": "counter-battery", "unit": "RA", "assets": assets}, ctx)
    ctx = Ctx([6, die] + [6] * 3)
    settle(sc, rules, ctx, lambda: artillery.resolve(sc, rules, ctx))
    cb = ctx.of("counter-battery")[0]
    assert cb["modifiers"] == {"heavy_or_rocket": 1, "target_towed": 1, "target_hd3_or_lower": -1, "firer_losses": -1,
                               **({"cb_assets": 2} if assets else {})}
    assert cb["effect"] == effect
    assert rules["pieces"]["BT"].get("hits", 0) == (1 if effect.endswith("loss") else 0)
    assert rules["pieces"]["BT"]["sq"] == ("0501" if "give-ground" in effect else "0502")
    assert bool(rules["assaults"][0].get("fire")) == (effect == "none")
    assert rules["used"]["red"].get("counter_battery", 0) == (1 if assets else 0)


def test_bombardment_factors_and_chemical_attack():
    """K-CAF-1 (L143-L147: one battery more +2, each further +1; fewer -2, -1; heavy +1/-1,
    rocket +1/-1, a heavy rocket battery on both lines; 1.16.0 counted it a rocket only), K-IF-9 (only fire dedicated to an engaged unit counts), K-SFX-4 (+2)."""
    from pbem.rulesets.kkoh import artillery

    sc, rules = _assault_table([U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("R1", "red", "tank", "0506", "21", "S"),
                                U("BA", "blue", "sp", "0100", "01", "N", level="battery"),
                                U("BB", "blue", "sp-h", "0200", "01", "N", level="battery"),
                                U("BC", "blue", "rocket", "0300", "01", "N", level="battery"),
                                U("RA", "red", "sp", "0909", "01", "S", level="battery")])
    board = st.Board(sc, rules)
    a = rules["assaults"][0]
    engaged = {"blue": ["B1"], "red": ["R1"]}
    a["fire"] = {"blue": [{"unit": "BA", "support": "B1", "group": ["B1"]}]}
    assert artillery.bombardment(sc, board, a, engaged) == {"bombardment": 2}
    a["fire"]["blue"] += [{"unit": "BB", "support": "B1", "group": ["B1"]}, {"unit": "BC", "support": "B1", "group": ["B1"]}]
    assert sc.pieces["BC"].if_class == "H" and sc.pieces["BC"].rocket          # the BM-21: "HR (20)"
    assert artillery.bombardment(sc, board, a, engaged) == {"bombardment": 4, "attacker_heavy_artillery": 2,
                                                            "attacker_rocket": 1}
    a["fire"] = {"red": [{"unit": "RA", "support": "R1", "group": ["R1"]}], "blue": []}
    a["chemical"] = ["blue"]
    assert artillery.bombardment(sc, board, a, engaged) == {"bombardment": -2, "chemical": 2}
    a["fire"]["red"].append({"unit": "BB", "support": "R9", "group": ["R9"]})   # fire for a unit not engaged: none
    assert artillery.bombardment(sc, board, a, engaged)["bombardment"] == -2


def test_chemical_attack_needs_your_bombardment_and_is_spent_anyway():
    """K-SFX-4: declared before your bombardment of that assault is called for, and only if a
    battery of yours can be; one per assault, at most as bought; spent even if the battery fails."""
    from pbem.rulesets.kkoh import artillery

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("BA", "blue", "sp", "0502", "01", "N", level="bn-bde"),
             U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules = _assault_table(units, blue={"specials": {"chemical": 1}})
    rules["pieces"]["BA"]["f"] = "S"                                # facing away: it cannot bombard 0506
    with pytest.raises(IllegalOrder, match="only with your bombarding artillery"):
        artillery.check_call(sc, rules, "blue", {"type": "chemical", "assault": 1})
    rules["pieces"]["BA"]["f"] = "N"
    ctx = Ctx()
    artillery.add_call(sc, rules, "blue", {"type": "chemical", "assault": 1}, ctx)
    with pytest.raises(IllegalOrder, match="no chemical attack left"):
        artillery.check_call(sc, rules, "blue", {"type": "chemical", "assault": 1})
    artillery.add_call(sc, rules, "blue", {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}, ctx)
    artillery.resolve(sc, rules, Ctx([1]))                          # the battery fails: the attack is still made
    assert rules["assaults"][0]["chemical"] == ["blue"] and "fire" not in rules["assaults"][0]


# --- Close Assault factors (K-CAF-1, K-CAO-1, K-INF-7/8, K-CA-10) -----------------------------------

def _factors(units, attackers, defenders, body=None, source="0505", target="0506", **spec):
    from pbem.rulesets.kkoh import assault

    spec.setdefault("position", POS_AP(2))
    sc, rules = table(units, **spec)
    board = st.Board(sc, rules)
    a = {"n": 1, "side": sc.pieces[attackers[0]].side, "units": attackers, "from": source, "target": target}
    return assault.factors(sc, board, a, attackers, defenders, body or defenders)


def test_assault_factors_numbers_losses_quality_and_command():
    """K-CAF-1 (L121 and its mirror L139)."""
    units = [U("B1", "blue", "tank", "0505", "00", "N", "HA", group="g", quality="S", losses=1),
             U("B2", "blue", "tank", "0505", "01", "N", "HA", group="g", quality="S"),
             U("B3", "blue", "tank", "0505", "02", "N", "HA", group="g"),
             U("R1", "red", "tank", "0506", "20", "S", "HA", quality="I"), U("R2", "red", "tank", "0506", "21", "S", "HA")]
    f = _factors(units, ["B1", "B2", "B3"], ["R1", "R2"], ["R1"])
    assert f == {"units_more": 1, "attackers_more_losses": -1, "attackers_superior": 1, "orders": 1}
    f = _factors(units, ["R1", "R2"], ["B1", "B2", "B3"], source="0506", target="0505")
    assert f == {"units_fewer": -1, "defenders_more_losses": 1, "defenders_superior": -1, "orders": 1}
    units[3]["quality"] = "I"
    units[4]["quality"] = "I"
    f = _factors(units, ["R1", "R2"], ["B3"], source="0506", target="0505",
                 commands=[HQS[0], dict(HQS[1], square="0909")])
    assert f["attackers_inferior"] == -1 and f["units_more"] == 1
    f = _factors(units, ["B1", "B2", "B3"], ["R1", "R2"], ["R1", "R2"], position={**POS_AP(2), "out_of_command": ["B-HQ", "R-HQ"]})
    assert f["attacking_group_out_of_command"] == -1 and f["defending_group_out_of_command"] == 1


def test_assault_factors_arms_infantry_against_armour():
    """K-CAF-1 (L125-L129), K-INF-2, K-INF-7 (mounted armoured infantry counts as armour and as
    infantry), K-INF-8, K-CA-10 (dismounted from AIFVs)."""
    units = [U("B1", "blue", "gi", "0505", "01", "N", "HA"),
             U("B2", "blue", "ri", "0406", "12", "E", "HA", carrier="aifv", mounted=False),
             U("B3", "blue", "mi", "0606", "10", "W", "HA"),
             U("B4", "blue", "ri", "0507", "21", "S", "HA", carrier="aifv", mounted=True),
             U("R1", "red", "tank", "0506", "21", "S", "HA"), U("R2", "red", "gi", "0508", "21", "S", "HA"),
             U("R3", "red", "mi", "0407", "21", "S", "HA")]
    assert _factors(units, ["B1"], ["R1"]) == {"attackers_solely_gi_vs_armour": -1, "orders": 1}
    found = _factors(units, ["B2"], ["R1"], source="0406", target="0506")
    assert {k: found[k] for k in ("attackers_ri_vs_armour", "attackers_dismounted_from_aifv")} == {
        "attackers_ri_vs_armour": 1, "attackers_dismounted_from_aifv": 1}
    assert "attackers_armour_and_infantry" not in found          # dismounted: not armour (K-CA-10)
    found = _factors(units, ["B3"], ["R1"], source="0606", target="0506")
    assert found["attackers_mi_vs_armour"] == 2 and "attackers_ri_vs_armour" not in found
    # mounted in a tracked carrier, B4 counts as armour or as infantry, never both (K-INF-7): the
    # better for the attacker when the order does not say (tests/test_kkoh_probe6.py)
    assert _factors(units, ["B4"], ["R2"], source="0507", target="0508") == {
        "defenders_solely_gi_vs_armour": 1, "orders": 1}                          # as armour
    assert _factors(units, ["B4"], ["R3"], source="0507", target="0407") == {"flank": 2, "orders": 1}   # as infantry


def test_assault_factors_terrain_artillery_vulnerable_flank_and_rear():
    """K-CAF-1 (L131-L141), K-TER-4 (upslope), K-TER-6/7 (-2), K-TER-8/9 (infantry only),
    K-TER-2 (a linear feature), K-TER-11, K-CA-8."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("B2", "blue", "tank", "0305", "01", "N", "HA"),
             U("B3", "blue", "truck", "0705", "01", "N", "HA"),
             U("R1", "red", "tank", "0506", "21", "S", "HA"), U("R2", "red", "ri", "0306", "21", "E", "HA"),
             U("R3", "red", "sp", "0706", "21", "N", "HA", level="battery"), U("R4", "red", "truck", "0806", "21", "S", "HA")]
    area = {"0506": "woods", "0306": "marsh", "0706": "ridge"}
    assert _factors(units, ["B1"], ["R1"], area=area) == {"defensive_terrain": -2, "orders": 1}
    assert _factors(units, ["B2"], ["R2"], source="0305", target="0306", area=area) == {
        "defenders_ri_vs_armour": -1, "defensive_terrain": -1, "flank": 2, "orders": 1}
    assert _factors(units, ["B3"], ["R3"], source="0705", target="0706", area=area) == {
        "defensive_terrain": -1, "defenders_solely_artillery": 2, "attackers_vulnerable": -2, "rear": 3, "orders": 1}
    assert _factors(units, ["B1"], ["R4"], source="0805", target="0806", edges={"0805/0806": "stream"}) == {
        "defenders_vulnerable": 2, "defensive_terrain": -1, "orders": 1}
    units[5] = U("R3", "red", "sp", "0706", "21", "N", "HA", level="battery")
    assert "defensive_terrain" not in _factors(units, ["B3"], ["R3"], source="0705", target="0706",
                                               area={"0706": "ridge", "0705": "ridge"})   # not upslope


@pytest.mark.parametrize("attacker", ["FA", "PA", "HA", "M"])
@pytest.mark.parametrize("defender", ["FD", "PD", "HD3", "HD2", "HD1", "HD", "HA", "M", "PA", "FA"])
def test_orders_comparison_every_cell(attacker, defender):
    """K-CAO-1: each cell of the matrix read from L151-L169 enters the final factor."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", attacker), U("R1", "red", "tank", "0506", "21", "S", defender)]
    sc, _ = table(units)
    expected = sc.tables["orders_comparison"]["defender"][defender][["FA", "PA", "HA", "M"].index(attacker)]
    found = _factors(units, ["B1"], ["R1"]).get("orders", 0)
    assert found == expected
    assert found == {"FD": [-3, -4, -5, -6], "PD": [-1, -2, -3, -4], "HD3": [0, -1, -2, -3], "HD2": [1, 0, -1, -2],
                     "HD1": [2, 1, 0, -2], "HD": [2, 1, 0, -2], "HA": [3, 2, 1, -1], "M": [4, 3, 2, 0],
                     "PA": [4, 3, 2, 0], "FA": [5, 4, 2, 0]}[defender][["FA", "PA", "HA", "M"].index(attacker)]


@pytest.mark.parametrize("factor", [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5])
@pytest.mark.parametrize("die", [1, 2, 3, 4, 5, 6])
def test_result_table_every_cell(factor, die):
    """K-CAT-1: the table read from L173-L185, +8 or more and -4 or worse at the ends."""
    from pbem.rulesets.kkoh import assault

    sc, _ = table([U("B1", "blue", "tank", "0505", "01", "N")])
    rows = {1: "DR+2 DR+1 DR+1 DR DR DF DF AR AR AR+1 AR+1 AR+2 AR+2", 2: "DR+2 DR+2 DR+1 DR+1 DR DR DF DF AR AR AR+1 AR+1 AR+2",
            3: "DR+3 DR+2 DR+2 DR+1 DR+1 DR DR DF DF AR AR AR+1 AR+1", 4: "DR+3 DR+3 DR+2 DR+2 DR+1 DR+1 DR DR DF DF AR AR AR+1",
            5: "DR+4 DR+3 DR+3 DR+2 DR+2 DR+1 DR+1 DR DR DF DF AR AR", 6: "DR+4 DR+4 DR+3 DR+3 DR+2 DR+2 DR+1 DR+1 DR DR DF DF AR"}
    column = 8 - max(-4, min(8, factor))
    assert assault.result_of(sc, factor, die) == rows[die].split()[column]


# --- Close Assault declarations (K-CA-2..5, K-CAO-1, K-TER-5) ---------------------------------------

def test_who_may_assault_and_how():
    """K-CA-2 (attacker types), K-CA-3 (a group only if it started the phase as one), K-CA-5
    (never diagonally), K-CAO-1 (HD or lower cannot assault), K-CA-10 (dismounting in the
    assault), K-CA-11 (limbered guns add nothing: they cannot attack)."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("B2", "blue", "aa-gun", "0405", "01", "N", "HA"),
             U("B3", "blue", "sp", "0605", "01", "N", "HA", level="battery"), U("B4", "blue", "jaguar", "0704", "01", "N", "HA"),
             U("B5", "blue", "ri", "0305", "01", "N", "HA", carrier="truck", mounted=True),
             U("B6", "blue", "tank", "0205", "01", "N", "HD"), U("B7", "blue", "towed", "0805", "01", "N", "HA", level="battery",
                                                                 limbered=True),
             U("R1", "red", "tank", "0506", "21", "S"), U("R2", "red", "tank", "0406", "21", "S"), U("R3", "red", "tank", "0606", "21", "S"),
             U("R4", "red", "tank", "0705", "21", "S"), U("R5", "red", "tank", "0306", "21", "S"), U("R6", "red", "tank", "0206", "21", "S"),
             U("R7", "red", "tank", "0806", "21", "S")]
    sc, rules = table(units, position=POS_AP(3))
    declare = lambda u, t, **kw: assault.check_declare(sc, rules, "blue", {"type": "assault", "units": u, "target": t, **kw}, 3)  # noqa: E731
    assert declare(["B1"], "0506")["target"] == "0506"
    with pytest.raises(IllegalOrder, match="never a diagonal"):
        declare(["B1"], "0406")
    with pytest.raises(IllegalOrder, match="may not attack"):
        declare(["B2"], "0406")                                 # AA never (K-ART-4)
    assert declare(["B3"], "0606")                               # mechanised armoured SP artillery may
    with pytest.raises(IllegalOrder, match="may not attack"):
        declare(["B4"], "0705")                                 # a specialist ATGW vehicle may not (K-ART-2)
    assert declare(["B5"], "0306", dismount=True)["dismount"]   # infantry in vehicles may assault and dismount
    with pytest.raises(IllegalOrder, match="only within its square"):
        declare(["B6"], "0206")                                 # HD: no move, so no assault (K-ORD-5)
    with pytest.raises(IllegalOrder, match="may not attack"):
        declare(["B7"], "0806")


def test_a_group_assaults_only_if_it_started_the_phase_as_one():
    """K-CA-3, K-ORD-8."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA", group="g"), U("B2", "blue", "tank", "0505", "00", "N", "HA", group="g"),
             U("B3", "blue", "tank", "0505", "02", "N", "HA"), U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules = table(units, position=POS_AP(3))
    flow._start_ap(sc, rules, 3, Ctx())
    assert assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B1", "B2"], "target": "0506"}, 3)
    rules["pieces"]["B3"]["g"] = rules["pieces"]["B1"]["g"]      # joined during the phase
    with pytest.raises(IllegalOrder, match="started the phase as one"):
        assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B1", "B2", "B3"], "target": "0506"}, 3)


# --- Aircraft and air defence (K-AIR, K-SFX-3) ---------------------------------------------------------

def _air(units, air_units, **spec):
    from pbem.rulesets.kkoh import air

    spec.setdefault("position", {"turn": 1, "ap": 4, "step": "move", "mover": "first", "initiative": "blue"})
    sc, rules = table(units, **spec)
    for side, entries in air_units.items():
        sc.doc["sides"][side]["air"] = entries
    doc = dict(sc.doc)
    for side, entries in air_units.items():
        doc["sides"] = {**doc["sides"], side: {**doc["sides"][side], "air": entries}}
    sc = RULESET.scenario(doc, {})
    rules = RULESET.setup(sc)
    rules["step"] = "air"
    air.begin(sc, rules)
    return sc, rules


def test_fixed_wing_arrives_on_four_picks_a_square_by_die_and_hits_on_five():
    """K-AIR-1 (arrival as Div/Corps artillery in phase 4: 4, +2 Air Support, K-SFX-3), K-AIR-2
    (a die among the target square and the eight around it holding units), K-AIR-3 (5-6 a loss,
    a re-roll on 4, +1 against unarmoured vehicles, no Give Ground), K-AIR-6 (AA: 6 drives off,
    5 aborts)."""
    from pbem.rulesets.kkoh import air

    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("B2", "blue", "truck", "0506", "01", "N"),
             U("R1", "red", "tank", "0909", "01", "S")]
    sc, rules = _air(units, {"red": [{"id": "R-AIR", "kind": "fixed"}]}, red={"specials": {"air_support": 1}})
    ctx = Ctx([2, 4, 3, 4])     # with Air Support 2+2 = 4 arrives; a die of 4 picks the second square; 3+1 = 4: re-roll; 4+1
    air.run(sc, rules, ctx)
    assert air.decision(sc, rules)[1] == "air-support"
    air.answer(sc, rules, "air-support", {"type": "air-support", "use": True}, ctx)
    assert air.decision(sc, rules)[1] == "air-target"
    air.answer(sc, rules, "air-target", air.default(sc, rules, "air-target"), ctx)
    assert ctx.of("air-arrival")[0]["success"] and ctx.of("air-strike")[0]["options"] == ["0505", "0506"]
    assert ctx.of("air-strike")[0]["square"] == "0506"
    air.answer(sc, rules, "air-unit", {"type": "air-unit", "unit": "B2"}, ctx)
    hit = ctx.of("air-attack")[0]
    assert hit["dice"] == [3, 4] and hit["bonus"] == 1 and hit["loss"]
    assert rules["pieces"]["B2"]["hits"] == 1 and rules["pieces"]["B2"]["sq"] == "0506"
    assert rules["air"]["R-AIR"]["state"] == "active" and rules["used"]["red"]["air_support"] == 1


def test_air_defence_drives_off_or_aborts():
    """K-AIR-6: one die per strength point of each enemy AA unit in range."""
    from pbem.rulesets.kkoh import air

    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("BA", "blue", "aa-gun", "0405", "01", "N", losses=1),
             U("BS", "blue", "aa-sam", "0105", "01", "N"), U("R1", "red", "tank", "0909", "01", "S")]
    sc, rules = _air(units, {"red": [{"id": "R-AIR", "kind": "fixed"}]})
    ctx = Ctx([4, 5, 1, 1])     # arrives (4); BA (one point left) rolls 5: this run aborts; BS (range 6, 4 squares) still rolls
    air.run(sc, rules, ctx)
    air.answer(sc, rules, "air-target", {"type": "air-target", "square": "0505"}, ctx)
    assert [(e["unit"], e["dice"], e["effect"]) for e in ctx.of("air-defence")] == [("BA", [5], "aborted"),
                                                                                      ("BS", [1, 1], "none")]
    assert rules["air"]["R-AIR"]["state"] == "active"           # the run is lost, the unit not
    sc, rules = _air(units, {"red": [{"id": "R-AIR", "kind": "fixed"}]})
    ctx = Ctx([6, 1, 2, 6])
    air.run(sc, rules, ctx)
    air.answer(sc, rules, "air-target", {"type": "air-target", "square": "0505"}, ctx)
    assert [(e["unit"], e["effect"]) for e in ctx.of("air-defence")] == [("BA", "none"), ("BS", "driven-off")]
    assert rules["air"]["R-AIR"]["state"] == "gone"


def test_rotary_wing_places_within_two_of_friends_fires_two_and_attacks_twice():
    """K-AIR-5, K-AIR-4 (two attacks in consecutive turns, then it leaves)."""
    from pbem.rulesets.kkoh import air

    units = [U("B1", "blue", "tank", "0101", "01", "N"), U("R1", "red", "tank", "0505", "01", "S")]
    sc, rules = _air(units, {"blue": [{"id": "B-HELO", "kind": "rotary"}]})
    ctx = Ctx([4, 5])
    air.run(sc, rules, ctx)
    options = air.legal(sc, rules, "air-target")
    assert all(sc.grid.distance(o["from"], "0101") <= 2 and sc.grid.distance(o["from"], o["square"]) <= 2 for o in options)
    assert {"type": "air-target", "square": "0505", "from": "0303"} in options
    air.answer(sc, rules, "air-target", {"type": "air-target", "square": "0505", "from": "0303"}, ctx)
    air.answer(sc, rules, "air-unit", {"type": "air-unit", "unit": "R1"}, ctx)
    assert rules["pieces"]["R1"]["hits"] == 1 and rules["air"]["B-HELO"] == {"state": "active", "turn": 1, "sq": "0303"}
    rules["turn"] = 2
    air.begin(sc, rules)
    ctx = Ctx([6])
    air.run(sc, rules, ctx)                                     # no arrival roll for the second attack
    assert not ctx.of("air-arrival")
    # as reconnaissance in Action Phases 1-3 of the next turn: its phase 4 Direct Fire comes before phase 4's move
    assert max(sc.grid.distance(o["from"], "0303") for o in air.legal(sc, rules, "air-target")) == 3
    assert not [o for o in air.legal(sc, rules, "air-target") if o["from"] == "0707"]
    air.answer(sc, rules, "air-target", {"type": "air-target", "square": "0505", "from": "0404"}, ctx)
    air.answer(sc, rules, "air-unit", {"type": "air-unit", "unit": "R1"}, ctx)
    assert "R1" in rules["gone"] and rules["air"]["B-HELO"]["state"] == "gone"
    rules["turn"] = 3
    assert air.queue(sc, rules) == []


# --- the record, the state, the bundled scenario ------------------------------------------------

def test_ruleset_record_and_schemas():
    import json
    from pathlib import Path

    import jsonschema

    assert RULESET.id == "kkoh" and RULESET.sides == ("blue", "red")
    on_disk = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "kkoh-orders.schema.json").read_text())
    assert on_disk == RULESET.order_schema
    jsonschema.Draft202012Validator.check_schema(RULESET.order_schema)
    assert RULESET.default_policies["on_void"] == "stop" and RULESET.default_policies["breakthrough"] == "decline"


def test_bundled_scenario_state_is_small_json_and_legal():
    """K-BTF-1 and K-INT-1 (an 18 x 12 table of 1 km squares; companies as units, K-TRP-1), K-LST-1,
    K-LST-3 (every unit from the printed lists), K-TRP-5 (battalions as formations), the
    layout rules, K-PRE-3 (terrain, objectives and victory set by the scenario, as house rules),
    K-REF-1 and K-REF-2 (its length within the 20-turn track)."""
    sc = RULESET.scenario(RULESET.scenarios["pz-brigade"](), {})
    rules = RULESET.setup(sc)

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
    assert len(sc.grid) == 18 * 12 and sc.doc["reconstructed"] is True and sc.doc["map"]["reconstructed"] is True
    board = st.Board(sc, rules)
    assert all(layout.check_square(sc, board, s) is None for s in board.squares())
    assert {p.side for p in sc.pieces.values()} == {"blue", "red"}
    assert sc.victory["house_rule"] is True and sc.last_turn == 8
    assert sum(1 for p in sc.pieces.values() if p.side == "blue") == 20
    assert sum(1 for p in sc.pieces.values() if p.side == "red") == 83
    assert all(command.piece_in_command(sc, board, p) for p in rules["pieces"])
    assert sc.last_turn <= sc.tables["turn_track"]["turns"] == 20 and len(sc.objectives) == 3
    assert all(sc.pieces[p].formation in sc.formations for p in sc.pieces)


def test_reading_the_rules_never_changes_them(tmp_path):
    """next_step, legal_orders, policy, summary, render and describe_need are read only: at
    every state of a random game they leave the rules as they were (two folders of one game
    must agree byte for byte)."""
    import json
    import random

    from pbem.core import bot
    from tests.support.games import Match

    match = Match(tmp_path, "kkoh", chain_length=4096, key_seed="read-only")
    rng = random.Random("read-only")
    g = match.game
    for _ in range(45):
        state = match.state()
        sender = state["awaiting"]["packet_from"]
        if sender is None:
            break
        rules = state["rules"]
        before = json.dumps(rules, sort_keys=True)
        need = g.next_step(rules)
        if need is not None:
            g.legal_orders(rules, need)
            g.policy(rules, need, dict(RULESET.default_policies))
            g.describe_need(rules, need)
        g.summary(rules)
        g.render(rules)
        assert json.dumps(rules, sort_keys=True) == before, need
        orders, seal = bot.plan_packet(g, match.state(sender), sender, rng.choice)
        match.send(sender, orders, seal=seal)
        assert match.state("blue")["state_hash"] == match.state("red")["state_hash"]


# --- further rules: pairs, markers, road squares, occupation, breakthroughs, aircraft ----------------

def test_infantry_in_transports_is_one_piece_vulnerable_in_unarmoured_ones():
    """K-INF-3 (Vulnerable in unarmoured transports), K-INF-6 (one of the two on the table),
    K-DF-10 (the infantry aboard shares its transports' losses: one piece)."""
    units = [U("B1", "blue", "ri", "0505", "01", "N", carrier="truck", mounted=True),
             U("B2", "blue", "ri", "0405", "01", "N", carrier="aifv", mounted=True)]
    sc, rules = table(units)
    board = st.Board(sc, rules)
    assert board.profile("B1").vulnerable and board.profile("B1").vehicle and board.profile("B1").infantry == "RI"
    assert not board.profile("B2").vulnerable and board.profile("B2").armour == "L"
    rules["pieces"]["B1"]["mode"] = "dismounted"
    assert not board.profile("B1").vehicle and board.profile("B1").target == "M"
    assert sc.pieces["B1"].points == 2 and sc.pieces["B1"].paired


def test_command_markers_are_not_units():
    """K-CMK-1, K-CMK-3 (never shot at), K-CMK-6 (no stacking, no chit): six units and a marker share a square."""
    commands = HQS + [{"id": "B-BN", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-HQ", "square": "0505"}]
    six = [U(f"B{i}", "blue", "tank", "0505", c, "N") for i, c in enumerate(["00", "01", "02", "10", "11", "12"])]
    sc, rules = table(six + [U("R1", "red", "tank", "0506", "21", "S")], commands=commands, position=POS_FIRE)
    board = st.Board(sc, rules)
    assert layout.check_square(sc, board, "0505") is None and board.hqs_at("0505") == ["B-BN"]
    targets, _ = layout.fire_targets(sc, board, "0505", "0506", "blue")
    assert "B-BN" not in targets and "B-BN" not in rules["pieces"]


def test_a_marker_goes_back_with_its_units_or_is_destroyed_with_them():
    """K-CMK-4: a marker shares the result of the units fighting in its square."""
    from pbem.rulesets.kkoh import assault

    commands = HQS + [{"id": "R-BN", "side": "red", "row": "bn", "level": "battalion", "superior": "R-HQ", "square": "0506"}]
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("R1", "red", "tank", "0506", "21", "S", "HA")]
    sc, rules = table(units, commands=commands, position=POS_AP(2))
    a = {"n": 1, "side": "blue", "units": ["B1"], "from": "0505", "target": "0506"}
    rules["assaults"] = [a]
    rules["ca"] = {"n": 1, "att": ["B1"], "def": ["R1"], "body": ["R1"], "round": 1, "steps": []}
    ctx = Ctx()
    assault._defenders_retreat(sc, st.Board(sc, rules), a, ctx)
    settle(sc, rules, ctx, lambda: assault.run(sc, rules, ctx) or True)
    assert rules["pieces"]["R1"]["sq"] == "0507" and rules["hqs"]["R-BN"] == {"sq": "0507"}


def test_a_marker_alone_in_an_assaulted_square_is_destroyed_and_the_event_names_its_side():
    """K-CMK-4: a Close Assault on a square where only an enemy command marker stands destroys
    it, with no loss to the attacker; the event names the marker's side, as every event of a
    side's loss does."""
    from pbem.rulesets.kkoh import assault

    commands = HQS + [{"id": "R-BN", "side": "red", "row": "bn", "level": "battalion", "superior": "R-HQ", "square": "0506"}]
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("R1", "red", "tank", "0508", "21", "S", "HA")]
    sc, rules = table(units, commands=commands, position=POS_AP(2))
    a = {"n": 1, "side": "blue", "units": ["B1"], "from": "0505", "target": "0506"}
    rules["assaults"] = [a]
    ctx = Ctx()
    assault.start(sc, rules, a, ctx)
    assert rules["hqs"]["R-BN"] == {"lost": 1}
    assert [(e["type"], e["hq"], e["side"], e["assault"], e["rule"]) for e in ctx.events if e["type"] == "hq-destroyed"] == [
        ("hq-destroyed", "R-BN", "red", 1, "K-CMK-4")]


def test_road_squares_one_vehicle_a_face_fires_or_assaults():
    """K-TER-5: from (or into) a steep ridge, wood or built-up square, one vehicle unit of a side
    per face uses Direct Fire or Close Assault; a vehicle group assaults into one only one by one."""
    from pbem.rulesets.kkoh import assault, fire

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("B2", "blue", "tank", "0505", "11", "N", "HA"),
             U("R1", "red", "tank", "0506", "20", "S"), U("R2", "red", "tank", "0506", "21", "S"),
             U("B3", "blue", "tank", "0305", "01", "N", "HA", group="g"), U("B4", "blue", "tank", "0305", "00", "N", "HA", group="g"),
             U("R3", "red", "ri", "0306", "21", "S")]
    sc, rules = table(units, area={"0505": "bua", "0306": "woods"}, roads=["0305/0306"], position=POS_FIRE)
    rules["pieces"]["B2"]["cell"] = "02"
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
    with pytest.raises(IllegalOrder, match="one vehicle unit only fires through each face"):
        shot(sc, rules, "blue", "B2", "R2")
    sc, rules = table(units, area={"0306": "woods"}, roads=["0305/0306"], position=POS_AP(2))
    flow._start_ap(sc, rules, 2, Ctx())
    with pytest.raises(IllegalOrder, match="only one\\s+vehicle unit of a side may assault"):
        assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B3", "B4"], "target": "0306"}, 2)
    assault.declare(sc, rules, "blue", {"type": "assault", "units": ["B3"], "target": "0306"}, Ctx(), 2)
    with pytest.raises(IllegalOrder, match="may assault"):
        assault.check_declare(sc, rules, "blue", {"type": "assault", "units": ["B4"], "target": "0306"}, 2)


def test_light_woods_help_only_infantry_and_deployed_guns():
    """K-TER-9 (per scenario: the bundled data gives light woods the marsh's effects)."""
    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("R1", "red", "ri", "0506", "21", "S", "HA"),
             U("B2", "blue", "tank", "0405", "01", "N", "HA"), U("R2", "red", "tank", "0406", "21", "S", "HA")]
    area = {"0506": "light-woods", "0406": "light-woods"}
    assert _factors(units, ["B1"], ["R1"], area=area)["defensive_terrain"] == -1
    assert "defensive_terrain" not in _factors(units, ["B2"], ["R2"], source="0405", target="0406", area=area)


def test_units_give_ground_after_an_assault_slowest_first():
    """K-GG-6: after a Close Assault the slowest units Give Ground first (they take the places)."""
    from pbem.rulesets.kkoh import giveground

    units = [U("R1", "red", "tank", "0506", "21", "S"), U("R2", "red", "ri", "0506", "20", "S"),
             U("B1", "blue", "tank", "0505", "01", "N")]
    sc, rules = table(units, position=POS_AP(2))
    ctx = Ctx()
    giveground.give_ground(sc, st.Board(sc, rules), ["R1", "R2"], "0505", ctx, "t", fire=False)
    settle(sc, rules, ctx)
    assert [e["unit"] for e in ctx.of("give-ground")] == ["R2", "R1"]


def test_occupying_attackers_choose_facing_and_grouping():
    """K-CA-17: any legal facing; the group may split into single units."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0506", "01", "N", "HD", group="g"), U("B2", "blue", "tank", "0506", "00", "N", "HD", group="g")]
    sc, rules = table(units, position=POS_AP(2))
    step = {"do": "face", "units": ["B1", "B2"]}
    options = assault.facing_options(sc, rules, step)
    assert options[0] == {"type": "face", "facing": "N", "group": True} and len(options) == 8
    assault._reface(sc, st.Board(sc, rules), ["B1", "B2"], "E", False, Ctx())
    assert [rules["pieces"][u]["f"] for u in ("B1", "B2")] == ["E", "E"] and not rules["pieces"]["B1"].get("g")


def test_a_loss_that_demoralises_cancels_the_breakthrough():
    """K-CA-20, K-MOR-4: a unit Demoralised by a loss in its first assault makes no Breakthrough."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA", losses=1), U("R1", "red", "tank", "0506", "21", "S"),
             U("R2", "red", "tank", "0506", "01", "N")]
    sc, rules = table(units, position=POS_AP(2))
    a = {"n": 1, "side": "blue", "units": ["B1"], "from": "0505", "target": "0506", "won": True, "done": True}
    rules["assaults"] = [a]
    rules["demoralised"] = ["b"]
    ctx = Ctx()
    assault.answer(sc, rules, "breakthrough", {"type": "breakthrough", "assault": 1, "take": True}, ctx)
    assert ctx.of("breakthrough-cancelled") and not ctx.of("breakthrough") and rules["ca"] is None


def test_occupation_when_the_winners_would_overfill_the_square():
    """K-CA-15 (the attackers who fought and won first, the owner choosing among them), K-CA-16
    (the rest stay back), K-CA-12 (no square is left over-full once the results apply)."""
    from pbem.rulesets.kkoh import assault

    units = [U(f"B{i}", "blue", "tank", "0505", c, "N", "HA") for i, c in enumerate(["00", "01", "02"])] + \
        [U(f"C{i}", "blue", "tank", "0506", c, "N", "HD") for i, c in enumerate(["00", "01", "02", "10"])]
    sc, rules = table(units + [U("R1", "red", "tank", "0909", "01", "S")], position=POS_AP(2))
    a = {"n": 1, "side": "blue", "units": ["B0", "B1", "B2"], "from": "0505", "target": "0506"}
    rules["assaults"] = [a]
    rules["ca"] = {"n": 1, "att": ["B0", "B1", "B2"], "def": [], "body": [], "round": 1, "steps": [{"do": "occupy", "fought": True}]}
    ctx = Ctx()
    assault.run(sc, rules, ctx)
    assert assault.decision(sc, rules)[1] == "occupy"
    assert assault.legal(sc, rules, "occupy")[:3] == [{"type": "occupy", "unit": u} for u in ("B0", "B1", "B2")]
    assault.answer(sc, rules, "occupy", {"type": "occupy", "unit": "B2"}, ctx)
    assault.answer(sc, rules, "occupy", {"type": "occupy", "unit": "B0"}, ctx)
    assert rules["pieces"]["B2"]["sq"] == "0506" and rules["pieces"]["B0"]["sq"] == "0506"
    assert rules["pieces"]["B1"]["sq"] == "0505" and ctx.of("pull-back")[0]["units"] == ["B1"]


def test_an_aircraft_that_strikes_a_friendly_square_attacks_it_as_the_enemy_would():
    """K-AIR-2."""
    from pbem.rulesets.kkoh import air

    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules = _air(units, {"red": [{"id": "R-AIR", "kind": "fixed"}]})
    ctx = Ctx([5, 4])          # arrives; among 0505 and 0506 the die (4: the second) picks 0506, red's own
    air.run(sc, rules, ctx)
    air.answer(sc, rules, "air-target", {"type": "air-target", "square": "0505"}, ctx)
    assert rules["plans"]["air"]["now"]["square"] == "0506"
    assert air.decision(sc, rules)[0] == "blue"                  # blue chooses as if the aircraft were its own


def test_random_choices_are_made_with_six_sided_dice_uniformly():
    """K-INT-4: every random choice (a route, a square, a target) is made with d6 only."""
    from pbem.rulesets.kkoh.common import dice_choice

    for among in range(2, 37):
        counts = [0] * among
        for first in range(1, 7):
            for second in range(1, 7):
                dice = [first, second] if among > 6 else [first]
                try:
                    counts[dice_choice(Ctx(dice), "x", among)] += 1
                except AssertionError:      # a re-roll: the value was rejected
                    pass
        assert len(set(counts)) == 1, (among, counts)
    assert dice_choice(Ctx([]), "x", 1) == 0


def test_a_reduced_unit_has_one_strength_point_and_counts_as_damaged():
    """K-TRP-3, K-PTS-3: fielded at half strength, it starts with a loss: one more destroys it."""
    from pbem.rulesets.kkoh.common import lose

    sc, rules = table([U("B1", "blue", "recce", "0505", "01", "N", reduced=True)])
    board = st.Board(sc, rules)
    assert sc.pieces["B1"].points == 1 and board.damaged("B1") and sc.pieces["B1"].reduced
    assert lose(sc, board, "B1", 1, Ctx(), "K-DF-7", "test") and "B1" in rules["gone"]


def test_field_artillery_needs_the_level_it_works_at():
    """K-PRE-1: forces are listed with the level their artillery works at (K-IF-5)."""
    with pytest.raises(ValueError, match="needs the level it works at"):
        table([U("B1", "blue", "sp", "0505", "01", "N")])


def test_a_unit_that_has_given_ground_is_no_target_and_shields_nobody():
    """K-DF-8: it may not be shot at again that phase and cannot shield others."""
    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0506", "21", "S"),
             U("R2", "red", "tank", "0506", "11", "S")]
    sc, rules = table(units, position=POS_FIRE)
    rules["ps"]["gg"] = ["R1"]
    with pytest.raises(IllegalOrder, match="only R2 may"):
        shot(sc, rules, "blue", "B1", "R1")
    assert shot(sc, rules, "blue", "B1", "R2")["target"] == "R2"


def test_fire_results_stop_for_each_place_and_go_on_exactly():
    """K-GG-5: after every die, losses and Give Ground are applied target by target; a unit with
    more than one place waits for its owner (the decision give-ground-place), the next target
    has not moved yet, and the results go on from there; an answer naming another unit or a
    cell not offered is refused citing K-GG-5."""
    from pbem.rulesets.kkoh import fire, giveground

    units = [U("B1", "blue", "tank", "0202", "01", "N"), U("B2", "blue", "tank", "0402", "01", "N"),
             U("R1", "red", "tank", "0203", "21", "S"), U("R2", "red", "tank", "0403", "21", "S")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B2", "target": "R2"})
    ctx = Ctx([4, 4])                     # each 4 +1 IR = 5: Give Ground
    fire.resolve(sc, rules, ctx)
    assert fire.apply_results(sc, rules, ctx) is False
    assert giveground.waiting(rules) == {"unit": "R1", "sq": "0204", "path": ["0204"], "start": "0203",
                                         "cells": ["21", "22", "20"]}
    assert rules["pieces"]["R1"]["sq"] == "0203" and rules["plans"]["gg_due"] == [["R2", "0402"]]
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind, need.accepts, need.decision) == ("red", "give-ground-place", ("place",), True)
    assert flow.policy(sc, rules, need, {}) == {"type": "place", "unit": "R1", "cell": "21"}      # front-most
    assert flow.policy(sc, rules, need, {"give_ground_place": "ask"}) is None
    for bad in ({"type": "place", "unit": "R2", "cell": "21"}, {"type": "place", "unit": "R1", "cell": "11"}):
        with pytest.raises(IllegalOrder) as info:
            giveground.answer(sc, rules, bad, ctx)
        assert info.value.rule == "K-GG-5"
    giveground.answer(sc, rules, {"type": "place", "unit": "R1", "cell": "20"}, ctx)
    assert rules["pieces"]["R1"]["sq"] == "0204" and rules["pieces"]["R1"]["cell"] == "20"
    assert "gg" not in rules and rules["pieces"]["R2"]["sq"] == "0403"
    assert fire.apply_results(sc, rules, ctx) is False and giveground.waiting(rules)["unit"] == "R2"
    settle(sc, rules, ctx, lambda: fire.apply_results(sc, rules, ctx))
    assert (rules["pieces"]["R2"]["sq"], rules["pieces"]["R2"]["cell"]) == ("0404", "21")
    assert "gg_due" not in rules["plans"] and [e["cell"] for e in ctx.of("give-ground")] == ["20", "21"]


def test_give_ground_away_from_the_first_shot_that_caused_it():
    """K-GG-11 reading: fire from several squares: away from the first resolved shot's square."""
    from pbem.rulesets.kkoh import fire

    units = [U("B1", "blue", "tank", "0505", "01", "N"), U("B2", "blue", "tank", "0606", "10", "W"),
             U("R1", "red", "tank", "0506", "21", "S")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B2", "target": "R1"})
    fire.add_fire(sc, rules, "blue", {"type": "fire", "unit": "B1", "target": "R1"})
    ctx = Ctx([4, 5])                # B2 (first): 5, Give Ground; B1: 6, a loss
    fire.resolve(sc, rules, ctx)
    assert rules["plans"]["fire_results"]["R1"] == {"losses": 1, "gg": True, "source": "0606"}
    settle(sc, rules, ctx, lambda: fire.apply_results(sc, rules, ctx))
    assert rules["pieces"]["R1"]["sq"] == "0406"        # straight away from 0606, not from 0505 (K-GG-2)


def test_the_morale_phase_ends_the_turn_and_the_next_begins():
    """K-SEQ-3, K-MOV-6 (a side need not move: it ends its step), K-SEQ-1."""
    units = [U("B1", "blue", "tank", "0101", "01", "N", "HA"), U("R1", "red", "tank", "0808", "21", "S", "HA")]
    sc, rules = table(units, position={"turn": 1, "ap": 4, "step": "move", "mover": "second", "initiative": "blue"})
    ctx = Ctx()
    RULESET.apply(sc, rules, RULESET.next_step(sc, rules), {"type": "end"}, ctx)
    kinds = [e["type"] for e in ctx.events]
    assert kinds.index("morale-phase") < kinds.index("game-turn") and rules["turn"] == 2
    assert RULESET.next_step(sc, rules).kind == "initiative"


def test_a_demoralised_defender_may_still_counter_attack():
    """K-CA-19, K-CAR-3."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0505", "01", "N", "HA"), U("R1", "red", "tank", "0506", "21", "S", "HA")]
    sc, rules = table(units, position=POS_AP(2))
    a = {"n": 1, "side": "blue", "units": ["B1"], "from": "0505", "target": "0506"}
    rules["assaults"] = [a]
    rules["demoralised"] = ["r"]
    rules["ca"] = {"n": 1, "att": ["B1"], "def": ["R1"], "body": ["R1"], "round": 1, "steps": [{"do": "counter"}]}
    assert assault.decision(sc, rules)[1] == "counter-attack"
    ctx = Ctx([4, 6, 6])
    assault.answer(sc, rules, "counter-attack", {"type": "counter", "attempt": True}, ctx)
    assert ctx.of("counter-attack")[0]["success"] and rules["pieces"]["R1"]["sq"] == "0506"


def test_open_ground_has_no_effect():
    """K-BTF-2: open farmland, scattered woods and small settlements have no effect: every square
    without a feature is open, with no modifier to fire or assault and no limit to movement."""
    from pbem.rulesets.kkoh import fire, movement

    units = [U("B1", "blue", "tank", "0505", "01", "N", "M"), U("R1", "red", "tank", "0506", "21", "S", "HD")]
    sc, rules = table(units, position=POS_FIRE)
    assert sc.area["0506"].name == "open" and sc.area["0506"].ca_defence == 0
    board = st.Board(sc, rules)
    assert "target_pd_or_cover" not in fire.modifiers(sc, board, shot(sc, rules, "blue", "B1", "R1"))
    assert "defensive_terrain" not in _factors(units, ["B1"], ["R1"])
    assert movement.terrain_block(sc, board.profile("B1"), "0505", "0405") is None
