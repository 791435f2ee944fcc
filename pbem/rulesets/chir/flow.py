"""The turn sequence (5.0) as an explicit state machine kept in `rules`.

    phase "setup"     player german, then soviet (3.2, 3.3): orders `place`, then `end`
    GT 1..12: for player soviet, then german (5.0):
        phase "attack"    A. concentrated attack phase (9.1): `attack`, `end`
        phase "movement"  B. movement phase with manoeuvre attacks (8.0, 9.2, 11.0, 4.4):
                          `move`, `enter`, `attack`, `end`
        C. recovery phase (12.0): automatic when movement ends
    end of the game turn: fired markers removed, GT marker advanced; after GT 12 victory (4.0)
    phase "over"

An attack in progress (`rules["attack"]`, see combat.py) suspends the phase and asks its
decisions of whichever side they belong to.
"""

from __future__ import annotations

from ..base import IllegalOrder, Need
from . import board as bd
from . import combat, movement, recovery, removal, retreat, setup, victory
from . import state as st
from .orders import DEFAULT_POLICIES
from .scenario import Scenario, other

PHASE_RULES = {"setup": "3.0", "attack": "9.1", "movement": "8.0"}
ACCEPTS = {"attack": ("attack", "end"), "movement": ("move", "enter", "attack", "end")}


class QuietContext:
    """A context for set-up steps that roll no dice and report nothing."""

    chosen_by = "order"

    def d6(self, label: str) -> int:  # pragma: no cover - never called
        raise RuntimeError("no dice during set-up")

    def event(self, type: str, text: str, **fields) -> None:
        pass


def setup_rules(sc: Scenario) -> dict:
    rules = setup.initial(sc)
    if rules["phase"] in ("attack", "movement"):
        start_phase(sc, rules, rules["phase"], QuietContext())
    return rules


# --- the need ------------------------------------------------------------------------------------

def next_step(sc: Scenario, rules: dict) -> Need | None:
    if rules["phase"] == "over":
        return None
    if rules["phase"] == "setup":
        side = rules["player"]
        # A phase, not a decision: each side sets up in its own packet (German packet 1,
        # Soviet packet 2), so no standing order may do it before the player could speak.
        return Need(side, "setup", f"set up the {side} units (3.{2 if side == 'german' else 3}): place, or end to "
                    "place the rest by the default placement", ("place", "end"), "3.2" if side == "german" else "3.3",
                    False)
    r = removal.pending(rules)
    if r is not None:
        return Need(r["side"], "stack-removal", f"{r['hex']} is over the stacking limit after {r['why']}: remove "
                    f"units to comply", ("remove",), r["rule"], True)
    waiting = combat.awaiting(sc, rules)
    if waiting is not None:
        side, kind, prompt, accepts, rule = waiting
        return Need(side, kind, prompt, accepts, rule, True)
    phase, side = rules["phase"], rules["player"]
    prompt = (f"GT {rules['turn']}, {side} concentrated attack phase: attack orders, then end" if phase == "attack"
              else f"GT {rules['turn']}, {side} movement phase: move, enter, manoeuvre attack orders, then end")
    return Need(side, f"{side}-{phase}", prompt, ACCEPTS[phase], PHASE_RULES[phase], False)


def legal_orders(sc: Scenario, rules: dict, need: Need) -> list[dict]:
    if rules["phase"] == "over":
        return []
    if need.kind == "setup":
        return setup.options(sc, rules, need.side)
    if need.decision:
        return combat.legal(sc, rules, need.kind)
    side = need.side
    if rules["phase"] == "attack":
        return combat.concentrated_options(sc, rules, side) + [{"type": "end"}]
    return movement.options(sc, rules, side) + combat.manoeuvre_options(sc, rules, side) + [{"type": "end"}]


def policy(sc: Scenario, rules: dict, need: Need, policies: dict | None) -> dict | None:
    if not need.decision:
        return None
    pol = dict(DEFAULT_POLICIES)
    pol.update(policies or {})
    if need.kind == "stack-removal":
        return removal.policy(sc, rules, pol)
    return combat.policy(sc, rules, need.kind, pol)


# --- applying an order ------------------------------------------------------------------------------

def apply(sc: Scenario, rules: dict, need: Need, order: dict, ctx) -> None:
    current = next_step(sc, rules)
    if current is None:
        raise IllegalOrder("4.0", "the game is over; no order is legal", [])
    if (current.side, current.kind) != (need.side, need.kind):
        raise IllegalOrder(current.rule, f"the game waits for {current.kind} of {current.side}, not {need.kind}",
                           list(current.accepts))
    kind = order.get("type") if isinstance(order, dict) else None
    if kind not in current.accepts:
        raise IllegalOrder(current.rule, current.waits_for(), list(current.accepts))
    side = current.side
    if current.kind == "setup":
        if kind == "place":
            setup.apply_place(sc, rules, side, order)
            ctx.event("setup", f"{order['unit']} set up in {order['hex']}.", side=side, units=[f"{order['unit']}@{order['hex']}"],
                      chosen_by=ctx.chosen_by, rule=current.rule)
        else:
            _check_end(order, "setup")
            setup.place_defaults(sc, rules, side, ctx, "end of set-up")
            if side == "german":
                rules["player"] = "soviet"
                ctx.event("phase", "The Soviet player sets up (3.3).", phase="setup", side="soviet", rule="3.3")
            else:
                rules["player"] = "soviet"
                rules["turn"] = 1
                start_phase(sc, rules, "attack", ctx)
        return
    if current.kind == "stack-removal":
        removal.apply(sc, rules, order, ctx)
        if removal.pending(rules) is None and rules["attack"] is not None:
            combat.run(sc, rules, ctx)
        return
    if current.decision:
        combat.answer(sc, rules, current.kind, order, ctx)
        return
    phase = rules["phase"]
    if kind == "end":
        _check_end(order, phase)
        end_phase(sc, rules, ctx)
    elif kind == "attack":
        if phase == "attack":
            combat.declare_concentrated(sc, rules, side, order, ctx)
        else:
            combat.declare_manoeuvre(sc, rules, side, order, ctx)
    elif kind == "move":
        movement.move(sc, rules, side, order, ctx)
    elif kind == "enter":
        movement.enter_reinforcements(sc, rules, side, order, ctx)


def _check_end(order: dict, phase: str) -> None:
    if order.get("phase", phase) != phase:
        raise IllegalOrder("5.0", f"end names phase {order['phase']}, but the game is in the {phase} phase",
                           [{"type": "end", "phase": phase}])


# --- phases (5.0) -------------------------------------------------------------------------------------

def start_phase(sc: Scenario, rules: dict, phase: str, ctx) -> None:
    side = rules["player"]
    rules["phase"] = phase
    rules["ps"] = st.fresh_ps()
    if phase == "attack":
        # 9.1: only units adjacent to an enemy unit at the start of the phase may attack
        enemy = bd.occupied(sc, rules, other(side))
        rules["ps"]["eligible"] = [u for u in bd.on_map(sc, rules, side)
                                   if any(n in enemy for n in sc.neigh[st.hex_of(rules, u)])]
    else:
        mine = [u for u in sc.unit_ids if sc.side_of[u] == side]
        st.clear_moves(rules, mine)
        for u in mine:
            st.unmark(rules, "manoeuvre-attacked", u)
    ctx.event("phase", f"GT {rules['turn']}: {side} {'concentrated attack' if phase == 'attack' else 'movement'} "
              f"phase (5.0).", turn=rules["turn"], side=side, phase=phase, rule="5.0")


def end_phase(sc: Scenario, rules: dict, ctx) -> None:
    side, phase = rules["player"], rules["phase"]
    recovery.end_of_phase(sc, rules, ctx)
    bd.note_soviet_places(sc, rules)  # 14.0: a place held by zone of control alone (3.3) counts too
    if not victory.german_line(sc, rules) and not rules["loc_ever_cut"]:
        rules["loc_ever_cut"] = True
        ctx.event("line-cut", "The German line of communication to the Don is cut (4.3, 14.0).", rule="4.3")
    if phase == "attack":
        start_phase(sc, rules, "movement", ctx)
        return
    recovery.recovery(sc, rules, side, ctx)
    if side == "soviet":
        rules["player"] = "german"
        start_phase(sc, rules, "attack", ctx)
        return
    recovery.end_of_turn(sc, rules, ctx)
    if rules["turn"] >= sc.last_turn:
        rules["phase"] = "over"
        rules["ps"] = st.fresh_ps()
        victory.final(sc, rules, ctx)
        return
    rules["turn"] += 1
    rules["player"] = "soviet"
    ctx.event("game-turn", f"Game turn {rules['turn']} begins (5.0).", turn=rules["turn"], rule="5.0")
    start_phase(sc, rules, "attack", ctx)


def cautions(sc: Scenario, rules: dict, events: list[dict], side: str, queued: list[dict],
             policies: dict) -> list[str]:
    """What `pbem submit` warns a chir player of (Ruleset.cautions): units his standing order
    removed for the stacking limit, and queued orders his standing order to advance after
    combat may void."""
    return removal.cautions(sc, rules, events, side, queued) + retreat.advance_cautions(sc, rules, side, queued, policies)
