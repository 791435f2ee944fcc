"""Keys and SSHSIG signatures, checked against stock OpenSSH `ssh-keygen` where installed."""

from __future__ import annotations

import re
import shutil
import stat
import subprocess

import pytest

from pbem.core import keys
from pbem.core.errors import FileError, UsageError, VerificationError

NS = "pbem-packet-v1"
MESSAGE = b"seq: 7\norders:\n- move 11Pz/15 to 2834\n"
needs_ssh_keygen = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed"
)


def ssh_keygen(*args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["ssh-keygen", *map(str, args)], input=stdin, capture_output=True)


def ssh_keygen_key(tmp_path, name="ssh", passphrase="") -> str:
    path = tmp_path / name
    comment = "made by ssh-keygen"
    result = ssh_keygen("-q", "-t", "ed25519", "-N", passphrase, "-C", comment, "-f", path)
    assert result.returncode == 0, result.stderr
    return str(path)


def ssh_fingerprint(pub_path) -> str:
    result = ssh_keygen("-lf", pub_path)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode().split()[1]


def flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 1]) + data[index + 1 :]


# generate, write, load


def test_write_load_round_trip(tmp_path):
    private_path, public_path = keys.write_keypair("alice", tmp_path, comment="alice@example")
    assert (private_path, public_path) == (tmp_path / "alice", tmp_path / "alice.pub")
    assert stat.S_IMODE(private_path.stat().st_mode) == 0o600
    loaded = keys.load_private_key(private_path)
    public = keys.load_public_key_file(public_path)
    assert public.comment == loaded.public.comment == "alice@example"
    assert public.wire() == loaded.public.wire()
    assert public_path.read_text() == public.line() + "\n"
    assert loaded.path == str(private_path)
    assert keys.sign_raw(loaded, b"x") == keys.sign_raw(loaded, b"x")  # Ed25519 is deterministic
    public.key.verify(keys.sign_raw(loaded, b"x"), b"x")


def test_write_refuses_to_overwrite(tmp_path):
    keys.write_keypair("alice", tmp_path)
    before = (tmp_path / "alice").read_bytes(), (tmp_path / "alice.pub").read_bytes()
    with pytest.raises(FileError, match="alice already exists; pbem will not overwrite"):
        keys.write_keypair("alice", tmp_path)
    assert ((tmp_path / "alice").read_bytes(), (tmp_path / "alice.pub").read_bytes()) == before
    (tmp_path / "alice").unlink()
    with pytest.raises(FileError, match=r"alice\.pub already exists"):
        keys.write_keypair("alice", tmp_path)
    assert not (tmp_path / "alice").exists()
    with pytest.raises(FileError, match="Cannot write key file .*missing"):
        keys.write_keypair("alice", tmp_path / "missing")


def test_write_rejects_name_with_folder(tmp_path):
    with pytest.raises(FileError, match="plain file name"):
        keys.write_keypair("../alice", tmp_path)
    # the refusal says how to write a key into a folder (a players' probe)
    with pytest.raises(FileError) as refused:
        keys.write_keypair("nato/nato", tmp_path)
    assert str(refused.value).endswith("without folders: to write 'nato' in 'nato', give "
                                       "`pbem keygen nato --dir nato`.")
    assert not (tmp_path / "nato").exists()


def test_passphrase_round_trip(tmp_path, monkeypatch):
    monkeypatch.delenv(keys.PASSPHRASE_ENV, raising=False)
    private_path, _ = keys.write_keypair("bob", tmp_path, passphrase=b"s3cret")
    loaded = keys.load_private_key(private_path, passphrase=b"s3cret")
    assert loaded.public == keys.load_public_key_file(private_path.with_name("bob.pub"))
    with pytest.raises(FileError, match="wrong passphrase for .*bob"):
        keys.load_private_key(private_path, passphrase=b"wrong")
    with pytest.raises(FileError, match="PBEM_PASSPHRASE"):
        keys.load_private_key(private_path)


def test_public_line_round_trip():
    key = keys.generate("carol at home")
    line = key.public.line()
    assert line.startswith("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI")
    assert line.endswith(" carol at home")
    parsed = keys.load_public_key(line + "\n")
    assert parsed == key.public and parsed.line() == line
    assert keys.generate().public.line().count(" ") == 1


def test_missing_and_non_key_files(tmp_path):
    with pytest.raises(FileError, match="cannot read the key file .*nothere"):
        keys.load_private_key(tmp_path / "nothere")
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(FileError, match="notes.txt is not an OpenSSH private key file"):
        keys.load_private_key(tmp_path / "notes.txt")
    with pytest.raises(FileError, match="notes.txt is not an Ed25519 public key file"):
        keys.load_public_key_file(tmp_path / "notes.txt")
    private_path, public_path = keys.write_keypair("dan", tmp_path)
    # a file of the other kind of the pair is a usage error (exit 2), as a packet given to `submit` is
    with pytest.raises(UsageError, match=r"dan\.pub is a public key"):
        keys.load_private_key(public_path)
    # the private key given for the public one is said to be one, and none of it is shown (a user's probe)
    with pytest.raises(UsageError) as refused:
        keys.load_public_key_file(private_path)
    assert refused.value.message == (f"{private_path} is not an Ed25519 public key file: it is a private key; give its "
                                     "public key (the .pub file beside it).")


def test_a_key_file_with_a_letter_beyond_ascii_in_its_base64_is_refused_naming_it(tmp_path):
    """A key file whose base64 holds an accented letter (a hand's or a mail program's edit): Python's
    base64 raised ValueError, not binascii.Error, for a character beyond ASCII, and `pbem status
    --key`, `orders --key` and `new --side` ended in a traceback (a damaged-file probe)."""
    private_path, public_path = keys.write_keypair("erin", tmp_path)
    line = public_path.read_text()
    damaged = line[:30] + "\u00e9" + line[31:]
    public_path.write_text(damaged)
    with pytest.raises(FileError) as refused:
        keys.load_public_key_file(public_path)
    assert "\u00e9" in damaged.split()[1][:20]
    assert refused.value.message == (f"{public_path} is not an Ed25519 public key file: The public key "
                                     f"{damaged.split()[1][:20]}... is not valid base64.")
    text = private_path.read_text()
    body = text.index("\n") + 5
    private_path.write_text(text[:body] + "\u00e9" + text[body + 1:])
    with pytest.raises(FileError) as refused:
        keys.load_private_key(private_path)
    assert refused.value.message == f"{private_path} is not an OpenSSH private key file."
    with pytest.raises(VerificationError, match="The SSH signature is not valid base64"):
        keys.dearmor(keys.armor(b"x" * 60).replace("e", "\u00e9", 1))


def test_load_public_key_rejects_rsa_and_garbage():
    rsa = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDL user@host"
    with pytest.raises(VerificationError, match="ssh-rsa key; pbem supports only Ed25519 keys"):
        keys.load_public_key(rsa)
    with pytest.raises(VerificationError, match="not a one-line OpenSSH public key"):
        keys.load_public_key("garbage")
    with pytest.raises(VerificationError, match="not valid base64"):
        keys.load_public_key("ssh-ed25519 AAAA!!notbase64")
    # an ssh-ed25519 label on an RSA key blob
    with pytest.raises(VerificationError, match="ssh-rsa key"):
        keys.load_public_key("ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAAAgQDL")


# SSHSIG


def test_sshsig_sign_verify_and_tamper():
    key, other = keys.generate(), keys.generate()
    blob = keys.sshsig_sign(key, MESSAGE, NS)
    assert blob == keys.sshsig_sign(key, MESSAGE, NS)
    keys.sshsig_verify(key.public, MESSAGE, blob, NS)
    assert blob.startswith(b"SSHSIG\0\0\0\1") and b"\0\0\0\6sha512\0\0\0\x53" in blob
    assert keys.sshsig_public_key(blob).wire() == key.public.wire()
    assert keys.dearmor(keys.armor(blob)) == blob

    with pytest.raises(VerificationError, match="does not verify"):
        keys.sshsig_verify(key.public, flip(MESSAGE, 3), blob, NS)
    with pytest.raises(VerificationError, match="does not verify"):
        keys.sshsig_verify(key.public, MESSAGE, flip(blob, len(blob) - 5), NS)
    with pytest.raises(VerificationError, match="wrong magic"):
        keys.sshsig_verify(key.public, MESSAGE, flip(blob, 0), NS)
    with pytest.raises(VerificationError, match="namespace 'pbem-packet-v1', not 'file'"):
        keys.sshsig_verify(key.public, MESSAGE, blob, "file")
    signer = re.escape(f"names key {key.public.fingerprint()}, not {other.public.fingerprint()}: it was made by "
                       "another key, or its bytes were altered")
    with pytest.raises(VerificationError, match=signer):
        keys.sshsig_verify(other.public, MESSAGE, blob, NS)
    with pytest.raises(VerificationError, match="truncated"):
        keys.sshsig_verify(key.public, MESSAGE, blob[:-1], NS)
    with pytest.raises(VerificationError, match="not valid base64"):
        keys.dearmor(keys.armor(blob).replace("-----\nU1NI", "-----\nU*NI"))
    with pytest.raises(VerificationError, match="No -----BEGIN SSH SIGNATURE"):
        keys.dearmor("hello")


def test_every_flipped_byte_is_rejected():
    key = keys.generate()
    blob = keys.sshsig_sign(key, MESSAGE, NS)
    for i in range(len(blob)):
        with pytest.raises(VerificationError):
            keys.sshsig_verify(key.public, MESSAGE, flip(blob, i), NS)


def test_armor_wraps_at_70_columns():
    text = keys.armor(keys.sshsig_sign(keys.generate(), MESSAGE, NS))
    lines = text.splitlines()
    assert lines[0] == "-----BEGIN SSH SIGNATURE-----"
    assert lines[-1] == "-----END SSH SIGNATURE-----"
    assert [len(line) for line in lines[1:-2]] == [70] * (len(lines) - 3)
    assert 0 < len(lines[-2]) <= 70 and text.endswith("-----\n")


# interoperability with stock OpenSSH


@needs_ssh_keygen
def test_fingerprint_matches_ssh_keygen(tmp_path):
    _, public_path = keys.write_keypair("erin", tmp_path, comment="erin")
    assert keys.load_public_key_file(public_path).fingerprint() == ssh_fingerprint(public_path)
    path = ssh_keygen_key(tmp_path)
    public = keys.load_public_key_file(path + ".pub")
    assert public.fingerprint() == ssh_fingerprint(path + ".pub")
    assert public.line() == open(path + ".pub").read().strip()


@needs_ssh_keygen
def test_ssh_keygen_key_loads_and_signs(tmp_path):
    path = ssh_keygen_key(tmp_path)
    key = keys.load_private_key(path)
    assert key.public.comment == "made by ssh-keygen"
    assert key.public.fingerprint() == ssh_fingerprint(path + ".pub")
    keys.sshsig_verify(key.public, MESSAGE, keys.sshsig_sign(key, MESSAGE, NS), NS)


@needs_ssh_keygen
def test_ssh_keygen_key_with_passphrase(tmp_path, monkeypatch):
    monkeypatch.delenv(keys.PASSPHRASE_ENV, raising=False)
    path = ssh_keygen_key(tmp_path, passphrase="open sesame")
    expected = ssh_fingerprint(path + ".pub")
    assert keys.load_private_key(path, passphrase=b"open sesame").public.fingerprint() == expected

    prompts = []
    key = keys.load_private_key(path, prompt=lambda text: prompts.append(text) or "open sesame")
    assert key.public.fingerprint() == expected and prompts == [f"Passphrase for {path}: "]

    with pytest.raises(FileError, match=re.escape(f"wrong passphrase for {path}")):
        keys.load_private_key(path, passphrase=b"open sesame!")
    no_source = re.escape(f"{path} is protected by a passphrase; set PBEM_PASSPHRASE")
    with pytest.raises(FileError, match=no_source):
        keys.load_private_key(path)

    monkeypatch.setenv(keys.PASSPHRASE_ENV, "open sesame")
    key = keys.load_private_key(path, prompt=lambda _: pytest.fail("prompted despite the env"))
    assert key.public.fingerprint() == expected
    monkeypatch.setenv(keys.PASSPHRASE_ENV, "nope")
    with pytest.raises(FileError, match="wrong passphrase"):
        keys.load_private_key(path)


@needs_ssh_keygen
def test_our_encrypted_key_loads_in_ssh_keygen(tmp_path):
    private_path, public_path = keys.write_keypair("fay", tmp_path, passphrase=b"pw")
    result = ssh_keygen("-y", "-P", "pw", "-f", private_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().split()[:2] == public_path.read_text().split()[:2]


@needs_ssh_keygen
def test_rsa_private_key_is_rejected(tmp_path):
    path = tmp_path / "rsa"
    assert ssh_keygen("-q", "-t", "rsa", "-b", "1024", "-N", "", "-f", path).returncode == 0
    with pytest.raises(FileError, match="rsa is not an Ed25519 key; pbem supports only Ed25519"):
        keys.load_private_key(path)
    with pytest.raises(FileError, match="ssh-rsa key; pbem supports only Ed25519"):
        keys.load_public_key_file(f"{path}.pub")


@needs_ssh_keygen
def test_ssh_keygen_verifies_our_signature(tmp_path):
    key = keys.generate()
    (tmp_path / "allowed_signers").write_text(f"signer {key.public.line()}\n")
    (tmp_path / "file.sig").write_text(keys.armor(keys.sshsig_sign(key, MESSAGE, NS)))

    def verify(message: bytes) -> subprocess.CompletedProcess:
        return ssh_keygen("-Y", "verify", "-f", tmp_path / "allowed_signers", "-I", "signer",
                          "-n", NS, "-s", tmp_path / "file.sig", stdin=message)  # fmt: skip

    accepted = verify(MESSAGE)
    assert accepted.returncode == 0, accepted.stderr
    assert verify(flip(MESSAGE, 0)).returncode != 0


@needs_ssh_keygen
def test_we_verify_ssh_keygen_signature(tmp_path):
    path = ssh_keygen_key(tmp_path)
    (tmp_path / "message").write_bytes(MESSAGE)
    result = ssh_keygen("-q", "-Y", "sign", "-f", path, "-n", NS, tmp_path / "message")
    assert result.returncode == 0, result.stderr
    blob = keys.dearmor((tmp_path / "message.sig").read_text())
    public = keys.load_public_key_file(path + ".pub")
    keys.sshsig_verify(public, MESSAGE, blob, NS)
    assert keys.sshsig_public_key(blob).fingerprint() == public.fingerprint()
    with pytest.raises(VerificationError, match="does not verify"):
        keys.sshsig_verify(public, MESSAGE + b" ", blob, NS)
    with pytest.raises(VerificationError, match="namespace"):
        keys.sshsig_verify(public, MESSAGE, blob, "git")


# canonical signatures and weak keys (DESIGN §2.3, attack 25)

def test_a_signature_with_an_unreduced_scalar_is_refused():
    key = keys.generate()
    blob = keys.sshsig_sign(key, MESSAGE, NS)
    raw = blob[-64:]
    s = int.from_bytes(raw[32:], "little") + keys._ED25519_L
    assert s < 2**256
    twin = blob[:-32] + s.to_bytes(32, "little")
    with pytest.raises(VerificationError, match="not reduced"):
        keys.sshsig_verify(key.public, MESSAGE, twin, NS)


@pytest.mark.parametrize("y", [0, 1, 2**255 - 20, 2**255 - 19, 2**255 - 18])
def test_small_order_and_unreduced_public_keys_are_refused(y):
    import base64
    import struct

    raw = y.to_bytes(32, "little")
    wire = struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", 32) + raw
    with pytest.raises(VerificationError, match="weak Ed25519 key"):
        keys.load_public_key("ssh-ed25519 " + base64.b64encode(wire).decode())


# checking a signature needs only cryptography's compiled binding (keys._ed25519_public_key)

def test_a_public_key_made_through_the_binding_is_cryptographys_own():
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    for _ in range(8):
        key = keys.generate()
        raw = key.public.key.public_bytes_raw()
        fast, public = keys._ed25519_public_key()(raw), Ed25519PublicKey.from_public_bytes(raw)
        assert type(fast) is type(public) and fast == public and isinstance(fast, Ed25519PublicKey)
        signature = key.key.sign(MESSAGE)
        fast.verify(signature, MESSAGE)
        for made in (fast, public):
            with pytest.raises(InvalidSignature):
                made.verify(signature, MESSAGE + b" ")
            with pytest.raises(InvalidSignature):
                made.verify(flip(signature, 9), MESSAGE)


@pytest.mark.parametrize("openssl", [None, "without ed25519"])
def test_where_the_binding_lacks_the_key_function_the_public_module_serves(monkeypatch, openssl):
    """A version of cryptography that lays its binding out otherwise checks signatures as well:
    one whose binding has no `openssl`, or an `openssl` without `ed25519`."""
    import sys
    import types

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    binding = types.ModuleType("elsewhere")
    if openssl is not None:
        binding.openssl = types.SimpleNamespace()
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.bindings._rust", binding)
    assert keys._ed25519_public_key() == Ed25519PublicKey.from_public_bytes
    key = keys.generate()
    blob = keys.sshsig_sign(key, MESSAGE, NS)
    public = keys.load_public_key(key.public.line())
    keys.sshsig_verify(public, MESSAGE, blob, NS)
    with pytest.raises(VerificationError, match="does not verify"):
        keys.sshsig_verify(public, flip(MESSAGE, 3), blob, NS)


def test_checking_a_signed_game_imports_neither_typing_nor_cryptographys_public_modules(tmp_path):
    """Adjudicating a signed packet, auditing a signed game, and its status and show take of
    cryptography its compiled binding alone, which checks a signature: its public Ed25519
    module imports `typing` and `cryptography.utils`, which only making or reading a private
    key needs (keys._ed25519_public_key)."""
    import shutil
    from pathlib import Path

    from pbem.core import game
    from tests.support.imports import imported

    heavy = ("typing", "cryptography.utils", "cryptography.hazmat.primitives.asymmetric.ed25519",
             "cryptography.exceptions")
    examples = Path(__file__).resolve().parent.parent / "examples"
    ran = []
    for name in ("chir", "dos", "kkoh", "stalingrad"):
        folder = tmp_path / name
        shutil.copytree(examples / f"{name}-demo", folder)
        last = game.packet_files(folder)[-1][1]
        seq = last.name[:4]
        packet = tmp_path / f"{name}-{last.name}"
        last.rename(packet)
        (folder / "states" / f"{seq}.yaml").unlink()
        (folder / "aar" / f"{seq}.md").unlink()
        commands = [["adjudicate", str(folder), str(packet)]] + {
            "chir": [["audit", str(folder)]], "stalingrad": [["status", str(folder)], ["show", str(folder)]]}.get(name, [])
        for command in commands:
            assert imported(tmp_path, command, ("pbem.core.keys",) + heavy) == ["pbem.core.keys"], command
            ran.append((name, command[0]))
        assert (folder / "states" / f"{seq}.yaml").is_file()   # the packet was applied
    assert len(ran) == 7
