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

from pbem.core.canonical import DOMAIN_PACKET, LazyPattern, canonical, digest, digest_of
from pbem.core.errors import InputError, VerificationError
from pbem.core.genesis import MAX_CHAIN_LENGTH, MIN_CHAIN_LENGTH
from pbem.core.text import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAMESPACE = "pbem-packet-v1"
PROTOCOL = 2
MAX_ORDERS = 1000
HEX64 = LazyPattern(r"[0-9a-f]{64}\Z")
HEX32 = LazyPattern(r"[0-9a-f]{32}\Z")
SEAL_ID = LazyPattern(r"[1-9][0-9]{0,8}\.[1-9][0-9]{0,3}\Z")   # a sealed item: SEQ.N (§8)
SIDE_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}\Z")
RFC3339 = LazyPattern(r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
                      r"(\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\Z")
FINGERPRINT = LazyPattern(r"SHA256:[A-Za-z0-9+/]{43}\Z")

_FIELDS = {
    "pbem": int, "game": str, "seq": int, "prev": str, "side": str, "reveal": dict,
    "orders": list, "policies": dict, "sent": str, "signature": dict,
    "sealed": list, "opens": list, "dice": list, "next_chain": dict,
}
_REQUIRED = ("pbem", "game", "seq", "prev", "side", "orders")


def signed_bytes(packet: dict) -> bytes:
    """The bytes a packet's signature covers: canonical form without `signature`."""
    return canonical({k: v for k, v in packet.items() if k != "signature"})


def packet_id(packet: dict, signed: bytes | None = None) -> str:
    """The name of a packet: the hash of its signed content, so that no re-encoding of a
    signature can make "another" packet of the same content (§2.3); `signed`, its
    `signed_bytes` where the caller has them already (the same hash, one encoding fewer)."""
    if signed is None:
        return digest(DOMAIN_PACKET, {k: v for k, v in packet.items() if k != "signature"})
    return digest_of(DOMAIN_PACKET, signed)


def not_a_packet(document: Any, source: str, command: str) -> None:
    """A file of pbem's that is not a packet, given to `command` on the command line where a
    packet is wanted: UsageError saying which it is and what takes it (a slip, not a forgery).
    A file with any field of a packet's own is a packet, broken or forged: the envelope's
    check says what is wrong (exit 3), as it does for every file in a game folder."""
    from pbem.core.errors import UsageError

    if not isinstance(document, dict):
        return
    take = f"`pbem {command}` takes a packet file, as your opponent sends it (packets/NNNN-SIDE.yaml)"
    if {"state_hash", "rules", "awaiting"} <= set(document):   # no packet has these
        raise UsageError(f"{source} is a state file, not a packet: pbem writes it; {take}")
    if any(name in document for name in ("game", "seq", "prev", "side", "signature")):
        return
    if "ruleset" in document and "sides" in document:
        kind = "a game's genesis" if "signatures" in document else "a proposal of a game"
        raise UsageError(f"{source} is {kind}, not a packet: `pbem join` takes it; {take}")
    if "orders" in document and set(document) <= {"orders", "policies"}:   # all an orders file holds
        raise UsageError(f"{source} is an orders file, not a packet: `pbem submit` makes a packet of it and signs it; "
                         f"{take}")


# A value's kind in the words of the file, not of Python (a packet cut off after `signature:`
# was "must be dict, not NoneType"; a hostile-input review).
_KIND = {dict: "a mapping", list: "a list", str: "a string", int: "an integer", bool: "true or false",
         type(None): "empty (null)"}


def check_envelope(packet: Any, source: str) -> dict:
    """Structural checks of the envelope; VerificationError naming the field."""
    if not isinstance(packet, dict):
        raise VerificationError(f"{source}: a packet must be a mapping")
    if "pbem" in packet and packet["pbem"] != PROTOCOL:
        raise VerificationError(f"{source}: the packet is pbem format {shown(str(packet['pbem']))}; this pbem reads "
                                f"format {PROTOCOL} (protocol 2) only")
    for name in _REQUIRED:
        if name not in packet:
            raise VerificationError(f"{source}: the packet has no `{name}` field; a file cut short in the mail loses "
                                    f"its last fields: ask its sender for the packet file again")
    for name, value in packet.items():
        expected = _FIELDS.get(name)
        if expected is None:
            raise VerificationError(f"{source}: unknown packet field `{shown(name)}`")
        if type(value) is not expected:
            raise VerificationError(f"{source}: packet field `{name}` must be {_KIND[expected]}, not "
                                    f"{_KIND.get(type(value), 'a ' + type(value).__name__)}")
    if packet["seq"] < 1:
        raise VerificationError(f"{source}: packet seq must be 1 or more")
    if not SIDE_NAME.match(packet["side"]):
        raise VerificationError(f"{source}: packet side {shown(repr(packet['side']))} is not a side name")
    for name in ("game", "prev"):
        if not (HEX32 if name == "game" else HEX64).match(packet[name]):
            raise VerificationError(f"{source}: `{name}` must be {32 if name == 'game' else 64} lower-case hex digits")
    if len(packet["orders"]) > MAX_ORDERS:
        raise InputError(f"{source}: the packet has {len(packet['orders'])} orders, over the limit of {MAX_ORDERS} "
                         f"(docs/protocol.md §7); nothing was applied")
    reveal = packet.get("reveal")
    if reveal is not None:
        if set(reveal) != {"index", "value"} or type(reveal["index"]) is not int or not isinstance(reveal["value"], str) \
                or not HEX64.match(reveal["value"]):
            raise VerificationError(f"{source}: `reveal` must be {{index: N, value: <64 lower-case hex digits>}}")
    chain = packet.get("next_chain")
    if chain is not None and (set(chain) != {"nonce", "chain_length", "anchor"}
                              or not (isinstance(chain["nonce"], str) and HEX32.match(chain["nonce"]))
                              or type(chain["chain_length"]) is not int
                              or not MIN_CHAIN_LENGTH <= chain["chain_length"] <= MAX_CHAIN_LENGTH
                              or not (isinstance(chain["anchor"], str) and HEX64.match(chain["anchor"]))):
        raise VerificationError(f"{source}: `next_chain` must be {{nonce: <32 lower-case hex digits>, chain_length: "
                                f"{MIN_CHAIN_LENGTH} to {MAX_CHAIN_LENGTH}, anchor: <64 lower-case hex digits>}}")
    if "sent" in packet and not RFC3339.match(packet["sent"]):
        raise VerificationError(f"{source}: `sent` must be an RFC 3339 time such as \"2026-11-29T10:00:00Z\", "
                                f"not {shown(repr(packet['sent'][:40]))}")
    sealed = packet.get("sealed")
    if sealed is not None and (not 1 <= len(sealed) <= MAX_ORDERS
                               or not all(isinstance(h, str) and HEX64.match(h) for h in sealed)):
        raise VerificationError(f"{source}: `sealed` must be a list of 1 to {MAX_ORDERS} seals of 64 lower-case hex digits")
    opens = packet.get("opens")
    if opens is not None:
        if not 1 <= len(opens) <= MAX_ORDERS or not all(
                isinstance(e, dict) and {"salt", "item"} <= set(e) <= {"salt", "item", "seal"}
                and isinstance(e["salt"], str) and HEX64.match(e["salt"])
                and ("seal" not in e or isinstance(e["seal"], str) and SEAL_ID.match(e["seal"])) for e in opens):
            raise VerificationError(f"{source}: `opens` must be a list of {{salt: <64 lower-case hex digits>, item: "
                                    f"<the order sealed>, seal: <SEQ.N, optional>}}")
        if len(opens) + len(packet["orders"]) > MAX_ORDERS:
            raise VerificationError(f"{source}: the packet opens and gives more than {MAX_ORDERS} orders")
    signature = packet.get("signature")
    if signature is not None and (set(signature) != {"key", "value"} or not all(isinstance(v, str) for v in signature.values())
                                  or not FINGERPRINT.match(signature["key"])):
        raise VerificationError(f"{source}: `signature` must be {{key: SHA256:..., value: <base64>}}")
    return packet


def sign(packet: dict, key: Any) -> dict:
    """Return the packet with its SSHSIG signature by `key` (a keys.PrivateKey)."""
    from pbem.core import keys

    blob = keys.sshsig_sign(key, signed_bytes(packet), NAMESPACE)
    signed = dict(packet)
    signed["signature"] = {"key": key.public.fingerprint(), "value": base64.b64encode(blob).decode()}
    return signed


def _signed_by(public: Any, packet: dict, blob: bytes) -> bool:
    from pbem.core import keys

    try:
        keys.sshsig_verify(public, signed_bytes(packet), blob, NAMESPACE)
    except VerificationError:
        return False
    return True


def verify_signature(packet: dict, public: Any, side: str, source: str, keys_of: dict | None = None) -> bytes:
    """Check that `public` (the genesis key of `side`) signed this packet; `keys_of`, every
    side's genesis key, names the side whose key a packet names instead. Returns the bytes
    the signature covers (`signed_bytes`), for the packet's id."""
    from pbem.core import keys

    signature = packet.get("signature")
    if signature is None:
        raise VerificationError(f"{source}: the packet is not signed, and this is a secure game")
    expected = public.fingerprint()
    blob = _decoded(signature["value"])
    if signature["key"] != expected:
        other = next((name for name, key in sorted((keys_of or {}).items())
                      if name != side and key.fingerprint() == signature["key"]), None)
        whose = ""
        if other is not None:   # said to be signed by another side only where its signature shows it (a review)
            whose = (f" (that is {other}'s key: {other} signed a packet in {side}'s name)"
                     if blob is not None and _signed_by(keys_of[other], packet, blob) else f" (that is {other}'s key)")
        raise VerificationError(
            f"{source}: the packet claims side {side} but names key {shown(signature['key'])}{whose}, "
            f"which is not {side}'s key {expected} in game.yaml")
    blob = signature_blob(packet, source)
    signed = signed_bytes(packet)
    try:
        keys.sshsig_verify(public, signed, blob, NAMESPACE)
    except keys.AlteredError:
        raise VerificationError(
            f"{source}: the signature of side {side} (key {expected}) does not verify: the packet, or its signature, "
            f"was altered after it was signed; ask {side} to send the packet file again, as an attachment, "
            f"unchanged") from None
    except VerificationError as exc:
        other = _other_signer(packet, blob, side, keys_of or {})
        if other is not None:   # a referee's probe: who signed it was left for him to work out
            raise VerificationError(
                f"{source}: the packet claims side {side} and names {side}'s key, but it was signed with {other}'s "
                f"key {keys_of[other].fingerprint()} in game.yaml: {other} signed a packet in {side}'s name") from None
        raise VerificationError(f"{source}: the signature of side {side} does not verify ({exc.message})") from None
    return signed


def _decoded(value: str) -> bytes | None:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def signature_blob(packet: dict, source: str) -> bytes:
    """The SSH signature blob a signed packet carries, from its base64 in the one canonical
    spelling (unused padding bits would give one signature many spellings, hence "different"
    packets); whether it is one and verifies is `verify`'s to say."""
    value = packet["signature"]["value"]
    blob = _decoded(value)
    if blob is None:
        raise VerificationError(f"{source}: the signature value is not valid base64")
    if base64.b64encode(blob).decode() != value:
        raise VerificationError(f"{source}: the signature value is not in canonical base64 (altered after signing)")
    return blob


def _other_signer(packet: dict, blob: bytes, side: str, keys_of: dict) -> str | None:
    """The other side whose genesis key the signature `blob` holds and verifies under, where
    the packet's `signature.key` names `side`'s key (the fingerprint written over); else None."""
    from pbem.core import keys

    try:
        signer = keys.sshsig_public_key(blob)
    except VerificationError:
        return None
    return next((name for name, key in sorted(keys_of.items())
                 if name != side and key.wire() == signer.wire() and _signed_by(key, packet, blob)), None)
