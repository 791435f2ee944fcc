"""A small driver for stalingrad tests: plays queued orders, standing orders and scripted
dice through a ruleset exactly as the core does (DESIGN §4), and builds compact positions
for data-driven cases."""

from __future__ import annotations

import copy


class DiceExhausted(Exception):
    """The script has no die left: the step is rolled back, as in the core."""


class ScriptedContext:
    def __init__(self, dice: list[int], start: int, chosen_by: str):
        self.dice, self.index, self.events, self._chosen_by = dice, start, [], chosen_by

    @property
    def chosen_by(self) -> str:
        return self._chosen_by

    def d6(self, label: str) -> int:
        if self.index >= len(self.dice):
            raise DiceExhausted(label)
        value = self.dice[self.index]
        self.index += 1
        self.events.append({"type": "roll", "text": f"{label}: {value}", "label": label,
                            "value": value})
        return value

    def event(self, type: str, text: str, **fields) -> None:
        self.events.append({"type": type, "text": text, **fields})


_SCENARIOS: dict = {}


def scenario(ruleset):
    """The scenario object of the ruleset's default scenario, built once, as the core does."""
    if ruleset.id not in _SCENARIOS:
        _SCENARIOS[ruleset.id] = ruleset.scenario(ruleset.scenarios[ruleset.default_scenario](),
                                                  dict(ruleset.options))
    return _SCENARIOS[ruleset.id]


def play(ruleset, rules, orders_by_side, dice, policies=None, max_steps=100000):
    """Loop next_step / policy / apply until the game waits for an order that is not
    queued, runs out of dice, or ends. Returns (rules, events). IllegalOrder propagates."""
    world = scenario(ruleset)
    queues = {side: list(orders_by_side.get(side, [])) for side in ruleset.sides}
    pols = {side: dict(ruleset.default_policies) for side in ruleset.sides}
    for side, p in (policies or {}).items():
        pols[side].update(p)
    dice = list(dice)
    used, events = 0, []
    for _ in range(max_steps):
        need = ruleset.next_step(world, rules)
        if need is None:
            break
        queue = queues[need.side]
        if queue and queue[0].get("type") in need.accepts:
            order, chosen_by = queue[0], "order"
        elif need.decision:
            order, chosen_by = ruleset.policy(world, rules, need, pols[need.side]), "policy"
            if order is None:
                break
        else:
            break
        trial = copy.deepcopy(rules)
        ctx = ScriptedContext(dice, used, chosen_by)
        try:
            ruleset.apply(world, trial, need, order, ctx)
        except DiceExhausted:
            break
        if chosen_by == "order":
            queue.pop(0)
        rules, used = trial, ctx.index
        events.extend(ctx.events)
    return rules, events


def position(ruleset, spec: dict) -> dict:
    """A compact prestate from the bundled scenario (see scenario.apply_position)."""
    from pbem.rulesets.stalingrad.scenario import apply_position

    return apply_position(scenario(ruleset), spec)
