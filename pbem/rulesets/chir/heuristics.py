"""What the core's bots need to play chir on purpose (pbem.core.bots; DESIGN §4.2).

A bot gives, at each need, the legal order ranked highest here; `end` is worth 0, so a
phase ends when no order is worth more. The ranking sees the state, never future dice:
fire is judged by the expected result of its CRT column over the six faces of the die.

- Set-up (3.2, 3.3): `end`, the default placement.
- Goals and pull. Each side has goals, each with a worth in VP: for the Soviet side the
  hexes of places it does not hold (4.2, a place's VP shared by its hexes), the road hexes
  of the German line to the Don (4.3: a Soviet zone of control on it costs the German side
  LOC_VP; worth LOC_WORTH each) and the south-edge exit (4.4, EXIT_WORTH); for the German
  side the hexes of places it does not hold, its own place hexes with Soviet units within
  THREAT_RANGE hexes, and the hexes of Soviet stacks (4.1: their strength in VP). The pull
  of a hex is the best worth of a goal times PULL_DISCOUNT for each hex between (rivers
  crossed only by a bridge).
- A move or an entry is worth the strength of the units times the gain in pull from where
  they stand to where they stop, plus the worth of a goal hex they take (entering an
  enemy-held place hex takes it, 3.3), less DANGER times the enemy strength next to where
  they stop beyond their own; a Soviet move that leaves the map (4.4) is worth its
  strength in VP. A move whose gain is below MOVE_THRESHOLD is not worth making.
- An attack is worth the expected strength loss plus MORALE_WEIGHT of the expected
  morale damage it inflicts (its column after the terrain, river and multi-group shifts),
  less RETURN_WEIGHT of what the defender's fire is expected to inflict on the strongest
  attacking group (9.4), plus GOAL_BONUS on a goal hex; below ATTACK_THRESHOLD it is not
  made.
- Decisions: the standing orders (the ruleset's defaults).
"""

from __future__ import annotations

import heapq

from ..base import Heuristics, Need
from . import board as bd
from . import combat
from . import state as st
from .scenario import Scenario, other

PULL_DISCOUNT = 0.8
LOC_WORTH = 3.0
EXIT_WORTH = 4.0
THREAT_RANGE = 3
DANGER = 0.15
MOVE_THRESHOLD = 0.05
MORALE_WEIGHT = 0.5
RETURN_WEIGHT = 0.8
GOAL_BONUS = 1.0
ATTACK_THRESHOLD = 0.3


class _View:
    """What the ranking reads, worked out once per need."""

    def __init__(self, sc: Scenario, rules: dict, side: str):
        self.sc, self.rules, self.side, self.foe = sc, rules, side, other(side)
        self.stacks = bd.stacks(sc, rules)
        self.strength = {h: bd.strength(sc, rules, us) for h, us in self.stacks.items()}
        self.owner = {h: sc.side_of[us[0]] for h, us in self.stacks.items()}
        self.of = bd.control(sc, rules)
        self.goals = self._goals()
        self.pull = _pull(sc, self.goals)
        self._danger: dict = {}
        self.moves: dict = {}
        self._strength: dict = {}
        self._control: dict = {}

    def strength_of(self, units: list[str]) -> int:
        key = tuple(units)
        if key not in self._strength:
            self._strength[key] = bd.strength(self.sc, self.rules, units)
        return self._strength[key]

    def controller(self, h: str) -> str:
        if h not in self._control:
            self._control[h] = self.of(h)
        return self._control[h]

    def _goals(self) -> dict:
        sc, side, foe = self.sc, self.side, self.foe
        goals: dict[str, float] = {}

        def add(h: str, worth: float) -> None:
            if worth > goals.get(h, 0.0):
                goals[h] = worth

        enemy_hexes = [h for h, s in self.owner.items() if s == foe]
        for place in sc.places:
            share = place.vp / len(place.hexes)
            for h in place.hexes:
                if self.of(h) != side:
                    add(h, share)
                elif side == "german" and any(sc.distance(h, e) <= THREAT_RANGE for e in enemy_hexes):
                    add(h, share)
        if side == "soviet":
            for h in _loc_road(sc):
                add(h, LOC_WORTH)
            for h in sc.exit:
                add(h, EXIT_WORTH)
        else:
            for h in enemy_hexes:
                add(h, float(self.strength[h]))
        return goals

    def danger(self, h: str, strength: int) -> float:
        key = (h, strength)
        if key not in self._danger:
            near = sum(self.strength[n] for n in self.sc.neigh[h] if self.owner.get(n) == self.foe)
            self._danger[key] = DANGER * max(0, near - strength)
        return self._danger[key]


_PULLS: dict = {}


def _pull(sc: Scenario, goals: dict) -> dict:
    """Best goal worth discounted by distance (a Dijkstra on the product of discounts),
    remembered for the last few sets of goals: they change only as control and the enemy's
    stacks do."""
    key = (id(sc), tuple(sorted(goals.items())))
    kept = _PULLS.get(key)
    if kept is not None and kept[0] is sc:   # kept[0] holds the scenario, so its id stays its own
        return kept[1]
    pull = {}
    heap = [(-w, h) for h, w in sorted(goals.items())]
    heapq.heapify(heap)
    while heap:
        w, h = heapq.heappop(heap)
        if h in pull:
            continue
        pull[h] = -w
        nxt = -w * PULL_DISCOUNT
        for n in sc.neigh[h]:
            if n not in pull and sc.crossable(h, n):
                heapq.heappush(heap, (-nxt, n))
    if len(_PULLS) >= 16:
        _PULLS.pop(next(iter(_PULLS)))
    _PULLS[key] = (sc, pull)
    return pull


_LOC: dict = {}


def _loc_road(sc: Scenario) -> tuple[str, ...]:
    """The road hexes reachable from the start of the German line (4.3), once per scenario."""
    kept = _LOC.get(id(sc))
    if kept is None or kept[0] is not sc:   # kept[0] holds the scenario, so its id stays its own
        seen, todo = {sc.loc_from}, [sc.loc_from]
        while todo:
            h = todo.pop()
            for n in sc.road_next.get(h, ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        kept = _LOC[id(sc)] = (sc, tuple(sorted(seen)))
    return kept[1]


def _expected(sc: Scenario, strength: int, shift: int) -> tuple[float, float]:
    """The expected (morale damage, strength loss) of fire of `strength` after `shift` (9.7)."""
    _, column, outcome = combat.resolve_column(sc, strength, shift)
    if outcome != "ok":
        return 0.0, 0.0
    results = [combat.parse_result(r) for r in sc.crt_results[column]]
    return sum(m for m, _ in results) / 6, sum(s for _, s in results) / 6


def _attack_value(view: _View, order: dict) -> float:
    sc, rules = view.sc, view.rules
    target = order["target"]
    defenders = view.stacks.get(target, [])
    if not defenders:
        return -1.0
    firers, supports = order["units"], order.get("support", [])
    tank_target = any(sc.units[u].cls == "tank" for u in defenders)
    strength, _ = combat.fire_strength(sc, rules, firers, supports, tank_target)
    groups: dict[str, list[str]] = {}
    for u in firers:
        groups.setdefault(st.hex_of(rules, u), []).append(u)
    shift = sc.terrain_shift[sc.terrain(target)]
    if view.rules["phase"] == "attack" and len(groups) > 1:
        shift += (len(groups) - 1) * sc.shifts.get("multi_group", 1)
    if groups and all(sc.is_river(h, target) for h in groups):
        shift += sc.river_shift
    shift += sum(s["shift"] for s in combat.tank_shifts(sc, firers, defenders))
    morale, loss = _expected(sc, strength, shift)
    strongest = max(groups.values(), key=lambda g: bd.strength(sc, rules, g))
    back, _ = combat.fire_strength(sc, rules, defenders, [], any(sc.units[u].cls == "tank" for u in strongest))
    b_morale, b_loss = _expected(sc, back, sum(s["shift"] for s in combat.tank_shifts(sc, defenders, strongest)))
    value = loss + MORALE_WEIGHT * morale - RETURN_WEIGHT * (b_loss + MORALE_WEIGHT * b_morale)
    if target in view.goals:
        value += GOAL_BONUS
    return value - ATTACK_THRESHOLD


def _move_value(view: _View, order: dict) -> float:
    units = order["units"]
    path = order.get("path") or []
    entering = order["type"] == "enter"
    start = path[0] if entering else view.rules["units"][units[0]]
    end = path[-1] if path else start
    key = (tuple(units), start, end, entering, bool(order.get("exit")))
    value = view.moves.get(key)   # many paths end in the same hex
    if value is None:
        value = view.moves[key] = _stop_value(view, units, start, end, entering, key[-1])
    return value


def _stop_value(view: _View, units: list[str], start: str, end: str, entering: bool, leaving: bool) -> float:
    strength = view.strength_of(units)
    if leaving:
        return float(strength) if view.side == "soviet" else -1.0
    pull = view.pull
    gain = strength * (pull.get(end, 0.0) - pull.get(start, 0.0))
    if end in view.goals and view.controller(end) != view.side and view.owner.get(end) != view.foe:
        gain += view.goals[end]
    gain -= view.danger(end, strength)
    if entering:
        gain += 1.0  # reinforcements come on
    return gain - MOVE_THRESHOLD


def rank(sc: Scenario, rules: dict, need: Need, options: list[dict], side: str) -> list[float]:
    """One value per legal order (see the module's docstring); `end` is worth 0."""
    if need.kind == "setup":
        return [1.0 if o["type"] == "end" else 0.0 for o in options]
    if need.decision:
        return [0.0] * len(options)
    view = _View(sc, rules, side)
    values = []
    for order in options:
        kind = order["type"]
        if kind == "attack":
            values.append(_attack_value(view, order))
        elif kind in ("move", "enter"):
            values.append(_move_value(view, order))
        else:
            values.append(0.0)
    return values


def outcome(sc: Scenario, rules: dict) -> dict:
    """The result (4.5), VP by side (4.1-4.4) and the units each side lost (eliminated)."""
    from . import victory

    halves = victory.vp(sc, rules)["halves"]
    lost = {"german": 0, "soviet": 0}
    for uid, where in rules["units"].items():
        if where == "gone":
            lost[sc.side_of[uid]] += 1
    result = rules.get("result") or {}
    return {"winner": result.get("winner"), "level": result.get("level"),
            "vp": {s: h / 2 for s, h in halves.items()}, "lost": lost}


HEURISTICS = Heuristics(
    about=("chir: sets up by the default placement; moves toward the nearest goal (places, the "
           "German line to the Don, the exit; for the German side also threatened places and "
           "Soviet stacks); attacks where the expected CRT result beats the expected return fire"),
    rank=rank,
    outcome=outcome,
)
