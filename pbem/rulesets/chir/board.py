"""Stacks, strength, zones of control (7.x), stacking (6.x) and control of hexes (3.3)."""

from __future__ import annotations

from . import state as st
from .scenario import Scenario, other
from .state import OFF_MAP


def on_map(sc: Scenario, rules: dict, side: str | None = None) -> list[str]:
    """The units on the map (of `side`), sorted: the state lists every unit of the scenario."""
    units = rules["units"]
    ids = sc.unit_ids if side is None else sc.side_ids[side]
    return [uid for uid in ids if units[uid] not in OFF_MAP]


def stacks(sc: Scenario, rules: dict, side: str | None = None) -> dict[str, list[str]]:
    """hex -> units there (sorted), for units on the map."""
    units = rules["units"]
    out: dict[str, list[str]] = {}
    for uid in sc.unit_ids if side is None else sc.side_ids[side]:
        h = units[uid]
        if h not in OFF_MAP:
            here = out.get(h)
            if here is None:
                out[h] = [uid]
            else:
                here.append(uid)
    return dict(sorted(out.items()))


def units_in(sc: Scenario, rules: dict, h: str, side: str | None = None) -> list[str]:
    if h in OFF_MAP:
        return []
    there = [uid for uid, w in rules["units"].items() if w == h]
    if side is not None:
        side_of = sc.side_of
        there = [uid for uid in there if side_of[uid] == side]
    return sorted(there)


def side_in(sc: Scenario, rules: dict, h: str) -> str | None:
    if h in OFF_MAP:
        return None
    for uid, w in rules["units"].items():
        if w == h:
            return sc.side_of[uid]
    return None


def occupied(sc: Scenario, rules: dict, side: str) -> set[str]:
    """The hexes holding units of `side`."""
    hexes = set(map(rules["units"].__getitem__, sc.side_ids[side]))
    hexes.difference_update(OFF_MAP)
    return hexes


def strength(sc: Scenario, rules: dict, uids: list[str]) -> int:
    return sum(st.strength(sc, rules, u) for u in uids)


# --- 7.0 zones of control ---------------------------------------------------------------------

def zoc(sc: Scenario, rules: dict, side: str) -> tuple[frozenset[str], frozenset[str]]:
    """(hexes in the ZOC of `side`, hexes in its tank ZOC). 7.0: a hex whose units total 3 or
    more strength projects a ZOC into the six adjacent hexes (across rivers too); 3 or more
    of armoured units make it a tank ZOC. 7.1: units with a confusion marker count 0.

    Asked for a side many times between changes of its units (every move of the other side
    asks it), so the last answer per side is kept with the whole of what it was worked out
    from (where each unit of the side stands, the confusion markers, the strength losses)
    and given again only while all of that is equal."""
    units = rules["units"]
    confused = rules["markers"]["confusion"]
    reduced = rules["strength"]
    where = tuple(map(units.__getitem__, sc.side_ids[side]))
    last = _ZOC_MEMO.get(side)
    if last is not None and last[0] is sc and last[1] == where and last[2] == confused and last[3] == reduced:
        return last[4]
    total: dict[str, int] = {}
    tanks: dict[str, int] = {}
    for (uid, tank, full), h in zip(sc.side_units[side], where):
        if h in OFF_MAP or (confused and uid in confused):
            continue
        s = reduced.get(uid, full) if reduced else full
        total[h] = total.get(h, 0) + s
        if tank:
            tanks[h] = tanks.get(h, 0) + s
    zone: set[str] = set()
    tank_zone: set[str] = set()
    neigh = sc.neigh
    for h, s in total.items():
        if s >= 3:
            zone.update(neigh[h])
            if tanks.get(h, 0) >= 3:
                tank_zone.update(neigh[h])
    found = frozenset(zone), frozenset(tank_zone)
    _ZOC_MEMO[side] = (sc, where, list(confused), dict(reduced), found)
    return found


_ZOC_MEMO: dict[str, tuple] = {}   # side -> (scenario, positions, confusion, strength, the zones)


def ezoc(sc: Scenario, rules: dict, side: str) -> tuple[frozenset[str], frozenset[str]]:
    """The enemy zone of control as seen by `side`."""
    return zoc(sc, rules, other(side))


def adjacent_enemy(sc: Scenario, rules: dict, h: str, side: str) -> bool:
    enemy = occupied(sc, rules, other(side))
    return any(n in enemy for n in sc.neigh[h])


# --- 6.x stacking --------------------------------------------------------------------------------

def stacking_ok(sc: Scenario, uids: list[str]) -> bool:
    """Do these units (all of one side) fit in one hex? 6.1 German: 3 battalions, or 4 of
    one unit (LW field-division units stack without penalty: they count as any unit);
    6.2/6.3 Soviet: one regiment alone, or 2 battalions, or 3 of one army."""
    if len(uids) <= 1:
        return True
    return loads_fit(sc.side_of[uids[0]], stack_load(sc, uids), NO_LOAD)


def stack_load(sc: Scenario, uids) -> tuple[int, frozenset, bool, frozenset]:
    """What the stacking limit (6.x) reads of a group of units: their size in thirds of a
    battalion, the units they belong to (6.1; field-division units belong to none), whether
    one is a regiment (6.3) and their armies (6.2)."""
    loads = [sc.unit_load[uid] for uid in uids]
    if len(loads) == 1:
        return loads[0]
    return (sum(x[0] for x in loads), frozenset().union(*(x[1] for x in loads)), any(x[2] for x in loads),
            frozenset().union(*(x[3] for x in loads)))


NO_LOAD = (0, frozenset(), False, frozenset())  # the stack_load of no unit


def loads_fit(side: str, a: tuple[int, frozenset, bool, frozenset], b: tuple[int, frozenset, bool, frozenset]) -> bool:
    """stacking_ok of two groups of units of `side` together, two units or more in all, from
    their stack_load: the check of a move's end (6.4) without adding up the hex again."""
    thirds = a[0] + b[0]
    if side == "german":
        return thirds <= 9 or (thirds <= 12 and len(a[1] | b[1]) <= 1)
    if a[2] or b[2]:
        return False
    return thirds <= 6 or (thirds <= 9 and len(a[3] | b[3]) == 1)


def stacking_rule(sc: Scenario, uids: list[str]) -> str:
    """The section whose limit these units (all of one side) come under: 6.1 German, 6.3 a
    Soviet regiment with other units, 6.2 other Soviet stacks."""
    units = [sc.units[u] for u in uids]
    if units[0].side == "german":
        return "6.1"
    return "6.3" if any(u.size == "regiment" for u in units) else "6.2"


def fits(sc: Scenario, rules: dict, h: str, movers: list[str]) -> bool:
    """Would `movers` fit into hex h with the friendly units already there?"""
    return fits_among(sc, units_in(sc, rules, h, sc.side_of[movers[0]]), movers)


def fits_among(sc: Scenario, there: list[str], movers: list[str]) -> bool:
    """`fits`, given the friendly units in the hex (from `stacks`, where many hexes are asked)."""
    return stacking_ok(sc, [u for u in there if u not in movers] + list(movers))


# --- 3.3 control -----------------------------------------------------------------------------

def control(sc: Scenario, rules: dict):
    """3.3: a function giving the controller of any hex now (README.md's reading). A hex that
    holds units is their side's: the other side holds it by neither clause, as it did not
    move into it last and its control needs "the absence of enemy units" (a probe found
    Soviet units that had stood in their set-up hex since the start handed it to the German
    side when a German zone of control reached it). An empty hex into which one side's zone
    of control extends, and not the other side's, is the first side's (the second clause);
    any other hex belongs to the player who last moved a unit into it (the first clause,
    `state.record`), and at the start 2832 is Soviet and every other hex German."""
    soviet_zone, _ = zoc(sc, rules, "soviet")
    german_zone, _ = zoc(sc, rules, "german")
    side_of = sc.side_of
    held = {w: side_of[uid] for uid, w in rules["units"].items() if w not in OFF_MAP}
    first = st.recorded(sc, rules)

    def of(h: str) -> str:
        holder = held.get(h)
        if holder is not None:
            return holder
        if h in soviet_zone and h not in german_zone:
            return "soviet"
        if h in german_zone and h not in soviet_zone:
            return "german"
        return first(h)

    return of


def controller(sc: Scenario, rules: dict, h: str) -> str:
    return control(sc, rules)(h)


def enter(sc: Scenario, rules: dict, h: str, side: str) -> None:
    """3.3: the player who last moved one of his units into a hex controls it."""
    st.record(sc, rules, h, side)
    if side == "soviet" and h in sc.place_hexes:
        note_soviet_places(sc, rules, entered=h)


def note_soviet_places(sc: Scenario, rules: dict, entered: str | None = None) -> None:
    """14.0 bookkeeping: the places every hex of which the Soviet side controls now (the hex
    a Soviet unit is entering counts as Soviet); checked at each entry and at the end of each
    phase, as the 4.3 line is."""
    of = control(sc, rules)
    for place in sc.places:
        if place.name not in rules["ever_soviet"] \
                and all(h == entered or of(h) == "soviet" for h in place.hexes) \
                and (entered is None or entered in place.hexes):
            rules["ever_soviet"] = sorted(rules["ever_soviet"] + [place.name])


def unit_text(sc: Scenario, rules: dict, uid: str) -> str:
    marks = [m for m in ("confusion", "fired", "half") if st.marked(rules, m, uid)]
    return f"{uid} {st.strength(sc, rules, uid)}" + (f" [{', '.join(marks)}]" if marks else "")
