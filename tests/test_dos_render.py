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


def test_every_marker_of_a_hex_is_drawn_apart_with_its_own_words():
    """An audience's probe: a Soviet Air Interdiction marker was drawn over the Axis control
    flag of its hex, without its "AI", so that the flag's "GT2" read as the marker's; and a
    railhead in a hex with a flag or a marker was not drawn at all. Each marker of a hex has
    its words, and the picture draws them apart, the second at the hex's right."""
    sc = SC()
    rules = at(units={"G/57": {"hex": "N2146"}, "Tr/1": {"hex": "N2048"}, "R/6": {"hex": "N2245"}})
    rules["control"]["N2048"] = "a2"           # an Axis flag where a truck stands, its railhead
    rules["interdiction"]["soviet"] = ["N2048"]
    rules["railheads"] = [{"truck": "Tr/1", "chain": ["Tr/1"]}]
    scene = draw.draw(sc, rules, [])
    marks = items(scene, "mark", cell="N2048")
    assert [(m["symbol"], m["text"]) for m in marks] == [("flag", "GT2"), ("circle", "AI"), ("square", "RH")]
    painter = svg._Painter(scenes.Grid(scene["grid"]), {}, {}, 0, 0, scene["items"])
    drawn = [painter.mark(m) for m in marks]
    where = [tuple(map(float, re.search(r'(?:cx|x)="([-0-9.]+)" (?:cy|y)="([-0-9.]+)"', shape[0]).groups()))
             for shape, _ in drawn if "circle" in shape[0] or "rect" in shape[0]]
    flag = tuple(map(float, re.search(r'd="M([-0-9.]+) ([-0-9.]+)', drawn[0][0][0]).groups()))
    cx, cy = painter.centre("N2048")
    assert flag[0] < cx < where[0][0]                       # the flag at the hex's left, the marker at its right
    assert where[1][1] > flag[1] and where[1][0] < cx                       # the third under the first
    words = [re.search(r">([^<]*)</text>", said[0]).group(1) for _, said in drawn]
    assert words == ["GT2", "AI", "RH"]


def test_the_last_packets_attack_is_an_arrow_with_its_result():
    sc = SC()
    rules = at(phase="combat", units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2146"},
                                      "G/75": {"hex": "N2146"}, "A/21": {"hex": "N2143"}})
    ctx = play(rules, [{"type": "attack", "targets": ["N2245"], "units": ["G/57", "G/75"]}], dice=[6])
    scene = draw.draw(sc, rules, ctx.events)
    arrows = items(scene, "arrow", style="attack")
    assert [a["cells"] for a in arrows] == [["N2146", "N2245"]]
    fight = [e for e in ctx.events if e["type"] == "combat"][-1]
    assert arrows[0]["text"] == f"Axis {fight['column']} die 6: {fight['result']}"        # whose attack (probe)
    assert arrows[0]["side"] == "german"            # the dot where it starts: in the attackers' counter colour
    # a picture posted alone says what its results mean, as chir's does (an audience's walkthrough:
    # "Axis 10-1 die 5: De/A1" with no key); every part the table can give is named in the legend
    label = scene["styles"]["attack"]["label"]
    assert all(re.search(rf"\b{part}\b", label) for row in sc.crt.values() for result in row for part in result.split("/"))


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
    assert arrows[0]["text"] == f"Axis {fight['column']} die 6-1=5: {fight['result']}"
    assert fight["result"] == sc.crt[5][sc.crt_columns.index(fight["column"])]


def test_pbem_render_draws_the_example_game(tmp_path):
    out = tmp_path / "dos.svg"
    result = CliRunner().invoke(cli, ["render", str(EXAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    # a stack for every hex `pbem show` lists units in, on both sheets
    held = re.findall(r"^([NS]\d{4}) ", CliRunner().invoke(cli, ["show", str(EXAMPLE)]).output, re.M)
    assert len(held) > 60 and {h[0] for h in held} == {"N", "S"}
    assert set(re.findall(r'<g class="stack" data-cell="([^"]+)"', text)) == set(held)
    assert "Stalingrad 15 VP" in text and "SOUTH MAPSHEET" in text
    # the title, as status says it, over two lines
    assert ">Game-Turn 3 of 25 (12-18 Jul), axis Initial<" in text and ">Movement Phase<" in text


def _counter_boxes(text: str) -> dict[str, tuple[float, float, float]]:
    """Each counter of an SVG by unit: (x, y, side) of its box."""
    return {unit: (float(x), float(y), float(c)) for unit, x, y, c in re.findall(
        r'<g class="counter" data-unit="([^"]+)"><rect class="side-[^"]+" x="([-\d.]+)" y="([-\d.]+)" '
        r'width="([\d.]+)"', text)}


def test_a_stack_of_four_and_the_largest_a_hex_may_hold_stand_inside_their_hex():
    """Players' probe: of the four counters in N2150 (3/3Pz, 394/3Pz, 6/3Pz, G/336), 6/3Pz and
    G/336 stood in N2250 and N2251 and the top two covered the id. Each counter of a stack of
    four, and of the largest stack 7.1 allows (three whole divisions of three regiments, 7.22,
    and an HQ), lies inside its hex below the id, as drawn."""
    sc = SC()
    four = ["3/3Pz", "394/3Pz", "6/3Pz", "G/336"]
    divisions = [d for d, regs in sorted(sc.divisions.items()) if len(regs) == 3 and sc.side_of[regs[0]] == "axis"]
    ten = [r for d in divisions[:3] for r in sc.divisions[d]] + [next(u for u in sc.side_units["axis"] if sc.units[u].hq)]
    rules = at(units={**{u: {"hex": "N2150"} for u in four}, **{u: {"hex": "N2446"} for u in ten}})
    scene = draw.draw(sc, rules, [])
    grid = scenes.Grid(scene["grid"])
    ox, oy = svg.MARGIN - grid.box[0], svg.MARGIN - grid.box[1]
    boxes = _counter_boxes(svg.to_svg(scene))
    for hex_id, units in (("N2150", four), ("N2446", ten)):
        cx, cy = grid.centre(hex_id)
        cx, cy = cx + ox, cy + oy
        id_baseline = cy - grid.extent(hex_id)[1] + 7 * 0.95     # dos's cell id: 7 px, at the top

        def inside(px, py):   # the pointy-topped hexagon of radius SIZE about the hex's centre
            dx, dy = abs(px - cx), abs(py - cy)
            return dx <= draw.SIZE * 3 ** 0.5 / 2 and dy <= draw.SIZE - dx / 3 ** 0.5

        assert set(units) <= boxes.keys()
        for u in units:
            x, y, c = boxes[u]
            assert all(inside(x + c * i / 10, y + c * j / 10) for i in range(11) for j in range(11)), (hex_id, u)
            assert y >= id_baseline and c >= 12.5, (hex_id, u, y, c)


def test_an_attack_says_whose_it_is_where_its_attackers_are_gone_and_the_enemy_stands():
    """Players' probe (state 13): the Soviet 1-2 on N2249 from N2149 and N2349, attackers
    eliminated (Ae), German units advancing into N2149: the arrow from N2149 read as a German
    attack into the empty N2249. Its result names the Soviet side, and its dot, where it
    starts, is in the Soviet counter colour, over the German counters now there."""
    sc = SC()
    rules = at(phase="combat", units={"G/376": {"hex": "N2149"}, "G/57": {"hex": "N2149"}, "A/66": {"hex": "N2248"}})
    events = [{"type": "combat", "attack": 16, "defence": 18, "column": "1-2", "die": 6, "row": 6, "result": "Ae",
               "attack_parts": ["GR/36 8", "TC/4 8"], "defence_parts": ["G/376 9 + G/57 9 in N2249 = 18"],
               "kind": "attack", "targets": ["N2249"], "hexes": ["N2149", "N2349"], "rule": "9.5"},
              {"type": "eliminated", "units": ["GR/36", "TC/4"], "rule": "9.66"},
              {"type": "advance", "side": "axis", "units": ["G/376"], "path": ["N2249", "N2149"], "rule": "9.8"},
              {"type": "advance", "side": "axis", "units": ["G/57"], "path": ["N2249", "N2149"], "rule": "9.8"}]
    scene = draw.draw(sc, rules, events)
    attacks = items(scene, "arrow", style="attack")
    assert [(a["cells"], a.get("text"), a["side"]) for a in attacks] == [
        (["N2149", "N2249"], "Soviet 1-2 die 6: Ae", "soviet"), (["N2349", "N2249"], None, "soviet")]
    assert {a["side"] for a in items(scene, "arrow", style="advance")} == {"german"}
    text = svg.to_svg(scene)
    soviet, german = draw.NATIONS["soviet"]["fill"], draw.NATIONS["german"]["fill"]
    # where each arrow starts: a dot in its units' counter colour, ringed in the arrow's
    starts = re.findall(r'<g class="trail"><path [^>]*d="M([-\d.]+) ([-\d.]+)[^"]*"/><path class="ln s-([a-z-]+)" '
                        r'[^>]*/><circle cx="\1" cy="\2" r="[\d.]+" fill="(#[0-9a-f]{6})" stroke="(#[0-9a-f]{6})"', text)
    assert sorted((style, fill, ring) for _, _, style, fill, ring in starts) == [
        ("advance", german, draw.STYLES["advance"]["stroke"])] * 2 + [("attack", soviet, draw.STYLES["attack"]["stroke"])] * 2
    assert ">Soviet 1-2 die 6: Ae</text>" in text
    assert svg.ARROW_START in " ".join(re.findall(r">([^<]*)</text>", text[text.index('<g id="panel">'):]))   # the legend
    # an overrun says so, and a result whose attackers stand nowhere beside it too
    assert draw._result({"column": "2-1", "die": 2, "row": 2, "result": "D1", "kind": "overrun"}, "axis") == \
        "Axis overrun 2-1 die 2: D1"
    alone = draw.draw(sc, rules, [dict(events[0], hexes=[])])
    assert [i["text"] for i in items(alone, "label", style="name") if i["cell"] == "N2249"] == ["Soviet 1-2 die 6: Ae"]
