"""The board as a scene for pbem.core.render (DESIGN §4.2): terrain, rivers, bridges, roads,
places, hex ids, entry and exit hexes, the line of communication's start, control and the
front, zones of control (shown on request), every stack of counters, and the last packet's
moves, attacks, fire, retreats and advances. No SVG here: only the primitives of the scene
format (docs/scene.md)."""

from __future__ import annotations

from . import board as bd
from . import report
from . import state as st
from .scenario import Scenario

SIDES = {
    "german": {"label": "German unit (counter colour)", "fill": "#a9bfd3", "ink": "#0c1a26"},
    "soviet": {"label": "Soviet unit (counter colour)", "fill": "#e6a384", "ink": "#2a0c00"},
}
STYLES = {
    "clear": {"fill": "#f4f0dc", "stroke": "#c4bea4", "width": 0.6, "label": "Clear"},
    "boggy": {"fill": "#bfd8cf", "stroke": "#c4bea4", "width": 0.6, "label": "Boggy (8.3)"},
    "woods": {"fill": "#a5c98c", "stroke": "#c4bea4", "width": 0.6, "label": "Woods"},
    "town": {"fill": "#d9b48e", "stroke": "#c4bea4", "width": 0.6, "label": "Town: a place of 4.2, its name and VP"},
    "river": {"stroke": "#2f6fd0", "width": 4.5, "label": "River hexside: Chir, Don (8.3, 9.7.3)"},
    "bridge": {"stroke": "#3a2616", "width": 7, "label": "Bridge (8.4)"},
    "road": {"stroke": "#9a5b2b", "width": 2.5, "label": "Road (8.4)"},
    "soviet-control": {"fill": "#e8503a", "opacity": 0.13, "label": "Soviet-controlled hex (3.3); every other hex is German"},
    "front": {"stroke": "#e0503a", "width": 2, "dash": "7 3", "opacity": 0.9, "label": "Front: the edge of Soviet control"},
    "zoc-german": {"fill": "#2d5d8a", "opacity": 0.22, "label": "German zone of control (7.0)", "show": "zoc"},
    "zoc-soviet": {"fill": "#c0180c", "opacity": 0.22, "label": "Soviet zone of control (7.0)", "show": "zoc"},
    "setup-german": {"stroke": "#1f4f7a", "width": 3, "dash": "5 3", "label": "German set-up front (3.2)"},
    "setup-soviet": {"stroke": "#9a1a0c", "width": 3, "dash": "5 3", "label": "Soviet set-up front and area (3.3)"},
    "entry-german": {"fill": "#5c86ad", "stroke": "#0c1a26", "width": 1, "label": "German entry hex, with its game turns (11.2)"},
    "entry-soviet": {"fill": "#d05a3a", "stroke": "#2a0c00", "width": 1, "label": "Soviet entry hex, with its game turns (11.3)"},
    "exit": {"fill": "#ffffff", "stroke": "#2a0c00", "width": 1.2, "label": "Soviet exit hex (4.4)"},
    "loc": {"fill": "#5c86ad", "stroke": "#0c1a26", "width": 1, "label": "Start of the German line of communication (4.3)"},
    "red-star": {"fill": "#d01c1c", "stroke": "#5a0000", "width": 0.8, "label": "Red-star set-up hex (3.3)"},
    "move-german": {"stroke": "#0f3a63", "width": 2.2, "opacity": 0.85, "legend": "used", "label": "Last packet: German move"},
    "move-soviet": {"stroke": "#c2185b", "width": 2.2, "opacity": 0.85, "legend": "used", "label": "Last packet: Soviet move"},
    "attack": {"stroke": "#d01c1c", "width": 3.5, "opacity": 0.9,
               "legend": "used", "label": "Last packet: attack, with the offensive fire's result (M-S: morale damage M, strength "
                        "loss S, 9.8) and die"},
    "defensive-fire": {"stroke": "#e07000", "width": 2, "opacity": 0.9, "legend": "used", "label": "Last packet: defensive fire, result and die"},
    "support": {"stroke": "#6b4a12", "width": 1.6, "dash": "1 3", "opacity": 0.9, "legend": "used",
                "label": "Last packet: supporting artillery's fire (10.0)"},
    "retreat": {"stroke": "#7a2fb0", "width": 2.5, "dash": "6 3", "opacity": 0.9, "legend": "used", "label": "Last packet: retreat"},
    "advance": {"stroke": "#1d7a1d", "width": 2.5, "dash": "2 3", "opacity": 0.9, "legend": "used", "label": "Last packet: advance after combat"},
    "cell-id": {"ink": "#8a8470", "width": 7.5},
    "name": {"ink": "#1d1d1d", "width": 10},
}
SETUP_STYLES = ("setup-german", "setup-soviet", "red-star")
LEGEND = [
    "Counter: unit id; type (X infantry, oval tank, dot artillery, ^ anti-tank, arc flak); strength-morale. "
    "Red strength and bar: below printed strength (2.4).",
    "Markers: C confusion (7.1), F fired (10.2), ½ Half Move (8.6), N may not move (8.6), T facing turned: its "
    "movement is over (8.1).",
]
NOTE = ("Map reconstructed: the rulebook has no map, so terrain, rivers, roads, bridges, fronts and the "
        "positions of its places are rebuilt from its text (pbem/rulesets/chir/data/README.md).")
SYMBOL = {"tank": "tank", "infantry": "infantry", "artillery": "artillery", "anti-tank": "anti-tank"}
# (an audience's probe: `done`, facing turned and movement over, was neither drawn nor in the key,
# where `pbem show --unit` listed it)
MARKERS = (("confusion", "confused"), ("fired", "fired"), ("half", "half"), ("no-move", "no-move"),
           ("done", "turned"))
# an attack under way, at each of its steps (9.x, 10.x), in words: not its step's name in the state.
# At a "-hit" step the fire is rolled and its losses, morale and retreat are being taken (players'
# probe: "the offensive fire's result next" while the game waited for the retreat that result made)
STEP_WORDS = {"def-artillery": "the defender's supporting artillery next", "def-fire": "the defensive fire next",
              "def-roll": "the defensive fire's die next", "def-hit": "the defensive fire's hit being taken",
              "invalidate": "supporting artillery to cancel", "att-roll": "the offensive fire's die next",
              "att-hit": "the offensive fire's hit being taken", "advance": "the advance after combat next",
              "finish": "the attack ending"}


def draw(sc: Scenario, rules: dict, events: list[dict]) -> dict:
    s = report.summary(sc, rules)
    caption = [s["now"] + (f", {STEP_WORDS.get(s['step'], s['step'])}" if s["step"] else ""),   # as status says it
               f"VP Soviet {s['vp']['soviet']}, German {s['vp']['german']}; "
               f"German line to the Don {s['line_of_communication']}"]
    if s["result"]:
        caption.append(s["result"])
    caption.extend(_off_map(sc, rules))
    items: list[dict] = []
    items += [{"type": "cell", "cell": h, "style": sc.terrain(h)} for h in sc.ids]
    items += _control(sc, rules)
    items += _ground(sc)
    if rules["phase"] == "setup":
        items += _setup(sc)
    items += _specials(sc)
    items += [{"type": "label", "cell": h, "text": h, "style": "cell-id", "at": "top"} for h in sc.ids]
    for place in sc.places:
        items.append({"type": "label", "cell": place.hexes[0], "text": f"{place.name} {place.vp} VP", "style": "name",
                      "at": "bottom"})
    items += _stacks(sc, rules)
    items += _arrows(sc, rules, events)
    return {
        "title": "48th Panzer Korps: Battles on the River Chir (December 1942)",
        "caption": caption,
        "notes": [NOTE],
        "legend": LEGEND,
        "north": 90,  # north is increasing column (data/README.md): to the right on the sheet
        "grid": {"kind": "hex", "layout": sc.grid.format.layout, "size": 40,
                 "cells": {h: list(sc.offset(h)) for h in sc.ids}},
        "sides": SIDES,
        # the set-up areas are drawn, and explained, only while the sides set up
        "styles": {k: v for k, v in STYLES.items() if rules["phase"] == "setup" or k not in SETUP_STYLES},
        "items": items,
    }


def _off_map(sc: Scenario, rules: dict) -> list[str]:
    out = []
    for status, what in (("pool", "to enter"), ("gone", "eliminated"), ("exited", "left the map")):
        counts = {side: sum(1 for u, x in sc.units.items() if x.side == side and st.status(rules, u) == status)
                  for side in ("german", "soviet")}
        if any(counts.values()):
            out.append(f"Units {what}: German {counts['german']}, Soviet {counts['soviet']}")
    return out


def _ground(sc: Scenario) -> list[dict]:
    items = []
    bridges = []
    for a in sc.ids:
        for b in sc.neigh[a]:
            if a < b and sc.is_river(a, b):
                items.append({"type": "side", "a": a, "b": b, "style": "river"})
                if sc.crossable(a, b):  # a bridged river hexside
                    bridges.append({"type": "side", "a": a, "b": b, "style": "bridge"})
    for a, nexts in sc.road_next.items():
        for b in nexts:
            if a < b:
                items.append({"type": "path", "cells": [a, b], "style": "road"})
    return items + bridges


def _control(sc: Scenario, rules: dict) -> list[dict]:
    of = bd.control(sc, rules)
    soviet = [h for h in sc.ids if of(h) == "soviet"]
    items = [{"type": "shade", "cells": soviet, "style": "soviet-control"},
             {"type": "outline", "cells": soviet, "style": "front"}]
    for side in ("german", "soviet"):
        zone, _ = bd.zoc(sc, rules, side)
        items.append({"type": "shade", "cells": sorted(zone), "style": f"zoc-{side}", "show": "zoc"})
    return items


def _setup(sc: Scenario) -> list[dict]:
    items = []
    for side in ("german", "soviet"):
        for group, front in sc.fronts[side].items():
            items.append({"type": "outline", "cells": list(front), "style": f"setup-{side}"})
            items.append({"type": "label", "cell": front[len(front) // 2], "text": f"{side[:3].capitalize()} {group}",
                          "style": "name", "at": "center"})
    if sc.cd_area:
        items.append({"type": "outline", "cells": list(sc.cd_area), "style": "setup-soviet"})
    items += [{"type": "mark", "cell": h, "symbol": "star", "style": "red-star"} for h in sc.red_star]
    return items


def _specials(sc: Scenario) -> list[dict]:
    entries: dict[tuple[str, str], set[int]] = {}
    for u in sc.units.values():
        if u.entry_hex:
            entries.setdefault((u.entry_hex, u.side), set()).add(u.entry_turn)
    items = [{"type": "mark", "cell": h, "symbol": "in", "style": f"entry-{side}",
              "text": "GT " + ",".join(str(t) for t in sorted(turns))}
             for (h, side), turns in sorted(entries.items())]
    items += [{"type": "mark", "cell": h, "symbol": "out", "style": "exit", "text": "exit"}
              for h in sorted(sc.exit) if (h, "german") not in entries]
    items.append({"type": "mark", "cell": sc.loc_from, "symbol": "flag", "style": "loc", "text": "LOC"})
    return items


def _stacks(sc: Scenario, rules: dict) -> list[dict]:
    items = []
    for h, uids in bd.stacks(sc, rules).items():
        counters = []
        for uid in uids:
            u = sc.units[uid]
            now = st.strength(sc, rules, uid)
            symbol = "anti-aircraft" if u.arm == "anti-aircraft" else SYMBOL.get(u.cls)
            counters.append({"unit": uid, "side": u.side, "symbol": symbol, "values": f"{now}-{u.morale}",
                             "markers": [name for marker, name in MARKERS if st.marked(rules, marker, uid)],
                             "reduced": now < u.full})
        items.append({"type": "stack", "cell": h, "counters": counters})
    return items


def _arrows(sc: Scenario, rules: dict, events: list[dict]) -> list[dict]:
    """The last packet's moves, attacks, fire, retreats and advances, from its events, in
    order: a fire belongs to the attack of its number declared before it in the packet.
    Attack numbers start again each phase, so a packet may resolve the fire of an attack an
    earlier packet declared (in a secure game it waits for the next reveal) and then declare
    a new attack of the same number: that fire is drawn from where its firers stand. Each arrow
    names the side whose it is, whose counter colour marks where it starts, and a fire's result
    names the side that fired: the firers may be gone from where the arrow starts (players'
    probe, dos: an attack eliminated read as the enemy's, who had advanced into its hex).
    Supporting artillery is drawn where its fire is, from where it stands (10.0); the
    artillery of an attack still under way, which has not fired yet, from where it stands now."""
    items: list[dict] = []
    declared: dict[int, tuple[dict, list[dict]]] = {}   # attack number -> (its event, its arrows)
    unfired: dict[int, dict] = {}   # attack number -> its event, while its supporting artillery has not fired
    for e in events:
        kind = e["type"]
        if kind == "move" and len(e.get("path", ())) >= 2:
            side = sc.side_of[e["units"][0]]
            items.append({"type": "arrow", "cells": _on_map(sc, e["path"]), "style": f"move-{side}", "side": side})
        elif kind in ("retreat", "advance") and len(e.get("path", ())) >= 2:
            items.append({"type": "arrow", "cells": _on_map(sc, e["path"]), "style": kind,
                          "side": sc.side_of[e["units"][0]]})
        elif kind == "attack":
            arrows = [{"type": "arrow", "cells": [h, e["target"]], "style": "attack", "side": e.get("side")}
                      for h in sorted(e["groups"])]
            items += arrows
            declared[e["attack"]] = (e, arrows)
            unfired[e["attack"]] = e
        elif kind == "attack-end":
            unfired.pop(e["attack"], None)
        elif kind == "fire" and e.get("target_hex") in sc.hexes:
            attack, arrows = declared.get(e.get("attack"), (None, []))
            if e["fire"] == "offensive":
                unfired.pop(e.get("attack"), None)
            if attack is not None and e["fire"] == "offensive":
                # on the arrow of a group that fired: a group that retreated from defensive
                # fire (8.6) did not, and its arrow must not carry the result
                fired = [a for a in arrows if a["cells"][0] in e.get("firer_hexes", ())] or arrows
                if fired:
                    fired[0]["text"] = _said(e)
            elif attack is not None:
                if e["target_hex"] != attack["target"]:
                    items.append({"type": "arrow", "cells": [attack["target"], e["target_hex"]],
                                  "style": "defensive-fire", "text": _said(e), "side": e.get("side")})
            else:
                style = "attack" if e["fire"] == "offensive" else "defensive-fire"
                shots = [{"type": "arrow", "cells": [h, e["target_hex"]], "style": style, "side": e.get("side")}
                         for h in e.get("firer_hexes", ()) if h in sc.hexes and h != e["target_hex"]]
                if shots:
                    shots[0]["text"] = _said(e)
                items += shots
            items += _support(sc, e.get("support_hexes", ()), e["target_hex"], e.get("side"))
    under_way = rules.get("attack")
    if under_way is not None and under_way["n"] in unfired:
        firing = [u for u in under_way["support"] if u not in under_way["invalid"] and st.on_map(rules, u)]
        items += _support(sc, sorted({st.hex_of(rules, u) for u in firing}), under_way["target"], under_way["att"])
    return [a for a in items if len(a["cells"]) >= 2]


def _support(sc: Scenario, hexes, target: str, side: str | None) -> list[dict]:
    """Supporting artillery's arrows: from each hex it fires from to the hex it fires at."""
    return [{"type": "arrow", "cells": [h, target], "style": "support", "side": side}
            for h in hexes if h in sc.hexes and h != target]


def _on_map(sc: Scenario, path: list[str]) -> list[str]:
    return [h for h in path if h in sc.hexes]


def _said(fire: dict) -> str:
    """A fire's box: the side that fired and its result, "Soviet: 1-0 (die 2)"."""
    return f"{fire['side'].capitalize()}: {_result(fire)}" if fire.get("side") else _result(fire)


def _result(fire: dict) -> str:
    """A fire's result as its box says it: "1-0 (die 2)" (morale damage, strength loss, 9.8),
    "no effect (die 6)"; a fire that rolled no die says why (9.7)."""
    if fire.get("die"):
        return ("no effect" if fire["result"] == "-" else fire["result"]) + f" (die {fire['die']})"
    return {"zero": "no effect (strength 0)", "cancelled": "cancelled (9.7)"}.get(fire.get("outcome"), fire["result"])
