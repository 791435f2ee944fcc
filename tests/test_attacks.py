"""Every attack and bad input of acceptance/attacks.md, through the command line.

Each test builds the bad input, runs the `pbem` command a player would run, and checks the
exact outcome: the exit code of DESIGN §5, a first line on stderr that names the problem
in one sentence, and a game folder left byte for byte as it was. The games are secure
`duel` games made with `pbem new`: red's and blue's folders of the same game, and a
mailbox folder for the packet files they email each other.
"""

from __future__ import annotations

import atexit
import base64
import copy
import errno
import json
import os
import quopri
import re
import shutil
import tempfile
import tracemalloc
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from pbem import rulesets
from pbem.cli import cli
from pbem.core import canonical, demo, dice, engine, game, keys
from pbem.core.errors import FileError, RulesError, VerificationError
from pbem.core.packet import sign
from pbem.core.submit import submit_orders
from tests.support.games import fixed_key, nonce

CREATED = "2026-11-29T10:00:00Z"
SENT = "2026-11-29T12:00:00Z"
SIDES = ("red", "blue")
CHAIN = 64
FIRE = {"type": "fire", "unit": "r1", "target": "b1"}


# --- helpers ------------------------------------------------------------------------------

def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def ok(result):
    assert result.exit_code == 0, result.output
    return result


def fails(result, code: int, *words: str):
    """The command failed with `code` and a first stderr line naming the problem."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # an error, not a crash
    assert "Traceback" not in result.output
    first = result.stderr.splitlines()[0]
    assert first.startswith("pbem: ") and len(first) > 20, first
    for word in words:
        assert word.lower() in first.lower(), (word, first)
    return first


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under `folder` (hidden ones too): path -> bytes (None for folders)."""
    folder = Path(folder)
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def rejected(folder: Path, args: list, code: int, *words: str, root: Path | None = None) -> str:
    """Run `pbem ARGS`; it must fail with `code`, naming `words`, and change nothing in
    `folder` (or in all of `root`, when given)."""
    watched = Path(root or folder)
    before = snapshot(watched)
    first = fails(run(*args), code, *words)
    assert snapshot(watched) == before
    return first


def write_key(directory: Path, name: str, seed: str) -> Path:
    """A deterministic key (so every run has the same dice) as OpenSSH files NAME and NAME.pub."""
    path = directory / name
    if not path.exists():
        key = fixed_key(seed)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(keys.private_key_bytes(key))
        (directory / f"{name}.pub").write_text(key.public.line() + "\n")
    return path


def unsigned(packet: dict) -> dict:
    return {k: v for k, v in packet.items() if k != "signature"}


def resign(packet: dict, key, **changes) -> dict:
    """The packet with `changes` (None removes a field), signed again by `key`."""
    body = unsigned(packet)
    for name, value in changes.items():
        if value is None:
            body.pop(name, None)
        else:
            body[name] = value
    return sign(body, key)


_HANDSHAKES: dict[tuple, Path] = {}


def _handshake(name: str, created: str, key_seed: str, ruleset: str) -> Path:
    """A directory holding the keys (keys-SEED/) and both folders (NAME/SIDE/) of the handshake
    of §2.2 with fixed keys and nonces, so that every run has the same dice (tests/test_cli.py
    and test_21_* run it through the command line). It is made once per process for each
    game and copied for each table: the files are the same bytes every time."""
    made = _HANDSHAKES.get((name, created, key_seed, ruleset))
    if made is None:
        made = Path(tempfile.mkdtemp(prefix="pbem-handshake-"))
        atexit.register(shutil.rmtree, made, True)
        sides = rulesets.get(ruleset).sides
        key_dir = made / f"keys-{key_seed}"
        key_dir.mkdir()
        private = {side: keys.load_private_key(write_key(key_dir, side, f"{key_seed}-{side}")) for side in sides}
        demo.handshake({side: made / name / side for side in sides}, rulesets.get(ruleset), private, created=created,
                       chain_length=CHAIN, nonces={side: nonce(f"{key_seed}-{name}-{side}") for side in sides})
        _HANDSHAKES[(name, created, key_seed, ruleset)] = made
    return made


class Table:
    """A secure duel made with `pbem new`: red's and blue's folders of the same game."""

    def __init__(self, root: Path, name: str = "game", created: str = CREATED, key_seed: str = "attacks",
                 ruleset: str = "duel"):
        self.root = Path(root)
        self.mail = self.root / "mail"
        self.mail.mkdir(parents=True, exist_ok=True)
        self.sides = rulesets.get(ruleset).sides
        made = _handshake(name, created, key_seed, ruleset)
        for part in (f"keys-{key_seed}", name):
            shutil.copytree(made / part, self.root / part, dirs_exist_ok=True)
        key_dir = self.root / f"keys-{key_seed}"
        self.key_files = {side: key_dir / side for side in self.sides}
        self.keys = {side: keys.load_private_key(path) for side, path in self.key_files.items()}
        self.dirs = {side: self.root / name / side for side in self.sides}
        self._posted = 0

    def other(self, side: str) -> str:
        return self.sides[1 - self.sides.index(side)]

    def folder(self, side: str | None = None) -> game.Folder:
        return game.open_folder(self.dirs[side or self.sides[0]])

    def state(self, side: str | None = None) -> dict:
        return self.folder(side).state

    @property
    def game(self) -> engine.Game:
        return self.folder().game

    def submit(self, side: str, orders: list, policies: dict | None = None) -> Path:
        """`side` submits in its own folder; the packet file it would email."""
        applied = submit_orders(self.folder(side), copy.deepcopy(orders), policies, key=self.keys[side], sent=SENT)
        return applied.packet_path

    def deliver(self, packet_path: Path, side: str) -> None:
        ok(run("adjudicate", self.dirs[side], packet_path))

    def send(self, side: str, orders: list = (), policies: dict | None = None) -> Path:
        path = self.submit(side, list(orders), policies)
        self.deliver(path, self.other(side))
        return path

    def packet(self, side: str, orders: list = (), state: dict | None = None, extra: dict | None = None) -> dict:
        """A packet signed by `side` (not applied anywhere): by default the next one."""
        state = state or self.state(self.other(side))
        return game.build_packet(self.game, state, side, copy.deepcopy(list(orders)), None, self.keys[side], SENT,
                                 copy.deepcopy(extra))

    def post(self, content: dict | str | bytes, name: str | None = None) -> Path:
        """Write a packet (a dict, YAML text or raw bytes) into the mailbox."""
        self._posted += 1
        path = self.mail / (name or f"mail-{self._posted}.yaml")
        if isinstance(content, dict):
            content = game.packet_yaml(content)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


@pytest.fixture
def table(tmp_path):
    return Table(tmp_path)


def chain_value(table: Table, side: str, index: int) -> str:
    secret = game.chain_secret(table.game, side, table.keys[side])
    return dice.chain_value(secret, CHAIN, index).hex()


# --- 1. replay -------------------------------------------------------------------------------

def test_01_a_packet_applied_twice_is_a_replay(table):
    packet_1 = table.send("red", [FIRE])
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], packet_1], 3, "packet 1 was already applied")
    # the same packet under another name, as a careless or malicious re-send
    resent = table.post(packet_1.read_bytes(), "resent.yaml")
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], resent], 3, "already applied")


def test_01_a_damaged_copy_of_an_applied_packet_is_not_called_a_re_send(table):
    """A copy of an applied packet with its signature cut off or changed is not "re-sent,
    changing nothing": it is not the packet the game keeps (referee's probe)."""
    packet_1 = table.send("red", [FIRE])
    signed = game.read_packet(packet_1)[0]
    unsigned = {k: v for k, v in signed.items() if k != "signature"}
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], table.post(unsigned)], 3,
             "packet 1 was already applied (packets/0001-red.yaml), and this copy is not it: its signature is "
             "missing (a damaged or altered copy")
    value = signed["signature"]["value"]
    altered = dict(signed, signature=dict(signed["signature"], value=value[:-8] + ("A" if value[-8] != "A" else "B")
                                          + value[-7:]))
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], table.post(altered)], 3,
             "and this copy is not it: its signature differs from the one stored")


def test_01_an_old_packet_re_sent_later(table):
    packet_1 = table.send("red", [FIRE])
    table.send("blue")
    table.send("red")
    for side in SIDES:
        rejected(table.dirs[side], ["adjudicate", table.dirs[side], packet_1], 3, "packet 1 was already applied")
    # red's old packet 1 re-signed with a new seq still carries the old `prev`
    stale = game.read_packet(packet_1)[0]
    replay = table.post(resign(stale, table.keys["red"], seq=5))
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], replay], 3, "seq 5", "skips ahead")
    replay = table.post(resign(stale, table.keys["red"], seq=4))
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], replay], 3, "`prev`", "is not the hash of state 3")


def test_01_the_engine_refuses_an_old_seq_even_without_the_stored_file(table):
    packet_1 = table.send("red")
    table.send("blue")
    packet, _ = game.read_packet(packet_1)
    with pytest.raises(VerificationError, match="packet seq 1 replays or re-sends an old packet"):
        engine.apply_packet(table.game, table.state("blue"), packet, "p.yaml")


def test_01_a_packet_re_sent_beside_fork_evidence_is_checked_against_the_packet_the_game_went_on_from(table):
    """Fork evidence kept beside a packet, under a name with an infix that sorts after it, is
    not the stored packet a re-send is checked against (a cheater's probe: the last file of a
    seq in name order was)."""
    packet_1 = table.send("red", [FIRE])
    evidence = table.dirs["blue"] / "packets" / "0001-red.zzz.yaml"
    evidence.write_bytes(b"seq: 1\n")
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], packet_1], 3,
             "packet 1 was already applied (packets/0001-red.yaml); re-sending it changes nothing")


def test_01_a_state_file_named_in_other_digits_is_no_state(table):
    """Only ASCII digits number a state file: one named in Arabic-Indic digits, which int()
    reads, does not pass for the latest state (a cheater's probe) and audit names it."""
    table.send("red", [FIRE])
    states = table.dirs["blue"] / "states"
    (states / "\u0660\u0660\u0663\u0669.yaml").write_bytes((states / "0001.yaml").read_bytes())
    assert game.state_numbers(table.dirs["blue"]) == [0, 1]
    status = json.loads(run("status", table.dirs["blue"], "--json").output)
    assert status["seq"] == 1
    rejected(table.dirs["blue"], ["audit", table.dirs["blue"]], 3, "a file audit does not expect in a game folder")


# --- 2. another game ---------------------------------------------------------------------

def test_02_a_packet_from_another_game_signed_by_the_same_key(table):
    second = Table(table.root, name="rematch", created="2026-12-01T10:00:00Z")
    assert second.game.game_id != table.game.game_id
    assert second.game.public_keys["red"].wire() == table.game.public_keys["red"].wire()
    foreign = second.submit("red", [FIRE])
    first = rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], foreign], 3, "belongs to game")
    assert second.game.game_id in first and table.game.game_id in first


# --- 3. fork / equivocation --------------------------------------------------------------

def test_03_two_packets_signed_for_the_same_seq_are_fork_evidence(table):
    table.send("red", [FIRE])
    table.send("blue")
    state_2 = table.state("blue")
    packet_3 = table.send("red", [])
    fork = table.post(table.packet("red", [FIRE], state=state_2), "0003-red-other.yaml")
    first = rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], fork], 3, "equivocation",
                     "red signed two different packets for seq 3")
    assert "packets/0003-red.yaml" in first and str(fork) in first
    assert packet_3.name == "0003-red.yaml"


def test_03_an_onlooker_who_applied_the_other_side_of_a_fork_is_told_what_it_means(table):
    """Red signs two packets 3; blue goes on from the first. An onlooker following the thread
    applied the second, then blue's packet 4: adjudicate said only that `prev` was not the
    hash of state 3, two hash prefixes (a referee's probe), where audit explains a fork."""
    table.send("red", [FIRE])
    table.send("blue")
    state_2 = table.state("blue")
    table.send("red", [])
    packet_4 = table.send("blue")
    other_3 = table.post(table.packet("red", [], state=state_2, extra={"policies": {"absorb": "strongest"}}), "other-3.yaml")
    follow = table.root / "follow"
    ok(run("join", follow, table.dirs["blue"] / "game.yaml"))
    ok(run("adjudicate", follow, *[p for _, p in game.packet_files(table.dirs["blue"])][:2], other_3))
    first = rejected(follow, ["adjudicate", follow, packet_4], 3, "`prev`", "is not the hash of state 3")
    assert first.endswith(
        ": blue made packet 4 on another state 3, having applied another packet 3 than this folder did (if red "
        "signed two different packets 3, a fork: ask blue for the one it applied, and `pbem audit` of a folder "
        "holding both, the second saved as NNNN-red.alt.yaml, names it, docs/protocol.md §10), or on a state no "
        "packet gives"), first


def test_03_audit_names_both_files_of_a_fork(table):
    table.send("red", [FIRE])
    table.send("blue")
    state_2 = table.state("blue")
    table.send("red", [])
    blue = table.dirs["blue"]
    ok(run("audit", blue))
    shutil.copy(table.post(table.packet("red", [FIRE], state=state_2)), blue / "packets" / "0003-red.fork.yaml")
    first = rejected(blue, ["audit", blue], 3, "audit failed", "fork", "both validly signed by red")
    assert "packets/0003-red.yaml" in first and "packets/0003-red.fork.yaml" in first
    result = run("audit", blue, "--json")
    assert result.exit_code == 3
    report = json.loads(result.stdout)
    assert sorted(report["divergence"]["evidence"]) == ["packets/0003-red.fork.yaml", "packets/0003-red.yaml"]


def test_03_a_packet_out_of_turn_beside_a_genuine_one_is_named_not_taken_for_a_fork(table):
    """A player adds to the folder he hands a referee a packet he signed for a seq that was
    his opponent's to send, or one of another game: audit names that file, and never calls the
    opponent's genuine packet half of a fork."""
    table.send("red", [FIRE])
    table.send("blue")
    state_2 = table.state("blue")
    table.send("red", [])
    blue = table.dirs["blue"]
    out_of_turn = table.packet("blue", [], state=state_2)
    assert out_of_turn["seq"] == 3
    shutil.copy(table.post(out_of_turn), blue / "packets" / "0003-blue.yaml")
    first = rejected(blue, ["audit", blue], 3, "audit failed", "packets/0003-blue.yaml: one of 2 files for seq 3",
                     "seq 3 is red's to send, and blue signed it")
    assert "fork" not in first and "0003-red.yaml" not in first
    report = json.loads(run("audit", blue, "--json").stdout)["divergence"]
    assert (report["file"], report["field"], report["expected"], report["found"], report["evidence"]) == (
        "packets/0003-blue.yaml", "side", "red", "blue", [])
    (blue / "packets" / "0003-blue.yaml").unlink()
    second = Table(table.root, name="rematch", created="2026-12-01T10:00:00Z")
    second.send("red", [FIRE])
    foreign = second.packet("blue", [])
    assert foreign["seq"] == 2
    shutil.copy(second.post(foreign), blue / "packets" / "0002-blue.other.yaml")
    first = rejected(blue, ["audit", blue], 3, "audit failed", "packets/0002-blue.other.yaml: one of 2 files for seq 2",
                     f"it is a packet of another game ({second.game.game_id})")
    assert "fork" not in first
    # a game of other keys too: said to be another game's, not refused for its key, which read
    # as a forgery (a referee's probe)
    (blue / "packets" / "0002-blue.other.yaml").unlink()
    third = Table(table.root, name="strangers", key_seed="strangers")
    third.send("red", [FIRE])
    shutil.copy(third.post(third.packet("blue", [])), blue / "packets" / "0002-blue.other.yaml")
    first = rejected(blue, ["audit", blue], 3, "audit failed", "packets/0002-blue.other.yaml: one of 2 files for seq 2",
                     f"and not a second packet of it: it is a packet of another game ({third.game.game_id})")
    assert "key" not in first and "fork" not in first


def test_03_a_packet_filed_under_the_other_sides_name_is_named(table):
    """The signature covers a packet's content, not its file name: a file renamed to say the
    other side sent it would mislead a referee reading the folder, and audit names it."""
    table.send("red", [FIRE])
    table.send("blue")
    table.send("red", [])
    blue = table.dirs["blue"]
    (blue / "packets" / "0003-red.yaml").rename(blue / "packets" / "0003-blue.yaml")
    rejected(blue, ["audit", blue], 3, "audit failed",
             "packets/0003-blue.yaml: the file name says blue sent it, and the packet is red's")


# --- 4. gap or reordering ------------------------------------------------------------------

def test_04_packet_5_after_packet_3_is_a_gap(table):
    table.send("red", [FIRE])
    table.send("blue")
    table.send("red")
    ahead = table.root / "blue-ahead"
    shutil.copytree(table.dirs["blue"], ahead)
    packet_4 = submit_orders(game.open_folder(ahead), [], None, key=table.keys["blue"], sent=SENT).packet_path
    table.deliver(packet_4, "red")
    packet_5 = table.submit("red", [])
    blue = table.dirs["blue"]
    rejected(blue, ["adjudicate", blue, packet_5], 3, "packet seq 5 skips ahead", "expects seq 4")
    ok(run("adjudicate", blue, packet_4))   # in order, both apply
    ok(run("adjudicate", blue, packet_5))
    assert (blue / "states" / "0005.yaml").read_bytes() == (table.dirs["red"] / "states" / "0005.yaml").read_bytes()


# --- 5. wrong sender -----------------------------------------------------------------------

def test_05_a_packet_claiming_blue_signed_by_reds_key(table):
    table.send("red")
    red = table.dirs["red"]
    forged = table.post(resign(table.packet("blue", [], state=table.state("red")), table.keys["red"]))
    first = rejected(red, ["adjudicate", red, forged], 3, "claims side blue", "not blue's key")
    assert table.keys["red"].public.fingerprint() in first
    assert "(that is red's key: red signed a packet in blue's name)" in first   # the referee is told whose
    # the same, with blue's fingerprint written over the key name: the referee is told whose
    # key the signature holds, and that it verifies under it (a referee's probe: "the signature
    # names key SHA256:..., not SHA256:...", the work of matching them left to him)
    packet = game.read_packet(forged)[0]
    packet["signature"]["key"] = table.keys["blue"].public.fingerprint()
    relabelled = table.post(packet)
    rejected(red, ["adjudicate", red, relabelled], 3, "claims side blue and names blue's key, but it was signed "
             f"with red's key {table.keys['red'].public.fingerprint()} in game.yaml: red signed a packet in blue's name")
    # a signature of red's key over other bytes is no proof that red signed this packet
    packet["orders"] = [{"type": "end"}] if packet["orders"] != [{"type": "end"}] else []
    rejected(red, ["adjudicate", red, table.post(packet)], 3, "signature of side blue does not verify")


def test_05_a_key_not_in_the_genesis(table, tmp_path):
    table.send("red")
    private, _ = keys.write_keypair("mallory", tmp_path)
    mallory = keys.load_private_key(private)
    red = table.dirs["red"]
    forged = table.post(resign(table.packet("blue", [], state=table.state("red")), mallory))
    first = rejected(red, ["adjudicate", red, forged], 3, "claims side blue", "not blue's key")
    assert mallory.public.fingerprint() in first and "that is" not in first   # no side's key: none named
    # mallory's signature under red's fingerprint: the key named is red's, and red is not said to have signed it
    packet = game.read_packet(forged)[0]
    packet["signature"]["key"] = table.keys["red"].public.fingerprint()
    told = rejected(red, ["adjudicate", red, table.post(packet)], 3, "claims side blue", "(that is red's key)")
    assert "red signed" not in told
    orders = table.post("orders: []\n", "orders.yaml")
    rejected(table.dirs["blue"], ["submit", table.dirs["blue"], orders, "--key", private], 3,
             f"--key {private}: the key", "plays no side of this game; give the key you play it with",
             root=table.root)


# --- 6. tampering after signing ------------------------------------------------------------

def _tampered(table: Table) -> tuple[Path, dict]:
    table.send("red")
    table.send("blue")
    return table.dirs["blue"], table.packet("red", [FIRE])


ALTERED = ["signature of side red (key SHA256:", "does not verify: the packet, or its signature, was altered after it was signed; "
           "ask red to send the packet file again, as an attachment, unchanged"]


@pytest.mark.parametrize("change, words", [
    (lambda p: p["orders"][0].update(target="b2"), ALTERED),
    (lambda p: p["orders"].append({"type": "end"}), ALTERED),
    (lambda p: p["reveal"].update(value="0" * 64), ALTERED),
    (lambda p: p["reveal"].update(index=3), ALTERED),
    (lambda p: p.update(sent="2026-11-30T12:00:00Z"), ALTERED),
    (lambda p: p.update(policies={"absorb": "strongest"}), ALTERED),
    # said to be an alteration, not a packet made on another state (a referee's probe): its
    # signature is checked first where what it says fails a check
    (lambda p: p.update(prev="0" * 64), ALTERED),
    (lambda p: p.pop("signature"), ["not signed"]),
])
def test_06_any_field_changed_after_signing(table, change, words):
    blue, packet = _tampered(table)
    change(packet)
    rejected(blue, ["adjudicate", blue, table.post(packet)], 3, *words)


@pytest.mark.parametrize("forged, words", [
    # red's packet 3 claimed blue's: with its signature taken away, by a third key, by red's own key
    (lambda t, p: dict(unsigned(p), side="blue"), ["not signed"]),
    (lambda t, p: resign(p, fixed_key("mallory"), side="blue"), ["claims side blue but names key", "which is not blue's"]),
    (lambda t, p: resign(p, t.keys["red"], side="blue"), ["that is red's key: red signed a packet in blue's name"]),
    # red's packet 3 made on another state: unsigned, or signed by blue in red's name
    (lambda t, p: dict(unsigned(p), prev="f" * 64), ["not signed"]),
    (lambda t, p: resign(p, t.keys["blue"], prev="f" * 64), ["that is blue's key: blue signed a packet in red's name"]),
])
def test_06_a_check_of_what_a_packet_says_never_blames_a_side_that_did_not_sign_it(table, forged, words):
    """A cheater's probe: a packet failing the turn or `prev` check was judged as its claimed
    sender's ("packet 3 comes from blue, but packets alternate", "red made packet 3 on another
    state") although that side signed nothing of it. Its signature is checked first, against
    the side it claims, in adjudicate and in audit."""
    blue, packet = _tampered(table)
    first = rejected(blue, ["adjudicate", blue, table.post(forged(table, packet))], 3, *words)
    assert "packets alternate" not in first and "made packet 3 on another state" not in first
    shutil.copytree(blue, table.root / "referee")
    path = table.post(forged(table, packet), "0003-x.yaml")
    shutil.copy(path, table.root / "referee" / "packets" / f"0003-{forged(table, packet)['side']}.yaml")
    first = fails(run("audit", table.root / "referee"), 3, *words)
    assert "packets alternate" not in first


@pytest.mark.parametrize("position", [0, 8, 30, 60, 120, 200, -6, -4])
def test_06_one_character_of_the_base64_signature_changed(table, position):
    blue, packet = _tampered(table)
    value = packet["signature"]["value"]
    index = position % len(value.rstrip("="))
    replacement = "A" if value[index] != "A" else "B"
    packet["signature"]["value"] = value[:index] + replacement + value[index + 1:]
    rejected(blue, ["adjudicate", blue, table.post(packet)], 3, "signature")


def test_06_a_non_canonical_base64_spelling_of_the_same_signature(table):
    # The last base64 digit before `==` carries 4 unused bits: another digit decodes to the
    # same blob. Accepting it would let anyone make a "different" packet signed by red,
    # which is false fork evidence.
    blue, packet = _tampered(table)
    value = packet["signature"]["value"]
    assert value.endswith("==")
    blob = base64.b64decode(value)
    twins = [value[:-3] + c + "==" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
             if value[:-3] + c + "==" != value and base64.b64decode(value[:-3] + c + "==") == blob]
    assert twins
    packet["signature"]["value"] = twins[0]
    rejected(blue, ["adjudicate", blue, table.post(packet)], 3, "signature")


def test_06_the_untampered_packet_applies(table):
    blue, packet = _tampered(table)
    ok(run("adjudicate", blue, table.post(packet)))


# --- 7. tampered state or report in the folder -----------------------------------------------

def _played(table: Table) -> Path:
    table.send("red", [FIRE])
    table.send("blue", [{"type": "fire", "unit": "b1", "target": "r1"}])
    table.send("red")
    blue = table.dirs["blue"]
    ok(run("audit", blue))
    return blue


def test_07_a_tampered_state_file_is_reported_with_its_first_differing_field(table):
    blue = _played(table)
    path = blue / "states" / "0002.yaml"
    state = canonical.load_mapping(path)
    true_strength = state["rules"]["units"]["b2"]["strength"]
    state["rules"]["units"]["b2"]["strength"] = 9
    path.write_text(game.state_text(state))
    first = rejected(blue, ["audit", blue], 3, "states/0002.yaml", "differs from the replay")
    assert f"field rules.units.b2.strength: expected {true_strength}, found 9" in first
    result = run("audit", blue, "--json")
    divergence = json.loads(result.stdout)["divergence"]
    assert (divergence["file"], divergence["field"], divergence["expected"], divergence["found"]) == \
        ("states/0002.yaml", "rules.units.b2.strength", true_strength, 9)


def test_07_a_tampered_latest_state_is_refused_before_adjudicating(table):
    blue = _played(table)
    shutil.copytree(blue, table.root / "blue-copy")
    packet_4 = submit_orders(game.open_folder(table.root / "blue-copy"), [], None, key=table.keys["blue"], sent=SENT)
    path = table.dirs["red"] / "states" / "0003.yaml"
    path.write_text(path.read_text().replace("turn: 1", "turn: 2", 1))
    red = table.dirs["red"]
    rejected(red, ["audit", red], 3, "states/0003.yaml", "rules.turn")
    rejected(red, ["adjudicate", red, packet_4.packet_path], 3, "states/0003.yaml", "altered")


def test_07_a_tampered_report_is_reported_with_its_first_differing_line(table):
    blue = _played(table)
    path = blue / "aar" / "0002.md"
    lines = path.read_text().split("\n")
    number = next(i for i, line in enumerate(lines) if "Die:" in line)
    original = lines[number]
    lines[number] = original.replace("Die:", "Die: 6, not", 1)
    path.write_text("\n".join(lines))
    first = rejected(blue, ["audit", blue], 3, "aar/0002.md", "the report differs from the replay")
    assert f"line {number + 1}: expected {original!r}, found {lines[number]!r}" in first


def test_07_a_long_report_line_is_shown_from_where_it_differs(table):
    """A players' probe: a report line changed far into it ("die 3: D1" made "D2") was shown
    cut at 80 characters, before the change, expected and found alike. Both are shown from a
    little before the first character that differs."""
    from pbem.core.audit import Divergence

    head = "- Attack strength 9: G/299 9. Defence strength 3: R/120 3 in N0149. 9 against 3: 3-1; die 3: "
    divergence = Divergence("aar/0012.md", "the report differs from the replay", "line 12", head + "D1 (9.5).",
                            head + "D2 (9.5).")
    assert divergence.sentence() == (
        "aar/0012.md: the report differs from the replay (line 12: expected '...49. 9 against 3: 3-1; die 3: D1 "
        "(9.5).', found '...49. 9 against 3: 3-1; die 3: D2 (9.5).')")
    short = Divergence("aar/0002.md", "the report differs from the replay", "line 3", "- Die: 4", "- Die: 6")
    assert short.sentence().endswith("(line 3: expected '- Die: 4', found '- Die: 6')")
    blue = _played(table)
    path = blue / "aar" / "0002.md"
    lines = path.read_text().split("\n")
    number = max(range(len(lines)), key=lambda i: len(lines[i]))     # the longest line, changed at its end
    assert len(lines[number]) > 60
    lines[number] = lines[number][:-1] + ("X" if lines[number][-1] != "X" else "Y")
    path.write_text("\n".join(lines))
    first = rejected(blue, ["audit", blue], 3, "aar/0002.md", "the report differs from the replay")
    shown = repr(lines[number])     # as written, from 30 characters before the last, which differs
    assert f"found {shown[0]}...{shown[-32:]})" in first


@pytest.mark.parametrize("change", [lambda text: text + "\n\n\n\n", lambda text: text.rstrip("\n")])
def test_07_blank_lines_added_to_or_taken_from_the_end_of_a_report_are_reported(table, change):
    """A probe: empty lines at the end of a report were never a differing line, and it audited
    clean. (Line endings written as CRLF by a mail program are the same report.)"""
    blue = _played(table)
    path = blue / "aar" / "0002.md"
    text = path.read_text()
    path.write_bytes(text.replace("\n", "\r\n").encode())
    ok(run("audit", blue))
    path.write_text(change(text))
    rejected(blue, ["audit", blue], 3, "aar/0002.md", "the report differs from the replay in its empty lines at the end")


def test_07_a_report_that_mixes_kinds_of_line_break_is_reported(table):
    """A cheater's probe: a report whose line breaks were all LF but one, a bare CR, read the same
    and audited clean, yet `cat` in a terminal wrote the line after the CR over the one before,
    and so hid a die from a referee. One kind throughout (as a mail program or an editor writes
    them: LF, CR LF or CR, docs/protocol.md A.1) is the same report; a mix is named."""
    blue = _played(table)
    path = blue / "aar" / "0002.md"
    text = path.read_text()
    for kind in ("\r\n", "\r"):
        path.write_bytes(text.replace("\n", kind).encode())
        ok(run("audit", blue))
    number = next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith("  - Die: "))
    lines = text.split("\n")
    path.write_bytes(("\n".join(lines[:number - 1]) + "\r" + "\n".join(lines[number - 1:])).encode())
    first = rejected(blue, ["audit", blue], 3, "aar/0002.md", "the report mixes kinds of line break, which hides "
                     "lines from a reader: a terminal writes the line after a bare CR over the one before it")
    assert f"(line {number - 1}: expected 'LF', found 'CR')" in first
    # a stray CR LF hides nothing, and is said as what it is (a referee's probe: "a bare CR" where none was)
    path.write_bytes(("\n".join(lines[:number - 1]) + "\r\n" + "\n".join(lines[number - 1:])).encode())
    first = rejected(blue, ["audit", blue], 3, "aar/0002.md", "the report mixes kinds of line break, where a mail "
                     "program or an editor writes one kind throughout: these lines were written otherwise")
    assert f"(line {number - 1}: expected 'LF', found 'CR LF')" in first and "bare CR" not in first


# --- 8. forged reveal ------------------------------------------------------------------------

@pytest.mark.parametrize("forge, words", [
    (lambda t: {"reveal": {"index": 2, "value": "ab" * 32}}, ["does not hash to red's previous chain value"]),
    (lambda t: {"reveal": {"index": 3, "value": chain_value(t, "red", 3)}}, ["reveal index 3 is wrong", "is 2"]),
    (lambda t: {"reveal": {"index": 1, "value": chain_value(t, "red", 1)}}, ["reveal index 1 is wrong", "is 2"]),
    (lambda t: {"anchor": chain_value(t, "red", 0)}, ["unknown packet field `anchor`"]),
    (lambda t: {"reveal": {"index": 2, "value": chain_value(t, "blue", 2)}}, ["forged reveal"]),
])
def test_08_forged_reveals(table, forge, words):
    table.send("red")
    table.send("blue")
    blue = table.dirs["blue"]
    forged = resign(table.packet("red", [FIRE]), table.keys["red"], **forge(table))
    rejected(blue, ["adjudicate", blue, table.post(forged)], 3, *words)


def test_08_a_first_reveal_that_does_not_hash_to_the_genesis_anchor(table):
    blue = table.dirs["blue"]
    packet = table.packet("red", [FIRE], state=table.state("blue"))
    other_chain = dice.chain_value(b"another chain", CHAIN, 1).hex()
    forged = resign(packet, table.keys["red"], reveal={"index": 1, "value": other_chain})
    rejected(blue, ["adjudicate", blue, table.post(forged)], 3, "does not hash to red's anchor in the genesis",
             "forged reveal")
    no_reveal = resign(packet, table.keys["red"], reveal=None)
    rejected(blue, ["adjudicate", blue, table.post(no_reveal)], 3, "has no `reveal`")


# --- 9. alternation ---------------------------------------------------------------------------

def test_09_two_consecutive_packets_from_the_same_side(table):
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    again = table.post(table.packet("red", [], state=table.state("blue")))
    rejected(blue, ["adjudicate", blue, again], 3, "packet 2 comes from red", "blue must send it")
    orders = table.post("orders: []\n", "orders.yaml")
    first = rejected(table.dirs["red"], ["submit", table.dirs["red"], orders, "--key", table.key_files["red"]], 1,
                     "it is blue's turn", root=table.root)
    assert "red's packet 1 is packets/0001-red.yaml, if it must be sent again" in first


# --- 10. sealed orders (with the simultaneous test ruleset `blind`) ----------------------------

PLAN = {"type": "plan", "attack": "a", "guard": "b"}


@pytest.fixture
def blind(tmp_path):
    return Table(tmp_path, ruleset="blind", key_seed="blind")


def seal_of(table: Table, seq: int, side: str, salt: bytes, item: dict) -> str:
    return engine.seal_hash(table.game.game_id, seq, side, salt, item)


SALT = bytes.fromhex("5a" * 32)


def _seal_round(table: Table, north_seals: list[str]) -> Path:
    """North seals in packet 1, south seals its plan in packet 2; south's folder."""
    sealed = table.post(table.packet("north", extra={"sealed": north_seals}))
    table.deliver(sealed, "north")
    table.deliver(sealed, "south")
    packet_2 = table.post(table.packet("south", extra={"sealed": [seal_of(table, 2, "south", SALT, PLAN)]}))
    table.deliver(packet_2, "south")
    table.deliver(packet_2, "north")
    return table.dirs["south"]


def _sealed(table: Table, item: dict = PLAN) -> Path:
    """North seals `item` in packet 1, south seals its plan in packet 2; south's folder."""
    return _seal_round(table, [seal_of(table, 1, "north", SALT, item)])


def _opening(table: Table, *entries: dict) -> Path:
    return table.post(table.packet("north", extra={"opens": list(entries)}))


@pytest.mark.parametrize("entry, words", [
    ({"salt": SALT.hex(), "item": {**PLAN, "attack": "c"}}, ["opened item 1 or its salt differs from what north sealed in packet 1"]),
    ({"salt": "5b" * 32, "item": PLAN}, ["opened item 1 or its salt differs"]),
    ({"salt": SALT.hex()}, ["`opens` must be a list of {salt"]),
    ({"salt": "5a" * 16, "item": PLAN}, ["`opens` must be a list of {salt: <64 lower-case hex digits>"]),
    ({"salt": "5A" * 32, "item": PLAN}, ["`opens` must be a list of {salt: <64 lower-case hex digits>"]),
])
def test_10_sealed_orders_opened_with_other_orders_or_salt(blind, entry, words):
    south = _sealed(blind)
    rejected(south, ["adjudicate", south, _opening(blind, entry)], 3, *words)


def test_10_the_true_opening_applies_as_an_order_of_the_opening_packet(blind):
    south = _sealed(blind)
    ok(run("adjudicate", south, _opening(blind, {"salt": SALT.hex(), "item": PLAN})))
    report = (south / "aar" / "0003.md").read_text()
    assert "north opens the 1 item(s) it sealed" in report
    assert "north order 1 of packet 3: plan attack=a guard=b" in report
    assert game.open_folder(south).state["rules"]["plans"] == {"north": {"attack": "a", "guard": "b"}}


def test_10_opening_what_was_never_sealed(table):
    table.send("red")
    table.send("blue")
    blue = table.dirs["blue"]
    packet = table.post(table.packet("red", [], extra={"opens": [{"salt": SALT.hex(), "item": FIRE}]}))
    rejected(blue, ["adjudicate", blue, packet], 3, "red has none sealed")


# --- 11. no dice from one's own packet's segment -------------------------------------------------

def test_11_an_order_rolls_from_the_next_segment_not_its_own(table):
    blue = table.dirs["blue"]
    table.send("red", [FIRE, {"type": "end"}])                          # 1
    state = table.state("blue")
    assert state["awaiting"]["waiting_for"] == "dice"                  # no segment 1 at all
    blue_fire = {"type": "fire", "unit": "b1", "target": "r1"}
    table.send("blue", [blue_fire])                                    # 2: red's fire rolls from segment 2
    state = table.state("red")
    assert state["awaiting"]["waiting_for"] == "dice"                  # blue's fire waits for packet 3
    assert [item["order"] for item in state["queue"]] == [blue_fire]
    assert "t1.blue.fire1" not in (blue / "aar" / "0002.md").read_text()
    packet_3 = table.send("red")                                       # 3 opens segment 3

    packets = {n: canonical.load_mapping(p) for n, p in game.packet_files(blue)}
    assert packets[3] == game.read_packet(packet_3)[0]
    game_id = bytes.fromhex(packets[1]["game"])
    v = {n: bytes.fromhex(p["reveal"]["value"]) for n, p in packets.items()}
    seed_2 = dice.segment_seed(game_id, 2, v[1], v[2])
    seed_3 = dice.segment_seed(game_id, 3, v[2], v[3])
    expected = dice.first_d6(seed_3, "t1.blue.fire1", 1)[0]
    own_segment = dice.first_d6(seed_2, "t1.blue.fire1", 1)[0]
    assert expected != own_segment   # these fixed keys give a case where the two differ
    report = (blue / "aar" / "0003.md").read_text()
    assert f"Die: {expected} (segment 3, t1.blue.fire1)." in report
    assert f"b1 fires at r1: {expected}" in report
    red_die = dice.first_d6(seed_2, "t1.red.fire1", 1)[0]
    assert f"Die: {red_die} (segment 2, t1.red.fire1)." in (blue / "aar" / "0002.md").read_text()


# --- 12. re-sending the same packet --------------------------------------------------------------

def test_12_re_sending_the_same_packet_yields_the_same_dice_and_state(table):
    table.send("red", [FIRE])
    red = table.dirs["red"]
    copy = table.root / "red-copy"
    shutil.copytree(red, copy)
    packet_2 = table.send("blue", [{"type": "fire", "unit": "b2", "target": "r2"}])
    rejected(red, ["adjudicate", red, packet_2], 3, "already applied", "changes nothing")
    resent = table.post(packet_2.read_bytes(), "resent.yaml")
    ok(run("adjudicate", copy, resent))
    for name in ("states/0002.yaml", "aar/0002.md"):
        assert (copy / name).read_bytes() == (red / name).read_bytes() == (table.dirs["blue"] / name).read_bytes()
    assert "Die:" in (copy / "aar" / "0002.md").read_text()


# --- 13. YAML bombs ----------------------------------------------------------------------------

def _billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[n]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("make, words", [
    (_billion_laughs, ["anchors (&a) are not allowed"]),
    (lambda: "pbem: 1\norders: " + "[" * 10_000 + "]" * 10_000 + "\n", ["nested deeper than"]),
    (lambda: "pbem: 1\npolicies: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n", ["nested deeper than"]),
    (lambda: "pbem: 1\nside: " + "x" * 300_000 + "\n", ["longer than the limit"]),
    (lambda: 'pbem: 1\nside: "' + "x" * 300_000 + '"\n', ["longer than the limit"]),
    (lambda: "orders: [" + "1," * 250_000 + "1]\n", ["more than 200000 nodes"]),
    (lambda: "pbem: 1\nside: " + "x" * 5_000_000 + "\n", ["over the limit"]),
])
def test_13_yaml_bombs_are_file_errors(table, make, words):
    blue = table.dirs["blue"]
    rejected(blue, ["adjudicate", blue, table.post(make())], 4, *words)


def test_13_a_50_megabyte_packet_is_refused_without_reading_it_all(table):
    blue = table.dirs["blue"]
    path = table.mail / "huge.yaml"
    with open(path, "wb") as handle:
        handle.write(game.packet_yaml(table.packet("red", [FIRE])).encode())
        handle.write(b"# " + b"x" * (50 * 1024 * 1024) + b"\n")
    tracemalloc.start()
    try:
        first = rejected(blue, ["adjudicate", blue, path], 4, "over the limit")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(path.stat().st_size) in first
    assert peak < 20 * 1024 * 1024


# --- 14 and 15. strict YAML --------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "a: NO", "a: 0139", "a: 1:30", "a: 2026-11-29", "a: yes", "a: Off", "a: 0x1F", "a: ~", "a: +5", "a: True",
    "a: 9007199254740992",
])
def test_14_yaml_1_1_surprises_are_refused(text):
    with pytest.raises(FileError, match=r"^p\.yaml, line 2: .*(quote it|beyond ±2\^53)"):
        canonical.loads("b: 1\n" + text, "p.yaml")


def _packet_text(table: Table) -> str:
    return game.packet_yaml(table.packet("red", [FIRE], state=table.state("blue")))


@pytest.mark.parametrize("damage, words", [
    (lambda t: t + "seq: 1\n", ["the key 'seq' appears twice"]),
    (lambda t: t.replace("unit: r1}", "unit: r1, unit: r2}"), ["the key 'unit' appears twice"]),
    (lambda t: t.replace("orders: [{target: b1, type: fire, unit: r1}]",
                         "orders:\n- target: b1\n  type: fire\n  unit: r1\n  unit: r2"), ["the key 'unit' appears twice"]),
    (lambda t: t + "7: seven\n", ["mapping keys must be strings"]),
    (lambda t: t + "? [a, b]\n: c\n", ["mapping keys must be strings"]),
    (lambda t: t.replace("\nseq: 1\n", "\nseq: 1.0\n"), ["float"]),
    (lambda t: t.replace("\nseq: 1\n", "\nseq: 1e0\n"), ["float"]),
    (lambda t: t.replace("\nseq: 1\n", "\nseq: 9007199254740993\n"), ["beyond ±2^53"]),
    (lambda t: t + "note: !!python/object/apply:os.system ['echo pwned']\n", ["tags such as"]),
    (lambda t: t + "note: !!python/object:pbem.core.game.Folder {path: /}\n", ["tags such as"]),
    (lambda t: t.replace("\nside: red\n", "\nside: !!str red\n"), ["tags such as"]),
    (lambda t: t + "---\npbem: 1\n", ["more than one YAML document"]),
])
def test_14_yaml_rejections_of_a_packet_are_file_errors(table, damage, words):
    blue = table.dirs["blue"]
    text = _packet_text(table)
    damaged = damage(text)
    assert damaged != text
    first = rejected(blue, ["adjudicate", blue, table.post(damaged)], 4, *words)
    assert ", line " in first


def test_14_a_yaml_1_1_value_in_a_packet_is_never_converted(table):
    # `seq: 0001` is an integer to YAML 1.2 readers and a string to others: refused, never read as 1.
    blue = table.dirs["blue"]
    text = _packet_text(table).replace("\nseq: 1\n", "\nseq: 0001\n")
    first = rejected(blue, ["adjudicate", blue, table.post(text)], 4, "'0001' could be read as an integer", "quote it")
    assert ", line " in first


@pytest.mark.parametrize("make, code, words", [
    (lambda t: b"\xff" + t.encode(), 4, ["not UTF-8"]),
    (lambda t: t.replace("side: red", "side: r\u00e9d").encode("latin-1"), 4, ["not UTF-8"]),
    (lambda t: t.encode("utf-16"), 4, ["not UTF-8"]),
    (lambda t: b"", 4, ["the file is empty"]),
    (lambda t: b" \n\n\t\n", 4, ["the file is empty"]),
    (lambda t: t[: t.index('sent: "') + 12].encode(), 4, ["malformed or truncated"]),
    (lambda t: "\n".join(t.split("\n")[:6]).encode(), 3, ["has no `", "ask its sender for the packet file again"]),
    (lambda t: t[: len(t) - 20].encode(), 4, ["malformed or truncated"]),
    # in the words of the file, not Python's ("must be dict, not NoneType": a hostile-input review)
    (lambda t: t[: t.rstrip("\n").rindex("\n") + 1].encode(), 3, ["`signature` must be {key: "]),
    (lambda t: t.replace("\nseq: 1\n", "\nseq: true\n").encode(), 3, ["`seq` must be an integer, not true or false"]),
    (lambda t: t.replace("\nseq: 1\n", "\nseq: [1]\n").encode(), 3, ["`seq` must be an integer, not a list"]),
    (lambda t: b"- pbem: 1\n- seq: 1\n", 3, ["a packet must be a mapping"]),
    (lambda t: b"just a line of text\n", 3, ["a packet must be a mapping"]),
])
def test_15_broken_files(table, make, code, words):
    blue = table.dirs["blue"]
    rejected(blue, ["adjudicate", blue, table.post(make(_packet_text(table)))], code, *words)


def test_15_a_missing_packet_file(table):
    blue = table.dirs["blue"]
    rejected(blue, ["adjudicate", blue, table.mail / "nowhere.yaml"], 4, "no such file")


@pytest.mark.parametrize("make, kind", [
    (lambda path: os.mkfifo(path), "a named pipe"),
    (lambda path: path.mkdir(), "a folder"),
    (lambda path: path.symlink_to(path.with_name("nowhere.yaml")), "a link to nothing"),
])
def test_15_a_genesis_that_is_no_file_is_named_as_what_it_is(table, make, kind):
    """A game.yaml that is a named pipe (a tarball can carry one), a folder or a broken link
    is said to be that, without hanging on a pipe, not "the handshake is not complete (no
    game.yaml)" (a cheater's probe)."""
    blue = table.dirs["blue"]
    (blue / "game.yaml").unlink()
    make(blue / "game.yaml")
    for command in (["status", blue], ["audit", blue], ["adjudicate", blue, table.mail / "nowhere.yaml"]):
        rejected(blue, command, 4, f"game.yaml: {kind}, not a file; a game folder's genesis is a plain file")


# --- 16. email damage that changes no meaning ---------------------------------------------------

def _reindent(text: str) -> str:
    return yaml.safe_dump(yaml.safe_load(text), indent=4, default_flow_style=False, sort_keys=False)


@pytest.mark.parametrize("damage", [
    lambda b: b.replace(b"\n", b"\r\n"),
    lambda b: b.replace(b"\n", b"   \n"),
    lambda b: b.replace(b"\n", b" \t \r\n"),
    lambda b: _reindent(b.decode()).encode(),
    lambda b: _reindent(b.decode()).replace("\n", "\r\n").encode(),
    lambda b: quopri.decodestring(quopri.encodestring(b)),
    lambda b: quopri.decodestring(quopri.encodestring(b.replace(b"\n", b"\r\n"))),
    lambda b: b"\xef\xbb\xbf" + b"# forwarded by a mail client\n" + b,
], ids=["crlf", "trailing-spaces", "trailing-whitespace-crlf", "reindent", "reindent-crlf", "quoted-printable",
        "quoted-printable-crlf", "bom-and-comment"])
def test_16_email_damage_still_verifies_and_applies(table, damage):
    packet_1 = table.submit("red", [FIRE, {"type": "end"}])
    data = packet_1.read_bytes()
    damaged = damage(data)
    blue = table.dirs["blue"]
    ok(run("adjudicate", blue, table.post(damaged)))
    for name in ("states/0001.yaml", "aar/0001.md"):
        assert (blue / name).read_bytes() == (table.dirs["red"] / name).read_bytes()
    ok(run("audit", blue))


# --- 17. schema violations -----------------------------------------------------------------------

@pytest.mark.parametrize("orders, words", [
    ([{"type": "move", "unit": "r1", "target": "b1"}], ["order 1, field `type`: 'move' is not one of: fire, end"]),
    ([{"unit": "r1", "target": "b1"}], ["order 1: ", "'type' is a required property"]),
    ([{"type": "end"}, {"type": "fire", "unit": 5, "target": "b1"}], ["order 2, field `unit`: ", "not of type 'string'"]),
    ([{"type": "fire", "unit": "r1", "target": "b1", "range": 3}], ["order 1: ", "'range' was unexpected"]),
    (["fire r1 at b1"], ["order 1: ", "is not of type 'object'"]),
    ([{"type": "fire", "unit": ["r1", 5], "target": "b1"}], ["order 1, field `unit`: "]),
    ([{"type": "fire", "target": "b1"}], ["order 1 (fire target=b1) is illegal", "(D1)"]),
    ([{"type": "fire", "unit": "r9", "target": "b1"}], ["order 1 (fire target=b1 unit=r9) is illegal", "no unit r9", "(D1)"]),
])
def test_17_schema_violations_name_the_order(table, orders, words):
    table.send("red")
    table.send("blue")
    blue = table.dirs["blue"]
    bad = table.post(table.packet("red", orders))
    rejected(blue, ["adjudicate", blue, bad], 1, *words)
    # and `pbem submit` refuses the same orders before signing anything
    orders_file = table.post(yaml.safe_dump({"orders": orders}), "orders.yaml")
    rejected(table.dirs["red"], ["submit", table.dirs["red"], orders_file, "--key", table.key_files["red"],
                                 "--out", table.root / "out.yaml"], 1, "order", root=table.root)


def test_17_a_standing_order_outside_its_schema(table):
    blue = table.dirs["blue"]
    bad = resign(table.packet("red", [], state=table.state("blue")), table.keys["red"], policies={"absorb": "never"})
    rejected(blue, ["adjudicate", blue, table.post(bad)], 1, "standing order `policies.absorb`")


# --- 18. illegal orders by the rules --------------------------------------------------------------

def _submit_rejected(table: Table, side: str, orders: list, *words: str) -> str:
    orders_file = table.post(yaml.safe_dump({"orders": orders}), "orders.yaml")
    out = table.root / "to-email.yaml"
    first = rejected(table.dirs[side], ["submit", table.dirs[side], orders_file, "--key", table.key_files[side],
                                        "--out", out], 1, *words, root=table.root)
    assert not out.exists()
    return first


def test_18_a_unit_firing_twice_in_one_phase(table):
    table.send("red", [FIRE])
    table.send("blue")   # r1's fire resolves; red's fire phase goes on
    _submit_rejected(table, "red", [{"type": "fire", "unit": "r1", "target": "b2"}], "order 1",
                     "r1 has already fired this phase (D2)")


def test_18_firing_at_a_unit_that_does_not_exist(table):
    _submit_rejected(table, "red", [{"type": "fire", "unit": "r1", "target": "b7"}], "order 1",
                     "b7 is not an enemy unit with strength left (D1)")


def test_18_firing_with_an_enemy_unit(table):
    _submit_rejected(table, "red", [{"type": "fire", "unit": "b1", "target": "r1"}], "b1 cannot fire for red (D1)")


# --- 19. paths ---------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", [
    {"file": "../../etc/passwd"},
    {"name": "../../etc/passwd", "sha256": "0" * 64},
    {"name": "basic", "sha256": "0" * 64, "file": "/etc/passwd"},
])
def test_19_a_genesis_whose_scenario_names_a_file_is_refused(table, tmp_path, scenario):
    evil = tmp_path / "evil"
    shutil.copytree(table.dirs["blue"], evil)
    genesis = canonical.load_mapping(evil / "game.yaml")
    genesis["scenario"] = scenario
    (evil / "game.yaml").write_text(game.genesis_text(genesis))
    for args in (["status", evil], ["audit", evil], ["adjudicate", evil, table.submit("red", [])]):
        first = rejected(evil, args, 3, "game.yaml", "does not match its schema", "scenario")
        assert first.count("game.yaml") == 1
    with pytest.raises(VerificationError, match="does not match its schema"):
        game.create(tmp_path / "evil-2", genesis)
    assert not (tmp_path / "evil-2").exists()


@pytest.mark.parametrize("side", ["../x", "../../../tmp/x", "/etc/passwd", "red/../../x", "red\n", ""])
def test_19_a_packet_side_that_is_a_path_is_refused(table, side):
    blue = table.dirs["blue"]
    packet = resign(table.packet("red", [FIRE]), table.keys["red"], side=side)
    rejected(blue, ["adjudicate", blue, table.post(canonical.dumps(packet))], 3, "is not a side name", root=table.root)


def test_19_a_packet_naming_a_file_is_refused(table):
    blue = table.dirs["blue"]
    packet = resign(table.packet("red", [FIRE]), table.keys["red"], file="../../etc/passwd")
    rejected(blue, ["adjudicate", blue, table.post(packet)], 3, "unknown packet field `file`", root=table.root)


def test_19_an_existing_state_file_is_never_overwritten(table):
    table.send("red", [FIRE])
    table.send("blue")
    blue = table.dirs["blue"]
    stale = game.open_folder(blue)             # a second run that read the folder at state 2
    packet_3 = table.submit("red", [])
    packet, data = game.read_packet(packet_3)
    ok(run("adjudicate", blue, packet_3))      # the first run wins
    before = snapshot(blue)
    with pytest.raises(FileError, match="states/0003.yaml already exists; pbem never overwrites it"):
        game.adjudicate(stale, packet, data, str(packet_3))
    assert snapshot(blue) == before


def test_19_a_foreign_file_in_the_way_is_neither_overwritten_nor_joined(table):
    table.send("red", [FIRE])
    table.send("blue")
    blue = table.dirs["blue"]
    stale = game.open_folder(blue)
    packet, data = game.read_packet(table.submit("red", []))
    (blue / "states" / "0003.yaml").write_text("not pbem's\n")
    before = snapshot(blue)
    with pytest.raises(FileError, match="already exists"):
        game.adjudicate(stale, packet, data, "p.yaml")
    assert snapshot(blue) == before            # nor a packet or report left for the refused state


def test_19_write_new_never_replaces(tmp_path):
    path = tmp_path / "0001.yaml"
    path.write_text("old\n")
    with pytest.raises(FileError, match="already exists"):
        game.write_new(path, "new\n")
    assert snapshot(tmp_path) == {"0001.yaml": b"old\n"}


# --- 20. crash safety --------------------------------------------------------------------------

@pytest.fixture
def crash_site(table):
    """Blue's folder at state 2, packet 3 in the mail, and the folder it must become."""
    table.send("red", [FIRE])
    table.send("blue", [{"type": "fire", "unit": "b1", "target": "r2"}])
    packet_3 = table.submit("red", [{"type": "fire", "unit": "r2", "target": "b2"}])
    reference = table.root / "reference"
    shutil.copytree(table.dirs["blue"], reference)
    ok(run("adjudicate", reference, packet_3))
    return table.dirs["blue"], packet_3, snapshot(reference)


def _failing(real, fail_on: set[int], error: BaseException | None = None):
    calls = [0]

    def fake(*args, **kwargs):
        calls[0] += 1
        if calls[0] in fail_on:
            raise error or OSError(errno.EIO, "Input/output error")
        return real(*args, **kwargs)

    fake.calls = calls
    return fake


def _old_or_new(folder: Path, before: dict, after_ok: dict, result) -> None:
    now = snapshot(folder)
    if result.exit_code == 0:
        assert now == after_ok
    else:
        fails(result, 4, "cannot be written")
        assert now == before


@pytest.mark.parametrize("name, calls", [("link", 1), ("link", 2), ("replace", 1), ("write", 1), ("write", 2), ("write", 3)])
def test_20_a_failing_write_leaves_the_old_folder(crash_site, monkeypatch, name, calls):
    blue, packet_3, _ = crash_site
    before = snapshot(blue)
    with monkeypatch.context() as patch:
        patch.setattr(game.os, name, _failing(getattr(os, name), {calls}))
        result = run("adjudicate", blue, packet_3)
    fails(result, 4, "cannot be written")
    assert snapshot(blue) == before
    ok(run("adjudicate", blue, packet_3))      # and the packet still applies afterwards


def test_20_a_failing_fsync_at_any_point_leaves_old_or_complete_new(crash_site, monkeypatch, tmp_path):
    blue, packet_3, after_ok = crash_site
    counter = _failing(os.fsync, set())
    spare = tmp_path / "count"
    shutil.copytree(blue, spare)
    with monkeypatch.context() as patch:
        patch.setattr(game.os, "fsync", counter)
        ok(run("adjudicate", spare, packet_3))
    total = counter.calls[0]
    assert total >= 3
    for n in range(1, total + 1):
        folder = tmp_path / f"crash-{n}"
        shutil.copytree(blue, folder)
        before = snapshot(folder)
        with monkeypatch.context() as patch:
            patch.setattr(game.os, "fsync", _failing(os.fsync, {n}))
            result = run("adjudicate", folder, packet_3)
        _old_or_new(folder, before, after_ok, result)


def test_20_an_interrupt_before_the_state_is_linked_leaves_the_old_folder(crash_site, monkeypatch):
    blue, packet_3, after_ok = crash_site
    before = snapshot(blue)
    with monkeypatch.context() as patch:
        patch.setattr(game.os, "link", _failing(os.link, {2}, KeyboardInterrupt()))
        result = run("adjudicate", blue, packet_3)
    assert result.exit_code != 0
    assert snapshot(blue) == before
    ok(run("adjudicate", blue, packet_3))
    assert snapshot(blue) == after_ok


def test_20_a_kill_after_the_packet_was_filed_is_completed_by_adjudicating_again(crash_site):
    # What a kill between the packet file and the state would leave: the packet filed, a
    # half-written temporary file, no state 3. The temporary file is never read as a state,
    # and adjudicating the packet again completes the folder and removes it, so the folder
    # audits clean (a referee's probe: an honest folder failed its audit after a power cut,
    # the leftover named, until it was found and removed by hand). A leftover of another
    # file stays, and audit names it.
    blue, packet_3, after_ok = crash_site
    shutil.copy(packet_3, blue / "packets" / "0003-red.yaml")
    (blue / "states" / ".0003.yaml.tmp99999").write_text("pbem: 1\nseq: 3\nrul")
    (blue / "states" / ".0004.yaml.tmp99999").write_text("pbem: 1\nseq: 4\nrul")
    ok(run("status", blue))
    assert game.open_folder(blue).state["seq"] == 2
    ok(run("adjudicate", blue, packet_3))
    now = snapshot(blue)
    assert now.pop("states/.0004.yaml.tmp99999") == b"pbem: 1\nseq: 4\nrul"
    assert now == after_ok
    fails(run("audit", blue), 3, "states/.0004.yaml.tmp99999", "a leftover")
    (blue / "states" / ".0004.yaml.tmp99999").unlink()
    assert "audit OK" in ok(run("audit", blue)).stdout


# === Protocol 2: choosing or foreseeing dice (attacks 21-35) ====================================

def _cli_handshake(root: Path, key_files: dict, first: str = "red", second: str = "blue", name: str = "g") -> dict:
    """The handshake through the command line; returns side -> folder."""
    dirs = {first: root / f"{name}-{first}", second: root / f"{name}-{second}"}
    ok(run("new", dirs[first], "--ruleset", "duel", "--key", key_files[first], "--chain-length", 64,
           "--created", CREATED, *[f"--side={s}={key_files[s]}.pub" for s in (first, second)]))
    ok(run("join", dirs[second], dirs[first] / "proposal.yaml", "--key", key_files[second]))
    ok(run("join", dirs[first], dirs[second] / "join.yaml", "--key", key_files[first]))
    ok(run("join", dirs[second], dirs[first] / "game.yaml"))
    return dirs


# --- 21. every anchor is in the genesis before packet 1 -----------------------------------------

def test_21_every_anchor_is_in_the_signed_genesis_before_any_packet(table):
    proposal = canonical.load_mapping(table.dirs["red"] / "proposal.yaml")
    assert "anchor" in proposal["sides"][0] and "anchor" not in proposal["sides"][1]
    document = canonical.load_mapping(table.dirs["red"] / "game.yaml")
    assert all(len(side["anchor"]) == 64 and len(side["nonce"]) == 32 for side in document["sides"])
    assert sorted(document["signatures"]) == ["blue", "red"] and document["proposal_signature"]
    state = table.state()
    assert state["seq"] == 0 and {s: c["value"] for s, c in state["chains"].items()} == \
        {s["name"]: s["anchor"] for s in document["sides"]}


def test_21_no_packet_can_be_signed_before_the_genesis_is_complete(table, tmp_path):
    folders = {side: tmp_path / side for side in SIDES}
    ok(run("new", folders["red"], "--ruleset", "duel", "--key", table.key_files["red"], "--created", CREATED,
           *[f"--side={s}={table.key_files[s]}.pub" for s in SIDES]))
    orders = table.post("orders: []\n", "orders.yaml")
    rejected(folders["red"], ["submit", folders["red"], orders, "--key", table.key_files["red"]], 4,
             "not a pbem game folder yet", "handshake is not complete")
    ok(run("join", folders["blue"], folders["red"] / "proposal.yaml", "--key", table.key_files["blue"]))
    rejected(folders["blue"], ["submit", folders["blue"], orders, "--key", table.key_files["blue"]], 4,
             "handshake is not complete")
    # the join file itself is not a game: the proposer has not signed it yet
    joined = canonical.load_mapping(folders["blue"] / "join.yaml")
    watcher = tmp_path / "watcher"
    rejected(tmp_path, ["join", watcher, folders["blue"] / "join.yaml"], 2, "joins a proposal", "proposer completes it")
    assert "red" not in joined["signatures"]


def test_21_a_genesis_whose_anchor_was_changed_is_refused_by_every_command(table):
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    document = canonical.load_mapping(blue / "game.yaml")
    document["sides"][1]["anchor"] = chain_value(table, "blue", 1)   # blue "picks its chain later"
    (blue / "game.yaml").write_text(game.genesis_text(document))
    packet_2 = table.post(table.packet("blue", [], state=table.state("red")))
    for args in (["status", blue], ["audit", blue], ["orders", blue, "--side", "blue"], ["adjudicate", blue, packet_2]):
        rejected(blue, args, 3, "game.yaml: its content does not match what red signed (red's genesis signature",
                 "the file was altered after red signed it")


def test_21_the_handshake_through_the_command_line_gives_both_players_the_same_game(table, tmp_path):
    dirs = _cli_handshake(tmp_path, table.key_files)
    assert (dirs["red"] / "game.yaml").read_bytes() == (dirs["blue"] / "game.yaml").read_bytes()
    assert (dirs["red"] / "states" / "0000.yaml").read_bytes() == (dirs["blue"] / "states" / "0000.yaml").read_bytes()
    orders = table.post("orders:\n  - {type: fire, unit: r1, target: b1}\n", "o.yaml")
    ok(run("submit", dirs["red"], orders, "--key", table.key_files["red"], "--out", tmp_path / "p1.yaml"))
    ok(run("adjudicate", dirs["blue"], tmp_path / "p1.yaml"))
    for folder in dirs.values():
        ok(run("audit", folder))


# --- 22. the sender of packet k cannot change what segment k decides -------------------------------
# (the property test over every ruleset is tests/test_resolution.py)

def test_22_policies_answers_or_an_empty_packet_leave_segment_k_alone(tmp_path):
    """Red's fire (packet 3) rolls in segment 4; whatever blue's packet 4 says, the roll and
    its result are the same, and blue's own decision waits (attack 22's free re-roll)."""
    outcomes = []
    for n, (orders, policies) in enumerate([([], None), ([], {"absorb": "strongest"}), ([], {"absorb": "ask"}),
                                            ([{"type": "absorb", "unit": "b1", "decision": "3.1/absorb"}], None)]):
        t = Table(tmp_path / f"t{n}", key_seed="attacks7")
        t.send("red", [], {"absorb": "ask"})
        t.send("blue", [], {"absorb": "ask"})
        t.send("red", [FIRE, {"type": "fire", "unit": "r2", "target": "b2"}])
        path = t.submit("blue", orders, policies)
        report = (t.dirs["blue"] / "aar" / path.name[:4]).with_suffix(".md").read_text()
        outcomes.append(report.split("takes effect")[0])
        assert "t1.red.fire2" not in report   # after blue's choice: from segment 5, not 4
    assert len(set(outcomes)) == 1 and "Die: " in outcomes[0] and "a hit" in outcomes[0]


# --- 23. sealed orders ----------------------------------------------------------------------------

def test_23_a_seal_that_the_sealers_next_packet_does_not_open(blind):
    south = _sealed(blind)
    rejected(south, ["adjudicate", south, blind.post(blind.packet("north"))], 3,
             "north must open the 1 item(s) it sealed in packet 1 in this packet")


def test_23_a_second_seal_over_an_unopened_one(blind):
    south = _sealed(blind)
    again = blind.post(blind.packet("north", extra={"sealed": [seal_of(blind, 3, "north", SALT, PLAN)]}))
    rejected(south, ["adjudicate", south, again], 3, "north must open")


def test_23_a_seal_where_the_rules_ask_for_none(table):
    red = table.dirs["red"]
    packet = table.post(table.packet("red", extra={"sealed": ["ab" * 32]}, state=table.state("blue")))
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], packet], 1,
             "seals 1 item(s), but the rules ask for no sealed orders from red now")
    orders = table.post("orders:\n  - {type: fire, unit: r1, target: b1}\n", "o.yaml")
    rejected(red, ["submit", red, orders, "--key", table.key_files["red"], "--seal"], 1, "no sealed orders", root=table.root)


def test_23_a_plan_given_openly_where_the_rules_ask_for_a_seal(blind):
    packet = blind.post(blind.packet("north", [PLAN], state=blind.state("south")))
    rejected(blind.dirs["south"], ["adjudicate", blind.dirs["south"], packet], 1, "which takes sealed")


def test_23_opened_orders_roll_only_from_a_segment_after_the_opening(blind):
    south = _sealed(blind)
    ok(run("adjudicate", south, _opening(blind, {"salt": SALT.hex(), "item": PLAN})))      # packet 3
    blind.deliver(blind.mail / "mail-3.yaml", "north")
    opening_4 = blind.post(blind.packet("south", extra={"opens": [{"salt": SALT.hex(), "item": PLAN}]}))
    blind.deliver(opening_4, "south")
    blind.deliver(opening_4, "north")
    assert "Die:" not in (south / "aar" / "0004.md").read_text()      # south knows segment 4
    blind.send("north")                                                # packet 5 opens segment 5
    report = (south / "aar" / "0005.md").read_text()
    assert "segment 5, t1.north.attack)" in report and "segment 5, t1.south.attack)" in report


def test_23_submit_seal_keeps_the_items_and_the_next_submit_opens_them(blind, tmp_path):
    plan = table_file = blind.post("orders:\n  - {type: plan, attack: c, guard: a}\n", "plan.yaml")
    north, south = blind.dirs["north"], blind.dirs["south"]
    # --seal forgotten: refused, nothing signed (players' probe: the warning came after signing)
    refused = run("submit", north, plan, "--key", blind.key_files["north"])
    assert refused.exit_code == 2 and "and these are not sealed: `pbem submit --seal` seals them; to send them " \
        "open, for your opponent to read, give --no-seal (nothing was signed or sent)" in refused.stderr
    assert not (north / "packets" / "0001-north.yaml").exists()
    ok(run("submit", north, plan, "--key", blind.key_files["north"], "--seal", "--out", tmp_path / "p1.yaml"))
    kept = north / "private" / "seal-0001-north.yaml"
    assert kept.stat().st_mode & 0o777 == 0o600
    packet_1 = canonical.load_mapping(tmp_path / "p1.yaml")
    assert packet_1["orders"] == [] and len(packet_1["sealed"]) == 1 and "plan" not in (tmp_path / "p1.yaml").read_text()
    _south_seals_and_north_opens(blind, tmp_path, table_file)
    assert not kept.exists()
    ok(run("audit", north))
    ok(run("audit", south))


def test_23_an_open_order_left_in_the_queue_is_said_to_be_void_at_a_sealed_step(blind, tmp_path):
    """A players' probe (kkoh): a stray `end` in the packet that opened a turn's last items
    waited in the queue and answered the sender's next sealed step, its order chits, in the
    open; submit said only that it "ends the step it then meets". Such an order is now void at
    a sealed step (the engine, tests/test_kkoh_sealed_templates.py), and where the rules ask
    for sealed orders the warning says that the step may be one of them."""
    plan = blind.post("orders:\n  - {type: plan, attack: c, guard: a}\n", "plan.yaml")
    north, south = blind.dirs["north"], blind.dirs["south"]
    ok(run("submit", north, plan, "--key", blind.key_files["north"], "--seal", "--out", tmp_path / "p1.yaml"))
    ok(run("adjudicate", south, tmp_path / "p1.yaml"))
    ok(run("submit", south, plan, "--key", blind.key_files["south"], "--seal", "--out", tmp_path / "p2.yaml"))
    ok(run("adjudicate", north, tmp_path / "p2.yaml"))
    stray = blind.post("orders:\n  - {type: plan, attack: b, guard: c}\n", "stray.yaml")   # next turn's, open
    said = run("submit", north, stray, "--key", blind.key_files["north"], "--dry-run").stderr
    assert ("waits in the queue: the game now waits for south's orders (turn 1: open your sealed plan), and it "
            "applies as the game next asks north for orders, or for a decision it answers, however late that is") in said
    assert ("; if that step is one the rules ask you to seal, it is void there (an open order queued before never "
            "answers a sealed step, docs/protocol.md §8): orders meant for a sealed step go in its own packet, with "
            "--seal") in said


def _south_seals_and_north_opens(blind, tmp_path, plan: Path) -> None:
    """North's sealing packet 1 (tmp_path/p1.yaml) reaches south, which seals `plan` in packet 2;
    north's packet 3, of no orders, opens north's plan (attack c, guard a), and south applies it."""
    north, south = blind.dirs["north"], blind.dirs["south"]
    ok(run("adjudicate", south, tmp_path / "p1.yaml"))
    ok(run("submit", south, plan, "--key", blind.key_files["south"], "--seal", "--out", tmp_path / "p2.yaml"))
    ok(run("adjudicate", north, tmp_path / "p2.yaml"))
    empty = blind.post("orders: []\n", "empty.yaml")
    ok(run("submit", north, empty, "--key", blind.key_files["north"], "--out", tmp_path / "p3.yaml"))
    assert canonical.load_mapping(tmp_path / "p3.yaml")["opens"][0]["item"] == {"type": "plan", "attack": "c", "guard": "a"}
    ok(run("adjudicate", south, tmp_path / "p3.yaml"))


# `pbem` killed as it begins to write a file under KILL_AT/ (the test ruleset `blind` registered)
_KILLED_AT = """
import os, signal, sys
sys.path.insert(0, ROOT)
from pbem import rulesets
from pbem.core import game
rulesets.REGISTRY["blind"] = "tests.support.blind"
real = game.write_new
def write_new(path, *args, **kwargs):
    if ("/" + KILL_AT + "/") in str(path):
        os.kill(os.getpid(), signal.SIGKILL)   # a power cut, kill -9: no clean-up runs
    return real(path, *args, **kwargs)
game.write_new = write_new
from pbem.entry import main
sys.argv[0] = "pbem"
main()
"""


@pytest.mark.parametrize("killed_at, filed", [("packets", False), ("states", True)])
def test_20_23_a_kill_in_submit_seal_never_loses_what_it_sealed(blind, tmp_path, killed_at, filed):
    """A kill once the sealing packet was in the folder, before its state, left the items
    unkept: the sealer could never open its seal, so never send another packet (a cheater's
    probe). They are kept before the packet is written; the same command again re-sends the
    filed packet, and the next packet opens them. Killed before the packet is filed, the same
    command seals anew."""
    import subprocess
    import sys

    plan = blind.post("orders:\n  - {type: plan, attack: c, guard: a}\n", "plan.yaml")
    north, south = blind.dirs["north"], blind.dirs["south"]
    root = str(Path(__file__).resolve().parents[1])
    script = f"KILL_AT = {killed_at!r}\nROOT = {root!r}\n" + _KILLED_AT
    killed = subprocess.run([sys.executable, "-c", script, "submit", str(north), str(plan),
                             "--key", str(blind.key_files["north"]), "--seal"], capture_output=True)
    assert killed.returncode == -9
    kept = north / "private" / "seal-0001-north.yaml"
    assert (north / "packets" / "0001-north.yaml").exists() is filed and kept.exists()
    assert not (north / "states" / "0001.yaml").exists()
    ok(run("submit", north, plan, "--key", blind.key_files["north"], "--seal", "--out", tmp_path / "p1.yaml"))
    assert kept.stat().st_mode & 0o777 == 0o600
    _south_seals_and_north_opens(blind, tmp_path, plan)
    ok(run("audit", south))


@pytest.mark.parametrize("private_before", [False, True])
def test_23_a_seal_refused_before_its_packet_is_filed_keeps_nothing(blind, monkeypatch, private_before):
    """The items are kept before the packet is written, and taken away again when it is not:
    an interrupt before the packet is filed leaves no private items of a packet never sent,
    and the folder as it was (the private folder only if the seal made it)."""
    plan = blind.post("orders:\n  - {type: plan, attack: c, guard: a}\n", "plan.yaml")
    north = blind.dirs["north"]
    if private_before:
        (north / "private").mkdir(mode=0o700)
    with monkeypatch.context() as patch:
        patch.setattr(game.os, "link", _failing(os.link, {1}, KeyboardInterrupt()))
        assert run("submit", north, plan, "--key", blind.key_files["north"], "--seal").exit_code != 0
    assert not (north / "packets" / "0001-north.yaml").exists()
    assert not (north / "private" / "seal-0001-north.yaml").exists()
    assert (north / "private").exists() is private_before


@pytest.mark.parametrize("item, words", [
    ("{type: plan, attack: z, guard: a}", ("order 1", "attack")),        # no such place: the schema refuses it
    ("{type: plan, attack: c}", ("order 1", "guard")),                   # a field missing
    ("{type: plan, attack: c, guard: a, decision: nonsense}", ("order 1", "decision")),
])
def test_23_submit_seal_refuses_an_item_that_could_never_be_opened(blind, tmp_path, item, words):
    """An item the orders schema refuses would be refused when opened, and an opening must
    equal its seal: the sealer could never open it, and the game would be stuck. `--seal`
    checks every item first, and seals and signs nothing if one fails."""
    plan = blind.post(f"orders:\n  - {item}\n", "plan.yaml")
    first = rejected(blind.dirs["north"], ["submit", blind.dirs["north"], plan, "--key", blind.key_files["north"],
                                           "--seal", "--out", tmp_path / "p1.yaml"], 1, *words, "nothing was sealed")
    assert first.startswith("pbem: ") and not (tmp_path / "p1.yaml").exists()


# --- 24. a rematch never reuses a chain --------------------------------------------------------------

def test_24_the_same_proposal_arguments_make_a_new_game_with_new_chains(table, tmp_path):
    first = _cli_handshake(tmp_path, table.key_files, name="one")
    second = _cli_handshake(tmp_path, table.key_files, name="two")
    a, b = (canonical.load_mapping(d["red"] / "game.yaml") for d in (first, second))
    assert game.open_folder(first["red"]).game.game_id != game.open_folder(second["red"]).game.game_id
    for x, y in zip(a["sides"], b["sides"]):
        assert x["nonce"] != y["nonce"] and x["anchor"] != y["anchor"]
    orders = table.post("orders: []\n", "o.yaml")
    ok(run("submit", first["red"], orders, "--key", table.key_files["red"], "--out", tmp_path / "p.yaml"))
    rejected(second["blue"], ["adjudicate", second["blue"], tmp_path / "p.yaml"], 3, "belongs to game")


def test_24_a_proposal_completes_one_game_only(table, tmp_path):
    red, blue, blue2 = tmp_path / "red", tmp_path / "blue", tmp_path / "blue-again"
    ok(run("new", red, "--ruleset", "duel", "--key", table.key_files["red"], "--created", CREATED,
           *[f"--side={s}={table.key_files[s]}.pub" for s in SIDES]))
    ok(run("join", blue, red / "proposal.yaml", "--key", table.key_files["blue"]))
    ok(run("join", blue2, red / "proposal.yaml", "--key", table.key_files["blue"]))   # a second join, new nonce
    ok(run("join", red, blue / "join.yaml", "--key", table.key_files["red"]))
    rejected(red, ["join", red, blue2 / "join.yaml", "--key", table.key_files["red"]], 3,
             "a proposal completes one game only")
    ok(run("join", red, blue / "join.yaml", "--key", table.key_files["red"]))           # the same join again: fine


# --- 25. a re-encoded signature is not another packet ---------------------------------------------------

def _reencoded(blob: bytes, how: str, key) -> bytes:
    from pbem.core.keys import _Reader, _string

    reader = _Reader(blob, "sig")
    magic, version = reader.take(6), reader.take(4)
    fields = [reader.string() for _ in range(5)]
    if how == "reserved":
        fields[2] = b"x"
    elif how == "sha256":
        import hashlib

        message = canonical.canonical(unsigned(TAMPERED))
        data = b"SSHSIG" + b"".join(_string(f) for f in (b"pbem-packet-v1", b"", b"sha256", hashlib.sha256(message).digest()))
        fields[3] = b"sha256"
        fields[4] = _string(b"ssh-ed25519") + _string(key.key.sign(data))
    blob = magic + version + b"".join(_string(f) for f in fields)
    return blob + (b"\0" if how == "trailing" else b"")


TAMPERED: dict = {}


@pytest.mark.parametrize("how, words", [("reserved", "non-empty reserved field"), ("sha256", "uses hash 'sha256'"),
                                        ("trailing", "unexpected trailing bytes")])
def test_25_a_reencoded_signature_is_refused_and_is_never_equivocation(table, how, words):
    blue, packet = _tampered(table)
    TAMPERED.clear()
    TAMPERED.update(packet)
    blob = base64.b64decode(packet["signature"]["value"])
    twin = dict(packet, signature={"key": packet["signature"]["key"],
                                   "value": base64.b64encode(_reencoded(blob, how, table.keys["red"])).decode()})
    rejected(blue, ["adjudicate", blue, table.post(twin)], 3, words)
    ok(run("adjudicate", blue, table.post(packet)))
    # once the packet is applied, its twin is the same packet (same packet id): no fork
    first = rejected(blue, ["adjudicate", blue, table.post(twin)], 3, "was already applied")
    assert "equivocation" not in first
    shutil.copy(table.mail / f"mail-{table._posted}.yaml", blue / "packets" / "0003-red.zzz.yaml")
    first = rejected(blue, ["audit", blue], 3, "packets/0003-red.zzz.yaml", words)
    assert "fork" not in first


def test_3_a_packet_of_another_game_of_the_same_keys_is_never_equivocation(table, tmp_path):
    """Two games of the same two keys: packet 1 of the second, given to the first once its own
    packet 1 is applied, was called "equivocation: red signed two different packets", a false
    accusation (a probe). It is a packet of another game."""
    one = _cli_handshake(tmp_path, table.key_files, name="one")
    two = _cli_handshake(tmp_path, table.key_files, name="two")
    orders = table.post("orders: []\n", "o.yaml")
    ok(run("submit", one["red"], orders, "--key", table.key_files["red"], "--out", tmp_path / "p1.yaml"))
    ok(run("submit", two["red"], orders, "--key", table.key_files["red"], "--out", tmp_path / "q1.yaml"))
    ok(run("adjudicate", one["blue"], tmp_path / "p1.yaml"))
    first = rejected(one["blue"], ["adjudicate", one["blue"], tmp_path / "q1.yaml"], 3, "the packet belongs to game")
    assert "equivocation" not in first
    # what the packet is and what this folder is, so that the player sees which was wrong
    assert re.search(r"belongs to game [0-9a-f]{32} \(its packet 1, from red\), not to this [a-z]+ game [0-9a-f]{32}: "
                     r"a packet of another game, or the wrong game folder", first), first


def test_3_audit_names_a_packet_of_another_game_put_in_a_folder_as_one(table, tmp_path):
    """Packet 2 of a second game of the same keys put in the place of the first's: audit said
    its sender had "adjudicated another packet 1" (a probe); it is a packet of another game."""
    one = _cli_handshake(tmp_path, table.key_files, name="one")
    two = _cli_handshake(tmp_path, table.key_files, name="two")
    orders = table.post("orders: []\n", "o.yaml")
    for dirs, name in ((one, "p"), (two, "q")):
        ok(run("submit", dirs["red"], orders, "--key", table.key_files["red"], "--out", tmp_path / f"{name}1.yaml"))
        ok(run("adjudicate", dirs["blue"], tmp_path / f"{name}1.yaml"))
        ok(run("submit", dirs["blue"], orders, "--key", table.key_files["blue"]))
    shutil.copy(two["blue"] / "packets" / "0002-blue.yaml", one["blue"] / "packets" / "0002-blue.yaml")
    first = fails(run("audit", one["blue"]), 3, "packets/0002-blue.yaml", "a packet of another game")
    assert "adjudicated another packet" not in first


def test_3_a_packet_of_a_game_of_other_keys_is_said_to_be_of_another_game(table):
    """Packet 2 of a game between two other keys, put in a folder in the place of packet 2 or
    given to adjudicate: audit said only that it "names key ..., which is not blue's key", a
    forgery in blue's name to a referee's eye, where adjudicate of the same file said "a packet
    of another game" (a new user's probe). Both say what it is, and whose key it is not."""
    table.send("red", [FIRE])
    strangers = Table(table.root, name="strangers", key_seed="strangers")
    strangers.send("red", [FIRE])
    foreign = strangers.post(strangers.packet("blue", []))
    key = strangers.game.public_keys["blue"].fingerprint()
    assert key != table.game.public_keys["blue"].fingerprint()
    red = table.dirs["red"]
    first = rejected(red, ["adjudicate", red, foreign], 3, f"the packet belongs to game {strangers.game.game_id} (its "
                     f"packet 2, from blue), not to this", f"a packet of another game, or the wrong game folder; it "
                     f"names key {key}, a key of neither side of this game")
    assert "which is not blue's key" not in first
    table.send("blue")
    shutil.copy(foreign, red / "packets" / "0002-blue.yaml")
    first = rejected(red, ["audit", red], 3, "packets/0002-blue.yaml: a packet of another game "
                     f"({strangers.game.game_id}): it names key {key}, a key of neither side of this game")
    assert "which is not blue's key" not in first
    assert json.loads(run("audit", red, "--json").stdout)["divergence"]["field"] == "game"
    # where a packet is missing too (its seq another than the place it stands in): still that first
    strangers.send("blue")
    third = strangers.post(strangers.packet("red", []))
    assert canonical.load_mapping(third)["seq"] == 3
    (red / "packets" / "0002-blue.yaml").unlink()
    shutil.copy(third, red / "packets" / "0003-red.yaml")
    red_key = strangers.game.public_keys["red"].fingerprint()
    first = rejected(red, ["audit", red], 3, "packets/0003-red.yaml: a packet of another game "
                     f"({strangers.game.game_id}): it names key {red_key}, a key of neither side of this game")
    assert "missing" not in first


# --- 26. a rigged state is refused by every command ------------------------------------------------------

def _every_command(folder: Path, table: Table) -> list[list]:
    orders = table.post("orders: []\n", "o.yaml")
    return [["status", folder], ["orders", folder, "--side", "red"], ["show", folder], ["audit", folder],
            ["submit", folder, orders, "--key", table.key_files["blue"]]]


def test_26_a_rigged_state_0_with_a_recomputed_hash(table):
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    path = blue / "states" / "0000.yaml"
    state = canonical.load_mapping(path)
    state["rules"]["units"]["r1"]["strength"] = 1        # blue "sets up" red weaker
    state["state_hash"] = engine.state_hash(state)
    path.write_text(game.state_text(state))
    for args in _every_command(blue, table):
        words = ["differs from the replay", "rules.units.r1.strength"] if args[0] == "audit" else \
            ["not the set-up this genesis gives"]
        rejected(blue, args, 3, "states/0000.yaml", *words)


def test_26_a_state_whose_prev_state_link_is_broken(table):
    table.send("red", [FIRE])
    table.send("blue")
    table.send("red")
    blue = table.dirs["blue"]
    path = blue / "states" / "0002.yaml"
    state = canonical.load_mapping(path)
    state["rules"]["units"]["b1"]["strength"] = 3
    state["state_hash"] = engine.state_hash(state)
    path.write_text(game.state_text(state))
    packet_4 = table.post(table.packet("blue", [], state=table.state("red")))
    for args in _every_command(blue, table)[:3] + [["adjudicate", blue, packet_4]]:
        rejected(blue, args, 3, "states/0003.yaml", "`prev_state` is not the hash of states/0002.yaml")
    rejected(blue, ["audit", blue], 3, "states/0002.yaml", "rules.units.b1.strength")


def test_26_a_last_state_edited_and_re_hashed_is_not_described(table):
    """A folder sent to a referee or the audience with its last state rigged (a unit
    restored) and its hash recomputed: `status` and `show` check, as `render` does, that the
    state's packet gives it, and refuse it (referee's probe: they printed the forged board)."""
    table.send("red", [FIRE])
    table.send("blue")
    blue = table.dirs["blue"]
    last = table.state("blue")["seq"]
    path = blue / "states" / f"{last:04d}.yaml"
    state = canonical.load_mapping(path)
    state["rules"]["units"]["b1"]["strength"] = 3
    state["state_hash"] = engine.state_hash(state)
    path.write_text(game.state_text(state))
    # and the orders template, which a player may make in a folder he was handed
    for args in (["status", blue], ["show", blue], ["show", blue, "--state", str(last)], ["orders", blue, "--side", "red"]):
        rejected(blue, args, 3, f"states/{last:04d}.yaml is not the state packet {last} gives")
    assert run("show", blue, "--state", str(last - 1)).exit_code == 0   # the states before it stand


def _rehash(path: Path, edit) -> dict:
    """Edit the state file at `path` by hand and recompute its hash, as a forger would."""
    state = canonical.load_mapping(path)
    edit(state)
    state["state_hash"] = engine.state_hash(state)
    path.write_text(game.state_text(state))
    return state


@pytest.fixture
def ghost_game(tmp_path):
    """A sandbox stalingrad game at state 1 whose state 1 was given, by hand, a unit its
    scenario does not have, its hash recomputed; and packet 2 as the honest folder made it."""
    folder, honest = tmp_path / "game", tmp_path / "honest"
    ok(run("new", folder, "--ruleset", "stalingrad", "--sandbox", "--seed", "1", "--side", "german",
           "--side", "soviet"))
    orders = tmp_path / "orders.yaml"
    orders.write_text("orders: []\n")
    ok(run("submit", folder, orders, "--side", "german"))
    shutil.copytree(folder, honest)
    ok(run("submit", honest, orders, "--side", "soviet"))
    forged = _rehash(folder / "states" / "0001.yaml", lambda state: state["rules"]["units"].update(ghost="pool"))
    return folder, orders, forged, canonical.load_mapping(honest / "packets" / "0002-soviet.yaml")


def test_26_a_rigged_last_state_the_rules_cannot_work_on_is_refused_not_a_crash(ghost_game, tmp_path):
    """`submit` and `adjudicate` apply orders to the latest state, trusted by its hash and
    links alone: a state given a unit the scenario lacks made the rules raise KeyError, a
    traceback (a referee's probe). The fault is laid where it lies: the state no packet gives."""
    folder, orders, forged, packet = ghost_game
    said = "states/0001.yaml is not the state packet 1 gives"
    rejected(folder, ["submit", folder, orders, "--side", "soviet"], 3, said, "pbem audit")
    # a sandbox packet is unsigned: one made on the rigged state passes the link check
    packet["prev"] = forged["state_hash"]
    made = tmp_path / "0002-soviet.yaml"
    made.write_text(game.packet_yaml(packet))
    rejected(folder, ["adjudicate", folder, made], 3, said)


def test_26_a_rigged_state_under_a_state_built_on_it_is_named_by_every_command(ghost_game):
    """State 1 rigged, then packet 2 and state 2 made on it: state 2 is what packet 2 gives
    on the rigged state 1, so `status`'s check of the last state passes, and the rules then
    failed on the unknown unit in state 2. The replay from state 0 names state 1."""
    folder, orders, forged, packet = ghost_game
    packet["prev"] = forged["state_hash"]
    (folder / "packets" / "0002-soviet.yaml").write_text(game.packet_yaml(packet))
    state, _ = engine.apply_packet(game.open_folder(folder).game, forged, packet, "packets/0002-soviet.yaml")
    (folder / "states" / "0002.yaml").write_text(game.state_text(state))
    for args in (["status", folder], ["show", folder], ["orders", folder, "--side", "german"],
                 ["submit", folder, orders, "--side", "german"]):
        rejected(folder.parent, args, 3, "states/0001.yaml is not the state packet 1 gives")


@pytest.mark.parametrize("link", ["prev_state", "packet"])
def test_26_a_last_state_whose_links_are_not_hashes_is_refused_by_every_command(ghost_game, link):
    """Every command follows the last state's `prev_state` and `packet`: one removed, or made a
    number, with the hash recomputed, raised KeyError or TypeError where they were read (a
    review's probe), and the replay that looks for an altered state read them the same way."""
    folder, orders, forged, packet = ghost_game
    path = folder / "states" / "0001.yaml"
    for value in (None, 5):
        _rehash(path, lambda state: state.pop(link) if value is None else state.update({link: value}))
        for args in (["status", folder], ["show", folder], ["orders", folder, "--side", "soviet"],
                     ["submit", folder, orders, "--side", "soviet"]):
            rejected(folder, args, 3, "states/0001.yaml: the state file has been altered", f"`{link}`")


def test_a_fault_of_the_replay_that_looks_for_an_altered_state_leaves_the_commands_own(ghost_game, monkeypatch):
    """Should the replay itself fail, the fault shown is the command's, not the replay's."""
    from pbem.core.render import frames

    folder, orders, forged, packet = ghost_game

    def broken(*args):
        raise TypeError("the replay failed")
    monkeypatch.setattr(frames, "frames", broken)
    result = run("submit", folder, orders, "--side", "soviet")
    assert isinstance(result.exception, KeyError) and result.exception.args == ("ghost",)


def test_an_interrupted_prompt_is_not_taken_for_an_altered_folder(ghost_game, monkeypatch):
    """click's Abort (Ctrl-C or end of input at the passphrase prompt) is no fault of the rules:
    it ends the command at once, without replaying the game (a review: about a second and a
    half on the larger examples, and exit 3 on an altered folder)."""
    import click

    from pbem.cli import submit as submit_command

    folder, orders, forged, packet = ghost_game
    replays = []
    monkeypatch.setattr(game, "altered_state", lambda folders: replays.append(folders))

    def prompt(path):
        raise click.Abort()
    monkeypatch.setattr(submit_command, "load_key", prompt)
    result = run("submit", folder, orders, "--key", folder / "game.yaml")
    assert result.exit_code == 1 and "Aborted!" in result.output and replays == []


def test_a_fault_of_pbems_own_is_not_laid_at_an_honest_folder(ghost_game, monkeypatch):
    """Only a replay that finds an altered state turns a fault into its refusal: on an honest
    folder the fault shows as it is, for a bug report."""
    folder, orders, forged, packet = ghost_game
    honest = folder.parent / "honest"

    def broken(*args):
        raise KeyError("a fault of pbem's own")
    monkeypatch.setattr(engine.Game, "summary", broken)
    result = run("status", honest)
    assert isinstance(result.exception, KeyError) and result.exception.args == ("a fault of pbem's own",)


# --- 27. the genesis keys ------------------------------------------------------------------------------------

def test_27_a_key_whose_comment_the_genesis_refuses_is_refused_before_a_proposal_is_signed(tmp_path):
    """A .pub file whose comment holds a control character: `pbem new` signed a proposal that
    the opponent's `pbem join` then refused as not matching the schema (exit 3), so an honest
    proposal looked forged (referee's probe). It is refused at once, as a usage slip, naming
    the file first, as every refusal of a file given does."""
    red = write_key(tmp_path, "red", "comment-red")
    write_key(tmp_path, "blue", "comment-blue")
    pub = tmp_path / "blue.pub"
    pub.write_text(pub.read_text().strip() + " bob\x1b[31mred\n")
    first = rejected(tmp_path, ["new", tmp_path / "g", "--ruleset", "duel", "--side", f"red={red}.pub", "--side",
                                f"blue={pub}", "--key", red], 2, "not printable ASCII")
    assert first.startswith(f"pbem: {pub} (--side blue): the key's comment "), first
    assert not (tmp_path / "g").exists()

@pytest.mark.parametrize("change, words", [
    (lambda g, t: g["sides"][0].update(fingerprint=t.keys["blue"].public.fingerprint()), ["fingerprint of side red"]),
    (lambda g, t: g["sides"][1].update(key=g["sides"][0]["key"], fingerprint=g["sides"][0]["fingerprint"]),
     ["two sides have the same key"]),
    (lambda g, t: g["sides"][1].update(chain_length=16), ["chain_length", "minimum of 64"]),
])
def test_27_a_genesis_with_a_bad_key_or_chain_is_refused(table, tmp_path, change, words):
    blue = table.dirs["blue"]
    document = canonical.load_mapping(blue / "game.yaml")
    change(document, table)
    (blue / "game.yaml").write_text(game.genesis_text(document))
    rejected(blue, ["status", blue], 3, "game.yaml", *words)
    rejected(tmp_path, ["join", tmp_path / "spectator", blue / "game.yaml"], 3, *words)


def _hand_joined(table, change) -> tuple[dict, dict]:
    """red's proposal of a duel, and blue's join of it made by hand, its chain fields changed
    by `change(blue's entry, red's entry)` and signed by both as the handshake signs."""
    from pbem.core import genesis

    ruleset = rulesets.get("duel")
    proposal = genesis.propose(ruleset, {s: k.public for s, k in table.keys.items()}, table.keys["red"],
                               chain_length=64, nonce=nonce("hand-red"), created=CREATED)
    joined = copy.deepcopy(genesis.join(proposal, table.keys["blue"], "proposal.yaml", chain_length=64,
                                        nonce=nonce("hand-blue")))   # red's entry is the proposal's own
    red, blue = joined["sides"]
    change(blue, red)
    joined["proposal_signature"] = genesis._sign(table.keys["red"], genesis.proposal_view(joined))   # red colludes
    joined["signatures"] = {"blue": genesis._sign(table.keys["blue"], genesis.unsigned(joined))}
    return proposal, joined


@pytest.mark.parametrize("change", [
    lambda blue, red: blue.update(anchor=red["anchor"]),
    lambda blue, red: blue.update(anchor=dice.chain_step(bytes.fromhex(red["anchor"])).hex()),
    lambda blue, red: blue.update(nonce=red["nonce"]),
    lambda blue, red: blue.update(nonce=red["nonce"], anchor=red["anchor"]),
    lambda blue, red: red.update(anchor=dice.chain_step(bytes.fromhex(blue["anchor"])).hex()),   # arranged before
])
def test_27_a_joiner_whose_chain_is_the_proposers_or_starts_at_its_anchor_is_refused(table, tmp_path, change):
    """A joiner who takes the proposer's anchor (or its hash: the joiner's first value is then
    the proposer's anchor) reveals the proposer's own values a packet late, so the proposer
    knows every segment's seed in advance, and an audit called the colluding pair's dice
    unforeseeable (a cheaters' probe). The proposer's `pbem join` refuses the join, and a
    genesis both signed anyway is refused by every command: no folder is made of it."""
    from pbem.core import genesis

    proposal, joined = _hand_joined(table, change)
    with pytest.raises(VerificationError, match="the same chain nonce|anchor is red's, or one hash step from it"):
        genesis.complete(joined, proposal, table.keys["red"], "join.yaml")
    both = dict(joined, signatures=dict(joined["signatures"], red=genesis._sign(table.keys["red"],
                                                                                 genesis.unsigned(joined))))
    (tmp_path / "game.yaml").write_text(game.genesis_text(both))
    words = "same chain nonce" if joined["sides"][0]["nonce"] == joined["sides"][1]["nonce"] else "one hash step"
    rejected(tmp_path, ["join", tmp_path / "spectator", tmp_path / "game.yaml"], 3, "game.yaml", words)
    assert not (tmp_path / "spectator").exists()


def test_27_an_honest_join_passes_the_chain_check():
    """The check above refuses only what it must: red's and blue's own chains pass it."""
    from pbem.core import genesis

    key = {side: fixed_key(f"honest-{side}") for side in SIDES}
    proposal = genesis.propose(rulesets.get("duel"), {s: k.public for s, k in key.items()}, key["red"],
                               chain_length=64, created=CREATED)
    joined = genesis.join(proposal, key["blue"], "proposal.yaml", chain_length=64)
    assert sorted(genesis.verify(genesis.complete(joined, proposal, key["red"], "join.yaml"), "game.yaml")) == sorted(SIDES)


def test_27_a_proposal_naming_one_key_for_both_sides_is_refused(table, tmp_path):
    rejected(tmp_path, ["new", tmp_path / "g", "--ruleset", "duel", "--key", table.key_files["red"],
                        f"--side=red={table.key_files['red']}.pub", f"--side=blue={table.key_files['red']}.pub"],
             2, "two sides have the same key", "nothing was written")   # the command line's mistake
    short = run("new", tmp_path / "g", "--ruleset", "duel", "--key", table.key_files["red"], "--chain-length", 63,
                *[f"--side={s}={table.key_files[s]}.pub" for s in SIDES])
    assert short.exit_code == 2 and "--chain-length" in short.stderr and not (tmp_path / "g").exists()


# --- 28. limits ---------------------------------------------------------------------------------------------

def test_28_a_packet_of_more_than_1000_orders(table):
    blue = table.dirs["blue"]
    packet = table.post(table.packet("red", [FIRE] * 1001, state=table.state("blue")))
    rejected(blue, ["adjudicate", blue, packet], 4, "1001 orders, over the limit of 1000")


def test_28_a_queue_beyond_1000_orders_of_a_side(table):
    table.send("red", [FIRE] + [{"type": "end"}] * 999)   # 998 ends wait for red's next fire phase
    table.send("blue")
    assert sum(1 for item in table.state("red")["queue"] if item["side"] == "red") == 998
    packet = table.post(table.packet("red", [{"type": "end"}] * 3, state=table.state("blue")))
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], packet], 1, "red would have 1001 orders queued",
             "over the limit of 1000")


def test_28_a_state_beyond_the_file_limit_is_refused_before_anything_is_written(table, monkeypatch):
    monkeypatch.setattr(game, "MAX_BYTES", 3000)
    blue = table.dirs["blue"]
    packet = table.post(table.packet("red", [FIRE] * 40, state=table.state("blue")))
    rejected(blue, ["adjudicate", blue, packet], 1, "would make a state of", "over the file limit of 3000")


def test_28_clearing_void_orders_drops_the_whole_queue_at_once(table):
    table.send("red", [FIRE] * 1000)     # the second fire of r1 is void: 999 dropped
    applied = table.send("blue")
    report = (table.dirs["blue"] / "aar" / "0002.md").read_text()
    assert report.count(" is void: ") == 1 and "r1 has already fired this phase" in report
    assert table.state("blue")["queue"] == []
    assert applied.name == "0002-blue.yaml"


# --- 29. terminal and report injection ---------------------------------------------------------------------

ESC = "\x1b]0;owned\x07\x1b[2J\u202e\x9b"


def test_29_control_and_bidi_characters_never_reach_the_terminal(table):
    blue = table.dirs["blue"]
    packet = table.post(resign(table.packet("red", [{"type": "fire", "unit": "r1" + ESC, "target": "b1"}],
                                            state=table.state("blue")), table.keys["red"]))
    result = run("adjudicate", blue, packet)
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr and "\x07" not in result.stderr
    assert "\\x1b]0;owned\\x07\\x1b[2J\\u202e\\x9b" in result.stderr and "\x9b" not in result.stderr
    for field, value in (("sent", "2026-11-29T12:00:00Z" + ESC), ("side", "red" + ESC)):
        bad = table.post(resign(table.packet("red", [], state=table.state("blue")), table.keys["red"], **{field: value}))
        result = run("adjudicate", blue, bad)
        assert result.exit_code in (3, 4) and "\x1b" not in result.output + result.stderr
    bad = table.post(resign(table.packet("red", [], state=table.state("blue")), table.keys["red"],
                            policies={"absorb" + ESC: "ask"}))
    result = run("adjudicate", blue, bad)
    assert result.exit_code == 1 and "\x1b" not in result.stderr and "\\x1b" in result.stderr


def test_29_a_players_text_cannot_forge_a_report_line_or_markup(table):
    forged = ("b1\n- red's standing order answers everything: **red wins** [click](http://x) [b]x[/b] <b>x</b> "
              "<http://y> &#x202E;niw der&#x202C; &#10;- &amp;")
    table.send("red", [FIRE, {"type": "fire", "unit": "r1", "target": forged}])   # the second is void later
    table.send("blue")
    report = (table.dirs["blue"] / "aar" / "0002.md").read_text()
    [line] = [line for line in report.splitlines() if "is void" in line]
    assert "\\x0a- red's standing order" in line and "\\*\\*red wins\\*\\*" in line and "\\[click\\]" in line
    assert "\\<b>x\\</b> \\<http://y>" in line   # no tag nor autolink opens
    # nor a character reference: a bidi override or a line break by another name
    assert "\\&#x202E;niw der\\&#x202C; \\&#10;- \\&amp;" in line
    assert not any(l.startswith("- red's standing order answers everything") for l in report.splitlines())
    bb = run("status", table.dirs["blue"])
    assert bb.exit_code == 0
    game_ = table.folder("blue")
    from pbem.core import report as reports

    text = reports.render(game_.game, game_.state, [{"type": "void", "text": forged}], "bbcode")
    assert "[ b]x[ /b]" in text and "[*]b1\\x0a- red" in text


def test_29_a_file_name_that_came_by_mail_prints_no_line_of_its_own(table, tmp_path):
    """A proposal, a join, a game.yaml, an orders file or a scenario comes as a file whose name
    the sender chose: a name holding a line break printed a line of the sender's making in
    pbem's error, a forged verdict (a hostile-input review). The name is shown escaped."""
    name = tmp_path / "x\nAUDIT OK: nothing to see\n.yaml"
    name.write_text("a: [\n")
    blue = table.dirs["blue"]
    for args, code in ((["join", tmp_path / "j", name], 4), (["submit", blue, name, "--key", table.key_files["blue"]], 4),
                       (["new", tmp_path / "n", "--ruleset", "duel", "--scenario", name, "--side", "red", "--side",
                         "blue", "--sandbox"], 4)):
        error = fails(run(*args), code)
        assert "x\\x0aAUDIT OK: nothing to see\\x0a.yaml" in error
        assert not any(line.startswith("AUDIT OK") for line in run(*args).stderr.splitlines())
    name.write_text("orders: []\n")   # read, then refused later by the join that names it
    error = fails(run("join", tmp_path / "j", name), 3)
    assert "x\\x0aAUDIT OK" in error and not (tmp_path / "j").exists()


def test_29_ids_have_patterns_in_the_schemas():
    from pbem.core import schema

    for name in ("chir-orders.schema.json", "stalingrad-orders.schema.json"):
        text = json.dumps(schema.load(name))
        assert '"pattern"' in text, name


# --- 30. what audit reads and expects -----------------------------------------------------------------------

def test_30_an_oversized_sparse_report_is_refused_with_bounded_memory(table):
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    path = blue / "aar" / "0001.md"
    with open(path, "r+b") as handle:
        handle.truncate(1 << 32)                   # 4 GiB, sparse
    tracemalloc.start()
    try:
        result = run("audit", blue)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    fails(result, 3, "aar/0001.md", "is 4294967296 bytes, over the limit")
    assert peak < 40 * 1024 * 1024


@pytest.mark.parametrize("stray, words", [
    ("aar/0009.md", ["aar/0009.md", "a report with no packet"]),
    ("states/0009.yaml", ["states/0009.yaml", "a state with no packet"]),
    ("notes.txt", ["notes.txt", "a file audit does not expect"]),
    ("packets/readme.txt", ["packets/readme.txt", "does not expect"]),
    ("states/.0002.yaml.tmp123", ["states/.0002.yaml.tmp123", "a leftover"]),
    # a number padded otherwise names a second file for one number, which audit would never
    # read: a forged report beside the real one (a cheater's probe)
    ("aar/00001.md", ["aar/00001.md", "a file audit does not expect"]),
    ("states/00001.yaml", ["states/00001.yaml", "a file audit does not expect"]),
    ("packets/00001-red.yaml", ["packets/00001-red.yaml", "a file audit does not expect"]),
    ("private/seal-00001-red.yaml", ["private/seal-00001-red.yaml", "a file audit does not expect"]),
    # what submit keeps of a side's sealed orders, and nothing else, under private/ (a referee's probe)
    ("private/seal-0001-nobody.yaml", ["private/seal-0001-nobody.yaml", "nobody is not a side of this game"]),
    ("private/seal-0001-red.yaml", ["private/seal-0001-red.yaml", "not the orders pbem keeps sealed"]),
])
def test_30_audit_names_every_file_it_does_not_expect(table, stray, words):
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    ok(run("audit", blue))
    (blue / stray).parent.mkdir(exist_ok=True)
    twin = blue / stray.replace("00001", "0001")   # a padded name: a copy of the real file beside it
    (blue / stray).write_text(twin.read_text() if twin != blue / stray and twin.exists() else "x\n")
    rejected(blue, ["audit", blue], 3, *words)


def test_30_a_sealers_file_names_its_seq_as_a_number(table):
    """An audit fuzzer's find: `seq: true` passed for seq 1, as Python has True == 1."""
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    (blue / "private").mkdir(exist_ok=True)
    (blue / "private" / "seal-0001-red.yaml").write_text("seq: true\nside: red\n")
    rejected(blue, ["audit", blue], 3, "private/seal-0001-red.yaml", "it names no seq 1 and side red")
    (blue / "private" / "seal-0001-red.yaml").write_text("seq: 1\nside: red\n")
    ok(run("audit", blue))


def test_30_the_files_a_file_browser_leaves_are_passed_over_and_only_those(table):
    """A folder looked at in macOS Finder or Windows Explorer gets a .DS_Store, ._NAME or
    Thumbs.db: audit failed on it without replaying anything (a referee's probe). pbem reads
    none of them, so audit passes over them; a folder of such a name is still named."""
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    for name in (".DS_Store", "packets/.DS_Store", "states/._0001.yaml", "aar/Thumbs.db", "desktop.ini"):
        (blue / name).write_bytes(b"\x00\x05\x16\x07 not yaml")
    ok(run("audit", blue))
    (blue / "packets" / "._more").mkdir()
    rejected(blue, ["audit", blue], 3, "packets/._more", "a folder audit does not expect in a game folder (remove it, "
             "or keep it elsewhere)")


@pytest.mark.parametrize("make, kind", [
    (lambda path, copy: (copy.write_bytes(path.read_bytes()), path.unlink(), path.symlink_to(copy)), "a link"),
    (lambda path, copy: (path.unlink(), path.mkdir()), "a folder"),
], ids=["link", "folder"])
@pytest.mark.parametrize("name", ["packets/0001-red.yaml", "states/0001.yaml", "aar/0001.md"])
def test_30_a_file_of_a_game_folder_is_a_plain_file_not_a_link_or_a_folder(table, tmp_path, make, kind, name):
    """What audit checks is the folder's own files: a state or packet replaced by a link (to a
    copy of the very same bytes, kept outside the folder, which may change under the referee)
    or by a folder of its name is named, not read through, as what it is (a referee's probe:
    a link with a packet's name was called "a leftover or a stray file")."""
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    ok(run("audit", blue))
    make(blue / name, tmp_path / "kept-elsewhere")
    first = rejected(blue, ["audit", blue], 3, name, f"{kind}, not a plain file: audit reads only files kept in the "
                     "game folder itself (put the file there in its place)")
    assert "stray" not in first


def test_30_a_link_of_a_file_browsers_name_is_named(table):
    """Only plain files of the names a file browser leaves are passed over: a link of such a
    name is named."""
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    (blue / "packets" / ".DS_Store").symlink_to(blue / "game.yaml")
    rejected(blue, ["audit", blue], 3, "packets/.DS_Store", "a file audit does not expect")


def test_30_a_stray_name_cannot_write_lines_of_its_own_into_the_verdict(table):
    """A file name may hold a line break: named in the verdict, it is escaped, so that it
    cannot print a line such as "audit OK: ..." under the failure (a referee's probe)."""
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    (blue / "notes\naudit OK: secure game, 1 packet verified\n").write_text("x\n")
    result = run("audit", blue)
    fails(result, 3, "notes\\x0aaudit OK: secure game, 1 packet verified\\x0a", "a file audit does not expect")
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""


def test_a_packet_whose_file_name_holds_a_line_break_is_named_on_one_line(table, tmp_path):
    """`pbem adjudicate` names the attachment as given, escaped: a name cannot add a line of
    its own (here a forged "GOOD: packet verified") to what the referee reads."""
    packet = table.post(table.packet("red", [FIRE]))
    forged = tmp_path / "to-blue\nGOOD: packet verified.yaml"
    forged.write_bytes(Path(packet).read_bytes()[:40])
    result = run("adjudicate", table.dirs["blue"], forged)
    assert result.exit_code == 4 and "\nGOOD" not in result.stderr and "to-blue\\x0aGOOD" in result.stderr, result.stderr


# --- 31 and 32. answers belong to their side, and an awaited side must answer ---------------------------------

@pytest.fixture
def awaited(tmp_path):
    """Blue (standing order `ask`) is awaited for decision 3.1/absorb after red's hit."""
    t = Table(tmp_path, key_seed="attacks7")
    t.send("red", [], {"absorb": "ask"})
    t.send("blue", [], {"absorb": "ask"})
    t.send("red", [FIRE])
    t.send("blue")
    state = t.state("red")
    assert (state["awaiting"]["waiting_for"], state["awaiting"]["decision"]) == ("decision", "3.1/absorb")
    return t


def test_31_an_answer_for_the_other_sides_decision(awaited):
    blue = awaited.dirs["blue"]
    packet = awaited.post(awaited.packet("red", [{"type": "absorb", "unit": "b2", "decision": "3.1/absorb"}]))
    rejected(blue, ["adjudicate", blue, packet], 1, "answers blue's decision 3.1/absorb",
             "only its own side's decisions")


def test_32_the_awaited_side_must_answer(awaited):
    awaited.send("red")
    red = awaited.dirs["red"]
    stall = awaited.post(awaited.packet("blue", []))
    rejected(red, ["adjudicate", red, stall], 1, "does not answer the decision blue is awaited for", "3.1/absorb")
    # which orders answer it, and the key to give them (a players' probe: none was named)
    assert run("adjudicate", red, stall).stderr.endswith(
        'give one of its legal orders, with `decision: "3.1/absorb"` (docs/protocol.md §7.2)\n'
        "Legal now: absorb unit=b1; absorb unit=b2\n")
    answer = awaited.post(awaited.packet("blue", [{"type": "absorb", "unit": "b2", "decision": "3.1/absorb"}]))
    ok(run("adjudicate", red, answer))
    assert awaited.state("red")["rules"]["units"]["b2"]["strength"] == 1


def test_32_the_side_awaited_for_sealed_orders_must_seal_them(blind):
    """Were an empty packet enough, south could stall until north's next packet had to open
    north's plan, and then seal a plan made knowing it (a cheater's probe)."""
    sealed = blind.post(blind.packet("north", extra={"sealed": [seal_of(blind, 1, "north", SALT, PLAN)]}))
    blind.deliver(sealed, "north")
    blind.deliver(sealed, "south")
    north = blind.dirs["north"]
    assert blind.state("north")["awaiting"]["waiting_for"] == "sealed orders"
    stall = blind.post(blind.packet("south", []))
    rejected(north, ["adjudicate", north, stall], 1, "packet 2 does not seal the orders south is awaited for",
             "`pbem submit --seal`")
    assert blind.state("north")["seq"] == 1
    seal = blind.post(blind.packet("south", extra={"sealed": [seal_of(blind, 2, "south", SALT, PLAN)]}))
    ok(run("adjudicate", north, seal))
    assert blind.state("north")["sealed"]["south"]["items"][0]["id"] == "2.1"   # north opens once both are sealed


# --- 33. values read differently elsewhere ------------------------------------------------------------------

@pytest.mark.parametrize("field, value, words", [
    ("prev", lambda p: p["prev"].upper(), ["`prev` must be 64 lower-case hex digits"]),
    ("reveal", lambda p: {"index": p["reveal"]["index"], "value": p["reveal"]["value"].upper()}, ["lower-case hex"]),
    ("game", lambda p: p["game"].upper(), ["`game` must be 32 lower-case hex digits"]),
])
def test_33_upper_case_hex_is_refused(table, field, value, words):
    blue = table.dirs["blue"]
    packet = table.packet("red", [FIRE], state=table.state("blue"))
    rejected(blue, ["adjudicate", blue, table.post(resign(packet, table.keys["red"], **{field: value(packet)}))], 3, *words)


# --- 34. seals bound to their game, seq and side ------------------------------------------------------------

@pytest.mark.parametrize("game_id, seq, side", [("00" * 16, 1, "north"), (None, 3, "north"), (None, 1, "south")])
def test_34_a_seal_replayed_from_another_game_seq_or_side(blind, game_id, seq, side):
    made = engine.seal_hash(game_id or blind.game.game_id, seq, side, SALT, PLAN)
    sealed = blind.post(blind.packet("north", extra={"sealed": [made]}))
    blind.deliver(sealed, "north")
    blind.deliver(sealed, "south")
    packet_2 = blind.post(blind.packet("south", extra={"sealed": [seal_of(blind, 2, "south", SALT, PLAN)]}))
    blind.deliver(packet_2, "south")
    blind.deliver(packet_2, "north")
    south = blind.dirs["south"]
    rejected(south, ["adjudicate", south, _opening(blind, {"salt": SALT.hex(), "item": PLAN})], 3,
             "differs from what north sealed in packet 1")


# --- 35. nothing random before the rules reveal it -----------------------------------------------------------

@pytest.mark.parametrize("ruleset_id", rulesets.ids() + ["duel", "blind"])
def test_35_state_0_rolls_nothing_and_depends_on_no_nonce_or_game_id(tmp_path, ruleset_id):
    from tests.support.games import Match

    one, two = Match(tmp_path / "one", ruleset_id, key_seed="a"), Match(tmp_path / "two", ruleset_id, key_seed="b")
    assert one.game.game_id != two.game.game_id
    assert one.state()["rules"] == two.state()["rules"]
    assert one.state()["seq"] == 0 and one.state()["last_reveal"] is None


def test_21_files_of_protocol_1_are_refused_in_one_sentence(table, tmp_path):
    blue = table.dirs["blue"]
    packet = dict(table.packet("red", [FIRE], state=table.state("blue")), pbem=1)
    first = rejected(blue, ["adjudicate", blue, table.post(resign(packet, table.keys["red"]))], 3,
                     "pbem format 1", "reads format 2 (protocol 2) only")
    assert first.count(".") <= 3
    old = tmp_path / "old"
    shutil.copytree(blue, old)
    document = canonical.load_mapping(old / "game.yaml")
    document["pbem"] = 1
    (old / "game.yaml").write_text(game.genesis_text(document))
    for args in (["status", old], ["audit", old]):
        rejected(old, args, 3, "game.yaml", "pbem format 1", "start a new game with this version")


@pytest.mark.parametrize("line, words", [
    ("note: 0139\n", ["0139", "quote it"]), ("note: +5\n", ["+5", "quote it"]), ("note: True\n", ["True", "quote it"]),
    ("note: ~\n", ["~", "quote it"]), ("note: 1:30\n", ["1:30", "quote it"]), ("note: 2026-11-29\n", ["quote it"]),
    ("<<: {seq: 9}\n", ["<<", "quote it"]), ('note: "\\ud800"\n', ["surrogate"]),
])
def test_33_a_scalar_read_differently_elsewhere_is_refused_in_a_packet(table, line, words):
    blue = table.dirs["blue"]
    text = _packet_text(table) + line
    first = rejected(blue, ["adjudicate", blue, table.post(text)], 4, *words)
    assert ", line " in first


# --- 36. sealed items opened when the rules reveal them, and only then (§8) ----------------------------------

DECOY = {"type": "plan", "attack": "c", "guard": "c"}
SALTS = [bytes.fromhex(f"{n}{n}" * 32) for n in (6, 7)]


@pytest.fixture
def veiled(tmp_path):
    return Table(tmp_path, ruleset="veiled", key_seed="veiled")


def _veiled(table: Table) -> Path:
    """North seals its plan and a decoy in packet 1, south its plan in packet 2; the rules now
    reveal north's plan (1.1), and only that. South's folder."""
    return _seal_round(table, [seal_of(table, 1, "north", salt, item) for salt, item in zip(SALTS, (PLAN, DECOY))])


def _open(name: str, salt: bytes = SALTS[0], item: dict = PLAN) -> dict:
    return {"seal": name, "salt": salt.hex(), "item": item}


@pytest.mark.parametrize("opens, words", [
    (None, ["north must open its sealed item(s) 1.1 in this packet: the rules reveal them now"]),
    ([_open("1.2", SALTS[1], DECOY)], ["opens item 1.2, which the rules have not revealed", "opens 1.1 now"]),
    ([_open("1.1"), _open("1.2", SALTS[1], DECOY)], ["opens item 1.2, which the rules have not revealed"]),
    ([_open("1.1"), _open("1.1")], ["opens item 1.1 twice"]),
    ([_open("1.1", SALTS[1])], ["opened item 1 or its salt differs from what north sealed in packet 1"]),
    ([_open("1.1", item=DECOY)], ["opened item 1 or its salt differs"]),
    ([_open("2.1")], ["opens item 2.1, which north has not sealed"]),
])
def test_36_a_packet_opens_exactly_the_items_the_rules_reveal(veiled, opens, words):
    south = _veiled(veiled)
    packet = veiled.packet("north", extra={"opens": opens} if opens else None)
    rejected(south, ["adjudicate", south, veiled.post(packet)], 3, *words)


def test_36_the_item_revealed_is_opened_and_the_others_stay_sealed_until_revealed(veiled):
    south, north = _veiled(veiled), veiled.dirs["north"]
    opening = veiled.post(veiled.packet("north", extra={"opens": [_open("1.1")]}))
    ok(run("adjudicate", south, opening))
    veiled.deliver(opening, "north")
    state = game.open_folder(south).state
    assert state["sealed"]["north"] == {"items": [{"id": "1.2", "hash": seal_of(veiled, 1, "north", SALTS[1], DECOY),
                                                   "kind": "plan", "reveal": "asked"}], "due": []}
    assert [q["opened"] for q in state["queue"] if q["side"] == "north"] == []     # applied: the plan is recorded
    assert state["rules"]["plans"] == {"north": {"attack": "a", "guard": "b"}}
    assert "attack: c" not in "".join(p.read_text() for p in south.rglob("*.yaml")) + "".join(
        p.read_text() for p in south.rglob("*.md"))                                 # the decoy is nowhere
    # south's plan is due now: its packet must open it, and the decoy of north is not yet due
    assert state["sealed"]["south"]["due"] == ["2.1"]
    withheld = veiled.post(veiled.packet("south", state=state))
    rejected(north, ["adjudicate", north, withheld], 3, "south must open its sealed item(s) 2.1")
    packet_4 = veiled.post(veiled.packet("south", state=state, extra={"opens": [_open("2.1", SALT)]}))
    veiled.deliver(packet_4, "south")
    veiled.deliver(packet_4, "north")
    assert "Die:" not in (south / "aar" / "0004.md").read_text()       # south knows segment 4: no die of it
    veiled.send("north")                                              # packet 5 rolls the attacks ...
    state = game.open_folder(north).state
    assert state["sealed"]["north"]["due"] == ["1.2"]                 # ... and the turn's end reveals the decoy
    assert "segment 5, t1.north.attack)" in (south / "aar" / "0005.md").read_text()
    veiled.send("south")
    early = veiled.packet("north", state=game.open_folder(south).state, extra={"opens": [_open("1.2", SALTS[1], DECOY)]})
    path = veiled.post(early)
    veiled.deliver(path, "south")
    veiled.deliver(path, "north")
    assert "north's item 1.2 was a decoy" in (south / "aar" / "0007.md").read_text()
    assert "north" not in game.open_folder(south).state["sealed"]
    ok(run("audit", south))


def test_36_a_side_cannot_seal_again_over_unopened_items(tmp_path):
    from tests.support.games import Match

    match = Match(tmp_path, "veiled", options={"reveal_rest": False}, key_seed="reseal")
    match.send("north", [PLAN, DECOY], seal=True)
    match.send("south", [PLAN], seal=True)
    match.send("north", [])                         # opens 1.1 (pbem submit opens what is due)
    match.send("south", [])                         # opens 2.1
    match.send("north", [])                         # the attacks roll; the turn ends with 1.2 unopened
    state = match.state("south")
    assert (state["rules"]["turn"], state["sealed"]["north"]["items"][0]["id"], state["sealed"]["north"]["due"]) == (
        2, "1.2", [])
    match.send("south", [])
    with pytest.raises(RulesError, match=r"north seals its plan again while item\(s\) 1.2 it sealed before are "
                                         r"unopened; a side cannot seal again over an unopened seal"):
        match.send("north", [PLAN], seal=True)


def test_36_items_the_packets_own_dice_reveal_are_opened_by_it_and_its_template_says_so(tmp_path):
    """North's packet 5 reveals the dice of the attacks, and the turn's end that follows reveals
    north's decoy 1.2: the template says the packet opens it (players' probe: "the game then
    waits for your openings", where `pbem submit` opened them), and the packet does, in its part
    3, after the rolls its reveal made (docs/protocol.md §8); no packet is left to open it."""
    from pbem.core.audit import audit
    from pbem.core.templates import orders_template
    from tests.support.games import Match

    match = Match(tmp_path, "veiled", key_seed="early")
    match.send("north", [PLAN, DECOY], seal=True)
    match.send("south", [PLAN], seal=True)
    match.send("north", [])                         # opens 1.1
    match.send("south", [])                         # opens 2.1: both plans known, the attacks wait for dice
    text = orders_template(match.game, match.state("north"), "north", match.keys["north"])
    assert ("# Your reveal resolves what is queued; the rules then reveal items you sealed, which\n"
            "# `pbem submit` opens in this same packet (from private/): orders written below go on\n"
            "# after them.\n") in text
    sent = match.send("north", [])
    kinds = [e["type"] for e in sent.events]
    assert kinds.index("attack") < kinds.index("takes-effect") < kinds.index("opened")   # rolled first, opened after
    assert [e["text"] for e in sent.events if e["type"] == "opened"] == ["north opens the 1 item(s) its orders "
                                                                          "revealed: 1.2."]
    assert "north's item 1.2 was a decoy." in [e["text"] for e in sent.events]
    assert "north" not in sent.state["sealed"] and sent.state["rules"]["turn"] == 2
    assert audit(match.folders["south"].path).ok


def test_36_a_packet_that_opens_what_its_reveal_reveals_and_seals_numbers_its_seal_after_them(tmp_path):
    """North's packet 5 ends turn 1 by its reveal, which reveals its decoy 1.2, and seals its
    plan of turn 2. `pbem submit --seal` opens 1.2 in it, before the seal (a cheater's review:
    the seal was tried first and refused, "the rules ask for no sealed orders from north now");
    and the seal's order is numbered after the item opened, 5.2, where it took 5.1, the number
    of the item already taken, which names decisions (§7.2)."""
    from pbem.core import engine, game, sealing
    from pbem.core.audit import audit
    from tests.support.games import Match

    match = Match(tmp_path, "veiled", key_seed="early")
    match.send("north", [PLAN, DECOY], seal=True)
    match.send("south", [PLAN], seal=True)
    match.send("north", [])                         # opens 1.1
    match.send("south", [])                         # opens 2.1
    state, g = match.state("north"), match.game
    salt = sealing.salts(g, 5, "north", match.keys["north"], 1)[0]
    by_hand = {"opens": sealing.opening(match.folders["north"], "north", ["1.2"]),      # before submit forgets it
               "sealed": [engine.seal_hash(g.game_id, 5, "north", salt, PLAN)]}
    sent = match.send("north", [PLAN], seal=True)
    assert [(e["type"], e.get("index"), e["text"]) for e in sent.events if e["type"] in ("opened", "sealed", "order")
            and e.get("side") == "north"] == [
        ("opened", None, "north opens the 1 item(s) its orders revealed: 1.2."),
        ("order", 1, "north order 1 of packet 5: plan attack=c guard=c"),
        ("sealed", None, "north seals 1 item(s) (5.1), each to be opened when the rules reveal it."),
        ("order", 2, "north order 2 of packet 5: sealed items=1 seq=5")]
    assert sent.state["decisions"]["origin"] == "5.2"
    assert audit(match.folders["south"].path).ok
    # the same packet made by hand, applied by the engine: the same state, its seal's order 5.2
    packet = game.build_packet(g, state, "north", [], None, match.keys["north"], "2026-11-29T10:00:00Z", by_hand)
    assert engine.apply_packet(g, state, packet, "by hand")[0]["state_hash"] == sent.state["state_hash"]


def test_36_submit_opens_the_items_due_names_them_and_status_says_which(veiled, tmp_path):
    north, south = veiled.dirs["north"], veiled.dirs["south"]
    plans = veiled.post("orders:\n  - {type: plan, attack: a, guard: b}\n  - {type: plan, attack: c, guard: c}\n",
                        "plans.yaml")
    ok(run("submit", north, plans, "--key", veiled.key_files["north"], "--seal", "--out", tmp_path / "p1.yaml"))
    ok(run("adjudicate", south, tmp_path / "p1.yaml"))
    ok(run("submit", south, plans, "--key", veiled.key_files["south"], "--seal", "--out", tmp_path / "p2.yaml"))
    ok(run("adjudicate", north, tmp_path / "p2.yaml"))
    status = ok(run("status", north)).output
    assert "north has 2 sealed items: its next packet opens 1.1; 1.2 stays sealed until the rules reveal it (docs/protocol.md §8)." in status
    assert "Your sealed item(s) 1.1 are due" in ok(run("orders", north, "--side", "north")).output
    empty = veiled.post("orders: []\n", "empty.yaml")
    ok(run("submit", north, empty, "--key", veiled.key_files["north"], "--out", tmp_path / "p3.yaml"))
    opens = canonical.load_mapping(tmp_path / "p3.yaml")["opens"]
    assert [(o["seal"], o["item"]) for o in opens] == [("1.1", PLAN)]
    assert (north / "private" / "seal-0001-north.yaml").exists()     # 1.2 is still sealed: kept
    ok(run("adjudicate", south, tmp_path / "p3.yaml"))
    ok(run("audit", south))


# --- the next chain (docs/protocol.md §5) ----------------------------------------------------

def test_a_short_chain_is_followed_by_the_next_one_its_side_announced_and_the_game_goes_on(tmp_path):
    """DESIGN §3.1: a side whose chain runs short announces its next chain (`next_chain`:
    nonce, length, anchor) in a packet, and it takes effect from that side's packet after next.
    pbem announces it when fewer than 8 values are left; the reports and status say so; the game
    goes on past the first chain and audits clean. What a cheater could try is refused: an
    announcement before the chain runs short, a second one while one is pending, the new chain's
    first value one packet early, a nonce or an anchor of a chain already used (the genesis's
    or one moved to, either side's) or a value already revealed as its anchor, a malformed
    announcement, one in a sandbox game."""
    from pbem.core import describe
    from pbem.core.audit import audit
    from tests.support.games import Match, sandbox

    m = Match(tmp_path, "duel", key_seed="next-chain", chain_length=64)
    announced = None
    for _ in range(70):
        path = m.send("red", []).packet_path
        sent = game.read_packet(path)[0]
        m.send("blue", [])
        if "next_chain" in sent:
            assert announced is None and sent["reveal"]["index"] == 57          # 7 of 64 left
            announced = sent
            info = describe.status(m.folders["blue"])
            assert f"red announced its next dice chain (4096 values); its packet {sent['seq'] + 4} starts it " \
                   f"(docs/protocol.md §5)." in info["text"]
            # and for machines (`status --json`): what each chain has left and the one pending
            chains = m.state("blue")["chains"]
            assert info["chains"] == {"red": {"length": 64, "revealed": 57, "left": 7, "value": sent["reveal"]["value"],
                                              "next": {"length": 4096, "from_seq": sent["seq"] + 4}},
                                      "blue": {"length": 64, "revealed": 57, "left": 7,   # blue's answer too
                                               "value": chains["blue"]["value"],
                                               "next": {"length": 4096, "from_seq": sent["seq"] + 5}}}
    seq = announced["seq"]
    reports = m.folders["blue"].path / "aar"
    assert (f"red announces its next dice chain (4096 values, anchor {announced['next_chain']['anchor'][:16]}...), "
            f"which its packet {seq + 4} starts") in (reports / f"{seq:04d}.md").read_text()
    assert (f"red reveals the first value of its next dice chain (4096 values), announced in packet {seq}"
            in (reports / f"{seq + 4:04d}.md").read_text())
    chain = m.state("blue")["chains"]["red"]
    assert chain["nonce"] == announced["next_chain"]["nonce"] and chain["length"] == 4096
    assert chain["used"] == [{"nonce": chain["nonce"], "anchor": announced["next_chain"]["anchor"]}]
    assert chain["index"] == 70 - 58 and "next" not in chain                  # packets 1-58 of the first chain
    assert audit(m.folders["blue"].path).ok
    g, key = m.game, m.keys["red"]

    def refused(state, packet, *words):
        with pytest.raises(VerificationError) as caught:
            engine.apply_packet(g, state, sign(packet, key), "p.yaml")
        assert all(w in caught.value.message for w in words), caught.value.message

    # near the end of the second chain: its nonce or anchor may not come back
    state = copy.deepcopy(m.state("blue"))
    state["chains"]["red"].update(index=4089, value=dice.chain_value(
        game.chain_secret(g, "red", key, chain["nonce"]), 4096, 4089).hex())
    state["state_hash"] = engine.state_hash(state)
    body = unsigned(game.build_packet(g, state, "red", [], None, key, ""))
    assert body["reveal"]["index"] == 4090 and "next_chain" in body
    refused(state, dict(body, next_chain=dict(body["next_chain"], nonce=chain["nonce"])), "reuses the nonce")
    refused(state, dict(body, next_chain=dict(body["next_chain"], anchor=chain["used"][0]["anchor"])), "reuses the anchor")
    refused(state, dict(body, next_chain=dict(body["next_chain"], nonce=g.side_entry("blue")["nonce"])), "reuses the nonce")
    refused(state, dict(body, next_chain=dict(body["next_chain"], anchor=g.side_entry("red")["anchor"])), "reuses the anchor")
    # nor the opponent's chain, nor a value already out: red would reveal values blue knew before
    # they were due, and the audit would call the dice unforeseeable (a probe of collusion)
    blue = state["chains"]["blue"]
    earlier = dice.chain_step(dice.chain_step(dice.chain_step(bytes.fromhex(blue["value"])))).hex()   # 3 back
    assert blue["index"] > 3
    for taken in (dict(nonce=blue["used"][0]["nonce"]), dict(anchor=blue["used"][0]["anchor"]),
                  dict(anchor=blue["value"]), dict(anchor=earlier), dict(anchor=body["reveal"]["value"])):
        refused(state, dict(body, next_chain=dict(body["next_chain"], **taken)),
                "reuses the nonce" if "nonce" in taken else "reuses the anchor")
    engine.apply_packet(g, state, sign(body, key), "p.yaml")                 # its own fresh one is taken

    # back at the packet between the announcement and the new chain
    m = Match(tmp_path / "again", "duel", key_seed="next-chain", chain_length=64)
    early = unsigned(game.build_packet(m.game, m.state("blue"), "red", [], None, key, ""))
    refused(m.state("blue"), dict(early, next_chain=announced["next_chain"]), "63 values left after this packet",
            "when fewer than 8 are left")
    for _ in range(57):
        m.send("red", [])
        m.send("blue", [])
    state = m.state("blue")
    pending = state["chains"]["red"]["next"]
    assert (state["chains"]["red"]["index"], pending["from_seq"]) == (57, state["seq"] + 3)   # red: 113, 115, 117
    body = unsigned(game.build_packet(g, state, "red", [], None, key, ""))
    assert body["reveal"]["index"] == 58 and "next_chain" not in body         # the old chain, still
    again = game.next_chain(g, state["seq"] + 1, key)
    refused(state, dict(body, next_chain=again), "one chain is announced at a time")
    first = dice.chain_value(game.chain_secret(g, "red", key, pending["nonce"]), 4096, 1).hex()
    refused(state, dict(body, reveal={"index": 1, "value": first}), "reveal index 1 is wrong", "next chain index is 58")
    refused(state, dict(body, reveal={"index": 58, "value": first}), "does not hash to red's previous chain value")
    for bad in (dict(again, chain_length=32), dict(again, anchor="00"), dict(again, extra=1)):
        with pytest.raises(VerificationError, match="`next_chain` must be"):
            game.check_envelope(sign(dict(body, next_chain=bad), key), "p.yaml")

    table = sandbox(tmp_path / "sandbox", seed="x")
    loose = dict(game.build_packet(table.game, table.state, "red", [], None, None, ""), next_chain=again)
    with pytest.raises(VerificationError, match="`next_chain` has no place in a sandbox game's packet"):
        engine.apply_packet(table.game, table.state, loose, "p.yaml")
