"""The chir scenario data: schema, the numbers the rulebook states, structural consistency.

Rule numbers in test names and messages are sections of the chir rulebook."""

from __future__ import annotations

import json
from collections import deque
from functools import lru_cache
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
import yaml

from pbem.core.geometry import paths
from pbem.core.geometry.hexgrid import HexIdFormat, HexMap

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "pbem" / "rulesets" / "chir" / "data"
SCHEMA = ROOT / "schemas" / "chir-scenario.schema.json"
FILES = ("map", "terrain", "crt", "oob", "victory")


def _load(name: str):
    # PyYAML's own safe reading, independent of pbem's loader; its C parser when installed,
    # as the pure-Python one takes half a second here in every worker that collects tests
    with open(DATA / f"{name}.yaml", encoding="utf-8") as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


DOC = {name: _load(name) for name in FILES}
MAP, TERRAIN, CRT, OOB, VICTORY = (DOC[n] for n in FILES)
FMT = HexIdFormat(MAP["format"]["layout"], MAP["format"]["digits"])
(C0, C1), (R0, R1) = MAP["bounds"]["columns"], MAP["bounds"]["rows"]
BOARD = HexMap.rectangle(FMT, range(C0, C1 + 1), range(R0, R1 + 1))
UNITS = [u for side in ("german", "soviet") for g in OOB[side] for u in g["units"]]
BY_ID = {u["id"]: u for u in UNITS}
SIDE = {u["id"]: side for side in ("german", "soviet") for g in OOB[side] for u in g["units"]}
RIVER = {s: r["name"] for r in MAP["rivers"] for s in r["hexsides"]}
ROAD = {BOARD.hexside(a, b) for r in MAP["roads"] for a, b in zip(r["hexes"], r["hexes"][1:])}
GFRONT = {k: v["front"] for k, v in MAP["setup"]["german"].items()}
SFRONT = {k: v["front"] for k, v in MAP["setup"]["soviet"].items() if "front" in v}
CD_AREA = MAP["setup"]["soviet"]["C,D"]["area"]


def edge_of(hex_id: str) -> set[str]:
    col, row = BOARD.offset(hex_id)
    out = set()
    for name, spec in MAP["edges"].items():
        if spec.get("column") == col or spec.get("row") == row:
            out.add(name)
    return out


# --- schema ------------------------------------------------------------------------------


def test_schema_is_valid_and_data_conforms():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(DOC), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def test_the_bundled_data_is_the_data_checked_here():
    """scenario.CHECKED_DATA names the bundled data as pbem loads it, which conforms to the
    schema: pbem then checks only the rest of a document with that data (its position)."""
    from pbem.core import schema
    from pbem.rulesets.chir import scenario

    doc = scenario.load_historical()
    assert schema.errors(schema.load("chir-scenario.schema.json"), doc) == []
    found = scenario.data_digest(doc)
    assert found == scenario.CHECKED_DATA, f"data/ changed: once it passes this file, set CHECKED_DATA = {found!r}"


def test_a_position_is_checked_with_the_checked_data_and_edited_data_in_full():
    from pbem.rulesets.chir import scenario

    doc = scenario.load_historical()
    doc["position"] = {"turn": 0}
    with pytest.raises(ValueError, match="position.turn: 0 is less than the minimum of 1"):
        scenario.validate(doc)
    del doc["position"]
    doc["map"]["hexes"]["1001"] = "swamp"
    with pytest.raises(ValueError, match="map.hexes.1001: 'swamp' is not one of"):
        scenario.validate(doc)


@pytest.mark.parametrize(
    "path, bad",
    [
        (("crt", "results", "1-2", 0), "1:0"),
        (("map", "hexes", "1001"), "swamp"),
        (("oob", "german", 0, "units", 0, "class"), "cavalry"),
        (("map", "rivers", 0, "hexsides", 0), "3201-3301"),
    ],
)
def test_schema_rejects_bad_values(path, bad):
    doc = json.loads(json.dumps(DOC))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = bad
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(doc))


def test_reconstructed_items_say_why():
    def walk(node, where):
        if isinstance(node, dict):
            if node.get("reconstructed") is True:
                assert isinstance(node.get("basis"), str) and node["basis"].strip(), where
            for k, v in node.items():
                if k.endswith("_reconstructed") and v is True:
                    assert node.get(k.replace("_reconstructed", "_basis")), f"{where}.{k}"
                walk(v, f"{where}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}[{i}]")

    walk(DOC, "scenario")


# --- the CRT (9.7-9.9, 13.0) ---------------------------------------------------------------

LABELS = [c["label"] for c in CRT["columns"]]


def result(column: str, die: int) -> str:
    return CRT["results"][column][die - 1]


def parse(res: str) -> tuple[int, int]:
    if res == "-":
        return (0, 0)
    m, s = res.split("-")
    return int(m), int(s)


@pytest.mark.parametrize(
    "column, die, expected",
    [
        ("30-34", 3, "3-2"),  # 13.0 concentrated attack
        ("16-19", 2, "2-1"),  # 13.0 last attack
        ("1-2", 1, "1-0"),  # 13.0 German defence 2
        ("12-15", 4, "1-0"),  # 13.0 Soviet fire 9 encircled
        ("3-4", 3, "-"),  # 13.0 defensive fire 3; defence 5 with heavy-tank shift
        ("8-11", 6, "-"),  # 13.0 Soviet 10 against 3118
    ],
)
def test_crt_cells_stated_by_the_text(column, die, expected):
    assert result(column, die) == expected


def test_crt_given_cells_match_table():
    for g in CRT["given"]:
        assert result(g["column"], g["die"]) == g["result"], g


def test_crt_columns_are_the_ten_of_the_text_and_contiguous():
    assert LABELS == ["1-2", "3-4", "5-7", "8-11", "12-15", "16-19", "20-24", "25-29", "30-34", "35+"]
    assert list(CRT["results"]) == LABELS
    prev_max = 0
    for c in CRT["columns"]:
        assert c["min"] == prev_max + 1
        if "max" in c:
            assert c["label"] == f"{c['min']}-{c['max']}"
            prev_max = c["max"]
        else:
            assert c["label"] == f"{c['min']}+" and c is CRT["columns"][-1]


def test_crt_is_monotone():
    for col in LABELS:
        cells = [parse(result(col, d)) for d in range(1, 7)]
        for a, b in zip(cells, cells[1:]):
            assert a[0] >= b[0] and a[1] >= b[1], col  # a higher die is never better
    for d in range(1, 7):
        cells = [parse(result(col, d)) for col in LABELS]
        for a, b in zip(cells, cells[1:]):
            assert a[0] <= b[0] and a[1] <= b[1], d  # more strength is never worse


# A tiny fire resolver over the data, enough to replay 13.0's numbers (9.5-9.7).


def fire_strength(groups: dict[str, int], target_is_tank: bool) -> int:
    """groups: firing class -> summed strength. 9.6: multiply per class, drop fractions."""
    total = 0
    for cls, strength in groups.items():
        num, den = CRT["weapon_effects"][cls]["tank" if target_is_tank else "not_tank"]
        total += int(Fraction(strength * num, den))
    return total


def column_index(strength: int) -> int:
    for i, c in enumerate(CRT["columns"]):
        if c["min"] <= strength and ("max" not in c or strength <= c["max"]):
            return i
    raise AssertionError(strength)


def resolve(strength: int, shift: int, die: int) -> str | None:
    """None = fire cancelled (9.7: left of 1-2, or strength 0)."""
    if strength <= 0:
        return None
    i = column_index(strength) + shift
    if i < 0:
        return None
    return result(LABELS[min(i, len(LABELS) - 1)], die)


def s(unit_id: str) -> int:
    return BY_ID[unit_id]["strength"]


SHIFT = {x["id"]: x.get("shift") for x in CRT["shifts"]}


def test_13_0_concentrated_attack():
    rifles = ["333/1116", "333/1118", "333/1120"]
    assert sum(s(u) for u in rifles) == 18
    assert BY_ID["333/Art"]["class"] == "artillery" and BY_ID["333/Art"]["support"] == "own"
    total = fire_strength({"infantry": 18, "artillery_supporting": s("333/Art")}, target_is_tank=False)
    assert total == 22
    # Three groups: two right shifts (9.7.1).
    assert LABELS[column_index(22) + 2 * SHIFT["multi_group"]] == "30-34"
    assert resolve(22, 2 * SHIFT["multi_group"], 3) == "3-2"
    # The LW battalion (3) loses 2 and must retreat 3 (9.9: 1 left < 3 morale damage).
    assert s("LW/I") - 2 < 3
    # German defensive fire: the battalion alone at strength 3 on a rifle regiment.
    assert fire_strength({"infantry": s("LW/I")}, target_is_tank=False) == 3
    assert resolve(3, 0, 3) == "-"


def test_13_0_manoeuvre_attack_on_3120():
    # German defence: infantry (3+3) x0.25 = 1, supporting artillery 3 x0.5 = 1 (9.6).
    lw = fire_strength({"infantry": s("LW/II") + s("LW/III")}, target_is_tank=True)
    art = fire_strength({"artillery_supporting": s("LW/ArtI")}, target_is_tank=True)
    assert (lw, art) == (1, 1)
    assert resolve(lw + art, 0, 1) == "1-0"
    # Soviet morale test on 3 passes; the loss goes to the light 159th battalion.
    group = ["1TC/159a", "1TC/159b", "1TC/44a"]
    assert all(BY_ID[u]["morale"] >= 3 for u in group)
    assert BY_ID["1TC/159a"]["light"] >= 1 and BY_ID["1TC/159a"]["class"] == "tank"
    tanks = s("1TC/159b") + (s("1TC/159a") - 1)
    total = fire_strength({"tank": tanks, "infantry": s("1TC/44a")}, target_is_tank=False)
    assert (tanks * 2, total) == (6, 9)
    assert resolve(total, SHIFT["encirclement"], 4) == "1-0"
    # The German test on 5 fails, an earlier one on 1 passes (morale 1..4).
    assert all(1 <= BY_ID[u]["morale"] < 5 for u in ("LW/II", "LW/III"))
    # The motorised rifle battalion in 3020 has a zone of control (7.0: 3 or more).
    assert s("1TC/44b") >= 3 and BY_ID["1TC/44b"]["motorised"]


def test_13_0_attack_on_the_stug_stack():
    assert BY_ID["Art/StuG"]["class"] == "tank" and s("Art/StuG") == 1
    defence = fire_strength({"artillery_adjacent": s("LW/ArtI"), "tank": s("Art/StuG")}, target_is_tank=True)
    assert defence == 5
    stack = ["26TC/216", "26TC/19"]
    assert any(BY_ID[u]["heavy"] for u in stack)
    assert resolve(defence, SHIFT["heavy_tank"], 3) == "-"
    assert LABELS[column_index(defence) + SHIFT["heavy_tank"]] == "3-4"
    attack = fire_strength({"tank": sum(s(u) for u in stack)}, target_is_tank=True)
    assert attack == 10 and resolve(attack, 0, 6) == "-"


def test_13_0_last_attack_and_9_9_2_allocation():
    # Both LW battalions lost 1 entering the EZOC on retreat: 2 + 2 = 4, x0.25 = 1,
    # confusion shifts left of 1-2: cancelled.
    left = [s("LW/II") - 1, s("LW/III") - 1]
    assert sum(left) == 4
    defence = fire_strength({"infantry": sum(left)}, target_is_tank=True)
    assert defence == 1 and resolve(defence, SHIFT["confusion"], 1) is None
    stack = ["1TC/117a", "1TC/117b", "1TC/44c"]
    total = fire_strength({"tank": s("1TC/117a") + s("1TC/117b"), "infantry": s("1TC/44c")}, target_is_tank=False)
    assert total == 14
    res = resolve(total, SHIFT["encirclement"], 2)
    assert res == "2-1"
    morale, loss = parse(res)
    units = sorted(left, reverse=True)
    for _ in range(loss):
        units[0] -= 1
        units.sort(reverse=True)
    assert sum(units) >= morale  # 9.9: the test may be chosen
    for _ in range(morale):  # 9.9.2: one point at a time from the strongest
        units[0] -= 1
        units.sort(reverse=True)
    assert [u for u in units if u > 0] == [1]
    assert all(BY_ID[u]["army"] == "5TA" for u in stack)


def test_9_9_2_example_allocation():
    units = {"tank": 4, "inf1": 3, "inf2": 3}
    morale, loss = parse("2-1")
    units["tank"] -= loss  # 9.8: a tank-class target loses on tanks first
    assert units == {"tank": 3, "inf1": 3, "inf2": 3}
    for _ in range(morale):
        strongest = max(units.values())
        units[min(k for k, v in units.items() if v == strongest)] -= 1
    assert sorted(units.values()) == [2, 2, 3]


def test_weapon_effects_9_6():
    w = CRT["weapon_effects"]
    assert w["tank"] == {"tank": [2, 1], "not_tank": [2, 1]}
    assert w["anti_tank"] == {"tank": [2, 1], "not_tank": [1, 1]}
    assert w["infantry"] == {"tank": [1, 4], "not_tank": [1, 1]}
    assert w["artillery_adjacent"] == {"tank": [1, 1], "not_tank": [2, 1]}
    assert w["artillery_supporting"] == {"tank": [1, 2], "not_tank": [1, 1]}


# --- terrain (8.3, 8.4, 4.4, 9.7.3) --------------------------------------------------------


def test_8_3_motorised_into_boggy_across_a_river_is_3_mp():
    cost = TERRAIN["terrain"]["boggy"]["movement"]["motorised"]
    cost += TERRAIN["hexsides"]["river"]["movement_extra"]["motorised"]
    assert TERRAIN["movement_unit"] == "half_mp"
    assert TERRAIN["terrain"]["boggy"]["movement"]["motorised"] == 2  # 1 MP
    assert TERRAIN["hexsides"]["river"]["movement_extra"]["motorised"] == 4  # 2 MP
    assert cost == 6  # 3 MP
    # ... and the map has such a move: a boggy hex across a river hexside with no road.
    moves = [
        (a, b)
        for side, _ in RIVER.items()
        for a, b in [side.split("/"), side.split("/")[::-1]]
        if MAP["hexes"][b] == "boggy" and side not in ROAD
    ]
    assert moves


def test_road_and_exit_costs():
    assert TERRAIN["map_exit"]["cost"] == 1  # 4.4: 0.5 MP
    road = TERRAIN["hexsides"]["road"]["movement"]
    assert road == {"motorised": 1, "non_motorised": 1}
    for name, t in TERRAIN["terrain"].items():
        assert t["movement"]["motorised"] >= road["motorised"], name
        assert t["movement"]["non_motorised"] >= road["non_motorised"], name
    assert TERRAIN["hexsides"]["river"]["all_attackers_across_shift"] == -2  # 9.7.3
    assert TERRAIN["hexsides"]["bridge"] == {
        "cancels_river_movement": True, "cancels_river_shift": False, "source": "8.4, 9.7.3"}
    assert set(MAP["terrain_types"]) == set(TERRAIN["terrain"])


# --- the map --------------------------------------------------------------------------------


def test_every_hex_of_the_playing_area_has_terrain():
    assert sorted(MAP["hexes"]) == list(BOARD.ids)
    assert set(MAP["hexes"].values()) <= set(MAP["terrain_types"])


def test_places_of_4_2():
    expected = {
        "Oblivskaya": ["3203", "3204"], "Surovikino": ["3719", "3818"], "Novomaksimovskiy": ["2832"],
        "Verkhne-Aksenovskiy": ["1918"], "Nizhne-Chirskaya": ["1930"], "Verkhne-Solonovskiy": ["1709"],
    }
    assert {p["name"]: p["hexes"] for p in MAP["places"]} == expected
    assert {p["name"]: p["hexes"] for p in VICTORY["places"]["list"]} == expected
    for hexes in expected.values():
        for h in hexes:
            assert h in BOARD and MAP["hexes"][h] == "town"
        if len(hexes) == 2:
            assert BOARD.adjacent(*hexes)


def test_named_hexes_exist():
    for h in ["2832", "2834", "3232", "2541", "1020", "4316", "4323", "3107", *[f"32{r:02d}" for r in range(1, 7)]]:
        assert h in BOARD, h


def test_layout_fits_13_0_adjacencies():
    assert MAP["format"]["layout"] == "even-q"
    assert set(BOARD.neighbours("3120")) == {"3119", "3121", "3019", "3020", "3219", "3220"}
    assert BOARD.adjacent("3320", "3220") and BOARD.adjacent("3019", "2920") and BOARD.adjacent("3019", "3120")
    assert BOARD.adjacent("3118", "3119") and BOARD.adjacent("3021", "2921") and BOARD.adjacent("2921", "2920")
    assert BOARD.distance("3320", "3217") == BOARD.distance("3320", "3317") == 3
    assert BOARD.distance("3120", "3118") == 2 <= BY_ID["LW/ArtI"]["range"]


EXAMPLE_13_0 = ["3320", "3220", "3321", "3420", "3120", "3219", "3019", "3020", "3118", "3119",
                "3122", "3121", "3021", "2921", "2920", "2719", "3217", "3317", "3417", "3318", "3218"]


def test_13_0_ground_has_no_terrain_or_river_shift():
    for h in EXAMPLE_13_0:
        assert MAP["hexes"][h] == "clear", h
        assert TERRAIN["terrain"][MAP["hexes"][h]]["defence_shift"] == 0
        assert not any(side in RIVER for side in BOARD.hexsides_of(h)), h


def test_13_0_positions_in_setup_areas():
    assert {"3320", "3219", "3120", "2719"} <= set(GFRONT["C"])
    assert {"3220", "3321", "3420"} <= set(SFRONT["D"])
    assert "3122" in CD_AREA


def test_german_front_A_is_3201_to_3206():
    assert GFRONT["A"] == ["3201", "3202", "3203", "3204", "3205", "3206"]
    assert MAP["setup"]["german"]["A"]["source"] == "3.2"


@lru_cache(maxsize=1)
def _ruleset_board():
    """The ruleset's scenario object: the board lookups it works out from the data."""
    from pbem.rulesets.chir import RULESET

    return RULESET.scenario(RULESET.scenarios["historical"](), dict(RULESET.options))


def behind(hex_id: str, side: str, group: str) -> bool:
    """The reading of 3.2/3.3 documented in data/README.md, as the ruleset applies it."""
    return _ruleset_board().behind(hex_id, side, group)


def test_3_2_example_3107_is_not_behind_front_A():
    assert not behind("3107", "german", "A")
    assert behind("3105", "german", "A") and behind("2001", "german", "A")
    assert MAP["setup"]["rear_directions"]["german"] == ["south", "west"]
    assert MAP["setup"]["rear_directions"]["soviet"] == ["north", "east"]


def _river_banks() -> dict[str, int]:
    """Each hex's piece of the map when every river hexside (bridged or not) is a wall."""
    bank: dict[str, int] = {}
    for start in BOARD:
        if start in bank:
            continue
        bank[start] = len(bank)
        todo = [start]
        while todo:
            h = todo.pop()
            for n in BOARD.neighbours(h):
                if n not in bank and BOARD.hexside(h, n) not in RIVER:
                    bank[n] = bank[start]
                    todo.append(n)
    return bank


@pytest.mark.parametrize("side, group", [("german", g) for g in "ABCDE"] + [("soviet", g) for g in "ABCDEFG"])
def test_3_2_3_3_every_group_sets_up_behind_its_own_front(side, group):
    """Behind a front is on its side of the rivers, never on the other side's set-up hexes,
    and never behind an enemy front too."""
    board = _ruleset_board()
    rear = board.rears[(side, group)]
    fronts = (GFRONT if side == "german" else SFRONT)[group]
    bank = _river_banks()
    enemy = "soviet" if side == "german" else "german"
    enemy_fronts = {h for v in (SFRONT if side == "german" else GFRONT).values() for h in v}
    enemy_rear = set().union(*(r for (s, _), r in board.rears.items() if s == enemy))
    assert rear and not rear & set(fronts)
    assert not rear & enemy_fronts and not rear & enemy_rear
    assert all(bank[h] in {bank[f] for f in fronts} for h in rear)
    if side == "german":
        assert not rear & soviet_setup_hexes()


def test_3_2_3_3_the_mirror_cases():
    """German non-infantry may not set up on the Soviet front across the Chir (3301-3308);
    Soviet non-infantry not on 2541, where the German line of communication starts, nor on
    German front hexes such as 3410."""
    board = _ruleset_board()
    german_rear = set().union(*(r for (s, _), r in board.rears.items() if s == "german"))
    soviet_rear = set().union(*(r for (s, _), r in board.rears.items() if s == "soviet"))
    assert not german_rear & {f"33{r:02d}" for r in range(1, 9)}
    assert not soviet_rear & {"2541", "3410"}
    assert behind("3108", "german", "B") and behind("3401", "soviet", "A") and behind("2343", "soviet", "F")


def test_fronts_are_on_the_map_and_disjoint():
    seen: dict[str, str] = {}
    fronts = {("german", k): v for k, v in GFRONT.items()} | {("soviet", k): v for k, v in SFRONT.items()}
    assert sorted(GFRONT) == list("ABCDE") and sorted(SFRONT) == list("ABCDEFG")
    for key, hexes in fronts.items():
        assert hexes and len(set(hexes)) == len(hexes)
        for h in hexes:
            assert h in BOARD, (key, h)
            assert h not in seen, (key, h, seen.get(h))
            seen[h] = key


def test_front_A_faces_across_the_chir():
    pairs = [(g, s) for g in GFRONT["A"] for s in SFRONT["A"] if BOARD.adjacent(g, s)]
    assert pairs and all(RIVER.get(BOARD.hexside(g, s)) == "Chir" for g, s in pairs)


def test_rivers_and_roads_join_adjacent_on_map_hexes():
    assert {r["name"] for r in MAP["rivers"]} == {"Chir", "Don"}
    for r in MAP["rivers"]:
        for side in r["hexsides"]:
            a, b = BOARD.parse_hexside(side)
            assert a in BOARD and b in BOARD, side
    for r in MAP["roads"]:
        hexes = r["hexes"]
        assert len(set(hexes)) == len(hexes), r["name"]
        for a, b in zip(hexes, hexes[1:]):
            assert a in BOARD and b in BOARD and BOARD.adjacent(a, b), (r["name"], a, b)


def _connected_hexsides(sides: list[str]) -> bool:
    """Hexsides form one line if they are linked through shared vertices: two sides meet
    at a vertex when they share a hex and their other hexes are adjacent."""
    pairs = [tuple(x.split("/")) for x in sides]
    seen, todo = {0}, deque([0])
    while todo:
        i = todo.popleft()
        for j, q in enumerate(pairs):
            if j in seen:
                continue
            common = set(pairs[i]) & set(q)
            if len(common) == 1:
                (x,) = set(pairs[i]) - common
                (y,) = set(q) - common
                if BOARD.adjacent(x, y):
                    seen.add(j)
                    todo.append(j)
    return len(seen) == len(pairs)


def test_rivers_are_continuous_and_meet_at_nizhne_chirskaya():
    for r in MAP["rivers"]:
        assert _connected_hexsides(r["hexsides"]), r["name"]
    at_1930 = {RIVER[side] for side in BOARD.hexsides_of("1930") if side in RIVER}
    assert at_1930 == {"Chir", "Don"}
    # The Chir runs past Oblivskaya and Surovikino; the Don past 2541.
    assert any(RIVER.get(x) == "Chir" for h in ("3203", "3204") for x in BOARD.hexsides_of(h))
    assert any(RIVER.get(x) == "Chir" for x in BOARD.hexsides_of("3818"))
    assert any(RIVER.get(x) == "Don" for x in BOARD.hexsides_of("2541"))


def test_bridges_are_exactly_where_roads_cross_rivers():
    crossings = {(side, RIVER[side]) for side in ROAD if side in RIVER}
    assert {(b["hexside"], b["river"]) for b in MAP["bridges"]} == crossings
    assert {"Chir", "Don"} <= {river for _, river in crossings}


def test_entry_hexes_of_11_x_are_road_hexes_on_their_edges():
    entries = {e["hex"]: e for e in MAP["entry_hexes"]}
    assert set(entries) == {"1020", "4316", "4323"}
    assert entries["1020"]["side"] == "german" and entries["1020"]["turns"] == [1]
    assert entries["4323"]["turns"] == [6, 8] and entries["4316"]["turns"] == [9]
    road_hexes = {h for r in MAP["roads"] for h in r["hexes"]}
    for h, e in entries.items():
        assert BOARD.is_edge(h) and e["edge"] in edge_of(h), h
        assert h in road_hexes, h  # 11.1: entry along roads


def test_4_4_the_south_edge_exit_road():
    road_hexes = {h for r in MAP["roads"] for h in r["hexes"]}
    south = sorted(h for h in road_hexes if "south" in edge_of(h))
    assert south == ["1020"]
    assert [x["hex"] for x in MAP["exit_hexes"]] == south
    assert MAP["exit_hexes"][0]["edge"] == "south"
    assert MAP["lines_of_communication"]["soviet_exit"]["to"] == ["4316", "4323"]


def road_neighbours(h: str) -> list[str]:
    return [n for n in BOARD.neighbours(h) if BOARD.hexside(h, n) in ROAD]


def soviet_setup_hexes() -> set[str]:
    out = {h for v in SFRONT.values() for h in v} | set(CD_AREA) | set(MAP["setup"]["red_star"]["hexes"])
    for p in MAP["setup"]["placements"]:
        for h in p["hexes"]:
            out |= set(BOARD.within(h, p["radius"]))
    return out


def test_4_3_line_of_communication_from_2541_is_open_at_the_start():
    loc = MAP["lines_of_communication"]["german"]
    assert loc["from"] == "2541" and set(loc["to_edges"]) == {"south", "west"}
    assert VICTORY["line_of_communication"]["german_vp_if_cut"] == -10
    danger = {n for h in soviet_setup_hexes() for n in BOARD.within(h, 1)}

    def is_goal(h):
        return bool(edge_of(h) & {"south", "west"})

    def cost(a, b):
        return None if b in danger else 1

    found = paths.shortest_path_to_any("2541", is_goal, road_neighbours, cost)
    assert found is not None, "no road from 2541 to the south or west edge clear of Soviet setup hexes"
    _, path = found
    assert "2541" not in danger
    # The line crosses the Chir at Nizhne-Chirskaya on its way to the south edge.
    assert path[-1] == "1020" and "1930" in path


def test_3_3_special_placements_and_control():
    placements = {p["units"]: p for p in MAP["setup"]["placements"]}
    assert placements["32C"]["hexes"] == ["2832"] and placements["32C"]["radius"] == 0
    assert placements["89"]["hexes"] == ["2834"] and placements["89"]["radius"] == 1
    assert placements["5GC"]["hexes"] == ["3232"] and placements["5GC"]["radius"] == 1
    # 3.3's note: some hex next to 2834 is on a German front.
    german = {h for v in GFRONT.values() for h in v}
    assert set(BOARD.within("2834", 1)) & german
    assert "2834" not in german and "3232" not in german
    assert MAP["control_at_start"]["soviet"] == ["2832"]
    red = MAP["setup"]["red_star"]["hexes"]
    assert len(red) == len(set(red)) == 7 and all(h in BOARD for h in red)
    assert not set(red) & ({h for v in SFRONT.values() for h in v} | german)


def test_c_d_area_is_west_of_the_chir_between_the_fronts():
    area = set(CD_AREA)
    blocked = set(GFRONT["B"]) | set(GFRONT["C"]) | set(GFRONT["D"])
    # Reachable from 3122 without crossing a river or a German front: the bridgehead.
    seen, todo = {"3122"}, ["3122"]
    while todo:
        h = todo.pop()
        for n in BOARD.neighbours(h):
            if n not in seen and n not in blocked and BOARD.hexside(h, n) not in RIVER:
                seen.add(n)
                todo.append(n)
    assert area <= seen
    assert not area & {h for v in SFRONT.values() for h in v}
    assert any(RIVER.get(x) == "Chir" for h in area for x in BOARD.hexsides_of(h))
    assert "1001" not in seen  # closed off from the German rear


# --- orders of battle --------------------------------------------------------------------------


def test_unit_ids_unique_and_match_affiliation():
    ids = [u["id"] for u in UNITS]
    assert len(ids) == len(set(ids))
    for u in UNITS:
        assert u["id"].split("/")[0] == u["affiliation"], u["id"]
        assert u["affiliation"] in OOB["affiliations"][SIDE[u["id"]]], u["id"]
        if SIDE[u["id"]] == "soviet":
            assert u.get("army") in OOB["armies"], u["id"]
        else:
            assert "army" not in u and not u.get("heavy"), u["id"]


def test_every_setup_code_has_a_place_on_the_map():
    entries = {e["hex"]: e for e in MAP["entry_hexes"]}
    placements = {p["units"]: p for p in MAP["setup"]["placements"]}
    for u in UNITS:
        side, code = SIDE[u["id"]], u["setup"]
        if isinstance(code, dict):
            e = entries[code["entry"]]
            assert e["side"] == side and code["turn"] in e["turns"], u["id"]
        elif code in ("C,D", "red-star"):
            assert side == "soviet", u["id"]
        elif code.isalpha():
            fronts = GFRONT if side == "german" else SFRONT
            assert code in fronts, u["id"]
        else:
            hex_id, _, radius = code.partition("-")
            assert hex_id in BOARD and side == "soviet", u["id"]
            name = u["name"].rstrip("abc") if u["affiliation"] == "GCC" else u["affiliation"]
            assert placements[name]["hexes"] == [hex_id], u["id"]
            assert placements[name]["radius"] == (1 if radius else 0), u["id"]


def _units(pred):
    return [u for u in UNITS if pred(u)]


def test_11_reinforcements():
    german = _units(lambda u: SIDE[u["id"]] == "german" and isinstance(u["setup"], dict))
    assert german and all(u["affiliation"] == "11Pz" and u["setup"] == {"turn": 1, "entry": "1020"} for u in german)
    assert all(isinstance(u["setup"], dict) for u in _units(lambda u: u["affiliation"] == "11Pz"))
    soviet = _units(lambda u: SIDE[u["id"]] == "soviet" and isinstance(u["setup"], dict))
    assert {u["setup"]["turn"] for u in soviet} == {6, 8, 9}
    g47 = [u for u in soviet if u["setup"]["turn"] == 6]
    assert len(g47) == 1 and g47[0]["affiliation"] == "47G" and g47[0]["size"] == "regiment"
    assert g47[0]["setup"]["entry"] == "4323"
    g8 = [u for u in soviet if u["setup"]["turn"] == 8]
    assert len(g8) == 2 and all(u["affiliation"] == "8GT" and u["size"] == "battalion" for u in g8)
    assert all(u["setup"]["entry"] == "4323" for u in g8)
    mc5 = [u for u in soviet if u["setup"]["turn"] == 9]
    assert mc5 and all(u["affiliation"] == "5MC" and u["setup"]["entry"] == "4316" for u in mc5)
    assert _units(lambda u: u["affiliation"] == "5MC") == mc5


def test_2_3_8_five_tank_units_named_15_in_11pz():
    fifteen = _units(lambda u: u["affiliation"] == "11Pz" and u["name"] == "15")
    assert len(fifteen) == 5 and all(u["class"] == "tank" for u in fifteen)


def test_3_3_soviet_forward_units():
    assert [u["size"] for u in _units(lambda u: u["setup"] == "2832")] == ["regiment"]
    assert len(_units(lambda u: u["setup"] == "2834-1")) == 2
    gc5 = _units(lambda u: u["setup"] == "3232-1")
    assert len(gc5) == 3 and any(u["strength"] == 2 for u in gc5)  # 7.0: 5GC of 2
    assert len(_units(lambda u: u["setup"] == "red-star")) == 7
    tc = _units(lambda u: u["setup"] == "C,D")
    assert {u["affiliation"] for u in tc} == {"1TC", "26TC"}
    # 6.2: 1TC and 26TC belong to different armies.
    armies = {aff: {u["army"] for u in tc if u["affiliation"] == aff} for aff in ("1TC", "26TC")}
    assert len(armies["1TC"]) == len(armies["26TC"]) == 1 and armies["1TC"] != armies["26TC"]


def test_13_0_setup_groups():
    assert all(u["setup"] == "C" for u in _units(lambda u: u["affiliation"] == "LW"))
    assert len(_units(lambda u: u["affiliation"] == "LW" and u["class"] == "anti-tank")) == 2
    assert sum(u["strength"] for u in _units(lambda u: u["affiliation"] == "LW" and u["class"] == "anti-tank")) >= 3
    assert all(u["setup"] == "D" for u in _units(lambda u: u["affiliation"] == "333"))
    gc6 = _units(lambda u: u["name"].startswith("6GC"))
    assert gc6 and all(u["setup"] == "C" and u["class"] == "infantry" for u in gc6)


def test_3_2_group_A_has_three_infantry_units():
    a = _units(lambda u: u["setup"] == "A" and SIDE[u["id"]] == "german")
    assert len([u for u in a if u["class"] == "infantry" and u["arm"] != "anti-aircraft"]) == 3
    assert len(a) > 3


def test_infantry_fits_on_front_hexes():
    for side, fronts in (("german", GFRONT), ("soviet", SFRONT)):
        for letter, hexes in fronts.items():
            inf = _units(lambda u: SIDE[u["id"]] == side and u["setup"] == letter and u["class"] == "infantry")
            regiments = [u for u in inf if u["size"] == "regiment"]
            assert len(regiments) <= len(hexes), (side, letter)  # 6.3: regiments stand alone
            assert len(inf) <= 3 * len(hexes), (side, letter)


def test_unit_values_follow_the_counter_rules():
    for u in UNITS:
        if u["class"] == "artillery":
            assert u["range"] >= 2 and u["support"] in ("own", "any", "5TA"), u["id"]
            if u["support"] == "5TA":
                assert SIDE[u["id"]] == "soviet" and u["army"] == "5TA", u["id"]
            if u["support"] == "any":
                assert SIDE[u["id"]] == "german", u["id"]
        if u.get("self_propelled"):
            assert SIDE[u["id"]] == "german" and u["class"] == "artillery" and u["motorised"], u["id"]
        if u["class"] == "tank":
            assert u["motorised"] and not (u["light"] and u["heavy"]), u["id"]
    assert any(u["class"] == "tank" and u["light"] for u in UNITS if SIDE[u["id"]] == "german")
    assert any(u.get("heavy") for u in UNITS)
    # 2.3.2: the Marder counts as armour.
    assert BY_ID["11Pz/61"]["class"] == "tank" and BY_ID["11Pz/61"]["arm"] == "self-propelled-anti-tank"


def test_given_fields_cite_a_rule():
    for u in UNITS:
        for field in u.get("given", []):
            assert field in u or field in ("size",), (u["id"], field)
        if "given" in u:
            assert u["source"], u["id"]


# --- victory ------------------------------------------------------------------------------------


def test_4_5_levels():
    levels = [(x["min"], x.get("max"), x["name"]) for x in VICTORY["levels"]["list"]]
    assert levels == [
        (0, 4, "Draw"), (5, 10, "Narrow victory"), (11, 15, "Substantial victory"),
        (16, 20, "Major victory"), (21, None, "Brilliant victory"),
    ]


def test_4_1_to_4_4_points():
    sl = VICTORY["strength_losses"]
    # A 3-strength unit left with 1: 2 points x 0.5 = 1 VP; destroyed: 3 VP.
    assert (3 - 1) * sl["lost_on_map_halves_per_point"] == 2
    assert 3 * sl["eliminated_vp_per_point"] == 3
    vp = {p["name"]: p["vp"] for p in VICTORY["places"]["list"]}
    assert vp == {"Oblivskaya": 5, "Surovikino": 5, "Novomaksimovskiy": 5,
                  "Verkhne-Aksenovskiy": 10, "Nizhne-Chirskaya": 10, "Verkhne-Solonovskiy": 10}
    assert VICTORY["turns"] == 12
    assert VICTORY["exits"]["soviet_vp_per_strength_point"] == 1
    assert VICTORY["exits"]["requires_line_to"] == ["4316", "4323"]
    opt = {c["id"]: c for c in VICTORY["optional"]["conditions"]}
    assert opt["never_soviet_city_multiplier"]["multiplier"] == [3, 2]
    assert opt["line_never_cut"]["german_vp_if_never_cut"] == 10


@pytest.mark.parametrize("where, change, words", [
    ("map.setup.soviet.G.front[3]", lambda d: d["map"]["setup"]["soviet"]["G"]["front"].__setitem__(3, "0000"), "0000"),
    ("map.bridges[0].hexside", lambda d: d["map"]["bridges"][0].__setitem__("hexside", "1930/9930"), "1930/9930"),
    ("map.setup.red_star.hexes[0]", lambda d: d["map"]["setup"]["red_star"]["hexes"].__setitem__(0, "4545"), "4545"),
    ("victory.places.list[0].hexes[0]", lambda d: d["victory"]["places"]["list"][0]["hexes"].__setitem__(0, "0000"),
     "0000"),
])
def test_a_scenario_naming_a_hex_off_its_map_cannot_be_set_up(where, change, words):
    """A set-up front off the map was accepted by `pbem new`, `join` and `status`, and the
    first picture of the board failed with a traceback (a cheater's probe): every hex and
    hexside the map, the order of battle and the victory conditions name must be on the map."""
    from pbem.rulesets.chir import RULESET, scenario

    doc = RULESET.scenarios["historical"]()
    change(doc)
    with pytest.raises(ValueError) as info:
        scenario.Scenario(doc, {})
    # a name of four digits is a regiment's number, not a hex (a review: 1150 was refused)
    named = RULESET.scenarios["historical"]()
    unit = next(u for group in named["oob"]["soviet"] for u in group["units"] if u["name"] == "1116")
    unit["name"] = "1150"
    assert scenario.Scenario(named, {}).units
    assert str(info.value) == f"chir scenario: {where} names {words}, which is not on the map (hexes 1001 to 4344)"
