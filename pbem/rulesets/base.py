"""The contract between the core engine and a ruleset (DESIGN §4).

A ruleset is one `Ruleset` record of data and pure functions. It owns the board: its
state (`rules`) is a plain JSON-like dict (str keys; str, int, bool, None, list, dict
values; no floats, no tuples, no sets) that the core stores in every state file. The
core owns the flow context: sequence numbers, chains, dice segments, the order queue.

The flow is a state machine kept inside `rules`. The core drives it one step at a time:

    need = ruleset.next_step(rules)        # what the game waits for now, or None if over
    ruleset.apply(rules, need, order, ctx) # consume one order answering that need

`apply` mutates `rules` in place. The core keeps a serialised copy of the rules before
each step and puts it back if `apply` raises (an illegal order, or dice that may not be
rolled yet), so a step is atomic. `apply` must therefore never keep references to
`rules` anywhere else, and must derive everything from `rules`,
`need`, `order` and `ctx` alone (no clock, no environment, no `random`, sorted iteration).

An order is a dict with a `type` key. A `Need` names the order types that answer it
(`accepts`). A need whose kind is a phase (for example "german-movement") usually accepts
several action types plus `{"type": "end"}` to close the phase; a decision (for example
"loss-allocation") accepts one answer type. When no queued order answers a decision,
`policy` may answer it from the side's standing orders.
"""

from __future__ import annotations

import json
from types import MappingProxyType

from pbem.core.record import Record
from pbem.core.text import names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Protocol


class IllegalOrder(Exception):
    """An order the rules forbid.

    `rule` is the rule section it breaks ("10.3", "house 4.2"), `message` one sentence
    in the player's language, `legal` a short description of what would be legal
    (or a list of legal alternatives). `offer`, where given, is what the refusal of the
    sender's own order offers instead of `legal`: a void line in a report keeps `legal`,
    whose words are bound to the ruleset's version (an audit compares them byte for byte)."""

    def __init__(self, rule: str, message: str, legal: Any = None, offer: Any = None):
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.legal = legal
        self.offer = offer


# How a need's IllegalOrder message begins (Need.waits_for): the core leaves out a list of
# legal order types that such a message names already.
WAITS_FOR = "the game waits for "


def never_taken(item: dict, why: str, typed: bool = False) -> str:
    """A `cautions` sentence for a queued order (`item` of the queue, named with its type if
    `typed`) that no state of the game can take, and `why`: it would be void when the game
    reaches it, and its sender would read so only in his opponent's report."""
    kind = f" ({item['order'].get('type')})" if typed else ""
    return (f"order {item['index']} of packet {item['seq']}{kind} waits in the queue, but the game can never take it: "
            f"{why}; it will be void when the game reaches it")

# Read by the core (DESIGN §4.4): after a void order, stop the side's queued orders and ask
# for new ones, or skip to its next order. Every ruleset's standing orders include it.
ON_VOID = ["stop", "skip"]


def standing_orders(ruleset_id: str, choices: dict[str, list[str]]) -> tuple[dict, dict]:
    """The policy schema and the default standing orders of a ruleset, from each standing
    order's choices (the first is the default), with the core's `on_void` added."""
    choices = {**choices, "on_void": ON_VOID}
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{ruleset_id}: a side's standing orders",
        "type": "object",
        "properties": {key: {"enum": list(values)} for key, values in choices.items()},
        "additionalProperties": False,
    }
    return schema, {key: values[0] for key, values in choices.items()}


class Need(Record):
    """What the flow waits for: an order from `side` of one of the types in `accepts`."""

    side: str
    kind: str                 # phase or decision kind, e.g. "soviet-movement", "retreat"
    prompt: str               # one line for `pbem status` / `pbem orders`
    accepts: tuple[str, ...]  # order types that answer this need
    rule: str = ""            # rule section that asks for it
    decision: bool = False    # True for a decision a standing order may answer
    sealed: bool = False      # True where the rules ask this side for sealed orders (§3):
                              # its packet seals them and the core applies {"type": "sealed",
                              # "items": n} (with "seq": the sealing packet, when `reveal` is
                              # "asked", so that the ruleset can name each item "SEQ.N")
    reveal: str = "next"      # of a sealed need: "next": the sealer's next packet opens every
                              # item, queued as ordinary orders; "asked": each item stays sealed
                              # until a need names it in `opens`
    opens: tuple[str, ...] = ()  # the side's sealed items ("SEQ.N") the rules reveal now: its next
                              # packet must open exactly these, and the core answers this need
                              # with them, one at a time, in this order (`ctx.opened` names each)

    def waits_for(self) -> str:
        """"the game waits for PROMPT", with the order types it takes unless the prompt names
        them all already (a void order's report line once listed them three times)."""
        prompt = self.prompt.rstrip(".")
        named = bool(self.accepts) and all(names(prompt, kind) for kind in self.accepts)
        return f"{WAITS_FOR}{prompt}" + ("" if named else f", which takes {', '.join(self.accepts) or 'no order'}")

    def as_dict(self) -> dict:
        need = {
            "side": self.side,
            "kind": self.kind,
            "prompt": self.prompt,
            "accepts": list(self.accepts),
            "rule": self.rule,
            "decision": self.decision,
            "sealed": self.sealed,
        }
        if self.reveal != "next":
            need["reveal"] = self.reveal
        if self.opens:
            need["opens"] = list(self.opens)
        return need


if TYPE_CHECKING:
    # what the core lends a ruleset's `apply`, named for type checkers: nothing checks it at
    # run time, and building a Protocol would import `typing` (pbem/core/record.py)
    class Context(Protocol):
        """What the core lends a ruleset while it applies one order."""

        def d6(self, label: str) -> int:
            """Roll one die from the labelled sub-stream (DESIGN §3.5). The label must come
            from the position in the game flow only (turn, phase, ordinal of the combat),
            never from text a player wrote. The core records a `roll` event itself and
            returns the value; it may raise an exception the ruleset must let through
            (dice not yet available: the step is rolled back and retried later)."""

        def pick(self, label: str, among: int) -> int:
            """A uniform random pick of 0 .. among-1 from the labelled sub-stream (DESIGN §3.5):
            a draw from a pool the rules make at this point (an untried unit's strength, a
            random set-up selection), from the remaining pool, in the segment in which the
            rules make it. Labels, events and rollbacks as for `d6`."""

        def sealed_draw(self, label: str) -> dict:
            """A die drawn now, as `d6` would roll it, but sealed with a sealed item (docs/protocol.md
            §8): kkoh's order-chit test, which its owner knows and the opponent must not until the
            chit is revealed (K-ORD-4). Returns what makes the die, for the ruleset to keep in the
            state (it holds no value a reader could use) and to read at the item's opening with
            `sealed_d6`; raises as `d6` does."""

        def sealed_d6(self, draw: dict) -> int:
            """At the opening of a sealed item (`opened`), the die a `sealed_draw` made, read with
            the item's salt that the opening made public; the core records the `roll` event."""

        def event(self, type: str, text: str, **fields: Any) -> None:
            """Record a structured event for the after-action report. `text` is one
            human-readable sentence; `fields` are JSON-like values for machines. Cite the
            rule in `fields["rule"]`, and say `house_rule=True` for rules not from the source."""

        @property
        def chosen_by(self) -> str:
            """"order" if a player's queued order is being applied, "policy" if a standing
            order answered the decision (so the AAR can say which)."""

        @property
        def opened(self) -> str | None:
            """The sealed item ("SEQ.N") whose opening is being applied, or None for any other
            order: only the core sets it, so a ruleset knows an item is the one that was sealed."""


class Ruleset(Record):
    """The declared record of one game system (STYLE 1).

    What the genesis determines — map, terrain, tables, the fixed attributes of units,
    neighbours and costs worked out in advance — is the ruleset's *scenario*: built by
    `scenario` from the scenario document and the options once per process (the core
    caches it), never changed, never stored in a state. Every function below gets it
    first; the rules state holds only what play changes (DESIGN §2.4, §4.2)."""

    id: str
    version: str
    title: str
    sides: tuple[str, ...]                   # packet order: sides[0] sends packet 1
    scenarios: Mapping[str, Callable[[], dict]]  # bundled scenario name -> loader
    default_scenario: str
    options: Mapping[str, Any]               # optional rules and their defaults
    order_schema: dict                       # JSON Schema of one order (a dict with "type")
    policy_schema: dict                      # JSON Schema of a side's standing orders
    default_policies: Mapping[str, Any]      # standing orders in force unless changed

    # (scenario document, options with their defaults) -> the scenario object; raises
    # ValueError for a document it cannot set up
    scenario: Callable[[dict, dict], Any]
    # scenario -> initial rules state (state 0); rolls no die
    setup: Callable[[Any], dict]
    # scenario, rules -> the Need the game waits for, or None when the game is over
    next_step: Callable[[Any, dict], Need | None]
    # consume one order (mutates rules); raises IllegalOrder
    apply: Callable[[Any, dict, Need, dict, Context], None]
    # scenario, rules, need -> the legal orders for that need, concrete and finite, "end" included:
    # every one, or, where there are too many to enumerate (a phase's moves of every unit to every
    # hex), a representative set of them, every one legal (the bots and tests choose among them)
    legal_orders: Callable[[Any, dict, Need], list[dict]]
    # scenario, rules, need, the side's policies -> the order a standing order gives, or None
    policy: Callable[[Any, dict, Need, dict], dict | None]
    # scenario, rules -> {"turn": .., "phase": .., "vp": {...}, "result": str|None, ...} for status;
    # optional words for `pbem status` (core/describe.py): "now" (turn and phase as the rulebook
    # says them), "score" (VP as the rulebook counts them), "decision" (the decision awaited)
    summary: Callable[[Any, dict], dict]
    # scenario, rules -> the board as plain text (for `pbem show`)
    render: Callable[[Any, dict], str]
    # scenario, rules, need -> YAML comment lines explaining the legal options (for `pbem orders`)
    describe_need: Callable[[Any, dict, Need], list[str]] = lambda scenario, rules, need: []
    # scenario, rules, events -> a scene of geometry-level primitives that core/render
    # draws (DESIGN §4.2: no ruleset writes SVG); None while a ruleset has no picture
    draw: Callable[[Any, dict, list[dict]], Any] | None = None
    # the few heuristics the core's bots need to play this ruleset on purpose (what a good
    # attack or a threatened area is; DESIGN §4.2): a `Heuristics` record; None: the core's
    # bots fall back to their generic heuristic (pbem.core.bots)
    bot: Any = None
    # `pbem show` beyond `render`, which only prints the whole board: a description of one
    # thing and the changes between two states need the ruleset's knowledge of its board.
    # scenario, rules -> the board as data (core/describe.py): {"units": {id: {"side", "where",
    # "status", "strength", "full", "markers"}}, "control": {place: side}, "facts": [[label,
    # value]], "statuses": {status: words}, "now": words, "strength_in": the noun strength is counted
    # in, "strength point" if absent}; None: `--diff` compares summaries only
    view: Callable[[Any, dict], dict] | None = None
    # scenario, rules, what ("unit", "hex", "area", "square"), id -> lines telling everything about
    # that one thing (`pbem show --unit/--hex/--area/--square`); raises ValueError, one sentence, for an
    # unknown id or a kind of thing the ruleset has not; None: the ruleset describes nothing alone
    look: Callable[[Any, dict, str, str], list[str]] | None = None
    # `look` in a folder whose private/ keeps its player's own items still sealed: scenario, rules,
    # what, id, {side: {item name: item}} -> the lines of `look`, with what those items say of that
    # thing, for its owner's eyes (kkoh: the chit a unit's group sealed); None: `look` alone
    look_own: Callable[[Any, dict, str, str, dict], list[str]] | None = None
    # scenario, rules, the sealed need, the orders a side means to seal -> the items it seals
    # (`pbem submit --seal` and the random planner): where each item is to be revealed alone,
    # the ruleset arranges them (kkoh: one order chit for each group, in order); raises
    # IllegalOrder for orders it cannot arrange; None: the orders are the items
    seal_items: Callable[[Any, dict, Need, list[dict]], list[dict]] | None = None
    # True where the rules ever ask a side for sealed orders (a Need with `sealed`): `pbem submit`
    # then looks where a packet without --seal goes, and refuses orders that would answer a sealed
    # step open; False spares every other ruleset's packets that look
    sealed_steps: bool = False
    # the orders `pbem orders` lists, where they differ from `legal_orders` (a representative
    # set, or one the bots should not be offered). scenario, rules, need, a unit, hex or order
    # type or None -> (orders, note): given one, every legal order that names it (a unit's moves
    # to every hex it can reach, its set-up hexes); else the listed set. note: a sentence saying
    # what the list leaves out, or why the unit named has no order, or None. None: the template
    # lists `legal_orders`
    listing: Callable[[Any, dict, Need, str | None], tuple[list[dict], str | None]] | None = None
    # `pbem orders` for the player whose private/ keeps his own items still sealed: scenario,
    # rules, need, {item name: item} of his side -> (note, [(about, orders)]): what those items,
    # once the rules reveal them, let him order in this step, as groups of orders each after a
    # sentence `about`, and a sentence before them all (None: nothing to say); a group's first
    # order is the one the others need first, listed with any of them that `--only` names (kkoh:
    # each sealed group's `show`, then its moves and assaults). None: nothing
    sealed_listing: Callable[[Any, dict, Need, dict], tuple[str | None, list[tuple[str, list[dict]]]]] | None = None
    # scenario, rules after a packet, its events, the sender's side, the packet's orders still
    # queued (items with "seq", "index", "order"), the sender's standing orders in force ->
    # what the sender should know before sending it on, beyond the report (`pbem submit`
    # warns): a legal packet that costs the sender units by a rule easily overlooked (an
    # over-stacked hex whose excess the end of the phase eliminates), a queued order that can
    # never be taken (an id of no unit), or that the sender's own standing order may void
    # before it (chir: an advance after combat); None: nothing
    cautions: Callable[[Any, dict, list[dict], str, list[dict], dict], list[str]] | None = None
    # scenario, rules -> None: puts in the rules, for strings equal to ones the scenario holds
    # (ids of units and places), the scenario's own objects; no value changes. The engine calls
    # it on the copy of the rules it applies a packet to, once per packet, read back from JSON
    # with strings of its own, and the random planner on its copy (pbem/core/bot.py): a lookup
    # of a key that is the dict's own object, and a comparison of a tuple of the same objects,
    # skip comparing characters (dos reads where its units are some 700 times a packet).
    # None: the rules keep the strings JSON gives them
    share_strings: Callable[[Any, dict], None] | None = None
    # standing order key -> the sides whose decisions it answers, where the ruleset fixes them
    # and they are not every side's (dos: `rail_clearing` is the Axis player's, 6.42; not kkoh's
    # `soviet_hold`, whose side each scenario's doctrines decide): `pbem orders` lists a side's
    # own, and `pbem submit` says that another side's changes nothing. None: each answers every side's
    policy_sides: Mapping[str, tuple[str, ...]] | None = None
    # a report's events -> lines that say what the result codes among them mean, each code once
    # with its rule (`Fire results, rule 9.8: "1-0" = morale damage 1, strength loss 0`): the reports
    # are read by an audience that has no rulebook at hand. None: its results are words already
    result_key: Callable[[list[dict]], list[str]] | None = None


class Heuristics(Record):
    """What a ruleset tells the core's bots (pbem.core.bots) so that they play on purpose.
    The search, the planning of whole packets and self-play are the core's; a ruleset gives
    only judgements of its own game."""

    # one line for players and designers: what the heuristic does
    about: str
    # scenario, rules, need, the need's legal orders, the bot's side -> one value per order;
    # the bot gives the order of the highest value (the first of equals), so a phase ends
    # when `end` is worth most. It sees the state, never future dice: expected values only.
    rank: Callable[[Any, dict, Need, list[dict], str], list[float]]
    # the standing orders a bot of each side sets (side -> {key: choice}); its decisions are
    # answered by them, as a player relying on standing orders has them answered
    policies: Mapping[str, Mapping[str, str]] = MappingProxyType({})
    # scenario, rules -> the figures of a finished game for self-play, any of "winner",
    # "level", "vp" {side: number}, "lost" {side: units lost}; None, or a figure left out:
    # the summary's `winner`, `level` and `vp`, and the units of the `eliminated` events by `side`
    outcome: Callable[[Any, dict], dict] | None = None


def document_scenario(document: dict, options: dict) -> tuple[dict, dict]:
    """The scenario of a ruleset whose world is small enough to read from its document
    as it stands: the document and the options themselves."""
    return document, options


# --- scenario objects built once for every starting position --------------------------------------

_BUILT: dict[str, Any] = {}
BUILT_KEPT = 4   # scenario objects kept whole, each of a document but for its position (a few MB)


def own_position(doc: dict) -> dict | None:
    """The document's starting `position` (see the ruleset's README), a copy of its own."""
    return json.loads(json.dumps(doc["position"])) if "position" in doc else None


def built_but_for_position(make: Callable[[dict, dict], Any], validate: Callable[[dict], None], doc: dict,
                           options: dict) -> Any:
    """make(doc, options) for a scenario class whose object depends on the document's starting
    `position` in its `position` attribute alone (set by `own_position`, read where the game is
    set up). Of a document with a position, the rest of the object, which the map, the units
    and the charts make, is shared with an object made earlier in this process from a document
    equal to this one but for its position, with equal options (compared by the canonical
    digest of both): a crafted position (a referee's, a test's: hundreds of them on one map)
    then costs its own check, not a whole map built again. The whole document, position
    included, is checked first as `make` checks it; everything shared is built from the
    document alone and never changed after. A document without a position is made as it is,
    at no cost more (a game from the map's own set-up: one object a process, as ever)."""
    if "position" not in doc:
        return make(doc, options)
    from pbem.core.canonical import digest

    validate(doc)
    rest = {k: v for k, v in doc.items() if k != "position"}
    key = digest(b"pbem scenario but for its position\n", [f"{make.__module__}.{make.__qualname__}", rest, options])
    built = _BUILT.get(key)
    if built is None:
        built = make(rest, options)
        if len(_BUILT) >= BUILT_KEPT:
            del _BUILT[next(iter(_BUILT))]
        _BUILT[key] = built
    sc = object.__new__(type(built))
    sc.__dict__.update(built.__dict__)
    sc.position = own_position(doc)
    return sc
