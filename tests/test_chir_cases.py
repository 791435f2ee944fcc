"""Runs every data-driven chir case in tests/cases/chir/ through the real engine (a sandbox
game with scripted dice; DESIGN §7): case, rule, description, position, packets, dice,
expect, and `reading` where the text contradicts itself."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pbem import rulesets
from pbem.rulesets.chir import RULESET
from tests.support.cases import run_case

CASES = sorted((Path(__file__).parent / "cases" / "chir").glob("*.yaml"))
MARKERS = {"conf": "confusion", "fired": "fired", "half": "half"}


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "chir", "pbem.rulesets.chir")


def _matches(value, pattern) -> bool:
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(_matches(value.get(k), v) for k, v in pattern.items())
    if isinstance(pattern, list):
        return isinstance(value, list) and len(value) == len(pattern) and all(map(_matches, value, pattern))
    return value == pattern


def _check(rules: dict, events: list[dict], expect: dict) -> None:
    for uid, want in (expect.get("units") or {}).items():
        u = rules["units"][uid]
        if "status" in want:
            assert u["status"] == want["status"], uid
        if "hex" in want:
            assert u["hex"] == want["hex"], f"{uid}: expected {want['hex']}, found {u['hex']}"
        if "strength" in want:
            assert u["str"] == want["strength"], f"{uid}: strength {u['str']}, expected {want['strength']}"
        if "markers" in want:
            assert sorted(n for k, n in MARKERS.items() if u[k]) == sorted(want["markers"]), uid
    for h, side in (expect.get("control") or {}).items():
        assert rules["control"].get(h, "german") == side, h
    i = 0  # expected events appear in this order (others may come between)
    for pattern in expect.get("events") or []:
        while i < len(events) and not _matches(events[i], pattern):
            i += 1
        assert i < len(events), f"event not found in order: {pattern}\n" + "\n".join(e["text"] for e in events)
        i += 1
    for pattern in expect.get("absent_events") or []:
        assert not any(_matches(e, pattern) for e in events), f"unexpected event {pattern}"
    if "need" in expect:
        need = RULESET.next_step(rules)
        if expect["need"] is None:
            assert need is None
        else:
            assert need is not None and {k: getattr(need, k) for k in expect["need"]} == expect["need"]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(tmp_path: Path, path: Path) -> None:
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key in ("case", "rule", "description", "position", "packets", "dice", "expect"):
        assert key in case, f"{path.name}: missing {key}"
    doc = RULESET.scenarios["historical"]()
    doc["position"] = case["position"]
    state, events = run_case(tmp_path, "chir", doc, case["packets"], case["dice"], case.get("options"))
    rolls = [e for e in events if e["type"] == "roll"]
    assert len(rolls) == len(case["dice"]), "every scripted die is used, and no other"
    _check(state["rules"], events, case["expect"])


def test_cases_cover_the_acceptance_list() -> None:
    rules = {yaml.safe_load(p.read_text(encoding="utf-8"))["rule"] for p in CASES}
    assert {"13.0", "9.6", "9.9.2", "4.1", "8.3", "4.5"} <= rules
