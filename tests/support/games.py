"""Helpers that set up games for tests: keys, genesis, two players' folders."""

from __future__ import annotations

from pathlib import Path

from pbem.core import game, genesis, keys
from pbem.core.submit import submit_orders


def fixed_key(name: str) -> keys.PrivateKey:
    """A deterministic key, so that tests know their dice in advance."""
    import hashlib

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(name.encode()).digest())
    return keys.PrivateKey(key, keys.PublicKey(key.public_key(), name))


def nonce(name: str) -> bytes:
    """A deterministic genesis nonce, so that tests know their dice in advance."""
    import hashlib

    return hashlib.sha256(f"nonce/{name}".encode()).digest()[:16]


class Match:
    """A secure game between two players, each with a folder, made by the handshake and
    exchanging packets. Keys and nonces are fixed by `key_seed`, so the dice of a test are
    the same on every run."""

    def __init__(self, root: Path, ruleset_id: str = "duel", options: dict | None = None, chain_length: int = 64,
                 key_seed: str = "test", scenario_doc: dict | None = None):
        from pbem import rulesets
        from pbem.core import demo

        self.root = Path(root)
        self.ruleset = rulesets.get(ruleset_id)
        self.keys = {side: fixed_key(f"{key_seed}-{side}") for side in self.ruleset.sides}
        self.folders = demo.handshake({side: self.root / side for side in self.ruleset.sides}, self.ruleset, self.keys,
                                      created="2026-11-29T10:00:00Z", options=options, chain_length=chain_length,
                                      nonces={side: nonce(f"{key_seed}-{side}") for side in self.ruleset.sides},
                                      scenario_doc=scenario_doc)
        self.genesis = self.game.genesis

    @property
    def game(self):
        return self.folders[self.ruleset.sides[0]].game

    def state(self, side: str | None = None) -> dict:
        return self.folders[side or self.ruleset.sides[0]].state

    def send(self, side: str, orders: list, policies: dict | None = None, **extra) -> game.Applied:
        """`side` submits in its own folder; every other folder adjudicates the packet."""
        applied = submit_orders(self.folders[side], orders, policies, key=self.keys[side], sent="2026-11-29T10:00:00Z",
                                **extra)
        for other, folder in self.folders.items():
            if other != side:
                packet, data = game.read_packet(applied.packet_path)
                game.adjudicate(folder, packet, data, str(applied.packet_path))
        return applied


def sandbox(root: Path, ruleset_id: str = "duel", dice: list[int] | None = None, seed: str | None = None) -> game.Folder:
    from pbem import rulesets

    ruleset = rulesets.get(ruleset_id)
    document = genesis.sandbox(ruleset, {"dice": dice} if dice is not None else {"seed": seed or ""},
                               created="2026-11-29T10:00:00Z")
    return game.create(Path(root), document)
