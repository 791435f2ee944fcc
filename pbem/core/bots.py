"""Bots that play on purpose, and self-play between them (DESIGN §1, §4.2).

A bot plays one side from what that side sees: the state, never the future dice. Like
the random planner of `pbem.core.bot`, it plans a whole packet: it works through the
side's needs on a private copy of the rules, one order at a time, until the flow passes
to the other side, rolling imagined dice where an order of its own needs them (the real
dice come later; an order they make impossible is void, and the bot plans again). Its
decisions are answered by its standing orders, which it sets in its packet, as a player
relying on standing orders has them answered; the other side's decisions by that side's
standing orders, as the engine will answer them.

Kinds of bot (`pbem selfplay --bots A,B`):

- `heuristic`: the ruleset's own heuristics (its Ruleset record's `bot`, a
  `pbem.rulesets.base.Heuristics`): at each need it gives the legal order the ruleset
  values most (`rank`), so a phase ends when `end` is worth most. A ruleset without
  heuristics gets the generic heuristic.
- `generic`: the generic heuristic, for any ruleset: it tries each legal order (at most
  GENERIC_TRIES of them, picked by a seeded hash) one order ahead on a copy with
  imagined dice, and gives the one that most raises its side's VP lead in the ruleset's
  summary (`vp`, side -> number); where no order changes the lead it acts as the random
  planner does (an action three times in four, else any legal order).
- `passive`: ends every phase (`end`, or the first legal order where `end` is not legal);
  its standing orders (the ruleset's defaults) answer its decisions. A yardstick: a side
  that does nothing should lose.
- `random`: the random planner of `pbem.core.bot`.

Self-play (`selfplay`) plays whole sandbox games between two bots in process, through the
real engine (`engine.apply_packet`: every packet verified and applied as `pbem
adjudicate` applies it, dice from a plain seed per game), and counts results, VP and
losses per side. A sandbox packet's orders meet the real dice at once, so an order the
dice make impossible rejects the packet rather than being void; self-play then sends the
orders planned before any imagined die, and the bot plans the rest again from the real
result, as it would after a void order in a secure game. The clock only times the
series (games per second); nothing of a game depends on it.
"""

from __future__ import annotations

import time

from pbem.core import bot as random_bot
from pbem.core import engine
from pbem.core.errors import RulesError, UsageError
from pbem.core.record import Record
from pbem.core.sha import sha256
from pbem.rulesets.base import IllegalOrder, Need

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

KINDS = ("heuristic", "generic", "passive", "random")
MAX_ORDERS = 400          # orders in one packet at most
GENERIC_TRIES = 24        # legal orders the generic heuristic tries one order ahead, at most
MAX_PACKETS = 5000        # packets in one self-play game at most


class _Imagined(random_bot.SealedMadeUp):
    """A Context with made-up dice, for planning only: never for a state that is kept."""

    chosen_by = "order"

    def __init__(self, seed: bytes):
        self._seed = seed
        self._n = 0
        self.rolled = False  # whether any imagined die has been rolled

    def _draw(self) -> int:
        self._n += 1
        self.rolled = True
        return int.from_bytes(sha256(self._seed + self._n.to_bytes(4, "big")).digest()[:4], "big")

    def d6(self, label: str) -> int:
        return 1 + self._draw() % 6

    def pick(self, label: str, among: int) -> int:
        return self._draw() % among

    def event(self, type: str, text: str, **fields: Any) -> None:
        pass


def _hash(*parts: str) -> int:
    return int.from_bytes(sha256("/".join(parts).encode()).digest()[:8], "big")


class Bot:
    """One side's player: `kind` (see KINDS) and a seed for its tie-breaks and imagined dice."""

    __slots__ = ("kind", "side", "seed", "picks")

    def __init__(self, kind: str, side: str, seed: str = ""):
        self.kind = kind
        self.side = side
        self.seed = seed
        self.picks = 0     # choices made so far: each tie-break and imagined roll has its own tag

    def policies(self, game: engine.Game) -> dict:
        """The standing orders this bot plays with (set in its packets)."""
        heuristics = game.ruleset.bot
        if self.kind == "heuristic" and heuristics is not None:
            return dict(heuristics.policies.get(self.side, {}))
        return {}

    def choose(self, game: engine.Game, rules: dict, need: Need, options: list[dict]) -> dict:
        """The order this bot gives for `need` among its legal `options`."""
        self.picks += 1
        heuristics = game.ruleset.bot
        if self.kind == "passive":
            return {"type": "end"} if {"type": "end"} in options else options[0]
        if self.kind == "random":
            return random_bot.chooser(f"{self.seed}/{self.picks}")(options)
        if self.kind == "heuristic" and heuristics is not None:
            values = heuristics.rank(game.scenario, rules, need, options, self.side)
            return options[max(range(len(options)), key=lambda i: (values[i], -i))]
        return self._generic(game, rules, need, options)

    def _generic(self, game: engine.Game, rules: dict, need: Need, options: list[dict]) -> dict:
        """One order ahead on the summary's VP lead; where nothing changes it, as the random planner."""
        tag = f"{self.seed}/{self.picks}"
        tries = options
        if len(options) > GENERIC_TRIES:
            tries = sorted(options, key=lambda o: _hash(tag, repr(sorted(o.items()))))[:GENERIC_TRIES]
        before = _lead(game, rules, self.side)
        best, best_gain = None, 0.0
        for order in tries:
            trial = engine.clone(rules)
            try:
                game.apply(trial, need, order, _Imagined(tag.encode()))
            except IllegalOrder:
                continue
            gain = _lead(game, trial, self.side) - before
            if gain > best_gain:
                best, best_gain = order, gain
        if best is not None:
            return best
        return random_bot.chooser(tag)(options)


def _lead(game: engine.Game, rules: dict, side: str) -> float:
    """The side's VP lead in the ruleset's summary (0 where the summary has no `vp`)."""
    vp = game.summary(rules).get("vp")
    if not isinstance(vp, dict):
        return 0.0
    mine = _number(vp.get(side))
    return mine - max((_number(v) for s, v in vp.items() if s != side), default=0.0)


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


class Plan(Record):
    """A bot's next packet: its orders, the standing orders to set in it (None: those in
    force already), and how many of the orders were planned before any imagined die (the
    real dice cannot make those impossible)."""

    orders: list
    policies: dict | None
    sure: int


def plan(game: engine.Game, state: dict, player: Bot) -> Plan:
    """`player`'s next packet. Its decisions are left to its standing orders, which the
    plan applies as the engine will; the other side's, to that side's."""
    side = player.side
    if state["awaiting"]["waiting_for"] == "dice" or any(item["side"] == side for item in state["queue"]):
        return Plan([], None, 0)  # earlier orders are still waiting for their dice
    ruleset = game.ruleset
    wanted = player.policies(game)
    mine = engine.effective_policies(ruleset, state, side)
    setting = {k: v for k, v in sorted(wanted.items()) if mine.get(k) != v} or None
    mine.update(wanted)
    rules = engine.clone(state["rules"])
    context = _Imagined(f"{player.seed}/{state['state_hash']}".encode())
    orders: list[dict] = []
    sure = 0
    while len(orders) < MAX_ORDERS:
        need = game.next_step(rules)
        if need is None or need.opens:
            break  # over, or sealed items the rules reveal: they are opened in a packet of their own
        if need.decision:
            policies = mine if need.side == side else engine.effective_policies(ruleset, state, need.side)
            answer = game.policy(rules, need, policies)
            if answer is None:
                if need.side != side:
                    break  # the other side is asked: the flow passes to it
                answer = player.choose(game, rules, need, game.legal_orders(rules, need))
                sure += not context.rolled
                orders.append(answer)
            _apply(game, rules, need, answer, context)
            continue
        if need.side != side:
            break
        if need.sealed:
            raise UsageError(f"{ruleset.id}: the rules ask {side} for sealed orders, which the bots cannot plan yet")
        options = game.legal_orders(rules, need)
        if not options:
            break
        order = player.choose(game, rules, need, options)
        sure += not context.rolled
        _apply(game, rules, need, order, context)
        orders.append(order)
    return Plan(orders, setting, sure)


def _apply(game: engine.Game, rules: dict, need: Need, order: dict, context: _Imagined) -> None:
    try:
        game.apply(rules, need, order, context)
    except IllegalOrder as exc:  # a legal order, or a standing order's answer: a ruleset bug worth knowing
        raise AssertionError(f"{game.ruleset.id}: {order} was offered as legal, but apply rejects it: "
                             f"{exc.message} ({exc.rule})") from None


# --- self-play -------------------------------------------------------------------------------------

class Outcome(Record):
    """One finished self-play game."""

    winner: str | None
    level: str | None
    vp: dict
    lost: dict
    packets: int


def play_game(ruleset: Any, kinds: dict[str, str], seed: str) -> Outcome:
    """One sandbox game between bots (`kinds`: side -> kind), dice from the plain seed `seed`."""
    from pbem.core import game as games
    from pbem.core import genesis

    document = genesis.sandbox(ruleset, {"seed": seed}, created="selfplay")
    g = games.open_genesis(document, "(selfplay)")
    state = games.initial_state(g)
    players = {side: Bot(kind, side, f"{seed}/{side}") for side, kind in kinds.items()}
    eliminated = {side: 0 for side in ruleset.sides}
    stalled = 0
    for number in range(1, MAX_PACKETS + 1):
        side = state["awaiting"]["packet_from"]
        if side is None:
            break
        planned = plan(g, state, players[side])
        orders = planned.orders
        before = state["rules"]
        source = f"(selfplay {seed}, packet {number})"
        try:
            state, events = engine.apply_packet(g, state, games.build_packet(g, state, side, orders, planned.policies,
                                                                             None, ""), source)
        except RulesError:
            # A sandbox packet's orders meet the real dice at once, and one the dice made
            # impossible rejects the packet; in a secure game it would be void and the bot
            # asked again. So: the orders the dice cannot touch now, the rest planned anew.
            orders = orders[:planned.sure]
            state, events = engine.apply_packet(g, state, games.build_packet(g, state, side, orders, planned.policies,
                                                                             None, ""), source)
        count_losses(events, eliminated)
        stalled = stalled + 1 if state["rules"] == before and not orders else 0
        if stalled > 2:
            raise RulesError(f"self-play {seed}: the {players[side].kind} bot of {side} sends packets that change nothing "
                             f"(the game waits for {state['awaiting']['waiting_for']})")
    else:
        raise RulesError(f"self-play {seed}: the game did not end in {MAX_PACKETS} packets")
    summary = g.summary(state["rules"])
    raw = summary.get("vp") if isinstance(summary.get("vp"), dict) else {}
    figures = {"winner": summary.get("winner"), "level": summary.get("level"),
               "vp": {side: _number(raw.get(side)) for side in ruleset.sides}, "lost": eliminated}
    heuristics = ruleset.bot
    if heuristics is not None and heuristics.outcome is not None:
        figures.update(heuristics.outcome(g.scenario, state["rules"]))
    return Outcome(figures["winner"], figures["level"], figures["vp"], figures["lost"], number)


def count_losses(events: list[dict], lost: dict[str, int]) -> None:
    """Add to `lost` (side -> units) the units each `eliminated` event with a `side` names, one
    for an event that names none (an event of dos may name a stack; self-play counted it as
    one unit, and dos's, which named no side, as none)."""
    for event in events:
        if event["type"] == "eliminated" and event.get("side") in lost:
            lost[event["side"]] += len(event.get("units") or ()) or 1


class Table:
    """The figures of a series of self-play games."""

    __slots__ = ("ruleset", "kinds", "seed", "outcomes", "seconds")

    def __init__(self, ruleset: Any, kinds: dict, seed: str):
        self.ruleset = ruleset
        self.kinds = kinds
        self.seed = seed
        self.outcomes: list[Outcome] = []
        self.seconds = 0.0

    def lines(self) -> list[str]:
        sides = list(self.ruleset.sides)
        n = len(self.outcomes)
        head = (f"{self.ruleset.id} {self.ruleset.version} self-play: {n} games, "
                + ", ".join(f"{s} {self.kinds[s]}" for s in sides) + f", seed {self.seed!r}")
        wins = {s: sum(1 for o in self.outcomes if o.winner == s) for s in sides}
        draws = n - sum(wins.values())
        width = max(10, *(len(s) for s in sides))
        rows = [("wins", [f"{wins[s]} ({_pct(wins[s], n)})" for s in sides]),
                ("draws", [f"{draws} ({_pct(draws, n)})"]),
                ("mean VP", [_mean_of([o.vp[s] for o in self.outcomes if s in o.vp]) for s in sides]),
                # units, not steps or loss points (a players' probe: "mean losses 6.08" read as either)
                ("mean units eliminated", [f"{_mean([o.lost.get(s, 0) for o in self.outcomes]):.2f}" for s in sides])]
        label = max(len(name) for name, _ in rows)
        out = [head, f"{'':<{label}}" + "".join(f"{s:>{width + 2}}" for s in sides)]
        out += [f"{name:<{label}}" + "".join(f"{v:>{width + 2}}" for v in values) for name, values in rows]
        levels: dict = {}
        for o in self.outcomes:
            key = f"{o.winner} {o.level}" if o.winner else str(o.level)
            levels[key] = levels.get(key, 0) + 1
        out.append("results: " + ", ".join(f"{k} {v}" for k, v in sorted(levels.items())))
        first = sides[0]
        spread: dict = {}
        for o in self.outcomes:
            spread[o.vp.get(first, 0)] = spread.get(o.vp.get(first, 0), 0) + 1
        out.append(f"{first} VP at the end: " + " ".join(f"{_num(v)}:{c}" for v, c in sorted(spread.items())))
        rate = n / self.seconds if self.seconds else 0.0
        out.append(f"{n} games in {self.seconds:.1f} s: {rate:.2f} games/s, "
                   f"{_mean([o.packets for o in self.outcomes]):.0f} packets a game")
        return out


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.0f}%" if n else "-"


def _mean(values: list) -> float:
    return sum(values) / len(values) if values else 0.0


def _mean_of(values: list) -> str:
    """The mean to two places, or "-" for a side that scores no VP (a ruleset's `outcome`
    leaves it out)."""
    return f"{_mean(values):.2f}" if values else "-"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def selfplay(ruleset_id: str, games: int, kinds: list[str], seed: str = "selfplay",
             progress: Callable[[int, int], None] | None = None) -> Table:
    """`games` sandbox games between bots of `kinds` (one per side, in the ruleset's side
    order); game n rolls its dice from the seed "SEED/n"."""
    from pbem import rulesets

    ruleset = rulesets.get(ruleset_id)
    if len(kinds) != len(ruleset.sides):
        raise UsageError(f"give one bot per side of {ruleset.id} ({', '.join(ruleset.sides)}), not {len(kinds)}")
    for kind in kinds:
        if kind not in KINDS:
            raise UsageError(f"unknown bot {kind!r}; the bots are {', '.join(KINDS)}")
    table = Table(ruleset, dict(zip(ruleset.sides, kinds)), seed)
    start = time.perf_counter()
    for n in range(1, games + 1):
        table.outcomes.append(play_game(ruleset, table.kinds, f"{seed}/{n}"))
        if progress is not None:
            progress(n, games)
    table.seconds = time.perf_counter() - start
    return table
