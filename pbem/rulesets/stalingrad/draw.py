"""The city as a scene for pbem.core.render (DESIGN §4.2): a schematic map of the named
areas with their adjacency, the Volga and its crossings, each area's controller, cover and
VP, every unit as a counter, and the last packet's moves, retreats, reinforcements and
combats. The scenario gives no coordinates, so the plan comes from the area graph
(`pbem.core.geometry.areagraph`): columns by distance from the crossings, the Volga on the
right (east), north at the top. No SVG here: only the primitives of docs/scene.md."""

from __future__ import annotations

from pbem.core.geometry.areagraph import schematic

from .areas import SIDES, status, unit_strength, units_in
from .report import summary

BOX_W, BOX_H, GAP_X, GAP_Y = 250, 150, 70, 26
COUNTER = 46
VOLGA = "volga"  # a cell of the picture only: the river east of the crossings

SIDE_LOOK = {
    "german": {"label": "German unit (counter colour)", "fill": "#a9bfd3", "ink": "#0c1a26"},
    "soviet": {"label": "Soviet unit (counter colour)", "fill": "#e6a384", "ink": "#2a0c00"},
}
STYLES = {
    "area-german": {"fill": "#dfe7ee", "stroke": "#2d5d8a", "width": 2.5, "label": "Area controlled by the German side (house 4)"},
    "area-soviet": {"fill": "#f6ddd2", "stroke": "#a0281a", "width": 2.5, "label": "Area controlled by the Soviet side (house 4)"},
    # a crossing's border in its holder's colour, as an area's, only wider (audience probe: each in
    # the Volga's blue read as German-held, and German control of every crossing wins at once, 9.2)
    "crossing-german": {"fill": "#dfe7ee", "stroke": "#2d5d8a", "width": 5, "label": "Volga crossing (11.2), German-held"},
    "crossing-soviet": {"fill": "#f6ddd2", "stroke": "#a0281a", "width": 5, "label": "Volga crossing (11.2), Soviet-held"},
    "water": {"fill": "#a9cbe8", "stroke": "#2f6fd0", "width": 1, "label": "The Volga"},
    "link": {"stroke": "#6b6457", "width": 2.5, "label": "Adjacent areas (house 1.1)"},
    "move": {"stroke": "#1d1d1d", "width": 2.5, "opacity": 0.85, "legend": "used", "label": "Last packet: move"},
    "retreat": {"stroke": "#7a2fb0", "width": 2.5, "dash": "6 3", "opacity": 0.9, "legend": "used", "label": "Last packet: retreat (10.3)"},
    "reinforce": {"fill": "#3a9a3a", "stroke": "#1d1d1d", "width": 1, "legend": "used", "label": "Last packet: reinforcement placed (11.2)"},
    "combat": {"fill": "#d01c1c", "stroke": "#5a0000", "width": 1, "legend": "used", "label": "Last packet: combat, dice and loss points (house 6)"},
    "name": {"ink": "#1d1d1d", "width": 11},
    "note": {"ink": "#4a4a4a", "width": 9.5},
}
LEGEND = ("Counter: unit id; type (X infantry, oval armour, E engineers); strength. Red strength and bar: "
          "reduced (house 2.1). W: a black counter, withdrawn at the end of turn {turn} (11.3).")
NOTE = ("Map and orders of battle are pbem house rules: the source is a fragment of rules 10.3 and 11.0 "
        "with no map; the plan is schematic, from the areas' adjacency.")
ARM = {"infantry": "infantry", "armour": "tank", "engineers": "engineers"}


def draw(sc, rules: dict, events: list[dict]) -> dict:
    s = summary(sc, rules)
    caption = [s["now"],   # as `pbem status` says it: "Game over after turn 6 of 6"
               f"German VP {s['vp']['german']}; tactical cards German {s['cards']['german']}, "
               f"Soviet {s['cards']['soviet']}"]
    if s["result"]:
        caption.append(s["result"])
    for box, what in (("pool", "to enter"), ("eliminated", "eliminated"), ("withdrawn", "withdrawn (11.3)")):
        n = {side: s["units"][side][box] for side in SIDES}
        if any(n.values()):
            caption.append(f"Units {what}: German {n['german']}, Soviet {n['soviet']}")
    cells = _plan(sc)
    items: list[dict] = [{"type": "cell", "cell": VOLGA, "style": "water"}]
    for a in sc.map_order:
        kind = "crossing" if sc.areas[a].crossing else "area"
        items.append({"type": "cell", "cell": a, "style": f"{kind}-{rules['control'][a]}"})
    for a in sc.map_order:
        for b in sc.areas[a].adjacent:
            if a < b:
                items.append({"type": "side", "a": a, "b": b, "style": "link"})
    items.append({"type": "label", "cell": VOLGA, "text": "V O L G A", "style": "name"})
    for a in sc.map_order:
        area = sc.areas[a]
        items.append({"type": "label", "cell": a, "text": area.name, "style": "name", "at": "top"})
        tags = [a] + ([f"cover {area.cover}"] if area.cover else []) + ([f"{area.vp} VP"] if area.vp else [])
        items.append({"type": "label", "cell": a, "text": " · ".join(tags), "style": "note", "at": "bottom"})
    items += _stacks(sc, rules)
    items += _events(sc, events)
    return {
        "title": "Stalingrad 1942: the city fight",
        "caption": caption,
        "notes": [NOTE],
        "legend": [LEGEND.format(turn=sc.withdrawal_turn)],     # the scenario's turn (11.3)
        "north": 0,
        "grid": {"kind": "area", "size": COUNTER, "cells": cells},
        "sides": SIDE_LOOK,
        "styles": STYLES,
        "items": items,
    }


def _plan(sc) -> dict:
    """Boxes of the schematic plan: the crossings beside the Volga on the right, each
    column further west one step further from them."""
    places = schematic(sc.map_order, {a: sc.areas[a].adjacent for a in sc.area_ids}, sc.crossings)
    width = max(column for column, _ in places.values())
    cells = {}
    for a, (column, row) in places.items():
        x = (width - column) * (BOX_W + GAP_X) + BOX_W / 2
        y = row * (BOX_H + GAP_Y) + BOX_H / 2
        cells[a] = [round(x), round(y), BOX_W, BOX_H]
    rows = max(row for _, row in places.values())
    height = rows * (BOX_H + GAP_Y) + BOX_H
    cells[VOLGA] = [round((width + 1) * (BOX_W + GAP_X) - GAP_X / 2 + 35), round(height / 2), 70, round(height)]
    return cells


def _stacks(sc, rules: dict) -> list[dict]:
    items = []
    for a in sc.map_order:
        counters = []
        for side in SIDES:
            for uid in units_in(sc, rules, a, side):
                u = sc.units[uid]
                counters.append({"unit": uid, "side": side, "symbol": ARM.get(u.arm),
                                 "values": str(unit_strength(sc, rules, uid)),
                                 "markers": ["withdraws"] if u.black and status(rules, uid) == "map" else [],
                                 "reduced": uid in rules["reduced"]})
        if counters:
            items.append({"type": "stack", "cell": a, "counters": counters})
    return items


def _events(sc, events: list[dict]) -> list[dict]:
    items = []
    for e in events:
        kind = e["type"]
        if kind in ("move", "shift") and e.get("origin") in sc.areas and e.get("to") in sc.areas:
            items.append({"type": "arrow", "cells": [e["origin"], e["to"]], "style": "move", "side": e.get("side", "")})
        elif kind == "retreat" and e.get("origin") in sc.areas and e.get("to") in sc.areas:
            path = [e["origin"]] + ([e["via"]] if e.get("via") in sc.areas else []) + [e["to"]]
            items.append({"type": "arrow", "cells": path, "style": "retreat", "side": e.get("side", "")})
        elif kind == "reinforce" and e.get("area") in sc.areas:
            items.append({"type": "mark", "cell": e["area"], "symbol": "in", "style": "reinforce"})
        elif kind == "combat" and e.get("area") in sc.areas:
            att, foe = e["attacker"], e["defender"]
            # whose attack, and the loss points each side is due (audience probe: "losses German 2" read as
            # two losses taken, where the report took one of the two points due)
            text = (f"{att.capitalize()} attack: die {e['dice'][att]} vs {e['dice'][foe]}; loss points due: "
                    f"{att.capitalize()} {e['loss'][att]}, {foe.capitalize()} {e['loss'][foe]}")
            items.append({"type": "mark", "cell": e["area"], "symbol": "star", "style": "combat", "text": text})
    return _unique(items)


def _unique(items: list[dict]) -> list[dict]:
    """One arrow per route and one mark per area and kind, in the order of the events."""
    seen, out = set(), []
    for item in items:
        key = (item["type"], item["style"], tuple(item.get("cells", ())), item.get("cell"), item.get("text"))
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
