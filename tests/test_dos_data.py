"""The dos scenario data: schema, every number and hex the rulebook states (with the 1978
errata), the consistency of the reconstructions with them, and the map tool's own checks.

Rule numbers in test names and messages are cases of the Drive on Stalingrad rulebook."""

from __future__ import annotations

from functools import lru_cache

import pytest

from pbem.core import schema
from pbem.rulesets.dos import scenario


@lru_cache(maxsize=1)
def doc() -> dict:
    return scenario.load_historical()


@lru_cache(maxsize=1)
def sc() -> scenario.Scenario:
    return scenario.Scenario(doc(), {})


def i(h: str) -> int:
    return sc().idx[h]


def side_kind(a: str, b: str):
    return sc().side_kind.get((i(a), i(b)))


# --- schema -------------------------------------------------------------------------------------

def test_the_data_conforms_to_the_schema_and_its_digest_is_recorded():
    d = doc()
    assert schema.errors(schema.load("dos-scenario.schema.json"), d) == []
    found = scenario.data_digest(d)
    assert found == scenario.CHECKED_DATA, f"data/ changed: once it passes this file, set CHECKED_DATA = {found!r}"


def test_a_position_is_checked_and_edited_data_in_full():
    d = scenario.load_historical()
    d["position"] = {"turn": 0, "player": "axis", "phase": "move", "units": {}}
    with pytest.raises(ValueError, match="position.turn"):
        scenario.validate(d)
    d = scenario.load_historical()
    d["map"]["hexrows"]["N01"] = "?" * 54
    with pytest.raises(ValueError, match="map.hexrows.N01"):
        scenario.validate(d)


def test_the_order_schema_file_is_the_rulesets():
    import json
    from pathlib import Path

    from pbem.rulesets.dos.orders import ORDER_SCHEMA

    path = Path(__file__).resolve().parents[1] / "schemas" / "dos-orders.schema.json"
    assert json.loads(path.read_text()) == ORDER_SCHEMA


def test_the_map_tool_finds_every_fact_it_checks_and_writes_the_bundled_map(tmp_path):
    """The tool is the map's one source: what it writes is data/map.yaml byte for byte, so no
    hand edit of the data is lost the next time the map is written."""
    from pathlib import Path

    from pbem.rulesets.dos.tools import mapgen, mapwrite

    built = mapgen.build()
    assert mapgen.check(built) == [] and mapgen.WARNINGS == []
    mapwrite.write(built, tmp_path / "map.yaml")
    bundled = Path(scenario.__file__).parent / "data" / "map.yaml"
    assert (tmp_path / "map.yaml").read_bytes() == bundled.read_bytes()


# --- 3.1: two mapsheets --------------------------------------------------------------------------

def test_3_1_two_sheets_with_prefixed_ids_joined_north_over_south():
    s = sc()
    assert {"N3117", "N3217", "S0639"} <= s.hexes            # Stalingrad, Rostov (3.1)
    assert s.adjacent(i("N4017"), i("S0117"))                 # the sheets meet
    assert len(s.ids) > 3500


def test_hex_geometry_the_text_fixes():
    s = sc()
    assert s.adjacent(i("N3028"), i("N3027"))                 # 10.21
    assert s.adjacent(i("N3426"), i("N3326"))                 # 10.43
    assert s.distance(i("N1616"), i("N1419")) == 4            # 10.43: four MP along the rail
    # 16.51: N3025 is further east than N3028 in the same hexrow
    assert s.hexrow_label[i("N3025")] == s.hexrow_label[i("N3028")] and s.x2[i("N3025")] < s.x2[i("N3028")]


def test_errata_fractional_hexes_are_off_limits():
    s = sc()
    for h in ("S3243", "S2848", "S2452", "S1303"):
        assert h not in s.hexes
    # errata: "one cannot move a unit from S1202 to S1304 by way of S1303": in the grid S1303
    # touches both, and it is off limits
    from pbem.core.geometry.hexgrid import is_adjacent

    assert "S1202" in s.hexes and "S1304" in s.hexes
    assert is_adjacent(s.format.parse("S1202"), s.format.parse("S1303"))
    assert is_adjacent(s.format.parse("S1303"), s.format.parse("S1304"))


# --- terrain and hexsides the text names ---------------------------------------------------------

def test_10_21_the_chir_between_n3028_and_n3027():
    assert side_kind("N3028", "N3027") == "minor"


def test_10_43_railroads_of_the_examples():
    s = sc()
    assert i("N3326") in s.rail_nb[i("N3426")] and side_kind("N3426", "N3326") == "minor"
    line = next(ln for ln in doc()["map"]["rail"] if "N1419" in ln and "N1616" in ln)
    a, b = sorted((line.index("N1419"), line.index("N1616")))
    seg = line[a:b + 1]
    assert len(seg) == 5 and any(side_kind(x, y) == "minor" for x, y in zip(seg, seg[1:]))


def test_6_37_to_6_39_rail_links():
    s = sc()
    links = {(s.ids[a], s.ids[b]): c for a, d in s.rail_links.items() for b, c in d.items()}
    assert links[("S1001", "S0601")] == links[("S0601", "S1001")] == 10           # 6.37
    assert links[("N1701", "N1001")] == 10                                        # 6.37
    for a in ("S1001", "S0601"):
        for b in ("N1701", "N1001"):
            assert links[(a, b)] == links[(b, a)] == 40                           # 6.38 errata
    assert links[("N0811", "N0911")] == links[("N0911", "N0811")] == 10           # 6.38 errata, 6.39
    assert links[("N2154", "N2253")] == 4                                         # 6.39 errata
    assert links[("N2154", "N3754")] == links[("N3754", "N2253")] == 25           # 6.39 errata
    for h in ("S1001", "S0601", "N1701", "N1001"):
        assert i(h) in s.rail_hex and i(h) in s.edge["east"]


def test_volga_cities_and_crossings():
    s = sc()
    for name in ("Stalingrad", "Saratov", "Kamyshin", "Astrakhan"):
        assert s.city_by_name[name].volga, name                                   # 10.28, 12.15
    assert side_kind("N0811", "N0911") == "volga"                                 # 6.38's link crosses it


def test_10_2_don_cities_and_the_voronezh():
    for h in ("N3221", "N1340", "S0639"):
        assert any(sc().side_kind.get((i(h), j)) == "don" for j in sc().nb[i(h)]), h
    assert any(sc().river_name.get((i("N0840"), j)) == "Voronezh" for j in sc().nb[i("N0840")])


def test_16_31_and_15_41_the_area_across_the_don():
    s = sc()
    area = s.across_don
    assert i("N0139") in area and i("N0840") in area and i("N1340") in area      # 15.41, 16.31
    assert i("N0741") not in area and i("N0841") not in area                     # between the rivers: exempt
    assert all(1 <= s.hexrow_n[x] <= 27 for x in area)
    line = [s.ids[x] for x in s.don_line]                                        # 18.21
    assert "N0139" in line and max(s.hexrow_n[x] for x in s.don_line) == 27


def test_the_front_line_runs_from_the_north_edge_to_the_sea():
    s = sc()
    front = s.front
    assert front[0] in s.edge["north"]
    assert all(s.adjacent(a, b) for a, b in zip(front, front[1:]))
    for name in ("Kursk", "Kharkov", "Mariupol", "Taganrog"):                  # 5.11
        assert all(i(h) in s.axis_start for h in s.city_by_name[name].hexes), name


# --- 5.1, 19.2: cities, control and Victory Points -------------------------------------------------

CONTROL_511 = {"Kharkov": ["N2154", "N2253"], "Kursk": ["N0754"], "Mariupol": ["S0750"], "Taganrog": ["S0643"]}
CONTROL_512 = {"Voronezh": ["N0741", "N0841"], "Likhovskoy": ["N3836"], "Millerovo": ["N3036"], "Rostov": ["S0639"],
               "Kalach": ["N3221"], "Salsk": ["S1331"], "Tikhoretsk": ["S1737"], "Krasnodar": ["S2443"],
               "Elista": ["S1416"], "Maykop": ["S2838"], "Georgiyevsk": ["S3121"], "Prokhladnyy": ["S3417"],
               "Novorossiysk": ["S2649"], "Stalingrad": ["N3117", "N3217"], "Astrakhan": ["S1001"],
               "Sochi": ["S3639"], "Tuapse": ["S3242"], "Groznyy": ["S3710"], "Povorino": ["N1228"],
               "Svobody": ["N1340"], "Kamyshin": ["N2013"], "Rtishchevo": ["N0421"], "Balashov": ["N0924"],
               "Saratov": ["N0811", "N0812"], "Tambov": ["N0132"], "Nevinnomyssk": ["S2728"]}


def test_5_11_5_12_control_markers_start_where_the_text_puts_them():
    s = sc()
    for name, hexes in CONTROL_511.items():
        assert set(hexes) <= set(s.city_by_name[name].hexes)
        assert s.city_start[name] == "axis"
    for name, hexes in CONTROL_512.items():
        assert set(hexes) <= set(s.city_by_name[name].hexes), name
        assert s.city_start[name] == "soviet", name


def test_19_2_printed_values_and_the_starting_totals_of_5_0():
    s = sc()
    vp = {c.name: (c.vp, c.bonus_turn) for c in s.vp_cities}
    assert vp["Astrakhan"][0] == 15 and vp["Balashov"][0] == 5 and vp["Elista"][0] == 5
    assert vp["Georgiyevsk"][0] == 5 and vp["Groznyy"][0] == 10 and vp["Kalach"] == (5, 4)
    assert vp["Nevinnomyssk"] == (5, 8) and vp["Tuapse"][0] == 5                 # errata; 16.63
    total = {"axis": 0, "soviet": 0}
    for c in s.vp_cities:
        total[s.city_start[c.name]] += c.vp
    assert total == {"axis": 30, "soviet": 175} == dict(s.start_vp)
    assert s.voronezh_counts == ("N0741", "N0841")                               # 19.21


# --- 3.31, 20.0: the order of battle --------------------------------------------------------------

def _units(side: str, **match) -> list:
    return [u for u in sc().units.values() if u.side == side and all(getattr(u, k) == v for k, v in match.items())]


def test_7_1_9_6_every_unit_is_what_its_arm_makes_it():
    """Combat unit (7.1, 9.6: stacking and steps), HQ, air unit, truck: fields worked out once
    from the arm, so each counter's must be its arm's, and every arm of the data has one."""
    counted = {}
    for u in sc().units.values():
        assert (u.combat, u.hq, u.air, u.truck) == tuple(scenario.Unit.roles(u.arm).values()), u.id
        counted[u.arm] = counted.get(u.arm, 0) + 1
    assert sorted(counted) == ["air", "cavalry", "hq", "infantry", "mech", "truck"]
    assert sum(u.combat for u in sc().units.values()) == counted["infantry"] + counted["mech"] + counted["cavalry"]


def test_3_3_3_31_counter_values():
    types = doc()["oob"]["types"]
    assert types["ger-inf"]["steps"] == [9, 4, 2, 1] and types["ger-mtn"]["steps"] == [9, 4, 2, 1]
    assert types["ger-jg"]["steps"] == [6, 3] and types["ger-pz-rgt"]["steps"] == [4, 2]
    assert types["ger-pg-rgt"]["steps"] == [2, 1] and types["ger-pgd-rgt"]["steps"] == [3, 1]
    assert types["gd-rgt"]["steps"] == [3, 2] and types["slovak"]["steps"] == [2]           # errata 2-6
    assert types["ita-mech"]["steps"] == [3, 1] and types["hun-pz"]["steps"] == [3, 1]      # errata 3-11
    assert types["sov-gds-rifle"]["steps"] == [[8, 9], [3, 4]] and types["sov-tank"]["steps"] == [[8, 9], [3, 4]]
    assert types["sov-nkvd-mech"]["steps"] == [[8, 6], [3, 2]] and types["sov-gds-mech"]["steps"] == [[7, 8], [3, 3]]
    assert types["sov-gds-cav"]["steps"] == [[5, 5], [2, 2]] and types["sov-nkvd-rifle"]["steps"] == [[5, 4], [2, 1]]
    assert (types["truck"]["ma"], types["axis-hq"]["leadership"], types["axis-hq"]["ma"]) == (13, 5, 11)
    assert types["air-corps"]["air_points"] == 2 and types["sov-air"]["air_points"] == 1      # 3.33
    assert (types["air-corps"]["range"], types["sov-air"]["range"]) == (20, 12)               # 14.14
    u = sc().units
    assert u["A/1Gds"].leadership == 5 and u["A/40"].leadership == 2 and u["A/38"].leadership == 2
    assert u["A/51"].leadership == 3                                                        # 12.12: Tufanov


def test_5_31_to_5_35_the_axis_set_up_with_the_errata():
    def count(zone, kind):
        return len([u for u in _units("axis", setup=zone) if u.kind == kind])
    assert (count("5.31", "ger-inf"), count("5.31", "ger-mtn"), count("5.31", "ita-inf"),
            count("5.31", "ita-mech"), count("5.31", "axis-hq")) == (7, 1, 2, 1, 1)
    assert (count("5.32", "ger-inf"), count("5.32", "ger-jg"), count("5.32", "rum-inf"), count("5.32", "axis-hq"),
            count("5.32", "ger-mtn")) == (7, 2, 4, 1, 1)
    assert len([u for u in _units("axis", setup="5.32") if u.division and u.division.endswith("Pz")]) == 9
    assert len([u for u in _units("axis", setup="5.32") if u.division == "60Pg"]) == 2
    assert (count("5.33", "ger-inf"), count("5.33", "ger-jg")) == (10, 1)                    # errata: a Jaeger
    assert len([u for u in _units("axis", setup="5.33") if u.division in ("3Pz", "23Pz")]) == 6
    assert len([u for u in _units("axis", setup="5.33") if u.division == "29Pg"]) == 2
    assert count("5.34", "ger-inf") == 9                                                     # errata: nine
    assert len([u for u in _units("axis", setup="5.34") if u.division in ("9Pz", "11Pz", "24Pz")]) == 9
    assert len([u for u in _units("axis", setup="5.34") if u.division in ("3Pg", "16Pg")]) == 4
    assert len([u for u in _units("axis", setup="5.34") if u.division == "GD"]) == 2
    assert (count("5.34", "hun-inf"), count("5.34", "axis-hq")) == (3, 1)
    assert (count("5.35", "air-corps"), count("5.35", "truck")) == (2, 6)


def test_5_21_20_2_the_soviet_initial_draw_and_the_groups():
    s = sc()
    init = s.initial
    assert (init["rifle"], init["cavalry"], init["guards"], init["mech"], init["hq"]) == (27, 6, 5, 2, 9)
    assert sum((init["rifle"], init["cavalry"], init["guards"], init["mech"], init["hq"])) + 3 == 52 == 38 + 14
    sizes = {g: len(us) for g, us in s.groups.items()}
    assert sizes == {"rifle": 155, "cavalry": 24, "guards": 28, "mech": 21, "hq": 27}
    # 15.5: the track draws every counter of every group by Game-Turn 25
    for g in sizes:
        track = sum(sum(t.get(g, (0, 0))) for t in s.soviet_track.values())
        assert init[g] + track == sizes[g], g
    assert s.soviet_track[1]["rifle"] == (22, 1) and s.soviet_track[1]["cavalry"] == (5, 1)   # 15.5 printed
    assert s.soviet_track[2]["rifle"] == (7, 1) and s.soviet_track[3]["hq"] == (1, 0)
    assert s.soviet_track[8]["guards"] == (2, 0)                                            # errata
    assert "GC/5" in s.groups["guards"]                                                     # errata 5.2


def test_15_5_and_20_1_axis_arrivals_and_withdrawals():
    s = sc()
    arrive = {}
    for u in s.units.values():
        if u.side == "axis" and u.turn:
            arrive.setdefault(u.turn, []).append(u)
    assert {u.id for u in arrive[2]} >= {"Germania/Wiking", "Nordland/Wiking", "Westland/Wiking", "Slovak",
                                          "RumCav/5", "RumCav/6", "Hun/10", "Hun/12", "Hun/13"}
    assert {u.kind for u in arrive[3]} == {"ger-inf", "hun-inf", "hun-pz"}                  # errata: 3-11
    assert {u.id for u in arrive[13]} == {"Rum/Pz", "ItaMt/Julia", "ItaMt/Cuneense"}       # errata: Italian
    w = {x["turn"]: x["units"] for x in s.withdrawals}
    assert w[2] == ["G/76"] and w[4] == ["Fus/GD", "Gren/GD"] and w[5] == ["G/257"] and w[21] == ["G/94"]
    assert {(r["turn"], r["withdrawn_on"]) for r in s.returns} == {(20, 2), (21, 10)}
    eleventh = {u.id for u in s.units.values() if u.by == "16.7"}
    assert eleventh == {"G/22", "G/24", "G/72", "G/132", "G/170", "Jg/28"}
    assert len([u for u in s.units.values() if u.by == "16.8"]) == 6


def test_13_untried_pools_hold_every_printed_value():
    pools = sc().pools
    def values(p):
        return {v for v, _ in pools[p]}
    assert {(2, 4), (6, 8), (1, 2), (3, 4), (0, 0)} <= values("sov-rifle")
    assert {(1, 1), (0, 0)} <= values("sov-cav")
    assert 1 in values("ita-inf") and 3 in values("ita-mtn") and 4 in values("hun-inf")
    assert 4 in values("rum-inf") and 2 in values("rum-mtn") and 1 in values("rum-cav")


# --- the charts -----------------------------------------------------------------------------------

def test_9_5_printed_cells():
    s = sc()
    assert s.crt_columns == ("1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1", "7-1", "8-1", "9-1", "10-1")
    assert s.crt[1] == ("A1", "D1/A1", "D1", "D2", "D2", "D2", "D2", "De/A1", "De", "De", "De", "De")
    assert s.crt[2][:5] == ("A1", "Eng", "D1/A1", "D1", "D2")


def test_10_6_printed_rows_and_the_text_cases():
    t = doc()["terrain"]
    tt, hs = t["terrain"], t["hexsides"]
    assert tt["clear"]["movement"] == {"mech": 1, "infantry": 1, "mountain": 1}
    assert tt["light-woods"]["movement"]["mech"] == 2 and tt["light-woods"]["defence"] == 1
    assert tt["heavy-woods"]["movement"]["infantry"] == 1 and tt["heavy-woods"]["defence"] == 2
    assert tt["rough"]["movement"] == {"mech": 3, "infantry": 2, "mountain": 2} and tt["rough"]["defence"] == 2
    assert tt["mountain"]["movement"] == {"mech": None, "infantry": 3, "mountain": 2}
    assert tt["mountain"]["defence"] == 3 and tt["mountain"]["defence_against_mountain_troops"] == 2
    assert hs["minor"]["movement"] == {"axis": 2, "soviet": 1} and hs["minor"]["defence"] == 2
    assert hs["don"]["movement"] == {"axis": 3, "soviet": 2} and hs["don"]["defence"] == 3
    assert hs["volga"]["movement"] == {"axis": 3, "soviet": 3}
    assert t["interdiction"] == {"movement_extra": 1, "rail_cost": 5, "source": "14.43, 14.44, 6.33"}
    assert t["cities"]["major"]["defence"] == 2 and t["max_defence_multiplier"] == 3


def test_16_1_16_22_16_24_printed_rows():
    s = sc()
    assert s.directive_rows[0] == ("B", "C", "D", "D", "D", "D", "D")
    assert s.directive_rows[1] == ("A", "C", "C", "D", "D", "D", "D")
    assert s.directive_rows[2] == ("A", "B", "C", "C", "D", "D", "D")
    assert s.directive_columns[2] == (60, 84, 7)                                           # errata
    c = s.directive_contents
    assert [c[x]["across_don"] for x in "ABCDEF"] == [8, 0, 0, 0, 12, None]
    assert [c[x]["mech_north"] for x in "ABCDEF"] == [10, 6, 2, 4, 8, 10]
    assert [c[x]["no_retreats"] for x in "ABCDEF"] == [True, True, True, True, False, False]
    assert [c[x]["eleventh_army"] for x in "ABCDEF"] == [False, False, True, True, False, False]   # errata
    assert c["A"]["cities"]["Voronezh"] == 3                                               # 16.61
    assert any(v["cities"].get("Tuapse") == 16 for v in c.values())                       # 16.63


def test_6_36_every_city_hex_is_on_a_railroad():
    """6.36: cities are always part of a railroad. Every city hex but Elista's is joined to a
    rail neighbour or by a rail link of 6.37-6.39 (Voronezh's third hex N0841 to N0741; the
    branch lines of 1942 to Izium, Kalach, Nalchik, Mozdok, Yeysk, Budyonnovsk and Cherkessk);
    Elista, which had no railroad in 1942, is a rail hex with no line to move along."""
    s = sc()
    for city in s.cities:
        for h in city.hexes:
            i = s.idx[h]
            assert i in s.rail_hex
            assert bool(s.rail_nb[i] or i in s.rail_links) == (city.name != "Elista"), (city.name, h)
    assert s.idx["N0741"] in s.rail_nb[s.idx["N0841"]]
    assert s.idx["N3321"] in s.rail_nb[s.idx["N3221"]] and s.idx["N3320"] in s.rail_nb[s.idx["N3321"]]
    assert s.city_of[s.idx["S1416"]].name == "Elista" and not s.rail_nb[s.idx["S1416"]]


def test_16_1_reconstructed_rows_as_their_basis_says():
    """Rows 3-9 (reconstructed): a higher adjusted roll is never stricter, nor is a lower VP
    column (D strictest, then C, B, A, E, F); 16.0's example: F at an adjusted 8 in the 60-84
    column, and its roll with the errata's bonus (4 + 7 - 7 = 4) reads B."""
    s = sc()
    rank = {letter: n for n, letter in enumerate("DCBAEF")}
    rows = [s.directive_rows[r] for r in range(10)]
    assert all(rank[row[c]] >= rank[row[c + 1]] for row in rows for c in range(6))
    assert all(rank[rows[r][c]] <= rank[rows[r + 1][c]] for r in range(9) for c in range(7))
    assert rows[8][2] == "F" and rows[4][2] == "B"


def test_3_2_every_chart_is_data():
    """3.2: the CRT, the turn track, the terrain chart and the Hitler Directive table are all
    in data/, complete (a result for every column and die, a letter for every row and column)."""
    s = sc()
    assert sorted(s.crt) == [1, 2, 3, 4, 5, 6] and all(len(r) == 12 for r in s.crt.values())
    assert s.last_turn == 25 and len(s.dates) == 25 and sorted(s.soviet_track) == list(range(1, 26))
    t = doc()["terrain"]
    assert set(t["terrain"]) == {"clear", "light-woods", "heavy-woods", "rough", "mountain"}
    assert set(t["hexsides"]) >= {"minor", "don", "volga", "lake"} and set(t["cities"]) == {"major", "minor"}
    assert all(len(r) == 7 and set(r) <= set("ABCDEF") for r in s.directive_rows.values())
    assert set(x for r in s.directive_rows.values() for x in r) == set("ABCDEF")           # 16.21: all six letters
