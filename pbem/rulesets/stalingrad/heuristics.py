"""What the core's bots need to play stalingrad on purpose (pbem.core.bots; DESIGN §4.2).

A bot gives, at each need, the legal order ranked highest here; `end` is worth 0, so a
phase ends when no order is worth more. The ranking sees the state, never future dice:
combat is judged by the expected loss points of the loss table (house 6.2, 6.3).

Each area is worth `worth` = its VP, plus CROSSING_WORTH on a crossing (the 62nd Army's
lifeline, house 9.2), plus AREA_WORTH. A side values its strength in an area by what it
does there (`utility`):
- contested (both sides there): the share of the enemy's steps its expected loss points
  would take, times the worth plus one; for the side holding the area also the share of
  the enemy's expected loss points its own steps can absorb (it keeps the area while a
  unit is left, house 4.3);
- enemy-controlled and empty: the worth, once any unit is there (house 4.2 takes it);
- own and empty of enemy units: a garrison against the enemy units next to it that could
  walk in (HOLD of the worth for any unit, the rest as its strength matches theirs); idle
  strength is worth next to nothing, so it moves on.
A move, placement or shift is worth what it adds where the unit goes and takes away where
it leaves, plus DRIFT times the gain in `reach`: what one more unit of TYPICAL strength
and steps would add in an area, or REACH_DISCOUNT of that one area further on, whichever
is more (so units head for where they are wanted, over several turns). Reinforcements
always enter. An attack is worth the expected loss points it inflicts less those it
suffers, plus the worth of the area plus one, times the share of the enemy's steps it
should take, less the side's ATTACK_BAR: a step lost in a doubtful attack is a step less to
hold or take the areas that decide the VP, the more so for the Soviet side, which holds.
Measured by self-play (README, "The bots"): with no bar, a Soviet side that never attacked won
more games than the bot's attacks did (85 against 70 of 200), and German attacks won no
more games than none; with these bars each side's attacks win it more games than never
attacking (Soviet 91 against 81, German 81 against 72, each against the other's bot).
The bots' standing orders: play a tactical card from two loss points on (house 7), and
save units (a unit about to be eliminated retreats, house 6.5).
"""

from __future__ import annotations

from ..base import Heuristics, Need
from .areas import BOXES, SIDES, enemy, steps, unit_strength

CROSSING_WORTH = 1.5
AREA_WORTH = 0.3
HOLD = 0.6
DRIFT = 0.25
REACH_DISCOUNT = 0.6
PLACE = 10.0        # a reinforcement always enters
IDLE = 0.02         # what strength is worth where it does nothing
TYPICAL = (3, 2)    # the strength and steps of a typical unit (reach)
ATTACK_BAR = {"german": 0.5, "soviet": 1.0}   # what an attack must be worth before a side makes it


def _mean_loss(sc, strength: int) -> float:
    """The expected loss points of the loss table's column for `strength` (house 6.2)."""
    for col in sc.loss_table:
        if col.min <= strength <= col.max:
            return sum(col.results) / 6
    return 0.0


def _inflicted(sc, area: str, strength: int, engineers: bool, on_defender: bool) -> float:
    """Expected loss points a firing strength inflicts, the cover of house 6.3 taken off
    for a defender (a point at most per level of cover, none against engineers)."""
    mean = _mean_loss(sc, strength)
    cover = sc.areas[area].cover
    if on_defender and cover and not engineers:
        # the table's points less the cover, never below 0, averaged over the die
        for col in sc.loss_table:
            if col.min <= strength <= col.max:
                return sum(max(0, r - cover) for r in col.results) / 6
    return mean


class _View:
    """What the ranking reads, worked out once per need."""

    def __init__(self, sc, rules: dict, side: str):
        self.sc, self.rules, self.side, self.foe = sc, rules, side, enemy(side)
        self.strength = {a: {"german": 0, "soviet": 0} for a in sc.area_ids}
        self.steps = {a: {"german": 0, "soviet": 0} for a in sc.area_ids}
        self.engineers = {a: {"german": False, "soviet": False} for a in sc.area_ids}
        for uid, where in rules["units"].items():
            if where in BOXES:
                continue
            unit = sc.units[uid]
            self.strength[where][unit.side] += unit_strength(sc, rules, uid)
            self.steps[where][unit.side] += steps(rules, uid)
            if unit.arm == "engineers":
                self.engineers[where][unit.side] = True
        self.control = rules["control"]
        self._memo: dict = {}
        self.reach = self._reach()

    def worth(self, area: str) -> float:
        a = self.sc.areas[area]
        return a.vp + (CROSSING_WORTH if a.crossing else 0.0) + AREA_WORTH

    def _reach(self) -> dict:
        """How much the side wants a typical unit (TYPICAL strength and steps) to head for
        each area: what one more would add there, or REACH_DISCOUNT of what it would add
        one area further on, whichever is more."""
        sc, side = self.sc, self.side
        strength, steps_ = TYPICAL
        reach = {}
        for a in sc.area_ids:
            now_s, now_t = self.strength[a][side], self.steps[a][side]
            eng = self.engineers[a][side]
            reach[a] = max(0.0, self.utility(a, now_s + strength, now_t + steps_, eng)
                           - self.utility(a, now_s, now_t, eng))
        for _ in range(len(sc.area_ids)):
            changed = False
            for a in sc.area_ids:
                best = max((reach[n] for n in sc.areas[a].adjacent), default=0.0) * REACH_DISCOUNT
                if best > reach[a] + 1e-9:
                    reach[a], changed = best, True
            if not changed:
                break
        return reach

    def threat(self, area: str) -> int:
        """Enemy strength next to `area` that could walk in (house 5.2: units engaged in
        their own area may not)."""
        side, foe = self.side, self.foe
        return sum(self.strength[n][foe] for n in self.sc.areas[area].adjacent
                   if self.strength[n][side] == 0)

    def utility(self, area: str, strength: int, steps_: int, engineers: bool) -> float:
        """What the side's strength (and steps) in `area` is worth to it (remembered)."""
        key = (area, strength, steps_, engineers)
        value = self._memo.get(key)
        if value is None:
            value = self._memo[key] = self._utility(area, strength, steps_, engineers)
        return value

    def _utility(self, area: str, strength: int, steps_: int, engineers: bool) -> float:
        sc, side, foe = self.sc, self.side, self.foe
        worth = self.worth(area)
        theirs = self.strength[area][foe]
        if strength <= 0:
            return 0.0
        if theirs:
            holder = self.control[area] == side
            enemy_steps = self.steps[area][foe]
            # as attacker in its own combat phase, the defender's cover counts against it
            hit = _inflicted(sc, area, strength, engineers, on_defender=True)
            value = (worth + 1) * min(1.0, hit / (enemy_steps + 0.5))
            if holder:
                their_hit = _inflicted(sc, area, theirs, self.engineers[area][foe], on_defender=True)
                value += worth * min(1.0, steps_ / (their_hit + 1.0))
            return value + IDLE * strength
        if self.control[area] != side:
            return worth + IDLE * strength
        threat = self.threat(area)
        if not threat:
            return IDLE * strength
        return worth * (HOLD + (1 - HOLD) * min(1.0, strength / threat)) + IDLE * strength

    def change(self, area: str, strength: int, steps_: int, engineers: bool) -> float:
        """The gain in utility when a unit of `strength` (negative: leaving) comes to `area`."""
        now_s = self.strength[area][self.side]
        now_t = self.steps[area][self.side]
        eng = self.engineers[area][self.side]
        before = self.utility(area, now_s, now_t, eng)
        after = self.utility(area, now_s + strength, now_t + steps_, eng or (engineers and strength > 0))
        return after - before


def _unit(view: _View, uid: str) -> tuple[int, int, bool]:
    sc, rules = view.sc, view.rules
    return unit_strength(sc, rules, uid), steps(rules, uid), sc.units[uid].arm == "engineers"


def _move_value(view: _View, uid: str, origin: str, to: str) -> float:
    s, t, eng = _unit(view, uid)
    gain = view.change(to, s, t, eng)
    if origin is not None:
        gain += view.change(origin, -s, -t, False)
        gain += DRIFT * (view.reach[to] - view.reach[origin])
    else:
        gain += DRIFT * view.reach[to]
    return gain


def _attack_value(view: _View, area: str) -> float:
    sc, side, foe = view.sc, view.side, view.foe
    mine, theirs = view.strength[area][side], view.strength[area][foe]
    inflicted = _inflicted(sc, area, mine, view.engineers[area][side], on_defender=True)
    suffered = _inflicted(sc, area, theirs, view.engineers[area][foe], on_defender=False)
    share = min(1.0, inflicted / (view.steps[area][foe] + 0.5))
    return inflicted - suffered + (view.worth(area) + 1) * share


def rank(sc, rules: dict, need: Need, options: list[dict], side: str) -> list[float]:
    """One value per legal order (see the module's docstring); `end` is worth 0."""
    if need.decision:
        return [0.0] * len(options)  # the bots' standing orders answer decisions
    view = _View(sc, rules, side)
    values = []
    for order in options:
        kind = order["type"]
        if kind == "end":
            values.append(0.0)
        elif kind == "move":
            values.append(_move_value(view, order["unit"], rules["units"][order["unit"]], order["to"]))
        elif kind == "reinforce":
            values.append(PLACE + _move_value(view, order["unit"], None, order["area"]))
        elif kind == "shift":
            values.append(_move_value(view, order["unit"], rules["units"][order["unit"]], order["to"]))
        elif kind == "attack":
            values.append(_attack_value(view, order["area"]) - ATTACK_BAR[side])
        else:
            values.append(0.0)
    return values


def outcome(sc, rules: dict) -> dict:
    """The result, the German VP at the end (house 9.1) and the units each side lost. Only the
    German side scores VP: the areas the Soviet side holds count for nothing, and self-play
    gave their sum as a Soviet "mean VP" that no rule reads (a players' probe)."""
    german = sum(sc.areas[area].vp for area, side in rules["control"].items() if side == "german")
    lost = {s: 0 for s in SIDES}
    for uid, where in rules["units"].items():
        if where == "eliminated":
            lost[sc.units[uid].side] += 1
    result = rules.get("result") or {}
    return {"winner": result.get("winner"), "level": result.get("level"), "vp": {"german": german}, "lost": lost}


HEURISTICS = Heuristics(
    about=("stalingrad: puts strength where it takes the most of the enemy's steps, holds "
           "threatened areas and drifts toward the nearest goal; attacks where the expected "
           "loss points favour it (expected values of the loss table)"),
    rank=rank,
    policies={"german": {"tactical_card": "at-least-2", "apply_losses": "save-units"},
              "soviet": {"tactical_card": "at-least-2", "apply_losses": "save-units"}},
    outcome=outcome,
)
