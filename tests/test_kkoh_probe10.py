"""A rules probe of kkoh's artillery: a battery whose level the availability table gives no fire
in the Action Phase ("NA", K-IF-5) is not offered for a call, and a call of it is refused; a
battery of another level is called as before. The test fails on the code before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.core.errors import RulesError
from tests.support.cases import run_case
from tests.test_kkoh_cases import scenario_doc

UNITS = [
    {"id": "B-Leo1", "side": "blue", "row": "tank-1", "square": "0304", "cell": "21", "facing": "S", "order": "M"},
    {"id": "R-T1", "side": "red", "row": "tr1-tank", "square": "0303", "cell": "01", "facing": "N", "order": "HA"},
    {"id": "R-Hy", "side": "red", "row": "hy-arty", "level": "div-corps", "square": "0300", "cell": "01",
     "facing": "N", "order": "HD"},
    {"id": "R-SAU", "side": "red", "row": "tr1-arty", "level": "battery", "square": "0301", "cell": "01",
     "facing": "N", "order": "HD"},
]


def call(tmp_path: Path, unit: str):
    """Blue assaults R-T1 in Action Phase 1; red calls `unit` to bombard in its support."""
    spec = {"units": UNITS, "position": {"turn": 1, "ap": 1, "step": "move", "mover": "first", "initiative": "blue"}}
    packets = [{"side": "blue", "orders": [{"type": "assault", "units": ["B-Leo1"], "target": "0303"}, {"type": "end"}]},
               {"side": "red", "orders": [{"type": "bombard", "unit": unit, "assault": 1, "support": "R-T1"},
                                          {"type": "end"}]}]
    return run_case(tmp_path, "kkoh", scenario_doc(spec), packets, [6] * 6)


def test_a_div_corps_battery_has_no_call_in_action_phase_1_where_the_table_prints_na(tmp_path):
    """K-IF-5: Div/Corps artillery is NA in Action Phase 1. Offered and taken, the call opened the
    supported unit's chit and spent the battery's roll for a fire that could not come (a rules
    lawyer's probe); now it is refused, and the battery of battery level is called."""
    with pytest.raises(RulesError) as refused:
        call(tmp_path / "hy", "R-Hy")
    assert "bombard: R-Hy (div-corps) has no fire in Action Phase 1: the availability table gives its level none " \
           "then (K-IF-5" in str(refused.value)
    folder, events = call(tmp_path / "sau", "R-SAU")
    assert [e["text"] for e in events if e["type"] == "call"] == [
        "red calls R-SAU for bombardment of Close Assault 1 for R-T1 (K-IF-5)."]
    assert not [e for e in events if e["type"] == "arty-unavailable"]
