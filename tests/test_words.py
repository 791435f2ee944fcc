"""`pbem status` and `pbem show` in words: the exact text for representative states of both
rulesets, built through the real engine (secure games between fixed keys, so the dice and
the game ids are the same on every run)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core import keys
from pbem.rulesets import chir, stalingrad
from tests.support.games import Match

SENT = "(sent 2026-11-29T10:00:00Z by its sender's clock)"

# chir: the 13.0 situation: LW/I in 3320, three Soviet rifle regiments next to it and their
# artillery; the Soviet concentrated attack phase of GT 1.
CHIR_POSITION = {
    "turn": 1, "player": "soviet", "phase": "attack",
    "units": {"LW/I": {"hex": "3320"}, "333/1116": {"hex": "3220"}, "333/1118": {"hex": "3321"},
              "333/1120": {"hex": "3420"}, "333/Art": {"hex": "3522"}},
}
ATTACK = {"type": "attack", "target": "3320", "units": ["333/1116", "333/1118", "333/1120"], "support": ["333/Art"]}
# The last German movement phase of the game: its `end` ends the game (4.0).
CHIR_LAST = {"turn": 12, "player": "german", "phase": "movement",
             "units": {"LW/I": {"hex": "3320", "strength": 2}, "333/1116": {"hex": "3220"},
                       "CC/55b": {"status": "gone"}}}
STALINGRAD_POSITION = {
    "turn": 2, "phase": "german-movement",
    "areas": {"aerodromny": {"units": ["71id-191", {"id": "71id-194", "steps": 1}]}, "station-1": {"units": ["13gd-34"]}},
    "pool": ["13gd-39"], "eliminated": ["112rd-416"],
}


def run(*args, code=0) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return result.output if code == 0 else result.stderr


def lines(text: str) -> list[str]:
    return text.splitlines()


def match(root: Path, ruleset, scenario: str, position: dict, key_seed: str = "words") -> Match:
    doc = ruleset.scenarios[scenario]()
    doc["position"] = position
    m = Match(root, ruleset.id, key_seed=key_seed, scenario_doc=doc)
    for side, key in m.keys.items():
        (root / f"{side}-key.pub").write_text(key.public.line() + "\n")
        fd = os.open(root / f"{side}-key", os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, keys.private_key_bytes(key))
        os.close(fd)
    return m


# the status of a game whose scenario starts from a position says so (describe.scenario_terms)
POSITIONED = ("Scenario EMBEDDED by the proposer, without an id, not one bundled with pbem: against the bundled "
              "scenario historical, the closest, 1 field differs: position (added).")


def head(m: Match, seq: int) -> str:
    r = m.ruleset
    return f"{r.title}. Ruleset {r.id} {r.version}, secure game {m.game.game_id}, state {seq}."


@pytest.fixture(scope="module")
def chir_fresh(tmp_path_factory):
    root = tmp_path_factory.mktemp("chir-fresh")
    return match(root, chir.RULESET, "historical", CHIR_POSITION), root


@pytest.fixture(scope="module")
def chir_decision(tmp_path_factory):
    """The German player asks to choose his retreats; the Soviet attack on 3320 makes LW/I
    lose two points and retreat: after one step, the game waits for his decision (the keys'
    seed gives a fire roll that does so: the dice hang on the game id, and so on the version)."""
    root = tmp_path_factory.mktemp("chir-decision")
    m = match(root, chir.RULESET, "historical", CHIR_POSITION, key_seed="words-12")
    m.send("german", [], {"defensive_fire": "none", "morale": "retreat", "retreat": "ask"})
    m.send("soviet", [ATTACK, {"type": "end", "phase": "attack"}])
    m.send("german", [])
    return m, root


@pytest.fixture(scope="module")
def chir_over(tmp_path_factory):
    root = tmp_path_factory.mktemp("chir-over")
    m = match(root, chir.RULESET, "historical", CHIR_LAST)
    m.send("german", [{"type": "end"}])
    return m, root


@pytest.fixture(scope="module")
def city(tmp_path_factory):
    """71id-191 moves into Mamayev Kurgan, empty and Soviet: it takes it (house 4.2)."""
    root = tmp_path_factory.mktemp("city")
    m = match(root, stalingrad.RULESET, "city-1942", STALINGRAD_POSITION)
    m.send("german", [{"type": "move", "unit": "71id-191", "to": "mamayev-kurgan"}])
    return m, root


# --- status -----------------------------------------------------------------------------------------

CHIR_FRESH_AWAITED = ("a packet from german{you}, who has nothing to decide now (packets alternate; one without orders "
                      "will do); then soviet, for orders: GT 1, soviet concentrated attack phase: attack orders, then "
                      "end (9.1).")


def test_status_of_a_fresh_game(chir_fresh):
    m, root = chir_fresh
    common = [head(m, 0), POSITIONED, "Game turn 1 of 12, Soviet concentrated attack phase.",
              "Awaited: " + CHIR_FRESH_AWAITED.format(you=""), "No packet yet: german sends packet 1.",
              "VP if the game ended now (4.0): Soviet 5, German 40, a German brilliant victory by 35 (4.5); the German "
              "line of communication to the Don is "
              "open (4.3)."]
    assert lines(run("status", root / "german")) == common
    mine = run("status", root / "german", "--key", root / "german-key.pub")
    assert lines(mine) == [*common[:3], "Awaited: " + CHIR_FRESH_AWAITED.format(you=" (you)"), *common[4:],
                           "You play german: the next packet is yours (`pbem orders` writes a template of it, "
                           "`pbem submit` signs and sends it)."]
    theirs = run("status", root / "soviet", "--key", root / "soviet-key")  # the private key works too
    assert lines(theirs)[-1] == "You play soviet: the next packet is german's."
    (root / "notes.txt").write_text("not a key\n")   # any other file: neither kind of key, said so
    assert run("status", root / "soviet", "--key", root / "notes.txt", code=4).startswith(
        f"pbem: {root / 'notes.txt'}: neither an OpenSSH public key (ssh-ed25519 ...) nor a private key file; --key "
        f"takes either")


def test_status_of_a_game_awaiting_a_decision(chir_decision):
    m, root = chir_decision
    decision = ("a decision: 2.1/retreat, where LW/I retreats from 3319, 1 of at least 3 hexes gone (9.10.1); 2 legal "
                "answers (`pbem orders` lists them).")
    expected = [head(m, 3), POSITIONED,
                "Game turn 1 of 12, Soviet concentrated attack phase, attack 1 on 3320 in progress.",
                "Awaited: a packet from soviet, who has nothing to decide now (packets alternate; one without "
                f"orders will do); then german, for {decision}",
                f"Awaited since packet 3 from german {SENT}; soviet's last packet: 2 {SENT}.",
                "Queued orders (soviet 1) are applied as the game reaches them: soviet order 2 of packet 2 (end "
                "phase=attack).",
                "VP if the game ended now (4.0): Soviet 6, German 40, a German brilliant victory by 34 (4.5); the German "
                "line of communication to the Don "
                "is open (4.3)."]
    assert lines(run("status", root / "german")) == expected
    # the report of the packet that led here ends with the same words
    assert (root / "german" / "aar" / "0003.md").read_text().splitlines()[-1] == expected[3].replace("`", "\\`")
    mine = lines(run("status", root / "german", "--key", root / "german-key"))
    assert mine[3] == expected[3].replace("then german,", "then german (you),")
    assert mine[4:] == expected[4:] + ["You play german: the next packet is soviet's."]
    theirs = lines(run("status", root / "soviet", "--key", root / "soviet-key.pub"))
    assert theirs[3] == expected[3].replace("from soviet,", "from soviet (you),")
    assert theirs[-1].startswith("You play soviet: the next packet is yours")
    data = json.loads(run("status", root / "german", "--key", root / "german-key.pub", "--json"))
    assert data["awaiting"]["decision"] == "2.1/retreat" and data["you"] == "german"
    assert data["since"] == {"side": "german", "seq": 3, "sent": "2026-11-29T10:00:00Z", "packet": data["since"]["packet"]}
    assert data["queued"] == {"soviet": 1} and data["queued_orders"] == 1 and data["sealed"] == {}
    assert data["summary"]["vp"] == {"soviet": "6", "german": "40"} and data["summary"]["vp_halves"] == {"soviet": 12, "german": 80}
    assert data["summary"]["decision"] == "where LW/I retreats from 3319, 1 of at least 3 hexes gone (9.10.1)"
    assert data["text"] == mine


def test_status_of_a_finished_game(chir_over):
    m, root = chir_over
    expected = [head(m, 1), POSITIONED, "Game over after game turn 12 of 12.",
                "Result: Game over after GT 12: Soviet 5.5 VP, German 42 VP; difference 36: german Brilliant victory.",
                "The game is over: no packet is awaited.",
                f"Last packet: 1 from german {SENT}; soviet's last packet: none yet.",
                "VP at the end (4.0): Soviet 5.5, German 42, a German brilliant victory by 36.5, counted as 36 (4.5); the "
                "German line of "
                "communication to the Don is open (4.3)."]
    assert lines(run("status", root / "soviet")) == expected
    assert lines(run("status", root / "soviet", "--key", root / "soviet-key.pub")) == expected + ["You played soviet."]


def test_status_refuses_a_key_of_no_side(chir_fresh, tmp_path):
    m, root = chir_fresh
    stranger = tmp_path / "stranger.pub"
    stranger.write_text(keys.generate().public.line() + "\n")
    refused = run("status", root / "german", "--key", stranger, code=3)
    # named as a private key of no side is (a probe: a public one gave the fingerprint alone)
    assert refused.startswith(f"pbem: --key {stranger}: the key SHA256:")
    assert "plays no side of this game; give the key you play it with" in refused


# --- show: the board --------------------------------------------------------------------------------

CHIR_BOARD_3 = """\
48th Panzer Korps: Battles on the River Chir. Game turn 1 of 12, Soviet concentrated attack phase, attack 1 on 3320 in progress.
VP if the game ended now (4.0): Soviet 6, German 40, a German brilliant victory by 34 (4.5); the German line of communication to the Don is open (4.3).
  Soviet 1 VP: LW/I lost 2 (4.1)
  Soviet 5 VP: Novomaksimovskiy (4.2)
  German 5 VP: Oblivskaya (4.2)
  German 5 VP: Surovikino (4.2)
  German 10 VP: Verkhne-Aksenovskiy (4.2)
  German 10 VP: Nizhne-Chirskaya (4.2)
  German 10 VP: Verkhne-Solonovskiy (4.2)

Places (4.2):
  Oblivskaya (3203, 3204): German, 5 VP
  Surovikino (3719, 3818): German, 5 VP
  Novomaksimovskiy (2832): Soviet, 5 VP
  Verkhne-Aksenovskiy (1918): German, 10 VP
  Nizhne-Chirskaya (1930): German, 10 VP
  Verkhne-Solonovskiy (1709): German, 10 VP

Soviet units on the map (4): hex, unit, arm and size, strength/printed, morale, markers
  3220  333/1116    rifle regiment                    6/6  morale 4
  3321  333/1118    rifle regiment                    6/6  morale 4
  3420  333/1120    rifle regiment                    6/6  morale 4
  3522  333/Art     artillery regiment                4/4  morale 4  [fired]

German units on the map (1): hex, unit, arm and size, strength/printed, morale, markers
  3319  LW/I        infantry battalion                1/3  morale 3  [confusion]

Soviet-controlled hexes (3.3; every other hex is German): 2832, 3120-3121, 3219-3221, 3320-3322,
  3419-3422, 3520-3523, 3621-3622
"""


def test_show_chir_lists_units_with_arm_strength_morale_markers_and_position(chir_decision):
    m, root = chir_decision
    assert run("show", root / "german") == CHIR_BOARD_3
    before = run("show", root / "german", "--state", "0")
    assert "  3320  LW/I        infantry battalion                3/3  morale 3\n" in before
    board = json.loads(run("show", root / "german", "--json"))["board"]
    assert board["units"]["LW/I"] == {"side": "german", "where": "3319", "status": "map", "strength": 1, "full": 3,
                                      "markers": ["confusion"]}
    assert board["units"]["CC/55b"]["status"] == "out" and board["control"]["3320"] == "soviet"


CITY_BOARD_0 = """\
Stalingrad city fight. Turn 2 of 6, German movement phase.
German VP if the game ended now: 0 of 19 (German victory at 4 or more, Soviet at 2 or less, house 9.1).
Tactical cards left: German 4, Soviet 4 (house 7).

Areas from north to south [controller (house 4), cover (house 6.3), VP (house 9.1)], the areas
next to them and the units in them: side, unit, arm, strength/full, markers.
tractor-factory - Tractor Factory (STZ) [soviet, cover 1, 2 VP]
    next to: barrikady, crossing-tractor, dzerzhinsky-square
dzerzhinsky-square - Dzerzhinsky Square [soviet]
    next to: barrikady, mechetka, silikat, tractor-factory
mechetka - Mokraya Mechetka [german]
    next to: dzerzhinsky-square, vishnevaya
barrikady - Barrikady Gun Factory [soviet, cover 1, 2 VP]
    next to: crossing-62, dzerzhinsky-square, krasny-oktyabr, silikat, tractor-factory
silikat - Silikat Plant and Barrikady settlement [soviet]
    next to: barrikady, dzerzhinsky-square, ko-settlement, vishnevaya
vishnevaya - Vishnevaya Balka [german]
    next to: mechetka, razgulyayevka, silikat
krasny-oktyabr - Krasny Oktyabr Steel Works [soviet, cover 1, 2 VP]
    next to: banny-ravine, barrikady, crossing-62, ko-settlement
ko-settlement - Krasny Oktyabr settlement [soviet]
    next to: krasny-oktyabr, mamayev-kurgan, razgulyayevka, silikat
razgulyayevka - Razgulyayevka station [german]
    next to: aerodromny, ko-settlement, vishnevaya
banny-ravine - Banny ravine [soviet]
    next to: crossing-skudri, dolgiy-ravine, krasny-oktyabr, mamayev-kurgan
mamayev-kurgan - Mamayev Kurgan (Hill 102.0) [soviet, cover 1, 3 VP]
    next to: aerodromny, banny-ravine, dolgiy-ravine, ko-settlement, station-1
aerodromny - Aerodromny settlement [german]
    next to: mamayev-kurgan, razgulyayevka, station-1, station-2
    German  71id-191      infantry   4/4
    German  71id-194      infantry   2/4  [reduced]
dolgiy-ravine - Dolgiy and Krutoy ravines [soviet]
    next to: banny-ravine, crossing-skudri, january-9-square, mamayev-kurgan, station-1
station-1 - Railway Station No. 1 [soviet, 1 VP]
    next to: aerodromny, dolgiy-ravine, fallen-fighters, january-9-square, mamayev-kurgan
    Soviet  13gd-34       infantry   3/3
january-9-square - 9 January Square (Pavlov's House) [soviet, cover 1, 1 VP]
    next to: central-landing, crossing-central, dolgiy-ravine, fallen-fighters, station-1
fallen-fighters - Square of the Fallen Fighters (Univermag) [soviet, 1 VP]
    next to: central-landing, january-9-square, station-1, station-2, tsaritsa-gorge
central-landing - Central Landing Stage [soviet, 2 VP]
    next to: crossing-central, fallen-fighters, january-9-square, tsaritsa-gorge
tsaritsa-gorge - Tsaritsa gorge [soviet, cover 1]
    next to: central-landing, fallen-fighters, grain-elevator, kuporosnoye, station-2
station-2 - Railway Station No. 2 [german]
    next to: aerodromny, fallen-fighters, grain-elevator, minina, tsaritsa-gorge
grain-elevator - Grain Elevator [soviet, cover 1, 1 VP]
    next to: kuporosnoye, minina, station-2, tsaritsa-gorge
minina - Minina suburb (Dar Gora) [german]
    next to: grain-elevator, kuporosnoye, station-2
kuporosnoye - Kuporosnoye [german]
    next to: grain-elevator, minina, tsaritsa-gorge
crossing-tractor - Tractor Factory crossing [soviet, crossing, 1 VP]
    next to: tractor-factory
crossing-62 - Crossing No. 62 (Krasny Oktyabr landing) [soviet, crossing, 1 VP]
    next to: barrikady, krasny-oktyabr
crossing-skudri - Skudri crossing [soviet, crossing, 1 VP]
    next to: banny-ravine, dolgiy-ravine
crossing-central - Central crossing [soviet, crossing, 1 VP]
    next to: central-landing, january-9-square

Soviet units waiting to enter (11.1): 13gd-39 (turn 1)
Soviet units eliminated: 112rd-416
"""


def test_show_stalingrad_lists_each_areas_neighbours_control_and_units(city):
    m, root = city
    assert run("show", root / "german", "--state", "0") == CITY_BOARD_0


# --- show: one thing ---------------------------------------------------------------------------------

def test_show_hex(chir_decision):
    m, root = chir_decision
    assert lines(run("show", root / "german", "--hex", "3319")) == [
        "Hex 3319: clear; controlled by the German side (3.3).",
        "Entering it costs 1 MP motorised, 1 MP non-motorised (8.3), less along a road (8.4).",
        "Neighbours:",
        "  3218: clear, German control",
        "  3219: clear, Soviet control",
        "  3318: clear, German control",
        "  3320: clear, Soviet control",
        "  3418: clear, German control",
        "  3419: clear, Soviet control",
        "Zones of control reaching it (7.0): none.",
        "German units here (strength 1):",
        "  LW/I  infantry battalion                1/3  morale 3  [confusion]",
    ]
    town = lines(run("show", root / "german", "--hex", "3818"))
    assert town[:3] == ["Hex 3818: town (defender's column shift -1, 9.7.3); controlled by the German side (3.3).",
                        "Entering it costs 1 MP motorised, 1 MP non-motorised (8.3), less along a road (8.4).",
                        "Town: Surovikino (3719, 3818), 5 VP to the side that controls every hex at the end (4.2)."]
    assert "  3918: clear, German control, across the Chir by a bridge, road" in town
    assert "  3919: clear, German control, across the Chir" in town
    zoc = lines(run("show", root / "german", "--hex", "3221"))
    assert "Zones of control reaching it (7.0): Soviet ZOC." in zoc and "No unit is here." in zoc
    assert lines(run("show", root / "german", "--hex", "3220"))[-3:] == [
        "Soviet units here (strength 6):", "  333/1116  rifle regiment                    6/6  morale 4",
        "They project a zone of control into the six hexes around (7.0)."]


def test_show_unit(chir_decision):
    m, root = chir_decision
    assert lines(run("show", root / "german", "--unit", "LW/I")) == [
        "LW/I: German infantry battalion I of LW.",
        "Counter: fire class infantry (9.6); printed strength 3; morale 3; movement 4 MP, non-motorised (8.2).",
        "Set-up code: C (2.3.9).",
        "Now: in 3319 (clear, German control), strength 1 of 3, 2 lost (1 VP to the Soviet side, 4.1).",
        "Markers: confusion (7.1: no ZOC; retreated).",
        "Not in an enemy zone of control (7.0).",
    ]
    assert lines(run("show", root / "german", "--unit", "333/Art")) == [
        "333/Art: Soviet artillery regiment Art of 333, army 5TA.",
        "Counter: fire class artillery (9.6); printed strength 4; morale 4; movement 3 MP, non-motorised (8.2); "
        "artillery range 4 hexes (10.1); supports 333 units only (10.2).",
        "Set-up code: D (2.3.9).",
        "Now: in 3522 (clear, Soviet control), strength 4 of 4.",
        "Markers: fired (10.2: has fired).",
        "Not in an enemy zone of control (7.0).",
    ]
    assert lines(run("show", root / "german", "--unit", "8GT/a"))[-2:] == [
        "Reinforcement: enters on GT 8 at 4323 (11.0).", "Now: out of play."]


def test_show_area_and_unit_of_an_area_map(city):
    m, root = city
    assert lines(run("show", root / "german", "--area", "mamayev-kurgan")) == [
        "Area mamayev-kurgan: Mamayev Kurgan (Hill 102.0).",
        "Controlled by the German side (house 4).",
        "Cover 1: the defender here suffers 1 loss point fewer unless the attacker has engineers here (house 6.3).",
        "3 VP to the German side if it controls it at the end (house 9.1).",
        "Next to:",
        "  aerodromny - Aerodromny settlement: German; units: 1 German",
        "  banny-ravine - Banny ravine: Soviet; no units",
        "  dolgiy-ravine - Dolgiy and Krutoy ravines: Soviet; no units",
        "  ko-settlement - Krasny Oktyabr settlement: Soviet; no units",
        "  station-1 - Railway Station No. 1: Soviet; units: 1 Soviet",
        "Units here (stacking limit: 10 own units, 10.3(2), house 2.2):",
        "  German  71id-191      infantry   4/4  [moved]  191st Infantry Regiment (71st Inf.)",
    ]
    crossing = lines(run("show", root / "german", "--area", "crossing-62"))
    assert crossing[3].startswith("A Volga crossing: Soviet reinforcements enter only on crossings")
    assert lines(run("show", root / "german", "--unit", "71id-194")) == [
        "71id-194: 194th Infantry Regiment (71st Inf.), German infantry.",
        "Counter: strength 4 at full strength, 2 reduced (house 2.1); on the map from the start (scenario set-up: "
        "aerodromny).",
        "Now: in aerodromny - Aerodromny settlement (German control), strength 2 (reduced).",
    ]
    assert lines(run("show", root / "german", "--unit", "13gd-39"))[-1] == "Now: waiting to enter (11.1)."
    from pbem.core.game import open_folder
    from pbem.rulesets.stalingrad import report as city_report

    ended = open_folder(Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo")   # a game that ended
    rules = dict(ended.state["rules"], units=dict(ended.state["rules"]["units"], **{"13gd-39": "pool"}))
    assert "result" in rules
    assert city_report.look_unit(ended.game.scenario, rules, "13gd-39")[-1] == "Now: never entered: the game ended first."
    del rules["result"]
    assert city_report.look_unit(ended.game.scenario, rules, "13gd-39")[-1] == "Now: waiting to enter (11.1)."
    data = json.loads(run("show", root / "german", "--area", "station-1", "--json"))
    assert data["area"] == "station-1" and data["text"][0] == "Area station-1: Railway Station No. 1."


def test_show_refuses_what_the_map_has_not_and_unknown_ids(chir_decision, city):
    chir_root, city_root = chir_decision[1], city[1]
    assert run("show", city_root / "german", "--hex", "3320", code=2) == \
        "pbem: the stalingrad map is made of areas, not hexes: use --area ID or --unit ID\n"
    assert run("show", city_root / "german", "--square", "0101", code=2) == \
        "pbem: the stalingrad map is made of areas, not squares: use --area ID or --unit ID\n"   # not "squarees"
    assert run("show", chir_root / "german", "--area", "x", code=2) == \
        "pbem: the chir map is made of hexes, not areas: use --hex CCRR or --unit ID\n"
    assert "there is no hex 9999 on the chir map" in run("show", chir_root / "german", "--hex", "9999", code=2)
    assert "there is no unit XX in the stalingrad order of battle" in run("show", city_root / "german", "--unit", "XX", code=2)
    assert run("show", chir_root / "german", "--unit", "LW/I", "--hex", "3320", code=2) == \
        "pbem: show one thing at a time: --unit, --hex, --area, --square, --diff or --last\n"
    assert run("show", chir_root / "german", "--diff", "0", "9", code=2) == \
        "pbem: there is no state 9: the game is at state 3 (states 0 to 3)\n"


def test_show_escapes_what_it_prints(chir_decision):
    """An id a player typed reaches the terminal escaped (DESIGN §5)."""
    out = run("show", chir_decision[1] / "german", "--unit", "LW\x1b[31m", code=2)
    assert "\x1b" not in out and "LW\\x1b[31m" in out


# --- show --diff --------------------------------------------------------------------------------------

def test_diff_says_the_move_the_loss_the_markers_control_and_vp(chir_decision):
    m, root = chir_decision
    assert run("show", root / "german", "--diff", "0", "3") == """\
Changes from state 0 to state 3:
- Now: Game turn 1 of 12, Soviet concentrated attack phase, attack 1 on 3320 in progress (before:
  Game turn 1 of 12, Soviet concentrated attack phase).
- LW/I (german) moved from 3320 to 3319.
- LW/I (german) lost 2 strength points: 1 of 3 left.
- LW/I (german): confusion marker placed.
- 333/Art (soviet): fired marker placed.
- 3 hexes passed to soviet control: 3219, 3320, 3419.
- Soviet VP (4.0): 5, now 6.
"""
    data = json.loads(run("show", root / "german", "--diff", "0", "3", "--json"))
    assert (data["from"], data["to"]) == (0, 3)
    assert [c for c in data["changes"] if c["kind"] in ("move", "loss")] == [
        {"kind": "move", "unit": "LW/I", "from": "3320", "to": "3319", "text": "LW/I (german) moved from 3320 to 3319."},
        {"kind": "loss", "unit": "LW/I", "from": 3, "to": 1, "text": "LW/I (german) lost 2 strength points: 1 of 3 left."}]
    assert run("show", root / "german", "--diff", "3", "3") == "Changes from state 3 to state 3:\n- nothing changed on the board.\n"


def test_the_last_packet_whose_orders_all_wait_changed_nothing_yet_and_they_are_named():
    """A new user's probe: after a packet whose attacks all wait for the next packet's dice,
    `show --last` said only "nothing changed on the board", as if the packet did nothing; it
    says what waits, as status does."""
    from pbem.core import describe, game

    path = Path(__file__).resolve().parent.parent / "examples" / "stalingrad-demo"
    folder = game.open_folder(path)
    before, after = game.load_state(path, 0, folder.game), game.load_state(path, 1, folder.game)
    waiting = dict(after, rules=before["rules"], seq=1)      # state 1's queue on state 0's board
    assert after["queue"] and after["awaiting"]["waiting_for"] == "dice"
    lines = describe.changes_text(folder.game, before, waiting)
    assert lines[:2] == ["Changes from state 0 to state 1:", "- nothing changed on the board yet."]
    assert " ".join(line.strip() for line in lines[2:]) == describe.queued_line(folder.game, after)
    assert describe.queued_line(folder.game, after).startswith(
        f"Queued orders (german {len(after['queue'])}) wait for the dice of the next packet: german order ")
    assert all(len(line) <= 100 for line in lines)


def test_diff_on_an_area_map_names_the_area_that_changed_hands(city):
    m, root = city
    assert run("show", root / "german", "--diff", "0", "1") == """\
Changes from state 0 to state 1:
- 71id-191 (german) moved from aerodromny to mamayev-kurgan.
- mamayev-kurgan - Mamayev Kurgan (Hill 102.0) passed to the german side.
- German VP (house 9.1): 0, now 3.
"""


def _enters(m, reduced: bool = False):
    """A waiting unit of the city game's state in aerodromny in a copy of it (reduced there, if
    `reduced`), with aerodromny attacked: (the unit, its side, the changes said from the state)."""
    from pbem.core import describe

    state = m.state()
    before = json.loads(json.dumps(state))
    uid = next(u for u, where in state["rules"]["units"].items() if where == "pool")
    before["rules"]["units"][uid] = "pool"
    after = json.loads(json.dumps(state))
    after["rules"]["units"][uid] = "aerodromny"
    after["rules"]["phase_state"]["attacked"] = ["aerodromny"]
    if reduced:
        after["rules"]["reduced"] = sorted(set(after["rules"]["reduced"]) | {uid})
    return uid, m.game.scenario.units[uid].side, describe.changes(m.game, before, after)


def test_diff_says_a_unit_entered_not_that_it_gained_strength_and_names_the_areas_attacked(city):
    """A reinforcement arriving is an entry, not a gain of strength points; an attack declared
    shows as the area attacked this phase (house 6.1), the only change an attack may make at once."""
    uid, side, found = _enters(city[0])
    assert [c["kind"] for c in found] == ["enter", "fact"]
    assert found[0] == {"kind": "enter", "unit": uid, "from": "pool", "to": "aerodromny",
                        "text": f"{uid} ({side}) is now in aerodromny; it was waiting to enter (11.1)."}
    assert found[1]["text"] == "Areas attacked this phase (house 6.1): none, now aerodromny."


def test_diff_says_a_unit_that_entered_and_lost_a_step_since_with_its_strength(city):
    """A reinforcement that entered and was reduced between the two states compared is said to
    be in its area with its steps left: no loss is told of a unit that was not on the map (a
    players' probe: three reduced reinforcements were only "now in station-1")."""
    uid, side, found = _enters(city[0], reduced=True)
    assert found[0] == {"kind": "enter", "unit": uid, "from": "pool", "to": "aerodromny", "strength": 1,
                        "text": f"{uid} ({side}) is now in aerodromny with 1 of 2 steps; it was waiting to enter (11.1)."}


def test_the_orders_template_lists_only_the_orders_that_name_a_unit():
    """`pbem orders --only UNIT`: a chir movement phase offers thousands of orders, and the
    template shows 80; with --only it lists those naming the unit, and says how many of how
    many (players' probe: no attack or entry was among the 80 shown)."""
    import re

    from pbem.core import engine, game, templates

    folder = Path(__file__).resolve().parents[1] / "examples" / "chir-demo"
    opened = game.open_folder(folder)
    for seq in range(opened.state["seq"] + 1):
        state = game.load_state(folder, seq, opened.game)
        need = engine.awaited_need(state)
        if need is None or need.decision or state["awaiting"]["waiting_for"] != "orders":
            continue
        legal = opened.game.legal_orders(state["rules"], need)
        if len(legal) > templates.MAX_LISTED:
            break
    else:
        pytest.fail("no state of the chir example offers more orders than the template lists")
    whole = templates.orders_template(opened.game, state, need.side)
    assert f"# Legal orders now ({len(legal)})" in whole
    left = legal[templates.MAX_LISTED:]     # counted by type in the line that ends the list
    kinds = ", ".join(f"{n} {k}" for k, n in {o["type"]: sum(1 for x in left if x["type"] == o["type"])
                                                for o in left}.items())
    assert f"#   ... {len(left)} more ({kinds}); `pbem orders ... --only UNIT` lists one unit's orders\n" in whole
    unit = next(order.get("unit") or order["units"][0] for order in reversed(legal) if order.get("unit") or order.get("units"))
    text = templates.orders_template(opened.game, state, need.side, only=unit)
    naming = [order for order in legal if unit in order.get("units", []) or unit == order.get("unit")]
    assert f"# Legal orders now ({len(legal)}; {len(naming)} of them name {unit})" in text
    listed = re.findall(r"^#   - (.*)$", text, re.M)
    assert listed and len(listed) == min(len(naming), templates.MAX_NAMED)
    assert all(unit in line for line in listed)
    kind = legal[0]["type"]
    typed = re.findall(r"^#   - (.*)$", templates.orders_template(opened.game, state, need.side, only=kind), re.M)
    assert typed and all(f"type: {kind}" in line for line in typed)


@pytest.mark.parametrize("ruleset_id", [pytest.param("chir", marks=pytest.mark.long(9)), "stalingrad"])
def test_the_orders_template_with_a_key_says_where_the_reveal_brings_the_game(tmp_path, ruleset_id):
    """`pbem orders --key`: a side whose packet is next with nothing to decide learns where its
    reveal brings the game, and when that is its own orders, which are legal then, to write
    into this packet and save a round trip (players' probe). Exactly what the packet then
    meets, in every such state of a random game."""
    import random

    from pbem.core import bot, templates
    from tests.support.games import Match

    m = Match(tmp_path, ruleset_id, chain_length=512, key_seed="reveal")
    rng = random.Random(ruleset_id)
    told = 0
    for _ in range(60):
        state = m.state()
        sender = state["awaiting"]["packet_from"]
        if sender is None:
            break
        need = state["awaiting"]["need"]
        if need["side"] != sender:
            text = templates.orders_template(m.game, state, sender, m.keys[sender])
            assert "--key KEYFILE" not in text and "--key KEYFILE" in templates.orders_template(m.game, state, sender)
            quiet = m.send(sender, [])   # what a packet without orders meets, after its reveal
            after = quiet.state["awaiting"]
            own = after["need"] is not None and after["need"]["side"] == sender and \
                after["waiting_for"] in ("orders", "sealed orders")
            assert ("the game comes to your own orders" in text) == own, (state["seq"], text)
            if own:
                told += 1
                assert f"# Legal orders then ({len(m.game.legal_orders(quiet.state['rules'], engine_need(quiet.state)))})" \
                    in text
            continue
        orders, seal = bot.plan_packet(m.game, m.state(sender), sender, lambda options: rng.choice(options))
        m.send(sender, orders, seal=seal)
    assert told >= 2


def engine_need(state):
    from pbem.core import engine

    return engine.awaited_need(state)


def test_the_orders_template_lists_every_standing_order_choice_for_every_ruleset(city, chir_decision):
    """`pbem orders` says what each standing order may be set to, the same way for every ruleset
    (stalingrad's template listed only the values in force)."""
    m, root = city
    text = run("orders", root / "german", "--side", "german")
    assert "# tactical_card: at-least-2|at-least-3|always|never;" in text
    assert "allocate_own_losses: save-units|weakest-first|strongest-first|lowest-id;" in text
    assert "retreat_tie: engine-priority|lowest-id|ask;" in text
    assert "on_void: stop|skip" in text and text.index("on_void: stop|skip") < text.index("\npolicies:")
    m, root = chir_decision
    text = run("orders", root / "german", "--side", "german")
    assert text.count("retreat: engine-priority|break-contact|ask") == 1


def test_diff_says_an_elimination_an_advance_and_the_markers_of_an_attack(tmp_path):
    """LW/I, at 1 point left, does not survive the attack; 333/1116 advances into 3320 (the
    keys' seed gives a defensive fire that misses: the dice hang on the game id, and so on the
    version)."""
    position = dict(CHIR_POSITION, units={**CHIR_POSITION["units"], "LW/I": {"hex": "3320", "strength": 1}})
    m = match(tmp_path, chir.RULESET, "historical", position, key_seed="words-advance-2")
    m.send("german", [])
    m.send("soviet", [ATTACK, {"type": "end", "phase": "attack"}])
    m.send("german", [])
    assert run("show", tmp_path / "soviet", "--diff", "0", "3") == """\
Changes from state 0 to state 3:
- Now: Game turn 1 of 12, Soviet movement phase (before: Game turn 1 of 12, Soviet concentrated
  attack phase).
- 333/1116 (soviet) advanced after combat from 3220 to 3320.
- LW/I (german) is now eliminated; it was in 3320.
- 333/1116, 333/1118, 333/1120 (soviet): Half Move marker placed.
- 333/Art (soviet): fired marker placed.
- 2 hexes passed to german control: 3120, 3121.
- 2 hexes passed to soviet control: 3319, 3320.
- Soviet VP (4.0): 6, now 8.
"""


def test_diff_says_the_end_of_the_game(chir_over):
    m, root = chir_over
    assert run("show", root / "german", "--diff", "0", "1") == """\
Changes from state 0 to state 1:
- Now: Game over after game turn 12 of 12 (before: Game turn 12 of 12, German movement phase).
"""


def test_status_names_sealed_items_and_orders_waiting_for_dice(tmp_path):
    """The test ruleset `blind`: both sides seal a plan; they open them in their next packets."""
    m = Match(tmp_path, "blind", key_seed="words")
    m.send("north", [{"type": "plan", "attack": "a", "guard": "a"}], seal=True)
    out = lines(run("status", tmp_path / "south"))
    assert out[2:] == [
        "Awaited: south, for sealed orders: turn 1: seal your plan (attack one enemy post, guard one of yours) (B1).",
        f"Awaited since packet 1 from north {SENT}; south's last packet: none yet.",
        "north has 1 sealed item: its next packet opens 1.1 (docs/protocol.md §8)."]
    m.send("south", [{"type": "plan", "attack": "a", "guard": "c"}], seal=True)
    m.send("north", [])
    m.send("south", [])
    out = lines(run("status", tmp_path / "north"))
    assert out[2:] == [
        "Awaited: a packet from north, whose reveal opens the dice the game waits for (docs/protocol.md §7), which "
        "finish a step south has answered already: turn 1: open your sealed plan (B2).",
        f"Awaited since packet 4 from south {SENT}; north's last packet: 3 {SENT}.",
        "Queued orders (south 1) wait for the dice of the next packet: south order 1 of packet 4 (plan attack=a "
        "guard=c)."]


def test_status_says_when_the_awaited_sides_dice_chain_is_used_up(tmp_path, monkeypatch):
    """A side with a chain of 64 values whose pbem never announces a next chain (one built to
    stop the game there) sends 64 packets; then its next one cannot be made, and status says
    so rather than only that the side is awaited (docs/protocol.md §5)."""
    from pbem.core import engine
    from pbem.core.audit import audit
    from pbem.core.errors import VerificationError

    monkeypatch.setattr(engine, "NEXT_CHAIN_WHEN_LEFT", 0)
    m = Match(tmp_path, "duel", key_seed="words", chain_length=64)
    for _ in range(64):
        m.send("red", [])
        m.send("blue", [])
    with pytest.raises(VerificationError, match="red's chain of 64 values is used up; the game cannot go on"):
        m.send("red", [])      # a chain failure: exit 3 (docs/protocol.md §12)
    out = lines(run("status", tmp_path / "blue"))
    assert "red's dice chain of 64 values is used up, and red announced no next chain in time: red can send no " \
           "more packets, and the game cannot go on (docs/protocol.md §5)." in out
    assert out.index(next(line for line in out if line.startswith("Awaited: "))) + 1 == out.index(
        next(line for line in out if "dice chain" in line))
    from pbem.core import describe      # red's own key: its look ahead cannot be made, and the status stands
    told = describe.status(m.folders["red"], "red", key=m.keys["red"])
    assert told["then"] is None and any("dice chain of 64 values is used up" in line for line in told["text"])
    # and the audit's verdict and the orders template say it too, not only "Awaited: red" (a probe)
    used_up = "red's dice chain of 64 values is used up, and red announced no next chain in time"
    assert used_up in audit(tmp_path / "blue").awaited
    assert "# red's dice chain of 64 values is used up, and red announced no next chain in time: red can" in \
        run("orders", tmp_path / "red", "--side", "red")


# --- a need's rule is named once -----------------------------------------------------------------

from pbem.core import text as words


@pytest.mark.parametrize("prompt, rule, cited, said", [
    ("turn 1: roll for initiative (automatic; the standing order rolls, K-INI-1)", "K-INI-1", True, None),
    ("place or move truck railheads (12.32-12.35)", "12.32", True, None),
    ("remove divisions over the directive's limit (16.33, 16.4)", "16.33", True, None),
    ("shift units between crossings (11.2(2)-(3)), then end.", "11.2(2)", True, None),
    ("retreat (9.10)", "9.10", True, None),
    ("retreat (19.1)", "9.1", False, "retreat (19.1, 9.1)"),          # into the bracket of rules
    ("retreat (9.10)", "9.1", False, "retreat (9.10, 9.1)"),
    ("roll (K-INI-12)", "K-INI-1", False, "roll (K-INI-12, K-INI-1)"),
    ("move, then end (K-MOV-1)", "K-MOV-4", False, "move, then end (K-MOV-1, K-MOV-4)"),
    ("end the phase", "house 3", False, "end the phase (house 3)"),
    ("move (the units of one battle group together)", "K-BG-1", False,
     "move (the units of one battle group together) (K-BG-1)"),                 # words, not rules
    ("end the phase.", "", False, "end the phase"),
    ("N2301 is beyond the range of AA/2 (12 hexes)", "14.41", False,
     "N2301 is beyond the range of AA/2 (12 hexes) (14.41)"),                    # a number, not a rule
    ("remove over the limit (16.33, 11.2(1))", "9.1", False, "remove over the limit (16.33, 11.2(1), 9.1)"),
    ("remove (house 6)", "house 7", False, "remove (house 6, house 7)"),
    ("remove (16.33, house 6)", "9.1", False, "remove (16.33, house 6) (9.1)"),              # rules of two kinds
    ("units of their stack (3320)", "9.1", False, "units of their stack (3320) (9.1)"),        # a hex, not a rule
    ("give one cell for each unit placed (B-PG-1)", "K-GM-2", False,
     "give one cell for each unit placed (B-PG-1) (K-GM-2)"),                                    # a unit, not a rule
])
def test_a_need_names_its_rule_once(prompt, rule, cited, said):
    assert words.cites(prompt, rule) is cited or not rule
    assert words.with_rule(prompt, rule) == (said if said is not None else prompt.rstrip("."))


def test_every_report_of_the_examples_names_a_rule_once_and_ends_no_sentence_twice():
    """In every line of every example report (void orders, the awaited line): a rule is not
    cited twice in a row ("(9.1) (9.1)"), and no prompt's full stop is left inside a sentence
    ("then end. (house 6)", "then end., which takes")."""
    import re

    checked = 0
    for aar in sorted(Path(__file__).resolve().parents[1].glob("examples/*/aar/*.md")):
        for line in aar.read_text().splitlines():
            assert not re.search(r"\b([\w.-]+\d)\)? \(\1\)", line), (aar, line)
            assert not re.search(r"[a-z]\. \(|[a-z]\.,", line), (aar, line)
        checked += 1
    # every example's reports: 198 in all at pbem 0.30.0 (a packet opens its own revealed items
    # since 0.29.0, so a kkoh game turn takes fewer)
    assert checked > 150


def test_a_reports_last_line_is_the_line_status_prints_of_its_state():
    """Who sends the next packet and what the game waits for is said in the same words by
    `pbem status` and by the report of the packet that led there: every report of every
    example ends with the awaited line of its own state."""
    from pbem.core import describe, game

    checked = 0
    for folder in sorted(Path(__file__).resolve().parents[1].glob("examples/*-demo")):
        opened = game.open_folder(folder)
        for seq in range(1, opened.state["seq"] + 1):
            state = game.load_state(folder, seq, opened.game)
            line = describe.awaited_line(opened.game, state, opened.game.summary(state["rules"]))
            assert line.startswith(("Awaited: ", "The game is over"))
            report = (folder / "aar" / f"{seq:04d}.md").read_text().splitlines()
            assert report[-1].replace("\\`", "`") == line, (folder.name, seq)
            checked += 1
    assert checked > 150   # every example's reports (198 at pbem 0.30.0)


def test_stalingrad_speaks_of_phases_as_players_do():
    """Prompts, phase events, the report's heading and the picture say "German movement
    phase", never the phase id "german-movement" (house 3)."""
    from pbem.rulesets.stalingrad import flow

    assert flow.phase_words("soviet-reinforcement") == "Soviet reinforcement phase"
    assert flow.phase_words(flow.WITHDRAWAL) == "German withdrawal phase (11.3)"
    reports = sorted(Path(__file__).resolve().parents[1].glob("examples/stalingrad-demo/aar/*.md"))
    assert len(reports) > 20 and "Game over" in reports[-1].read_text()   # a whole game
    text = "\n".join(aar.read_text() for aar in reports)
    for phase in flow.PHASES + (flow.WITHDRAWAL,):
        assert phase not in text
        assert flow.phase_words(phase) in text
    assert "Now: Turn 1 of 6, German combat phase." in text


def test_sealed_items_are_named_in_runs():
    """A side that seals one chit for each of 43 groups has items 2.1 to 2.43: status and the
    orders template say so, not the 43 names (players' probe: the list filled every email)."""
    from pbem.core.text import numbers, seal_names

    assert seal_names([f"2.{n}" for n in range(43, 0, -1)]) == "2.1 to 2.43"
    assert seal_names(["3.2", "2.1", "3.1", "2.3", "3.3"]) == "2.1, 2.3 and 3.1 to 3.3"
    assert seal_names(["2.4", "2.5"]) == "2.4 and 2.5" and seal_names(["7.1"]) == "7.1"
    # orders by number, as reports have always said them
    assert numbers([{"seq": 9, "index": i} for i in (8, 4, 5, 6)] + [{"seq": 11, "index": 1}]) == \
        "orders 4 to 6 and 8 of packet 9, and 1 of packet 11"


def test_a_template_says_why_a_sides_own_step_leaves_it_nothing_to_decide():
    """The awaited line names the sender's own step, decided already by a standing order or a
    queued order ("which finish a step german (you) has answered already: ... choose the attacking
    group to fire at"): the template says so before "You have nothing to decide now" (players' probe: the
    two lines read as a contradiction)."""
    from pbem.core import game, templates

    folder = Path(__file__).resolve().parents[1] / "examples" / "chir-demo"
    opened = game.open_folder(folder)
    state = game.load_state(folder, 2, opened.game)
    awaiting = state["awaiting"]
    assert awaiting["waiting_for"] == "dice" and awaiting["need"]["side"] == awaiting["packet_from"]
    text = templates.orders_template(opened.game, state, awaiting["packet_from"])
    said = "# The step the game waits for is yours, but you have answered it already (a standing order of"
    assert said in text and text.index(said) < text.index("# You have nothing to decide now")
    other = next(s for s in opened.game.sides if s != awaiting["packet_from"])
    assert said not in templates.orders_template(opened.game, state, other)
    # and every template says that standing orders answer the side's decisions in the opponent's
    # next phase (players' probe: the set-up packet's defaults fought the first attacks unnoticed)
    assert ("# Standing orders in force: they answer the decisions no order answers, among them yours in the\n"
            "# opponent's next phase, before your next packet (your defence of its attacks)") in text


def test_the_orders_template_with_a_key_names_the_decision_the_reveal_brings_and_its_answers(tmp_path):
    """`pbem orders --key`: where the side's reveal brings the game to a decision of its own (a
    standing order set to `ask`), the template names the decision and lists its answers, each
    naming the decision it answers, to write into this packet (players' probe: it said only
    "the game then waits for your decision"). The answer given there is taken."""
    import re

    import yaml

    from pbem.core import templates
    from tests.support.games import Match

    for seed in range(12):    # until red's fire hits, which asks blue where the hit falls
        m = Match(tmp_path / str(seed), "duel", key_seed=f"decision-{seed}")
        m.send("red", [])
        m.send("blue", [], policies={"absorb": "ask"})
        m.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}])
        state = m.state("blue")
        text = templates.orders_template(m.game, state, "blue", m.keys["blue"])
        if "own decision" in text:
            break
        assert "waits for your decision" not in text
    else:
        pytest.fail("no fire of red's hit in twelve games")
    listed = [yaml.safe_load(line) for line in re.findall(r"^#   - (.*)$", text, re.M)]
    key = listed[0]["decision"]
    assert f"# Your reveal resolves what is queued, and then the game comes to your own decision {key}." in text
    assert "#   which unit takes the hit on b1 (D3)." in text and f"# Legal orders then ({len(listed)}):" in text
    assert len(listed) > 1 and all(order["type"] == "absorb" and order["decision"] == key for order in listed)
    from pbem.core.game import preview_next          # adjudicate's preview says so too
    assert preview_next(m.game, state, m.keys["blue"])[-1]["text"] == (
        f"Then your own decision {key} (which unit takes the hit on b1): your packet can give its answer after its "
        f"reveal (`pbem orders --key` lists the answers).")
    from pbem.core import describe                    # and `pbem status --key`, after its awaited line
    told = describe.status(m.folders["blue"], "blue", key=m.keys["blue"])
    assert told["then"] == preview_next(m.game, state, m.keys["blue"])[-1]["text"]
    assert told["text"][told["text"].index(describe.awaited_line(m.game, state, m.game.summary(state["rules"]),
                                                                 "blue")) + 1] == told["then"]
    assert describe.status(m.folders["blue"], "blue")["then"] is None              # no key, or a public one (cli)
    assert describe.status(m.folders["red"], "red", key=m.keys["red"])["then"] is None   # not red's packet
    from pbem.core import keys as keyfiles            # the command: a private key file says it, its .pub not
    (tmp_path / "blue-key").write_bytes(keyfiles.private_key_bytes(m.keys["blue"]))
    (tmp_path / "blue-key.pub").write_text(m.keys["blue"].public.line() + "\n")
    assert told["then"] in lines(run("status", tmp_path / str(seed) / "blue", "--key", tmp_path / "blue-key"))
    assert not [line for line in lines(run("status", tmp_path / str(seed) / "blue", "--key", tmp_path / "blue-key.pub"))
                if line.startswith("Then your own")]
    # not "nothing to decide" (players' probe: sent as it was, it cost a round trip); the default
    # standing order's answer (here the first listed) is filled in, as for a decision awaited now
    assert "# You have nothing to decide now" not in text
    assert text.split("\norders:\n")[1].startswith(f"  - {{type: absorb, unit: {listed[0]['unit']}, decision: \"{key}\"}}\n")
    from pbem.core.submit import submit_orders
    tried = submit_orders(m.folders["blue"], [], None, key=m.keys["blue"], sent="2026-11-29T10:00:00Z", dry_run=True)
    assert [w for w in tried.warnings if "its reveal brings the game to your own" in w] == [
        f"this packet gives no orders, and its reveal brings the game to your own decision {key} (which unit takes "
        f"the hit on b1): your next packet gives it, after your opponent's, a round trip later (`pbem orders --key` "
        f"lists what this one could give)"]
    sent = submit_orders(m.folders["blue"], [yaml.safe_load(text.split("\norders:\n")[1].split("\n")[0][4:])], None,
                         key=m.keys["blue"], sent="2026-11-29T10:00:00Z", dry_run=True)
    assert sent.warnings == [] and sent.state["awaiting"]["waiting_for"] != "decision"   # the filled answer, as is
    answered = m.send("blue", [listed[-1]])     # the last answer, not what a standing order would give
    assert answered.state["awaiting"]["waiting_for"] != "decision"
    assert any(e["type"] == "loss" and e["text"].startswith(f"{listed[-1]['unit']} loses") for e in answered.events)


def test_a_sandbox_packet_without_orders_is_not_told_of_a_round_trip(tmp_path):
    """A sandbox game takes the next packet from the side it waits for, and has no keys: the
    warning of a secure game's round trip is not given there (review)."""
    from pbem.core import game
    from pbem.core.submit import submit_orders
    from tests.support.games import sandbox

    sandbox(tmp_path / "g", "duel", dice=[1])
    fires = [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r2", "target": "b1"}]
    submit_orders(game.open_folder(tmp_path / "g"), fires, None, sent="2026-11-29T10:00:00Z", side="red")
    tried = submit_orders(game.open_folder(tmp_path / "g"), [], None, sent="2026-11-29T10:00:00Z", dice=[1],
                          side="red")
    assert tried.state["awaiting"]["need"]["side"] == "red"       # the reveal brought red's own orders
    assert not [w for w in tried.warnings if "round trip" in w]


def _red_dry_run(root: Path, absorb: str, orders: list[dict]) -> list[str]:
    """The warnings of red's dry run of `orders` in a duel game where blue's standing order
    `absorb` is as given: red's fire hits, and blue's decision which unit takes it follows."""
    from pbem.core.submit import submit_orders
    from tests.support.games import Match

    m = Match(root, "duel", key_seed="look-ahead")
    m.send("red", [])
    m.send("blue", [], policies={"absorb": absorb})
    return submit_orders(m.folders["red"], orders, None, key=m.keys["red"], sent="2026-11-29T10:00:00Z",
                         dry_run=True).warnings


def test_the_dry_run_says_which_orders_its_look_ahead_could_not_reach(tmp_path):
    """The look-ahead plays the packet's orders with imagined dice; where a die it rolls
    brings the opponent's decision and his standing order is `ask`, the game stops there and
    the orders after it are not looked at. The dry run says so (players' probe: its silence
    read as "checked", and a void order behind an attack dropped the rest of the turn)."""
    fires = [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r2", "target": "b2"}]
    told = {absorb: [w for w in _red_dry_run(tmp_path / absorb, absorb, fires)
                     if w.startswith("the look-ahead could not reach")] for absorb in ("ask", "target")}
    assert told == {
        "ask": ["the look-ahead could not reach order 2 of this packet: after the dice (imagined here), the game "
                "waits for blue's decision 3.1/absorb (which unit takes the hit on b1), which blue's next packet gives (no standing "
                "order of blue's answers it); it is checked only when the game reaches it, and a void order drops "
                "those after it (your on_void: stop)"],
        "target": []}    # the same imagined hit, answered by blue's standing order: order 2 was looked at


def test_past_the_opponents_ask_the_dry_run_looks_with_his_default_answer_imagined(tmp_path):
    """Where the look-ahead stops at the opponent's decision his standing order leaves to him
    (`ask`), the orders behind it are looked at once more with that decision answered as pbem's
    default standing order would, and an order then void is said so, the answer imagined named
    (a players' probe: a second attack on one area, void whatever came, went out behind the
    opponent's `retreat_tie: ask` and dropped the rest of the turn)."""
    from pbem.core.submit import submit_orders
    from tests.support.games import Match

    twice = [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "fire", "unit": "r1", "target": "b2"}]
    told = {absorb: [w for w in _red_dry_run(tmp_path / absorb, absorb, twice) if "r1 has already fired" in w]
            for absorb in ("ask", "target")}
    assert told == {
        "ask": ["were blue to answer its decision 3.1/absorb as its default standing order (absorb: target) would, "
                "with one imagined roll of the dice, red order 2 of packet 3 (fire target=b2 unit=r1) is void: r1 has "
                "already fired this phase (D2)."],
        # answered by blue's standing order, the look-ahead reaches order 2 itself, and says so as ever
        "target": ["with four different imagined rolls of the dice, red order 2 of packet 3 (fire target=b2 unit=r1) "
                   "is void: r1 has already fired this phase (D2). It would most likely be void whatever the dice."]}
    # an order the look-ahead reached, void before the decision, is said once, not again as past it
    # (a review): red skips a void order (on_void: skip); its order 3 hits, and its order 4 waits
    # behind blue's decision which unit takes the hit (the keys' seed gives dice that do so)
    m = Match(tmp_path / "skip", "duel", key_seed="s0")
    m.send("red", [])
    m.send("blue", [], policies={"absorb": "ask"})
    m.send("red", [{"type": "end"}])
    m.send("blue", [{"type": "end"}])
    orders = twice + [{"type": "fire", "unit": "r2", "target": "b1"}, {"type": "end"}]
    warned = submit_orders(m.folders["red"], orders, {"on_void": "skip"}, key=m.keys["red"],
                           sent="2026-11-29T10:00:00Z", dry_run=True).warnings
    assert [w[:60] for w in warned] == ["with four different imagined rolls of the dice, red order 2 ",
                                        "the look-ahead could not reach order 4 of this packet: after"]


def test_the_template_says_the_opponent_reads_the_packet_except_where_orders_are_sealed(tmp_path):
    """Players' probe: a plan queued a player-turn ahead, and a defensive standing order, were
    taken for private. Where the rules ask for sealed orders, the template says what the
    opponent sees instead."""
    from pbem.core import templates
    from tests.support.games import Match

    line = "# Your opponent reads this packet whole: its orders, queued ones too, and its policies."
    duel = Match(tmp_path / "duel", "duel")
    assert line in templates.orders_template(duel.game, duel.state("red"), "red").splitlines()
    blind = Match(tmp_path / "blind", "blind")
    text = templates.orders_template(blind.game, blind.state("north"), "north")
    assert "# The rules ask you for sealed orders" in text and line not in text


def test_draws_in_a_row_are_one_line_of_the_report():
    """A pick among N (dos's untried strengths, its reinforcements and initial force) is a
    Draw; draws in a row are one line, each with its label, and a lone draw or die keeps its
    own (players' probe: 49 draw lines before the force they drew)."""
    import re

    from pbem.core import game, report

    dos = game.open_folder(Path(__file__).resolve().parents[1] / "examples" / "dos-demo")
    def draw(value, among, label):
        return {"type": "roll", "text": f"Draw: {value + 1} of {among} (segment 2, {label}).", "value": value,
                "among": among, "label": label, "index": 0, "segment": 2, "source": "chains"}
    events = [draw(50, 155, "setup.rifle.0"), draw(56, 154, "setup.rifle.1"), {"type": "x", "text": "Between."},
              draw(2, 3, "c1.draw.R/6"), {"type": "roll", "text": "Die: 4 (segment 2, c1 #1).", "value": 4,
                                           "label": "c1", "index": 1, "segment": 2, "source": "chains"}]
    lines = report.render(dos.game, dos.state, events, "text").splitlines()
    body = lines[lines.index("") + 1:]
    # the draws after the line they decided; a label's first roll has no "#0", its second is "#1"
    # labels that count up are said once, at the head of their run (an audience's walkthrough: a
    # line of 1,300 characters, the labels four fifths of it)
    assert body[:4] == ["- Between.", "- Draws (segment 2): setup.rifle.0 to setup.rifle.1: 51 of 155, 57 of 154.",
                        "- Draw: 3 of 3 (segment 2, c1.draw.R/6).", "- Die: 4 (segment 2, c1 #1)."]
    from pbem.cli.plain import preview_lines      # adjudicate's preview too (players' probe: 48 lines of draws)
    assert preview_lines([{"type": "packet", "text": "Packet 2 from soviet."}] + events) == [
        f"  {line}" for line in body[:4]]

    def said(labels, indices=None):
        run = [dict(draw(3, 9, label), index=index) for label, index in zip(labels, indices or [0] * len(labels))]
        return next(text for text in report.render(dos.game, dos.state, run, "text").splitlines()
                    if text.startswith("- Draws"))
    # labels that do not count up by one (a gap, a number written "07", two labels, a label's
    # second roll, no number) are each said beside its draw
    for labels, indices in ((["s.r.0", "s.r.2"], None), (["s.r.6", "s.r.07"], None), (["a.0", "b.1"], None),
                            (["s.r.0", "s.r.1"], [0, 1]), (["s.r.x", "s.r.y"], None)):
        assert said(labels, indices) == (f"- Draws (segment 2): 4 of 9 ({labels[0]}), "
                                         f"4 of 9 ({labels[1]}{' #1' if indices else ''})."), labels
    # runs of several labels, and a lone one among them, each said at its head
    assert said(["s.r.0", "s.r.1", "s.r.2", "s.c.0", "s.h.0", "s.h.1"]) == (
        "- Draws (segment 2): s.r.0 to s.r.2: 4 of 9, 4 of 9, 4 of 9; s.c.0: 4 of 9; s.h.0 to s.h.1: 4 of 9, 4 of 9.")
    example = (Path(__file__).resolve().parents[1] / "examples" / "dos-demo" / "aar" / "0002.md").read_text()
    line = next(text for text in example.splitlines() if text.startswith("  - Draws (segment 2): setup."))
    runs = dict(run.split(": ", 1) for run in line.removeprefix("  - Draws (segment 2): ").rstrip(".").split("; "))
    (head, rifles), = [(k, v) for k, v in runs.items() if k.startswith("setup.rifle.0 to setup.rifle.")]
    pool = [int(n) for n in re.findall(r"\d+ of (\d+)", rifles)]
    assert len(pool) > 20 and head == f"setup.rifle.0 to setup.rifle.{len(pool) - 1}"   # the Soviet initial force (5.21)
    assert pool == list(range(pool[0], pool[0] - len(pool), -1))     # one pool, one fewer each time
    drawn = re.findall(r"\d+ of \d+", line)
    assert len(drawn) > 40
    assert len(line) < len(drawn) * 16   # each label beside its draw took some 27 characters a draw
    assert not re.search(r"^  - Draw: .*\(segment 2, setup\.", example, re.M)


def test_a_sides_queued_orders_are_named_by_status_and_its_template_and_a_repeat_is_warned_of(tmp_path):
    """Players' probe: orders queued packets ago (an attack and an `end` waiting behind the
    opponent's decisions) were named nowhere, and written again they would have been applied
    twice. `pbem status` names every queued order, the template names the side's own, and
    `pbem submit` warns of an order that repeats one still queued."""
    from pbem.core import describe, templates
    from pbem.core.submit import submit_orders
    from tests.support.games import Match

    for seed in range(12):    # until red's fire hits and blue's decision holds red's `end` in the queue
        m = Match(tmp_path / str(seed), "duel", key_seed=f"decision-{seed}")
        m.send("red", [])
        m.send("blue", [], policies={"absorb": "ask"})
        m.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}, {"type": "end"}])
        m.send("blue", [])
        state = m.state("red")
        if state["queue"]:
            break
    else:
        pytest.fail("no fire of red's hit in twelve games")
    assert state["awaiting"]["packet_from"] == "red" and state["awaiting"]["waiting_for"] == "decision"
    told = describe.status(m.folders["red"], "red")
    assert "Queued orders (red 1) are applied as the game reaches them: red order 2 of packet 3 (end)." in told["text"]
    assert told["queue"] == [{"side": "red", "seq": 3, "index": 2, "order": {"type": "end"}}]
    text = templates.orders_template(m.game, state, "red")
    assert ("# Your order still queued from earlier packets, applied as the game reaches it (do not write it again):\n"
            "#   order 2 of packet 3: {type: end}\n") in text
    assert "still queued" not in templates.orders_template(m.game, state, "blue")
    # an answer written ahead for a decision: its key is said, with what writing it again does
    # (a new user's probe: the queue keeps the key beside the order, where the template never looked)
    ahead = dict(state, queue=state["queue"] + [{"side": "red", "seq": 3, "index": 3, "decision": "5.1/absorb",
                                                 "order": {"type": "absorb", "unit": "r2"}}])
    assert ("#   order 3 of packet 3: {type: absorb, unit: r2} (an answer to decision 5.1/absorb: one written again to "
            "it replaces it)\n") in templates.orders_template(m.game, ahead, "red")
    tried = submit_orders(m.folders["red"], [{"type": "end"}], None, key=m.keys["red"], sent="2026-11-29T10:00:00Z", dry_run=True)
    assert [w for w in tried.warnings if "repeats" in w] == [
        "order 1 (end) repeats order 2 of your packet 3, still queued: both will be applied as the game reaches them "
        "(`pbem status` lists your queued orders); leave this one out unless you mean it twice"]
    tried = submit_orders(m.folders["red"], [], None, key=m.keys["red"], sent="2026-11-29T10:00:00Z", dry_run=True)
    assert not [w for w in tried.warnings if "repeats" in w]


def test_status_names_the_first_queued_orders_and_counts_the_rest():
    from pbem.core import describe

    queue = [{"side": "axis", "seq": 4, "index": n, "order": {"type": "move", "units": [f"G/{n}"], "to": "N0101"}}
             for n in range(1, 11)]
    assert describe.queued_list(queue) == (
        " " + "; ".join(f"axis order {n} of packet 4 (move to=N0101 units=G/{n})" for n in range(1, 9))
        + "; and 2 more (`pbem status --json` lists them all).")


def test_status_names_a_packet_of_the_folder_that_was_never_applied(tmp_path):
    """Players' probe: with a state file lost, `pbem status` went on from the state before and
    said nothing of the packet waiting in packets/; it now names it and the command that
    applies it, and that command does."""
    import shutil

    from pbem.core import describe, game

    folder = tmp_path / "chir"
    shutil.copytree(Path(__file__).parent.parent / "examples" / "chir-demo", folder)
    last = max(seq for seq, _ in game.packet_files(folder))
    name = game.packet_files(folder, last)[0][1].name
    assert describe.status(game.open_folder(folder))["unapplied"] == []
    (folder / "states" / f"{last:04d}.yaml").unlink()
    (folder / "aar" / f"{last:04d}.md").unlink()
    opened = game.open_folder(folder)
    info = describe.status(opened)
    assert opened.state["seq"] == last - 1 and info["unapplied"] == [{"seq": last, "path": str(folder / "packets" / name)}]
    assert (f"packets/{name} is in the folder but was never applied (its state, states/{last:04d}.yaml, is missing): "
            f"`pbem adjudicate {folder} {folder / 'packets' / name}` applies it.") in info["text"]
    packet, data = game.read_packet(folder / "packets" / name)
    game.adjudicate(opened, packet, data, f"packets/{name}")
    assert describe.status(game.open_folder(folder))["unapplied"] == []
    for seq in (last - 1, last):   # two lost: the first is applied first, the second after it
        (folder / "states" / f"{seq:04d}.yaml").unlink()
    text = describe.status(game.open_folder(folder))["text"]
    said = [line for line in text if "was never applied" in line]
    assert len(said) == 2 and said[0].endswith("applies it.") and said[1].endswith("after it.")


def test_the_template_of_a_decision_lists_the_next_decision_of_the_same_side_the_answer_brings(tmp_path):
    """Players' probe: a German player choosing his retreat hex by hex answered one hex a
    packet, and waited a round trip for each next one. With the key, the template of the
    decision looks past the answer filled in: where the game then asks the same side again
    (the next hex, 2.1/retreat/2), it lists those answers, to write in the same packet; and
    written there, they are taken."""
    import re

    import yaml

    from pbem.core import templates

    m = match(tmp_path, chir.RULESET, "historical", CHIR_POSITION, key_seed="words-12")   # as chir_decision, not shared
    m.send("german", [], {"defensive_fire": "none", "morale": "retreat", "retreat": "ask"})
    m.send("soviet", [ATTACK, {"type": "end", "phase": "attack"}])
    m.send("german", [])
    m.send("soviet", [])
    state = m.state("german")
    assert (state["awaiting"]["packet_from"], state["awaiting"]["decision"]) == ("german", "2.1/retreat")
    text = templates.orders_template(m.game, state, "german", m.keys["german"])
    head = ("# With the answer filled in, the game then comes to your own decision 2.1/retreat/2:\n"
            "# its answer can follow in this same packet (another answer may bring another decision).\n")
    assert head in text and head not in templates.orders_template(m.game, state, "german")   # the key looks ahead
    after = text.split(head)[1]
    nexts = [yaml.safe_load(line) for line in re.findall(r"^#   - (.*)$", after, re.M)]
    assert nexts and all(o["type"] == "retreat" and o["decision"] == "2.1/retreat/2" for o in nexts)
    first = yaml.safe_load(text.split("\norders:\n")[1].split("\n")[0][4:])
    applied = m.send("german", [first, nexts[0]])
    assert [e["text"] for e in applied.events if e["type"] == "order" and e["side"] == "german"] == [
        f"german order 1 of packet 5: retreat to={first['to']} (answers decision 2.1/retreat)",
        f"german order 2 of packet 5: retreat to={nexts[0]['to']} (answers decision 2.1/retreat/2)"]


def test_a_report_says_which_standing_orders_a_packet_changes(tmp_path):
    """Players' probe: a packet that set `retreat: ask` and more showed it in the packet file
    alone; its report said only that it took effect. The report now names each standing order
    the packet changes, from what to what, and none that it sets to what it was."""
    from tests.support.games import Match

    m = Match(tmp_path, "duel", key_seed="standing")
    applied = m.send("red", [], policies={"absorb": "ask", "on_void": "stop"})
    changed = [e for e in applied.events if e["type"] == "standing-orders"]
    assert [(e["side"], e["changes"], e["text"]) for e in changed] == [
        ("red", {"absorb": "ask"}, "red changes its standing orders: absorb target -> ask.")]
    report = (tmp_path / "red" / "aar" / "0001.md").read_text()
    assert "red changes its standing orders: absorb target -> ask." in report
    assert report.index("takes effect") < report.index("changes its standing orders")
    again = m.send("blue", [], policies={"absorb": "target"})        # blue's own: the default it had
    assert not [e for e in again.events if e["type"] == "standing-orders"]
    back = m.send("red", [], policies={"absorb": "target"})
    assert [e["text"] for e in back.events if e["type"] == "standing-orders"] == [
        "red changes its standing orders: absorb ask -> target."]


def test_template_notes_never_break_a_unit_id_at_its_hyphens():
    """A players' probe: a kkoh template's note wrapped "R-MRR-Mrs3" as "R-MRR-" and "Mrs3" on
    two comment lines: ids with hyphens are whole on one line."""
    from pbem.core import templates

    ids = [f"R-MRR-Mrs{n}" for n in range(1, 30)]
    lines = templates._noted("The groups of " + ", ".join(ids) + " may not move this phase.")
    assert len(lines) > 2
    words = [word.strip(",.") for line in lines for word in line[2:].split()]
    assert all(u in words for u in ids) and not [w for w in words if w.endswith("-")]


def test_a_sealed_plans_padding_is_one_line_of_the_report():
    """A players' probe: a kkoh fire plan opened with its padding read as 83 lines "red order N
    of packet 10: end" around one shot. Opened items in a row that are the same order are one
    line; an order given openly, or another order between, keeps its own."""
    import re

    from pbem.core import game, report

    kkoh = game.open_folder(Path(__file__).resolve().parents[1] / "examples" / "kkoh-demo")

    def order(index, kind, opened=True):
        return {"type": "order", "text": f"red order {index} of packet 10: {kind}", "side": "red", "seq": 10,
                "index": index, "order": {"type": kind}, **({"opened": f"8.{index}"} if opened else {})}
    events = ([order(1, "fire"), {"type": "fire-planned", "text": "red: R-Rec1 will fire at B-Rec1 in 1006."}]
              + [order(i, "end") for i in range(2, 85)] + [order(85, "end", opened=False), order(86, "end", False)])
    lines = report.render(kkoh.game, kkoh.state, events, "text").splitlines()
    body = lines[lines.index("") + 1:]
    assert body[:5] == ["- red order 1 of packet 10: fire", "- red: R-Rec1 will fire at B-Rec1 in 1006.",
                        "- red orders 2 to 84 of packet 10: end, each", "- red order 85 of packet 10: end",
                        "- red order 86 of packet 10: end"]
    from pbem.cli.plain import preview_lines
    assert preview_lines([{"type": "packet", "text": "Packet 10 from red."}] + events) == [
        f"  {line}" for line in body[:5]]
    example = "".join(p.read_text() for p in sorted((kkoh.path / "aar").glob("*.md")))
    assert re.search(r"^- (blue|red) orders \d+ to \d+ of packet \d+: end, each$", example, re.M)


def test_the_dry_run_says_so_where_its_look_ahead_stops_at_the_senders_own_decision(tmp_path):
    """A players' probe: a chir move queued behind a defensive fire met, after the fire's dice,
    the sender's own morale test, which no standing order answers; the look-ahead stopped
    there and the dry run said nothing, though the move was to meet a phase that takes no move.
    Where the look-ahead stops at the sender's own decision, it says so too."""
    import copy

    from pbem.core.submit import unlooked
    from tests.support.games import Match

    m = Match(tmp_path, "duel", key_seed="own-decision")
    m.send("red", [])
    after = copy.deepcopy(m.state("red"))
    seq = after["seq"]
    after["queue"] = [{"seq": seq, "side": "red", "index": 2, "order": {"type": "fire", "unit": "r2", "target": "b2"}}]
    after["awaiting"] = {"packet_from": "red", "waiting_for": "decision", "decision": f"{seq}.1/absorb",
                         "need": {"side": "red", "kind": "absorb", "prompt": "which unit takes the hit on r1"}}
    assert unlooked(m.game, after, "red", seq) == [
        f"the look-ahead could not reach order 2 of this packet: after the dice (imagined here), the game waits for "
        f"your decision {seq}.1/absorb (which unit takes the hit on r1), which your next packet gives; it is checked only when the "
        f"game reaches it, and a void order drops those after it (your on_void: stop)"]
    after["awaiting"]["waiting_for"] = "dice"      # dice the next packet opens: `kept` and the look-ahead speak then
    assert unlooked(m.game, after, "red", seq) == []


def test_submit_warns_of_two_answers_to_one_decision_in_a_packet(tmp_path):
    """A players' probe: two answers to one decision in one packet; the later replaces the
    earlier (DESIGN §4.3), and the report spoke of one alone. `pbem submit` says so."""
    from pbem.core.submit import submit_orders
    from tests.support.games import Match

    m = Match(tmp_path, "duel", key_seed="twice")
    m.send("red", [])
    m.send("blue", [], policies={"absorb": "ask"})
    m.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}])
    orders = [{"type": "absorb", "unit": "b1", "decision": "3.1/absorb"},
              {"type": "absorb", "unit": "b2", "decision": "3.1/absorb"}]
    tried = submit_orders(m.folders["blue"], orders, None, key=m.keys["blue"], sent="2026-11-29T10:00:00Z",
                          dry_run=True)
    assert [w for w in tried.warnings if "answer decision" in w] == [
        "orders 1 and 2 both answer decision 3.1/absorb: a later answer to a decision replaces an earlier one, so only "
        "order 2 is used"]


def test_an_order_below_the_end_of_the_phase_it_belongs_to_is_warned_of(tmp_path):
    """A players' probe: a chir player added his attacks below the `end` the template filled in
    for the concentrated attack phase; they were made as manoeuvre attacks in the movement phase,
    and nothing said so. The template says where this phase's orders go, and submit warns of an
    order of a type the closed phase takes written below its `end`."""
    from pbem.core import templates
    from pbem.core.submit import submit_orders

    m = match(tmp_path, chir.RULESET, "historical", CHIR_POSITION)
    m.send("german", [])
    template = templates.orders_template(m.game, m.state("soviet"), "soviet", m.keys["soviet"])
    assert ("orders:\n  - {type: end}   # closes the phase: this phase's orders go above it, the next phase's below\n"
            in template)
    one = {"type": "attack", "target": "3320", "units": ["333/1116"], "support": []}   # a manoeuvre attack too
    tried = submit_orders(m.folders["soviet"], [{"type": "end"}, one], None, key=m.keys["soviet"],
                          sent="2026-11-29T10:00:00Z", dry_run=True)
    assert ("order 2 of packet 2 comes below order 1 (end), which closes GT 1, soviet concentrated attack phase: it "
            "is played in the phases after it, not in this one; this phase's orders go above the `end`") in tried.warnings
    tried = submit_orders(m.folders["soviet"], [one, {"type": "end"}], None, key=m.keys["soviet"],
                          sent="2026-11-29T10:00:00Z", dry_run=True)
    assert not [w for w in tried.warnings if "below order" in w]


def test_status_and_the_template_say_which_orders_the_last_packet_made_void(tmp_path):
    """A players' probe: a queued order that went void (and the orders after it dropped) was
    said only among the eighty lines of the report; status and the template of the side said
    nothing, and the player thought her turn done. The chir example cut at the first report
    with a void order: status says it, and the template of that side, not the other's."""
    import re
    import shutil

    example = Path(__file__).resolve().parents[1] / "examples" / "chir-demo"
    seq, line = next((int(p.stem), found) for p in sorted((example / "aar").glob("*.md"))
                     for found in p.read_text().splitlines() if " is void: " in found)
    folder = tmp_path / "g"
    shutil.copytree(example, folder)
    for kind in ("states", "aar", "packets"):
        for path in (folder / kind).iterdir():
            if int(path.name[:4]) > seq:
                path.unlink()
    said = re.sub(r"\\([\\`*_\[\]<|~&])", r"\1", line[2:])   # the report's Markdown escapes undone (text.markdown)
    side = said.split()[0]
    assert re.fullmatch(r"(german|soviet) order \d+ of packet \d+ \(.*\) is void: .*", said)
    status = run("status", folder)
    assert f"Void in packet {seq}'s resolution (aar/{seq:04d}.md): {said}" in status.splitlines()
    assert f"# Void in packet {seq}: {said}" in run("orders", folder, "--side", side).splitlines()
    other = "german" if side == "soviet" else "soviet"
    assert "# Void in packet" not in run("orders", folder, "--side", other)

    # a cheater's probe: void lines added to the report file of a folder handed over were printed
    # by status and the template as pbem's own; they come from the packet's replay, not the file
    forged = f"- {other} order 1 of packet {seq} (end) is void: RESULT: {side} resigned (audit OK)."
    with (folder / "aar" / f"{seq:04d}.md").open("a", encoding="utf-8") as report:
        report.write("\n" + forged + "\n")
    assert "resigned" not in run("status", folder) and "resigned" not in run("orders", folder, "--side", other)
    assert f"Void in packet {seq}'s resolution (aar/{seq:04d}.md): {said}" in run("status", folder).splitlines()
    voids = json.loads(run("status", folder, "--json"))["voids"]
    from pbem.core.text import markdown

    assert said in voids and all(f"- {markdown(void)}" in (example / "aar" / f"{seq:04d}.md").read_text()
                                 for void in voids)


def test_orders_only_a_mistyped_id_names_the_id_meant(tmp_path):
    """A players' probe: `pbem orders --only 1TC/44A` said "0 of them name 1TC/44A", where show
    and submit name the id meant."""
    made = CliRunner().invoke(cli, ["new", str(tmp_path / "g"), "--ruleset", "chir", "--side", "german", "--side",
                                    "soviet", "--sandbox", "--created", "x"])
    assert made.exit_code == 0, made.output
    text = run("orders", tmp_path / "g", "--side", "german", "--only", "A/i")
    assert re.search(r"\(\d+; 0 of them name A/i \(did you mean A/I\?\)\)", text), text[:600]
    text = run("orders", tmp_path / "g", "--side", "german", "--only", "A/I")
    assert "did you mean" not in text and re.search(r"\(\d+; [1-9]\d* of them name A/I\)", text)
    # a real hex, a Soviet unit and an order type that no legal order names now are no typos (a
    # user's probe: `--only 2832` was asked "did you mean 2732?")
    for real in ("2832", "1001", "346/a", "retreat"):
        text = run("orders", tmp_path / "g", "--side", "german", "--only", real)
        assert re.search(rf"\(\d+; 0 of them name {real}\)", text), text[:600]


def test_the_look_ahead_says_after_the_dice_only_where_it_rolled_some(tmp_path):
    """A players' probe: "after the dice, the game waits for german's decision 2.1/defensive-fire"
    was said of a chir attack whose defender is asked to fire before any die is rolled."""
    from pbem.core.submit import submit_orders

    m = match(tmp_path, chir.RULESET, "historical", CHIR_POSITION)
    m.send("german", [], {"defensive_fire": "ask"})
    tried = submit_orders(m.folders["soviet"], [ATTACK, {"type": "end", "phase": "attack"}], None,
                          key=m.keys["soviet"], sent="2026-11-29T10:00:00Z", dry_run=True)
    told = [w for w in tried.warnings if w.startswith("the look-ahead could not reach")]
    assert told == ["the look-ahead could not reach order 2 of this packet: the game waits for german's decision "
                    "2.1/defensive-fire (" + told[0].split(" (", 1)[1]] and "after the dice" not in told[0], told


def test_the_template_says_which_queued_orders_the_senders_reveal_makes_void_or_drops():
    """`pbem orders --key`: under "still queued", an order the look ahead of the sender's next
    packet finds void says so with the reason, and an order dropped behind it (on_void: stop)
    says that (a players' probe: an `end` was listed as still to come, which the reveal was to
    drop); an order taken, or left queued, has no line. The events are the engine's own."""
    from pbem.core import templates

    def item(index):
        return {"side": "german", "seq": 5, "index": index, "order": {"type": "attack", "area": "station-1"}}

    events = [{"type": "order", "side": "german", "seq": 5, "index": 15, "text": "german order 15 of packet 5: ..."},
              {"type": "void", "side": "german", "seq": 5, "index": 16, "dropped": 2,
               "text": "german order 16 of packet 5 (attack area=station-1) is void: station-1 was already attacked "
                       "this phase (house 6.1); its queued order 17 of packet 5 is dropped too (standing order "
                       "on_void: stop)."},
              {"type": "void", "side": "soviet", "seq": 5, "index": 17, "text": "another side's: not german's"}]
    after = {"queue": [item(18)]}
    assert templates._fate(item(15), after, events) == []                 # taken
    assert templates._fate(item(18), after, events) == []                 # still queued after the reveal
    assert templates._fate(item(16), after, events) == [
        "#     void once your reveal brings the game to it: station-1 was already attacked this phase",
        "#     (house 6.1); its queued order 17 of packet 5 is dropped too (standing order on_void: stop)."]
    assert templates._fate(item(17), after, events) == [
        "#     dropped with the void order before it, once your reveal brings the game there"]
    # gone from the queue with no void order before it (the game over, say): nothing said of it
    assert templates._fate(item(17), after, [e for e in events if e["index"] != 16]) == []
    # on_void: stop drops the side's queued orders of later packets too (a review)
    later = dict(item(2), seq=7)
    assert templates._fate(later, after, events) == [
        "#     dropped with the void order before it, once your reveal brings the game there"]


def test_diff_says_the_units_of_a_side_that_passed_alike_off_the_map_in_one_line():
    """`show --diff`: units of one side that passed alike from one status off the map to another
    (dos reinforcements drawn, "ready to enter") are said in one line (a players' probe: 36 such
    lines on a Game-Turn buried its moves and losses); units that left the map, each from its
    own hex, keep a line each; `--json` keeps a change for each unit."""
    from pbem.core import describe

    ready = {"ready": "ready to enter as a reinforcement (15.1, 15.3)"}
    before = {"pool": "not in play yet (15.0)"}
    off = {"status": "pool", "where": None, "side": "soviet", "strength": 2, "full": 2, "markers": []}
    found = [change for uid in ("R/98", "R/99", "TC/2") for change in describe._unit_changes(
        uid, off, dict(off, status="ready"), before, ready, "step")]
    found += describe._unit_changes("G/57", {"status": "map", "where": "N2246", "side": "axis", "strength": 9,
                                             "full": 9, "markers": []},
                                    {"status": "gone", "where": None, "side": "axis", "strength": 0, "full": 9,
                                     "markers": []}, {}, {"gone": "eliminated"}, "step")
    found += describe._unit_changes("R/6", off, dict(off, status="ready"), before, ready, "step")
    assert [c["kind"] for c in found] == ["leave"] * 5
    assert describe._alike_together(found) == [
        "R/98, R/99, TC/2, R/6 (soviet) are now ready to enter as a reinforcement (15.1, 15.3); they were not in "
        "play yet (15.0).",
        "G/57 (axis) is now eliminated; it was in N2246."]
