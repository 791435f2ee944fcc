"""kkoh data: the army lists rebuild their flattened lines, the points system reproduces the
printed costs, and every table reading matches the raw lines it came from (cell by cell)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.core.canonical import load_file
from pbem.rulesets.kkoh import points

DATA = Path(__file__).resolve().parents[1] / "pbem" / "rulesets" / "kkoh" / "data"
ARMIES = load_file(DATA / "armies.yaml", "armies.yaml")
TABLES = load_file(DATA / "tables.yaml", "tables.yaml")
LISTS = ARMIES["lists"]

PRINTED_TYPE = {"command": "Command", "armour": "Armour", "atgw": "ATGW", "infantry": "Infantry",
                "transport": "Transport", "aa-arty": "AA Arty", "at-arty": "AT Arty"}
PRINTED_MOBILITY = {"recce": "Spec` Recce", "mechanised": "Mechanised", "motorised": "Motorised",
                    "infantry": "Infantry"}


def _type(row):
    if row.get("printed_type"):
        return row["printed_type"]
    if row["type"] == "fd-arty":
        return "Fd Arty (SP)" if row.get("sp") else "Fd Arty (T)"
    return PRINTED_TYPE[row["type"]]


def _gun(row):
    if "printed_gun" in row:
        return row["printed_gun"]
    weapon = row.get("gun") or row.get("missile")
    if not weapon:
        return None
    return weapon + ("/IR" if row.get("ir") else "") + (f" ({row['range']})" if row.get("range") else "")


def _armour(row):
    return row.get("printed_armour", row.get("armour"))


def _cost(row):
    return f"{row['cost']} + {row['reduced_cost']}" if "reduced_cost" in row else str(row["cost"])


def _body(line: str, head: str) -> str:
    text = re.sub(r"^L\d+: ", "", line)
    assert text.startswith(head), (head, text)
    return " ".join(text[len(head):].replace("Spec`Recce", "Spec` Recce").split())


@pytest.mark.parametrize("name", sorted(LISTS))
def test_each_list_rebuilds_its_flattened_lines(name):
    """K-LST-1, K-LST-2, K-LST-3: the rows, in order, print exactly the flattened lines (blank
    cells dropped); the British list is another nation's, as data (K-DOC-4)."""
    army = LISTS[name]
    rows, printed = army["rows"], army["printed_lines"]
    assert _body(printed["type"], "Unit Type") == " ".join(_type(r) for r in rows)
    assert _body(printed["quality"], "Quality") == " ".join(r["quality"] for r in rows)
    assert _body(printed["mobility"], "Mobility") == " ".join(PRINTED_MOBILITY[r["mobility"]] for r in rows)
    assert _body(printed["gun"], "Gun") == " ".join(g for g in map(_gun, rows) if g)
    assert _body(printed["armour"], "Armour") == " ".join(a for a in map(_armour, rows) if a)
    assert _body(printed["cost"], "Cost") == " ".join(_cost(r) for r in rows)
    assert _body(printed["remarks"], "Remarks") == " ".join(r["remarks"] for r in rows)


@pytest.mark.parametrize("name", sorted(LISTS))
def test_points_system_reproduces_every_printed_cost(name):
    """K-PTS-1, K-PTS-2, K-PTS-3: the formula gives each printed price; the one misprint is recorded."""
    army, table = LISTS[name], TABLES["points"]
    for row in army["rows"]:
        computed = points.cost(row, table, army["doctrine"])
        expected = row.get("misprint", row["cost"])
        assert computed == expected, (name, row["id"], computed, row["cost"])
        if "reduced_cost" in row:
            assert points.cost(row, table, army["doctrine"], reduced_strength=True) == row["reduced_cost"]


def test_points_worked_examples():
    """The checklist's cross-checks (K-PTS-2) and the half-strength rounding (K-PTS-3)."""
    table = TABLES["points"]
    leopard = {"type": "armour", "quality": "A", "mobility": "mechanised", "gun": "M", "ir": True, "armour": "M"}
    assert points.cost(leopard, table, "nato") == 11
    recce = {"type": "armour", "quality": "A", "mobility": "recce", "gun": "L", "armour": "L", "self_ordering": True}
    assert points.cost(recce, table, "nato") == 9 and points.cost(recce, table, "nato", reduced_strength=True) == 5
    hq = {"type": "command", "quality": "I", "mobility": "mechanised"}
    assert points.cost(hq, table, "soviet") == 7 and points.cost(hq, table, "nato") == 9
    bm21 = {"type": "fd-arty", "quality": "A", "mobility": "motorised", "missile": "H", "rocket": True}
    assert points.cost(bm21, table, "soviet") == 11
    bmp = {"type": "armour", "quality": "I", "mobility": "mechanised", "gun": "L", "missile": "M", "armour": "L",
           "aifv": True}
    assert points.cost(bmp, table, "soviet") == 7
    mi = {"type": "infantry", "quality": "S", "mobility": "infantry", "infantry": "MI"}
    assert points.cost(mi, table, "nato") == 5
    assert [points.reduced(n) for n in (1, 9, 12, 13, 15)] == [1, 5, 6, 7, 8]


def test_list_totals():
    table = TABLES["points"]
    totals = {name: points.list_total(army["rows"], table, army["doctrine"]) for name, army in LISTS.items()}
    assert totals == {"wg-1970s": 236, "uk-1970s": 383, "su-td-1970s": 926}


# --- table readings against their raw lines ---------------------------------------------------

def _raw(table: str, number: int) -> str:
    for line in TABLES[table]["raw"]:
        if line.startswith(f"L{number}:"):
            return line.split(":", 1)[1].strip()
    raise KeyError(number)


def _signed(text: str) -> list[int]:
    return [int(v.replace("–", "-")) for v in re.findall(r"[+\-–]\s?\d", text.replace("– ", "–").replace("- ", "-"))]


def _ints(text: str) -> list[int]:
    return [int(v) for v in re.findall(r"(?<![A-Z0-9])[+-]?\d+", text)]


def test_results_table_reads_its_thirteen_columns_and_six_rows_cell_by_cell():
    """K-CAT-1: L173 columns, L175-L185 rows."""
    results = TABLES["results"]
    heads = _raw("results", 173)
    assert heads == "+8 or more +7 +6 +5 +4 +3 +2 +1 EVENS -1 -2 -3 -4 or worse"
    assert results["columns"] == [8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4]
    for die, line in zip(range(1, 7), range(175, 186, 2)):
        cells = _raw("results", line).split()
        assert cells[0] == str(die) and results["rows"][str(die)] == cells[1:] and len(cells) == 14
    for die in range(2, 7):   # each row is the row before moved one column right
        assert results["rows"][str(die)][1:] == results["rows"][str(die - 1)][:-1]


def test_orders_comparison_reads_the_merged_line_as_column_pairs():
    """K-CAO-1: L155-L169; L161 holds HD2 and HD1 as (HD2, HD1) pairs per attacker column."""
    matrix = TABLES["orders_comparison"]["defender"]
    for order, line in (("FD", 155), ("PD", 157), ("HD3", 159), ("HD", 163), ("HA", 165), ("M", 167), ("FA", 169)):
        assert matrix[order] == _ints(_raw("orders_comparison", line))
    merged = [int(v) for v in _raw("orders_comparison", 161).split()[3:]]
    assert merged == [1, 2, 0, 1, -1, 0, -2, -2]
    assert matrix["HD2"] == merged[0::2] and matrix["HD1"] == merged[1::2]
    assert matrix["PA"] == matrix["M"]
    rows = ["FD", "PD", "HD3", "HD2", "HD1", "HD", "HA", "M", "FA"]
    for column in range(4):   # every column rises from FD to FA
        values = [matrix[r][column] for r in rows]
        assert values == sorted(values), column


def test_direct_fire_modifiers_read_from_their_lines():
    """K-DF-6: the nine labels of L75 with the values of L77 (three carrying their opposite inline)."""
    assert _signed(_raw("direct_fire", 77)) == [-1, -1, 1, -1, 1, -1, 1, -1, -1, -2, 1, 2]
    m = TABLES["direct_fire"]["modifiers"]
    assert [m[k] for k in ("firer_losses", "heavy_atgw_long_range", "per_class_above", "per_class_below", "firer_ir",
                           "target_ia", "target_m", "firer_m", "target_pd_or_cover", "target_fd", "rear",
                           "vulnerable")] == [-1, -1, 1, -1, 1, -1, 1, -1, -1, -2, 1, 2]


def test_assault_factors_read_from_their_lines():
    """K-CAF-1: L121, L139 (the mirror), L127, L129, L133/L135, L137, L141, L145/L147."""
    f = TABLES["assault"]["factors"]
    assert _signed(_raw("assault", 121)) == [f[k] for k in ("per_unit_more", "attackers_more_losses",
                                                            "attackers_superior", "attackers_inferior",
                                                            "attacking_group_out_of_command")]
    assert _signed(_raw("assault", 139)) == [f[k] for k in ("per_unit_fewer", "defenders_more_losses",
                                                            "defenders_superior", "defenders_inferior",
                                                            "defending_group_out_of_command")]
    assert _signed(_raw("assault", 139)) == [-v for v in _signed(_raw("assault", 121))]
    assert _signed(_raw("assault", 127)) == [f[k] for k in ("attackers_solely_gi_vs_armour", "attackers_ri_vs_armour",
                                                            "attackers_mi_vs_armour", "attackers_armour_and_infantry",
                                                            "attackers_dismounted_from_aifv")]
    assert _signed(_raw("assault", 129)) == [f[k] for k in ("defenders_solely_gi_vs_armour", "defenders_ri_vs_armour",
                                                            "defenders_mi", "defenders_armour_and_infantry",
                                                            "defenders_dismounted_from_aifv")]
    assert _signed(_raw("assault", 133)) == [-1, f["defenders_solely_artillery"]]
    assert _signed(_raw("assault", 137)) == [f["attackers_vulnerable"], f["flank"], f["rear"]]
    assert _signed(_raw("assault", 141)) == [f["defenders_vulnerable"]]
    assert _signed(_raw("assault", 147)) == [f["one_battery_more"], f["each_further_battery_more"],
                                             f["attacker_heavy_artillery"], f["attacker_rocket"]]
    assert _signed(_raw("assault", 145)) == [f["one_battery_fewer"], f["each_further_battery_fewer"],
                                             f["defender_heavy_artillery"], f["defender_rocket"]]
    terrain = TABLES["terrain"]["area"]
    assert sorted({t.get("ca_defence") for t in terrain.values()} - {None}) == [-2, -1]   # L133 -1, L135 "or - 2"


def test_initiative_and_order_change_factors_read_from_their_lines():
    """K-INI-1 (L51, L55) and K-ORD-3 (L67, L69)."""
    ini = TABLES["initiative"]["factors"]
    assert _signed(_raw("initiative", 51)) == [ini["superior_leader"], ini["majority_superior"]]
    assert _signed(_raw("initiative", 55)) == [ini["inferior_leader"], ini["majority_inferior"]]
    ch = TABLES["order_change"]["modifiers"]
    assert _signed(_raw("order_change", 67)) == [ch["majority_superior"], ch["out_of_command"], ch["to_pa"]]
    assert _signed(_raw("order_change", 69)) == [ch["majority_inferior"], ch["counter_attack"]]
    assert "roll of 3 or more" in _raw("order_change", 65) and TABLES["order_change"]["target"] == 3


def test_artillery_availability_reads_two_printed_columns():
    """K-IF-5: L91-L97 print two values a phase: Bn/Bde and Div/Corps; the Battery column is rebuilt."""
    table = TABLES["artillery"]
    for phase, line in zip(range(4), (91, 93, 95, 97)):
        cells = _raw("artillery", line).split()[2:]
        bn, div = cells
        assert table["availability"]["bn-bde"][phase] == int(bn.split(",")[0]) and bn.endswith(",6") or bn == "6"
        assert (div == "NA" and table["availability"]["div-corps"][phase] is None) or \
            table["availability"]["div-corps"][phase] == int(div.split(",")[0])
    assert table["battery_reconstructed"] is True
    assert [b - a for a, b in zip(table["availability"]["battery"], table["availability"]["bn-bde"])] == [1, 1, 1, 1]
    assert _signed(_raw("artillery", 101)) == [table["modifiers"]["majority_inferior"], table["modifiers"]["single_unit"]]
    assert _signed(_raw("artillery", 103)) == [table["modifiers"]["out_of_command"], table["modifiers"]["fa_or_fd"]]


def test_counter_battery_table_reads_its_bands():
    """K-IF-10: L105 bands 0-2, 3, 4, 5+ with the four results of L107."""
    cb = TABLES["counter_battery"]
    assert _raw("counter_battery", 105).endswith("0 to 2 3 4 5+")
    assert [r["effect"] for r in cb["results"]] == ["none", "cancelled", "cancelled-give-ground", "cancelled-give-ground-loss"]
    assert list(cb["modifiers"].values()) == [1, 1, -1, -1, 2]


def test_movement_table_reads_four_cumulative_cells():
    """K-MOV-4: L85 four cells, each 'and all the above'."""
    assert _raw("movement", 85).count("and all the above") == 3
    assert TABLES["movement"]["phases"] == {"1": ["mechanised-m", "recce"], "2": ["mechanised", "motorised-m"],
                                            "3": ["mounted-pa", "motorised"], "4": ["foot", "guns-in-square"]}


def test_points_table_reads_its_columns():
    """K-PTS-1/2: L207 end, L211, L213 rows of Gun, Missile, Armour; L223 mobility."""
    p = TABLES["points"]
    assert _raw("points", 207).endswith("L 1 1 2")
    for cls, line in (("M", 211), ("H", 213)):
        assert _raw("points", line) == f"{cls} {p['gun'][cls]} {p['missile'][cls]} {p['armour'][cls]}"
    assert _raw("points", 223) == "+3 +2 +1 -" and list(p["mobility"].values()) == [3, 2, 1, 0]
    assert _signed(_raw("points", 217)) == [p["spec_recce"], p["infantry"]["RI"], p["quality"]["S"]]


def test_orders_list_and_blocks():
    """K-ORD-1: L63 lists ten orders; the four blocks are a reconstruction."""
    orders = TABLES["orders"]
    assert " ".join(orders["list"]) == _raw("orders", 63).replace(" (only available as part of a scenario)", "") \
        .replace("HD 1", "HD1").replace("HD 2", "HD2").replace("HD 3", "HD3")
    assert [o for block in orders["blocks"] for o in block] == orders["list"] and len(orders["blocks"]) == 4
