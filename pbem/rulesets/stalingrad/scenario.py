"""The scenario object (what the genesis fixes, built once per process) and the initial
state (state 0).

The scenario holds the map (areas, adjacency, cover, VP, the control at set-up), the loss
table, the victory levels, the stacking limit, the turns, the tactical-card supply and
the fixed attributes of every unit. It is shared by every game with that scenario, so it
is read-only: frozen records, tuples and read-only mappings. The rules state holds only
what play changes; see README.md, "State".
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from pbem.core.bundled import data_file
from pbem.core.canonical import mapping_of
from pbem.core.record import Record

from . import flow
from .areas import BOXES, SIDES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

DATA = Path(__file__).resolve().parent / "data"


def load_city_1942() -> dict:
    path, source = DATA / "scenario.yaml", "stalingrad/data/scenario.yaml"
    return mapping_of(data_file(path, source), path, source)


class Area(Record):
    id: str
    name: str
    control: str                 # the controller at set-up
    crossing: bool
    cover: int
    vp: int
    adjacent: tuple[str, ...]    # sorted


class Unit(Record):
    id: str
    name: str
    side: str
    arm: str
    strength: tuple[int, int]    # full, reduced (house 2.1)
    turn: int                    # turn of entry; 0 = on the map at set-up (11.1)
    black: bool                  # leaves at the end of the withdrawal turn (11.3)
    area: str | None             # the area at set-up (turn 0 only)


class LossColumn(Record):
    min: int
    max: int
    results: tuple[int, ...]     # by die roll 1-6


class Scenario(Record):
    id: str
    areas: Mapping[str, Area]            # by id, in id order
    area_ids: tuple[str, ...]            # sorted
    map_order: tuple[str, ...]           # the scenario's order, north to south (render)
    crossings: tuple[str, ...]           # sorted
    units: Mapping[str, Unit]            # by id, in id order
    unit_ids: tuple[str, ...]            # sorted
    side_ids: Mapping[str, tuple[str, ...]]  # {side: its unit ids, sorted}
    loss_table: tuple[LossColumn, ...]
    german_victory: int                  # house 9.1
    soviet_victory: int
    stacking_limit: int                  # 10.3(2)
    withdrawal_turn: int                 # 11.3
    last_turn: int
    cards: Mapping[str, int]             # tactical cards per side at set-up (house 7)
    position: Mapping[str, Any] | None   # a start position instead of the set-up


def check(document: dict) -> None:
    """Refuse an inconsistent scenario with one clear sentence."""
    from pbem.core import schema

    problems = schema.errors(schema.load("stalingrad-scenario.schema.json"), document)
    if problems:
        raise ValueError(f"stalingrad scenario: {problems[0]}")
    ids = [a["id"] for a in document["areas"]]
    if len(set(ids)) != len(ids):
        raise ValueError("stalingrad scenario: area ids must be unique.")
    boxes = sorted(set(ids) & set(BOXES))
    if boxes:
        raise ValueError(f"stalingrad scenario: {boxes[0]} names a box off the map; "
                         "use another area id.")
    adj = {a["id"]: a["adjacent"] for a in document["areas"]}
    for a, nbrs in sorted(adj.items()):
        for b in nbrs:
            if b not in adj or a not in adj[b]:
                raise ValueError(f"stalingrad scenario: adjacency {a} - {b} is not listed both ways.")
    seen = set()
    for side in SIDES:
        for u in document["units"][side]:
            if u["id"] in seen or u["id"] in adj:
                raise ValueError(f"stalingrad scenario: unit id {u['id']} is not unique.")
            seen.add(u["id"])
            if u["arm"] not in document["arms"]:
                raise ValueError(f"stalingrad scenario: unit {u['id']} has unknown arm {u['arm']}.")
            if u["turn"] == 0 and u.get("area") not in adj:
                raise ValueError(f"stalingrad scenario: unit {u['id']} starts in unknown area "
                                 f"{u.get('area')}.")


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def build(document: dict, options: dict) -> Scenario:
    """The scenario object of a scenario document (ValueError if it is inconsistent)."""
    check(document)
    areas = {}
    for a in sorted(document["areas"], key=lambda a: a["id"]):
        areas[a["id"]] = Area(a["id"], a["name"], a["control"], bool(a.get("crossing", False)),
                              int(a.get("cover", 0)), int(a.get("vp", 0)), tuple(sorted(a["adjacent"])))
    units = {}
    for side in SIDES:
        for u in document["units"][side]:
            units[u["id"]] = Unit(u["id"], u["name"], side, u["arm"], tuple(u["strength"]), u["turn"],
                                  bool(u.get("black", False)), u["area"] if u["turn"] == 0 else None)
    victory = document["victory"]
    return Scenario(
        id=document["id"],
        areas=MappingProxyType(areas),
        area_ids=tuple(areas),
        map_order=tuple(a["id"] for a in document["areas"]),
        crossings=tuple(a for a in areas if areas[a].crossing),
        units=MappingProxyType(dict(sorted(units.items()))),
        unit_ids=tuple(sorted(units)),
        side_ids=MappingProxyType({side: tuple(uid for uid in sorted(units) if units[uid].side == side)
                                   for side in SIDES}),
        loss_table=tuple(LossColumn(c["min"], c["max"], tuple(c["results"]))
                         for c in document["loss_table"]["columns"]),
        german_victory=victory["german_victory"],
        soviet_victory=victory["soviet_victory"],
        stacking_limit=document["stacking_limit"],
        withdrawal_turn=document["withdrawal_turn"],
        last_turn=document["turns"],
        cards=MappingProxyType(dict(document["tactical_cards"])),
        position=_frozen(document["position"]) if "position" in document else None,
    )


def setup(sc: Scenario) -> dict:
    """State 0: the set-up of the scenario (or its position), run up to the first order."""
    if sc.position is not None:
        return apply_position(sc, sc.position)
    rules = {
        "turn": 1, "phase": None,
        "control": {a: sc.areas[a].control for a in sc.area_ids},
        "units": {uid: sc.units[uid].area if sc.units[uid].turn == 0 else "pool" for uid in sc.unit_ids},
        "reduced": [],
        "cards": dict(sc.cards),
        "phase_state": {},
    }
    ctx = flow.QuietContext()
    flow.enter_phase(sc, rules, flow.PHASES[0], ctx)
    flow.advance(sc, rules, ctx)
    return rules


PHASE_STATE_KEYS = ("attacked", "moved", "open", "placed", "shifted")


def apply_position(sc: Scenario, spec: Mapping) -> dict:
    """Start from a given position instead of the historical set-up: `turn`, `phase`,
    `areas` ({area: {control, units: [ids or {id, steps}]}}), `pool`, `eliminated`,
    `withdrawn` (unit ids), `cards`, `phase_state` ({moved, attacked, placed, shifted:
    [ids], open}), `crossing_arrivals` (Soviet units that came onto a crossing this turn,
    11.2(3)). Units not named anywhere are taken out of the game. A referee re-runs a
    disputed fight this way in a sandbox game (scenario document with a `position`, dice
    rolled at the table), and the rulebook cases run this way through the real engine."""
    control = {a: sc.areas[a].control for a in sc.area_ids}
    named, steps = {}, {}
    for area, a in sorted((spec.get("areas") or {}).items()):
        if area not in sc.areas:
            raise ValueError(f"stalingrad position: unknown area {area}.")
        if "control" in a:
            control[area] = a["control"]
        for entry in a.get("units", ()):
            uid, n = (entry, 2) if isinstance(entry, str) else (entry["id"], entry["steps"])
            if n not in (1, 2):
                raise ValueError(f"stalingrad position: unit {uid} must have 1 or 2 steps, not {n}.")
            named[uid], steps[uid] = area, n
    for box in BOXES:
        for uid in spec.get(box, ()):
            named[uid] = box
    missing = sorted(set(named) - set(sc.units))
    if missing:
        raise ValueError(f"stalingrad position: unknown units {', '.join(missing)}.")
    given = dict(spec.get("phase_state") or {})
    unknown = sorted(set(given) - set(PHASE_STATE_KEYS))
    if unknown:
        raise ValueError(f"stalingrad position: unknown phase_state key {unknown[0]} "
                         f"(known: {', '.join(PHASE_STATE_KEYS)}).")
    phase_state = {key: sorted(given[key]) for key in PHASE_STATE_KEYS if key != "open" and given.get(key)}
    if given.get("open", True):
        phase_state["open"] = True
    arrivals = sorted(spec.get("crossing_arrivals", ()))
    for uid in arrivals:
        if uid not in named or sc.units[uid].side != "soviet" or named[uid] not in sc.crossings:
            raise ValueError(f"stalingrad position: crossing_arrivals names {uid}, which is not a Soviet "
                             f"unit on a crossing.")
    turn = spec.get("turn", 1)
    if turn > sc.last_turn:   # a referee's probe: "Turn 9 of 6" was set up, and won
        raise ValueError(f"stalingrad position: turn {turn} is after the game's last turn, {sc.last_turn}.")
    rules = {
        "turn": turn,
        "phase": spec.get("phase", "german-movement"),
        "control": control,
        "units": {uid: named[uid] for uid in sorted(named)},
        "reduced": sorted(uid for uid, n in steps.items() if n == 1 and named[uid] not in BOXES),
        "cards": {side: spec.get("cards", {}).get(side, sc.cards[side]) for side in SIDES},
        "phase_state": phase_state,
    }
    if arrivals:
        rules["crossing_arrivals"] = arrivals  # 11.2(3): not left there from the previous turn
    return rules
