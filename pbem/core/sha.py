"""SHA-256 and HMAC-SHA-256, the hashes of every state, chain and die, and the SHA-512 of
signatures (SSHSIG), without hashlib.

Importing hashlib loads OpenSSL's libcrypto, which costs a command a third of a bare
interpreter's start-up. CPython's own SHA-2 modules are small and give the same digests;
where they are missing, hashlib serves. OpenSSL hashes faster per byte, but a command hashes
a few kilobytes, and even the audit of a whole game (a few megabytes) spends no more on them
than loading libcrypto would have cost it. HMAC is built on SHA-256 as the standard library's
`hmac` builds it where OpenSSL is missing (RFC 2104): `hmac` itself imports hashlib.
tests/test_sha.py checks both against hashlib and hmac, and the shared vectors check the dice.
"""

from __future__ import annotations

try:                                      # CPython 3.11
    from _sha256 import sha256
    from _sha512 import sha512
except ImportError:
    try:                                  # CPython 3.12 and later
        from _sha2 import sha256, sha512
    except ImportError:                   # other interpreters
        from hashlib import sha256, sha512

__all__ = ["sha256", "sha512", "hmac_sha256"]

BLOCK = 64   # SHA-256's block, in bytes
_INNER = bytes(x ^ 0x36 for x in range(256))
_OUTER = bytes(x ^ 0x5C for x in range(256))


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA-256 of `message` under `key`: hmac.new(key, message, hashlib.sha256).digest()."""
    if len(key) > BLOCK:
        key = sha256(key).digest()
    key = key.ljust(BLOCK, b"\0")
    return sha256(key.translate(_OUTER) + sha256(key.translate(_INNER) + message).digest()).digest()
