"""dos and chir scenario documents a proposer crafts (a probe of crafted scenarios): a document
that counted a city's or a place's VP twice, broke play at a Game-Turn its dates did not name,
gave an Axis unit a Soviet type, let one shift stand for another, or named a road step between
hexes that are not neighbours without saying where, is refused, naming the entry. Each
mutation here is of the bundled scenario; the bundled one is accepted as it is."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem.rulesets.chir import scenario as chir_scenario
from pbem.rulesets.dos import scenario as dos_scenario

DOS = dos_scenario.load_historical()
CHIR = chir_scenario.load_historical()


def _unit(doc: dict, side: str, uid: str) -> dict:
    return next(u for u in doc["oob"]["units"][side] if u["id"] == uid)


DOS_REFUSED = [
    (lambda d: d["map"]["cities"].append(dict(d["map"]["cities"][0], hexes=["N0101"])),
     "dos scenario: map.cities[69]: {first} is given twice, or shares a hex with a city before it"),
    (lambda d: d["map"]["cities"].append(dict(d["map"]["cities"][0], name="Elsewhere")),
     "dos scenario: map.cities[69]: Elsewhere is given twice, or shares a hex with a city before it"),
    (lambda d: d["victory"]["cities"].append(dict(d["victory"]["cities"][0], name="Atlantis")),
     "dos scenario: victory.cities: Atlantis is no city of the map"),
    (lambda d: d["schedule"]["dates"].update(turns=d["schedule"]["dates"]["turns"][:2]),
     "dos scenario: schedule.dates.turns: 2 dates for 25 Game-Turns"),
    (lambda d: _unit(d, "axis", "G/9").update(type="sov-hq"),
     "dos scenario: oob.units.axis: unit G/9 is of type 'sov-hq' (soviet) and nation soviet, not of axis's types and "
     "nations"),
    (lambda d: _unit(d, "axis", "G/9").update(type="sov-hq", nation="german"),    # the nation given, the type Soviet
     "dos scenario: oob.units.axis: unit G/9 is of type 'sov-hq' (soviet) and nation german, not of axis's types and "
     "nations"),
    (lambda d: _unit(d, "axis", "G/9").update(type="nope"),
     "dos scenario: oob.units.axis: unit G/9 is of type 'nope', which oob.types does not define"),
    # hexes outside the playing area (S0742 is sea), named by their entry
    (lambda d: d["map"]["rail"][0].append("S0742"),
     "dos scenario: map.rail[0]: S0742 is not a land hex of the playing area"),
    (lambda d: d["map"]["rail_links"][1]["hexes"].__setitem__(1, "S0742"),
     "dos scenario: map.rail_links[1]: S0742 is not a land hex of the playing area"),
    (lambda d: d["map"]["front_line"].append("S0742"),
     "dos scenario: map.front_line: S0742 is not a land hex of the playing area"),
    (lambda d: d["victory"]["special"]["voronezh"]["hexes"].__setitem__(0, "S0742"),
     "dos scenario: victory.special.voronezh.hexes: S0742 is not a land hex of the playing area"),
]


CHIR_REFUSED = [
    (lambda d: d["victory"]["places"]["list"].append(dict(d["victory"]["places"]["list"][0])),
     "chir scenario: victory.places.list[{n}]: {place} is given twice, or shares a hex with a place before it (4.1)"),
    (lambda d: d["crt"]["shifts"].append(dict(d["crt"]["shifts"][0], shift=5)),
     "chir scenario: crt.shifts: the shift {shift!r} is given twice"),
    (lambda d: d["map"]["roads"][0].update(hexes=[d["map"]["roads"][0]["hexes"][0], "1020"]),
     "chir scenario: map.roads[0]: {road} and 1020 are not adjacent: they share no hexside"),
]


PLACES = CHIR["victory"]["places"]["list"]
WORDS = {"first": DOS["map"]["cities"][0]["name"], "n": len(PLACES), "place": PLACES[0]["name"],
         "shift": CHIR["crt"]["shifts"][0]["id"], "road": CHIR["map"]["roads"][0]["hexes"][0]}


@pytest.mark.parametrize("module, bundled, change, refusal",
                         [(dos_scenario, DOS, *case) for case in DOS_REFUSED]
                         + [(chir_scenario, CHIR, *case) for case in CHIR_REFUSED])
def test_a_crafted_scenario_is_refused_naming_its_fault(module, bundled, change, refusal):
    doc = copy.deepcopy(bundled)
    change(doc)
    with pytest.raises(ValueError) as refused:
        module.Scenario(doc, {})
    assert str(refused.value) == refusal.format(**WORDS)


def test_the_bundled_scenarios_are_accepted_as_they_are():
    assert dos_scenario.Scenario(copy.deepcopy(DOS), {}).last_turn == 25
    assert len(chir_scenario.Scenario(copy.deepcopy(CHIR), {}).places) == len(CHIR["victory"]["places"]["list"])


@pytest.mark.parametrize("ruleset_id, position, said", [
    ("stalingrad", {"turn": 6, "phase": "combat"},
     "stalingrad scenario: position.phase: 'combat' is not one of: german-reinforcement, german-withdrawal, "
     "german-movement, german-combat, soviet-reinforcement, soviet-movement, soviet-combat"),
    ("stalingrad", {"turn": 9, "phase": "soviet-combat"}, "stalingrad position: turn 9 is after the game's last turn, 6."),
    ("stalingrad", {"turn": 0, "phase": "soviet-combat"}, "stalingrad scenario: position.turn: 0 is less than the minimum of 1"),
    ("chir", {"turn": 20, "player": "soviet", "phase": "attack", "units": {}},
     "chir position: turn 20 is after the game's last turn, 12 (4.0)"),
    ("dos", {"turn": 30, "player": "axis", "phase": "move", "units": {}},
     "dos scenario: position.turn: Game-Turn 30 is after the game's last, 25"),
])
def test_a_referees_position_at_no_phase_or_turn_of_the_game_is_refused_in_words(tmp_path, monkeypatch, ruleset_id,
                                                                                 position, said):
    """A referee's probe: a stalingrad position at phase `combat` (no such phase) stopped `pbem
    new` with a traceback, and one at turn 9 of 6 (or chir's GT 20 of 12) was set up and played
    on; the refusal blamed a game.yaml that was never written, not the file given."""
    from click.testing import CliRunner

    from pbem import rulesets
    from pbem.cli import cli
    from pbem.core.canonical import dumps

    monkeypatch.chdir(tmp_path)
    doc = rulesets.get(ruleset_id).scenarios[rulesets.get(ruleset_id).default_scenario]()
    doc["position"] = position
    Path("pos.yaml").write_text(dumps(doc))
    result = CliRunner().invoke(cli, ["new", "g", "--ruleset", ruleset_id, "--scenario", "pos.yaml", "--sandbox",
                                      "--side", rulesets.get(ruleset_id).sides[0], "--side",
                                      rulesets.get(ruleset_id).sides[1], "--dice", "4,4"])
    assert (result.exit_code, result.stderr) == (4, f"pbem: pos.yaml: the scenario cannot be set up: {said}\n")
    assert not Path("g").exists()


def test_the_stalingrad_position_takes_the_phases_the_game_has():
    import json

    from pbem.rulesets.stalingrad import flow

    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "stalingrad-scenario.schema.json").read_text())
    assert sorted(schema["properties"]["position"]["properties"]["phase"]["enum"]) == sorted(flow._PROMPTS)
