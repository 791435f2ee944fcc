#!/usr/bin/env bash
# Rebuild the example game folders with `pbem demo` (fresh keys each time, so the games
# differ from run to run): one player's folder of a signed game per ruleset, whole for
# stalingrad, the first two game turns for chir (a whole chir game is about 3 MB) and for
# dos (about 1 MB a game turn), the first three for kkoh.
# Where the rules ask a side for sealed orders (kkoh's order chits and fire plans), `pbem demo`
# seals them (`bot.plan_packet`) and the side opens each item when it is due, as a player would.
# Run after any change that alters states or reports on purpose; `pbem audit` must pass.
set -euo pipefail
cd "$(dirname "$0")"
for ruleset in "$@"; do
  tmp=$(mktemp -d)
  turns=""
  [ "$ruleset" = chir ] && turns="--turns 2"
  [ "$ruleset" = dos ] && turns="--turns 2"
  [ "$ruleset" = kkoh ] && turns="--turns 3"
  pbem demo "$tmp/demo" --ruleset "$ruleset" $turns >/dev/null
  rm -rf "$ruleset-demo"
  mkdir "$ruleset-demo"
  cp -r "$tmp/demo/player-1/." "$ruleset-demo/"   # the genesis holds both public keys
  rm -rf "$ruleset-demo/private"                  # a player's unopened seals stay with the player
  rm -rf "$tmp"
  pbem audit "$ruleset-demo"
done
