"""The pure adjudication step: (genesis, state k-1, packet k) -> (state k, events k).

The core owns the flow context (sequence, chains, dice segment, the order queue, standing
orders); the ruleset owns the board. Orders are consumed in packet order, one step at a
time, each step atomic: the ruleset works on a private copy that is kept only if the step
finishes. The soundness rule of DESIGN §3.6 lives in `_Step.d6`: once any choice made in
the current packet (an order, or a standing order it set) has been consumed, no die of
the current segment may be rolled; the engine stops before that step and waits for the
next packet, whose reveal opens the next segment.
"""

from __future__ import annotations

import hashlib
import marshal
from dataclasses import dataclass
from typing import Any

from pbem.core import dice
from pbem.core.canonical import DOMAIN_STATE, canonical, digest
from pbem.core.errors import RulesError, VerificationError
from pbem.core.packet import HEX64, check_envelope, packet_hash, verify_signature
from pbem.rulesets.base import IllegalOrder, Need, Ruleset

MAX_OPTIONS_IN_STATE = 60


class DiceNotYet(Exception):
    """Raised through the ruleset when a die may not be rolled in this segment."""


def clone(obj: Any) -> Any:
    """A deep copy of JSON-like data (marshal is the fastest exact copier in the stdlib)."""
    return marshal.loads(marshal.dumps(obj))


def state_hash(state: dict) -> str:
    return digest(DOMAIN_STATE, {k: v for k, v in state.items() if k != "state_hash"})


def seal(salt_hex: str, orders: list) -> str:
    """sha256(salt + canonical(orders)) for sealed (simultaneous) orders."""
    return hashlib.sha256(bytes.fromhex(salt_hex) + canonical(orders)).hexdigest()


@dataclass
class Game:
    """What every step needs from the genesis: the ruleset and the game's fixed facts."""

    genesis: dict
    game_id: str
    ruleset: Ruleset
    public_keys: dict  # side -> keys.PublicKey (secure games only)

    @property
    def sides(self) -> list[str]:
        return [side["name"] for side in self.genesis["sides"]]

    @property
    def secure(self) -> bool:
        return self.genesis["mode"] == "secure"

    def chain_length(self, side: str) -> int:
        return next(s["chain_length"] for s in self.genesis["sides"] if s["name"] == side)

    def sender_of(self, seq: int) -> str:
        """Packets alternate, starting with the first side of the genesis (§3.3)."""
        return self.sides[(seq - 1) % len(self.sides)]


class _Dice:
    """The dice source of one segment: labelled streams, or a sandbox script."""

    def __init__(self, game: Game, state: dict, k: int, reveal_prev: bytes | None, reveal_cur: bytes | None):
        self.k = k
        self.positions: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        self.script: list[int] | None = None
        self.script_used = state["dice"].get("script_used", 0)
        sandbox = game.genesis.get("sandbox") or {}
        if game.secure:
            self.seed = None
            if reveal_prev is not None and reveal_cur is not None:
                self.seed = dice.segment_seed(bytes.fromhex(game.game_id), k, reveal_prev, reveal_cur)
            self.source = "secure"
        elif "dice" in sandbox:
            self.seed, self.source = None, "script"
            self.script = state["dice"]["script"]
        else:
            self.seed, self.source = dice.sandbox_seed(sandbox.get("seed", ""), k), "seed"

    def snapshot(self) -> tuple:
        return dict(self.positions), dict(self.counts), self.script_used

    def restore(self, snap: tuple) -> None:
        self.positions, self.counts, self.script_used = dict(snap[0]), dict(snap[1]), snap[2]

    def roll(self, label: str) -> dict:
        if self.script is not None:
            if self.script_used >= len(self.script):
                raise DiceNotYet("the dice script is used up")
            value = self.script[self.script_used]
            self.script_used += 1
            return {"value": value, "source": "script", "script_index": self.script_used - 1, "label": label}
        if self.seed is None:
            raise DiceNotYet("no dice segment is open yet")
        stream = dice.Stream(self.seed, label, self.positions.get(label, 0))
        byte = stream.position
        value = stream.d6()
        index = self.counts.get(label, 0)
        self.positions[label] = stream.position
        self.counts[label] = index + 1
        return {"value": value, "source": self.source, "segment": self.k, "label": label, "index": index, "byte": byte}


class _Step:
    """The Context a ruleset sees while one order is applied (pbem.rulesets.base.Context)."""

    def __init__(self, dice_source: _Dice, may_roll: bool, chosen_by: str):
        self._dice = dice_source
        self._may_roll = may_roll
        self.chosen_by = chosen_by
        self.events: list[dict] = []

    def d6(self, label: str) -> int:
        if not isinstance(label, str) or not label or len(label) > 200:
            raise ValueError(f"dice label {label!r} must be a short non-empty string")
        if not self._may_roll:
            # §3.6: a choice of this packet's sender came first; its dice wait for the next reveal.
            raise DiceNotYet("a choice made in this packet must not see this segment's dice")
        roll = self._dice.roll(label)
        where = (f"segment {roll['segment']}, {roll['label']} #{roll['index']}" if roll["source"] != "script"
                 else f"scripted die {roll['script_index'] + 1}")
        self.events.append({"type": "roll", "text": f"Die: {roll['value']} ({where}).", **roll})
        return roll["value"]

    def event(self, type: str, text: str, **fields: Any) -> None:
        self.events.append({"type": type, "text": text, **fields})


def initial_state(game: Game, rules: dict) -> dict:
    sandbox = game.genesis.get("sandbox") or {}
    state = {
        "pbem": 1,
        "game": game.game_id,
        "seq": 0,
        "prev_state": None,
        "packet": None,
        "mode": game.genesis["mode"],
        "chains": {side: {"index": 0, "anchor": None, "value": None} for side in game.sides},
        "last_reveal": None,
        "dice": {"script": list(sandbox["dice"]), "script_used": 0} if "dice" in sandbox else {},
        "queue": [],
        "policies": {side: {"seq": 0, "values": {}} for side in game.sides},
        "sealed": {},
        "last_packet": {},
        "awaiting": None,
        "rules": rules,
    }
    state["awaiting"] = _awaiting(game, state, 0, None)
    state["state_hash"] = state_hash(state)
    return state


def verify_packet(game: Game, state: dict, packet: dict, source: str) -> None:
    """Every protocol check of DESIGN §2–3 that does not need the rules (exit 3)."""
    check_envelope(packet, source)
    seq = packet["seq"]
    if packet["game"] != game.game_id:
        raise VerificationError(f"{source}: the packet belongs to game {packet['game']}, not to this game {game.game_id}")
    if seq != state["seq"] + 1:
        kind = "replays or re-sends an old packet" if seq <= state["seq"] else "skips ahead (a packet is missing)"
        raise VerificationError(f"{source}: packet seq {seq} {kind}: the game is at state {state['seq']} and expects seq {state['seq'] + 1}")
    if packet["prev"] != state["state_hash"]:
        raise VerificationError(f"{source}: `prev` {packet['prev'][:16]}... is not the hash of state {state['seq']} ({state['state_hash'][:16]}...)")
    side = packet["side"]
    if side not in game.sides:
        raise VerificationError(f"{source}: side {side!r} is not a side of this game ({', '.join(game.sides)})")
    if not game.secure:
        for name in ("signature", "reveal", "anchor"):
            if name in packet:
                raise VerificationError(f"{source}: `{name}` has no place in a sandbox game's packet")
        return
    expected = game.sender_of(seq)
    if side != expected:
        raise VerificationError(f"{source}: packet {seq} comes from {side}, but packets alternate and {expected} must send it (§3.3)")
    if "dice" in packet:
        raise VerificationError(f"{source}: `dice` may only be given in a sandbox game")
    verify_signature(packet, game.public_keys[side], side, source)
    _verify_reveal(game, state, packet, source)


def _verify_reveal(game: Game, state: dict, packet: dict, source: str) -> None:
    side = packet["side"]
    chain = state["chains"][side]
    reveal = packet.get("reveal")
    if reveal is None:
        raise VerificationError(f"{source}: the packet has no `reveal`; each packet reveals its side's next chain value (§3.2)")
    if chain["index"] == 0:
        if "anchor" not in packet:
            raise VerificationError(f"{source}: {side}'s first packet must carry its chain `anchor` (§3.1)")
        previous = bytes.fromhex(packet["anchor"])
    else:
        if "anchor" in packet and packet["anchor"] != chain["anchor"]:
            raise VerificationError(f"{source}: the packet changes {side}'s anchor from {chain['anchor'][:16]}... to {packet['anchor'][:16]}...")
        previous = bytes.fromhex(chain["value"])
    if reveal["index"] != chain["index"] + 1:
        raise VerificationError(f"{source}: reveal index {reveal['index']} is wrong: {side}'s next chain index is {chain['index'] + 1}")
    if reveal["index"] > game.chain_length(side):
        raise VerificationError(f"{source}: {side}'s chain of {game.chain_length(side)} values is used up")
    if dice.chain_step(bytes.fromhex(reveal["value"])) != previous:
        raise VerificationError(f"{source}: the reveal of index {reveal['index']} does not hash to {side}'s previous chain value (forged reveal)")


def apply_packet(game: Game, state: dict, packet: dict, source: str, *, verify: bool = True) -> tuple[dict, list[dict]]:
    """Verify and apply packet k; return state k and the events for its AAR.

    Raises VerificationError (exit 3) or RulesError (exit 1); never partially applies."""
    if verify:
        verify_packet(game, state, packet, source)
    ruleset = game.ruleset
    new = clone({k: v for k, v in state.items() if k != "state_hash"})
    k, side = packet["seq"], packet["side"]
    events: list[dict] = [{"type": "packet", "text": f"Packet {k} from {side}.", "seq": k, "side": side}]

    # Chains and the dice segment this packet opens (§3.4).
    reveal_prev = bytes.fromhex(new["last_reveal"]) if new["last_reveal"] else None
    reveal_cur = None
    if game.secure:
        chain = new["chains"][side]
        if chain["index"] == 0:
            chain["anchor"] = packet["anchor"]
        chain["index"] = packet["reveal"]["index"]
        chain["value"] = packet["reveal"]["value"]
        reveal_cur = bytes.fromhex(chain["value"])
        new["last_reveal"] = chain["value"]
    elif "dice" in packet:
        if "script" not in new["dice"]:
            raise VerificationError(f"{source}: `dice` extends a dice script, and this sandbox game rolls from a seed")
        _check_dice(packet["dice"], source)
        new["dice"]["script"].extend(packet["dice"])
    dice_source = _Dice(game, new, k, reveal_prev, reveal_cur)

    _queue_orders(game, new, packet, source, events)
    if "policies" in packet:
        _set_policies(ruleset, new, side, k, packet["policies"], source)

    new["rules"], status = _run(game, new, k, dice_source, source, events)
    if dice_source.script is not None:
        new["dice"]["script_used"] = dice_source.script_used
    new["seq"] = k
    new["prev_state"] = state["state_hash"]
    new["packet"] = packet_hash(packet)
    new["last_packet"][side] = {"seq": k, "sent": packet.get("sent"), "hash": new["packet"]}
    new["awaiting"] = _awaiting(game, new, k, status)
    new["state_hash"] = state_hash(new)
    return new, events


def _check_dice(values: list, source: str) -> None:
    for value in values:
        if type(value) is not int or not 1 <= value <= 6:
            raise VerificationError(f"{source}: scripted dice must be integers 1 to 6, not {value!r}")


def _queue_orders(game: Game, state: dict, packet: dict, source: str, events: list[dict]) -> None:
    """Add the packet's orders (or the orders it opens) to the queue, checked by schema."""
    side, k = packet["side"], packet["seq"]
    sealed = state["sealed"].get(side)
    if "opens" in packet:
        opens = packet["opens"]
        if sealed is None:
            raise VerificationError(f"{source}: `opens` opens sealed orders, but {side} has none sealed")
        if set(opens) != {"salt", "orders"} or not isinstance(opens["orders"], list) or not isinstance(opens["salt"], str) \
                or not HEX64.match(opens["salt"]):
            raise VerificationError(f"{source}: `opens` must be {{salt: <64 hex digits>, orders: [...]}}")
        if seal(opens["salt"], opens["orders"]) != sealed["hash"]:
            raise VerificationError(f"{source}: the opened orders or salt differ from what {side} sealed in packet {sealed['seq']}")
        _check_orders(game.ruleset, opens["orders"], source, "opens.orders")
        _enqueue(state, side, sealed["seq"], opens["orders"])
        del state["sealed"][side]
        events.append({"type": "opened", "text": f"{side} opens the orders sealed in packet {sealed['seq']}.", "seq": sealed["seq"]})
    elif sealed is not None and packet["orders"]:
        raise VerificationError(f"{source}: {side} must first open the orders sealed in packet {sealed['seq']}")
    if "sealed" in packet:
        if not HEX64.match(packet["sealed"]):
            raise VerificationError(f"{source}: `sealed` must be 64 hex digits")
        if packet["orders"]:
            raise VerificationError(f"{source}: a packet that seals orders must not also give open orders")
        state["sealed"][side] = {"seq": k, "hash": packet["sealed"]}
        events.append({"type": "sealed", "text": f"{side} seals orders, to be opened in its next packet."})
    _check_orders(game.ruleset, packet["orders"], source, "orders")
    _enqueue(state, side, k, packet["orders"])


def _enqueue(state: dict, side: str, seq: int, orders: list) -> None:
    for index, order in enumerate(orders, start=1):
        state["queue"].append({"seq": seq, "side": side, "index": index, "order": order})


def _check_orders(ruleset: Ruleset, orders: list, source: str, path: str) -> None:
    from pbem.core.schema import validator

    check = validator(ruleset.order_schema)
    for index, order in enumerate(orders):
        errors = sorted(check.iter_errors(order), key=lambda e: (len(e.path), list(map(str, e.path))))
        if errors:
            error = errors[0]
            where = "".join(f".{p}" if isinstance(p, str) else f"[{p}]" for p in error.path)
            raise RulesError(f"{source}: order {index + 1} ({path}[{index}]{where}): {error.message}")


def _set_policies(ruleset: Ruleset, state: dict, side: str, k: int, policies: dict, source: str) -> None:
    from pbem.core.schema import validator

    errors = list(validator(ruleset.policy_schema).iter_errors(policies))
    if errors:
        error = errors[0]
        where = ".".join(str(p) for p in error.path)
        raise RulesError(f"{source}: standing order `policies{'.' + where if where else ''}`: {error.message}")
    values = dict(state["policies"][side]["values"])
    values.update(policies)
    state["policies"][side] = {"seq": k, "values": values}


def effective_policies(ruleset: Ruleset, state: dict, side: str) -> dict:
    values = dict(ruleset.default_policies)
    values.update(state["policies"][side]["values"])
    return values


def _run(game: Game, state: dict, k: int, dice_source: _Dice, source: str, events: list[dict]) -> tuple[dict, dict | None]:
    """Consume queued orders step by step; return the rules and why the run stopped."""
    ruleset = game.ruleset
    rules = state["rules"]
    queue = state["queue"]
    fresh = False  # has a choice of this packet been consumed (§3.6)?
    while True:
        need = ruleset.next_step(rules)
        if need is None:
            return rules, None
        position = _next_order(queue, need)
        item = queue[position] if position is not None else None
        if item is not None and item["order"].get("type") in need.accepts:
            order, origin, chosen_by = item["order"], item["seq"], "order"
        elif need.decision:
            origin = state["policies"][need.side]["seq"]
            order = ruleset.policy(rules, need, effective_policies(ruleset, state, need.side))
            chosen_by = "policy"
            if order is None:
                return rules, {"waiting_for": "decision", "need": need}
            position = None
        elif item is not None:
            # An order that does not fit the phase the game is in.
            _illegal(state, game, need, item, source, events, k,
                     IllegalOrder(need.rule, f"the game waits for {need.prompt}, which takes {', '.join(need.accepts)}", list(need.accepts)))
            continue
        else:
            return rules, {"waiting_for": "orders", "need": need}

        current = origin == k
        may_roll = (not fresh and not current) or not game.secure
        step = _Step(dice_source, may_roll, chosen_by)
        snapshot = dice_source.snapshot()
        work = clone(rules)
        try:
            ruleset.apply(work, need, order, step)
        except DiceNotYet:
            dice_source.restore(snapshot)
            what = (f"{item['side']} order {item['index']} of packet {item['seq']} ({_order_text(order)})"
                    if position is not None else f"{need.side}'s standing order on {need.kind}")
            events.append({"type": "waiting", "text": f"{what} needs dice: it resolves when the next packet reveals "
                           f"the next dice value (§3.6); {len(queue)} order(s) queued.", "queued": len(queue)})
            return rules, {"waiting_for": "dice", "need": need}
        except IllegalOrder as exc:
            dice_source.restore(snapshot)
            if chosen_by == "policy":
                raise RulesError(f"{source}: {need.side}'s standing orders gave an illegal answer to {need.kind}: {exc.message} ({exc.rule})") from None
            _illegal(state, game, need, item, source, events, k, exc)
            continue
        rules = work
        if position is not None:
            del queue[position]
            label = f"{item['side']} order {item['index']} of packet {item['seq']}"
            events.append({"type": "order", "text": f"{label}: {_order_text(order)}", "side": item["side"],
                           "seq": item["seq"], "index": item["index"], "order": order})
        else:
            events.append({"type": "policy", "text": f"{need.side}'s standing order answers {need.kind}: {_order_text(order)}",
                           "side": need.side, "kind": need.kind, "order": order})
        events.extend(step.events)
        if current:
            fresh = True


def _next_order(queue: list[dict], need: Need) -> int | None:
    """The queue position of the order that answers `need`: the side's first queued order;
    for a decision, also an answer from a later packet waiting behind orders of earlier
    packets (the player answered the question the engine asked; the earlier orders wait
    for their own turn). Within one packet, orders are always taken in their order."""
    mine = [i for i, item in enumerate(queue) if item["side"] == need.side]
    if not mine or not need.decision or queue[mine[0]]["order"].get("type") in need.accepts:
        return mine[0] if mine else None
    first_packet = queue[mine[0]]["seq"]
    for i in mine:
        if queue[i]["seq"] == first_packet:
            continue
        return i if queue[i]["order"].get("type") in need.accepts else mine[0]
    return mine[0]


def _illegal(state: dict, game: Game, need: Need, item: dict, source: str, events: list[dict], k: int, exc: IllegalOrder) -> None:
    """An illegal order from this packet rejects it; one from an earlier packet is void (§4.4)."""
    legal = _legal_text(exc.legal)
    if item["seq"] == k:
        raise RulesError(f"{source}: order {item['index']} ({_order_text(item['order'])}) is illegal: {exc.message} ({exc.rule})."
                         + (f"\nLegal now: {legal}" if legal else ""))
    queue = state["queue"]
    policy = effective_policies(game.ruleset, state, item["side"]).get("on_void", "stop")
    dropped = [entry for entry in queue if entry["side"] == item["side"]] if policy != "skip" else [item]
    for entry in dropped:
        queue.remove(entry)
    then = ("the rest of its queued orders are dropped and new ones are awaited" if policy != "skip"
            else "its next order follows")
    legal_then = f"; legal then: {legal}" if legal else ""
    events.append({"type": "void", "text": f"{item['side']} order {item['index']} of packet {item['seq']} "
                   f"({_order_text(item['order'])}) is void: {exc.message} ({exc.rule}){legal_then}; {then}.",
                   "side": item["side"], "seq": item["seq"], "index": item["index"], "rule": exc.rule, "dropped": len(dropped)})


def _legal_text(legal: Any) -> str:
    if legal is None:
        return ""
    if isinstance(legal, list):
        shown = [x if isinstance(x, str) else _order_text(x) for x in legal[:12]]
        return "; ".join(shown) + (f"; ... ({len(legal)} in all)" if len(legal) > 12 else "")
    return str(legal)


def _order_text(order: Any) -> str:
    if not isinstance(order, dict):
        return repr(order)
    parts = [str(order.get("type", "?"))]
    parts += [f"{key}={_value_text(order[key])}" for key in sorted(order) if key != "type"]
    return " ".join(parts)


def _value_text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        return "{" + " ".join(f"{k}={_value_text(v)}" for k, v in sorted(value.items())) + "}"
    return str(value)


def _awaiting(game: Game, state: dict, k: int, status: dict | None) -> dict:
    """Who sends the next packet and what the engine waits for (DESIGN §2.4)."""
    need = game.ruleset.next_step(state["rules"])
    if need is None:
        return {"packet_from": None, "waiting_for": "nothing: the game is over", "need": None}
    packet_from = game.sender_of(k + 1) if game.secure else need.side
    waiting_for = status["waiting_for"] if status else ("decision" if need.decision else "orders")
    awaiting = {"packet_from": packet_from, "waiting_for": waiting_for, "need": need.as_dict()}
    if waiting_for == "decision":
        options = game.ruleset.legal_orders(state["rules"], need)
        awaiting["options"] = options[:MAX_OPTIONS_IN_STATE]
        awaiting["options_total"] = len(options)
    return awaiting
