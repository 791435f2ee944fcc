"""The second rules probe of kkoh 1.11.0 (tester's scripts p1, p3, p7, p7c, p8): exact outcomes
of the four departures it found, each test failing on the code before the fix. Checklist ids
(K-...) in the names and docstrings; positions built with the helpers of test_kkoh_rules.py."""

from __future__ import annotations

import pytest

from pbem import rulesets
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import assault, giveground, movement
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_rules import HQS, POS_AP, POS_FIRE, Ctx, U, settle, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def _move(sc, rules, unit, to, ap, facing="N"):
    ctx = Ctx()
    movement.move(sc, rules, "blue", {"type": "move", "units": [unit], "to": to, "facing": facing}, ctx, ap)
    return ctx


def _next_phase(rules, ap):
    rules["ap"] = ap
    rules["ps"] = st.fresh_ps()
    rules["assaults"] = []
    rules["ca"] = None


def _fight(sc, rules, ctx):
    """Every declared assault, each decision answered with its first legal option."""
    for a in list(rules["assaults"]):
        assault.start(sc, rules, a, ctx)
    for _ in range(20):
        assault.run(sc, rules, ctx)
        d = assault.decision(sc, rules)
        if d is None:
            return
        assault.answer(sc, rules, d[1], assault.legal(sc, rules, d[1])[0], ctx)
    raise AssertionError("the assault did not end")


MARKER = {"id": "R-BN", "side": "red", "row": "bn", "level": "battalion", "superior": "R-HQ"}
FOOT_REFUSAL = "move: B1 has moved in its vehicles this turn: it may not move again on foot (K-INF-4)"


# --- 1. K-INF-4: a dismounting assault keeps the turn's record of a move in vehicles ----------------

@pytest.mark.parametrize("moved_before", [True, False], ids=["moved-in-phase-2", "no-earlier-move"])
def test_infantry_that_dismounted_in_an_assault_may_not_then_walk_on(moved_before):
    """K-INF-4 ("If they have already moved as a Motorised unit they may then not move as an
    Infantry unit that turn, but may still dismount even in a Close Assault"), K-CA-10, K-CA-14.
    Mounted infantry in AIFVs (HA) moves 0504 -> 0505 in its vehicles in Action Phase 2 (or not
    at all: a dismounting assault is itself a move in its vehicles, made only in a phase it may
    move in them); in Phase 3 it assaults 0506, held by an enemy marker alone, dismounting, and
    occupies; in Phase 4 its move on foot to 0507 is refused, as after a plain dismount."""
    start = "0504" if moved_before else "0505"
    units = [U("B1", "blue", "ri", start, "01", "N", "HA", carrier="aifv", mounted=True),
             U("R1", "red", "tank", "0808", "21", "S", "HA")]
    sc, rules = table(units, commands=HQS + [dict(MARKER, square="0506")], position=POS_AP(2))
    if moved_before:
        _move(sc, rules, "B1", "0505", 2)
        assert rules["ts"]["moved"] == {"B1": "vehicle"}
    _next_phase(rules, 3)
    ctx = Ctx()                                             # no die: a marker alone is destroyed at once
    assault.declare(sc, rules, "blue", {"type": "assault", "units": ["B1"], "target": "0506", "dismount": True}, ctx, 3)
    _fight(sc, rules, ctx)
    assert [e["text"] for e in ctx.events if e["type"] in ("hq-destroyed", "occupy")] == [
        "R-BN, alone in 0506, is destroyed by Close Assault 1 with no loss to the attacker (K-CMK-4).",
        "B1 occupies 0506, facing N (K-CA-14, K-CA-17)."]
    assert rules["pieces"]["B1"]["sq"] == "0506" and rules["pieces"]["B1"]["mode"] == "dismounted"
    assert rules["ts"]["moved"] == {"B1": "vehicle"}        # 1.11.0 before the fix: "foot"
    assert rules["ts"]["locked"] == []
    _next_phase(rules, 4)
    with pytest.raises(IllegalOrder) as info:
        _move(sc, rules, "B1", "0507", 4)
    assert (info.value.rule, info.value.message) == ("K-MOV-4", FOOT_REFUSAL)
    assert rules["pieces"]["B1"]["sq"] == "0506"
    assert not [o for o in movement.options(sc, rules, "blue", 4) if o["type"] == "move" and o["to"] != "0506"]
    movement.change_mode(sc, rules, "blue", {"type": "mount", "units": ["B1"]}, Ctx(), 4)   # it may still remount
    assert rules["pieces"]["B1"]["mode"] == "mounted"


# --- 2. K-TER-8, K-MOV-7: a Close Assault is a move into the square ----------------------------------

SLOW = {"marsh": ("0506", {"area": {"0506": "marsh"}}), "stream": ("0605", {"edges": {"0505/0605": "stream"}})}


@pytest.mark.parametrize("terrain", sorted(SLOW))
def test_a_close_assault_into_one_move_terrain_is_limited_as_a_move(terrain):
    """K-TER-8 (marsh: vehicles move in one Action Phase a turn), K-TER-2 (a stream slows
    vehicles), K-MOV-7 ("the unit can move when first normally entitled to, but cannot then move
    again in that game turn"), K-CA-5 (the assault moves partly into the square). A tank on HA
    (first entitled in Action Phase 2) that moved in Phase 2 may neither move nor assault into
    the slowing square in Phase 3, and the assault is not offered; one that has not moved
    assaults in Phase 2, occupies, and is then held for the turn, as after a move."""
    target, spec = SLOW[terrain]
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"), U("R1", "red", "tank", "0808", "21", "S", "HA")]
    refusal = (f"B1 crosses terrain that allows one move a turn from 0505 to {target}: that move is made in the first "
               f"Action Phase it may move (Action Phase 2), and only if it has not moved this turn; it has moved this turn")
    sc, rules = table(units, commands=HQS + [dict(MARKER, square=target)], position=POS_AP(2), **spec)
    _move(sc, rules, "B1", "0505", 2)
    _next_phase(rules, 3)
    order = {"type": "assault", "units": ["B1"], "target": target}
    with pytest.raises(IllegalOrder) as info:
        assault.declare(sc, rules, "blue", order, Ctx(), 3)
    assert (info.value.rule, info.value.message) == (
        "K-MOV-7", f"assault: {refusal}; a Close Assault is a move into {target} (K-CA-5, K-MOV-7)")
    assert rules["assaults"] == [] and rules["pieces"]["B1"]["sq"] == "0505" and rules["ps"]["moved"] == []
    assert assault.options(sc, rules, "blue", 3) == []
    rules["hqs"]["R-BN"] = {"sq": "0909"}                  # the plain move into the emptied square, as before
    with pytest.raises(IllegalOrder) as info:
        _move(sc, rules, "B1", target, 3)
    assert (info.value.rule, info.value.message) == ("K-MOV-7", f"move: {refusal}")

    sc, rules = table([dict(units[0], square="0505"), units[1]], commands=HQS + [dict(MARKER, square=target)],
                      position=POS_AP(2), **spec)
    assert assault.options(sc, rules, "blue", 2) == [order]
    ctx = Ctx()
    assault.declare(sc, rules, "blue", order, ctx, 2)
    _fight(sc, rules, ctx)
    assert rules["pieces"]["B1"]["sq"] == target
    assert rules["ts"]["moved"] == {"B1": "vehicle"} and rules["ts"]["locked"] == ["B1"]   # before the fix: []
    _next_phase(rules, 3)
    onward = "0507" if terrain == "marsh" else "0606"
    with pytest.raises(IllegalOrder) as info:
        _move(sc, rules, "B1", onward, 3)
    assert (info.value.rule, info.value.message) == (
        "K-MOV-4", "move: B1 has made its one move of the turn in difficult terrain (K-MOV-7)")
    assert rules["pieces"]["B1"]["sq"] == target


# --- 3. K-CMK-2: a command marker may move as infantry ----------------------------------------------

def _marker_table(ap, mines=()):
    commands = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "brigade", "square": "0000"},
                {"id": "B-BN", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-HQ", "square": "0202"},
                {"id": "R-HQ", "side": "red", "row": "hq", "level": "division", "square": "0909"}]
    units = [U("B1", "blue", "tank", "0202", "01", "N", "HD"), U("R1", "red", "tank", "0808", "21", "S")]
    return table(units, commands=commands, area={"0203": "woods", "0302": "impassable"},
                 position=dict(POS_AP(ap), minelets=list(mines)))


def _hq(sc, rules, to, ap, dice=()):
    ctx = Ctx(dice)
    movement.move_hq(sc, rules, "blue", {"type": "hq", "hq": "B-BN", "to": to}, ctx, ap)
    return ctx


def _hq_squares(sc, rules, ap):
    return sorted(o["to"] for o in movement.options(sc, rules, "blue", ap) if o["type"] == "hq" and o["hq"] == "B-BN")


def test_a_mechanised_marker_may_move_as_infantry_into_a_wood_in_action_phase_four():
    """K-CMK-2 ("Command markers may move as the troops that they lead/command or as Infantry"),
    K-TER-7 (woods: vehicles only by a road), K-MOV-4 (infantry moves in Action Phase 4). A
    mechanised battalion marker may not enter a wood without a road in Phase 2, in its vehicles,
    and is told when it could; in Phase 4, when infantry moves, it walks in, and the move is
    offered; where neither way goes, the refusal gives both reasons."""
    sc, rules = _marker_table(2)
    assert _hq_squares(sc, rules, 2) == ["0101", "0102", "0103", "0201", "0301", "0303"]
    with pytest.raises(IllegalOrder) as info:
        _hq(sc, rules, "0203", 2)
    assert (info.value.rule, info.value.message) == (
        "K-CMK-2", "hq: vehicles enter 0203 (woods) only by a road, through a face (K-TER-5, K-TER-6, K-TER-7); B-BN may "
                   "go there as infantry, on foot, but only in Action Phase 4, when infantry moves (K-CMK-2)")
    assert rules["hqs"]["B-BN"] == {"sq": "0202"}

    sc, rules = _marker_table(4)
    assert _hq_squares(sc, rules, 4) == ["0101", "0102", "0103", "0201", "0203", "0301", "0303"]
    with pytest.raises(IllegalOrder) as info:
        _hq(sc, rules, "0302", 4)
    assert (info.value.rule, info.value.message) == (
        "K-CMK-2", "hq: B-BN may move as its troops (mechanised, in vehicles) or as infantry, and neither reaches 0302: "
                   "as its troops, 0302 (impassable) is impassable to vehicles (K-TER-10); as infantry, 0302 "
                   "(impassable) is impassable to units on foot (K-TER-10) (K-CMK-2)")
    ctx = _hq(sc, rules, "0203", 4)
    assert rules["hqs"]["B-BN"] == {"sq": "0203"}
    assert [(e["type"], e["text"], e["way"]) for e in ctx.events] == [
        ("hq-move", "B-BN moves to 0203 as infantry, on foot (K-CMK-2).", "infantry")]


def test_a_marker_walking_as_infantry_sets_off_no_minelets():
    """K-CMK-2 with K-SFX-5 ("Any vehicle movement, including command markers ..."): a marker
    in vehicles rolls for the minelets of the squares it leaves and enters when it moves as its
    troops (Action Phase 2); in Action Phase 4 it walks, as infantry, and rolls nothing (the
    owner's better choice of the two ways, README reading), the report saying why."""
    mines = [{"pair": "red-1", "side": "red", "square": "0303"}, {"pair": "red-1", "side": "red", "square": "0304"}]
    sc, rules = _marker_table(2, mines)
    ctx = _hq(sc, rules, "0303", 2, dice=[6, 5])
    assert ctx.labels == ["t1.ap2.mines.B-BN.0303.1", "t1.ap2.mines.B-BN.0303.2"]
    assert [e["text"] for e in ctx.events] == ["B-BN moves to 0303 (K-CMK-2).",
                                               "B-BN crosses the minelets in 0303: 6+5, no loss (K-SFX-5)."]
    sc, rules = _marker_table(4, mines)
    ctx = _hq(sc, rules, "0303", 4)                         # no die scripted: none may be rolled
    assert ctx.labels == [] and rules["hqs"]["B-BN"] == {"sq": "0303"}
    assert [(e["type"], e["text"]) for e in ctx.events] == [
        ("hq-move", "B-BN moves to 0303 (K-CMK-2)."),
        ("minelets", "B-BN moves on foot, as infantry: the minelets in 0303 touch only vehicles, no roll (K-SFX-5, "
                     "K-CMK-2).")]


# --- 4. K-SFX-5 with K-GG-8: minelets in every square a unit Giving Ground crosses -------------------

def test_a_vehicle_giving_ground_through_a_full_square_rolls_for_its_minelets():
    """K-SFX-5 ("Any vehicle movement ... within, in or out of such a square may take a loss"),
    K-GG-8 (through an over-full square to the next). BX gives ground from 0505 away from fire
    from 0506; 0504 is full and it goes on to 0503. Minelets lie in 0505 (left), 0504 (entered
    and left) and 0503 (entered): one roll for each, in the order crossed; the 2 in 0504 is a
    loss, its marker found real."""
    six = [U(f"B{i}", "blue", "tank", "0504", c, "N") for i, c in enumerate(["00", "01", "02", "10", "11", "12"])]
    units = six + [U("BX", "blue", "tank", "0505", "01", "N"), U("R1", "red", "tank", "0506", "21", "S")]
    mines = [{"pair": "red-1", "side": "red", "square": "0504"}, {"pair": "red-1", "side": "red", "square": "0304"},
             {"pair": "red-2", "side": "red", "square": "0503"}, {"pair": "red-2", "side": "red", "square": "0505"}]
    sc, rules = table(units, position=dict(POS_FIRE, minelets=mines))
    ctx = Ctx([6, 6, 1, 1, 2, 6, 5])
    giveground.give_ground(sc, st.Board(sc, rules), ["BX"], "0506", ctx, "t", fire=True)
    settle(sc, rules, ctx)
    assert ctx.dice == [] and rules["pieces"]["BX"]["sq"] == "0503" and rules["pieces"]["BX"]["hits"] == 1
    assert ctx.labels == ["t.1.mines.0505.1", "t.1.mines.0505.2", "t.1.mines.0504.1", "t.1.mines.0504.2",
                          "t.1.mines.0504.real", "t.1.mines.0503.1", "t.1.mines.0503.2"]
    assert [e["text"] for e in ctx.events] == [
        "BX gives ground from 0505 to 0503 by 0504, 0503, to place 01, of 01, 00, 02, by its owner (K-GG-2, K-GG-5).",
        "BX crosses the minelets in 0505: 6+6 = 12, no loss (2 to 4, K-SFX-5).",
        "The minelet marker in 0504 is the real minefield (K-SFX-5).",
        "BX takes a loss (minelets in 0504, 1+1 = 2, K-SFX-5).",
        "BX crosses the minelets in 0503: 6+5 = 11, no loss (2 to 4, K-SFX-5)."]
    assert [m.get("real") for m in rules["minelets"]] == [True, False, None, None]
