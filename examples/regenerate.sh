#!/usr/bin/env bash
# Rebuild the example game folders with `pbem demo` (fresh keys each time, so the games
# differ from run to run): one player's folder of a signed game per ruleset, whole for
# stalingrad, the first two game turns for chir (a whole chir game is about 50 MB), the
# first three for kkoh.
# kkoh is played by the sealing planner below rather than `pbem demo`: where the rules ask a
# side for sealed orders (its order chits, its Direct Fire plan) it seals them with
# `submit --seal` and opens them in its next packet, as a player would; `pbem demo`'s random
# planner cannot seal and gives them openly (README of kkoh, "Sealed orders").
# Run after any change that alters states or reports on purpose; `pbem audit` must pass.
set -euo pipefail
cd "$(dirname "$0")"

sealed_demo() {   # sealed_demo DIR RULESET TURNS
  python3 - "$@" <<'PY'
import sys
from pathlib import Path

from pbem import rulesets
from pbem.core import bot, demo, engine, game, keys
from pbem.core.audit import audit
from pbem.core.submit import submit_orders
from pbem.rulesets.base import IllegalOrder

directory, ruleset_id, turns = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
ruleset = rulesets.get(ruleset_id)
directory.mkdir(parents=True)
(directory / "keys").mkdir()
private = {side: keys.load_private_key(keys.write_keypair(side, directory / "keys", comment=f"{side}@pbem-demo")[0])
           for side in ruleset.sides}
folders = demo.handshake({s: directory / n for s, n in zip(ruleset.sides, demo.PLAYER_FOLDERS)}, ruleset, private)
choose = bot.chooser("demo")


def plan(folder, side):
    """bot.plan, stopping before a sealed step of this side unless it is the first: a sealed
    step goes alone in its packet, sealed."""
    g, state = folder.game, folder.state
    if state["awaiting"]["waiting_for"] == "dice" or any(i["side"] == side for i in state["queue"]):
        return [], False
    rules = engine.clone(state["rules"])
    ctx = bot._Imagined(state["state_hash"].encode())
    first = g.next_step(rules)
    sealing = first is not None and first.sealed and first.side == side
    orders = []
    while len(orders) < bot.MAX_ORDERS:
        need = g.next_step(rules)
        if need is None or (not sealing and orders and need.sealed and need.side == side) \
                or (sealing and need.kind != first.kind):
            break
        if need.side != side:
            answer = g.policy(rules, need, engine.effective_policies(ruleset, state, need.side)) if need.decision else None
            if answer is None:
                break
            g.apply(rules, need, answer, ctx)
            continue
        options = g.legal_orders(rules, need)
        if not options:
            break
        order = choose(options)
        try:
            g.apply(rules, need, order, ctx)
        except IllegalOrder:
            break
        orders.append(order)
    return orders, sealing and bool(orders)


for n in range(3000):
    state = folders[ruleset.sides[0]].state
    sender = state["awaiting"]["packet_from"]
    if sender is None or folders[sender].game.summary(state["rules"]).get("turn", 0) > turns:
        break
    orders, seal = plan(folders[sender], sender)
    applied = submit_orders(folders[sender], orders, None, key=private[sender], sent="", source="demo", seal=seal)
    for side, folder in folders.items():
        if side != sender:
            packet, data = game.read_packet(applied.packet_path)
            game.adjudicate(folder, packet, data, str(applied.packet_path))
for name in demo.PLAYER_FOLDERS:
    result = audit(directory / name)
    assert result.ok, result.divergence.sentence()
PY
}

for ruleset in "$@"; do
  tmp=$(mktemp -d)
  turns=""
  [ "$ruleset" = chir ] && turns="--turns 2"
  if [ "$ruleset" = kkoh ]; then
    sealed_demo "$tmp/demo" kkoh 3
  else
    pbem demo "$tmp/demo" --ruleset "$ruleset" $turns >/dev/null
  fi
  rm -rf "$ruleset-demo"
  mkdir "$ruleset-demo"
  cp -r "$tmp/demo/player-1/." "$ruleset-demo/"   # the genesis holds both public keys
  rm -rf "$ruleset-demo/private"                  # a player's unopened seals stay with the player
  rm -rf "$tmp"
  pbem audit "$ruleset-demo"
done
