"""Movement (8.x), reinforcements (11.x) and leaving the map by the south-edge road (4.4)."""

from __future__ import annotations

import heapq
from functools import cached_property
from weakref import WeakKeyDictionary

from pbem.core.text import agreeing, no_unit

from ..base import IllegalOrder
from . import board as bd
from . import removal
from . import state as st
from .scenario import Scenario, other


def budget(sc: Scenario, rules: dict, uid: str) -> int:
    """Movement allowance in half MP. 8.6/9.12.1: a Half Move marker halves it (rounded down
    in whole MP); 8.7: a German self-propelled gun that has fired moves at half too."""
    u = sc.units[uid]
    if st.marked(rules, "half", uid) or (u.sp and st.marked(rules, "fired", uid)):
        return (u.mp // 2) * 2
    return u.mp * 2


def _budgets(sc: Scenario, rules: dict, uids: list[str]) -> dict[str, int]:
    """budget() of each of these units, reading each marker list once."""
    marks = rules["markers"]
    slowed = set(marks["half"]).union(u for u in marks["fired"] if sc.units[u].sp)
    units = sc.units
    return {u: (units[u].mp // 2) * 2 if u in slowed else units[u].mp * 2 for u in uids}


def why_not_move(sc: Scenario, rules: dict, uid: str, side: str) -> tuple[str, str] | None:
    """None if the unit may start a move now, else (rule, reason)."""
    u = sc.units.get(uid) if isinstance(uid, str) else None
    if u is None:
        return "8.0", no_unit(sc.unit_ids, uid, [u for u in sc.side_ids[side] if st.on_map(rules, u)])
    if u.side != side:
        return "8.0", f"{uid} is not a {side} unit"
    if not st.on_map(rules, uid):
        return "8.0", f"{uid} is not on the map"
    if st.moved(rules, uid) or st.marked(rules, "done", uid):
        return "8.1", f"{uid} has completed its movement"
    if st.marked(rules, "no-move", uid):
        return "8.6", f"{uid} retreated from defensive fire in its concentrated attack and may not move"
    if st.marked(rules, "confusion", uid):
        return "8.0", f"{uid} has a confusion marker and may not move"
    if u.cls == "artillery" and st.marked(rules, "fired", uid) and not (u.sp and u.side == "german"):
        return "8.7", f"{uid} is artillery with a fired marker and may not move"
    return None


def step_cost(sc: Scenario, uid: str, a: str, c: str) -> int:
    """8.3, 8.4: road cost along a road (bridges cancel rivers); else the terrain of the hex
    entered, plus the river hexside."""
    return sc.cost[sc.units[uid].move_class][a][c]


# Movement searches of each scenario, by everything they depend on (see _search): pure
# functions of their inputs, remembered between calls (the most recently used MAX_SEARCHES:
# a search is wanted again while the board around its start stays as it was, within a few
# moves); forgotten with their scenario.
_SEARCHES: "WeakKeyDictionary[Scenario, dict]" = WeakKeyDictionary()
MAX_SEARCHES = 1024


class _Search:
    """One search and what is made of it: its rows, as a move and as an entry, and the move
    orders of each group of units that used it. Shared by every caller: read-only."""

    __slots__ = ("found", "rows", "orders", "moves")

    def __init__(self, found: dict[str, tuple[int, list[str]]]):
        self.found = found  # {hex: (cost, path after the origin)}, sorted by hex
        self.rows: dict[bool, list[tuple[str, int, list[str]]]] = {}
        self.orders: dict[tuple[str, ...], list[tuple[str, int, dict]]] = {}
        self.moves: dict[tuple[tuple[str, ...], int], tuple[list[tuple[str, dict]], list[dict]]] = {}

    def rows_from(self, origin: str, entering: bool) -> list[tuple[str, int, list[str]]]:
        """[(hex, cost, path)] sorted by hex: a move's path after its start (which is no row),
        an entry's from the entry hex."""
        rows = self.rows.get(entering)
        if rows is None:
            found = self.found
            rows = self.rows[entering] = [(h, c, [origin] + p) for h, (c, p) in found.items()] if entering \
                else [(h, c, p) for h, (c, p) in found.items() if h != origin]
        return rows

    def move_options(self, origin: str, units: list[str], limit: int) -> tuple[list[tuple[str, dict]], list[dict]]:
        """The orders moving these units from `origin` to each hex within `limit` half MP, in
        the order of the rows: [(hex, order)] and the orders alone."""
        key = tuple(units)
        made = self.moves.get((key, limit))
        if made is None:
            every = self.orders.get(key)
            if every is None:
                every = self.orders[key] = [(h, c, {"type": "move", "units": units, "path": p})
                                            for h, (c, p) in self.found.items() if h != origin]
            pairs = [(h, order) for h, c, order in every if c <= limit]
            made = self.moves[key, limit] = (pairs, [order for _, order in pairs])
        return made


class _View:
    """What a move needs to know about the board at its start (computed once per order,
    the rest when first asked, before the state changes)."""

    def __init__(self, sc: Scenario, rules: dict, side: str):
        self.sc = sc
        self.rules = rules
        self.side = side
        self.ezoc, self.tank_ezoc = bd.ezoc(sc, rules, side)
        self.enemy = bd.occupied(sc, rules, other(side))

    @cached_property
    def friends(self) -> dict[str, list[str]]:
        return bd.stacks(self.sc, self.rules, self.side)

    @cached_property
    def ezoc_fs(self) -> frozenset:
        return frozenset(self.ezoc)

    @cached_property
    def enemy_fs(self) -> frozenset:
        return frozenset(self.enemy)

    @cached_property
    def support_blocked(self) -> frozenset:
        """Hexes anti-tank and artillery moving without armour or infantry may not enter (8.1, 8.5.1)."""
        arms, friends = self.sc.combat_arms, self.friends
        escorted = {h for h in self.ezoc.intersection(friends) if any(x in arms for x in friends[h])}
        return self.enemy_fs | frozenset(self.ezoc.difference(escorted))

    @cached_property
    def loads(self) -> dict[str, tuple]:
        """Each friendly stack's board.stack_load."""
        sc = self.sc
        return {h: bd.stack_load(sc, us) for h, us in self.friends.items()}

    def friendly_combat_arm(self, h: str, movers: list[str]) -> bool:
        arms = self.sc.combat_arms
        return any(x in arms for x in self.friends.get(h, []) if x not in movers)

    def fitting(self, movers: list[str]):
        """(fits, alone): may `movers` (none of them in a friendly stack) end a move in a
        hex within the stacking limit (6.4): fits(hex), and alone in an empty hex?"""
        side, loads = self.side, self.loads
        mine = bd.stack_load(self.sc, movers)
        alone = len(movers) <= 1 or bd.loads_fit(side, mine, bd.NO_LOAD)

        def fits(dest: str) -> bool:
            load = loads.get(dest)
            return alone if load is None else bd.loads_fit(side, load, mine)
        return fits, alone


def _support_only(sc: Scenario, uids: list[str]) -> bool:
    arms = sc.combat_arms
    return not any(u in arms for u in uids)


def check_path(sc: Scenario, rules: dict, side: str, uids: list[str], start: str | None, path: list[str], *,
               exit_map: bool = False, order_text: str = "move") -> dict:
    """Validate a move (or an entry when start is None) and return what it costs and whether
    it needs a tactical retreat die. Raises IllegalOrder."""
    v = _View(sc, rules, side)
    for h in path:
        if h not in sc:
            raise IllegalOrder("2.1", f"{order_text}: there is no hex {h} on the map", None)
    spent = {u: 0 for u in uids}
    prev = start
    tactical = False
    if start is not None and start in v.ezoc and (path or exit_map):
        tactical = True
    for i, h in enumerate(path):
        if h in v.enemy:
            raise IllegalOrder("8.1", f"{order_text}: {h} holds enemy units", None)
        if prev is None:
            # 11.1: the first hex of an entry costs the normal (road) cost
            for u in uids:
                spent[u] += sc.road_cost[sc.units[u].move_class]
        else:
            if i == 0 and h == prev:   # a players' probe: "1932 and 1932 are not adjacent"
                raise IllegalOrder("8.1", f"{order_text}: the path lists the hexes entered, one after another: leave "
                                   f"out {h}, where the units stand", None)
            if not sc.adjacent(prev, h):
                # the destination alone is what a player first writes (a players' probe)
                # (or a queued move whose units stand elsewhere now: where they stand is said too)
                how = (f": the units stand in {prev}, and `path` lists every hex they enter, one after another, the "
                       f"last where they stop (`pbem orders GAME_DIR --only {uids[0]}` lists their paths)"
                       if i == 0 and uids else "")
                raise IllegalOrder("8.1", f"{order_text}: {prev} and {h} are not adjacent{how}", None)
            if prev in v.ezoc and i > 0:
                raise IllegalOrder("8.5.1", f"{order_text}: the units entered an enemy zone of control in {prev} "
                                   f"and must stop there", None)
            if i == 0 and tactical and h in v.ezoc and not v.friends.get(h):
                raise IllegalOrder("8.5.3", f"{order_text}: {h} is in an enemy zone of control entered directly "
                                   f"from another EZOC hex ({start}); only a hex with a friendly unit may be entered so",
                                   None)
            for u in uids:
                spent[u] += step_cost(sc, u, prev, h)
        if h in v.ezoc and _support_only(sc, uids) and not v.friendly_combat_arm(h, uids):
            raise IllegalOrder("8.5.1", f"{order_text}: anti-tank and artillery units may enter the enemy zone of "
                               f"control in {h} only with an armoured or infantry unit", None)
        prev = h
    last = prev
    if exit_map:
        if side != "soviet":
            raise IllegalOrder("4.4", f"{order_text}: German units may not leave the map", None)
        if last not in sc.exit:
            raise IllegalOrder("4.4", f"{order_text}: units leave the map only from the south-edge road hex "
                               f"{', '.join(sorted(sc.exit))}", sorted(sc.exit))
        if path and last in v.ezoc:
            raise IllegalOrder("8.5.1", f"{order_text}: {last} is in an enemy zone of control; the units stop there", None)
        for u in uids:
            spent[u] += sc.exit_cost
    for u in uids:
        if spent[u] > budget(sc, rules, u):
            raise IllegalOrder("8.1", f"{order_text}: {u} needs {spent[u] / 2:g} MP and has {budget(sc, rules, u) / 2:g}",
                               None)
    return {"spent": spent, "tactical": tactical, "last": last,
            "tank_ezoc": start in v.tank_ezoc if start else False}


def _check_stack(sc: Scenario, rules: dict, side: str, uids: list[str], order_text: str) -> str:
    if not uids or len(set(uids)) != len(uids):
        raise IllegalOrder("6.5", f"{order_text}: name each moving unit once", None)
    for u in uids:
        reason = why_not_move(sc, rules, u, side)
        if reason:
            raise IllegalOrder(reason[0], f"{order_text}: {reason[1]}", movable(sc, rules, side))
    hexes = {st.hex_of(rules, u) for u in uids}
    if len(hexes) != 1:
        # where each stands (a players' probe: a unit of the stack had advanced after combat,
        # and the refusal alone did not say so)
        by_hex: dict[str, list[str]] = {}
        for u in uids:
            by_hex.setdefault(st.hex_of(rules, u), []).append(u)
        where = ", ".join(f"{', '.join(us)} {agreeing(us, 'is', 'are')} in {h}" for h, us in by_hex.items())
        raise IllegalOrder("6.5", f"{order_text}: only units in the same hex may move together as a stack, and {where}",
                           None)
    return hexes.pop()


def tactical_retreat(sc: Scenario, rules: dict, side: str, uids: list[str], start: str, tank_ezoc: bool, ctx,
                     label: str) -> bool:
    """8.5.2: leaving an EZOC. Supported (a unit of the stack stays behind in the EZOC):
    automatic. Unsupported: one die for the stack, 1-3 succeeds, -1 if every unit is
    motorised and the EZOC is not a tank ZOC."""
    staying = [u for u in bd.units_in(sc, rules, start, side) if u not in uids]
    if staying:
        ctx.event("tactical-retreat", f"{', '.join(uids)} {agreeing(uids, 'leaves', 'leave')} the enemy zone of control "
                  f"in {start} with support ({', '.join(staying)} {agreeing(staying, 'stays', 'stay')}): automatic "
                  f"success.", units=uids, hex=start, supported=True, success=True, rule="8.5.2")
        return True
    die = ctx.d6(label)
    mod = -1 if all(sc.units[u].mot for u in uids) and not tank_ezoc else 0
    success = die + mod <= 3
    ctx.event("tactical-retreat", f"{', '.join(uids)} {agreeing(uids, 'attempts', 'attempt')} a tactical retreat "
              f"from {start} without support: "
              f"die {die}{' -1 (all motorised, not a tank ZOC)' if mod else ''} = {die + mod}: "
              # the roll it needed, for a reader without the rulebook (an audience's walkthrough)
              f"{'success' if success else 'failure, movement ends'} (3 or less succeeds, 8.5.2).", units=uids,
              hex=start, supported=False,
              die=die, modifier=mod, success=success, rule="8.5.2")
    return success


def move(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    uids = sorted(order.get("units") or [])
    path = list(order.get("path") or [])
    exit_map = bool(order.get("exit", False))
    text = f"move {','.join(uids)}"
    start = _check_stack(sc, rules, side, uids, text)
    if not path and not exit_map:
        raise IllegalOrder("8.1", f"{text}: give the hexes of the path (or exit: true)", None)
    info = check_path(sc, rules, side, uids, start, path, exit_map=exit_map, order_text=text)
    ps = rules["ps"]
    ps["moves"] += 1
    ps["last_move"] = None
    if info["tactical"]:
        ok = tactical_retreat(sc, rules, side, uids, start, info["tank_ezoc"], ctx,
                              f"t{rules['turn']}.{side}.movement.m{ps['moves']}.tactical")
        if not ok:
            for u in uids:
                st.set_moved(rules, u)
                st.mark(rules, "done", u)
            return
    _walk(sc, rules, side, uids, start, path, info, ctx, exit_map)
    ps["last_move"] = {"units": uids, "may_attack": not exit_map}
    if not exit_map:
        _stacking(sc, rules, side, uids, info["last"], "move", ctx)


def _walk(sc: Scenario, rules: dict, side: str, uids: list[str], start: str | None, path: list[str], info: dict, ctx,
          exit_map: bool) -> None:
    for h in path:
        bd.enter(sc, rules, h, side)
    for u in uids:
        st.put(rules, u, info["last"])
        st.set_moved(rules, u, info["spent"][u])
    where = " -> ".join(([start] if start else []) + path)
    ctx.event("move", f"{', '.join(uids)} {agreeing(uids, 'moves', 'move')} {where} "
              f"({max(info['spent'].values()) / 2:g} MP).",
              units=uids, path=([start] if start else []) + path, mp_halves=max(info["spent"].values()), rule="8.1")
    if exit_map:
        exit_units(sc, rules, uids, info["last"], ctx)


def exit_units(sc: Scenario, rules: dict, uids: list[str], h: str, ctx) -> None:
    """4.4: Soviet units leave by the south-edge road; their strength scores only if a line of
    communication runs from the exit to 4316 or 4323 avoiding German units and control."""
    from .victory import exit_line

    line = exit_line(sc, rules, h)
    for u in uids:
        rules["exit_vp"][u] = st.strength(sc, rules, u) * sc.victory["exit_vp_per_point"] if line else 0
        st.remove(rules, u, "exited")
    total = sum(rules["exit_vp"][u] for u in uids)
    ctx.event("exit", f"{', '.join(uids)} {agreeing(uids, 'leaves', 'leave')} the map at {h}: "
              + (f"line of communication to {'/'.join(sc.exit_loc_to)} open, {total} VP."
                 if line else "no line of communication to the Soviet entry hexes, no VP."),
              units=uids, hex=h, line=line, vp=total, rule="4.4")


def enter_reinforcements(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    uids = sorted(order.get("units") or [])
    path = list(order.get("path") or [])
    text = f"enter {','.join(uids)}"
    if not uids or not path:
        raise IllegalOrder("11.1", f"{text}: name the units and the path starting at the entry hex", None)
    entries = set()
    for u in uids:
        unit = sc.units.get(u) if isinstance(u, str) else None
        if unit is None or unit.side != side or st.where(rules, u) != "pool" or unit.entry_hex is None:
            raise IllegalOrder("11.1", f"{text}: {u} is not a {side} reinforcement waiting to enter",
                               waiting(sc, rules, side))
        if unit.entry_turn > rules["turn"]:
            raise IllegalOrder("11.1", f"{text}: {u} enters on GT {unit.entry_turn}, not before", waiting(sc, rules, side))
        entries.add(unit.entry_hex)
    if len(entries) != 1 or path[0] != next(iter(entries)):
        raise IllegalOrder("11.1", f"{text}: the units enter together at their entry hex "
                           f"{', '.join(sorted(entries))}", None)
    entry = path[0]
    if bd.side_in(sc, rules, entry) not in (None, side):
        raise IllegalOrder("11.1", f"{text}: enemy units hold the entry hex {entry}; the reinforcements wait", None)
    info = check_path(sc, rules, side, uids, None, path, exit_map=bool(order.get("exit", False)), order_text=text)
    rules["ps"]["moves"] += 1
    _walk(sc, rules, side, uids, None, path, info, ctx, bool(order.get("exit", False)))
    rules["ps"]["last_move"] = {"units": uids, "may_attack": not order.get("exit", False)}
    if not order.get("exit", False):
        _stacking(sc, rules, side, uids, info["last"], "entry", ctx)


def _stacking(sc: Scenario, rules: dict, side: str, uids: list[str], h: str, what: str, ctx) -> None:
    """6.4: the stacking limit applies at the end of the move (before a manoeuvre attack);
    a move may end over it, and the player then removes units of the hex to comply."""
    removal.require(sc, rules, h, side, bd.units_in(sc, rules, h, side), "6.4", f"the {what} of {', '.join(uids)}", ctx)


def waiting(sc: Scenario, rules: dict, side: str) -> list[str]:
    return [u for u, x in sc.units.items()
            if x.side == side and st.where(rules, u) == "pool" and x.entry_hex and x.entry_turn <= rules["turn"]]


def movable(sc: Scenario, rules: dict, side: str) -> list[str]:
    """The units of `side` that may start a move now (why_not_move gives None), sorted."""
    stopped = _stopped(sc, rules, side)
    return [u for u in bd.on_map(sc, rules, side) if u not in stopped]


def _stopped(sc: Scenario, rules: dict, side: str) -> set[str]:
    """The units whose markers forbid a move now (why_not_move's reasons after the first three)."""
    marks = rules["markers"]
    units = sc.units
    stopped = set(rules["moved"]).union(marks["done"], marks["no-move"], marks["confusion"])
    stopped.update(u for u in marks["fired"]
                   if units[u].cls == "artillery" and not (units[u].sp and units[u].side == "german"))
    return stopped


# --- legal options ---------------------------------------------------------------------------

def _reach(sc: Scenario, origin: str, budget: int, table, blocked: set, ezoc: set, first_block: set) -> dict:
    """Dijkstra from `origin` within `budget` (half MP): {hex: (cost, path)}, sorted by hex,
    each path the hexes entered after the origin. The same search, with the same tie-breaking, as
    pbem.core.geometry.paths.reachable_paths with EZOC hexes as stops: the frontier is ordered
    by (cost, hex) and of two equally cheap ways into a hex the one through the lower
    predecessor is kept. `blocked` hexes may not be entered; `first_block` not on the first step."""
    neigh = sc.neigh
    best = {origin: 0}
    parent: dict[str, str] = {}
    settled: dict[str, int] = {}
    frontier = [(0, origin)]
    pop, push = heapq.heappop, heapq.heappush
    while frontier:
        c, node = pop(frontier)
        if node in settled:
            continue
        settled[node] = c
        if node in ezoc and node != origin:
            continue
        row = table[node]
        barred = first_block if node == origin else ()
        for nxt in neigh[node]:
            if nxt in settled or nxt in blocked or nxt in barred:
                continue
            total = c + row[nxt]
            if total > budget:
                continue
            old = best.get(nxt)
            if old is None or total < old or (total == old and node < parent[nxt]):
                best[nxt] = total
                parent[nxt] = node
                push(frontier, (total, nxt))
    route: dict[str, list[str]] = {origin: []}
    for node in settled:
        if node != origin:
            route[node] = route[parent[node]] + [node]
    return {h: (settled[h], route[h]) for h in sorted(settled)}


def destinations(sc: Scenario, rules: dict, side: str, uids: list[str], start: str | None, entry: str | None = None,
                 v: "_View | None" = None) -> dict[str, tuple[int, list[str]]]:
    """Cheapest legal path to every hex the group can reach (a conservative search: each
    step costs the dearest of the group's costs; the allowance is the smallest)."""
    rows = _destination_rows(sc, rules, side, uids, start, entry, v or _View(sc, rules, side), None)
    return {h: (c, p) for h, c, p in rows}


def _kind(sc: Scenario, uids: list[str]) -> tuple[tuple[str, ...], bool]:
    """What a group's search depends on besides its origin and allowance: its movement
    classes, and whether it is anti-tank and artillery only (8.5.1)."""
    move_class = sc.move_class_of
    if len(uids) == 1:
        return (move_class[uids[0]],), uids[0] not in sc.combat_arms
    return tuple(sorted({move_class[u] for u in uids})), _support_only(sc, uids)


def _destination_rows(sc: Scenario, rules: dict, side: str, uids: list[str], start: str | None, entry: str | None,
                      v: "_View", cache: dict | None) -> list[tuple[str, int, list[str]]]:
    """destinations() as [(hex, cost, path)] sorted by hex (see _search for `cache`)."""
    limit = min(_budgets(sc, rules, uids).values())
    classes, support_only = _kind(sc, uids)
    first = 0
    if start is None:
        first = max(sc.road_cost[c] for c in classes)
        if first > limit:
            return []
        if entry in v.ezoc:                       # 11.1: they stop there; 8.5.1: support units not alone
            return [] if support_only and not v.friendly_combat_arm(entry, uids) else [(entry, first, [entry])]
    allowance = limit - first
    origin = start if start is not None else entry
    reach, search = _search(sc, v, origin, start is None, classes, support_only, allowance, cache)
    rows = search.rows_from(origin, start is None)
    if not first and reach <= allowance:
        return rows  # the search went no farther than this group may: every row is within reach
    return [(h, c + first, p) for h, c, p in rows if c <= allowance]


def _search(sc: Scenario, v: "_View", origin: str, entering: bool, classes: tuple[str, ...], support_only: bool,
            allowance: int, cache: dict | None) -> tuple[int, _Search]:
    """The search of a kind of mover from `origin` (a move's start, or the entry hex when
    `entering`) for at least `allowance` half MP, and the allowance it ran with: the caller
    drops the rows beyond its own. `cache` (one options() call, one board view) shares
    searches between groups that move alike."""
    key = (origin, entering, classes, support_only)
    reach = allowance
    if cache is not None:
        # one search per origin and kind of mover, run with the largest allowance any group
        # of this options() call needs: every step costs at least 1, so the hexes within a
        # smaller allowance have the same cheapest costs and the same (tie-broken) paths
        reach = max(allowance, cache.get("need", {}).get(key, 0))
        hit = cache.get("found", {}).get(key)
        if hit is not None and hit[0] >= allowance:
            return hit
    blocked = v.enemy_fs
    if support_only:
        # 8.5.1: anti-tank and artillery enter an EZOC only where friendly armour or infantry
        # stands (the movers themselves are neither, so they need not be excluded)
        blocked = v.support_blocked
    # 8.5.3: from an EZOC hex not straight into another, unless a friendly unit is there
    first_block = frozenset(h for h in sc.neigh[origin] if h in v.ezoc and not v.friends.get(h)) \
        if not entering and origin in v.ezoc else frozenset()
    # the search is a pure function of these inputs: remembered between calls, with the
    # rows and options made of it (shared by every caller: none may change them)
    memo = _SEARCHES.get(sc)
    if memo is None:
        memo = _SEARCHES[sc] = {}
    memo_key = (origin, reach, classes, blocked, v.ezoc_fs, first_block)
    held = memo.pop(memo_key, None)
    if held is None:
        if len(memo) >= MAX_SEARCHES:
            del memo[next(iter(memo))]  # the least recently used
        table = sc.cost[classes[0]] if len(classes) == 1 else sc.cost_max
        held = _Search(_reach(sc, origin, reach, table, blocked, v.ezoc, first_block))
    memo[memo_key] = held
    if cache is not None:
        cache.setdefault("found", {})[key] = (reach, held)
    return reach, held


def options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    """A finite, representative set of moves and entries: one cheapest path to every reachable
    hex for each stack and each of its units, ending within the stacking limit (apply also
    accepts paths not listed, and moves ending over the limit: 6.4 removal follows). The
    move orders, their unit lists and paths are remembered with their search and handed to
    every caller again: read them, never change them."""
    v = _View(sc, rules, side)
    friends = v.friends
    stopped = _stopped(sc, rules, side)
    groups: list[tuple[str, list[str]]] = []  # each stack of movable units, then each of its units
    for h, here in friends.items():
        us = [u for u in here if u not in stopped]
        if us:
            groups.append((h, us))
            if len(us) > 1:
                groups.extend((h, [u]) for u in us)
    budgets = _budgets(sc, rules, [u for _, us in groups for u in us])
    plans = []
    need: dict = {}
    for start, us in groups:
        limit = min(budgets[u] for u in us)
        classes, support_only = _kind(sc, us)
        key = (start, False, classes, support_only)
        need[key] = max(need.get(key, 0), limit)
        plans.append((start, us, limit, classes, support_only))
    cache: dict = {"need": need}
    exits = sc.exit if side == "soviet" else frozenset()
    out: list[dict] = []
    side_loads = v.loads
    for start, us, limit, classes, support_only in plans:
        _, search = _search(sc, v, start, False, classes, support_only, limit, cache)
        moves, orders = search.move_options(start, us, limit)
        fits, alone = v.fitting(us)
        found = search.found
        if start in exits and sc.exit_cost <= limit:
            # 4.4: from where they stand; out of an Enemy ZOC by a tactical retreat first (8.5.2)
            out.append({"type": "move", "units": us, "path": [], "exit": True})
        if any(e != start and e in found and found[e][0] <= limit for e in exits):
            for dest, order in moves:
                if fits(dest):
                    out.append(order)
                # 4.4: Soviet units leave the map from the south-edge road hex
                if dest in exits and dest not in v.ezoc and found[dest][0] + sc.exit_cost <= limit:
                    out.append({"type": "move", "units": order["units"], "path": order["path"], "exit": True})
            continue
        # the orders of these loops are most of what a movement phase offers: each friendly
        # stack within reach is checked once, and a group that may end anywhere it reaches
        # takes the remembered orders whole
        crowded = found.keys() & side_loads.keys()
        crowded.discard(start)
        if alone:
            over = {h for h in crowded if not fits(h)}
            out += [order for h, order in moves if h not in over] if over else orders
        else:
            room = {h for h in crowded if fits(h)}
            out += [order for h, order in moves if h in room]
    entries: dict[str, list[str]] = {}
    for u in waiting(sc, rules, side):
        entries.setdefault(sc.units[u].entry_hex, []).append(u)
    for entry, us in sorted(entries.items()):
        if entry in v.enemy and bd.side_in(sc, rules, entry) not in (None, side):
            continue
        sets = [us] + ([[u] for u in us] if len(us) > 1 else [])
        for group in sets:
            fits, _ = v.fitting(group)
            for dest, cost, path in _destination_rows(sc, rules, side, group, None, entry, v, cache):
                if fits(dest):
                    out.append({"type": "enter", "units": group, "path": path})
    return out
