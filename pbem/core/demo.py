"""`pbem demo`: two players, two freshly generated keys, two folders, a whole signed game
exchanged packet by packet as by email, then a clean audit of both folders."""

from __future__ import annotations

from pathlib import Path

from pbem.core import bot, bots, engine, game, genesis, keys
from pbem.core.audit import audit
from pbem.core.submit import submit_orders

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

PLAYER_FOLDERS = ("player-1", "player-2")


def handshake(paths: dict, ruleset, private: dict, *, created: str = "", options: dict | None = None,
              chain_length: int = genesis.DEFAULT_CHAIN_LENGTH, nonces: dict | None = None,
              scenario_doc: dict | None = None) -> dict:
    """Make a secure game as two players would (§2.2): the first side proposes in its
    folder, the second joins in its own, the proposer completes, and the joiner installs
    the complete genesis. `paths` and `private` map each side to its folder and key;
    returns side -> Folder."""
    first, second = ruleset.sides
    nonces = nonces or {}
    proposal = genesis.propose(ruleset, {s: k.public for s, k in private.items()}, private[first], created=created,
                               options=options, chain_length=chain_length, nonce=nonces.get(first),
                               scenario_doc=scenario_doc)
    game.write_proposal(paths[first], proposal)
    joined = game.join(paths[second], proposal, "proposal.yaml", private[second], chain_length=chain_length,
                       nonce=nonces.get(second))
    completed = game.join(paths[first], joined.document, "join.yaml", private[first])
    installed = game.join(paths[second], completed.document, "game.yaml")
    return {first: completed.folder, second: installed.folder}


def play(directory: Path, ruleset_id: str = "stalingrad", *, created: str = "", say: Callable[[str], None] = print,
         max_packets: int = 2000, seed: str = "demo", turns: int | None = None) -> dict:
    """Play a whole game, or only its first `turns` game turns."""
    from pbem import rulesets

    directory = Path(directory)
    ruleset = rulesets.get(ruleset_id)
    directory.mkdir(parents=True, exist_ok=True)
    private = {}
    (directory / "keys").mkdir(exist_ok=True)
    for side in ruleset.sides:
        path, _ = keys.write_keypair(side, directory / "keys", comment=f"{side}@pbem-demo")
        private[side] = keys.load_private_key(path)
    paths = {side: directory / name for side, name in zip(ruleset.sides, PLAYER_FOLDERS)}
    folders = handshake(paths, ruleset, private, created=created)
    first, second = ruleset.sides
    say(f"handshake: {first} proposed ({paths[first] / game.PROPOSAL}), {second} joined ({paths[second] / game.JOIN}), "
        f"{first} completed the genesis; every dice chain is committed before any packet")
    say(f"new {ruleset.title} game {folders[first].game.game_id}: "
        + ", ".join(f"{side} in {path}" for side, path in paths.items()))
    # Where the ruleset has bots of its own (chir, stalingrad), they play: sides that attack
    # what is worth taking and move where it counts, as a game between players looks. Their
    # plan runs past dice that only the opponent's next packet reveals, imagining them; a
    # move the real dice made impossible is void, and `on_void: skip` lets the moves after it
    # (of other units) stand, as a player sending independent moves would ask. Elsewhere
    # the random planner of the tests plays, which also seals what the rules ask sealed (kkoh).
    players = ({side: bots.Bot("heuristic", side, f"{seed}/{side}") for side in ruleset.sides}
               if ruleset.bot is not None else None)
    choose = bot.chooser(seed)
    packets = 0
    while packets < max_packets:
        state = folders[ruleset.sides[0]].state
        sender = state["awaiting"]["packet_from"]
        if sender is None or (turns is not None and folders[ruleset.sides[0]].game.summary(state["rules"]).get("turn", 0) > turns):
            break
        mine = folders[sender]
        if players is not None:
            planned = bots.plan(mine.game, mine.state, players[sender])
            orders, policies, seal = planned.orders, dict(planned.policies or {}), None
            if engine.effective_policies(ruleset, mine.state, sender).get("on_void") != "skip":
                policies["on_void"] = "skip"
            policies = policies or None
        else:
            (orders, seal), policies = bot.plan_packet(mine.game, mine.state, sender, choose), None
        applied = submit_orders(mine, orders, policies, key=private[sender], sent=created, source=f"{sender}'s orders",
                                seal=seal)
        packets += 1
        for side, folder in folders.items():
            if side != sender:
                packet, data = game.read_packet(applied.packet_path)
                game.adjudicate(folder, packet, data, str(applied.packet_path))
        summary = mine.game.summary(applied.state["rules"])
        rolls = sum(1 for e in applied.events if e["type"] == "roll")
        say(f"packet {applied.state['seq']:3d} {sender:>8}: {len(orders):2d} orders, {rolls:2d} dice - "
            + ", ".join(f"{k} {v}" for k, v in sorted(summary.items()) if k in ("turn", "phase") and v is not None))
    results = {name: audit(directory / name) for name in PLAYER_FOLDERS}
    for name, result in results.items():
        say(f"audit {name}: " + ("OK" if result.ok else f"FAILED: {result.divergence.sentence()}")
            + f" ({result.packets} packets, {result.signatures} signatures, {result.rolls} dice rolls)")
    final = {r.final_state for r in results.values()}
    summary = folders[ruleset.sides[0]].game.summary(folders[ruleset.sides[0]].state["rules"])
    say(f"result: {(summary.get('result') or 'game not finished').rstrip('.')}; both folders end in the same state: {len(final) == 1}")
    return {"packets": packets, "ok": all(r.ok for r in results.values()) and len(final) == 1,
            "result": summary.get("result"), "folders": [str(directory / n) for n in PLAYER_FOLDERS]}
