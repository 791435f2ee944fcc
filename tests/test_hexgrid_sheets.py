"""Mapsheets joined into one grid (hexgrid.SheetedFormat): ids keep each sheet's printed
numbering, neighbours run across the join, and shifts that would break the layout fail."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.geometry.hexgrid import HexIdFormat, HexMap, Sheet, SheetedFormat

# Two sheets of 40 printed columns each, the south sheet's column 01 directly below the
# north sheet's column 40 (a q layout: the first two digits name the straight hexrow).
NS = SheetedFormat("even-q", 2, [Sheet("N", (1, 40), (1, 54)), Sheet("S", (1, 40), (1, 54), (40, 0))])


@given(st.sampled_from("NS"), st.integers(1, 40), st.integers(1, 54))
def test_ids_round_trip(prefix, col, row):
    hex_id = f"{prefix}{col:02d}{row:02d}"
    assert NS.format(NS.parse(hex_id)) == hex_id
    assert NS.printed(hex_id) == (prefix, col, row)


def test_each_sheet_keeps_its_printed_layout():
    one = HexIdFormat("even-q", 2)
    for a, b in (("1202", "1303"), ("1202", "1302"), ("1303", "1304"), ("3426", "3326"), ("2154", "2253")):
        for prefix in "NS":
            assert NS.parse(prefix + a) - NS.parse(prefix + b) == one.parse(a) - one.parse(b)


def test_neighbours_run_across_the_join():
    grid = HexMap([f"{p}{c:02d}{r:02d}" for p in "NS" for c in range(1, 41) for r in range(1, 55)], NS)
    assert sorted(grid.neighbours("N4017")) == ["N3917", "N3918", "N4016", "N4018", "S0117", "S0118"]
    assert grid.adjacent("S0117", "N4017")
    one = HexIdFormat("even-q", 2)   # the same two sheets numbered as one grid of 80 columns
    assert grid.distance("N3117", "S0639") == HexMap(["3117", "4639"], one).distance("3117", "4639")
    assert not grid.is_edge("N4020") and grid.is_edge("N0120")


def test_odd_shift_and_overlap_and_unknown_prefix_fail():
    with pytest.raises(ValueError, match="parity"):
        SheetedFormat("even-q", 2, [Sheet("N", (1, 40), (1, 54)), Sheet("S", (1, 40), (1, 54), (39, 0))])
    with pytest.raises(ValueError, match="overlap"):
        SheetedFormat("even-q", 2, [Sheet("N", (1, 40), (1, 54)), Sheet("S", (1, 40), (1, 54), (38, 0))])
    with pytest.raises(ValueError):
        NS.parse("X0101")
    with pytest.raises(ValueError):
        NS.parse("N4101")   # outside the north sheet's numbering
    with pytest.raises(ValueError):
        NS.format_offset(81, 3)
