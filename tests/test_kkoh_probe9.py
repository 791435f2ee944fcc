"""The ninth rules probe of kkoh, of Close Assault, artillery and morale: counter-battery assets
spent as they are called (K-SFX-2); attackers forced back have Given Ground (K-CA-18, K-CA-7,
K-DF-8); a bombardment dedicated to a group goes on for its survivors in Desperate Fighting
(K-IF-9, K-CAR-4); transport does not count in a battalion's morale (K-MOR-1). And the tenth's,
of the turn and command: a volunteer whose chit is sealed has it revealed before it gives
ground after a DR (K-CAR-1, K-ORD-6). Each test fails on the code before the fix."""

from __future__ import annotations

import pytest

from pbem import rulesets
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import command, common, flow, giveground, layout, movement
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_probe3 import drive, texts
from tests.test_kkoh_rules import POS_AP, Ctx, U, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def test_k_sfx_2_one_counter_battery_asset_bought_serves_one_call():
    """"Cost 5 points per fire programme, up to a maximum of three attempts per battle": red
    bought one. Its first counter-battery call with the assets is taken; a second in the same
    calls step is refused, and no longer offered. 1.13.0 counted a use only as the fire
    resolved, so every battery of the step had the +2."""
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"),
             U("BA", "blue", "sp", "0502", "01", "N", level="battery"),
             U("R1", "red", "tank", "0505", "21", "S", "HD"),
             U("RA", "red", "sp-h", "0509", "21", "S", level="battery"),
             U("RB", "red", "sp-h", "0409", "21", "S", level="battery")]
    sc, rules = table(units, position=POS_AP(3), turns=3, red={"specials": {"counter_battery": 1}})
    flow._start_ap(sc, rules, 3, Ctx(), enter=False)
    rules["step"] = "move1"
    ctx = Ctx([6] * 10)
    for order in ({"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"},
                  {"type": "counter-battery", "unit": "RA", "assets": True}):
        flow.apply(sc, rules, flow.next_step(sc, rules), order, ctx)
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("red", "calls") and rules["used"]["red"] == {"counter_battery": 1}
    assert {"type": "counter-battery", "unit": "RB", "assets": False} in flow.legal_orders(sc, rules, need)
    assert {"type": "counter-battery", "unit": "RB", "assets": True} not in flow.legal_orders(sc, rules, need)
    with pytest.raises(IllegalOrder, match="red has no counter-battery assets left"):
        flow.apply(sc, rules, need, {"type": "counter-battery", "unit": "RB", "assets": True}, ctx)


def test_k_ca_18_attackers_forced_back_have_given_ground_and_may_not_support_a_defence():
    """B1's assault on 0505 ends AR: it Gives Ground back to 0504 (K-CA-18). Red's R3 then
    assaults 0504: B2 defends, and B1, "already Given Ground", may not support it (K-CA-7);
    1.13.0 offered B1 as its support."""
    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"), U("B2", "blue", "tank", "0504", "21", "S", "HD"),
             U("R1", "red", "tank", "0505", "21", "S", "HD"), U("R3", "red", "tank", "0503", "01", "N", "HA")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    orders = [{"type": "assault", "units": ["B1"], "target": "0505"}, {"type": "end"}, {"type": "end"}]
    ctx = drive(sc, rules, orders, [2, 6, 6], policies={"ca_defence": "alone"}, stop_step="move2")
    # (a players' probe: a lone unit's verb read "give")
    assert texts(ctx, "attackers-back") == ["B1 gives ground back to 0504, still facing N (K-CAR-5, K-CA-18)."]
    assert rules["ps"]["gg"] == ["B1"] and "B1" in rules["ps"]["moved"]
    # safe from further fire in the phase (K-DF-8): fire from 0505 at 0504 takes B2, not B1 in front
    # of it, nor is B1 a screen; and it moves no more (K-GG-9)
    board = st.Board(sc, rules)
    assert layout.fire_targets(sc, board, "0504", "0505", "blue", set(rules["ps"]["gg"]))[0] == ["B2"]
    assert layout.fire_targets(sc, board, "0504", "0505", "blue")[0] == ["B1"]
    with pytest.raises(IllegalOrder):
        movement.move(sc, rules, "blue", {"type": "move", "units": ["B1"], "to": "0503", "facing": "S"}, Ctx(), 2)
    for order in ({"type": "assault", "units": ["R3"], "target": "0504"}, {"type": "end"}):
        flow.apply(sc, rules, flow.next_step(sc, rules), order, Ctx())
    drive(sc, rules, [], [], policies={"ca_defence": "ask"})
    need = flow.next_step(sc, rules)
    assert (need.side, need.kind) == ("blue", "ca-defence")
    assert flow.legal_orders(sc, rules, need) == [{"type": "defend", "units": ["B2"], "support": None}]


def test_k_car_4_a_bombardment_for_a_group_goes_on_for_its_survivors_in_desperate_fighting():
    """The group B1+B2 assaults with BA's fire dedicated to it through B1 ("to one particular
    friendly unit or Group", K-IF-9). The first round is DF; B1 is destroyed by attrition; the
    second round keeps the bombardment ("Bombardment continues", K-CAR-4). 1.13.0 counted it
    only while B1 itself was alive: the second round had none."""
    units = [U("B1", "blue", "tank", "0504", "00", "N", "HA", group="a", losses=1),
             U("B2", "blue", "tank", "0504", "01", "N", "HA", group="a"),
             U("BA", "blue", "sp", "0502", "01", "N", level="bn-bde"),
             U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    flow._start_ap(sc, rules, 2, Ctx(), enter=False)
    rules["step"] = "move1"
    orders = [{"type": "assault", "units": ["B1", "B2"], "target": "0505"}, {"type": "end"},
              {"type": "bombard", "unit": "BA", "assault": 1, "support": "B1"}]
    ctx = drive(sc, rules, orders, [6, 1, 6, 1, 4, 6, 6], policies={"ca_defence": "alone", "attrition": "damaged-first"},
                stop_step="move2")
    assert texts(ctx, "destroyed") == ["B1 is destroyed (attrition, K-ATR-1)."]
    assert [t for t in texts(ctx, "assault") if t.startswith("Close Assault 1")] == [
        "Close Assault 1 (B1, B2 against R1): final factor +2 (units more +1, attackers more losses -1, bombardment +2), "
        "die 1: DF (K-CAF-1, K-CAT-1).",
        "Close Assault 1 (B2 against R1): final factor +2 (bombardment +2), die 4: DR (K-CAF-1, K-CAT-1)."]


def test_k_mor_1_transport_does_not_count_in_a_battalions_morale():
    """"below half numbers in strength points, excluding attachments, transport and Command
    Markers": battalion b has two tank companies (4 points) and two truck companies. With the
    tanks down to 1 point it is Demoralised (1 of 4); 1.13.0 counted the trucks, 5 of 8."""
    units = [U("B1", "blue", "tank", "0101", "01", "N", "HA"), U("B2", "blue", "tank", "0201", "01", "N", "HA"),
             U("BT1", "blue", "truck", "0301", "01", "N", "HA"), U("BT2", "blue", "truck", "0401", "01", "N", "HA"),
             U("R1", "red", "tank", "0909", "01", "S")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    board = st.Board(sc, rules)
    assert sc.morale_start["b"] == 4
    ctx = Ctx()
    common.lose(sc, board, "B1", 2, ctx, "K-DF-7", "Direct Fire")
    common.lose(sc, board, "B2", 1, ctx, "K-DF-7", "Direct Fire")
    assert common.strength(sc, board, "b") == 1 and rules["demoralised"] == ["b"]


def test_k_car_1_a_volunteer_whose_chit_is_sealed_is_revealed_before_it_gives_ground():
    """After a DR, R2 (unengaged, its chit still sealed) chose to Give Ground with R1 ("all
    orders become HD"): forcing HD read its sealed chit, and the game stopped with an error (a
    probe, 9 random games in 150). The rules now reveal R2's chit first (K-ORD-6); the Give
    Ground waits for the opening."""
    from pbem.rulesets.kkoh import assault

    units = [U("B1", "blue", "tank", "0504", "01", "N", "HA"), U("R1", "red", "tank", "0505", "21", "S", "HD"),
             U("R2", "red", "tank", "0505", "01", "N", "HD")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    rules["pieces"]["R2"]["o"] = None
    rules["hidden"] = {"red": [{"units": ["R2"], "item": "7.2", "was": "HD"}]}
    rules["assaults"] = [{"n": 1, "side": "blue", "units": ["B1"], "from": "0504", "target": "0505", "won": True}]
    rules["ca"] = {"n": 1, "att": ["B1"], "def": ["R1"], "body": ["R1"], "round": 1, "steps": [{"do": "retreat"}],
                   "volunteers": ["R2"]}
    ctx = Ctx([6] * 12)
    assault.run(sc, rules, ctx)
    assert rules["reveal"] == {"red": ["7.2"]}
    assert (rules["pieces"]["R1"]["sq"], rules["pieces"]["R2"]["sq"]) == ("0505", "0505")
    # the opening comes; the Give Ground goes on, R2 with the others, on HD
    ctx.opened = "7.2"
    command.reveal(sc, rules, "red", "7.2", {"type": "chit", "units": ["R2"], "order": "HD"}, ctx)
    assault.run(sc, rules, ctx)
    assert not rules.get("reveal") and rules["pieces"]["R2"]["o"] == "HD"
    assert rules["gg"]["units"] == ["R1", "R2"]           # giving ground, R1 waiting for its place (K-GG-5)
    while giveground.waiting(rules):
        giveground.answer(sc, rules, giveground.legal_places(rules)[0], ctx)
    assert rules["pieces"]["R1"]["sq"] != "0505" and rules["pieces"]["R2"]["sq"] != "0505"
