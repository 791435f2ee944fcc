"""Conformance (DESIGN §7): every registered ruleset plays whole games in secure mode with
generated keys, choosing at random among the engine's own legal options; every state
round-trips through its file and the finished folders audit clean."""

import os
import random
from pathlib import Path

import pytest

from pbem import rulesets
from pbem.core import bot, engine, game, schema
from pbem.core.audit import audit
from pbem.core.canonical import load_mapping
from tests.support.cycles import cycles_of_pbem
from tests.support.games import Match

MAX_PACKETS = 3000


def random_chooser(seed: int):
    rng = random.Random(seed)  # test-side choices only; nothing in pbem uses random

    def choose(options):
        acting = [o for o in options if o.get("type") != "end"]
        if acting and rng.random() < 0.8:
            return rng.choice(acting)
        return rng.choice(options)
    return choose


# seconds a game takes on a 2-core machine, roughly: the longest start first (tests/conftest.py)
SECONDS = {"dos": 35, "kkoh": 20, "chir": 18}
# the long games are played to their last game turn (no early victory cuts them short)
LAST_TURN = {"dos": 25, "chir": 12}


def _games() -> list:
    """Two games of each quick ruleset, one of each long one. A second long game costs 10-25
    CPU-seconds and reaches no line of pbem that the rest of the suite leaves unrun (measured
    with coverage.py over the whole suite, with and without it); the second stalingrad game
    still reaches two lines of stalingrad's combat that nothing else does."""
    every = sorted(set(rulesets.ids()) | {"duel", "blind", "veiled"})
    return [pytest.param(r, number, marks=[pytest.mark.long(SECONDS[r])] if r in SECONDS else [])
            for number in range(2) for r in every if number == 0 or r not in SECONDS]


@pytest.mark.parametrize("ruleset_id, game_number", _games())
def test_random_legal_game_audits_clean(tmp_path, ruleset_id, game_number):
    """... and makes no reference cycle of pbem's on the way (tests/support/cycles.py)."""
    with cycles_of_pbem() as cycles:
        play_and_audit(tmp_path, ruleset_id, game_number)
    assert cycles == []


def play_and_audit(tmp_path, ruleset_id, game_number):
    match = Match(tmp_path, ruleset_id, chain_length=MAX_PACKETS, key_seed=f"conformance-{game_number}")
    choose = random_chooser(game_number)
    state_schema = schema.load("state.schema.json")
    for _ in range(MAX_PACKETS):
        state = match.state()
        sender = state["awaiting"]["packet_from"]
        if sender is None:
            break
        orders, seal = bot.plan_packet(match.game, match.state(sender), sender, choose)
        applied = match.send(sender, orders, seal=seal)
        # each state as adjudicated; the files written of them are the audit's to check below,
        # byte for byte against its own replay
        assert engine.state_hash(applied.state) == applied.state["state_hash"]
        assert schema.errors(state_schema, applied.state) == [], applied.state["seq"]
    else:
        pytest.fail(f"{ruleset_id}: no end after {MAX_PACKETS} packets")
    assert match.game.summary(match.state()["rules"])["result"]
    if ruleset_id in LAST_TURN:
        assert match.state()["rules"]["turn"] == LAST_TURN[ruleset_id]
    assert len({f.state["state_hash"] for f in match.folders.values()}) == 1
    both = one_folder_of_both(tmp_path / "both", [folder.path for folder in match.folders.values()])
    result = audit(both)
    assert result.ok, result.divergence.sentence()
    assert result.packets == match.state()["seq"] == result.states - 1   # every state file checked against the replay
    check_schemas(both)


def one_folder_of_both(target: Path, folders: list[Path]) -> Path:
    """The players' folders hold the same files byte for byte, but for the handshake file each
    keeps (the proposer's proposal, the joiner's join): one folder of them all, linked, audits
    exactly what each folder would, so each game is audited once."""
    files = [{path.relative_to(folder): path for path in folder.rglob("*") if path.is_file()} for folder in folders]
    for other in files[1:]:
        assert set(files[0]) ^ set(other) <= {Path("proposal.yaml"), Path("join.yaml")}
        for name in set(files[0]) & set(other):
            assert files[0][name].read_bytes() == other[name].read_bytes(), name
    for kept in files:
        for name, path in kept.items():
            if not (target / name).exists():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                os.link(path, target / name)
    assert {"proposal.yaml", "join.yaml"} <= {path.name for path in target.iterdir()}
    return target


def check_schemas(folder):
    """The genesis and every packet of a finished game match the envelope schemas in schemas/
    (every state was checked as it was stored)."""
    assert schema.errors(schema.load("genesis.schema.json"), load_mapping(folder / "game.yaml")) == []
    for seq, path in game.packet_files(folder):
        assert schema.errors(schema.load("packet.schema.json"), load_mapping(path)) == [], path
