"""The table as a scene for pbem.core.render (DESIGN §4.2): the 1 km squares with their ids,
area terrain (woods, light woods, built-up areas, marsh, ridges, impassable), streams along
square edges and the bridge where a road crosses one, roads, objectives and who holds them;
every unit in its cell of its square, facing the edge it faces, so its rank and file show
(K-GM-1 to K-GM-3); battle groups; command markers; minelets; and the last packet's moves,
Close Assaults, Direct Fire, Give Ground and air attacks. No SVG here: only the primitives of
the scene format (docs/scene.md).

A square is drawn as its 3 x 3 cells (layout.py): the scene's grid is the cells, named
"SQUARE.rc" (r rows from the north edge, c columns from the west edge, as in
squaregrid.Interior), with north up.
"""

from __future__ import annotations

import weakref

from pbem.core.geometry import squaregrid as sg

from . import command, report
from .fire import FIRE_WORDS
from .scenario import INSIDE, SIDES, Scenario
from .state import Board

N = INSIDE.size   # cells a side of a square
CELL = 56          # pixels a side of a cell
SIDE_STYLES = {
    "blue": {"label": "Blue: West German unit (counter colour)", "fill": "#9fc0e0", "ink": "#0c1a26"},
    "red": {"label": "Red: Soviet unit (counter colour)", "fill": "#eba08c", "ink": "#2a0c00"},
}
TERRAIN = {   # area features (K-TER-1): a fill without lines (3 x 3 stroked cells a square would double the PNG's time)
    "open": {"fill": "#f4f0dc", "label": "Open ground"},
    "woods": {"fill": "#9fc787", "label": "Woods (K-TER-7)"},
    "light-woods": {"fill": "#cde2b4", "label": "Light woods (K-TER-9)"},
    "bua": {"fill": "#d3ad88", "label": "Built-up area, a road to every face (K-TER-6)"},
    "marsh": {"fill": "#b9d6d2", "label": "Marsh (K-TER-8)"},
    "ridge": {"fill": "#e6d2a2", "label": "Ridge: high ground (K-TER-4)"},
    "steep-ridge": {"fill": "#caa468", "label": "Steep ridge: high ground, vehicles by road (K-TER-5)"},
    "impassable": {"fill": "#8f8f8f", "label": "Impassable (K-TER-10)"},
}
LINEAR = {   # linear features along square edges (K-TER-1, K-TER-2)
    "river": {"stroke": "#2f6fd0", "width": 6, "label": "River along a square edge (K-TER-2)"},
    "stream": {"stroke": "#3f86e0", "width": 3.5, "label": "Stream along a square edge (K-TER-2)"},
    "wadi": {"stroke": "#b08850", "width": 3.5, "dash": "6 3", "label": "Wadi along a square edge (K-TER-2)"},
    "ditch": {"stroke": "#6a5a3a", "width": 3, "dash": "3 2", "label": "Ditch along a square edge (K-TER-2)"},
}
STYLES = {
    **TERRAIN,
    **LINEAR,
    "bridge": {"stroke": "#3a2616", "width": 7, "label": "Bridge: a road across the edge"},
    "road": {"stroke": "#9a5b2b", "width": 3, "label": "Road between square centres (K-TER-3)"},
    "square": {"stroke": "#5e5848", "width": 1.3, "label": "1 km square (K-BTF-1); its id CCRR at the top"},
    "objective": {"stroke": "#d4a000", "width": 4, "opacity": 0.9, "label": "Objective village, and who holds it"},
    "group-blue": {"stroke": "#1f4f7a", "width": 1.6, "dash": "4 3", "label": "Blue battle group (K-BG-1)"},
    "group-red": {"stroke": "#9a1a0c", "width": 1.6, "dash": "4 3", "label": "Red battle group (K-BG-1)"},
    "hq-blue": {"fill": "#2d5d8a", "stroke": "#0c1a26", "width": 1, "label": "Blue command marker (K-CMK-1)", "symbol": "flag"},
    "hq-red": {"fill": "#c0301c", "stroke": "#2a0c00", "width": 1, "label": "Red command marker", "symbol": "flag"},
    "hq-out": {"fill": "#ffffff", "stroke": "#1d1d1d", "width": 1.2, "label": "Command marker Out of Command (K-CMD-3)", "symbol": "flag"},
    "minelet": {"fill": "#6b6b6b", "stroke": "#1d1d1d", "width": 1, "label": "Minelet marker, real or dummy (K-SFX-5)", "symbol": "circle"},
    "move-blue": {"stroke": "#0f3a63", "width": 2.5, "opacity": 0.85, "legend": "used", "label": "Last packet: blue move"},
    "move-red": {"stroke": "#c2185b", "width": 2.5, "opacity": 0.85, "legend": "used", "label": "Last packet: red move"},
    "assault": {"stroke": "#d01c1c", "width": 3.5, "opacity": 0.9, "legend": "used", "label": "Last packet: Close Assault declared"},
    "fire": {"stroke": "#e07000", "width": 2, "opacity": 0.9, "legend": "used", "label": "Last packet: Direct Fire, with its result"},
    "give-ground": {"stroke": "#7a2fb0", "width": 2.5, "dash": "6 3", "opacity": 0.9, "legend": "used", "label": "Last packet: Give Ground"},
    "air-attack": {"fill": "#e07000", "stroke": "#1d1d1d", "width": 1, "legend": "used", "symbol": "star",
                   "label": "Last packet: air attack on a unit in the square, its dice and result (K-AIR-3)"},
    "cell-id": {"ink": "#5e5848", "width": 9},
    "name": {"ink": "#1d1d1d", "width": 10},
}
LEGEND = [
    "A square holds 3 x 3 cells; a unit stands in one, facing an edge: the bar and wedge on its counter. "
    "Rank 1 is the row touching the edge it faces (K-GM-2, K-GM-3).",
    "Counter: unit id (without B- or R-); type (X infantry, X and oval infantry mounted, oval armour, "
    "^ anti-tank and ATGW, dot artillery, arc air defence, / reconnaissance, bare box transport); its order chit, "
    "? while it is sealed: from its side's seal at Issuing Orders until the rules reveal it (its owner shows it, "
    "Direct Fire, a Close Assault, the end of the turn: K-ORD-1, K-ORD-6).",
    "Markers: H a loss (K-TRP-2), ½ fielded at half strength (K-TRP-3), L limbered, D infantry dismounted.",
]
SYMBOL = {"armour": "tank", "atgw": "anti-tank", "at-arty": "anti-tank", "aa-arty": "anti-aircraft",
          "fd-arty": "artillery", "transport": "box"}
# where a marker goes in a square, first choice first: its flag sits on the cell's west side,
# between the middle and the east column, clear of a square's usual front ranks
MARKER_CELLS = ("02", "12", "22", "01", "21", "11", "00", "10", "20")
# the cell of a square on its side towards a neighbour: where an arrow to that neighbour starts
TOWARDS = {"N": "01", "S": "21", "E": "12", "W": "10", "NE": "02", "NW": "00", "SE": "22", "SW": "20"}


_TABLES: "weakref.WeakKeyDictionary[Scenario, tuple[dict, list[dict], list[dict]]]" = weakref.WeakKeyDictionary()

def draw(sc: Scenario, rules: dict, events: list[dict]) -> dict:
    board = Board(sc, rules)
    cells, ground, ids = _table(sc)
    items: list[dict] = list(ground)
    items += _objectives(sc, rules)
    items += ids
    items += _groups(sc, rules)
    items += _markers(sc, rules, board)
    items += _stacks(sc, rules)
    items += _arrows(sc, rules, events)
    present = {i.get("style") for i in items}
    styles = {k: v for k, v in STYLES.items()   # the last packet's are the core's to leave out (`legend: used`)
              if k in present or k in ("square", "group-blue", "group-red", "hq-blue", "hq-red") or v.get("legend")}
    return {
        "title": "Kalt Krieg ohne Hass: " + sc.doc["name"].split(": ", 1)[-1],
        "caption": _caption(sc, rules),
        "notes": [_note(sc)],
        "legend": LEGEND,
        "north": 0,
        "grid": {"kind": "square", "size": CELL, "cells": cells},
        "sides": SIDE_STYLES,
        "styles": styles,
        "items": items,
    }


def _table(sc: Scenario) -> tuple[dict, list[dict], list[dict]]:
    """The scene's grid of cells, the table's ground (terrain, squares, streams, roads) and the
    squares' ids: the same in every state, made once for a scenario (a replay draws the
    table in every state; the example's 111 took a second making them again)."""
    found = _TABLES.get(sc)
    if found is None:
        rows = sc.doc["map"]["rows"]
        cells = {}
        for square in sc.grid.ids:
            s = sc.grid.square(square)
            for cell in INSIDE.cells:
                r, c = INSIDE.parse(cell)
                cells[f"{square}.{cell}"] = [s.x * N + c, (rows - 1 - s.y) * N + r]
        ground = [{"type": "cell", "cell": f"{square}.{cell}", "style": sc.area[square].name}
                  for square in sc.grid.ids for cell in INSIDE.cells]
        ground += [{"type": "outline", "cells": _inside(square), "style": "square"} for square in sc.grid.ids]
        ground += _ground(sc)
        ids = [{"type": "label", "cell": f"{square}.01", "text": square, "style": "cell-id", "at": "top"}
               for square in sc.grid.ids]
        found = _TABLES[sc] = (cells, ground, ids)
    return found


def _inside(square: str) -> list[str]:
    return [f"{square}.{cell}" for cell in INSIDE.cells]


def _note(sc: Scenario) -> str:
    m = sc.doc["map"]
    what = f"{m['columns']} x {m['rows']} table of 1 km squares"
    if m.get("reconstructed") or sc.doc.get("reconstructed"):
        return (f"Table reconstructed: the rulebook prints army lists but no map or scenario, so this {what}, its "
                f"terrain, roads, stream, objectives and deployment are rebuilt for the bundled scenario "
                f"(pbem/rulesets/kkoh/README.md).")
    return f"The scenario's {what}."


def _caption(sc: Scenario, rules: dict) -> list[str]:
    s = report.summary(sc, rules)
    lines = [f"Turn {s['turn']} of {sc.last_turn}: {s['phase']}",
             f"Initiative: {s['initiative'] or 'not yet rolled'}; score blue {s['vp']['blue']}, red {s['vp']['red']}"]
    if s["result"]:
        lines.append(f"Result: {s['result']}")
    lost = {side: sum(1 for p in rules["gone"] if sc.pieces[p].side == side) for side in SIDES}
    if any(lost.values()):
        lines.append(f"Units destroyed: blue {lost['blue']}, red {lost['red']}")
    if rules["demoralised"]:
        lines.append("Demoralised: " + ", ".join(rules["demoralised"]))
    return lines


def _ground(sc: Scenario) -> list[dict]:
    """Streams and rivers on the square edges (a side between each of the three pairs of
    cells along the edge), roads from square centre to square centre, and a bridge where
    a road crosses a linear feature."""
    items, bridges = [], []
    for key, feature in sc.edges.items():
        a, b = sc.grid.parse_edge(key)
        pairs = _edge_cells(sc, a, b)
        items += [{"type": "side", "a": x, "b": y, "style": feature.name} for x, y in pairs]
        if key in sc.roads:
            x, y = pairs[1]
            bridges.append({"type": "side", "a": x, "b": y, "style": "bridge"})
    for key in sorted(sc.grid.edge_key(*key.split("/")) for key in sc.doc["map"].get("roads") or ()):
        # the roads of the map; a built-up area's road to every face (K-TER-6) is in its legend
        a, b = sc.grid.parse_edge(key)
        items.append({"type": "path", "cells": [f"{a}.11", f"{b}.11"], "style": "road"})
    return items + bridges


def _edge_cells(sc: Scenario, a: str, b: str) -> list[tuple[str, str]]:
    """The three pairs of cells that face each other across the edge between squares a and b."""
    edge = sc.grid.direction(a, b)
    across = sg.opposite(edge)
    mine = [INSIDE.cell(edge, 1, f) for f in range(1, N + 1)]
    theirs = [INSIDE.cell(across, 1, f) for f in range(N, 0, -1)]   # files run the other way from the far side
    return [(f"{a}.{x}", f"{b}.{y}") for x, y in zip(mine, theirs)]


def _objectives(sc: Scenario, rules: dict) -> list[dict]:
    items = []
    for square in sc.objectives:
        items.append({"type": "outline", "cells": _inside(square), "style": "objective"})
        items.append({"type": "label", "cell": f"{square}.21", "text": f"objective: {rules['held'][square]}",
                      "style": "name", "at": "bottom"})
    return items


def _groups(sc: Scenario, rules: dict) -> list[dict]:
    members: dict[tuple[str, str], list[str]] = {}
    for pid, rec in sorted(rules["pieces"].items()):
        if rec.get("g"):
            members.setdefault((rec["g"], sc.pieces[pid].side), []).append(f"{rec['sq']}.{rec['cell']}")
    return [{"type": "outline", "cells": sorted(set(c)), "style": f"group-{side}"}
            for (_, side), c in sorted(members.items()) if len(c) > 1]


def _markers(sc: Scenario, rules: dict, board: Board) -> list[dict]:
    """Command markers and minelets: not units, they take no cell (K-CMK-6), so each is
    drawn in a cell of its square that no unit and no other marker uses, if there is one."""
    taken = {f"{rec['sq']}.{rec['cell']}" for rec in rules["pieces"].values()}
    status = command.marker_status(sc, board)
    items = []

    def place(square: str) -> str:
        free = [c for c in MARKER_CELLS if f"{square}.{c}" not in taken]
        cell = f"{square}.{(free or MARKER_CELLS)[0]}"
        taken.add(cell)
        return cell

    for hid in sorted(rules["hqs"]):
        rec = rules["hqs"][hid]
        if "sq" not in rec:
            continue
        side = sc.commands[hid].side
        items.append({"type": "mark", "cell": place(rec["sq"]), "symbol": "flag",
                      "style": f"hq-{side}" if status.get(hid) else "hq-out", "text": _short(hid)})
    for m in rules["minelets"]:
        items.append({"type": "mark", "cell": place(m["square"]), "symbol": "circle", "style": "minelet",
                      "text": f"mines {m['pair']}" + ("" if m.get("real") is None else (" real" if m["real"] else " dummy"))})
    return items


def _short(ident: str) -> str:
    """An id without its side's letter: the counter's colour says the side."""
    return ident[2:] if ident[:2] in ("B-", "R-") else ident


def _stacks(sc: Scenario, rules: dict) -> list[dict]:
    at: dict[str, list[str]] = {}
    for pid, rec in sorted(rules["pieces"].items()):
        at.setdefault(f"{rec['sq']}.{rec['cell']}", []).append(pid)
    return [{"type": "stack", "cell": cell, "counters": [_counter(sc, rules, pid) for pid in pids]}
            for cell, pids in sorted(at.items())]


def _counter(sc: Scenario, rules: dict, pid: str) -> dict:
    piece, rec = sc.pieces[pid], rules["pieces"][pid]
    mode = rec.get("mode")
    if piece.recce:
        symbol = "cavalry"
    elif piece.kind == "infantry":
        symbol = "mechanised" if mode == "mounted" else "infantry"
    else:
        symbol = SYMBOL.get(piece.kind)
    markers = (["hit"] if rec.get("hits") else []) + (["half"] if piece.reduced else []) \
        + (["limbered"] if mode == "limbered" else []) + (["dismounted"] if mode == "dismounted" else [])
    chit = command.open_chit(rules, piece.side, rec) or "?"
    return {"unit": pid, "label": _short(pid), "side": piece.side, "symbol": symbol, "values": chit,
            "markers": markers, "reduced": bool(rec.get("hits")), "facing": sg.EDGES.index(rec["f"]) * 90}


def _fire_fate(events: list[dict], i: int) -> str | None:
    """The rule by which fire i's target was destroyed as that phase's fire was resolved, as the
    events up to the next Action Phase say: K-DF-7 (its losses, after every shot of the phase,
    a Soviet unit's hold converted to a loss among them, K-DOC-3) or K-GG-10 (no room to give
    ground); None where it was not, or by something else (a minelet, an assault). The standing
    orders that answer the holds come before the losses: no order or answer ends the window."""
    target = events[i].get("target")
    for later in events[i + 1:]:
        if later["type"] == "action-phase":
            break
        if later["type"] == "destroyed" and later.get("unit") == target:
            return later.get("rule") if later.get("rule") in ("K-DF-7", "K-GG-10") else None
    return None


def _arrows(sc: Scenario, rules: dict, events: list[dict]) -> list[dict]:
    """The last packet's moves, Close Assaults, Direct Fire, Give Ground and air attacks, from its
    events (an air attack a star where it struck: the aircraft comes from off the table).
    Moves, assaults and Give Ground start at the side of the square they leave by (so two
    moves out of one square in opposite ways stay two arrows) and end in the middle of the
    square they reach, a unit's last move at the cell where it stands; fire goes from the
    firer's cell to its target's, where they stood as the die was rolled. Each arrow names the
    side whose it is, whose counter colour marks where it starts."""
    pieces = rules["pieces"]
    items = []

    def route(squares: list[str]) -> list[str]:
        return [f"{squares[0]}.{TOWARDS[sc.grid.heading(squares[0], squares[1])]}"] + [f"{s}.11" for s in squares[1:]]

    # the last event that moved each unit: its arrow ends at the unit's counter, where it stands
    last_move = {u: i for i, e in enumerate(events) if e["type"] in ("move", "give-ground")
                 for u in (e["units"] if e["type"] == "move" else [e.get("unit")])}
    for i, e in enumerate(events):
        kind = e["type"]
        if kind == "move" and e.get("origin") != e.get("to"):
            side = sc.pieces[e["units"][0]].side
            cells = route([e["origin"], e["to"]])
            lead = pieces.get(e["units"][0])
            if last_move[e["units"][0]] == i and lead is not None and lead["sq"] == e["to"]:
                cells[-1] = f"{lead['sq']}.{lead['cell']}"   # its last move ends where it stands, at its counter
            items.append({"type": "arrow", "cells": cells, "style": f"move-{side}", "side": side})
        elif kind == "assault-declared":
            items.append({"type": "arrow", "cells": route([e["origin"], e["target"]]), "style": "assault",
                          "text": f"CA {e['assault']}", "side": e.get("side") or sc.pieces[e["units"][0]].side})
        elif kind == "give-ground" and e.get("origin") != e.get("to"):
            path = [e["origin"]] + [s for s in e.get("path") or [e["to"]] if s != e["origin"]]
            cells = route(path)
            lead = pieces.get(e["unit"])
            if last_move.get(e["unit"]) == i and lead is not None and lead["sq"] == path[-1]:
                cells[-1] = f"{lead['sq']}.{lead['cell']}"   # (an audience's probe: it ended mid-square)
            items.append({"type": "arrow", "cells": cells, "style": "give-ground",
                          "side": e.get("side") or sc.pieces[e["unit"]].side})
        elif kind == "air-attack":
            # no line: the aircraft comes from off the table; a star in the square it struck, with
            # the unit, the dice and the result (an audience's probe: air attacks were not drawn)
            # (its dice as the report gives them: a die re-rolled, then the one that counts)
            dice = ", ".join(map(str, e["dice"])) + (f" +{e['bonus']} (soft target)" if e.get("bonus") else "")
            items.append({"type": "mark", "cell": f"{e['square']}.11", "symbol": "star", "style": "air-attack",
                          "text": f"{_short(e['air'])} on {_short(e['unit'])}: {dice}: "
                                  f"{'a loss' if e['loss'] else 'no effect'}"})
        elif kind == "fire" and e.get("at") and e["at"][0] != e["at"][1]:
            # from where the firer stood to where the target stood as the die was rolled
            # whose fire, in the report's words, with its die and the total it made (an audience's
            # probe: "none (5)" said neither who fired nor that 5 was a die)
            side = e.get("side") or sc.pieces[e["unit"]].side
            score = e.get("score", e["die"])
            # a target the fire destroyed gives no ground: said so, and how (a kkoh player's probe:
            # a unit destroyed read "a loss and Give Ground"); the total wherever modifiers made it,
            # even where they cancel out ("no effect (die 4)" beside "(die 1, total 3)")
            fate = _fire_fate(events, i) if e["effect"] != "none" else None
            words = FIRE_WORDS[e["effect"]]
            if fate == "K-DF-7":
                words = "a loss: destroyed" if e["effect"] == "loss" else "Give Ground, held as a loss: destroyed"
            elif fate == "K-GG-10":
                words += ": destroyed, no room to give ground"
            items.append({"type": "arrow", "cells": list(e["at"]), "style": "fire", "side": side,
                          "text": f"{side.capitalize()}: {words} (die {e['die']}"
                                  + (f", total {score})" if score != e["die"] or e.get("modifiers") else ")")})
    return items
