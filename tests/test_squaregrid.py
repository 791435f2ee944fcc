"""Square grid geometry: properties (hypothesis) and fixed cases (pbem/core/geometry/squaregrid.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.geometry import squaregrid as sg
from pbem.core.geometry.squaregrid import Interior, Square, SquareIdFormat, SquareMap

coords = st.integers(min_value=-40, max_value=40)
squares = st.builds(Square, coords, coords)
edges = st.sampled_from(sg.EDGES)
TABLE = SquareMap.rectangle(range(0, 6), range(0, 6))


# --- ids and neighbours ----------------------------------------------------------------------

def test_ids_round_trip_and_refuse_other_forms():
    fmt = SquareIdFormat()
    assert fmt.parse("0507") == Square(5, 7) and fmt.format(Square(5, 7)) == "0507"
    for bad in ("507", "05a7", "050700", 507):
        with pytest.raises(ValueError):
            fmt.parse(bad)
    with pytest.raises(ValueError):
        fmt.format(Square(100, 0))


def test_neighbours_in_documented_orders_and_cut_at_the_table_edge():
    assert TABLE.neighbours("0202") == ["0203", "0302", "0201", "0102"]             # N E S W
    assert TABLE.neighbours("0202", diagonal=True) == ["0203", "0303", "0302", "0301", "0201", "0101", "0102", "0103"]
    assert TABLE.neighbours("0000") == ["0001", "0100"]
    assert TABLE.is_edge("0000") and not TABLE.is_edge("0202")
    assert TABLE.step("0202", "NE", 2) == "0404" and TABLE.step("0000", "S") is None


@given(squares, squares)
def test_distance_counts_diagonals_as_one_step(a, b):
    d = sg.distance(a, b)
    assert d == sg.distance(b, a) and d <= sg.orthogonal_distance(a, b) <= 2 * d
    assert (d == 1) == (b in sg.all_neighbours(a))


def test_directions_and_corners():
    a = TABLE.square("0202")
    assert [sg.direction_to(a, n) for n in sg.all_neighbours(a)] == ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    assert TABLE.heading("0202", "0505") == "NE" and TABLE.heading("0202", "0205") == "N"
    assert TABLE.corner_squares("0202", "0303") == ("0203", "0302")
    with pytest.raises(ValueError):
        TABLE.corner_squares("0202", "0203")
    assert sg.opposite("N") == "S" and sg.turn_right("W") == "N" and sg.turn_left("N") == "W"
    assert sg.corner_of("E", "N") == "NE" and sg.corner_edges("SW") == ("S", "W")


@given(squares, edges, st.integers(-5, 5), st.integers(-5, 5))
def test_relative_positions_round_trip(origin, facing, ahead, right):
    s = sg.from_relative(origin, facing, ahead, right)
    assert sg.relative(origin, facing, s) == (ahead, right)


def test_relative_positions_by_facing():
    o = Square(2, 2)
    assert sg.relative(o, "N", Square(2, 3)) == (1, 0)
    assert sg.relative(o, "N", Square(3, 3)) == (1, 1)          # NE: ahead and to the right
    assert sg.relative(o, "E", Square(3, 1)) == (1, 1)          # facing east, south is the right
    assert sg.relative(o, "S", Square(1, 1)) == (1, 1)
    assert sg.relative(o, "W", Square(1, 3)) == (1, 1)


def test_side_towards_front_flank_rear():
    s = Square(2, 2)
    assert [sg.side_towards(s, "N", Square(x, 3)) for x in (1, 2, 3)] == ["front"] * 3
    assert sg.side_towards(s, "N", Square(2, 1)) == "rear"
    assert sg.side_towards(s, "N", Square(1, 1)) == "flank"      # a diagonal from behind is never a rear
    assert sg.side_towards(s, "N", Square(3, 2)) == "flank"


# --- lines ----------------------------------------------------------------------------------

def test_lines_through_squares_and_corners():
    assert TABLE.crossed("0000", "0003") == (["0001", "0002"], [])
    # a diagonal passes exactly through the corners it meets, entering neither square beside it
    assert TABLE.crossed("0000", "0202") == (["0101"], [("0001", "0100"), ("0102", "0201")])
    assert TABLE.crossed("0000", "0101") == ([], [("0001", "0100")])
    # two ahead and one aside: through the two squares beside the edge it crosses at its middle
    assert TABLE.crossed("0000", "0102") == (["0001", "0101"], [])
    assert TABLE.crossed("0202", "0202") == ([], [])


@given(squares, squares)
def test_lines_are_symmetric(a, b):
    there, corners_there = sg.crossed(a, b)
    back, corners_back = sg.crossed(b, a)
    assert there == list(reversed(back)) and sorted(corners_there) == sorted(corners_back)
    assert a not in there and b not in there


# --- paths ----------------------------------------------------------------------------------

def test_path_costs_over_the_table():
    blocked = {"0101", "0102", "0100"}

    def cost(a, b):
        return None if b in blocked else 1

    costs = TABLE.path_costs("0000", cost, diagonal=False)
    assert costs["0002"] == 2 and costs["0200"] == 8 and "0101" not in costs
    assert TABLE.path_costs("0000", cost, diagonal=True)["0202"] == 4
    assert TABLE.path_costs("0000", cost, budget=1) == {"0000": 0, "0001": 1}


def test_within_and_edge_keys():
    assert TABLE.within("0000", 1) == ["0000", "0001", "0100", "0101"]
    assert TABLE.edge_key("0302", "0202") == "0202/0302" and TABLE.parse_edge("0202/0302") == ("0202", "0302")
    with pytest.raises(ValueError):
        TABLE.edge_key("0202", "0303")
    with pytest.raises(ValueError):
        TABLE.parse_edge("0302/0202")


# --- inside a square ------------------------------------------------------------------------

INSIDE = Interior(3)


@given(edges, st.integers(1, 3), st.integers(1, 3))
def test_cells_by_facing_rank_and_file_round_trip(facing, rank, file):
    cell = INSIDE.cell(facing, rank, file)
    assert INSIDE.rank(facing, cell) == rank and INSIDE.file(facing, cell) == file


def test_cells_by_facing():
    assert INSIDE.cell("N", 1, 1) == "00"            # the NW cell: front rank facing N, leftmost
    assert INSIDE.cell("E", 1, 1) == "02"            # facing E, left is north
    assert INSIDE.cell("S", 1, 1) == "22"
    assert INSIDE.cell("W", 1, 1) == "20"
    assert INSIDE.ranks("N")[1] == ["10", "11", "12"]
    assert INSIDE.in_front("N", "21") == "11" and INSIDE.in_front("N", "01") is None
    assert INSIDE.behind("E", "02") == "01"
    assert INSIDE.depth("11", "W") == 1 and INSIDE.corner_depth("22", "NW") == 4
    with pytest.raises(ValueError):
        INSIDE.parse("30")


def test_contact_between_cells():
    assert INSIDE.edge_contact("00", "01") and not INSIDE.edge_contact("00", "11")
    assert INSIDE.corner_contact("00", "11") and INSIDE.touching("00", "11")
    assert INSIDE.connected(["00", "01", "11"]) and not INSIDE.connected(["00", "11"])
    assert INSIDE.connected(["00", "11"], corners=True) and INSIDE.connected([])
    assert len(INSIDE.cells) == 9                    # a frontage and a depth of three
