"""dos pictures (draw.py): both mapsheets in one grid that keeps every hex's neighbours, the
terrain, rivers and cities of the map, counters with their strengths (untried as untried),
supply and control markers of a constructed position, and the last packet's attacks; and
`pbem render` of the example game."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli
from pbem.core.geometry import hexgrid
from pbem.core.render import scene as scenes, svg
from pbem.rulesets.dos import draw, report
from tests.test_dos_support import SC, at, play

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dos-demo"


def items(scene, kind, **match):
    return [i for i in scene["items"] if i["type"] == kind and all(i.get(k) == v for k, v in match.items())]


def counter(scene, uid):
    found = [c for s in items(scene, "stack") for c in s["counters"] if c["unit"] == uid]
    assert len(found) == 1, uid
    return found[0]


def test_the_picture_grid_keeps_every_hexs_neighbours_with_north_up_and_east_right():
    sc = SC()
    scene = draw.draw(sc, at(), [])
    cells = scene["grid"]["cells"]
    layout = scene["grid"]["layout"]
    where = {h: hexgrid.offset_to_axial(c[0], c[1], layout) for h, c in cells.items()}
    by_hex = {a: h for h, a in where.items()}
    for i, h in enumerate(sc.ids):
        near = {by_hex[n] for n in hexgrid.neighbours(where[h]) if n in by_hex and by_hex[n] in sc.idx}
        assert near == {sc.ids[j] for j in sc.nb[i]}, h
    # north up: hexrow N01 above N40 above S01; east right: position 01 right of position 54
    y = lambda h: hexgrid.pixel(where[h], 1, layout)[1]
    x = lambda h: hexgrid.pixel(where[h], 1, layout)[0]
    assert y("N0120") < y("N4020") < y("S0120") < y("S4020")
    assert x("N2001") > x("N2054")
    assert scene["north"] == 0


def test_both_sheets_with_terrain_water_rivers_rail_and_cities():
    sc = SC()
    scene = draw.draw(sc, at(), [])
    cells = scene["grid"]["cells"]
    assert {h[0] for h in cells} == {"N", "S"} and len(cells) == 2 * 40 * 54
    styles = {i["style"] for i in items(scene, "cell")}
    assert {"clear", "light-woods", "heavy-woods", "rough", "mountain", "major-city", "minor-city",
            "sea", "off-limits"} <= styles
    assert items(scene, "cell", cell="N3117", style="major-city")                # Stalingrad (3.1)
    sides = {i["style"] for i in items(scene, "side")}
    assert {"don", "volga", "minor-river", "lake-side"} <= sides
    volga = {(i["a"], i["b"]) for i in items(scene, "side", style="volga")}
    assert len(volga) == sum(1 for (a, b), k in sc.side_kind.items() if k == "volga" and a < b)
    assert len(items(scene, "path", style="rail")) == sum(len(n) for n in sc.rail_nb) // 2
    names = {i["text"] for i in items(scene, "label", style="name")}
    assert "Stalingrad 15 VP" in names and "Rostov 10 VP" in names
    assert [i["cells"] for i in items(scene, "path", style="front-line")] == [[sc.ids[i] for i in sc.front]]
    assert any("reconstructed" in n for n in scene["notes"])
    scenes.check(scene)


def test_counters_supply_and_control_markers_of_a_constructed_position():
    sc = SC()
    # G/57 far behind the Soviet lines: out of supply at the start of the Axis movement phase (12.0)
    rules = at(units={"G/57": {"hex": "N0505"}, "G/75": {"hex": "N2146"}, "R/6": {"hex": "N2245"},
                      "R/38": {"hex": "N2246", "revealed": [2, 4]}, "A/21": {"hex": "N2143"}})
    assert rules["ps"]["oos"] == ["G/57"]
    rules["control"]["N2154"] = "s3"            # Kharkov taken back by the Soviet player on Game-Turn 3
    rules["control"]["N3117"] = "a5"            # Stalingrad taken by the Axis on Game-Turn 5
    rules["control"]["N0754"] = "a4"            # Kursk, Axis at the start, taken back by the Axis: no marker
    rules["interdiction"]["axis"] = ["N2244"]
    rules["disrupted"].append("R/38")
    scene = draw.draw(sc, rules, [])
    assert counter(scene, "G/57")["markers"] == ["out-of-supply"]
    assert counter(scene, "G/75")["markers"] == []
    assert counter(scene, "G/57")["values"] == "9-9" and counter(scene, "G/57")["side"] == "german"
    assert counter(scene, "R/6")["values"] == "U-8"                                # untried (13.0)
    assert counter(scene, "R/38")["values"] == "2-4-8" and counter(scene, "R/38")["markers"] == ["disrupted"]
    assert counter(scene, "A/21")["values"] == "(3)12"              # an HQ: (Leadership)MA, as the reports write it
    assert "A/21 (3)12" in report.unit_text(sc, rules, "A/21")
    flags = {i["cell"]: (i["style"], i["text"]) for i in items(scene, "mark", symbol="flag")}
    assert flags == {"N2154": ("control-soviet", "GT3"), "N3117": ("control-axis", "GT5")}
    assert items(scene, "mark", cell="N2244", style="interdiction-axis")
    assert any("Out of supply this phase" in line for line in scene["caption"])
    text = svg.to_svg(scene)
    g57 = re.search(r'<g class="counter" data-unit="G/57">.*?</g>', text).group(0)
    assert ">S</text>" in g57 and "#ff6a4d" in g57                                 # the supply tab on the counter
    assert "control-soviet" in text and "control-axis" in text


def test_the_last_packets_attack_is_an_arrow_with_its_result():
    sc = SC()
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2146"},
                                      "G/75": {"hex": "N2146"}, "A/21": {"hex": "N2143"}})
    ctx = play(rules, [{"type": "attack", "targets": ["N2245"], "units": ["G/57", "G/75"]}], dice=[6])
    scene = draw.draw(sc, rules, ctx.events)
    arrows = items(scene, "arrow", style="attack")
    assert [a["cells"] for a in arrows] == [["N2146", "N2245"]]
    fight = [e for e in ctx.events if e["type"] == "combat"][-1]
    assert arrows[0]["text"] == f"{fight['column']} die 6: {fight['result']}"


def test_an_attacks_label_gives_the_row_its_air_points_shift_the_die_to():
    """14.22: each Air Point shifts the die one row; the arrow's label gives the die and the
    row read, as the report does (players' probe: "6-1 die 6: D2" read as the CRT's die 6)."""
    sc = SC()
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2146"},
                                      "G/75": {"hex": "N2146"}, "A/21": {"hex": "N2143"}, "AirK/4": {"hex": "N2154"}})
    ctx = play(rules, [{"type": "attack", "targets": ["N2245"], "units": ["G/57", "G/75"],
                        "air": {"units": ["AirK/4"], "shift": -1}}], dice=[6])
    fight = [e for e in ctx.events if e["type"] == "combat"][-1]
    assert (fight["die"], fight["row"]) == (6, 5) and "; die 6 -1 = 5: " in fight["text"]
    arrows = items(draw.draw(sc, rules, ctx.events), "arrow", style="attack")
    assert arrows[0]["text"] == f"{fight['column']} die 6-1=5: {fight['result']}"
    assert fight["result"] == sc.crt[5][sc.crt_columns.index(fight["column"])]


def test_pbem_render_draws_the_example_game(tmp_path):
    out = tmp_path / "dos.svg"
    result = CliRunner().invoke(cli, ["render", str(EXAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert 'data-cell="N0849"' in text and "Stalingrad 15 VP" in text and "SOUTH MAPSHEET" in text
    # the title, as status says it, over two lines
    assert ">Game-Turn 3 of 25 (12-18 Jul), axis Initial<" in text and ">Movement Phase<" in text
