"""Movement (6.0-6.4, 10.0-10.5), rail movement (6.3, 6.4), reinforcements entering (15.0,
15.3), evacuation (11.5, 14.6), strategic withdrawal (18.1) and the exits of 19.22.

6.11: only the phasing player's units move, any, some or none of them (a `move` order names
them; the flow accepts movement orders from the phasing player only). 6.12, 6.13, 10.51: a
step costs what `Scenario.steps` gives for the hex entered (1 for clear) plus its hexside,
added up. 6.24: retreats and advances (combat.py) are not movement and spend no MP. 8.21: an
Enemy ZOC costs nothing to enter; 8.23: the mover's own side's ZOC never matters (only
`Context.ezoc` is read); 8.25, 8.26: ZOC is a set of hexes per side (board.py), mutual and
never counted twice."""

from __future__ import annotations

import heapq

from ..base import IllegalOrder
from .board import Board, control_key, half_view, memo, stacking_ok, view
from .scenario import BLOCKED, DON, RAIL, VOLGA, Scenario, other
from . import state as st
from .naming import verb, no_hex, no_unit, not_own_unit
from . import supply as sp
from .supply import friendly_rail

RAIL_LIMIT = {"axis": 3, "soviet": 10}     # 6.31
RAIL_MP = 40                               # 6.33
RETURN_DELAY = 3                           # 11.5, 12.38, 14.13
UNBOUNDED = 1 << 30                        # a budget no step exceeds (6.14's free first hex)


def context(sc: Scenario, rules: dict, side: str) -> "Context":
    """The movement Context of `side` on the rules as they stand. What the enemy's units
    decide is shared while they do not move (a whole Movement Phase), what control decides
    while control does not change."""
    return Context(sc, rules, side)


def _enemy_parts(sc: Scenario, half: Board, side: str) -> tuple:
    """(blocking, ZOC, ZOC of the units on the Don) of the enemy's units, `half` (his half view)."""
    enemy = other(side)
    found = half.derived.get("enemy-parts")
    if found is None:
        don_units = [i for i in half.side_hexes(enemy) if i in sc.don_hex]
        found = half.derived["enemy-parts"] = (half.blocking(side), half.zoc(enemy),
                                               frozenset(half.zoc_of_units(enemy, don_units)))
    return found


def _friendly(sc: Scenario, rules: dict, side: str) -> bytearray:
    return memo(sc, ("friendly", side, id(sc), control_key(rules)),
                lambda: friendly_rail(sc, rules["control"], side))


class Context:
    """What a move of `side` may do on the board as it stands."""

    def __init__(self, sc: Scenario, rules: dict, side: str):
        self.sc, self.side = sc, side
        self.enemy = half_view(sc, rules, other(side))     # the enemy's units: whom a move may displace
        self.blocking, self.ezoc, self.don_zoc = _enemy_parts(sc, self.enemy, side)   # 6.21, 8.0, 10.23 errata
        self._rules = rules
        self._mine = None
        self._friendly: bytearray | None = None
        self.interdicted = frozenset(sc.idx[h] for h in rules["interdiction"][other(side)])

    @property
    def friendly(self) -> bytearray:
        """1 for each rail and city hex last held by the mover's side (10.45): only steps along a
        railroad (10.43) and across the Volga (10.26) read it."""
        if self._friendly is None:
            self._friendly = _friendly(self.sc, self._rules, self.side)
        return self._friendly

    @property
    def mine(self) -> frozenset[int]:
        """Hexes held by the mover's side (only the Don and Volga exceptions read it)."""
        if self._mine is None:
            units, idx, off = self._rules["units"], self.sc.idx, st.OFF_MAP
            self._mine = frozenset(idx[units[u]] for u in self.sc.side_units[self.side] if units[u] not in off)
        return self._mine

    def friendly_city(self, i: int) -> bool:
        return i in self.sc.city_of and bool(self.friendly[i])

    def step_cost(self, a: int, b: int, c: int, flag: int) -> int | None:
        """The MP to move from a into neighbour b (10.11, 10.21, 10.23, 10.31, 10.33, 10.41: the
        other terrain of a city or rail hex; 10.43, 14.44); None where no unit may."""
        if c == BLOCKED or b in self.blocking:
            return None
        if flag & VOLGA:
            if not (self.friendly_city(a) or self.friendly_city(b)):
                return None                                           # 10.26
            if b in self.ezoc and b not in self.mine:
                return None                                           # 10.26 exception, 6.26
        elif flag & DON and b in self.don_zoc and b not in self.mine:
            return None                                               # 10.23 errata
        cost = 1 if (flag & RAIL and self.friendly[b]) else c          # 10.43
        if b in self.interdicted:
            cost += self.sc.interdiction_extra                         # 14.44
        return cost


def allowance(sc: Scenario, rules: dict, uid: str) -> int:
    """6.25, 12.51, 12.52: halved (fractions dropped, never below 1) when out of supply at the
    start of the phase."""
    ma = sc.units[uid].ma
    return max(1, ma // 2) if st.has(rules["ps"]["oos"], uid) else ma


def remaining(sc: Scenario, rules: dict, uid: str) -> int:
    return allowance(sc, rules, uid) - rules["ps"]["moved"].get(uid, 0)


def _no_voluntary_exit(sc: Scenario, ctx_: Context, start: int) -> None:
    """8.22: units may not leave an Enemy ZOC voluntarily, by road or by rail."""
    if start in ctx_.ezoc:
        raise IllegalOrder("8.22", f"{sc.ids[start]} is in an Enemy Zone of Control: units may not leave it voluntarily",
                           None)


def one_hex_free(rules: dict, uid: str) -> bool:
    """6.14: in the Initial Movement Phase a unit not yet moved, which did not stand in an Enemy
    ZOC as the phase began (recorded by flow.begin_phase; overruns later in the phase may have
    freed it since), may always move one hex."""
    return rules["phase"] == "move" and uid not in rules["ps"]["moved"] and not st.has(rules["ps"].get("in_ezoc", []), uid)


def search(ctx: Context, start: int, cls: str, budget: int, *, first_step_free: bool = False,
           withdraw: bool = False) -> tuple[dict[int, int], dict[int, int]]:
    """Dijkstra over the steps of `cls`: (cost, parent) of every hex a unit can reach with
    `budget` MP, stopping on entering an Enemy ZOC (8.0). `first_step_free`: 6.14, one hex is
    always possible. `withdraw`: 18.11, every step due east, Enemy ZOC ignored, never into the
    area of 16.31 (18.26). Of the hexes a hex is reached from at its least cost, its parent is
    the first in index order."""
    sc = ctx.sc
    steps = sc.steps(ctx.side, cls)
    # Context.step_cost, written out: this loop is where legal moves spend their time
    blocking, ezoc, don_zoc, friendly, interdicted = ctx.blocking, ctx.ezoc, ctx.don_zoc, ctx.friendly, ctx.interdicted
    extra = sc.interdiction_extra
    best = {start: 0}
    parent: dict[int, int] = {}
    settled: dict[int, int] = {}
    # the hexes to settle by cost (a bucket queue): every step costs 1 MP or more (the terrain
    # chart's least, which the schema checks), so the hexes of one cost are all found before
    # it is reached, and settled in index order
    frontier: dict[int, list[int]] = {0: [start]}
    d = 0
    while frontier:
        for a in sorted(frontier.pop(d, ())):
            if a in settled:
                continue                                                      # reached cheaper since
            settled[a] = d
            if a != start and a in ezoc and not withdraw:
                continue
            limit = UNBOUNDED if (first_step_free and a == start) else budget - d
            if limit < 1:
                continue                                                      # no MP left for any step
            for b, c, flag in steps[a]:
                if b in settled or c == BLOCKED or b in blocking:
                    continue
                if withdraw and (not sc.east_of(a, b) or b in sc.across_don):     # 18.11, 18.26
                    continue
                if flag:
                    if flag & VOLGA:
                        if not (ctx.friendly_city(a) or ctx.friendly_city(b)):
                            continue                                              # 10.26
                        if b in ezoc and b not in ctx.mine:
                            continue                                              # 10.26 exception, 6.26
                    elif flag & DON and b in don_zoc and b not in ctx.mine:
                        continue                                                  # 10.23 errata
                    if flag & RAIL and friendly[b]:
                        c = 1                                                     # 10.43
                if b in interdicted:
                    c += extra                                                    # 14.44
                if c > limit:
                    continue
                total = d + c
                old = best.get(b)
                if old is None or total < old:
                    best[b] = total
                    parent[b] = a
                    bucket = frontier.get(total)
                    if bucket is None:
                        frontier[total] = [b]
                    else:
                        bucket.append(b)
                elif total == old and a < parent[b]:
                    parent[b] = a
        d += 1
    return settled, parent


def path_to(parent: dict[int, int], start: int, goal: int) -> list[int]:
    """The hexes entered from `start` to `goal`, along `parent` (start not included)."""
    path = []
    while goal != start:
        path.append(goal)
        goal = parent[goal]
    path.reverse()
    return path


# --- checks shared by the movement orders --------------------------------------------------------

def _units(sc: Scenario, rules: dict, side: str, order: dict, rule: str) -> tuple[list[str], int]:
    units = order.get("units") or []
    if not units or len(set(units)) != len(units):
        raise IllegalOrder(rule, "name one or more different units", None)
    where = set()
    for uid in units:
        if uid not in sc.units:
            raise IllegalOrder(rule, no_unit(sc, uid, [u for u in sc.side_units[side] if st.on_map(rules, u)]), None)
        if sc.side_of[uid] != side:
            raise IllegalOrder(rule, not_own_unit(sc, uid, side), None)
        h = st.hex_of(rules, uid)
        if h is None:
            raise IllegalOrder(rule, st.not_on_map(rules, uid), None)
        where.add(h)
    if len(where) != 1:
        raise IllegalOrder("6.28", "units moving together must start in the same hex", None)
    return sorted(units), sc.idx[where.pop()]


def may_move(sc: Scenario, rules: dict, uid: str, *, rail: bool = False) -> str | None:
    """Why the unit may not move now (None: it may)."""
    u = sc.units[uid]
    ps, phase = rules["ps"], rules["phase"]
    if phase == "mech" and not u.mech_phase:
        return "6.0: only cavalry, mechanized units, trucks and HQs move in the Mechanized/Cavalry Movement Phase"
    if u.air and not rail:
        return "14.12: air units move by rail only"
    if st.has(rules["disrupted"], uid):
        return "6.62: a disrupted unit may not move"
    if rules["turn"] == 1 and u.side == "axis" and u.setup in ("5.31", "5.32"):
        return "5.38: the units of 5.31 and 5.32 may not move on Game-Turn 1"
    if st.has(ps["stopped"], uid):
        return "6.52: its movement is over for this phase"
    if st.has(ps["rail"], uid):
        return "6.32: it moved by rail this phase"
    if uid in ps["moved"] and uid not in ps["current"]:
        return "6.28: its movement ended when another unit began to move"
    return None


def _check_can_move(sc: Scenario, rules: dict, units: list[str], rule: str) -> None:
    moved = [u for u in units if u in rules["ps"]["moved"]]
    if moved and len(moved) != len(units):
        raise IllegalOrder("6.28", "units move together only if they began the phase stacked together and stayed "
                           f"together ({', '.join(moved)} moved already, the others not)", None)
    for uid in units:
        why = may_move(sc, rules, uid)
        if why:
            rule_, _, text = why.partition(": ")
            raise IllegalOrder(rule_, f"{uid} may not move: {text}", None)


def _not_from_start(sc: Scenario, path: list[int], start: int, rule: str) -> None:
    """A path is the hexes entered: one that begins where the units stand is refused saying so
    (a players' probe read "N2146 is not next to N2146")."""
    if path and path[0] == start:
        raise IllegalOrder(rule, f"the path lists the hexes entered, one after another: leave out {sc.ids[start]}, "
                           f"where the units stand", None)


def _hexes(sc: Scenario, path: list, rule: str) -> list[int]:
    out = []
    for h in path:
        if h not in sc.idx:
            raise IllegalOrder(rule, no_hex(sc, h), None)
        out.append(sc.idx[h])
    return out


def begin(rules: dict, units: list[str]) -> None:
    """6.28: these units are now the ones moving; every other unit's movement is over."""
    ps = rules["ps"]
    if sorted(units) != ps["current"]:
        ps["current"] = sorted(units)
    ps["evacuate"] = False


def arrive(sc: Scenario, rules: dict, board: Board | None, side: str, i: int, ctx_event) -> None:
    """A unit of `side` enters hex i: control (10.45); a Soviet unit removes Axis trucks, either
    side removes enemy air units standing alone (12.38, 14.13), to return three Game-Turns later."""
    st.enter_hex(sc, rules, i, side)
    h = sc.ids[i]
    here = [u for u, w in rules["units"].items() if w == h and sc.side_of[u] != side] if board is None \
        else [u for u in board.units_at(i) if sc.side_of[u] != side and st.hex_of(rules, u) == h]
    for uid in here:
        u = sc.units[uid]
        if u.air or (u.truck and side == "soviet"):
            drop_railheads(sc, rules, uid, ctx_event)
            st.remove(rules, uid, "due", rules["turn"] + RETURN_DELAY)
            ctx_event("displaced", f"{uid} is displaced from {h} by the enemy and returns on Game-Turn "
                      f"{rules['turn'] + RETURN_DELAY} ({'12.38' if u.truck else '14.13'}).", units=[uid], hex=h,
                      rule="12.38" if u.truck else "14.13")


def drop_railheads(sc: Scenario, rules: dict, uid: str, ctx_event) -> None:
    """12.39: a truck that "is part of a Truck Supply Chain" moved or removed (called before it
    leaves its hex): the chain's railhead goes. Its chain is the chain as the trucks stand now
    (12.31, `interphase.chains`), a truck that joined it since the railhead was placed
    included, as well as the chain the railhead was placed on."""
    from .interphase import chains

    if not rules["railheads"]:
        return
    linked = next((set(c) for c in chains(sc, rules) if uid in c), set())
    kept = []
    for r in rules["railheads"]:
        if uid in r["chain"] or r["truck"] == uid or r["truck"] in linked:
            ctx_event("railhead", f"The railhead on {r['truck']} is removed: {uid} of its chain moved or left (12.39).",
                      truck=r["truck"], rule="12.39")
        else:
            kept.append(r)
    rules["railheads"] = kept


# --- move ------------------------------------------------------------------------------------------

def may_withdraw(rules: dict, uid: str) -> bool:
    """18.15: a Soviet unit may make a strategic withdrawal unless, in the Mechanized Movement
    Phase, it attacked in the Player-Turn's Combat Phase."""
    return not (rules["phase"] == "mech" and st.has(rules["pt"]["attacked"], uid))


def check_east_only(sc: Scenario, rules: dict, units: list[str], west: bool, ignoring: bool) -> None:
    """18.11: the Soviet player "may ignore Axis Zones of Control in moving any unit that is being
    moved east only": a unit's move in a Movement Phase, which it may make in several orders.
    `west`: this order has the units enter a hex not east (east, north-east or south-east, the
    errata) of the one they leave; `ignoring`: it ignores Axis ZOC (a strategic withdrawal). A
    unit that ignored them this phase moves east only for the rest of it; a unit that entered a
    hex not east this phase ignores them no more in it (a review: a withdrawal east out of a ZOC,
    then a move west round the Axis flank; a move west into a ZOC, then a withdrawal out)."""
    ps = rules["ps"]
    for uid in units:
        if west and st.has(ps.get("withdrawing", ()), uid):
            raise IllegalOrder("18.11", f"{uid} ignored Axis Zones of Control this phase (a strategic withdrawal): "
                               f"every hex it enters in the phase must be east of the one it leaves", None)
        if ignoring and st.has(ps.get("not_east", ()), uid):
            raise IllegalOrder("18.11", f"{uid} has entered a hex not east of the one it left this phase: only a unit "
                               f"moved east only may ignore Axis Zones of Control (a strategic withdrawal)", None)


def goes_west(sc: Scenario, start: int, path: list[int]) -> bool:
    """Whether moving from `start` along `path` enters a hex not east of the one before (18.11)."""
    return any(not sc.east_of(a, b) for a, b in zip([start] + path, path))


def record_east_only(rules: dict, units: list[str], west: bool, ignoring: bool) -> None:
    """What `check_east_only` reads, for the rest of the phase (kept only once there is some:
    a phase without either keeps the state as it was)."""
    if west:
        st.add_all(rules["ps"].setdefault("not_east", []), units)
    if ignoring:
        st.add_all(rules["ps"].setdefault("withdrawing", []), units)


def move(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    units, start = _units(sc, rules, side, order, "6.1")
    _check_can_move(sc, rules, units, "6.1")
    withdraw = bool(order.get("withdraw"))          # 18.13: a `move` only (never `rail`), and only ZOC for moving
    if withdraw:
        if side != "soviet":
            raise IllegalOrder("18.1", "only the Soviet player makes strategic withdrawals", None)
        if not all(may_withdraw(rules, u) for u in units):
            raise IllegalOrder("18.15", "a unit that attacked this player-turn may not make a strategic withdrawal", None)
    ctx_ = context(sc, rules, side)
    board = ctx_.enemy                               # the enemy's units: whom the move may displace
    path = _hexes(sc, order.get("path") or [], "6.1")
    exiting = bool(order.get("exit"))
    if not path and not exiting:
        raise IllegalOrder("6.1", "give the path of the move (the hexes entered, in order)", None)
    _not_from_start(sc, path, start, "6.1")
    if not withdraw:
        _no_voluntary_exit(sc, ctx_, start)
    costs = {u: 0 for u in units}
    # each unit's steps, what it has left and whether its first hex is free (6.14), read once:
    # the rules do not change while the move is checked
    tables = {u: sc.steps(side, sc.units[u].move_class) for u in units}
    left = {u: remaining(sc, rules, u) for u in units}
    free = {u: one_hex_free(rules, u) for u in units}
    ignored = start in ctx_.ezoc
    a = start
    for n, b in enumerate(path):
        if not sc.adjacent(a, b):
            raise IllegalOrder("6.1", f"{sc.ids[b]} is not next to {sc.ids[a]}", None)
        if a != start and a in ctx_.ezoc and not withdraw:
            raise IllegalOrder("8.0", f"the move must stop in {sc.ids[a]}, in an Enemy Zone of Control", None)
        if withdraw:
            if not sc.east_of(a, b):
                raise IllegalOrder("18.11", f"{sc.ids[b]} is not east of {sc.ids[a]}: a strategic withdrawal moves "
                                   f"east, north-east or south-east only", None)
            if a in sc.across_don or b in sc.across_don:
                raise IllegalOrder("18.26", "no strategic withdrawal in the area across the Don (16.31)", None)
            if a in ctx_.ezoc and a != start or b in ctx_.ezoc:
                ignored = True
        for uid in units:
            step = next(s for s in tables[uid][a] if s[0] == b)
            cost = ctx_.step_cost(a, b, step[1], step[2])
            if cost is None:
                raise IllegalOrder(_why_rule(sc, ctx_, a, b, step), f"{uid} may not move from {sc.ids[a]} into "
                                   f"{sc.ids[b]}: {_why(sc, ctx_, a, b, step, uid)}", None)
            costs[uid] += cost
            first_free = n == 0 and free[uid]                               # 6.14
            if costs[uid] > left[uid] and not first_free:              # 6.23, 6.27
                raise IllegalOrder("6.23", f"{uid} would spend {costs[uid]} MP reaching {sc.ids[b]}, and has "
                                   f"{left[uid]} left", None)
        a = b
    end = a
    west = goes_west(sc, start, path)
    check_east_only(sc, rules, units, west, withdraw and ignored)
    if exiting:
        if path and end in ctx_.ezoc:   # the loop stops a move only in the hexes before its last
            raise IllegalOrder("8.0", f"the move must stop in {sc.ids[end]}, in an Enemy Zone of Control: units may "
                               f"not leave it voluntarily, not even off the map", None)
        _check_exit(sc, rules, side, units, end, costs)
    begin(rules, units)
    for uid in units:
        rules["ps"]["moved"][uid] = rules["ps"]["moved"].get(uid, 0) + costs[uid]
        if sc.units[uid].truck:
            drop_railheads(sc, rules, uid, ctx.event)
    for b in path:
        arrive(sc, rules, board, side, b, ctx.event)
    for uid in units:
        st.put(rules, uid, sc.ids[end])
    record_east_only(rules, units, west, withdraw and ignored)
    if withdraw and ignored:
        st.add_all(rules["pt"]["withdrew"], units)
        rules["strategic"] = True
    text = f"{', '.join(units)} {verb(units, 'move')} {sc.ids[start]} -> {sc.ids[end]}"
    ctx.event("move", text + (" (strategic withdrawal, 18.1)" if withdraw and ignored else "") + ".", side=side,
              units=units, path=[sc.ids[start]] + [sc.ids[b] for b in path], mp={u: costs[u] for u in units},
              rule="18.11" if withdraw and ignored else "6.1")
    if exiting:
        _exit(sc, rules, units, ctx)


def _why_rule(sc: Scenario, ctx: Context, a: int, b: int, step) -> str:
    flag = step[2]
    if b in ctx.blocking:
        return "6.21"
    if step[1] == BLOCKED:
        return "10.29" if sc.side_kind.get((a, b)) == "lake" else "10.33"
    if flag & VOLGA:
        return "10.26"
    return "10.23"


def _why(sc: Scenario, ctx: Context, a: int, b: int, step, uid: str) -> str:
    flag = step[2]
    if b in ctx.blocking:
        return "it holds enemy units"
    if step[1] == BLOCKED:
        return "an all-lake or all-sea hexside" if sc.side_kind.get((a, b)) == "lake" else \
            "mechanized and cavalry units may not enter mountains"
    if flag & VOLGA:
        if not (ctx.friendly_city(a) or ctx.friendly_city(b)):
            return "the Volga is crossed only from or into a Friendly city"
        return "across the Volga into an Enemy Zone of Control not held by a friendly unit"
    return "across the Don into the Zone of Control of an enemy unit on the Don, not held by a friendly unit"


# --- 19.22: exits from S1001 -----------------------------------------------------------------------

def _check_exit(sc: Scenario, rules: dict, side: str, units: list[str], end: int, costs: dict) -> None:
    """19.22: Axis units leave off the east edge from S1001, paying 1 MP (the reading of README)."""
    hex_ = sc.astrakhan["hex"]
    if side != "axis":
        raise IllegalOrder("19.22", "only Axis units exit the map, from " + hex_, None)
    if sc.ids[end] != hex_:
        raise IllegalOrder("19.22", f"units leave the map only from {hex_}, off the east edge", None)
    for uid in units:
        if not (sc.units[uid].combat or sc.units[uid].hq):
            raise IllegalOrder("19.22", f"{uid} is not a combat unit", None)
        if remaining(sc, rules, uid) - costs[uid] < 1:
            raise IllegalOrder("19.22", f"{uid} has no Movement Point left to leave the map", None)


def _exit(sc: Scenario, rules: dict, units: list[str], ctx) -> None:
    for uid in units:
        rules["ps"]["moved"][uid] = rules["ps"]["moved"].get(uid, 0) + 1
        st.remove(rules, uid, "exited")
        st.mark(rules["exits"], uid)
    ctx.event("exit", f"{', '.join(units)} {verb(units, 'leave')} the map eastward from {sc.astrakhan['hex']} (19.22).",
              units=units,
              rule="19.22")


# --- rail movement (6.3, 6.4) ---------------------------------------------------------------------

def rail_units(sc: Scenario, uid: str) -> int:
    """6.31, 11.22: what a unit counts against the rail limit."""
    u = sc.units[uid]
    if u.hq:
        return 0
    if u.air or (u.side == "soviet" and u.arm == "mech" and u.kind != "sov-nkvd-mech"):
        return 3
    return 1


def rail_hex_usable(sc: Scenario, rules: dict, side: str, i: int, friendly: bytearray) -> bool:
    """6.41, 6.44-6.47: a rail hex this side may move through by rail. 6.41: the Axis player
    uses every rail hex west of the Front Line, whoever last passed it (the clause has no
    condition; a hex an enemy unit holds is closed to any move, 6.21), and an Axis-cleared hex
    as long as an Axis unit was last there (6.45, control); 6.48: every cleared hex is kept in
    `rules["cleared"]`, so no Railhead marker is needed to find them."""
    if i not in sc.rail_hex:
        return False
    if side == "axis" and i in sc.axis_start:
        return True
    if not friendly[i]:
        return False
    h = sc.ids[i]
    cleared = st.has(rules["cleared"], h)
    if side == "axis":
        return cleared
    if cleared:
        return False
    entry = rules["control"].get(h)
    return entry is None or int(entry[1:]) < rules["turn"]


def rail_search(sc: Scenario, rules: dict, ctx: Context, start: int, budget: int = RAIL_MP) -> tuple[dict, dict]:
    """Rail Movement Points to every rail hex reachable from `start` (6.32, 6.33, 6.37, 6.38,
    6.39; 14.43: an interdicted rail hex costs 5 in all). 6.35: no supply or HQ radius is asked."""
    best = {start: 0}
    parent: dict[int, int] = {}
    settled: dict[int, int] = {}
    frontier = [(0, start)]
    while frontier:
        d, a = heapq.heappop(frontier)
        if a in settled:
            continue
        settled[a] = d
        nexts = [(b, 5 if b in ctx.interdicted else 1) for b in sc.rail_nb[a]]
        nexts += [(b, c + (4 if b in ctx.interdicted else 0)) for b, c in sc.rail_links.get(a, {}).items()]
        for b, c in nexts:
            if b in settled or b in ctx.blocking or b in ctx.ezoc or not rail_hex_usable(sc, rules, ctx.side, b, ctx.friendly):
                continue
            total = d + c
            if total > budget:
                continue
            old = best.get(b)
            if old is None or total < old or (total == old and a < parent[b]):
                best[b] = total
                parent[b] = a
                heapq.heappush(frontier, (total, b))
    return settled, parent


def rail_cost(sc: Scenario, ctx: Context, a: int, b: int) -> int | None:
    if b in sc.rail_nb[a]:
        return sc.interdicted_rail_cost if b in ctx.interdicted else 1
    link = sc.rail_links.get(a, {}).get(b)
    if link is None:
        return None
    return link + (sc.interdicted_rail_cost - 1 if b in ctx.interdicted else 0)


_RAIL_USABLE = {"axis": "(west of the front line or Axis-cleared, last passed by an Axis unit)",
                "soviet": "(Soviet-controlled, not Axis-cleared, 6.47)"}


def rail(sc: Scenario, rules: dict, side: str, order: dict, ctx, *, entering: bool = False) -> None:
    units, start = _units(sc, rules, side, order, "6.3")
    if rules["phase"] != "move":
        raise IllegalOrder("6.34", "rail movement only in the Initial Movement Phase", None)
    for uid in units:
        why = may_move(sc, rules, uid, rail=True)
        if why:
            rule_, _, text = why.partition(": ")
            raise IllegalOrder(rule_, f"{uid} may not move by rail: {text}", None)
        if uid in rules["ps"]["moved"] and not entering:
            raise IllegalOrder("6.32", f"{uid} has moved already this phase: a unit moves by rail from the start of "
                               f"its Initial Movement Phase", None)
        u = sc.units[uid]
        if u.air and (rules["air"].get(uid, 0) > 0):
            raise IllegalOrder("14.12", f"{uid} has spent Air Points this Game-Turn and may not move", None)
    if start not in sc.rail_hex:
        raise IllegalOrder("6.32", f"{sc.ids[start]} is not a rail hex", None)
    need = sum(rail_units(sc, u) for u in units)
    used = rules["rail_used"]                      # 6.31: the phasing player's own count (flow.py resets it)
    if used + need > RAIL_LIMIT[side]:
        raise IllegalOrder("6.31", f"rail movement would count {used + need} units this Game-Turn, over "
                           f"the {side} limit of {RAIL_LIMIT[side]}", None)
    ctx_ = context(sc, rules, side)
    board = ctx_.enemy
    path = _hexes(sc, order.get("path") or [], "6.3")
    if not path:
        raise IllegalOrder("6.3", "give the path of the rail move", None)
    _not_from_start(sc, path, start, "6.3")
    _no_voluntary_exit(sc, ctx_, start)          # 8.0, 8.22: rail movement is movement
    if not entering and not rail_hex_usable(sc, rules, side, start, ctx_.friendly):
        # the hex a rail move leaves is a rail hex it moves through (a review: an Axis unit left
        # an uncleared Front Line hex by rail, which it could not have entered by rail)
        raise IllegalOrder("6.41" if side == "axis" else "6.46",
                           f"{sc.ids[start]}, where the units stand, is not a rail hex the {side} player may use "
                           + _RAIL_USABLE[side], None)
    a, total = start, 0
    for b in path:
        c = rail_cost(sc, ctx_, a, b)
        if c is None and not sc.adjacent(a, b):
            # the destination alone, as players write it first (a players' probe: "no railroad
            # connects" two hexes a railroad did connect, eight hexes apart)
            stand = ", where the units stand" if a == start else ""
            raise IllegalOrder("6.3", f"{sc.ids[b]} is not next to {sc.ids[a]}{stand}: the path of a rail move lists "
                               f"every hex entered, one after another, along the railroad (`pbem orders GAME_DIR "
                               f"--only {units[0]}` lists its rail moves)", None)
        if c is None:
            raise IllegalOrder("6.32", f"no railroad connects {sc.ids[a]} and {sc.ids[b]}", None)
        if b in ctx_.blocking:
            raise IllegalOrder("6.21", f"{sc.ids[b]} holds enemy units", None)
        if b in ctx_.ezoc:
            raise IllegalOrder("6.32", f"{sc.ids[b]} is in an Enemy Zone of Control: no rail movement into it", None)
        if not rail_hex_usable(sc, rules, side, b, ctx_.friendly):
            rule = "6.41" if side == "axis" else "6.46"
            raise IllegalOrder(rule, f"{sc.ids[b]} is not a rail hex the {side} player may use " + _RAIL_USABLE[side],
                               None)
        total += c
        a = b
    if total > RAIL_MP:
        raise IllegalOrder("6.33", f"the rail move costs {total} Rail Movement Points, more than {RAIL_MP}", None)
    west = goes_west(sc, start, path)
    check_east_only(sc, rules, units, west, False)
    begin(rules, units)
    record_east_only(rules, units, west, False)
    rules["rail_used"] = used + need
    for uid in units:
        st.mark(rules["ps"]["rail"], uid)
        rules["ps"]["moved"][uid] = rules["ps"]["moved"].get(uid, 0)
        if sc.units[uid].air:
            st.mark(rules["air_moved"], uid)
        if sc.units[uid].truck:
            drop_railheads(sc, rules, uid, ctx.event)
    for b in path:
        arrive(sc, rules, board, side, b, ctx.event)
    for uid in units:
        st.put(rules, uid, sc.ids[a])
    counted = sum(rail_units(sc, u) for u in units)
    why = (f", this move {counted}: a Soviet tank or mechanized corps or an air unit counts three, an HQ none "
           f"(6.31, 11.22)"
           if counted != len(units) else "")      # players' probe: a tank corps's 3 read as a miscount
    ctx.event("rail", f"{', '.join(units)} {verb(units, 'move')} by rail {sc.ids[start]} -> {sc.ids[a]} ({total} RMP; {rules['rail_used']} "
              f"of the {side} player's {RAIL_LIMIT[side]} rail units this Game-Turn{why}).", side=side, units=units,
              path=[sc.ids[start]] + [sc.ids[b] for b in path], rmp=total, rule="6.3")


# --- reinforcements (15.0-15.3) ---------------------------------------------------------------------

def entry_section(sc: Scenario, rules: dict, uid: str) -> str:
    """The map section a Soviet reinforcement enters on (15.3): north, south, or any (11.5)."""
    return rules["ready_map"].get(uid) or sc.units[uid].map or "north"


def entry_hexes(sc: Scenario, rules: dict, side: str, uid: str, board: Board) -> tuple[list[int], list[int]]:
    """(edge hexes entered paying their cost, city hexes placed at no cost) for a reinforcement."""
    blocking = board.blocking(side)
    if side == "axis":
        if st.status(rules, uid) == "exited":
            from .victory import holds_astrakhan

            return [], ([sc.idx[sc.astrakhan["hex"]]] if holds_astrakhan(sc, rules, board) else [])
        return [i for i in sorted(sc.edge["west"]) if i not in blocking], []     # 15.1
    edge, cities = sc.soviet_entry[entry_section(sc, rules, uid)]                # 15.3; 11.5: "any"
    return ([i for i in edge if i not in blocking and st.control(sc, rules, i) == "soviet"],
            [i for i in cities if i not in blocking and st.control(sc, rules, i) == "soviet"])


def enter(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    """15.1, 15.3: reinforcements (and units due back) enter in the Initial Movement Phase."""
    if rules["phase"] != "move":
        raise IllegalOrder("15.0", "reinforcements enter in the Initial Movement Phase", None)
    units = order.get("units") or []
    if not units or len(set(units)) != len(units):
        raise IllegalOrder("15.0", "name one or more different units", None)
    for uid in units:
        if uid not in sc.units or sc.side_of[uid] != side:
            raise IllegalOrder("15.0", not_own_unit(sc, uid, side, ready(sc, rules, side)), None)
        if st.status(rules, uid) not in ("ready", "exited") or (st.status(rules, uid) == "exited" and side != "axis"):
            raise IllegalOrder("15.0", f"{uid} is not a reinforcement ready to enter", None)
    path = _hexes(sc, order.get("path") or [], "15.0")
    if not path:
        raise IllegalOrder("15.0", "give the hex of entry (and the path beyond it)", None)
    board = view(sc, rules)
    entry = path[0]
    for uid in units:
        edge, cities = entry_hexes(sc, rules, side, uid, board)
        if entry not in edge and entry not in cities:
            if side == "axis" and st.status(rules, uid) == "exited":
                raise IllegalOrder("19.22", f"{sc.ids[entry]} is not a hex where {uid} may enter: a unit that exited "
                                   f"comes back at Astrakhan, {sc.astrakhan['hex']}, while an Axis combat unit or HQ "
                                   f"stands there", None)
            if side == "axis":
                raise IllegalOrder("15.1", f"{sc.ids[entry]} is not a hex where {uid} may enter (the west edge)", None)
            # the section named (a players' probe: a south-map reinforcement refused at N0741, unsaid)
            section = entry_section(sc, rules, uid)
            where = "either map section" if section == "any" else f"the {section} map section"
            raise IllegalOrder("15.3", f"{sc.ids[entry]} is not a hex where {uid} may enter (it enters on {where}: a "
                               f"Soviet-controlled rail hex on its north, east or south edge, or a Soviet-controlled "
                               f"city there)", None)
    if side == "soviet" and entry in sc.city_of:
        city = sc.city_of[entry]
        limit = 3 if city.cls == "major" else 1
        placed = rules["ps"].setdefault("placed", {})
        if placed.get(city.name, 0) + len(units) > limit:
            raise IllegalOrder("15.3", f"at most {limit} unit{'s' if limit > 1 else ''} may be deployed in "
                               f"{city.name} in a turn", None)
        placed[city.name] = placed.get(city.name, 0) + len(units)
    free = entry in sc.city_of and side == "soviet" or st.status(rules, units[0]) == "exited"
    ctx_ = context(sc, rules, side)
    if entry in ctx_.blocking:
        raise IllegalOrder("6.21", f"{sc.ids[entry]} holds enemy units", None)
    costs = {}
    for uid in units:
        cls = sc.units[uid].move_class
        c = sc._enter[cls][entry]
        if c == BLOCKED:
            raise IllegalOrder("10.33", f"{uid} may not enter the mountain hex {sc.ids[entry]}", None)
        costs[uid] = 0 if free else c + (sc.interdiction_extra if entry in ctx_.interdicted else 0)
    for uid in units:
        st.put(rules, uid, sc.ids[entry])
        rules["ready_map"].pop(uid, None)
        if uid in rules["exits"]:
            st.unmark(rules["exits"], uid)
        st.mark(rules["ps"]["fresh"], uid)                                   # 12.53 errata
        rules["ps"]["moved"][uid] = costs[uid]
    begin(rules, units)
    arrive(sc, rules, None, side, entry, ctx.event)
    # 6.55 (and 11.47: an overrun is an attack, 6.51): a unit entering beyond the Radius of every
    # HQ of its nationality was within none as the phase began either, and may not overrun in
    # it, as flow.begin_phase has it for the units then on the map (a review: a tank corps
    # entered at Stalingrad, no Soviet HQ on the map, and overran at once)
    board = None
    for uid in units:
        if sc.units[uid].combat and sc.units[uid].nation not in sp.DIRECT:
            board = board or view(sc, rules)
            if not sp.in_radius(sc, rules, board, side, uid):
                st.mark(rules["ps"]["no_overrun"], uid)
    ctx.event("enter", f"{', '.join(units)} {verb(units, 'enter')} at {sc.ids[entry]} ({'15.1' if side == 'axis' else '15.3'}).",
              side=side, units=units, hex=sc.ids[entry], mp=costs, rule="15.1" if side == "axis" else "15.3")
    rest = [sc.ids[b] for b in path[1:]]
    if rest:
        if order.get("rail"):
            rail(sc, rules, side, {"type": "rail", "units": units, "path": rest}, ctx, entering=True)
        else:
            move(sc, rules, side, {"type": "move", "units": units, "path": rest}, ctx)


# --- 11.5, 14.6: evacuation -------------------------------------------------------------------------

def evacuate(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    if rules["phase"] != "move" or not rules["ps"]["evacuate"]:
        raise IllegalOrder("11.5", "units are evacuated at the beginning of the Initial Movement Phase, before any "
                           "other order of that phase", None)
    units = order.get("units") or []
    if not units:
        raise IllegalOrder("11.5", "name the units to evacuate", None)
    for uid in units:
        if uid not in sc.units or sc.side_of[uid] != side:
            raise IllegalOrder("11.5", not_own_unit(sc, uid, side), None)
        if not st.on_map(rules, uid):
            raise IllegalOrder("11.5", st.not_on_map(rules, uid), None)
        u = sc.units[uid]
        if not (u.air or (u.hq and side == "soviet")):
            raise IllegalOrder("11.5", f"{uid} may not be evacuated: only Soviet HQs and air units (14.6)", None)
        if st.has(rules["disrupted"], uid):
            raise IllegalOrder("11.5", f"{uid} is disrupted and may not be evacuated (errata)", None)
    for uid in sorted(units):
        st.remove(rules, uid, "due", rules["turn"] + RETURN_DELAY)
    ctx.event("evacuate", f"{', '.join(sorted(units))} evacuated; back as reinforcements on Game-Turn "
              f"{rules['turn'] + RETURN_DELAY} (11.5).", side=side, units=sorted(units), rule="11.5")


# --- legal moves, for the orders template and the bots ------------------------------------------------

def movers(sc: Scenario, rules: dict, side: str, board: Board):
    """Stacks (units that may still move together, 6.28), the current stack first, then hex
    by hex in id order (`board`: the side's units)."""
    ps = rules["ps"]
    cur = [u for u in ps["current"] if st.on_map(rules, u) and may_move(sc, rules, u) is None
           and not sc.units[u].air]
    if cur:
        yield cur
    moved = ps["moved"]
    for i in sorted(board.occ):
        us = [u for u in board.occ[i] if u not in moved and not sc.units[u].air and may_move(sc, rules, u) is None]
        if us:
            yield us


def options(sc: Scenario, rules: dict, side: str, limit: int = 24, board: Board | None = None,
            ctx: Context | None = None) -> list[dict]:
    """A finite, representative set of legal movement orders: the next stack able to move
    with up to `limit` destinations (within the stacking limit), its rail moves, and the
    reinforcements' entries and evacuations. `board` (the side's half view) and `ctx` (its
    movement Context): of the rules as they stand, when the caller has them."""
    board = board or half_view(sc, rules, side)
    ctx = ctx or context(sc, rules, side)
    out: list[dict] = []
    for stack in movers(sc, rules, side, board):
        start = sc.idx[st.hex_of(rules, stack[0])]
        if start in ctx.ezoc:
            continue
        moves = _moves(sc, rules, ctx, board, stack, start, limit)
        if not moves:
            continue
        out += moves + _rail_moves(sc, rules, ctx, board, side, stack, start, limit=3)
        break
    if rules["phase"] == "move":
        out += _entries(sc, rules, side, board, ctx)
        if rules["ps"]["evacuate"]:
            on_map = [u for u, w in zip(sc.side_units[side], sc.places(rules["units"], side)) if w not in st.OFF_MAP]
            for uid in on_map:                                              # in id order
                u = sc.units[uid]
                if (u.air or (u.hq and side == "soviet")) and not st.has(rules["disrupted"], uid) \
                        and uid not in rules["ps"]["moved"]:
                    out.append({"type": "evacuate", "units": [uid]})
                    break
    return out


def unit_options(sc: Scenario, rules: dict, side: str, uid: str) -> list[dict]:
    """Every legal move of `uid` alone, for `pbem orders --only UNIT`: its entry at every entry
    hex (a reinforcement ready, 15.1), its moves to every hex it can reach (6.1), a Soviet
    unit's strategic withdrawals to every hex only a withdrawal reaches (18.11: out of an Axis
    ZOC, or through one) and, in the Initial Movement Phase, by rail to every rail hex (6.3;
    air units move by rail only, 14.12), each within the stacking limit."""
    board = half_view(sc, rules, side)
    ctx = context(sc, rules, side)
    out = _entries(sc, rules, side, board, ctx, uid) if rules["phase"] == "move" else []
    if not st.on_map(rules, uid):
        return out
    start = sc.idx[st.hex_of(rules, uid)]
    held = start in ctx.ezoc
    if not sc.units[uid].air and may_move(sc, rules, uid) is None:
        # 18.11: a unit that ignored Axis ZOC this phase moves on east only (as a withdrawal);
        # one that entered a hex not east ignores them no more (`check_east_only`)
        withdrawing, not_east = (st.has(rules["ps"].get(key, ()), uid) for key in ("withdrawing", "not_east"))
        plain = [] if held or withdrawing else _moves(sc, rules, ctx, board, [uid], start)
        out += plain
        if side == "soviet" and may_withdraw(rules, uid) and not not_east:
            reached = {o["path"][-1] for o in plain}
            out += [o for o in _moves(sc, rules, ctx, board, [uid], start, withdraw=True) if o["path"][-1] not in reached]
    if not held and may_move(sc, rules, uid, rail=True) is None:
        out += _rail_moves(sc, rules, ctx, board, side, [uid], start)
    return out


def _moves(sc: Scenario, rules: dict, ctx: "Context", board: Board, stack: list[str], start: int,
           limit: int | None = None, withdraw: bool = False) -> list[dict]:
    """The stack's moves from `start` to each hex it can reach and end in (within the stacking
    limit); to `limit` of them, spread over the hexes in id order, if given; with `withdraw`,
    its strategic withdrawals (18.11)."""
    budget = min(remaining(sc, rules, u) for u in stack)
    first_free = all(one_hex_free(rules, u) for u in stack)                                  # 6.14
    reach, parent = search(ctx, start, _common_class(sc, stack), budget, first_step_free=first_free, withdraw=withdraw)
    ends = [b for b in sorted(reach) if b != start]
    if limit is not None and len(ends) > limit:
        ends = [ends[k * len(ends) // limit] for k in range(limit)]
    alone = stacking_ok(sc, rules, stack)          # what _fits says of a hex with none of the side's units
    flag = {"withdraw": True} if withdraw else {}
    return [{"type": "move", "units": stack, "path": [sc.ids[x] for x in path_to(parent, start, b)], **flag}
            for b in ends if (_fits(sc, rules, board, stack, b) if board.units_at(b) else alone)]


def _rail_moves(sc: Scenario, rules: dict, ctx: "Context", board: Board, side: str, stack: list[str], start: int,
                limit: int | None = None) -> list[dict]:
    """The stack's rail moves (6.3) in the Initial Movement Phase, farthest first, to each rail
    hex it fits in; to `limit` of those among the six farthest, if given."""
    if rules["phase"] != "move" or any(u in rules["ps"]["moved"] for u in stack) \
            or not rail_hex_usable(sc, rules, side, start, ctx.friendly) \
            or rules["rail_used"] + sum(rail_units(sc, u) for u in stack) > RAIL_LIMIT[side]:     # 6.31, 6.41, 6.46
        return []
    reach, parent = rail_search(sc, rules, ctx, start)
    far = [b for b in sorted(reach, key=lambda x: (-reach[x], x)) if b != start]
    fits = [b for b in (far if limit is None else far[:6]) if _fits(sc, rules, board, stack, b)]
    return [{"type": "rail", "units": stack, "path": [sc.ids[x] for x in path_to(parent, start, b)]}
            for b in (fits if limit is None else fits[:limit])]


def _common_class(sc: Scenario, stack: list[str]) -> str:
    classes = {sc.units[u].move_class for u in stack}
    if "mech" in classes:
        return "mech"
    return "infantry" if "infantry" in classes else "mountain"


def _fits(sc: Scenario, rules: dict, board: Board, stack: list[str], b: int) -> bool:
    """`board` holds the mover's side (a half view) or both."""
    there = [u for u in board.units_at(b) if sc.side_of[u] == sc.side_of[stack[0]] and u not in stack]
    return stacking_ok(sc, rules, there + stack)


def ready(sc: Scenario, rules: dict, side: str) -> list[str]:
    """The side's reinforcements ready to enter (15.1, 15.3), in id order."""
    return [u for u, w in zip(sc.side_units[side], sc.places(rules["units"], side)) if w == "ready"]


def _entries(sc: Scenario, rules: dict, side: str, board: Board, ctx: Context,
             unit: str | None = None) -> list[dict]:
    """The entries of the first reinforcement ready to enter, at six of its entry hexes; of
    `unit` (if ready), at every one, and its entries by rail (`_rail_entries`)."""
    waiting = ready(sc, rules, side)
    out = []
    held = ctx.blocking       # 6.21: `board` may show the mover's side only
    for uid in waiting[:1] if unit is None else [u for u in waiting if u == unit]:
        edge, cities = entry_hexes(sc, rules, side, uid, board)
        cands = [i for i in cities + edge if i not in held]
        placed = rules["ps"].get("placed", {})
        ok = []
        for i in cands:
            if i in sc.city_of:
                city = sc.city_of[i]
                if placed.get(city.name, 0) >= (3 if city.cls == "major" else 1):
                    continue
            if sc._enter[sc.units[uid].move_class][i] == BLOCKED or not _fits(sc, rules, board, [uid], i):
                continue
            ok.append(i)
        step = max(1, len(ok) // 6)
        for i in ok[::step][:6] if unit is None else ok:
            out.append({"type": "enter", "units": [uid], "path": [sc.ids[i]]})
        if unit is not None:
            out += _rail_entries(sc, rules, side, board, ctx, uid, ok)
    return out


def _rail_entries(sc: Scenario, rules: dict, side: str, board: Board, ctx: Context, uid: str,
                  entries: list[int]) -> list[dict]:
    """The unit's entries followed by a rail move (15.1, 15.3 with 6.3: `enter` with `rail`),
    to every rail hex it can reach so and fit in, each once, from the first of `entries` (in
    their order) that reaches it: a players' probe found `--only UNIT` listing entries by foot
    only, and wrote the rail entry by hand."""
    if rules["rail_used"] + rail_units(sc, uid) > RAIL_LIMIT[side] or may_move(sc, rules, uid, rail=True):
        return []
    out, seen = [], set(entries)
    for i in entries:
        if i not in sc.rail_hex or i in ctx.ezoc:                                      # 6.32, 8.22
            continue
        reach, parent = rail_search(sc, rules, ctx, i)
        for b in sorted(reach, key=lambda x: (-reach[x], x)):
            if b not in seen and _fits(sc, rules, board, [uid], b):
                seen.add(b)
                out.append({"type": "enter", "units": [uid], "path": [sc.ids[x] for x in [i] + path_to(parent, i, b)],
                            "rail": True})
    return out
