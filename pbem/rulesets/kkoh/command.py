"""The Command Phase: initiative (K-INI), order chits (K-ORD), command and electronic warfare
(K-CMD, K-CMK, K-SFX-1), and the command status every other rule reads.

A command marker is either In Command or Out of Command (K-CMD-1). It is In Command unless an EW attack put it Out of Command (K-CMD-3; it lasts
to the next turn's Issuing Orders, K-CMD-4), another marker in its square is In Command
(one per square, K-CMD-2, K-CMK-7: the most senior, reading), or the chain above it is broken:
its superior is Out of Command, destroyed, or out of the superior's command range (K-CMD-10).
A unit is In Command when it is self-ordering (K-REC-3) or its commanding marker is In
Command and within that marker's range (K-CMD-7/8/9; beyond range it is Out of Command:
K-CMD-10 reading).
"""

from __future__ import annotations

from pbem.core.dice import sealed_die
from pbem.core.record import Record

from ..base import IllegalOrder
from .scenario import LEVELS, SIDES, Scenario, other
from .state import Board

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Iterator


# --- command status ---------------------------------------------------------------------------

def command_range(sc: Scenario, hid: str) -> int | None:
    """The squares a marker commands to (None: unlimited), by doctrine and level (K-CMD-7,
    K-CMD-8), counted with diagonals as one (K-CMD-9: squaregrid.distance)."""
    c = sc.commands[hid]
    return sc.tables["command"]["ranges"][c.doctrine].get(c.level)


def marker_status(sc: Scenario, board: Board) -> dict[str, bool]:
    """In Command (True) or not, for every marker on the table. "Only one command marker may be
    'In Command' in any one square at any time" (K-CMD-2, K-CMK-7): of the markers in a square
    that would be In Command (on the table, not put Out of Command by EW, their superior In
    Command and in range), the most senior, then by id; one whose own chain is broken takes no
    place from the others."""
    rules = board.rules
    present = {h: rec["sq"] for h, rec in rules["hqs"].items() if "sq" in rec}
    by_square: dict[str, list[str]] = {}
    for hid in sorted(present, key=lambda h: (LEVELS.index(sc.commands[h].level), h)):
        by_square.setdefault(present[hid], []).append(hid)
    work = _Status(sc, present, set(rules["ooc"]), by_square)
    return {hid: work.in_command(hid) for hid in sorted(sc.commands)}


class _Status:
    """The markers' statuses, each worked out once, superiors first (`marker_status`)."""

    def __init__(self, sc: Scenario, present: dict[str, str], ew: set[str], by_square: dict[str, list[str]]):
        self.sc, self.present, self.ew, self.by_square = sc, present, ew, by_square
        self.chain: dict[str, bool] = {}
        self.status: dict[str, bool] = {}

    def chain_ok(self, hid: str) -> bool:
        """On the table, not hit by EW, and its superior In Command within range."""
        if hid not in self.chain:
            self.chain[hid] = False   # guards a cycle (none in a checked scenario)
            good = hid in self.present and hid not in self.ew
            sup = self.sc.commands[hid].superior
            if good and sup is not None:
                reach = command_range(self.sc, sup)
                good = self.in_command(sup) and \
                    (reach is None or self.sc.grid.distance(self.present[sup], self.present[hid]) <= reach)
            self.chain[hid] = good
        return self.chain[hid]

    def in_command(self, hid: str) -> bool:
        if hid not in self.status:
            self.status[hid] = False
            good = self.chain_ok(hid)
            if good:
                ahead = self.by_square[self.present[hid]]
                good = not any(self.chain_ok(other) for other in ahead[:ahead.index(hid)])
            self.status[hid] = good
        return self.status[hid]


def piece_in_command(sc: Scenario, board: Board, pid: str, status: dict[str, bool] | None = None) -> bool:
    piece = sc.pieces[pid]
    if piece.self_ordering:
        return True            # K-REC-3: never Out of Command
    status = status if status is not None else marker_status(sc, board)
    if not status.get(piece.hq):
        return False
    reach = command_range(sc, piece.hq)
    return reach is None or sc.grid.distance(board.rules["hqs"][piece.hq]["sq"], board.piece(pid)["sq"]) <= reach


def group_in_command(sc: Scenario, board: Board, pids: Iterable[str], status: dict[str, bool] | None = None) -> bool:
    status = status if status is not None else marker_status(sc, board)
    return all(piece_in_command(sc, board, p, status) for p in pids)


def majority(sc: Scenario, pids: Iterable[str], quality: str) -> bool:
    """More than half of them of that quality (K-INI-1, K-ORD-3, K-IF-6, K-CAF-1)."""
    found = list(pids)
    return bool(found) and 2 * sum(1 for p in found if sc.pieces[p].quality == quality) > len(found)


# --- initiative (K-INI-1, K-INI-2) ----------------------------------------------------------

def initiative_factors(sc: Scenario, board: Board, side: str) -> list[tuple[str, int]]:
    """The side's factors in the order a re-roll drops them (K-INI-2, as the acceptance list
    recommends): the largest in size first; among equals the owner's choice, made in its favour,
    a factor against it before one for it; then the table's order, leader first. (A rules probe:
    a Superior leader's +1 went before the Inferior troops' -1, the owner having no say.)"""
    table = sc.tables["initiative"]
    chief = sc.chief(side)
    status = marker_status(sc, board)
    found: dict[str, int] = {}
    quality = sc.commands[chief].quality
    if status.get(chief) and quality == "S":
        found["superior_leader"] = table["factors"]["superior_leader"]
    if status.get(chief) and quality == "I":
        found["inferior_leader"] = table["factors"]["inferior_leader"]
    troops = [p for p in sc.side_pieces[side] if board.alive(p)]
    if majority(sc, troops, "S"):
        found["majority_superior"] = table["factors"]["majority_superior"]
    if majority(sc, troops, "I"):
        found["majority_inferior"] = table["factors"]["majority_inferior"]
    printed = [(name, found[name]) for name in table["drop_order"] if name in found]
    return sorted(printed, key=lambda factor: (-abs(factor[1]), factor[1] >= 0))   # stable: the table's order last


def roll_initiative(sc: Scenario, rules: dict, ctx) -> str:
    board = Board(sc, rules)
    factors = {side: initiative_factors(sc, board, side) for side in SIDES}
    attempt = 0
    while True:
        scores = {}
        for side in SIDES:
            kept = factors[side][attempt:]   # K-INI-2: one more factor dropped per re-roll, cumulatively
            die = ctx.d6(f"t{rules['turn']}.initiative.{side}.{attempt + 1}")
            scores[side] = die + sum(v for _, v in kept)
            ctx.event("initiative-roll", f"{side}: die {die}" + "".join(f", {name.replace('_', ' ')} {v:+d}" for name, v in kept)
                      + f" = {scores[side]} (K-INI-1).", side=side, die=die, factors=dict(kept), score=scores[side],
                      attempt=attempt + 1, rule="K-INI-1")
        if scores["blue"] != scores["red"]:
            winner = max(SIDES, key=lambda s: scores[s])
            rules["initiative"] = winner
            ctx.event("initiative", f"Turn {rules['turn']}: {winner} takes the initiative ({scores['blue']} to "
                      f"{scores['red']}); {other(winner)} issues orders first, {winner} moves first (K-INI-1, K-INI-3).",
                      side=winner, turn=rules["turn"], rule="K-INI-1")
            return winner
        attempt += 1
        ctx.event("initiative-tie", f"Drawn at {scores['blue']}: both re-roll, each dropping one more factor (K-INI-2).",
                  rule="K-INI-2")


# --- order chits (K-ORD) ------------------------------------------------------------------

def block_of(sc: Scenario, order: str) -> int:
    for i, block in enumerate(sc.tables["orders"]["blocks"]):
        if order in block:
            return i
    raise KeyError(order)


def voluntary_targets(sc: Scenario, current: str) -> list[str]:
    """The orders a chit may be changed to by choice (K-ORD-2, K-ORD-7): down the list one line
    (M not counted: HA may go to M or past it to HD); up one block, to any order in it; never to
    FA or FD; the same chit again as a bluff (K-ORD-4). Remembered in the scenario: it reads
    only the tables."""
    key = ("voluntary", current)
    found = sc.memo.get(key)
    if found is None:
        found = sc.memo[key] = tuple(_voluntary_targets(sc, current))
    return list(found)


def _voluntary_targets(sc: Scenario, current: str) -> list[str]:
    table = sc.tables["orders"]
    listed, skip = table["list"], table["not_counted"]
    out = {current}
    counted = [o for o in listed if o != skip]
    if current == skip:
        i = listed.index(skip)
        below = [o for o in listed[i + 1:]]
        if below:
            out.add(below[0])
    else:
        i = counted.index(current)
        if i + 1 < len(counted):
            out.add(counted[i + 1])
            if listed.index(counted[i + 1]) - listed.index(current) == 2:   # M lies between: not counted
                out.add(skip)
    b = block_of(sc, current)
    if b > 0:
        out.update(table["blocks"][b - 1])
    out -= set(table["scenario_only"]) - {current}
    return [o for o in listed if o in out]


def change_modifiers(sc: Scenario, board: Board, pids: list[str], target: str | None,
                     counter_attack: bool = False, status: dict[str, bool] | None = None) -> dict[str, int]:
    """`status`: the markers' `marker_status`, if already worked out for this board."""
    table = sc.tables["order_change"]["modifiers"]
    mods: dict[str, int] = {}
    if majority(sc, pids, "S"):
        mods["majority_superior"] = table["majority_superior"]
    if majority(sc, pids, "I"):
        mods["majority_inferior"] = table["majority_inferior"]
    if not group_in_command(sc, board, pids, status):
        mods["out_of_command"] = table["out_of_command"]
    if target == "PA":
        mods["to_pa"] = table["to_pa"]
    if counter_attack:
        mods["counter_attack"] = table["counter_attack"]
    return mods


def bodies(board: Board, side: str) -> list[list[str]]:
    """Each battle group and lone unit of the side: each carries one order chit (K-ORD-1)."""
    return board.movers(side)


def check_chit(sc: Scenario, rules: dict, side: str, order: dict) -> list[str]:
    """A chit order of the Issuing Orders step: the units of one group or one lone unit, and
    an order it may be given now. Returns the units."""
    board = Board(sc, rules)
    units = sorted(order.get("units") or [])
    unknown = [u for u in units if u not in rules["pieces"] or sc.pieces[u].side != side]
    if not units or unknown:
        raise IllegalOrder("K-ORD-1", f"chit: {', '.join(unknown) or 'no unit'} is not a unit of {side} on the table",
                           None)
    if board.members(units[0]) != units:
        raise IllegalOrder("K-ORD-1", f"chit: each battle group or lone unit carries one order chit; {', '.join(units)} "
                           f"is not one (the group of {units[0]} is {', '.join(board.members(units[0]))})", None)
    planned = rules["plans"].get("chits", {}).get(side, [])
    if any(set(units) & set(p["units"]) for p in planned):
        raise IllegalOrder("K-ORD-1", f"chit: {', '.join(units)} already has its chit for this turn", None)
    target = order.get("order")
    current = board.order(units[0])
    first = rules["turn"] == 1 and not sc.position
    legal = ([o for o in sc.tables["orders"]["list"] if o not in sc.tables["orders"]["scenario_only"] or o == current]
             if first else voluntary_targets(sc, current))
    if target not in legal and first:      # the deployment's chits are chosen freely, untested (K-ORD-1)
        raise IllegalOrder("K-ORD-1", f"chit: at deployment {', '.join(units)} may be given any order but FA and FD "
                           f"(they are the scenario's alone): {', '.join(legal)}, not {target}", legal)
    if target not in legal:
        raise IllegalOrder("K-ORD-2", f"chit: {', '.join(units)} on {current} may be given {', '.join(legal)}, not "
                           f"{target} (down one line, M not counted; up one block; never FA or FD)", legal)
    return units


def chit_options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    board = Board(sc, rules)
    planned = {u for p in rules["plans"].get("chits", {}).get(side, []) for u in p["units"]}
    first = rules["turn"] == 1 and not sc.position
    out = []
    for body in bodies(board, side):
        if set(body) & planned:
            continue
        current = board.order(body[0])
        legal = ([o for o in sc.tables["orders"]["list"] if o not in sc.tables["orders"]["scenario_only"]]
                 if first else voluntary_targets(sc, current))
        out += [{"type": "chit", "units": body, "order": o} for o in legal if o != current]
    return out


# the order-change test's modifiers as the rulebook's table names them (L65-L69; a players' probe:
# "to pa -1" for "Changing to PA -1")
MODIFIER_WORDS = {"to_pa": "changing to PA"}


def modifier_words(mods: dict[str, int]) -> str:
    """", majority inferior -1, changing to PA -1": an order-change test's modifiers, in order."""
    return "".join(f", {MODIFIER_WORDS.get(k, k.replace('_', ' '))} {v:+d}" for k, v in mods.items())


def resolve_chits(sc: Scenario, rules: dict, ctx, sealed: dict | None = None) -> None:
    """Every chit change tested at once, after both sides have fixed theirs (K-ORD-3/4): the
    side without initiative first, each in the order given; the chits a side sealed (`sealed`:
    side -> the packet that sealed them) stay sealed, each tested all the same (`hide`)."""
    board = Board(sc, rules)
    first = rules["turn"] == 1 and not sc.position
    status = marker_status(sc, board)      # the chits change no marker's status: worked out once for all
    n = 0
    for side in (other(rules["initiative"]), rules["initiative"]):
        if side in (sealed or {}):
            n = hide(sc, rules, side, sealed[side], n, ctx, status)
            continue
        for plan in rules["plans"].get("chits", {}).get(side, []):
            units = [u for u in plan["units"] if board.alive(u)]
            if not units:
                continue
            current = board.order(units[0])
            target = plan["order"]
            if first:
                for u in units:
                    board.piece(u)["o"] = target
                ctx.event("chit", f"{', '.join(units)}: order chit {target} at deployment (K-ORD-1).", side=side,
                          units=units, order=target, rule="K-ORD-1")
                continue
            n += 1
            mods = change_modifiers(sc, board, units, target, status=status)
            die = ctx.d6(f"t{rules['turn']}.orders.{n}")
            score = die + sum(mods.values())
            ok = score >= sc.tables["order_change"]["target"]
            if ok:
                for u in units:
                    board.piece(u)["o"] = target
            what = ("keeps " + current + " (a bluff)" if target == current else
                    (f"changes {current} to {target}" if ok else f"fails to change {current} to {target}"))
            ctx.event("chit-change", f"{', '.join(units)}: die {die}{modifier_words(mods)} = {score}: {what} (3 or more "
                      f"needed, K-ORD-3).", side=side, units=units, die=die, modifiers=mods, score=score, success=ok,
                      order=board.order(units[0]), rule="K-ORD-3")
    rules["plans"].pop("chits", None)


# --- sealed order chits (K-ORD-1, K-ORD-4, K-ORD-6, K-MRK-1; docs/protocol.md §8) ----------------------
#
# A side that seals its chits seals one item for each battle group and lone unit, in the order
# of `bodies` (item n of the seal is the chit of group n), each the chit the group is to carry
# (its own again to keep it, K-ORD-4). The chit stays sealed - `o` is None in the state - until
# the rules reveal it: a Close Assault (everyone engaged), Direct Fire (every firer and target),
# a bombardment (the unit it supports, and every bombarding battery when counter-battery fire
# is called), its owner's `show` before the group moves, and the end of the turn. The test
# die of every sealed group is drawn at Issuing Orders, as for an open chit, and sealed with
# its item (docs/protocol.md §8): its owner reads it with the item's salt, the opponent sees
# it only at the opening, where whether the change holds is worked out (Changing to PA -1).

def _check_plan(sc: Scenario, rules: dict, side: str, orders: list[dict]) -> None:
    """A fire plan is checked before it is sealed as it would be given openly (a probe: a typo in
    a unit id, a shot by an enemy unit or a move order was sealed, and the fire lost when the
    plan opened): each item a fire order legal after the shots before it (K-DF-1 to K-DF-3,
    K-GM-8, K-GM-9, K-TER-5), or `end`, with nothing but `end` after it, and the whole spread
    as evenly as possible (K-DF-5). Nothing moves between the sealing and the opening (the
    opponent only seals its own plan), so what is legal now is legal then."""
    from . import fire

    plans = dict(rules["plans"])          # a plan of its own for the trial; the rest is read only
    plans["fire"] = dict(plans.get("fire", {}), **{side: list(fire.plan(rules, side))})
    trial = dict(rules, plans=plans)
    ended = False
    for n, order in enumerate(orders, 1):
        kind = order.get("type")
        if kind == "end":
            ended = True
            continue
        if ended:
            raise IllegalOrder("K-DF-5", f"item {n} ({kind}) comes after the plan's end, where it would be void: "
                               "end the plan after its last shot", None)
        if kind != "fire":
            raise IllegalOrder("K-DF-5", f"item {n}: {kind}: a fire plan holds fire orders and end only", None)
        try:
            fire.add_fire(sc, trial, side, order)
        except IllegalOrder as exc:
            raise IllegalOrder(exc.rule, f"item {n}: {exc.message}", exc.legal) from None
    found = fire.uneven(sc, Board(sc, trial), fire.plan(trial, side))
    if found:
        raise IllegalOrder("K-DF-5", f"the plan would lose a shot when it opens: {fire.uneven_words(found)}", None)


def seal_items(sc: Scenario, rules: dict, need, orders: list[dict]) -> list[dict]:
    """The items a side seals at Issuing Orders for its chit orders: one chit for each group
    in order, the group's own chit again for a group given none. A fire plan as given, padded
    with `end` to one item more than the side has units on the table: the number of items, which
    the opponent sees before it seals its own, then tells nothing of the shots (K-DF-5: fire is
    simultaneous; a probe read the count of shots off the seal)."""
    if need.kind != "orders":
        size = sum(1 for p in sc.side_pieces[need.side] if p in rules["pieces"]) + 1
        if len(orders) > size:      # more could only be orders of later steps, void, and seen in the count
            raise IllegalOrder("K-DF-5", f"a fire plan is at most one shot for each of your {size - 1} units on the "
                               f"table and end, {size} items, not {len(orders)}: seal the plan alone, and give the "
                               f"orders of later steps in a later packet", None)
        _check_plan(sc, rules, need.side, orders)
        return list(orders) + [{"type": "end"}] * (size - len(orders))
    board = Board(sc, rules)
    given: dict[tuple, str] = {}
    for index, order in enumerate(orders, start=1):
        try:
            kind = order.get("type")
            if kind == "end":
                continue
            if kind != "chit":
                raise IllegalOrder("K-ORD-1", f"{kind}: only order chits (and end) are sealed at Issuing Orders", None)
            units = tuple(check_chit(sc, rules, need.side, order))
            if units in given:
                raise IllegalOrder("K-ORD-1", f"chit: {', '.join(units)} is given two chits", None)
        except IllegalOrder as exc:   # which of a dozen chits (an orders probe: the refusal named none)
            raise IllegalOrder(exc.rule, f"item {index}: {exc.message}", exc.legal) from None
        given[units] = order["order"]
    return [{"type": "chit", "units": body, "order": given.get(tuple(body), board.order(body[0]))}
            for body in bodies(board, need.side)]


def hide(sc: Scenario, rules: dict, side: str, seq: int, n: int, ctx, status: dict[str, bool]) -> int:
    """The sealed chits of `side` (sealed in packet `seq`) at Issuing Orders: each group's chit
    is unknown until revealed; its test die is drawn now and sealed with its item (`draw`:
    docs/protocol.md §8), so that its owner knows it and the opponent does not until the chit
    is revealed (K-ORD-4: a die said now told the opponent every chit a low die kept, a
    players' probe). Returns the test count so far. `status`: the markers' `marker_status`
    (`resolve_chits` works it out once for both sides)."""
    board = Board(sc, rules)
    first = rules["turn"] == 1 and not sc.position
    entries = []
    for i, body in enumerate(bodies(board, side), start=1):
        entry = {"units": body, "item": f"{seq}.{i}", "was": board.order(body[0])}
        if not first:
            n += 1
            entry["mods"] = change_modifiers(sc, board, body, None, status=status)
            entry["draw"] = ctx.sealed_draw(f"t{rules['turn']}.orders.{n}")
            ctx.event("chit-test", f"{', '.join(body)}: a sealed order chit, tested now; its test die is sealed with "
                      f"it, and shows when the chit is revealed, if it was to change (K-ORD-3, K-ORD-4, K-ORD-6).",
                      side=side, units=body, modifiers=entry["mods"], rule="K-ORD-3")
        for u in body:
            board.piece(u)["o"] = None
        entries.append(entry)
    if entries:
        rules.setdefault("hidden", {})[side] = entries
    return n


def ask_reveal(rules: dict, pids) -> bool:
    """The rules reveal the sealed chits of these pieces (K-ORD-6): their items are due. True
    while any reveal waits for its opening."""
    want = set(pids)
    pending = rules.get("reveal", {})
    for side, entries in sorted(rules.get("hidden", {}).items()):
        for entry in entries:
            if set(entry["units"]) & want and entry["item"] not in pending.get(side, []):
                pending.setdefault(side, []).append(entry["item"])
    if pending:
        rules["reveal"] = pending
    return bool(pending)


def hidden_units(rules: dict) -> list[str]:
    return sorted(u for entries in rules.get("hidden", {}).values() for e in entries for u in e["units"])


def reveal(sc: Scenario, rules: dict, side: str, item: str, order: dict, ctx) -> None:
    """A sealed chit opened where the rules reveal it: the group's chit is the one sealed if it
    was a legal change that passed its test, else the one it had; an item that is not a legal
    chit of its group is void (it keeps its chit)."""
    entries = rules["hidden"][side]
    entry = next(e for e in entries if e["item"] == item)
    entries.remove(entry)
    if not entries:
        rules["hidden"].pop(side)
        if not rules["hidden"]:
            rules.pop("hidden")
    rules["reveal"][side].remove(item)
    if not rules["reveal"][side]:
        rules["reveal"].pop(side)
        if not rules["reveal"]:
            rules.pop("reveal")
    board = Board(sc, rules)
    units = entry["units"]
    now, text, fields = opening(sc, side, entry, order, lambda: ctx.sealed_d6(entry["draw"]))
    for u in units:
        if board.alive(u):
            board.piece(u)["o"] = now
    ctx.event("chit-revealed", f"{text}: revealed (item {item}, K-ORD-6).", side=side, units=units, item=item,
              order=now, rule="K-ORD-6", **fields)


def opening(sc: Scenario, side: str, entry: dict, order: dict, die: Callable[[], int]) -> tuple[str, str, dict]:
    """What opening a sealed chit gives (`reveal`), worked out from the item, its entry in
    `hidden` and its test die (`die()`, read only where the chit changes), so that its owner,
    who knows the item and its salt, can read it before (`own_chit`): the chit the group then
    carries, the words of the event (before ": revealed") and its fields."""
    units, was, item = entry["units"], entry["was"], entry["item"]
    tested = "draw" in entry
    legal = voluntary_targets(sc, was) if tested else [
        o for o in sc.tables["orders"]["list"] if o not in sc.tables["orders"]["scenario_only"] or o == was]
    target = order.get("order") if order.get("type") == "chit" and sorted(order.get("units") or []) == units else None
    now, fields = was, {}
    if target is None or target not in legal:
        what = (f"is void: it is not a chit of {', '.join(units)}" if target is None else
                f"is void: {target} is not a change {was} may make ({', '.join(legal)}, K-ORD-2)")
        text = f"{side}'s sealed order chit {item} {what}; they keep {was}"
        fields["void"] = True
    elif not tested or target == was:
        now = target
        text = f"{', '.join(units)}: order chit {now}" + (" at deployment" if not tested else " kept")
    else:
        mods = dict(entry["mods"])
        if target == "PA":
            mods["to_pa"] = sc.tables["order_change"]["modifiers"]["to_pa"]
        rolled = die()
        score = rolled + sum(mods.values())
        ok = score >= sc.tables["order_change"]["target"]
        now = target if ok else was
        what = f"changes {was} to {target}" if ok else f"fails to change {was} to {target}"
        text = f"{', '.join(units)}: die {rolled}{modifier_words(mods)} = {score}: {what} (3 or more needed, K-ORD-3)"
        fields.update(die=rolled, modifiers=mods, score=score, success=ok)
    return now, text, fields


def sealed_anew(rules: dict, side: str) -> int | None:
    """The packet in which `side` sealed the chits that Issuing Orders has not tested yet: until
    the test (`hide`) the state keeps the chit each group carried before, which is no longer
    the one it carries (a players' probe: `pbem show --unit` gave it as the unit's chit)."""
    xc = rules["plans"].get("xc")
    return xc.get("seqs", {}).get(side) if xc is not None and xc["kind"] == "orders" else None


def open_chit(rules: dict, side: str, rec: dict) -> str | None:
    """The order chit a piece (its record `rec`) is known to carry, or None while it is sealed:
    its own chit hidden, or its side's new chits sealed and not yet tested (`sealed_anew`)."""
    return None if sealed_anew(rules, side) is not None else rec["o"]


class OwnChit(Record):
    """A group's sealed chit as its owner knows it (`own_chit`): the item's name, the chit
    sealed, and, once Issuing Orders has tested it, what its opening will give (`opening`):
    the chit the group then carries, the words of the event and the test die where the opening
    reads it (a chit that was to change); before the test, None."""

    item: str
    order: str
    now: str | None = None
    words: str | None = None
    die: int | None = None


def own_chit(sc: Scenario, rules: dict, pid: str, own: dict[str, dict]) -> OwnChit | None:
    """The sealed chit of `pid`'s group from `own`, its side's items still sealed by name, each
    with its salt, as its private/ keeps them (`sealing.own_items`): the item that names it (one
    seal of chits at a time is unopened, docs/protocol.md §8), and what its test die, read with
    the salt, makes of it. None where `own` has none, or the chit is open."""
    side = sc.pieces[pid].side
    anew = sealed_anew(rules, side)
    entry = next((e for e in rules.get("hidden", {}).get(side, []) if pid in e["units"]), None)
    if anew is None and entry is None:
        return None
    for name, kept in own.items():
        item = kept["item"]
        if (isinstance(item, dict) and item.get("type") == "chit" and isinstance(item.get("units"), list)
                and all(isinstance(u, str) for u in item["units"]) and pid in item["units"]
                and isinstance(item.get("order"), str)
                and (entry is None or name == entry["item"])):
            if entry is None:
                return OwnChit(name, item["order"])
            now, words, fields = opening(sc, side, entry, item, lambda: sealed_die(entry["draw"], kept["salt"]))
            return OwnChit(name, item["order"], now, words, fields.get("die"))
    return None


def show(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    """`show`: a side reveals the sealed chits of the groups these units belong to, so that
    they may move (K-ORD-6 reading: pbem checks every move against the chit, K-ORD-5, K-MOV-4,
    K-ORD-8); one `show` reveals them all at once."""
    board = Board(sc, rules)
    units = sorted(order.get("units") or [])
    wrong = [u for u in units if u not in rules["pieces"] or sc.pieces[u].side != side or not board.hidden(u)]
    if not units or wrong:
        raise IllegalOrder("K-ORD-6", f"show: {', '.join(wrong) or 'no unit'} is not one of {side}'s units with a "
                           f"sealed order chit", show_options(sc, rules, side))
    ask_reveal(rules, units)
    ctx.event("show", f"{side} shows the order chits of {', '.join(units)} (K-ORD-6).", side=side, units=units,
              rule="K-ORD-6")


def show_options(sc: Scenario, rules: dict, side: str, board: Board | None = None, each: bool = False) -> list[dict]:
    """One `show` of every sealed group that could move in this Action Phase on some chit (a
    representative order: a player may name fewer units); `each`: a `show` of each such group
    too, as `pbem orders` lists them (a chit shown is seen by the opponent: a player shows only
    the groups he will move); `board`: a view of `rules` to share."""
    groups = list(_showable(sc, rules, side, board))
    whole = [{"type": "show", "units": sorted(u for body in groups for u in body)}] if groups else []
    return ([{"type": "show", "units": sorted(body)} for body in groups] if each and len(groups) > 1 else []) + whole


def show_of(board: Board, units: Iterable[str]) -> dict:
    """The `show` of the battle groups (or lone units) these units belong to: the least that
    lets an order naming them go ahead, and no other group's chit seen by the opponent."""
    return {"type": "show", "units": sorted({p for u in units for p in board.members(u)})}


def can_show(sc: Scenario, rules: dict, side: str, board: Board | None = None) -> bool:
    """Whether `show_options` offers a `show` (K-ORD-6 reading): the first group found is enough."""
    return next(_showable(sc, rules, side, board), None) is not None


def _showable(sc: Scenario, rules: dict, side: str, board: Board | None) -> Iterator[list[str]]:
    """The sealed groups of `show_options`, in the order of `bodies`."""
    from .movement import may_move

    pieces = rules["pieces"]
    if all(pieces[p]["o"] is not None for p in sc.side_pieces[side] if p in pieces):
        return          # nothing sealed: the usual case once the turn's chits are revealed
    board = board or Board(sc, rules)
    ap = rules["ap"]
    for body in board.each_mover(side):
        if board.hidden(body[0]) and any(may_move(sc, board, u, ap, chit) for u in body for chit in ("M", "PA")):
            yield body


def force_order(board: Board, pids: Iterable[str], to: str, rule: str, ctx, when: Iterable[str] | None = None) -> None:
    """A forced change of chit, no test (K-ORD-9); only from the orders in `when` if given."""
    changed = []
    for p in pids:
        if board.alive(p) and (when is None or board.order(p) in when) and board.order(p) != to:
            board.piece(p)["o"] = to
            changed.append(p)
    if changed:
        ctx.event("chit-forced", f"{', '.join(changed)}: order chit now {to} ({rule}).", units=changed, order=to,
                  rule=rule)


def below(sc: Scenario, order: str, bound: str) -> bool:
    """`order` is `bound` or lower in the list (K-ORD-5 "HD and below")."""
    listed = sc.tables["orders"]["list"]
    return listed.index(order) >= listed.index(bound)


# --- electronic warfare (K-CMD-3..6, K-SFX-1) -------------------------------------------------

def ew_targets(sc: Scenario, rules: dict, side: str) -> list[str]:
    """The side's markers on the table, most senior first (K-CMD-5)."""
    return sorted((h for h, rec in rules["hqs"].items() if "sq" in rec and sc.commands[h].side == side),
                  key=lambda h: (LEVELS.index(sc.commands[h].level), h))


def special_left(sc: Scenario, rules: dict, side: str, name: str) -> int:
    """How many uses of a special effect the side has left (K-SFX-1 to K-SFX-4)."""
    return sc.specials[side].get(name, 0) - rules["used"][side].get(name, 0)


def ew_attack(sc: Scenario, rules: dict, attacker: str, special: bool, ctx) -> None:
    """The attacker rolls 2D6 against each enemy marker, once a turn (K-CMD-6): 2-4 puts it Out
    of Command (2-6 with the EW special effect, K-SFX-1 reading)."""
    table = sc.tables["command"]
    low, high = table["ew_special_success"] if special else table["ew_success"]
    if special:
        rules["used"][attacker]["ew"] = rules["used"][attacker].get("ew", 0) + 1
        ctx.event("ew-special", f"{attacker} uses its EW unit this turn: Out of Command on {low} to {high} (K-SFX-1).",
                  side=attacker, rule="K-SFX-1")
    for hid in ew_targets(sc, rules, other(attacker)):
        a = ctx.d6(f"t{rules['turn']}.ew.{hid}.1")
        b = ctx.d6(f"t{rules['turn']}.ew.{hid}.2")
        hit = low <= a + b <= high
        if hit and hid not in rules["ooc"]:
            rules["ooc"].append(hid)
            rules["ooc"].sort()
        ctx.event("ew", f"EW attack on {hid}: {a}+{b} = {a + b}: " + ("Out of Command" if hit else "no effect")
                  + f" ({low} to {high} succeeds, K-CMD-3).", side=attacker, hq=hid, dice=[a, b], success=hit,
                  rule="K-SFX-1" if special else "K-CMD-3")


# --- replacement of destroyed markers (K-CMD-11) -----------------------------------------------

def replacements_due(sc: Scenario, rules: dict) -> list[str]:
    return sorted(h for h, rec in rules["hqs"].items() if "lost" in rec and rules["turn"] >= rec["lost"] +
                  sc.tables["command"]["replacement_turns"])


def replace_options(sc: Scenario, rules: dict, hid: str) -> list[dict]:
    board = Board(sc, rules)
    side = sc.commands[hid].side
    squares = [s for s in sc.grid.ids if board.occupied_by(s) in (None, side)]
    return [{"type": "replace", "hq": hid, "square": s} for s in squares] + [{"type": "replace", "hq": hid, "square": None}]


def replace_default(sc: Scenario, rules: dict, hid: str) -> dict:
    """The standing order: the square holding most of the units it commands (then the lowest
    id); with none left, its superior's square, else the commander-in-chief's."""
    board = Board(sc, rules)
    count: dict[str, int] = {}
    for p, rec in rules["pieces"].items():
        if sc.pieces[p].hq == hid:
            count[rec["sq"]] = count.get(rec["sq"], 0) + 1
    if count:
        square = min(count, key=lambda s: (-count[s], s))
    else:
        side = sc.commands[hid].side
        square = None
        for h in (sc.commands[hid].superior, sc.chief(side)):
            if h and "sq" in rules["hqs"].get(h, {}):
                square = rules["hqs"][h]["sq"]
                break
        if square is None:
            squares = board.squares(side)
            square = squares[0] if squares else None
    return {"type": "replace", "hq": hid, "square": square}
