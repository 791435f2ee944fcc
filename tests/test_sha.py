"""pbem.core.sha: the digests of hashlib and hmac, without importing either."""

import hashlib
import hmac
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core import sha

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@settings(max_examples=300)
@given(data=st.binary(max_size=300))
def test_the_digests_are_hashlibs(data):
    assert sha.sha256(data).digest() == hashlib.sha256(data).digest()
    assert sha.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert sha.sha512(data).digest() == hashlib.sha512(data).digest()


@settings(max_examples=300)
@given(key=st.binary(max_size=200), message=st.binary(max_size=300))
def test_the_hmac_is_hmacs_for_keys_shorter_and_longer_than_a_block(key, message):
    assert sha.hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).digest()


def test_the_hmac_is_hmacs_for_keys_of_a_block_and_either_side_of_it():
    """A key of 64 bytes is used as it is; one of 65 is hashed first (RFC 2104)."""
    for length in (0, 1, 31, 32, 63, 64, 65, 128):
        key = bytes(range(length))
        for message in (b"", b"m", bytes(200)):
            assert sha.hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).digest(), length


def test_the_hmac_gives_rfc_4231s_vectors():
    """RFC 4231, test cases 1, 2 (a key shorter than the digest) and 6 (a key longer than a block)."""
    cases = [(b"\x0b" * 20, b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
             (b"Jefe", b"what do ya want for nothing?",
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
             (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")]
    for key, message, expected in cases:
        assert sha.hmac_sha256(key, message).hex() == expected


def test_no_command_of_a_game_imports_hashlib():
    """hashlib loads OpenSSL's libcrypto as it is imported: opening each example game and
    auditing one (signatures, chains, dice and states all hashed) import neither it nor hmac."""
    examples = sorted(str(p) for p in EXAMPLES.iterdir() if (p / "game.yaml").is_file())
    code = ("import sys\n"
            "from pbem.core import audit, describe, game\n"
            "for path in sys.argv[1:]:\n"
            "    describe.status(game.open_folder(path))\n"
            "assert audit.audit(sys.argv[-1]).ok\n"
            "sys.stderr.write(repr(sorted(m for m in ('hashlib', '_hashlib', 'hmac') if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, *examples], capture_output=True, text=True)
    assert len(examples) == 4
    assert (done.returncode, done.stderr) == (0, "[]")
