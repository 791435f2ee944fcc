"""A tiny simultaneous-turn ruleset for testing sealed orders (DESIGN §3).

North and south each hold three posts of strength 2. Every turn both sides secretly plan
at once: one enemy post to attack and one own post to guard. North seals its plan, south
seals its own, then north opens, then south opens; the attacks then roll one die each: a
hit on 4 or more, on 6 against a guarded post; a hit costs the post 1 strength. Three
turns; the side with more strength left wins.
"""

from __future__ import annotations

from pbem.rulesets.base import IllegalOrder, Need, Ruleset, document_scenario

SIDES = ("north", "south")
POSTS = ("a", "b", "c")
TURNS = 3


def setup(scenario: tuple) -> dict:
    document, options = scenario
    return {"turn": 1, "step": "north-plan", "posts": {side: {p: 2 for p in POSTS} for side in SIDES},
            "plans": {}, "over": False}


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def next_step(scenario: tuple, rules: dict) -> Need | None:
    if rules["over"]:
        return None
    side, what = rules["step"].split("-")
    if what == "plan":
        return Need(side, rules["step"], f"turn {rules['turn']}: seal your plan (attack one enemy post, guard one of "
                    f"yours)", ("sealed",), "B1", sealed=True)
    return Need(side, rules["step"], f"turn {rules['turn']}: open your sealed plan", ("plan",), "B2")


def legal_orders(scenario: tuple, rules: dict, need: Need) -> list[dict]:
    """The plans a side may seal, or open: the same nine either way (one item a packet)."""
    return [{"type": "plan", "attack": a, "guard": g} for a in POSTS for g in POSTS]


def apply(scenario: tuple, rules: dict, need: Need, order: dict, ctx) -> None:
    side = need.side
    if need.sealed:
        if order != {"type": "sealed", "items": 1}:
            raise IllegalOrder("B1", "a plan is one sealed item", None)
        ctx.event("sealed-plan", f"{side} has sealed its plan for turn {rules['turn']}.", side=side, rule="B1")
        rules["step"] = "south-plan" if side == "north" else "north-open"
        return
    if order.get("attack") not in POSTS or order.get("guard") not in POSTS:
        raise IllegalOrder("B2", "a plan names a post (a, b or c) to attack and one to guard", legal_orders(scenario, rules, need))
    rules["plans"][side] = {"attack": order["attack"], "guard": order["guard"]}
    if side == "north":
        rules["step"] = "south-open"
        return
    # B3: both plans are open: the attacks roll.
    for attacker in SIDES:
        plan, defence = rules["plans"][attacker], rules["plans"][other(attacker)]
        target = plan["attack"]
        need_die = 6 if defence["guard"] == target else 4
        die = ctx.d6(f"t{rules['turn']}.{attacker}.attack")
        hit = die >= need_die and rules["posts"][other(attacker)][target] > 0
        if hit:
            rules["posts"][other(attacker)][target] -= 1
        ctx.event("attack", f"{attacker} attacks {other(attacker)}'s post {target}"
                  + (" (guarded)" if need_die == 6 else "") + f": {die}, {'a hit' if hit else 'no hit'}.",
                  side=attacker, post=target, die=die, hit=hit, rule="B3")
    rules["plans"] = {}
    rules["turn"] += 1
    rules["step"] = "north-plan"
    if rules["turn"] > TURNS:
        rules["over"] = True


def policy(scenario: tuple, rules: dict, need: Need, policies: dict) -> dict | None:
    return None


def summary(scenario: tuple, rules: dict) -> dict:
    strength = {side: sum(rules["posts"][side].values()) for side in SIDES}
    result = None
    if rules["over"]:
        result = "draw" if strength["north"] == strength["south"] else max(strength, key=strength.get) + " wins"
    return {"turn": rules["turn"], "phase": rules["step"], "strength": strength, "result": result}


def render(scenario: tuple, rules: dict) -> str:
    return "".join(f"{side} {post} {value}\n" for side in SIDES for post, value in rules["posts"][side].items())


RULESET = Ruleset(
    sealed_steps=True,
    id="blind", version="1", title="Blind (test ruleset: simultaneous sealed plans)", sides=SIDES,
    scenarios={"basic": lambda: {}}, default_scenario="basic", options={},
    order_schema={"type": "object", "required": ["type", "attack", "guard"], "additionalProperties": False,
                  "properties": {"type": {"const": "plan"}, "attack": {"enum": list(POSTS)},
                                 "guard": {"enum": list(POSTS)}}},
    policy_schema={"type": "object", "additionalProperties": False, "properties": {"on_void": {"enum": ["stop", "skip"]}}},
    default_policies={"on_void": "stop"},
    scenario=document_scenario, setup=setup, next_step=next_step, apply=apply, legal_orders=legal_orders, policy=policy, summary=summary,
    render=render,
)
