"""`pbem orders`: a ready-to-edit YAML template of what a side must decide now."""

from __future__ import annotations

import collections
import json
import textwrap

from pbem.core import describe, engine
from pbem.core.record import Record
from pbem.core.text import seal_names, with_rule
from pbem.core.canonical import scalar_text, dumps
from pbem.core.errors import PbemError
from pbem.core.schema import order_types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

MAX_LISTED = 80
MAX_NAMED = 400    # with --only: the orders of one unit, hex or type, which a player asked for


def flow(order: dict) -> str:
    """One order as a YAML flow mapping, keys in the order the ruleset gave them."""
    return "{" + ", ".join(f"{scalar_text(k)}: {_flow_value(v)}" for k, v in order.items()) + "}"


def _flow_value(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return scalar_text(value)


class _Reveal(Record):
    """Where a side's reveal brings the game (`_after_reveal`): the template's lines, whether
    it comes to that side's own orders or decision, and the order filled in (a decision's
    answer, chosen by `_suggested` as for a decision awaited now)."""

    lines: list[str]
    own: bool = False
    filled: tuple[dict, ...] = ()
    sealed: bool = False    # the orders it comes to are sealed ones


def _after_reveal(game: engine.Game, state: dict, side: str, key: Any, only: str | None = None,
                  own: dict[str, dict] | None = None, ahead: Any = None) -> _Reveal:
    """A side that sends the next packet with nothing to decide: where its reveal brings the
    game, from its own key (the dice it reveals are its to know first, docs/protocol.md §1).
    When that is its own orders, they can go into this packet: they take effect after the
    reveal (§7), and a round trip is saved. `own`: its items still sealed (`orders_template`).
    `ahead`: the state and events after the reveal, when the caller has them."""
    if not game.secure:
        return _Reveal([])
    if key is None:
        return _Reveal(["# (`pbem orders ... --key KEYFILE` shows where your reveal brings the game: if to your own",
                        "# orders, they can go into this packet.)"])
    from pbem.core.game import after_reveal

    key = key() if callable(key) else key   # a key file is read (its passphrase asked) only when needed
    after, _ = ahead or after_reveal(game, state, side, key)
    awaiting = after["awaiting"]
    need = engine.awaited_need(after)
    if need is None or need.side != side or awaiting["waiting_for"] not in ("orders", "sealed orders", "decision"):
        if awaiting["need"] is None:
            return _Reveal(["# Your reveal resolves what is queued, and the game is then over."])
        if awaiting["waiting_for"] == "dice":
            return _Reveal(["# Your reveal resolves what is queued; the game then waits for the dice of the packet "
                            "after it."])
        whose = "your" if awaiting["need"]["side"] == side else f"{awaiting['need']['side']}'s"
        if (awaiting["waiting_for"], whose) == ("openings", "your"):
            # players' probe: "waits for your openings", where `pbem submit` opened them in this packet
            return _Reveal(["# Your reveal resolves what is queued; the rules then reveal items you sealed, which",
                            "# `pbem submit` opens in this same packet (from private/): orders written below go on",
                            "# after them."])
        return _Reveal([f"# Your reveal resolves what is queued; the game then waits for {whose} "
                        f"{awaiting['waiting_for']}."])
    decision = awaiting.get("decision") if awaiting["waiting_for"] == "decision" else None
    if decision:
        # a decision of this side's comes next: its answers can go into this packet (§7.2), each
        # naming the decision it answers (players' probe: "waits for your decision" named none)
        head = [f"# Your reveal resolves what is queued, and then the game comes to your own decision {decision}.",
                "# An answer written below takes effect then, in this same packet; without one, the game waits a",
                "# round trip for it."]
    elif awaiting["waiting_for"] == "sealed orders":
        # a referee's probe: "take effect in this same packet" over `orders: []`, and no word of --seal
        head = ["# Your reveal resolves what is queued, and then the game comes to your own sealed orders.",
                "# Write them below and send this packet with `pbem submit --seal`: they are sealed in this",
                "# same packet (a round trip saved); your opponent sees only their seals."]
    else:
        head = ["# Your reveal resolves what is queued, and then the game comes to your own orders.",
                "# Orders written below take effect then, in this same packet: a round trip saved."]
    lines, legal = _then(game, after, need, only, own)
    if decision:
        answer, said = _suggested(game, after, need, legal, decision, only)
        filled, head = (answer,) if answer else (), head + [said]
    else:   # as for orders awaited now: the `end` filled in, the orders above it to write
        every = legal if only is None else game.listing(after["rules"], need, None)[0]   # --only narrows the list
        filled = tuple(o for o in every if o.get("type") == "end")[:1]
    sealed = awaiting["waiting_for"] == "sealed orders"   # its items are the packet's whole content (§8)
    after_filled = [] if sealed else _orders_after_answer(game, state, side, key, filled, only,
                                                          "the answer" if decision else "the `end`", own)
    return _Reveal(head + lines + after_filled, True, filled, sealed)


def _fate(item: dict, after: dict, events: list[dict]) -> list[str]:
    """What the side's reveal, in its next packet, does to its queued order `item` (`after`,
    `events`: the look ahead): void, or dropped behind a void order, in a line under it; nothing
    where it takes effect or stays queued."""
    def same(e: dict) -> bool:
        return (e.get("seq"), e.get("index"), e.get("side")) == (item["seq"], item["index"], item["side"])

    void = next((e for e in events if e["type"] == "void" and same(e)), None)
    if void is not None:
        reason = void["text"].split(" is void: ", 1)[-1]
        return [f"#     {line}" for line in textwrap.wrap(f"void once your reveal brings the game to it: {reason}", 92,
                                                           break_on_hyphens=False)]
    taken = any(e["type"] == "order" and same(e) for e in events)
    queued = any(same(entry) for entry in after["queue"])
    # (on_void: stop drops the side's queued orders of every packet behind the void one; a review)
    behind = any(e["type"] == "void" and e.get("side") == item["side"] and e.get("dropped", 1) > 1
                 and (e.get("seq", 0), e.get("index", 0)) < (item["seq"], item["index"]) for e in events)
    if behind and not taken and not queued:
        return ["#     dropped with the void order before it, once your reveal brings the game there"]
    return []


def _suggested(game: engine.Game, state: dict, need: Any, legal: list[dict], decision: str,
               only: str | None) -> tuple[dict | None, str]:
    """The answer a template fills in for a decision of its side, and the line that says which:
    the answer the ruleset's default standing order gives, where it is a legal answer, else the
    first listed (players' probe: the first answer to a defensive fire was "no fire", and a
    template sent as it was gave the fire up). `--only` narrows the list, not the choice."""
    every = legal if only is None else [dict(order, decision=decision)
                                        for order in game.listing(state["rules"], need, None)[0]]
    default = game.policy(state["rules"], need, dict(game.ruleset.default_policies))
    if default is not None and dict(default, decision=decision) in every:
        return (dict(default, decision=decision),
                "# The answer of the default standing order is filled in below: replace it with your choice.")
    if not every:
        return None, "# No legal answer is listed: the decision takes none."
    return (legal or every)[0], "# The first legal answer is filled in below: replace it with your choice."


def _then(game: engine.Game, after: dict, need: Any, only: str | None,
          own: dict[str, dict] | None = None) -> tuple[list[str], list[dict]]:
    """The lines of a template for the orders of `need` once the game is at `after` (its
    description, count, the ruleset's note and the list, and what the side's own sealed items
    `own` let it order there), and the legal orders, each naming the decision it answers where
    `need` is one."""
    legal, note = game.listing(after["rules"], need, only)
    decision = after["awaiting"].get("decision") if after["awaiting"]["waiting_for"] == "decision" else None
    if decision:
        legal = [dict(order, decision=decision) for order in legal]
    # what the ruleset says of the orders then, as of orders now (a set-up's areas, which its
    # note speaks of: players' probe, "its area (above)" with nothing above)
    described = [f"# {line}" for line in game.describe_need(after["rules"], need)] \
        or [f"#   {with_rule(need.prompt, need.rule)}."]
    return (described + _count_lines(legal, only, note, "then", _known(game, after["rules"], only)) + _noted(note)
            + _listed(legal, only) + ([] if decision else _sealed_lines(game, after["rules"], need, own, only))), legal


def _orders_after_answer(game: engine.Game, state: dict, side: str, key: Any, filled: tuple, only: str | None,
                         what: str = "the answer", own: dict[str, dict] | None = None) -> list[str]:
    """Where the answer filled in brings the game to this side's own orders (dos: a withdrawal,
    then the Initial Movement Phase) or its own next decision (chir: the next hex of a retreat),
    those too, to write after the answer in the same packet (players' probe: the phase after it
    was written blind; each hex of a retreat cost a round trip)."""
    if not filled:
        return []
    from pbem.core.game import after_reveal

    try:
        after, _ = after_reveal(game, state, side, key, list(filled))
    except PbemError:      # the answer meets a step that refuses it: nothing to list after it
        return []
    need = engine.awaited_need(after)
    if need is None or need.side != side or after["awaiting"]["waiting_for"] not in ("orders", "decision"):
        return []
    answer = what == "the answer"
    if after["awaiting"]["waiting_for"] == "decision":   # players' probe: each hex of a retreat cost a round trip
        head = [f"# With {what} filled in, the game then comes to your own decision {after['awaiting']['decision']}:",
                "# its answer can follow in this same packet" + (" (another answer may bring another decision)."
                                                                  if answer else ".")]
    else:
        head = [f"# With {what} filled in, the game then comes to your orders: write them after it, in this",
                "# same packet" + (" (another answer may bring other orders)." if answer else
                                   ", or your opponent's packet, with nothing to decide, comes first.")]
    return head + _then(game, after, need, only, own)[0]


def _count_lines(legal: list[dict], only: str | None, note: str | None, when: str,
                 known: Callable[[], bool]) -> list[str]:
    """How many legal orders the template lists, `now` or `then` (after the reveal): where the
    ruleset's list is not every one (it gives a note: a sample, a phase's attacks), it says so
    before the count is read as all there are (players' probe). `known`: whether `only` names
    a thing of the game, asked when no order names it."""
    counted = _counted(legal, only, known)
    head = (f"Legal orders {when} ({counted})" if note is None else
            f"Legal orders listed {'now' if when == 'now' else 'for then'} ({counted}), not every "
            "one (see the note below)")
    if when == "then":
        return _noted(head + ":")
    if note is None:   # two lines, as they always were
        return [f"# {head}; orders are consumed in order, and later ones may be",
                "# given too: they are checked when their turn comes (void if the situation changed)."]
    return _noted(head + "; orders are consumed in order, and later ones may be given too: they are checked when "
                  "their turn comes (void if the situation changed).")


def _sealed_before_you(state: dict, side: str, need: Any) -> list[str]:
    """Where the opponent sealed its orders of this step already (`engine.sealed_before`), that
    one's own may go openly, and what that saves (a kkoh player's probe: each phase of fire took
    six packets)."""
    other = engine.sealed_before(state, side, need)
    if other is None:
        return []
    return [f"# {other} sealed its orders of this step already, to be opened in its next packet: seeing yours cannot",
            "# change them, and they take effect with yours. You may give yours openly (`pbem submit --no-seal`):",
            "# public from then on, they need no packet to open them, which saves one where nothing else waits."]


def _sealed_lines(game: engine.Game, rules: dict, need: Any, own: dict[str, dict] | None,
                  only: str | None) -> list[str]:
    """What the side's own items still sealed (`own`, as its private/ keeps them) let it order in
    this step once the rules reveal them, as the ruleset says (`Ruleset.sealed_listing`; a
    players' probe: kkoh listed a `show` of a group whose chit is sealed, and its moves were
    written blind): its note, then each group of orders after its sentence; those naming
    `only` if given; at most MAX_LISTED orders (MAX_NAMED naming `only`), the rest counted."""
    note, groups = game.sealed_listing(rules, need, own)
    lines = _noted(note)
    room = MAX_LISTED if only is None else MAX_NAMED
    left = 0
    for about, orders in groups:
        if only is not None:   # a group's first order (kkoh: its `show`) comes with any of the others
            named = [order for order in orders[1:] if _names(order, only)]
            orders = orders[:1] + named if named or (orders and _names(orders[0], only)) else []
        if not orders:
            continue
        if room <= 0:
            left += len(orders)
            continue
        lines += _noted(about + ":") + [f"#   - {flow(order)}" for order in orders[:room]]
        left += max(0, len(orders) - room)
        room -= len(orders)
    if left:
        lines.append(f"#   ... {left} more" + ("" if only else "; `pbem orders ... --only UNIT` lists one unit's orders"))
    return lines


def _noted(note: str | None) -> list[str]:
    """The ruleset's sentence on what its list leaves out, as comment lines."""
    import textwrap

    return [f"# {line}" for line in textwrap.wrap(note, 96, break_on_hyphens=False)] if note else []


def _names(order: dict, only: str) -> bool:
    """Whether an order is of type `only` or names it among its values (a unit, a hex)."""
    return any(str(value) == only for value in _values(order))


def _values(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _values(item)
    else:
        yield value


def _known(game: engine.Game, rules: dict, only: str | None) -> Callable[[], bool]:
    """Whether `only` is an order type of the ruleset or a unit, hex, area or square that `pbem
    show` knows: one that no legal order names now is no typo (a user's probe: `--only 2832`,
    a real hex, was asked "did you mean 2732?")."""
    def known() -> bool:
        if only is None:
            return False
        if only in order_types(game.ruleset.order_schema):
            return True
        look = game.ruleset.look
        for what in ("unit", "hex", "area", "square") if look is not None else ():
            try:
                look(game.scenario, rules, what, only)
                return True
            except ValueError:   # no such thing of that kind, or no kind the ruleset describes
                continue
        return False
    return known


def _counted(legal: list[dict], only: str | None, known: Callable[[], bool]) -> str:
    if only is None:
        return str(len(legal))
    named = sum(_names(order, only) for order in legal)
    hint = ""
    if not named and not known():   # a mistyped id: the one meant among those the orders name (a players' probe)
        from pbem.core.text import did_you_mean

        hint = did_you_mean(sorted({str(v) for order in legal for v in _values(order) if isinstance(v, str)}), only)
    return f"{len(legal)}; {named} of them name {only}{hint}"


def _listed(legal: list[dict], only: str | None) -> list[str]:
    """The legal orders as comments: at most MAX_LISTED, or, those naming `only` alone, at
    most MAX_NAMED; what is left out is counted by order type (players' probe: a unit's rail
    moves, listed last, were all in "... 99 more")."""
    shown_ = [order for order in legal if only is None or _names(order, only)]
    most = MAX_LISTED if only is None else MAX_NAMED
    lines = [f"#   - {flow(order)}" for order in shown_[:most]]
    if len(shown_) > most:
        left = collections.Counter(str(order.get("type")) for order in shown_[most:])   # in the order met
        kinds = ", ".join(f"{n} {kind}" for kind, n in left.items())
        lines.append(f"#   ... {len(shown_) - most} more ({kinds})" + ("" if only else
                                                                           "; `pbem orders ... --only UNIT` lists one unit's orders"))
    return lines


def orders_template(game: engine.Game, state: dict, side: str, key: Any = None, only: str | None = None,
                    own_sealed: dict[str, dict] | None = None, voided: list[str] | None = None) -> str:
    """`key`: the side's private key (or a function that reads it), for where its reveal
    brings the game (secure games). `only`: list only the legal orders of that type or that
    name it (a unit, a hex). `own_sealed`: the side's items still sealed, by name, each with its
    salt, as its private/ keeps them (`sealing.own_items`), listed for the sealer. `voided`: the side's
    orders the latest packet made void, as its report says them (`describe.last_voids`)."""
    ruleset = game.ruleset
    from pbem.core.errors import UsageError

    if side not in game.sides:
        raise UsageError(f"side {side!r} is not a side of this game ({', '.join(game.sides)})")
    if key is not None and not game.secure:
        raise UsageError("--key: a sandbox game has no keys; its packets are not signed")
    awaiting = state["awaiting"]
    sender = awaiting["packet_from"]
    if sender in (side, None):
        yours: int | None = state["seq"] + 1
    elif game.secure:   # the two sides' packets alternate: the other side's comes first
        yours = state["seq"] + 2
    else:               # a sandbox game's come from whichever side it waits for: not known yet
        yours = None
    lines = [f"# pbem orders for {side}: game {game.game_id}" + (f", packet {yours}" if yours else "")]
    if awaiting["need"] is None:
        lines.append("# The game is over; there is nothing to send.")
        return "\n".join(lines) + "\n"
    need = engine.awaited_need(state)
    if sender != side:
        lines.append(f"# Not your packet yet: the next packet, {state['seq'] + 1}, comes from {sender}"
                     + (f"; yours is {yours}, after you adjudicate {sender}'s." if yours else "."))
    lines.append("# " + describe.awaited_line(game, state, game.summary(state["rules"]), side))
    lines += [f"# Void in packet {state['seq']}: {line}" for line in voided or ()]
    used_up = describe.chain_used_up(game, state)     # a probe: a template for a packet that cannot be made
    if used_up:
        lines += [f"# {line}" for line in textwrap.wrap(used_up, 94, break_on_hyphens=False)]
    record = state["sealed"].get(side)
    if record and record["due"]:
        lines.append(f"# Your sealed item(s) {seal_names(record['due'])} are due: `pbem submit` opens them in this packet")
        lines.append("# for you, from private/ (docs/protocol.md §8).")
    kept = [item["id"] for item in record["items"] if item["id"] not in record["due"]] if record else []
    if kept:
        lines.append(f"# Your sealed item(s) {seal_names(kept)} stay sealed until the rules reveal them"
                     + (": what you sealed (kept in private/, for your eyes only):" if own_sealed else "."))
        lines += [f"#   {name}: {flow(own_sealed[name]['item'])}" for name in kept if name in (own_sealed or {})]
    mine = [item for item in state["queue"] if item["side"] == side]
    # where this side's reveal comes next, with its key: what it does to the orders queued (a
    # players' probe: an `end` listed as still to come, which the reveal was to drop behind a void order)
    ahead = None
    if mine and key is not None and game.secure and side == sender and awaiting["waiting_for"] == "dice":
        from pbem.core.errors import RulesError, VerificationError
        from pbem.core.game import after_reveal

        key = key() if callable(key) else key
        try:
            ahead = after_reveal(game, state, side, key)
        except (RulesError, VerificationError):
            ahead = None   # the packet itself will say why; the list stays as it was
    if mine:   # players' probe: orders queued packets ago were written again, for nothing named them
        them = "them" if len(mine) > 1 else "it"
        lines.append(f"# Your order{'s' if len(mine) > 1 else ''} still queued from earlier packets, applied as the game "
                     f"reaches {them} (do not write {them} again):")
        for item in mine:
            lines.append(f"#   order {item['index']} of packet {item['seq']}: {flow(item['order'])}"
                         + (f" (an answer to decision {item['decision']}: one written again to it replaces it)"
                            if "decision" in item else ""))   # the queue keeps the key beside the order
            if ahead is not None:
                lines += _fate(item, *ahead)
    if need.side == side and need.sealed:
        lines.append("# The rules ask you for sealed orders: write them below and send them with `pbem submit --seal`;")
        lines.append("# your opponent sees only their seals until your next packet opens them."
                     if need.reveal == "next" else
                     "# your opponent sees only their seals; each item is opened when the rules reveal it.")
        lines += _sealed_before_you(state, side, need)
    orders: list[dict] = []
    sealed_then = False   # the reveal comes to this side's sealed orders, written in this packet
    standing = engine.standing_answer(game, state) if need.side == side else None
    if standing is not None:
        lines += [f"# {line}" for line in game.describe_need(state["rules"], need)]
        lines.append(f"# Your standing order answers this decision ({awaiting.get('decision')}) when your packet's dice")
        lines.append(f"# open, before its orders take effect (docs/protocol.md §7 part 2): {flow(standing)}.")
        lines.append("# An answer to it here would be refused, and `policies` set here apply to later decisions.")
    elif need.side == side and (awaiting["waiting_for"] == "openings" or
                                (awaiting["waiting_for"] == "orders" and record and record["due"])):
        # the step takes the items due, opened (they come before the packet's orders, §8): no order
        # to fill in (a players' probe: kkoh's fire plan opening had its `end` filled in, which
        # stayed queued and, packets later, ended this side's own movement unasked)
        lines += [f"# {line}" for line in game.describe_need(state["rules"], need)]
        lines.append("# This step takes only the items you sealed, opened: write no orders for it. An order written")
        lines.append("# here waits in the queue for a later step of yours, and applies there.")
    elif need.side == side and awaiting["waiting_for"] != "dice":
        lines += [f"# {line}" for line in game.describe_need(state["rules"], need)]
        legal, note = game.listing(state["rules"], need, only)
        decision = awaiting.get("decision")
        if decision:
            legal = [dict(order, decision=decision) for order in legal]
            lines.append(f"# This decision is {decision}: an answer names it, so that it answers this decision and no")
            lines.append("# other (docs/protocol.md §7.2).")
            answer, said = _suggested(game, state, need, legal, decision, only)
            lines.append(said)
        lines += _count_lines(legal, only, note, "now", _known(game, state["rules"], only))
        lines += _noted(note) + _listed(legal, only)
        if not decision:
            lines += _sealed_lines(game, state["rules"], need, own_sealed, only)
        orders = ([answer] if answer else []) if decision else [o for o in legal if o.get("type") == "end"][:1]
        if orders and key is not None and side == sender:
            # the step the answer (or the `end`) brings, where it is this side's again (chir: a retreat
            # hex by hex; dos: the next phase of a player-turn, which one `end` each cost a round trip)
            lines += _orders_after_answer(game, state, side, key() if callable(key) else key, tuple(orders), only,
                                          "the answer" if decision else "the `end`", own_sealed)
    elif side == sender and awaiting["waiting_for"] == "dice" and "script" in state["dice"]:
        said, rolled_after = engine.script_words(state["dice"])
        lines.append(f"# The game's dice script {said}: send this packet with more dice,")
        lines.append(f"# `{engine.more_dice(side, 'THIS_FILE')}` (the dice rolled at your table{rolled_after}).")
    elif side == sender:
        if awaiting["waiting_for"] == "dice" and need.side == side:
            # the awaited line names this side's step: say why there is nothing to decide in it (players' probe)
            lines.append("# The step the game waits for is yours, but you have answered it already (a standing order of")
            lines.append("# yours, or an order queued): only the dice it needs are missing.")
        reveal = _after_reveal(game, state, side, key, only, own_sealed, ahead)
        if not reveal.own:   # else the reveal brings the game to this side's own step: not "nothing to decide"
            lines.append("# You have nothing to decide now: send this packet as it is; it reveals your next dice value."
                         if game.secure else "# You have nothing to decide now: send this packet as it is.")
        lines += reveal.lines
        orders, sealed_then = list(reveal.filled), reveal.sealed
    if not (need is not None and need.side == side and need.sealed) and not sealed_then:   # said above
        # players' probe: a plan queued a player-turn ahead, and a defensive policy, read as private
        lines.append("# Your opponent reads this packet whole: its orders, queued ones too, and its policies.")
    lines.append("orders:" + ("" if orders else " []"))
    lines += [f"  - {flow(order)}" for order in orders]
    if orders and lines[-1] == "  - {type: end}" and not sealed_then \
            and not (need is not None and (need.decision or need.sealed)):
        # (not where the orders are sealed: a sealed packet holds that step's orders alone, a probe)
        # a players' probe: attacks written below the `end` filled in were made in the next phase
        lines[-1] += "   # closes the phase: this phase's orders go above it, the next phase's below"
    # the side's own standing orders: another side's answer none of its decisions (Ruleset.policy_sides)
    policies = {key: value for key, value in engine.effective_policies(ruleset, state, side).items()
                if engine.policy_of_side(ruleset, key, side)}
    lines.append("# Standing orders in force: they answer the decisions no order answers, among them yours in the")
    lines.append("# opponent's next phase, before your next packet (your defence of its attacks); `ask` leaves one to")
    lines.append("# you, at the cost of a round trip. Uncomment to change:")
    choices = [f"{key}: {'|'.join(spec['enum'])}" for key, spec in ruleset.policy_schema.get("properties", {}).items()
               if "enum" in spec and engine.policy_of_side(ruleset, key, side)]
    line = ""
    for number, choice in enumerate(choices):   # lines under 100 columns, each choice whole
        item = choice + (";" if number < len(choices) - 1 else "")
        if line and len(line) + 1 + len(item) > 98:
            lines.append(line)
            line = "#  "
        line = f"{line} {item}" if line else f"# {item}"
    if line:
        lines.append(line)
    lines.append("policies:")
    lines += [f"#  {line}" for line in dumps(policies).splitlines()]
    return "\n".join(lines) + "\n"
