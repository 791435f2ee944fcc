"""The game-agnostic core: canonical bytes, keys, dice, packets, states, audit."""
