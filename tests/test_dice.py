"""DESIGN §3: the dice protocol matches the published v1 vectors exactly."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core import dice

VECTORS_FILE = Path(__file__).resolve().parents[2] / "shared" / "vectors" / "dice-v1.json"
VECTORS_COPY = Path(__file__).parent / "data" / "dice-v1.json"


def vectors():
    path = VECTORS_FILE if VECTORS_FILE.is_file() else VECTORS_COPY
    return json.loads(path.read_text())


def test_the_project_copy_of_the_vectors_is_current():
    if VECTORS_FILE.is_file():
        assert json.loads(VECTORS_COPY.read_text()) == json.loads(VECTORS_FILE.read_text())


@pytest.mark.parametrize("side", ["side_a", "side_b"])
def test_chain_from_secret(side):
    v = vectors()
    secret = bytes.fromhex(v[side]["secret_c_n"])
    length = v["chain_length"]
    assert dice.chain_value(secret, length, 0).hex() == v[side]["anchor_c_0"]
    assert dice.chain_value(secret, length, 1).hex() == v[side]["c_1"]
    if "c_2" in v[side]:
        assert dice.chain_value(secret, length, 2).hex() == v[side]["c_2"]
    assert dice.chain_step(dice.chain_value(secret, length, 1)).hex() == v[side]["anchor_c_0"]


def test_segment_seeds():
    v = vectors()
    game_id = bytes.fromhex(v["game_id"])
    checked = 0
    for segment in v["segments"]:
        if "v_prev" in segment:
            seed = dice.segment_seed(game_id, segment["k"], bytes.fromhex(segment["v_prev"]), bytes.fromhex(segment["v_cur"]))
            assert seed.hex() == segment["seed"]
            checked += 1
    assert checked == 2


def test_first_20_d6_of_each_labelled_stream():
    for segment in vectors()["segments"]:
        assert dice.first_d6(bytes.fromhex(segment["seed"]), segment["label"], 20) == segment["first_20_d6"]


def test_rejection_sampling_skips_bytes_252_and_up(monkeypatch):
    blocks = {0: bytes([252, 253, 254, 255, 0, 251] + [7] * 26)}
    monkeypatch.setattr(dice, "stream_block", lambda seed, label, j: blocks[j])
    stream = dice.Stream(b"s", "x")
    assert [stream.d6(), stream.d6()] == [1, 1 + 251 % 6]
    assert stream.position == 6


def test_a_stream_resumes_where_it_stopped():
    seed = bytes(range(32))
    whole = dice.first_d6(seed, "lbl", 50)
    first = dice.Stream(seed, "lbl")
    part = [first.d6() for _ in range(17)]
    rest = dice.Stream(seed, "lbl", first.position)
    assert part + [rest.d6() for _ in range(33)] == whole


@given(st.binary(min_size=32, max_size=32), st.text(min_size=1, max_size=10))
def test_rolls_are_dice(seed, label):
    assert all(1 <= d <= 6 for d in dice.first_d6(seed, label, 40))


def test_labels_give_independent_streams():
    seed = bytes(32)
    assert dice.first_d6(seed, "0", 20) != dice.first_d6(seed, "1", 20)


def test_chain_index_out_of_range():
    with pytest.raises(ValueError):
        dice.chain_value(bytes(32), 8, 9)


def test_chain_secret_v2_from_the_key_and_the_nonce_matches_the_vector():
    """§3.1: c_N = SHA-256(Ed25519-sign(key, b"pbem-chain-seed-v2\\n" + nonce)), the chain from it."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from pbem.core import genesis, keys

    path = Path(__file__).resolve().parents[2] / "shared" / "vectors" / "chain-seed-v2.json"
    copy = Path(__file__).parent / "data" / "chain-seed-v2.json"
    v = json.loads((path if path.is_file() else copy).read_text())
    if path.is_file():
        assert json.loads(copy.read_text()) == v
    raw = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["ed25519_private_seed"]))
    key = keys.PrivateKey(raw, keys.PublicKey(raw.public_key()))
    assert key.public.line() == v["public_key"]
    nonce = bytes.fromhex(v["nonce"])
    assert dice.chain_seed_message(nonce).hex() == v["message"]
    secret = genesis.chain_secret(key, nonce)
    assert secret.hex() == v["secret_c_n"]
    length = v["chain_length"]
    assert [dice.chain_value(secret, length, i).hex() for i in range(3)] == [v["anchor_c_0"], v["c_1"], v["c_2"]]


def test_a_uniform_pick_takes_4_bytes_big_endian_and_rejects_the_uneven_top(monkeypatch):
    """§3.5: v from 4 bytes big-endian, rejected if v >= floor(2^32/n)*n, else v mod n."""
    n = 3
    limit = (2**32 // n) * n
    top = (2**32 - 1).to_bytes(4, "big")                 # rejected: >= limit
    ok = (limit - 1).to_bytes(4, "big")                  # accepted: (limit - 1) % 3 == 2
    small = (7).to_bytes(4, "big")                       # 7 % 3 == 1
    blocks = {0: top + ok + small + bytes(20)}
    monkeypatch.setattr(dice, "stream_block", lambda seed, label, j: blocks[j])
    stream = dice.Stream(b"s", "x")
    assert stream.pick(n) == (limit - 1) % n and stream.position == 8
    assert stream.pick(n) == 1 and stream.position == 12


def test_picks_are_uniform_enough_and_follow_the_stream():
    seed = bytes(32)
    stream = dice.Stream(seed, "pool")
    counts = [0] * 5
    for _ in range(5000):
        counts[stream.pick(5)] += 1
    assert all(900 < c < 1100 for c in counts), counts
    one, two = dice.Stream(seed, "pool"), dice.Stream(seed, "pool")
    assert [one.pick(7) for _ in range(20)] == [two.pick(7) for _ in range(20)]
    assert one.position == 80          # 4 bytes a pick, none rejected here
