"""The game-map as a scene for pbem.core.render (DESIGN §4.2): both mapsheets (N above S)
with their terrain, sea and lakes, rivers (the Don and the Volga apart), railroads, cities
with their names and VP, the 28 June 1942 Front Line; what play changes on it: control of
rail and city hexes (10.45), Axis-cleared rail (6.42), Air Interdiction markers (14.4),
truck railheads (12.3), every stack of counters in its Army's colour with its strengths
(untried units as "U", 13.0), its supply state (12.0) and disruption (6.6); and the last
packet's moves, rail moves, attacks with their results, retreats and advances. Zones of
control on request. No SVG here: only the primitives of docs/scene.md.

The printed map's hexrows run east-west (3.1; data/map.yaml): the joined grid is drawn
with pointy-topped hexes, hexrow N01 at the top and position 01 (the east edge) on the
right, so north is up. The even-q grid of the rules, transposed and mirrored, is the
odd-r layout of the picture: a hex's picture column is 55 - position, its row the hexrow
of the joined grid (tests/test_dos_render.py checks that every hex keeps its neighbours).
The map-wide part of a scene (terrain, rivers, rails, names, ids) is built once per
scenario and shared by every state's scene."""

from __future__ import annotations

import weakref

from . import report
from . import state as st
from .board import view
from .scenario import Scenario

SIZE = 34               # the hexes' radius in pixels
EDGE = 55               # picture column = EDGE - position: position 01, the east edge, on the right

NATIONS = {
    "german": {"label": "German unit (counter colour)", "fill": "#aab6c0", "ink": "#101a22"},
    "slovak": {"label": "Slovakian unit", "fill": "#9cc3dc", "ink": "#0c1a26"},
    "hungarian": {"label": "Hungarian unit", "fill": "#c7c28c", "ink": "#1f1d08"},
    "italian": {"label": "Italian unit", "fill": "#a8cf98", "ink": "#0f2208"},
    "rumanian": {"label": "Rumanian unit", "fill": "#ead67e", "ink": "#2a2200"},
    "soviet": {"label": "Soviet unit", "fill": "#e6a384", "ink": "#2a0c00"},
}
STYLES = {
    "clear": {"fill": "#f4f0dc", "stroke": "#c9c3a8", "width": 0.5, "label": "Clear (10.1)"},
    "light-woods": {"fill": "#c4dca6", "stroke": "#c9c3a8", "width": 0.5, "label": "Light woods"},
    "heavy-woods": {"fill": "#93bf7c", "stroke": "#c9c3a8", "width": 0.5, "label": "Heavy woods"},
    "rough": {"fill": "#e0cda0", "stroke": "#c9c3a8", "width": 0.5, "label": "Rough"},
    "mountain": {"fill": "#b99a7a", "stroke": "#c9c3a8", "width": 0.5, "label": "Mountain (10.3)"},
    "major-city": {"fill": "#d08c6a", "stroke": "#7a4a30", "width": 1, "label": "Major city (10.4), its name and VP (19.2)"},
    "minor-city": {"fill": "#e6b896", "stroke": "#7a4a30", "width": 0.8, "label": "Minor city (10.4), its name and VP"},
    "sea": {"fill": "#a9cbe8", "stroke": "#a9cbe8", "width": 0.5, "label": "Sea: not in play (10.29)"},
    "lake": {"fill": "#b9d6ee", "stroke": "#a9cbe8", "width": 0.5, "label": "Lake: not in play (10.29)"},
    "off-limits": {"fill": "#d9d6cc", "stroke": "#d9d6cc", "width": 0.5, "label": "Off limits: fractional hexes (10.29 errata)"},
    "minor-river": {"stroke": "#2f6fd0", "width": 2.5, "label": "Minor river hexside (10.22)"},
    "don": {"stroke": "#1747a6", "width": 4, "label": "The Don (10.23)"},
    "volga": {"stroke": "#0b2f7a", "width": 5.5, "label": "The Volga (10.26)"},
    "lake-side": {"stroke": "#5d8fc7", "width": 4, "label": "All-lake hexside: no crossing (10.29)"},
    "rail": {"stroke": "#2b2b2b", "width": 2, "dash": "6 3", "label": "Railroad (10.4)"},
    "front-line": {"stroke": "#8a1a9a", "width": 3, "dash": "9 4", "opacity": 0.85,
                   "label": "Front Line of 28 June 1942: rail and city hexes west of it start Axis (10.44)"},
    "sheet": {"stroke": "#6b6457", "width": 2.5, "label": "Edge of the north (N) and south (S) mapsheets"},
    "control-axis": {"fill": "#3d6e99", "stroke": "#0c1a26", "width": 1,
                     "label": "Control marker: rail or city hex the Axis took, with the Game-Turn (10.45)", "symbol": "flag"},
    "control-soviet": {"fill": "#d0402a", "stroke": "#2a0c00", "width": 1,
                       "label": "Control marker: rail or city hex the Soviet took back (10.45)", "symbol": "flag"},
    "cleared": {"fill": "#6b6b6b", "opacity": 0.28, "label": "Axis-cleared rail hex (6.42)"},
    "interdiction-axis": {"fill": "#3d6e99", "stroke": "#ffffff", "width": 1.5, "label": "Axis Air Interdiction marker (14.4)", "symbol": "circle"},
    "interdiction-soviet": {"fill": "#d0402a", "stroke": "#ffffff", "width": 1.5,
                            "label": "Soviet Air Interdiction marker (14.4)", "symbol": "circle"},
    "railhead": {"fill": "#ffd400", "stroke": "#1d1d1d", "width": 1, "label": "Axis truck railhead: a supply source (12.3)"},
    "zoc-axis": {"fill": "#2d5d8a", "opacity": 0.2, "label": "Axis zone of control (8.0)", "show": "zoc"},
    "zoc-soviet": {"fill": "#c0180c", "opacity": 0.2, "label": "Soviet zone of control (8.0)", "show": "zoc"},
    "move-axis": {"stroke": "#0f3a63", "width": 2.2, "opacity": 0.85, "legend": "used", "label": "Last packet: Axis move"},
    "move-soviet": {"stroke": "#c2185b", "width": 2.2, "opacity": 0.85, "legend": "used", "label": "Last packet: Soviet move"},
    # the last packet's lines in hues no map line has: a rail move is not the railroad, a
    # retreat not the purple front line of 28 June (audience probe)
    "rail-move": {"stroke": "#0a8f8f", "width": 2.4, "dash": "2 2", "opacity": 0.9,
                  "legend": "used", "label": "Last packet: move by rail (6.3)"},
    "attack": {"stroke": "#d01c1c", "width": 3.5, "opacity": 0.9,
               "legend": "used", "label": "Last packet: attack or overrun, with the side that made it, its odds, die and result (9.5: "
                        "D1, D2 the defender, A1, A2 the attacker loses that many steps or retreats that many "
                        "hexes; De, Ae every defending or attacking unit eliminated; Eng each side loses a step)"},
    "retreat": {"stroke": "#e07000", "width": 2.5, "dash": "6 3", "opacity": 0.95, "legend": "used", "label": "Last packet: retreat (9.7)"},
    "advance": {"stroke": "#1d7a1d", "width": 2.5, "dash": "2 3", "opacity": 0.9,
                "legend": "used", "label": "Last packet: advance after combat (9.8)"},
    "cell-id": {"ink": "#8a8470", "width": 7},
    "name": {"ink": "#1d1d1d", "width": 10},
    "sheet-name": {"ink": "#4a4436", "width": 14},
}
LEGEND = [
    "Counter: unit id; type (X infantry, oval tank, X and oval mechanized, / cavalry, box alone: HQ, air "
    "unit, truck); values: Axis Combat Strength-Movement Allowance, Soviet Attack-Defense-Movement; "
    "U-MA an untried unit, strength unknown (13.0); an HQ (Leadership)MA (11.1); an air unit Air Points left "
    "(14.7). Red values and bar: a step lost (9.6).",
    "Tabs: S out of supply this phase (12.0), D disrupted (6.6), W strategic withdrawal (18.1), "
    "A air-supplied (12.4).",
]
NOTE = ("Map reconstructed: the rulebook has no map, so terrain, rivers, railroads and coasts are rebuilt "
        "from the ground of 1942 fitted to the hexes the text names (pbem/rulesets/dos/data/README.md).")
SYMBOL = {"infantry": "infantry", "cavalry": "cavalry"}
MARKERS = ("out-of-supply", "disrupted", "withdrew", "air-supplied")

_MAPS: "weakref.WeakKeyDictionary[Scenario, tuple[dict, list[dict]]]" = weakref.WeakKeyDictionary()


def draw(sc: Scenario, rules: dict, events: list[dict]) -> dict:
    grid, ground = _map(sc)
    items = list(ground)
    items += _control(sc, rules)
    items += _stacks(sc, rules)
    items += _arrows(sc, rules, events)
    return {
        "title": "Drive on Stalingrad (SPI 1977): the southern front, June to December 1942",
        "caption": _caption(sc, rules),
        "notes": [NOTE],
        "legend": LEGEND,
        "north": 0,
        "grid": grid,
        "sides": NATIONS,
        "styles": STYLES,
        "items": items,
    }


def cell(sc: Scenario, hex_id: str) -> list[int]:
    """[column, row] of a hex id in the picture's odd-r layout."""
    shift = {s.prefix: s.shift[0] for s in sc.format.sheets}
    return [EDGE - int(hex_id[3:5]), int(hex_id[1:3]) + shift[hex_id[0]]]


def _caption(sc: Scenario, rules: dict) -> list[str]:
    s = report.summary(sc, rules)
    out = [s["now"],                                       # as status says it (players' probe)
           f"VP Axis {s['vp']['axis']}, Soviet {s['vp']['soviet']}; Hitler Directive {s['directive'] or 'none'}"]
    if s["result"]:
        out.append(s["result"])
    for status, what in (("ready", "ready to enter"), ("setup", "to set up"), ("due", "due back"),
                         ("gone", "eliminated")):
        counts = {side: sum(1 for u in sc.side_units[side] if rules["units"][u] == status) for side in ("axis", "soviet")}
        if any(counts.values()):
            out.append(f"Units {what}: Axis {counts['axis']}, Soviet {counts['soviet']}")
    if rules["ps"]["oos"]:
        out.append(f"Out of supply this phase (12.0): {len(rules['ps']['oos'])} {rules['player']} units")
    return out



# --- the map: the same for every state of a scenario -----------------------------------------------

def _map(sc: Scenario) -> tuple[dict, list[dict]]:
    found = _MAPS.get(sc)
    if found is None:
        found = _MAPS[sc] = _build_map(sc)
    return found


def _build_map(sc: Scenario) -> tuple[dict, list[dict]]:
    cells = {h: cell(sc, h) for h in sorted(set(sc.ids) | set(sc.water))}
    grid = {"kind": "hex", "layout": "odd-r", "size": SIZE, "cells": cells}
    items: list[dict] = []
    for i, h in enumerate(sc.ids):
        city = sc.city_of.get(i)
        style = (city.cls + "-city") if city else sc.terrain_of[i]
        items.append({"type": "cell", "cell": h, "style": style})
    items += [{"type": "cell", "cell": h, "style": kind} for h, kind in sc.water.items()]
    # each mapsheet framed: the seam between them is the north sheet's south edge
    north = [h for h in cells if h[0] == "N"]
    items.append({"type": "outline", "cells": north, "style": "sheet"})
    items.append({"type": "outline", "cells": [h for h in cells if h[0] == "S"], "style": "sheet"})
    for a, b in sorted(sc.side_kind):
        if a < b:
            kind = sc.side_kind[(a, b)]
            style = {"minor": "minor-river", "lake": "lake-side"}.get(kind, kind)
            items.append({"type": "side", "a": sc.ids[a], "b": sc.ids[b], "style": style})
    for a, near in enumerate(sc.rail_nb):
        for b in sorted(near):
            if a < b:
                items.append({"type": "path", "cells": [sc.ids[a], sc.ids[b]], "style": "rail"})
    items.append({"type": "path", "cells": [sc.ids[i] for i in sc.front], "style": "front-line"})
    items += [{"type": "label", "cell": h, "text": h, "style": "cell-id", "at": "top"} for h in sc.ids]
    for city in sc.cities:
        text = city.name + (f" {city.vp} VP" if city.vp else "")
        items.append({"type": "label", "cell": city.hexes[0], "text": text, "style": "name", "at": "bottom"})
    items.append({"type": "label", "cell": "N0527" if "N0527" in cells else sorted(north)[0],
                  "text": "NORTH MAPSHEET (N)", "style": "sheet-name", "at": "center"})
    items.append({"type": "label", "cell": "S3810" if "S3810" in cells else sorted(cells)[-1],
                  "text": "SOUTH MAPSHEET (S)", "style": "sheet-name", "at": "center"})
    return grid, items


# --- what play changes ---------------------------------------------------------------------------

def _control(sc: Scenario, rules: dict) -> list[dict]:
    items = []
    if rules["cleared"]:
        items.append({"type": "shade", "cells": list(rules["cleared"]), "style": "cleared"})
    board = view(sc, rules)
    for side in ("axis", "soviet"):
        items.append({"type": "shade", "cells": sorted(sc.ids[i] for i in board.zoc(side)), "style": f"zoc-{side}",
                      "show": "zoc"})
    # every marker of a hex, each with its own words, which the picture draws apart (svg.py: a
    # hex's second marker at its right): an audience's probe found an Air Interdiction marker
    # drawn over a control flag, the flag's "GT2" left under it and no "AI", and a railhead in
    # such a hex not drawn at all
    for h, entry in sorted(rules["control"].items()):
        side = "axis" if entry[0] == "a" else "soviet"
        if side == st.start_control(sc, sc.idx[h]):
            continue    # back with the side that held it at the start: no marker
        items.append({"type": "mark", "cell": h, "symbol": "flag", "style": f"control-{side}",
                      "text": f"GT{entry[1:]}" if entry[1:] != "0" else ""})
    for side in ("axis", "soviet"):
        for h in rules["interdiction"][side]:
            items.append({"type": "mark", "cell": h, "symbol": "circle", "style": f"interdiction-{side}", "text": "AI"})
    for h in sorted({st.hex_of(rules, r["truck"]) for r in rules["railheads"]} - {None}):
        items.append({"type": "mark", "cell": h, "symbol": "square", "style": "railhead", "text": "RH"})
    return [i for i in items if i.get("cells", True)]


def _values(sc: Scenario, rules: dict, uid: str) -> str:
    u = sc.units[uid]
    if st.untried(sc, rules, uid):
        return f"U-{u.ma}"
    if u.hq:
        return f"({u.leadership}){u.ma}"      # as the reports write it: never read as an Axis Attack-MA
    if u.air:
        return f"{u.air_points - rules['air'].get(uid, 0)} AP"
    if u.truck:
        return f"T-{u.ma}"
    a, d = st.strengths(sc, rules, uid)
    return f"{a}-{d}-{u.ma}" if u.side == "soviet" else f"{a}-{u.ma}"


def _symbol(sc: Scenario, uid: str) -> str | None:
    u = sc.units[uid]
    if u.arm == "mech":
        return "tank" if ("pz" in u.kind or "tank" in u.kind) else "mechanised"
    return SYMBOL.get(u.arm)


def _stacks(sc: Scenario, rules: dict) -> list[dict]:
    ps, pt = rules["ps"], rules["pt"]
    flags = {"out-of-supply": ps["oos"], "disrupted": rules["disrupted"], "withdrew": pt["withdrew"],
             "air-supplied": ps["air_supplied"]}
    items = []
    board = view(sc, rules)
    for i in sorted(board.occ, key=lambda i: sc.ids[i]):
        counters = []
        for uid in board.occ[i]:
            u = sc.units[uid]
            counters.append({"unit": uid, "side": u.nation, "symbol": _symbol(sc, uid),
                             "values": _values(sc, rules, uid),
                             "markers": [m for m in MARKERS if st.has(flags[m], uid)],
                             "reduced": st.lost(rules, uid) > 0})
        items.append({"type": "stack", "cell": sc.ids[i], "counters": counters})
    return items


def _arrows(sc: Scenario, rules: dict, events: list[dict]) -> list[dict]:
    """The last packet's moves, rail moves, attacks with their results, retreats and advances.
    Each arrow carries the nation of its units (the first named), whose counter colour marks
    where it starts, and an attack's result names the side that attacked: its attackers may
    be gone by the time it is drawn and the enemy stand in their hex (players' probe: a Soviet
    1-2 eliminated at Ae, drawn from the hex German units had advanced into, read as a German
    attack)."""
    items = []
    attacks: dict[tuple, tuple[dict, str | None]] = {}   # targets -> (the first arrow, the attacking side)
    moved: dict[tuple, dict] = {}   # units -> the arrow of their last move, which a next leg extends
    for e in events:
        kind = e["type"]
        path = [h for h in e.get("path", ()) if h in sc.hexes]
        units = list(e.get("units") or ([e["unit"]] if "unit" in e else []))
        nation = {"side": sc.units[units[0]].nation} if units and units[0] in sc.units else {}
        if kind in ("move", "rail") and len(path) >= 2:
            side = e.get("side") or sc.side_of[e["units"][0]]
            style = "rail-move" if kind == "rail" else f"move-{side}"
            before = moved.get(tuple(units))
            if before is not None and before["style"] == style and before["cells"][-1] == path[0]:
                before["cells"] += path[1:]   # a move in legs (6.28): one arrow, one head where it ends
                continue
            moved[tuple(units)] = {"type": "arrow", "cells": path, "style": style, **nation}
            items.append(moved[tuple(units)])
        elif kind in ("retreat", "advance") and len(path) >= 2:
            items.append({"type": "arrow", "cells": path, "style": kind, **nation})
        elif kind == "attack":
            arrows = [{"type": "arrow", "cells": [h, target], "style": "attack", **nation}
                      for target in e["targets"] for h in e.get("hexes", ())
                      if h != target and h in sc.hexes and sc.adjacent(sc.idx[h], sc.idx[target])]
            items += arrows
            if arrows:
                attacks[tuple(e["targets"])] = arrows[0], e.get("side") or sc.side_of.get(units[0] if units else "")
        elif kind == "combat" and e.get("targets"):
            declared = attacks.get(tuple(e["targets"]))
            if declared is not None:
                declared[0]["text"] = _result(e, declared[1])
                continue
            # the attack was declared in an earlier packet: its arrows drawn with this result
            unit = _attacker(sc, e)
            text = _result(e, sc.side_of[unit] if unit else None)
            mark = {"side": sc.units[unit].nation} if unit else {}
            arrows = [{"type": "arrow", "cells": [h, target], "style": "attack", **mark} for target in e["targets"]
                      for h in e.get("hexes", ()) if h != target and h in sc.hexes and target in sc.hexes
                      and sc.adjacent(sc.idx[h], sc.idx[target])]
            if arrows:
                arrows[0]["text"] = text
                items += arrows
            else:   # no attacker left beside it: the result at the top of its target, clear of the counters
                items.append({"type": "label", "cell": e["targets"][0], "text": text, "style": "name", "at": "top"})
    return items


def _attacker(sc: Scenario, combat: dict) -> str | None:
    """The first unit a combat's attack strength counts (a division's first regiment for a
    division counted whole, 7.21): whose attack it was, when no declaration in the packet says."""
    for part in combat.get("attack_parts", ()):
        name = str(part).split(" ", 1)[0]
        uid = sc.divisions[name][0] if name in sc.divisions else name
        if uid in sc.units:
            return uid
    return None


def _result(combat: dict, side: str | None) -> str:
    """An attack's result as its box says it: the side that attacked, an overrun as one (6.5),
    the odds, the die and, where Air Points shifted it (14.22), the row read: "Soviet 1-2 die
    6: Ae", "Axis overrun 6-1 die 6-1=5: D1"."""
    die, row = combat["die"], combat.get("row", combat["die"])
    shifted = f"{row - die:+d}={row}" if row != die else ""
    who = " ".join(w for w in ((side or "").capitalize(), "overrun" if combat.get("kind") == "overrun" else "") if w)
    return f"{who} {combat['column']} die {die}{shifted}: {combat['result']}".lstrip()
