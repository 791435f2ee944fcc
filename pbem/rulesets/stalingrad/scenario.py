"""Loading the bundled scenario and building the initial state (state 0)."""

from __future__ import annotations

from pathlib import Path

from pbem.core.canonical import load_mapping

from . import flow

DATA = Path(__file__).resolve().parent / "data"


def load_city_1942() -> dict:
    return load_mapping(DATA / "scenario.yaml", "stalingrad/data/scenario.yaml")


def check(scenario: dict) -> None:
    """Refuse an inconsistent scenario with one clear sentence."""
    from pbem.core import schema

    problems = schema.errors(schema.load("stalingrad-scenario.schema.json"), scenario)
    if problems:
        raise ValueError(f"stalingrad scenario: {problems[0]}")
    ids = [a["id"] for a in scenario["areas"]]
    if len(set(ids)) != len(ids):
        raise ValueError("stalingrad scenario: area ids must be unique.")
    adj = {a["id"]: a["adjacent"] for a in scenario["areas"]}
    for a, nbrs in sorted(adj.items()):
        for b in nbrs:
            if b not in adj or a not in adj[b]:
                raise ValueError(f"stalingrad scenario: adjacency {a} - {b} is not listed both ways.")
    seen = set()
    for side in ("german", "soviet"):
        for u in scenario["units"][side]:
            if u["id"] in seen or u["id"] in adj:
                raise ValueError(f"stalingrad scenario: unit id {u['id']} is not unique.")
            seen.add(u["id"])
            if u["arm"] not in scenario["arms"]:
                raise ValueError(f"stalingrad scenario: unit {u['id']} has unknown arm {u['arm']}.")
            if u["turn"] == 0 and u.get("area") not in adj:
                raise ValueError(f"stalingrad scenario: unit {u['id']} starts in unknown area "
                                 f"{u.get('area')}.")


def setup(scenario: dict, options: dict) -> dict:
    check(scenario)
    areas = {}
    for a in scenario["areas"]:
        areas[a["id"]] = {
            "name": a["name"], "control": a["control"], "crossing": bool(a.get("crossing", False)),
            "cover": int(a.get("cover", 0)), "vp": int(a.get("vp", 0)),
            "adjacent": sorted(a["adjacent"]),
        }
    units = {}
    for side in ("german", "soviet"):
        for u in scenario["units"][side]:
            on_map = u["turn"] == 0
            units[u["id"]] = {
                "name": u["name"], "side": side, "arm": u["arm"],
                "strength": list(u["strength"]), "steps": 2, "turn": u["turn"],
                "black": bool(u.get("black", False)),
                "status": "map" if on_map else "pool", "area": u["area"] if on_map else None,
            }
    rules = {
        "scenario": scenario["id"],
        "turn": 1, "last_turn": scenario["turns"], "phase": None,
        "stacking_limit": scenario["stacking_limit"],
        "withdrawal_turn": scenario["withdrawal_turn"],
        "map_order": [a["id"] for a in scenario["areas"]],
        "areas": areas, "units": units,
        "cards": dict(scenario["tactical_cards"]),
        "loss_table": [dict(c, results=list(c["results"])) for c in scenario["loss_table"]["columns"]],
        "victory": {k: v for k, v in scenario["victory"].items() if k != "sudden_death"},
        "phase_state": flow.fresh_phase_state(),
        "combat": None, "withdrawal": None, "result": None,
    }
    if "position" in scenario:
        return apply_position(rules, scenario["position"])
    ctx = flow.QuietContext()
    flow.enter_phase(rules, flow.PHASES[0], ctx)
    flow.advance(rules, ctx)
    return rules


def apply_position(rules: dict, spec: dict) -> dict:
    """Start from a given position instead of the historical set-up: `turn`, `phase`,
    `areas` ({area: {control, units: [ids or {id, steps}]}}), `pool`, `eliminated`,
    `withdrawn` (unit ids), `cards`, `phase_state`. Units not named anywhere are taken
    out of the game. A referee re-runs a disputed fight this way in a sandbox game
    (scenario document with a `position`, dice rolled at the table), and the rulebook
    cases run this way through the real engine."""
    named = {}
    for area, a in sorted((spec.get("areas") or {}).items()):
        if area not in rules["areas"]:
            raise ValueError(f"stalingrad position: unknown area {area}.")
        if "control" in a:
            rules["areas"][area]["control"] = a["control"]
        for entry in a.get("units", []):
            uid, steps = (entry, 2) if isinstance(entry, str) else (entry["id"], entry["steps"])
            named[uid] = {"status": "map", "area": area, "steps": steps}
    for status in ("pool", "eliminated", "withdrawn"):
        for uid in spec.get(status, []):
            named[uid] = {"status": status, "area": None, "steps": 2 if status == "pool" else 0}
    missing = sorted(set(named) - set(rules["units"]))
    if missing:
        raise ValueError(f"stalingrad position: unknown units {', '.join(missing)}.")
    for uid in sorted(rules["units"]):
        if uid in named:
            rules["units"][uid].update(named[uid])
        else:
            del rules["units"][uid]
    rules["turn"] = spec.get("turn", 1)
    rules["phase"] = spec.get("phase", "german-movement")
    rules["phase_state"] = {**flow.fresh_phase_state(), "open": True, **spec.get("phase_state", {})}
    rules["combat"], rules["withdrawal"], rules["result"] = None, None, None
    rules["cards"].update(spec.get("cards", {}))
    return rules
