"""Setting up (5.0-5.3): the placements and their checks, a deterministic legal placement of
whatever a player leaves unplaced, and a given starting position (README.md)."""

from __future__ import annotations

from ..base import IllegalOrder
from .board import view, stacking_ok
from .scenario import Scenario
from . import state as st
from . import supply as sp
from .naming import no_hex, not_own_unit

ZONES = {"5.31": (37, 80), "5.32": (29, 36), "5.33": (15, 28), "5.34": (1, 14)}   # joined hexrows
ZONE_WORDS = {"5.31": "hexrows N3700 to the coast of the Sea of Azov", "5.32": "hexrows N2900 to N3600",
              "5.33": "hexrows N1500 to N2800", "5.34": "hexrows N0100 to N1400", "5.35": "anywhere"}


def zone_ok(sc: Scenario, zone: str | None, i: int) -> bool:
    """5.31-5.35 with 5.36: the Axis zone bands, all west of the 28 June 1942 Front Line."""
    if i not in sc.axis_start:
        return False
    if zone in ZONES:
        lo, hi = ZONES[zone]
        return lo <= sc.row[i] <= hi
    return True


def line_band(sc: Scenario) -> frozenset[int]:
    """5.22: the Front Line hexes and the hexes next to them that are not west of it."""
    out = set(sc.front)
    for i in sc.front:
        out.update(j for j in sc.nb[i] if j not in sc.axis_start)
    return frozenset(out)


def to_set_up(sc: Scenario, rules: dict, side: str) -> list[str]:
    return sorted(u for u, w in rules["units"].items() if sc.side_of[u] == side and w == "setup")


def placed(sc: Scenario, rules: dict, side: str) -> list[str]:
    return sorted(u for u, w in rules["units"].items() if sc.side_of[u] == side and w not in st.OFF_MAP)


def place(sc: Scenario, rules: dict, side: str, order: dict) -> None:
    uid, h = order.get("unit"), order.get("hex")
    error = place_error(sc, rules, side, uid, h)
    if error is not None:
        raise error
    st.put(rules, uid, h)


def place_error(sc: Scenario, rules: dict, side: str, uid: str, h: str,
                there: list[str] | None = None) -> IllegalOrder | None:
    """Why `uid` may not be placed in `h` now (None: it may). `there`: the units in `h`, if
    the caller knows them."""
    rule = "5.2" if side == "soviet" else "5.3"
    if uid not in sc.units or sc.side_of[uid] != side:
        return IllegalOrder(rule, not_own_unit(sc, uid, side, [u for u in sc.side_units[side]
                                                               if may_set_up(sc, rules, side, u)]), None)
    if rules["units"][uid] != "setup" and not st.on_map(rules, uid):
        return IllegalOrder("5.21" if side == "soviet" else "5.3", f"{uid} is not one of the units that set up", None)
    if h not in sc.idx:
        return IllegalOrder(rule, no_hex(sc, h), None)
    i = sc.idx[h]
    if side == "soviet":
        if i in sc.axis_start:
            return IllegalOrder("5.22", f"{h} is west of the 28 June 1942 Front Line", None)
    else:
        error = zone_error(sc, uid, i)
        if error is not None:
            return error
    if sc.mountain[i] and sc.units[uid].move_class == "mech":
        return IllegalOrder("10.33", f"{uid} may not stand in a mountain hex", None)
    if there is None:
        there = [u for u, w in rules["units"].items() if w == h]
    there = [u for u in there if u != uid]
    if any(sc.side_of[u] != side for u in there):
        return IllegalOrder("6.21", f"{h} holds enemy units", None)
    if not stacking_ok(sc, rules, there + [uid]):
        return IllegalOrder("7.1", f"{h} would hold more than the stacking limit", None)
    return None


def zone_error(sc: Scenario, uid: str, i: int) -> IllegalOrder | None:
    """Why Axis unit `uid` may not set up in hex `i` whatever the board (None: it may)."""
    zone = sc.units[uid].setup
    if zone is None:
        return IllegalOrder("5.3", f"{uid} is not one of the units that set up", None)
    if zone_ok(sc, zone, i):
        return None
    if i not in sc.axis_start:
        return IllegalOrder("5.36", f"{uid} sets up west of the Front Line", None)
    return IllegalOrder(zone, f"{uid} sets up in the band of {zone}, {ZONE_WORDS[zone]}", None)


def may_set_up(sc: Scenario, rules: dict, side: str, uid: str) -> bool:
    """Whether `uid` is a unit of `side` that a place order may name now (one left to set up,
    or one already placed and placed again)."""
    return uid in sc.units and sc.side_of[uid] == side and (rules["units"][uid] == "setup" or st.on_map(rules, uid))


def place_orders(sc: Scenario, rules: dict, side: str, units: list[str], hexes: list[str] | None = None) -> list[dict]:
    """Every legal place order of `units` (in `hexes`, else anywhere), unit by unit, hexes
    in id order."""
    occupants: dict[str, list[str]] = {}
    for u, w in rules["units"].items():
        if w not in st.OFF_MAP:
            occupants.setdefault(w, []).append(u)
    out = []
    for uid in units:
        for h in hexes if hexes is not None else sc.ids:
            if place_error(sc, rules, side, uid, h, occupants.get(h, [])) is None:
                out.append({"type": "place", "unit": uid, "hex": h})
    return out


def check(sc: Scenario, rules: dict, side: str) -> None:
    """The set-up as a whole: 5.22-5.25 for the Soviet player, 5.3 and 5.36 for the Axis."""
    board = view(sc, rules)
    if side == "soviet":
        band = line_band(sc)
        mine = placed(sc, rules, "soviet")
        near = [u for u in mine if sc.idx[st.hex_of(rules, u)] in band]
        if len(mine) - len(near) > 14:
            raise IllegalOrder("5.24", f"{len(mine) - len(near)} units set up away from the Front Line; at most 14 "
                               f"may (errata)", None)
        open_ = open_front(sc, rules)
        if open_:
            raise IllegalOrder("5.23", f"Front Line hexes neither held nor in Soviet ZOC: {', '.join(open_[:8])}", None)
        supplied, _ = sp.field(sc, rules, board, "soviet")
        out = [u for u in mine if u not in supplied]
        if out:
            why = sp.reason(sc, rules, board, out[0])
            # the check is the set-up's, at its end: name where each unit was placed (a new user's
            # probe: "order 2 (end) is illegal: units out of supply" named no placement)
            where = ", ".join(f"{u} in {st.hex_of(rules, u)}" for u in out[:8])
            raise IllegalOrder("5.25", f"the set-up may not end with units placed out of supply: {where}"
                               + (f" and {len(out) - 8} more" if len(out) > 8 else "") + f"; {out[0]}: {why}; "
                               f"place them again (a `place` order moves a unit placed this set-up)", None)
        return
    apart = divisions_apart(sc, rules)
    if apart:
        # where each stands (a players' probe: the refusal sent him searching his own file)
        d, where = apart[0]
        raise IllegalOrder("5.3", f"the regiments of {d} set up together, in one hex, and they stand apart: {where}; "
                           f"place them again (a `place` order moves a unit placed this set-up)", None)
    zoc = board.zoc("axis")
    open_ = [sc.ids[i] for i in sc.front if i not in zoc]
    if open_:
        raise IllegalOrder("5.36", f"Front Line hexes not in the ZOC of an Axis unit: {', '.join(open_[:8])}", None)


def open_front(sc: Scenario, rules: dict) -> list[str]:
    """5.23: the Front Line hexes neither held by a Soviet unit nor in Soviet ZOC."""
    board = view(sc, rules)
    zoc = board.zoc("soviet")
    return [sc.ids[i] for i in sc.front if i not in zoc and not board.has_combat(i, "soviet")]


def open_front_in_reach(sc: Scenario, rules: dict) -> list[str]:
    """The Front Line hexes open (5.23) that a Soviet HQ's Leadership Rating reaches: a unit may
    stand there in supply (5.25, 12.12) as far as the ratings go."""
    hqs = [(sc.idx[w], sc.units[u].leadership) for u, w in rules["units"].items()
           if sc.side_of[u] == "soviet" and sc.units[u].hq and w not in st.OFF_MAP]
    return [h for h in open_front(sc, rules) if any(sc.distance(sc.idx[h], i) <= L for i, L in hqs)]


# --- the default placements -----------------------------------------------------------------------

def _fits(sc: Scenario, rules: dict, units: list[str], i: int) -> bool:
    h = sc.ids[i]
    there = [u for u, w in rules["units"].items() if w == h]
    return stacking_ok(sc, rules, there + units)


def default_soviet(sc: Scenario, rules: dict) -> None:
    """A legal placement of every Soviet unit left: HQs spaced along the Front Line so that
    their radii cover it (5.25), a combat unit wherever a line hex is not yet held or in Soviet
    ZOC (5.23), the rest on the line within an HQ's radius (5.22), air armies with the HQs."""
    left = to_set_up(sc, rules, "soviet")
    front = list(sc.front)
    new_hqs = sorted((u for u in left if sc.units[u].hq), key=lambda u: (-sc.units[u].leadership, u))
    combat = sorted((u for u in left if sc.units[u].combat), key=lambda u: (sc.units[u].arm == "mech", u))
    air = [u for u in left if sc.units[u].air]

    hqs = [u for u in sc.side_units["soviet"] if sc.units[u].hq]     # in id order, as the scenario lists them
    known: dict[tuple, list[tuple[int, int]]] = {}

    def anchors() -> list[tuple[int, int]]:
        """The Soviet HQs on the map and their Leadership Ratings, in id order: asked for each
        Front Line hex tried, kept for each placement of the HQs, worked out again once one moves."""
        where = tuple([rules["units"][u] for u in hqs])
        found = known.get(where)
        if found is None:
            found = known[where] = [(sc.idx[w], sc.units[u].leadership) for u, w in zip(hqs, where)
                                    if w not in st.OFF_MAP]
        return found

    def covered(q: int) -> bool:
        return any(sc.distance(front[q], i) <= L for i, L in anchors())

    # An HQ stands behind the line, out of reach of every hex the Axis may set up in (5.3): on
    # the line, the Axis units' ZOC would cut its Lines of Communication (12.11) and its first
    # attack would take it, with the supply of every unit it coordinates (11.33).
    axis_reach = {j for i in sc.axis_start for j in sc.nb[i]}
    behind = [j for j in line_band(sc) | {k for i in sc.front for j in sc.nb[i] for k in sc.nb[j]}
              if j not in sc.axis_start and j not in axis_reach]
    def spaced(hq: str) -> None:                         # the first front hex not yet in any radius, plus L
        L = sc.units[hq].leadership
        gap = next((q for q in range(len(front)) if not covered(q)), None)
        q = min(len(front) - 1, (gap if gap is not None else (len(anchors()) * 5) % len(front)) + L)
        for cand in [q] + [q - d for d in range(1, 6)] + [q + d for d in range(1, 6)]:
            if not 0 <= cand < len(front):
                continue
            spot = min((j for j in behind if sc.distance(j, front[cand]) <= 2 and _fits(sc, rules, [hq], j)),
                       key=lambda j: (sc.distance(j, front[cand]), sc.row[j], sc.pos[j]), default=None)
            if spot is not None:
                st.put(rules, hq, sc.ids[spot])
                return

    def reaching(hq: str) -> None:
        """Where its radius holds the first front hex in none and reaches furthest past it."""
        L = sc.units[hq].leadership
        held = [covered(q) for q in range(len(front))]
        gap = next((q for q in range(len(front)) if not held[q]), None)
        spots = [] if gap is None else [j for j in behind if sc.distance(j, front[gap]) <= L and _fits(sc, rules, [hq], j)]
        if not spots:
            spaced(hq)
            return

        def reach(j: int) -> int:
            q = gap
            while q < len(front) and (held[q] or sc.distance(front[q], j) <= L):
                q += 1
            return q
        spot = min(spots, key=lambda j: (-reach(j), sc.row[j], sc.pos[j]))
        st.put(rules, hq, sc.ids[spot])

    for hq in new_hqs:
        spaced(hq)
    if not all(covered(q) for q in range(len(front))):
        # spaced so, the HQs left the line's far end in no radius (a players' probe: two HQs
        # placed by hand, one far off, one beside another's radius): placed again, reaching
        for hq in new_hqs:
            rules["units"][hq] = "setup"
        for hq in new_hqs:
            reaching(hq)

    def in_radius(i: int) -> bool:
        return any(sc.distance(i, a) <= L for a, L in anchors())

    for q in range(len(front)):                          # 5.23
        if not combat:
            break
        board = view(sc, rules)
        if front[q] in board.zoc("soviet") or board.has_combat(front[q], "soviet"):
            continue
        for cand in (q + 1, q, q - 1):
            if 0 <= cand < len(front) and in_radius(front[cand]) and _fits(sc, rules, [combat[0]], front[cand]):
                st.put(rules, combat.pop(0), sc.ids[front[cand]])
                break
    band = sorted(line_band(sc), key=lambda i: (sc.row[i], sc.pos[i]))
    spots = [i for i in band if in_radius(i)] or band
    k = 0
    while combat:                                        # 5.22: the rest on or next to the line
        for _ in range(len(spots)):
            i = spots[k % len(spots)]
            k += 1
            if _fits(sc, rules, [combat[0]], i):
                st.put(rules, combat.pop(0), sc.ids[i])
                break
        else:
            break
    homes = [sc.ids[i] for i, _ in anchors()] or [sc.ids[front[0]]]
    for n, uid in enumerate(air):
        st.put(rules, uid, homes[n % len(homes)])
    for uid in combat:                                   # 5.24: the few left, anywhere near an HQ
        for a, L in anchors():
            near = sorted(sc.grid_within(a, L) if hasattr(sc, "grid_within") else
                          [j for j in range(len(sc.ids)) if sc.distance(a, j) <= L], key=lambda j: (sc.row[j], sc.pos[j]))
            spot = next((j for j in near if j not in sc.axis_start and _fits(sc, rules, [uid], j)), None)
            if spot is not None:
                st.put(rules, uid, sc.ids[spot])
                break
    _supplied_facing_the_axis(sc, rules, left, [j for j in band if j not in axis_reach])


def _supplied_facing_the_axis(sc: Scenario, rules: dict, units: list[str], spots: list[int]) -> None:
    """The default placement of `units` checked against the Axis set-up to come (its default
    one, 5.3): a unit whose Line of Communications the Axis units' ZOC would cut (12.11) moves
    to the nearest of `spots` (on or next to the line, out of the Axis units' reach) where it
    is in supply; or, where no such move serves (it alone holds Front Line hexes), a spare one
    of `units` stands on its line (a friendly unit negates Enemy ZOC, 12.11). Always so long
    as every Front Line hex stays held or in Soviet ZOC (5.23) and no other unit is cut off;
    where none of the nearest moves serves, the unit stays."""
    import copy

    facing = copy.deepcopy(rules)
    default_axis(sc, facing)
    axis = {u: w for u, w in facing["units"].items() if sc.side_of[u] == "axis"}

    def out_of_supply() -> set[str]:
        trial = copy.deepcopy(rules)
        trial["units"].update(axis)
        ok, _ = sp.field(sc, trial, view(sc, trial), "soviet")
        return {u for u in units if sc.units[u].combat and u not in ok}

    def serves(uid: str, moves: list[tuple[str, int]], cut: set[str]) -> bool:
        """Make `moves`; keep them if they leave the front closed and cut off fewer units,
        `uid` no longer among them."""
        back = [(u, sc.idx[st.hex_of(rules, u)]) for u, _ in moves]
        for u, j in moves:
            st.put(rules, u, sc.ids[j])
        if not open_front(sc, rules) and out_of_supply() <= cut - {uid}:
            return True
        for u, j in back:
            st.put(rules, u, sc.ids[j])
        return False

    band = line_band(sc)
    tried: set[str] = set()
    while (cut := out_of_supply()) - tried:
        uid = min(cut - tried)
        tried.add(uid)
        home = sc.idx[st.hex_of(rules, uid)]
        nearest = sorted(spots, key=lambda j: (sc.distance(home, j), sc.row[j], sc.pos[j]))[:NEAREST]
        if any(_fits(sc, rules, [uid], j) and serves(uid, [(uid, j)], cut) for j in nearest):
            continue
        bridges = sorted((j for j in band if 0 < sc.distance(home, j) <= 2), key=lambda j: (sc.distance(home, j),
                                                                                              sc.row[j], sc.pos[j]))
        spare = [u for u in sorted(units) if u != uid and u not in cut and sc.units[u].combat and _spare(sc, rules, u)]
        for j in bridges:
            helpers = sorted(spare, key=lambda u: (sc.distance(j, sc.idx[st.hex_of(rules, u)]), u))[:HELPERS]
            if any(_fits(sc, rules, [u], j) and serves(uid, [(u, j)], cut) for u in helpers):
                break


NEAREST = 12    # the spots tried for a unit the Axis ZOC would cut off
HELPERS = 6     # the spare units nearest a hex of its line tried there, where no spot serves it alone


def _spare(sc: Scenario, rules: dict, uid: str) -> bool:
    """Whether every Front Line hex stays held or in Soviet ZOC without `uid` (5.23)."""
    where = rules["units"][uid]
    rules["units"][uid] = "setup"
    try:
        return not open_front(sc, rules)
    finally:
        rules["units"][uid] = where


def default_axis(sc: Scenario, rules: dict) -> None:
    """A legal placement of every Axis unit left: in each band, units next to the Front Line
    hexes of the band until every one is in Axis ZOC (5.36), then the rest beside them, each
    Panzer and Panzergrenadier division in one hex (5.3); trucks and air units on rail hexes."""
    left = to_set_up(sc, rules, "axis")
    blocks: dict[str, list[list[str]]] = {}
    done = set()
    for uid in left:
        if uid in done:
            continue
        u = sc.units[uid]
        block = [r for r in sc.divisions[u.division] if r in left] if u.division else [uid]
        done.update(block)
        blocks.setdefault(u.setup, []).append(block)
    for zone in ("5.34", "5.33", "5.32", "5.31"):
        units = blocks.get(zone, [])
        units.sort(key=lambda b: (len(b) > 1, sc.units[b[0]].hq, b[0]))
        lo, hi = ZONES[zone]
        line = [i for i in sc.front if lo <= sc.row[i] <= hi or (zone == "5.31" and sc.row[i] >= lo)]
        cands = sorted({j for i in line for j in sc.nb[i] if zone_ok(sc, zone, j) and not sc.mountain[j]},
                       key=lambda j: (sc.row[j], sc.pos[j]))
        board = view(sc, rules)
        for i in line:
            if i in board.zoc("axis"):
                continue
            best = [j for j in cands if sc.adjacent(i, j)]
            for j in best:
                fitting = next((b for b in units if not sc.units[b[0]].hq and _fits(sc, rules, b, j)), None)
                if fitting:
                    for x in fitting:
                        st.put(rules, x, sc.ids[j])
                    units.remove(fitting)
                    board = view(sc, rules)
                    break
        back = sorted((j for j in sc.axis_start if zone_ok(sc, zone, j) and not sc.mountain[j]),
                      key=lambda j: (-len([f for f in sc.nb[j] if f in sc.front_set]), sc.row[j], sc.pos[j]))
        for b in units:
            spots = back
            u = sc.units[b[0]]
            if u.hq:                     # 11.31: as many of its nationality as can be inside its radius
                own = [sc.idx[st.hex_of(rules, x)] for x, y in sc.units.items() if y.nation == u.nation
                       and y.combat and st.on_map(rules, x)]
                spots = sorted(back, key=lambda j: -sum(sc.distance(j, k) <= u.leadership for k in own))
            for j in spots:
                if _fits(sc, rules, b, j):
                    for x in b:
                        st.put(rules, x, sc.ids[j])
                    break
    rail = sorted((i for i in sc.rail_hex if i in sc.axis_start), key=lambda i: (sc.row[i], sc.pos[i]))
    for k, b in enumerate(blocks.get("5.35", [])):
        for x in b:
            st.put(rules, x, sc.ids[rail[(k * 7) % len(rail)]])


# --- a given position (README.md) -------------------------------------------------------------------

def position(sc: Scenario, rules: dict, pos: dict) -> None:
    rest = pos.get("rest", "out")
    for uid in rules["units"]:
        rules["units"][uid] = "pool" if rest == "pool" and (sc.units[uid].group or sc.units[uid].turn
                                                             or sc.units[uid].by) else "out"
    for uid, spec in pos["units"].items():
        if uid not in sc.units:
            raise ValueError(f"dos scenario: position names unknown unit {uid}")
        if isinstance(spec, str):
            rules["units"][uid] = spec
            continue
        if "hex" in spec:
            rules["units"][uid] = spec["hex"]
            if spec.get("steps_lost"):
                rules["lost"][uid] = spec["steps_lost"]
            if "revealed" in spec:
                rules["revealed"][uid] = spec["revealed"]
            for m in spec.get("markers", []):
                if m == "disrupted":
                    st.mark(rules["disrupted"], uid)
                elif m == "withdrew":
                    st.mark(rules["pt"]["withdrew"], uid)
                elif m == "attacked":
                    st.mark(rules["pt"]["attacked"], uid)
                elif m == "fresh":                      # 12.53: entered this Initial Movement Phase
                    st.mark(rules["ps"]["fresh"], uid)
        else:
            rules["units"][uid] = spec["status"]
            if spec["status"] == "ready":
                rules["ready_map"][uid] = spec.get("map", "north")
            if spec["status"] == "due":
                rules["due"][uid] = spec.get("turn", rules["turn"])
            if spec["status"] == "exited":
                rules["exits"].append(uid)                  # 19.22: left the map through S1001
    for h, side in pos.get("control", {}).items():
        rules["control"][h] = ("a" if side == "axis" else "s") + "0"
    rules["cleared"] = sorted(pos.get("cleared", []))
    rules["vp"].update(pos.get("vp_adjust", {}))
    rules["directive"] = pos.get("directive")
    if rules["directive"] is not None:
        d = rules["directive"]
        d.setdefault("deadlines", {c: max(t, d["obtained"] + 2)
                                   for c, t in sc.directive_contents[d["letter"]]["cities"].items()})
        # the cities a directive orders taken, and those it has seen taken (16.61, 16.63): cities of
        # the map, each once (a cheater's probe: a city of no map stopped the Inter-Phase that
        # judged it, and `met` was taken as written, unsorted and doubled)
        named = sorted(set(d["deadlines"]) | set(d.get("met", [])))
        unknown = [c for c in named if c not in sc.city_by_name]
        if unknown:
            raise ValueError(f"dos scenario: position.directive names {unknown[0]}, which is no city of the map "
                             f"(16.61)")
        stray = sorted(set(d.get("met", [])) - set(d["deadlines"]))
        if stray:
            raise ValueError(f"dos scenario: position.directive.met names {stray[0]}, which the directive does not "
                             f"order taken (16.63)")
        if "met" in d:
            d["met"] = sorted(set(d["met"]))
    rules["interdiction"].update({k: sorted(v) for k, v in pos.get("interdiction", {}).items()})
    rules["air"] = dict(pos.get("air_spent", {}))
    rules["rail_used"] = pos.get("rail_used", 0)
    rules["penalty"] = dict(pos.get("penalties", {}))
    if pos.get("accelerated"):
        rules["accel"] = "on"


def divisions_apart(sc: Scenario, rules: dict) -> list[tuple[str, str]]:
    """Each division whose regiments on the map stand in more than one hex (5.3), with where
    they stand: ("9Pz", "10/9Pz, 33/9Pz in N0850; 11/9Pz in N0951")."""
    out = []
    for d, regs in sc.divisions.items():
        where: dict[str, list[str]] = {}
        for r in regs:
            if st.on_map(rules, r):
                where.setdefault(st.hex_of(rules, r), []).append(r)
        if len(where) > 1:
            out.append((d, "; ".join(f"{', '.join(rs)} in {h}" for h, rs in sorted(where.items()))))
    return out
