"""The sequence of play (4.2) as an explicit state machine kept in `rules`.

    selection          the Soviet initial force drawn at random (5.21), the first die of the game
    setup              Soviet (5.2), then Axis (5.3): `place`, `end`
    Game-Turn 1..25 (4.1, 4.2):
      A. Hitler Directive Inter-Phase (16.0): automatic, from Game-Turn 2 (2.0's reading)
      B. Axis player-turn, C. Soviet player-turn, each:
         move          Initial Movement Phase: withdrawals, reinforcements, evacuation first;
                       `move`, `rail`, `overrun`, `enter`, `evacuate`, `air-supply`, `end`
         combat        `attack`, `air-supply`, `end`
         mech          Mechanized/Cavalry Movement Phase: `move`, `overrun`, `air-supply`, `end`
         (Disruption Removal Phase: automatic)
         interdiction  Air Interdiction Phase: `interdict`, `air-supply` (an air unit itself), `end`
      D. Game-Turn Record Inter-Phase: automatic, with the Axis decisions of 6.42 and 12.32
    over

Between phases the flow runs automatic stages (`rules["stage"]`); a stage that needs a
player's decision puts it in `rules["pending"]` and the flow resumes once it is answered.
An attack or overrun in progress (`rules["combat"]`) suspends the phase. The game can stop
at any of these points and resume from the state file alone.
"""

from __future__ import annotations

from pbem.core.text import with_rule

from ..base import IllegalOrder, Need, never_taken
from . import air, combat, directives, movement, reinforce, setup, victory
from . import state as st
from . import supply as sp
from . import interphase
from .board import half_view, stacking_ok, view
from .naming import no_hex, no_unit, not_own_unit
from .orders import DEFAULT_POLICIES, decision_policy
from .scenario import Scenario, other

PHASE_RULES = {"move": "6.0", "combat": "9.0", "mech": "6.0", "interdiction": "14.4"}
ACCEPTS = {
    "move": ("move", "rail", "overrun", "enter", "evacuate", "air-supply", "end"),
    "combat": ("attack", "air-supply", "end"),
    "mech": ("move", "overrun", "air-supply", "end"),
    "interdiction": ("interdict", "air-supply", "end"),
}
PHASE_NAMES = {"move": "Initial Movement Phase", "combat": "Combat Phase", "mech": "Mechanized/Cavalry Movement Phase",
               "interdiction": "Air Interdiction Phase"}
NEXT = {"move": "combat", "combat": "mech", "mech": "interdiction"}


class QuietContext:
    """A context that rolls nothing and reports nothing: the set-up of state 0, and an order
    tried on a copy of the rules for the orders template (`air.supply_options`)."""

    chosen_by = "order"

    def d6(self, label: str) -> int:  # pragma: no cover - never called
        raise RuntimeError("no dice here")

    def pick(self, label: str, among: int) -> int:  # pragma: no cover - never called
        raise RuntimeError("no dice here")

    def event(self, type: str, text: str, **fields) -> None:
        pass


def setup_rules(sc: Scenario) -> dict:
    return rules_for(sc, sc.position)


def rules_for(sc: Scenario, pos: dict | None) -> dict:
    """State 0: before the Soviet draw (5.21), or the given position (README.md)."""
    rules = st.fresh(sc)
    rules["stage"] = None
    if pos is not None:
        if pos["turn"] > sc.last_turn:   # a referee's probe (chir, stalingrad): a turn the game never has was set up
            raise ValueError(f"dos scenario: position.turn: Game-Turn {pos['turn']} is after the game's last, "
                             f"{sc.last_turn}")
        rules["turn"], rules["player"], rules["phase"] = pos["turn"], pos["player"], pos["phase"]
        setup.position(sc, rules, pos)
        begin_phase(sc, rules, QuietContext(), fresh_phase=False)
    return rules


# --- the need --------------------------------------------------------------------------------------

def next_step(sc: Scenario, rules: dict) -> Need | None:
    if rules["phase"] == "over":
        return None
    if rules["pending"]:
        p = rules["pending"][0]
        return Need(p["side"], p["kind"], p["prompt"], tuple(p["accepts"]), p["rule"], True)
    waiting = combat.awaiting(sc, rules)
    if waiting is not None:
        side, kind, prompt, accepts, rule = waiting
        return Need(side, kind, prompt, accepts, rule, True)
    phase, side = rules["phase"], rules["player"]
    if phase == "selection":
        return Need("soviet", "selection", "draw the Soviet initial force at random (5.21)", ("draw",), "5.21", True)
    if phase == "setup":
        return Need(side, "setup", f"set up the {side} units ({'5.2' if side == 'soviet' else '5.3'}): place, or end to "
                    "place the rest by the default placement", ("place", "end"), "5.2" if side == "soviet" else "5.3")
    return Need(side, f"{side}-{phase}", f"Game-Turn {rules['turn']}, {side} {PHASE_NAMES[phase]}: "
                + ", ".join(a for a in ACCEPTS[phase] if a != "end") + ", then end", ACCEPTS[phase], PHASE_RULES[phase])


def legal_orders(sc: Scenario, rules: dict, need: Need) -> list[dict]:
    if rules["phase"] == "over":
        return []
    if need.decision:
        return decision_options(sc, rules, need.kind)
    side = need.side
    phase = rules["phase"]
    if phase == "setup":
        # a placement by hand may leave the rest no legal room; the default placement always
        # has (tests/test_dos_setup.py), so `end` alone is offered
        return [{"type": "end"}]
    if phase in ("move", "mech"):
        board, ctx = half_view(sc, rules, side), movement.context(sc, rules, side)
        opts = movement.options(sc, rules, side, board=board, ctx=ctx)
        first = next(movement.movers(sc, rules, side, board), None)
        if first:    # overruns read only the enemy's units: his half of the board
            opts += combat.overrun_options(sc, rules, side, first, ctx.enemy)
        return opts + [{"type": "end"}]
    if phase == "combat":
        return combat.attack_options(sc, rules, side) + [{"type": "end"}]
    if phase == "interdiction":
        return air.interdiction_options(sc, rules, side) + [{"type": "end"}]
    return [{"type": "end"}]


SAMPLE = "the moves of the next stack able to move, to some of the hexes it can reach"
SAMPLE_NOTE = (f"A sample: {SAMPLE}. Any other unit or stack that may still move can be ordered too: "
               "`pbem orders ... --only UNIT` lists every move of that unit.")
# the order types of a movement phase that `--only UNIT` works out in full for one unit
EVERY_OF_UNIT = {"move": "move", "rail": "rail move", "enter": "entry", "overrun": "overrun"}
ATTACK_NOTE = ("Each hex is shown attacked by every unit able to attack it; any of them may attack it instead, or "
               "several hexes at once (9.2), with HQs and Air Points added (11.43, 14.21).")


def listing(sc: Scenario, rules: dict, need: Need, only: str | None) -> tuple[list[dict], str | None]:
    """What `pbem orders` lists where `legal_orders` gives a representative set (README,
    "Orders"): a set-up's placements and a phase's moves are too many to list for every unit,
    so a unit named gets every one of its own (its set-up hexes, its moves, rail moves and
    overruns), a hex in a set-up the units that may go there; anything else filters the
    sample, which the note still calls one."""
    legal = legal_orders(sc, rules, need)
    phase = rules["phase"]
    if phase == "interdiction" and not need.decision:
        return _interdiction_listing(sc, rules, need.side, only)
    if need.decision or phase not in ("setup", "move", "mech", "combat"):
        return legal, None
    if only == "air-supply" and "air-supply" in need.accepts:
        supplied = air.supply_options(sc, rules, need.side)
        return supplied + [{"type": "end"}], (AIR_SUPPLY_NOTE if supplied else AIR_SUPPLY_NONE)
    orders, note = _phase_listing(sc, rules, need, only, legal)
    # the air supply of the units named (or of all, with none named): worked out only where listed
    supplied = air.supply_options(sc, rules, need.side) if only is None or only in sc.units else []
    named = [o for o in supplied if only is None or only in o["units"] or only == o["air"]]
    if named:   # before the `end` that closes the list
        orders = orders[:-1] + named + orders[-1:] if orders and orders[-1] == {"type": "end"} else orders + named
    return orders, note


AIR_SUPPLY_NOTE = ("Each unit out of supply is shown supplied alone; one Air Point supplies up to five steps of units "
                   "within 14 mechanized Movement Points of each other, so one order may name several (12.41, 12.42).")
AIR_SUPPLY_NONE = ("No German combat unit out of supply can be supplied by air now (12.4): none is out of supply, or "
                   "no air unit with an Air Point left has it in range.")
INTERDICTION_NOTE = ("A sample: each air unit with an Air Point left is shown placing its two markers on enemy-held "
                     "rail hexes in its range, no hex given twice. It may place them on other hexes in its range "
                     "(14.41); no hex takes two markers (14.45).")


def _interdiction_listing(sc: Scenario, rules: dict, side: str, only: str | None) -> tuple[list[dict], str | None]:
    """The Air Interdiction Phase's template: a sample whose lines may all be kept."""
    sample = air.interdiction_options(sc, rules, side, apart=True)
    if only in sc.units:
        sample = [o for o in sample if o["air"] == only]
    return sample + [{"type": "end"}], INTERDICTION_NOTE


def _phase_listing(sc: Scenario, rules: dict, need: Need, only: str | None,
                   legal: list[dict]) -> tuple[list[dict], str | None]:
    """The set-up's, a movement phase's or the Combat Phase's template (see `listing`)."""
    side = need.side
    phase = rules["phase"]
    if only is not None and only not in sc.units and only not in sc.idx and only not in need.accepts:
        guess = no_hex(sc, only) if only[:1].isdigit() or only[:1] in "NSns" and only[1:2].isdigit() else \
            no_unit(sc, only, sc.side_units[side])
        return legal, f"{guess.rstrip('.')}{'' if guess.endswith('?') else '.'} Nor is {only} an order type of this " \
                      f"phase ({', '.join(need.accepts)})."
    if only in sc.units and sc.side_of[only] != side:
        return legal, f"{not_own_unit(sc, only, side)}."
    if phase == "setup":
        if only in sc.units:
            if not setup.may_set_up(sc, rules, side, only):
                return legal, (f"{only} is not one of the units that set up now "
                               f"({'5.21' if side == 'soviet' else '5.3'}): it is {_status(rules, only)}.")
            return setup.place_orders(sc, rules, side, [only]) + legal, None
        if only in sc.idx:
            return setup.place_orders(sc, rules, side, setup.to_set_up(sc, rules, side), [only]) + legal, None
        return legal, (f"Place orders are not listed: each of the {len(setup.to_set_up(sc, rules, side))} units left "
                       "to set up may go to any hex of its area (above) where it fits. `pbem orders ... --only UNIT` "
                       "lists a unit's hexes, `--only HEX` the units that may set up there.")
    if phase == "combat":
        return combat.attack_options(sc, rules, side, limit=len(sc.ids)) + [{"type": "end"}], ATTACK_NOTE
    if only in EVERY_OF_UNIT:     # the count line above says how many of the sample name it
        word = EVERY_OF_UNIT[only]
        return legal, (f"These are a sample ({SAMPLE}): every {word} of every unit would be too many to list. "
                       f"`pbem orders ... --only UNIT` lists every {word} of one unit, with its other moves.")
    if only not in sc.units:
        return legal, SAMPLE_NOTE
    orders = movement.unit_options(sc, rules, side, only)
    if st.on_map(rules, only) and movement.may_move(sc, rules, only) is None and not sc.units[only].air:
        orders += combat.overrun_options(sc, rules, side, [only], half_view(sc, rules, other(side)))
    if orders:
        return orders + [{"type": "end"}], None
    return legal, f"{only} has no move now: {_why_not_move(sc, rules, side, only)}."


def _why_not_move(sc: Scenario, rules: dict, side: str, uid: str) -> str:
    where = rules["units"][uid]
    if not st.on_map(rules, uid):
        return f"it is {_status(rules, uid)}"
    why = movement.may_move(sc, rules, uid)
    if why:
        rule, _, text = why.partition(": ")
        return f"{text} ({rule})"
    if sc.idx[where] in movement.context(sc, rules, side).ezoc:
        return "it stands in an Enemy Zone of Control, which it may not leave voluntarily (8.22)" + (
            ", and it has no strategic withdrawal open (18.11, 18.15)" if side == "soviet" else "")
    return "it can reach no hex where it may end its move"


def _status(rules: dict, uid: str) -> str:
    from .words import STATUS_WORDS

    where = rules["units"][uid]
    return STATUS_WORDS.get(where, f"in {where}")


# --- decisions ------------------------------------------------------------------------------------

def decision_options(sc: Scenario, rules: dict, kind: str) -> list[dict]:
    c = rules["combat"]
    if rules["pending"]:
        return interphase.pending_options(sc, rules, rules["pending"][0])
    if kind == "selection":
        return [{"type": "draw"}]
    if kind == "air-defence":
        return combat.air_options(sc, rules, c)
    if kind == "air-supply-defence":
        return combat.defence_supply_options(sc, rules, c)
    if kind == "hq-defence":
        return combat.hq_options(sc, rules, c)
    if kind in ("defender-result", "attacker-result"):
        return combat.choice_options(sc, rules, c)
    if kind == "double-losses":
        return [{"type": "double", "choice": "no"}, {"type": "double", "choice": "yes"}]
    if kind == "loss":
        return combat.loss_options(sc, rules, c)
    if kind == "retreat":
        return combat.retreat_options(sc, rules, c)
    if kind == "advance":
        return combat.advance_options(sc, rules, c)
    return []


def policy(sc: Scenario, rules: dict, need: Need, policies: dict | None) -> dict | None:
    if not need.decision:
        return None
    pol = dict(DEFAULT_POLICIES)
    pol.update(policies or {})
    return decision_policy(sc, rules, need.kind, pol, decision_options(sc, rules, need.kind))


# --- applying an order -------------------------------------------------------------------------------

def apply(sc: Scenario, rules: dict, need: Need, order: dict, ctx) -> None:
    current = next_step(sc, rules)
    if current is None:
        raise IllegalOrder("19.0", "the game is over; no order is legal", [])
    if (current.side, current.kind) != (need.side, need.kind):
        raise IllegalOrder(current.rule, f"the game waits for {current.kind} of {current.side}, not {need.kind}",
                           list(current.accepts))
    kind = order.get("type") if isinstance(order, dict) else None
    if kind == "rail" and current.kind.endswith("-mech"):
        raise IllegalOrder("6.34", "units may not move by rail in the Mechanized/Cavalry Movement Phase", None)
    if kind == "overrun" and not current.decision and current.kind.endswith(("-combat", "-interdiction")):
        raise IllegalOrder("6.5", "overruns take place only in the Movement Phases", None)
    if kind not in current.accepts:
        if kind == "advance" and not current.decision and rules["phase"] == "combat":
            combat.why_no_advance(sc, rules, current.side, order)      # 7.1: the hex it would leave
        raise IllegalOrder(current.rule, current.waits_for(), list(current.accepts))
    side = current.side
    if current.decision:
        _answer(sc, rules, current, order, ctx)
    elif rules["phase"] == "setup":
        _setup_order(sc, rules, side, order, ctx)
    else:
        _phase_order(sc, rules, side, kind, order, ctx)
    proceed(sc, rules, ctx)
    victory.after_order(sc, rules, ctx)


def _answer(sc: Scenario, rules: dict, need: Need, order: dict, ctx) -> None:
    if rules["pending"]:
        interphase.answer(sc, rules, rules["pending"][0], order, ctx)
        return
    kind = need.kind
    if kind == "selection":
        reinforce.initial_selection(sc, rules, ctx)
        rules["phase"], rules["player"] = "setup", "soviet"
        ctx.event("phase", "The Soviet player sets up (5.2).", phase="setup", side="soviet", rule="5.2")
        return
    handlers = {"air-defence": combat.answer_air, "air-supply-defence": combat.answer_defence_supply,
                "hq-defence": combat.answer_hq, "double-losses": combat.answer_double, "loss": combat.answer_loss,
                "retreat": combat.answer_retreat, "advance": combat.answer_advance}
    if kind in ("defender-result", "attacker-result"):
        combat.answer_choice(sc, rules, "def" if kind == "defender-result" else "att", order, ctx)
    else:
        handlers[kind](sc, rules, order, ctx)


def _setup_order(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    if order["type"] == "place":
        setup.place(sc, rules, side, order)
        ctx.event("setup", f"{order['unit']} set up in {order['hex']}.", side=side, unit=order["unit"], hex=order["hex"],
                  chosen_by=ctx.chosen_by, rule="5.2" if side == "soviet" else "5.3")
        return
    _check_end(order, "setup")
    to_place = setup.to_set_up(sc, rules, side)
    if side == "soviet":
        setup.default_soviet(sc, rules)
    else:
        setup.default_axis(sc, rules)
    try:
        setup.check(sc, rules, side)
    except IllegalOrder as exc:
        combat = [u for u in to_place if sc.units[u].combat]
        if side != "soviet" or not combat or exc.rule != "5.23" or setup.open_front_in_reach(sc, rules):
            raise
        # a players' probe: the hexes named were ones the player never touched, far from the
        # units placed by hand; say why the default placement left them open
        raise IllegalOrder("5.23", f"{exc.message}; the default placement of the {len(combat)} combat unit"
                           f"{'s' if len(combat) > 1 else ''} left stands one only within an HQ's Leadership Rating "
                           f"(5.25, 12.12), and the HQs placed so far leave those hexes out of reach: place an HQ "
                           f"within reach of them before the end order", exc.legal) from None
    left = setup.to_set_up(sc, rules, side)
    if left:
        raise IllegalOrder("5.2" if side == "soviet" else "5.3", f"no room was found for {', '.join(left[:6])}: place "
                           f"them first", None)
    ctx.event("setup", f"The {side} set-up is complete: " + ", ".join(f"{u}@{st.hex_of(rules, u)}"
              for u in setup.placed(sc, rules, side)) + ".", side=side, rule="5.2" if side == "soviet" else "5.3")
    if side == "soviet":
        rules["player"] = "axis"
        ctx.event("phase", "The Axis player sets up (5.3).", phase="setup", side="axis", rule="5.3")
    else:
        rules["turn"], rules["player"] = 1, "axis"
        rules["stage"] = "directive"


def _check_end(order: dict, phase: str) -> None:
    if order.get("phase", phase) != phase:
        raise IllegalOrder("4.2", f"end names phase {order['phase']}, but the game is in the {phase} phase",
                           [{"type": "end", "phase": phase}])


def _phase_order(sc: Scenario, rules: dict, side: str, kind: str, order: dict, ctx) -> None:
    phase = rules["phase"]
    if kind == "end":
        _check_end(order, phase)
        rules["stage"] = f"end-{phase}"
        return
    if kind != "evacuate":
        rules["ps"]["evacuate"] = False
    if kind == "move":
        movement.move(sc, rules, side, order, ctx)
    elif kind == "rail":
        movement.rail(sc, rules, side, order, ctx)
    elif kind == "enter":
        movement.enter(sc, rules, side, order, ctx)
    elif kind == "evacuate":
        movement.evacuate(sc, rules, side, order, ctx)
    elif kind == "overrun":
        combat.overrun(sc, rules, side, order, ctx)
    elif kind == "attack":
        combat.declare(sc, rules, side, order, ctx)
    elif kind == "air-supply":
        air.air_supply(sc, rules, side, order, ctx)
    elif kind == "interdict":
        air.interdict(sc, rules, side, order, ctx)


# --- the automatic stages between phases ---------------------------------------------------------------

def proceed(sc: Scenario, rules: dict, ctx) -> None:
    """Run the automatic stages until a decision is pending, a phase waits for orders, or the game ends."""
    while rules["stage"] and not rules["pending"] and rules["combat"] is None and rules["phase"] != "over":
        stage = rules["stage"]
        STAGES[stage](sc, rules, ctx)


def begin_phase(sc: Scenario, rules: dict, ctx, fresh_phase: bool = True) -> None:
    """The start of a phase: supply for movement (12.0), 6.55's radius, the markers of 14.45."""
    side, phase = rules["player"], rules["phase"]
    keep = rules["ps"]["fresh"] if (phase == "move" and not fresh_phase) else []
    rules["ps"] = st.fresh_ps()
    rules["ps"]["fresh"] = keep
    if phase in ("move", "mech"):
        board = view(sc, rules)
        supplied, radius = sp.field(sc, rules, board, side, mark=True)
        mine = [u for u, w in rules["units"].items() if sc.side_of[u] == side and w not in st.OFF_MAP]
        rules["ps"]["oos"] = sorted(u for u in mine if u not in supplied and not sc.units[u].air)
        # 6.55: Soviet units beyond every HQ's radius as the phase begins may not overrun; an
        # overrun is an attack (6.51), so 11.47 holds the Hungarian, Italian and Rumanian units
        # to the same, by the HQs of their nationality (the reading of README)
        rules["ps"]["no_overrun"] = sorted(u for u in mine if sc.units[u].combat and sc.units[u].nation not in sp.DIRECT
                                           and u not in radius)
        rules["ps"]["evacuate"] = phase == "move"
        if phase == "move":
            # 6.14: the one-hex guarantee goes to units that do not *begin* the Initial Movement
            # Phase in an Enemy ZOC; an overrun later in the phase may free a unit of its ZOC.
            # Kept only while the phase lasts and only when some unit is (movement.one_hex_free)
            ezoc = board.ezoc(side)
            began = sorted(u for u in mine if not sc.units[u].air and sc.idx[rules["units"][u]] in ezoc)
            if began:
                rules["ps"]["in_ezoc"] = began
    if phase == "interdiction":
        air.start_interdiction_phase(rules, side, ctx)
    ctx.event("phase", f"Game-Turn {rules['turn']}: {side} {PHASE_NAMES[phase]} (4.2)"
              + (f"; out of supply as it begins (12.0; halved, 12.51): {', '.join(rules['ps']['oos'])}"
                 if rules["ps"]["oos"] else "") + ".",
              turn=rules["turn"], side=side, phase=phase, oos=list(rules["ps"]["oos"]), rule="4.2")


def _start(sc: Scenario, rules: dict, phase: str, ctx) -> None:
    rules["phase"] = phase
    rules["stage"] = None
    begin_phase(sc, rules, ctx)


def _overstacked(sc: Scenario, rules: dict, side: str) -> list[str]:
    board = view(sc, rules)
    out = []
    for i, us in sorted(board.occ.items()):
        if len(us) <= 3:
            continue                      # within the limit, whoever they are (stacking_ok)
        mine = [u for u in us if sc.side_of[u] == side]
        if mine and not stacking_ok(sc, rules, mine):
            out.append(sc.ids[i])
    return out


STACKING_WORDS = ("at the end of a Movement Phase a hex may hold at most 3 combat units, or 4 units if one is an "
                  "HQ; trucks and air units do not count")
COMBAT_STACKING_WORDS = ("at any time of a Combat Phase a hex may hold at most 3 combat units, or 4 units if one is "
                         "an HQ; trucks and air units do not count")


# a players' probe: at 6-1 a De/A1 retreated the four attackers by this standing order, their hex
# won left to the enemy, which a player learned only once the dice were open
ATTACKER_RETREATS = ("your standing order `attacker_result: retreat` answers the attackers' part of every result of "
                     "your attacks, split ones too (D1/A1, De/A1): your attacking units retreat, the enemy choosing "
                     "the paths (9.72), and none advances into the hex won (9.68); `loss` keeps them there to "
                     "advance, `ask` leaves you the choice once the dice are known")


def cautions(sc: Scenario, rules: dict, events: list[dict], side: str, queued: list[dict],
             policies: dict | None = None) -> list[str]:
    """What `pbem submit` warns a dos player of (README, "Orders"): units of his the packet
    lost for over-stacking, and hexes he leaves over-stacked in his Movement Phase, whose
    excess its end eliminates (7.1) (moving through a full hex is legal, so the orders are);
    queued orders that no state of the game can take (an id of no unit or hex, an Axis unit
    placed outside its band), which would be void when the game reaches them; reinforcements
    left off the map as his Initial Movement Phase ended (15.1, 15.3: they may enter later);
    attacks of his packet whose attackers' part of a result his standing order answers with a
    retreat (`ATTACKER_RETREATS`); in the Axis set-up, the regiments of a division placed
    apart (5.3); ground he had to hold that is out of his ZOC as his orders leave it (16.55,
    18.23)."""
    out = []
    for item in queued:
        why = _never(sc, item["order"], side)
        if why:
            out.append(never_taken(item, why))
    for event in events:
        units = event.get("units") or []
        if event["type"] == "eliminated" and event.get("rule") == "7.1" and units and sc.side_of[units[0]] == side:
            combat_phase = event.get("phase") == "combat"       # 7.1: the end of any Combat Phase, either side's
            out.append(f"{', '.join(units)} {'was' if len(units) == 1 else 'were'} eliminated: {event['hex']} was over "
                       f"the stacking limit as the {'Combat' if combat_phase else 'Movement'} Phase ended (7.1: "
                       f"{COMBAT_STACKING_WORDS if combat_phase else STACKING_WORDS})")
    if any(e["type"] == "phase" and e.get("side") == side and e.get("phase") == "combat" for e in events):
        left = movement.ready(sc, rules, side)
        if left:   # players' probe: 34 of 36 were left off the map, unsaid
            named = ", ".join(left[:8]) + (f" and {len(left) - 8} more" if len(left) > 8 else "")
            out.append(f"{len(left)} of your reinforcements did not enter as your Initial Movement Phase ended "
                       f"({named}): they wait off the map for a later one (15.1, 15.3)")
    # the attacks and overruns of the packet itself, queued or played (a review: an attack of
    # an earlier packet, played in one that only answered a decision, was warned of again)
    seq = next((e["seq"] for e in events if e["type"] == "packet"), None)
    if (policies or {}).get("attacker_result") == "retreat" and (
            any(item["seq"] == seq and item["order"].get("type") in ("attack", "overrun") for item in queued)
            or any(e["type"] == "order" and e.get("side") == side and e.get("seq") == seq
                   and (e.get("order") or {}).get("type") in ("attack", "overrun") for e in events)):
        out.append(ATTACKER_RETREATS)
    asked = any(p["kind"] == "directive-removal" for p in rules["pending"])     # the choice is under way
    if side == "axis" and rules["player"] == "axis" and rules["phase"] != "over" and not asked:
        from .directives import excess_words

        over = excess_words(sc, rules)
        if over:
            out.append(over)
    if side == "axis" and rules["phase"] == "setup" and rules["player"] == "axis":
        # 5.3: the end of the set-up is refused while a division's regiments stand apart, and
        # the refusal does not say where they stand (a players' probe, from a set-up sent over
        # several packets)
        for d, apart in setup.divisions_apart(sc, rules):
            out.append(f"the regiments of {d} stand apart ({apart}): the end of your set-up is refused until "
                       f"they stand together in one hex (5.3)")
    if rules["player"] == side and rules["phase"] != "over":
        owed = victory.zoc_owed(sc, rules, side)
        if owed:   # a review: the points came unannounced at the end of the player-turn
            rule, way = ("16.55", "east") if side == "axis" else ("18.23", "west")
            out.append(f"ground you must hold is out of your Zone of Control as your orders leave it ({', '.join(owed)}): "
                       f"unless it is back in it, or a hex further {way} in its hexrow is, when your Player-Turn ends, "
                       f"the {other(side)} player gains 1 VP for each ({rule})")
    deciding = any(p["kind"] == "stack" and p["side"] == side for p in rules["pending"])   # 7.1 asked already
    if rules["phase"] in ("move", "mech") and rules["player"] == side and not deciding:
        for h in _overstacked(sc, rules, side):
            out.append(f"{h} is over the stacking limit (7.1: {STACKING_WORDS}): unless units leave it, the excess is "
                       f"eliminated when this Movement Phase ends")
    return out


def _never(sc: Scenario, order: dict, side: str) -> str | None:
    """Why no state of the game takes `order` from `side` (None: some state may): what it
    names, whatever the board."""
    units = ([order["unit"]] if order.get("unit") else []) + list(order.get("units") or [])
    for uid in units:
        # a retreat answer names the enemy unit whose path the side chooses (9.72): any unit will do
        why = no_unit(sc, uid) if uid not in sc.units else None if order.get("type") == "retreat" else \
            not_own_unit(sc, uid, side)
        if why:
            return why
    hexes = ([order["hex"]] if order.get("hex") else []) + ([order["target"]] if order.get("target") else []) \
        + list(order.get("path") or []) + list(order.get("targets") or []) + list(order.get("hexes") or [])
    for h in hexes:
        if h not in sc.idx:
            return no_hex(sc, h)
    if order.get("type") == "place" and side == "axis" and order.get("unit") and order.get("hex"):
        error = setup.zone_error(sc, order["unit"], sc.idx[order["hex"]])
        if error is not None:
            return with_rule(error.message, error.rule)
    return None


def _end_movement(sc: Scenario, rules: dict, ctx, then: str) -> None:
    """7.1: the excess of a stack is eliminated at the end of the Movement Phase (owner's
    choice); 18.12 (errata): units that withdrew strategically and stand in an Enemy ZOC die."""
    side = rules["player"]
    over = _overstacked(sc, rules, side)
    if over:
        rules["pending"].append(interphase.pending("stack", side, hex=over[0]))
        return
    if side == "soviet" and rules["pt"]["withdrew"]:
        ezoc = view(sc, rules).ezoc("soviet")
        dead = [u for u in rules["pt"]["withdrew"] if st.on_map(rules, u) and sc.idx[st.hex_of(rules, u)] in ezoc]
        if dead:
            for uid in dead:
                combat.eliminate(sc, rules, uid)
            ctx.event("eliminated", f"{', '.join(dead)} made a strategic withdrawal and end the phase in an Enemy ZOC: "
                      f"eliminated (18.12).", units=dead, side=sc.side_of[dead[0]], rule="18.12")
    rules["stage"] = then


def _stage_end_move(sc, rules, ctx):
    rules["ps"].pop("in_ezoc", None)      # 6.14: judged in the Initial Movement Phase only
    _end_movement(sc, rules, ctx, "start-combat")


def _stage_start_combat(sc, rules, ctx):
    fresh = rules["ps"]["fresh"]
    _start(sc, rules, "combat", ctx)
    del fresh                        # 12.53 errata: supplied for their first Movement Phase only


def _stage_end_combat(sc, rules, ctx):
    """7.1: the excess found at the end of any Combat Phase is eliminated, in either player's
    hexes (a combat result that takes a regiment from a whole division may leave the defender's
    hex over the limit, 7.22, 7.23): the phasing player's hexes first, then the other's, each
    hex's owner choosing which unit goes (decision `stack`, asked of him, one unit at a time
    until the hex is within the limit)."""
    for side in (rules["player"], other(rules["player"])):
        over = _overstacked(sc, rules, side)
        if over:
            rules["pending"].append(interphase.pending("stack", side, hex=over[0]))
            return
    _start(sc, rules, "mech", ctx)


def _stage_end_mech(sc, rules, ctx):
    _end_movement(sc, rules, ctx, "disruption")


def _stage_disruption(sc, rules, ctx):
    """4.2 B4/C4, 6.63: the phasing player's Disruption markers come off."""
    side = rules["player"]
    mine = [u for u in rules["disrupted"] if sc.side_of[u] == side]
    for uid in mine:
        st.unmark(rules["disrupted"], uid)
    if mine:
        ctx.event("disruption", f"Disruption markers removed from {', '.join(mine)} (6.63).", units=mine, rule="6.63")
    _start(sc, rules, "interdiction", ctx)


def _stage_end_interdiction(sc, rules, ctx):
    rules["stage"] = "axis-end" if rules["player"] == "axis" else "soviet-end"


def _stage_axis_end(sc, rules, ctx):
    """16.33, 16.4: excess divisions leave; 16.55: No Retreats."""
    if directives.excess(sc, rules):
        rules["pending"].append(interphase.pending("directive-removal", "axis"))
        return
    victory.check_zoc(sc, rules, "axis", ctx)
    if rules["result"] is not None:         # 19.0: the 16.55 award brought 3:1
        rules["stage"] = None
        return
    rules["pt"] = st.fresh_pt()
    rules["player"] = "soviet"
    rules["rail_used"] = 0                    # 6.31: the Soviet player's own allowance of the Game-Turn
    rules["stage"] = "soviet-start"


def _stage_soviet_start(sc, rules, ctx):
    """15.4: the option to double the north-map reinforcements is asked first."""
    if rules["accel"] == "on" and rules["turn"] >= 2 and "double" not in rules["ps"]:
        rules["pending"].append(interphase.pending("accelerate", "soviet"))
        return
    rules["stage"] = "soviet-draw"


def _stage_soviet_draw(sc, rules, ctx):
    double = bool(rules["ps"].get("double"))
    reinforce.soviet_turn(sc, rules, ctx, double)
    rules["phase"] = "move"
    rules["stage"] = None
    victory.record_zoc(sc, rules, "soviet")
    begin_phase(sc, rules, ctx)


def _stage_soviet_end(sc, rules, ctx):
    victory.check_zoc(sc, rules, "soviet", ctx)
    if rules["result"] is not None:         # 19.0: the 18.23 award brought 3:1
        rules["stage"] = None
        return
    rules["pt"] = st.fresh_pt()
    rules["stage"] = "interphase"


def _stage_directive(sc, rules, ctx):
    directives.interphase(sc, rules, ctx)
    rules["stage"] = "axis-start"
    rules["ps"] = st.fresh_ps()
    rules["ps"]["withdrawals"] = 0


def _stage_axis_start(sc, rules, ctx):
    """16.51: the Axis zones of control as the Player-Turn begins; 15.21: withdrawals, at the
    beginning of its Initial Movement Phase, before any unit moves; then the Axis reinforcements.
    A hex a withdrawal takes out of the zones is owed under No Retreats like any other (16.53
    excuses only the Combat Phase's retreats)."""
    due = reinforce.due_withdrawals(sc, rules)
    k = rules["ps"].get("withdrawals", 0)
    if k == 0:
        victory.record_zoc(sc, rules, "axis")
    if k < len(due):
        rules["pending"].append(interphase.pending("withdrawal", "axis", index=sc.withdrawals.index(due[k])))
        return
    reinforce.axis_turn(sc, rules, ctx)
    rules["phase"] = "move"
    rules["player"] = "axis"
    rules["stage"] = None
    begin_phase(sc, rules, ctx)


STAGES = {
    "end-move": _stage_end_move, "start-combat": _stage_start_combat, "end-combat": _stage_end_combat,
    "end-mech": _stage_end_mech, "disruption": _stage_disruption, "end-interdiction": _stage_end_interdiction,
    "axis-end": _stage_axis_end, "soviet-start": _stage_soviet_start, "soviet-draw": _stage_soviet_draw,
    "soviet-end": _stage_soviet_end, "interphase": interphase.stage_interphase,
    "interphase-vp": interphase.stage_vp, "directive": _stage_directive, "axis-start": _stage_axis_start,
}
