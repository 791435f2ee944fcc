"""A tiny test ruleset for sealed items opened one by one, when the rules reveal them (§8).

North and south each hold three posts of strength 2. Every turn both sides seal plans
(one enemy post to attack, one own post to guard): north first, then south, each as many
as it likes. The first item of each side is its plan; the others are decoys. The rules
reveal north's plan, then south's, and only those: the attacks then roll one die each (a
hit on 4 or more, on 6 against a guarded post). At the end of the turn the rules reveal
the decoys, north's then south's, so that no side seals again over an unopened seal;
with the option `reveal_rest: false` they never do, and a side that sealed decoys cannot
seal again. Three turns; the side with more strength left wins.
"""

from __future__ import annotations

from pbem.rulesets.base import IllegalOrder, Need, Ruleset, document_scenario
from tests.support.blind import POSTS, SIDES, TURNS, policy, render, summary   # the same posts and score


def setup(scenario: tuple) -> dict:
    return {"turn": 1, "step": "north-plan", "posts": {side: {p: 2 for p in POSTS} for side in SIDES},
            "plans": {}, "seals": {}, "over": False}


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def next_step(scenario: tuple, rules: dict) -> Need | None:
    if rules["over"]:
        return None
    side, what = rules["step"].split("-")
    if what == "plan":
        return Need(side, "plan", f"turn {rules['turn']}: seal your plan, then any decoys", ("sealed",), "V1",
                    sealed=True, reveal="asked")
    if what == "open":
        return Need(side, "open", f"turn {rules['turn']}: your plan is revealed", ("plan",), "V2",
                    opens=(rules["seals"][side][0],))
    return Need(side, "rest", f"turn {rules['turn']}: your decoys are revealed", ("plan",), "V4",
                opens=tuple(rules["seals"][side]))


def legal_orders(scenario: tuple, rules: dict, need: Need) -> list[dict]:
    return [{"type": "plan", "attack": a, "guard": g} for a in POSTS for g in POSTS]


def apply(scenario: tuple, rules: dict, need: Need, order: dict, ctx) -> None:
    side = need.side
    if need.sealed:
        if order.get("type") != "sealed":
            raise IllegalOrder("V1", "plans are sealed", None)
        rules["seals"][side] = [f"{order['seq']}.{n}" for n in range(1, order["items"] + 1)]
        ctx.event("sealed-plan", f"{side} has sealed {order['items']} plan(s).", side=side, rule="V1")
        rules["step"] = "south-plan" if side == "north" else "north-open"
        return
    if ctx.opened != need.opens[0]:
        raise IllegalOrder(need.rule, f"the rules reveal {side}'s item {need.opens[0]}, not another order", None)
    rules["seals"][side].remove(ctx.opened)
    if need.kind == "rest":
        ctx.event("decoy", f"{side}'s item {ctx.opened} was a decoy.", side=side, rule="V4")
        if not rules["seals"][side]:
            _after_rest(scenario, rules, side)
        return
    rules["plans"][side] = {"attack": order["attack"], "guard": order["guard"]}
    if side == "north":
        rules["step"] = "south-open"
        return
    for attacker in SIDES:       # V3: both plans are revealed: the attacks roll
        target = rules["plans"][attacker]["attack"]
        need_die = 6 if rules["plans"][other(attacker)]["guard"] == target else 4
        die = ctx.d6(f"t{rules['turn']}.{attacker}.attack")
        hit = die >= need_die and rules["posts"][other(attacker)][target] > 0
        if hit:
            rules["posts"][other(attacker)][target] -= 1
        ctx.event("attack", f"{attacker} attacks {other(attacker)}'s post {target}: {die}, "
                  f"{'a hit' if hit else 'no hit'}.", side=attacker, post=target, die=die, hit=hit, rule="V3")
    rules["plans"] = {}
    _after_rest(scenario, rules, None)


def _after_rest(scenario: tuple, rules: dict, done: str | None) -> None:
    """V4: the decoys are revealed, north's then south's; then the next turn."""
    document, options = scenario
    for side in SIDES[SIDES.index(done) + 1 if done else 0:]:
        if rules["seals"].get(side) and options.get("reveal_rest", True):
            rules["step"] = f"{side}-rest"
            return
    rules["seals"] = {side: ids for side, ids in rules["seals"].items() if ids}
    rules["turn"] += 1
    rules["step"] = "north-plan"
    rules["over"] = rules["turn"] > TURNS


RULESET = Ruleset(
    sealed_steps=True,
    id="veiled", version="1", title="Veiled (test ruleset: sealed items revealed one by one)", sides=SIDES,
    scenarios={"basic": lambda: {}}, default_scenario="basic", options={"reveal_rest": True},
    order_schema={"type": "object", "required": ["type", "attack", "guard"], "additionalProperties": False,
                  "properties": {"type": {"const": "plan"}, "attack": {"enum": list(POSTS)},
                                 "guard": {"enum": list(POSTS)}}},
    policy_schema={"type": "object", "additionalProperties": False, "properties": {"on_void": {"enum": ["stop", "skip"]}}},
    default_policies={"on_void": "stop"},
    scenario=document_scenario, setup=setup, next_step=next_step, apply=apply, legal_orders=legal_orders, policy=policy,
    summary=summary, render=render,
)
