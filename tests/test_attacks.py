"""Every attack and bad input of acceptance/attacks.md, through the command line.

Each test builds the bad input, runs the `pbem` command a player would run, and checks the
exact outcome: the exit code of DESIGN §5, a first line on stderr that names the problem
in one sentence, and a game folder left byte for byte as it was. The games are secure
`duel` games made with `pbem new`: red's and blue's folders of the same game, and a
mailbox folder for the packet files they email each other.
"""

from __future__ import annotations

import base64
import copy
import errno
import json
import os
import quopri
import shutil
import tracemalloc
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core import canonical, dice, engine, game, keys
from pbem.core.errors import FileError, VerificationError
from pbem.core.packet import sign
from pbem.core.submit import submit_orders
from tests.support.games import fixed_key

CREATED = "2026-11-29T10:00:00Z"
SENT = "2026-11-29T12:00:00Z"
SIDES = ("red", "blue")
CHAIN = 16
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


class Table:
    """A secure duel made with `pbem new`: red's and blue's folders of the same game."""

    def __init__(self, root: Path, name: str = "game", created: str = CREATED, key_seed: str = "attacks"):
        self.root = Path(root)
        self.mail = self.root / "mail"
        self.mail.mkdir(parents=True, exist_ok=True)
        key_dir = self.root / f"keys-{key_seed}"
        key_dir.mkdir(exist_ok=True)
        self.key_files = {side: write_key(key_dir, side, f"{key_seed}-{side}") for side in SIDES}
        self.keys = {side: keys.load_private_key(path) for side, path in self.key_files.items()}
        self.dirs = {side: self.root / name / side for side in SIDES}
        for side in SIDES:
            ok(run("new", self.dirs[side], "--ruleset", "duel", "--created", created, "--chain-length", CHAIN,
                   *[f"--side={s}={self.key_files[s]}.pub" for s in SIDES]))
        self._posted = 0

    def folder(self, side: str = "red") -> game.Folder:
        return game.open_folder(self.dirs[side])

    def state(self, side: str = "red") -> dict:
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
        self.deliver(path, other(side))
        return path

    def packet(self, side: str, orders: list = (), state: dict | None = None, extra: dict | None = None) -> dict:
        """A packet signed by `side` (not applied anywhere): by default the next one."""
        state = state or self.state(other(side))
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
    secret = game.chain_secret(table.game, table.keys[side])
    return dice.chain_value(secret, CHAIN, index).hex()


# --- 1. replay -------------------------------------------------------------------------------

def test_01_a_packet_applied_twice_is_a_replay(table):
    packet_1 = table.send("red", [FIRE])
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], packet_1], 3, "packet 1 was already applied")
    # the same packet under another name, as a careless or malicious re-send
    resent = table.post(packet_1.read_bytes(), "resent.yaml")
    rejected(table.dirs["blue"], ["adjudicate", table.dirs["blue"], resent], 3, "already applied")


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
    forged = table.post(game.build_packet(table.game, table.state("red"), "blue", [], None, table.keys["red"], SENT))
    first = rejected(red, ["adjudicate", red, forged], 3, "claims side blue", "not blue's key")
    assert table.keys["red"].public.fingerprint() in first
    # the same, with blue's fingerprint written over the key name
    packet = game.read_packet(forged)[0]
    packet["signature"]["key"] = table.keys["blue"].public.fingerprint()
    relabelled = table.post(packet)
    rejected(red, ["adjudicate", red, relabelled], 3, "signature of side blue does not verify")


def test_05_a_key_not_in_the_genesis(table, tmp_path):
    table.send("red")
    private, _ = keys.write_keypair("mallory", tmp_path)
    mallory = keys.load_private_key(private)
    red = table.dirs["red"]
    forged = table.post(game.build_packet(table.game, table.state("red"), "blue", [], None, mallory, SENT))
    first = rejected(red, ["adjudicate", red, forged], 3, "claims side blue", "not blue's key")
    assert mallory.public.fingerprint() in first
    orders = table.post("orders: []\n", "orders.yaml")
    rejected(table.dirs["blue"], ["submit", table.dirs["blue"], orders, "--key", private], 3,
             "is not the key of any side of this game", root=table.root)


# --- 6. tampering after signing ------------------------------------------------------------

def _tampered(table: Table) -> tuple[Path, dict]:
    table.send("red")
    table.send("blue")
    return table.dirs["blue"], table.packet("red", [FIRE])


@pytest.mark.parametrize("change, words", [
    (lambda p: p["orders"][0].update(target="b2"), ["signature of side red does not verify"]),
    (lambda p: p["orders"].append({"type": "end"}), ["signature of side red does not verify"]),
    (lambda p: p["reveal"].update(value="0" * 64), ["signature of side red does not verify"]),
    (lambda p: p["reveal"].update(index=3), ["signature of side red does not verify"]),
    (lambda p: p.update(sent="2026-11-30T12:00:00Z"), ["signature of side red does not verify"]),
    (lambda p: p.update(policies={"absorb": "strongest"}), ["signature of side red does not verify"]),
    (lambda p: p.update(prev="0" * 64), ["`prev`", "is not the hash of state 2"]),
    (lambda p: p.pop("signature"), ["not signed"]),
])
def test_06_any_field_changed_after_signing(table, change, words):
    blue, packet = _tampered(table)
    change(packet)
    rejected(blue, ["adjudicate", blue, table.post(packet)], 3, *words)


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
    assert f"field line {number + 1}: expected {original!r}, found {lines[number]!r}" in first


# --- 8. forged reveal ------------------------------------------------------------------------

@pytest.mark.parametrize("forge, words", [
    (lambda t: {"reveal": {"index": 2, "value": "ab" * 32}}, ["does not hash to red's previous chain value"]),
    (lambda t: {"reveal": {"index": 3, "value": chain_value(t, "red", 3)}}, ["reveal index 3 is wrong", "is 2"]),
    (lambda t: {"reveal": {"index": 1, "value": chain_value(t, "red", 1)}}, ["reveal index 1 is wrong", "is 2"]),
    (lambda t: {"anchor": "cd" * 32}, ["changes red's anchor"]),
    (lambda t: {"reveal": {"index": 2, "value": chain_value(t, "blue", 2)}}, ["forged reveal"]),
])
def test_08_forged_reveals(table, forge, words):
    table.send("red")
    table.send("blue")
    blue = table.dirs["blue"]
    forged = resign(table.packet("red", [FIRE]), table.keys["red"], **forge(table))
    rejected(blue, ["adjudicate", blue, table.post(forged)], 3, *words)


def test_08_a_first_packet_with_an_anchor_its_reveal_does_not_hash_to(table):
    blue = table.dirs["blue"]
    packet = table.packet("red", [FIRE], state=table.state("blue"))
    forged = resign(packet, table.keys["red"], anchor="ef" * 32)
    rejected(blue, ["adjudicate", blue, table.post(forged)], 3, "forged reveal")
    no_anchor = resign(packet, table.keys["red"], anchor=None)
    rejected(blue, ["adjudicate", blue, table.post(no_anchor)], 3, "must carry its chain `anchor`")
    no_reveal = resign(packet, table.keys["red"], reveal=None)
    rejected(blue, ["adjudicate", blue, table.post(no_reveal)], 3, "has no `reveal`")


# --- 9. alternation ---------------------------------------------------------------------------

def test_09_two_consecutive_packets_from_the_same_side(table):
    table.send("red", [FIRE])
    blue = table.dirs["blue"]
    again = table.post(table.packet("red", [], state=table.state("blue")))
    rejected(blue, ["adjudicate", blue, again], 3, "packet 2 comes from red", "blue must send it")
    orders = table.post("orders: []\n", "orders.yaml")
    rejected(table.dirs["red"], ["submit", table.dirs["red"], orders, "--key", table.key_files["red"]], 1,
             "it is blue's turn", root=table.root)


# --- 10. sealed orders -------------------------------------------------------------------------

SALT = "5a" * 32


def _sealed(table: Table, orders: list) -> Path:
    """Red seals `orders` in packet 1, blue answers with packet 2; returns blue's folder."""
    sealed = table.post(table.packet("red", [], extra={"sealed": engine.seal(SALT, orders)}))
    table.deliver(sealed, "red")
    table.deliver(sealed, "blue")
    table.send("blue")
    return table.dirs["blue"]


@pytest.mark.parametrize("opens, words", [
    ({"salt": SALT, "orders": [{"type": "fire", "unit": "r1", "target": "b2"}]}, ["differ from what red sealed in packet 1"]),
    ({"salt": "5b" * 32, "orders": [FIRE]}, ["differ from what red sealed in packet 1"]),
    ({"salt": SALT, "orders": [FIRE, {"type": "end"}]}, ["differ from what red sealed in packet 1"]),
    ({"salt": SALT}, ["`opens` must be"]),
])
def test_10_sealed_orders_opened_with_other_orders_or_salt(table, opens, words):
    blue = _sealed(table, [FIRE])
    packet = table.post(table.packet("red", [], extra={"opens": opens}))
    rejected(blue, ["adjudicate", blue, packet], 3, *words)


def test_10_sealed_orders_must_be_opened_before_new_ones(table):
    blue = _sealed(table, [FIRE])
    rejected(blue, ["adjudicate", blue, table.post(table.packet("red", [FIRE]))], 3, "must first open the orders sealed")


def test_10_opening_what_was_never_sealed(table):
    table.send("red")
    table.send("blue")
    blue = table.dirs["blue"]
    packet = table.post(table.packet("red", [], extra={"opens": {"salt": SALT, "orders": [FIRE]}}))
    rejected(blue, ["adjudicate", blue, packet], 3, "red has none sealed")


def test_10_the_true_opening_applies_as_decided_in_the_sealing_packet(table):
    blue = _sealed(table, [FIRE])
    packet = table.post(table.packet("red", [], extra={"opens": {"salt": SALT, "orders": [FIRE]}}))
    ok(run("adjudicate", blue, packet))
    report = (blue / "aar" / "0003.md").read_text()
    assert "red opens the orders sealed in packet 1" in report
    assert "segment 3, t1.red.fire1 #0" in report   # decided in packet 1: it may roll from segment 3


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
    assert f"Die: {expected} (segment 3, t1.blue.fire1 #0)." in report
    assert f"b1 fires at r1: {expected}" in report
    red_die = dice.first_d6(seed_2, "t1.red.fire1", 1)[0]
    assert f"Die: {red_die} (segment 2, t1.red.fire1 #0)." in (blue / "aar" / "0002.md").read_text()


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
    (lambda t: t.replace("  unit: r1\n", "  unit: r1\n  unit: r2\n"), ["the key 'unit' appears twice"]),
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
    (lambda t: "\n".join(t.split("\n")[:6]).encode(), 3, ["has no `"]),
    (lambda t: t[: len(t) - 20].encode(), 4, ["malformed or truncated"]),
    (lambda t: t[: t.rstrip("\n").rindex("\n") + 1].encode(), 3, ["`signature` must be"]),
    (lambda t: b"- pbem: 1\n- seq: 1\n", 3, ["a packet must be a mapping"]),
    (lambda t: b"just a line of text\n", 3, ["a packet must be a mapping"]),
])
def test_15_broken_files(table, make, code, words):
    blue = table.dirs["blue"]
    rejected(blue, ["adjudicate", blue, table.post(make(_packet_text(table)))], code, *words)


def test_15_a_missing_packet_file(table):
    blue = table.dirs["blue"]
    rejected(blue, ["adjudicate", blue, table.mail / "nowhere.yaml"], 4, "no such file")


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
    ([{"type": "move", "unit": "r1", "target": "b1"}], ["order 1 (orders[0].type)", "'move' is not one of"]),
    ([{"unit": "r1", "target": "b1"}], ["order 1 (orders[0])", "'type' is a required property"]),
    ([{"type": "end"}, {"type": "fire", "unit": 5, "target": "b1"}], ["order 2 (orders[1].unit)", "not of type 'string'"]),
    ([{"type": "fire", "unit": "r1", "target": "b1", "range": 3}], ["order 1 (orders[0])", "'range' was unexpected"]),
    (["fire r1 at b1"], ["order 1 (orders[0])", "is not of type 'object'"]),
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
    # and adjudicating the packet again completes the folder.
    blue, packet_3, after_ok = crash_site
    shutil.copy(packet_3, blue / "packets" / "0003-red.yaml")
    (blue / "states" / ".0003.yaml.tmp99999").write_text("pbem: 1\nseq: 3\nrul")
    ok(run("status", blue))
    assert game.open_folder(blue).state["seq"] == 2
    ok(run("adjudicate", blue, packet_3))
    now = snapshot(blue)
    assert now.pop("states/.0003.yaml.tmp99999") == b"pbem: 1\nseq: 3\nrul"
    assert now == after_ok
