"""The sixth rules probe of kkoh: K-INF-7, "Mechanised, that is Armoured Infantry in tracked
vehicles, may Close Assault as if Armour or Infantry for factors, but as only one unit for
strength purposes": an attacking mechanised infantry unit counts as armour or as its infantry
type, at the attacker's choice (`counts_as` of the assault or breakthrough order; left out, the
better final factor, armour on a tie), never as both. K-EX-3: the Marder's Breakthrough against
the T64s supported by the BTR, with a flank attack, is "at evens" counted as armour. Each test
fails on the code before the fix, which counted such a unit as armour and as infantry at once."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from pbem import rulesets
from pbem.core.canonical import load_file
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import RULESET, assault, flow
from pbem.rulesets.kkoh import state as st
from tests.test_kkoh_cases import scenario_doc
from tests.test_kkoh_probe3 import drive
from tests.test_kkoh_probe5 import example_to_the_breakthrough
from tests.test_kkoh_rules import POS_AP, Ctx, U, table

CASES = Path(__file__).parent / "cases" / "kkoh"
EXAMPLE_DICE = [5, 1, 4, 2, 3, 5, 2, 6]          # the case's dice: Close Assaults 1 and 2 (K-EX-1, K-EX-2)


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def fights(ctx):
    return [e for e in ctx.events if e["type"] == "assault"]


def _example(breakthrough: dict | None = None):
    """The rulebook's example (case close-assault-example.yaml): the Marder wins Close Assault 1,
    the Leopards are thrown back from Close Assault 2; with `breakthrough` (the order, or None for
    the standing order `take`) the Marder makes the Breakthrough, Close Assault 3, against the
    T64s supported by the remaining BTR company (K-EX-3), from their flank."""
    sc, rules, orders = example_to_the_breakthrough()
    if breakthrough is not None:
        orders.append({"_for": "breakthrough", **breakthrough})
    orders.append({"_for": "ca-defence", "type": "defend", "units": ["R-T64"], "support": "R-BTR3"})
    ctx = drive(sc, rules, orders, EXAMPLE_DICE + [3] + [6] * 12, policies={"breakthrough": "take", "ca_defence": "ask"},
                stop_step="move2", all_used=True)
    return sc, rules, ctx


BOOK_BREAKTHROUGH = {"units_fewer": -1, "defenders_ri_vs_armour": -1, "defenders_armour_and_infantry": -1, "flank": 2,
                     "orders": 1}


def test_k_ex_3_the_breakthrough_with_the_marder_counted_as_armour_is_at_evens():
    """K-EX-3: "A quick check of the factors would put the Germans at evens": units fewer -1,
    orders +1, flank +2, the defenders' RI against armour -1 and armour and infantry -1; the
    Marder, counted as armour (`counts_as: armour` on the breakthrough order), has no arms
    factor of its own. The engine before the fix gave +2 (RI against armour +1 and armour and
    infantry +1 as well)."""
    sc, rules, ctx = _example({"type": "breakthrough", "assault": 1, "take": True, "counts_as": "armour"})
    bt = fights(ctx)[2]
    assert (bt["assault"], bt["breakthrough"], bt["attackers"], bt["defenders"]) == (3, True, ["B-Marder"],
                                                                                    ["R-T64", "R-BTR3"])
    assert bt["factors"] == BOOK_BREAKTHROUGH and bt["factor"] == 0
    assert (bt["counts_as"], bt["counts_as_by"], bt["counts_as_units"]) == ("armour", "order", ["B-Marder"])
    assert bt["text"].startswith("Close Assault 3 (B-Marder against R-T64, R-BTR3; B-Marder counts as armour, as "
                                 "ordered, K-INF-7): final factor EVENS (units fewer -1, defenders ri vs armour -1, "
                                 "defenders armour and infantry -1, flank +2, orders +1), die 3: DF")


def test_k_ex_3_the_breakthrough_with_the_marder_counted_as_infantry_is_plus_two():
    """K-INF-7: counted as infantry (`counts_as: infantry`), the Marder's RI against the T64s' armour
    +1; the Russians have no armour and infantry against it (+2 in all); not armour, so the
    defenders' RI against armour goes. Before the fix both arms factors of the attacker counted."""
    sc, rules, ctx = _example({"type": "breakthrough", "assault": 1, "take": True, "counts_as": "infantry"})
    bt = fights(ctx)[2]
    assert bt["factors"] == {"units_fewer": -1, "attackers_ri_vs_armour": 1, "defenders_armour_and_infantry": -1,
                             "flank": 2, "orders": 1}
    assert bt["factor"] == 2 and bt["result"] == "DR"
    assert (bt["counts_as"], bt["counts_as_by"]) == ("infantry", "order")


def test_k_inf_7_without_counts_as_the_engine_takes_the_better_for_the_attacker_and_says_so():
    """K-INF-7: the standing order `take` sends the breakthrough order without `counts_as`: the
    engine picks the choice with the higher final factor, infantry (+2 against EVENS), records it
    on the assault and names it in the event."""
    sc, rules, ctx = _example(None)
    bt = fights(ctx)[2]
    assert bt["factors"] == {"units_fewer": -1, "attackers_ri_vs_armour": 1, "defenders_armour_and_infantry": -1,
                             "flank": 2, "orders": 1}
    assert bt["factor"] == 2
    assert (bt["counts_as"], bt["counts_as_by"], bt["counts_as_units"]) == ("infantry", "engine", ["B-Marder"])
    assert bt["text"] == ("Close Assault 3 (B-Marder against R-T64, R-BTR3; B-Marder counts as infantry, the better "
                          "factor for the attacker, K-INF-7): final factor +2 (units fewer -1, attackers ri vs armour "
                          "+1, defenders armour and infantry -1, flank +2, orders +1), die 3: DR (K-CAF-1, K-CAT-1).")


def test_k_ex_1_the_first_assault_is_still_evens_with_the_marder_counted_as_infantry():
    """K-EX-1 ("The Germans roll 5 at evens"): the Marder against the BTR company supported by
    another: units fewer -1, orders +1, the Marder's RI against armour +1, the BTRs' armour and
    infantry -1 (the BTRs, defenders in wheeled carriers, keep counting as both). Counted as
    armour it would be -2 (no RI of its own; the BTRs' RI against armour -1). Before the fix:
    EVENS too, but with both the Marder's arms factors and the BTRs' RI against armour."""
    sc, rules, ctx = _example(None)
    first, second = fights(ctx)[:2]
    assert first["factors"] == {"units_fewer": -1, "attackers_ri_vs_armour": 1, "defenders_armour_and_infantry": -1,
                                "orders": 1}
    assert (first["factor"], first["die"], first["result"]) == (0, 5, "DR")
    assert (first["counts_as"], first["counts_as_by"]) == ("infantry", "engine")
    # the Leopards have no choice to make (K-EX-2)
    assert second["factor"] == -1 and "counts_as" not in second and "K-INF-7" not in second["text"]
    case = load_file(CASES / "close-assault-example.yaml")
    expected = next(e for e in case["expect"]["events"] if e["type"] == "assault" and e["assault"] == 1)
    assert expected["factors"] == first["factors"] and expected["counts_as"] == "infantry"


def _lone(counts_as=None, die=3, carrier="aifv", ap=2, policies=None):
    units = [U("B1", "blue", "ri", "0504", "01", "N", "HA", carrier=carrier, mounted=True),
             U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(ap), turns=3)
    order = {"type": "assault", "units": ["B1"], "target": "0505"}
    if counts_as:
        order["counts_as"] = counts_as
    ctx = drive(sc, rules, [order, {"type": "end"}], [die] + [6] * 12, policies, stop_step="move2")
    return sc, rules, ctx


def test_k_inf_7_a_marder_alone_against_a_lone_tank_counts_once():
    """K-INF-7, K-CAF-1: mounted RI in an AIFV against a lone tank, front to front, HA against HD
    (no orders factor). By default it counts as infantry: RI against armour +1 (die 3: DF); the
    engine before the fix added armour and infantry +1 (+2, die 3: DR). Ordered as armour: no
    arms factor at all."""
    sc, rules, ctx = _lone(policies={"occupy_facing": "ask"})     # stopped while the assault is on record
    assert (rules["assaults"][0]["counts_as"], rules["assaults"][0]["counts_as_by"]) == ("infantry", "engine")
    fight = fights(ctx)[0]
    assert fight["factors"] == {"attackers_ri_vs_armour": 1}
    assert (fight["factor"], fight["result"], fight["counts_as"]) == (1, "DF", "infantry")
    # the choice holds for the whole assault: the second round of Desperate Fighting (K-CAR-4)
    assert [(f["round"], f["counts_as"], f["factors"]) for f in fights(ctx)] == [
        (1, "infantry", {"attackers_ri_vs_armour": 1}), (2, "infantry", {"attackers_ri_vs_armour": 1})]
    sc, rules, ctx = _lone("armour")
    fight = fights(ctx)[0]
    assert (fight["factors"], fight["factor"], fight["result"]) == ({}, 0, "DF")
    assert fight["text"].startswith("Close Assault 1 (B1 against R1; B1 counts as armour, as ordered, K-INF-7): "
                                    "final factor EVENS (no factor), die 3: DF")


def test_k_inf_7_the_factor_function_takes_the_better_choice_armour_on_a_tie():
    """K-INF-7 through `assault.factors`: against a mounted MI company in an AIFV (a defender, which
    keeps counting as armour and as infantry) the attacking Marder is better as infantry
    (RI against armour +1, the defenders' armour and infantry -1: 0) than as armour (the
    defenders' MI -2, armour and infantry -1: -3); against a lone truck either choice gives the
    same factor, and armour is taken."""
    units = [U("B1", "blue", "ri", "0504", "01", "N", "HA", carrier="aifv", mounted=True),
             U("R1", "red", "mi", "0505", "21", "S", "HD", carrier="aifv", mounted=True),
             U("R2", "red", "truck", "0604", "10", "W", "HD")]
    sc, rules = table(units, position=POS_AP(2))
    board = st.Board(sc, rules)
    a = {"n": 1, "side": "blue", "units": ["B1"], "from": "0504", "target": "0505"}
    assert assault.chosen_factors(sc, board, a, ["B1"], ["R1"], ["R1"]) == (
        {"attackers_ri_vs_armour": 1, "defenders_armour_and_infantry": -1}, "infantry")
    assert assault.factors(sc, board, dict(a, counts_as="armour"), ["B1"], ["R1"], ["R1"]) == {
        "defenders_mi": -2, "defenders_armour_and_infantry": -1}
    b = {"n": 1, "side": "blue", "units": ["B1"], "from": "0504", "target": "0604"}
    assert assault.chosen_factors(sc, board, b, ["B1"], ["R2"], ["R2"]) == (
        {"defenders_vulnerable": 2}, "armour")


def test_k_inf_7_counts_as_is_refused_where_there_is_no_choice_and_wheeled_carriers_count_as_before():
    """K-INF-7 is for Armoured Infantry in tracked vehicles assaulting mounted: infantry in a
    wheeled armoured carrier keeps counting as armour and as infantry (+2 against a tank) and
    may not name `counts_as`; nor may a dismounting assault (dismounted, it is infantry,
    K-CA-10). The engine before the fix took `counts_as` without a word."""
    sc, rules, ctx = _lone(carrier="wheeled", ap=3)      # motorised, it moves in Action Phase 3 (K-MOV-4)
    fight = fights(ctx)[0]
    assert fight["factors"] == {"attackers_ri_vs_armour": 1, "attackers_armour_and_infantry": 1}
    assert "counts_as" not in fight and "K-INF-7" not in fight["text"]
    for carrier, extra in (("wheeled", {"counts_as": "armour"}), ("aifv", {"counts_as": "infantry", "dismount": True})):
        units = [U("B1", "blue", "ri", "0504", "01", "N", "HA", carrier=carrier, mounted=True),
                 U("R1", "red", "tank", "0505", "21", "S", "HD")]
        sc, rules = table(units, position=POS_AP(3), turns=3)
        need = flow.next_step(sc, rules)
        with pytest.raises(IllegalOrder, match="counts_as") as e:
            flow.apply(sc, rules, need, {"type": "assault", "units": ["B1"], "target": "0505", **extra}, Ctx())
        assert e.value.rule == "K-INF-7" and not rules["assaults"]


def test_k_inf_7_the_order_schema_and_the_offered_orders():
    """The schema documents `counts_as` on `assault` and `breakthrough` (armour or infantry); the
    orders offered leave it out (the engine's best), and a `breakthrough` declining with it is
    refused."""
    schema = RULESET.order_schema
    by_type = {o["properties"]["type"]["const"]: o for o in schema["oneOf"]}
    for kind in ("assault", "breakthrough"):
        assert by_type[kind]["properties"]["counts_as"] == {"enum": ["armour", "infantry"]}
        assert "counts_as" in by_type[kind]["title"] and "K-INF-7" in by_type[kind]["title"]
    jsonschema.validate({"type": "assault", "units": ["B1"], "target": "0505", "counts_as": "armour"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "assault", "units": ["B1"], "target": "0505", "counts_as": "both"}, schema)
    units = [U("B1", "blue", "ri", "0504", "01", "N", "HA", carrier="aifv", mounted=True),
             U("R1", "red", "tank", "0505", "21", "S", "HD")]
    sc, rules = table(units, position=POS_AP(2), turns=3)
    offered = [o for o in flow.legal_orders(sc, rules, flow.next_step(sc, rules)) if o["type"] == "assault"]
    assert offered == [{"type": "assault", "units": ["B1"], "target": "0505"},
                       {"type": "assault", "units": ["B1"], "target": "0505", "dismount": True}]
    # the example's Breakthrough: declining it with a `counts_as` is not an answer
    case = load_file(CASES / "close-assault-example.yaml")
    sc = RULESET.scenario(scenario_doc(case["scenario"]), {})
    rules = RULESET.setup(sc)
    ctx = drive(sc, rules, case["packets"][0]["orders"], list(EXAMPLE_DICE), stop_kind="breakthrough")
    need = flow.next_step(sc, rules)
    assert need.kind == "breakthrough"
    with pytest.raises(IllegalOrder, match="counts_as") as e:
        flow.apply(sc, rules, need, {"type": "breakthrough", "assault": 1, "take": False, "counts_as": "armour"}, ctx)
    assert e.value.rule == "K-INF-7" and not rules["assaults"][0].get("bt_done")
