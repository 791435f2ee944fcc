"""Runs every data-driven stalingrad case in tests/cases/stalingrad/ (DATC style:
case, rule, description, position, orders, dice, expect) through the real engine: a
sandbox game whose scenario document carries the case's position, with scripted dice,
one packet of standing orders per side, then one packet of orders per side."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.core.canonical import load_mapping
from pbem.core.errors import RulesError
from pbem.rulesets.stalingrad import RULESET
from tests.support.cases import check_events, check_need, run_case

CASES = sorted((Path(__file__).parent / "cases" / "stalingrad").glob("*.yaml"))


def _check(game, rules: dict, events: list[dict], expect: dict) -> None:
    units = game.scenario.units
    for uid, where in (expect.get("units") or {}).items():
        found = rules["units"][uid]  # its area, or the box it is in
        assert found == where, f"{uid}: expected {where}, found {found}"
    for uid, steps in (expect.get("steps") or {}).items():
        assert rules["units"][uid] not in ("pool", "eliminated", "withdrawn"), f"{uid} is not on the map"
        assert (1 if uid in rules["reduced"] else 2) == steps, uid
    for area, side in (expect.get("control") or {}).items():
        assert rules["control"][area] == side, f"control of {area}"
    for area, by_side in (expect.get("count") or {}).items():
        for side, n in by_side.items():
            found = sum(1 for uid, where in rules["units"].items()
                        if where == area and units[uid].side == side)
            assert found == n, f"{side} units in {area}: expected {n}, found {found}"
    for side, n in (expect.get("cards") or {}).items():
        assert rules["cards"][side] == n
    if "turn" in expect:
        assert rules["turn"] == expect["turn"]
    if "result" in expect:
        result = rules.get("result")
        assert result is not None and all(result[k] == v for k, v in expect["result"].items())
    check_events(events, expect)
    check_need(game, rules, expect)


def _packets(case: dict) -> list[dict]:
    """Standing orders first; then the orders of the side whose phase it is not (its
    decisions, written in advance as a player would), then the phase player's orders."""
    policies = case.get("policies") or {}
    orders = case.get("orders") or {}
    phase_side = case["position"].get("phase", "german-movement").split("-")[0]
    sides = sorted(RULESET.sides, key=lambda side: side == phase_side)
    packets = [{"side": side, "orders": [], "policies": policies[side]} for side in sides if side in policies]
    return packets + [{"side": side, "orders": orders[side]} for side in sides if side in orders]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path, tmp_path: Path) -> None:
    case = load_mapping(path)
    for key in ("case", "rule", "description", "position", "expect"):
        assert key in case, f"{path.name}: missing {key}"
    scenario = {**RULESET.scenarios[RULESET.default_scenario](), "position": case["position"]}
    dice = case.get("dice") or []
    expect = case["expect"]
    if "illegal" in expect:
        # An illegal order of the packet being applied rejects it; one written in an
        # earlier packet (a decision prepared in advance) is void when its turn comes.
        rule, fragment = f"({expect['illegal']['rule']})", expect["illegal"].get("message", "")
        try:
            _, events = run_case(tmp_path / "game", "stalingrad", scenario, _packets(case), dice)
        except RulesError as rejected:
            assert rule in rejected.message and fragment in rejected.message, rejected.message
            return
        voids = [e["text"] for e in events if e["type"] == "void"]
        assert any(rule in text and fragment in text for text in voids), voids
        return
    folder, events = run_case(tmp_path / "game", "stalingrad", scenario, _packets(case), dice)
    rolls = [e for e in events if e["type"] == "roll"]
    assert [r["value"] for r in rolls] == dice, "every scripted die is used, in order"
    _check(folder.game, folder.state["rules"], events, expect)


def test_cases_cover_the_acceptance_list() -> None:
    rules = {load_mapping(p)["rule"] for p in CASES}
    for needed in ("10.3", "10.3(1)", "10.3(2)", "11.2(1)", "11.2(2)", "11.2(3)",
                   "11.3(1)", "11.3(2)", "11.3(3)"):
        assert needed in rules
