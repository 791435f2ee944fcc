"""The sequence of play (house rule 3, NOT from the fragment) as a state machine kept in
`rules`: turn, phase, the per-phase bookkeeping, a combat in progress, a withdrawal in
progress, and the result.

Each turn: German reinforcement (11.1, 11.2(1)), German movement (house 5), German combat
(house 6), Soviet reinforcement (11.1, 11.2(2)-(3)), Soviet movement, Soviet combat; at the
end of turn 3 the German withdrawal phase (11.3); end of turn: victory check (house 9).
A phase in which `end` is the only legal order when it begins is skipped; a phase that has
begun lasts until its side's `end`. Control (house 4.3) is checked
after each combat and at the end of every phase.

`rules["phase_state"]` is the bookkeeping of the current phase: `moved`, `attacked`,
`placed`, `shifted` (sorted ids) and `open` (the phase has begun), each left out while
empty or false.
"""

from __future__ import annotations

from pbem.core import schema

from ..base import IllegalOrder, Need
from . import combat, movement, reinforcements, victory
from .areas import listing, update_control
from .orders import DEFAULT_POLICIES, ORDER_SCHEMA


def phase_name(phase: str) -> str:
    """"German movement" for the phase id "german-movement" (house 3)."""
    side, _, kind = phase.partition("-")
    return f"{side.capitalize()} {kind}"


def phase_words(phase: str) -> str:
    """"German movement phase"; the withdrawal phase with its rule (11.3)."""
    return f"{phase_name(phase)} phase" + (" (11.3)" if phase == WITHDRAWAL else "")


PHASES = ("german-reinforcement", "german-movement", "german-combat",
          "soviet-reinforcement", "soviet-movement", "soviet-combat")
WITHDRAWAL = "german-withdrawal"

_PHASE_NEEDS = {
    "german-reinforcement": ("reinforce", "end"),
    "german-movement": ("move", "end"),
    "german-combat": ("attack", "end"),
    "soviet-reinforcement": ("reinforce", "shift", "end"),
    "soviet-movement": ("move", "end"),
    "soviet-combat": ("attack", "end"),
    WITHDRAWAL: ("reinforce", "end"),
}
_PHASE_RULES = {
    "german-reinforcement": "11.2(1)", "soviet-reinforcement": "11.2(2)",
    "german-movement": "house 5", "soviet-movement": "house 5",
    "german-combat": "house 6", "soviet-combat": "house 6", WITHDRAWAL: "11.3",
}
_PROMPTS = {
    "german-reinforcement": "place reinforcements in German-controlled areas (11.2(1)), then end",
    "soviet-reinforcement": "place reinforcements on crossings, shift units between crossings "
                            "(11.2(2)-(3)), then end",
    "german-movement": "move units to adjacent areas (house 5), then end",
    "soviet-movement": "move units to adjacent areas (house 5), then end",
    "german-combat": "attack in areas holding units of both sides (house 6), then end",
    "soviet-combat": "attack in areas holding units of both sides (house 6), then end",
    WITHDRAWAL: "black counters have left (11.3); place the turn-{entry} reinforcements, and earlier "
                "ones still waiting (house 8.1), in German-controlled areas (11.3(3)), then end",
}


class QuietContext:
    """A context for steps that roll no dice (set-up): events are dropped."""

    chosen_by = "policy"

    def d6(self, label: str) -> int:
        raise RuntimeError(f"no dice may be rolled here ({label})")

    def event(self, type: str, text: str, **fields) -> None:
        pass


def phase_side(phase: str) -> str:
    return phase.split("-")[0]


# ---- what the game waits for --------------------------------------------------------------

def next_step(sc, rules: dict) -> Need | None:
    if "result" in rules:
        return None
    if "combat" in rules:
        need = combat.decision(sc, rules)
        if need is not None:
            return need
    if "substitute_for" in rules:
        need = reinforcements.decision(sc, rules)
        if need is not None:
            return need
    phase, turn = rules["phase"], rules["turn"]
    need = _PHASE_NEED.get((phase, turn)) if type(turn) is int else None   # (True is 1 to a dict)
    if need is None:
        prompt = _PROMPTS[phase].format(entry=turn + 1)  # the withdrawal's: the next turn's units (11.3(3))
        need = Need(phase_side(phase), phase, f"Turn {turn}, {phase_words(phase)}: {prompt}.",
                    _PHASE_NEEDS[phase], _PHASE_RULES[phase], False)
        if type(turn) is int:
            if len(_PHASE_NEED) > 512:
                _PHASE_NEED.clear()
            _PHASE_NEED[(phase, turn)] = need
    return need


# The need of a phase in a turn, the same each time the flow asks (several times a step): kept
# once made. A Need is a tuple of strings, which no caller can change.
_PHASE_NEED: dict[tuple[str, int], Need] = {}


def _phase_actions(sc, rules: dict) -> list[dict]:
    phase = rules["phase"]
    side = phase_side(phase)
    if phase.endswith("-movement"):
        return movement.legal(sc, rules, side)
    if phase.endswith("-combat"):
        return combat.legal(sc, rules)
    return reinforcements.legal(sc, rules, side)


def _has_phase_action(sc, rules: dict) -> bool:
    """Whether `_phase_actions` offers any order, found without listing them all."""
    phase = rules["phase"]
    side = phase_side(phase)
    if phase.endswith("-movement"):
        return movement.can_move(sc, rules, side)
    if phase.endswith("-combat"):
        return bool(combat.attackable(sc, rules))
    return reinforcements.has_legal(sc, rules, side)


def legal_orders(sc, rules: dict, need: Need) -> list[dict]:
    if "result" in rules:
        return []
    if need.kind == "substitute":
        return reinforcements.legal_decision(sc, rules, need)
    if need.decision:
        return combat.legal_decision(sc, rules, need)
    return _phase_actions(sc, rules) + [{"type": "end"}]


def policy(sc, rules: dict, need: Need, policies: dict | None) -> dict | None:
    if not need.decision:
        return None
    pol = dict(DEFAULT_POLICIES)
    pol.update(policies or {})
    if need.kind == "substitute":
        return reinforcements.policy(sc, rules, need, pol)
    return combat.policy(sc, rules, need, pol)


# ---- consuming an order -------------------------------------------------------------------

def apply(sc, rules: dict, need: Need, order: dict, ctx) -> None:
    current = next_step(sc, rules)
    if current is None:
        raise IllegalOrder("house 9", "the game is over (house 9); no order is legal.", [])
    if (current.side, current.kind) != (need.side, need.kind):
        raise IllegalOrder(current.rule, f"The order answers {need.kind} of the "
                           f"{need.side} side, but the game waits for {current.kind} of the "
                           f"{current.side} side ({current.rule}).", list(current.accepts))
    if not isinstance(order, dict) or order.get("type") not in current.accepts:
        raise IllegalOrder(current.rule, f"the game waits for "
                           f"{current.kind} of the {current.side} side ({current.rule}); legal "
                           f"order types: {listing(list(current.accepts))}.",
                           list(current.accepts))
    errors = schema.order_errors(ORDER_SCHEMA, order)
    if errors:
        error = errors[0]
        raise IllegalOrder(current.rule, f"The order is malformed: "
                           f"{error.message} ({current.rule}); see the stalingrad orders schema.",
                           list(current.accepts))
    kind, side, t = current.kind, current.side, order["type"]
    if kind == "substitute":
        reinforcements.answer(sc, rules, current, order, ctx)
    elif current.decision:
        combat.answer(sc, rules, current, order, ctx)
    elif t == "end":
        if order.get("phase", kind) != kind:
            raise IllegalOrder(current.rule, f"`end` names phase {order['phase']}, but the "
                               f"current phase is {kind} ({current.rule}); legal: end of {kind}.",
                               [{"type": "end"}])
        end_phase(sc, rules, ctx)
    elif t == "move":
        movement.apply_move(sc, rules, side, order, ctx)
    elif t == "attack":
        combat.declare(sc, rules, side, order, ctx)
    elif t == "reinforce":
        reinforcements.apply_reinforce(sc, rules, side, order, ctx)
    elif t == "shift":
        reinforcements.apply_shift(sc, rules, order, ctx)
    advance(sc, rules, ctx)


def advance(sc, rules: dict, ctx) -> None:
    """Run every automatic step until the game waits for an order or is over."""
    while "result" not in rules:
        if "combat" in rules:
            if combat.step(sc, rules, ctx):
                continue
            return
        if "substitute_for" in rules:
            if reinforcements.step(sc, rules, ctx):
                continue
            return
        if rules["phase_state"].get("open"):
            return
        if _has_phase_action(sc, rules):
            # once a phase has begun it lasts until the side's `end`, so a queued `end`
            # always closes the phase it was written for
            rules["phase_state"]["open"] = True
        else:
            ctx.event("phase-skipped", f"Turn {rules['turn']}: nothing to do in the "
                      f"{phase_words(rules['phase'])} (house 3).", turn=rules["turn"],
                      phase=rules["phase"], rule="house 3", house_rule=True)
            end_phase(sc, rules, ctx)


def enter_phase(sc, rules: dict, phase: str, ctx) -> None:
    rules["phase"] = phase
    rules["phase_state"] = {}
    ctx.event("phase", f"Turn {rules['turn']}: {phase_words(phase)} (house 3).", turn=rules["turn"],
              phase=phase, rule="house 3", house_rule=True)
    if phase == WITHDRAWAL:
        reinforcements.start_withdrawal(sc, rules, ctx)


def end_phase(sc, rules: dict, ctx) -> None:
    update_control(sc, rules, ctx)  # house 4.3; in the withdrawal phase only now (11.3(3))
    phase = rules["phase"]
    if phase == "soviet-combat" and rules["turn"] == sc.withdrawal_turn:
        enter_phase(sc, rules, WITHDRAWAL, ctx)
        return
    if phase in ("soviet-combat", WITHDRAWAL):
        rules.pop("substitute_for", None)
        victory.end_of_turn(sc, rules, ctx)
        if "result" in rules:
            rules["phase"] = "game-over"
            return
        rules["turn"] += 1
        rules.pop("crossing_arrivals", None)  # 11.2(3): from now on they are from the previous turn
        enter_phase(sc, rules, PHASES[0], ctx)
        return
    enter_phase(sc, rules, PHASES[PHASES.index(phase) + 1], ctx)
