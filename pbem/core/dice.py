"""Fair dice without a third party (DESIGN §3): hash chains, segment seeds, roll streams.

Each side commits to a hash chain c_0 <- c_1 <- ... <- c_N derived from its own key and
the nonce it put in the genesis; the anchor c_0 is in the genesis before any packet
exists, and packet j reveals the next value v_j of its sender's chain. The dice that
packet k unlocks come from seed_k = H(v_{k-1}, v_k), drawn from named sub-streams so that
one disputed decision does not shift unrelated rolls. Sandbox games take their dice from
a script or a plain seed instead, and say so everywhere.
"""

from __future__ import annotations

from pbem.core.sha import hmac_sha256, sha256

CHAIN_SEED_DOMAIN = b"pbem-chain-seed-v2\n"
CHAIN_DOMAIN = b"pbem-chain-v1"
DICE_DOMAIN = b"pbem-dice-v1"
ROLL_DOMAIN = b"pbem-roll-v1"
SANDBOX_DOMAIN = b"pbem-sandbox-v1"
SEALED_DOMAIN = b"pbem-sealed-die-v1\n"


def chain_seed_message(nonce: bytes) -> bytes:
    """The message whose Ed25519 signature is the chain secret's source (§3.1)."""
    return CHAIN_SEED_DOMAIN + nonce


def chain_secret(signature: bytes) -> bytes:
    """c_N = SHA-256(Ed25519-sign(key, b"pbem-chain-seed-v2\\n" + nonce)); the caller signs.

    Ed25519 signatures are deterministic, so the secret can always be recomputed from the
    key and the genesis; the signature itself is never published."""
    return sha256(signature).digest()


def chain_step(value: bytes) -> bytes:
    """c_{i-1} = SHA-256(b"pbem-chain-v1" + c_i)."""
    return sha256(CHAIN_DOMAIN + value).digest()


_CHAINS: dict[tuple[bytes, int], bytes] = {}
_CHAINS_KEPT = 4           # chains: both sides of a game played in one process, and a little more
_CHAIN_KEPT_UP_TO = 65536  # values: a longer chain (to 2^20) is hashed anew each time, not kept


def chain_value(secret: bytes, length: int, index: int) -> bytes:
    """c_index of the chain whose last value c_length is `secret`. A chain of up to 65,536
    values is worked out once per process and kept (32 bytes a value, in one string; the
    least recently used of 4 goes): a process that plays many packets (bots, a demo,
    tests) would otherwise hash the chain anew for each of them."""
    if not 0 <= index <= length:
        raise ValueError(f"chain index {index} is outside 0..{length}")
    if length > _CHAIN_KEPT_UP_TO:
        value = secret
        for _ in range(length - index):
            value = chain_step(value)
        return value
    values = _CHAINS.pop((secret, length), None)    # popped and put back: the most recent last
    if values is None:
        parts, value = [secret], secret             # parts[j] = c_{length - j}
        for _ in range(length):
            value = chain_step(value)
            parts.append(value)
        values = b"".join(parts)
        if len(_CHAINS) >= _CHAINS_KEPT:
            del _CHAINS[next(iter(_CHAINS))]
    _CHAINS[(secret, length)] = values
    at = 32 * (length - index)
    return values[at:at + 32]


def segment_seed(game_id: bytes, k: int, v_prev: bytes, v_cur: bytes) -> bytes:
    """seed_k = SHA-256(b"pbem-dice-v1" + game_id + k (8 bytes BE) + v_{k-1} + v_k)."""
    return sha256(DICE_DOMAIN + game_id + k.to_bytes(8, "big") + v_prev + v_cur).digest()


def sandbox_seed(seed_text: str, k: int) -> bytes:
    """The segment seed of a sandbox game played with a plain seed (no secrecy intended)."""
    return sha256(SANDBOX_DOMAIN + seed_text.encode() + b"\x00" + k.to_bytes(8, "big")).digest()


def sealed_seed(seed: bytes, salt: bytes) -> bytes:
    """The seed of a die sealed with an item (docs/protocol.md §8): SHA-256(b"pbem-sealed-die-v1\\n"
    + seed_k + salt), where seed_k is the seed of the segment that drew it and salt the 32-byte
    salt of the sealed item it goes with. The salt is fixed by the seal before segment k's
    values are revealed, so its sealer cannot choose the die; nobody else can work it out until
    the item is opened."""
    return sha256(SEALED_DOMAIN + seed + salt).digest()


def sealed_die(draw: dict, salt: str) -> int:
    """The die a sealed draw made (`engine._Dice.sealed_draw`: the segment's seed and the
    label, or a scripted die), read with its item's salt (hex): the first d6 of the label's
    stream under `sealed_seed`."""
    if "value" in draw:
        return draw["value"]
    return Stream(sealed_seed(bytes.fromhex(draw["seed"]), bytes.fromhex(salt)), draw["label"]).d6()


def stream_block(seed: bytes, label: str, j: int) -> bytes:
    """Block j of sub-stream `label`: HMAC-SHA256(seed, b"pbem-roll-v1" + label + 0x00 + j)."""
    return hmac_sha256(seed, ROLL_DOMAIN + label.encode() + b"\x00" + j.to_bytes(8, "big"))


class Stream:
    """The d6 rolls of one labelled sub-stream of one segment.

    `position` counts bytes consumed (including rejected ones), so a stream can resume
    exactly where an earlier step left it: the byte at position p is byte p % 32 of
    block p // 32."""

    __slots__ = ("seed", "label", "position", "_block", "_block_index")

    def __init__(self, seed: bytes, label: str, position: int = 0):
        self.seed = seed
        self.label = label
        self.position = position
        self._block = b""
        self._block_index = -1

    def _byte(self) -> int:
        block_index, offset = divmod(self.position, 32)
        if block_index != self._block_index:
            self._block = stream_block(self.seed, self.label, block_index)
            self._block_index = block_index
        self.position += 1
        return self._block[offset]

    def d6(self) -> int:
        """1 + b % 6 for the next byte b < 252 (rejection sampling keeps it unbiased)."""
        while True:
            b = self._byte()
            if b < 252:
                return 1 + b % 6


    def pick(self, n: int) -> int:
        """A uniform pick among n (0 .. n-1): the next 4 bytes as a big-endian v, skipped
        if v >= floor(2^32 / n) * n (rejection sampling keeps it unbiased), else v mod n."""
        if not 1 <= n <= 2**32:
            raise ValueError(f"a pick is among 1 to 2^32 things, not {n}")
        limit = (2**32 // n) * n
        while True:
            v = int.from_bytes(bytes(self._byte() for _ in range(4)), "big")
            if v < limit:
                return v % n


def first_d6(seed: bytes, label: str, count: int) -> list[int]:
    stream = Stream(seed, label)
    return [stream.d6() for _ in range(count)]
