"""`pbem replay`: one self-contained HTML page that steps through a whole game.

The page holds the map of every state, the after-action report of every packet and the
dice each one rolled, and needs nothing else: no network, no external script, style or
font. To stay small it draws what every state shares once (the terrain, rivers, roads,
names, the legend) and keeps, per state, only the list of its other pieces (counters,
arrows, control, caption) out of one table of distinct pieces, as the change from the
state before: a stack that did not change between two states is stored once. Buttons, a slider and the keys ←/→, Home and End step
through the states; the address's #N opens state N; the map opens fitted to the window (the
whole board at a glance, as a forum reader first wants it), and a button shows it at full size.
The picture's panel (title, turn, compass, legend) is drawn apart, beside the report at its
own size, where a large map fitted to the window would shrink it to a few pixels.
"""

from __future__ import annotations

import json

from pbem.core import describe, report
from pbem.core.text import shown

from . import frames, svg
from .scene import Grid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var groups = data.layers.map(function (name) { return document.querySelector("#" + name + " > .steps"); });
  var slider = document.getElementById("slider");
  var at = -1;
  // every state's pieces, layer by layer, from the changes the page stores (in table order)
  var current = data.layers.map(function () { return []; });
  data.frames.forEach(function (f) {
    current = current.map(function (ids, k) {
      var gone = {};
      f.change[k][0].forEach(function (j) { gone[j] = true; });
      return ids.filter(function (j) { return !gone[j]; }).concat(f.change[k][1]).sort(function (a, b) { return a - b; });
    });
    f.layers = current;
  });
  slider.max = String(data.frames.length - 1);
  function cell(row, text) { var td = document.createElement("td"); td.textContent = text; row.appendChild(td); return td; }
  // a roll's label may break after each of its dots, where a reader looks for its parts, and
  // not in the middle of one (an audience probe: "t1.german.movement.m" over "12.tactical");
  // a <wbr> is no character, so the label copied from the page is the audit's, byte for byte
  function label(row, text) {
    var td = cell(row, "");
    String(text).split(".").forEach(function (part, k) {
      if (k > 0) { td.appendChild(document.createTextNode(".")); td.appendChild(document.createElement("wbr")); }
      td.appendChild(document.createTextNode(part));
    });
  }
  function show(i) {
    i = Math.max(0, Math.min(data.frames.length - 1, i));
    if (i === at) { return; }
    at = i;
    var f = data.frames[i];
    f.layers.forEach(function (ids, k) {
      groups[k].innerHTML = ids.map(function (j) { return data.pieces[j]; }).join("");
    });
    document.getElementById("where").textContent = "State " + f.seq + " of " + data.frames[data.frames.length - 1].seq;
    document.getElementById("heading").textContent = f.heading;
    document.getElementById("standing").textContent = f.standing;
    document.getElementById("report").textContent = f.report;
    var dice = document.getElementById("dice");
    dice.textContent = "";
    f.dice.forEach(function (d) {
      var row = document.createElement("tr");
      cell(row, d.value); label(row, d.label); cell(row, d.decides);
      dice.appendChild(row);
    });
    document.getElementById("no-dice").hidden = f.dice.length > 0;
    document.getElementById("dice-table").hidden = f.dice.length === 0;
    slider.value = String(i);
    document.body.setAttribute("data-seq", String(f.seq));
    if (history.replaceState) { history.replaceState(null, "", "#" + f.seq); }
  }
  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("prev").onclick = function () { show(at - 1); };
  document.getElementById("next").onclick = function () { show(at + 1); };
  document.getElementById("last").onclick = function () { show(data.frames.length - 1); };
  slider.oninput = function () { show(Number(slider.value)); };
  document.getElementById("fit").onclick = function () {
    var fit = document.body.classList.toggle("fit");
    this.textContent = fit ? "Full size" : "Fit to window";
  };
  document.addEventListener("keydown", function (e) {
    var to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: data.frames.length - 1}[e.key];
    if (to !== undefined && e.target !== slider) { e.preventDefault(); show(to); }
  });
  // "#N": the frame of state N, or -1
  function addressed() {
    var wanted = location.hash ? Number(location.hash.slice(1)) : NaN, found = -1;
    data.frames.forEach(function (f, k) { if (f.seq === wanted) { found = k; } });
    return found;
  }
  // an address edited in an open page goes there too (an audience's probe: only the first was read)
  // an address of no state ("#99") is put back to the state shown (an audience's probe: it stayed)
  window.addEventListener("hashchange", function () {
    var k = addressed();
    if (k >= 0) { show(k); } else if (history.replaceState) { history.replaceState(null, "", "#" + data.frames[at].seq); }
  });
  // the latest state first, as a forum reader wants it (a players' probe: it opened on the
  // empty set-up map); "#N" opens state N
  var start = addressed();
  show(start >= 0 ? start : data.frames.length - 1);
})();
"""

CSS = """
html,body{margin:0;height:100%;background:#fbfaf5;color:#1d1d1d;font-family:"DejaVu Sans",Verdana,Arial,sans-serif}
body{display:flex}
#map{flex:1 1 auto;overflow:auto;height:100%}
#map svg{display:block}
body.fit #map svg{width:100%;height:100%}
#side{flex:0 0 34em;overflow:auto;height:100%;box-sizing:border-box;padding:0.8em 1em;border-left:1px solid #c4bea4;background:#ffffff}
#controls{position:sticky;top:-0.8em;margin-top:-0.8em;padding-top:0.8em;background:#ffffff;padding-bottom:0.5em;border-bottom:1px solid #e0dccb}
#controls button{font-size:1em;min-width:2.6em;margin-right:0.2em}
#controls input{width:100%;margin-top:0.4em}
#where{font-weight:bold;margin-left:0.5em}
h1{font-size:1.1em;margin:0 0 0.5em 0}
h2{font-size:1em;margin:0.8em 0 0.3em 0}
h3{font-size:0.95em;margin:0.8em 0 0.3em 0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:0.85em;line-height:1.35}
h1,#mode{overflow-wrap:anywhere}
#mode{font-size:0.85em;color:#4a4538;margin:0 0 0.4em 0}
#standing{font-weight:bold;margin:0.2em 0 0.4em 0}
@media (max-width:900px){body{flex-direction:column}#map{flex:0 0 55%;height:55%}
#side{flex:1 1 auto;height:auto;min-height:0;border-left:none;border-top:1px solid #c4bea4}}
table{border-collapse:collapse;font-size:0.85em;width:100%;table-layout:fixed}
th{text-align:left;font-weight:normal;color:#6b6457;padding:0.15em 0.4em}
th:first-child{width:4.5em}th:nth-child(2){width:34%}
td{border:1px solid #e0dccb;padding:0.15em 0.4em;vertical-align:top;overflow-wrap:anywhere}
td:first-child{font-weight:bold;text-align:center}
.keys{font-size:0.8em;color:#6b6457}
#key summary{cursor:pointer;margin-top:0.6em;font-size:0.9em;color:#6b6457}
#key svg{display:block;max-width:100%;height:auto}
"""


def page(folder: Any, show: tuple[str, ...] = ()) -> tuple[str, int]:
    """The page of a whole game and the number of states in it."""
    g = folder.game
    pictures: list[svg.Picture] = []
    meta: list[dict] = []
    grid: tuple[dict, Grid] | None = None   # the map of one state is the map of the next
    for fr in frames.frames(folder):
        scene = frames.scene(folder, fr)
        if grid is None or scene["grid"] != grid[0]:
            grid = scene["grid"], Grid(scene["grid"])
        pictures.append(svg.draw(scene, show, grid=grid[1]))
        meta.append(_step(g, fr))
    names = [name for name, _ in pictures[0].layers]
    fixed: list[list[str]] = []
    for k in range(len(names)):
        common = set(pictures[0].layers[k][1])
        for pic in pictures[1:]:
            common &= set(pic.layers[k][1])
        fixed.append([p for p in dict.fromkeys(pictures[0].layers[k][1]) if p in common])
    table: dict[str, int] = {}
    steps = []
    before: list[set[int]] = [set() for _ in names]
    for pic, info in zip(pictures, meta):
        # each state's pieces as the change from the state before: what goes, what comes
        change = []
        for k, (_, pieces) in enumerate(pic.layers):
            shared = set(fixed[k])
            now = {table.setdefault(p, len(table)) for p in pieces if p not in shared}
            change.append([sorted(before[k] - now), sorted(now - before[k])])
            before[k] = now
        steps.append({**info, "change": change})
    css = list(dict.fromkeys(rule for pic in pictures for rule in pic.css))
    first = pictures[0]

    def body(panel: bool) -> str:
        return "".join(f'<g id="{name}"><g class="fixed">' + "".join(fixed[k]) + '</g><g class="steps"></g></g>\n'
                       for k, name in enumerate(names) if svg.in_panel(name) == panel)

    # the map in one picture, fitted to the window; its panel (title, caption, legend) in another,
    # beside the report at its own size, with the margin left of it: fitted with a large map, the
    # legend shrank to a few pixels (audience probe). The style rules are the page's, given once.
    picture = (first.head(max(p.map_height for p in pictures), css, box=(0.0, first.panel_x)) + body(False)
               + "</svg>")
    left = first.panel_x - svg.MARGIN
    key = first.head(max(p.panel_height for p in pictures), [], box=(left, first.width - left)) + body(True) + "</svg>"
    data = {"layers": names, "pieces": list(table), "frames": steps}
    title = svg.text_of(f"{first.title}: replay of game {g.game_id}")
    html = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body class="fit">\n'
        f'<div id="map">\n{picture}\n</div>\n'
        '<div id="side">\n<div id="controls">'
        '<button id="first" title="First state (Home)">|&#9664;</button>'
        '<button id="prev" title="Previous state (&#8592;)">&#9664;</button>'
        '<button id="next" title="Next state (&#8594;)">&#9654;</button>'
        '<button id="last" title="Last state (End)">&#9654;|</button>'
        '<span id="where"></span> <button id="fit" title="The map at full size, or fitted to the window">Full size</button>'
        '<input id="slider" type="range" min="0" value="0" aria-label="State">'
        '<div class="keys">Keys: &#8592; &#8594; step, Home and End jump.</div></div>\n'
        f"<h1>{title}</h1>\n"
        f'<p id="mode">{svg.text_of(_fairness(g))}</p>\n'
        f'<details id="key"><summary>Map key: the turn, the compass and the legend</summary>\n{key}\n</details>\n'
        '<h2 id="heading"></h2>\n<p id="standing"></p>\n'
        '<h3>Dice</h3><p id="no-dice">No die was rolled.</p><table id="dice-table"><thead><tr>'
        '<th>Die, or draw of N</th><th>Roll (its label in the audit)</th><th>What it decided</th></tr></thead>'
        '<tbody id="dice"></tbody></table>\n'
        '<h3>Report</h3><pre id="report"></pre>\n</div>\n'
        f'<script type="application/json" id="replay-data">{_json(data)}</script>\n'
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n")
    return html, len(steps)


def _step(g: Any, fr: frames.Frame) -> dict:
    if fr.seq == 0:
        heading = "State 0: the set-up the genesis gives"
        text = "State 0: the game as the genesis sets it up, before any packet.\n\n" + g.render(fr.state["rules"])
    else:
        heading = f"State {fr.seq}: after packet {fr.seq} from {shown(str(fr.side))}"
        # the text report with a blank line under its title for its underline of "=": in the
        # page's narrow panel the line of a long title's length wrapped onto two (an audience's probe)
        title, underline, rest = report.render(g, fr.state, fr.events, fmt="text").split("\n", 2)
        text = f"{title}\n\n{rest}" if underline == "=" * len(title) else f"{title}\n{underline}\n{rest}"
    dice = []
    for i, e in enumerate(fr.events):
        if e["type"] != "roll":
            continue
        # dice rolled together (an attacker's and a defender's) decide one thing: said once, by the last
        later = fr.events[i + 1] if i + 1 < len(fr.events) else None
        decides = ("with the next die" if later is not None and later["type"] == "roll" else
                   next((x["text"] for x in fr.events[i + 1:] if x["type"] != "roll"), ""))
        # a draw among N said as one, as the report says it (an audience's probe: "126" under "Die")
        value = f"{e['value'] + 1} of {e['among']}" if e.get("among") else str(e["value"])
        dice.append({"value": value, "label": shown(str(e.get("label", ""))), "decides": shown(decides)})
    # where the game stands, always in sight (audience probe: the VP and the result were in the
    # folded map key, or on the last line of a long report)
    summary = g.summary(fr.state["rules"])
    standing = " ".join(describe.now_lines(summary) + describe.score_lines(g, summary))
    return {"seq": fr.seq, "heading": heading, "standing": shown(standing), "report": text, "dice": dice}


def _fairness(g: Any) -> str:
    """What the page's game shows of who sent its packets and of its dice (audience probe: a
    sandbox game's page and a secure one's read the same)."""
    if not g.secure:
        return ("A sandbox game: its packets are unsigned and its dice come from the script or seed in its genesis, "
                "which anyone could have chosen: not fair dice.")
    keys = ", ".join(f"{side['name']} {side['fingerprint']}" for side in g.genesis["sides"])
    return (f"A secure game: every packet is signed by its side's key ({keys}) and every die comes from dice chains "
            f"both sides committed to before play; pbem audit of the game folder checks it all.")


def _json(data: Any) -> str:
    """JSON that is safe inside a script element: no "<", ">" or "&" in it."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
