"""The scenario: loading the bundled data, checking it, and the static board kept in state.

The scenario document has five parts (map, terrain, crt, oob, victory: the files of
`data/`) and an optional `position` (see README.md). `static(doc)` boils the document down
to what play needs (a compact, JSON-like `board` stored in every state, so that a state
file is complete); `board(rules)` turns it into a `Board` of fast lookups, built once per
board content (keyed by its hash) and never mutated.
"""

from __future__ import annotations

from pathlib import Path

from pbem.core.canonical import digest, load_file
from pbem.core.geometry.hexgrid import HexIdFormat, HexMap

DATA = Path(__file__).resolve().parent / "data"
PARTS = ("map", "terrain", "crt", "oob", "victory")
SIDES = ("soviet", "german")


def load_historical() -> dict:
    """The bundled scenario: the five data files, strictly parsed (DESIGN §2.1)."""
    return {part: load_file(DATA / f"{part}.yaml", f"chir/data/{part}.yaml") for part in PARTS}


def validate(doc: dict) -> None:
    from pbem.core import schema

    problems = schema.errors(schema.load("chir-scenario.schema.json"), doc)
    if problems:
        raise ValueError(f"chir scenario: {problems[0]}")


def other(side: str) -> str:
    return "german" if side == "soviet" else "soviet"


# --- the static board ------------------------------------------------------------------------

def static(doc: dict) -> dict:
    m, t, crt, v = doc["map"], doc["terrain"], doc["crt"], doc["victory"]
    counts: dict[str, int] = {}
    for kind in m["hexes"].values():
        counts[kind] = counts.get(kind, 0) + 1
    base = max(sorted(counts), key=lambda k: counts[k])
    river = {}
    for r in m["rivers"]:
        for side in r["hexsides"]:
            river[side] = r["name"]
    setup = m["setup"]
    return {
        "layout": m["format"]["layout"],
        "columns": list(m["bounds"]["columns"]), "rows": list(m["bounds"]["rows"]),
        "edges": {k: dict(e) for k, e in sorted(m["edges"].items())},
        "base_terrain": base,
        "terrain": {h: k for h, k in sorted(m["hexes"].items()) if k != base},
        "terrain_table": {k: {"mot": e["movement"]["motorised"], "non": e["movement"]["non_motorised"],
                              "shift": e.get("defence_shift", 0)} for k, e in sorted(t["terrain"].items())},
        "river": dict(sorted(river.items())),
        "river_cost": {"mot": t["hexsides"]["river"]["movement_extra"]["motorised"],
                       "non": t["hexsides"]["river"]["movement_extra"]["non_motorised"]},
        "river_shift": t["hexsides"]["river"]["all_attackers_across_shift"],
        "road_cost": {"mot": t["hexsides"]["road"]["movement"]["motorised"],
                      "non": t["hexsides"]["road"]["movement"]["non_motorised"]},
        "exit_cost": t["map_exit"]["cost"],
        "roads": [list(r["hexes"]) for r in m["roads"]],
        "bridges": sorted(b["hexside"] for b in m["bridges"]),
        "entry": [{"hex": e["hex"], "side": e["side"]} for e in m["entry_hexes"]],
        "exit": sorted(e["hex"] for e in m["exit_hexes"]),
        "places": [{"name": p["name"], "hexes": list(p["hexes"]), "vp": p["vp"]} for p in v["places"]["list"]],
        "loc_from": m["lines_of_communication"]["german"]["from"],
        "loc_edges": list(m["lines_of_communication"]["german"]["to_edges"]),
        "exit_loc_to": list(v["exits"]["requires_line_to"]),
        "control_soviet": sorted(m["control_at_start"]["soviet"]),
        "fronts": {"german": {g: list(f["front"]) for g, f in sorted(setup["german"].items())},
                   "soviet": {g: list(f["front"]) for g, f in sorted(setup["soviet"].items()) if "front" in f}},
        "cd_area": sorted(setup["soviet"].get("C,D", {}).get("area", [])),
        "placements": [{"units": p["units"], "hexes": list(p["hexes"]), "radius": p.get("radius", 0),
                        "not_on": p.get("not_on")} for p in setup.get("placements", [])],
        "red_star": sorted(setup.get("red_star", {}).get("hexes", [])),
        "field_divisions": sorted(k for k, a in doc["oob"]["affiliations"]["german"].items()
                                  if a.get("kind") == "field-division"),
        "crt": {"columns": [[c["label"], c["min"], c.get("max")] for c in crt["columns"]],
                "results": {k: list(r) for k, r in sorted(crt["results"].items())}},
        "weapons": {k: {"tank": list(e["tank"]), "not_tank": list(e["not_tank"])}
                    for k, e in sorted(crt["weapon_effects"].items()) if isinstance(e, dict)},
        "shifts": {s["id"]: s.get("shift", 0) for s in crt["shifts"]},
        "victory": {
            "turns": v["turns"],
            "lost_halves_per_point": v["strength_losses"]["lost_on_map_halves_per_point"],
            "elim_vp_per_point": v["strength_losses"]["eliminated_vp_per_point"],
            "loc_vp": v["line_of_communication"]["german_vp_if_cut"],
            "exit_vp_per_point": v["exits"]["soviet_vp_per_strength_point"],
            "levels": [[lv["min"], lv.get("max"), lv["name"]] for lv in v["levels"]["list"]],
            "multiplier": list(next((c["multiplier"] for c in v.get("optional", {}).get("conditions", [])
                                     if c["id"] == "never_soviet_city_multiplier"), [3, 2])),
            "never_cut_vp": next((c["german_vp_if_never_cut"] for c in v.get("optional", {}).get("conditions", [])
                                  if c["id"] == "line_never_cut"), 10),
        },
    }


def unit_record(u: dict, side: str) -> dict:
    setup = u.get("setup")
    entry = None
    code = setup
    if isinstance(setup, dict):
        entry, code = {"turn": setup["turn"], "hex": setup["entry"]}, None
    return {
        "side": side, "name": u["name"], "aff": u["affiliation"], "army": u.get("army"),
        "arm": u["arm"], "cls": u["class"], "size": u["size"], "full": u["strength"], "str": u["strength"],
        "morale": u["morale"], "mp": u["movement"], "mot": bool(u["motorised"]),
        "light": int(u.get("light", 0) or 0), "heavy": bool(u.get("heavy", False)),
        "range": u.get("range"), "support": u.get("support"), "sp": bool(u.get("self_propelled", False)),
        "setup": code, "entry": entry,
        "hex": None, "status": "pool" if entry else "setup",
        "conf": False, "fired": False, "half": False, "done": False,
        "moved": False, "used": 0, "attacked": False, "no_move": False, "mattacked": False,
    }


def units(doc: dict) -> dict:
    out = {}
    for side in ("german", "soviet"):
        for group in doc["oob"][side]:
            for u in group["units"]:
                if u["id"] in out:
                    raise ValueError(f"chir scenario: unit id {u['id']} appears twice in the order of battle")
                out[u["id"]] = unit_record(u, side)
    return dict(sorted(out.items()))


# --- fast lookups over the static board ---------------------------------------------------

class Board:
    """Read-only lookups over `rules["board"]` (never stored in state)."""

    def __init__(self, st: dict):
        self.st = st
        c0, c1 = st["columns"]
        r0, r1 = st["rows"]
        self.grid = HexMap.rectangle(HexIdFormat(st["layout"], 2), range(c0, c1 + 1), range(r0, r1 + 1))
        self.ids = self.grid.ids
        self.neigh = {h: tuple(sorted(self.grid.neighbours(h))) for h in self.ids}
        self.river = st["river"]
        self.bridges = set(st["bridges"])
        self.road_sides: set[str] = set()
        for road in st["roads"]:
            for a, b in zip(road, road[1:]):
                self.road_sides.add(self.grid.hexside(a, b))
        self.road_hexes = sorted({h for road in st["roads"] for h in road})
        self.exit = set(st["exit"])
        self.entry = {e["hex"]: e["side"] for e in st["entry"]}
        self.place_hexes = {h for p in st["places"] for h in p["hexes"]}
        # 8.3, 8.4: the price of every step, by movement class (half MP)
        self.cost: dict[str, dict[str, dict[str, int]]] = {"mot": {}, "non": {}}
        table = st["terrain_table"]
        for a in self.ids:
            for key in ("mot", "non"):
                row = self.cost[key].setdefault(a, {})
                for c in self.neigh[a]:
                    side = self.grid.hexside(a, c)
                    if side in self.road_sides:
                        row[c] = st["road_cost"][key]
                    else:
                        row[c] = table[self.terrain(c)][key] + (st["river_cost"][key] if side in self.river else 0)
        # a stack of motorised and non-motorised units pays the dearer of the two (movement.destinations)
        self.cost_max = {a: {c: max(self.cost["mot"][a][c], self.cost["non"][a][c]) for c in self.neigh[a]}
                         for a in self.ids}
        # 3.2, 3.3: each side's set-up hexes, and the hexes behind each set-up group's front
        self.setup_hexes = {side: self._setup_hexes(side) for side in ("german", "soviet")}
        self.rears = {(side, g): self._rear(side, f) for side in ("german", "soviet")
                      for g, f in sorted(st["fronts"][side].items())}

    def __contains__(self, h: object) -> bool:
        return h in self.grid

    def terrain(self, h: str) -> str:
        return self.st["terrain"].get(h, self.st["base_terrain"])

    def side_key(self, a: str, b: str) -> str:
        return self.grid.hexside(a, b)

    def is_river(self, a: str, b: str) -> bool:
        return self.grid.hexside(a, b) in self.river

    def is_bridge(self, a: str, b: str) -> bool:
        return self.grid.hexside(a, b) in self.bridges

    def is_road(self, a: str, b: str) -> bool:
        return self.grid.hexside(a, b) in self.road_sides

    def crossable(self, a: str, b: str) -> bool:
        """9.10, 9.11.1: a river hexside may be crossed in retreat or advance only by a bridge."""
        key = self.grid.hexside(a, b)
        return key not in self.river or key in self.bridges

    def offset(self, h: str) -> tuple[int, int]:
        return self.grid.offset(h)

    def distance(self, a: str, b: str) -> int:
        return self.grid.distance(a, b)

    def on_edge(self, h: str, edge: str) -> bool:
        spec = self.st["edges"][edge]
        col, row = self.offset(h)
        return ("column" in spec and col == spec["column"]) or ("row" in spec and row == spec["row"])

    def rearward(self, side: str, a: str, b: str) -> bool:
        """9.10.1: German retreats go south or west, Soviet north or east (compass: north is
        increasing column, east increasing row; data/README.md)."""
        (ca, ra), (cb, rb) = self.offset(a), self.offset(b)
        dc, dr = cb - ca, rb - ra
        if side == "german":
            return dc < 0 or (dc == 0 and dr < 0)
        return dc > 0 or (dc == 0 and dr > 0)

    def _setup_hexes(self, side: str) -> frozenset[str]:
        """The hexes 3.2/3.3 give a side's set-up: its fronts; for the Soviet side also the
        "C, D" area, the red-star hexes and the hexes of 3.3's placements (less German front
        hexes, where 3.3 puts no Soviet unit)."""
        st = self.st
        out = {h for f in st["fronts"][side].values() for h in f}
        if side == "soviet":
            out |= set(st["cd_area"]) | set(st["red_star"])
            for p in st["placements"]:
                for centre in p["hexes"]:
                    out |= set(self.grid.within(centre, p["radius"]))
            out -= {h for f in st["fronts"]["german"].values() for h in f}
        return frozenset(out)

    def _rear(self, side: str, front: list[str]) -> frozenset[str]:
        """3.2/3.3 "further south or west" (German), "north or east" (Soviet), as read in
        data/README.md: walk from each front hex along its row away from the enemy (south:
        lower columns; north: higher) and along its column (west: lower rows; east: higher);
        every hex reached is behind the front. A walk stops before a river hexside (bridge or
        not: the other bank is across the river from the front) and before a hex of the
        enemy's set-up (its fronts and, for the German walk, the Soviet areas of 3.3)."""
        sign = -1 if side == "german" else 1
        blocked = self.setup_hexes[other(side)]
        fmt = self.grid.format
        out: set[str] = set()
        for f in front:
            c, r = self.offset(f)
            for dc, dr in ((sign, 0), (0, sign)):
                cur, (cc, rr) = f, (c + dc, r + dr)
                while True:
                    nxt = fmt.format_offset(cc, rr)
                    if nxt not in self.grid or nxt in blocked or self.is_river(cur, nxt):
                        break
                    out.add(nxt)
                    cur, cc, rr = nxt, cc + dc, rr + dr
        return frozenset(out - set(front))

    def behind(self, h: str, side: str, group: str) -> bool:
        """Is h behind the front of `side`'s set-up group (3.2, 3.3)?"""
        return h in self.rears[(side, group)]

    def why_not_behind(self, h: str, side: str, group: str) -> str:
        """Why h is not behind the group's front: what stops the walk from the front hexes in
        line with it, or that no front hex is in line."""
        sign = -1 if side == "german" else 1
        c, r = self.offset(h)
        fmt = self.grid.format
        for f in self.st["fronts"][side][group]:
            fc, fr = self.offset(f)
            if fr == r and sign * (c - fc) > 0:
                line = [fmt.format_offset(x, r) for x in range(fc, c + sign, sign)]
            elif fc == c and sign * (r - fr) > 0:
                line = [fmt.format_offset(c, y) for y in range(fr, r + sign, sign)]
            else:
                continue
            for a, b in zip(line, line[1:]):
                if self.is_river(a, b):
                    return f"{h} is across the {self.river[self.grid.hexside(a, b)]} from {f}"
                if b in self.setup_hexes[other(side)] and b != h:
                    return f"the enemy's set-up hex {b} lies between {f} and {h}"
        towards = "south or west" if side == "german" else "north or east"
        return f"no hex of that front has {h} straight {towards} of it in its column or row"


_BOARDS: dict[str, Board] = {}


def board(rules: dict) -> Board:
    key = rules["board_key"]
    b = _BOARDS.get(key)
    if b is None:
        if len(_BOARDS) > 16:
            _BOARDS.clear()
        b = _BOARDS[key] = Board(rules["board"])
    return b


def board_key(st: dict) -> str:
    return digest(b"chir-board-v1\n", st)
