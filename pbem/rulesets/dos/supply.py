"""Supply (12.0-12.5) and the HQ lines of communications (11.3, 11.47).

A Line of Supply is what a mechanized unit would pay to move to a Supply Source (12.14):
the terrain and hexsides of its side (10.6), 1 along a Friendly-controlled railroad (10.43,
10.48; for the Soviet player never along Axis-cleared rail, 6.44, nor rail retaken this
Game-Turn, 6.47), never into mountains (10.35: nor out of one, a unit there is never
supplied, 12.11), across lake or sea hexsides (10.29) or across the Volga except at a
Friendly city (10.28), never through enemy units or Enemy ZOC unless a friendly unit holds
the hex (12.11, 8.24); interdiction has no effect (14.46). At most 12 MP for Soviet HQs
(12.14), 14 for German units and Axis-allied HQs (12.21, 12.22).

A Line of Communications runs from a combat unit to an HQ of its nationality, no longer in
hexes than the HQ's Leadership Rating (12.12), through the same hexes a supply line may use:
it may leave the unit's mountain hex but never enter one, so an HQ in a mountain hex reaches
only the units of its own hex (10.35); a disrupted HQ coordinates nothing (6.64). Soviet,
Hungarian, Italian and Rumanian combat units are supplied only through a supplied HQ (11.31,
12.13, 12.21; 11.33: any supplied HQ of the nationality will do, 11.32: for any number of
units); German units (and the Slovakian division, trucks and German air units: readings in
README.md) trace directly (12.2). Sources (10.49): Soviet rail and Volga towns (12.15), Axis
rail west of the Front Line, cleared rail and truck railheads (12.23); none in a mountain hex
(10.35). 12.54: out of supply is a state for the phase, never a loss by itself.

`field` works out the supply of every unit of a side at once: one bucket search run back
from all the sources (the state of the board then is all it needs). `supplied` answers for
a few units at the instant of combat (12.0) with searches from the units that stop at the
first source; both follow the same steps and agree (tests/test_dos_supply.py).
"""

from __future__ import annotations

from .board import Board, control_key, memo, view
from .scenario import BLOCKED, RAIL, VOLGA, Scenario, other
from . import state as st

LENGTH = {"soviet": 12, "axis": 14}      # 12.14; 12.21, 12.22
DIRECT = ("german", "slovak")            # nationalities that trace supply straight to a source


def friendly_rail(sc: Scenario, control: dict, side: str) -> bytearray:
    """1 for each rail and city hex whose last unit was `side`'s (10.44, 10.45)."""
    out = bytearray(sc.start_friendly[side])
    mine = "a" if side == "axis" else "s"
    idx = sc.idx
    for h, entry in control.items():
        out[idx[h]] = 1 if entry[0] == mine else 0
    return out


def lines_of(sc: Scenario, rules: dict, side: str) -> "Lines":
    """The Lines of `side` on the rules as they stand (shared while they do not change)."""
    board = view(sc, rules)
    key = ("lines", side, control_key(rules), tuple(rules["cleared"]), rules["turn"])
    found = board.derived.get(key)
    if found is None:
        made = Lines(sc, rules, board, side, key)
        # boards that differ only where no line is concerned (a unit moved behind its own
        # lines, a combat's retreat and advance) give the same Lines: share one, and with it
        # the searches it has run (`within`, `near_source`); what Lines are is fixed by their
        # key and the hexes they block
        found = board.derived[key] = memo(sc, ("lines", id(sc), bytes(made.blocked)) + key, lambda: made)
    return found


class Lines:
    """What lines of supply and communication of one side may pass, on one board: a value
    built from the rules once and never changed."""

    def __init__(self, sc: Scenario, rules: dict, board: Board, side: str, key: tuple | None = None):
        self.sc, self.side = sc, side     # not the board: it keeps these Lines (no reference cycle)
        self._key = key         # what lines_of knows them by: side, control, cleared hexes, Game-Turn
        self.cleared = frozenset(rules["cleared"])
        self.control = dict(rules["control"])
        self.turn = rules["turn"]
        self._sources = None
        self._source_set: frozenset[int] | None = None
        self._near_source: dict[tuple[int, int], bool] = {}
        self._distances: dict[tuple, list[int]] = {}
        self._within: dict[tuple[int, int], dict[int, int]] = {}
        n = len(sc.ids)
        mine = board.side_hexes(side)
        enemy = board.side_hexes(other(side))
        ezoc = board.ezoc(side)
        blocked = bytearray(n)
        for i in ezoc - mine:
            blocked[i] = 1
        for i in enemy:         # 12.11: no line passes a hex holding enemy units, of any kind
            blocked[i] = 1
        self.blocked = blocked
        # Friendly rail: last unit there friendly (10.48); Friendly cities for the Volga (10.28)
        self.friendly = friendly_rail(sc, self.control, side)
        # the rail a line runs along at 1 MP (10.48, 12.14): Friendly rail, for the Soviet
        # player never Axis-cleared (6.44) nor retaken this Game-Turn (6.47) -- rail_usable
        self.rail = self.friendly if side == "axis" else self._soviet_rail(sc)

    def _soviet_rail(self, sc: Scenario) -> bytearray:
        # Friendly rail as it stands, but where a hex was cleared or changed hands (6.44, 6.47)
        rail = bytearray(self.friendly)
        for h in self.cleared | self.control.keys():
            i = sc.idx[h]
            rail[i] = self.rail_usable(i)
        return rail

    def passable(self, a: int, b: int, flag: int) -> bool:
        """May a line step from a into b (b not the start)?"""
        if self.blocked[b]:
            return False
        if flag & VOLGA:
            sc = self.sc
            return (a in sc.city_of and self.friendly[a]) or (b in sc.city_of and self.friendly[b])
        return True

    def cost(self, a: int, b: int, c: int, flag: int) -> int:
        """What the step a -> b (printed cost c) adds to a line (10.43, 10.48, 6.44, 6.47)."""
        return 1 if (flag & RAIL and self.rail[b]) else c

    # --- sources (12.15, 12.23, 12.3) ------------------------------------------------------------

    def rail_usable(self, i: int) -> bool:
        """6.44-6.47: may this side use rail hex i for rail movement and supply?"""
        sc = self.sc
        if not self.friendly[i]:
            return False
        h = sc.ids[i]
        cleared = h in self.cleared
        if self.side == "axis":
            return i in sc.axis_start or cleared
        if cleared:
            return False
        entry = self.control.get(h)
        return entry is None or int(entry[1:]) < self.turn

    def sources(self) -> list[int]:
        """The side's Supply Sources. They depend on control, the cleared hexes and the Game-Turn,
        and on the board only where a cleared hex is blocked (12.23): shared between the Lines of
        boards that differ in nothing else."""
        if self._sources is None:
            if self._key is None:
                self._sources = self._find_sources()
            else:
                sc = self.sc
                cut = tuple(self.blocked[sc.idx[h]] for h in self._key[3]) if self.side == "axis" else ()
                self._sources = memo(sc, ("sources", id(sc)) + self._key + (cut,), self._find_sources)
        return self._sources

    def source_set(self) -> frozenset[int]:
        """`sources`, as a set."""
        if self._source_set is None:
            self._source_set = frozenset(self.sources())
        return self._source_set

    def _find_sources(self) -> list[int]:
        sc = self.sc
        if self.side == "soviet":
            # 12.15: Soviet rail connected to the east, north or south edge or the Volga,
            # and every Soviet-controlled town on the Volga
            usable = self.rail.__getitem__      # rail_usable, as the table _soviet_rail made of it
            anchors = [i for i in sc.rail_hex if (i in sc.edge["north"] or i in sc.edge["east"] or i in sc.edge["south"]
                                                  or i in sc.volga_hex) and usable(i)]
            found = self._rail_flood(anchors, usable)
            for c in sc.cities:
                if c.volga:
                    for h in c.hexes:
                        i = sc.idx[h]
                        if self.rail_usable(i):
                            found.add(i)
            return self._no_mountains(found)
        # 12.23: any rail hex west of the front line, whoever passed it last (reading: the
        # clause has no condition; a Soviet unit or its ZOC there blocks the line anyway);
        # cleared rail connected back, free of EZOC and enemy units, to an *Axis-controlled*
        # rail hex west of the line; truck railheads (12.3) are added by the caller
        west = [i for i in sc.rail_hex if i in sc.axis_start]
        anchors = [i for i in west if self.friendly[i]]

        def cleared_ok(i: int) -> bool:
            return self.friendly[i] and not self.blocked[i] and sc.ids[i] in self.cleared
        found = self._rail_flood(anchors, lambda i: i in sc.axis_start and self.friendly[i] or cleared_ok(i))
        found.update(west)
        return self._no_mountains(found)

    def _no_mountains(self, found: set[int]) -> list[int]:
        """10.35: no line is traced into a mountain hex, so a source there supplies nothing."""
        mountain = self.sc.mountain
        return sorted(i for i in found if not mountain[i])

    def _rail_flood(self, seeds: list[int], ok) -> set[int]:
        sc = self.sc
        seen = set(seeds)
        todo = list(seeds)
        while todo:
            a = todo.pop()
            for b in sc.rail_next[a]:
                if b not in seen and ok(b):
                    seen.add(b)
                    todo.append(b)
        return seen

    # --- searches ---------------------------------------------------------------------------------

    def distances(self, sources: list[int], bound: int) -> list[int]:
        """Dial's search run back from the sources: for every hex, the cost of the cheapest
        line from it to a source (bound + 1 where none is within `bound`). Kept with the Lines:
        the same search asked again (a replay, a planning copy) is not run again."""
        key = (tuple(sources), bound)
        found = self._distances.get(key)
        if found is None:
            # and shared with the Lines of other boards that block the same hexes: the search reads
            # nothing else of them
            same = (self.side, bytes(self.blocked), bytes(self.rail), bytes(self.friendly))
            found = self._distances[key] = memo(self.sc, ("distances", id(self.sc)) + same + key,
                                                lambda: self._search_back(sources, bound))
        return list(found)

    def _search_back(self, sources: list[int], bound: int) -> list[int]:
        sc = self.sc
        back = sc.back(self.side)
        far = bound + 1
        dist = [far] * len(sc.ids)
        buckets: list[list[int]] = [[] for _ in range(far)]
        blocked, friendly, rail_ok, city = self.blocked, self.friendly, self.rail, sc.city_of
        for s in sources:
            if not blocked[s]:
                dist[s] = 0
                buckets[0].append(s)
        # every step costs 1 MP or more (the terrain chart's least, which the schema checks): the
        # hexes `bound` away are reached, and lead nowhere within it; and a bucket only fills
        # buckets after it, so it is read straight through (in any order the distances are the same)
        for d in range(bound):
            for b in buckets[d]:
                if dist[b] != d or (d and blocked[b]):
                    continue
                mine = friendly[b]          # 10.28: a Friendly city for the Volga
                rail = rail_ok[b]           # 10.43, 10.48: 1 along a railroad into a Friendly hex (6.44, 6.47)
                for a, c, flag in back[b]:
                    if flag:
                        if flag & VOLGA and not ((a in city and friendly[a]) or (b in city and mine)):
                            continue
                        if flag & RAIL and rail:
                            c = 1
                    nd = d + c
                    if nd < dist[a]:
                        dist[a] = nd
                        buckets[nd].append(a)     # nd <= bound: dist never holds more than far
        # 10.35, 12.11 note: no line leaves a mountain hex either (steps into one are closed to
        # mechanized units, so mountain hexes are only ever reached last, and are undone here)
        for i in sc.mountain_hexes:
            dist[i] = far
        return dist

    def near_source(self, start: int, bound: int) -> bool:
        """`reaches` the side's Supply Sources (kept with the Lines: asked again for every
        combat that a unit of the hex takes part in)."""
        found = self._near_source.get((start, bound))
        if found is None:
            found = self._near_source[(start, bound)] = self.reaches(start, self.source_set(), bound)
        return found

    def reaches(self, start: int, targets, bound: int) -> bool:
        """Forward search from `start`: is a hex of `targets` within `bound`?"""
        sc = self.sc
        if sc.mountain[start]:
            return False                    # 10.35, 12.11 note: nothing in a mountain hex is supplied
        if start in targets:
            return True
        steps = sc.steps(self.side, "mech")
        far = bound + 1
        dist = {start: 0}
        buckets: list[list[int]] = [[] for _ in range(far)]
        buckets[0].append(start)
        blocked, friendly, rail_ok, city = self.blocked, self.friendly, self.rail, sc.city_of
        for d in range(far):
            bucket = buckets[d]
            while bucket:
                a = bucket.pop()
                if dist[a] != d:
                    continue
                if a in targets:
                    return True
                if (a != start and blocked[a]) or d == bound:
                    continue                # d == bound: every step costs 1 MP or more, none stays within it
                for b, c, flag in steps[a]:
                    if c == BLOCKED or blocked[b]:
                        continue
                    if flag & RAIL and rail_ok[b]:       # 10.48; 6.44, 6.47
                        c = 1
                    nd = d + c
                    if nd < far and nd < dist.get(b, far):
                        if flag & VOLGA and not ((a in city and friendly[a]) or (b in city and friendly[b])):
                            continue
                        dist[b] = nd
                        buckets[nd].append(b)
        return False

    def within(self, start: int, radius: int) -> dict[int, int]:
        """Hexes a Line of Communications from `start` reaches in at most `radius` hexes
        (12.12), with the number of hexes (kept with the Lines: asked again for every unit of a
        hex and every check of the phase). Mountain hexes are reached but never passed, and
        `start` is left even if it is one: the combat unit's end of a line may be in the
        mountains, never the HQ's end (10.35, checked by the callers)."""
        found = self._within.get((start, radius))
        if found is None:
            found = self._within[(start, radius)] = self._search_within(start, radius)
        return dict(found)

    def _search_within(self, start: int, radius: int) -> dict[int, int]:
        sc = self.sc
        steps = sc.steps(self.side, "mech")
        dist = {start: 0}
        frontier = [start]
        blocked, friendly, city = self.blocked, self.friendly, sc.city_of
        for d in range(1, radius + 1):
            nxt = []
            for a in frontier:
                if a != start and blocked[a]:
                    continue
                for b, c, flag in steps[a]:
                    # a lake hexside is a step no unit may take (Scenario.steps): only those are asked
                    if b in dist or blocked[b] or (c == BLOCKED and sc.side_kind.get((a, b)) == "lake"):
                        continue
                    if flag & VOLGA and not ((a in city and friendly[a]) or (b in city and friendly[b])):
                        continue
                    dist[b] = d
                    if not sc.mountain[b]:      # 10.35: a line may end at a unit in a mountain hex, never pass one
                        nxt.append(b)
            frontier = nxt
        return dist


# --- the supply of every unit of a side (12.0: at the start of each movement phase) ---------------

def hqs_of(sc: Scenario, rules: dict, board: Board, side: str, nation: str | None = None) -> list[tuple[str, int]]:
    """The side's HQs on the map that function (not disrupted, 6.64), with their hex (kept with
    the board)."""
    key = ("hqs", side, nation, tuple(rules["disrupted"]))
    found = board.derived.get(key)
    if found is None:
        out = []
        for uid in sc.hq_units[side]:
            i = board.where.get(uid)
            if i is not None and (nation is None or sc.units[uid].nation == nation) \
                    and not st.has(rules["disrupted"], uid):
                out.append((uid, i))
        found = board.derived[key] = sorted(out)
    return list(found)


def _railheads(sc: Scenario, rules: dict, side: str) -> list[tuple[int, int]]:
    """(index in rules["railheads"], hex) of the truck railheads that are Axis supply sources
    (12.33): a railhead's truck is a source while it "is part of a Truck Supply Chain" (12.23),
    so not once enemy units or zones of control cut the chain from every source (12.31). The
    chain is the line the railhead was placed on and moved along, as the Axis player strung it
    (12.32-12.35), intact from a source to the railhead's truck; or, when that line is cut, any
    chain the engine strings (`interphase.chains`) that reaches the truck."""
    if side != "axis" or not rules["railheads"]:
        return []
    from .interphase import chains, line_fault      # (interphase reads supply)

    linked = None
    heads = []
    for k, r in enumerate(rules["railheads"]):
        truck = r["truck"]
        if not st.on_map(rules, truck):
            continue
        if line_fault(sc, rules, r["chain"][:r["chain"].index(truck) + 1]) is not None:
            if linked is None:
                linked = {u for chain in chains(sc, rules) for u in chain}
            if truck not in linked:
                continue
        heads.append((k, sc.idx[st.hex_of(rules, truck)]))
    return heads


def _by_railhead(lines_: "Lines", rules: dict, heads: list[tuple[int, int]], i: int, bound: int, mark: bool,
                 memo_: dict) -> bool:
    """Is hex i supplied from a truck railhead? 12.33: a railhead that supplies a unit is used,
    and goes in the Game-Turn Record Inter-Phase (marked only when the rules apply supply)."""
    if i not in memo_:
        memo_[i] = next((k for k, h in heads if lines_.reaches(i, {h}, bound)), None)
    k = memo_[i]
    if k is not None and mark:
        rules["railheads"][k]["used"] = True
    return k is not None


def field(sc: Scenario, rules: dict, board: Board, side: str, mark: bool = False) -> tuple[set[str], set[str]]:
    """(supplied units, units within an HQ's Communications Radius) of `side`, every unit on
    the map of that side judged as the board stands (12.0, 11.47). With `mark`, railheads that
    supply a unit no rail source reaches are marked used (12.33)."""
    lines_ = lines_of(sc, rules, side)
    bound = LENGTH[side]
    sources = lines_.sources()
    dist = lines_.distances(sources, bound)
    heads = _railheads(sc, rules, side)
    rh_dist = lines_.distances([h for _, h in heads], bound) if heads else None
    memo_: dict = {}

    def reached(i: int) -> bool:
        if dist[i] <= bound:
            return True
        if rh_dist is None or rh_dist[i] > bound:
            return False
        if mark:
            _by_railhead(lines_, rules, heads, i, bound, mark, memo_)
        return True

    supplied: set[str] = set()
    radius: set[str] = set()
    ok_hex = set()                                  # hexes reached by a line of a supplied HQ
    in_radius: dict[str, set[int]] = {}             # nationality -> hexes in some HQ's radius
    for uid, i in hqs_of(sc, rules, board, side):
        u = sc.units[uid]
        # 10.35: no Line of Communications is traced into the HQ's mountain hex; 11.33, 12.11
        # note: such an HQ is out of supply (dist: never reached) and supplies nobody
        reach = lines_.within(i, u.leadership) if not sc.mountain[i] else {i: 0}
        in_radius.setdefault(u.nation, set()).update(reach)
        if reached(i):
            ok_hex.update((h, u.nation) for h in reach)
    for i, us in board.occ.items():
        for uid in us:
            u = sc.units[uid]
            if u.side != side:
                continue
            if sc.mountain[i]:
                good = False                        # 10.35, 12.11 note
            elif not railhead_users(u):
                good = dist[i] <= bound             # a truck: never by a railhead
            elif traces_to_source(u, side):
                good = reached(i)
            else:
                good = (i, u.nation) in ok_hex
            if not u.nation in DIRECT and i in in_radius.get(u.nation, ()):
                radius.add(uid)
            if good:
                supplied.add(uid)
    # 12.4: air supply bought this phase; 12.53: reinforcements in their first movement phase
    for uid in rules["ps"]["air_supplied"] + rules["ps"]["fresh"]:
        h = st.hex_of(rules, uid)
        if h is not None and sc.side_of[uid] == side and not sc.mountain[sc.idx[h]]:
            supplied.add(uid)
    return supplied, radius


def supplied(sc: Scenario, rules: dict, board: Board, side: str, uids: list[str],
             lines: Lines | None = None, cache: dict | None = None, mark: bool = False) -> set[str]:
    """Which of `uids` (units of `side` on the map) are in supply now (12.0: at the instant of
    combat): searches from the units, stopping at the first source."""
    lines_ = lines or lines_of(sc, rules, side)
    lines = lines_
    cache = {} if cache is None else cache
    bound = LENGTH[side]
    if "heads" not in cache:
        cache["heads"] = _railheads(sc, rules, side)
        cache["rh"] = {}
    heads = cache["heads"]

    def source_near(i: int, railheads: bool = True) -> bool:
        key = ("line", i)
        if key not in cache:
            cache[key] = lines.near_source(i, bound)
        if cache[key] or not heads or not railheads:
            return cache[key]
        key = ("head", i)
        if key not in cache:
            cache[key] = lines.reaches(i, {h for _, h in heads}, bound)
        if cache[key] and mark:
            _by_railhead(lines, rules, heads, i, bound, mark, cache["rh"])
        return cache[key]

    out = set()
    extra = set(rules["ps"]["air_supplied"]) | set(rules["ps"]["fresh"])
    for uid in uids:
        h = st.hex_of(rules, uid)
        if h is None:
            continue
        i = sc.idx[h]
        u = sc.units[uid]
        if sc.mountain[i]:
            continue
        if uid in extra:
            out.add(uid)
            continue
        if traces_to_source(u, side):
            if source_near(i, railheads=railhead_users(u)):
                out.add(uid)
            continue
        key = ("loc", i, u.nation)
        if key not in cache:
            # a line of communications passes the same hexes traced from either end; an HQ in a
            # mountain hex is never supplied (source_near: 10.35, 11.33, 12.11 note)
            near = lines.within(i, 5)
            cache[key] = any(near.get(j, 99) <= sc.units[hq].leadership and source_near(j)
                             for hq, j in hqs_of(sc, rules, board, side, u.nation))
        if cache[key]:
            out.add(uid)
    return out


def in_radius(sc: Scenario, rules: dict, board: Board, side: str, uid: str, lines: Lines | None = None) -> bool:
    """11.47, 6.55: is the unit within the Communications Radius of a functioning HQ of its
    nationality? (German units need none.)"""
    u = sc.units[uid]
    if u.nation in DIRECT:
        return True
    h = st.hex_of(rules, uid)
    if h is None:
        return False
    i = sc.idx[h]
    lines = lines or lines_of(sc, rules, side)
    near = None
    for hq, j in hqs_of(sc, rules, board, side, u.nation):
        if sc.mountain[j] and j != i:
            continue                        # 10.35: no line into the HQ's mountain hex
        if sc.distance(i, j) <= sc.units[hq].leadership:
            near = near if near is not None else lines.within(i, 5)
            if near.get(j, 99) <= sc.units[hq].leadership:
                return True
    return False


# 12.33: units "may be considered to be in Supply" from a truck railhead, and one that "utilizes"
# it spends it (removed at the Inter-Phase), so that it cannot move on along its chain (12.34,
# 12.35). The engine decides for the Axis player: every unit that needs the railhead uses it,
# except trucks. A truck has no combat strength, so its supply matters only for its Movement
# Allowance, and a truck of the chain that moves removes the railhead anyway (12.39): counting
# the chain's own trucks as its users spent every railhead of a chain reaching more than 14 MP
# beyond the rail, and no railhead could ever move along it.
def railhead_users(u) -> bool:
    """Whether a unit may be supplied by (and so spend) a truck railhead (12.33): not a truck."""
    return not u.truck


def traces_to_source(u, side: str) -> bool:
    """Whether unit `u` of `side` traces its Supply Line straight to a source (12.22, 12.14:
    German units, HQs, Axis air units, trucks) rather than through an HQ (11.31, 12.21)."""
    return u.nation in DIRECT or u.hq or (u.air and side == "axis") or u.truck


def reason(sc: Scenario, rules: dict, board: Board, uid: str) -> str | None:
    """Why unit `uid` (on the map) is out of supply as the board stands, in words with its rule;
    None when it is in supply (12.0). The first cause found, in the order a line is traced: the
    unit's hex, the HQs within reach, the Line of Communications, the HQ's Line of Supply."""
    u = sc.units[uid]
    side = u.side
    if uid in field(sc, rules, board, side)[0]:
        return None
    i = sc.idx[st.hex_of(rules, uid)]
    if sc.mountain[i]:
        return "it stands in a mountain hex, where no unit is in supply (10.35, 12.11)"
    bound = LENGTH[side]
    line_rule = "12.14" if side == "soviet" else "12.21"       # an HQ's Line of Supply
    if traces_to_source(u, side):
        return (f"no Supply Line of {bound} mechanized MP or less reaches a supply source "
                f"({'12.22' if u.nation in DIRECT else line_rule})")
    hq_rule = "11.31" if side == "soviet" else "12.21"
    every = sorted((sc.distance(i, j), hq, j) for j, us in board.occ.items() for hq in us
                   if sc.units[hq].hq and sc.units[hq].side == side and sc.units[hq].nation == u.nation)
    if not every:
        return f"no {u.nation} HQ is on the map ({hq_rule})"
    within = [(d, hq, j) for d, hq, j in every if d <= sc.units[hq].leadership]
    if not within:
        d, hq, _ = every[0]
        return (f"no {u.nation} HQ within its Leadership Rating: the nearest, {hq}, is {d} hexes away, rating "
                f"{sc.units[hq].leadership} (12.12)")
    working = [(d, hq, j) for d, hq, j in within if not st.has(rules["disrupted"], hq)]
    if not working:
        return f"{_hqs_are([hq for _, hq, _ in within])} disrupted, and a disrupted HQ coordinates no supply (6.64)"
    lowland = [(d, hq, j) for d, hq, j in working if not sc.mountain[j]]
    if not lowland:
        return (f"{working[0][1]} stands in a mountain hex, into which no Line of Communications is traced (10.35, "
                f"12.11)")
    lines_ = lines_of(sc, rules, side)
    linked = [(d, hq, j) for d, hq, j in lowland if i in lines_.within(j, sc.units[hq].leadership)]
    if not linked:
        d, hq, j = lowland[0]
        cut = _cut_hexes(sc, board, lines_, i, j, sc.units[hq].leadership, side)
        return (f"{hq} is {d} hex{'es' if d != 1 else ''} away (rating {sc.units[hq].leadership}), but every Line of "
                f"Communications to it would pass through enemy units, an Enemy ZOC no friendly unit stands in, or "
                f"impassable terrain (12.11)" + (f": {'; '.join(cut)}" if cut else ""))
    return (f"{_hqs_are([hq for _, hq, _ in linked])} out of supply: no Line of Supply of {bound} mechanized MP or "
            f"less reaches a source ({line_rule})")


def _hqs_are(hqs: list[str]) -> str:
    return f"its HQ {hqs[0]} is" if len(hqs) == 1 else f"the HQs within its reach, {', '.join(hqs)}, are"


def _cut_hexes(sc: Scenario, board: Board, lines_: "Lines", i: int, j: int, reach: int, side: str) -> list[str]:
    """The blocked hexes between hex i and hex j that a line of `reach` hexes could otherwise
    pass (on some path of that length), nearest i first, at most three: where the line is cut."""
    corridor = sorted((h for h in range(len(sc.ids)) if h not in (i, j) and lines_.blocked[h]
                       and sc.distance(i, h) + sc.distance(h, j) <= reach),
                      key=lambda h: (sc.distance(i, h), sc.ids[h]))
    enemy = other(side)
    return [sc.ids[h] + (" holds enemy units" if board.has_combat(h, enemy) else
                         " is in an Enemy ZOC, no friendly unit there") for h in corridor[:3]]
