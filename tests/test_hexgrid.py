"""Hex geometry and deterministic paths: properties (hypothesis) and fixed cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.geometry import hexgrid as hg
from pbem.core.geometry import paths
from pbem.core.geometry.hexgrid import Hex, HexIdFormat, HexMap

coords = st.integers(min_value=-60, max_value=60)
hexes = st.builds(Hex, coords, coords)
layouts = st.sampled_from(hg.LAYOUTS)
CCRR = HexIdFormat("even-q")


@st.composite
def printed_ids(draw):
    return CCRR.format_offset(draw(st.integers(0, 99)), draw(st.integers(0, 99)))


# --- coordinates and ids ------------------------------------------------------------


@given(hexes, layouts)
def test_offset_round_trip(h, layout):
    col, row = hg.axial_to_offset(h, layout)
    assert hg.offset_to_axial(col, row, layout) == h


@given(st.integers(-50, 50), st.integers(-50, 50), layouts)
def test_axial_round_trip(col, row, layout):
    assert hg.axial_to_offset(hg.offset_to_axial(col, row, layout), layout) == (col, row)


@given(printed_ids())
def test_id_round_trip(hex_id):
    assert CCRR.format(CCRR.parse(hex_id)) == hex_id
    col, row = CCRR.parse_offset(hex_id)
    assert hex_id == f"{col:02d}{row:02d}"


@pytest.mark.parametrize("bad", ["254", "25411", "25a1", "", " 2541", "२५४१", 2541])
def test_bad_ids_rejected(bad):
    with pytest.raises(ValueError):
        CCRR.parse(bad)


def test_prefix_format():
    fmt = HexIdFormat("odd-q", prefix="N")
    assert fmt.format(fmt.parse("N3117")) == "N3117"
    with pytest.raises(ValueError):
        fmt.parse("S3117")


@pytest.mark.parametrize("change", [{"layout": "odd-x"}, {"digits": 0}])
def test_a_format_is_checked_however_it_is_made(change):
    """An id format of an unknown layout or of no digits is refused when made, and when made
    from another (a named tuple's `_replace` would otherwise skip the check)."""
    with pytest.raises(ValueError):
        HexIdFormat(**change)
    with pytest.raises(ValueError):
        CCRR._replace(**change)
    assert CCRR._replace(prefix="N") == HexIdFormat("even-q", 2, "N")


# --- metric properties --------------------------------------------------------------


@given(hexes, hexes)
def test_distance_symmetric_and_zero_only_on_self(a, b):
    assert hg.distance(a, b) == hg.distance(b, a) >= 0
    assert (hg.distance(a, b) == 0) == (a == b)


@given(hexes, hexes, hexes)
def test_triangle_inequality(a, b, c):
    assert hg.distance(a, c) <= hg.distance(a, b) + hg.distance(b, c)


@given(hexes)
def test_neighbours_at_distance_one_and_distinct(h):
    ns = hg.neighbours(h)
    assert len(set(ns)) == 6
    assert all(hg.distance(h, n) == 1 for n in ns)
    assert ns == hg.neighbours(h)  # fixed order


@given(hexes, st.integers(0, 5))
def test_neighbour_reciprocity(h, d):
    n = hg.neighbour(h, d)
    assert h in hg.neighbours(n)
    assert hg.neighbour(n, d + 3) == h
    assert hg.direction_to(h, n) == d


@given(hexes, hexes)
def test_hexside_canonical(a, b):
    if hg.is_adjacent(a, b):
        assert hg.hexside(a, b) == hg.hexside(b, a)
    else:
        with pytest.raises(ValueError):
            hg.hexside(a, b)


@given(hexes, hexes)
def test_line_is_connected_and_minimal(a, b):
    pts = hg.line(a, b)
    assert pts[0] == a and pts[-1] == b
    assert len(pts) == hg.distance(a, b) + 1
    assert all(hg.is_adjacent(p, q) for p, q in zip(pts, pts[1:]))


@given(hexes, st.integers(0, 6))
def test_ring_and_within(h, radius):
    r = hg.ring(h, radius)
    assert len(r) == (6 * radius if radius else 1)
    assert len(set(r)) == len(r)
    assert all(hg.distance(h, x) == radius for x in r)
    w = hg.within(h, radius)
    assert len(w) == 1 + 3 * radius * (radius + 1)
    assert w == sorted(w)
    assert set(r) <= set(w)


# --- the even-q printed layout (vertical columns, even columns half a hex lower) -----


def test_even_q_neighbours_of_odd_and_even_columns():
    m = HexMap.rectangle(CCRR, range(1, 60), range(1, 60))
    assert sorted(m.neighbours("3120")) == ["3019", "3020", "3119", "3121", "3219", "3220"]
    assert sorted(m.neighbours("3019")) == ["2919", "2920", "3018", "3020", "3119", "3120"]
    assert m.adjacent("3719", "3818")
    assert m.distance("3320", "3217") == 3
    assert m.hexside("3221", "3220") == "3220/3221"
    assert m.parse_hexside("3220/3221") == ("3220", "3221")
    with pytest.raises(ValueError):
        m.parse_hexside("3221/3220")


def test_hexmap_edges_and_bounds():
    m = HexMap.rectangle(CCRR, range(10, 16), range(1, 8))
    assert len(m) == 6 * 7
    assert "1001" in m and "0901" not in m and "1608" not in m
    assert m.is_edge("1004") and m.is_edge("1201") and m.is_edge("1507") and m.is_edge("1407")
    assert not m.is_edge("1304")
    assert all(n in m for i in m for n in m.neighbours(i))
    assert m.within("1304", 1) == sorted([*m.neighbours("1304"), "1304"])
    with pytest.raises(ValueError):
        HexMap(["101"], CCRR)


def test_a_kept_map_is_its_format_and_ids_and_works_out_its_hexes_when_first_read():
    """pbem's cache keeps a built scenario (pbem/core/cache.py); a map in it keeps its format
    and ids only, and answers as the map it was once a hex is asked of it."""
    import copy
    import pickle

    m = HexMap.rectangle(HexIdFormat("odd-q", 2, "N"), range(10, 16), range(1, 8))
    data = pickle.dumps(m, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(data) < 600 and len(pickle.dumps((m, m._hex, m._id))) > 2 * len(data)
    loaded = pickle.loads(data)
    assert sorted(vars(loaded)) == ["format", "ids"] and loaded.ids == m.ids and loaded.format == m.format
    assert loaded.neighbours("N1304") == m.neighbours("N1304")
    assert loaded.distance("N1001", "N1507") == m.distance("N1001", "N1507")
    assert loaded._hex == m._hex and loaded._id == m._id and len(loaded) == 42 and "N1001" in loaded
    again = pickle.loads(pickle.dumps(loaded))
    assert again.within("N1304", 2) == m.within("N1304", 2)
    # kept again, or copied, before any hex is read
    fresh = pickle.loads(data)
    for copied in (pickle.loads(pickle.dumps(fresh)), copy.copy(fresh), copy.deepcopy(fresh)):
        assert copied.ids == m.ids and copied.neighbours("N1304") == m.neighbours("N1304")
    assert "_hex" not in vars(fresh)


@settings(max_examples=60)
@given(st.integers(11, 40), st.integers(2, 40), st.integers(11, 40), st.integers(2, 40))
def test_hexmap_id_metric_matches_axial(c1, r1, c2, r2):
    m = HexMap.rectangle(CCRR, range(10, 42), range(1, 42))
    a, b = CCRR.format_offset(c1, r1), CCRR.format_offset(c2, r2)
    assert m.distance(a, b) == hg.distance(CCRR.parse(a), CCRR.parse(b))
    assert len(m.line(a, b)) == m.distance(a, b) + 1


# --- paths ----------------------------------------------------------------------------

BOARD = HexMap.rectangle(CCRR, range(10, 30), range(1, 25))


def uniform(a, b):
    return 1


@settings(max_examples=50)
@given(st.sampled_from(BOARD.ids), st.sampled_from(BOARD.ids))
def test_dijkstra_uniform_cost_equals_distance(a, b):
    found = paths.shortest_path(a, b, BOARD.neighbours, uniform)
    assert found is not None
    total, path = found
    assert total == BOARD.distance(a, b) == len(path) - 1
    assert path[0] == a and path[-1] == b
    assert all(BOARD.adjacent(x, y) for x, y in zip(path, path[1:]))


def _weights(a, b):
    # Deterministic, uneven, sometimes impassable, sometimes free.
    k = (int(a) * 7 + int(b) * 13) % 5
    return None if k == 4 else k


@settings(max_examples=40)
@given(st.sampled_from(BOARD.ids), st.sampled_from(BOARD.ids))
def test_dijkstra_deterministic_and_independent_of_neighbour_order(a, b):
    first = paths.shortest_path(a, b, BOARD.neighbours, _weights)
    again = paths.shortest_path(a, b, BOARD.neighbours, _weights)
    rev = paths.shortest_path(a, b, lambda n: list(reversed(BOARD.neighbours(n))), _weights)
    assert first == again == rev
    if first is not None:
        total, path = first
        assert total == sum(_weights(x, y) for x, y in zip(path, path[1:]))
        assert total == paths.all_costs(a, BOARD.neighbours, _weights)[b]


@settings(max_examples=40)
@given(st.sampled_from(BOARD.ids), st.integers(0, 6))
def test_reachable_is_the_ball_on_uniform_cost(start, budget):
    got = paths.reachable(start, budget, BOARD.neighbours, uniform)
    assert list(got) == sorted(got)
    assert got == {h: BOARD.distance(start, h) for h in BOARD.within(start, budget)}


def test_ties_broken_by_id_order():
    # Two equal routes from 1203 to 1205 through 1104/1204/1304-type choices: the
    # lower predecessor wins.
    total, path = paths.shortest_path("1203", "1205", BOARD.neighbours, uniform)
    assert total == 2 and path == ["1203", "1204", "1205"]
    total, path = paths.shortest_path("1102", "1302", BOARD.neighbours, uniform)
    assert total == 2 and path[1] == min(
        h for h in BOARD.neighbours("1102") if BOARD.distance(h, "1302") == 1
    )


def test_impassable_budget_and_stop():
    wall = {"1205", "1305", "1105"}

    def cost(a, b):
        return None if b in wall else 2

    assert paths.shortest_path("1204", "1206", BOARD.neighbours, cost, budget=4) is None
    total, path = paths.shortest_path("1204", "1206", BOARD.neighbours, cost)
    assert all(h not in wall for h in path) and total == 2 * (len(path) - 1)
    # A stop node is entered but not left.
    got = paths.reachable("1204", 10, BOARD.neighbours, uniform, stop=lambda n: n != "1204")
    assert set(got) == {"1204", *BOARD.neighbours("1204")}
    with pytest.raises(ValueError):
        paths.shortest_path("1204", "1206", BOARD.neighbours, lambda a, b: -1)


def test_shortest_path_to_any_picks_lowest_goal_on_ties():
    goals = {"1210", "1410"}
    total, path = paths.shortest_path_to_any("1310", goals.__contains__, BOARD.neighbours, uniform)
    assert total == 1 and path == ["1310", "1210"]
