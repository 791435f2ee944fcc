"""The Game Turn Sequence (K-SEQ-1 to K-SEQ-3) as an explicit state machine kept in `rules`.

    Command Phase (ap 0)
      start        new turn: destroyed markers due back are replaced (K-CMD-11); on turn 1
                   minelets are laid (K-SFX-5)
      initiative   both sides roll (K-INI) - an automatic step, answered by a standing order
      orders       Issuing Orders, sealed: the side without initiative seals its chits (one for
                   each group), then the side with it (§8 sealed orders, K-ORD); then every
                   change is tested (K-ORD-3) and last turn's EW effects end (K-CMD-4); a
                   sealed chit stays sealed until the rules reveal it (`reveal`, below)
      ew           EW attacks on the side without initiative's markers, then on the other's
                   (K-CMD-3, K-SEQ-1)
    Action Phases 1 to 4
      fire         Direct Fire, simultaneous: both plans sealed when both sides can fire; then
                   recce evasion (K-REC-2), every die, Soviet holds (K-DOC-3), the results
      air          (phase 4) aircraft and air defence (K-AIR)
      move1        the side with initiative moves and declares Close Assaults (K-MOV-1, K-CA-5)
      calls1       bombardment calls, the side that did not move first (K-SEQ-2), then rolled
      assault1     Close Assaults, then Breakthrough Close Assaults (K-CA-1, K-CA-20)
      move2, calls2, assault2   the same for the side without initiative
    Morale Phase (ap 5): the chits still sealed are revealed; demoralisation (K-MOR); after
                 the last turn, victory (house rules)
    reveal         at any step: the sealed chits the rules reveal now (Direct Fire, Close
                   Assault, bombardment, a `show`, the end of the turn; K-ORD-6), opened by
                   their owners one side at a time, before the step goes on

A step that needs no player waits for nothing: `advance` runs it at once (rolling its dice)
and moves on until a step needs an order or a decision.
"""

from __future__ import annotations

import copy

from pbem.core.text import with_rule

from ..base import IllegalOrder, Need, never_taken
from . import air, artillery, assault, command, fire, giveground, layout, movement, victory
from .common import check_morale, dice_choice
from .orders import DEFAULT_POLICIES, ORDER_TYPES
from .scenario import SIDES, Scenario, other
from .state import Board, fresh_ps, fresh_ts, initial

ROLLER = SIDES[1]       # the automatic initiative roll is a decision of the second side (see README)
MOVE_ACCEPTS = movement.MOVE_TYPES + ("assault", "show", "end")


class QuietContext:
    """A context for steps that roll no dice and report nothing (state 0)."""

    chosen_by = "order"

    def d6(self, label: str) -> int:  # pragma: no cover - state 0 never reaches a die
        raise RuntimeError("no dice at the set-up")

    def event(self, type: str, text: str, **fields) -> None:
        pass


def _check_deployment(sc: Scenario, rules: dict) -> None:
    """The units as the scenario sets them out stand where units can stand (a probe of crafted
    scenarios: two units in one place, units of both sides in one square, ten in a square were
    played on): each square of one side's units, at most K-GM-1's six, one to a place (K-GM-3).
    (A battle group is labelled within its square, so it is of one side too.) (Where in its square
    a unit stands, K-GM-2, is the scenario's to set: a case may start from any layout.)"""
    board = Board(sc, rules)
    for square in sorted({rec["sq"] for rec in rules["pieces"].values()}):
        here = board.at(square)
        if len({sc.pieces[p].side for p in here}) > 1:
            raise ValueError(f"kkoh scenario: units: {square} holds units of both sides ({', '.join(here)}); a square "
                             "is one side's at the start")
        if len(here) > layout.MAX_UNITS:
            raise ValueError(f"kkoh scenario: units: {square} holds {len(here)} units; a square holds at most "
                             f"{layout.MAX_UNITS} (K-GM-1)")
        cells: dict[str, str] = {}
        for p in here:
            cell = rules["pieces"][p]["cell"]
            if cell in cells:
                raise ValueError(f"kkoh scenario: units: {cells[cell]} and {p} stand in the same place ({square} cell "
                                 f"{cell}) (K-GM-3)")
            cells[cell] = p


def setup_rules(sc: Scenario) -> dict:
    rules = initial(sc)
    _check_deployment(sc, rules)
    check_morale(sc, Board(sc, rules), QuietContext())     # a position may start with a formation below half
    pos = sc.position
    if pos and pos["step"] != "turn":
        rules["ap"] = pos["ap"]
        rules["initiative"] = pos.get("initiative") or SIDES[0]
        if pos["step"] == "orders":
            rules["ap"] = 0
            _start_exchange(sc, rules, "orders")
            rules["step"] = "orders"
        elif pos["step"] == "fire":
            _start_ap(sc, rules, pos["ap"], QuietContext(), enter=False)
            rules["step"] = "fire-begin"
        else:
            _start_ap(sc, rules, pos["ap"], QuietContext(), enter=False)
            rules["step"] = "move1" if pos.get("mover", "first") == "first" else "move2"
    advance(sc, rules, QuietContext())
    return rules


# --- the need -------------------------------------------------------------------------------

def mover(rules: dict, step: str) -> str:
    return rules["initiative"] if step.endswith("1") else other(rules["initiative"])


def next_step(sc: Scenario, rules: dict) -> Need | None:
    step = rules["step"]
    if step == "over":
        return None
    turn, ap = rules["turn"], rules["ap"]
    where = f"turn {turn}" + (f", Action Phase {ap}" if 1 <= ap <= 4 else "")
    wait = giveground.waiting(rules)
    if wait:        # K-GG-5: the owner chooses the place of a unit giving ground, in the middle of a resolution
        return Need(sc.pieces[wait["unit"]].side, "give-ground-place",
                    f"{where}: {wait['unit']} gives ground into {wait['sq']} facing {rules['pieces'][wait['unit']]['f']}: "
                    f"choose its place ({', '.join(wait['cells'])}; K-GG-5)", ("place",), "K-GG-5", decision=True)
    pending = rules.get("reveal")
    if pending:     # K-ORD-6: sealed chits the rules reveal now, one side at a time
        side = next(s for s in SIDES if pending.get(s))
        groups = [", ".join(e["units"]) for e in rules["hidden"][side] if e["item"] in pending[side]]
        return Need(side, "reveal", f"{where}: the rules reveal the order chits of {'; '.join(groups)} (K-ORD-6): "
                    f"open them ({', '.join(pending[side])})", ORDER_TYPES, "K-ORD-6", opens=tuple(pending[side]))
    if step == "replace":
        hid = command.replacements_due(sc, rules)[0]
        return Need(sc.commands[hid].side, "replace-hq", f"{where}: where {hid} comes back (K-CMD-11)", ("replace",),
                    "K-CMD-11", decision=True)
    if step == "minelets":
        side, pair = _minelets_due(sc, rules)
        return Need(side, "minelets", f"{where}: the square of minelet pair {pair}'s first marker (K-SFX-5)",
                    ("minelets",), "K-SFX-5", decision=True)
    if step == "initiative":
        return Need(ROLLER, "initiative", f"{where}: roll for initiative (automatic; the standing order rolls, K-INI-1)",
                    ("roll",), "K-INI-1", decision=True)
    if step in ("orders", "fire"):
        return _exchange_need(sc, rules, where)
    if step == "ew":
        attacker = rules["plans"]["ew"][0]
        return Need(attacker, "ew", f"{where}: use your EW unit for this turn's attacks (K-SFX-1)?", ("ew",), "K-SFX-1",
                    decision=True)
    if step == "evade":
        pid = fire.evaders(sc, rules)[0]
        return Need(sc.pieces[pid].side, "evade", f"{where}: {pid} is fired at: give ground to avoid the fire (K-REC-2)?",
                    ("evade",), "K-REC-2", decision=True)
    if step == "hold":
        pid = fire.soviet_choices(sc, rules)[0]
        losses = rules["plans"]["fire_results"][pid]["losses"]
        left = Board(sc, rules).points_left(pid)
        cost = (" After this fire it has 1 strength point left, so standing destroys it (K-TRP-2)."
                if left - losses == 1 else "")
        return Need(sc.pieces[pid].side, "hold", f"{where}: {pid} must give ground: take a loss instead (K-DOC-3)?"
                    + cost, ("hold",), "K-DOC-3", decision=True)
    if step == "air":
        side, kind, prompt = air.decision(sc, rules)
        return Need(side, kind, f"{where}: {prompt}", (kind,), "K-AIR-2", decision=True)
    if step in ("move1", "move2"):
        side = mover(rules, step)
        return Need(side, "move", f"{where}: {side} moves (move, assault, dismount, mount, limber, unlimber, hq), then "
                    f"end (K-MOV-1)", MOVE_ACCEPTS, "K-MOV-4")
    if step in ("calls1", "calls2"):
        side = rules["plans"]["callers"][0]
        return Need(side, "calls", f"{where}: {side} calls for bombardment (bombard, counter-battery, chemical), then "
                    f"end (K-IF-5)", artillery.CALL_TYPES + ("end",), "K-IF-5")
    if step in ("assault1", "assault2"):
        side, kind, prompt = assault.decision(sc, rules)
        kinds = {"assault-next": "next", "breakthrough": "breakthrough", "ca-defence": "defend", "ca-loss": "loss",
                 "attrition": "test", "counter-attack": "counter", "withdraw": "withdraw", "occupy": "occupy",
                 "occupy-facing": "face"}
        return Need(side, kind, f"{where}: {prompt}", (kinds[kind],), "K-CA-1", decision=True)
    raise RuntimeError(f"kkoh: no need at step {step!r}")   # advance() never stops elsewhere


def _exchange_need(sc: Scenario, rules: dict, where: str) -> Need:
    xc = rules["plans"]["xc"]
    kind = xc["kind"]
    item = "chit" if kind == "orders" else "fire"
    what = "order chits" if kind == "orders" else "Direct Fire plan"
    rule = "K-ORD-1" if kind == "orders" else "K-DF-5"
    if xc["i"] < len(xc["sides"]):
        side = xc["sides"][xc["i"]]
        sealed = len(xc["sides"]) == 2
        prompt = (f"{where}: seal your {what} ({item} orders, then end; `pbem submit --seal`), or give them openly"
                  if sealed else f"{where}: your {what} ({item} orders, then end)")
        if sealed and kind == "orders":
            prompt = (f"{where}: seal your order chits, one for each battle group and lone unit (chit orders for those "
                      f"that change, then end; `pbem submit --seal` seals one for each), or give them openly")
        return Need(side, kind, prompt, (("sealed",) if sealed else ()) + (item, "end"), rule, sealed=sealed,
                    reveal="asked" if kind == "orders" else "next")
    side = xc["open"][0]
    return Need(side, f"{kind}-open", f"{where}: open the {what} you sealed", ORDER_TYPES, rule)


# --- advancing -------------------------------------------------------------------------------

def advance(sc: Scenario, rules: dict, ctx) -> None:
    """Run every step that needs no player, until one does (or the game is over)."""
    for _ in range(10000):
        step = rules["step"]
        if step == "over" or rules.get("reveal") or giveground.waiting(rules):
            return      # a reveal waits for its opening (K-ORD-6), a unit giving ground for its place (K-GG-5)
        if step == "start":
            _start_turn(sc, rules, ctx)
        elif step == "replace":
            if command.replacements_due(sc, rules):
                return
            rules["step"] = "minelets"
        elif step == "minelets":
            if _minelets_due(sc, rules) is not None:
                return
            rules["step"] = "initiative"
        elif step == "initiative":
            return
        elif step in ("orders", "fire"):
            xc = rules["plans"]["xc"]
            if xc["i"] < len(xc["sides"]) or xc["open"]:
                return
            sealed = rules["plans"].pop("xc").get("seqs", {})
            if step == "orders":
                command.resolve_chits(sc, rules, ctx, sealed)
                if rules["ooc"]:
                    ctx.event("in-command", "The markers put Out of Command by last turn's EW are In Command again "
                              "(K-CMD-4): " + ", ".join(rules["ooc"]) + ".", hqs=list(rules["ooc"]), rule="K-CMD-4")
                rules["ooc"] = []
                rules["plans"]["ew"] = [rules["initiative"], other(rules["initiative"])]
                rules["step"] = "ew"
            else:
                rules["step"] = "evade"
        elif step == "ew":
            todo = rules["plans"]["ew"]
            if not todo:
                rules["plans"].pop("ew")
                _start_ap(sc, rules, 1, ctx)
                continue
            if command.special_left(sc, rules, todo[0], "ew") > 0:
                return
            command.ew_attack(sc, rules, todo.pop(0), False, ctx)
        elif step == "fire-begin":
            _begin_fire(sc, rules, ctx)
        elif step == "evade":
            shots = [s for side in SIDES for s in fire.plan(rules, side)]
            if command.ask_reveal(rules, [s["unit"] for s in shots] + [s["target"] for s in shots]):
                return      # K-ORD-6: Direct Fire reveals the firers' and the targets' chits
            if fire.evaders(sc, rules):
                return
            fire.resolve(sc, rules, ctx)
            rules["step"] = "hold"
        elif step == "hold":
            if fire.soviet_choices(sc, rules):
                return
            if not fire.apply_results(sc, rules, ctx):
                return      # a unit giving ground waits for its place (K-GG-5)
            if rules["ap"] == 4 and sc.air:
                air.begin(sc, rules)
                rules["step"] = "air"
            else:
                rules["step"] = "move1"
        elif step == "air":
            air.run(sc, rules, ctx)
            if air.decision(sc, rules) is not None:
                return
            rules["plans"].pop("air", None)
            rules["step"] = "move1"
        elif step in ("move1", "move2"):
            side = mover(rules, step)
            if _can_act(sc, rules, side):
                return
            ctx.event("no-move", f"{side} has nothing to move in Action Phase {rules['ap']}.", side=side, rule="K-MOV-4")
            _end_move(sc, rules, ctx)
        elif step in ("calls1", "calls2"):
            callers = rules["plans"].get("callers", [])
            while callers and not artillery.can_call(sc, rules, callers[0]):
                callers.pop(0)
            if callers:
                return
            if command.ask_reveal(rules, artillery.revealed_by_calls(sc, rules)):
                return      # the supported units' chits (K-IF-6) and the batteries counter-battery may hit (K-IF-10)
            rules["plans"].pop("callers", None)
            if any(artillery.calls(rules, s) for s in SIDES) and not artillery.resolve(sc, rules, ctx):
                return      # a battery giving ground waits for its place (K-GG-5)
            rules["plans"].pop("calls", None)
            rules["step"] = "assault" + step[-1]
        elif step in ("assault1", "assault2"):
            assault.run(sc, rules, ctx)
            if rules.get("reveal") or giveground.waiting(rules) or assault.decision(sc, rules) is not None:
                return
            rules["assaults"] = []
            rules["ps"]["defended"] = []
            if step == "assault1":
                rules["step"] = "move2"
            else:
                _end_ap(sc, rules, ctx)
        elif step == "morale":
            if command.ask_reveal(rules, command.hidden_units(rules)):
                return      # §8: the chits the turn did not reveal are revealed at its end
            _morale(sc, rules, ctx)
        else:
            raise RuntimeError(f"kkoh: unknown step {step!r}")
    raise RuntimeError("kkoh: the flow does not settle")


def _start_turn(sc: Scenario, rules: dict, ctx) -> None:
    rules["ap"] = 0
    rules["ts"] = fresh_ts()
    rules["ps"] = fresh_ps()
    ctx.event("game-turn", f"Game turn {rules['turn']} begins: the Command Phase (K-SEQ-1).", turn=rules["turn"],
              rule="K-SEQ-1")
    rules["step"] = "replace"


def _minelets_due(sc: Scenario, rules: dict) -> tuple[str, str] | None:
    if rules["turn"] != 1 or sc.position:
        return None
    for side in SIDES:
        bought = sc.specials[side].get("minelets", 0)
        laid = {m["pair"] for m in rules["minelets"] if m["side"] == side}
        for k in range(1, bought + 1):
            pair = f"{side}-{k}"
            if pair not in laid:
                return side, pair
    return None


def _start_exchange(sc: Scenario, rules: dict, kind: str) -> None:
    if kind == "orders":
        sides = [other(rules["initiative"]), rules["initiative"]]
    else:
        sides = [s for s in (other(rules["initiative"]), rules["initiative"]) if fire.can_fire(sc, rules, s)]
    rules["plans"]["xc"] = {"kind": kind, "sides": sides, "i": 0, "sealed": {}, "open": [], "left": 0}


def _start_ap(sc: Scenario, rules: dict, ap: int, ctx, enter: bool = True) -> None:
    rules["ap"] = ap
    rules["ps"] = fresh_ps()
    rules["ps"]["groups"] = {p: rec["g"] for p, rec in sorted(rules["pieces"].items()) if rec.get("g")}
    ctx.event("action-phase", f"Turn {rules['turn']}, Action Phase {ap} (K-SEQ-2).", turn=rules["turn"], ap=ap,
              rule="K-SEQ-2")
    if enter:
        rules["step"] = "fire-begin"


def _begin_fire(sc: Scenario, rules: dict, ctx) -> None:
    _start_exchange(sc, rules, "fire")
    if not rules["plans"]["xc"]["sides"]:
        rules["plans"].pop("xc")
        ctx.event("no-fire", f"No unit can fire in Action Phase {rules['ap']} (K-DF-1).", rule="K-DF-1")
        rules["step"] = "evade"
    else:
        rules["step"] = "fire"


def _can_act(sc: Scenario, rules: dict, side: str) -> bool:
    ap = rules["ap"]
    board = Board(sc, rules)     # read only: one view for all three
    if movement.overfull(board, side):
        return True     # K-MOV-5: after every order an over-full square has a relief to make (check_relief)
    for _ in movement.iter_options(sc, rules, side, ap, board):
        return True     # the usual answer, so looked for first (the order of these tests changes nothing)
    if command.can_show(sc, rules, side, board):
        return True     # a group with a sealed chit may show it, then move
    for _ in assault.iter_options(sc, rules, side, ap, board):
        return True
    return False


def _end_move(sc: Scenario, rules: dict, ctx) -> None:
    step = rules["step"]
    side = mover(rules, step)
    if rules["assaults"]:
        rules["plans"]["callers"] = [other(side), side]
        rules["step"] = "calls" + step[-1]
    elif step == "move1":
        rules["step"] = "move2"
    else:
        _end_ap(sc, rules, ctx)


def _end_ap(sc: Scenario, rules: dict, ctx) -> None:
    victory.update_held(sc, rules)
    if rules["ap"] < 4:
        _start_ap(sc, rules, rules["ap"] + 1, ctx)
    else:
        rules["ap"] = 5
        rules["step"] = "morale"


def _morale(sc: Scenario, rules: dict, ctx) -> None:
    board = Board(sc, rules)
    ctx.event("morale-phase", f"Turn {rules['turn']}: the Morale Phase (K-SEQ-3).", turn=rules["turn"], rule="K-SEQ-3")
    check_morale(sc, board, ctx, phase=True)
    victory.update_held(sc, rules)
    if rules["turn"] >= sc.last_turn or any(not board.squares(s) for s in SIDES):
        rules["step"] = "over"
        victory.final(sc, rules, ctx)
        return
    rules["turn"] += 1
    rules["step"] = "start"


# --- legal orders and standing orders ----------------------------------------------------------

def listing(sc: Scenario, rules: dict, need: Need, only: str | None) -> tuple[list[dict], str | None]:
    """What `pbem orders` lists: the legal orders, with a `show` of each sealed group in place of
    the one of them all, so that a player shows only the groups he will move (players' probes:
    the one `show` offered named every unit of the side, and a chit shown is seen by the
    opponent; listed beside the others, it was copied)."""
    legal = legal_orders(sc, rules, need)
    if need.kind != "move" or need.decision:
        return legal, None
    each = [o for o in command.show_options(sc, rules, need.side, each=True) if o not in legal]
    if each:   # players' probe: the one `show` of every group, copied, gave a whole deployment away
        legal = [o for o in legal if o["type"] != "show"]
    return each + legal, None


# What a group whose chit is sealed may do, said to its owner (a players' probe: `pbem orders`
# listed only a `show` of it and `end`, and its moves were written blind). The reading: the rules
# never forbid moving a unit whose chit is hidden - chits are hidden from the enemy (K-ORD-1) and
# revealed only in a Close Assault or by Direct Fire (K-ORD-6); at the table a player moves it and
# his opponent trusts his chit. But what it may do depends on that chit (K-ORD-5, K-MOV-4,
# K-ORD-8), and pbem has no referee to check it against a hidden one: its owner shows the chit
# first (`show`, README "Sealed orders"), which is no rule of play this listing changes. A
# `show` and the group's orders go in one packet, which opens the chit too (docs/protocol.md §8,
# items a packet's own orders reveal), and they are checked against it there. So the group's
# orders are legal to write now, behind its `show`, and its owner, who knows
# the item he sealed and, by its salt, the test die sealed with it, can know them: they are listed.

def sealed_listing(sc: Scenario, rules: dict, need: Need, own: dict[str, dict]) -> tuple[str | None, list]:
    """`pbem orders` for the player whose private/ keeps his sealed chits (`own`: his items still
    sealed, by name): in a movement step, what each group whose chit is sealed may do once shown,
    on the chit its opening will give (`command.own_chit`), each as a `show` of it and then its
    orders; the groups that may do nothing on it are named in the note."""
    if need.kind != "move" or need.decision:
        return None, []
    side, ap = need.side, rules["ap"]
    board = Board(sc, rules)
    known = []
    for body in board.each_mover(side):
        mine = command.own_chit(sc, rules, body[0], own) if board.hidden(body[0]) else None
        if mine is not None and mine.now is not None:
            known.append((body, mine))
    if not known:
        return None, []
    # every group known opened at once, on a copy of the records it changes (the rest is read only)
    pieces = dict(rules["pieces"])
    for body, mine in known:
        for u in body:
            pieces[u] = dict(pieces[u], o=mine.now)
    trial = dict(rules, pieces=pieces)
    view = Board(sc, trial, still=True)
    options = list(movement.iter_options(sc, trial, side, ap, view)) + list(assault.iter_options(sc, trial, side, ap,
                                                                                                 view))
    groups, idle = [], []
    for body, mine in known:
        mine_only = [o for o in options if set(o.get("units") or ()) & set(body)]
        named = ", ".join(body)
        about = f"{named}, sealed {mine.order} (item {mine.item}); shown: {mine.words.removeprefix(named + ': ')}"
        if mine_only:
            groups.append((about, [command.show_of(board, body)] + mine_only))
        else:
            # and whether the change sealed for it held (a players' probe: "B-Gem-1, B-Gem-2 (HD)"
            # did not say that the M sealed for them had failed, on a die of 1)
            tested = f"; sealed {mine.order}: {mine.words.removeprefix(named + ': ')}" if mine.die is not None else ""
            idle.append(f"{named} ({mine.now}{tested})")
    note = ("Your groups whose chit is sealed are shown before they move (pbem checks each move against the chit, "
            "K-ORD-5, K-MOV-4, K-ORD-6): a group's `show` and then its orders go in this packet, which opens the "
            "chit too (`pbem submit` does, from private/), and they are checked against it there. By the chits you "
            "sealed (private/, for your eyes only), "
            + (f"these may do nothing in this Action Phase, and a `show` would only tell your opponent their chit: "
               f"{'; '.join(idle)}." + (" What each other group may do once shown:" if groups else "") if idle
               else "what each may do in this Action Phase once shown:"))
    return note, groups


def legal_orders(sc: Scenario, rules: dict, need: Need) -> list[dict]:
    if rules["step"] == "over":
        return []
    kind = need.kind
    side = need.side
    if kind in ("orders", "orders-open"):
        return command.chit_options(sc, rules, side) + [{"type": "end"}]
    if kind in ("fire", "fire-open"):
        # K-DF-5: the shots offered keep the plan spread as evenly as possible (an uneven plan
        # loses its extra shots at its end, fire.even_out)
        return fire.options(sc, rules, side) + [{"type": "end"}]
    if kind == "move":
        board = Board(sc, rules, still=True)     # read only: one view for all four, its movers read once
        options = (list(movement.iter_options(sc, rules, side, rules["ap"], board))
                   + list(assault.iter_options(sc, rules, side, rules["ap"], board))
                   + command.show_options(sc, rules, side, board))
        if not movement.overfull(board, side):
            return options + [{"type": "end"}]
        # K-MOV-5: no end while a square is over-full; the orders offered are those after which
        # it can still be relieved, and the first move of its relief (one unit of a group may
        # be it, where the options move whole groups)
        first = (movement.relief(sc, rules, side, rules["ap"]) or [None])[0]
        kept = [o for o in options if o == first or _kept_by_relief(sc, rules, side, o)]
        return kept + ([first] if first is not None and first not in kept else [])
    if kind == "calls":
        # K-SFX-4: no end while a chemical attack declared waits for its bombardment call
        opts = artillery.options(sc, rules, side)
        return opts + ([] if artillery.end_block(sc, rules, side, opts) else [{"type": "end"}])
    if kind == "initiative":
        return [{"type": "roll"}]
    if kind == "replace-hq":
        return command.replace_options(sc, rules, command.replacements_due(sc, rules)[0])
    if kind == "minelets":
        side, pair = _minelets_due(sc, rules)
        options = [{"type": "minelets", "pair": pair, "square": s} for s in sc.grid.ids]
        first = _minelet_default(sc, rules, options)   # what `pbem orders` fills in: the enemy-front square
        return [first] + [o for o in options if o != first]
    if kind == "ew":
        return [{"type": "ew", "use": True}, {"type": "ew", "use": False}]
    if kind == "evade":
        pid = fire.evaders(sc, rules)[0]
        return [{"type": "evade", "unit": pid, "go": True}, {"type": "evade", "unit": pid, "go": False}]
    if kind == "hold":
        pid = fire.soviet_choices(sc, rules)[0]
        return [{"type": "hold", "unit": pid, "convert": False}, {"type": "hold", "unit": pid, "convert": True}]
    if kind == "give-ground-place":
        return giveground.legal_places(rules)
    if kind in air.DECISIONS:
        return air.legal(sc, rules, kind)
    if kind in assault.DECISIONS:
        return assault.legal(sc, rules, kind)
    return []


def cautions(sc: Scenario, rules: dict, events: list[dict], side: str, queued: list[dict],
             policies: dict | None = None) -> list[str]:
    """What `pbem submit` warns a kkoh player of (Ruleset.cautions): queued orders that no
    state of the game can take, because the units they move, show or fire with are no units of
    his (a players' probe: a `show` of the enemy's groups, queued, was called "a legal packet";
    the same order given at its step is refused, K-ORD-6). They would be void when the game
    reaches them."""
    out = []
    for item in queued:
        order = item["order"]
        acting = list(order.get("units") or []) + ([order["unit"]] if order.get("type") == "fire" and order.get("unit")
                                                    else [])
        foreign = [u for u in acting if u not in sc.pieces or sc.pieces[u].side != side]
        if foreign:
            what = ", ".join(f"{u} (no unit of this game)" if u not in sc.pieces else f"{u} ({sc.pieces[u].side}'s)"
                             for u in foreign)
            out.append(never_taken(item, f"it names units that are not {side}'s: {what}", typed=True))
    return out


def policy(sc: Scenario, rules: dict, need: Need, policies: dict | None) -> dict | None:
    if not need.decision:
        return None
    pol = dict(DEFAULT_POLICIES)
    pol.update(policies or {})
    kind = need.kind
    if kind == "initiative":
        return {"type": "roll"}
    key = {"replace-hq": "replace_hq", "minelets": "minelets", "ew": "ew", "evade": "recce_evade", "hold": "soviet_hold",
           "air-support": "air_support", "air-target": "air_target", "air-unit": "air_target",
           "assault-next": "assault_order", "ca-defence": "ca_defence", "ca-loss": "losses", "attrition": "attrition",
           "counter-attack": "counter_attack", "withdraw": "withdraw", "occupy": "occupy",
           "occupy-facing": "occupy_facing", "breakthrough": "breakthrough",
           "give-ground-place": "give_ground_place"}[kind]
    choice = pol[key]
    if choice == "ask":
        return None
    options = legal_orders(sc, rules, need)
    board = Board(sc, rules)
    if kind == "replace-hq":
        return command.replace_default(sc, rules, command.replacements_due(sc, rules)[0])
    if kind == "minelets":
        return _minelet_default(sc, rules, options)
    # `use` and `evade` answer yes only where it can do something: an EW turn with an enemy
    # marker on the table to attack (K-SFX-1, K-CMD-5), Air Support for an air unit that would
    # find a target (K-SFX-3, K-AIR-2), an evasion with a square to Give Ground to (K-REC-2,
    # K-GG-10); else the turn, the request or the unit would be spent for nothing (a rules
    # lawyer's probe). An answer the player writes is taken as written.
    if kind == "ew":
        return options[0] if choice == "use" and command.ew_targets(sc, rules, other(need.side)) else options[1]
    if kind == "air-support":
        return options[0] if choice == "use" and air.support_helps(sc, rules) else options[1]
    if kind == "evade":
        return options[0] if choice == "evade" and fire.may_give_ground(sc, rules, options[0]["unit"]) else options[1]
    if kind == "hold":
        return options[1] if choice == "take-loss" else options[0]
    if kind in air.DECISIONS:
        return air.default(sc, rules, kind)
    if kind == "assault-next":
        return options[0]
    if kind == "breakthrough":
        return options[1] if choice == "take" else options[0]
    if kind == "counter-attack":
        return options[1] if choice == "try" else options[0]
    if kind == "withdraw":
        return options[1] if choice == "withdraw" else options[0]
    if kind in ("occupy", "occupy-facing", "give-ground-place"):
        return options[0]       # listed first: declared order, the way they came, the front-most place
    if kind == "ca-defence":
        if choice == "alone":
            return next(o for o in options if o["support"] is None)
        supported = [o for o in options if o["support"] is not None]
        if not supported:
            return options[0]
        first_body = supported[0]["units"]
        pool = [o for o in supported if o["units"] == first_body]
        return max(pool, key=lambda o: (board.points_left(o["support"]), [-ord(c) for c in o["support"]]))
    if kind in ("ca-loss", "attrition"):
        undamaged = [o for o in options if not board.damaged(o["unit"])]
        damaged = [o for o in options if board.damaged(o["unit"])]
        first = undamaged if choice in ("spread", "undamaged-first") else damaged
        return (first or options)[0]
    return None


def _minelet_default(sc: Scenario, rules: dict, options: list[dict]) -> dict:
    """The standing order: the empty square next to the most enemy units (then lowest id)."""
    board = Board(sc, rules)
    side, _ = _minelets_due(sc, rules)
    enemy = board.squares(other(side))

    def near(square: str) -> tuple:
        return (-sum(len(board.at(s)) for s in enemy if sc.grid.distance(square, s) == 1), square)

    empty = [o for o in options if not board.at(o["square"])]
    return min(empty or options, key=lambda o: near(o["square"]))


# --- applying an order -----------------------------------------------------------------------

def apply(sc: Scenario, rules: dict, need: Need, order: dict, ctx) -> None:
    current = next_step(sc, rules)
    if current is None:
        raise IllegalOrder("K-REF-2", "the game is over; no order is legal", [])
    if (current.side, current.kind) != (need.side, need.kind):
        raise IllegalOrder(current.rule, f"the game waits for {current.kind} of {current.side}, not {need.kind}",
                           list(current.accepts))
    kind = order.get("type") if isinstance(order, dict) else None
    if kind not in current.accepts and getattr(ctx, "opened", None) is None:
        # (an opened item, even the core's `void` for one that is no order, is voided below:
        # it cannot be sent again, docs/protocol.md §8)
        raise IllegalOrder(current.rule, current.waits_for(), list(current.accepts))
    side = current.side
    step = rules["step"]
    if current.kind == "give-ground-place":
        giveground.answer(sc, rules, order, ctx)
    elif current.kind == "reveal":
        opened = getattr(ctx, "opened", None)
        if opened != current.opens[0]:
            raise IllegalOrder("K-ORD-6", f"the rules reveal {side}'s sealed chit {current.opens[0]}: only its opening "
                               f"answers", None)
        command.reveal(sc, rules, side, opened, order, ctx)
    elif step in ("orders", "fire"):
        _apply_exchange(sc, rules, current, order, ctx)
    elif step == "replace":
        _replace(sc, rules, order, ctx)
    elif step == "minelets":
        _lay_minelets(sc, rules, current, order)
    elif step == "initiative":
        _place_second_minelets(sc, rules, ctx)
        command.roll_initiative(sc, rules, ctx)
        _start_exchange(sc, rules, "orders")
        rules["step"] = "orders"
    elif step == "ew":
        if order not in legal_orders(sc, rules, current):
            raise IllegalOrder("K-SFX-1", "ew: answer use true or false", legal_orders(sc, rules, current))
        command.ew_attack(sc, rules, rules["plans"]["ew"].pop(0), order["use"], ctx)
    elif step == "evade":
        if order not in legal_orders(sc, rules, current):
            raise IllegalOrder("K-REC-2", "evade: not a legal answer", legal_orders(sc, rules, current))
        fire.evade(sc, rules, order["unit"], order["go"], ctx)
    elif step == "hold":
        if order not in legal_orders(sc, rules, current):
            raise IllegalOrder("K-DOC-3", "hold: not a legal answer", legal_orders(sc, rules, current))
        fire.hold(sc, rules, order["unit"], order["convert"], ctx)
    elif step == "air":
        air.answer(sc, rules, current.kind, order, ctx)
    elif step in ("move1", "move2"):
        if kind == "end":
            refused = movement.overfull_error(Board(sc, rules), side, "end")
            if refused:
                raise refused
            ctx.event("end", f"{side} ends its movement in Action Phase {rules['ap']}.", side=side)
            _end_move(sc, rules, ctx)
        else:
            _move_step_order(sc, rules, side, order, ctx)
    elif step in ("calls1", "calls2"):
        if kind == "end":
            refused = artillery.end_block(sc, rules, side)
            if refused:
                raise IllegalOrder("K-SFX-4", refused, artillery.options(sc, rules, side))
            rules["plans"]["callers"].pop(0)
        else:
            artillery.add_call(sc, rules, side, order, ctx)
    elif step in ("assault1", "assault2"):
        assault.answer(sc, rules, current.kind, order, ctx)
    advance(sc, rules, ctx)


def _move_step_order(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    """One order of a movement step but `end`: a move, an assault, a change of mode, an HQ
    move or a chit shown; then every over-full square must still have its relief (K-MOV-5)."""
    kind, ap = order["type"], rules["ap"]
    named = [u for u in list(order.get("units") or []) + list(order.get("join") or []) if u in rules["pieces"]]
    sealed = [u for u in named if rules["pieces"][u]["o"] is None]
    if sealed and kind != "show":
        # the refusal offers the show of the groups named alone (a players' probe: it offered one
        # of every sealed group of the side, and a chit shown is seen by the opponent); the void
        # line of a queued order keeps the words of its report (`offer`)
        raise IllegalOrder("K-ORD-6", f"{kind}: the order chit of {', '.join(sealed)} is sealed: show it first "
                           f"(a `show` order; pbem checks every move against the chit, K-ORD-5, K-MOV-4, K-ORD-8)",
                           command.show_options(sc, rules, side), offer=[command.show_of(Board(sc, rules), sealed)])
    if kind == "show":
        command.show(sc, rules, side, order, ctx)
    elif kind == "move":
        movement.move(sc, rules, side, order, ctx, ap)
    elif kind == "assault":
        assault.declare(sc, rules, side, order, ctx, ap)
    elif kind == "hq":
        movement.move_hq(sc, rules, side, order, ctx, ap)
    else:
        movement.change_mode(sc, rules, side, order, ctx, ap)
    movement.check_relief(sc, rules, side, ap, kind)      # K-MOV-5


class _Trial(QuietContext):
    """The context of an order tried on a copy of the rules. The only dice of a movement step
    are the minelets' (K-SFX-5), and every die of the trial is a 6: no loss and no real
    minefield, the outcome that leaves the most units to relieve a square."""

    def d6(self, label: str) -> int:
        return 6


def _kept_by_relief(sc: Scenario, rules: dict, side: str, order: dict) -> bool:
    """Whether `order`, applied now to a copy of the rules, leaves every over-full square of
    `side` its relief (K-MOV-5) whatever the minelets' dice: an order whose acceptance would
    hang on them is not offered (it may still be sent)."""
    try:
        _move_step_order(sc, copy.deepcopy(rules), side, order, _Trial())
    except IllegalOrder:
        return False
    return True


def _apply_exchange(sc: Scenario, rules: dict, need: Need, order: dict, ctx) -> None:
    xc = rules["plans"]["xc"]
    side = need.side
    kind = order["type"]
    opening = need.kind.endswith("-open")
    item = "chit" if xc["kind"] == "orders" else "fire"
    if not opening:
        if kind == "sealed":
            n = order.get("items")
            if not isinstance(n, int) or n < 1:
                raise IllegalOrder(need.rule, "sealed orders are one or more items", None)
            if xc["kind"] == "orders":
                count = len(command.bodies(Board(sc, rules), side))
                if n != count or not isinstance(order.get("seq"), int):
                    raise IllegalOrder("K-ORD-1", f"seal one order chit for each of your {count} battle groups and lone "
                                       f"units, in the order `pbem orders` lists them (`pbem submit --seal` does), not {n}",
                                       None)
                xc.setdefault("seqs", {})[side] = order["seq"]
            xc["sealed"][side] = n
            ctx.event("sealed-orders", f"{side} has sealed its {'order chits' if item == 'chit' else 'fire plan'} "
                      f"({n} item{'s' if n > 1 else ''}).", side=side, items=n, rule=need.rule)
            xc["i"] += 1
            if xc["i"] == len(xc["sides"]):
                xc["open"] = [s for s in xc["sides"] if s in xc["sealed"] and s not in xc.get("seqs", {})]
                if xc["open"]:
                    xc["left"] = xc["sealed"][xc["open"][0]]
        elif kind == "end":
            if xc["kind"] == "fire":
                fire.even_out(sc, rules, side, ctx, sealed=False)   # K-DF-5: the whole plan, at its end
            xc["i"] += 1
            if xc["i"] == len(xc["sides"]):
                xc["open"] = [s for s in xc["sides"] if s in xc["sealed"] and s not in xc.get("seqs", {})]
                if xc["open"]:
                    xc["left"] = xc["sealed"][xc["open"][0]]
        else:
            _item(sc, rules, side, order, ctx)
        return
    # opening: each opened item counts, legal or not; an illegal one is void (it cannot be resent).
    # Every item sealed belongs to the plan: after its `end`, the rest is padding (`end` again),
    # which hides how many shots a plan holds (command.seal_items); never an order for later.
    xc["left"] -= 1
    if xc.get("ended"):
        if kind != "end":
            ctx.event("void-item", f"{side}'s sealed item of type {kind} is void: it comes after the end of the plan.",
                      side=side, order=order, rule=need.rule)
    elif kind == item:
        try:
            _item(sc, rules, side, order, ctx)
        except IllegalOrder as exc:
            ctx.event("void-item", f"{side}'s sealed {kind} is void: {with_rule(exc.message, exc.rule)}.", side=side,
                      order=order, rule=exc.rule)
    elif kind == "end":
        xc["ended"] = True
    else:
        ctx.event("void-item", f"{side}'s sealed item of type {kind} is void: the step takes {item} and end.", side=side,
                  order=order, rule=need.rule)
    if kind == "end" and xc.get("ended") and xc.get("padding") is None:
        xc["padding"] = xc["left"]     # the items still to come after the plan's own `end`
    if xc["left"] <= 0:
        padding = xc.pop("padding", None)
        if padding and xc["kind"] == "fire":
            # said once, after the items (a players' probe: "orders 2 to 84: end, each" read as a mistake)
            ctx.event("fire-padding", f"{side}'s fire plan ends at its first `end`; the {padding} item"
                      f"{'s' if padding > 1 else ''} after it {'are' if padding > 1 else 'is'} padding, which pbem "
                      f"seals with every plan (one item for each unit on the table, and an end) so that how many "
                      f"shots it holds tells the opponent nothing (K-DF-5).", side=side, items=padding, rule="K-DF-5")
        if xc["kind"] == "fire":
            fire.even_out(sc, rules, side, ctx, sealed=True)   # K-DF-5: the opened plan as a whole
        xc.pop("ended", None)
        xc["open"].pop(0)
        xc["left"] = xc["sealed"][xc["open"][0]] if xc["open"] else 0


def _item(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    if order["type"] == "chit":
        units = command.check_chit(sc, rules, side, order)
        rules["plans"].setdefault("chits", {}).setdefault(side, []).append({"units": units, "order": order["order"]})
        ctx.event("chit-given", f"{side} gives {', '.join(units)} an order chit.", side=side, units=units, rule="K-ORD-1")
    else:
        shot = fire.add_fire(sc, rules, side, order)
        ctx.event("fire-planned", f"{side}: {shot['unit']} will fire at {shot['target']} in {shot['sq']}.", side=side,
                  unit=shot["unit"], target=shot["target"], rule="K-DF-5")


def _replace(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    hid = command.replacements_due(sc, rules)[0]
    if order not in command.replace_options(sc, rules, hid):
        raise IllegalOrder("K-CMD-11", f"replace: {hid} comes back on any square not held by the enemy, or not yet (null)",
                           None)
    board = Board(sc, rules)
    if order["square"] is None:
        rules["hqs"][hid] = {"lost": rules["turn"] - sc.tables["command"]["replacement_turns"] + 1}
        ctx.event("hq-waits", f"{hid} is not replaced this turn (K-CMD-11).", hq=hid, rule="K-CMD-11")
        return
    board.move_hq(hid, order["square"])
    ctx.event("hq-replaced", f"{hid} is replaced in {order['square']} (K-CMD-11).", hq=hid, square=order["square"],
              chosen_by=ctx.chosen_by, rule="K-CMD-11")


def _lay_minelets(sc: Scenario, rules: dict, need: Need, order: dict) -> None:
    side, pair = _minelets_due(sc, rules)
    if order.get("pair") != pair or order.get("square") not in sc.grid:
        raise IllegalOrder("K-SFX-5", f"minelets: name pair {pair} and a square of the table", None)
    rules["minelets"].append({"pair": pair, "side": side, "square": order["square"], "real": None})


def _place_second_minelets(sc: Scenario, rules: dict, ctx) -> None:
    """The second marker of each pair goes into a square next to the first, drawn by a die
    (K-SFX-5: the four edge neighbours, reading); which is real stays unknown."""
    for m in list(rules["minelets"]):
        if sum(1 for x in rules["minelets"] if x["pair"] == m["pair"]) > 1:
            continue
        around = sc.grid.neighbours(m["square"])
        square = around[dice_choice(ctx, f"t1.minelets.{m['pair']}", len(around))]
        rules["minelets"].append({"pair": m["pair"], "side": m["side"], "square": square, "real": None})
        ctx.event("minelets", f"{m['side']} lays minelet pair {m['pair']} in {m['square']} and {square}; which is real "
                  f"is unknown to both (K-SFX-5).", side=m["side"], pair=m["pair"], squares=[m["square"], square],
                  rule="K-SFX-5")
