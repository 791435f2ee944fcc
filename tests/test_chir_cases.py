"""Runs every data-driven chir case in tests/cases/chir/ through the real engine (a sandbox
game with scripted dice; DESIGN §7): case, rule, description, position, packets, dice,
expect, and `reading` where the text contradicts itself. A case whose `expect` has `rejected`
({rule, message}) expects the last packet to be refused for that reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from pbem.core.canonical import load_mapping

from pbem.rulesets.chir import RULESET
from pbem.rulesets.chir import state as st
from tests.support.cases import check_events, check_need, play_case

CASES = sorted((Path(__file__).parent / "cases" / "chir").glob("*.yaml"))
MARKERS = ("confusion", "fired", "half")


def _check(game, rules: dict, events: list[dict], expect: dict) -> None:
    sc = game.scenario
    for uid, want in (expect.get("units") or {}).items():
        if "status" in want:
            assert st.status(rules, uid) == want["status"], uid
        if "hex" in want:
            found = st.hex_of(rules, uid)
            assert found == want["hex"], f"{uid}: expected {want['hex']}, found {found}"
        if "strength" in want:
            points = st.strength(sc, rules, uid)
            assert points == want["strength"], f"{uid}: strength {points}, expected {want['strength']}"
        if "markers" in want:
            assert sorted(n for n in MARKERS if st.marked(rules, n, uid)) == sorted(want["markers"]), uid
    first_clause = st.recorded(sc, rules)
    for h, side in (expect.get("control") or {}).items():
        assert first_clause(h) == side, h
    check_events(events, expect)
    check_need(game, rules, expect)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(tmp_path: Path, path: Path) -> None:
    case = load_mapping(path)
    for key in ("case", "rule", "description", "position", "packets", "dice", "expect"):
        assert key in case, f"{path.name}: missing {key}"
    doc = RULESET.scenarios["historical"]()
    doc["position"] = case["position"]
    played = play_case(tmp_path, "chir", case, doc, case.get("options"))
    if played is None:
        return
    folder, events = played
    _check(folder.game, folder.state["rules"], events, case["expect"])


def test_cases_cover_the_acceptance_list() -> None:
    rules = {load_mapping(p)["rule"] for p in CASES}
    assert {"13.0", "9.6", "9.9.2", "4.1", "8.3", "4.5"} <= rules
