"""A tiny ruleset for testing the core protocol: two sides fire at each other.

Each turn: red's fire phase, then blue's. A `fire` order picks a target unit and rolls
one die; 5 or 6 hits, and the target's owner decides (or a standing order decides)
whether the hit falls on the target or on another of its units (`absorb`). Three turns.
"""

from __future__ import annotations

from pbem.rulesets.base import IllegalOrder, Need, Ruleset, document_scenario

TURNS = 3
SIDES = ("red", "blue")


def setup(scenario: tuple) -> dict:
    document, options = scenario
    return {"turn": 1, "phase": "red", "units": {u: dict(v) for u, v in sorted(document["units"].items())},
            "fired": [], "pending_hit": None, "over": False, "turns": options.get("turns", TURNS)}


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def next_step(scenario: tuple, rules: dict) -> Need | None:
    if rules["over"]:
        return None
    hit = rules["pending_hit"]
    if hit is not None:
        return Need(side=hit["owner"], kind="absorb", prompt=f"which unit takes the hit on {hit['target']}",
                    accepts=("absorb",), rule="D3", decision=True)
    side = rules["phase"]
    return Need(side=side, kind=f"{side}-fire", prompt=f"{side}'s fire orders, turn {rules['turn']}",
                accepts=("fire", "end"), rule="D1")


def _units(rules: dict, side: str) -> list[str]:
    return [u for u, v in sorted(rules["units"].items()) if v["side"] == side and v["strength"] > 0]


def legal_orders(scenario: tuple, rules: dict, need: Need) -> list[dict]:
    if need.kind == "absorb":
        return [{"type": "absorb", "unit": u} for u in _units(rules, need.side)]
    shooters = [u for u in _units(rules, need.side) if u not in rules["fired"]]
    return [{"type": "fire", "unit": u, "target": t} for u in shooters for t in _units(rules, other(need.side))] \
        + [{"type": "end"}]


def apply(scenario: tuple, rules: dict, need: Need, order: dict, ctx) -> None:
    if need.kind == "absorb":
        unit = order["unit"]
        if unit not in _units(rules, need.side):
            raise IllegalOrder("D3", f"{unit} is not a unit of {need.side} with strength left", _units(rules, need.side))
        rules["units"][unit]["strength"] -= 1
        rules["pending_hit"] = None
        ctx.event("loss", f"{unit} loses 1 strength ({'standing order' if ctx.chosen_by == 'policy' else 'by order'}).",
                  unit=unit, rule="D3")
        _check_over(rules)
        return
    if order["type"] == "end":
        rules["fired"] = []
        if rules["phase"] == "red":
            rules["phase"] = "blue"
        else:
            rules["phase"] = "red"
            rules["turn"] += 1
            if rules["turn"] > rules["turns"]:
                rules["over"] = True
        ctx.event("phase", f"{need.side} ends its fire phase.")
        return
    unit, target = order.get("unit"), order.get("target")
    if unit not in rules["units"]:
        raise IllegalOrder("D1", f"there is no unit {unit}", [u for u in _units(rules, need.side)])
    if rules["units"][unit]["side"] != need.side or rules["units"][unit]["strength"] <= 0:
        raise IllegalOrder("D1", f"{unit} cannot fire for {need.side}", _units(rules, need.side))
    if unit in rules["fired"]:
        raise IllegalOrder("D2", f"{unit} has already fired this phase", None)
    if target not in _units(rules, other(need.side)):
        raise IllegalOrder("D1", f"{target} is not an enemy unit with strength left", _units(rules, other(need.side)))
    rules["fired"].append(unit)
    rules["fired"].sort()
    die = ctx.d6(f"t{rules['turn']}.{need.side}.fire{len(rules['fired'])}")
    if die >= 5:
        rules["pending_hit"] = {"target": target, "owner": other(need.side)}
        ctx.event("hit", f"{unit} fires at {target}: {die}, a hit.", unit=unit, target=target, die=die, rule="D2")
    else:
        ctx.event("miss", f"{unit} fires at {target}: {die}, a miss.", unit=unit, target=target, die=die, rule="D2")


def _check_over(rules: dict) -> None:
    if not _units(rules, "red") or not _units(rules, "blue"):
        rules["over"] = True


def policy(scenario: tuple, rules: dict, need: Need, policies: dict) -> dict | None:
    choice = policies.get("absorb")
    if choice == "target":
        hit = rules["pending_hit"]
        if hit["target"] in _units(rules, need.side):
            return {"type": "absorb", "unit": hit["target"]}
    if choice == "strongest":
        units = sorted(_units(rules, need.side), key=lambda u: (-rules["units"][u]["strength"], u))
        return {"type": "absorb", "unit": units[0]}
    return None


def summary(scenario: tuple, rules: dict) -> dict:
    strength = {s: sum(rules["units"][u]["strength"] for u in _units(rules, s)) for s in SIDES}
    result = None
    if rules["over"]:
        result = "draw" if strength["red"] == strength["blue"] else (max(strength, key=strength.get) + " wins")
    return {"turn": rules["turn"], "phase": rules["phase"], "strength": strength, "result": result}


def render(scenario: tuple, rules: dict) -> str:
    return "".join(f"{u} {v['side']} {v['strength']}\n" for u, v in sorted(rules["units"].items()))


SCENARIO = {"units": {"r1": {"side": "red", "strength": 3}, "r2": {"side": "red", "strength": 2},
                      "b1": {"side": "blue", "strength": 3}, "b2": {"side": "blue", "strength": 2}}}

RULESET = Ruleset(
    id="duel", version="1", title="Duel (test ruleset)", sides=SIDES,
    scenarios={"basic": lambda: SCENARIO}, default_scenario="basic", options={"turns": TURNS},
    order_schema={"type": "object", "required": ["type"], "additionalProperties": False,
                  "properties": {"type": {"enum": ["fire", "end", "absorb"]}, "unit": {"type": "string"},
                                 "target": {"type": "string"}}},
    policy_schema={"type": "object", "additionalProperties": False,
                   "properties": {"absorb": {"enum": ["target", "strongest", "ask"]}, "on_void": {"enum": ["stop", "skip"]}}},
    default_policies={"absorb": "target", "on_void": "stop"},
    scenario=document_scenario, setup=setup, next_step=next_step, apply=apply, legal_orders=legal_orders, policy=policy, summary=summary,
    render=render,
)
