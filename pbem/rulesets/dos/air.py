"""Air units (14.0): Air Points for supply (12.4, 14.5), air interdiction (14.4), and their
bookkeeping (14.7). Air Points on combat are in combat.py (14.2, 14.3)."""

from __future__ import annotations

import marshal
from itertools import islice

from ..base import IllegalOrder
from .board import view, Board
from .scenario import Scenario, other
from . import state as st
from . import supply as sp
from .naming import no_hex

STEPS_PER_POINT = 5      # 12.41, 14.52


def _air_unit(sc: Scenario, rules: dict, side: str, uid: str, rule: str, board: Board) -> None:
    u = sc.units.get(uid)
    if u is None or not u.air or u.side != side or not st.on_map(rules, uid):
        raise IllegalOrder(rule, f"{uid} is not a {side} air unit on the map", None)
    if st.has(rules["air_moved"], uid):
        raise IllegalOrder("14.12", f"{uid} moved this Game-Turn and may spend no Air Points", None)
    if rules["air"].get(uid, 0) >= u.air_points:
        raise IllegalOrder("3.33", f"{uid} has spent its {u.air_points} Air Point(s) this Game-Turn", None)


def too_far_apart(sc: Scenario, rules: dict, units: list[str], lines: "sp.Lines | None" = None) -> tuple[str, str] | None:
    """12.42, 14.52: the units one Air Point supplies must all be within 14 mechanized MP of
    each other -- every pair, each way (a line's cost depends on its direction). The first pair
    (x, y) with no line from x to y, or None. Units in one hex are together."""
    lines = lines or sp.lines_of(sc, rules, "axis")
    where = {}
    for x in units:
        where.setdefault(sc.idx[st.hex_of(rules, x)], x)
    hexes = sorted(where)
    for a in hexes:
        for b in hexes:
            if a != b and not lines.reaches(a, {b}, 14):
                return where[a], where[b]
    return None


def air_supply(sc: Scenario, rules: dict, side: str, order: dict, ctx, defenders: list[str] | None = None) -> None:
    """12.41-12.47: one Air Point puts five steps of German units in supply for this phase."""
    if side != "axis":                                              # 12.43, 14.51
        raise IllegalOrder("12.43", "only the Axis player supplies units by air", None)
    uid = order.get("air")
    units = order.get("units") or []
    if defenders is None and rules["phase"] not in ("move", "combat", "mech") and units != [uid]:
        # 12.44: "at any time during a Game-Turn"; its list of phases is where German units are
        # supplied, and an air unit out of supply may buy its own (12.46) to interdict (14.41)
        raise IllegalOrder("12.44", "air supply is bought in an Axis Movement or Combat Phase, or for German "
                           "defenders in the Soviet Combat Phase; in the Air Interdiction Phase an air unit may "
                           "supply only itself (12.46)", None)
    board = view(sc, rules)
    _air_unit(sc, rules, side, uid, "12.4", board)
    if not units or len(set(units)) != len(units):
        raise IllegalOrder("12.41", "name the German units to supply", None)
    steps = 0
    air_i = sc.idx[st.hex_of(rules, uid)]
    for x in units:
        u = sc.units.get(x)
        if u is None or u.side != "axis" or not st.on_map(rules, x):
            raise IllegalOrder("12.41", f"{x} is not an Axis unit on the map", None)
        if not (u.nation == "german" and (u.combat or x == uid)):
            raise IllegalOrder("12.41", f"{x} is not a German combat unit (air supply is for German units only; an "
                               f"air unit may supply itself, 12.46)", None)
        if defenders is not None and x not in defenders and x != uid:
            raise IllegalOrder("12.44", f"{x} is not a German unit under this attack", None)
        if rules["phase"] in ("move", "mech") and rules["ps"]["moved"].get(x) and x in rules["ps"]["oos"]:
            # 12.0: "a unit that starts its Movement Phase out of Supply is considered out of Supply
            # for that entire Movement Phase": supply bought before it moves counts, not after
            raise IllegalOrder("12.0", f"{x} began moving out of supply and stays out of supply for this Movement Phase "
                               f"(12.0): air supply it before it moves", None)
        i = sc.idx[st.hex_of(rules, x)]
        if sc.mountain[i]:
            raise IllegalOrder("12.45", f"{x} is in a mountain hex: air supply does not reach the mountains", None)
        if sc.distance(air_i, i) > sc.units[uid].air_range:
            raise IllegalOrder("12.47", f"{x} is beyond the range of {uid} ({sc.units[uid].air_range} hexes)", None)
        steps += 1 if x == uid else st.steps_left(sc, rules, x)
    if steps > STEPS_PER_POINT:
        raise IllegalOrder("12.41", f"one Air Point supplies {STEPS_PER_POINT} steps; these units have {steps}", None)
    lines = sp.lines_of(sc, rules, side)
    apart = too_far_apart(sc, rules, units, lines)
    if apart:
        raise IllegalOrder("12.42", f"{apart[1]} is more than 14 mechanized Movement Points from {apart[0]} (one Air "
                           f"Point supplies units within 14 of each other)", None)
    if uid not in units and uid not in sp.supplied(sc, rules, board, side, [uid], lines):
        raise IllegalOrder("12.46", f"{uid} is out of supply (it may spend a point to supply itself)", None)
    rules["air"][uid] = rules["air"].get(uid, 0) + 1
    st.add_all(rules["ps"]["air_supplied"], units)
    for x in units:
        st.unmark(rules["ps"]["oos"], x)
    ctx.event("air-supply", f"{uid} spends an Air Point to supply {', '.join(units)} for this phase (12.4).",
              air=uid, units=sorted(units), rule="12.41", chosen_by=ctx.chosen_by)


def interdict(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    """14.41-14.47: one Air Point places two markers within the air unit's range, one a hex."""
    if rules["phase"] != "interdiction":
        raise IllegalOrder("14.41", "air interdiction markers are placed in the Friendly Air Interdiction Phase", None)
    uid = order.get("air")
    hexes = order.get("hexes") or []
    board = view(sc, rules)
    _air_unit(sc, rules, side, uid, "14.41", board)
    if not 1 <= len(hexes) <= 2 or len(set(hexes)) != len(hexes):
        raise IllegalOrder("14.41", "one Air Point places one or two markers, in different hexes", None)
    if uid not in sp.supplied(sc, rules, board, side, [uid]):       # 14.11, 14.15
        raise IllegalOrder("14.11", f"{uid} is out of supply and may spend no Air Points", None)
    mine = rules["interdiction"][side]
    air_i = sc.idx[st.hex_of(rules, uid)]
    for h in hexes:
        if h not in sc.idx:
            raise IllegalOrder("14.41", no_hex(sc, h), None)
        if st.has(mine, h):
            raise IllegalOrder("14.45", f"{h} already has an Air Interdiction marker", None)
        if sc.distance(air_i, sc.idx[h]) > sc.units[uid].air_range:
            raise IllegalOrder("14.41", f"{h} is beyond the range of {uid} ({sc.units[uid].air_range} hexes)", None)
    rules["air"][uid] = rules["air"].get(uid, 0) + 1
    st.add_all(mine, hexes)
    ctx.event("interdiction", f"{uid} places Air Interdiction markers on {', '.join(hexes)} (14.41).", air=uid,
              hexes=sorted(hexes), side=side, rule="14.41")


def interdiction_options(sc: Scenario, rules: dict, side: str, apart: bool = False) -> list[dict]:
    """For each air unit with a point left: markers on enemy rail hexes near it. `apart`: no
    hex given to two air units (the orders template's sample, whose lines are all meant to
    be kept: two markers in one hex are refused, 14.45; a players' probe)."""
    board = view(sc, rules)
    out = []
    mine = set(rules["interdiction"][side])
    held = sp.friendly_rail(sc, rules["control"], other(side))          # 10.45: the rail hexes he holds
    enemy_rail = [i for i in sc.rail_hexes if held[i]]
    for uid in sorted(u for u in sc.air_units[side] if rules["units"][u] not in st.OFF_MAP):
        if st.has(rules["air_moved"], uid) or rules["air"].get(uid, 0) >= sc.units[uid].air_points:
            continue
        i = sc.idx[st.hex_of(rules, uid)]
        reach = sc.units[uid].air_range
        near = list(islice((sc.ids[j] for j in enemy_rail if sc.distance(i, j) <= reach and sc.ids[j] not in mine), 2))
        if len(near) == 2:
            if uid in sp.supplied(sc, rules, board, side, [uid]):
                out.append({"type": "interdict", "air": uid, "hexes": near[:2]})
                if apart:
                    mine.update(near)
    return out


def supply_options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    """The orders template's air supply (12.4): each German combat unit out of supply this
    phase, supplied by the first air unit that may (the order checked as the engine checks
    it, on a copy of the rules). None where air supply is not bought now. A players' probe:
    no template ever listed one, where units out of supply were halved."""
    if side != "axis" or rules["phase"] not in ("move", "combat", "mech"):
        return []
    from .flow import QuietContext   # flow imports this module

    out = []
    for x in sorted(rules["ps"]["oos"]):
        u = sc.units[x]
        if u.nation != "german" or not u.combat or not st.on_map(rules, x):
            continue
        for uid in sorted(a for a in sc.air_units[side] if st.on_map(rules, a)):
            order = {"type": "air-supply", "air": uid, "units": [x]}
            try:
                air_supply(sc, marshal.loads(marshal.dumps(rules)), side, order, QuietContext())
            except IllegalOrder:
                continue
            out.append(order)
            break
    return out


def start_interdiction_phase(rules: dict, side: str, ctx) -> None:
    """4.2 B5/C5, 14.45: the enemy's markers are removed at the start of this phase."""
    enemy = other(side)
    if rules["interdiction"][enemy]:
        ctx.event("interdiction", f"The {enemy} Air Interdiction markers are removed (14.45).", side=enemy,
                  hexes=list(rules["interdiction"][enemy]), rule="14.45")
        rules["interdiction"][enemy] = []


def reset(rules: dict) -> None:
    """4.2 D, 14.7: every air unit shows its 0 side again."""
    rules["air"] = {}
    rules["air_moved"] = []
