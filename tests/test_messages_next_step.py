"""Messages that say what to do next (a new user's probe): a key given for another side's
template, a packet quoted by a mail client, a packet altered after signing, a second packet
for one seq kept as fork evidence, an unknown standing order. One sentence first, naming
the file, the order or the option (DESIGN §5)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core import canonical, keys
from pbem.core.canonical import loads
from pbem.core.errors import InputError
from pbem.core.submit import submit_orders
from tests.support.games import Match, fixed_key, sandbox

SENT = "2026-11-29T10:00:00Z"


def run(*args: object, env: dict | None = None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


def verification_failure(*args: object) -> str:
    """What a command that ends in a verification failure (exit 3, DESIGN §5) writes on stderr."""
    result = run(*args)
    assert result.exit_code == 3, result.output
    return result.stderr


def key_file(path: Path, key: keys.PrivateKey, passphrase: bytes | None = None) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(keys.private_key_bytes(key, passphrase))
    return path


@pytest.fixture
def match(tmp_path, monkeypatch) -> Match:
    """A secure duel game between red (who sends packet 1) and blue, run from tmp_path."""
    monkeypatch.chdir(tmp_path)
    return Match(tmp_path / "game", "duel", key_seed="next-step")


# --- 1. `pbem orders --side X --key Y` where Y plays another side ---------------------------

def test_orders_refuses_a_key_of_the_other_side_naming_its_side(match, tmp_path):
    blue = key_file(tmp_path / "bob", match.keys["blue"])
    result = run("orders", "game/red", "--side", "red", "--key", blue)
    assert result.exit_code == 2
    assert result.stderr == f"pbem: --key {blue} plays blue, not red: give --side blue, or the red player's key\n"
    assert result.stdout == ""


def test_orders_refuses_another_sides_key_without_asking_its_passphrase(match, tmp_path):
    """The side is told from the key file's public half, stored in the clear: a protected
    key of the wrong side is refused, not asked for (nor refused for want of) its passphrase."""
    red = key_file(tmp_path / "alice", match.keys["red"], passphrase=b"secret")
    result = run("orders", "game/blue", "--side", "blue", "--key", red, env={"PBEM_PASSPHRASE": None})
    assert result.exit_code == 2
    assert result.stderr == f"pbem: --key {red} plays red, not blue: give --side red, or the blue player's key\n"


def test_orders_takes_the_key_of_its_own_side(match, tmp_path):
    red = key_file(tmp_path / "alice", match.keys["red"])
    result = run("orders", "game/red", "--side", "red", "--key", red)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"# pbem orders for red: game {match.game.game_id}, packet 1\n")


def test_orders_tells_the_side_from_the_key_alone(match, tmp_path):
    """In a secure game the key says whose template it is: --side may be left out."""
    red, blue = key_file(tmp_path / "alice", match.keys["red"]), key_file(tmp_path / "bob", match.keys["blue"])
    result = run("orders", "game/red", "--key", red)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"# pbem orders for red: game {match.game.game_id}, packet 1\n")
    assert result.stdout == run("orders", "game/red", "--side", "red", "--key", red).stdout
    result = run("orders", "game/blue", "--key", blue)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"# pbem orders for blue: game {match.game.game_id}, packet 2\n")


def test_orders_without_side_or_key_says_that_one_of_them_is_needed(match):
    result = run("orders", "game/red")
    assert result.exit_code == 2
    assert result.stderr == ("pbem: --side SIDE (red or blue) is needed without --key KEYFILE, which tells the side "
                             "it plays\n")
    assert result.stdout == ""


def test_orders_in_a_sandbox_game_needs_its_side_even_with_a_key(match, tmp_path):
    sandbox(tmp_path / "s")
    red = key_file(tmp_path / "alice", match.keys["red"])
    for args in (["orders", "s"], ["orders", "s", "--key", red]):
        result = run(*args)
        assert result.exit_code == 2
        assert result.stderr == ("pbem: --side SIDE (red or blue) is needed: a sandbox game has no keys to tell the "
                                 "side by\n")


def test_orders_refuses_a_key_of_no_side_naming_the_key_file(match, tmp_path):
    mallory = key_file(tmp_path / "mallory", fixed_key("mallory"))
    said = (f"pbem: --key {mallory}: the key {fixed_key('mallory').public.fingerprint()} plays no side of this "
            f"game; give the key you play it with\n")
    assert verification_failure("orders", "game/red", "--key", mallory) == said
    assert verification_failure("orders", "game/red", "--side", "red", "--key", mallory) == said


# --- 2. a packet quoted by a mail client ------------------------------------------------------

def test_a_packet_quoted_by_a_mail_client_is_named_as_such(match, tmp_path):
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    quoted = tmp_path / "quoted-1.yaml"
    quoted.write_text("".join(f"> {line}" for line in packet.read_text().splitlines(keepends=True)))
    result = run("adjudicate", "game/blue", quoted)
    assert result.exit_code == 4
    assert result.stderr == (
        f"pbem: {quoted}, line 1: the file looks quoted by a mail client (its lines begin with \">\"): save the "
        f"packet attachment itself, or remove the \"> \" quoting; the YAML error: a block scalar at the top level "
        f"with no indented text may be followed only by blank lines and the end marker ... (a line at the left "
        f"margin would be its text)\n")


@pytest.mark.parametrize("before, after", [("Hi Bob,\nhere is my turn:\n\n", ""), ("", "\n-- \nAlice\n")])
def test_a_packet_pasted_into_a_mail_is_named_as_such(match, tmp_path, before, after):
    """A new user's probe: a packet with the text of a mail before or after it was refused with
    the parser's words alone ("a plain or quoted value must be on one line")."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    mail = tmp_path / "mail.txt"
    mail.write_text(before + packet.read_text() + after)
    result = run("adjudicate", "game/blue", mail)
    assert result.exit_code == 4
    assert result.stderr.startswith(
        f"pbem: {mail}: the file holds a packet with other text before or after it, as when a packet is pasted into a "
        f"mail or a forum post: save the packet attachment itself, unchanged, or keep only its lines, from \"# pbem "
        f"packet\" to its signature's value; the YAML error, line ")
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0


def test_a_packet_whose_long_lines_a_mail_program_wrapped_is_named_as_such(match, tmp_path):
    """A players' probe: a packet pasted into a mail that wraps lines at 72 characters broke its
    signature's line, and was refused with the parser's words alone ("a plain or quoted value
    must be on one line"). It is named as wrapped, with what to do; nothing is applied."""
    import textwrap

    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    wrapped = tmp_path / "wrapped.yaml"
    wrapped.write_text("\n".join(part for line in packet.read_text().splitlines()
                                  for part in (textwrap.wrap(line, 72, break_long_words=True, drop_whitespace=False)
                                               or [""])) + "\n")
    assert max(len(line) for line in wrapped.read_text().splitlines()) <= 72
    result = run("adjudicate", "game/blue", wrapped)
    assert result.exit_code == 4
    assert ": the packet's long lines look wrapped, as a mail program wraps lines at about 80 characters: save the " \
           "packet attachment itself, unchanged, or send it as an attachment; the YAML error: " in result.stderr
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0


def test_a_packet_wrapped_wider_than_a_mail_program_wraps_is_named_as_such(match, tmp_path):
    """A new user's probe: `fold -w 100` cut only the signature's line, and the refusal spoke of
    block scalars, advice for someone writing YAML, not for a received packet."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    folded = tmp_path / "folded.yaml"
    folded.write_text("".join("\n".join(line[at:at + 100] for at in range(0, len(line), 100)) + "\n"
                              for line in packet.read_text().splitlines()))
    assert max(len(line) for line in folded.read_text().splitlines()) == 100
    result = run("adjudicate", "game/blue", folded)
    assert result.exit_code == 4
    assert ": the packet's signature value is cut over several lines, as a program that wraps long lines cuts it: save " \
           "the packet attachment itself, unchanged, or send it as an attachment; the YAML error: " in result.stderr
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0
    # cut short inside its signature's value, a file is not wrapped (a review): said as it is
    short = tmp_path / "short.yaml"
    text = packet.read_text()
    short.write_text(text[:text.index('value: "U1NIU0lH') + 80])
    result = run("adjudicate", "game/blue", short)
    assert result.exit_code == 4 and "cut over several lines" not in result.stderr
    assert "malformed or truncated" in result.stderr, result.stderr


def test_a_packet_whose_quotes_were_made_typographic_is_no_forged_packet(match, tmp_path):
    """A new user's probe: a word processor's "smart quotes" left `game: “…”`, which reads as
    text, so the packet was refused as forged ("`game` must be 32 lower-case hex digits", exit
    3) where every other copy mistake said what to do. Exit 4 and what to do; a quote a player
    writes inside a string is no such change."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    text = packet.read_text()
    for name, changed in (("first.yaml", "".join(line.replace('"', "\u201c", 1).replace('"', "\u201d", 1)
                                                 for line in text.splitlines(keepends=True))),
                          ("ends.yaml", text.replace('"\n', "\u201d\n"))):
        post = tmp_path / name
        post.write_text(changed)
        result = run("adjudicate", "game/blue", post)
        assert result.exit_code == 4, result.stderr
        assert result.stderr.startswith(f"pbem: {post}: the packet's quotes were changed to typographic ones "
                                        f"(\u201c \u201d), as a word processor, a mail program or a forum changes "
                                        f"them: save the packet attachment itself, unchanged, or copy it from the "
                                        f"post's code block; the "), result.stderr
        assert "signature value is cut" not in result.stderr   # its closing quote made typographic: not cut
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0
    assert not canonical.quotes_changed('note: "he said \u201cgo\u201d"\nto: ["a \u2018b\u2019"]\n')
    assert run("adjudicate", "game/blue", packet).exit_code == 0


def test_a_file_saved_as_utf16_is_said_to_be(tmp_path):
    """A new user's probe: a packet an editor saved as UTF-16 was refused as "not UTF-8 (byte 0 is
    invalid)", with no remedy; the byte counts from 1 now, as audit's do."""
    text = "pbem: 1\nseq: 1\n"
    for data in (text.encode("utf-16"), text.encode("utf-16-le"), text.encode("utf-16-be")):
        with pytest.raises(InputError) as refused:
            loads(data, "turn.yaml")
        assert refused.value.message.startswith("turn.yaml: the file is not UTF-8 (byte ") and refused.value.message.endswith(
            "): it is UTF-16 text, as some editors on Windows save it; save it again as UTF-8, or for a "
            "packet save the attachment itself, unchanged"), refused.value.message
    with pytest.raises(InputError) as refused:
        loads(b"pbem: 1\nnote: caf\xe9\n", "turn.yaml")
    assert refused.value.message == "turn.yaml: the file is not UTF-8 (byte 18 is invalid)"
    with pytest.raises(InputError) as refused:   # the zero byte counted in bytes, after a two-byte character
        loads("\u00e9".encode() + text.encode("utf-16-le"), "turn.yaml")
    assert refused.value.message.startswith("turn.yaml: the file is not UTF-8 (byte 4 is a zero byte): it is UTF-16")


def test_a_packet_cut_short_before_its_signature_is_not_said_to_be_wrapped(match, tmp_path):
    """A packet cut short before its first long line has none left, as a wrapped one: it was refused
    as wrapped by a mail program. It has no signature either: the YAML error is told as it
    is (a referee's probe)."""
    packet = submit_orders(match.folders["red"], [{"type": "end"}] * 6, None, key=match.keys["red"], sent=SENT).packet_path
    cut = tmp_path / "cut.yaml"
    lines = packet.read_text().splitlines(keepends=True)
    short = next(n for n, line in enumerate(lines) if len(line) > 81)         # the first long line: cut before it
    cut.write_text("".join(lines[:short - 1]) + lines[short - 1][:len(lines[short - 1]) // 2])
    assert max(len(line) for line in cut.read_text().splitlines()) <= 80
    result = run("adjudicate", "game/blue", cut)
    assert result.exit_code == 4 and "wrapped" not in result.stderr, result.stderr
    assert result.stderr.startswith(f"pbem: {cut}"), result.stderr
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0


def test_mail_text_above_a_packet_that_reads_as_yaml_is_named_as_mail_text(match, tmp_path):
    """A players' probe: one line of mail above the packet, "Hi Alice, here is my turn:", is
    valid YAML, a field of the packet's mapping: the packet was refused as having an "unknown
    packet field", exit 3, as if forged. It is a packet pasted into a mail, exit 4, as when the
    mail's text breaks the YAML."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    mail = tmp_path / "mail.txt"
    mail.write_text("Hi Alice, here is my turn:\n\n" + packet.read_text())
    result = run("adjudicate", "game/blue", mail)
    assert (result.exit_code, result.stderr) == (4, (
        f"pbem: {mail}: the file holds a packet with other text before or after it, as when a packet is pasted into a "
        f"mail or a forum post: save the packet attachment itself, unchanged, or keep only its lines, from \"# pbem "
        f"packet\" to its signature's value; the packet check: unknown packet field `Hi Alice, here is my turn`\n"))
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0
    forged = tmp_path / "forged.yaml"      # a field added inside the packet's own lines is no mail text
    forged.write_text(packet.read_text().replace("orders:", "extra: 1\norders:", 1))
    result = run("adjudicate", "game/blue", forged)
    assert result.exit_code == 3 and result.stderr == f"pbem: {forged}: unknown packet field `extra`\n"
    forged.write_text("Hi Alice:\n\n" + forged.read_text())   # and with mail text too: still a forged packet (a review)
    result = run("adjudicate", "game/blue", forged)
    assert result.exit_code == 3 and result.stderr == f"pbem: {forged}: unknown packet field `Hi Alice`\n"


def test_a_broken_packet_with_a_comment_above_it_keeps_its_own_error(match, tmp_path):
    """A comment before the packet's first line is no mail text, and a packet broken in itself
    is no pasted packet: the parser's words alone (a review)."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    text = packet.read_text()
    for name, changed in (("commented.yaml", "# kept from the forum thread\n" + text.replace("orders:", "orders: [", 1)),
                          ("mail.txt", "Hi Bob,\n" + text.replace("orders:", "orders: [", 1))):
        (tmp_path / name).write_text(changed)
        result = run("adjudicate", "game/blue", tmp_path / name)
        assert result.exit_code == 4 and "other text before or after it" not in result.stderr


def test_a_packet_given_to_submit_is_named_as_one(match, tmp_path):
    """A new user's probe: the packet a friend sent, given to `pbem submit`, was "unknown key
    `game`"; it says what the file is and which command takes it."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    result = run("submit", "game/blue", packet, "--key", key_file(tmp_path / "bob", match.keys["blue"]))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"pbem: {packet} is a packet, not an orders file: `pbem adjudicate GAME_DIR "
                                    f"{packet}` applies a packet your opponent sent")


def test_a_quoted_orders_file_is_named_as_such_with_the_parsers_detail():
    with pytest.raises(InputError) as refused:
        loads("> orders:\n>   - {type: end}\n", "o.yaml")
    assert refused.value.message == (
        "o.yaml, line 1: the file looks quoted by a mail client (its lines begin with \">\"): save the packet "
        "attachment itself, or remove the \"> \" quoting; the YAML error: the YAML is malformed or truncated (did "
        "not find expected comment or line break)")


def test_an_unquoted_file_keeps_its_error_alone():
    with pytest.raises(InputError) as refused:
        loads("orders:\n  - {type: end\n", "o.yaml")
    assert "quoted by a mail client" not in refused.value.message


# --- 3. a packet altered after signing --------------------------------------------------------

def test_an_altered_packet_says_to_ask_for_the_file_again(match, tmp_path):
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    altered = tmp_path / "altered-1.yaml"
    text = packet.read_text()
    assert f'sent: "{SENT}"' in text
    altered.write_text(text.replace(f'sent: "{SENT}"', 'sent: "2026-11-30T10:00:00Z"'))
    assert verification_failure("adjudicate", "game/blue", altered) == (
        f"pbem: {altered}: the signature of side red (key {match.keys['red'].public.fingerprint()}) does not "
        f"verify: the packet, or its signature, was altered after it was signed; ask red to send the packet file "
        f"again, as an attachment, unchanged\n")


def test_an_altered_genesis_names_the_side_whose_signature_it_breaks(match):
    """game.yaml changed after signing reads as a packet altered after signing does: one
    sentence, the file, the side, what happened; `status` and `audit` alike."""
    red = match.keys["red"].public.fingerprint()
    path = Path("game/blue/game.yaml")
    text = path.read_text()
    assert 'created: "2026-11-29T10:00:00Z"' in text
    path.write_text(text.replace('created: "2026-11-29T10:00:00Z"', 'created: "2026-11-29T10:00:01Z"'))
    said = (f"game.yaml: its content does not match what red signed (red's proposal signature, key {red}): the "
            f"file was altered after red signed it, or the signature is not by red's key; use the file as it was "
            f"sent, unchanged\n")
    assert verification_failure("status", "game/blue") == f"pbem: {said}"
    # audit also shows the field from the handshake file kept beside it, where that file's own
    # signature verifies (a referee's probe: the field changed was left for him to find)
    assert verification_failure("audit", "game/blue") == f"pbem: audit failed: {said}".removesuffix("\n") + (
        "; join.yaml beside it, whose signature verifies, shows where (field created: expected "
        "'2026-11-29T10:00:00Z', found '2026-11-29T10:00:01Z')\n")
    Path("game/blue/join.yaml").unlink()            # no evidence beside it: the sentence alone
    assert verification_failure("audit", "game/blue") == f"pbem: audit failed: {said}"


def test_another_games_genesis_in_a_folder_is_said_to_be_of_another_game(match, tmp_path):
    """A referee's probe: game.yaml replaced by another game's genesis (whose signatures verify)
    was reported as "join.yaml: the join kept in the folder is not the one game.yaml was made
    from", which sends the referee to the wrong file. The handshake file and game.yaml are of
    two games, told apart by the proposer's dice chain, and audit says so of both."""
    other = Match(tmp_path / "other", "duel", key_seed="next-step-other")
    for side, kept in (("blue", "join"), ("red", "proposal")):
        shutil.copy(other.folders[side].path / "game.yaml", Path(f"game/{side}/game.yaml"))
        told = verification_failure("audit", f"game/{side}")
        assert told.startswith(f"pbem: audit failed: {kept}.yaml: the {kept} kept in the folder is of another game "
                               f"than game.yaml (the proposer's dice chain differs): one of the two files was put here "
                               f"from another game's folder (field sides[0].anchor: expected "
                               f"'{other.genesis['sides'][0]['anchor']}', found '{match.genesis['sides'][0]['anchor']}')"
                               ), told


def test_a_genesis_altered_where_only_the_complete_genesis_is_signed_names_that_signature(match):
    """The joiner's chain is not in the proposal: changing it breaks the signatures of the
    complete genesis, the first of them red's."""
    red = match.keys["red"].public.fingerprint()
    path = Path("game/red/game.yaml")
    anchor = match.genesis["sides"][1]["anchor"]
    path.write_text(path.read_text().replace(anchor, ("0" if anchor[0] != "0" else "1") + anchor[1:]))
    assert verification_failure("audit", "game/red") == (
        f"pbem: audit failed: game.yaml: its content does not match what red signed (red's genesis signature, key "
        f"{red}): the file was altered after red signed it, or the signature is not by red's key; use the file as "
        f"it was sent, unchanged\n")


# --- 4. fork evidence: where to keep the second packet ----------------------------------------

def test_an_equivocation_names_where_to_keep_the_second_packet_and_audit_reports_the_fork(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one, two = Match(tmp_path / "one", "duel", key_seed="fork"), Match(tmp_path / "two", "duel", key_seed="fork")
    assert one.game.game_id == two.game.game_id
    first = submit_orders(one.folders["red"], [], None, key=one.keys["red"], sent=SENT).packet_path
    second = submit_orders(two.folders["red"], [], None, key=two.keys["red"], sent="2026-11-29T11:00:00Z").packet_path
    assert run("adjudicate", "one/blue", first).exit_code == 0
    assert verification_failure("adjudicate", "one/blue", second) == (
        f"pbem: {second}: equivocation: red signed two different packets for seq 1: packets/0001-red.yaml and "
        f"{second}; keep both as fork evidence: put the second as packets/0001-red.alt.yaml, where `pbem audit` "
        f"reports the fork\n")
    # the name a player might guess is told the name to use ...
    guessed = tmp_path / "one/blue/packets/0001-red-alt.yaml"
    shutil.copy(second, guessed)
    assert verification_failure("audit", "one/blue") == (
        "pbem: audit failed: packets/0001-red-alt.yaml: the file name says red-alt sent it, and the packet is "
        "red's: a second packet of seq 1 kept as fork evidence goes under packets/0001-red.alt.yaml (field side: "
        "expected 'red-alt', found 'red')\n")
    # ... and under it, audit reports the fork
    guessed.rename(tmp_path / "one/blue/packets/0001-red.alt.yaml")
    assert verification_failure("audit", "one/blue") == (
        "pbem: audit failed: packets/0001-red.yaml: fork: two different packets for seq 1, both validly signed "
        "by red: packets/0001-red.yaml and packets/0001-red.alt.yaml (they first differ at sent); states/0001.yaml "
        "records packets/0001-red.yaml as the packet it was made from\n")


def test_a_fork_whose_orders_differ_names_both_orders(tmp_path, monkeypatch):
    """A players' probe: a fork of two packets 2, one placing a unit and one ending at once, was
    said to "first differ at orders[0].hex", a field the `end` does not have. The fork names the
    two orders where the packets' orders differ."""
    monkeypatch.chdir(tmp_path)
    one, two = Match(tmp_path / "one", "duel", key_seed="fork"), Match(tmp_path / "two", "duel", key_seed="fork")
    state = one.state("red")
    fire = next(o for o in one.game.legal_orders(state["rules"], one.game.next_step(state["rules"]))
                if o["type"] == "fire")
    one.send("red", [fire, {"type": "end"}])
    second = submit_orders(two.folders["red"], [{"type": "end"}], None, key=two.keys["red"], sent=SENT).packet_path
    shutil.copy(second, tmp_path / "one" / "blue" / "packets" / "0001-red.alt.yaml")
    told = verification_failure("audit", "one/blue")
    assert (f"packets/0001-red.yaml and packets/0001-red.alt.yaml (they first differ at orders[0]: fire "
            f"target={fire['target']} unit={fire['unit']} in packets/0001-red.yaml, end in packets/0001-red.alt.yaml)"
            ) in told, told
    # the side that signed both wrote them: an order is not echoed whole (a review)
    from pbem.core.audit import _where_they_differ

    long = {"orders": [{"type": "fire", "unit": "u" * 5000}]}
    said = _where_they_differ(long, {"orders": [{"type": "end"}]}, "a.yaml", "b.yaml")
    assert said == f" (they first differ at orders[0]: fire unit={'u' * 110}... in a.yaml, end in b.yaml)"


def _replaced_first_packet(tmp_path: Path) -> tuple[Path, Path]:
    """Blue's folder of a duel two packets in, and a second packet 1 that red signed too."""
    one, two = Match(tmp_path / "one", "duel", key_seed="fork"), Match(tmp_path / "two", "duel", key_seed="fork")
    one.send("red", [])
    one.send("blue", [])
    second = submit_orders(two.folders["red"], [], None, key=two.keys["red"], sent="2026-11-29T11:00:00Z").packet_path
    return tmp_path / "one" / "blue", second


def test_a_packet_replaced_by_another_its_side_signed_is_named_with_what_the_referee_can_do(tmp_path, monkeypatch):
    """A referee's probe: red's packet 1 swapped for a second one red signed was reported as a
    hash deep in state 1 (with states), or blamed on blue's honest packet 2 (without)."""
    monkeypatch.chdir(tmp_path)
    blue, second = _replaced_first_packet(tmp_path)
    original = (blue / "packets" / "0001-red.yaml").read_bytes()
    shutil.copy(second, blue / "packets" / "0001-red.yaml")
    told = verification_failure("audit", "one/blue")
    assert told.startswith("pbem: audit failed: states/0001.yaml: it was made from a packet 1 other than "
                           "packets/0001-red.yaml (it records packet "), told
    assert ("if red signed both (the opponent's copy of packet 1 shows it), save that copy as "
            "packets/0001-red.alt.yaml and audit again to have the fork named (docs/protocol.md §10); if no such copy "
            "can be shown, this state was not made from red's packet (field packet: expected '") in told
    shutil.rmtree(blue / "states")
    shutil.rmtree(blue / "aar")
    told = verification_failure("audit", "one/blue")
    assert told.startswith("pbem: audit failed: packets/0002-blue.yaml: blue's packet 2 follows a state 1 other than "
                           "the one packets/0001-red.yaml gives: blue adjudicated another packet 1, or made packet 2 on "
                           "a state no packet gives; if red signed both (blue's copy of packet 1 shows it), save that "
                           "copy as packets/0001-red.alt.yaml and audit again to have the fork named"), told
    (blue / "packets" / "0001-red.alt.yaml").write_bytes(original)   # as the message says: the fork is named
    assert "fork: two different packets for seq 1, both validly signed by red" in verification_failure("audit", "one/blue")


def test_two_state_files_swapped_are_named_as_such(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blue, _ = _replaced_first_packet(tmp_path)
    one, two = blue / "states" / "0001.yaml", blue / "states" / "0002.yaml"
    kept = one.read_bytes()
    one.write_bytes(two.read_bytes())
    two.write_bytes(kept)
    assert verification_failure("audit", "one/blue") == (
        "pbem: audit failed: states/0001.yaml: it holds state 2, not state 1: state files renamed or swapped (each is "
        "named after its seq) (field seq: expected 1, found 2)\n")


def test_a_state_cut_short_or_without_its_seq_is_not_said_to_be_swapped(tmp_path, monkeypatch):
    """A state file with no `seq` line, or cut before it, was said to be "renamed or swapped"
    (it "holds state None"): it is said to be cut short or edited (a referee's probe)."""
    monkeypatch.chdir(tmp_path)
    blue, _ = _replaced_first_packet(tmp_path)
    one = blue / "states" / "0001.yaml"
    kept = one.read_text()
    one.write_text("".join(line for line in kept.splitlines(keepends=True) if not line.startswith("seq:")))
    assert verification_failure("audit", "one/blue") == (
        "pbem: audit failed: states/0001.yaml: it has no `seq`: the file is cut short or was edited (field seq: "
        "expected 1, found None)\n")
    one.write_text(kept.replace("\nseq: 1\n", "\nseq: true\n"))
    assert verification_failure("audit", "one/blue") == (
        "pbem: audit failed: states/0001.yaml: its `seq` is no state number: the file was edited (field seq: "
        "expected 1, found True)\n")


def test_the_protocol_says_where_fork_evidence_is_kept():
    text = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    audit = text[text.index("## 10. Audit"):text.index("## 11.")]
    assert ("To keep it as fork evidence, put it beside the first under the same name with `.alt`\nbefore `.yaml` "
            "(`packets/0025-german.alt.yaml` beside `packets/0025-german.yaml`)") in audit


# --- 5. an unknown standing order -------------------------------------------------------------

@pytest.fixture
def chir_submit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = run("new", "chir", "--ruleset", "chir", "--side", "german", "--side", "soviet", "--sandbox",
               "--created", "x")
    assert made.exit_code == 0, made.output

    def submit(text: str):
        Path("o.yaml").write_text(text)
        return run("submit", "chir", "o.yaml", "--side", "german", "--dry-run")
    return submit


CHIR_STANDING_ORDERS = ("advance, defensive_artillery, defensive_fire, invalidate, losses, morale, on_void, retreat, "
                        "stack_removal")


def test_an_unknown_standing_order_is_named_with_the_nearest_and_the_list(chir_submit):
    result = chir_submit("orders: []\npolicies: {retreats: ask}\n")
    assert result.exit_code == 1
    assert result.stderr == ("pbem: o.yaml: `policies`: `retreats` is not a standing order of chir "
                             f"(did you mean `retreat`?); they are: {CHIR_STANDING_ORDERS}\n")


def test_unknown_standing_orders_far_from_any_are_listed_without_a_guess(chir_submit):
    result = chir_submit("orders: []\npolicies: {zzz: ask, qqq: none}\n")
    assert result.exit_code == 1
    assert result.stderr == ("pbem: o.yaml: `policies`: `zzz`, `qqq` are not standing orders of chir; "
                             f"they are: {CHIR_STANDING_ORDERS}\n")


def test_an_edited_packet_of_a_sandbox_game_is_named_without_speaking_of_signatures(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = sandbox(tmp_path / "sb", "duel", seed="edited")
    submit_orders(folder, [], None, side="red", sent=SENT)
    packet = tmp_path / "sb" / "packets" / "0001-red.yaml"
    packet.write_text(packet.read_text().replace(SENT, "2026-11-29T12:00:00Z"))
    told = verification_failure("audit", "sb")
    assert told.startswith("pbem: audit failed: states/0001.yaml: it was made from a packet 1 other than "
                           "packets/0001-red.yaml"), told
    assert "a sandbox game's packets are not signed, so either file may have been edited (field packet" in told


def test_a_packet_that_stops_at_its_own_next_step_says_it_costs_a_round_trip(tmp_path):
    """Players' probe: one `end` per phase of a player-turn cost a round trip each, the opponent
    sending an empty packet in between, and nothing said so. chir's Soviet set-up ends into
    the Soviet concentrated attack phase."""
    from pbem.core import bot

    match = Match(tmp_path, "chir", chain_length=256, key_seed="open")
    match.send("german", bot.plan(match.game, match.state("german"), "german",
                                  lambda options: next((o for o in options if o["type"] == "end"), options[0])))
    assert match.state()["awaiting"]["need"]["side"] == "soviet" and match.state()["awaiting"]["need"]["kind"] == "setup"
    soviet = match.folders["soviet"]
    from pbem.core.templates import orders_template

    template = orders_template(match.game, soviet.state, "soviet", match.keys["soviet"])   # says it before signing
    assert ("orders:\n  - {type: end}   # closes the phase: this phase's orders go above it, the next phase's "
            "below\n" in template
            and "# With the `end` filled in, the game then comes to your orders: write them after it, in this\n"
                "# same packet, or your opponent's packet, with nothing to decide, comes first.\n"
                "# soviet: GT 1, soviet concentrated attack phase: attack orders, then end (rule 9.1).\n" in template), template
    tried = submit_orders(soviet, [{"type": "end"}], None, key=match.keys["soviet"], sent=SENT, dry_run=True)
    assert ("this packet stops where the game asks for your own orders (GT 1, soviet concentrated attack phase: "
            "attack orders, then end): your opponent must send a packet with nothing to decide before you can give "
            "them, a round trip; add them to this packet after its last order to save it (orders apply as the game "
            "reaches them)") in tried.warnings
    tried = submit_orders(soviet, [{"type": "end"}] * 2, None, key=match.keys["soviet"], sent=SENT, dry_run=True)
    assert [w[:80] for w in tried.warnings if "stops where" in w] == [
        "this packet stops where the game asks for your own orders (GT 1, soviet movement"]
    tried = submit_orders(soviet, [{"type": "end"}] * 3, None, key=match.keys["soviet"], sent=SENT, dry_run=True)
    assert tried.state["awaiting"]["need"]["side"] == "german"   # the Soviet player-turn over in one packet
    assert not [w for w in tried.warnings if "stops where" in w]


VOID_CASCADE = Path(__file__).parent / "data" / "kkoh-void-cascade"


def _void_cascade_game(tmp_path: Path):
    """A referee's probe replayed: a kkoh sandbox game (scenario pz-brigade, seed probe1) whose
    red packet 5 shows its chits and queues a move into woods that vehicles may enter only by a
    road (K-TER-7), void when packet 6 opens the chits; the orders files in tests/data."""
    from pbem.core.submit import submit

    folder = sandbox(tmp_path / "sb", "kkoh", seed="probe1")
    for path in sorted(VOID_CASCADE.glob("*.yaml")):
        side = path.stem.split("-")[1]
        # packet 5 leaves the chits its `show` reveals for packet 6 to open, as a packet may
        # (docs/protocol.md §8), and as every packet did before pbem 0.29.0: sent from a folder
        # whose private/ lacks them, so that `pbem submit` cannot open them in packet 5 itself
        kept = sorted((folder.path / "private").glob(f"seal-*-{side}.yaml")) if path.name == "5-red.yaml" else []
        for seal in kept:
            seal.rename(tmp_path / seal.name)
        submit(folder, path, side=side, sent=SENT, seal=path.stem.endswith("sealed") or None)
        for seal in kept:
            (tmp_path / seal.name).rename(seal)
    return folder


def test_a_correction_dropped_with_the_void_order_it_corrects_is_said_and_repeats_are_not(tmp_path):
    """A referee's probe: red's corrections in packet 6 were dropped with the void order of
    packet 5 under on_void: stop, and the warnings said instead that both copies of the repeated
    orders would be applied."""
    folder = _void_cascade_game(tmp_path)
    corrected = [{"type": "move", "units": ["R-TR1-TB1-1", "R-TR1-TB1-2", "R-TR1-TB1-3"], "to": "1204", "facing": "W"},
                 {"type": "move", "units": ["R-Rec1"], "to": "1106", "facing": "W"}, {"type": "end"}]
    tried = submit_orders(folder, corrected, None, side="red", sent=SENT, dry_run=True)
    void = [e["text"] for e in tried.events if e["type"] == "void"]
    assert len(void) == 1 and void[0].startswith("red order 2 of packet 5 (move facing=W to=1203 ") \
        and void[0].endswith("its queued orders 3 and 4 of packet 5, and 3 to 5 of packet 6 are dropped too (standing "
                             "order on_void: stop).")
    assert tried.warnings == [   # packet 6 opens two items first: its orders are 3 to 5
        "orders 3 to 5 of packet 6 (your file's orders 1 to 3) are dropped unapplied with the void order 2 of your "
        "packet 5 (standing order "
        "on_void: stop); under `policies: {on_void: skip}`, given in this packet, a void order drops only itself, and "
        "your other orders queued before these apply first"]


def test_what_the_rules_warn_of_is_foreseen_for_orders_that_wait_for_dice(tmp_path):
    """Players' probe (chir): a move over the stacking limit queued behind an attack that waited
    for dice was foreseen silently, and its unit removed by the standing order when it took
    effect; the same move alone was warned of. The look ahead's imagined play is shown to the
    ruleset's cautions as the real one is."""
    match = Match(tmp_path, "duel", key_seed="fore")
    state = match.state("red")
    fire = next(o for o in match.game.legal_orders(state["rules"], match.game.next_step(state["rules"]))
                if o["type"] == "fire")
    seen = []

    def cautions(scenario, rules, events, side, queued, policies):   # as a ruleset's: of what its rules did, and of the position
        seen.append([e["type"] for e in events])
        return ([f"{sum(e['type'] == 'roll' for e in events)} die rolled for {side}"] if events else []) \
            + ["a hex over the limit"]   # the real warnings say this one: not again, as foreseen

    g = match.game._replace(ruleset=match.game.ruleset._replace(cautions=cautions))
    from pbem.core.submit import foresee

    tried = submit_orders(match.folders["red"], [fire], None, key=match.keys["red"], sent=SENT, dry_run=True)
    assert tried.state["awaiting"]["waiting_for"] == "dice"   # the first packet's segment rolls nothing
    assert foresee(g, tried.state, "red", match.folders["red"]) == ["once the dice come (imagined here): 1 die rolled "
                                                                    "for red"]
    assert "roll" in seen[-1]


def test_a_packet_whose_prev_was_edited_is_refused_for_its_signature_not_blamed_on_its_side(tmp_path, monkeypatch):
    """A review: the `prev` check named blue's packet 2 as made on another state before its
    signature was checked, so an edited `prev` blamed blue."""
    monkeypatch.chdir(tmp_path)
    blue, _ = _replaced_first_packet(tmp_path)
    shutil.rmtree(blue / "states")
    shutil.rmtree(blue / "aar")
    path = blue / "packets" / "0002-blue.yaml"
    text = path.read_text()
    prev = loads(text)["prev"]
    path.write_text(text.replace(prev, "ab" * 32))
    told = verification_failure("audit", "one/blue")
    assert told.startswith("pbem: audit failed: packets/0002-blue.yaml: the signature of side blue") \
        and "was altered after it was signed" in told and "adjudicated another packet" not in told, told


FORUM = ("the file holds forum markup ([code], [quote] or their closing tags): remove the tags and keep only what stands "
         "between them, or save the file attached to the post")


@pytest.mark.parametrize("wrap", [
    lambda text: f"[code]{text.rstrip()}[/code]\n",                        # a code block's source, tags glued on
    lambda text: f'[quote="red"]{text}[/quote]\n',                          # a reply quoting the post
    lambda text: "[code]" + text[text.index("\n") + 1:] + "[/code]\n",     # copied from the first field on
    lambda text: f"[CODE]\n{text}[/CODE]\n",                               # tags on lines of their own
])
def test_a_packet_copied_with_its_forum_markup_is_named_as_such(match, tmp_path, wrap):
    """An audience's probe: a packet copied from a forum post with its [code] or [quote] tags
    was refused for "a comment must be preceded by a space" or "mapping keys must be strings",
    which says nothing of the tags. Exit 4, nothing applied."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    post = tmp_path / "post.txt"
    post.write_text(wrap(packet.read_text()))
    result = run("adjudicate", "game/blue", post)
    assert result.exit_code == 4, result.stderr
    first = result.stderr.split("; the YAML error")[0]
    assert first == f"pbem: {post}, line 1: {FORUM}", result.stderr   # the tag's line (a new user's probe: line 3)
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0


def test_forum_markup_is_named_only_where_a_copy_of_a_post_brings_it():
    """A review: any broken file with "[code]" anywhere, as in a comment, was said to hold forum
    markup. Only a tag at the start or the end of a line is a copy's, and the words fit an
    orders file copied from a post as well as a packet."""
    with pytest.raises(InputError) as refused:
        loads("orders:\n  - {type: end\n# as in the [code] of my post\n", "orders.yaml")
    assert "forum markup" not in refused.value.message
    with pytest.raises(InputError) as refused:
        loads("[code]orders:\n  - {type: end}\n[/code]\n", "orders.yaml")
    assert refused.value.message.startswith(f"orders.yaml, line 1: {FORUM}; the YAML error")
    with pytest.raises(InputError) as refused:     # a closing tag alone: its own line is named
        loads("orders:\n  - {type: end}\n\n[/quote]\n", "orders.yaml")
    assert refused.value.message.startswith(f"orders.yaml, line 4: {FORUM}; the YAML error")


ENTITIES = ("the file holds HTML entities ({}) where the packet has characters, as a forum's or a web mail's page "
            "writes them: save the packet attachment itself, unchanged, or copy it from the post as the page shows it")


def test_a_packet_copied_from_a_pages_source_is_said_to_hold_html_entities(match, tmp_path):
    """A referee's probe: a packet saved from a forum page's source, its quotes written as
    `&quot;`, was refused as "anchors (&name) are not allowed", which says nothing of how the
    file came to be so. Exit 4, nothing applied; a file of pbem's without entities is read as
    before, and a string that holds an `&` is no entity."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    text = packet.read_text()
    for entity, page in (("&quot;", text.replace('"', "&quot;")), ("&#34;", text.replace('"', "&#34;"))):
        post = tmp_path / "page.yaml"
        post.write_text(page)
        result = run("adjudicate", "game/blue", post)
        assert result.exit_code == 4, result.stderr
        assert result.stderr.startswith(f"pbem: {post}, line "), result.stderr
        assert f": {ENTITIES.format(entity)}; the YAML error: anchors (&name) are not allowed" in result.stderr
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0
    with pytest.raises(InputError) as refused:
        loads("orders:\n  - {type: end, note: &x 1}\n", "orders.yaml")      # an anchor of its own: no page's
    assert "HTML" not in refused.value.message


INDENTED = "the packet's indentation was changed, as a forum or mail program may change it"
PUT_BACK = ("save the packet attached to the post or mail, unchanged, or copy it from the post's code block, which keeps "
            "its spaces")


@pytest.mark.parametrize("change, how", [
    (lambda text: text.replace("\n  ", "\n\u00a0\u00a0"), "non-breaking spaces where it has spaces"),
    (lambda text: text.replace("\n  ", "\n"), "its indented lines moved to the left margin"),
    (lambda text: text.replace("\n  ", "\n").replace("\n", "\r\n"), "its indented lines moved to the left margin"),
    (lambda text: text.replace("\n  ", "\n").replace("signature:\n", "signature: \n"),
     "its indented lines moved to the left margin"),
])
def test_a_packet_whose_indentation_a_forum_changed_is_no_forged_packet(match, tmp_path, change, how):
    """An audience's probe: a forum that writes a post's leading spaces as non-breaking ones, or
    drops them, leaves a packet whose `signature` is empty: refused as "packet field `signature`
    must be a mapping", exit 3, as if forged. The indentation was changed: exit 4, and what to
    do; whether the packet is whole in itself is checked once it is saved as it was sent."""
    packet = submit_orders(match.folders["red"], [], None, key=match.keys["red"], sent=SENT).packet_path
    text = packet.read_text()
    assert text.count("\n  ") == 2    # the signature's two fields, and nothing else indented
    post = tmp_path / "post.yaml"
    post.write_bytes(change(text).encode())
    result = run("adjudicate", "game/blue", post)
    assert (result.exit_code, result.stderr) == (4, (
        f"pbem: {post}: {INDENTED} ({how}): {PUT_BACK}; the packet check: packet field `signature` must be a mapping, "
        f"not empty (null)\n"))
    assert json.loads(run("status", "game/blue", "--json").output)["seq"] == 0


def test_a_packet_of_many_orders_whose_indentation_a_forum_changed_is_named_as_such(tmp_path):
    """A review: the diagnosis read only the signature's lines, so a packet with a long order
    or standing orders written over several lines, its indentation lost, was still refused as
    forged ("unknown packet field `type`", exit 3) or as malformed YAML. A packet stored in a
    game folder keeps its refusal and exit code, a file altered there, and audit says after it
    how its indentation changed and what to do: a referee's probe built a folder of a thread's
    packets and was told only that a packet field "must be a mapping"."""
    example = Path(__file__).resolve().parent.parent / "examples" / "chir-demo"
    seq, packet = next((int(p.name[:4]), p) for p in sorted((example / "packets").glob("*.yaml"))
                       if p.read_text().count("\n  ") > 2)     # indented lines beyond the signature's
    folder = tmp_path / "game"
    shutil.copytree(example, folder)
    for sub in ("packets", "states", "aar"):
        for path in (folder / sub).iterdir():
            if int(path.name[:4]) >= seq:
                path.unlink()
    for name, change, how in (("nbsp.yaml", lambda t: t.replace("\n  ", "\n\u00a0\u00a0"),
                               "non-breaking spaces where it has spaces"),
                              ("flat.yaml", lambda t: t.replace("\n  ", "\n"), "its indented lines moved to the left margin")):
        post = tmp_path / name
        post.write_text(change(packet.read_text()))
        result = run("adjudicate", folder, post)
        assert result.exit_code == 4 and result.stderr.startswith(f"pbem: {post}: {INDENTED} ({how}): {PUT_BACK}; the "), \
            result.stderr
    assert run("adjudicate", folder, packet).exit_code == 0     # saved as it was sent, it applies
    stored = folder / "packets" / packet.name
    stored.write_text(stored.read_text().replace("\n  ", "\n\u00a0\u00a0"))
    told = verification_failure("audit", folder)
    assert told.startswith(f"pbem: audit failed: packets/{packet.name}: ") and \
        told.endswith(f"; {INDENTED} (non-breaking spaces where it has spaces): {PUT_BACK}\n"), told
    assert told.count(INDENTED) == 1
