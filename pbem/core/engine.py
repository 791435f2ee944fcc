"""The pure adjudication step: (genesis, state k-1, packet k) -> (state k, events k).

The core owns the flow context (sequence, chains, dice segment, the order queue, standing
orders, seals, the origin of the decisions in progress); the ruleset owns the board.

The rule that makes the dice fair (DESIGN §3.6): what segment k decides is a function of
state k-1 and v_k alone. The sender of packet k knows both v_{k-1} and v_k, so nothing in
packet k may change which dice segment k rolls or what they decide. When packet k
arrives:

  a. its reveal opens segment k;
  b. `resolve` resumes what was queued before packet k, with segment k's dice: queued
     orders, answers queued for the decisions met, else the standing orders of state k-1;
     it stops at a decision whose standing order is `ask`, or when nothing can go on;
  c. only then does packet k take effect: its policies, its openings of sealed orders,
     its new orders, its seals. From here no die of segment k is rolled: the engine stops
     before a step that needs one and waits for packet k+1.

In a sandbox game both parts roll freely (dice from a script or a plain seed).

Each step is atomic: the ruleset works on the rules and, if it raises (an illegal order,
or dice that may not be rolled yet), the rules are put back as they were.
"""

from __future__ import annotations

import json
import marshal

from pbem.core import dice
from pbem.core.canonical import DOMAIN_STATE, LazyPattern, canonical, digest, digest_of
from pbem.core.errors import RulesError, VerificationError
from pbem.core.packet import check_envelope, packet_id, verify_signature
from pbem.core.record import Record
from pbem.core.sha import sha256
from pbem.core.text import names, numbers, shown, with_rule
from pbem.rulesets.base import WAITS_FOR, IllegalOrder, Need, Ruleset

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROTOCOL = 2
MAX_OPTIONS_IN_STATE = 60
MAX_QUEUED_PER_SIDE = 1000
SEAL_DOMAIN = b"pbem-seal-v1\n"
DECISION_KEY = LazyPattern(r"(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,3})/([a-z][a-z0-9-]{0,39})(/([2-9]|[1-9][0-9]{1,3}))?\Z")
NO_ORIGIN = "0.0"


class DiceNotYet(Exception):
    """Raised through the ruleset when a die may not be rolled in this segment."""


def clone(obj: Any) -> Any:
    """A deep copy of JSON-like data (marshal is the fastest exact copier in the stdlib)."""
    return marshal.loads(marshal.dumps(obj))


FLAT_AT_LEAST = 32   # entries of a map of strings that `keep` copies rather than serialises
_FLAT: dict[int, tuple] = {}   # the hash of the rules' keys, in order -> those that held large maps of strings


def keep(rules: dict) -> tuple:
    """The rules as they stand, to be put back by `put_back` should a step fail. A large map
    whose values are all strings (where each unit stands) is kept by a copy: a string cannot
    change, and a copy of the map is ten times faster than marshal, which keeps the rest
    (the fastest exact serialiser in the stdlib). This runs before every step of a packet,
    so which keys held such maps is looked for once per layout of the rules; each is checked
    again every time (one that comes to hold such a map later is serialised: as exact). The
    layout is known by its hash, not by its keys: where no key holds such a map (kkoh), a
    reference kept to each key would make marshal note each as shared, at a cost greater
    than the look saves.
    Unlike marshal, this does not keep an object the rules hold twice as one object: rules
    never do, being read from JSON and written to it (a ruleset that made them share one
    would give another state replayed from the files than in memory, which audit refuses)."""
    layout = hash(tuple(rules))
    keys = _FLAT.get(layout)
    if keys is None:
        keys = tuple(key for key, value in rules.items()
                     if type(value) is dict and len(value) >= FLAT_AT_LEAST and _strings(value))
        if len(_FLAT) >= 64:   # a few rulesets, each of a few layouts
            _FLAT.clear()
        _FLAT[layout] = keys
    flat = {key: value.copy() for key in keys if type(value := rules.get(key)) is dict and _strings(value)}
    if not flat:
        return None, None, marshal.dumps(rules)
    rest = rules.copy()
    for key in flat:
        del rest[key]
    return tuple(rules), flat, marshal.dumps(rest)


def _strings(mapping: dict) -> bool:
    """Whether every value of `mapping` is a string."""
    try:
        "".join(mapping.values())    # a TypeError at the first value that is not one
    except TypeError:
        return False
    return True


def put_back(kept: tuple) -> dict:
    """The rules `keep` kept, in their key order."""
    order, flat, saved = kept
    rest = marshal.loads(saved)
    if order is None:
        return rest
    return {key: flat[key] if key in flat else rest[key] for key in order}


def sorted_copy(state: dict) -> dict:
    """A deep copy of a state with every mapping's keys in sorted order: the state exactly as
    reading its file gives it (pbem writes keys sorted). The rules iterate mappings in their
    order, and a report lists what they meet in it, so each packet is applied to this copy:
    the same packet on the same content then gives the same state and report whether the
    state was read from a file, from a file with its keys reordered (the layout is no part of
    the record), or kept in memory by a replay (where the rules have added keys at the end).
    Read back from the canonical form its hash is taken of (JSON, keys sorted), which holds
    exactly the values a state may hold."""
    return json.loads(canonical(state))


def state_hash(state: dict) -> str:
    return digest(DOMAIN_STATE, {k: v for k, v in state.items() if k != "state_hash"})


def seal_id(seq: int, n: int) -> str:
    """The name of the n-th item (from 1) sealed in packet `seq`: "SEQ.N" (§8)."""
    return f"{seq}.{n}"


def item_names(names: list[str]) -> str:
    """Sealed items' names ("SEQ.N") for a report: a run of three or more of one packet in a row
    as its first and last ("12.1 to 12.84"; a players' probe: a fire plan padded to 84 items
    listed all 84 names, twice)."""
    runs: list[list[str]] = []
    for name in names:
        seq, n = name.split(".")
        last = runs[-1][-1].split(".") if runs else None
        if last is not None and last[0] == seq and int(last[1]) + 1 == int(n):
            runs[-1].append(name)
        else:
            runs.append([name])
    return ", ".join(f"{run[0]} to {run[-1]}" if len(run) > 2 else ", ".join(run) for run in runs)


def as_sealed(game_id: str, seq: int, side: str, entry: dict, sealed_hash: str) -> bool:
    """Whether an opened entry ({"salt", "item"}) is what `side` sealed in packet `seq`; a salt
    that is no hexadecimal text is not (a kept file damaged, a probe: it was a ValueError)."""
    try:
        salt = bytes.fromhex(entry["salt"])
    except (TypeError, ValueError):
        return False
    return seal_hash(game_id, seq, side, salt, entry["item"]) == sealed_hash


def seal_hash(game_id: str, seq: int, side: str, salt: bytes, item: Any) -> str:
    """SHA-256(b"pbem-seal-v1\\n" + game_id + seq (8 bytes BE) + side + 0x00 + salt + canonical(item))."""
    data = SEAL_DOMAIN + bytes.fromhex(game_id) + seq.to_bytes(8, "big") + side.encode() + b"\x00" + salt + canonical(item)
    return sha256(data).hexdigest()


class Game(Record):
    """What every step needs from the genesis: the ruleset, its scenario (the world the
    genesis fixes, built once per process) and the game's fixed facts. The methods below
    are the one place where the core calls the ruleset."""

    genesis: dict
    game_id: str
    ruleset: Ruleset
    public_keys: dict  # side -> keys.PublicKey (secure games only)
    scenario: Any = None

    def next_step(self, rules: dict) -> Need | None:
        return self.ruleset.next_step(self.scenario, rules)

    def apply(self, rules: dict, need: Need, order: dict, ctx: Any) -> None:
        self.ruleset.apply(self.scenario, rules, need, order, ctx)

    def share_strings(self, rules: dict) -> None:
        """Rules read from a file or from JSON, given the scenario's own equal strings where the
        ruleset says (Ruleset.share_strings): no value changes."""
        share = self.ruleset.share_strings
        if share is not None:
            share(self.scenario, rules)

    def legal_orders(self, rules: dict, need: Need) -> list[dict]:
        return self.ruleset.legal_orders(self.scenario, rules, need)

    def listing(self, rules: dict, need: Need, only: str | None = None) -> tuple[list[dict], str | None]:
        """The legal orders `pbem orders` lists (those naming `only` if given), and a sentence
        on what the list leaves out where the ruleset's legal orders are a representative set."""
        listing = self.ruleset.listing
        if listing is None:
            return self.legal_orders(rules, need), None
        return listing(self.scenario, rules, need, only)

    def sealed_listing(self, rules: dict, need: Need, own: dict | None) -> tuple[str | None, list]:
        """What the items `own` (the side's own, still sealed, by name) let it order in this step
        once revealed, where the ruleset says (`Ruleset.sealed_listing`): a note, and groups of orders."""
        listing = self.ruleset.sealed_listing
        if listing is None or not own:
            return None, []
        return listing(self.scenario, rules, need, own)

    def cautions(self, state: dict, events: list[dict], side: str, queued: list[dict]) -> list[str]:
        cautions = self.ruleset.cautions
        return [] if cautions is None else cautions(self.scenario, state["rules"], events, side, queued,
                                                    effective_policies(self.ruleset, state, side))

    def policy(self, rules: dict, need: Need, policies: dict) -> dict | None:
        return self.ruleset.policy(self.scenario, rules, need, policies)

    def summary(self, rules: dict) -> dict:
        return self.ruleset.summary(self.scenario, rules)

    def render(self, rules: dict) -> str:
        return self.ruleset.render(self.scenario, rules)

    def describe_need(self, rules: dict, need: Need) -> list[str]:
        return self.ruleset.describe_need(self.scenario, rules, need)

    def seal_items(self, rules: dict, need: Need, orders: list[dict]) -> list[dict]:
        """The items a side seals for `orders` where the rules ask it for sealed orders."""
        arrange = self.ruleset.seal_items
        return list(orders) if arrange is None else arrange(self.scenario, rules, need, orders)

    def view(self, rules: dict) -> dict | None:
        """The board as data (what `pbem show --diff` compares), if the ruleset gives one."""
        view = self.ruleset.view
        return None if view is None else view(self.scenario, rules)

    def look(self, rules: dict, what: str, ident: str, own: dict | None = None) -> list[str] | None:
        """One hex, area or unit described, if the ruleset describes single things; `own`: the
        items still sealed that the folder keeps, by side and name, said to their owner."""
        if own and self.ruleset.look_own is not None:
            return self.ruleset.look_own(self.scenario, rules, what, ident, own)
        look = self.ruleset.look
        return None if look is None else look(self.scenario, rules, what, ident)

    @property
    def sides(self) -> list[str]:
        return [side["name"] for side in self.genesis["sides"]]

    @property
    def secure(self) -> bool:
        return self.genesis["mode"] == "secure"

    def side_entry(self, side: str) -> dict:
        return next(s for s in self.genesis["sides"] if s["name"] == side)

    def chain_length(self, side: str) -> int:
        return self.side_entry(side)["chain_length"]

    def sender_of(self, seq: int) -> str:
        """Packets alternate, starting with the first side of the genesis (§3.3)."""
        return self.sides[(seq - 1) % len(self.sides)]


def more_dice(side: str, orders_file: str = "ORDERS_FILE") -> str:
    """The command that adds dice to a sandbox game's used-up dice script (status, the orders
    template and submit say it)."""
    return f"pbem submit GAME_DIR {orders_file} --side {side} --dice 4,2"


def script_words(dice: dict) -> tuple[str, str]:
    """What a sandbox game waiting for dice says of its script: (its state, what comes of the
    dice added). A step whose dice run out partway is undone, so the dice it rolled stay in
    the script; those left are rolled first when dice are added (a referee's probe: "used up,
    all rolled" was said with a die left, and the table's dice went to a fight beside it)."""
    script, used = dice["script"], dice.get("script_used", 0)
    left = script[used:]
    if not left:
        return f"is used up ({len(script)} {'die' if len(script) == 1 else 'dice'}, all rolled)", ""
    return (f"has {len(left)} {'die' if len(left) == 1 else 'dice'} left ({', '.join(map(str, left))}), too few for "
            f"the step the game waits for", f", rolled after {'it' if len(left) == 1 else 'them'}")


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

    def sealed_draw(self, label: str) -> dict:
        """A die drawn in this segment and sealed with an item (docs/protocol.md §8): what
        makes it, kept in the state until the item is opened (`_Step.sealed_d6`). A scripted
        die is taken from the script now: a sandbox game keeps nothing secret."""
        if self.script is not None:
            if self.script_used >= len(self.script):
                raise DiceNotYet("the dice script is used up")
            self.script_used += 1
            return {"label": label, "script_index": self.script_used - 1, "value": self.script[self.script_used - 1]}
        if self.seed is None:
            raise DiceNotYet("no dice segment is open yet")
        return {"label": label, "segment": self.k, "seed": self.seed.hex()}

    def snapshot(self) -> tuple:
        return dict(self.positions), dict(self.counts), self.script_used

    def restore(self, snap: tuple) -> None:
        self.positions, self.counts, self.script_used = dict(snap[0]), dict(snap[1]), snap[2]

    def roll(self, label: str, among: int | None = None) -> dict:
        """A d6, or with `among` a uniform pick of 0 .. among-1 (a draw from a pool; a
        script gives it as its die minus one, and must hold a die below `among` + 1)."""
        if self.script is not None:
            if self.script_used >= len(self.script):
                raise DiceNotYet("the dice script is used up")
            value = self.script[self.script_used]
            if among is not None:
                value -= 1
                if value >= among:
                    raise ValueError(f"scripted die {self.script_used + 1} picks {value + 1} of only {among}")
            self.script_used += 1
            return {"value": value, "source": "script", "script_index": self.script_used - 1, "label": label}
        if self.seed is None:
            raise DiceNotYet("no dice segment is open yet")
        stream = dice.Stream(self.seed, label, self.positions.get(label, 0))
        byte = stream.position
        value = stream.d6() if among is None else stream.pick(among)
        index = self.counts.get(label, 0)
        self.positions[label] = stream.position
        self.counts[label] = index + 1
        roll = {"value": value, "source": self.source, "segment": self.k, "label": label, "index": index, "byte": byte}
        if among is not None:
            roll["among"] = among
        return roll


class _Step:
    """The Context a ruleset sees while one order is applied (pbem.rulesets.base.Context)."""

    def __init__(self, dice_source: _Dice, may_roll: bool, chosen_by: str, opened: str | None = None,
                 salt: str | None = None):
        self._dice = dice_source
        self._may_roll = may_roll
        self.chosen_by = chosen_by
        self.opened = opened
        self._salt = salt      # the opened item's, for the dice sealed with it
        self.events: list[dict] = []

    def d6(self, label: str) -> int:
        return self._roll(label, None)

    def pick(self, label: str, among: int) -> int:
        return self._roll(label, among)

    def sealed_draw(self, label: str) -> dict:
        self._may_draw(label)
        return self._dice.sealed_draw(label)

    def sealed_d6(self, draw: dict) -> int:
        """The die `draw` made, at the opening of the item it was sealed with: from the seed of
        the segment that drew it and the item's salt, which its opening has just made public."""
        if self.opened is None or self._salt is None:
            raise ValueError("a die sealed with an item is read at that item's opening only")
        value = dice.sealed_die(draw, self._salt)
        where, source = ((f"scripted die {draw['script_index'] + 1}", "script") if "value" in draw
                         else (f"segment {draw['segment']}", "sealed"))
        self.events.append({"type": "roll", "text": f"Die: {value} ({where}, {draw['label']}, sealed with item "
                            f"{self.opened}).", "value": value, "source": source, "segment": draw.get("segment"),
                            "label": draw["label"], "item": self.opened})
        return value

    def _may_draw(self, label: str) -> None:
        if not isinstance(label, str) or not label or len(label) > 200:
            raise ValueError(f"dice label {label!r} must be a short non-empty string")
        if not self._may_roll:
            # §3.6 c: packet k has taken effect; its sender knows segment k's dice.
            raise DiceNotYet("no die of this segment may be rolled once the packet has taken effect")

    def _roll(self, label: str, among: int | None) -> int:
        self._may_draw(label)
        roll = self._dice.roll(label, among)
        where = (f"segment {roll['segment']}, {roll['label']}{roll_index(roll)}" if roll["source"] != "script"
                 else f"scripted die {roll['script_index'] + 1}")
        what = f"Die: {roll['value']}" if among is None else f"Draw: {roll['value'] + 1} of {among}"
        self.events.append({"type": "roll", "text": f"{what} ({where}).", **roll})
        return roll["value"]

    def event(self, type: str, text: str, **fields: Any) -> None:
        self.events.append({"type": type, "text": text, **fields})


def roll_index(roll: dict) -> str:
    """" #N" after a roll's label where it is not the label's first roll in its segment: every
    "#0" of the reports was noise to their readers (an audience's walkthrough)."""
    return f" #{roll['index']}" if roll["index"] else ""


def initial_state(game: Game, rules: dict) -> dict:
    """State 0: the ruleset's set-up of the genesis. It rolls nothing (§3.6)."""
    sandbox = game.genesis.get("sandbox") or {}
    state = {
        "pbem": PROTOCOL,
        "game": game.game_id,
        "seq": 0,
        "prev_state": None,
        "packet": None,
        "mode": game.genesis["mode"],
        "chains": ({side["name"]: {"index": 0, "value": side["anchor"]} for side in game.genesis["sides"]}
                   if game.secure else {}),
        "last_reveal": None,
        "dice": {"script": list(sandbox["dice"]), "script_used": 0} if "dice" in sandbox else {},
        "queue": [],
        "policies": {side: {"seq": 0, "values": {}} for side in game.sides},
        "sealed": {},
        "decisions": {"origin": NO_ORIGIN, "answered": {}},
        "last_packet": {},
        "awaiting": None,
        "rules": rules,
    }
    state["awaiting"] = _awaiting(game, state, 0, None)
    state["state_hash"] = state_hash(state)
    return state


# --- verification (exit 3) --------------------------------------------------------------------

def other_game(game: Game, packet: dict, source: str) -> VerificationError:
    """The error for a packet of another game: what it is and what this game is, so that a
    player given the wrong folder or the wrong attachment sees which."""
    what = (f" (its packet {packet['seq']}, from {shown(packet['side'])})"
            if isinstance(packet.get("seq"), int) and isinstance(packet.get("side"), str) else "")
    keys = stray_key(game, packet)
    return VerificationError(f"{source}: the packet belongs to game {shown(str(packet.get('game')))}{what}, not to this "
                             f"{game.ruleset.id} game {game.game_id}: a packet of another game, or the wrong game "
                             f"folder{'; ' + keys if keys else ''}")


def stray_key(game: Game, packet: dict) -> str:
    """Of a `stray` packet, the key it names, which is of neither side ("" where it names none,
    or is not stray). Its signature is not checked: the key is what it says."""
    named = named_key(packet)
    if not stray(game, packet) or named is None:
        return ""
    return f"it names key {shown(named)}, a key of neither side of this game"


def sealed_before(state: dict, side: str, need: Need) -> str | None:
    """The opponent that sealed its orders of the sealed step `need` of `side` already, to be
    opened in its next packet (reveal "next", as kkoh's fire plans): its orders are fixed by
    their seals and take effect with `side`'s, so `side` loses nothing by giving its own openly,
    and saves the packet that would open them. None where no side did, and where items are
    opened only as the rules reveal them (kkoh's order chits): the opponent would play the turn
    knowing `side`'s."""
    if not need.sealed or need.side != side or need.reveal != "next":
        return None
    return next((other for other, record in sorted(state["sealed"].items())
                 if other != side and any(item["kind"] == need.kind and item["reveal"] == "next"
                                          for item in record["items"])), None)


def stray(game: Game, packet: dict) -> bool:
    """A packet of another game signed by a key of neither side of this one: that, first of
    all, a file of another game (what a referee meets when a folder holds a stray packet),
    rather than a forgery in a side's name (a new-user probe: audit said only "names key ...,
    which is not german's key", where adjudicate said "a packet of another game"). Nothing
    of this game can be in it: it is refused all the same."""
    return game.secure and packet.get("game") != game.game_id and _side_of_key(game, named_key(packet)) is None


def named_key(packet: dict) -> str | None:
    """The fingerprint of the key a packet says signed it, if it says one."""
    signature = packet.get("signature")
    return signature.get("key") if isinstance(signature, dict) and isinstance(signature.get("key"), str) else None


def _side_of_key(game: Game, fingerprint: str | None) -> str | None:
    return next((name for name, key in sorted(game.public_keys.items()) if key.fingerprint() == fingerprint), None)


def verify_packet(game: Game, state: dict, packet: dict, source: str) -> bytes | None:
    """Every protocol check of DESIGN §2–3 that does not need the rules (exit 3); in a
    secure game, the bytes its signature covers (`packet.signed_bytes`), None in a sandbox.

    The checks of what the packet says (its game, seq, prev, side, openings, turn) come before
    its signature, which they need; but where one fails in a secure game, the signature is
    checked first after all (`signed_as_it_stands`): a packet its claimed side did not sign as
    it stands is said to be that, not read as that side's (probes: a packet whose `side` was
    edited read "packet 5 comes from soviet, but packets alternate", blaming a player who signed
    nothing of the kind; so did one unsigned, or signed by the other side in its name)."""
    check_envelope(packet, source)
    try:
        _verify_said(game, state, packet, source)
    except VerificationError:
        if game.secure and not stray(game, packet):
            signed_as_it_stands(game, packet, source)
        raise
    if game.secure:
        signed = verify_signature(packet, game.public_keys[packet["side"]], packet["side"], source, game.public_keys)
        _verify_reveal(game, state, packet, source)
        return signed     # what the signature covers, for the packet's id
    return None


def _other_state_words(game: Game, packet: dict) -> str:
    """What a `prev` that is not this folder's last state means in a secure game, whose packet
    is signed (checked before this is said): its sender went on from another packet before it
    than this folder applied, a fork if both were signed, and how a referee finds out (a
    spectator following a thread met only two hash prefixes, where audit explains)."""
    seq = packet["seq"]
    if not game.secure or seq < 2:
        return ""
    side, sender = shown(str(packet["side"])), game.sender_of(seq - 1)
    return (f": {side} made packet {seq} on another state {seq - 1}, having applied another packet {seq - 1} than "
            f"this folder did (if {sender} signed two different packets {seq - 1}, a fork: ask {side} for the one it "
            f"applied, and `pbem audit` of a folder holding both, the second saved as NNNN-{sender}.alt.yaml, names "
            f"it, docs/protocol.md §10), or on a state no packet gives")


def signed_as_it_stands(game: Game, packet: dict, source: str) -> None:
    """Raise why the packet is not signed as it stands by the side it claims: not signed, by a
    key of no side, by another side in its name, or altered after its signer signed it (first
    checked by the key it names, so that an edited `side` is said to be an alteration of the
    signer's packet). Nothing if the side it claims is no side of the game: the check that
    failed says so."""
    side = packet.get("side")
    signer = _side_of_key(game, named_key(packet))
    if signer is not None and signer != side:
        verify_signature(packet, game.public_keys[signer], signer, source, game.public_keys)
    if side in game.public_keys:
        verify_signature(packet, game.public_keys[side], side, source, game.public_keys)


def _verify_said(game: Game, state: dict, packet: dict, source: str) -> None:
    """The checks of verify_packet that read what the packet says, before its signature."""
    seq = packet["seq"]
    if packet["game"] != game.game_id:
        raise other_game(game, packet, source)
    if seq != state["seq"] + 1:
        kind = "replays or re-sends an old packet" if seq <= state["seq"] else "skips ahead (a packet is missing)"
        raise VerificationError(f"{source}: packet seq {seq} {kind}: the game is at state {state['seq']} and expects seq {state['seq'] + 1}")
    if packet["prev"] != state["state_hash"]:
        raise VerificationError(f"{source}: `prev` {packet['prev'][:16]}... is not the hash of state {state['seq']} "
                                f"({state['state_hash'][:16]}...){_other_state_words(game, packet)}")
    side = packet["side"]
    if side not in game.sides:
        raise VerificationError(f"{source}: side {shown(side)} is not a side of this game ({', '.join(game.sides)})")
    _verify_seals(game, state, packet, source)
    if not game.secure:
        for name in ("signature", "reveal", "next_chain"):
            if name in packet:
                raise VerificationError(f"{source}: `{name}` has no place in a sandbox game's packet")
        return
    expected = game.sender_of(seq)
    if side != expected:
        raise VerificationError(f"{source}: packet {seq} comes from {side}, but packets alternate and {expected} must send it (docs/protocol.md §7)")
    if "dice" in packet:
        raise VerificationError(f"{source}: `dice` may only be given in a sandbox game")


def chain_in_force(game: Game, state: dict, side: str, seq: int) -> dict:
    """The chain `side`'s packet `seq` reveals from (docs/protocol.md §5): the one in the state
    (`index`, `value`: the last value revealed; `nonce` and `length` once it is not the
    genesis's; `used`: the nonces and anchors of the chains it moved to), or, from the packet
    it takes effect in, the next chain the side announced."""
    chain = state["chains"][side]
    announced = chain.get("next")
    if announced is not None and seq >= announced["from_seq"]:
        used = chain.get("used", []) + [{"nonce": announced["nonce"], "anchor": announced["anchor"]}]
        return {"index": 0, "value": announced["anchor"], "nonce": announced["nonce"], "length": announced["chain_length"],
                "used": used}
    return chain


def chain_length_of(game: Game, chain: dict, side: str) -> int:
    """How many values `chain` (a chain of `side` as chain_in_force gives it) has."""
    return chain.get("length", game.chain_length(side))


NEXT_CHAIN_AFTER = 2    # a chain announced in a side's packet takes effect in its packet after next
NEXT_CHAIN_WHEN_LEFT = 8   # ... announced by a packet after which fewer values than this are left


def _verify_reveal(game: Game, state: dict, packet: dict, source: str) -> None:
    side = packet["side"]
    chain = chain_in_force(game, state, side, packet["seq"])
    reveal = packet.get("reveal")
    if reveal is None:
        raise VerificationError(f"{source}: the packet has no `reveal`; each packet reveals its side's next chain value (docs/protocol.md §5)")
    if reveal["index"] != chain["index"] + 1:
        raise VerificationError(f"{source}: reveal index {reveal['index']} is wrong: {side}'s next chain index is {chain['index'] + 1}")
    length = chain_length_of(game, chain, side)
    if reveal["index"] > length:
        raise VerificationError(f"{source}: {side}'s chain of {length} values is used up")
    if dice.chain_step(bytes.fromhex(reveal["value"])) != bytes.fromhex(chain["value"]):
        what = ("previous chain value" if chain["index"] else
                "anchor in the genesis" if "nonce" not in chain else "anchor of the chain it announced")
        raise VerificationError(f"{source}: the reveal of index {reveal['index']} does not hash to {side}'s {what} (forged reveal)")
    announced = packet.get("next_chain")
    if announced is not None:
        if "next" in chain:
            raise VerificationError(f"{source}: `next_chain`: {side} announced its next chain in packet "
                                    f"{chain['next']['from_seq'] - NEXT_CHAIN_AFTER * len(game.sides)}, and it takes "
                                    f"effect in packet {chain['next']['from_seq']}: one chain is announced at a time "
                                    f"(docs/protocol.md §5)")
        if length - reveal["index"] >= NEXT_CHAIN_WHEN_LEFT:
            raise VerificationError(f"{source}: `next_chain`: {side}'s chain has {length - reveal['index']} values left "
                                    f"after this packet; a next chain is announced when fewer than "
                                    f"{NEXT_CHAIN_WHEN_LEFT} are left (docs/protocol.md §5)")
        nonces, anchors = used_chains(game, state, chain)
        if announced["nonce"] in nonces or announced["anchor"] in anchors | {reveal["value"]}:
            what = "nonce" if announced["nonce"] in nonces else "anchor"
            raise VerificationError(f"{source}: `next_chain` reuses the {what} of a chain of this game, or a value "
                                    f"already revealed; a new chain takes a fresh nonce and anchor, or its values are "
                                    f"ones already revealed (docs/protocol.md §5)")


def used_chains(game: Game, state: dict, chain: dict) -> tuple[set[str], set[str]]:
    """The nonces of every chain of the game so far, either side's: the genesis's, those moved
    to (each side's `used`), one announced (`next`); and the values no new chain may take as its
    anchor: those chains' anchors, and every value revealed of the chains the sides are in
    (walked back from the last, a hash a step, down to the anchor). A side that announced its
    opponent's chain, or a value already out, would reveal values its opponent knew before
    they were due, and an audit would call the dice unforeseeable: a cheaters' probe of
    collusion. (Values of a chain a side has left are gone from the state; two players who
    share their chain values out of band can foresee dice together whatever pbem checks.)
    `chain`: the announcing side's chain in force, which may be one it just moved to."""
    entries = list(game.genesis["sides"]) + chain.get("used", [])
    values = set()
    for record in [r for r in state["chains"].values() if r is not chain] + [chain]:
        entries += record.get("used", []) + ([record["next"]] if "next" in record else [])
        value = bytes.fromhex(record["value"])
        for _ in range(record["index"] + 1):
            values.add(value.hex())
            value = dice.chain_step(value)
    return {entry["nonce"] for entry in entries}, {entry["anchor"] for entry in entries} | values


def _verify_seals(game: Game, state: dict, packet: dict, source: str) -> None:
    """The sender opens exactly the items due (§8): every item of a seal it made in its last
    packet that opens in the next one, and the items the rules reveal now; nothing else,
    each once, in the order they are due, each equal to its seal. Entries after them may open
    items the packet's own orders are to reveal: each names an item of the sender's that the
    rules reveal when asked and equals its seal; that the orders reveal it, in that order, is
    `_open_revealed`'s to check as the packet takes effect."""
    side, opens = packet["side"], packet.get("opens")
    record = state["sealed"].get(side)
    due = record["due"] if record else []
    if opens is not None and len(opens) > len(due):
        if record is None:
            raise VerificationError(f"{source}: `opens` opens sealed orders, but {side} has none sealed")
        _verify_later(game, side, record, opens[len(due):], due, source)
        opens = opens[:len(due)] or None
    if not due:
        return
    items = {item["id"]: item for item in record["items"]}
    by_next = items[due[0]]["reveal"] == "next"
    if opens is None:
        if by_next:
            first = items[due[0]]["id"].split(".")[0]
            raise VerificationError(f"{source}: {side} must open the {len(due)} item(s) it sealed in packet {first} in "
                                    f"this packet, its next one (docs/protocol.md §8)")
        raise VerificationError(f"{source}: {side} must open its sealed item(s) {', '.join(due)} in this packet: the "
                                f"rules reveal them now (docs/protocol.md §8)")
    seen: set[str] = set()
    for entry in opens:
        name = entry.get("seal")
        if name is None:
            continue
        if name in seen:
            raise VerificationError(f"{source}: `opens` opens item {name} twice")
        seen.add(name)
        if name not in items:
            raise VerificationError(f"{source}: `opens` opens item {name}, which {side} has not sealed, or has opened "
                                    f"already")
        if name not in due:
            raise VerificationError(f"{source}: `opens` opens item {name}, which the rules have not revealed; {side} "
                                    f"opens {', '.join(due)} now, and nothing else (docs/protocol.md §8)")
    if len(opens) != len(due):
        if by_next:
            first = due[0].split(".")[0]
            raise VerificationError(f"{source}: {side} sealed {len(due)} item(s) in packet {first} and opens {len(opens)}")
        missing = [name for name in due if name not in seen] if seen else due[len(opens):]
        raise VerificationError(f"{source}: {side} withholds sealed item(s) {', '.join(missing)}, which the rules reveal "
                                f"now: it must open {', '.join(due)} in this packet (docs/protocol.md §8)")
    for entry, name in zip(opens, due):
        if entry.get("seal", name) != name:
            raise VerificationError(f"{source}: `opens` lists item {entry['seal']} where item {name} is due: it lists "
                                    f"the items in the order the rules reveal them ({', '.join(due)})")
        seq, n = name.split(".")
        if not as_sealed(game.game_id, int(seq), side, entry, items[name]["hash"]):
            raise VerificationError(f"{source}: opened item {n} or its salt differs from what {side} sealed in "
                                    f"packet {seq}")


def _verify_later(game: Game, side: str, record: dict, later: list[dict], due: list[str], source: str) -> None:
    """Entries of `opens` after the items due: each names its item, one of `side`'s that the
    rules reveal when asked (`Need.reveal`), not due already, once, and equals its seal."""
    items = {item["id"]: item for item in record["items"]}
    seen: set[str] = set()
    for entry in later:
        name = entry.get("seal")
        if name is None:
            raise VerificationError(f"{source}: `opens` lists more items than the {len(due)} due now, and an item "
                                    f"opened beyond them, which the packet's own orders reveal, is named by its `seal` "
                                    f"(docs/protocol.md §8)")
        if name in seen or name in due:
            raise VerificationError(f"{source}: `opens` opens item {name} twice")
        seen.add(name)
        if name not in items:
            raise VerificationError(f"{source}: `opens` opens item {name}, which {side} has not sealed, or has opened "
                                    f"already")
        if items[name]["reveal"] != "asked":
            raise VerificationError(f"{source}: `opens` opens item {name}, which the rules have not revealed: it opens "
                                    f"in {side}'s packet after the one that sealed it, with the rest of its seal "
                                    f"(docs/protocol.md §8)")
        seq, n = name.split(".")
        if not as_sealed(game.game_id, int(seq), side, entry, items[name]["hash"]):
            raise VerificationError(f"{source}: opened item {n} or its salt differs from what {side} sealed in "
                                    f"packet {seq}")


def _open_revealed(game: Game, state: dict, run: "_Run", side: str, k: int, later: list[dict], index: int,
                   source: str, events: list[dict]) -> tuple[list[dict], int]:
    """§8: where the packet's own orders have brought the game to a step that reveals sealed
    items of its sender's, the packet's next entries of `opens` open them there, all of them,
    in the order the step reveals them (checked against their seals already), queued as its
    orders numbered from `index`; then the game goes on. What is left of `later`, and the
    next index."""
    while later and run.status is not None and run.status["waiting_for"] == "openings" \
            and run.status["need"].side == side:
        queued = {q.get("opened") for q in state["queue"] if q["side"] == side}
        revealed = [name for name in run.status["need"].opens if name not in queued]
        if not revealed:
            break     # (the run takes a queued item before it waits for openings: never met)
        given = [entry["seal"] for entry in later[:len(revealed)]]
        if given != revealed:
            raise VerificationError(f"{source}: `opens` opens {', '.join(given)} where the packet's orders reveal "
                                    f"{side}'s sealed item(s) {', '.join(revealed)}: it opens all of them, in that "
                                    f"order, or none (docs/protocol.md §8)")
        taken, later = later[:len(revealed)], later[len(revealed):]
        _unseal(state, side, revealed)
        events.append({"type": "opened", "text": f"{side} opens the {len(taken)} item(s) its orders revealed: "
                       f"{item_names(revealed)}.", "side": side, "items": revealed})
        _queue_orders(game, state, side, k, [entry["item"] for entry in taken], source, revealed, events,
                      [entry["salt"] for entry in taken], start=index)
        index += len(taken)
        run.resolve(rolls=not game.secure)
    return later, index


# --- applying a packet -----------------------------------------------------------------------

def apply_packet(game: Game, state: dict, packet: dict, source: str, *, verify: bool = True,
                 lookahead: bool = False) -> tuple[dict, list[dict]]:
    """Verify and apply packet k; return state k and the events for its AAR. With `lookahead`,
    the packet is a stand-in (a preview, a foresight): it need not answer the decision its
    side is awaited for, nor give the sealed orders.

    Raises VerificationError (exit 3) or RulesError (exit 1); never partially applies."""
    new, events, _ = replay_packet(game, state, None, packet, source, verify=verify, lookahead=lookahead)
    return new, events


def replay_packet(game: Game, state: dict, content: bytes | None, packet: dict, source: str, *,
                  verify: bool = True, lookahead: bool = False) -> tuple[dict, list[dict], bytes]:
    """`apply_packet`, for a replay of packet after packet (audit): `content` is the canonical
    form of `state` without its hash, as the call that made the state returned it (the state
    unchanged since), or None; the third value returned is that of the new state. Each state's
    canonical form is then made once, for its hash, not again for the copy the next packet is
    applied to."""
    signed = verify_packet(game, state, packet, source) if verify else None
    if content is None:
        new = sorted_copy({k: v for k, v in state.items() if k != "state_hash"})
    else:
        new = json.loads(content)    # the same copy, read back from the canonical form kept
    game.share_strings(new["rules"])
    k, side = packet["seq"], packet["side"]
    events: list[dict] = [{"type": "packet", "text": f"Packet {k} from {side}.", "seq": k, "side": side}]

    # a. The reveal opens segment k (§3.4).
    reveal_prev = bytes.fromhex(new["last_reveal"]) if new["last_reveal"] else None
    reveal_cur = None
    if game.secure:
        chain = dict(chain_in_force(game, new, side, k), **packet["reveal"])
        if "next" in new["chains"][side] and "next" not in chain:
            events.append({"type": "chain", "text": f"{side} reveals the first value of its next dice chain "
                           f"({chain['length']} values), announced in packet {k - NEXT_CHAIN_AFTER * len(game.sides)} "
                           f"(docs/protocol.md §5).", "side": side, "seq": k})
        if "next_chain" in packet:
            chain["next"] = dict(packet["next_chain"], from_seq=k + NEXT_CHAIN_AFTER * len(game.sides))
            events.append({"type": "chain", "text": f"{side} announces its next dice chain "
                           f"({packet['next_chain']['chain_length']} values, anchor "
                           f"{packet['next_chain']['anchor'][:16]}...), which its packet {chain['next']['from_seq']} "
                           f"starts (docs/protocol.md §5).", "side": side, "seq": k})
        new["chains"][side] = chain
        reveal_cur = bytes.fromhex(packet["reveal"]["value"])
        new["last_reveal"] = packet["reveal"]["value"]
    elif "dice" in packet:
        if "script" not in new["dice"]:
            raise VerificationError(f"{source}: `dice` extends a dice script, and this sandbox game rolls from a seed")
        _check_dice(packet["dice"], source)
        new["dice"]["script"].extend(packet["dice"])
    dice_source = _Dice(game, new, k, reveal_prev, reveal_cur)
    run = _Run(game, new, k, dice_source, source, events)

    # b. What was queued before packet k resolves with segment k's dice.
    run.resolve(rolls=True)
    awaited, awaited_seal = _awaited(state, side, "decision"), _awaited(state, side, "sealed orders")
    events.append({"type": "takes-effect", "text": f"Packet {k} from {side} takes effect"
                   + (" (its orders roll no die of this segment)." if game.secure else "."), "seq": k, "side": side})

    # c. Packet k takes effect: policies, openings, orders, seals; no die of segment k.
    if "policies" in packet:
        changed = _set_policies(game.ruleset, new, side, k, packet["policies"], source)
        if changed:   # players' probe: a packet's new standing orders showed in the packet file alone
            events.append({"type": "standing-orders", "side": side, "changes": {key: after for key, _, after in changed},
                           "text": f"{side} changes its standing orders: "
                                   + "; ".join(f"{key} {was} -> {after}" for key, was, after in changed) + "."})
    due = len(state["sealed"].get(side, {}).get("due", []))
    entries, later = packet.get("opens", [])[:due], packet.get("opens", [])[due:]
    items = [entry["item"] for entry in entries]
    opened: list[str] = []
    if items:
        opened = _open(new, side, len(items))
        events.append({"type": "opened", "text": f"{side} opens the {len(items)} item(s) it sealed: "
                       f"{item_names(opened)}.", "side": side, "items": opened})
    salts = [entry["salt"] for entry in entries]
    _queue_orders(game, new, side, k, items + packet["orders"], source, opened, events, salts)
    run.refuse_answers_for_others(side)
    run.resolve(rolls=not game.secure)
    index = len(items) + len(packet["orders"]) + 1
    later, index = _open_revealed(game, new, run, side, k, later, index, source, events)
    if "sealed" in packet:
        # the seal's order is numbered after every item and order of the packet, those already
        # taken too (a cheater's review: numbered after those still queued only, it took the number
        # of an order taken before it, the origin decisions are named by, §7.2); items opened after
        # it, after it (no ruleset reveals its sealer's items between its seal and the next die today)
        run.seal(side, packet["sealed"], index)
        index += 1
        run.resolve(rolls=not game.secure)
        later, index = _open_revealed(game, new, run, side, k, later, index, source, events)
    if later:
        raise VerificationError(f"{source}: `opens` opens item {later[0]['seal']}, which the rules have not revealed, "
                                f"before this packet or by its own orders; an item is opened only when the rules "
                                f"reveal it (docs/protocol.md §8)")
    if awaited is not None and not lookahead:
        run.check_answered(awaited)
    if awaited_seal is not None and not lookahead and "sealed" not in packet:
        run.check_sealed(awaited_seal)

    if dice_source.script is not None:
        new["dice"]["script_used"] = dice_source.script_used
    new["seq"] = k
    new["prev_state"] = state["state_hash"]
    new["packet"] = packet_id(packet, signed)
    new["last_packet"][side] = {"seq": k, "sent": packet.get("sent"), "packet": new["packet"]}
    _set_due(game, new)
    new["awaiting"] = _awaiting(game, new, k, run.status)
    content = canonical({key: value for key, value in new.items() if key != "state_hash"})   # as `state_hash`
    new["state_hash"] = digest_of(DOMAIN_STATE, content)
    return new, events, content


def _open(state: dict, side: str, count: int) -> list[str]:
    """The first `count` items due of `side` are opened (verified): no longer sealed."""
    record = state["sealed"][side]
    opened = record["due"][:count]
    record["due"] = record["due"][count:]
    _unseal(state, side, opened)
    return opened


def _unseal(state: dict, side: str, names: list[str]) -> None:
    """`side`'s items `names`, opened, are no longer sealed (its record goes with its last)."""
    record = state["sealed"][side]
    record["items"] = [item for item in record["items"] if item["id"] not in names]
    if not record["items"]:
        del state["sealed"][side]


def _set_due(game: Game, state: dict) -> None:
    """What each side's next packet must open (§8): every item of a seal that opens in the
    sealer's next packet, and the items the need the game waits for reveals."""
    need = game.next_step(state["rules"])
    for side, record in state["sealed"].items():
        unopened = {item["id"]: item for item in record["items"]}
        due = [item["id"] for item in record["items"] if item["reveal"] == "next"]
        if need is not None and need.opens and need.side == side:
            queued = {q.get("opened") for q in state["queue"] if q["side"] == side}
            for name in need.opens:
                if name in unopened and unopened[name]["reveal"] == "asked":
                    if name not in due:
                        due.append(name)
                elif name not in queued:
                    raise RuntimeError(f"{game.ruleset.id}: the rules reveal {side}'s item {name}, which is not "
                                       f"among its sealed items")
        record["due"] = due
    if need is not None and need.opens and need.side not in state["sealed"]:
        queued = {q.get("opened") for q in state["queue"] if q["side"] == need.side}
        if not set(need.opens) <= queued:
            raise RuntimeError(f"{game.ruleset.id}: the rules reveal {need.side}'s items {', '.join(need.opens)}, but "
                               f"{need.side} has none sealed")


def _awaited(state: dict, side: str, what: str) -> dict | None:
    """What state k-1 waits for from `side` (`what`: "decision", which packet k must answer,
    §2.3; "sealed orders", which packet k must give, §8), or None."""
    awaiting = state["awaiting"]
    if awaiting and awaiting.get("waiting_for") == what and awaiting["need"]["side"] == side:
        return awaiting
    return None


def _check_dice(values: list, source: str) -> None:
    for value in values:
        if type(value) is not int or not 1 <= value <= 6:
            raise VerificationError(f"{source}: scripted dice must be integers 1 to 6, not {value!r}")


def check_orders(game: Game, orders: list, k: int, source: str, awaited: str | None = None, first: int = 1,
                 opened: int = 0) -> list[tuple[dict, str | None]]:
    """Each order of packet k checked by the orders schema, with the decision it names
    split off: [(order, decision key or None)]. Raises RulesError naming the first fault
    (the orders numbered from `first`, behind the `opened` items the packet opens, which
    the message counts out: a player's orders file of one order read "order 14" (a probe));
    `awaited`, the key of the sender's decision the game waits for, is the example a key that
    names no decision is given (a players' probe: an example made of the order's type named a
    kind of decision the ruleset has not, and was accepted, and answered nothing)."""
    from pbem.core.schema import order_errors

    def label(index: int) -> str:
        return f"order {index}" + (f" (its order {index - opened}, behind the {opened} sealed item"
                                   f"{'s' if opened > 1 else ''} the packet opens)" if opened else "")

    checked = []
    for index, order in enumerate(orders, start=first):
        key = None
        if isinstance(order, dict) and "decision" in order:
            order = dict(order)
            key = order.pop("decision")
            match = DECISION_KEY.match(key) if isinstance(key, str) else None
            if match is None or int(match.group(1)) > k:
                # `decision: 3` in a signed packet stopped the opponent's adjudicate with a traceback (a probe)
                written = shown(key if isinstance(key, str) else canonical(key).decode())
                raise RulesError(f"{source}: {label(index)}, field `decision`: {written} does not name a "
                                 f"decision: write ORDER-SEQ.ORDER-INDEX/KIND[/N] of an order sent so far"
                                 + (f", such as \"{awaited}\", your decision the game waits for" if awaited else
                                    " (`pbem orders` writes each answer with the key of its decision)"))
        errors = order_errors(game.ruleset.order_schema, order)
        if errors:
            error = errors[0]
            # numbered from 1, as the orders are: "order 2, field `units`, item 1"
            where = "".join(f", field `{shown(p)}`" if isinstance(p, str) else f", item {p + 1}" for p in error.path)
            raise RulesError(f"{source}: {label(index)}{where}: {shown(error.message)}")
        checked.append((order, key))
    return checked


def awaited_decision(state: dict, side: str) -> str | None:
    """The key of `side`'s decision the game waits for, if it waits for one of `side`'s."""
    awaiting = state["awaiting"]
    if awaiting["waiting_for"] == "decision" and (awaiting["need"] or {}).get("side") == side:
        return awaiting.get("decision")
    return None


# What an opened item that is no order (the orders schema refuses it) is queued as: the ruleset
# voids it as it voids any opened item it refuses (§8).
VOID_ITEM = {"type": "void"}


def _queue_orders(game: Game, state: dict, side: str, k: int, orders: list, source: str,
                  opened: list[str], events: list[dict], salts: list[str] = (), start: int = 1) -> None:
    """Check the packet's orders by schema and add them to the queue as orders of packet k
    (the first ones are the items it opens, each marked with the item's name and salt, which
    reads the dice sealed with it: `_Step.sealed_d6`). An opened item
    the schema refuses is void, not the packet: it is what was sealed and cannot be changed,
    so refusing it would stop the game for good (a cheater's probe: a sealer who sealed an item
    no reader accepts could jam the game at its opening, when it suited him)."""
    queue = state["queue"]
    checked = []
    for index, (item, name) in enumerate(zip(orders, opened), start=start):
        try:
            checked += [(order, None) for order, _ in check_orders(game, [item], k, source, first=index)]
        except RulesError as exc:
            reason = exc.message.removeprefix(f"{source}: order {index}").lstrip(":, ")
            checked.append((dict(VOID_ITEM), None))
            events.append({"type": "void", "text": f"{side}'s sealed item {name} is void: it is no order the rules "
                           f"read ({reason}) (docs/protocol.md §8).", "side": side, "seq": k, "index": index,
                           "rule": "§8", "dropped": 1})
    checked += check_orders(game, orders[len(opened):], k, source, awaited_decision(state, side), len(opened) + 1,
                            len(opened))
    for index, (order, key) in enumerate(checked, start=start):
        item = {"seq": k, "side": side, "index": index, "order": order}
        if index - start < len(opened):
            # an opened item answers the need that revealed it and nothing else (§8): a
            # `decision` it carries is not a name, or a sealer could seal a plan that is
            # opened but never used, and choose another after seeing the opponent's
            item["opened"] = opened[index - start]
            item["salt"] = salts[index - start]
        elif key is not None:
            # A later answer to the same decision replaces the earlier one (§4.3).
            queue[:] = [q for q in queue if not (q["side"] == side and q.get("decision") == key)]
            item["decision"] = key
        queue.append(item)
    mine = sum(1 for item in queue if item["side"] == side)
    if orders and mine > MAX_QUEUED_PER_SIDE:
        raise RulesError(f"{source}: {side} would have {mine} orders queued, over the limit of {MAX_QUEUED_PER_SIDE} "
                         f"(docs/protocol.md §7.1); send fewer orders ahead")


def _set_policies(ruleset: Ruleset, state: dict, side: str, k: int, policies: dict, source: str
                  ) -> list[tuple[str, Any, Any]]:
    """Set a packet's standing orders; the ones it changes, (key, before, after), in key order."""
    from pbem.core import schema

    if not schema.is_valid(ruleset.policy_schema, policies):
        unknown = schema.unknown_keys(ruleset.policy_schema, policies, "standing order", ruleset.id)
        if unknown is not None:
            raise RulesError(f"{source}: `policies`: {shown(unknown)}")
        error = next(iter(schema.validator(ruleset.policy_schema).iter_errors(policies)))
        where = ".".join(str(p) for p in error.path)
        raise RulesError(f"{source}: standing order `policies{'.' + shown(where) if where else ''}`: {shown(error.message)}")
    before = effective_policies(ruleset, state, side)
    values = dict(state["policies"][side]["values"])
    values.update(policies)
    state["policies"][side] = {"seq": k, "values": values}
    return [(key, before.get(key), policies[key]) for key in sorted(policies) if before.get(key) != policies[key]]


def awaited_need(state: dict) -> Need | None:
    """The need a state waits on, as the record the rulesets read."""
    need = state["awaiting"]["need"]
    if need is None:
        return None
    return Need(**{**need, "accepts": tuple(need["accepts"]), "opens": tuple(need.get("opens", ()))})


def standing_answer(game: Game, state: dict) -> dict | None:
    """The answer the awaited side's standing order gives to the decision the state waits for,
    or None. Only a state made from the genesis alone waits for a decision its standing order
    answers: part 2 of the first packet answers it, before that packet's orders (protocol §7),
    so an answer in the packet would come too late."""
    if state["awaiting"]["waiting_for"] != "decision":
        return None
    need = awaited_need(state)
    return game.policy(state["rules"], need, effective_policies(game.ruleset, state, need.side))


def effective_policies(ruleset: Ruleset, state: dict, side: str) -> dict:
    values = dict(ruleset.default_policies)
    values.update(state["policies"][side]["values"])
    return values


def policy_of_side(ruleset: Ruleset, key: str, side: str) -> bool:
    """Whether standing order `key` answers decisions of `side` (Ruleset.policy_sides)."""
    return side in (ruleset.policy_sides or {}).get(key, (side,))


def _queued_words(sides: tuple[str, ...] | list[str], queue: list[dict]) -> str:
    """How many orders are queued, and whose: "9 orders queued (axis 8, soviet 1)"."""
    counts = [(side, sum(1 for item in queue if item["side"] == side)) for side in sides]
    whose = ", ".join(f"{side} {n}" for side, n in counts if n)
    return f"{len(queue)} order{'' if len(queue) == 1 else 's'} queued" + (f" ({whose})" if whose else "")


def decision_key(state: dict, need: Need) -> str:
    """A decision's key: the origin order (seq.index) that caused it, its kind and, from the
    second decision of that kind for the same side and origin on, its ordinal (§4.3)."""
    decisions = state["decisions"]
    n = decisions["answered"].get(f"{need.side}/{need.kind}", 0) + 1
    return f"{decisions['origin']}/{need.kind}" + (f"/{n}" if n > 1 else "")


class _Run:
    """Consumes the queue one step at a time for one packet."""

    def __init__(self, game: Game, state: dict, k: int, dice_source: _Dice, source: str, events: list[dict]):
        self.game, self.state, self.k = game, state, k
        self.dice, self.source, self.events = dice_source, source, events
        self.status: dict | None = None
        self.waited: tuple[str, dict] | None = None   # the step last reported waiting for dice, and that report
        self.answered: list[str] = []   # the decisions orders of packet k answered, in turn (`_not_open`)
        # the sealed step the game waited for dice in as packet k came (side, kind), until another
        # step comes in this packet: an open answer to it, sent before, goes on in it; a later step
        # of its kind is another (a cheater's probe: the next turn's order chits, reached in the
        # same packet, took a stray `end` queued behind such an answer)
        held = state["awaiting"].get("need") or {}
        self.under_way = ((held.get("side"), held.get("kind")) if state["awaiting"].get("waiting_for") == "dice"
                          and held.get("sealed") else None)

    def resolve(self, *, rolls: bool) -> None:
        """Run until the game waits. With `rolls` False, stop before any die (§3.6 c)."""
        ruleset, state = self.game.ruleset, self.state
        while True:
            self._expire_answers()
            need = self.game.next_step(state["rules"])
            if need is None:
                self.status = None
                return
            if self.under_way is not None and self.under_way != (need.side, need.kind):
                self.under_way = None      # that step is over: a later one of its kind is another
            if need.opens:
                # §8: a need that reveals sealed items takes those items, opened, and nothing else
                item = next((q for q in state["queue"] if q["side"] == need.side and q.get("opened") == need.opens[0]),
                            None)
                if item is None:
                    self.status = {"waiting_for": "openings", "need": need}
                    return
                if not self._step(need, None, item, item["order"], "order", rolls):
                    return
                continue
            key = decision_key(state, need) if need.decision else None
            item = self._find(need, key)
            if (need.sealed and item is not None and item["seq"] != self.k and "opened" not in item
                    and item["order"].get("type") != "sealed" and self.under_way != (need.side, need.kind)):
                # §8: an open order queued in an earlier packet never answers sealed orders: it met
                # a step no one could foresee when it was sent (a players' probe: an `end` left
                # queued when a kkoh bombardment step closed by itself became the next turn's order
                # chits, read by the opponent before he sealed his own). The step waits for the seal;
                # open orders answer it only as their sender chose (`--no-seal`): those of packet k,
                # and those of the packet that answered it openly and wait for dice in it.
                self._illegal(need, item, IllegalOrder(
                    need.rule, f"{need.side}'s {need.kind} are sealed orders, and an open order queued in an earlier "
                    f"packet never answers them (docs/protocol.md §8)"))
                continue
            if item is not None and "decision" in item and item["order"].get("type") not in need.accepts:
                self._illegal(need, item, IllegalOrder(need.rule, f"decision {key} takes {', '.join(need.accepts)}",
                                                       list(need.accepts)))
                continue
            if item is not None and (item["order"].get("type") in need.accepts or "opened" in item):
                # an opened item goes to the ruleset whatever it is, which voids what it refuses
                # (§8: refused, it would refuse its opening packet, and no other opening verifies)
                order, chosen_by = item["order"], "order"
            elif item is not None and not need.decision:
                self._illegal(need, item, IllegalOrder(need.rule, need.waits_for(), list(need.accepts)))
                continue
            elif need.decision:
                item = None
                order = self.game.policy(state["rules"], need, effective_policies(ruleset, state, need.side))
                chosen_by = "policy"
                if order is None:
                    self.status = {"waiting_for": "decision", "need": need, "decision": key}
                    return
            else:
                self.status = {"waiting_for": "sealed orders" if need.sealed else "orders", "need": need}
                return
            if item is not None and "decision" in item and item["seq"] == self.k:
                self.answered.append(item["decision"])
            if not self._step(need, key, item, order, chosen_by, rolls):
                return

    def _not_open(self, item: dict) -> str:
        """Why an answer of packet k names a decision that is not open: where an earlier answer
        of the same packet closed the decisions of that order, that this one never came after it
        (a players' probe: the template listed a second retreat of a combat, worked out from its
        default answer to the first; another answer to the first left one path to the second,
        which was then taken without asking); else that it was answered already or never came."""
        origin = item["decision"].split("/", 1)[0]
        before = next((key for key in self.answered if key.split("/", 1)[0] == origin), None)
        if before is None:
            return "it was answered already, or never came (docs/protocol.md §7.2)"
        return (f"it never came after this packet's answer to decision {before}: the decisions `pbem orders` lists "
                f"after an open one are worked out from the answers it fills in, and another answer may leave a later "
                f"one with a single option, taken without asking, or none (docs/protocol.md §7.2); leave it out")

    def _step(self, need: Need, key: str | None, item: dict | None, order: dict, chosen_by: str, rolls: bool) -> bool:
        """Apply one order; False when the run must stop here for dice."""
        state = self.state
        opened, salt = (item.get("opened"), item.get("salt")) if item is not None else (None, None)
        step = _Step(self.dice, rolls, chosen_by, opened, salt)
        snapshot = self.dice.snapshot()
        # The ruleset works on the rules in place; they are kept to put them back should the step fail.
        saved = keep(state["rules"])
        try:
            self.game.apply(state["rules"], need, order, step)
        except DiceNotYet:
            state["rules"] = put_back(saved)
            self.dice.restore(snapshot)
            # the order (or the standing order's answer) is decided; what it sets off needs dice
            what = (f"{item['side']} order {item['index']} of packet {item['seq']} ({order_text(order)}) needs dice"
                    if item is not None else
                    f"{need.side}'s standing order answers {need.kind} ({order_text(order)}), and what follows needs dice")
            if self.waited is not None and self.waited[0] == what:   # the same step, tried again as the packet
                self.events[:] = [e for e in self.events if e is not self.waited[1]]   # took effect: said once
            queued = len(state["queue"])
            event = {"type": "waiting", "text": f"{what}: it resolves when the next packet reveals the next dice value "
                     f"(docs/protocol.md §7); {_queued_words(self.game.ruleset.sides, state['queue'])}.", "queued": queued}
            self.events.append(event)
            self.waited = (what, event)
            self.status = {"waiting_for": "dice", "need": need, "decision": key}
            return False
        except IllegalOrder as exc:
            state["rules"] = put_back(saved)
            self.dice.restore(snapshot)
            if item is None:
                raise RulesError(f"{self.source}: {need.side}'s standing orders gave an illegal answer to {need.kind}: "
                                 f"{with_rule(exc.message, exc.rule)}") from None
            self._illegal(need, item, exc)
            return True
        decisions = state["decisions"]
        if need.decision:
            counter = f"{need.side}/{need.kind}"
            decisions["answered"][counter] = decisions["answered"].get(counter, 0) + 1
        elif item is not None:
            decisions["origin"] = f"{item['seq']}.{item['index']}"
            decisions["answered"] = {}
        if item is not None:
            state["queue"].remove(item)
            label = f"{item['side']} order {item['index']} of packet {item['seq']}"
            self.events.append({"type": "order", "text": f"{label}: {order_text(order)}"
                                + (f" (answers decision {key})" if need.decision else ""), "side": item["side"],
                                "seq": item["seq"], "index": item["index"], "order": order,
                                **({"decision": key} if need.decision else {}),
                                **({"opened": item["opened"]} if "opened" in item else {}),
                                # given openly where the rules ask for sealed orders (§8): `pbem submit`
                                # refuses it without --no-seal
                                **({"open_at_sealed": True} if need.sealed and "opened" not in item
                                   and order.get("type") != "sealed" else {})})
        else:
            self.events.append({"type": "policy", "text": f"{need.side}'s standing order answers {need.kind} "
                                f"(decision key {key}): {order_text(order)}", "side": need.side, "kind": need.kind,
                                "decision": key, "order": order})
        self.events.extend(step.events)
        return True

    def _find(self, need: Need, key: str | None) -> dict | None:
        """The queued order that answers `need`: for a decision, the answer named for it, or
        the side's next unnamed order (also an answer from a later packet waiting behind
        orders of earlier packets); for a phase, the side's next unnamed order. (Before
        packet k takes effect, its orders are not in the queue yet.)"""
        # passes that stop where the answer is, building no list (the queue holds a whole
        # packet's orders, and this runs before each of them)
        queue, side = self.state["queue"], need.side
        if key is not None:
            named = next((item for item in queue if item["side"] == side and item.get("decision") == key), None)
            if named is not None:
                return named
        plain = (item for item in queue if item["side"] == side and "decision" not in item)
        first = next(plain, None)
        if first is None or not need.decision or first["order"].get("type") in need.accepts:
            return first
        for item in plain:
            if item["seq"] != first["seq"]:
                return item if item["order"].get("type") in need.accepts else first
        return first

    def _expire_answers(self) -> None:
        """An answer named for a decision whose order has been resolved (or was never sent,
        or was dropped) is void: its decision can no longer come (§4.3)."""
        queue = self.state["queue"]
        named = [item for item in queue if "decision" in item]
        if not named:
            return
        live = {f"{item['seq']}.{item['index']}" for item in queue if "decision" not in item}
        decisions = self.state["decisions"]
        live.add(decisions["origin"])
        for item in named:
            origin = item["decision"].split("/", 1)[0]
            if origin == decisions["origin"] and _answered(decisions, item["side"], item["decision"]):
                # Its decision came and was answered (by the standing order, before this
                # packet's orders took effect, protocol §7 part 2): it can never come again.
                if item["seq"] == self.k:
                    raise RulesError(f"{self.source}: order {item['index']} ({order_text(item['order'])}) answers "
                                     f"decision {item['decision']}, which was answered already, before this "
                                     f"packet's orders took effect (by an answer queued for it, or by "
                                     f"{item['side']}'s standing order: docs/protocol.md §7 part 2, §7.3); send "
                                     f"the packet without it")
                queue.remove(item)
                self.events.append({"type": "void", "text": f"{item['side']} order {item['index']} of packet "
                                    f"{item['seq']} ({order_text(item['order'])}) is void: its decision "
                                    f"{item['decision']} was already answered.", "side": item["side"],
                                    "seq": item["seq"], "index": item["index"], "rule": "§4.3", "dropped": 1})
                continue
            if origin not in live:
                if item["seq"] == self.k:
                    raise RulesError(f"{self.source}: order {item['index']} ({order_text(item['order'])}) answers "
                                     f"decision {item['decision']}, which is not open: {self._not_open(item)}; "
                                     f"{self._open_now(item['side'])}")
                queue.remove(item)
                self.events.append({"type": "void", "text": f"{item['side']} order {item['index']} of packet "
                                    f"{item['seq']} ({order_text(item['order'])}) is void: its decision "
                                    f"{item['decision']} never came.", "side": item["side"], "seq": item["seq"],
                                    "index": item["index"], "rule": "§4.3", "dropped": 1})

    def _open_now(self, side: str) -> str:
        """Which decision of `side` is open now, as a player names it in an answer; the game
        asks one thing at a time, so there is one at most."""
        need = self.game.next_step(self.state["rules"])
        key = decision_key(self.state, need) if need is not None and need.decision and need.side == side else None
        status = self.status or {}
        # a decision whose answer waits for its dice is answered already
        if key is None or status.get("waiting_for") == "dice" and status.get("decision") == key:
            return f"no decision of {side} is open now: leave the answer out"
        return f"the one open now is {key}: write `decision: \"{key}\"`"

    def _illegal(self, need: Need, item: dict, exc: IllegalOrder) -> None:
        """An illegal order of this packet rejects it; one of an earlier packet is void (§4.4)."""
        said = exc.message if exc.message == need.waits_for() else ""   # a need's words that list the legal already
        if item["seq"] == self.k:
            # the rule once: some rulesets' messages cite it already
            legal = refused_legal(exc.legal if exc.offer is None else exc.offer, said)
            # an order of a later phase, refused where the phase before it is open: say how to
            # reach that phase in the same packet (a players' probe: a move in the attack phase)
            later = (said and "end" in need.accepts and isinstance(item["order"], dict)
                     and item["order"].get("type") not in need.accepts)
            raise RulesError(f"{self.source}: order {item['index']} ({order_text(item['order'])}) is illegal: "
                             f"{with_rule(shown(exc.message), exc.rule)}"
                             + ("; for a later phase, put an `end` of this one before it" if later else "") + "."
                             + (f"\nLegal now: {legal}" if legal else ""))
        legal = _legal_text(exc.legal, said)
        queue, side = self.state["queue"], item["side"]
        policy = effective_policies(self.game.ruleset, self.state, side).get("on_void", "stop")
        if "decision" in item or policy == "skip":
            queue.remove(item)
            dropped = 1
            then = "the standing order answers instead" if "decision" in item else "its next order follows"
        else:
            kept = [entry for entry in queue if entry["side"] != side or "decision" in entry]
            gone = [entry for entry in queue if entry is not item and entry not in kept]
            dropped = len(queue) - len(kept)
            queue[:] = kept
            # which orders are gone, by number (the player reads them in his packets)
            then = (f"its queued {numbers(gone)} {'is' if len(gone) == 1 else 'are'} dropped too (standing order "
                    f"on_void: stop)" if gone else "")
        legal_then = f"; legal then: {legal}" if legal else ""
        self.events.append({"type": "void", "text": f"{side} order {item['index']} of packet {item['seq']} "
                            f"({order_text(item['order'])}) is void: {with_rule(shown(exc.message), exc.rule)}{legal_then}"
                            + (f"; {then}." if then else "."), "side": side, "seq": item["seq"], "index": item["index"],
                            "rule": exc.rule, "dropped": dropped})

    def seal(self, side: str, hashes: list[str], index: int) -> None:
        """Packet k seals items: only where the rules ask this side for sealed orders now. The
        ruleset is told of it as the side's order numbered `index`, after the packet's others."""
        need = self.game.next_step(self.state["rules"])
        if need is None or not need.sealed or need.side != side:
            asked = "nothing" if need is None else f"{need.side}'s {need.kind}"
            raise RulesError(f"{self.source}: the packet seals {len(hashes)} item(s), but the rules ask for no sealed "
                             f"orders from {side} now (the game waits for {asked})")
        if need.reveal not in ("next", "asked"):
            raise RuntimeError(f"{self.game.ruleset.id}: a sealed need reveals its items \"next\" or \"asked\", "
                               f"not {need.reveal!r}")
        record = self.state["sealed"].setdefault(side, {"items": [], "due": []})
        over = [item["id"] for item in record["items"] if item["kind"] == need.kind]
        if over:
            # §8: a side cannot seal again over an unopened seal of the same orders
            raise RulesError(f"{self.source}: {side} seals its {need.kind} again while item(s) {', '.join(over)} it "
                             f"sealed before are unopened; a side cannot seal again over an unopened seal (docs/protocol.md §8)")
        names = [seal_id(self.k, n) for n in range(1, len(hashes) + 1)]
        record["items"] += [{"id": name, "hash": value, "kind": need.kind, "reveal": need.reveal}
                            for name, value in zip(names, hashes)]
        when = ("to be opened in its next packet" if need.reveal == "next"
                else "each to be opened when the rules reveal it")
        self.events.append({"type": "sealed", "text": f"{side} seals {len(hashes)} item(s) ({item_names(names)}), "
                            f"{when}.", "side": side, "items": len(hashes), "ids": names})
        # The ruleset learns of the seal as the side's next order, so that a step it starts
        # and that needs dice waits for them like any other (§7 part 3).
        order = {"type": "sealed", "items": len(hashes)}
        if need.reveal == "asked":
            order["seq"] = self.k
        queue = self.state["queue"]
        queue.insert(next((i for i, q in enumerate(queue) if q["side"] == side), len(queue)),
                     {"seq": self.k, "side": side, "index": index, "order": order})

    def refuse_answers_for_others(self, side: str) -> None:
        """Answers in packet k apply only to decisions of its own side (§3.6): one named for
        the other side's decision that the game waits for is refused."""
        status = self.status
        if not status or not status.get("decision") or status["need"].side == side:
            return
        for item in self.state["queue"]:
            if item["seq"] == self.k and item.get("decision") == status["decision"]:
                raise RulesError(f"{self.source}: order {item['index']} ({order_text(item['order'])}) answers "
                                 f"{status['need'].side}'s decision {status['decision']}; a packet answers only its own "
                                 f"side's decisions (docs/protocol.md §7)")

    def check_answered(self, awaited: dict) -> None:
        """A packet from the side whose decision is awaited must answer it (§2.3): the
        decision is behind the game, or an answer of this packet waits for its dice."""
        status = self.status
        if not status or status.get("decision") != awaited.get("decision") or status["need"].side != awaited["need"]["side"]:
            return
        need = status["need"]
        item = self._find(need, status["decision"])
        if item is not None and item["seq"] == self.k and item["order"].get("type") in need.accepts:
            return
        # its legal orders, as the key to name them by (a players' probe: a mistyped key was told to
        # give "one of its legal orders", and none was named)
        legal = refused_legal(self.game.legal_orders(self.state["rules"], need))
        raise RulesError(f"{self.source}: packet {self.k} does not answer the decision {need.side} is awaited for: "
                         f"{need.prompt} (decision {status['decision']}); give one of its legal orders, with "
                         f"`decision: \"{status['decision']}\"` (docs/protocol.md §7.2)"
                         + (f"\nLegal now: {legal}" if legal else ""))


    def check_sealed(self, awaited: dict) -> None:
        """A packet from the side whose sealed orders are awaited must seal them (§8). Were an
        empty packet enough, the side that seals second could stall until its opponent's
        packet had to open what it sealed first, and then answer that plan knowing it
        (a cheater's probe: the simultaneous fire plans of kkoh read before one's own)."""
        status = self.status
        if not status or status.get("waiting_for") != "sealed orders" or status["need"].side != awaited["need"]["side"]:
            return
        need = status["need"]
        raise RulesError(f"{self.source}: packet {self.k} does not seal the orders {need.side} is awaited for: "
                         f"{need.prompt}; seal them (`pbem submit --seal`), for the opponent's seal opens only after "
                         f"this one is made (docs/protocol.md §8)")


def _answered(decisions: dict, side: str, key: str) -> bool:
    """Whether `side`'s decision `key` (of the current origin) has been answered already: the
    decisions of its kind answered since the origin reach its ordinal."""
    match = DECISION_KEY.match(key)
    ordinal = int(match.group(5)) if match.group(5) else 1
    return decisions["answered"].get(f"{side}/{match.group(3)}", 0) >= ordinal


def _legal_text(legal: Any, message: str = "") -> str:
    """What would be legal, in words; nothing when `message` is a need's "the game waits for
    PROMPT" that names every order type of the list already ("...: move, rail, then end")."""
    if legal is None:
        return ""
    if (isinstance(legal, list) and legal and message.startswith(WAITS_FOR)
            and all(isinstance(x, str) and names(message, x) for x in legal)):
        return ""
    if isinstance(legal, list):
        shown_ = [shown(x) if isinstance(x, str) else order_text(x) for x in legal[:12]]
        return "; ".join(shown_) + (f"; ... ({len(legal)} in all)" if len(legal) > 12 else "")
    return shown(str(legal))


def refused_legal(legal: Any, message: str = "") -> str:
    """What would be legal, for the refusal of an order: an option that is no value (no
    artillery) said as the orders file writes it, `null`, not as Python's None (players'
    probe). Void lines in reports keep their words (`_legal_text`)."""
    return _legal_text([x if x is not None else "null" for x in legal] if isinstance(legal, list) else legal, message)


def order_text(order: Any) -> str:
    if not isinstance(order, dict):
        return shown(repr(order))
    parts = [_value_text(order.get("type", "?"))]
    parts += [f"{_value_text(key)}={_value_text(order[key])}" for key in sorted(order) if key != "type"]
    return " ".join(parts)


def _value_text(value: Any) -> str:
    """A value of an order in words: an empty list and null are "none" ("support=none", not
    "support=", which reads as a value left out; "to=none", not Python's "None"), booleans
    as YAML writes them."""
    if type(value) is str:    # most values: ids, hexes, choices
        return shown(value)
    if value is None or value == []:
        return "none"
    if value is True or value is False:   # as the packet's YAML writes them
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        return "{" + " ".join(f"{_value_text(k)}={_value_text(v)}" for k, v in sorted(value.items())) + "}"
    return shown(str(value))


def _awaiting(game: Game, state: dict, k: int, status: dict | None) -> dict:
    """Who sends the next packet and what the engine waits for (DESIGN §2.4)."""
    need = game.next_step(state["rules"])
    if need is None:
        return {"packet_from": None, "waiting_for": "nothing: the game is over", "need": None}
    packet_from = game.sender_of(k + 1) if game.secure else need.side
    if status is not None:
        waiting_for = status["waiting_for"]
    else:
        waiting_for = ("openings" if need.opens else "decision" if need.decision
                       else "sealed orders" if need.sealed else "orders")
    awaiting = {"packet_from": packet_from, "waiting_for": waiting_for, "need": need.as_dict()}
    if need.decision:
        awaiting["decision"] = decision_key(state, need)
    if waiting_for == "decision":
        options = game.legal_orders(state["rules"], need)
        awaiting["options"] = options[:MAX_OPTIONS_IN_STATE]
        awaiting["options_total"] = len(options)
    return awaiting
