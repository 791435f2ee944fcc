"""Runs every data-driven dos case in tests/cases/dos/ through the real engine (a sandbox game
with scripted dice; DESIGN §7): case, rule, description, position, packets, dice, expect,
and `reading` where the text leaves a choice. A case whose `expect` has `rejected` ({rule,
message}) expects the last packet to be refused for that reason.

`expect` may hold: `units` (per unit: hex, status, steps_lost, revealed, disrupted), `vp`
(each side's total, 19.0), `rules` (a pattern matched against the rules state), `events`
and `absent_events` (patterns, in order), `need` (what the game waits for afterwards)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pbem.core.canonical import load_mapping

from pbem.rulesets.dos import RULESET, victory
from pbem.rulesets.dos import state as st
from tests.support.cases import check_events, check_need, matches, play_case

CASES = sorted((Path(__file__).parent / "cases" / "dos").glob("*.yaml"))


def _check(game, rules: dict, events: list[dict], expect: dict) -> None:
    sc = game.scenario
    for uid, want in (expect.get("units") or {}).items():
        if "status" in want:
            assert st.status(rules, uid) == want["status"], f"{uid}: status {st.status(rules, uid)}"
        if "hex" in want:
            assert st.hex_of(rules, uid) == want["hex"], f"{uid}: expected {want['hex']}, found {st.hex_of(rules, uid)}"
        if "steps_lost" in want:
            assert st.lost(rules, uid) == want["steps_lost"], f"{uid}: {st.lost(rules, uid)} steps lost"
        if "revealed" in want:
            assert rules["revealed"].get(uid) == want["revealed"], uid
        if "disrupted" in want:
            assert st.has(rules["disrupted"], uid) == want["disrupted"], uid
    if "vp" in expect:
        assert victory.vp(sc, rules) == expect["vp"], victory.vp(sc, rules)
    if "rules" in expect:
        assert matches(rules, expect["rules"]), {k: rules.get(k) for k in expect["rules"]}
    check_events(events, expect)
    check_need(game, rules, expect)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(tmp_path: Path, path: Path) -> None:
    case = load_mapping(path)
    for key in ("case", "rule", "description", "position", "packets", "dice", "expect"):
        assert key in case, f"{path.name}: missing {key}"
    doc = RULESET.scenarios["historical"]()
    doc["position"] = case["position"]
    played = play_case(tmp_path, "dos", case, doc, case.get("options"))
    if played is None:
        return
    folder, events = played
    _check(folder.game, folder.state["rules"], events, case["expect"])


def test_cases_cover_the_acceptance_list() -> None:
    """Every dos item of acceptance/examples.md has its case."""
    rules = {load_mapping(p)["rule"] for p in CASES}
    assert {"9.4", "10.12", "6.55", "11.43", "10.21", "10.51", "10.52", "12.51", "16.0", "16.63", "18.14"} <= rules
