"""The fourth rules probe of kkoh 1.12.0: infantry costed with medium ATGWs fires and pays for
them (K-INF-1, K-PTS-1); a helicopter's second attack comes after at most three squares of
movement (K-AIR-5, in tests/test_kkoh_rules.py). Each test fails on the code before the fix."""

from __future__ import annotations

import copy

import pytest

from pbem import rulesets
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.kkoh import points
from tests.test_kkoh_rules import ARMIES, HQS, POS_FIRE, U, make, shot


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def _with_infantry(**weapons):
    """The test lists with an RI company of blue's (`weapons` added to its row), B1 of that
    row facing R1, a red tank, across one square."""
    armies = copy.deepcopy(ARMIES)
    row = {"id": "ri-coy", "unit": "RI Coy", "type": "infantry", "quality": "A", "mobility": "infantry",
           "infantry": "RI", "cost": 3, **weapons}
    armies["test-nato"]["rows"] = armies["test-nato"]["rows"] + [row]
    units = [U("B1", "blue", "ri-coy", "0202", "01", "N"), U("R1", "red", "tank", "0203", "21", "S")]
    return make(units, armies=armies, commands=HQS, blue={"army": "test-nato"}, red={"army": "test-soviet"},
                position=POS_FIRE, columns=10, rows=10), row


def test_k_inf_1_infantry_costed_with_medium_atgw_fires_as_medium():
    """"They may not Direct Fire themselves, unless additionally costed as having medium
    ATGWs" (K-INF-1): such a company fires, as a medium ATGW (range 1); without the ATGW it
    may not. 1.12.0 gave no infantry a Direct Fire weapon."""
    (sc, rules), _ = _with_infantry(atgw="M")
    assert sc.pieces["B1"].modes["normal"].df == "M" and not sc.pieces["B1"].modes["normal"].heavy_atgw
    shot(sc, rules, "blue", "B1", "R1")                           # no IllegalOrder
    (sc, rules), _ = _with_infantry()
    with pytest.raises(IllegalOrder, match="B1 has no Direct Fire weapon"):
        shot(sc, rules, "blue", "B1", "R1")


def test_k_pts_1_the_medium_atgw_is_paid_for_on_top_of_the_grade():
    """Infantry = 2 + RI or MI or ATGW +/- Quality, the ATGW "additionally costed" (K-INF-1): an
    average RI company costs 2 + 1 = 3, with medium ATGWs 2 + 1 + 2 (the Missile column's M)
    = 5. 1.12.0 charged 3 for both."""
    table = make([], armies=ARMIES, commands=HQS, blue={"army": "test-nato"}, red={"army": "test-soviet"},
                 columns=10, rows=10)[0] \
        .tables["points"]
    plain = {"type": "infantry", "infantry": "RI", "quality": "A", "mobility": "infantry"}
    assert points.cost(plain, table, "nato") == 3
    assert points.cost(dict(plain, atgw="M"), table, "nato") == 5
    assert points.cost(dict(plain, atgw="M", infantry="MI", quality="S"), table, "nato") == 2 + 2 + 2 + 1


@pytest.mark.parametrize("weapons", [{"atgw": "H"}, {"missile": "M"}, {"gun": "L"}])
def test_k_inf_1_infantry_with_any_other_weapon_is_refused(weapons):
    """Infantry fires with medium ATGWs or not at all: a list row giving it a heavy ATGW, a
    missile or a gun is refused with the rule, not played with a weapon it may not have."""
    with pytest.raises(ValueError, match=r"units\.B1: infantry fires only as costed with medium ATGWs .*\(K-INF-1\)"):
        _with_infantry(**weapons)
