"""kkoh's picture (pbem render): the table of 1 km squares, terrain along and inside them, and
each unit in its cell of its square, drawn facing the edge it faces (K-GM-2, K-GM-3), in a
position built for the test and through the real SVG writer."""

from __future__ import annotations

import copy
import re
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli
from pbem.core.render import frames, scene as scenes, svg
from pbem.rulesets.kkoh import RULESET
from tests.support import examples
from tests.test_kkoh_cases import scenario_doc

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "kkoh-demo"


def position():
    units = [
        # a blue tank company in rank 1 of 0202 facing north, a second behind it (rank 2)
        {"id": "B-N1", "side": "blue", "row": "tank-1", "square": "0202", "cell": "01", "facing": "N", "order": "HD"},
        {"id": "B-N2", "side": "blue", "row": "tank-1", "square": "0202", "cell": "11", "facing": "N", "order": "HD"},
        # a red tank company in 0402 facing west: the west column, the middle file
        {"id": "R-W1", "side": "red", "row": "tr1-tank", "square": "0402", "cell": "10", "facing": "W", "order": "HA"},
    ]
    doc = scenario_doc({"units": units, "columns": 6, "rows": 6, "area": {"0303": "woods", "0103": "bua"},
                        "edges": {"0302/0402": "stream"}, "roads": ["0302/0402", "0202/0302"],
                        "objectives": ["0103"]})
    sc = RULESET.scenario(doc, {})
    return sc, RULESET.setup(sc)


def counter_box(text: str, unit: str) -> tuple[float, float, float, str, list[tuple[float, float]]]:
    """The counter of a unit in the SVG: its centre, side, facing and the wedge's points."""
    m = re.search(rf'<g class="counter" data-unit="{unit}" data-facing="(\d+)"><rect class="side-\w+" '
                  rf'x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)"', text)
    assert m, unit
    facing, x, y, c = m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4))
    rest = text[m.end():text.index("</g>", m.end())]
    wedge = re.search(r'<polygon class="facing" [^>]*points="([^"]+)"', rest).group(1)
    points = [tuple(float(v) for v in p.split(",")) for p in wedge.split()]
    return x + c / 2, y + c / 2, c, facing, points


def square_box(sc_scene: dict, square: str) -> tuple[float, float, float, float]:
    grid = scenes.Grid(sc_scene["grid"])
    ox, oy = svg.MARGIN - grid.box[0], svg.MARGIN - grid.box[1]
    xs, ys = [], []
    for cell in grid.cells:
        if cell.startswith(square + "."):
            for px, py in grid.outline(cell):
                xs.append(px + ox)
                ys.append(py + oy)
    return min(xs), min(ys), max(xs), max(ys)


def test_a_unit_facing_north_stands_on_the_north_edge_of_its_square_with_its_mark_pointing_north():
    sc, rules = position()
    picture = RULESET.draw(sc, rules, [])
    scenes.check(picture)
    text = svg.to_svg(picture)
    x0, y0, x1, y1 = square_box(picture, "0202")
    assert round(x1 - x0) == round(y1 - y0) == 3 * 56   # a square of 3 x 3 cells
    assert square_box(picture, "0203")[3] == y0 and square_box(picture, "0302")[0] == x1   # north up, east right
    cx, cy, c, facing, wedge = counter_box(text, "B-N1")
    assert facing == "0"
    assert x0 < cx < x1 and y0 < cy < y0 + (y1 - y0) / 3          # the top row: rank 1 facing north
    assert abs(cx - (x0 + x1) / 2) < 1                             # the middle file
    tip = min(wedge, key=lambda p: p[1])
    assert tip[1] < cy - c / 2 and abs(tip[0] - cx) < 0.5         # the wedge points up, out of the counter
    assert all(p[1] <= cy - c / 2 + 0.5 for p in wedge)            # on the north side, nowhere else
    bx, by, _, _, _ = counter_box(text, "B-N2")
    assert abs(bx - cx) < 1 and y0 + (y1 - y0) / 3 < by < y0 + 2 * (y1 - y0) / 3   # rank 2, behind it
    # red faces west: the west column of 0402, its wedge to the left
    x0, y0, x1, y1 = square_box(picture, "0402")
    rx, ry, c, facing, wedge = counter_box(text, "R-W1")
    assert facing == "270" and x0 < rx < x0 + (x1 - x0) / 3 and abs(ry - (y0 + y1) / 2) < 1 + c * 0.15
    assert min(p[0] for p in wedge) < rx - c / 2 and all(p[0] <= rx - c / 2 + 0.5 for p in wedge)


def test_the_table_shows_its_squares_terrain_stream_bridge_road_objective_and_markers():
    sc, rules = position()
    picture = RULESET.draw(sc, rules, [])
    items = picture["items"]
    assert {i["text"] for i in items if i["type"] == "label" and i.get("style") == "cell-id"} == set(sc.grid.ids)
    assert {i["cell"] for i in items if i["type"] == "cell" and i["style"] == "woods"} == {f"0303.{c}" for c in
                                                                                         "00 01 02 10 11 12 20 21 22".split()}
    # the stream runs along the whole edge between 0302 and 0402: the three pairs of cells facing across it
    stream = sorted((i["a"], i["b"]) for i in items if i["type"] == "side" and i["style"] == "stream")
    assert stream == [("0302.02", "0402.00"), ("0302.12", "0402.10"), ("0302.22", "0402.20")]
    assert [(i["a"], i["b"]) for i in items if i["type"] == "side" and i["style"] == "bridge"] == [("0302.12", "0402.10")]
    assert sorted(i["cells"] for i in items if i["type"] == "path") == [["0202.11", "0302.11"], ["0302.11", "0402.11"]]
    assert any(i["type"] == "outline" and i["style"] == "objective" and "0103.11" in i["cells"] for i in items)
    flags = sorted((i["cell"], i["style"], i["text"]) for i in items if i["type"] == "mark" and i["symbol"] == "flag")
    assert flags == [("0000.02", "hq-blue", "HQ"), ("0505.02", "hq-red", "HQ")]   # B-HQ and R-HQ, In Command
    assert picture["notes"] and "Turn 1 of 2" in picture["caption"][0]
    text = svg.to_svg(picture)
    assert 'class="ln s-stream"' in text and 'class="ln s-bridge"' in text and 'class="ln s-road"' in text


def test_the_last_packets_moves_start_at_the_side_they_leave_by():
    sc, rules = position()
    events = [{"type": "move", "units": ["B-N1"], "origin": "0202", "to": "0203"},
              {"type": "move", "units": ["B-N2"], "origin": "0202", "to": "0201"},
              {"type": "move", "units": ["R-W1"], "origin": "0402", "to": "0402"}]
    arrows = [i for i in RULESET.draw(sc, rules, events)["items"] if i["type"] == "arrow"]
    assert [a["cells"] for a in arrows] == [["0202.01", "0203.11"], ["0202.21", "0201.11"]]
    assert [a["style"] for a in arrows] == ["move-blue", "move-blue"]


def test_a_units_last_move_ends_at_its_counter_and_fire_goes_where_both_stood_as_it_was_rolled():
    """Audience probe: move arrows ended in the middle of an empty square, and a fire arrow
    pointed at where its target went after the shot."""
    sc, rules = position()
    rules["pieces"]["B-N1"].update(sq="0203", cell="21")   # where the move brought it
    events = [{"type": "move", "units": ["B-N1"], "origin": "0202", "to": "0203"},
              {"type": "move", "units": ["B-N2"], "origin": "0202", "to": "0201"},
              {"type": "fire", "unit": "B-N2", "target": "R-W1", "at": ["0201.01", "0402.10"], "effect": "none", "die": 3}]
    arrows = [i for i in RULESET.draw(sc, rules, events)["items"] if i["type"] == "arrow"]
    # B-N2 is not in 0201 in these rules (its move was undone or it moved on): the middle of the square
    assert [a["cells"] for a in arrows] == [["0202.01", "0203.21"], ["0202.21", "0201.11"], ["0201.01", "0402.10"]]
    assert arrows[2]["text"] == "Blue: no effect (die 3)"     # whose fire, its result as the report says it
    # a unit that gave ground: its arrow ends at its counter too (an audience's probe: mid-square)
    moved = {**rules, "pieces": {**rules["pieces"], "R-W1": dict(rules["pieces"]["R-W1"], sq="0403", cell="21")}}
    gave = [{"type": "give-ground", "unit": "R-W1", "origin": "0402", "to": "0403", "side": "red"}]
    assert [a["cells"] for a in RULESET.draw(sc, moved, gave)["items"] if a["type"] == "arrow"] == \
        [["0402.01", "0403.21"]]
    scored = [dict(events[2], effect="give-ground", die=4, score=6)]
    assert [a["text"] for a in RULESET.draw(sc, rules, scored)["items"] if a["type"] == "arrow"] == \
        ["Blue: Give Ground (die 4, total 6)"]
    # a unit that moves twice in the packet: the first move ends in the middle, the last at its counter
    twice = [{"type": "move", "units": ["B-N1"], "origin": "0202", "to": "0302"},
             {"type": "move", "units": ["B-N1"], "origin": "0302", "to": "0203"}]
    assert [a["cells"][-1] for a in RULESET.draw(sc, rules, twice)["items"] if a["type"] == "arrow"] == \
        ["0302.11", "0203.21"]
    # the engine's fire events say where both stood: in the example, as the state before them has it
    folder = examples.opened(EXAMPLE)
    fires = [(fr, e) for fr in examples.every_frame(folder) for e in fr.events if e["type"] == "fire"]
    assert fires and all(len(e["at"]) == 2 and all(re.fullmatch(r"\d{4}\.\d{2}", c) for c in e["at"]) for _, e in fires)


def test_the_example_renders_and_every_unit_faces_as_in_its_state(tmp_path):
    f = examples.opened(EXAMPLE)
    fr = examples.frame(f)
    picture = frames.scene(f, fr)
    text = svg.to_svg(picture)
    faced = dict(re.findall(r'data-unit="([^"]+)" data-facing="(\d+)"', text))
    pieces = fr.state["rules"]["pieces"]
    assert faced == {pid: str("NESW".index(rec["f"]) * 90) for pid, rec in pieces.items()}
    result = CliRunner().invoke(cli, ["render", str(EXAMPLE), "-o", str(tmp_path / "table.png")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "table.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_air_attack_is_a_star_in_the_square_it_struck_with_its_dice_and_result():
    """An audience's probe: kkoh's air attacks were not drawn. Each one of the last packet
    (K-AIR-3) is a star in the square the unit stood in when struck, saying the aircraft, the
    unit, the dice and the result, as the report does; the legend says what a star is."""
    f = examples.opened(EXAMPLE)
    seen = 0
    for fr in examples.every_frame(f):
        attacks = [e for e in fr.events if e["type"] == "air-attack"]
        scene = frames.scene(f, fr)
        stars = [i for i in scene["items"] if i["type"] == "mark" and i.get("style") == "air-attack"]
        assert len(stars) == len(attacks), fr.seq
        before = examples.frame(f, fr.seq - 1).state["rules"]["pieces"] if attacks else {}
        for e, star in zip(attacks, stars):
            assert star["cell"] == f"{before[e['unit']]['sq']}.11" and star["symbol"] == "star"
            # its words are the report's, without the side letters
            assert f"{e['air']} attacks {e['unit']}: {star['text'].split(': ', 1)[1]} (K-AIR-3)." == e["text"]
            assert star["text"].startswith(f"{e['air'][2:]} on {e['unit'][2:]}: {e['dice'][0]}")
            assert star["text"].endswith(": a loss" if e["loss"] else ": no effect")
            seen += 1
        if attacks:
            assert "air attack on a unit" in svg.to_svg(scene)
    assert seen >= 3   # the example's air attacks: packets 25 and 61


def test_a_fire_that_destroyed_its_target_says_so_and_how_and_every_modified_total_is_given(tmp_path):
    """A kkoh player's probe: the shot that destroyed B-Rec1 read "a loss and Give Ground" on the
    picture (a destroyed unit gives no ground), and a shot whose modifiers cancelled out gave no
    total ("no effect (die 4)" beside "(die 1, total 3)"). The losses of a phase of fire come
    after every shot, and after the Soviet targets' holds (K-DF-7, K-DOC-3), whose standing
    orders answer between (a review: those answers hid the destruction); a unit with no room to
    give ground is destroyed for that (K-GG-10), which is said, not called a loss."""
    from tests.support.games import Match
    from tests.test_kkoh_cases import scenario_doc
    from tests.test_kkoh_rules import POS_FIRE, U, Ctx, settle, table
    from tests.test_kkoh_sealed import drive_to, need, step

    from pbem.rulesets.kkoh import draw, fire

    # through the engine: R1, deployed with a loss, destroyed; R2 and R3 (Soviet) hold or give ground
    units = []
    for i in range(1, 4):
        units += [{"id": f"B{i}", "side": "blue", "row": "tank-1", "square": f"0{i}02", "cell": "01", "facing": "N",
                   "order": "HD"},
                  {"id": f"R{i}", "side": "red", "row": "tr1-tank", "square": f"0{i}03", "cell": "21", "facing": "S",
                   "order": "M", **({"losses": 1} if i == 1 else {})}]
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed="s109",
                  scenario_doc=scenario_doc({"columns": 6, "rows": 6, "units": units}))
    drive_to(match, "fire", seal_orders=False)
    for _ in range(2):
        side = need(match).side
        plan = [{"type": "fire", "unit": f"B{i}", "target": f"R{i}"} for i in range(1, 4)] if side == "blue" else []
        match.send(side, plan + [{"type": "end"}], seal=False)
    for _ in range(6):
        applied = step(match, False)
        if any(e["type"] == "fire" for e in applied.events):
            break
    kinds = [e["type"] for e in applied.events if e["type"] in ("fire", "policy", "destroyed")]
    assert kinds.index("policy") < kinds.index("destroyed")      # the holds are answered before the losses
    assert [item["text"] for item in draw._arrows(match.game.scenario, applied.state["rules"], applied.events)
            if item.get("style") == "fire"] == ["Blue: a loss: destroyed (die 5, total 6)",
                                                "Blue: a loss and Give Ground (die 5, total 6)",
                                                "Blue: a loss and Give Ground (die 5, total 6)"]
    # with no room to give ground (flanks and rear held): destroyed for that, by a loss or not
    units = [U("B1", "blue", "tank", "0500", "01", "N", "HD"), U("R1", "red", "tank", "0501", "21", "S", "HD"),
             U("R2", "red", "tank", "0400", "21", "S"), U("R3", "red", "tank", "0600", "21", "S")]
    sc, rules = table(units, position=POS_FIRE)
    fire.add_fire(sc, rules, "red", {"type": "fire", "unit": "R1", "target": "B1"})
    said = []
    for die in (3, 4, 5):
        trial = copy.deepcopy(rules)
        ctx = Ctx([die] + [1] * 10)
        fire.resolve(sc, trial, ctx)
        settle(sc, trial, ctx, lambda: fire.apply_results(sc, trial, ctx))
        said += [item["text"] for item in draw._arrows(sc, trial, ctx.events)]
    assert said == ["Red: no effect (die 3, total 4)",
                    "Red: Give Ground: destroyed, no room to give ground (die 4, total 5)",
                    "Red: a loss and Give Ground: destroyed, no room to give ground (die 5, total 6)"]
    # a unit destroyed in a later Action Phase of the packet was not destroyed by this shot, nor
    # one destroyed by something other than the fire (a minelet)
    shot = {"type": "fire", "side": "red", "unit": "R1", "target": "B1", "die": 4, "score": 6, "effect": "loss",
            "modifiers": {"class": 1}, "at": ["1107.00", "1007.12"]}
    for after in ([{"type": "action-phase"}, {"type": "destroyed", "unit": "B1", "rule": "K-DF-7"}],
                  [{"type": "destroyed", "unit": "B1", "rule": "K-SFX-5"}]):
        assert [item["text"] for item in draw._arrows(sc, rules, [shot] + after)] == [
            "Red: a loss and Give Ground (die 4, total 6)"]
