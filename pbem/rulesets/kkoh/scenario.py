"""The scenario: the bundled documents, their check, and the scenario object built from them.

A kkoh scenario document has these parts (schemas/kkoh-scenario.schema.json):

    tables     the rebuilt tables of the rulebook (data/tables.yaml)
    armies     the army lists the forces are drawn from (data/armies.yaml)
    map        the table: its size, area features by square, linear features by edge,
               roads by edge, objectives, and `open_terrain` (K-INT-3)
    sides      per side (blue, red): its name, army list, commander-in-chief, special
               effects bought (K-SFX), aircraft (K-AIR)
    commands   the command markers: level, superior, quality and mobility (from a list row),
               the square each starts in
    formations the battalions and battlegroups (K-MOR: each is a morale body) and their HQ
    units      every unit (piece) on the table: its list row (and a carrier's row for
               infantry in transports), formation, attachment, the artillery level it works
               at, and where it stands (square, cell, facing, order chit, group, losses,
               mounted or limbered)
    victory    the house rules of the scenario: game length, objectives, scoring (the book
               sets none, K-PRE-3)
    position   (optional) where play starts, for cases and refereed positions: turn, Action
               Phase and step, initiative, In Command state, markers

`Scenario(doc, options)` turns it, once per process, into everything the genesis fixes: the
table with its neighbours, terrain and roads worked out per square and edge, the tables, the
fixed attributes of every piece in each of its modes (`Profile`), the command tree, the
morale bodies with their starting strength. The core caches it; nothing changes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

from pbem.core.bundled import data_file
from pbem.core.geometry.squaregrid import Interior, SquareMap
from pbem.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping

DATA = Path(__file__).resolve().parent / "data"
SIDES = ("blue", "red")
LEVELS = ("division", "brigade", "regiment", "battalion")   # of command markers, the highest first
QUALITY = ("S", "A", "I")
CLASS_RANK = {"L": 1, "M": 2, "H": 3}
INSIDE = Interior(3)
SPEED = {"foot": 0, "guns": 0, "motorised": 1, "mechanised": 2, "recce": 3}   # slowest first (K-GG-6)
ARTILLERY_TYPES = ("fd-arty", "aa-arty", "at-arty", "atgw")


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def load_historical() -> dict:
    """The bundled scenario (README "The bundled scenario"): its own file plus the tables and
    army lists it plays with."""
    doc = data_file(DATA / "scenario-pz-brigade.yaml", "kkoh/data/scenario-pz-brigade.yaml")
    doc["tables"] = data_file(DATA / "tables.yaml", "kkoh/data/tables.yaml")
    doc["armies"] = data_file(DATA / "armies.yaml", "kkoh/data/armies.yaml")
    return doc


def validate(doc: dict) -> None:
    from pbem.core import schema

    problems = schema.errors(schema.load("kkoh-scenario.schema.json"), doc)
    if problems:
        raise ValueError(f"kkoh scenario: {problems[0]}")
    _check_tables(doc["tables"], data_file(DATA / "tables.yaml", "kkoh/data/tables.yaml"), "tables")


# The words of a table that are the reader's, not the engine's: what a corrected table may say
# differently (the raw lines quoted, the reading adopted, the basis of a reconstructed value).
_TABLE_PROSE = ("raw", "reading", "rule", "note", "reconstructed", "blocks_basis", "battery_basis")
TABLE_NUMBERS = (-50, 50)   # a corrected cell stays within these (the printed ones lie in -6 to 20)


def _check_tables(tables: dict, printed: dict, where: str) -> None:
    """A scenario's tables are the printed ones (data/tables.yaml), each cell correctable by a
    player who owns the rules (its header says so), not re-shaped: the same entries, lists of
    the same length, the same words, a number where a number is, within TABLE_NUMBERS; terrain
    features as the schema has them (a map may bring its own). A probe of crafted scenarios: a
    range of 1,000,000 hung `pbem orders`, a range "far", an empty initiative table or order
    list broke the game in play."""
    if where == "tables.terrain":
        return
    if isinstance(printed, dict):
        if not isinstance(tables, dict):
            raise ValueError(f"kkoh scenario: {where}: a table of entries, as the printed table is")
        keys = set(printed) - set(_TABLE_PROSE)
        missing, extra = sorted(keys - set(tables)), sorted(set(tables) - keys - set(_TABLE_PROSE))
        if missing or extra:
            raise ValueError(f"kkoh scenario: {where}: " + (f"entry {missing[0]!r} is missing" if missing else
                                                            f"entry {extra[0]!r} is no entry of the printed table")
                             + " (a scenario corrects the printed tables' values, not their shape)")
        for key in sorted(keys):
            _check_tables(tables[key], printed[key], f"{where}.{key}")
    elif isinstance(printed, list):
        if not isinstance(tables, list) or len(tables) != len(printed):
            raise ValueError(f"kkoh scenario: {where}: a list of {len(printed)}, as the printed table has")
        for n, (mine, theirs) in enumerate(zip(tables, printed)):
            _check_tables(mine, theirs, f"{where}[{n}]")
    elif isinstance(printed, bool) or isinstance(printed, str):
        if tables != printed:
            raise ValueError(f"kkoh scenario: {where}: {json.dumps(tables)}, where the printed table has "
                             f"{json.dumps(printed)} (a scenario corrects the tables' numbers)")
    elif _fixed(where):
        if tables != printed:
            raise ValueError(f"kkoh scenario: {where}: {json.dumps(tables)}, where the printed table has "
                             f"{json.dumps(printed)} (the table's columns, bands and phases are not corrected)")
    else:   # a number, or none (no limit) where the printed table has none
        low, high = TABLE_NUMBERS
        if printed is None and tables is None:
            return
        if type(tables) is not int or not low <= tables <= high:
            raise ValueError(f"kkoh scenario: {where}: {json.dumps(tables)} is not a whole number from {low} to "
                             f"{high}" + (" (or null, no limit, as printed)" if printed is None else ""))


def _fixed(where: str) -> bool:
    """The numbers that shape a table rather than fill it: the Result Table's column labels, the
    counter-battery bands' limits, the phase aircraft arrive in (a review: any other value broke
    play)."""
    return (where.startswith("tables.results.columns") or where == "tables.air.arrival_phase"
            or (where.startswith("tables.counter_battery.results[") and where.endswith((".from", ".to"))))


# --- fixed attributes ---------------------------------------------------------------------

class Profile(Record):
    """What a piece is in one of its modes (a pair mounted or dismounted, a towed gun
    limbered or deployed): everything fire, assault and movement read."""

    vehicle: bool                 # on or in vehicles (minelets, terrain limits for vehicles)
    armour: str | None            # armour class L/M/H of an armoured vehicle (K-TNK-1)
    ia: bool                      # improved armour (K-TNK-2)
    df: str | None                # Direct Fire class L/M/H, None if it cannot fire (K-DF-4, K-INF-1)
    ir: bool                      # improved ranging (K-TNK-2)
    heavy_atgw: bool              # fires at two squares (K-ART-3)
    mortar: bool                  # no Direct Fire at vehicles (K-DF-4)
    target: str                   # class when fired at (K-DF-6, K-INF-1)
    vulnerable: bool              # unarmoured vehicle, limbered horse-drawn gun, cavalry (K-GM-11)
    infantry: str | None          # GI / RI / MI of the infantry present or aboard (K-INF-2)
    artillery: bool               # an artillery unit in this mode (K-CAF-1 "solely artillery")
    unlimbered: bool              # deployed artillery (K-ATR-1, K-MOV-4)
    move: str                     # mechanised, motorised, recce, foot or guns (K-MOV-4)
    assault: bool                 # may attack in a Close Assault (K-CA-2)


class Piece(Record):
    """The fixed attributes of a unit on the table: one base, a company or squadron with its
    organic sub-units (K-INT-1, K-TRP-1), of one battalion or battlegroup (K-TRP-5); an infantry
    unit and its transports are one piece (K-INF-6), a towed gun and its prime movers one
    (K-ART-7)."""

    id: str
    side: str
    name: str
    row: str                      # army list row
    carrier: str | None           # the transport's row for infantry in transports
    quality: str                  # S, A, I (K-TRP-6)
    kind: str                     # the list type: armour, atgw, infantry, transport, fd-arty, aa-arty, at-arty
    formation: str                # its battalion or battlegroup (K-BG-2, K-MOR-1)
    hq: str                       # the command marker it answers to (its formation's, or the one it is attached to)
    attached: bool                # attached from elsewhere (K-DOC-1/2, K-MOR-2)
    doctrine: str                 # nato or soviet (K-DOC)
    self_ordering: bool           # specialist reconnaissance (K-REC-3)
    recce: bool                   # specialist reconnaissance (K-REC-1)
    aifv: bool                    # carried by (or is) an AIFV (K-INF-8)
    reduced: bool                 # fielded at half strength (K-TRP-3)
    modes: Mapping[str, Profile]  # "normal", or "mounted"/"dismounted", or "limbered"/"deployed"
    if_class: str | None          # Indirect Fire class L/M/H (field artillery, K-IF-2)
    if_range: int | None
    rocket: bool                  # K-ART-6
    sp: bool                      # self-propelled (K-DF-4, K-IF-4)
    towed: bool
    level: str | None             # battery, bn-bde or div-corps (K-IF-5, K-PRE-1)
    aa_range: int | None          # air defence range (K-AIR-6)
    cost: int                     # points (K-PTS)
    fielded_losses: int = 0       # the loss marker it is deployed with (a unit entry's `losses`, K-MOR-2)

    @property
    def points(self) -> int:
        """Strength points with no loss marker (K-TRP-2): 2; 1 for a unit fielded at half
        strength (K-TRP-3). What it has left is this less its loss markers (`Board.points_left`)."""
        return 1 if self.reduced else 2

    @property
    def start_points(self) -> int:
        """What it counts in its formation's starting strength (K-MOR-2: "2 points per
        full-strength unit, 1 per unit fielded with a loss, added up when the battle day
        begins"): its strength points as deployed, so 1 for a unit fielded at half strength
        and 1 for a unit deployed with a loss marker; a loss it was deployed with is not a loss
        of the battle day (README "Scenario and state")."""
        return self.points - self.fielded_losses

    @property
    def paired(self) -> bool:
        return "mounted" in self.modes

    @property
    def is_towed(self) -> bool:
        return "limbered" in self.modes


class Command(Record):
    """A command marker (K-CMK-1): not a unit; it never shoots nor is shot at (K-CMK-3), counts
    for no stacking and carries no order chit (K-CMK-6)."""

    id: str
    side: str
    name: str
    level: str                    # division, brigade, regiment, battalion
    superior: str | None
    doctrine: str
    quality: str
    move: str                     # mobility class (K-CMK-2)
    vehicle: bool
    cost: int


class Feature(Record):
    """An area or linear terrain feature (K-TER)."""

    name: str
    sight: bool = False           # blocks line of sight
    high: bool = False            # a ridge
    ca_defence: int = 0           # the Close Assault factor against its defenders
    ca_for: str = "all"           # all, upslope, foot
    vehicles: str = "yes"         # yes, road, no, one-phase
    infantry: str = "yes"         # yes, no, one-phase
    roads: str | None = None      # "all": a road to every face (built-up areas)


class Scenario:
    """Everything the genesis fixes (DESIGN §2.4): never changed, never stored."""

    def __init__(self, doc: dict, options: dict):
        validate(doc)
        self.doc = doc
        self.options = MappingProxyType(dict(options))
        self.tables = doc["tables"]
        m = doc["map"]
        # K-BTF-1, K-INT-1: rows and columns of 1 km squares, fixed for the game
        self.grid = SquareMap.rectangle(range(m["columns"]), range(m["rows"]))
        self.open_terrain = bool(m.get("open_terrain", False))
        self.features = {name: Feature(name, **spec) for name, spec in self.tables["terrain"]["area"].items()}
        self.linear = {name: Feature(name, **spec) for name, spec in self.tables["terrain"]["linear"].items()}
        column = self.tables["terrain"].get("road_column")
        if type(column) is not int or not 1 <= column <= 6:   # K-TER-5: vehicles in a column on a road
            raise ValueError(f"kkoh scenario: tables.terrain.road_column: {json.dumps(column)} is not a whole number "
                             "from 1 to 6 (K-TER-5)")
        if "open" not in self.features:   # every square without a feature is open ground (K-TER-1)
            raise ValueError("kkoh scenario: tables.terrain.area: the feature \"open\" is missing, which every square "
                             "without a feature of its own is (K-TER-1)")
        # K-TER-1, K-BTF-2, K-BTF-3: area features fill a square (every square without one is open
        # ground, of no effect), linear features lie along edges, roads cross edges (K-TER-3)
        area = dict(m.get("area") or {})
        for square_id in area:
            self._square(square_id, "map.area")
            if area[square_id] not in self.features:
                raise ValueError(f"kkoh scenario: map.area.{square_id}: unknown area feature {area[square_id]!r}")
        self.area: Mapping[str, Feature] = MappingProxyType(
            {s: self.features[area.get(s, "open")] for s in self.grid.ids})
        self.edges: Mapping[str, Feature] = MappingProxyType({self._edge(k, "map.edges"): self.linear[v]
                                                              for k, v in sorted((m.get("edges") or {}).items())})
        unknown = sorted(v for v in (m.get("edges") or {}).values() if v not in self.linear)
        if unknown:
            raise ValueError(f"kkoh scenario: map.edges: unknown linear feature {unknown[0]!r}")
        roads = {self._edge(k, "map.roads") for k in m.get("roads") or []}
        for s in self.grid.ids:   # K-TER-6: a built-up area has a road to every face
            if self.area[s].roads == "all":
                roads.update(self.grid.edge_key(s, n) for n in self.grid.neighbours(s))
        self.roads = frozenset(roads)
        self.neighbours = MappingProxyType({s: tuple(self.grid.neighbours(s, diagonal=True)) for s in self.grid.ids})
        self.faces = MappingProxyType({s: tuple(self.grid.neighbours(s)) for s in self.grid.ids})   # through an edge
        # K-MOV-2, K-MOV-8: each one-square step, with the on-table squares at the corner a
        # diagonal step passes (none for a step through an edge)
        self.steps = MappingProxyType({
            (a, b): tuple(c for c in self.grid.corner_squares(a, b) if c in self.grid)
            if self.grid.orthogonal_distance(a, b) == 2 else ()
            for a in self.grid.ids for b in self.neighbours[a]})
        self.objectives = tuple(m.get("objectives") or ())
        for s in self.objectives:
            self._square(s, "map.objectives")
        self.turn_track = self.tables["turn_track"]["turns"]

        self.side_info = MappingProxyType({side: doc["sides"][side] for side in SIDES})
        rows = {}
        for list_id, army in doc["armies"]["lists"].items():
            for row in army["rows"]:
                if (list_id, row["id"]) in rows:    # the last would silently win over the first (a probe)
                    raise ValueError(f"kkoh scenario: armies.lists.{list_id}: row {row['id']!r} is given twice")
                rows[(list_id, row["id"])] = (row, army["doctrine"])
        self._rows = rows
        self.commands = self._commands(doc)
        self.formations = self._formations(doc)
        self.pieces = self._pieces(doc)
        self.piece_ids = tuple(sorted(self.pieces))
        self.command_ids = tuple(sorted(self.commands))
        self.side_pieces = MappingProxyType({side: tuple(p for p in self.piece_ids if self.pieces[p].side == side)
                                             for side in SIDES})
        self.subordinates = self._subordinates()
        # K-MOR-2: each body's strength points as deployed (a unit deployed with a loss counts 1)
        self.morale_start = MappingProxyType({f: sum(self.pieces[p].start_points for p in self.body(f))
                                              for f in sorted(self.formations)})
        air_ids = [a["id"] for side in SIDES for a in doc["sides"][side].get("air") or []]
        for aid in air_ids:     # one id would stand for two aircraft, or for an aircraft and a unit (a probe)
            if air_ids.count(aid) > 1 or aid in self.pieces or aid in self.commands:
                raise ValueError(f"kkoh scenario: sides: the aircraft id {aid!r} is given twice, or to a unit or marker")
        self.air = MappingProxyType({a["id"]: dict(a, side=side) for side in SIDES
                                     for a in doc["sides"][side].get("air") or []})
        self.specials = MappingProxyType({side: MappingProxyType(dict(doc["sides"][side].get("specials") or {}))
                                          for side in SIDES})
        maxima = self.tables["specials"]
        for side in SIDES:
            for name, count in self.specials[side].items():
                if count > maxima[name]["max"]:
                    raise ValueError(f"kkoh scenario: sides.{side}.specials.{name}: {count} is more than the "
                                     f"{maxima[name]['max']} the rules allow (K-SFX)")
        self.victory = doc["victory"]              # house rules of the scenario (K-PRE-3)
        self.last_turn = self.victory["turns"]     # at most the 20 of the turn track (K-REF-1, K-REF-2)
        self.position = doc.get("position")
        # answers that depend only on the scenario (terrain of a step, the movement table of a
        # phase, a battalion's arm), remembered as they are first asked: they never change
        self.memo: dict = {}
        self._check_doctrine()
        self._check_position()

    # --- document checks ------------------------------------------------------------------

    def _square(self, square_id: str, where: str) -> str:
        if square_id not in self.grid:
            raise ValueError(f"kkoh scenario: {where}: {square_id!r} is not a square of the table")
        return square_id

    def _edge(self, key: str, where: str) -> str:
        try:
            a, b = self.grid.parse_edge(key)
        except ValueError as exc:
            raise ValueError(f"kkoh scenario: {where}: {exc}") from None
        self._square(a, where)
        self._square(b, where)
        return key

    def _row(self, side: str, row_id: str, where: str) -> tuple[dict, str]:
        army = self.doc["sides"][side]["army"]
        found = self._rows.get((army, row_id))
        if found is None:
            raise ValueError(f"kkoh scenario: {where}: {row_id!r} is not a row of army list {army!r}")
        return found

    def _commands(self, doc: dict) -> Mapping[str, Command]:
        out = {}
        for entry in doc["commands"]:
            if entry["id"] in out:     # the second would silently stand for the first (a probe)
                raise ValueError(f"kkoh scenario: commands: {entry['id']!r} is given twice")
            self._square(entry["square"], f"commands.{entry['id']}")
            row, doctrine = self._row(entry["side"], entry["row"], f"commands.{entry['id']}")
            if row["type"] != "command":
                raise ValueError(f"kkoh scenario: commands.{entry['id']}: row {row['id']!r} is not a command marker")
            from . import points
            out[entry["id"]] = Command(entry["id"], entry["side"], entry.get("name", row["unit"]), entry["level"],
                                       entry.get("superior"), doctrine, row["quality"], row["mobility"],
                                       row["mobility"] != "infantry",
                                       points.list_cost(row, self.tables["points"], doctrine))
        for c in out.values():
            if c.superior is not None and (c.superior not in out or out[c.superior].side != c.side):
                raise ValueError(f"kkoh scenario: commands.{c.id}: superior {c.superior!r} is not a marker of its side")
            if c.superior is not None and LEVELS.index(out[c.superior].level) >= LEVELS.index(c.level):
                raise ValueError(f"kkoh scenario: commands.{c.id}: a {c.level} marker under {c.superior}, a "
                                 f"{out[c.superior].level}: a superior is of a higher level ({', '.join(LEVELS)}; K-CMD)")
        for side in SIDES:
            top = [c for c in out.values() if c.side == side and c.superior is None]
            chief = doc["sides"][side]["commander"]
            if chief not in out or out[chief].superior is not None or out[chief].side != side:
                raise ValueError(f"kkoh scenario: sides.{side}.commander: {chief!r} must be a marker of that side "
                                 "with no superior (the commander-in-chief, K-INI-1)")
            if len(top) != 1:
                raise ValueError(f"kkoh scenario: {side} must have exactly one command marker without a superior")
        # each superior of a higher level than its marker, every chain of superiors ends, at the
        # one top marker of its side: the attachment checks walk them (a chain that looped, two
        # markers each the other's superior, made them run for ever: a probe)
        return MappingProxyType(out)

    def _formations(self, doc: dict) -> Mapping[str, dict]:
        out = {}
        for fid, entry in sorted(doc["formations"].items()):
            if entry["hq"] not in self.commands:
                raise ValueError(f"kkoh scenario: formations.{fid}: hq {entry['hq']!r} is not a command marker")
            out[fid] = MappingProxyType(dict(entry, side=self.commands[entry["hq"]].side))
        return MappingProxyType(out)

    def _profile(self, row: dict, mode: str) -> Profile:
        kind = row["type"]
        armour = row.get("armour")
        gun, missile = row.get("gun"), row.get("missile")
        weapons = [c for c in (gun, missile) if c]
        cls = max(weapons, key=CLASS_RANK.get) if weapons else None
        mobility = row["mobility"]
        vehicle = mobility != "infantry" and kind != "infantry"
        # K-DF-4, K-ART-4, K-ART-5, K-INF-1, K-TNK-1: who may use Direct Fire, with which class
        if kind in ("armour", "atgw", "at-arty"):
            df = cls
        elif kind == "aa-arty":
            df = gun                       # only gun-armed AA (K-ART-4)
        elif kind == "fd-arty":
            df = None if row.get("rocket") else gun
        elif kind == "infantry":
            df = row.get("atgw")           # K-INF-1: only infantry "additionally costed" with medium ATGW
        else:
            df = None
        if mode in ("limbered",):
            df = None                      # only unlimbered guns may shoot (K-ART-7)
        unarmoured_vehicle = vehicle and armour is None
        if kind == "infantry" or (mobility == "infantry" and armour is None) or mode == "deployed":
            target = "M"                   # men on the ground count as a Medium target (K-INF-1)
        else:
            target = armour or "L"
        move = {"recce": "recce", "mechanised": "mechanised", "motorised": "motorised", "infantry": "foot"}[mobility]
        if mode == "limbered":
            move = "motorised"             # K-ART-7: limbered towed guns move as Motorised
        if mode == "deployed":
            move = "guns"
        artillery = kind in ARTILLERY_TYPES       # K-ART-1: anti-tank (ATGW included), AA, field and rocket
        # K-CA-2, K-ART-2, K-ART-5: who may attack in a Close Assault
        assault = (kind == "armour" or kind == "infantry" or row["mobility"] == "recce"
                   or (kind == "fd-arty" and row.get("sp", False) and mobility == "mechanised" and armour is not None)
                   or (kind == "at-arty" and mobility == "mechanised" and armour is not None))
        if kind in ("armour", "transport") and not gun and not missile:
            assault = False                # a transport does not fight; the infantry aboard does (K-CA-10)
        return Profile(vehicle=vehicle and mode != "deployed", armour=armour if mode != "deployed" else None,
                       ia=bool(row.get("ia")), df=df, ir=bool(row.get("ir")),
                       heavy_atgw=row.get("atgw") == "H" and df == "H",
                       mortar=bool(row.get("mortar")), target=target,
                       vulnerable=unarmoured_vehicle and mode != "deployed",
                       infantry=row.get("infantry") if kind == "infantry" else None,
                       artillery=artillery, unlimbered=mode == "deployed",
                       move=move, assault=assault)

    def _pieces(self, doc: dict) -> Mapping[str, Piece]:
        from . import points

        out = {}
        table = self.tables["points"]
        for entry in doc["units"]:
            uid = entry["id"]
            if uid in out or uid in self.commands:
                raise ValueError(f"kkoh scenario: units: {uid!r} is given twice")
            side = entry["side"]
            row, doctrine = self._row(side, entry["row"], f"units.{uid}")
            if row["type"] == "command":
                raise ValueError(f"kkoh scenario: units.{uid}: a command marker is not a unit (K-CMK-1)")
            if row["type"] == "infantry" and (row.get("atgw", "M") != "M" or row.get("gun") or row.get("missile")):
                raise ValueError(f"kkoh scenario: units.{uid}: infantry fires only as costed with medium ATGWs "
                                 f"(`atgw: M`), never with a gun, a missile or a heavy ATGW (K-INF-1)")
            self._square(entry["square"], f"units.{uid}")
            formation = entry["formation"]
            if formation not in self.formations or self.formations[formation]["side"] != side:
                raise ValueError(f"kkoh scenario: units.{uid}: formation {formation!r} is not a formation of {side}")
            attached_to = entry.get("attached_to")
            if attached_to is not None and (attached_to not in self.commands or self.commands[attached_to].side != side):
                raise ValueError(f"kkoh scenario: units.{uid}: attached_to {attached_to!r} is not a marker of {side}")
            if attached_to is not None and attached_to == self.formations[formation]["hq"]:
                raise ValueError(f"kkoh scenario: units.{uid}: attached_to {attached_to!r} is the HQ of its own formation "
                                 f"{formation!r}: a unit is attached to another HQ (K-DOC-1, K-DOC-2)")
            hq = attached_to or self.formations[formation]["hq"]
            reduced = entry.get("reduced", row.get("reduced", False))
            cost = points.list_cost(row, table, doctrine, reduced_strength=reduced)   # the printed price (README "Army lists")
            carrier_id = entry.get("carrier")
            if carrier_id is not None:
                carrier, _ = self._row(side, carrier_id, f"units.{uid}.carrier")
                if row["type"] not in ("infantry", "aa-arty", "atgw") or row["mobility"] != "infantry":
                    raise ValueError(f"kkoh scenario: units.{uid}: only units on foot ride in transports (K-INF-3)")
                if carrier["type"] not in ("armour", "transport") or carrier.get("gun") is None and carrier["type"] == "armour" \
                        and carrier.get("armour") is None:
                    raise ValueError(f"kkoh scenario: units.{uid}: {carrier_id!r} is not a transport")
                foot = self._profile(row, "dismounted")
                aboard = self._profile(carrier, "mounted")
                # the infantry aboard fights with its transports (K-INF-7, K-CA-10)
                aboard = aboard._replace(infantry=foot.infantry, assault=foot.assault, artillery=foot.artillery)
                modes = {"mounted": aboard, "dismounted": foot}
                cost += points.list_cost(carrier, table, doctrine, reduced_strength=entry.get("reduced", carrier.get("reduced", False)))
                aifv = bool(carrier.get("aifv"))
            elif row.get("towed"):
                modes = {"limbered": self._profile(row, "limbered"), "deployed": self._profile(row, "deployed")}
                aifv = False
            else:
                modes = {"normal": self._profile(row, "normal")}
                aifv = bool(row.get("aifv"))
            # what an entry says of a unit fits the unit (a probe of crafted scenarios: each was taken and ignored)
            if "mounted" in entry and carrier_id is None:
                raise ValueError(f"kkoh scenario: units.{uid}: `mounted` is for infantry in transports (a `carrier`)")
            if "limbered" in entry and not row.get("towed"):
                raise ValueError(f"kkoh scenario: units.{uid}: `limbered` is for towed guns (K-ART-7)")
            if entry.get("losses") and reduced:
                raise ValueError(f"kkoh scenario: units.{uid}: a unit fielded reduced has one strength point, and no "
                                 f"loss to start with (K-TRP-2, K-TRP-3)")
            level = entry.get("level")
            if level is not None and row["type"] != "fd-arty":
                raise ValueError(f"kkoh scenario: units.{uid}: `level` is the level field artillery works at (K-IF-5)")
            if row["type"] == "fd-arty" and level is None:      # K-PRE-1
                raise ValueError(f"kkoh scenario: units.{uid}: field artillery needs the level it works at "
                                 "(battery, bn-bde or div-corps; K-IF-5, K-PRE-1)")
            weapon = row.get("gun") or row.get("missile")
            if_class = weapon if row["type"] == "fd-arty" else None
            if_range = None
            if if_class:
                if_range = row.get("range") or self.tables["artillery"]["ranges"][if_class]
            out[uid] = Piece(
                id=uid, side=side, name=entry.get("name", row["unit"]), row=row["id"], carrier=carrier_id,
                quality=entry.get("quality", row["quality"]), kind=row["type"], formation=formation, hq=hq,
                attached=attached_to is not None, doctrine=doctrine,
                self_ordering=bool(row.get("self_ordering")), recce=row["mobility"] == "recce", aifv=aifv,
                reduced=reduced, modes=MappingProxyType(modes), if_class=if_class, if_range=if_range,
                rocket=bool(row.get("rocket")), sp=bool(row.get("sp")), towed=bool(row.get("towed")),
                level=level, aa_range=row.get("range") if row["type"] == "aa-arty" else None, cost=cost,
                fielded_losses=entry.get("losses", 0))
        return MappingProxyType(out)

    def _subordinates(self) -> Mapping[str, tuple[str, ...]]:
        subs: dict[str, list[str]] = {c: [] for c in self.commands}
        for c in self.commands.values():
            if c.superior:
                subs[c.superior].append(c.id)
        return MappingProxyType({k: tuple(sorted(v)) for k, v in subs.items()})

    def _check_doctrine(self) -> None:
        """K-DOC-1: a NATO battalion takes in and gives away at most two units, within its parent
        brigade or regiment; K-DOC-1, K-DOC-2:
        "AA can never be attached", in either doctrine; K-DOC-2: a Soviet-style unit is attached
        only as `_soviet_attachment` allows."""
        given: dict[str, int] = {}
        taken: dict[str, int] = {}
        for uid in self.piece_ids:
            p = self.pieces[uid]
            if p.attached and p.kind == "aa-arty":
                raise ValueError(f"kkoh scenario: units.{p.id}: AA units are never attached to another unit "
                                 f"(K-DOC-1, K-DOC-2)")
            if p.doctrine == "soviet" and p.attached:
                why = self._soviet_attachment(p)
                if why:
                    raise ValueError(f"kkoh scenario: units.{p.id}: attached to {p.hq}, {why} (K-DOC-2)")
            if p.doctrine != "nato" or not p.attached or self._asset(p):
                continue      # an asset of the list "may be allocated to any HQ": no battalion gives it away
            home = self.formations[p.formation]["hq"]
            parent = self._parent(home)
            if parent is not None and self._parent(p.hq) != parent:
                raise ValueError(f"kkoh scenario: units.{p.id}: attached to {p.hq}, outside its parent {parent}: a NATO "
                                 "battalion forms its Battlegroup within the parent Brigade or Regiment (K-DOC-1)")
            if self.commands[home].level == "battalion":
                given[home] = given.get(home, 0) + 1
            if self.commands[p.hq].level == "battalion":
                taken[p.hq] = taken.get(p.hq, 0) + 1
        for hq, n in sorted(given.items()) + sorted(taken.items()):
            if n > 2:
                raise ValueError(f"kkoh scenario: battalion {hq} attaches or detaches {n} units; NATO doctrine allows "
                                 "two (K-DOC-1)")

    def _check_position(self) -> None:
        """A `position` (where play starts, for cases and refereed positions) names only what
        the scenario defines, and a turn of the game (a probe of crafted scenarios: unknown ids
        were taken as they came, or broke the set-up)."""
        pos = self.position or {}
        where = "position"

        def known(ids, field: str, kinds: str, *tables) -> None:
            for i in ids:
                if not any(i in table for table in tables):
                    raise ValueError(f"kkoh scenario: {where}.{field}: {i!r} is not {kinds} of the scenario")

        if pos.get("turn", 1) > self.last_turn:
            raise ValueError(f"kkoh scenario: {where}.turn: {pos['turn']} is after the last turn, {self.last_turn}")
        gone = pos.get("gone") or []
        if len(set(gone)) != len(gone):
            raise ValueError(f"kkoh scenario: {where}.gone: a unit is listed twice")
        known(gone, "gone", "a unit", self.pieces)
        known(pos.get("lost") or {}, "lost", "a command marker", self.commands)
        # losses the battle day has cost so far: a unit keeps a strength point (none left, it is
        # `gone`); a loss the unit was deployed with is its entry's `losses` (K-MOR-2)
        known(pos.get("losses") or {}, "losses", "a unit", self.pieces)
        for pid, n in sorted((pos.get("losses") or {}).items()):
            piece = self.pieces[pid]
            if pid in gone:
                raise ValueError(f"kkoh scenario: {where}.losses.{pid}: the unit is listed in `gone`, destroyed")
            if piece.start_points - n < 1:
                raise ValueError(f"kkoh scenario: {where}.losses.{pid}: {piece.start_points} strength point"
                                 f"{'s' if piece.start_points > 1 else ''} as deployed; a unit with none left is "
                                 f"destroyed, listed in `gone` (K-TRP-2)")
        known(pos.get("out_of_command") or [], "out_of_command", "a unit or command marker", self.pieces, self.commands)
        known(pos.get("held") or {}, "held", "an objective", self.objectives)
        known(pos.get("moved") or {}, "moved", "a unit", self.pieces)
        for pid, how in (pos.get("moved") or {}).items():
            if how not in ("vehicle", "foot"):
                raise ValueError(f"kkoh scenario: {where}.moved.{pid}: {json.dumps(how)} is not vehicle or foot")
        for aid, status in (pos.get("air") or {}).items():
            known([aid], "air", "an aircraft", self.air)
            if not isinstance(status, dict) or status.get("state") not in ("ready", "active", "gone") \
                    or not set(status) <= {"state", "turn", "sq"}:
                raise ValueError(f"kkoh scenario: {where}.air.{aid}: a state of ready, active or gone (with its turn "
                                 "and square when active)")
        for side, used in (pos.get("used") or {}).items():
            known([side], "used", "a side", SIDES)
            if not isinstance(used, dict) or any(name not in self.tables["specials"] and name != "air_support"
                                                 or type(n) is not int or n < 0 for name, n in used.items()):
                raise ValueError(f"kkoh scenario: {where}.used.{side}: the special effects a side has used, each a "
                                 "whole number")
        for n, minelet in enumerate(pos.get("minelets") or []):
            self._square(minelet["square"], f"{where}.minelets[{n}]")

    def _soviet_attachment(self, p: Piece) -> str | None:
        """Why Soviet doctrine does not let unit p answer to another HQ marker (K-DOC-2), or None.
        The text lets "infantry companies within a tank regiment" go "to any tank battalion
        HQ's" and does "the same for tank companies within an infantry regiment"; its army list
        lets "tanks in the Infantry Regiment" go to "any HQ in that Regiment" and says
        "Divisional assets must be allocated to any HQ marker". So: a unit of the division's own
        (of no regiment), or of a row the army list marks as an asset, goes to any marker of its
        side; an infantry company (`_infantry`: BMPs too) of a tank regiment to a tank battalion of
        that regiment; a tank company (`_tank`) of an infantry regiment to a battalion of that
        regiment; nothing else. A battalion is a tank or an infantry battalion by what most of its
        own companies are, a regiment by what most of its battalions are; a regiment with as many
        of each takes either rule."""
        home = self.formations[p.formation]["hq"]
        regiment = self._regiment(home)
        if regiment is None or self._asset(p):   # the division's own, or an asset of the list: any HQ
            return None
        if self._regiment(p.hq) != regiment:
            return f"outside its own regiment {regiment}"
        arm = self._arm(regiment)     # None where the battalions fielded tie: either rule may apply
        host = self.commands[p.hq]
        if arm in ("tank", None) and self._infantry(p):
            if host.level == "battalion" and self._arm(p.hq) == "tank":
                return None
            return f"but an infantry company of tank regiment {regiment} goes only to one of its tank battalions"
        if arm in ("infantry", None) and self._tank(p):
            if host.level == "battalion":
                return None
            return f"but a tank company of infantry regiment {regiment} goes only to one of its battalions"
        kind = {"tank": "a tank regiment", "infantry": "an infantry regiment"}.get(arm, "as many tank as infantry battalions")
        return (f"but of {regiment} ({kind}) only infantry companies of a tank regiment and tank companies of an "
                "infantry regiment are attached")

    def _asset(self, p: Piece) -> bool:
        """Whether the army list marks the unit's row as an asset of its brigade or division,
        which "may be allocated to any HQ" (NATO lists) or "must be allocated to any HQ
        marker" (the Soviet list)."""
        return bool(self._rows[(self.doc["sides"][p.side]["army"], p.row)][0].get("asset"))

    def _regiment(self, marker: str) -> str | None:
        """The regiment HQ marker at or above `marker`, or None."""
        return self._above(marker, ("regiment",))

    def _parent(self, marker: str) -> str | None:
        """The brigade or regiment HQ marker at or above `marker` (K-DOC-1: "the parent Brigade
        or Regiment"), or None (a unit of the division's own, which the text leaves free)."""
        return self._above(marker, ("brigade", "regiment"))

    def _above(self, marker: str, levels: tuple[str, ...]) -> str | None:
        at: str | None = marker
        while at is not None:
            if self.commands[at].level in levels:
                return at
            at = self.commands[at].superior
        return None

    @staticmethod
    def _tank(p: Piece) -> bool:
        """A tank company: a gun- or missile-armed armoured unit, not reconnaissance nor an
        infantry fighting vehicle (a BMP company is infantry, a review)."""
        return p.kind == "armour" and not p.recce and not p.aifv and any(m.df is not None for m in p.modes.values())

    @staticmethod
    def _infantry(p: Piece) -> bool:
        """An infantry company: infantry, or its fighting vehicles (a BMP company)."""
        return p.kind == "infantry" or (p.kind == "armour" and p.aifv)

    def _arm(self, marker: str) -> str | None:
        """"tank" or "infantry": what most of a battalion's own companies are, or most of a
        regiment's battalions; None where neither is more. Worked out once a marker (a review:
        hundreds of attachments made building a scenario ten times slower)."""
        key = ("arm", marker)
        if key not in self.memo:
            self.memo[key] = self._arm_of(marker)
        return self.memo[key]

    def _arm_of(self, marker: str) -> str | None:
        level = self.commands[marker].level
        if level == "battalion":
            own = [self.pieces[u] for u in self.piece_ids
                   if self.formations[self.pieces[u].formation]["hq"] == marker]
            tanks = sum(1 for q in own if self._tank(q))
            infantry = sum(1 for q in own if self._infantry(q))
        else:
            arms = [self._arm(b) for b in self.command_ids if self.commands[b].superior == marker
                    and self.commands[b].level == "battalion"]
            tanks, infantry = arms.count("tank"), arms.count("infantry")
        return "tank" if tanks > infantry else "infantry" if infantry > tanks else None

    # --- reading ----------------------------------------------------------------------------

    def body(self, formation: str) -> list[str]:
        """The pieces that count for a formation's morale (K-MOR-1/2): its own, "excluding
        attachments, transport and Command Markers" (markers are no pieces)."""
        return [p for p in self.piece_ids if self.pieces[p].formation == formation and not self.pieces[p].attached
                and self.pieces[p].kind != "transport"]

    def profile(self, pid: str, mode: str | None) -> Profile:
        modes = self.pieces[pid].modes
        return modes[mode] if mode else modes["normal"]

    def road(self, a: str, b: str) -> bool:
        return self.grid.edge_key(a, b) in self.roads

    def edge_feature(self, a: str, b: str) -> Feature | None:
        return self.edges.get(self.grid.edge_key(a, b))

    def range_df(self, heavy: bool) -> int:
        table = self.tables["direct_fire"]
        base = table["heavy_atgw_range"] if heavy else table["range"]
        return base * (table["open_terrain_multiplier"] if self.open_terrain else 1)

    def chief(self, side: str) -> str:
        return self.doc["sides"][side]["commander"]


def build(doc: dict, options: dict) -> Scenario:
    return Scenario(doc, options)
