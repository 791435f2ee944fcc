"""Scenario objects of one document but for its starting position (rulesets/base.py,
`built_but_for_position`): chir and dos share everything the map, the units and the charts
make, and nothing else. A cheater's crafted position, or a referee's, must still be checked
whole, be its own, and never leak into another game's scenario."""

from __future__ import annotations

import pickle

import pytest

from pbem import rulesets
from pbem.rulesets import base

POSITIONS = {
    "dos": {"turn": 3, "player": "axis", "phase": "move",
            "units": {"6/3Pz": {"hex": "N0129"}, "G/57": {"hex": "N0129"}, "HQ/2Hun": {"hex": "N0129"}}},
    "chir": {"turn": 1, "player": "german", "phase": "attack", "units": {"LW/I": {"hex": "3319"}}},
}
# the entry of a unit in each ruleset's order of battle
FIRST_UNIT = {"dos": lambda doc: doc["oob"]["units"]["axis"][0],
              "chir": lambda doc: doc["oob"]["german"][0]["units"][0]}


def _made(ruleset_id: str, position: dict | None = None, options: dict | None = None, doc: dict | None = None,
          fresh: bool = False):
    """The ruleset's scenario object of its bundled document (or `doc`) with `position`;
    `fresh`: made by the scenario class itself, sharing nothing."""
    import importlib

    ruleset = rulesets.get(ruleset_id)
    doc = doc if doc is not None else ruleset.scenarios[ruleset.default_scenario]()
    if position is not None:
        doc["position"] = position
    make = importlib.import_module(f"pbem.rulesets.{ruleset_id}.scenario").Scenario if fresh else ruleset.scenario
    return make(doc, dict(ruleset.options) if options is None else options)


def _later(ruleset_id: str) -> dict:
    """Another position on the same map: a turn later."""
    return dict(POSITIONS[ruleset_id], turn=POSITIONS[ruleset_id]["turn"] + 1)


@pytest.mark.parametrize("ruleset_id", sorted(POSITIONS))
def test_a_position_is_its_own_and_the_rest_is_made_once(ruleset_id):
    placed = _made(ruleset_id, POSITIONS[ruleset_id])
    again = _made(ruleset_id, POSITIONS[ruleset_id])
    later = _made(ruleset_id, _later(ruleset_id))
    assert placed is not again and again is not later      # each caller its own object
    assert placed.position == again.position == POSITIONS[ruleset_id] and later.position == _later(ruleset_id)
    assert placed.position is not again.position             # a copy each: no change of one reaches another
    placed.position["turn"] = 99
    assert again.position["turn"] == POSITIONS[ruleset_id]["turn"]
    shared = [name for name in vars(later) if name != "position"]
    assert len(shared) > 20 and all(getattr(placed, name) is getattr(later, name) for name in shared)
    # the same object as the class makes it afresh: the same attributes, the same values
    fresh = _made(ruleset_id, _later(ruleset_id), fresh=True)
    assert sorted(vars(fresh)) == sorted(vars(later))
    assert pickle.dumps(fresh.position) == pickle.dumps(later.position)
    for name in ("ids", "units", "unit_ids", "side_of"):
        if hasattr(fresh, name):
            assert getattr(fresh, name) == getattr(later, name), name


@pytest.mark.parametrize("ruleset_id", sorted(POSITIONS))
def test_a_document_without_a_position_is_made_as_it_is(ruleset_id):
    """The game from the map's own set-up: neither kept here nor sharing (game._scenario makes
    it once a process)."""
    placed = _made(ruleset_id, POSITIONS[ruleset_id])
    kept = dict(base._BUILT)
    plain = _made(ruleset_id)
    assert plain.position is None and plain.units is not placed.units and base._BUILT == kept


@pytest.mark.parametrize("ruleset_id", sorted(POSITIONS))
def test_other_options_or_another_document_share_nothing(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    placed = _made(ruleset_id, POSITIONS[ruleset_id])
    doc = ruleset.scenarios[ruleset.default_scenario]()
    FIRST_UNIT[ruleset_id](doc)["name"] = "Renamed by a cheater"
    other_doc = _made(ruleset_id, POSITIONS[ruleset_id], doc=doc)
    first = FIRST_UNIT[ruleset_id](doc)["id"]
    assert other_doc.units is not placed.units and other_doc.units[first].name == "Renamed by a cheater"
    assert placed.units[first].name != "Renamed by a cheater"
    flag = sorted(name for name, value in ruleset.options.items() if isinstance(value, bool))[0]
    flipped = dict(ruleset.options, **{flag: not ruleset.options[flag]})
    other_options = _made(ruleset_id, POSITIONS[ruleset_id], options=flipped)
    assert other_options.units is not placed.units and other_options.options[flag] != placed.options[flag]


@pytest.mark.parametrize("ruleset_id", sorted(POSITIONS))
def test_a_bad_position_is_refused_as_the_scenario_class_refuses_it(ruleset_id):
    _made(ruleset_id, POSITIONS[ruleset_id])           # the rest is kept: the check is still the whole document's
    bad = dict(POSITIONS[ruleset_id], turn="three")
    with pytest.raises(Exception) as shared:
        _made(ruleset_id, bad)
    with pytest.raises(Exception) as fresh:
        _made(ruleset_id, bad, fresh=True)
    assert type(shared.value) is type(fresh.value) and str(shared.value) == str(fresh.value)


def test_the_objects_kept_are_few():
    ruleset = rulesets.get("chir")
    for turn in range(base.BUILT_KEPT + 3):
        doc = ruleset.scenarios["historical"]()
        FIRST_UNIT["chir"](doc)["name"] = f"name {turn}"   # another document each time
        _made("chir", POSITIONS["chir"], doc=doc)
    assert len(base._BUILT) == base.BUILT_KEPT
