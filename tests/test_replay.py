"""`pbem replay`: the one-page replay of a whole game, read as a file and stepped through in
headless Chromium (the DevTools client of test_render)."""

from __future__ import annotations

import json
import re

import pytest

from pbem.core.render import frames
from tests.support import examples
from tests.test_render import CHIR, EXAMPLES, STALINGRAD, needs_browser, not_blank, run, units_on_board


@pytest.fixture(scope="module")
def chir_replay(tmp_path_factory) -> tuple:
    """The chir example's page as `pbem replay` writes it, and what the command said, made once
    for the tests of this file, which only read it (or open it in the browser)."""
    out = tmp_path_factory.mktemp("replay") / "chir.html"
    return out, run("replay", CHIR, "-o", out).output


@pytest.fixture(scope="module")
def chir_page(chir_replay):
    return chir_replay[0]


@pytest.fixture(scope="module")
def stalingrad_page(tmp_path_factory):
    """The stalingrad example's page as `pbem replay` writes it, made once for the tests of this
    file, which only read it (or open it in the browser)."""
    out = tmp_path_factory.mktemp("replay") / "city.html"
    run("replay", STALINGRAD, "-o", out)
    return out


def data_of(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S).group(1))


def test_the_page_needs_nothing_from_outside(chir_page):
    page = chir_page.read_text()
    assert page.startswith("<!DOCTYPE html>")
    outside = re.findall(r'(?:src|href)\s*=\s*["\'](?!#)[^"\']*|@import|url\(|https?://(?!www\.w3\.org/2000/svg")', page)
    assert outside == []
    assert page.count("<script") == 2 and "<link" not in page


def test_the_page_holds_every_state_once_and_shares_the_terrain(chir_page):
    page = chir_page.read_text()
    data = data_of(page)
    f = examples.opened(CHIR)
    assert [s["seq"] for s in data["frames"]] == list(range(f.state["seq"] + 1))
    # the terrain, rivers and roads are drawn once, outside the per-state data
    assert page.count('class="s-boggy" d=') == 1 and "s-boggy" not in "".join(data["pieces"])
    assert "s-river" not in "".join(data["pieces"])
    assert len(page) < 1_500_000  # 25 states of chir; a whole game of 157 states is about 3.6 MB


def test_every_step_carries_its_report_and_dice(chir_replay):
    f = examples.opened(CHIR)
    path, said = chir_replay
    page, count = path.read_text(encoding="utf-8"), int(re.search(r": (\d+) states of game ", said).group(1))
    data = data_of(page)
    assert count == len(data["frames"])
    for fr, step in zip(examples.every_frame(f), data["frames"]):
        rolls = [e for e in fr.events if e["type"] == "roll"]
        assert [d["value"] for d in step["dice"]] == [str(e["value"]) for e in rolls]
        # what a die decided is said once for dice rolled together, by the last of them
        after = [fr.events[i + 1] if i + 1 < len(fr.events) else None for i, e in enumerate(fr.events)
                 if e["type"] == "roll"]
        assert [d["decides"] == "with the next die" for d in step["dice"]] == [
            a is not None and a["type"] == "roll" for a in after]
        if fr.seq:
            assert (CHIR / "aar" / f"{fr.seq:04d}.md").read_text().splitlines()[0].endswith(f"packet {fr.seq}")
            assert f"after-action report, packet {fr.seq}" in step["report"]
            # the title stands without the text report's underline, which wrapped in the panel
            lines = step["report"].split("\n")
            assert lines[1] == "" and lines[2].startswith("Game ") and "===" not in step["report"]


def test_every_step_says_where_the_game_stands_and_the_page_whether_its_dice_are_fair(tmp_path, stalingrad_page):
    """Audience probe: the VP and the result were in the folded map key or on a long report's
    last line, and a sandbox game's page read as a secure one's."""
    from pbem.core import describe
    from pbem.core.render import replay

    f = examples.opened(STALINGRAD)
    page = stalingrad_page.read_text(encoding="utf-8")
    steps = data_of(page)["frames"]
    for fr, step in zip(examples.every_frame(f), steps):
        summary = f.game.summary(fr.state["rules"])
        assert step["standing"] == " ".join(describe.now_lines(summary) + describe.score_lines(f.game, summary))
    result = f.game.summary(f.state["rules"])["result"]   # (the example's: a draw, or either side's victory)
    assert steps[-1]["standing"].startswith(f"Game over after turn 6 of 6. Result: {result}") and result
    keys = ", ".join(f"{side['name']} {side['fingerprint']}" for side in f.game.genesis["sides"])
    assert (f'<p id="mode">A secure game: every packet is signed by its side\'s key ({keys}) and every die comes '
            f"from dice chains both sides committed to before play; pbem audit of the game folder checks it all."
            f"</p>") in page
    from tests.support.games import sandbox

    folder = sandbox(tmp_path / "sb", "stalingrad", seed="page")
    assert ('<p id="mode">A sandbox game: its packets are unsigned and its dice come from the script or seed in its '
            "genesis, which anyone could have chosen: not fair dice.</p>") in replay.page(folder)[0]


def test_dice_rolled_together_say_once_what_they_decided():
    """A stalingrad combat rolls the attacker's and the defender's die, which decide one thing:
    the table says it by the last of them (audience probe: the same sentence twice)."""
    from pbem.core.render import replay

    f = examples.opened(CHIR.parent / "stalingrad-demo")
    steps = [replay._step(f.game, fr) for fr in examples.every_frame(f)]
    pairs = [(a, b) for step in steps for a, b in zip(step["dice"], step["dice"][1:]) if a["decides"] == "with the next die"]
    assert pairs and all(b["decides"] not in ("", "with the next die") for a, b in pairs)   # two dice a combat


def test_the_replay_is_the_same_bytes_every_time(tmp_path, stalingrad_page):
    """Two runs of `pbem replay` of one game write the same bytes (the module's page is the
    first run)."""
    run("replay", STALINGRAD, "-o", tmp_path / "b.html")
    assert stalingrad_page.read_bytes() == (tmp_path / "b.html").read_bytes()


def test_report_text_is_escaped_in_the_page(stalingrad_page):
    """A report line cannot open markup in the page: the data is JSON with <, > and &
    escaped, and the page puts it in as text."""
    page = stalingrad_page
    blob = re.search(r'id="replay-data">(.*?)</script>', page.read_text(), re.S).group(1)
    assert "<" not in blob and ">" not in blob and "&" not in blob


def units_in_dom(b) -> set[str]:
    return set(b.js("Array.from(document.querySelectorAll('#stacks [data-unit]')).map(e => e.getAttribute('data-unit'))"))


@needs_browser
def test_on_a_phone_the_map_stands_above_the_report(browser, chir_page):
    """A narrow window (a phone, 414 px) puts the map above the report, both the window's
    width (audience probe: beside a 34em report the map was 0 px wide)."""
    browser.open(chir_page, 414, 896)
    box = lambda name: browser.js(f"(function () {{ var r = document.getElementById('{name}').getBoundingClientRect();"
                                  f" return [r.left, r.top, r.width, r.height]; }})()")
    (mx, my, mw, mh), (sx, sy, sw, sh) = box("map"), box("side")
    assert mw >= 400 and mh >= 300 and sw >= 400 and sh >= 200 and sy >= my + mh - 1, (box("map"), box("side"))
    svg_box = browser.js("(function () { var r = document.querySelector('#map svg').getBoundingClientRect();"
                         " return [r.width, r.height]; })()")
    assert svg_box[0] >= 300 or svg_box[1] >= 300
    browser.open(chir_page, 1600, 1000)   # and side by side on a wide screen
    (mx, my, mw, mh), (sx, sy, sw, sh) = box("map"), box("side")
    assert sx >= mx + mw - 1 and mw >= 900


@needs_browser
def test_the_step_buttons_stay_at_the_very_top_of_a_scrolled_report(browser, chir_page):
    """An audience's probe: scrolled, the report's text showed through a strip above the step
    buttons (the panel's padding): they stand at the panel's top edge, on a wide screen and on
    a phone, scrolled or not."""
    top = ("(function () { var s = document.getElementById('side'), c = document.getElementById('controls');"
           " return [s.getBoundingClientRect().top, c.getBoundingClientRect().top, s.scrollTop]; })()")
    for width, height in ((1400, 700), (414, 896)):
        browser.open(chir_page, width, height)
        side, controls, _ = browser.js(top)
        assert abs(controls - side) <= 1, (width, side, controls)     # (a phone: under the 1 px border)
        browser.js("document.getElementById('side').scrollTop = 400")
        side, controls, scrolled = browser.js(top)
        assert scrolled >= 300 and abs(controls - side) <= 1, (width, side, controls, scrolled)


@needs_browser
def test_the_legend_stays_legible_beside_a_fitted_map(browser, chir_page):
    """The map is fitted to the window, and its key (title, turn, compass, legend) stands
    beside the report at its own size (audience probe: fitted with the map, a large map's
    legend shrank to 3-4 px). The key follows the state, as the map does."""
    browser.open(chir_page, 1100, 800)
    assert browser.js("document.querySelector('#map #panel')") is None     # the map holds no legend
    map_w = browser.js("document.querySelector('#map svg').getBoundingClientRect().width")
    full_w = float(browser.js("document.querySelector('#map svg').getAttribute('width')"))
    assert map_w < full_w * 0.6      # fitted: drawn smaller than its size
    assert browser.js("document.getElementById('key').open") is False
    browser.js("document.querySelector('#key summary').click()")
    heights = browser.js("Array.from(document.querySelectorAll('#key #panel text')).map("
                         "e => e.getBoundingClientRect().height)")
    assert len(heights) > 20 and min(heights) >= 10, heights   # every line of the key at a legible size
    caption = "Array.from(document.querySelectorAll('#key #panel .steps text')).map(e => e.textContent).join(' ')"
    last = browser.js(caption)
    browser.key("Home", 36)
    first = browser.js(caption)
    assert first.startswith("Set-up:") and not last.startswith("Set-up:") and "VP Soviet" in last


# the breaks of each roll's label in the dice table: for each character after which its line
# ends, that character and the label's text (the cell's text content)
LABEL_BREAKS = """(function () {
  return Array.from(document.querySelectorAll('#dice tr td:nth-child(2)')).map(function (td) {
    var chars = [];
    td.childNodes.forEach(function (node) {
      if (node.nodeType !== 3) { return; }
      for (var k = 0; k < node.length; k++) { chars.push([node, k]); }
    });
    var tops = chars.map(function (c) {
      var range = document.createRange(); range.setStart(c[0], c[1]); range.setEnd(c[0], c[1] + 1);
      return range.getBoundingClientRect().top;
    });
    var breaks = [];
    for (var k = 1; k < chars.length; k++) {
      if (tops[k] > tops[k - 1] + 1) { breaks.push(chars[k - 1][0].data[chars[k - 1][1]]); }
    }
    return [td.textContent, breaks];
  });
})()"""


@needs_browser
def test_a_rolls_label_breaks_only_after_a_dot(browser, chir_page):
    """In the dice table beside the map, a label too long for its column breaks after one of
    its dots, not in the middle of a part (an audience probe: "t1.german.movement.m" over
    "12.tactical"), and the cell's text is still the audit's label, byte for byte."""
    browser.open(chir_page, 1280, 800)
    f = examples.opened(CHIR)
    broken = 0
    for fr in [fr for fr in examples.every_frame(f) if any(e["type"] == "roll" for e in fr.events)][:4]:
        browser.js(f"location.hash = '#{fr.seq}'")
        assert browser.js("document.body.getAttribute('data-seq')") == str(fr.seq)
        cells = browser.js(LABEL_BREAKS)
        labels = [str(e["label"]) for e in fr.events if e["type"] == "roll"]
        assert [text for text, _ in cells] == labels
        for text, breaks in cells:
            assert set(breaks) <= {"."}, (text, breaks)
            broken += len(breaks)
    assert broken >= 3   # at this width some labels do break


def test_stepping_the_replay_in_a_browser(browser, chir_page):
    browser.open(chir_page, 1600, 1000)
    f = examples.opened(CHIR)
    last = f.state["seq"]
    # the page opens at the latest state (a players' probe: it opened on the empty set-up map)
    assert browser.js("document.body.getAttribute('data-seq')") == str(last)
    browser.key("Home", 36)
    assert browser.js("document.body.getAttribute('data-seq')") == "0"
    assert "State 0 of" in browser.js("document.getElementById('where').textContent")
    first_shot = browser.screenshot()
    assert not_blank(first_shot) > 20

    browser.key("End", 35)
    assert browser.js("document.body.getAttribute('data-seq')") == str(last)
    assert units_in_dom(browser) == units_on_board(CHIR, last)
    # where the game stands, in sight over the dice and the report (audience probe)
    standing = browser.js("document.getElementById('standing').textContent")
    # the turn and the VP as `pbem status` says them (the numbers are the example game's)
    status = run("status", CHIR).output.splitlines()
    assert re.fullmatch(r"Game turn 3 of 12, Soviet concentrated attack phase\. VP if the game ended now \(4\.0\): "
                        r"Soviet [0-9.]+, German [0-9.]+, .* \(4\.5\); the German line of communication to the Don is "
                        r"(cut|open) \(4\.3\)\.", standing), standing
    assert standing == f"{status[1]} {status[-1]}" and browser.js(
            "document.getElementById('standing').getBoundingClientRect().bottom") < browser.js(
            "document.getElementById('report').getBoundingClientRect().top")
    report_last = browser.js("document.getElementById('report').textContent")
    assert f"after-action report, packet {last}" in report_last
    shot_last = browser.screenshot()

    browser.key("ArrowLeft", 37)
    assert browser.js("document.body.getAttribute('data-seq')") == str(last - 1)
    assert units_in_dom(browser) == units_on_board(CHIR, last - 1)
    assert browser.js("document.getElementById('report').textContent") != report_last
    assert browser.screenshot() != shot_last

    # a state whose packet rolled dice shows them, one row per die
    rolled = next(fr for fr in frames.frames(f) if any(e["type"] == "roll" for e in fr.events))
    browser.key("Home", 36)
    for _ in range(rolled.seq):
        browser.key("ArrowRight", 39)
    assert browser.js("document.body.getAttribute('data-seq')") == str(rolled.seq)
    assert browser.js("document.querySelectorAll('#dice tr').length") == sum(
        1 for e in rolled.events if e["type"] == "roll")
    assert browser.js("Array.from(document.querySelectorAll('#dice-table th')).map(e => e.textContent)") == [
        "Die, or draw of N", "Roll (its label in the audit)", "What it decided"]
    assert browser.js("document.getElementById('dice-table').hidden") is False
    assert units_in_dom(browser) == units_on_board(CHIR, rolled.seq)

    # the page opens with the whole map fitted to the window; the button shows it at full size
    svg_width = "document.querySelector('#map svg').getBoundingClientRect().width"
    full = float(browser.js("document.querySelector('#map svg').getAttribute('width')"))
    assert browser.js("document.body.classList.contains('fit')") is True
    fitted = browser.js(svg_width)
    assert abs(fitted - browser.js("document.getElementById('map').clientWidth")) < 2 and fitted < full - 200
    assert browser.js("document.getElementById('fit').textContent") == "Full size"
    browser.click("#fit")
    assert abs(browser.js(svg_width) - full) < 1
    assert browser.js("document.getElementById('fit').textContent") == "Fit to window"

    browser.click("#first")
    assert browser.js("document.body.getAttribute('data-seq')") == "0"
    browser.click("#next")
    assert browser.js("document.body.getAttribute('data-seq')") == "1"
    browser.click("#last")
    assert browser.js("document.body.getAttribute('data-seq')") == str(last)


@needs_browser
def test_the_address_opens_a_state(browser, stalingrad_page):
    browser.open(stalingrad_page)
    # the old page, marked, shows state 20 too as the hash changes, before the reload replaces it:
    # what is read is the reloaded page's (a race: read between the two, the units were none)
    browser.js("document.body.setAttribute('data-old', '1'); location.hash = '#20'; location.reload()")
    import time

    def seq() -> str | None:
        try:
            return browser.js("document.body && !document.body.hasAttribute('data-old') && "
                              "document.readyState === 'complete' && document.body.getAttribute('data-seq')")
        except RuntimeError:        # asked while the reload replaces the page's context: ask again
            return None

    deadline = time.monotonic() + 30
    while seq() != "20":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert units_in_dom(browser) == units_on_board(STALINGRAD, 20)
    # an address edited in the open page goes there too (an audience's probe: only the first was read)
    browser.js("location.hash = '#7'")
    while seq() != "7":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert units_in_dom(browser) == units_on_board(STALINGRAD, 7)
    for nowhere in ("#nowhere", "#99"):   # an address of no state leaves the page where it is, and says so
        browser.js(f"location.hash = '{nowhere}'")
        while browser.js("location.hash") != "#7":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert seq() == "7"


def test_a_draw_among_n_is_said_as_one_in_the_dice_table():
    """An audience's probe: dos's set-up draws stood as "126" under "Die". A draw is "126 of
    155", as the report says it, under a heading that names draws too."""
    from pbem.core.render import replay

    f = examples.opened(EXAMPLES["dos"])
    page, _ = replay.page(f)
    data = data_of(page)
    draws = [(e, d) for fr, step in zip(examples.every_frame(f), data["frames"])
             for e, d in zip([e for e in fr.events if e["type"] == "roll"], step["dice"]) if e.get("among")]
    assert len(draws) > 40 and all(d["value"] == f"{e['value'] + 1} of {e['among']}" for e, d in draws)
    assert "<th>Die, or draw of N</th>" in page
