"""A kkoh scenario document embedded in a genesis comes from the proposer, who may want to win
by any means: a probe of crafted scenarios found documents that hung `pbem new` or `pbem orders`,
broke the set-up or the game in play with a traceback, or were played on with a broken world.
Each is now refused, naming the entry and why, or accepted and played as written. Each
mutation here is of the bundled scenario."""

from __future__ import annotations

import copy

import pytest

from pbem import rulesets
from pbem.rulesets.kkoh import flow, scenario as kkoh_scenario

BUNDLED = kkoh_scenario.load_historical()


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def _set_up(doc: dict):
    sc = kkoh_scenario.Scenario(doc, {})
    return sc, flow.setup_rules(sc)


def _command(doc, cid):
    return next(c for c in doc["commands"] if c["id"] == cid)


def _unit(doc, uid):
    return next(u for u in doc["units"] if u["id"] == uid)


def _mutated(change) -> dict:
    doc = copy.deepcopy(BUNDLED)
    change(doc)
    return doc


REFUSED = [
    # the tables: the printed ones, values corrected, never re-shaped
    (lambda d: d["tables"]["direct_fire"].update(range=1_000_000),
     "tables.direct_fire.range: 1000000 is not a whole number from -50 to 50"),   # hung `pbem orders`
    (lambda d: d["tables"]["direct_fire"].update(range="far"), "tables.direct_fire.range: \"far\" is not a whole number"),
    (lambda d: d["tables"]["initiative"].pop("drop_order"),
     "tables.initiative: entry 'drop_order' is missing (a scenario corrects the printed tables' values, not their shape)"),
    (lambda d: d["tables"]["orders"].update(list=[]), "tables.orders.list: a list of 10, as the printed table has"),
    (lambda d: d["tables"]["orders"]["list"].__setitem__(4, "XX"),
     "tables.orders.list[4]: \"XX\", where the printed table has \"HD\""),
    (lambda d: d["tables"]["terrain"]["area"].pop("open"), "tables.terrain.area: the feature \"open\" is missing"),
    (lambda d: d["tables"]["direct_fire"].update(range=None),      # null only where printed (a review: play broke)
     "tables.direct_fire.range: null is not a whole number from -50 to 50"),
    (lambda d: d["tables"]["results"]["columns"].__setitem__(3, 4),
     "tables.results.columns[3]: 4, where the printed table has 5 (the table's columns, bands and phases are not "
     "corrected)"),
    (lambda d: d["tables"]["air"].update(arrival_phase=0), "tables.air.arrival_phase: 0, where the printed table has 4"),
    (lambda d: d["tables"]["terrain"].update(road_column="x"),
     "tables.terrain.road_column: \"x\" is not a whole number from 1 to 6 (K-TER-5)"),
    # ids given twice, which let the last silently stand for the first
    (lambda d: d["commands"].append(dict(_command(d, "B-Pz1"), square="0000", name="Decoy")),
     "commands: 'B-Pz1' is given twice"),
    (lambda d: d["armies"]["lists"][d["sides"]["red"]["army"]]["rows"].append(
        dict(d["armies"]["lists"][d["sides"]["red"]["army"]]["rows"][0])), "is given twice"),
    (lambda d: d["sides"]["red"].update(air=[dict(d["sides"]["blue"]["air"][0])]),
     "sides: the aircraft id 'B-PAH' is given twice, or to a unit or marker"),
    # where things stand
    (lambda d: _unit(d, "B-Pz1-1").update(square="9999"), "units.B-Pz1-1: '9999' is not a square of the table"),
    (lambda d: _command(d, "B-Pz1").update(square="1800"), "commands.B-Pz1: '1800' is not a square of the table"),
    (lambda d: _unit(d, "R-TR1-TB1-1").update(square=_unit(d, "B-Pz1-1")["square"]),
     "holds units of both sides"),
    (lambda d: _unit(d, "B-Pz1-2").update(square=_unit(d, "B-Pz1-1")["square"], cell=_unit(d, "B-Pz1-1")["cell"]),
     "stand in the same place"),
    # the chain of command
    (lambda d: (_command(d, "B-Pz1").update(superior="B-Pz2"), _command(d, "B-Pz2").update(superior="B-Pz1")),
     "commands.B-Pz1: a battalion marker under B-Pz2, a battalion: a superior is of a higher level"),
    # what an entry says fits its unit
    (lambda d: _unit(d, "B-Pz1-1").update(mounted=True), "units.B-Pz1-1: `mounted` is for infantry in transports"),
    (lambda d: _unit(d, "B-Pz1-1").update(limbered=True), "units.B-Pz1-1: `limbered` is for towed guns (K-ART-7)"),
    (lambda d: _unit(d, "B-Pz1-1").update(level="battery"),
     "units.B-Pz1-1: `level` is the level field artillery works at (K-IF-5)"),
    (lambda d: _unit(d, "B-Rec1").update(losses=1), "units.B-Rec1: a unit fielded reduced has one strength point"),
    # a position names what the scenario has
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "gone": ["NOPE"]}),
     "position.gone: 'NOPE' is not a unit of the scenario"),
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "gone": ["B-Pz1-1", "B-Pz1-1"]}),
     "position.gone: a unit is listed twice"),
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "losses": {"NOPE": 1}}),
     "position.losses: 'NOPE' is not a unit of the scenario"),
    # a loss of the day that leaves a unit nothing (B-Rec1 is fielded reduced, one strength point)
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "losses": {"B-Rec1": 1}}),
     "position.losses.B-Rec1: 1 strength point as deployed; a unit with none left is destroyed, listed in `gone`"),
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "gone": ["B-Pz1-1"], "losses": {"B-Pz1-1": 1}}),
     "position.losses.B-Pz1-1: the unit is listed in `gone`, destroyed"),
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "lost": {"NOPE": 1}}),
     "position.lost: 'NOPE' is not a command marker of the scenario"),
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "air": {"B-PAH": 3}}),
     "position.air.B-PAH: a state of ready, active or gone"),
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn", "used": {"blue": 3}}),
     "position.used.blue: the special effects a side has used, each a whole number"),
    (lambda d: d.update(position={"turn": 20, "ap": 0, "step": "turn"}), "position.turn: 20 is after the last turn"),
    (lambda d: d.update(position={"turn": 1, "ap": 0, "step": "turn",
                                  "minelets": [{"pair": "blue-1", "side": "blue", "square": "9999"}]}),
     "position.minelets[0]: '9999' is not a square of the table"),
]


@pytest.mark.parametrize("change, refusal", REFUSED)
def test_a_crafted_scenario_is_refused_naming_its_fault(change, refusal):
    doc = _mutated(change)
    with pytest.raises(ValueError) as refused:
        _set_up(doc)
    assert refusal in str(refused.value), str(refused.value)
    assert str(refused.value).startswith("kkoh scenario: ")


def test_a_corrected_table_value_is_played():
    """The tables' header: "a player who owns the printed rules can correct a cell by editing
    the scenario document"; a number within bounds, and a null where the table has a number
    (no limit) or a number where it has none, are taken."""
    doc = _mutated(lambda d: d["tables"]["direct_fire"].update(range=3))
    sc, _ = _set_up(doc)
    assert sc.tables["direct_fire"]["range"] == 3
    assert _set_up(_mutated(lambda d: d["tables"]["direct_fire"].update(raw=["my own reading"])))[0]
    unlimited = _mutated(lambda d: d["tables"]["command"]["ranges"]["nato"].update(brigade=None))
    assert _set_up(unlimited)[0].tables["command"]["ranges"]["nato"]["brigade"] is None    # null, as printed
    limited = _mutated(lambda d: d["tables"]["command"]["ranges"]["nato"].update(brigade=6))
    assert _set_up(limited)[0].tables["command"]["ranges"]["nato"]["brigade"] == 6         # a number for none


def test_what_no_check_names_is_refused_by_pbem_new_not_thrown(tmp_path, monkeypatch):
    """An embedded document the checks let through but the set-up trips over (here a position
    at a step the set-up cannot start from) is refused by `pbem new` with the scenario's fault
    in one sentence and nothing written, not a traceback."""
    from click.testing import CliRunner

    from pbem.cli import cli
    from pbem.core.canonical import dumps

    monkeypatch.chdir(tmp_path)
    doc = _mutated(lambda d: d.update(position={"turn": 1, "ap": 4, "step": "fire", "mover": "second"}))
    (tmp_path / "s.yaml").write_text(dumps(doc))
    result = CliRunner().invoke(cli, ["new", "g", "--ruleset", "kkoh", "--scenario", "./s.yaml", "--sandbox",
                                      "--side", "blue", "--side", "red", "--seed", "1"])
    assert result.exit_code == 4, result.output
    # the file given is blamed, not the game.yaml never written (a referee's probe)
    assert result.stderr == ("pbem: ./s.yaml: the scenario cannot be set up: the scenario document contradicts itself "
                             "(RuntimeError: no dice at the set-up)\n")
    assert not (tmp_path / "g").exists()
