"""The turn-file envelope (DESIGN §2.3): build, sign, verify.

A packet's signature is an SSHSIG blob (namespace `pbem-packet-v1`) over the canonical
bytes of the packet without its `signature` field, so reformatting, comments and an email
client's line endings never break it, and stock `ssh-keygen -Y verify` can check it
against the bytes `pbem canonical` prints.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from pbem.core.canonical import DOMAIN_PACKET, canonical, digest
from pbem.core.errors import VerificationError

NAMESPACE = "pbem-packet-v1"
HEX64 = re.compile(r"[0-9a-f]{64}\Z")
SIDE_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}\Z")

_FIELDS = {
    "pbem": int, "game": str, "seq": int, "prev": str, "side": str, "reveal": dict,
    "anchor": str, "orders": list, "policies": dict, "sent": str, "signature": dict,
    "sealed": str, "opens": dict, "dice": list,
}
_REQUIRED = ("pbem", "game", "seq", "prev", "side", "orders")


def signed_bytes(packet: dict) -> bytes:
    """The bytes a packet's signature covers: canonical form without `signature`."""
    return canonical({k: v for k, v in packet.items() if k != "signature"})


def packet_hash(packet: dict) -> str:
    """The hash that names a packet (signature included), recorded in the state."""
    return digest(DOMAIN_PACKET, packet)


def check_envelope(packet: Any, source: str) -> dict:
    """Structural checks of the envelope; VerificationError naming the field."""
    if not isinstance(packet, dict):
        raise VerificationError(f"{source}: a packet must be a mapping")
    for name in _REQUIRED:
        if name not in packet:
            raise VerificationError(f"{source}: the packet has no `{name}` field")
    for name, value in packet.items():
        expected = _FIELDS.get(name)
        if expected is None:
            raise VerificationError(f"{source}: unknown packet field `{name}`")
        if type(value) is not expected:
            raise VerificationError(f"{source}: packet field `{name}` must be {expected.__name__}, not {type(value).__name__}")
    if packet["pbem"] != 1:
        raise VerificationError(f"{source}: packet format pbem: {packet['pbem']} is not supported (this pbem reads 1)")
    if packet["seq"] < 1:
        raise VerificationError(f"{source}: packet seq must be 1 or more")
    if not SIDE_NAME.match(packet["side"]):
        raise VerificationError(f"{source}: packet side {packet['side']!r} is not a side name")
    reveal = packet.get("reveal")
    if reveal is not None:
        if set(reveal) != {"index", "value"} or type(reveal["index"]) is not int or not isinstance(reveal["value"], str) \
                or not HEX64.match(reveal["value"]):
            raise VerificationError(f"{source}: `reveal` must be {{index: N, value: <64 hex digits>}}")
    if "anchor" in packet and not HEX64.match(packet["anchor"]):
        raise VerificationError(f"{source}: `anchor` must be 64 hex digits")
    signature = packet.get("signature")
    if signature is not None and (set(signature) != {"key", "value"} or not all(isinstance(v, str) for v in signature.values())):
        raise VerificationError(f"{source}: `signature` must be {{key: SHA256:..., value: <base64>}}")
    return packet


def sign(packet: dict, key: Any) -> dict:
    """Return the packet with its SSHSIG signature by `key` (a keys.PrivateKey)."""
    from pbem.core import keys

    blob = keys.sshsig_sign(key, signed_bytes(packet), NAMESPACE)
    signed = dict(packet)
    signed["signature"] = {"key": key.public.fingerprint(), "value": base64.b64encode(blob).decode()}
    return signed


def verify_signature(packet: dict, public: Any, side: str, source: str) -> None:
    """Check that `public` (the genesis key of `side`) signed this packet."""
    from pbem.core import keys

    signature = packet.get("signature")
    if signature is None:
        raise VerificationError(f"{source}: the packet is not signed, and this is a secure game")
    expected = public.fingerprint()
    if signature["key"] != expected:
        raise VerificationError(
            f"{source}: the packet claims side {side} but names key {signature['key']}, "
            f"which is not {side}'s key {expected} in game.yaml")
    try:
        blob = base64.b64decode(signature["value"], validate=True)
    except (binascii.Error, ValueError):
        raise VerificationError(f"{source}: the signature value is not valid base64") from None
    if base64.b64encode(blob).decode() != signature["value"]:
        # Unused padding bits would give one signature many spellings, hence "different" packets.
        raise VerificationError(f"{source}: the signature value is not in canonical base64 (altered after signing)")
    try:
        keys.sshsig_verify(public, signed_bytes(packet), blob, NAMESPACE)
    except VerificationError as exc:
        raise VerificationError(f"{source}: the signature of side {side} does not verify ({exc.message})") from None
