"""The rule that makes the dice fair (DESIGN §3.6, attack 22), as a property over every
registered ruleset: what segment k decides is a function of state k-1 and v_k alone.

Random secure games are played with the engine's own legal orders. At every packet k,
other legal packets k from the same sender (with the same reveal, as the sender's key
makes it) are tried instead: an empty packet, other standing orders, the orders reversed
or doubled, an answer equal to what the standing order would give. None may change a
roll of segment k, or anything that segment k resolved before packet k took effect.
"""

from __future__ import annotations

import random

import pytest

from pbem import rulesets
from pbem.core import bot, engine, game, genesis, sealing
from pbem.core.errors import PbemError
from tests.support.games import fixed_key, nonce


def _secure_game(ruleset_id: str, seed: str) -> tuple[engine.Game, dict, dict]:
    ruleset = rulesets.get(ruleset_id)
    keys = {side: fixed_key(f"resolution-{seed}-{side}") for side in ruleset.sides}
    first, second = ruleset.sides
    proposal = genesis.propose(ruleset, {s: k.public for s, k in keys.items()}, keys[first], created="x",
                               chain_length=4096, nonce=nonce(f"{seed}-{first}"))
    joined = genesis.join(proposal, keys[second], "proposal", chain_length=4096, nonce=nonce(f"{seed}-{second}"))
    document = genesis.complete(joined, proposal, keys[first], "join")
    g = game.open_genesis(document)
    return g, game.initial_state(g), keys


def _decided(events: list[dict], k: int) -> tuple[list, list]:
    """What segment k decided: every event before packet k took effect, and every roll of
    segment k wherever it appears."""
    before = []
    for event in events[1:]:
        if event["type"] == "takes-effect":
            break
        before.append(event)
    return before, [e for e in events if e["type"] == "roll" and e.get("segment") == k]


def _seal(g: engine.Game, state: dict, sender: str, orders: list, seal: bool, key, kept: dict) -> dict:
    """The packet's `sealed` or `opens`, as `pbem submit` makes them: where the rules ask
    for sealed orders the planned items are sealed, and each is opened when it is due."""
    seq = state["seq"] + 1
    due = state["sealed"].get(sender, {}).get("due")
    if due:
        return {"opens": [kept[sender].pop(name) for name in due]}
    if seal:
        salts = sealing.salts(g, seq, sender, key, len(orders))
        kept.setdefault(sender, {}).update({engine.seal_id(seq, n): {"seal": engine.seal_id(seq, n), "salt": salt.hex(),
                                                                     "item": item}
                                            for n, (salt, item) in enumerate(zip(salts, orders), start=1)})
        return {"sealed": [engine.seal_hash(g.game_id, seq, sender, salt, item) for salt, item in zip(salts, orders)]}
    return {}


def _alternatives(g: engine.Game, state: dict, sender: str, orders: list, rng: random.Random) -> list[tuple[list, dict]]:
    ruleset = g.ruleset
    choices = {name: spec["enum"] for name, spec in ruleset.policy_schema["properties"].items()}
    policies = {name: rng.choice(values) for name, values in sorted(choices.items())}
    alternatives = [([], None), (orders, policies), ([], {name: values[-1] for name, values in sorted(choices.items())})]
    if len(orders) > 1:
        alternatives.append((list(reversed(orders)), None))
    if orders and 2 * len(orders) <= 1000:
        alternatives.append((orders + orders, None))
    awaiting = state["awaiting"]
    if awaiting.get("waiting_for") == "decision" and awaiting["need"]["side"] == sender:
        need = g.next_step(state["rules"])
        answer = g.policy(state["rules"], need, dict(ruleset.default_policies))
        if answer is not None:
            alternatives.append(([dict(answer, decision=awaiting["decision"])], None))
    return alternatives


PACKETS = {"duel": 200, "blind": 120, "veiled": 120, "stalingrad": 120, "chir": 45, "dos": 40, "kkoh": 90}   # enough for 3 segments with rolls


def _cases() -> list[tuple[str, int, str]]:
    """Every registered ruleset and the test rulesets, the quick duel with two seeds."""
    ids = sorted(set(rulesets.ids()) | {"duel", "blind", "veiled"})
    return [pytest.param(r, PACKETS.get(r, 60), seed, marks=[pytest.mark.long(5)] if r in ("chir", "dos", "kkoh") else [])
            for r in ids for seed in (("a", "b") if r == "duel" else ("a",))]


@pytest.mark.parametrize("ruleset_id, packets, seed", _cases())
def test_what_segment_k_decides_depends_on_state_k_minus_1_and_v_k_alone(ruleset_id, packets, seed):
    g, state, keys = _secure_game(ruleset_id, seed)
    rng = random.Random(f"{ruleset_id}-{seed}")  # test-side choices only; nothing in pbem uses random

    def choose(options):
        acting = [o for o in options if o.get("type") != "end"]
        return rng.choice(acting) if acting and rng.random() < 0.8 else rng.choice(options)

    compared = segments_with_rolls = played = 0
    kept: dict = {}  # each side's sealed items, until its next packet opens them
    for _ in range(packets):
        sender = state["awaiting"]["packet_from"]
        if sender is None:
            break
        k = state["seq"] + 1
        orders, seal = bot.plan_packet(g, state, sender, choose)
        extra = _seal(g, state, sender, orders, seal, keys[sender], kept)
        if seal:
            orders = []  # the items travel as hashes; the other packets k seal the same ones
        policies = {"on_void": "skip"} if rng.random() < 0.2 else None
        real = game.build_packet(g, state, sender, orders, policies, keys[sender], "", extra)
        new, events = engine.apply_packet(g, state, real, f"packet {k}")
        decided = _decided(events, k)
        segments_with_rolls += bool(decided[1])
        for alt_orders, alt_policies in _alternatives(g, state, sender, orders, rng):
            other = game.build_packet(g, state, sender, engine.clone(alt_orders), alt_policies, keys[sender], "", extra)
            assert other["reveal"] == real["reveal"]
            try:
                _, alt_events = engine.apply_packet(g, state, other, f"alternative packet {k}")
            except PbemError:
                continue  # not a legal packet k: nothing to compare
            assert _decided(alt_events, k) == decided, f"packet {k}: {alt_orders} {alt_policies}"
            compared += 1
        state = new
        played += 1
    assert played >= 15 and compared >= played and segments_with_rolls >= 3, (played, compared, segments_with_rolls)
