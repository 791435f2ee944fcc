"""dos and chir scenario documents a proposer crafts (a probe of crafted scenarios): a document
that counted a city's or a place's VP twice, broke play at a Game-Turn its dates did not name,
gave an Axis unit a Soviet type, let one shift stand for another, or named a road step between
hexes that are not neighbours without saying where, is refused, naming the entry. Each
mutation here is of the bundled scenario; the bundled one is accepted as it is."""

from __future__ import annotations

import copy

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
