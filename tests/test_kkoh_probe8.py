"""The eighth rules probe of kkoh, of the inside of a square: "A unit or group may move out of
any edge regardless of original facing or position" (K-GM-7), and "units that are facing an
edge of a square are placed closest to that edge" (K-GM-2). Up to 1.13.0 a unit could not
leave its square when a friend behind it would be left behind an empty place, so a tank in
front of its infantry, or the cover picture's tanks in front of their AIFVs, stood frozen; and
a unit left behind a gap by Give Ground or a loss stayed there, fired upon as the front rank
but not allowed to fire as one. Those behind the place a unit leaves now close up, and the
report says so. Each test fails on the code before the fix, but
`test_k_gm_2_a_player_placing_a_unit_behind_a_gap_is_still_refused`, a guard: a move's own
cells behind an empty place are still refused."""

from __future__ import annotations

import copy

import pytest

from pbem import rulesets
from pbem.rulesets.kkoh import RULESET, fire, layout
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_rules import POS_AP, POS_FIRE, Ctx, U, mv, settle, shot, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def _moves_of(sc, rules, unit: str) -> list[tuple[str, str]]:
    offered = RULESET.legal_orders(sc, rules, RULESET.next_step(sc, rules))
    return sorted((o["to"], o["facing"]) for o in offered if o["type"] == "move" and o["units"] == [unit])


@pytest.mark.parametrize("ap", [2, 3, 4])
def test_k_gm_7_a_tank_in_front_of_its_infantry_leaves_and_the_infantry_closes_up(ap):
    """T1 (front rank) and I1 behind it, both facing N in 0505. 1.13.0 refused every move of
    T1 out of the square: "what stays behind in 0505: I1 faces N but would stand behind an
    empty place"."""
    units = [U("T1", "blue", "tank", "0505", "01", "N", "HA"), U("I1", "blue", "ri", "0505", "11", "N", "HA"),
             U("R1", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_AP(ap))
    assert ("0506", "N") in _moves_of(sc, rules, "T1")
    ctx = mv(sc, rules, ["T1"], "0506", "N", ap)
    assert (rules["pieces"]["T1"]["sq"], rules["pieces"]["I1"]["cell"]) == ("0506", "01")
    close = ctx.of("close-up")
    assert [e["cells"] for e in close] == [{"I1": "01"}]
    assert close[0]["text"] == "In 0505, I1 steps up to cell 01, to stand closest to the edge it faces (K-GM-2)."
    assert layout.check_square(sc, st.Board(sc, rules), "0505") is None


def test_k_gm_7_the_cover_pictures_tanks_advance_past_nothing_and_leave_their_aifvs():
    """The book's cover picture: tank companies in front, AIFV companies behind, all on HA,
    Action Phase 2. T1 and T2 may go on alone (1.13.0 offered them no move out of 0505); the
    AIFVs behind step up into the front rank, each in its file."""
    units = [U("T1", "blue", "tank", "0505", "00", "N", "HA"), U("T2", "blue", "tank", "0505", "01", "N", "HA"),
             U("A1", "blue", "aifv", "0505", "10", "N", "HA"), U("A2", "blue", "aifv", "0505", "11", "N", "HA"),
             U("R1", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_AP(2))
    assert ("0506", "N") in _moves_of(sc, rules, "T1")
    before = copy.deepcopy(rules)
    ctx = mv(sc, rules, ["T1", "T2"], "0506", "N", 2)
    assert {p: rules["pieces"][p]["cell"] for p in ("A1", "A2")} == {"A1": "00", "A2": "01"}
    assert ctx.of("close-up")[0]["cells"] == {"A1": "00", "A2": "01"}
    rules = before
    mv(sc, rules, ["T1"], "0506", "N", 2)        # one alone: only the AIFV of its file steps up
    assert {p: rules["pieces"][p]["cell"] for p in ("A1", "A2", "T2")} == {"A1": "00", "A2": "11", "T2": "01"}


def test_k_gm_2_a_unit_that_gave_ground_leaves_no_gap_and_the_one_behind_fires_as_the_front_rank():
    """T1 gives ground under fire; T2 behind it closes up, and in the next Action Phase fires
    as the front rank (1.13.0 left it in rank 2: red could fire at it, K-GM-10, but it could
    not fire back, K-GM-9)."""
    units = [U("T1", "blue", "tank", "0505", "01", "N", "HA"), U("T2", "blue", "tank", "0505", "11", "N", "HD"),
             U("R1", "red", "tank", "0506", "21", "S", "HA"), U("R2", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "red", {"type": "fire", "unit": "R1", "target": "T1"})
    ctx = Ctx([4])          # 4 + the modifiers: Give Ground, no loss
    fire.resolve(sc, rules, ctx)
    settle(sc, rules, ctx, lambda: fire.apply_results(sc, rules, ctx))
    assert rules["pieces"]["T1"]["sq"] != "0505" and rules["pieces"]["T2"]["cell"] == "01"
    assert [e["cells"] for e in ctx.of("close-up")] == [{"T2": "01"}]
    rules["ps"] = st.fresh_ps()
    rules["ap"] = 3
    assert fire.firer_block(sc, st.Board(sc, rules), "T2") is None
    assert shot(sc, rules, "blue", "T2", "R1")["target"] == "R1"


def test_k_gm_2_a_unit_destroyed_in_front_leaves_no_gap():
    from pbem.rulesets.kkoh import common

    units = [U("T1", "blue", "tank", "0505", "01", "N", "HA"), U("T2", "blue", "tank", "0505", "11", "N", "HD"),
             U("T3", "blue", "tank", "0505", "21", "N", "HD"), U("R1", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_FIRE)
    board = st.Board(sc, rules)
    ctx = Ctx()
    assert common.lose(sc, board, "T1", board.points_left("T1"), ctx, "K-DF-7", "Direct Fire")
    assert {p: rules["pieces"][p]["cell"] for p in ("T2", "T3")} == {"T2": "01", "T3": "11"}
    assert layout.check_square(sc, board, "0505") is None


def test_k_gm_2_a_friend_entering_a_square_need_not_fill_a_hole():
    """T1 gives ground out of 0505 under fire, leaving I1 behind its place: 1.13.0 let a friend
    enter 0505 only into the hole in front of I1; facing E, or into cell 00, it was refused
    (K-GM-2). I1 now steps up, and T2 enters either way."""
    units = [U("T1", "blue", "tank", "0505", "01", "N", "HA"), U("I1", "blue", "ri", "0505", "11", "N", "HA"),
             U("T2", "blue", "tank", "0405", "01", "E", "HA"),
             U("R1", "red", "tank", "0506", "21", "S", "HA"), U("R2", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "red", {"type": "fire", "unit": "R1", "target": "T1"})
    ctx = Ctx([5])
    fire.resolve(sc, rules, ctx)
    settle(sc, rules, ctx, lambda: fire.apply_results(sc, rules, ctx))
    assert rules["pieces"]["I1"]["cell"] == "01"
    rules["ps"] = st.fresh_ps()
    entered = copy.deepcopy(rules)
    mv(sc, entered, ["T2"], "0505", "E", 2)
    assert entered["pieces"]["T2"]["sq"] == "0505"
    mv(sc, rules, ["T2"], "0505", "N", 2, cells=["00"])
    assert (rules["pieces"]["T2"]["sq"], rules["pieces"]["T2"]["cell"]) == ("0505", "00")


def test_k_gm_2_facing_anew_in_the_square_lets_those_behind_step_up():
    """T1 turns to face E in its own square (K-MOV-3, "reposition itself within a square");
    I1, behind its old place, steps up. 1.13.0 refused the turn."""
    units = [U("T1", "blue", "tank", "0505", "01", "N", "HA"), U("I1", "blue", "ri", "0505", "11", "N", "HA"),
             U("R1", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_AP(2))
    assert ("0505", "E") in _moves_of(sc, rules, "T1")
    mv(sc, rules, ["T1"], "0505", "E", 2)
    assert rules["pieces"]["T1"]["f"] == "E" and rules["pieces"]["I1"]["cell"] == "01"
    assert layout.check_square(sc, st.Board(sc, rules), "0505") is None


def test_k_gm_2_a_player_placing_a_unit_behind_a_gap_is_still_refused():
    """Closing up moves those left behind, never a unit its order places: a move's own cells
    behind an empty place are refused as before."""
    from pbem.rulesets.base import IllegalOrder

    units = [U("T1", "blue", "tank", "0505", "01", "N", "HA"), U("T2", "blue", "tank", "0405", "01", "E", "HA"),
             U("R1", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_AP(2))
    with pytest.raises(IllegalOrder, match="behind an empty place"):
        mv(sc, rules, ["T2"], "0505", "N", 2, cells=["10"])


def test_k_gm_2_attackers_occupying_leave_no_gap_behind_them():
    """B0 wins its Close Assault and occupies 0506 (K-CA-15); B9, which stayed behind it in
    0505, steps up (1.13.0 left it behind the empty place)."""
    from pbem.rulesets.kkoh import assault

    units = [U("B0", "blue", "tank", "0505", "01", "N", "HA"), U("B9", "blue", "tank", "0505", "11", "N", "HD"),
             U("R1", "red", "tank", "0909", "01", "S")]
    sc, rules = table(units, position=POS_AP(2))
    rules["assaults"] = [{"n": 1, "side": "blue", "units": ["B0"], "from": "0505", "target": "0506"}]
    rules["ca"] = {"n": 1, "att": ["B0"], "def": [], "body": [], "round": 1, "steps": [{"do": "occupy", "fought": True}]}
    ctx = Ctx()
    assault.run(sc, rules, ctx)
    while assault.decision(sc, rules) is not None:
        _, kind = assault.decision(sc, rules)[:2]
        assault.answer(sc, rules, kind, assault.legal(sc, rules, kind)[0], ctx)
    assert rules["pieces"]["B0"]["sq"] == "0506"
    assert rules["pieces"]["B9"]["cell"] == "01" and [e["cells"] for e in ctx.of("close-up")] == [{"B9": "01"}]


def test_k_ca_18_a_group_giving_ground_together_lands_a_group():
    """R1 and R2, one battle group, give ground together from 0506: they keep one route and land
    a group (K-CA-18); those left behind close up only once both have gone. (Closing up after
    the first had gone left the second alone and out of its group, to roll its own route.)"""
    from pbem.rulesets.kkoh import giveground

    units = [U("R1", "red", "tank", "0506", "21", "S", "HD", group="g1"),
             U("R2", "red", "tank", "0506", "20", "S", "HD", group="g1"),
             U("B1", "blue", "tank", "0505", "01", "N", "HA")]
    sc, rules = table(units, position=POS_AP(2))
    board = st.Board(sc, rules)
    ctx = Ctx([1] * 6)
    giveground.give_ground(sc, board, ["R1", "R2"], "0505", ctx, "t1.test", fire=False, rule="K-CAR-1")
    while giveground.waiting(rules):
        giveground.answer(sc, rules, giveground.legal_places(rules)[0], ctx)
    r1, r2 = rules["pieces"]["R1"], rules["pieces"]["R2"]
    assert r1["sq"] == r2["sq"] != "0506" and r1.get("g") is not None and r1.get("g") == r2.get("g")


def test_k_mov_3_a_unit_turns_in_its_square_where_the_one_behind_it_steps_up():
    """T1 (02, facing N) turns to face E; I1 behind it (12) steps up to 02, and T1 takes the
    east file's front-most place left: the turn is offered and taken. (Placing T1 before I1
    stepped up put it in front of I1's new place, facing elsewhere, and refused the turn.)"""
    units = [U("T1", "blue", "tank", "0505", "02", "N", "HA"), U("I1", "blue", "ri", "0505", "12", "N", "HA"),
             U("R1", "red", "tank", "0909", "21", "S", "HA")]
    sc, rules = table(units, position=POS_AP(2))
    assert ("0505", "E") in _moves_of(sc, rules, "T1")
    ctx = mv(sc, rules, ["T1"], "0505", "E", 2)
    assert (rules["pieces"]["T1"]["f"], rules["pieces"]["I1"]["cell"]) == ("E", "02")
    assert [e["type"] for e in ctx.events][:2] == ["move", "close-up"]      # the turn, then who steps up
    assert layout.check_square(sc, st.Board(sc, rules), "0505") is None
