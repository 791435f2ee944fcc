"""Runs every data-driven kkoh case in tests/cases/kkoh/ through the real engine (a sandbox
game with scripted dice; DESIGN §7; tests/support/cases.py: run_case).

A case file holds one case, or `cases:` (a list) sharing the file's keys. Each case gives:
`case` (its name), `rules` (the checklist ids it shows), `description`, `scenario` (a compact
table: size, terrain, extra army lists, command markers, formations, units and a starting
`position`; `scenario_doc` fills in the rest), `packets`, `dice` (every scripted die, all
used) and `expect`: `events` (in order), `absent_events`, `units` (square, cell, facing,
hits, order, mode, group: true/false, gone: true), `hqs`, `need`, `awaiting` (what the state
says it waits for: the decision's key and its legal options) and, for a refused order,
`rejected` ({rule, message})."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem import rulesets
from pbem.core.bundled import data_file
from pbem.core.canonical import load_mapping
from tests.support.cases import check_events, check_need, matches, play_case

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "pbem" / "rulesets" / "kkoh" / "data"
CASES = sorted((ROOT / "tests" / "cases" / "kkoh").glob("*.yaml"))


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def scenario_doc(spec: dict) -> dict:
    """A whole scenario document from a compact spec: the shipped tables and army lists (with
    the spec's extra lists), a table of `columns` x `rows` squares, default command markers
    and formations (B-HQ, brigade, in the south-west corner; R-HQ, division, in the
    north-east), default victory (house rules, `turns`), and the spec's units and position."""
    tables = data_file(DATA / "tables.yaml", "tables.yaml")      # parsed once, a fresh copy each time
    armies = data_file(DATA / "armies.yaml", "armies.yaml")
    for name, army in (spec.get("armies") or {}).items():
        armies["lists"][name] = copy.deepcopy(army)
    for path, value in (spec.get("tables") or {}).items():
        node = tables
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    columns, rows = spec.get("columns", 6), spec.get("rows", 6)
    far = f"{columns - 1:02d}{rows - 1:02d}"
    commands = spec.get("commands") or [
        {"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "0000"},
        {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": far}]
    formations = spec.get("formations") or {"b": {"hq": "B-HQ"}, "r": {"hq": "R-HQ"}}
    units = []
    for u in spec.get("units") or []:
        u = dict(u)
        u.setdefault("formation", "b" if u["side"] == "blue" else "r")
        units.append(u)
    sides = {}
    for side, army, chief in (("blue", "wg-1970s", "B-HQ"), ("red", "su-td-1970s", "R-HQ")):
        entry = {"name": side, "army": army, "commander": chief}
        entry.update(spec.get(side) or {})
        sides[side] = entry
    doc = {"name": spec.get("name", "a kkoh test table"), "tables": tables, "armies": armies,
           "map": {"columns": columns, "rows": rows, "area": spec.get("area") or {}, "edges": spec.get("edges") or {},
                   "roads": spec.get("roads") or [], "objectives": spec.get("objectives") or [],
                   "open_terrain": spec.get("open_terrain", False)},
           "sides": sides, "commands": commands, "formations": formations, "units": units,
           "victory": {"house_rule": True, "turns": spec.get("turns", 2), "objective_points": 0}}
    if "position" in spec:
        doc["position"] = spec["position"]
    return doc


def expand(path: Path) -> list[dict]:
    data = load_mapping(path)
    if "cases" not in data:
        return [data]
    shared = {k: v for k, v in data.items() if k != "cases"}
    out = []
    for case in data["cases"]:
        merged = copy.deepcopy(shared)
        for key, value in case.items():
            if key == "scenario" and "scenario" in merged:
                merged["scenario"] = {**merged["scenario"], **value}
            else:
                merged[key] = value
        out.append(merged)
    return out


ALL = [(path, case) for path in CASES for case in expand(path)]


def check_units(game, rules: dict, expect: dict) -> None:
    for uid, want in (expect.get("units") or {}).items():
        if want.get("gone"):
            assert uid not in rules["pieces"] and uid in rules["gone"], f"{uid} should be destroyed"
            continue
        rec = rules["pieces"].get(uid)
        assert rec is not None, f"{uid} is not on the table (gone: {rules['gone']})"
        for key, field in (("square", "sq"), ("cell", "cell"), ("facing", "f"), ("order", "o"), ("mode", "mode")):
            if key in want:
                assert rec.get(field) == want[key], f"{uid} {key}: {rec.get(field)!r}, expected {want[key]!r}"
        if "hits" in want:
            assert rec.get("hits", 0) == want["hits"], f"{uid} hits: {rec.get('hits', 0)}, expected {want['hits']}"
        if "group" in want:
            assert bool(rec.get("g")) == want["group"], f"{uid} group: {rec.get('g')!r}"
    for hid, want in (expect.get("hqs") or {}).items():
        assert rules["hqs"][hid] == want, f"{hid}: {rules['hqs'][hid]}"
    for key in ("demoralised", "ooc", "initiative"):
        if key in expect:
            assert rules[key] == expect[key], f"{key}: {rules[key]!r}"


@pytest.mark.parametrize("path, case", ALL, ids=[f"{p.stem}:{c['case']}" for p, c in ALL])
def test_case(tmp_path: Path, path: Path, case: dict) -> None:
    for key in ("case", "rules", "description", "scenario", "packets", "dice", "expect"):
        assert key in case, f"{path.name}: missing {key}"
    doc = scenario_doc(case["scenario"])
    played = play_case(tmp_path, "kkoh", case, doc)
    if played is None:
        return
    folder, events = played
    rules = folder.state["rules"]
    check_events(events, case["expect"])
    check_units(folder.game, rules, case["expect"])
    check_need(folder.game, rules, case["expect"])
    if "awaiting" in case["expect"]:
        assert matches(folder.state["awaiting"], case["expect"]["awaiting"]), folder.state["awaiting"]


def test_cases_cover_the_examples():
    ids = {r for _, case in ALL for r in case["rules"]}
    assert {"K-EX-1", "K-EX-2", "K-EX-3", "K-EX-4", "K-MOR-3"} <= ids
