"""The scenario: the bundled data, its check, and the scenario object built from it.

The scenario document has eight parts (the files of `data/`): map, terrain, crt, oob,
untried, schedule, directives, victory; and an optional `position` (README.md). `Scenario`
turns it, once per process, into everything the genesis fixes: the two mapsheets joined
into one grid of land hexes (integer indices inside, ids at the edges), every hexside and
the price of every step for each side and movement class, the rail net and its links, the
cities, the front line and the areas the rules derive from it (the Axis ground of 10.44,
the set-up bands of 5.31-5.34, the area across the Don of 16.31, the Don line of 18.21),
the tables (3.2: CRT, turn track, terrain chart, directive table) and the fixed attributes
of every unit (3.3, 3.31: the counters; 20.1, 20.2: the orders of battle; 10.4, 10.42: every
city hex a rail hex). The core caches it and every game with
that document and options shares it, so nothing ever changes it. The rules state
(state.py) holds only what play changes.
"""

from __future__ import annotations

import functools
from operator import itemgetter
from pathlib import Path
from types import MappingProxyType

from pbem.core.bundled import Bundled
from pbem.core.geometry.hexgrid import DIRECTIONS, Sheet, SheetedFormat, offset_to_axial
from pbem.core.record import Record
from pbem.rulesets.base import built_but_for_position, own_position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

DATA = Path(__file__).resolve().parent / "data"
PARTS = ("map", "terrain", "crt", "oob", "untried", "schedule", "directives", "victory")
SIDES = ("axis", "soviet")
CLASSES = ("mech", "infantry", "mountain")
TERRAIN_NAMES = {".": "clear", "l": "light-woods", "h": "heavy-woods", "r": "rough", "m": "mountain"}
NOT_LAND = frozenset("~ox")
WATER_NAMES = {"~": "sea", "o": "lake", "x": "off-limits"}
BLOCKED = -1          # a step no unit may take


# The bundled scenario: its data files, strictly parsed, and the digest of that data, which
# tests/test_dos_data.py checks against the schema (see pbem.core.bundled). After an edit of
# data/, that test gives the new digest to put here.
BUNDLED = Bundled("dos", DATA, PARTS, "dos-scenario.schema.json",
                  checked="65d498e29c0afb0b1ffd93e48ff4a1d731c167a18a71d1770e98c0e3d8372485")
CHECKED_DATA = BUNDLED.checked
load_historical = BUNDLED.load
data_digest = BUNDLED.digest
validate = BUNDLED.validate


def other(side: str) -> str:
    return "soviet" if side == "axis" else "axis"


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


def _getter(keys: tuple) -> Callable[[dict], tuple]:
    """The values of `keys` in a dict, as a tuple in that order."""
    if len(keys) == 1:
        return lambda d: (d[keys[0]],)
    return itemgetter(*keys) if keys else (lambda d: ())


class Unit(Record):
    """The fixed attributes of a counter (3.31, data/oob.yaml)."""

    id: str
    side: str
    name: str
    kind: str               # the type in oob.yaml
    nation: str             # german, italian, hungarian, rumanian, slovak, soviet
    arm: str                # infantry, mech, cavalry, hq, truck, air
    mountain: bool          # mountain troops (10.33, 10.34, 8.13)
    steps: tuple            # strength of each step, full first (Soviet: (attack, defense) pairs)
    untried: str | None     # the pool of its hidden side (13.0)
    ma: int
    leadership: int         # HQs (11.1)
    air_points: int         # air units (3.33)
    air_range: int          # air units (14.14)
    division: str | None    # German Panzer / Panzergrenadier regiments (7.2)
    setup: str | None       # set-up zone (5.21, 5.31-5.35)
    turn: int | None        # arrival Game-Turn (15.5)
    by: str | None          # arrives only by a Hitler Directive (16.7, 16.8)
    group: str | None       # Soviet group (5.2, 15.3)
    map: str | None         # map section of an air army's arrival
    # what its arm makes of it, read at every turn of the rules, so worked out once: every Unit
    # is made with `**Unit.roles(arm)` (Scenario, its one maker), and none is changed after
    combat: bool            # for stacking and steps (7.1, 9.6): not HQ, truck, air
    hq: bool
    air: bool
    truck: bool

    @staticmethod
    def roles(arm: str) -> dict[str, bool]:
        """The four fields an arm decides."""
        return {"combat": arm in ("infantry", "mech", "cavalry"), "hq": arm == "hq", "air": arm == "air",
                "truck": arm == "truck"}

    @property
    def move_class(self) -> str:
        """10.11, 10.33, 11.21: mechanized and cavalry pay as `mech`, HQs as infantry."""
        if self.arm in ("mech", "cavalry", "truck"):
            return "mech"
        return "mountain" if self.mountain else "infantry"

    @property
    def mech_phase(self) -> bool:
        """4.2, 6.0, 11.21: who moves in the Mechanized/Cavalry Movement Phase."""
        return self.arm in ("mech", "cavalry", "truck", "hq")

    @property
    def motorised(self) -> bool:
        """10.34: mechanized and cavalry units cannot attack into mountains."""
        return self.arm in ("mech", "cavalry")

    @property
    def step_count(self) -> int:
        if self.untried:
            return 1
        if self.hq:
            return 1
        return len(self.steps)


class City(Record):
    name: str
    cls: str                # major, minor
    hexes: tuple[str, ...]
    vp: int
    bonus_turn: int | None
    volga: bool             # a hex of it has a Volga hexside (10.28, 12.15)


class _Rows(dict):
    """A table of rows, hex index -> row, each made when first read: read it as `table[a]`
    only. A dict for speed, it refuses what a dict of the rows read so far would answer
    wrongly for the whole table (`get`, `in`, `len`, iteration, a negative index). What makes
    the rows holds the scenario's tables, not the scenario (which keeps the table): no
    reference cycle."""

    __slots__ = ("make", "kept")
    get = __contains__ = __iter__ = __len__ = keys = values = items = None   # type: ignore[assignment]

    def __init__(self, make: Callable[[int], tuple], kept: bool = False):
        super().__init__()
        self.make = make
        self.kept = kept    # the cache keeps its rows (Scenario.__getstate__ fills them first)

    def __missing__(self, a: int) -> tuple:
        if a < 0:
            raise IndexError(f"hex index {a}: a table of rows is read by hex index, 0 and up")
        row = self[a] = self.make(a)
        return row

    def __reduce__(self) -> tuple:   # the cache keeps a table empty, or with its rows if `kept`
        if not self.kept:
            return _Rows, (self.make,)
        return _Rows, (self.make, True), None, None, iter(dict.items(self))


def _step_row(nb: tuple, special: frozenset, plain: tuple, enter: tuple, extra: Mapping[str, int],
              kinds: Mapping[tuple[int, int], str], rail_nb: tuple, mountain: tuple | None, a: int) -> tuple:
    """Hex a's steps (Scenario.steps); `mountain` for mechanized units only, which take no
    rail step into a mountain hex."""
    if a not in special:       # most hexes: no river, lake or rail hexside
        return tuple([plain[b] for b in nb[a]])
    rail = rail_nb[a]
    row = []
    for b in nb[a]:
        kind = kinds.get((a, b))
        c = enter[b]
        flag = 0
        if kind is not None:
            if kind == "lake":
                c = BLOCKED
            else:
                if c != BLOCKED:
                    c += extra[kind]
                flag = VOLGA if kind == "volga" else (DON if kind == "don" else 0)
        if b in rail and kind != "volga" and kind != "lake" and not (mountain and mountain[b]):
            flag |= RAIL
        row.append((b, c, flag))
    return tuple(row)


def _lowland_row(zoc_nb: tuple, mountain: tuple, a: int) -> tuple:
    """Hex a's neighbours in `zoc_nb` that are not mountain hexes (Scenario.zoc_nb_lowland)."""
    return tuple([b for b in zoc_nb[a] if not mountain[b]])


def _back_row(nb: tuple, special: frozenset, enter: tuple, steps: _Rows, b: int) -> tuple:
    """The steps into hex b (Scenario.back): from a neighbour of no river, lake or rail
    hexside, the price of b with no flag; from another, its step into b."""
    row = []
    price = enter[b]
    for a in nb[b]:
        if a in special:
            for to, c, flag in steps[a]:
                if to == b:
                    if c != BLOCKED:
                        row.append((a, c, flag))
                    break
        elif price != BLOCKED:
            row.append((a, price, 0))
    return tuple(row)


class Scenario:
    """The world of one scenario document and options, built once and never changed."""

    def __init__(self, doc: dict, options: dict):
        validate(doc)
        m, t = doc["map"], doc["terrain"]
        self.options: Mapping[str, Any] = _frozen(dict(sorted(options.items())))

        # --- the grid (3.1): two sheets joined; only land hexes are part of the playing area
        sheets = [Sheet(s["prefix"], tuple(s["hexrows"]), tuple(s["positions"]), (s["shift"], 0)) for s in m["sheets"]]
        self.format = SheetedFormat(m["layout"], m["digits"], sheets)
        codes: dict[str, str] = {}
        for name, row in m["hexrows"].items():
            for pos, code in enumerate(row, start=1):
                codes[f"{name}{pos:02d}"] = code
        land = sorted(h for h, c in codes.items() if c not in NOT_LAND)
        # sea, lake and off-limits hexes: outside the playing area, drawn on the picture only
        self.water: Mapping[str, str] = _frozen({h: WATER_NAMES[c] for h, c in sorted(codes.items()) if c in NOT_LAND})
        shift = {sh.prefix: sh.shift[0] for sh in sheets}
        self.ids: tuple[str, ...] = tuple(land)
        self.idx: Mapping[str, int] = _frozen({h: i for i, h in enumerate(self.ids)})
        self.hexes = frozenset(self.ids)
        n = len(self.ids)
        self.terrain_of: tuple[str, ...] = tuple(TERRAIN_NAMES[codes[h]] for h in self.ids)
        self.mountain: tuple[bool, ...] = tuple(tr == "mountain" for tr in self.terrain_of)
        self.mountain_hexes: tuple[int, ...] = tuple(i for i, m in enumerate(self.mountain) if m)
        self.row: tuple[int, ...] = tuple(int(h[1:3]) + shift[h[0]] for h in self.ids)     # hexrow of the joined grid
        self.pos: tuple[int, ...] = tuple(int(h[3:5]) for h in self.ids)
        self.sheet: tuple[str, ...] = tuple(h[0] for h in self.ids)
        # east-west coordinate in half hexes: odd hexrows sit half a hex further east (even-q)
        self.x2: tuple[int, ...] = tuple(2 * self.pos[i] - (self.row[i] % 2) for i in range(n))
        # axial coordinates as plain pairs (q, r), which the cache reads back faster than Hexes
        self.axial: tuple[tuple[int, int], ...] = tuple(
            tuple(offset_to_axial(self.row[i], self.pos[i], m["layout"])) for i in range(n))
        at = {a: i for i, a in enumerate(self.axial)}

        def around(q: int, r: int) -> tuple[int, ...]:
            found = [at.get((q + dq, r + dr)) for dq, dr in DIRECTIONS]
            return tuple(sorted([j for j in found if j is not None]))
        self.nb: tuple[tuple[int, ...], ...] = tuple(around(q, r) for q, r in self.axial)

        # --- hexsides (10.2): rivers by kind, the Voronezh-Don system, all-lake hexsides
        side_kind: dict[tuple[int, int], str] = {}
        system: set[tuple[int, int]] = set()
        self.river_name: dict[tuple[int, int], str] = {}
        for r in m["rivers"]:
            for key in r["hexsides"]:
                ab = self._pair(key)
                if ab is None:
                    continue
                side_kind[ab] = side_kind[ab[::-1]] = r["kind"]
                self.river_name[ab] = self.river_name[ab[::-1]] = r["name"]
                if r["name"] in ("Don", "Voronezh"):
                    system.add(ab)
                    system.add(ab[::-1])
        for lake in m["lakes"]:
            for key in lake["hexsides"]:
                ab = self._pair(key)
                if ab is not None:
                    side_kind[ab] = side_kind[ab[::-1]] = "lake"
        self.side_kind: Mapping[tuple[int, int], str] = _frozen(side_kind)
        self.don_system = frozenset(system)
        self.don_hex = frozenset(a for (a, b), k in side_kind.items() if k == "don")      # 10.23 errata
        self.volga_hex = frozenset(a for (a, b), k in side_kind.items() if k == "volga")  # 19.17

        # 8.11, 10.25: ZOC does not cross the Don, the Volga or lake/sea hexsides
        self._river_set = frozenset(a for a, b in side_kind)        # hexes with a river or lake hexside
        self.zoc_nb: tuple[tuple[int, ...], ...] = tuple(
            tuple(j for j in self.nb[i] if side_kind.get((i, j)) not in ("don", "volga", "lake"))
            if i in self._river_set else self.nb[i] for i in range(n))
        # 8.13 (errata): the ZOC of a hex without mountain troops stops short of mountain hexes
        # (each row worked out when first read, as the steps are)
        self.zoc_nb_lowland = _Rows(functools.partial(_lowland_row, self.zoc_nb, self.mountain))

        # --- cities (10.4, 19.2) and the rail net (6.3, 10.4)
        vp = {c["name"]: c for c in doc["victory"]["cities"]}
        names = [c["name"] for c in m["cities"]]
        for k, c in enumerate(m["cities"]):   # given twice, a city would count its VP twice (a probe)
            if c["name"] in names[:k] or set(c["hexes"]) & {h for e in m["cities"][:k] for h in e["hexes"]}:
                raise ValueError(f"dos scenario: map.cities[{k}]: {c['name']} is given twice, or shares a hex with a "
                                 f"city before it")
            for h in c["hexes"]:
                if h not in self.idx:
                    raise ValueError(f"dos scenario: map.cities[{k}]: {h} is not a land hex of the playing area")
        unknown = sorted(set(vp) - set(names))
        if unknown:
            raise ValueError(f"dos scenario: victory.cities: {unknown[0]} is no city of the map")
        cities = []
        for c in m["cities"]:
            v = vp.get(c["name"], {})
            hexes = tuple(c["hexes"])
            volga = any(self.idx[h] in self.volga_hex for h in hexes if h in self.idx)
            cities.append(City(c["name"], c["class"], hexes, v.get("vp", 0), v.get("bonus_turn"), volga))
        self.cities: tuple[City, ...] = tuple(cities)
        self.city_of: Mapping[int, City] = _frozen({self.idx[h]: c for c in cities for h in c.hexes})
        self.city_by_name: Mapping[str, City] = _frozen({c.name: c for c in cities})
        self.city_hex_ids = frozenset(h for c in cities for h in c.hexes)
        self.vp_cities: tuple[City, ...] = tuple(c for c in cities if c.vp)
        rail_nb: dict[int, set[int]] = {}
        for k, line in enumerate(m["rail"]):
            for a, b in zip(line, line[1:]):
                ia, ib = self._land(a, f"map.rail[{k}]"), self._land(b, f"map.rail[{k}]")
                if ib not in self.nb[ia]:
                    raise ValueError(f"dos scenario: rail hexes {a} and {b} are not neighbours")
                rail_nb.setdefault(ia, set()).add(ib)
                rail_nb.setdefault(ib, set()).add(ia)
        self.rail_hex = frozenset(set(rail_nb) | set(self.city_of))                      # 10.4, 6.36
        self.rail_hexes: tuple[int, ...] = tuple(sorted(self.rail_hex))
        # each hex's rail neighbours, sorted as `nb` (a tuple, which the cache reads back faster
        # than a set)
        self.rail_nb: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(rail_nb.get(i, ()))) for i in range(n))
        links: dict[int, dict[int, int]] = {}
        for k, link in enumerate(m["rail_links"]):
            a, b = (self._land(h, f"map.rail_links[{k}]") for h in link["hexes"])
            links.setdefault(a, {})[b] = link["cost"]
            links.setdefault(b, {})[a] = link["cost"]
        self.rail_links: Mapping[int, Mapping[int, int]] = _frozen({a: _frozen(v) for a, v in sorted(links.items())})
        self.rail_next: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted(set(self.rail_nb[i]) | set(links.get(i, ())))) for i in range(n))

        # --- map edges (15.1, 15.3, 12.15, 17.11, 19.22)
        edges = m["edges"]
        self.edge: Mapping[str, frozenset[int]] = _frozen({
            "north": frozenset(i for i, h in enumerate(self.ids)
                               if h[0] == edges["north"]["sheet"] and int(h[1:3]) == edges["north"]["hexrow"]),
            "south": frozenset(i for i, h in enumerate(self.ids)
                               if h[0] == edges["south"]["sheet"] and int(h[1:3]) == edges["south"]["hexrow"]),
            "east": frozenset(i for i, h in enumerate(self.ids) if int(h[3:5]) == edges["east"]["position"]),
            "west": frozenset(i for i, h in enumerate(self.ids) if int(h[3:5]) == edges["west"]["position"]),
        })

        # 15.3: where a Soviet reinforcement may enter, by its map section (11.5: an HQ either):
        # rail hexes on the north, east or south edge, and the cities (all rail hexes, 10.42)
        far = self.edge["north"] | self.edge["east"] | self.edge["south"]
        entry = {}
        for section, prefixes in (("north", "N"), ("south", "S"), ("any", "NS")):
            rail = sorted(i for i in self.rail_hex if self.ids[i][0] in prefixes)
            entry[section] = (tuple(i for i in rail if i not in self.city_of and i in far),
                              tuple(i for i in rail if i in self.city_of))
        self.soviet_entry: Mapping[str, tuple[tuple[int, ...], tuple[int, ...]]] = _frozen(entry)

        # --- the 28 June 1942 front line and the ground it divides (5.22, 5.36, 10.44)
        self.front: tuple[int, ...] = tuple(self._land(h, "map.front_line") for h in m["front_line"])
        self.front_set = frozenset(self.front)
        self.axis_start = self._flood({self.idx["N2154"]}, lambda a, b: b not in self.front_set)
        # 10.44: who holds each rail and city hex at the start (1 = that side)
        self.start_friendly: Mapping[str, bytes] = _frozen({
            "axis": bytes(1 if (i in self.rail_hex and i in self.axis_start) else 0 for i in range(n)),
            "soviet": bytes(1 if (i in self.rail_hex and i not in self.axis_start) else 0 for i in range(n))})
        # 5.1: who holds each city at the start (19.21: Voronezh by its two hexes)
        start = {}
        for c in self.vp_cities:
            hexes = doc["victory"]["special"]["voronezh"]["hexes"] if c.name == "Voronezh" else c.hexes
            sides = {"axis" if self._land(h, "victory.special.voronezh.hexes") in self.axis_start else "soviet"
                     for h in hexes}
            start[c.name] = sides.pop() if len(sides) == 1 else None
        self.city_start: Mapping[str, str | None] = _frozen(start)
        self.hexrow_label: tuple[str, ...] = tuple(h[:3] for h in self.ids)
        self.hexrow_n: tuple[int, ...] = tuple(int(h[1:3]) if h[0] == "N" else 0 for h in self.ids)  # north sheet row

        # --- 16.31: across the Don (east of the Voronezh-Don system, north sheet hexrows 01-27)
        def east_step(a: int, b: int) -> bool:
            return (a, b) not in self.don_system and 1 <= self.hexrow_n[b] <= 27
        seeds = {i for i in self.edge["east"] if 1 <= self.hexrow_n[i] <= 27}
        self.across_don = self._flood(seeds, east_step)
        # 18.21: the east-bank hexes on a Don or Voronezh hexside, north edge to hexrow N27
        self.don_line: tuple[int, ...] = tuple(sorted(
            i for i in self.across_don if any((i, j) in self.don_system for j in self.nb[i])))
        # 18.22: the hexes west of the Don in those hexrows
        west_seeds = {i for i in self.edge["west"] if 1 <= self.hexrow_n[i] <= 27}
        self.west_of_don = self._flood(west_seeds, lambda a, b: (a, b) not in self.don_system
                                       and 1 <= self.hexrow_n[b] <= 27)
        self.accel_hexes = frozenset(self.idx[h] for h in ("N0139", "N0840", "N1340"))   # 15.41

        # --- the price of every step (10.1-10.5): static part per side and movement class
        tt = t["terrain"]
        hs = t["hexsides"]
        self._enter = {cls: tuple((tt[self.terrain_of[i]]["movement"][cls] if tt[self.terrain_of[i]]["movement"][cls]
                                   is not None else BLOCKED) for i in range(n)) for cls in CLASSES}
        self._extra = {side: {k: hs[k]["movement"][side] for k in ("minor", "don", "volga")} for side in SIDES}
        self.interdiction_extra: int = t["interdiction"]["movement_extra"]
        self.interdicted_rail_cost: int = t["interdiction"]["rail_cost"]
        self._steps: dict[tuple[str, str], _Rows] = {}
        self._back: dict[str, _Rows] = {}
        self._plain: dict[str, tuple] = {}
        # the hexes whose steps are not simply the prices of the hexes entered: a river, lake or
        # rail hexside
        self._special_rows = frozenset(a for a in range(n) if self.rail_nb[a] or a in self._river_set)
        # the terrain of the hex and a Major city are two bonuses (10.47, 10.52), kept apart
        self.defence_of: tuple[int, ...] = tuple(tt[self.terrain_of[i]]["defence"] for i in range(n))
        self.major_city_defence: int = t["cities"]["major"]["defence"]
        self.mountain_vs_mountain: int = tt["mountain"]["defence_against_mountain_troops"]
        self.river_defence: Mapping[str, int] = _frozen({k: hs[k]["defence"] for k in ("minor", "don")})
        self.max_defence: int = t["max_defence_multiplier"]

        # --- combat results (9.5)
        crt = doc["crt"]
        self.crt_columns: tuple[str, ...] = tuple(crt["columns"])
        self.crt: Mapping[int, tuple[str, ...]] = _frozen({int(k): tuple(r["results"]) for k, r in crt["rows"].items()})

        # --- units (3.31, 20.0)
        oob = doc["oob"]
        types = oob["types"]
        units: dict[str, Unit] = {}
        for side in SIDES:
            for u in oob["units"][side]:
                if u["id"] in units:
                    raise ValueError(f"dos scenario: unit id {u['id']} appears twice in the order of battle")
                if u["type"] not in types:
                    raise ValueError(f"dos scenario: oob.units.{side}: unit {u['id']} is of type {u['type']!r}, which "
                                     f"oob.types does not define")
                ty = types[u["type"]]
                nation = u.get("nation", ty["nation"])    # a probe: an Axis unit of a Soviet HQ type
                if ty["side"] != side or (nation == "soviet") != (side == "soviet"):
                    raise ValueError(f"dos scenario: oob.units.{side}: unit {u['id']} is of type {u['type']!r} "
                                     f"({ty['side']}) and nation {nation}, not of {side}'s types and nations")
                steps_ = tuple(tuple(s) if isinstance(s, list) else s for s in ty.get("steps", []))
                units[u["id"]] = Unit(
                    id=u["id"], side=side, name=u["name"], kind=u["type"], nation=u.get("nation", ty["nation"]),
                    arm=ty["arm"], mountain=bool(ty.get("mountain", False)), steps=steps_, untried=ty.get("untried"),
                    ma=ty["ma"], leadership=u.get("leadership", ty.get("leadership", 0)),
                    air_points=ty.get("air_points", 0), air_range=ty.get("range", 0), division=u.get("division"),
                    setup=u.get("setup"), turn=u.get("turn"), by=u.get("by"), group=u.get("group"), map=u.get("map"),
                    **Unit.roles(ty["arm"]))
        self.units: Mapping[str, Unit] = _frozen(dict(sorted(units.items())))
        self.unit_ids: tuple[str, ...] = tuple(self.units)
        # each hex and unit id by itself, the very objects the tables above are keyed by (the
        # cache's pickle keeps them one object): what `share_strings` gives the rules
        self._own: dict[str, str] = {s: s for s in (*self.ids, *self.unit_ids)}
        self.side_of: Mapping[str, str] = _frozen({uid: u.side for uid, u in self.units.items()})
        self.side_units: Mapping[str, tuple[str, ...]] = _frozen(
            {side: tuple(uid for uid, u in self.units.items() if u.side == side) for side in SIDES})
        self._places = {side: _getter(self.side_units[side] if side else self.unit_ids) for side in (None,) + SIDES}
        # the units that hold ground: combat units and HQs, what can be attacked (9.21, 17.12) and
        # what exerts a ZOC (8.12), never trucks or air units; the mountain troops among them (8.13)
        self.ground_units = frozenset(uid for uid, u in self.units.items() if u.combat or u.hq)
        self.mountain_units = frozenset(uid for uid in self.ground_units if self.units[uid].mountain)
        self.air_units: Mapping[str, tuple[str, ...]] = _frozen(
            {side: tuple(uid for uid in self.side_units[side] if self.units[uid].air) for side in SIDES})
        self.hq_units: Mapping[str, tuple[str, ...]] = _frozen(
            {side: tuple(uid for uid in self.side_units[side] if self.units[uid].hq) for side in SIDES})
        self.truck_units: tuple[str, ...] = tuple(uid for uid in self.unit_ids if self.units[uid].truck)   # in id order
        divisions: dict[str, list[str]] = {}
        for uid, u in self.units.items():
            if u.division:
                divisions.setdefault(u.division, []).append(uid)
        self.divisions: Mapping[str, tuple[str, ...]] = _frozen({d: tuple(sorted(v)) for d, v in sorted(divisions.items())})
        self.groups: Mapping[str, tuple[str, ...]] = _frozen({
            g: tuple(uid for uid, u in self.units.items() if u.group == g)
            for g in ("rifle", "cavalry", "guards", "mech", "hq")})
        pools: dict[str, tuple[tuple[Any, int], ...]] = {}
        for name, entries in doc["untried"]["pools"].items():
            pools[name] = tuple((tuple(e["strength"]) if isinstance(e["strength"], list) else e["strength"], e["count"])
                                for e in entries)
            kinds = [u for u in self.units.values() if u.untried == name]
            if sum(c for _, c in pools[name]) != len(kinds):
                raise ValueError(f"dos scenario: untried pool {name} has {sum(c for _, c in pools[name])} counters "
                                 f"for {len(kinds)} units")
        self.pools: Mapping[str, tuple] = _frozen(pools)
        for uid, u in self.units.items():
            if u.untried and u.untried not in pools:
                raise ValueError(f"dos scenario: unit {uid} draws from unknown untried pool {u.untried}")

        # --- the track (15.5), directives (16.x), victory (19.x)
        sched = doc["schedule"]
        self.last_turn: int = sched["last_turn"]
        self.dates: tuple[str, ...] = tuple(sched["dates"]["turns"])
        if len(self.dates) < self.last_turn:   # the record track names every Game-Turn (a probe: turn 3 broke play)
            raise ValueError(f"dos scenario: schedule.dates.turns: {len(self.dates)} dates for {self.last_turn} "
                             f"Game-Turns")
        self.withdrawals: tuple[dict, ...] = tuple(sched["axis"]["withdrawals"])
        self.returns: tuple[dict, ...] = tuple(sched["axis"]["returns"])
        self.soviet_track: Mapping[int, Mapping[str, tuple[int, int]]] = _frozen({
            int(k): _frozen({g: tuple(v[g]) for g in sched["soviet"]["groups"] if g in v})
            for k, v in sched["soviet"]["turns"].items()})
        self.initial: Mapping[str, Any] = _frozen(dict(sched["soviet"]["initial"]))
        d = doc["directives"]
        self.directive_columns: tuple[tuple[int, int, int], ...] = tuple(
            (c["vp"][0], c["vp"][1], c["bonus"]) for c in d["table"]["columns"])
        self.directive_rows: Mapping[int, tuple[str, ...]] = _frozen(
            {r["adjusted"]: tuple(r["letters"]) for r in d["table"]["rows"]})
        self.directive_contents: Mapping[str, Mapping] = _frozen(
            {k: _frozen(dict(v, cities=_frozen(dict(v["cities"])))) for k, v in d["contents"].items()})
        self.eleventh_army: Mapping[str, Any] = _frozen(dict(d["eleventh_army"]))
        self.extra_trucks: Mapping[str, Any] = _frozen(dict(d["extra_trucks"]))
        v = doc["victory"]
        self.start_vp: Mapping[str, int] = _frozen({"axis": v["start"]["axis"], "soviet": v["start"]["soviet"]})
        self.auto_ratio: int = v["automatic"]["ratio"]
        self.voronezh_counts: tuple[str, ...] = tuple(v["special"]["voronezh"]["hexes"])
        self.astrakhan: Mapping[str, Any] = _frozen(dict(v["special"]["astrakhan"]))
        self.volga_vp: int = v["volga_vp"]["axis"]

        # --- a given starting position (README.md), read by setup.initial
        self.position: dict | None = own_position(doc)

    # --- helpers -----------------------------------------------------------------------------------

    def _land(self, h: str, where: str) -> int:
        """The index of hex `h`, which the document's entry `where` names: a land hex of the
        playing area, or the document is refused naming the entry (a probe of crafted
        scenarios: a rail line or front line through the sea broke the set-up)."""
        i = self.idx.get(h)
        if i is None:
            raise ValueError(f"dos scenario: {where}: {h} is not a land hex of the playing area")
        return i

    def _pair(self, key: str) -> tuple[int, int] | None:
        a, _, b = key.partition("/")
        ia, ib = self.idx.get(a), self.idx.get(b)
        if ia is None or ib is None or ib not in self.nb[ia]:
            return None
        return ia, ib

    def _flood(self, seeds: set[int], ok) -> frozenset[int]:
        seen = set(seeds)
        todo = sorted(seeds)
        while todo:
            a = todo.pop()
            for b in self.nb[a]:
                if b not in seen and ok(a, b):
                    seen.add(b)
                    todo.append(b)
        return frozenset(seen)

    def steps(self, side: str, cls: str) -> _Rows:
        """For each hex, its steps (b, cost, flags) for a unit of `side` and movement class `cls`
        (10.1-10.5): the cost of the hex entered plus the hexside; BLOCKED where no unit may go;
        flags VOLGA, DON, RAIL (a railroad joins the two hexes, 10.43). Each hex's steps are
        worked out when first read: a command reads a few hundred of the 3,998 rows of most
        tables (a busy Axis player-turn reads 24 of infantry's)."""
        table = self._steps.get((side, cls))
        if table is None:
            plain = self._plain.get(cls)       # for each hex, the step into it at its price: both sides'
            if plain is None:
                plain = self._plain[cls] = tuple([(b, c, 0) for b, c in enumerate(self._enter[cls])])
            table = self._steps[(side, cls)] = _Rows(functools.partial(
                _step_row, self.nb, self._special_rows, plain, self._enter[cls], self._extra[side], self.side_kind,
                self.rail_nb, self.mountain if cls == "mech" else None))
        return table

    def back(self, side: str) -> _Rows:
        """For each hex b, the steps (a, cost a->b, flags) of a mechanized unit of `side` into
        it, from each neighbour a in order: supply lines traced backwards from the sources
        (12.14). Worked out when first read, as `steps`."""
        table = self._back.get(side)
        if table is None:
            table = self._back[side] = _Rows(functools.partial(
                _back_row, self.nb, self._special_rows, self._enter["mech"], self.steps(side, "mech")), kept=True)
        return table

    def __getstate__(self) -> dict:
        """What the cache of built scenarios keeps (core/cache.py): the scenario as built, and
        every row of both sides' `back` tables, worked out here (about 40 ms, once per cache
        entry). Nearly every command traces supply, which reads most of them: a busy Axis
        player-turn worked out some 4,000 rows, about 20 ms; loading them all costs a few. Equal
        rows, and equal steps within them, are one object each, which the pickle keeps once: the
        8,000 rows hold 45,000 steps, of which 7,000 differ, and the tables load in less than
        half the time."""
        for side in SIDES:
            table = self.back(side)
            for b in range(len(self.ids)):
                table[b]
        steps: dict[tuple, tuple] = {}
        rows: dict[tuple, tuple] = {}
        for side in SIDES:
            table = self._back[side]
            for b in range(len(self.ids)):
                row = tuple([steps.setdefault(step, step) for step in dict.__getitem__(table, b)])
                dict.__setitem__(table, b, rows.setdefault(row, row))
        return self.__dict__

    def share_strings(self, rules: dict) -> None:
        """Ruleset.share_strings: the units' ids and hexes in the rules become the scenario's
        own strings (equal, so no value changes). `places`, which every board view's key reads
        (some 700 times in a busy packet), then finds each unit by the dict's own key, and a view
        kept for an equal key compares each place by identity."""
        own = self._own
        rules["units"] = {own.get(uid, uid): own.get(where, where) for uid, where in rules["units"].items()}

    def places(self, units: dict, side: str | None = None) -> tuple:
        """Where each unit (of `side`, or every unit) is, in unit id order: `units` of the rules."""
        return self._places[side](units)

    def __contains__(self, h: object) -> bool:
        return h in self.idx

    def adjacent(self, a: int, b: int) -> bool:
        return b in self.nb[a]      # at most six neighbours

    def distance(self, a: int, b: int) -> int:
        (qa, ra), (qb, rb) = self.axial[a], self.axial[b]
        dq, dr = qa - qb, ra - rb
        return max(abs(dq), abs(dr), abs(dq + dr))

    def east_of(self, a: int, b: int) -> bool:
        """18.11 (errata): b lies to the east, north-east or south-east of neighbour a."""
        return self.x2[b] < self.x2[a]

    def crossing(self, a: int, b: int) -> str | None:
        """The river or lake of the hexside between neighbours a and b: minor, don, volga, lake."""
        return self.side_kind.get((a, b))


VOLGA = 1     # step flags: across a Volga hexside (10.26)
DON = 2       # across a Don hexside (10.23)
RAIL = 4      # along a railroad: costs 1 into a Friendly-controlled hex (10.43)


def build(doc: dict, options: dict) -> Scenario:
    """The scenario object of a document and options (Ruleset.scenario). Of a document with a
    starting position, the position is its own and the rest is shared with the object of an
    equal document, but for its position, built before (`built_but_for_position`)."""
    return built_but_for_position(Scenario, validate, doc, options)
