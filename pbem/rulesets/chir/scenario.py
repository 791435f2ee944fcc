"""The scenario: the bundled data, its check, and the scenario object built from it.

The scenario document has five parts (map, terrain, crt, oob, victory: the files of
`data/`) and an optional `position` (see README.md). `Scenario(doc, options)` turns it,
once per process, into everything the genesis fixes: the board with its neighbours,
hexsides, step costs, set-up areas and rears worked out in advance, the tables, the fixed
attributes of every unit, the options, the victory parameters and the last turn. The core
caches it and every game with that document and options shares it, so nothing ever changes
it (its mappings are read-only views). The rules state (state.py) holds only what play
changes.
"""

from __future__ import annotations

import functools
from collections.abc import ItemsView, KeysView, Mapping, ValuesView
from pathlib import Path
from types import MappingProxyType

from pbem.core.bundled import Bundled
from pbem.core.canonical import LazyPattern
from pbem.core.geometry.hexgrid import HEXSIDE_SEPARATOR, HexIdFormat, HexMap
from pbem.core.record import Record
from pbem.rulesets.base import built_but_for_position, own_position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DATA = Path(__file__).resolve().parent / "data"
PARTS = ("map", "terrain", "crt", "oob", "victory")
SIDES = ("soviet", "german")
CLASSES = ("mot", "non")  # movement classes (8.3): motorised, non-motorised
SIZE_THIRDS = {"company": 1, "battalion": 3, "regiment": 9}  # 6.1: 3 companies = 1 battalion


# The bundled scenario: its data files, strictly parsed, and the digest of that data, which
# tests/test_chir_data.py checks against the schema (see pbem.core.bundled). After an edit of
# data/, that test gives the new digest to put here.
BUNDLED = Bundled("chir", DATA, PARTS, "chir-scenario.schema.json",
                  checked="fcd1f22acf5814e5445c44344036e0dfebebe7df007def98921ef193c69b43e0",
                  prepare=lambda schema: _inlined(schema))   # _inlined: below
CHECKED_DATA = BUNDLED.checked
load_historical = BUNDLED.load
data_digest = BUNDLED.digest
validate = BUNDLED.validate


def _inlined(schema: dict) -> dict:
    """The schema with each reference to its `$defs` replaced by the definition: the same
    checks, but a check of the document (every hex, every unit) resolves no reference, which
    halves its cost. The definitions refer to no reference cycle."""
    defs = schema.get("$defs", {})
    return {k: _inline(v, defs) for k, v in schema.items() if k != "$defs"}


def _inline(node: Any, defs: dict) -> Any:
    if isinstance(node, list):
        return [_inline(x, defs) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k != "$ref"}
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return dict(out, **({"$ref": ref} if ref is not None else {}))
    target = _inline(defs[ref[len("#/$defs/"):]], defs)
    return target if not out else {"allOf": [target], **out}


def other(side: str) -> str:
    return "german" if side == "soviet" else "soviet"


_NONE: frozenset[str] = frozenset()


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


class Rows(dict):
    """A read-only mapping of `keys` to rows, each row made when first read (`make(key)`) and
    kept: a scenario's table too large to build or load whole for the few rows a command
    reads. Reading a row by its key runs at a dict's speed; iterating, `len`, `in`, `get`,
    `|`, `reversed` and comparing see every key, as a mapping of all the rows would. Only
    what reads a dict's storage directly sees the rows made so far (json's encoder, which
    writes no scenario table). Pickled as its recipe. `key_set` is `keys` as a frozenset, which
    the tables of one scenario share (its hexes): a pickle keeps it once, loaded once for all."""

    __slots__ = ("_make", "_keys", "_key_set")

    def __init__(self, make: Any, keys: tuple, key_set: frozenset):
        super().__init__()
        self._make, self._keys, self._key_set = make, keys, key_set

    def __missing__(self, key: Any) -> Any:
        if key not in self._key_set:
            raise KeyError(key)
        row = self._make(key)
        dict.__setitem__(self, key, row)
        return row

    def __reduce__(self) -> tuple:
        return Rows, (self._make, self._keys, self._key_set)

    def __iter__(self) -> Any:
        return iter(self._keys)

    def __reversed__(self) -> Any:
        return reversed(self._keys)

    def __or__(self, other: Any) -> Any:
        return dict(self.items()) | other

    def __ror__(self, other: Any) -> Any:
        return other | dict(self.items())

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._key_set

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self._key_set else default

    def keys(self) -> Any:
        return KeysView(self)

    def items(self) -> Any:
        return ItemsView(self)

    def values(self) -> Any:
        return ValuesView(self)

    def copy(self) -> dict:
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Rows({dict(self.items())!r})"

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a scenario's table is read-only")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _read_only


def _step_row(neigh: Mapping, road_next: Mapping, river_name: dict, terrain: dict, base: str, prices: tuple,
              a: str) -> Mapping[str, int]:
    """8.3, 8.4: the price of each step from `a`, in half MP, for the movement class of
    `prices` (road, river, terrain entered): along a road the road's (a bridge cancels the
    river), else the terrain entered plus the river hexside (Scenario.cost)."""
    road, river_extra, entering = prices
    roads, rivers = road_next.get(a, ()), river_name[a]
    return _frozen({c: road if c in roads else entering[terrain.get(c, base)] + (river_extra if c in rivers else 0)
                    for c in neigh[a]})


def _dearer_row(mot: Mapping, non: Mapping, a: str) -> Mapping[str, int]:
    """The dearer of the motorised and non-motorised price of each step from `a` (Scenario.cost_max)."""
    mot_row, non_row = mot[a], non[a]
    return _frozen({c: max(mot_row[c], non_row[c]) for c in mot_row})


class Unit(Record):
    """The fixed attributes of a unit (2.x, `data/oob.yaml`)."""

    id: str
    side: str
    name: str
    aff: str                # affiliation: division colour (10.2), unit for stacking (6.1)
    army: str | None        # 6.2, 10.2
    arm: str                # arm of service (anti-aircraft: 3.2's exception)
    cls: str                # fire class: tank, infantry, anti-tank, artillery
    size: str               # company, battalion, regiment (6.x)
    full: int               # printed strength
    morale: int
    mp: int                 # movement allowance in whole MP
    mot: bool               # motorised (8.3)
    light: int              # red circles of a light tank (9.7.4)
    heavy: bool             # heavy tank (9.7.4)
    range: int | None       # artillery range (10.1)
    support: str | None     # whom artillery supports (10.2): any, own, 5TA
    sp: bool                # self-propelled gun (8.7)
    setup: str | None       # set-up group or placement (3.2, 3.3); None for a reinforcement
    entry_turn: int | None  # reinforcements (11.x): game turn and hex of entry
    entry_hex: str | None

    @property
    def move_class(self) -> str:
        return "mot" if self.mot else "non"

    @property
    def thirds(self) -> int:
        """Stacking size in thirds of a battalion (6.1)."""
        return SIZE_THIRDS.get(self.size, 3)

    @property
    def combat_arm(self) -> bool:
        """Armoured or infantry unit (7.2, 8.5.1, 9.1, 9.4.1)."""
        return self.cls in ("tank", "infantry")

    @property
    def front_infantry(self) -> bool:
        """3.2/3.3: infantry sets up on front hexes; anti-aircraft guns (blue frame) may also
        set up behind the front (3.2 exception)."""
        return self.cls == "infantry" and self.arm != "anti-aircraft"


def _unit(u: dict, side: str) -> Unit:
    setup = u.get("setup")
    entry = setup if isinstance(setup, dict) else None
    return Unit(
        id=u["id"], side=side, name=u["name"], aff=u["affiliation"], army=u.get("army"), arm=u["arm"],
        cls=u["class"], size=u["size"], full=u["strength"], morale=u["morale"], mp=u["movement"],
        mot=bool(u["motorised"]), light=int(u.get("light", 0) or 0), heavy=bool(u.get("heavy", False)),
        range=u.get("range"), support=u.get("support"), sp=bool(u.get("self_propelled", False)),
        setup=None if entry else setup, entry_turn=entry["turn"] if entry else None,
        entry_hex=entry["entry"] if entry else None)


class Place(Record):
    """A place of 4.2: its hexes and VP."""

    name: str
    hexes: tuple[str, ...]
    vp: int


_HEX = LazyPattern(r"[0-9]{4}\Z")
_NAMES = frozenset({"name", "id"})    # a unit's name or id may be four digits, a regiment's number (1116)
_HEXSIDE = LazyPattern(r"([0-9]{4})/([0-9]{4})\Z")


def _off_map(node: Any, hexes: frozenset[str], path: str = "map") -> tuple[str, str] | None:
    """The first hex or hexside a part of a scenario names (as a value, or as a key of the
    map's terrain) that is not on its map: (where, what); None if every one is. A set-up front
    or a place off the map was accepted, and the first picture of the board failed (a
    cheater's probe, and a review)."""
    if isinstance(node, str):
        side = _HEXSIDE.match(node)
        named = side.groups() if side else (node,) if _HEX.match(node) else ()
        return (path, node) if any(h not in hexes for h in named) else None
    if isinstance(node, dict):
        for key, value in node.items():
            if path == "map.hexes" and key not in hexes:
                return f"{path} (a key)", key
            if key in _NAMES:
                continue
            found = _off_map(value, hexes, f"{path}.{key}")
            if found:
                return found
    elif isinstance(node, list):
        for n, value in enumerate(node):
            found = _off_map(value, hexes, f"{path}[{n}]")
            if found:
                return found
    return None


class Scenario:
    """The world of one scenario document and options, built once and never changed.

    Board lookups take hex ids; every neighbour list, hexside, step cost, set-up area and
    rear is worked out here, so that a step of play costs only what its orders cause."""

    def __init__(self, doc: dict, options: dict):
        validate(doc)
        m, t, crt, v, oob = doc["map"], doc["terrain"], doc["crt"], doc["victory"], doc["oob"]
        self.options: Mapping[str, Any] = _frozen(dict(sorted(options.items())))

        # --- units (2.x)
        units: dict[str, Unit] = {}
        for side in ("german", "soviet"):
            for group in oob[side]:
                for u in group["units"]:
                    if u["id"] in units:
                        raise ValueError(f"chir scenario: unit id {u['id']} appears twice in the order of battle")
                    units[u["id"]] = _unit(u, side)
        self.units: Mapping[str, Unit] = _frozen(dict(sorted(units.items())))
        self.unit_ids: tuple[str, ...] = tuple(self.units)
        self.side_ids: Mapping[str, tuple[str, ...]] = _frozen(
            {side: tuple(uid for uid, u in self.units.items() if u.side == side) for side in ("german", "soviet")})
        self.side_of: Mapping[str, str] = _frozen({uid: u.side for uid, u in self.units.items()})
        # each side's units with what they weigh in a zone of control (7.0): armour, printed strength
        self.side_units: Mapping[str, tuple[tuple[str, bool, int], ...]] = _frozen(
            {side: tuple((uid, u.cls == "tank", u.full) for uid, u in self.units.items() if u.side == side)
             for side in ("german", "soviet")})
        self.field_divisions = frozenset(k for k, a in oob["affiliations"]["german"].items()
                                         if a.get("kind") == "field-division")
        # what move generation reads of every unit, looked up once: the movement class (8.3),
        # armour or infantry (8.5.1), and the unit's board.stack_load (6.x)
        self.move_class_of: Mapping[str, str] = _frozen({uid: u.move_class for uid, u in self.units.items()})
        self.combat_arms = frozenset(uid for uid, u in self.units.items() if u.combat_arm)
        self.unit_load: Mapping[str, tuple[int, frozenset[str], bool, frozenset[str | None]]] = _frozen(
            {uid: (u.thirds, frozenset(() if u.aff in self.field_divisions else (u.aff,)), u.size == "regiment",
                   frozenset((u.army,)))
             for uid, u in self.units.items()})

        # --- the board
        (c0, c1), (r0, r1) = m["bounds"]["columns"], m["bounds"]["rows"]
        self.grid = HexMap.rectangle(HexIdFormat(m["format"]["layout"], 2), range(c0, c1 + 1), range(r0, r1 + 1))
        self.ids: tuple[str, ...] = self.grid.ids
        self.hexes = frozenset(self.ids)
        off = next((found for part in ("map", "oob", "victory") if (found := _off_map(doc[part], self.hexes, part))),
                   None)
        if off is not None:
            raise ValueError(f"chir scenario: {off[0]} names {off[1]}, which is not on the map (hexes {self.ids[0]} to "
                             f"{self.ids[-1]})")
        self.hex_index: Mapping[str, int] = _frozen({h: i for i, h in enumerate(self.ids)})  # the order of ids
        self.neigh: Mapping[str, tuple[str, ...]] = _frozen(
            {h: tuple(sorted(self.grid.neighbours(h))) for h in self.ids})
        # each hex's printed (column, row) and axial coordinates, worked out when first read: a
        # command reads those of a few hundred hexes, and loading all 1,496 cost more
        self._offset: Mapping[str, tuple[int, int]] = Rows(self.grid.format.parse_offset, self.ids, self.hexes)
        self._axial: Mapping[str, tuple[int, int]] = Rows(self.grid.format.parse, self.ids, self.hexes)
        counts: dict[str, int] = {}
        for kind in m["hexes"].values():
            counts[kind] = counts.get(kind, 0) + 1
        base = max(sorted(counts), key=lambda k: counts[k])
        self._terrain = {h: k for h, k in m["hexes"].items() if k != base}
        self.base_terrain = base
        self.terrain_shift: Mapping[str, int] = _frozen(
            {k: e.get("defence_shift", 0) for k, e in sorted(t["terrain"].items())})
        self.edges: Mapping[str, Mapping] = _frozen({k: _frozen(dict(e)) for k, e in sorted(m["edges"].items())})

        # hexsides (8.3, 8.4, 9.10, 9.11.1): a key names the two neighbours it lies between,
        # lower id first (`HexMap.hexside`); a key that names no such pair lies on no step
        def pair(key: str) -> tuple[str, str] | None:
            a, _, b = key.partition(HEXSIDE_SEPARATOR)
            return (a, b) if a < b and b in self.neigh.get(a, ()) else None

        self._river_name: dict[str, dict[str, str]] = {h: {} for h in self.ids}  # a -> {b across a river: its name}
        for r in m["rivers"]:
            for key in r["hexsides"]:
                ab = pair(key)
                if ab:
                    self._river_name[ab[0]][ab[1]] = self._river_name[ab[1]][ab[0]] = r["name"]
        bridged: dict[str, set[str]] = {h: set() for h in self.ids}
        for bridge in m["bridges"]:
            ab = pair(bridge["hexside"])
            if ab:
                bridged[ab[0]].add(ab[1])
                bridged[ab[1]].add(ab[0])
        for n, r in enumerate(m["roads"]):
            for a, b in zip(r["hexes"], r["hexes"][1:]):
                try:
                    self.grid.hexside(a, b)  # consecutive road hexes must be neighbours
                except ValueError as exc:
                    raise ValueError(f"chir scenario: map.roads[{n}]: {exc}") from None
        # 9.10, 9.11.1: neighbours across a river without a bridge; most hexes have none, and
        # share one empty set, which a pickle keeps once
        self._unbridged = {a: frozenset(b for b in self._river_name[a] if b not in bridged[a]) or _NONE
                           for a in self.ids}
        road_next: dict[str, set[str]] = {}
        for r in m["roads"]:
            for x, y in zip(r["hexes"], r["hexes"][1:]):
                road_next.setdefault(x, set()).add(y)
                road_next.setdefault(y, set()).add(x)
        self.road_next: Mapping[str, tuple[str, ...]] = _frozen({h: tuple(sorted(s)) for h, s in sorted(road_next.items())})

        # 8.3, 8.4: the price of every step, by movement class, in half MP: the road cost
        # along a road (bridges cancel rivers), else the terrain entered plus the river hexside
        self.road_cost: Mapping[str, int] = _frozen({"mot": t["hexsides"]["road"]["movement"]["motorised"],
                                                     "non": t["hexsides"]["road"]["movement"]["non_motorised"]})
        river_cost = {"mot": t["hexsides"]["river"]["movement_extra"]["motorised"],
                      "non": t["hexsides"]["river"]["movement_extra"]["non_motorised"]}
        table = {k: {"mot": e["movement"]["motorised"], "non": e["movement"]["non_motorised"]}
                 for k, e in t["terrain"].items()}
        prices = {key: (self.road_cost[key], river_cost[key], {k: e[key] for k, e in sorted(table.items())})
                  for key in CLASSES}
        # cost[class][a][c]: each hex's row is worked out when first asked for (a command
        # meets a few hundred of the 1,500 hexes); kept whole, the tables were the largest
        # part of loading a built scenario. What makes a row holds the tables it reads, not the
        # scenario that holds the rows: no reference cycle
        self.cost: Mapping[str, Mapping[str, Mapping[str, int]]] = _frozen(
            {key: Rows(functools.partial(_step_row, self.neigh, self.road_next, self._river_name, self._terrain,
                                         self.base_terrain, prices[key]), self.ids, self.hexes) for key in CLASSES})
        # a stack of motorised and non-motorised units pays the dearer of the two (movement.destinations)
        self.cost_max: Mapping[str, Mapping[str, int]] = Rows(
            functools.partial(_dearer_row, self.cost["mot"], self.cost["non"]), self.ids, self.hexes)
        self.exit_cost: int = t["map_exit"]["cost"]
        self.river_shift: int = t["hexsides"]["river"]["all_attackers_across_shift"]

        # --- places, lines of communication, entry and exit (4.x, 11.x)
        self.exit = frozenset(e["hex"] for e in m["exit_hexes"])
        self.places: tuple[Place, ...] = tuple(Place(p["name"], tuple(p["hexes"]), p["vp"]) for p in v["places"]["list"])
        for n, place in enumerate(self.places):   # a place or hex given twice would count its VP twice (a probe)
            if any(place.name == q.name or set(place.hexes) & set(q.hexes) for q in self.places[:n]):
                raise ValueError(f"chir scenario: victory.places.list[{n}]: {place.name} is given twice, or shares a "
                                 f"hex with a place before it (4.1)")
        self.place_hexes = frozenset(h for p in self.places for h in p.hexes)
        loc = m["lines_of_communication"]["german"]
        self.loc_from: str = loc["from"]
        self.loc_edges: tuple[str, ...] = tuple(loc["to_edges"])
        self.loc_edge_hexes = frozenset(h for h in self.ids if any(self.on_edge(h, e) for e in self.loc_edges))
        self.exit_loc_to: tuple[str, ...] = tuple(v["exits"]["requires_line_to"])
        self.soviet_at_start = frozenset(m["control_at_start"]["soviet"])  # 3.3; every other hex German

        # --- set-up (3.x)
        setup = m["setup"]
        self.fronts: Mapping[str, Mapping[str, tuple[str, ...]]] = _frozen({
            "german": _frozen({g: tuple(f["front"]) for g, f in sorted(setup["german"].items())}),
            "soviet": _frozen({g: tuple(f["front"]) for g, f in sorted(setup["soviet"].items()) if "front" in f})})
        self.front_hexes: Mapping[str, frozenset[str]] = _frozen(
            {side: frozenset(h for f in self.fronts[side].values() for h in f) for side in ("german", "soviet")})
        self.cd_area: tuple[str, ...] = tuple(sorted(setup["soviet"].get("C,D", {}).get("area", [])))
        self.placements = tuple((tuple(p["hexes"]), p.get("radius", 0)) for p in setup.get("placements", []))
        self.red_star: tuple[str, ...] = tuple(sorted(setup.get("red_star", {}).get("hexes", [])))
        self.setup_hexes: Mapping[str, frozenset[str]] = _frozen(
            {side: self._setup_hexes(side) for side in ("german", "soviet")})
        self.rears: Mapping[tuple[str, str], frozenset[str]] = _frozen(
            {(side, g): self._rear(side, f) for side in ("german", "soviet") for g, f in self.fronts[side].items()})

        # --- combat tables (9.5-9.7)
        self.crt_columns: tuple[tuple[str, int, int | None], ...] = tuple(
            (c["label"], c["min"], c.get("max")) for c in crt["columns"])
        self.crt_results: Mapping[str, tuple[str, ...]] = _frozen({k: tuple(r) for k, r in sorted(crt["results"].items())})
        self.weapons: Mapping[str, Mapping[str, tuple[int, int]]] = _frozen(
            {k: _frozen({"tank": tuple(e["tank"]), "not_tank": tuple(e["not_tank"])})
             for k, e in sorted(crt["weapon_effects"].items()) if isinstance(e, dict)})
        ids = [shift["id"] for shift in crt["shifts"]]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:   # the last would silently stand for the first (a probe)
            raise ValueError(f"chir scenario: crt.shifts: the shift {twice[0]!r} is given twice")
        self.shifts: Mapping[str, int] = _frozen({s["id"]: s.get("shift", 0) for s in crt["shifts"]})

        # --- victory (4.x, 14.0)
        optional = v.get("optional", {}).get("conditions", [])
        self.victory: Mapping[str, Any] = _frozen({
            "lost_halves_per_point": v["strength_losses"]["lost_on_map_halves_per_point"],
            "elim_vp_per_point": v["strength_losses"]["eliminated_vp_per_point"],
            "loc_vp": v["line_of_communication"]["german_vp_if_cut"],
            "exit_vp_per_point": v["exits"]["soviet_vp_per_strength_point"],
            "levels": tuple((lv["min"], lv.get("max"), lv["name"]) for lv in v["levels"]["list"]),
            "multiplier": tuple(next((c["multiplier"] for c in optional if c["id"] == "never_soviet_city_multiplier"),
                                     [3, 2])),
            "never_cut_vp": next((c["german_vp_if_never_cut"] for c in optional if c["id"] == "line_never_cut"), 10),
        })
        self.last_turn: int = v["turns"]

        # --- a given starting position (README.md), read by setup.initial
        self.position: dict | None = own_position(doc)

    # --- board lookups -----------------------------------------------------------------------

    def __contains__(self, h: object) -> bool:
        return h in self.hexes

    def terrain(self, h: str) -> str:
        return self._terrain.get(h, self.base_terrain)

    def adjacent(self, a: str, b: str) -> bool:
        # at most six neighbours; a hex off the map by the map's arithmetic
        return b in self.neigh[a] if a in self.hexes else self.grid.adjacent(a, b)

    def is_river(self, a: str, b: str) -> bool:
        """Is the hexside between neighbours a and b a river hexside (bridged or not)?"""
        return b in self._river_name[a]

    def river_name(self, a: str, b: str) -> str:
        return self._river_name[a][b]

    def crossable(self, a: str, b: str) -> bool:
        """9.10, 9.11.1: a river hexside may be crossed in retreat or advance only by a bridge."""
        return b not in self._unbridged[a]

    def offset(self, h: str) -> tuple[int, int]:
        return self._offset[h] if h in self.hexes else self.grid.offset(h)

    def distance(self, a: str, b: str) -> int:
        if a not in self.hexes or b not in self.hexes:
            return self.grid.distance(a, b)
        pa, pb = self._axial[a], self._axial[b]
        dq, dr = pa[0] - pb[0], pa[1] - pb[1]
        return max(abs(dq), abs(dr), abs(dq + dr))

    def on_edge(self, h: str, edge: str) -> bool:
        spec = self.edges[edge]
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

    def start_control(self, h: str) -> str:
        """3.3: at the start 2832 is Soviet and every other hex German."""
        return "soviet" if h in self.soviet_at_start else "german"

    # --- set-up areas (3.2, 3.3) -------------------------------------------------------------

    def _setup_hexes(self, side: str) -> frozenset[str]:
        """The hexes 3.2/3.3 give a side's set-up: its fronts; for the Soviet side also the
        "C, D" area, the red-star hexes and the hexes of 3.3's placements (less German front
        hexes, where 3.3 puts no Soviet unit)."""
        out = set(self.front_hexes[side])
        if side == "soviet":
            out |= set(self.cd_area) | set(self.red_star)
            for hexes, radius in self.placements:
                for centre in hexes:
                    out |= set(self.grid.within(centre, radius))
            out -= self.front_hexes["german"]
        return frozenset(out)

    def _rear(self, side: str, front: tuple[str, ...]) -> frozenset[str]:
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
                    if nxt not in self.hexes or nxt in blocked or self.is_river(cur, nxt):
                        break
                    out.add(nxt)
                    cur, cc, rr = nxt, cc + dc, rr + dr
        return frozenset(out - set(front))

    def behind(self, h: str, side: str, group: str) -> bool:
        """Is h behind the front of `side`'s set-up group (3.2, 3.3)?"""
        return h in self.rears[(side, group)]

    def why_not_behind(self, h: str, side: str, group: str) -> str:
        """Why h is not behind the group's front: what stops the walk from the front hexes in
        line with it, the nearest first (a probe: a refusal named a front hex six columns away
        where one in line was next to h), or that no front hex is in line."""
        sign = -1 if side == "german" else 1
        c, r = self.offset(h)
        fmt = self.grid.format

        def away(f: str) -> tuple[int, str]:
            fc, fr = self.offset(f)
            return abs(c - fc) + abs(r - fr), f
        for f in sorted(self.fronts[side][group], key=away):
            fc, fr = self.offset(f)
            if fr == r and sign * (c - fc) > 0:
                line = [fmt.format_offset(x, r) for x in range(fc, c + sign, sign)]
            elif fc == c and sign * (r - fr) > 0:
                line = [fmt.format_offset(c, y) for y in range(fr, r + sign, sign)]
            else:
                continue
            for a, b in zip(line, line[1:]):
                if self.is_river(a, b):
                    return f"{h} is across the {self.river_name(a, b)} from {f}"
                if b in self.setup_hexes[other(side)] and b != h:
                    return f"the enemy's set-up hex {b} lies between {f} and {h}"
        towards = "south or west" if side == "german" else "north or east"
        return f"no hex of that front has {h} straight {towards} of it in its column or row"


def build(doc: dict, options: dict) -> Scenario:
    """The scenario object of a document and options (Ruleset.scenario). Of a document with a
    starting position, the position is its own and the rest is shared with the object of an
    equal document, but for its position, built before (`built_but_for_position`)."""
    return built_but_for_position(Scenario, validate, doc, options)
