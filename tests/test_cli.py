"""The command line (DESIGN §5) through click's CliRunner, and the installed `pbem`."""

import base64
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core import keys
from pbem.core.canonical import load_mapping


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args, code=0):
        result = runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)
        assert result.exit_code == code, result.output + result.stderr
        return result
    return invoke


def handshake(run, red_key="keys/red", blue_key="keys/blue", red="red-folder", blue="blue-folder"):
    """The three steps of DESIGN §2.2, as two players run them: propose, join, complete,
    and the joiner's install of the complete genesis."""
    out = run("new", red, "--ruleset", "duel", "--side", f"red={red_key}.pub", "--side", f"blue={blue_key}.pub",
              "--key", red_key, "--created", "2026-11-29T10:00:00Z").output
    assert "a signed proposal" in out and not Path(red, "game.yaml").exists()
    out = run("join", blue, f"{red}/proposal.yaml", "--key", blue_key).output
    assert "you joined as blue" in out and not Path(blue, "game.yaml").exists()
    out = run("join", red, f"{blue}/join.yaml", "--key", red_key).output
    assert "is complete" in out
    out = run("join", blue, f"{red}/game.yaml").output
    # without --key, the joiner's folder (his join.yaml) tells his side (players' probe)
    assert "is ready" in out and out.splitlines()[-1] == (
        f"first packet: from red, your opponent; you play blue: `pbem adjudicate {blue} PACKET` for each packet red "
        f"sends, then `pbem orders {blue} --key YOUR_KEY` for yours")


@pytest.fixture
def duel_game(run, tmp_path):
    run("keygen", "red", "--dir", "keys")
    run("keygen", "blue", "--dir", "keys")
    handshake(run)
    return tmp_path


def write(path, text):
    Path(path).write_text(text)
    return path


def test_submit_out_to_a_folder_that_is_not_there_signs_and_applies_nothing(run, duel_game):
    """`--out nodir/p1.yaml` is refused before the packet is signed and applied: once, the game
    moved on with packet 1 kept in the folder while the command said only that the file could
    not be written (a referee's probe)."""
    write("o.yaml", "orders: []\n")
    before = sorted(str(p) for p in Path("red-folder").rglob("*"))
    result = run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "nodir/p1.yaml", code=4)
    assert result.stderr.splitlines()[0] == (
        "pbem: nodir/p1.yaml cannot be written: there is no folder nodir to write in, or it may not be written "
        "(nothing was signed or applied)")
    assert sorted(str(p) for p in Path("red-folder").rglob("*")) == before
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    assert Path("red-folder/packets/0001-red.yaml").read_bytes() == Path("p1.yaml").read_bytes()


def test_keygen_writes_openssh_keys(run, tmp_path):
    result = run("keygen", "alice", "--dir", "k")
    assert "fingerprint SHA256:" in result.output
    assert (tmp_path / "k" / "alice").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "k" / "alice.pub").read_text().startswith("ssh-ed25519 AAAA")
    assert (tmp_path / "k" / "alice").read_text().startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    result = run("keygen", "alice", "--dir", "k", code=4)
    assert "already exists" in result.stderr


def test_a_round_by_email(run, duel_game):
    # red opens; blue acknowledges; red fires; blue adjudicates with its key and sees the preview.
    status = json.loads(run("status", "red-folder", "--json").output)
    assert status["awaiting"]["packet_from"] == "red" and status["seq"] == 0
    template = run("orders", "red-folder", "--side", "red").output
    assert "#   - {type: fire, unit: r1, target: b1}" in template
    assert "orders:\n  - {type: end}" in template
    assert "policies:\n#  absorb: target\n#  on_void: stop\n" in template
    write("o1.yaml", "orders: []\npolicies: {absorb: strongest}\n")
    out = run("submit", "red-folder", "o1.yaml", "--key", "keys/red", "--out", "p1.yaml").output
    assert "packet written: red-folder/packets/0001-red.yaml and p1.yaml" in out
    run("adjudicate", "blue-folder", "p1.yaml")
    write("o2.yaml", "orders: []\n")
    run("submit", "blue-folder", "o2.yaml", "--key", "keys/blue", "--out", "p2.yaml")
    run("adjudicate", "red-folder", "p2.yaml")
    write("o3.yaml", "orders:\n  - {type: fire, unit: r1, target: b1}\n  - {type: end}\n")
    out = run("submit", "red-folder", "o3.yaml", "--key", "keys/red", "--out", "p3.yaml").output
    assert "needs dice: it resolves when the next packet reveals the next dice value" in out
    out = run("adjudicate", "blue-folder", "p3.yaml", "--key", "keys/blue").output
    assert "PREVIEW (not written)" in out and "Die: " in out
    assert "whatever your packet says (docs/protocol.md §7, the resolution rule):\n  - " in out
    assert sorted(os.listdir("blue-folder/states")) == ["0000.yaml", "0001.yaml", "0002.yaml", "0003.yaml"]
    assert (Path("red-folder/states/0003.yaml").read_bytes() == Path("blue-folder/states/0003.yaml").read_bytes())
    out = run("status", "blue-folder").output
    assert ("Awaited: a packet from blue, whose reveal opens the dice the game waits for (docs/protocol.md §7), which "
            "finish a step red has answered already: ") in out
    assert ("Queued orders (red 2) wait for the dice of the next packet: red order 1 of packet 3 (fire target=b1 "
            "unit=r1); red order 2 of packet 3 (end).") in out
    for folder in ("red-folder", "blue-folder"):
        report = json.loads(run("audit", folder, "--json").output)
        assert report["ok"] is True and report["packets"] == 3 and report["signatures"] == 3


def test_the_orders_template_can_be_submitted_as_it_is_or_uncommented(run, duel_game):
    write("t.yaml", run("orders", "red-folder", "--side", "red").output)
    run("submit", "red-folder", "t.yaml", "--key", "keys/red", "--out", "p1.yaml")
    run("adjudicate", "blue-folder", "p1.yaml")
    early = run("orders", "red-folder", "--side", "red").output   # red's next packet is 3, after blue's 2
    assert early.startswith(f"# pbem orders for red: game {load_mapping(Path('red-folder/states/0001.yaml'))['game']}, "
                            f"packet 3\n")
    assert "# Not your packet yet: the next packet, 2, comes from blue; yours is 3, after you adjudicate blue's." in early
    template = run("orders", "blue-folder", "--side", "blue").output
    assert "# Not your packet yet" not in template and "packet 2\n" in template
    again = run("join", "blue-folder", "red-folder/game.yaml").output   # a join re-run in play changes nothing
    assert again.splitlines()[-1] == "next packet (2): from you (blue): `pbem orders blue-folder --key YOUR_KEY`"
    assert "#  absorb: target" in template
    write("t2.yaml", template.replace("#  absorb: target", "  absorb: strongest"))
    run("submit", "blue-folder", "t2.yaml", "--key", "keys/blue")
    assert load_mapping(Path("blue-folder/states/0002.yaml"))["policies"]["blue"] == {"seq": 2, "values": {"absorb": "strongest"}}


def test_submit_prints_its_report_in_the_format_asked_for_a_forum_post(run, duel_game):
    """An audience's probe: the sender of a packet on a forum could not have its report in BBCode
    (`submit` printed text only, and `adjudicate --format bbcode` of one's own packet says it was
    applied already). `submit --format` prints the report as `adjudicate --format` does."""
    write("t.yaml", run("orders", "red-folder", "--side", "red").output)
    sent = run("submit", "red-folder", "t.yaml", "--key", "keys/red", "--out", "p1.yaml", "--format", "bbcode").output
    received = run("adjudicate", "blue-folder", "p1.yaml", "--format", "bbcode").output
    report = received[:received.index("[/list]") + len("[/list]")]
    assert report.startswith("[b]") and "\n[list]\n[*]" in report
    assert sent.startswith(report)
    write("t2.yaml", run("orders", "blue-folder", "--side", "blue").output)
    assert run("submit", "blue-folder", "t2.yaml", "--key", "keys/blue", "--dry-run", "--format", "md").output.startswith("# ")


def test_submit_refuses_out_of_turn_and_illegal_orders(run, duel_game):
    write("o.yaml", "orders: []\n")
    result = run("submit", "red-folder", "o.yaml", "--key", "keys/blue", code=1)
    # the same words for a blue player out of turn and a red player who gave blue's key (a probe)
    assert result.stderr == ("pbem: it is red's turn to send packet 1, and the key given is blue's: if you play red, "
                             "give your own key; if you play blue, wait for red's packet and adjudicate it (packets "
                             "alternate)\n")
    write("bad.yaml", "orders:\n  - {type: fire, unit: r1, target: r2}\n")
    before = sorted(p.name for p in Path("red-folder").rglob("*"))
    result = run("submit", "red-folder", "bad.yaml", "--key", "keys/red", code=1)
    assert result.stderr.startswith("pbem: bad.yaml: order 1 (fire target=r2 unit=r1) is illegal: r2 is not an enemy unit")
    assert "(D1)" in result.stderr and "Legal now: b1; b2" in result.stderr
    assert sorted(p.name for p in Path("red-folder").rglob("*")) == before
    write("schema.yaml", "orders:\n  - {type: charge, unit: r1}\n")
    result = run("submit", "red-folder", "schema.yaml", "--key", "keys/red", code=1)
    assert "order 1, field `type`: 'charge' is not one of: " in result.stderr


def test_show_and_canonical(run, duel_game):
    assert run("show", "red-folder").output == "b1 blue 3\nb2 blue 2\nr1 red 3\nr2 red 2\n"
    shown = json.loads(run("show", "red-folder", "--json").output)
    assert shown["rules"]["units"]["r1"] == {"side": "red", "strength": 3}
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    signed = run("canonical", "p1.yaml", "--signature", "p1.sig").stdout_bytes
    assert signed.startswith(b'{"game":"') and b'"signature"' not in signed and b'"anchor"' not in signed
    assert Path("p1.sig").read_text().startswith("-----BEGIN SSH SIGNATURE-----")


@pytest.mark.parametrize("value, words", [
    ("\u00e9", "is not valid base64"), ("abc", "is not valid base64"), ("!!!!", "is not valid base64"),
    ("", "is no SSH signature (The SSH signature is truncated.)"),
    ("AAAA", "is no SSH signature (The SSH signature is truncated.)")])
def test_canonical_refuses_a_signature_value_that_is_none_and_writes_no_file(run, duel_game, value, words):
    """A probe: a value that was no base64 failed with a traceback, or wrote an empty signature."""
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    text = Path("p1.yaml").read_text()
    good = load_mapping(Path("p1.yaml"))["signature"]["value"]
    write("bad.yaml", text.replace(good, value))
    result = run("canonical", "bad.yaml", "--signature", "bad.sig", code=3)
    assert result.stderr == f"pbem: bad.yaml: the signature value {words}\n"
    assert not Path("bad.sig").exists()


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed")
def test_stock_ssh_keygen_verifies_a_packet(run, duel_game):
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    signed = run("canonical", "p1.yaml", "--signature", "p1.sig").stdout_bytes
    write("allowed", "red " + Path("keys/red.pub").read_text())
    ok = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", "allowed", "-I", "red", "-n", "pbem-packet-v1", "-s", "p1.sig"],
                        input=signed, capture_output=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", "allowed", "-I", "red", "-n", "pbem-packet-v1", "-s", "p1.sig"],
                         input=signed.replace(b'"orders":[]', b'"orders":[{}]'), capture_output=True)
    assert bad.returncode != 0


def genesis_id(folder: Path) -> str:
    return load_mapping(folder / "states" / "0000.yaml")["game"]


def test_sandbox_game_with_scripted_dice(run, tmp_path):
    run("new", "g", "--ruleset", "duel", "--side", "red", "--side", "blue", "--sandbox", "--dice", "6,1",
        "--created", "x")
    genesis = load_mapping(tmp_path / "g" / "game.yaml")
    assert genesis["mode"] == "sandbox" and genesis["sandbox"] == {"dice": [6, 1]}
    write("o.yaml", "orders:\n  - {type: fire, unit: r1, target: b2}\n  - {type: fire, unit: r2, target: b2}\n")
    out = run("submit", "g", "o.yaml", "--side", "red").output
    assert "SANDBOX GAME" in out and "scripted die 1" in out and "scripted die 2" in out
    assert "r1 fires at b2: 6, a hit." in out and "r2 fires at b2: 1, a miss." in out
    # no opponent to send it to (a players' probe)
    assert out.rstrip().endswith("packet written: g/packets/0001-red.yaml - applied in this folder, where both sides "
                                 "of a sandbox game play")
    run("audit", "g")
    # a sandbox game's packets come from whichever side it waits for: no number for the other's yet
    awaited = json.loads(run("status", "g", "--json").output)["awaiting"]["packet_from"]
    other = "blue" if awaited == "red" else "red"
    template = run("orders", "g", "--side", other).output
    assert template.startswith(f"# pbem orders for {other}: game {genesis_id(tmp_path / 'g')}\n")
    assert f"# Not your packet yet: the next packet, 2, comes from {awaited}.\n" in template
    assert f"game {genesis_id(tmp_path / 'g')}, packet 2\n" in run("orders", "g", "--side", awaited).output
    # a sandbox game takes a packet from a side it does not wait for, and says so
    waited = json.loads(run("status", "g", "--json").output)["awaiting"]["packet_from"]
    early = run("submit", "g", write("e.yaml", "orders:\n  - {type: end}\n"), "--side",
                "blue" if waited == "red" else "red")
    assert f"warning: the game waited for a packet from {waited}, not " in early.stderr
    # the board in words and in pictures says it is a sandbox game, as the reports do
    sandbox_line = "SANDBOX GAME: unsigned packets, dice from a script or a plain seed; not fair dice."
    assert run("show", "g").output.startswith(sandbox_line + "\n")
    run("new", "s", "--ruleset", "stalingrad", "--side", "german", "--side", "soviet", "--sandbox", "--seed", "x")
    run("render", "s", "-o", "s.svg")
    caption = re.search(r'<g id="caption">(.*?)</g>', Path("s.svg").read_text()).group(1)
    assert " ".join(re.findall(r">([^<>]+)</text>", caption)).startswith(sandbox_line)   # wrapped in lines
    run("render", EXAMPLE, "-o", "secure.svg")
    assert "SANDBOX" not in Path("secure.svg").read_text() and "SANDBOX" not in run("show", EXAMPLE).output
    result = run("new", "h", "--ruleset", "duel", "--side", "red", "--side", "blue", "--dice", "6", code=2)
    assert "sandbox" in result.stderr


def test_a_dice_script_that_runs_out_partway_through_a_step_says_the_dice_it_has_left(run, tmp_path):
    """A referee's probe: a step that needs two dice where the script has one left is undone
    and waits for dice, and status said the script was "used up (3 dice, all rolled)"; the
    dice the referee then rolled at the table went to the fight after the one left. Status,
    submit and the template say that die is left and rolled first, as it is."""
    run("new", "sb", "--ruleset", "stalingrad", "--side", "german", "--side", "soviet", "--sandbox", "--dice", "3,5,1",
        "--created", "x")
    write("o.yaml", "orders:\n  - {type: end}\n  - {type: move, unit: 71id-191, to: mamayev-kurgan}\n"
                    "  - {type: move, unit: 24pd-24pzr, to: fallen-fighters}\n  - {type: end}\n"
                    "  - {type: attack, area: mamayev-kurgan}\n  - {type: attack, area: fallen-fighters}\n"
                    "  - {type: end}\n")
    sent = run("submit", "sb", "o.yaml", "--side", "german")
    assert "Die: 3 (scripted die 1)" in sent.output and "scripted die 3" not in sent.output
    left = "The game's dice script has 1 die left (1), too few for the step the game waits for"
    assert (f"Awaited: more dice. {left}; a packet from german adds more, `pbem submit GAME_DIR ORDERS_FILE --side "
            "german --dice 4,2`, rolled after it, and then german: ") in run("status", "sb").output
    assert "warning: the game's dice script has 1 die left (1)" in sent.stderr and "all rolled" not in sent.stderr
    assert f"# {left}: send this packet with more dice," in run("orders", "sb", "--side", "german").output
    write("e.yaml", "orders: []\n")
    added = run("submit", "sb", "e.yaml", "--side", "german", "--dice", "4,2").output
    assert "Die: 1 (scripted die 3)" in added and "Die: 4 (scripted die 4)" in added
    assert "audit OK: sandbox game" in run("audit", "sb").output


def test_a_used_up_dice_script_is_said_and_a_packet_adds_dice(run, tmp_path):
    """A referee re-running a fight with dice rolled at a table: when the script runs out,
    status and the orders template say so and how to add dice; `submit --dice` adds them, the
    waiting orders resolve with them, and the game audits clean. Dice only go where a script is."""
    run("new", "g", "--ruleset", "duel", "--side", "red", "--side", "blue", "--sandbox", "--dice", "6",
        "--created", "x")
    write("o.yaml", "orders:\n  - {type: fire, unit: r1, target: b2}\n  - {type: fire, unit: r2, target: b2}\n")
    sent = run("submit", "g", "o.yaml", "--side", "red")
    assert "r1 fires at b2: 6, a hit." in sent.output and "r2 fires" not in sent.output
    assert ("warning: the game's dice script is used up (1 die, all rolled), and the game waits for more: send a packet "
            "with `pbem submit GAME_DIR ORDERS_FILE --side red --dice 4,2` (the dice rolled at your table)\n") in sent.stderr
    status = run("status", "g").output
    assert ("Awaited: more dice. The game's dice script is used up (1 die, all rolled); a packet from red adds more, "
            "`pbem submit GAME_DIR ORDERS_FILE --side red --dice 4,2`") in status
    template = run("orders", "g", "--side", "red").output
    assert "# The game's dice script is used up (1 die, all rolled): send this packet with more dice," in template
    write("t.yaml", template)
    out = run("submit", "g", "t.yaml", "--side", "red", "--dice", "2, 5").output
    assert "r2 fires at b2: 2, a miss." in out
    assert load_mapping(tmp_path / "g" / "packets" / "0002-red.yaml")["dice"] == [2, 5]
    assert "Awaited: more dice" not in run("status", "g").output
    assert "audit OK: sandbox game" in run("audit", "g").output

    assert "every die must be 1 to 6" in run("submit", "g", "t.yaml", "--side", "blue", "--dice", "7", code=2).stderr
    for command in (["submit", "g", "t.yaml", "--side", "blue"], ["new", "e", "--ruleset", "duel", "--side", "red",
                                                                "--side", "blue", "--sandbox"]):
        assert "give at least one die" in run(*command, "--dice", "", code=2).stderr
    assert not (tmp_path / "e").exists()
    run("new", "s", "--ruleset", "duel", "--side", "red", "--side", "blue", "--sandbox", "--seed", "x")
    refused = run("submit", "s", "t.yaml", "--side", "red", "--dice", "4", code=2).stderr
    assert "only a sandbox game with scripted dice takes dice from its players; this game's dice come from a seed" \
        in refused and not (tmp_path / "s" / "packets" / "0001-red.yaml").exists()
    run("keygen", "red", "--dir", "keys")
    keyed = run("new", "k", "--ruleset", "duel", "--side", "red=keys/red.pub", "--side", "blue", "--sandbox", code=2)
    assert "--side red=keys/red.pub: a sandbox game's sides take no key (it is not signed): give --side red" \
        in keyed.stderr and not (tmp_path / "k").exists()


def test_usage_errors_exit_2(run, tmp_path):
    assert "unknown ruleset 'nope'" in run("new", "g", "--ruleset", "nope", "--side", "a=b", code=2).stderr
    run("status", code=2)


@pytest.mark.parametrize("given, words", [
    (["--created", "x\ty"], "created: 'x\\ty' does not match"),
    (["--seed", "a" * 1001], "sandbox: {'seed': 'aaaa"),
])
def test_a_sandbox_genesis_the_command_line_spoilt_is_a_usage_error_and_nothing_is_written(run, tmp_path, given, words):
    """A probe: a bad --created or a seed over the schema's length made a sandbox `pbem new`
    exit 3, a verification failure of "game.yaml", which was never written; the same in a
    secure `pbem new` exits 2. Both are the command line's mistake now."""
    error = run("new", "s", "--ruleset", "duel", "--side", "red", "--side", "blue", "--sandbox", *given, code=2).stderr
    assert error.startswith("pbem: the game: the genesis does not match its schema: ") and words in error
    assert error.rstrip().endswith("(an option, the dice, the seed or a scenario given); nothing was written")
    assert not (tmp_path / "s").exists()


def test_missing_folder_exits_4(run):
    assert "not a pbem game folder" in run("status", "nowhere", code=4).stderr
    # a path that is no game folder is a wrong path (4), not a game failing its audit (3)
    for args in (("audit", "nowhere"), ("audit", "--json", "nowhere")):
        done = run(*args, code=4)
        assert done.stderr.startswith("pbem: nowhere: not a pbem game folder (no game.yaml)") and done.stdout == ""


def test_the_folder_above_a_game_is_answered_with_the_game_folder_inside_it(run, tmp_path):
    """A new user's probe: from the folder where join.yaml was saved, `pbem status .` said the
    handshake was not complete, sending the player to join again, when the game was in game/."""
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo", tmp_path / "game")
    (tmp_path / "join.yaml").write_text("x: 1\n")
    for command in ("status", "show", "audit"):
        assert run(command, ".", code=4).stderr == (
            "pbem: .: not a pbem game folder (no game.yaml); the game folder inside it is ./game/: give that\n")
    # the emailed game.yaml saved beside the game folder its `pbem join` made (a new user's probe:
    # "the folder is incomplete (`pbem join NEW_DIR game.yaml` ...)" sent him to join again)
    shutil.copy(tmp_path / "game" / "game.yaml", tmp_path / "game.yaml")
    for command in ("status", "show", "orders"):
        assert run(command, ".", code=4).stderr == ("pbem: .: not a whole game folder (no states/0000.yaml), only a "
                                                    "game.yaml; the game folder inside it is ./game/: give that\n")
    (tmp_path / "game.yaml").unlink()
    (tmp_path / "game" / "game.yaml").unlink()   # no game inside: the handshake's hint stands
    assert "the handshake is not complete" in run("status", ".", code=4).stderr


def test_a_file_of_the_game_given_for_its_folder_is_answered_with_the_command_meant(run, tmp_path):
    """A user who names game.yaml, a packet or a state where the game folder belongs is told
    what to type: click alone said "Directory 'g/game.yaml' is a file" (a new-user probe)."""
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo", tmp_path / "g")
    for args, meant in ((("status", "g/game.yaml"), "give the folder that holds it: pbem status g"),
                        (("audit", "g/packets/0001-german.yaml"), "give the folder that holds it: pbem audit g"),
                        (("show", "g/states/0001.yaml"), "to see state 1 of that game: pbem show g --state 1"),
                        (("render", "g/states/0000.yaml"), "to see state 0 of that game: pbem render g --state 0")):
        error = run(*args, code=2).stderr
        assert f"Invalid value for 'GAME_DIR': {args[1]} is a " in error and error.rstrip().endswith(meant), error
    write(Path("loose.yaml"), "a: 1\n")
    assert run("status", "loose.yaml", code=2).stderr.rstrip().endswith(
        "loose.yaml is a file; give the game folder (the one holding game.yaml and states/)")
    # the game.yaml of an email saved beside the packet makes no game folder of `.` (a user's probe)
    shutil.copy("g/game.yaml", "game.yaml")
    shutil.copy("g/packets/0001-german.yaml", "to-bob.yaml")
    assert run("status", "to-bob.yaml", code=2).stderr.rstrip().endswith(
        "to-bob.yaml is a file; give the game folder (the one holding game.yaml and states/)")
    os.remove("game.yaml")
    assert run("show", "g/states/0001.yaml", code=2).stderr.startswith("Usage: cli show")   # click's own frame
    # the console script sends a file given for GAME_DIR to click too (pbem.entry._plain)
    done = subprocess.run([sys.executable, "-m", "pbem", "status", "g/game.yaml"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("Usage: pbem status") \
        and done.stderr.rstrip().endswith("give the folder that holds it: pbem status g")
    os.chdir("g/states")
    assert run("status", "../game.yaml", code=2).stderr.rstrip().endswith("pbem status ..")
    assert run("show", "0002.yaml", code=2).stderr.rstrip().endswith("pbem show .. --state 2")


def test_existing_game_folder_is_not_overwritten(run, duel_game):
    before = Path("red-folder/game.yaml").read_bytes()
    result = run("new", "red-folder", "--ruleset", "duel", "--side", "red=keys/red.pub", "--side", "blue=keys/blue.pub",
                 "--key", "keys/red", code=4)
    assert "already exists" in result.stderr
    assert Path("red-folder/game.yaml").read_bytes() == before


def test_demo_plays_a_signed_game_that_audits_clean(run, tmp_path):
    out = run("demo", "d", "--ruleset", "duel").output
    assert "audit player-1: OK" in out and "audit player-2: OK" in out
    assert "both folders end in the same state: True" in out
    assert run("demo", "d", "--ruleset", "duel", code=4)


def test_the_demo_of_a_ruleset_with_bots_is_played_by_them(run, tmp_path):
    """stalingrad has heuristic bots: they play the demo, with their standing orders and
    `on_void: skip`, and their first packet is the plan they make of the first state."""
    from pbem import rulesets
    from pbem.core import bots, engine, game

    out = run("demo", "d", "--ruleset", "stalingrad", "--turns", "1").output
    assert "audit player-1: OK" in out and "both folders end in the same state: True" in out
    folder = game.open_folder(tmp_path / "d" / "player-1")
    heuristics = rulesets.get("stalingrad").bot
    for side in ("german", "soviet"):
        values = engine.effective_policies(folder.game.ruleset, folder.state, side)
        assert values["on_void"] == "skip"
        assert heuristics.policies[side].items() <= values.items()
    first = game.read_packet(tmp_path / "d" / "player-1" / "packets" / "0001-german.yaml")[0]
    expected = bots.plan(folder.game, game.initial_state(folder.game), bots.Bot("heuristic", "german", "demo/german"))
    assert first["orders"] == expected.orders and len(first["orders"]) > 10


def test_the_demo_of_a_ruleset_without_bots_plays_random_legal_orders(run, tmp_path):
    from pbem.core import bot, game

    run("demo", "d", "--ruleset", "duel")
    folder = game.open_folder(tmp_path / "d" / "player-1")
    first = game.read_packet(next((tmp_path / "d" / "player-1" / "packets").glob("0001-*.yaml")))[0]
    assert folder.state["policies"][first["side"]]["values"].get("on_void") != "skip"
    assert first["orders"] == bot.plan(folder.game, game.initial_state(folder.game), first["side"],
                                       bot.chooser("demo"))


def test_help_does_not_import_heavy_modules():
    code = ("import sys; from pbem.cli import cli\n"
            "try:\n    cli(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('cryptography', 'jsonschema') if m in sys.modules]\n"
            "sys.stderr.write(repr(heavy))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr == "[]"
    assert "adjudicate" in done.stdout and "Exit codes" in done.stdout


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"]])
def test_help_and_version_are_answered_without_click_and_say_what_click_says(args):
    code = ("import sys; sys.argv = ['pbem'] + sys.argv[1:]; from pbem.entry import main; main()\n"
            "sys.stderr.write(repr(sorted(m for m in ('click', 'cryptography', 'jsonschema', 'yaml') if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "[]"
    clicked = CliRunner().invoke(cli, args, prog_name="pbem")
    assert clicked.exit_code == 0 and done.stdout == clicked.output


def test_the_commands_that_play_a_game_never_import_dataclasses():
    """Importing `dataclasses` costs a bare interpreter's start-up again (pbem/core/__init__.py):
    opening each example game (its ruleset, scenario and rules), showing its status and board
    and auditing one, as the plain command lines do, imports neither it nor `inspect`, which it
    brings; nor does the module `pbem submit` plays packets with."""
    examples = sorted(str(p) for p in EXAMPLE.parent.iterdir() if (p / "game.yaml").is_file())
    code = ("import sys\n"
            "from pbem.core import audit, describe, game, submit\n"
            "for path in sys.argv[1:]:\n"
            "    folder = game.open_folder(path)\n"
            "    describe.status(folder)\n"
            "    folder.game.render(describe.state_at(folder, None)['rules'])\n"
            "assert audit.audit(sys.argv[-1]).ok\n"
            "sys.stderr.write(repr(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, *examples], capture_output=True, text=True)
    assert len(examples) == 4 and examples[-1].endswith("stalingrad-demo")
    assert done.returncode == 0 and done.stderr == "[]", done.stderr


def test_installed_executable_runs_as_a_user_would(tmp_path):
    exe = shutil.which("pbem") or str(Path(sys.executable).parent / "pbem")
    if not Path(exe).exists():
        pytest.skip("the pbem console script is not installed (pip install -e .)")
    done = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("pbem, version")
    done = subprocess.run([exe, "status", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 4 and done.stderr.startswith("pbem: ") and "not a pbem game folder" in done.stderr


def test_submit_warns_of_orders_that_would_be_void_after_their_dice(run, duel_game):
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    run("adjudicate", "blue-folder", "p1.yaml")
    run("submit", "blue-folder", "o.yaml", "--key", "keys/blue", "--out", "p2.yaml")
    run("adjudicate", "red-folder", "p2.yaml")
    write("twice.yaml", "orders:\n  - {type: fire, unit: r1, target: b1}\n  - {type: fire, unit: r1, target: b2}\n")
    result = run("submit", "red-folder", "twice.yaml", "--key", "keys/red")
    assert ("warning: with four different imagined rolls of the dice, red order 2 of packet 3 (fire target=b2 unit=r1) "
            "is void: r1 has already fired this phase (D2). It would most likely be void whatever the dice.") in result.stderr
    assert game_states("red-folder") == ["0000.yaml", "0001.yaml", "0002.yaml", "0003.yaml"]


def test_a_void_foreseen_with_every_imagined_roll_is_said_to_be_likely_whatever_the_dice():
    """Players' probe: 'with one imagined roll' read as bad luck for an order no die could save;
    and two rolls that happened both to void an assault called it "most likely void" (a
    players' probe): up to four rolls are imagined where the first voids an order, while one
    is void with every roll so far, and the words say how many of them void it."""
    from pbem.core.submit import IMAGINED, void_words

    assert IMAGINED == 4
    fired, gone = "order 2 is void: r1 has already fired (D2).", "order 5 is void: b1 is gone (D2)."
    assert void_words([{2: fired, 5: gone}, {2: fired}, {2: fired, 5: gone}, {2: fired}]) == [
        "with four different imagined rolls of the dice, order 2 is void: r1 has already fired (D2). It would most "
        "likely be void whatever the dice.",
        "with 2 of four imagined rolls of the dice, order 5 is void: b1 is gone (D2)."]
    assert void_words([{}, {3: "x"}, {}, {}]) == []
    # rolls stop once no order is void with every one so far: words for those imagined
    assert void_words([{5: gone}, {}]) == ["with 1 of two imagined rolls of the dice, order 5 is void: b1 is gone (D2)."]
    assert void_words([{5: gone}, {5: gone}, {}]) == [
        "with 2 of three imagined rolls of the dice, order 5 is void: b1 is gone (D2)."]


def test_a_void_is_counted_over_the_imagined_rolls_that_came_to_the_order(tmp_path):
    """Players' probe (dos): an air unit that had moved was "void with 3 of four imagined
    rolls", void by rule 14.12 whatever the dice; the fourth roll had stopped at a decision
    before the order and never came to it. An order is counted over the rolls that came to it,
    and the words say where the others stopped. Here red fires r1 twice in turn 3 while blue
    answers its hits itself (`absorb: ask`): two of the four imagined rolls hit and stop at
    blue's decision before the second shot."""
    from pbem.core.submit import submit_orders, void_words
    from tests.support.games import Match

    match = Match(tmp_path, "duel", key_seed="reach")
    match.send("red", [])
    match.send("blue", [], policies={"absorb": "ask"})
    for _ in range(2):
        match.send("red", [{"type": "end"}])
        match.send("blue", [{"type": "end"}])
    twice = [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r1", "target": "b2"}]
    tried = submit_orders(match.folders["red"], twice, None, key=match.keys["red"], sent="2026-11-29T10:00:00Z",
                          dry_run=True)
    assert tried.state["rules"]["turn"] == 3
    assert [w for w in tried.warnings if "imagined roll" in w] == [
        "with each of the two imagined rolls of the dice that came to it (of four: the other two stopped before it, "
        "at blue's decision 7.1/absorb), red order 2 of packet 7 (fire target=b2 unit=r1) is void: r1 has already "
        "fired this phase (D2)."]
    # the words, roll by roll: void with some of the rolls that came to it, and where the others stopped
    gone = "order 5 is void: b1 is gone (D2)."
    assert void_words([{5: gone}, {}, {5: gone}, {}],
                      reached=[({5}, ""), ({5}, ""), ({5}, ""), (set(), "at blue's decision 7.1/absorb")]) == [
        "with 2 of the three imagined rolls of the dice that came to it (of four: the other stopped before it, at "
        "blue's decision 7.1/absorb), order 5 is void: b1 is gone (D2)."]
    assert void_words([{5: gone}] * 4, reached=[({5}, "")] * 4) == void_words([{5: gone}] * 4)


def test_an_order_dropped_behind_a_void_one_is_not_counted_as_come_to(tmp_path, monkeypatch):
    """A review: an order dropped with an earlier void order (`on_void: stop`) was counted as
    a roll that left it legal ("with 1 of two imagined rolls"). Here b2 has 1 strength: where
    r1's shot kills it, r2's shot at it is void and red's order 3 is dropped; where r1 misses,
    order 3 (r1 firing again) is void. And an imagined play that fails is no roll at all."""
    from pbem.core import engine
    from pbem.core.submit import submit_orders, void_words
    from tests.support.games import Match

    units = {"r1": {"side": "red", "strength": 3}, "r2": {"side": "red", "strength": 2},
             "b1": {"side": "blue", "strength": 3}, "b2": {"side": "blue", "strength": 1}}
    match = Match(tmp_path, "duel", key_seed="drop", scenario_doc={"units": units}, options={"turns": 10})
    match.send("red", [])
    match.send("blue", [])
    for _ in range(2):
        match.send("red", [{"type": "end"}])
        match.send("blue", [{"type": "end"}])
    orders = [{"type": "fire", "unit": "r1", "target": "b2"}, {"type": "fire", "unit": "r2", "target": "b2"},
              {"type": "fire", "unit": "r1", "target": "b1"}]

    def warned() -> list[str]:
        tried = submit_orders(match.folders["red"], orders, None, key=match.keys["red"], sent="2026-11-29T10:00:00Z",
                              dry_run=True)
        return [w for w in tried.warnings if "imagined roll" in w]

    assert warned() == [
        "with each of the two imagined rolls of the dice that came to it (of four: the other two stopped before it, "
        "where order 2 of this packet was void and the orders after it were dropped), red order 3 of packet 7 (fire "
        "target=b1 unit=r1) is void: r1 has already fired this phase (D2)."]
    # the second imagined play fails: three rolls are counted, not four
    applied = engine.apply_packet

    def failing(game, *args, **kwargs):
        if game.genesis.get("sandbox", {}).get("seed") == "foresee-2":
            raise RuntimeError("an imagined play that fails")
        return applied(game, *args, **kwargs)

    monkeypatch.setattr(engine, "apply_packet", failing)
    [said] = warned()
    assert "(of three: " in said and "of four" not in said, said
    # one roll alone came to it
    gone = "order 5 is void: b1 is gone (D2)."
    assert void_words([{5: gone}, {}, {}], reached=[({5}, ""), (set(), "at blue's decision 7.1/absorb"),
                                                     (set(), "at blue's decision 7.1/absorb")]) == [
        "with the one imagined roll of the dice that came to it (of three: the other two stopped before it, at blue's "
        "decision 7.1/absorb), order 5 is void: b1 is gone (D2)."]


def test_submit_help_says_how_many_rolls_the_dry_run_imagines(run):
    """A new user's probe: `submit --help` spoke of two imagined rolls where the dry run makes
    up to four (and its warning says "with four different imagined rolls")."""
    from pbem.core.submit import IMAGINED, NUMBERS

    assert f"(up to {NUMBERS[IMAGINED]} rolls)" in " ".join(run("submit", "--help").output.split())


def test_submit_dry_run_shows_what_the_orders_would_do_and_writes_nothing(run, duel_game):
    """`--dry-run`: the report the packet would give and the warnings a submit gives, among
    them what its queued orders do with one imagined roll; nothing signed, written or sent,
    so the orders can be mended and sent as packet 3 with no second packet 3 anywhere."""
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    run("adjudicate", "blue-folder", "p1.yaml")
    run("submit", "blue-folder", "o.yaml", "--key", "keys/blue", "--out", "p2.yaml")
    run("adjudicate", "red-folder", "p2.yaml")
    before = {path: path.read_bytes() for path in sorted(Path("red-folder").rglob("*")) if path.is_file()}
    write("twice.yaml", "orders:\n  - {type: fire, unit: r1, target: b1}\n  - {type: fire, unit: r1, target: b2}\n")
    tried = run("submit", "red-folder", "twice.yaml", "--key", "keys/red", "--out", "p3.yaml", "--dry-run")
    assert "Packet 3 from red." in tried.output
    assert ("warning: with four different imagined rolls of the dice, red order 2 of packet 3 (fire target=b2 unit=r1) "
            "is void: r1 has already fired this phase (D2). It would most likely be void whatever the dice.") in tried.stderr
    assert tried.output.rstrip().endswith("dry run: twice.yaml is a legal packet 3; nothing was written or sent "
                                          "(the same command without --dry-run sends it)")
    after = {path: path.read_bytes() for path in sorted(Path("red-folder").rglob("*")) if path.is_file()}
    assert after == before and not Path("p3.yaml").exists()
    illegal = write("bad.yaml", "orders:\n  - {type: fire, unit: b1, target: r1}\n")
    result = run("submit", "red-folder", illegal, "--key", "keys/red", "--dry-run", code=1)
    assert "order 1 (fire target=r1 unit=b1) is illegal: b1 cannot fire for red (D1)" in result.stderr
    write("once.yaml", "orders:\n  - {type: fire, unit: r1, target: b1}\n")
    sent = run("submit", "red-folder", "once.yaml", "--key", "keys/red", "--out", "p3.yaml")
    assert "warning" not in sent.stderr and Path("p3.yaml").exists()
    run("adjudicate", "blue-folder", "p3.yaml")
    assert run("audit", "blue-folder").exit_code == 0


def test_submit_says_which_orders_wait_in_the_queue_for_a_later_turn(run, duel_game):
    """Orders sent while the game waits for the other side are kept and go off when the
    game next asks for them, however late: submit says so (a players' probe lost a turn to
    `end` orders written into the wrong packet)."""
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    run("adjudicate", "blue-folder", "p1.yaml")
    write("early.yaml", "orders:\n  - {type: fire, unit: b1, target: r1}\n  - {type: end}\n")
    result = run("submit", "blue-folder", "early.yaml", "--key", "keys/blue", "--dry-run")
    assert ("warning: orders 1 and 2 of packet 2 wait in the queue: the game now waits for red's orders (red's fire "
            "orders, turn 1), and they apply, in order, as the game next asks blue for orders, or for a decision the "
            "first of them answers, however late that is (an order it cannot take then is void); your opponent reads "
            "them in the packet; order 2 (end) ends the step it then meets, whichever that is") in result.stderr
    quiet = run("submit", "blue-folder", "o.yaml", "--key", "keys/blue", "--dry-run")
    assert "wait in the queue" not in quiet.stderr and "waits in the queue" not in quiet.stderr


def game_states(folder):
    return sorted(os.listdir(Path(folder) / "states"))


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed")
def test_a_passphrase_protected_ssh_keygen_key_signs_with_the_passphrase_from_the_environment(run, tmp_path, monkeypatch):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "sekrit", "-C", "red@table", "-f", "red"], check=True)
    run("keygen", "blue", "--dir", ".")
    result = run("new", "g", "--ruleset", "duel", "--side", "red=red.pub", "--side", "blue=blue.pub", "--key", "red",
                 code=4)
    assert "PBEM_PASSPHRASE" in result.stderr
    monkeypatch.setenv("PBEM_PASSPHRASE", "wrong")
    assert "passphrase" in run("new", "g", "--ruleset", "duel", "--side", "red=red.pub", "--side", "blue=blue.pub",
                               "--key", "red", code=4).stderr
    monkeypatch.setenv("PBEM_PASSPHRASE", "sekrit")
    handshake(run, red_key="red", blue_key="blue", red="g", blue="h")
    monkeypatch.delenv("PBEM_PASSPHRASE")
    write("o.yaml", "orders: []\n")
    assert "PBEM_PASSPHRASE" in run("submit", "g", "o.yaml", "--key", "red", code=4).stderr
    monkeypatch.setenv("PBEM_PASSPHRASE", "sekrit")
    run("submit", "g", "o.yaml", "--key", "red")
    assert json.loads(run("audit", "g", "--json").output)["signatures"] == 1


def test_the_passphrase_is_asked_once_at_a_terminal_with_one_colon(run, tmp_path, monkeypatch):
    """At a real terminal (a pseudo-terminal here, pbem's controlling one) a protected key's
    passphrase is asked for as "Passphrase for red: " (a review: "Passphrase for red: : "),
    and the packet is signed with it."""
    import fcntl
    import pty
    import termios

    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "sekrit", "-C", "red@table", "-f", "red"], check=True)
    run("keygen", "blue", "--dir", ".")
    monkeypatch.setenv("PBEM_PASSPHRASE", "sekrit")
    handshake(run, red_key="red", blue_key="blue", red="g", blue="h")
    monkeypatch.delenv("PBEM_PASSPHRASE")
    write("o.yaml", "orders: []\n")
    master, terminal = pty.openpty()

    def take_the_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    duel = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}); from pbem import rulesets; "
            f"rulesets.REGISTRY['duel'] = 'tests.support.duel'\n")
    pbem = subprocess.Popen([sys.executable, "-c", duel + ENTRY, "submit", "g", "o.yaml", "--key", "red"],
                            stdin=terminal, stdout=terminal, stderr=terminal, cwd=tmp_path, start_new_session=True,
                            preexec_fn=take_the_terminal)
    os.close(terminal)
    said = b""

    def read() -> bytes:
        try:
            return os.read(master, 1024)
        except OSError:        # the terminal is gone with pbem
            return b""

    while not said.rstrip().endswith(b":") and (chunk := read()):
        said += chunk
    os.write(master, b"sekrit\n")
    while chunk := read():
        said += chunk
    assert pbem.wait(timeout=60) == 0, said
    os.close(master)
    assert b"Passphrase for red: " in said and b": :" not in said, said
    assert json.loads(run("audit", "g", "--json").output)["signatures"] == 1


def test_the_handshake_refuses_steps_out_of_place(run, tmp_path):
    run("keygen", "red", "--dir", "keys")
    run("keygen", "blue", "--dir", "keys")
    run("keygen", "mallory", "--dir", "keys")
    run("new", "r", "--ruleset", "duel", "--side", "red=keys/red.pub", "--side", "blue=keys/blue.pub", "--key", "keys/red")
    assert "the handshake is not complete" in run("status", "r", code=4).stderr
    assert "your own proposal" in run("join", "r2", "r/proposal.yaml", "--key", "keys/red", code=2).stderr
    # in the proposer's own folder too, which holds the proposal: said so, not "already exists" (a players' probe)
    assert run("join", "r", "r/proposal.yaml", "--key", "keys/red", code=2).stderr == (
        "pbem: r/proposal.yaml is your own proposal; send it to your opponent, who joins it\n")
    assert "is not the key of any side" in run("join", "m", "r/proposal.yaml", "--key", "keys/mallory", code=3).stderr
    assert "join it with --key" in run("join", "b", "r/proposal.yaml", code=2).stderr
    assert "is not the key of any side given with --side" in run(
        "new", "x", "--ruleset", "duel", "--side", "red=keys/red.pub", "--side", "blue=keys/blue.pub",
        "--key", "keys/mallory", code=2).stderr
    run("join", "b", "r/proposal.yaml", "--key", "keys/blue")
    assert "already exists" in run("join", "b", "r/proposal.yaml", "--key", "keys/blue", code=4).stderr
    said = run("join", "r", "b/join.yaml", "--key", "keys/blue", code=3).stderr
    assert said.startswith("pbem: b/join.yaml: --key keys/blue: the key SHA256:") and "is not the proposer's (red's) " \
        "key; the proposer completes the game with the key it proposed with" in said   # the file named (a probe)
    tampered = load_mapping(Path("b/join.yaml"))
    tampered["options"] = {"turns": 1}
    Path("evil.yaml").write_text(__import__("pbem.core.canonical", fromlist=["dumps"]).dumps(tampered))
    red = keys.load_public_key_file("keys/red.pub").fingerprint()
    assert run("join", "r", "evil.yaml", "--key", "keys/red", code=3).stderr == (
        f"pbem: evil.yaml: its content does not match what red signed (red's proposal signature, key {red}): the "
        f"file was altered after red signed it, or the signature is not by red's key; use the file as it was sent, "
        f"unchanged\n")
    run("join", "r", "b/join.yaml", "--key", "keys/red")
    run("join", "b", "r/game.yaml")
    run("join", "spectator", "r/game.yaml")              # anyone can make a folder of a complete game
    assert json.loads(run("status", "spectator", "--json").output)["seq"] == 0


def test_adjudicate_refuses_a_key_of_no_side_before_writing_anything(run, duel_game):
    run("keygen", "mallory", "--dir", "keys")
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    before = sorted(str(p) for p in Path("blue-folder").rglob("*"))
    result = run("adjudicate", "blue-folder", "p1.yaml", "--key", "keys/mallory", code=3)
    assert result.stderr.startswith("pbem: --key keys/mallory: the key SHA256:") and result.stdout == "" \
        and "plays no side of this game; give the key you play it with" in result.stderr   # the file named (probe)
    assert sorted(str(p) for p in Path("blue-folder").rglob("*")) == before
    assert "PREVIEW (not written)" in run("adjudicate", "blue-folder", "p1.yaml", "--key", "keys/blue").output
    assert game_states("blue-folder") == ["0000.yaml", "0001.yaml"]


def test_a_preview_of_nothing_says_so_in_one_line(run, duel_game):
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    out = run("adjudicate", "blue-folder", "p1.yaml", "--key", "keys/blue").output
    preview = out[out.index("\nPREVIEW"):].strip("\n").split("\n")
    assert preview == ["PREVIEW (not written): your next packet's reveal unlocks nothing: no queued order or step "
                       "waits for its dice (docs/protocol.md §7, the resolution rule)."]


def test_a_sandbox_game_without_sides_is_told_the_sandbox_form(run):
    result = run("new", "sb", "--ruleset", "duel", "--sandbox", "--seed", "s", code=2)
    assert result.stderr == ("pbem: ruleset duel has sides red, blue; a sandbox game names each once with --side SIDE, "
                             "without a key: --side red --side blue\n")
    assert not Path("sb").exists()
    run("new", "sb", "--ruleset", "duel", "--sandbox", "--seed", "s", "--side", "red", "--side", "blue")


README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_sandbox_example_runs_as_written(run):
    import re
    import shlex

    [command] = re.findall(r"`(pbem new [^`]*--sandbox[^`]*)`", README.read_text(encoding="utf-8"))
    out = run(*shlex.split(command)[1:]).output
    assert out.startswith("created sandbox game ")
    game_dir = shlex.split(command)[2]
    assert out.split("\n")[1].startswith("first packet: from ") and out.endswith(
        f"); a sandbox game takes packets from any side (`pbem submit {game_dir} FILE --side SIDE`), and another "
        f"side's orders wait in the queue until the game reaches them\n")


def test_ci_runs_exactly_the_readmes_test_command():
    """The README's second command is the one `.ci/run` runs, word for word: what CI proves
    is what a new user's machine does."""
    import re

    blocks = re.findall(r"```sh\n(.*?)\n```", README.read_text(encoding="utf-8"), re.S)
    tests = [block for block in blocks[:2] if "pytest" in block]
    assert len(tests) == 1 and "pbem demo" in blocks[0]
    script = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert script[-1] == tests[0]


def test_the_joiner_sees_an_embedded_scenario_and_its_differences_the_options_and_the_chains(run, tmp_path):
    """A proposer may embed a scenario with the id of the bundled one and change it, or choose
    options: the joiner's `pbem join` shows what he agrees to before he sends his join, and
    the proposer's completion shows a chain shorter than pbem's default."""
    from pbem import rulesets
    from pbem.core.canonical import dumps

    alice = run("keygen", "alice", "--dir", "keys").output.split("fingerprint ")[1].split()[0]
    bob = run("keygen", "bob", "--dir", "keys").output.split("fingerprint ")[1].split()[0]
    rigged = rulesets.get("stalingrad").scenarios["city-1942"]()
    rigged["tactical_cards"] = dict(rigged["tactical_cards"], soviet=0)
    rigged["victory"] = dict(rigged["victory"], german_victory=1)
    Path("city-1942.yaml").write_text(dumps(rigged))
    run("new", "a", "--ruleset", "stalingrad", "--scenario", "./city-1942.yaml", "--side", "german=keys/alice.pub",
        "--side", "soviet=keys/bob.pub", "--key", "keys/alice")
    out = run("join", "b", "a/proposal.yaml", "--key", "keys/bob", "--chain-length", "100").output
    assert ("Scenario EMBEDDED by the proposer, with the id of the bundled scenario city-1942, but 2 fields differ, "
            "in tactical_cards, victory: tactical_cards.soviet (bundled 4, here 0), victory.german_victory (bundled 4, "
            "here 1).") in out
    assert "Options: all at their defaults." in out and "Dice chains: german 4096 values, soviet 100 values." in out
    # the joiner sees whose keys he plays against, as `pbem keygen` printed them
    assert f"Keys: german {alice}, soviet {bob}; a player checks his opponent's fingerprint with him" in out
    assert "if you do not agree, do not send it" in out
    out = run("join", "a", "b/join.yaml", "--key", "keys/alice").output
    assert ("Note: soviet's dice chain has only 100 values, fewer than pbem's default 4096: soviet's pbem announces "
            "a next chain before it runs out, and without one the game stops when soviet has sent 100 packets") in out

    run("new", "c", "--ruleset", "chir", "--option", "line_never_cut=true", "--side", "german=keys/alice.pub",
        "--side", "soviet=keys/bob.pub", "--key", "keys/alice")
    out = run("join", "d", "c/proposal.yaml", "--key", "keys/bob").output
    assert "Scenario historical, as bundled with pbem." in out
    assert "Options: line_never_cut = true (default false)." in out and "Note:" not in out


def test_a_joiner_sees_how_many_fields_differ_and_every_section_however_many_there_are(run, tmp_path):
    """Cosmetic changes in front cannot push the one that matters out of the account a joiner
    reads: it counts every differing field and names every section holding one."""
    from pbem import rulesets
    from pbem.core.canonical import dumps

    run("keygen", "alice", "--dir", "keys")
    run("keygen", "bob", "--dir", "keys")
    rigged = rulesets.get("stalingrad").scenarios["city-1942"]()
    rigged["areas"] = [dict(area, name=area["name"] + " ") if n < 9 else area for n, area in enumerate(rigged["areas"])]
    rigged["victory"] = dict(rigged["victory"], german_victory=1)
    Path("rigged.yaml").write_text(dumps(rigged))
    run("new", "a", "--ruleset", "stalingrad", "--scenario", "./rigged.yaml", "--side", "german=keys/alice.pub",
        "--side", "soviet=keys/bob.pub", "--key", "keys/alice")
    out = run("join", "b", "a/proposal.yaml", "--key", "keys/bob").output
    assert ('but 10 fields differ, in areas, victory: areas[0].name (bundled "Tractor Factory (STZ)", here "Tractor '
            'Factory (STZ) "), areas[1].name (bundled "Dzerzhinsky Square", here "Dzerzhinsky Square "),') in out
    assert "areas[4].name, areas[5].name" in out and "and 2 more." in out   # a value too long for a line: its path


def test_an_embedded_scenarios_fields_added_left_out_and_changed_are_told_apart():
    """A field the proposer added or left out is said so; a string field set to "(absent)",
    the word a diff once used for a missing field, is a changed value (a review)."""
    from pbem import rulesets
    from pbem.core.describe import scenario_terms

    document = rulesets.get("chir").scenarios["historical"]()
    document["house"] = 1
    document["victory"]["turns_source"] = "(absent)"
    del document["victory"]["winner"]
    terms = scenario_terms({"ruleset": "chir", "scenario": {"document": document}})
    assert terms["text"].endswith(', the closest, 3 fields differ, in house, victory: house (added), victory.turns_source (bundled '
                                  '"4.0", here "(absent)"), victory.winner (left out).')
    assert terms["fields"][0] == {"field": "house", "embedded": 1} and "embedded" not in terms["fields"][2]


def test_a_scenario_embedded_without_an_id_is_compared_with_the_closest_bundled_one(run, tmp_path):
    """A proposer who changes one table of a bundled scenario and leaves out its id is found out
    all the same: the joiner, `pbem status` and the audit's verdict name the bundled scenario it
    is closest to and each field that differs, with its values (a cheater's probe: chir, dos and
    kkoh bundle scenarios without an id, and the joiner read only "not one bundled with pbem,
    None", the status said nothing, and the audit passed without a word)."""
    from pbem import rulesets
    from pbem.core.canonical import dumps

    run("keygen", "alice", "--dir", "keys")
    run("keygen", "bob", "--dir", "keys")
    rigged = rulesets.get("chir").scenarios["historical"]()
    assert "id" not in rigged
    was = rigged["crt"]["results"]["1-2"]
    rigged["crt"]["results"]["1-2"] = ["3-2"] + was[1:]
    Path("rigged.yaml").write_text(dumps(rigged))
    run("new", "a", "--ruleset", "chir", "--scenario", "./rigged.yaml", "--side", "german=keys/alice.pub",
        "--side", "soviet=keys/bob.pub", "--key", "keys/alice")
    said = ("Scenario EMBEDDED by the proposer, without an id, not one bundled with pbem: against the bundled scenario "
            f'historical, the closest, 1 field differs, in crt: crt.results.1-2[0] (bundled "{was[0]}", here "3-2").')
    out = run("join", "b", "a/proposal.yaml", "--key", "keys/bob").output
    assert f"  {said} Read it in the proposal before you join.\n" in out
    run("join", "a", "b/join.yaml", "--key", "keys/alice")
    assert run("status", "a").output.splitlines()[1] == said
    audit = run("audit", "a").output.splitlines()
    assert audit[0].startswith("audit OK: secure game") and audit[2] == f"The rules followed are those of the scenario " \
        f"in game.yaml. {said}"
    # the ruleset and options, without the scenario, said on the line above
    assert audit[1] == (f"Ruleset chir {rulesets.get('chir').version}: 48th Panzer Korps: Battles on the River Chir. "
                        f"Options: all at their defaults.")
    data = json.loads(run("audit", "a", "--json").output)
    assert data["scenario"]["compared_with"] == "historical" and data["scenario"]["fields"] == [
        {"field": "crt.results.1-2[0]", "bundled": was[0], "embedded": "3-2"}]
    # the same content as a bundled scenario, or the bundled one by name: said as it is
    Path("same.yaml").write_text(dumps(rulesets.get("chir").scenarios["historical"]()))
    run("new", "c", "--ruleset", "chir", "--scenario", "./same.yaml", "--side", "german=keys/alice.pub",
        "--side", "soviet=keys/bob.pub", "--key", "keys/alice")
    out = run("join", "d", "c/proposal.yaml", "--key", "keys/bob").output
    assert ("Scenario EMBEDDED by the proposer, without an id, not one bundled with pbem: the same content as the "
            "bundled scenario historical.\n") in out
    run("join", "c", "d/join.yaml", "--key", "keys/alice")
    verdict = run("audit", "c").output   # the same rules: the terms line says so, and no line of differences
    assert "The rules followed are" not in verdict and "the same content as the bundled scenario historical." in verdict


def test_a_sandbox_game_yaml_is_refused_in_a_folder_of_a_handshake(run, tmp_path):
    """The joiner of a secure proposal who is sent back a sandbox game.yaml (unsigned, dice the
    proposer chose) is told it is not the game he joined; with --key the refusal says so too."""
    run("keygen", "alice", "--dir", "keys")
    run("keygen", "bob", "--dir", "keys")
    run("new", "a", "--ruleset", "stalingrad", "--side", "german=keys/alice.pub", "--side", "soviet=keys/bob.pub",
        "--key", "keys/alice")
    run("join", "b", "a/proposal.yaml", "--key", "keys/bob")
    run("new", "s", "--ruleset", "stalingrad", "--side", "german", "--side", "soviet", "--sandbox", "--seed", "x")
    refused = run("join", "b", "s/game.yaml", code=3).stderr
    assert "s/game.yaml is a sandbox game (unsigned packets, dice not fair), not the secure game of the handshake in " \
           "b (join.yaml)" in refused
    assert not Path("b", "game.yaml").exists()
    refused = run("join", "c", "s/game.yaml", "--key", "keys/bob", code=2).stderr
    assert "if you expected the secure game you proposed or joined, this is not it" in refused


def test_a_proposal_the_ruleset_cannot_set_up_is_refused_when_proposed_and_when_joined(run, tmp_path):
    """An embedded scenario the ruleset cannot set up, or an option it does not know, is
    refused by `pbem new` before anything is written, and by the joiner's `pbem join` of a
    proposal made without pbem's check, before the joiner signs anything: it used to surface
    only when the game was completed."""
    from pbem import rulesets
    from pbem.core import genesis, keys
    from pbem.core.canonical import dumps

    run("keygen", "alice", "--dir", "keys")
    run("keygen", "bob", "--dir", "keys")

    def crafted_join(folder: str, ruleset: str, code: int, **fields) -> str:
        """Bob's `pbem join` of a proposal Alice made without pbem's check: refused with `code`."""
        crafted = genesis.propose(rulesets.get(ruleset), {"german": keys.load_public_key_file("keys/alice.pub"),
                                                          "soviet": keys.load_public_key_file("keys/bob.pub")},
                                  keys.load_private_key(Path("keys/alice")), created="x", **fields)
        Path(f"crafted-{folder}.yaml").write_text(dumps(crafted))
        return run("join", folder, f"crafted-{folder}.yaml", "--key", "keys/bob", code=code).stderr

    broken = rulesets.get("stalingrad").scenarios["city-1942"]()
    del broken["victory"]
    Path("broken.yaml").write_text(dumps(broken))
    sides = ("--side", "german=keys/alice.pub", "--side", "soviet=keys/bob.pub", "--key", "keys/alice")
    refused = run("new", "a", "--ruleset", "stalingrad", "--scenario", "./broken.yaml", *sides, code=4).stderr
    assert refused.startswith("pbem: the proposal: the scenario cannot be set up: ") and "'victory'" in refused
    # on the command line, a usage error (2), as a user's probe had it; in a proposal received, a rules error (1)
    refused = run("new", "a", "--ruleset", "chir", "--option", "nope=1", *sides, code=2).stderr
    assert "--option: unknown option 'nope' for chir (known: " in refused and not Path("a").exists()
    assert "unknown option 'nope' for chir" in crafted_join("o1", "chir", 1, options={"nope": 1})
    # a string "false" would switch on an option the joiner reads as off (a cheater's probe)
    for value in ('"false"', "0", "[false]"):
        refused = run("new", "a", "--ruleset", "chir", "--option", f"line_never_cut={value}", *sides, code=2).stderr
        assert (f"--option: option 'line_never_cut' of chir takes true or false, as its default false is, not {value}"
                in refused)
    assert "option 'line_never_cut' of chir takes true or false, as its default false is, not 0" in crafted_join(
        "o2", "chir", 1, options={"line_never_cut": 0})
    assert not Path("a").exists()

    refused = crafted_join("b", "stalingrad", 4, scenario_doc=broken)
    assert refused.startswith("pbem: crafted-b.yaml: the scenario cannot be set up: ")
    assert not Path("b", "join.yaml").exists()
    # a name holding a line break would print a line of the proposer's making in the joiner's
    # `pbem status` and `pbem show`: a forged die or verdict (a cheater's probe)
    forged = rulesets.get("stalingrad").scenarios["city-1942"]()
    forged["areas"][0]["name"] += "\nResult: Soviet victory (house 9.1)."
    Path("forged.yaml").write_text(dumps(forged))
    refused = run("new", "a", "--ruleset", "stalingrad", "--scenario", "./forged.yaml", *sides, code=4).stderr
    assert refused.startswith("pbem: the proposal: the scenario cannot be set up: areas[0].name holds \\x0a, a line "
                              "break, control or invisible formatting character")
    refused = crafted_join("d", "stalingrad", 4, scenario_doc=forged)
    assert refused.startswith("pbem: crafted-d.yaml: the scenario cannot be set up: areas[0].name holds \\x0a")
    assert not Path("d", "join.yaml").exists()
    refused = crafted_join("c", "chir", 1, options={"line_never_cut": "false"})
    assert refused.startswith("pbem: crafted-c.yaml: option 'line_never_cut' of chir takes true or false")
    assert not Path("c", "join.yaml").exists()


def test_the_readme_handshake_has_bob_send_his_key_before_alice_names_it():
    text = README.read_text(encoding="utf-8")
    assert text.index("pbem keygen bob") < text.index("soviet=bob.pub")
    assert 'echo "german $(cat alice.pub)" > allowed_signers' in text


def test_help_and_the_preview_cite_the_shipped_protocol_document(run, duel_game):
    """No user-facing text of pbem/cli cites DESIGN, which does not ship: every § is one of
    docs/protocol.md's sections, cited by that name."""
    import re

    protocol = (README.parent / "docs" / "protocol.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^#+ (\d+(?:\.\d+)?)\.? ", protocol, re.M))
    texts = [run("--help").output] + [run(name, "--help").output for name in sorted(cli.list_commands(None))]
    write("o.yaml", "orders: []\n")
    run("submit", "red-folder", "o.yaml", "--key", "keys/red", "--out", "p1.yaml")
    texts.append(run("adjudicate", "blue-folder", "p1.yaml", "--key", "keys/blue").output)
    for text in texts:
        assert "DESIGN" not in text
        cited = re.findall(r"(\S+) §(\d+(?:\.\d+)?)", text)
        assert len(cited) == text.count("§"), text
        for document, section in cited:
            assert document.lstrip("(") == "docs/protocol.md" and section in headings, (document, section)


# --- the plain command lines answered without click (pbem/entry.py) ----------------------

ENTRY = ("import sys; sys.argv = ['pbem'] + sys.argv[1:]; from pbem.entry import main\n"
         "try:\n    main()\nfinally:\n    sys.stderr.write('|click imported: %s' % ('click' in sys.modules))")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo"


def _both_ways(args, tmp_path, cut=2, env=None):
    """`pbem ARGS` through pbem.entry and through click (`python -m pbem.cli`), each in a
    fresh copy of the example game cut before state `cut` (its packet is packet.yaml): what
    each printed, its exit code, whether entry imported click, and the bytes of every file
    of the folder after it."""
    outcomes = []
    for way in ("entry", "click"):
        folder = tmp_path / way / "game"
        shutil.copytree(EXAMPLE, folder)
        for sub in ("states", "aar", "packets"):
            for path in (folder / sub).iterdir():
                if int(path.name[:4]) >= cut:
                    if sub == "packets" and path.name.startswith(f"{cut:04d}-"):
                        shutil.copy(path, tmp_path / way / "packet.yaml")
                    path.unlink()
        command = ([sys.executable, "-c", ENTRY] if way == "entry" else [sys.executable, "-m", "pbem.cli"])
        done = subprocess.run(command + args, capture_output=True, cwd=tmp_path / way, env=env)
        done.stdout, done.stderr = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
        stderr, _, clicked = done.stderr.rpartition("|click imported: ") if way == "entry" else (done.stderr, "", "")
        files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        outcomes.append((done.stdout, stderr, done.returncode, files, clicked))
    return outcomes


@pytest.mark.parametrize("args, code, plain", [
    (["adjudicate", "game", "packet.yaml"], 0, True),
    (["audit", "game"], 0, True),
    (["adjudicate", "game", "missing.yaml"], 4, True),
    (["adjudicate", "nowhere", "packet.yaml"], 4, True),
    (["audit", "nowhere"], 4, True),                    # no game folder: a wrong path (§5), not a failed audit
    (["adjudicate", "game", "game"], 2, False),          # a directory for PACKET_FILE: click explains
    (["audit", "packet.yaml"], 2, False),                # a file for GAME_DIR: click explains
    (["adjudicate", "game", "packet.yaml", "--format", "md"], 0, False),
    (["audit", "game", "--json"], 0, False),
    (["audit", "game", "extra"], 2, False),
    (["status", "game"], 0, True),
    (["status", "nowhere"], 4, True),
    (["status", "packet.yaml"], 2, False),               # a file for GAME_DIR: click explains
    (["status", "game", "--json"], 0, False),
    (["show", "game"], 0, True),
    (["show", "nowhere"], 4, True),
    (["show", "packet.yaml"], 2, False),                 # a file for GAME_DIR: click explains
    (["show", "game", "--state", "0"], 0, False),
])
def test_plain_command_lines_run_without_click_and_do_what_click_does(args, code, plain, tmp_path):
    (entry_out, entry_err, entry_code, entry_files, clicked), (out, err, click_code, files, _) = _both_ways(args, tmp_path)
    assert (entry_code, click_code) == (code, code), entry_err + err
    assert (entry_out, entry_err) == (out, err)
    assert entry_files == files
    assert clicked == str(not plain)
    if args[0] == "adjudicate" and code == 0:
        assert "states/0002.yaml" in files and "aar/0002.md" in files
        assert out.startswith("Stalingrad") or "packet 2" in out
    if args[0] == "status" and code == 0:
        assert ", state 1." in out.split("\n")[0] if args == ["status", "game"] else '"text": [' in out, out
    if args[0] == "show" and code == 0:
        assert out.startswith("Stalingrad") and "Turn 1" in out, out


def test_a_terminal_set_to_ascii_gets_the_same_utf8_bytes_both_ways(tmp_path):
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    cut = next(n for n in range(2, 60)   # a packet whose report has letters beyond ASCII
               if any(ord(char) > 127 for char in (EXAMPLE / "aar" / f"{n:04d}.md").read_text(encoding="utf-8")))
    (out, err, code, files, clicked), (click_out, click_err, click_code, click_files, _) = _both_ways(
        ["adjudicate", "game", "packet.yaml"], tmp_path, cut=cut, env=env)
    assert code == click_code == 0 and clicked == "False", err + click_err
    assert any(ord(char) > 127 for char in out)   # the report printed has them too
    assert (out, err, files) == (click_out, click_err, click_files)


def test_a_tampered_game_fails_its_audit_the_same_way_both_ways(tmp_path):
    outcomes = []
    for way in ("entry", "click"):
        folder = tmp_path / way
        shutil.copytree(EXAMPLE, folder)
        report = folder / "aar" / "0003.md"
        report.write_text(report.read_text() + "- An extra line.\n")
        command = ([sys.executable, "-c", ENTRY] if way == "entry" else [sys.executable, "-m", "pbem.cli"])
        done = subprocess.run(command + ["audit", str(folder)], capture_output=True, text=True)
        outcomes.append((done.returncode, done.stdout, done.stderr.split("|click imported: ")[0].replace(way, "X")))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == 3 and outcomes[0][2].startswith("pbem: audit failed:")


@pytest.mark.parametrize("args, code", [
    (["audit", "game"], 0), (["audit", "game", "--json"], 0), (["status", "game"], 0), (["--help"], 0),
    (["audit", "tampered"], 3), (["adjudicate", "game", "packet.yaml"], 0)])
def test_a_reader_that_closes_the_pipe_leaves_the_commands_own_exit_code(args, code, tmp_path):
    """`pbem audit GAME | head -1`: once the reader has closed standard output, the rest of
    the output is dropped and the command exits with its own code, an audit's verdict too (a
    review: a clean audit exited 1, the code of illegal orders and rules errors, DESIGN §5),
    through the plain commands and click alike, and an adjudicate still writes its state."""
    shutil.copytree(EXAMPLE, tmp_path / "tampered")
    report = tmp_path / "tampered" / "aar" / "0003.md"
    report.write_text(report.read_text() + "- An extra line.\n")
    shutil.copytree(EXAMPLE, tmp_path / "game")
    last = max(int(path.name[:4]) for path in (tmp_path / "game" / "packets").iterdir())
    for sub in ("states", "aar", "packets"):
        for path in (tmp_path / "game" / sub).iterdir():
            if int(path.name[:4]) == last:
                if sub == "packets":
                    shutil.copy(path, tmp_path / "packet.yaml")
                path.unlink()
    read, write = os.pipe()
    os.close(read)                  # the reader is gone before pbem writes a byte
    try:
        done = subprocess.run([sys.executable, "-c", ENTRY] + args, stdout=write, stderr=subprocess.PIPE, cwd=tmp_path)
    finally:
        os.close(write)
    stderr = done.stderr.decode().split("|click imported: ")[0]
    assert done.returncode == code, stderr
    assert ("audit failed" in stderr) == (code == 3) and "Error" not in stderr and "Exception" not in stderr, stderr
    if args[0] == "adjudicate":
        assert (tmp_path / "game" / "states" / f"{last:04d}.yaml").read_bytes() == \
            (EXAMPLE / "states" / f"{last:04d}.yaml").read_bytes()


def test_a_packet_received_twice_is_told_apart_from_ones_own_by_the_key_given(tmp_path):
    """The latest packet given again: with `--key`, its sender is told to send it on, and his
    opponent, who received it twice, that there is nothing more to do with the file, and that
    the next packet is his (a players' probe: the receiver was told to send it on, as if he had
    written it; a review: "nothing to do" read as "no reply needed"); both still exit 3, a re-send."""
    from pbem.core import game
    from pbem.core.errors import VerificationError
    from tests.support.games import Match

    match = Match(tmp_path, "duel", key_seed="twice")
    sender = match.state()["awaiting"]["packet_from"]
    other = next(side for side in match.ruleset.sides if side != sender)
    applied = match.send(sender, [{"type": "end"}])
    data = applied.packet_path.read_bytes()
    packet = game.read_packet(applied.packet_path, "the packet")[0]
    said = {}
    for reader in (sender, other, None):
        folder = game.open_folder(match.folders[other].path)
        with pytest.raises(VerificationError) as refused:
            game.adjudicate(folder, packet, data, "mail.yaml", match.keys[reader] if reader else None)
        said[reader] = str(refused.value).split("re-sending it changes nothing", 1)[1]
    assert said == {
        sender: " (your folder applied it when `pbem submit` wrote it: send the file to your opponent)",
        other: f" (it is {sender}'s latest packet, which your folder applied when it came: nothing more to do with "
               f"this file; the next packet is yours)",
        None: f" (if it is the packet you sent as {sender}, your folder applied it when `pbem submit` wrote it: send "
              f"the file to your opponent)"}


def test_an_onlooker_applies_a_threads_packets_at_once_and_later_only_the_new_ones(run, tmp_path):
    """`pbem adjudicate FOLDER P1 P2 ...` applies the packets in order, each printing its
    report; given them all again with newer ones, it skips those applied already with a line
    and applies the rest; the first that fails stops it, says so, and keeps the packets
    before it applied (an onlooker's wish: one command per packet to catch up on a thread)."""
    from pbem.core import game

    packets = [path for _, path in game.packet_files(EXAMPLE)]
    run("join", "follow", EXAMPLE / "game.yaml")
    out = run("adjudicate", "follow", *packets[:3]).output
    assert out.count("after-action report, packet ") == 3 and "packet 3\n" in out.split("after-action report, ")[3]
    out = run("adjudicate", "follow", *packets[:5]).output
    assert out.startswith(f"{packets[0]}: packet 1 was applied already; skipped.\n{packets[1]}: packet 2 was applied "
                          f"already; skipped.\n{packets[2]}: packet 3 was applied already; skipped.\n")
    assert out.count("after-action report, packet ") == 2
    assert json.loads(run("status", "follow", "--json").output)["seq"] == 5
    for seq in range(6):
        name = f"states/{seq:04d}.yaml"
        assert (tmp_path / "follow" / name).read_bytes() == (EXAMPLE / name).read_bytes(), name
    # a gap stops it after what came before: packet 8 without packet 7
    failed = run("adjudicate", "follow", packets[5], packets[7], code=3).stderr
    assert failed.startswith(f"pbem: {packets[7]}: packet seq 8 skips ahead") and \
        failed.rstrip().endswith("(the 1 packet before it in seq order was applied)")
    assert json.loads(run("status", "follow", "--json").output)["seq"] == 6
    # one packet given alone, applied already: refused as before (exit 3), a re-send; the latest
    # one is most often the sender's own, about to be emailed (a new user's probe)
    assert run("adjudicate", "follow", packets[0], code=3).stderr.rstrip().endswith(
        "packet 1 was already applied (packets/0001-german.yaml); re-sending it changes nothing")
    assert run("adjudicate", "follow", packets[5], code=3).stderr.rstrip().endswith(
        "packet 6 was already applied (packets/0006-soviet.yaml); re-sending it changes nothing (if it is the packet "
        "you sent as soviet, your folder applied it when `pbem submit` wrote it: send the file to your opponent)")
    # fork evidence kept beside a packet in a game folder's packets/, which `packets/*.yaml` lists
    # before it: skipped, never applied (elsewhere a file is read as a packet, whatever its name)
    evidence = tmp_path / "follow" / "packets" / "0007-soviet.alt.yaml"
    shutil.copy(packets[0], evidence)
    out = run("adjudicate", "follow", evidence, packets[6]).output
    assert out.startswith(f"{evidence}: fork evidence (a second packet of one seq), not a packet to apply; skipped.\n")
    assert json.loads(run("status", "follow", "--json").output)["seq"] == 7
    # a key of no side is refused before any packet is applied
    run("keygen", "stranger", "--dir", "keys")
    refused = run("adjudicate", "follow", packets[7], packets[8], "--key", "keys/stranger", code=3).stderr
    assert "--key keys/stranger: the key SHA256:" in refused and "plays no side of this game" in refused
    assert json.loads(run("status", "follow", "--json").output)["seq"] == 7
    # attachments saved under names that sort otherwise than their seqs (to-alice-10 before
    # to-bob-9): applied in seq order, each packet saying its own (a new user's probe)
    Path("thread").mkdir()
    shutil.copy(packets[8], "thread/to-alice-10.yaml")
    shutil.copy(packets[7], "thread/to-bob-9.yaml")
    out = run("adjudicate", "follow", "thread/to-alice-10.yaml", "thread/to-bob-9.yaml").output
    assert [line.rsplit(", ", 1)[1] for line in out.splitlines() if "after-action report, packet" in line] == [
        "packet 8", "packet 9"]
    assert json.loads(run("status", "follow", "--json").output)["seq"] == 9


def test_a_spectator_follows_and_audits_a_game_from_its_genesis_and_packets_alone(run, tmp_path):
    """What a forum thread carries is game.yaml and the packets: `pbem join` makes a folder
    of a sandbox game.yaml as of a secure one, the packets adjudicated into it give the
    players' very states, and audit replays a folder of the genesis and packets alone, saying
    that it had no stored record to compare; an altered packet still fails it."""
    from pbem.core import bot, game
    from tests.support.games import sandbox

    played = sandbox(tmp_path / "played", "stalingrad", seed="thread")
    choose = bot.chooser("thread")
    for _ in range(8):
        sender = played.state["awaiting"]["packet_from"]
        orders = bot.plan(played.game, played.state, sender, choose)[:1]   # one order: the dice are not foreseen
        packet = game.build_packet(played.game, played.state, sender, orders, None, None, "")
        game.adjudicate(played, packet, game.packet_yaml(packet).encode(), "bot")
    thread = tmp_path / "thread"
    (thread / "packets").mkdir(parents=True)
    shutil.copy(played.path / "game.yaml", thread / "game.yaml")
    for _, path in game.packet_files(played.path):
        shutil.copy(path, thread / "packets" / path.name)

    out = run("join", "spectator", thread / "game.yaml").output
    assert "is ready in spectator: a sandbox game, with no keys or chains to check." in out
    assert "A sandbox game: unsigned packets, dice from the plain seed 'thread', not fair dice." in out
    for _, path in game.packet_files(thread):
        run("adjudicate", "spectator", path)
    for seq in range(9):
        name = f"states/{seq:04d}.yaml"
        assert (tmp_path / "spectator" / name).read_bytes() == (played.path / name).read_bytes(), name

    out = run("audit", thread).output
    assert "audit OK: sandbox game " + played.game.game_id + ", 8 packets, 0 signatures, 0 reveals" in out
    # a referee reading the verdict is told what a clean sandbox game does not prove
    assert out.rstrip().endswith("so this shows the rules were followed, not who sent the packets nor that the "
                                 "dice were fair.")
    assert "the folder holds the genesis and packets only, so every state was recomputed from them" in out
    assert json.loads(run("audit", thread, "--json").output)["record"] is False
    assert json.loads(run("audit", thread, "--json").output)["mode"] == "sandbox"
    assert json.loads(run("status", tmp_path / "spectator", "--json").output)["chains"] is None
    assert json.loads(run("audit", played.path, "--json").output)["record"] is True
    third = thread / "packets" / game.packet_files(thread, 3)[0][1].name
    packet = load_mapping(third)
    packet["orders"] = []
    third.write_text(game.packet_yaml(packet))
    failed = run("audit", thread, code=3).stderr
    assert "packets/0004-" in failed and "prev" in failed

    secure = tmp_path / "secure"
    (secure / "packets").mkdir(parents=True)
    shutil.copy(EXAMPLE / "game.yaml", secure / "game.yaml")
    for _, path in game.packet_files(EXAMPLE):
        shutil.copy(path, secure / "packets" / path.name)
    out = run("audit", secure).output
    assert out.startswith("audit OK: secure game ") and "the folder holds the genesis and packets only" in out
    verdict = json.loads(run("audit", secure, "--json").output)
    assert "sandbox" not in out and verdict["mode"] == "secure"
    # what a clean secure game proves, and whose keys it was: the fingerprints the genesis names
    sides = load_mapping(secure / "game.yaml")["sides"]
    assert verdict["keys"] == {side["name"]: side["fingerprint"] for side in sides} and len(verdict["keys"]) == 2
    keys = ", ".join(f"{side['name']} {side['fingerprint']}" for side in sides)
    assert f"A secure game: every packet was signed by its side's key ({keys}: check them against the players')" in out
    assert "no side could choose a die nor act on one it could foresee" in out
    (secure / "states").mkdir()
    assert "states/0000.yaml: the state file is missing" in run("audit", secure, code=3).stderr
    (secure / "states").rmdir()
    (secure / "aar").mkdir()            # a record half removed is still a record: compared, and found missing
    assert "states/0000.yaml: the state file is missing" in run("audit", secure, code=3).stderr


@pytest.mark.parametrize("args", [["adjudicate", "game", "packet.yaml"], ["audit", "game"], ["status", "game"],
                                  ["show", "game"]])
def test_click_reads_a_plain_command_line_as_the_plain_function_is_called(args):
    import inspect

    from pbem.cli import plain
    from pbem.cli.group import cli

    params = cli.get_command(None, args[0]).make_context(args[0], args[1:]).params
    bound = inspect.signature(getattr(plain, args[0])).bind(*args[1:])
    bound.apply_defaults()
    assert {name: bound.arguments[name] for name in params} == params


@functools.cache
def example_audit(name: str, *args: str) -> str:
    """What `pbem audit examples/NAME-demo ARGS` prints (it exits 0), the command run once in
    each process of the suite for each: the verdict tests below only read it."""
    result = CliRunner().invoke(cli, ["audit", str(Path(__file__).resolve().parents[1] / "examples" / f"{name}-demo"),
                                      *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output + result.stderr
    return result.output


def test_the_audit_verdict_says_where_a_game_not_over_stands(run):
    """A folder cut short audits clean (a player can always withhold a packet); its verdict
    says the game is not over and what it awaits, as `pbem status` does, and a finished game's
    result ends with one full stop (referee's probe: 'truncated' and 'finished' read alike)."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    going = example_audit("chir").splitlines()
    awaited = next(line for line in run("status", examples / "chir-demo").output.splitlines()
                   if line.startswith("Awaited:"))
    assert going[2] == f"The game is not over at its final state. {awaited}"
    assert json.loads(example_audit("chir", "--json"))["awaited"] == awaited
    over = example_audit("stalingrad").splitlines()
    assert over[0].endswith("(house 9.1).") and not over[0].endswith("..") and "not over" not in over[2]
    assert json.loads(example_audit("stalingrad", "--json"))["awaited"] is None


def test_a_missing_state_0_is_said_to_be_removed_not_a_packet_unapplied(run, tmp_path):
    """An audit fuzzer's find: with states/ removed, audit said the packets "from packet 0 on"
    were not applied, where no packet makes state 0."""
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo", tmp_path / "g")
    (tmp_path / "g" / "states" / "0000.yaml").unlink()
    said = ("pbem: audit failed: states/0000.yaml: the state file is missing: state 0 is made from game.yaml when the "
            "folder is made, not from a packet, so it was removed")
    assert run("audit", "g", code=3).stderr.startswith(said + " (a folder that keeps neither")
    shutil.rmtree(tmp_path / "g" / "states")
    assert run("audit", "g", code=3).stderr.startswith(said + ", with the whole states/ folder (")
    shutil.rmtree(tmp_path / "g" / "aar")
    assert run("audit", "g").stdout.startswith("audit OK")


def test_a_report_is_compared_as_text_whatever_its_line_breaks_and_only_as_utf_8(run, tmp_path):
    """An audit fuzzer's finds: a report with CR line breaks or a byte order mark, which the YAML
    files of a folder may have (docs/protocol.md A.1), failed its audit; a report whose bytes
    were no UTF-8 where the replay's held U+FFFD audited clean (it was read with replacement)."""
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo", tmp_path / "g")
    report = tmp_path / "g" / "aar" / "0003.md"
    text = report.read_bytes()
    for damaged in (text.replace(b"\n", b"\r"), b"\xef\xbb\xbf" + text, text.replace(b"\n", b"\r\n")):
        report.write_bytes(damaged)
        assert run("audit", "g").stdout.startswith("audit OK")
    report.write_bytes(text.replace(b"\n", b"\n\xff", 1))
    assert run("audit", "g", code=3).stderr.startswith("pbem: audit failed: aar/0003.md: the report is not UTF-8 (byte ")


def test_the_audit_verdict_names_the_rules_the_game_was_played_under():
    """A new user's probe: a referee's verdict named neither the ruleset nor its version nor
    the options; its second line says them as the handshake did, and --json holds them."""
    from pbem import rulesets

    for name in ("chir", "dos", "kkoh", "stalingrad"):
        ruleset = rulesets.get(name)
        lines = example_audit(name).splitlines()
        assert lines[1] == (f"Ruleset {name} {ruleset.version}: {ruleset.title}. Scenario {ruleset.default_scenario}, "
                            f"as bundled with pbem. Options: all at their defaults.")
        found = json.loads(example_audit(name, "--json"))
        assert (found["ruleset"], found["options"]) == ({"id": name, "version": ruleset.version}, {})


def test_the_joiner_with_his_key_is_told_his_side_and_what_comes_first(run, tmp_path):
    """Players' probe: the Soviet player, joining the complete genesis, was shown the German
    player's command for his own folder."""
    run("keygen", "red", "--dir", "keys")
    run("keygen", "blue", "--dir", "keys")
    run("new", "red-folder", "--ruleset", "duel", "--side", "red=keys/red.pub", "--side", "blue=keys/blue.pub",
        "--key", "keys/red", "--created", "2026-11-29T10:00:00Z")
    run("join", "blue-folder", "red-folder/proposal.yaml", "--key", "keys/blue")
    run("join", "red-folder", "blue-folder/join.yaml", "--key", "keys/red")
    out = run("join", "blue-folder", "red-folder/game.yaml", "--key", "keys/blue").output
    assert out.splitlines()[-1] == (
        "first packet: from red, your opponent; you play blue: `pbem adjudicate blue-folder PACKET` for each packet "
        "red sends, then `pbem orders blue-folder --key keys/blue` for yours")


def test_the_readme_says_how_many_orders_the_templates_list():
    """A players' probe: the README said `--only UNIT` lists "every legal order of that unit",
    and a dos unit being set up showed 400 of 3,667. The README's numbers are the code's."""
    from pbem.core import templates

    text = " ".join(README.read_text(encoding="utf-8").split())
    assert f"the template lists {templates.MAX_LISTED}:" in text
    assert (f"`--only UNIT` works out every legal order of that unit, counts them and lists up to "
            f"{templates.MAX_NAMED}") in text


def _joiners_chain(kept: dict, game: dict) -> None:
    kept["sides"] = [dict(side, **{k: v for k, v in next(g for g in game["sides"] if g["name"] == side["name"]).items()
                                   if k in ("nonce", "chain_length", "anchor")}) for side in kept["sides"]]


@pytest.mark.parametrize("folder, name, change, words", [
    ("red-folder", "proposal.yaml", lambda kept, game: kept.update(sides=[1]), "is not the one game.yaml was made from"),
    ("red-folder", "proposal.yaml", lambda kept, game: kept.update(sides=5), "is not the one game.yaml was made from"),
    ("red-folder", "proposal.yaml", _joiners_chain, "is not the one game.yaml was made from (field sides[1]"),
    ("red-folder", "proposal.yaml", lambda kept, game: kept.pop("proposal_signature"),
     "lacks a signature that game.yaml was made with"),
    ("blue-folder", "join.yaml", lambda kept, game: (kept.pop("signatures"), kept.pop("proposal_signature")),
     "lacks a signature that game.yaml was made with"),
    ("blue-folder", "join.yaml", lambda kept, game: kept.update(signatures=[]),
     "lacks a signature that game.yaml was made with, or has one of another form"),
    ("blue-folder", "join.yaml", lambda kept, game: kept.update(extra=1), "is not the one game.yaml was made from"),
])
def test_audit_holds_the_handshake_files_to_the_ones_pbem_writes(run, duel_game, folder, name, change, words):
    """An audit fuzzer's finds: a proposal.yaml of `sides: [1]` ended the audit in a traceback;
    one carrying the joiner's chain, or with no signature, and a join.yaml without its
    signatures audited clean. Each is the file pbem writes of game.yaml, exactly."""
    from pbem.core.canonical import dumps

    path = Path(folder, name)
    kept, game = load_mapping(path), load_mapping(Path(folder, "game.yaml"))
    change(kept, game)
    path.write_text(dumps(kept))
    error = run("audit", folder, code=3).stderr
    assert error.startswith(f"pbem: audit failed: {name}: the {name.removesuffix('.yaml')} kept in the folder ") \
        and words in error, error


def test_audit_refuses_handshake_files_whose_signatures_game_yaml_has_not(run, duel_game):
    """A cheater's probe: proposal.yaml and join.yaml were compared with game.yaml only by what
    they sign, so junk in place of their signatures audited clean. Each signature they carry
    must be one game.yaml carries (audit verifies those)."""
    assert run("audit", "red-folder").exit_code == 0 and run("audit", "blue-folder").exit_code == 0
    junk = base64.b64encode(b"not a signature by anyone " * 4).decode()
    for folder, name, field in (("red-folder", "proposal.yaml", "proposal_signature"),
                                ("blue-folder", "join.yaml", "signatures.blue")):
        path = Path(folder, name)
        kept = load_mapping(path)
        if field == "proposal_signature":
            kept["proposal_signature"] = junk
        else:
            kept["signatures"]["blue"] = junk
        from pbem.core.canonical import dumps

        path.write_text(dumps(kept))
        error = run("audit", folder, code=3).stderr
        what = name.removesuffix(".yaml")
        assert error.startswith(f"pbem: audit failed: {name}: the {what} kept in the folder carries a signature "
                                f"game.yaml does not: it was altered (field {field}: expected '"), error
