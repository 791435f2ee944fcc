"""Player keys and packet signatures.

Keys are Ed25519 in OpenSSH format, so a player can reuse ~/.ssh/id_ed25519 and share the
one-line .pub file. A key is named by its fingerprint exactly as `ssh-keygen -lf` prints it.
Signatures are SSHSIG blobs (OpenSSH PROTOCOL.sshsig), so anyone can check a packet with
stock `ssh-keygen -Y verify`."""

from __future__ import annotations

import base64
import binascii
import os
import struct
from pathlib import Path

from pbem.core import sha
from pbem.core.errors import FileError, PbemError, UsageError, VerificationError
from pbem.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

PASSPHRASE_ENV = "PBEM_PASSPHRASE"
KEY_TYPE = b"ssh-ed25519"
SSHSIG_MAGIC = b"SSHSIG"
SSHSIG_VERSION = 1
SSHSIG_HASH = "sha512"
_HASHES = {"sha256": sha.sha256, "sha512": sha.sha512}
_BEGIN, _END = "-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----"
_PRIVATE = "-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"
_ONLY_ED25519_KEYS = "pbem supports only Ed25519 keys"   # of a key a game's file holds, which its maker wrote
_ONLY_ED25519 = f"{_ONLY_ED25519_KEYS} (make one with `ssh-keygen -t ed25519`)"   # of the user's own
# The order of the Ed25519 base point: a canonical signature's scalar S is below it.
_ED25519_L = 2**252 + 27742317777372353535851937790883648493
_ED25519_P = 2**255 - 19
# y-coordinates of the points of small order (1, 2, 4 and 8): a key among them, or one
# whose y is not reduced mod p, can make a signature verify for more than one message.
_SMALL_ORDER_Y = frozenset({
    0, 1, _ED25519_P - 1,
    0x05fc536d880238b13933c6d305acdfd5f098eff289f4c345b027b2c28f95e826,
    0x7a03ac9277fdc74ec6cc392cfa53202a0f67100d760b3cba4fd84d3d706a17c7,
})


def _string(data: bytes) -> bytes:
    """An SSH wire `string`: uint32 length, then the bytes."""
    return struct.pack(">I", len(data)) + data


class _Reader:
    """Reads SSH wire fields from `data`; any shortfall is a VerificationError about `what`."""

    def __init__(self, data: bytes, what: str):
        self.data, self.pos, self.what = data, 0, what

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise VerificationError(f"{self.what} is truncated.")
        self.pos += n
        return self.data[self.pos - n : self.pos]

    def uint32(self) -> int:
        return struct.unpack(">I", self.take(4))[0]

    def string(self) -> bytes:
        return self.take(self.uint32())

    def text(self) -> str:
        try:
            return self.string().decode("utf-8")
        except UnicodeDecodeError:
            raise VerificationError(f"{self.what} has a field that is not UTF-8.") from None

    def done(self) -> None:
        if self.pos != len(self.data):
            extra = len(self.data) - self.pos
            raise VerificationError(f"{self.what} has {extra} unexpected trailing bytes.")


class PublicKey(Record):
    key: Ed25519PublicKey
    comment: str = ""

    def wire(self) -> bytes:
        return _string(KEY_TYPE) + _string(self.key.public_bytes_raw())

    def line(self) -> str:
        line = f"{KEY_TYPE.decode()} {base64.b64encode(self.wire()).decode()}"
        return f"{line} {self.comment}" if self.comment else line

    def fingerprint(self) -> str:
        digest = sha.sha256(self.wire()).digest()
        return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


class PrivateKey(Record):
    key: Ed25519PrivateKey
    public: PublicKey
    path: str | None = None


def _public_from_wire(wire: bytes, what: str, comment: str = "", only: str = _ONLY_ED25519) -> PublicKey:
    reader = _Reader(wire, what)
    kind = reader.string()
    if kind != KEY_TYPE:
        kind_text = kind[:40].decode("ascii", "replace")
        raise VerificationError(f"{what} is a {kind_text} key; {only}.")
    raw = reader.string()
    reader.done()
    if len(raw) != 32:
        raise VerificationError(f"{what} has an Ed25519 key of {len(raw)} bytes instead of 32.")
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    if y >= _ED25519_P or y in _SMALL_ORDER_Y:
        raise VerificationError(f"{what} is a weak Ed25519 key (a point of small order or not canonically encoded).")
    return PublicKey(_ed25519_public_key()(raw), comment)


def _ed25519_public_key() -> Callable[[bytes], Ed25519PublicKey]:
    """cryptography's Ed25519 public key from its 32 bytes. Checking a signature needs nothing
    else of cryptography, and its public module `...asymmetric.ed25519` imports `typing`,
    `cryptography.utils` and serialisation: 20 million instructions more than its compiled
    binding alone, 6% of adjudicating the chir example's last packet and 9% of the stalingrad
    one's. The public `Ed25519PublicKey.from_public_bytes` returns what this function of the
    binding does; a key either way is the same kind of object and verifies alike. (Versions
    42 to 44 first refuse Ed25519 where OpenSSL runs in FIPS mode, with UnsupportedAlgorithm,
    which pbem did not catch either; here OpenSSL itself has the say.) Where a version of
    cryptography lays its binding out otherwise, the public module serves (tests/test_keys.py
    checks both)."""
    try:
        from cryptography.hazmat.bindings._rust import openssl

        return openssl.ed25519.from_public_bytes
    except (ImportError, AttributeError):
        return _ed25519().Ed25519PublicKey.from_public_bytes


def _ed25519():
    """cryptography's public Ed25519 module, for what makes or reads private keys."""
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519


def _serialization():
    """cryptography's OpenSSH key files, imported where a private key is read or written only:
    the module imports `dataclasses`, which checking a packet's signature never needs
    (pbem/core/__init__.py)."""
    from cryptography.hazmat.primitives import serialization

    return serialization


def generate(comment: str = "") -> PrivateKey:
    key = _ed25519().Ed25519PrivateKey.generate()
    return PrivateKey(key, PublicKey(key.public_key(), comment))


def private_key_bytes(key: PrivateKey, passphrase: bytes | None = None) -> bytes:
    """The private key as an OpenSSH PEM file, encrypted (bcrypt KDF) if a passphrase is given."""
    ser = _serialization()
    encryption = ser.BestAvailableEncryption(passphrase) if passphrase else ser.NoEncryption()
    return key.key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.OpenSSH, encryption)


def write_keypair(
    name: str, directory: str | Path, comment: str = "", passphrase: bytes | None = None
) -> tuple[Path, Path]:
    """Write a fresh key to DIRECTORY/NAME (mode 0600 from creation) and DIRECTORY/NAME.pub."""
    if not name or Path(name).name != name:
        # say how to put it in a folder (a players' probe: `pbem keygen nato/nato` was refused, and
        # nothing said that `--dir` does it)
        where = Path(name).parent
        hint = (f": to write {Path(name).name!r} in {str(where)!r}, give `pbem keygen {Path(name).name} --dir {where}`"
                if Path(name).name and str(where) not in ("", ".") else "")
        raise FileError(f"Key name {name!r} must be a plain file name, without folders{hint}.")
    private_path = Path(directory) / name
    public_path = Path(directory) / f"{name}.pub"
    for path in (private_path, public_path):
        if path.exists():
            raise FileError(f"{path} already exists; pbem will not overwrite a key file.")
    key = generate(comment)
    try:
        fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(private_key_bytes(key, passphrase))
        with open(public_path, "x", encoding="utf-8") as f:
            f.write(key.public.line() + "\n")
    except OSError as e:  # FileExistsError too: another process won the race
        raise FileError(f"Cannot write key file {e.filename}: {e.strerror}.") from None
    return private_path, public_path


def _read(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise FileError(f"cannot read the key file {path}: {e.strerror or e}.") from None


def _is_encrypted(data: bytes, path: str | Path) -> bool:
    """Whether an OpenSSH private key file is passphrase-protected (its cipher is not "none")."""
    text = data.decode("ascii", "replace")
    if text.lstrip().startswith("ssh-"):   # a file of another kind than the option takes: usage (§5)
        raise UsageError(f"{path} is a public key; give the private key file (without .pub).")
    try:
        reader = _Reader(_unarmor(text, str(path), *_PRIVATE), str(path))
        if reader.take(15) != b"openssh-key-v1\0":
            raise VerificationError("wrong magic")
        return reader.string() != b"none"
    except VerificationError:
        raise FileError(f"{path} is not an OpenSSH private key file.") from None


def _companion_comment(path: str | Path, public: PublicKey) -> str:
    """The comment of PATH.pub if it holds the same key, else "" (OpenSSH keeps it encrypted)."""
    try:
        pub = load_public_key(Path(f"{path}.pub").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, PbemError):
        return ""
    return pub.comment if pub.wire() == public.wire() else ""


def load_private_key(
    path: str | Path, passphrase: bytes | None = None, prompt: Callable[[str], str] | None = None
) -> PrivateKey:
    """Load an Ed25519 OpenSSH private key; for a protected key without `passphrase`, use
    $PBEM_PASSPHRASE, else ask `prompt`."""
    data = _read(path)
    encrypted = _is_encrypted(data, path)
    if encrypted and passphrase is None:
        if PASSPHRASE_ENV in os.environ:
            passphrase = os.environ[PASSPHRASE_ENV].encode("utf-8")
        elif prompt is not None:
            passphrase = prompt(f"Passphrase for {path}: ").encode("utf-8")
        else:
            raise FileError(
                f"{path} is protected by a passphrase; set {PASSPHRASE_ENV} or run interactively."
            )
    from cryptography.exceptions import UnsupportedAlgorithm

    ser = _serialization()
    try:
        key = ser.load_ssh_private_key(data, passphrase if encrypted else None)
    except ValueError:
        if encrypted:
            raise FileError(f"cannot load the key: wrong passphrase for {path}.") from None
        raise FileError(f"{path} is not an OpenSSH private key file.") from None
    except UnsupportedAlgorithm as e:
        raise FileError(f"cannot load the key file {path}: {e}.") from None
    if not isinstance(key, _ed25519().Ed25519PrivateKey):
        raise FileError(f"{path} is not an Ed25519 key; {_ONLY_ED25519}.")
    public = PublicKey(key.public_key())
    return PrivateKey(key, public._replace(comment=_companion_comment(path, public)), str(path))


def public_key_of_private_file(path: str | Path) -> PublicKey | None:
    """The public key an OpenSSH private key file stores in the clear beside its (perhaps
    passphrase-protected) private part, read without the passphrase; None for a file that is
    not one (`load_private_key` then says what is wrong with it)."""
    try:
        reader = _Reader(_unarmor(Path(path).read_bytes().decode("ascii"), str(path), *_PRIVATE), str(path))
        if reader.take(15) != b"openssh-key-v1\0":
            return None
        reader.string(), reader.string(), reader.string()   # cipher, KDF and its options
        if reader.uint32() != 1:
            return None
        return _public_from_wire(reader.string(), str(path))
    except (OSError, UnicodeDecodeError, PbemError):
        return None


def load_public_key(text: str, own: bool = True) -> PublicKey:
    """Parse one "ssh-ed25519 AAAA... [comment]" line; VerificationError for anything else.
    `own`: a key the user gives, who is told how to make one of the kind pbem takes; not a key
    read from a game's file, which its maker wrote (a genesis, a proposal)."""
    only = _ONLY_ED25519 if own else _ONLY_ED25519_KEYS
    parts = text.strip().split(None, 2)
    if "PRIVATE KEY-----" in text:   # never echoed, not even its first line (a user's probe)
        raise VerificationError("it is a private key; give its public key (the .pub file beside it).")
    if len(parts) < 2 or "\n" in text.strip():
        raise VerificationError(f"{text.strip()[:40]!r} is not a one-line OpenSSH public key.")
    if parts[0] != KEY_TYPE.decode():
        raise VerificationError(f"The public key is a {parts[0][:40]} key; {only}.")
    try:
        wire = base64.b64decode(parts[1], validate=True)
    except (binascii.Error, ValueError):   # ValueError: a character beyond ASCII (a probe's crash)
        raise VerificationError(f"The public key {parts[1][:20]}... is not valid base64.") from None
    if base64.b64encode(wire).decode() != parts[1]:
        raise VerificationError(f"The public key {parts[1][:20]}... is not in canonical base64.")
    return _public_from_wire(wire, "The public key", parts[2] if len(parts) > 2 else "", only)


def load_public_key_file(path: str | Path) -> PublicKey:
    try:
        return load_public_key(_read(path).decode("utf-8"))
    except (UnicodeDecodeError, VerificationError) as e:
        reason = e.message if isinstance(e, VerificationError) else "it is not UTF-8 text."
        # the private key of a pair given for its public key is a file of another kind than
        # the option takes (usage, §5); anything else is a broken or foreign file
        kind = UsageError if reason.startswith("it is a private key") else FileError
        raise kind(f"{path} is not an Ed25519 public key file: {reason}") from None


def sign_raw(key: PrivateKey, data: bytes) -> bytes:
    return key.key.sign(data)


def _signed_data(message: bytes, namespace: str, hash_algorithm: str) -> bytes:
    digest = _HASHES[hash_algorithm](message).digest()
    fields = (namespace.encode(), b"", hash_algorithm.encode(), digest)
    return SSHSIG_MAGIC + b"".join(_string(f) for f in fields)


def _sshsig_blob(public: PublicKey, namespace: str, signature: bytes) -> bytes:
    fields = (public.wire(), namespace.encode(), b"", SSHSIG_HASH.encode(),
              _string(KEY_TYPE) + _string(signature))  # fmt: skip
    return SSHSIG_MAGIC + struct.pack(">I", SSHSIG_VERSION) + b"".join(_string(f) for f in fields)


def sshsig_sign(key: PrivateKey, message: bytes, namespace: str) -> bytes:
    if not namespace:
        raise ValueError("an SSHSIG namespace must not be empty")
    return _sshsig_blob(key.public, namespace, key.key.sign(_signed_data(message, namespace, SSHSIG_HASH)))


def _parse_sshsig(blob: bytes) -> tuple[PublicKey, str, str, bytes]:
    """(public key, namespace, hash algorithm, raw Ed25519 signature) of an SSHSIG blob.

    Only the one canonical encoding is accepted (DESIGN §2.3): an empty reserved field,
    sha512, no trailing bytes, a signature scalar S < L. A blob that verified in any other
    spelling would give the same signed content a second packet id, hence false evidence
    of equivocation against an honest player."""
    reader = _Reader(blob, "The SSH signature")
    if reader.take(6) != SSHSIG_MAGIC:
        raise VerificationError("The SSH signature has the wrong magic (not an SSHSIG blob).")
    if (version := reader.uint32()) != SSHSIG_VERSION:
        raise VerificationError(f"The SSH signature has unsupported version {version}.")
    public = _public_from_wire(reader.string(), "The SSH signature's key")
    namespace, reserved, hash_algorithm = reader.text(), reader.string(), reader.text()
    signature = _Reader(reader.string(), "The SSH signature's signature field")
    reader.done()
    if reserved:
        raise VerificationError("The SSH signature has a non-empty reserved field (not the canonical encoding).")
    if hash_algorithm != SSHSIG_HASH:
        raise VerificationError(f"The SSH signature uses hash {hash_algorithm[:20]!r}; pbem signatures use {SSHSIG_HASH}.")
    if (kind := signature.string()) != KEY_TYPE:
        kind_text = kind[:40].decode("ascii", "replace")
        raise VerificationError(f"The SSH signature is of type {kind_text}, not ssh-ed25519.")
    raw = signature.string()
    signature.done()
    if len(raw) != 64:
        raise VerificationError(f"The SSH signature holds {len(raw)} bytes instead of an Ed25519 signature's 64.")
    if int.from_bytes(raw[32:], "little") >= _ED25519_L:
        raise VerificationError("The SSH signature's scalar is not reduced (S >= L): not the canonical encoding.")
    return public, namespace, hash_algorithm, raw


def sshsig_public_key(blob: bytes) -> PublicKey:
    return _parse_sshsig(blob)[0]


def sshsig_verify(public: PublicKey, message: bytes, blob: bytes, namespace: str) -> None:
    signer, signed_namespace, hash_algorithm, raw = _parse_sshsig(blob)
    if signed_namespace != namespace:
        raise VerificationError(
            f"The SSH signature is for namespace {signed_namespace[:40]!r}, not {namespace!r}."
        )
    if signer.wire() != public.wire():
        raise VerificationError(
            f"The signature names key {signer.fingerprint()}, not {public.fingerprint()}: it was made by another "
            "key, or its bytes were altered."
        )
    if _sshsig_blob(public, namespace, raw) != blob:  # belt and braces: one spelling only
        raise VerificationError("The SSH signature is not in its canonical encoding.")
    try:
        public.key.verify(raw, _signed_data(message, namespace, hash_algorithm))
    except Exception as exc:
        # imported by cryptography as it raised, so a good signature never imports it
        from cryptography.exceptions import InvalidSignature

        if not isinstance(exc, InvalidSignature):
            raise
        raise AlteredError(
            f"The signature by {public.fingerprint()} does not verify: "
            "the message or the signature was altered."
        ) from None


class AlteredError(VerificationError):
    """A well-formed signature by the right key that does not match the signed bytes: they
    (or the signature) were changed after signing; callers may say what to do about it."""


def armor(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    lines = [text[i : i + 70] for i in range(0, len(text), 70)]
    return "\n".join([_BEGIN, *lines, _END]) + "\n"


def dearmor(text: str) -> bytes:
    return _unarmor(text, "The SSH signature", _BEGIN, _END)


def _unarmor(text: str, what: str, begin: str, end: str) -> bytes:
    """The base64 body between the `begin` and `end` lines of `text`, decoded."""
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise VerificationError(f"No {begin} ... {end} block found.")
    try:
        return base64.b64decode("".join(text[start + len(begin) : stop].split()), validate=True)
    except (binascii.Error, ValueError):   # ValueError: a character beyond ASCII (a probe's crash)
        raise VerificationError(f"{what} is not valid base64.") from None
