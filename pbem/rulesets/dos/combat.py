"""Combat (9.0-9.8) and overrun (6.5, 6.6), with the terrain (9.3, 10.x), HQs (11.4), untried
units (13.2, 13.3), air points (14.2, 14.3) and air supply of defenders (12.44) that bear on it.

An attack or overrun in progress is `rules["combat"]`, a small state machine whose `step`
says what it waits for:

    def-supply    the Axis defender's air supply of German defenders (12.44), and of an air
                  unit itself (12.46)
    hq-defence    the Axis defender's HQ addition (11.43)
    def-air       the defender's Air Points (14.22), a decision of the defender: after the
                  ratio "and all other factors" (14.21), so after supply and HQs
    roll          reveal untried units (13.2), supply at this instant (12.0), odds, die
    def-choice    D1/D2: the defender loses steps or retreats (9.67)
    att-choice    A1/A2: the attacker loses steps or retreats, once the defender's part is
                  taken (9.68); before it in a Major city where the defender stands (9.33)
    double        9.33 (errata): the attacker may double every step loss in a Major city
    def-loss / att-loss       which unit loses the next step (9.67: the owner's choice)
    def-retreat / att-retreat the path of the next retreating unit (9.72: the opponent's choice)
    advance       the victor's advance after combat (9.8)

Dice labels come from the position in the flow only: t{turn}.{side}.{phase}.c{n} for the
combat die, .../draw.{unit} for the reveal of an untried unit.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, product

from ..base import IllegalOrder
from .board import view, Board, over_by, stack_count, stacking_ok
from .scenario import Scenario, other
from . import state as st
from . import supply as sp
from . import untried as ut
from .naming import verb, no_hex, not_own_unit

AIR_RANGE_RULE = "14.14"


def _parse(result: str) -> tuple[str | None, str | None, bool]:
    """(defender's part, attacker's part, engaged) of a CRT result (9.66-9.69)."""
    if result == "Eng":
        return None, None, True
    if "/" in result:
        d, a = result.split("/")
        return d, a, False
    return (result, None, False) if result.startswith("D") else (None, result, False)


def column(sc: Scenario, attack: int, defence: int) -> str:
    """9.4: odds rounded in the defender's favour, 10-1 at most and 1-3 at least."""
    if attack >= defence:
        n = min(10, attack // defence)
        return f"{n}-1"
    n = -(-defence // attack)      # 9.4's reading: 5 against 9 is 1-2
    return "1-2" if n <= 2 else "1-3"


# --- strengths (9.3, 10.x, 11.43, 12.5, 6.55, 7.21) ----------------------------------------------

def _value_words(uid: str, printed: int, value, supplied: bool) -> str:
    """A unit's strength in a combat's sum: "G/57 9", "TC/22 9 halved out of supply = 4 (12.51)"."""
    if supplied:
        return f"{uid} {value}"
    return f"{uid} {printed} halved out of supply = {value} (12.51" + (", 12.52)" if value * 2 > printed else ")")


def _division_words(sc: Scenario, rules: dict, d: str, regs: list[str], values: list, supplied: set[str],
                    which: int) -> str:
    """A whole division's strength in a combat's sum (7.21), its regiments' `values` doubled:
    "3Pz 8 x2 for integrity = 16 (7.21)"; with its regiments named where one of them is out of
    supply, so that the halving shows (a players' probe: "9Pz 6 x2" of regiments of 2, 2 and 4).
    `which`: 0 for the attack strength, 1 for the defence."""
    half = sum(values)
    v = 2 * half
    if all(r in supplied for r in regs):
        return f"{d} {half} x2 for integrity = {v} (7.21)"
    each = " + ".join(_value_words(r, st.strengths(sc, rules, r)[which], value, r in supplied)
                      for r, value in zip(regs, values))
    return f"{d}: {each} = {half}, x2 for integrity = {v} (7.21)"


def _unit_value(v: int, oos: bool, exact: bool):
    if not oos:
        return Fraction(v) if exact else v
    if exact:
        return max(Fraction(1), Fraction(v, 2))          # 6.55: fractions dropped only at the end
    return max(1, v // 2)                                 # 12.51, 12.52


def attack_strength(sc: Scenario, rules: dict, c: dict, supplied: set[str]) -> tuple[int, list[str]]:
    exact = c["kind"] == "overrun"
    parts: list[str] = []
    total = Fraction(0)
    units = [u for u in c["units"] if st.on_map(rules, u) and sc.units[u].combat]
    by_division: dict[str, list[str]] = {}
    plain = []
    for uid in units:
        d = sc.units[uid].division
        if d and d not in rules["broken"] and all(r in units and st.hex_of(rules, r) == st.hex_of(rules, uid)
                                                  for r in sc.divisions[d]):
            by_division.setdefault(d, []).append(uid)
        else:
            plain.append(uid)
    per_hex: dict[str, Fraction] = {}
    for uid in plain:
        printed = st.strengths(sc, rules, uid)[0]
        v = _unit_value(printed, uid not in supplied, exact)
        total += v
        per_hex[st.hex_of(rules, uid)] = per_hex.get(st.hex_of(rules, uid), 0) + v
        parts.append(_value_words(uid, printed, v, uid in supplied))
    for d, regs in sorted(by_division.items()):
        values = [_unit_value(st.strengths(sc, rules, r)[0], r not in supplied, exact) for r in regs]
        v = sum(values, Fraction(0)) * 2
        total += v
        per_hex[st.hex_of(rules, regs[0])] = per_hex.get(st.hex_of(rules, regs[0]), 0) + v
        parts.append(_division_words(sc, rules, d, regs, values, supplied, 0))
    for hq in c.get("hqs", []):                                          # 11.43
        if not st.on_map(rules, hq):
            continue
        h = st.hex_of(rules, hq)
        lead = Fraction(sc.units[hq].leadership)
        add = min(lead, per_hex.get(h, Fraction(0)))
        total += add
        parts.append(f"{hq} +{add} (11.43)" if add == lead else
                     f"{hq} +{add}, its Rating {lead} held to its stack's {add} (11.43)")
    if exact:
        value = int(total / 2)                                           # 6.51, 6.55
        parts.append(f"halved for the overrun: {total} / 2 = {value} (6.55)")
    else:
        value = int(total)
    return value, parts


TERRAIN_RULE = {"heavy-woods": " (10.12)", "rough": " (10.32)"}   # the cases that double a hex's defenders


def terrain_multiplier(sc: Scenario, rules: dict, c: dict, i: int) -> tuple[int, str]:
    """9.31, 9.32, 10.12, 10.22, 10.24, 10.32, 10.34, 10.47, 10.52, 14.24: the multiple of the
    hex, from the terrain chart (10.6; a railroad or Minor city adds nothing, 10.46)."""
    hex_m = sc.defence_of[i]
    why = []
    if sc.mountain[i]:
        att_mountain = any(sc.units[u].mountain for u in c["units"])
        hex_m = sc.mountain_vs_mountain if att_mountain else hex_m
        why.append(f"mountain x{hex_m} (10.34)")
    elif hex_m > 1:
        why.append(f"{sc.terrain_of[i]} x{hex_m}" + TERRAIN_RULE.get(sc.terrain_of[i], ""))
    city = 1
    if i in sc.city_of and sc.city_of[i].cls == "major":
        city = sc.major_city_defence                                          # 10.47: a bonus of its own
        why.append(f"Major city x{city} (10.47)")
    river = 1
    kinds = set()
    for uid in c["units"]:
        h = st.hex_of(rules, uid)
        if h is None:
            continue
        kinds.add(sc.side_kind.get((sc.idx[h], i)))
    # 10.22: "exclusively through a river hexside (excluding the Don and Volga)"; 10.24:
    # "exclusively across Don River hexsides". An attack across both kinds is neither: no bonus
    # (README, readings chosen).
    if kinds == {"minor"} or kinds == {"don"}:
        river = sc.river_defence["don"] if kinds == {"don"} else sc.river_defence["minor"]
        if len(c["air"]["att"]) > len(c["air"]["def"]):
            why.append("river bonus negated by the attacker's Air Points (14.24)")
            river = 1
        else:
            why.append(f"attacked across {'the Don' if kinds == {'don'} else 'a river'} x{river} "
                       f"({'10.24' if kinds == {'don'} else '10.22'})")
    bonuses = [m for m in (hex_m, city, river) if m > 1]
    if not bonuses:
        return 1, ", ".join(why)
    m = max(bonuses) if len(bonuses) == 1 else sc.max_defence                 # 10.52
    m = min(m, sc.max_defence)
    return m, ", ".join(why) + (f": x{m} (10.52)" if len(bonuses) > 1 else "")


def defence_strength(sc: Scenario, rules: dict, c: dict, supplied: set[str]) -> tuple[int, list[str]]:
    total = 0
    parts = []
    retreated = rules["pt"]["retreated"]
    for h in c["targets"]:
        i = sc.idx[h]
        here = [u for u, w in rules["units"].items() if w == h and sc.side_of[u] == c["def"]]
        combat = [u for u in here if sc.units[u].combat and u not in retreated]        # 9.75
        mult, why = terrain_multiplier(sc, rules, c, i)
        terms = []
        if combat:
            value = 0
            divs: dict[str, list[str]] = {}
            for uid in combat:
                d = sc.units[uid].division
                if d and d not in rules["broken"] and all(st.hex_of(rules, r) == h for r in sc.divisions[d]):
                    divs.setdefault(d, []).append(uid)
                    continue
                printed = st.strengths(sc, rules, uid)[1]
                v = _unit_value(printed, uid not in supplied, False)
                value += v
                terms.append(_value_words(uid, printed, v, uid in supplied))
            for d, regs in divs.items():
                values = [_unit_value(st.strengths(sc, rules, r)[1], r not in supplied, False) for r in regs]
                v = 2 * sum(values)
                value += v
                terms.append(_division_words(sc, rules, d, regs, values, supplied, 1))
            value *= mult
            text = _terms_text(h, terms, why, value)
            hq = c.get("hq_defence", {}).get(h)
            if hq and st.hex_of(rules, hq) == h:                                          # 11.43
                nation = sc.units[hq].nation
                own = sum(_unit_value(st.strengths(sc, rules, u)[1], u not in supplied, False)
                          for u in combat if sc.units[u].nation == nation) * mult
                half = sc.units[hq].leadership // 2
                add = min(half, own)
                value += add
                text += (f", {hq} +{add} (11.43) = {value}" if add == half else
                         f", {hq} +{add}, half its Rating held to its stack's {add} (11.43) = {value}")
        else:
            hqs = [u for u in here if sc.units[u].hq and u not in retreated]
            value = sum(st.strengths(sc, rules, u)[1] for u in hqs) * mult                # 11.41, 11.44
            terms = [f"{u} {st.strengths(sc, rules, u)[1]} alone (11.41)" for u in hqs]
            text = _terms_text(h, terms, why, value)
        total += value
        parts.append(text)
    return total, parts


def _terms_text(h: str, terms: list[str], why: str, value: int) -> str:
    """One defending hex's strength in words: "C/112 3 + R/167 3 in N0249, rough x2 = 12"."""
    text = f"{' + '.join(terms)} in {h}" + (f", {why}" if why else "")
    return text if len(terms) == 1 and not why else f"{text} = {value}"


# --- declaring ------------------------------------------------------------------------------------

def label(rules: dict) -> str:
    ps = rules["ps"]
    return f"t{rules['turn']}.{rules['player']}.{rules['phase']}.c{ps.get('combats', 0)}"


def attackable(sc: Scenario, rules: dict, board: Board, side: str, h: str) -> str | None:
    """Why hex h may not be attacked now (None: it may)."""
    i = sc.idx[h]
    enemy = other(side)
    if not board.has_combat(i, enemy):
        return "9.11: it holds no enemy combat unit or HQ"
    here = [u for u in board.units_at(i) if sc.side_of[u] == enemy and (sc.units[u].combat or sc.units[u].hq)]
    if any(st.has(rules["ps"]["advanced"], u) for u in here):
        return "9.85: units that advanced after combat may not be attacked this phase"
    if rules["phase"] == "combat" and all(st.has(rules["ps"]["targets"], u) for u in here):
        return "9.14: every unit there has been attacked this phase"
    return None


def _air_spend(sc: Scenario, rules: dict, side: str, air: dict | None, targets: list[int], rule: str,
               board: Board) -> list[str]:
    """Check the Air Points a player spends on a combat: each point names its air unit (a German
    air corps may name itself twice, 3.33). Returns the units, one per point."""
    if not air:
        return []
    units = list(air.get("units") or [])
    if not units:
        return []
    if air.get("shift") not in (1, -1):
        raise IllegalOrder("14.23", "say whether the Air Points add 1 or subtract 1 (shift 1 or -1)", None)
    counts: dict[str, int] = {}
    for uid in units:
        counts[uid] = counts.get(uid, 0) + 1
    sup = None
    for uid, n in counts.items():
        u = sc.units.get(uid)
        if u is None or not u.air or u.side != side or not st.on_map(rules, uid):
            raise IllegalOrder(rule, f"{uid} is not a {side} air unit on the map", None)
        if st.has(rules["air_moved"], uid):
            raise IllegalOrder("14.12", f"{uid} moved this Game-Turn and may spend no Air Points", None)
        if rules["air"].get(uid, 0) + n > u.air_points:
            raise IllegalOrder("3.33", f"{uid} has {u.air_points - rules['air'].get(uid, 0)} Air Point(s) left this "
                               f"Game-Turn", None)
        i = sc.idx[st.hex_of(rules, uid)]
        if any(sc.distance(i, t) > u.air_range for t in targets):
            raise IllegalOrder(AIR_RANGE_RULE, f"{uid} is out of range ({u.air_range} hexes)", None)
        sup = sup if sup is not None else sp.supplied(sc, rules, board, side, [x for x in counts])
        if uid not in sup:
            raise IllegalOrder("14.11", f"{uid} is out of supply and may spend no Air Points", None)
    return sorted(units)


def declare(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    """9.1, 9.2: an attack of the phasing player in his Combat Phase. 9.12, 9.22: only the
    units the order names attack (a stack may split between attacks or stay out); 9.13: from
    any of the six hexes around; 9.24: a unit is in one attack only (9.14's marks)."""
    targets = order.get("targets") or []
    units = order.get("units") or []
    hqs = order.get("hqs") or []
    if not targets or len(set(targets)) != len(targets):
        raise IllegalOrder("9.2", "name the hex or hexes attacked", None)
    if not units or len(set(units)) != len(units):
        raise IllegalOrder("9.1", "name the attacking units", None)
    board = view(sc, rules)
    for h in targets:
        if h not in sc.idx:
            raise IllegalOrder("9.1", no_hex(sc, h), None)
        why = attackable(sc, rules, board, side, h)
        if why:
            rule, _, text = why.partition(": ")
            raise IllegalOrder(rule, f"{h} may not be attacked: {text}", None)
    tis = [sc.idx[h] for h in targets]
    lines = sp.lines_of(sc, rules, side)
    for uid in units:
        _check_attacker(sc, rules, board, side, uid, tis, lines)
    for hq in hqs:
        u = sc.units.get(hq)
        if side != "soviet" or u is None or not u.hq or sc.side_of[hq] != side or not st.on_map(rules, hq):
            raise IllegalOrder("11.43", f"{hq} is not a Soviet HQ on the map (only Soviet HQs add to an attack)", None)
        if st.has(rules["disrupted"], hq):
            raise IllegalOrder("6.64", f"{hq} is disrupted and may not aid an attack", None)
        if st.has(rules["ps"]["attacked"], hq):
            raise IllegalOrder("9.14", f"{hq} has taken part in an attack this phase", None)
        if not any(st.hex_of(rules, u) == st.hex_of(rules, hq) for u in units):
            raise IllegalOrder("11.43", f"{hq} adds only to units attacking from its own hex", None)
    if len({st.hex_of(rules, hq) for hq in hqs}) != len(hqs):
        raise IllegalOrder("11.43", "one HQ adds to the units of its hex", None)
    air = _air_spend(sc, rules, side, order.get("air"), tis, "14.21", board)
    _start(sc, rules, "attack", side, sorted(units), sorted(targets), ctx, hqs=sorted(hqs),
           air=air, shift=(order.get("air") or {}).get("shift", 0))


def _check_attacker(sc: Scenario, rules: dict, board: Board, side: str, uid: str, targets: list[int],
                    lines, overrun: bool = False) -> None:
    u = sc.units.get(uid)
    if u is None or u.side != side:
        raise IllegalOrder("9.1", not_own_unit(sc, uid, side), None)
    if not st.on_map(rules, uid):
        raise IllegalOrder("9.1", st.not_on_map(rules, uid), None)
    if not u.combat:
        raise IllegalOrder("11.41" if u.hq else "9.1", f"{uid} has no Attack Strength", None)
    if st.has(rules["disrupted"], uid):
        raise IllegalOrder("6.62", f"{uid} is disrupted and may not attack", None)
    if not overrun:
        if st.has(rules["ps"]["attacked"], uid):
            raise IllegalOrder("9.14", f"{uid} has attacked this phase", None)
        if st.has(rules["ps"]["advanced"], uid):
            raise IllegalOrder("9.85", f"{uid} advanced after combat and may not attack this phase", None)
    if rules["turn"] == 1 and side == "axis" and u.setup in ("5.31", "5.32"):
        raise IllegalOrder("5.38", f"{uid} may not attack on Game-Turn 1", None)
    i = sc.idx[st.hex_of(rules, uid)]
    for t in targets:
        if not sc.adjacent(i, t):
            raise IllegalOrder("9.23", f"{uid} is not next to {sc.ids[t]}", None)
        kind = sc.side_kind.get((i, t))
        if kind == "volga":
            raise IllegalOrder("10.27", f"{uid} may not attack across the Volga", None)
        if kind == "lake":
            raise IllegalOrder("10.29", f"{uid} may not attack across an all-lake or all-sea hexside", None)
        if u.motorised and sc.mountain[t]:
            raise IllegalOrder("10.34", f"{uid} is mechanized or cavalry and may not attack into the mountains", None)
    if not overrun and u.nation not in sp.DIRECT and not sp.in_radius(sc, rules, board, side, uid, lines):
        raise IllegalOrder("11.47", f"{uid} is not within the Communications Radius of a {u.nation} HQ", None)


def _start(sc: Scenario, rules: dict, kind: str, side: str, units: list[str], targets: list[str], ctx,
           hqs: list[str] | None = None, air: list[str] | None = None, shift: int = 0, origin: str | None = None) -> None:
    enemy = other(side)
    defenders = sorted(u for u, w in rules["units"].items() if w in targets and sc.side_of[u] == enemy
                       and (sc.units[u].combat or sc.units[u].hq))
    rules["ps"]["combats"] = rules["ps"].get("combats", 0) + 1
    rules["ps"].pop("advance_barred", None)
    for uid in air or []:
        rules["air"][uid] = rules["air"].get(uid, 0) + 1
    c = {"kind": kind, "att": side, "def": enemy, "units": units, "hqs": hqs or [], "targets": targets,
         "defenders": defenders, "origin": origin, "air": {"att": air or [], "def": []},
         "shift": {"att": shift if air else 0, "def": 0}, "step": "def-supply", "label": label(rules),
         "hq_defence": {}}
    from . import victory

    held = victory.zoc_held(sc, rules)        # 16.53, 18.24: what this combat may surrender
    if held:
        c["held"] = held
    rules["combat"] = c
    what = verb(units + (hqs or []), "overrun" if kind == "overrun" else "attack")
    ctx.event("attack", f"{', '.join(units)}{' (+' + ', '.join(hqs) + ')' if hqs else ''} {what} "
              f"{', '.join(targets)}" + (f" with {len(air)} Air Point(s), {'+' if shift > 0 else '-'}1 each" if air else "")
              + ".", side=side, units=units, hqs=hqs or [], targets=targets, kind=kind, air=air or [],
              # where the attackers stand, for the picture's arrows (draw.py)
              hexes=sorted({rules["units"][u] for u in units + (hqs or []) if st.on_map(rules, u)}),
              rule="6.51" if kind == "overrun" else "9.1")
    run(sc, rules, ctx)


# --- the state machine ---------------------------------------------------------------------------

def awaiting(sc: Scenario, rules: dict) -> tuple[str, str, str, tuple, str] | None:
    """(side, decision kind, prompt, order types, rule) of the decision the combat waits for."""
    c = rules["combat"]
    if c is None:
        return None
    step = c["step"]
    targets = ", ".join(c["targets"])
    if step == "def-air":
        return c["def"], "air-defence", f"Air Points for the defence of {targets} (14.22)", ("air",), "14.22"
    if step == "def-supply":
        return "axis", "air-supply-defence", f"air supply for the German defenders of {targets} (12.44)", \
            ("air-supply",), "12.44"
    if step == "hq-defence":
        return c["def"], "hq-defence", f"add an HQ's strength to the defence of {targets} (11.43)", ("hq",), "11.43"
    if step == "def-choice":
        return c["def"], "defender-result", f"{c['result']}: the defenders of {targets} lose steps or retreat (9.67)", \
            ("result",), "9.67"
    if step == "att-choice":
        return c["att"], "attacker-result", f"{c['result']}: the attackers lose steps or retreat (9.67)", \
            ("result",), "9.67"
    if step == "double":
        return c["att"], "double-losses", f"double every step loss in the Major city {targets} (9.33)", \
            ("double",), "9.33"
    if step in ("def-loss", "att-loss"):
        owner = c["def"] if step == "def-loss" else c["att"]
        return owner, "loss", f"the unit that loses the next step ({c['loss']['left']} to go, 9.67)", ("loss",), "9.67"
    if step in ("def-retreat", "att-retreat"):
        owner = c["def"] if step == "def-retreat" else c["att"]
        uid = c["retreat"]["queue"][0]
        return other(owner), "retreat", f"the path of retreat of {uid} ({c['retreat']['hexes']} hexes, 9.72)", \
            ("retreat",), "9.72"
    if step == "advance":
        return c["advance"]["side"], "advance", f"advance after combat into {', '.join(c['advance']['hexes'])} (9.8)", \
            ("advance",), "9.8"
    return None


def run(sc: Scenario, rules: dict, ctx) -> None:
    """Advance the combat through the steps that need no decision."""
    while rules["combat"] is not None:
        c = rules["combat"]
        step = c["step"]
        if step == "def-supply":
            if not _defence_supply_possible(sc, rules, c):
                c["step"] = "hq-defence"
                continue
            return
        if step == "hq-defence":
            if not _hq_defence_options(sc, rules, c):
                c["step"] = "def-air"
                continue
            return
        if step == "def-air":
            if not _defender_air_possible(sc, rules, c):
                c["step"] = "roll"
                continue
            return
        if step == "roll":
            _roll(sc, rules, c, ctx)
            continue
        if step == "apply":
            _apply(sc, rules, c, ctx)
            continue
        if step in ("def-loss", "att-loss"):
            if _auto_loss(sc, rules, c, ctx):
                continue
            return
        if step in ("def-retreat", "att-retreat"):
            if _auto_retreat(sc, rules, c, ctx):
                continue
            return
        if step == "advance":
            if not advance_options(sc, rules, c):
                barred = _barred(sc, rules, c)
                if barred:                    # what an order to advance them is told (`why_no_advance`)
                    rules["ps"]["advance_barred"] = barred
                _finish(sc, rules, c, ctx)
                continue
            return
        if step == "finish":
            _finish(sc, rules, c, ctx)
            continue
        return


# --- defender's air, air supply and HQ ----------------------------------------------------------

def _available_air(sc: Scenario, rules: dict, side: str, targets: list[int],
                   supplied: bool = True) -> list[tuple[str, int]]:
    """Air units of `side` with Air Points left, not moved, in range of every target and in
    supply; with `supplied` false, out of supply too (one may spend a point on itself, 12.46)."""
    cands = []
    for uid in sc.air_units[side]:
        u, w = sc.units[uid], rules["units"][uid]
        if w in st.OFF_MAP or st.has(rules["air_moved"], uid):
            continue
        left = u.air_points - rules["air"].get(uid, 0)
        i = sc.idx[w]
        if left > 0 and all(sc.distance(i, t) <= u.air_range for t in targets):
            cands.append((uid, left))
    if not cands or not supplied:
        return sorted(cands)
    sup = sp.supplied(sc, rules, view(sc, rules), side, [u for u, _ in cands])
    return sorted((u, left) for u, left in cands if u in sup)


def _defender_air_possible(sc: Scenario, rules: dict, c: dict) -> bool:
    if c["kind"] == "overrun" and c["def"] == "soviet":
        return False                                                     # 14.3
    if c["kind"] == "overrun":
        return False                                                     # 14.3: Axis air only on its own overruns
    return bool(_available_air(sc, rules, c["def"], [sc.idx[h] for h in c["targets"]]))


def air_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    avail = _available_air(sc, rules, c["def"], [sc.idx[h] for h in c["targets"]])
    out = [{"type": "air", "units": []}]
    for uid, left in avail:
        out.append({"type": "air", "units": [uid], "shift": 1})
    every = [uid for uid, left in avail for _ in range(left)]
    if len(every) > 1:
        out.append({"type": "air", "units": every, "shift": 1})
    return out


def answer_air(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    c = rules["combat"]
    board = view(sc, rules)
    air = _air_spend(sc, rules, c["def"], order, [sc.idx[h] for h in c["targets"]], "14.22", board)
    for uid in air:
        rules["air"][uid] = rules["air"].get(uid, 0) + 1
    c["air"]["def"] = air
    c["shift"]["def"] = order.get("shift", 0) if air else 0
    if air:
        ctx.event("air", f"The defence spends {len(air)} Air Point(s) ({', '.join(air)}), "
                  f"{'+' if c['shift']['def'] > 0 else '-'}1 each (14.22).", side=c["def"], units=air, rule="14.22",
                  chosen_by=ctx.chosen_by)
    c["step"] = "roll"
    run(sc, rules, ctx)


def _unsupplied_germans(sc: Scenario, rules: dict, c: dict) -> list[str]:
    board = view(sc, rules)
    germans = [u for u in c["defenders"] if st.on_map(rules, u) and sc.units[u].nation == "german"
               and sc.units[u].combat and not sc.mountain[sc.idx[st.hex_of(rules, u)]]]
    if not germans:
        return []
    sup = sp.supplied(sc, rules, board, "axis", germans)
    return [u for u in germans if u not in sup]


def _defence_supply_possible(sc: Scenario, rules: dict, c: dict) -> bool:
    """Air supply of German defenders (12.44): against a Soviet attack, and against a Soviet
    overrun too: "During any Phase of either Player-Turn, the Axis Player may expend Air
    Points to put Axis units in Supply" (14.0), and an overrun is resolved with "all ...
    Supply rules affecting combat ... in effect", judged "at the instant of Overrun" (6.51).
    (14.3 bars the Soviet player's Air Points from overruns, and the Axis defender's die
    shifts, not supply.) An air unit out of supply may spend a point on itself (12.46), with
    German defenders or, to spend another on the die (14.22), alone."""
    return c["def"] == "axis" and len(defence_supply_options(sc, rules, c)) > 1


def defence_supply_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    """No air supply; then, for each air unit that may spend a point, the German defenders
    that point supplies (five steps, 12.41, within 14 MP of each other, 12.42), the strongest
    first, with the air unit itself among them if it is out of supply (one step, 12.46); last,
    an air unit out of supply alone, when it has a second point for the die of an attack
    (14.22). The strongest first: a unit supplied defends at its full strength, not half
    (12.51), so the point adds most to the defence that way (a players' probe: taken in the order of
    their ids, two regiments of 2 were supplied and one of 4 left halved)."""
    from . import air as airmod

    out = [{"type": "air-supply", "air": None, "units": []}]
    if c["def"] != "axis":
        return out
    available = _available_air(sc, rules, "axis", [sc.idx[h] for h in c["targets"]], supplied=False)
    if not available:
        return out
    supplied = sp.supplied(sc, rules, view(sc, rules), "axis", [u for u, _ in available])
    needy = sorted(_unsupplied_germans(sc, rules, c), key=lambda u: (-st.strengths(sc, rules, u)[1], u))
    lines = sp.lines_of(sc, rules, "axis") if needy else None
    alone = []
    for uid, left in available:
        chosen, steps = ([], 0) if uid in supplied else ([uid], 1)
        for u in needy:
            n = st.steps_left(sc, rules, u)
            if steps + n <= airmod.STEPS_PER_POINT and airmod.too_far_apart(sc, rules, chosen + [u], lines) is None:
                chosen.append(u)
                steps += n
        if any(u != uid for u in chosen):
            own = chosen[:1] if chosen[0] == uid else []     # the air unit first, then its defenders by id
            out.append({"type": "air-supply", "air": uid, "units": own + sorted(chosen[len(own):])})
        if uid not in supplied and left > 1 and c["kind"] == "attack":
            alone.append({"type": "air-supply", "air": uid, "units": [uid]})
    return out + alone


def answer_defence_supply(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    from . import air as airmod

    c = rules["combat"]
    if order.get("air"):
        airmod.air_supply(sc, rules, "axis", order, ctx, defenders=c["defenders"])
    c["step"] = "hq-defence"
    run(sc, rules, ctx)


def _hq_defence_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    """11.43: an Axis HQ stacked with defending combat units of its nationality may add
    half its rating (never against an overrun, 11.46): one HQ to the stack in its hex, so in an
    attack on several hexes (9.23) one in each, as the Soviet attacker adds one HQ to each
    attacking stack; the decision is asked again while a hex without one may have one."""
    if c["def"] != "axis" or c["kind"] != "attack":
        return []
    out = []
    for h in c["targets"]:
        if h in c["hq_defence"]:
            continue
        here = [u for u, w in rules["units"].items() if w == h and sc.side_of[u] == "axis"]
        for hq in here:
            u = sc.units[hq]
            if u.hq and not st.has(rules["disrupted"], hq) and any(
                    sc.units[x].combat and sc.units[x].nation == u.nation for x in here):
                out.append({"type": "hq", "hq": hq})
    return out


def hq_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    return [{"type": "hq", "hq": None}] + _hq_defence_options(sc, rules, c)


def answer_hq(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    c = rules["combat"]
    hq = order.get("hq")
    if hq is not None:
        if {"type": "hq", "hq": hq} not in _hq_defence_options(sc, rules, c):
            raise IllegalOrder("11.43", f"{hq} may not add to this defence (an Axis HQ stacked with defending units of "
                               f"its nationality, not disrupted)", [o["hq"] for o in _hq_defence_options(sc, rules, c)])
        c["hq_defence"][st.hex_of(rules, hq)] = hq
        ctx.event("hq", f"{hq} adds to the defence of {st.hex_of(rules, hq)} (11.43).", unit=hq, rule="11.43",
                  chosen_by=ctx.chosen_by)
    else:
        c["step"] = "def-air"
    run(sc, rules, ctx)   # with an HQ named, the step is asked again while another hex may have one


# --- the roll (9.4, 9.5, 13.2) ---------------------------------------------------------------------

def _roll(sc: Scenario, rules: dict, c: dict, ctx) -> None:
    # 13.2: untried units are revealed at the instant of combat, before the die
    involved = [u for u in c["units"] + c["defenders"] if st.on_map(rules, u)]
    for uid in involved:
        if st.untried(sc, rules, uid):
            ut.reveal(sc, rules, uid, ctx, f"{c['label']}.draw.{uid}")
    c["units"] = [u for u in c["units"] if st.on_map(rules, u)]
    c["defenders"] = [u for u in c["defenders"] if st.on_map(rules, u)]
    if not [u for u in c["units"] if sc.units[u].combat]:
        ctx.event("combat", "No attacking unit is left after the reveal: the attack does not take place (13.3).",
                  rule="13.3")
        _finish(sc, rules, c, ctx, fought=False)
        return
    if not c["defenders"]:
        ctx.event("combat", f"No defender is left in {', '.join(c['targets'])} after the reveal (13.3).", rule="13.3")
        c["def_part"], c["att_part"], c["engaged"] = "De", None, False
        c["result"] = "revealed"
        c["vacated"] = list(c["targets"])
        c["eliminated"] = list(c["targets"])
        _after_defender(sc, rules, c, ctx)
        return
    board = view(sc, rules)
    att_sup = sp.supplied(sc, rules, board, c["att"], [u for u in c["units"] if sc.units[u].combat], mark=True)
    def_sup = sp.supplied(sc, rules, board, c["def"], c["defenders"], mark=True)
    attack, a_parts = attack_strength(sc, rules, c, att_sup)
    defence, d_parts = defence_strength(sc, rules, c, def_sup)
    if attack < 1 or defence < 1:   # a strength of 0 (a unit revealed as 0) counts as 1
        a_parts += [] if attack >= 1 else [f"{attack}, counted as 1"]
        d_parts += [] if defence >= 1 else [f"{defence}, counted as 1"]
        attack, defence = max(attack, 1), max(defence, 1)
    col = column(sc, attack, defence)
    die = ctx.d6(c["label"])
    # each side's Air Points said apart (14.22, 14.23): "die 5 -1 +1 = 5", where the net shift
    # alone hid that the attacker's point counted (a players' probe)
    shifts = [s for s in (c["shift"]["att"] * len(c["air"]["att"]), c["shift"]["def"] * len(c["air"]["def"])) if s]
    modified = die + sum(shifts)
    row = min(6, max(1, modified))   # a modified roll below 1 reads row 1, above 6 row 6 (crt.yaml)
    result = sc.crt[row][sc.crt_columns.index(col)]
    c.update(result=result, die=die, row=row, column=col, attack=attack, defence=defence)
    d, a, eng = _parse(result)
    c["def_part"], c["att_part"], c["engaged"] = d, a, eng
    ctx.event("combat", f"Attack strength {attack}: {', '.join(a_parts)}. Defence strength {defence}: "
              f"{'; '.join(d_parts)}. {attack} against {defence}: {col}; die {die}"
              # a roll taken off the table said so: "die 1 -1 = 0, read as 1" (a players' probe: "= 1")
              + ("".join(f" {'+' if s > 0 else ''}{s}" for s in shifts) + f" = {modified}"
                 + (f", read as {row}" if row != modified else "") if shifts else "")
              + f": {result} (9.5).", attack=attack, defence=defence, column=col, die=die, row=row,
              result=result, attack_parts=a_parts, defence_parts=d_parts, kind=c["kind"], targets=list(c["targets"]),
              # where the attackers stand, for the picture of an attack declared in an earlier packet
              hexes=sorted({rules["units"][u] for u in c["units"] + c["hqs"] if st.on_map(rules, u)}), rule="9.5")
    c["choices"] = {}
    if eng:
        c["def_choice"], c["att_choice"] = "loss", "loss"
        c["step"] = "double" if _double_possible(sc, rules, c) else "apply"
    elif d in ("D1", "D2"):
        c["step"] = "def-choice"
    else:
        # an A1 or A2 with a De or no defender's part: the defender's part first, then the
        # attacker's choice on the board it left (9.68, `_attacker_part`)
        c["def_choice"] = None
        c["step"] = "apply"


def _double_possible(sc: Scenario, rules: dict, c: dict) -> bool:
    """9.33 (errata): an attack (not an overrun) on a Major city where both stand and the
    defender loses steps."""
    if c["kind"] != "attack":
        return False
    if not any(sc.idx[h] in sc.city_of and sc.city_of[sc.idx[h]].cls == "major" for h in c["targets"]):
        return False
    if c.get("def_choice") == "retreat" or c.get("att_choice") == "retreat":
        return False
    return c["engaged"] or c["def_part"] in ("D1", "D2")


def choice_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    """9.67: loss or retreat; an attacker's retreat that would leave a hex over the stacking
    limit is not offered (7.1, `retreat_left_behind`)."""
    if c["step"] == "att-choice" and retreat_left_behind(sc, rules, c):
        return [{"type": "result", "choice": "loss"}]
    return [{"type": "result", "choice": "retreat"}, {"type": "result", "choice": "loss"}]


def retreat_left_behind(sc: Scenario, rules: dict, c: dict) -> str | None:
    """Why the attackers may not retreat (None: they may): 7.1 allows no more than three combat
    units in a hex at any time of the Combat Phase, and the units of a hex that did not attack
    stay where they are, so a retreat of some regiments of a whole division leaves the others
    counting one each (7.22) beside them. The defenders of a hex all retreat, so their retreat
    leaves nothing behind (9.67). An overrun is movement: the limit holds at the end of the
    Movement Phase only."""
    if c["kind"] != "attack":
        return None
    going = [u for u in c["units"] + c.get("hqs", []) if st.on_map(rules, u)]
    behind = left_behind(sc, rules, c["att"], going)
    if behind is None:
        return None
    return f"the attackers may not retreat: {left_words(sc, rules, going, *behind)}"


def answer_choice(sc: Scenario, rules: dict, which: str, order: dict, ctx) -> None:
    c = rules["combat"]
    choice = order.get("choice")
    if choice not in ("loss", "retreat"):
        raise IllegalOrder("9.67", "choose loss or retreat", ["loss", "retreat"])
    if which == "att" and choice == "retreat":
        why = retreat_left_behind(sc, rules, c)
        if why:
            raise IllegalOrder("7.1", why, ["loss"])
    side = c["def"] if which == "def" else c["att"]
    part = c["def_part"] if which == "def" else c["att_part"]
    c[f"{which}_choice"] = choice
    ctx.event("choice", f"The {'defender' if which == 'def' else 'attacker'} answers {part} with "
              f"{'a retreat' if choice == 'retreat' else 'step losses'} (9.67).", side=side, choice=choice, part=part, rule="9.67",
              chosen_by=ctx.chosen_by)
    if which == "def" and c["att_part"] in ("A1", "A2") and _double_possible(sc, rules, c):
        # 9.33: the option to double is the attacker's "only if both Players choose to stand",
        # so in a Major city where the defender stands the attacker chooses before either part
        # is taken; elsewhere after the defender's part (`_attacker_part`)
        c["step"] = "att-choice"
    else:
        c["step"] = "double" if _double_possible(sc, rules, c) else "apply"
    run(sc, rules, ctx)


def answer_double(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    c = rules["combat"]
    choice = order.get("choice")
    if choice not in ("yes", "no"):
        raise IllegalOrder("9.33", "answer yes or no", ["yes", "no"])
    c["double"] = choice == "yes"
    if c["double"]:
        ctx.event("double", "The attacker doubles every step loss of this combat in the Major city (9.33).",
                  rule="9.33", chosen_by=ctx.chosen_by)
    c["step"] = "apply"
    run(sc, rules, ctx)


# --- applying the result (9.6-9.8) -----------------------------------------------------------------

def _steps_of(part: str | None) -> int:
    return {"D1": 1, "D2": 2, "A1": 1, "A2": 2}.get(part or "", 0)


def _apply(sc: Scenario, rules: dict, c: dict, ctx) -> None:
    """The defender's part first (9.68), then the attacker's."""
    if c.get("phase2"):
        _attacker_part(sc, rules, c, ctx)
        return
    c["phase2"] = True
    d = c["def_part"]
    factor = 2 if c.get("double") else 1
    if c["engaged"]:
        _begin_loss(sc, rules, c, "def", 1 * factor, ctx)
        return
    if d == "De":
        _eliminate(sc, rules, c["defenders"], ctx, "9.66")
        c["vacated"] = [h for h in c["targets"] if not _holds(sc, rules, h, c["def"])]
        c["eliminated"] = list(c["vacated"])
        _after_defender(sc, rules, c, ctx)
        return
    if d in ("D1", "D2"):
        if c.get("def_choice") == "retreat":
            _begin_retreat(sc, rules, c, "def", _steps_of(d), ctx)
        else:
            _begin_loss(sc, rules, c, "def", _steps_of(d) * factor, ctx)
        return
    _attacker_part(sc, rules, c, ctx)


def _holds(sc: Scenario, rules: dict, h: str, side: str) -> bool:
    return any(w == h and sc.side_of[u] == side and (sc.units[u].combat or sc.units[u].hq)
               for u, w in rules["units"].items())


def _eliminate(sc: Scenario, rules: dict, units: list[str], ctx, rule: str) -> None:
    gone = [u for u in units if st.on_map(rules, u)]
    for uid in gone:
        eliminate(sc, rules, uid)
    if gone:
        ctx.event("eliminated", f"{', '.join(gone)} eliminated ({rule}).", units=gone, side=sc.side_of[gone[0]], rule=rule)


def eliminate(sc: Scenario, rules: dict, uid: str) -> None:
    """A unit leaves the game; a German regiment takes its division's integrity with it (7.23)."""
    d = sc.units[uid].division
    if d:
        st.mark(rules["broken"], d)
    st.remove(rules, uid, "gone")
    rules["pt"]["retreated"].pop(uid, None)


def _side_units(c: dict, which: str) -> list[str]:
    return c["defenders"] if which == "def" else c["units"] + c.get("hqs", [])


def _begin_loss(sc: Scenario, rules: dict, c: dict, which: str, n: int, ctx) -> None:
    units = [u for u in _side_units(c, which) if st.on_map(rules, u)]
    retreated = rules["pt"]["retreated"]
    if which == "def":                                                   # 9.75: retreated units die, count for nothing
        dead = [u for u in units if u in retreated]
        if dead:
            _eliminate(sc, rules, dead, ctx, "9.75")
        units = [u for u in units if u not in retreated]
    c["loss"] = {"which": which, "left": n, "units": units}
    if which == "att":
        # 11.42: "If an HQ unit is in a stack of units which incurs a combat loss, the HQ unit may
        # be eliminated to satisfy the step loss requirement, at the option of the owning Player":
        # an HQ stacked with attackers, not in the attack itself, is offered too, and never taken
        # without its owner's choice (a review: only an HQ that added its rating was offered). The
        # defenders are every unit of the hex attacked, HQs among them.
        origins = {st.hex_of(rules, u) for u in units}
        optional = sorted(u for u, w in rules["units"].items()
                          if w in origins and sc.units[u].hq and sc.side_of[u] == c["att"] and u not in units)
        if optional:                  # kept only when there is one: most losses hold none
            c["loss"]["optional"] = optional
    c["step"] = f"{which}-loss"


def _optional(rules: dict, loss: dict) -> list[str]:
    """The HQs of `loss` (11.42) that may lose the step at their owner's option, still on the map."""
    return [u for u in loss.get("optional", ()) if st.on_map(rules, u)]


def loss_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    units = [u for u in c["loss"]["units"] if st.on_map(rules, u)] + _optional(rules, c["loss"])
    return [{"type": "loss", "unit": u} for u in units]


def _auto_loss(sc: Scenario, rules: dict, c: dict, ctx) -> bool:
    """Take the losses that need no choice; True when the step moved on."""
    loss = c["loss"]
    units = [u for u in loss["units"] if st.on_map(rules, u)]
    loss["units"] = units
    total = sum(st.steps_left(sc, rules, u) for u in units)
    if loss["left"] <= 0 or not units:              # an HQ of 11.42's option is never obliged to
        _loss_done(sc, rules, c, ctx)
        return True
    if _optional(rules, loss):
        return False                                # the owner's choice (a standing order or an answer)
    if total <= loss["left"]:
        _eliminate(sc, rules, units, ctx, "9.69" if c["engaged"] else "9.67")   # an Engaged loss, or A1/D1's
        loss["left"] = 0
        _loss_done(sc, rules, c, ctx)
        return True
    if len(units) == 1:
        _take(sc, rules, c, units[0], ctx)
        return True
    return False


def _take(sc: Scenario, rules: dict, c: dict, uid: str, ctx) -> None:
    loss = c["loss"]
    dead = st.take_step(sc, rules, uid)
    if dead:
        eliminate(sc, rules, uid)
        ctx.event("eliminated", f"{uid} loses its last step and is eliminated (9.6).", units=[uid],
                  side=sc.side_of[uid], rule="9.6")
    else:
        ctx.event("step", f"{uid} loses a step (9.6).", unit=uid, rule="9.6")
    loss["left"] -= 1


def answer_loss(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    c = rules["combat"]
    uid = order.get("unit")
    if uid not in c["loss"]["units"] + _optional(rules, c["loss"]) or not st.on_map(rules, uid):
        raise IllegalOrder("9.67", f"{uid} is not one of the units that may lose the step",
                           [o["unit"] for o in loss_options(sc, rules, c)])
    _take(sc, rules, c, uid, ctx)
    run(sc, rules, ctx)


def _loss_done(sc: Scenario, rules: dict, c: dict, ctx) -> None:
    which = c["loss"]["which"]
    c["loss"] = None
    if which == "def":
        c["vacated"] = [h for h in c["targets"] if not _holds(sc, rules, h, c["def"])]
        c["eliminated"] = list(c["vacated"])
        _after_defender(sc, rules, c, ctx)
    else:
        _after_attacker(sc, rules, c, ctx)


def _after_defender(sc: Scenario, rules: dict, c: dict, ctx) -> None:
    """The defender's part is done; disruption (6.61); then the attacker's part."""
    if c["kind"] == "overrun" and (c["def_part"] or c["engaged"]):
        survivors = [u for u in c["defenders"] if st.on_map(rules, u)]
        for uid in survivors:
            st.mark(rules["disrupted"], uid)
        if survivors:
            ctx.event("disrupted", f"{', '.join(survivors)} disrupted by the overrun (6.61).", units=survivors, rule="6.61")
    c["step"] = "apply"
    c["phase2"] = True
    run_after = c["engaged"] or c["att_part"]
    if run_after:
        _attacker_part(sc, rules, c, ctx)
    else:
        _after_attacker(sc, rules, c, ctx)


def _attacker_part(sc: Scenario, rules: dict, c: dict, ctx) -> None:
    a = c["att_part"]
    factor = 2 if c.get("double") else 1
    if c.get("att_done"):
        _after_attacker(sc, rules, c, ctx)
        return
    if a in ("A1", "A2") and not c["engaged"] and c.get("att_choice") is None:
        # 9.68: "the defender always takes his result first ... Then the attacker takes his
        # result", and the CRT's note: "then Attacker must decide to retreat or lose one step":
        # the attacker chooses on the board the defender's part left, where a hex it emptied
        # may be the attacker's way out (a cheater's probe: asked before it, the attacker was
        # told "no path of retreat", and his standing order lost a step, where a path opened)
        c["step"] = "att-choice"
        return
    c["att_done"] = True
    if c["engaged"]:
        _begin_loss(sc, rules, c, "att", 1 * factor, ctx)
        return
    if a in ("Ae", "A1", "A2"):
        c["att_origins"] = sorted({st.hex_of(rules, u) for u in c["units"] if st.on_map(rules, u)})
    if a == "Ae":
        _eliminate(sc, rules, c["units"] + c.get("hqs", []), ctx, "9.66")
        _after_attacker(sc, rules, c, ctx)
        return
    if a in ("A1", "A2"):
        if c.get("att_choice") == "retreat":
            _begin_retreat(sc, rules, c, "att", _steps_of(a), ctx)
        else:
            _begin_loss(sc, rules, c, "att", _steps_of(a) * factor, ctx)
        return
    _after_attacker(sc, rules, c, ctx)


def _after_attacker(sc: Scenario, rules: dict, c: dict, ctx) -> None:
    """The attackers' hexes an Ae, A1 or A2 emptied, by elimination, retreat or the loss of their
    last steps, open to the defender's advance (9.81, 9.87), an advance of two hexes from a hex
    where every unit was eliminated (9.86), as for the defender's hexes after a De, D1 or D2."""
    if c["att_part"] in ("Ae", "A1", "A2") and "att_vacated" not in c:
        origins = c.get("att_origins", [])
        c["att_vacated"] = [h for h in origins if not _holds(sc, rules, h, c["att"])]
        retreated = c["att_part"] != "Ae" and c.get("att_choice") == "retreat"
        c["att_eliminated"] = _wiped_out(sc, c, c["att_vacated"], c["att"]) if retreated else list(c["att_vacated"])
    if c["kind"] == "overrun":
        _overrun_outcome(sc, rules, c, ctx)
        return
    _setup_advance(sc, rules, c)
    c["step"] = "advance" if c.get("advance") else "finish"


# --- retreats (9.7) -----------------------------------------------------------------------------------

def _begin_retreat(sc: Scenario, rules: dict, c: dict, which: str, n: int, ctx) -> None:
    units = [u for u in _side_units(c, which) if st.on_map(rules, u)]
    retreated = rules["pt"]["retreated"]
    if which == "def":
        dead = [u for u in units if u in retreated]
        if dead:
            _eliminate(sc, rules, dead, ctx, "9.75")
        units = [u for u in units if u not in retreated]
    else:
        # 11.45: an HQ not in the attack whose hex's combat units all retreat goes with them
        origins = {st.hex_of(rules, u) for u in units}
        for h in sorted(origins):
            here = [u for u, w in rules["units"].items() if w == h and sc.side_of[u] == c["att"]]
            if all(u in units or not sc.units[u].combat for u in here):
                units += [u for u in here if sc.units[u].hq and u not in units]
    # 9.73 reading: the strongest combat units retreat first, so the owner keeps the most; the
    # regiments of a division whole in its hex, all retreating (7.22: one combat unit for 7.1),
    # one after another, in the place of the strongest of them
    board = view(sc, rules)
    whole = {}
    for d in sorted({sc.units[u].division for u in units if sc.units[u].division}):
        origin = board.where.get(sc.divisions[d][0])
        if origin is not None and board.intact(d, origin) and all(r in units for r in sc.divisions[d]):
            whole[d] = sc.ids[origin]
    # HQs after the combat units: an HQ in the combat retreats "if the combat units with which it
    # is conducting the combat retreat" (11.44), and one in their hex "the same number of hexes
    # as the last combat unit to be retreated" (11.45) (a review: HQs went first and took the
    # vacant hexes their units then had no room in)
    rank = {u: (sc.units[u].hq, -(st.strengths(sc, rules, u)[0] + st.strengths(sc, rules, u)[1]), u) for u in units}
    lead = {d: min(rank[r] for r in sc.divisions[d]) for d in whole}
    units.sort(key=lambda u: (lead.get(sc.units[u].division, rank[u]), rank[u]))
    c["retreat"] = {"which": which, "hexes": n, "queue": units, "whole": whole}
    c.setdefault("paths", {})
    c["step"] = f"{which}-retreat"


def _geometry(sc: Scenario, rules: dict, uid: str, n: int, board: Board | None = None,
              attacked: frozenset[int] = frozenset()) -> list[list[int]]:
    """9.71, 9.72 (errata): every path of exactly n hexes ending n hexes away, not into enemy
    units, Enemy ZOC (unless a friendly unit holds the hex, 8.24), terrain or hexsides the unit
    could not move through, or a Major river hexside (stacking aside); nor, for an attacker,
    into or through the hexes it attacked (`attacked`, `not_into`)."""
    side = sc.side_of[uid]
    board = board or view(sc, rules)
    start = sc.idx[st.hex_of(rules, uid)]
    mine = board.side_hexes(side)
    ezoc = board.ezoc(side)
    # 9.71: "never ... into a hex containing an Enemy unit" - a hex an enemy air unit or truck
    # holds alone too: 12.38 and 14.13 let enemy units *move* into one, and a retreat is not
    # movement (6.24)
    blocking = board.side_hexes(other(side)) | attacked
    steps = sc.steps(side, sc.units[uid].move_class)
    found: list[list[int]] = []
    # depth first, each hex's neighbours in order (a stack, not a recursive closure: pbem
    # makes no reference cycles, see pbem/entry.py)
    todo = [[start]]
    while todo:
        path = todo.pop()
        a = path[-1]
        if len(path) - 1 == n:
            if sc.distance(start, a) == n:
                found.append(path[1:])
            continue
        nexts = []
        for b, c, flag in steps[a]:
            if b in path or c < 0 or b in blocking:
                continue
            kind = sc.side_kind.get((a, b))
            if kind in ("don", "volga", "lake"):
                continue
            if b in ezoc and b not in mine:
                continue
            nexts.append(path + [b])
        todo += reversed(nexts)
    return found


def _division_retreat(sc: Scenario, rules: dict, c: dict | None, uid: str) -> tuple[str, list[str], list[str]] | None:
    """(division, its regiments retreated already, those still to retreat, uid first) when uid
    is a regiment of a division that stood whole in its hex as the retreat began and retreats
    with all its regiments (7.21-7.23: none eliminated since); None otherwise."""
    r = (c or {}).get("retreat") or {}
    d = sc.units[uid].division
    if d is None or d not in r.get("whole", {}) or d in rules["broken"]:
        return None
    rest = [uid] + [m for m in r["queue"] if m != uid and sc.units[m].division == d]
    placed = [m for m in sc.divisions[d] if m not in rest and m in c.get("paths", {}) and st.on_map(rules, m)]
    return d, placed, rest


def not_into(sc: Scenario, c: dict, uid: str) -> frozenset[int]:
    """The hexes a unit of combat `c` may not retreat into or through beyond those of 9.71: for
    an attacker, the hexes it attacked. In a split result the defender goes first (9.68) and
    may leave his hex empty; "if any attacking units remain in the original hex, they may
    advance after combat, provided that the defending hex has been vacated" (9.68), and only
    "victorious units" advance (9.81). An attacker retreating into the hex he attacked would
    take it as if he had advanced, and for no step: a retreat goes away from the combat (the
    reading of README; a cheater's probe had the defender's own standing order put a
    retreating Axis stack on the front-line hex its defenders had just lost)."""
    if sc.side_of[uid] != c["att"]:
        return frozenset()
    return frozenset(sc.idx[h] for h in c["targets"])


def retreat_paths(sc: Scenario, rules: dict, uid: str, n: int, c: dict | None = None, *,
                  attacked: frozenset[int] = frozenset()) -> list[list[int]]:
    """9.71-9.73 (errata 9.72): every path of exactly n hexes ending n hexes away (`_geometry`;
    for an attacker, never into the hexes it attacked: `attacked`, or `not_into` of `c`);
    through vacant hexes if any such path exists, else through friendly hexes within the
    stacking limit into a vacant hex if any such path exists (9.73, 9.75: the reading of
    README), else into friendly hexes within the stacking limit.

    A regiment of a whole division retreating (`_division_retreat`, in the retreat `c`) is
    judged as its division would stand together (7.22: one combat unit for 7.1): a hex that
    holds only regiments of the division retreated before it is vacant to it, the hex they
    went to counts the division as one while the rest of it may still join them there, and
    the enemy who chooses the path (9.72) may send it elsewhere only where that leaves each
    regiment of the division a path within the limit, counting the regiments apart one each
    (`_split_refused`): no regiment is eliminated for a count that only the split makes."""
    side = sc.side_of[uid]
    board = view(sc, rules)
    found = _geometry(sc, rules, uid, n, board, not_into(sc, c, uid) if c else attacked)
    body = _division_retreat(sc, rules, c, uid)
    placed = set(body[1]) if body else set()

    def vacant(b: int) -> bool:
        return all(u in placed for u in board.units_at(b))

    def friends(b: int) -> list[str]:
        return [u for u in board.units_at(b) if sc.side_of[u] == side]

    # 9.73, "into or through": the units of this combat's retreat go through a hex together, so
    # a hex holds those that passed through it before this one as well as those standing there
    # (the rule's example: of two German units whose only path leads through a hex of two, one
    # is eliminated); regiments of its own whole division count as it does (7.22)
    passed: dict[int, list[str]] = {}
    for m, hexes in (c or {}).get("paths", {}).items():
        if sc.side_of[m] == side and m not in placed:
            for h in hexes[1:-1]:
                passed.setdefault(sc.idx[h], []).append(m)

    def through(p: list[int]) -> bool:
        return all(b not in passed or stacking_ok(sc, rules, friends(b) + passed[b] + [uid]) for b in p[:-1])

    def fits(p: list[int]) -> bool:
        if not all(stacking_ok(sc, rules, friends(b) + [uid]) for b in p[:-1]) or not through(p):
            return False
        end = p[-1]
        if body and all(board.where.get(m) == end for m in placed):      # the division together there
            return stacking_ok(sc, rules, friends(end) + body[2])
        return stacking_ok(sc, rules, friends(end) + [uid])

    vacant_paths = [p for p in found if all(vacant(b) for b in p) and through(p)]
    if vacant_paths:
        out = vacant_paths
    else:
        ok = [p for p in found if fits(p)]
        # 9.73: "into a vacant hex" if possible, through friendly hexes if need be; 9.75: a unit
        # that ends in an occupied hex dies with it, so the enemy may not choose that end here
        into_vacant = [p for p in ok if vacant(p[-1])]
        # a split is judged once for each hex it would end in, not for each path to it
        refused = {} if into_vacant or not body else \
            {end: _split_refused(sc, rules, c, body, end) for end in {p[-1] for p in ok}}
        out = into_vacant or [p for p in ok if not refused.get(p[-1])]
    if placed:
        # first the path of the regiment of the division gone last, then the others into its hex:
        # the division keeps together unless the enemy sends it apart (the standing order `first`)
        last = [m for m in c["paths"] if m in placed][-1]
        before = [sc.idx[h] for h in c["paths"][last][1:]]
        out = sorted(out, key=lambda p: (p != before, p[-1] != before[-1]))
    return out


def _split_refused(sc: Scenario, rules: dict, c: dict, body: tuple[str, list[str], list[str]], end: int) -> str | None:
    """Why the first of the regiments of a whole division still to retreat (`body`) may not
    retreat into the friendly-occupied hex `end` (None: it may): then the regiments would not
    all find a place within the stacking limit, those in hexes apart counting one each (7.22):
    the rest of them have no paths of retreat whose ends leave every hex the division's
    regiments stand in within it (7.1, 9.73). A vacant hex holds any division: only ends in
    friendly-occupied hexes need it."""
    d, placed, rest = body
    uid, more = rest[0], rest[1:]
    side = sc.side_of[uid]
    board = view(sc, rules)
    n = c["retreat"]["hexes"]
    members = set(sc.divisions[d])

    def friends(b: int) -> list[str]:
        return [u for u in board.units_at(b) if sc.side_of[u] == side]

    def others(b: int) -> list[str]:
        return [u for u in friends(b) if u not in members]

    ends = [sorted({p[-1] for p in _geometry(sc, rules, m, n, board, not_into(sc, c, m))
                    if all(stacking_ok(sc, rules, friends(b) + [m]) for b in p[:-1])}) for m in more]
    fixed = {m: board.where[m] for m in placed}
    fixed[uid] = end
    over = None
    for choice in product(*ends):
        where = dict(fixed, **dict(zip(more, choice)))
        over = next(((h, others(h) + [m for m in sc.divisions[d] if where.get(m) == h])
                     for h in sorted(set(where.values()))
                     if not stacking_ok(sc, rules, others(h) + [m for m in sc.divisions[d] if where.get(m) == h])), None)
        if over is None:
            return None
    if more:
        return (f"{' and '.join(more)} of {d} would then have no path of retreat within the stacking limit, its "
                f"regiments apart counting one each (7.22, 9.73)")
    h, here = over
    combat, hqs = stack_count(sc, rules, here)
    count = f"{combat} combat unit{'' if combat == 1 else 's'}" + (f" and {hqs} HQ{'' if hqs == 1 else 's'}" if hqs else "")
    apart = [m for m in here if m in members]
    limit = "3 combat units, or 4 units with an HQ," if hqs else "3 combat units"
    return (f"{sc.ids[h]} would be left holding {count} ({' and '.join(apart)} of {d} count one each once the "
            f"division is split, 7.22), and no more than {limit} may stand in a hex at any time of the Combat "
            f"Phase (7.1)")


def can_all_retreat(sc: Scenario, rules: dict, c: dict, which: str) -> bool:
    """Has every unit of the side a path of retreat for its part of the result (each alone)?"""
    return not trapped(sc, rules, c, which)


def trapped(sc: Scenario, rules: dict, c: dict, which: str) -> list[str]:
    """The units of the side with no path of retreat for their part of the result (each
    alone): a retreat eliminates them (9.73)."""
    n = _steps_of(c["def_part"] if which == "def" else c["att_part"])
    units = [u for u in _side_units(c, which) if st.on_map(rules, u) and u not in rules["pt"]["retreated"]]
    return [u for u in units if not retreat_paths(sc, rules, u, n, attacked=not_into(sc, c, u))]


def retreat_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    uid = c["retreat"]["queue"][0]
    return [{"type": "retreat", "unit": uid, "path": [sc.ids[b] for b in p]}
            for p in retreat_paths(sc, rules, uid, c["retreat"]["hexes"], c)]


def _auto_retreat(sc: Scenario, rules: dict, c: dict, ctx) -> bool:
    r = c["retreat"]
    r["queue"] = [u for u in r["queue"] if st.on_map(rules, u)]
    if not r["queue"]:
        c["retreat"] = None
        if r["which"] == "def":
            c["vacated"] = [h for h in c["targets"] if not _holds(sc, rules, h, c["def"])]
            c["eliminated"] = _wiped_out(sc, c, c["vacated"], c["def"])
            _after_defender(sc, rules, c, ctx)
        else:
            _after_attacker(sc, rules, c, ctx)
        return True
    uid = r["queue"][0]
    paths = retreat_paths(sc, rules, uid, r["hexes"], c)
    if not paths:
        eliminate(sc, rules, uid)
        ctx.event("eliminated", f"{uid} has no path of retreat and is eliminated (9.73).", units=[uid],
                  side=sc.side_of[uid], rule="9.73")
        r["queue"].pop(0)
        return True
    if len(paths) == 1:
        _retreat(sc, rules, c, uid, paths[0], ctx, chosen="only path")
        return True
    return False


def _wiped_out(sc: Scenario, c: dict, vacated: list[str], side: str) -> list[str]:
    """The emptied hexes none of whose units retreated out of them: every unit there was
    eliminated, for want of a path of retreat too (9.73), which opens the two-hex advance of
    9.86 as losses of steps do."""
    left_from = {path[0] for uid, path in c.get("paths", {}).items() if sc.side_of[uid] == side}
    return [h for h in vacated if h not in left_from]


def answer_retreat(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    c = rules["combat"]
    uid = c["retreat"]["queue"][0]
    if order.get("unit", uid) != uid:
        raise IllegalOrder("9.72", f"the retreat now decided is {uid}'s", None)
    paths = retreat_paths(sc, rules, uid, c["retreat"]["hexes"], c)
    want = [sc.idx.get(h, -1) for h in order.get("path") or []]
    if want not in paths:
        body = _division_retreat(sc, rules, c, uid)
        why = body and want in retreat_paths(sc, rules, uid, c["retreat"]["hexes"], attacked=not_into(sc, c, uid)) and \
            _split_refused(sc, rules, c, body, want[-1])
        if why:                                          # 7.1 with 7.22: a split that leaves a regiment no room
            raise IllegalOrder("7.1", f"{uid} may not retreat into {sc.ids[want[-1]]}: {why}",
                               [[sc.ids[b] for b in p] for p in paths[:12]])
        raise IllegalOrder("9.72", f"that is not a legal path of retreat for {uid}",
                           [[sc.ids[b] for b in p] for p in paths[:12]])
    _retreat(sc, rules, c, uid, want, ctx, chosen=ctx.chosen_by)
    run(sc, rules, ctx)


def _retreat(sc: Scenario, rules: dict, c: dict, uid: str, path: list[int], ctx, chosen: str) -> None:
    """One unit retreats along its path (6.24: no Movement Points; 9.74: through friendly
    units without disturbing them)."""
    from .movement import arrive

    side = sc.side_of[uid]
    start = st.hex_of(rules, uid)
    end = sc.ids[path[-1]]
    body = _division_retreat(sc, rules, c, uid)
    mates = set(body[1]) if body else set()                              # its division's regiments gone before
    for b in path:
        arrive(sc, rules, None, side, b, ctx.event)                      # 10.45; 12.38, 14.13
    st.put(rules, uid, end)
    friends = [u for u, w in rules["units"].items() if w == end and u != uid and sc.side_of[u] == side]
    if any(u not in mates for u in friends):
        rules["pt"]["retreated"][uid] = end                              # 9.75 (not a hex its own division entered)
    c["paths"][uid] = [start] + [sc.ids[b] for b in path]
    c["retreat"]["queue"].pop(0)
    # every hex of the path (a D2 retreat may pass through a Friendly unit's hex in an Enemy ZOC,
    # 8.24), and who chose it, unless no other path was open
    how = "the only path open" if chosen == "only path" else f"path chosen by the {other(side)} player"
    whole = ""
    if body and len(body[2]) == 1 and any(u not in mates for u in friends) \
            and all(st.hex_of(rules, m) == end for m in sc.divisions[body[0]]):
        whole = f"; {body[0]} stands whole there, one combat unit for the stacking limit (7.22)"
    ctx.event("retreat", f"{uid} retreats {' -> '.join(c['paths'][uid])} ({how}, 9.72){whole}.", unit=uid,
              path=c["paths"][uid], rule="9.72", chosen_by=chosen)


# --- advance after combat (9.8) -----------------------------------------------------------------------

def _setup_advance(sc: Scenario, rules: dict, c: dict) -> None:
    """Who may advance where (9.87): the attacker into the defenders' emptied hexes when it did
    not retreat; the defender into the attackers' emptied hexes, never in a split result
    (9.68); nobody after an overrun (9.88, 6.57: the overrun's own entry instead)."""
    c["advance"] = None
    if c["engaged"]:
        return
    if c.get("vacated") and c.get("att_choice") != "retreat" and c["att_part"] != "Ae":
        units = [u for u in c["units"] + c.get("hqs", []) if st.on_map(rules, u)
                 and st.hex_of(rules, u) not in c["targets"]]
        if units:
            c["advance"] = {"side": c["att"], "units": units, "hexes": list(c["vacated"]),
                            "two": list(c.get("eliminated", [])), "done": []}
            return
    split = c["def_part"] is not None and c["att_part"] is not None
    if c.get("att_vacated") and not split and c["def_part"] is None:
        units = [u for u in c["defenders"] if st.on_map(rules, u) and st.hex_of(rules, u) in c["targets"]]
        if units:
            c["advance"] = {"side": c["def"], "units": units, "hexes": list(c["att_vacated"]),
                            "two": list(c.get("att_eliminated", [])), "done": []}


def _advance_paths(sc: Scenario, rules: dict, c: dict, uid: str, board: Board | None = None) -> list[list[int]]:
    """9.81-9.84, 9.86: along the Path of Retreat, stopping in any hex of it (9.82), Enemy ZOC
    ignored (9.83), or two hexes after an elimination. An advance is not movement (6.24): it
    never enters a hex holding an enemy unit of any kind, not even one held only by air units
    or trucks, which 14.13 and 12.38 open to units that *move* in (a hex where one stays is not
    left vacant, 9.81); and it enters each hex of its way as the unit could move into it, never
    across an all-lake or Volga hexside nor, mechanized or cavalry, into a mountain (10.33).
    10.23 (errata): only in its own Combat Phase may a unit advance across a Don hexside into
    the ZOC of an enemy unit on the Don; the defender, advancing in the enemy's, may not
    (unless a unit of its own holds the hex)."""
    adv = c["advance"]
    i = sc.idx[st.hex_of(rules, uid)]
    enemy_paths = [p for u, p in c.get("paths", {}).items() if sc.side_of[u] != adv["side"]]
    board = board or view(sc, rules)
    held = board.side_hexes(other(adv["side"]))
    mech = sc.units[uid].move_class == "mech"
    don_zoc: set[int] = set()      # where the defender may not advance across the Don
    if adv["side"] != rules["player"]:
        don_zoc = board.zoc_of_units(other(adv["side"]), [h for h in held if h in sc.don_hex])
        don_zoc.difference_update(board.side_hexes(adv["side"]))

    def barred(a: int, b: int) -> bool:
        kind = sc.side_kind.get((a, b))
        return (kind in ("volga", "lake") or (mech and sc.mountain[b])
                or (kind == "don" and b in don_zoc))

    out: list[list[int]] = []
    for h in adv["hexes"]:
        v = sc.idx[h]
        if not sc.adjacent(i, v) or v in held or barred(i, v):
            continue
        out.append([v])
        if h in adv["two"]:                                               # 9.86: a second hex, any empty one
            for w in sc.nb[v]:
                if w == i or board.units_at(w) or barred(v, w):
                    continue
                out.append([v, w])
        for p in enemy_paths:                                             # 9.81, 9.84: along the Path of Retreat
            if p[0] != h:
                continue
            trail = [v]
            for x in p[1:]:
                xi = sc.idx[x]
                if xi in held or barred(trail[-1], xi):
                    break
                trail = trail + [xi]
                if trail not in out:
                    out.append(list(trail))
    return out


def advance_options(sc: Scenario, rules: dict, c: dict) -> list[dict]:
    """Every advance one order may make: each unit alone along each of its paths, and the
    regiments of a division whole in its hex together (any of them that may take the path,
    two or more), within the stacking limit in the hex entered and in the hex left (7.1, 7.22:
    a regiment that leaves its whole division alone makes the others count one each)."""
    adv = c.get("advance")
    if not adv:
        return []
    out: list[dict] = []
    board = view(sc, rules)
    left = [u for u in adv["units"] if st.on_map(rules, u) and u not in adv["done"]]
    escorted = _escorted(sc, rules, c)
    paths: dict[str, list[tuple[int, ...]]] = {}
    hqs = _rating_hqs(c)
    for uid in left:
        paths[uid] = [tuple(p) for p in _advance_paths(sc, rules, c, uid, board)
                      if not (uid in hqs and p[-1] not in escorted)]        # 11.44
    for uid in left:
        d = sc.units[uid].division
        whole = d is not None and board.intact(d, board.where[uid])
        for p in paths[uid]:
            mates = sorted(r for r in sc.divisions[d] if r != uid and p in paths.get(r, ())) if whole else []
            # each group once, under its first unit (in id order)
            groups = [[uid]] + [sorted([uid, *more]) for n in range(1, len(mates) + 1)
                                for more in combinations(mates, n) if uid < min(more)]
            there = [u for u in board.units_at(p[-1]) if sc.side_of[u] == adv["side"]]
            for units in groups:
                if stacking_ok(sc, rules, there + units) and left_behind(sc, rules, adv["side"], units, board) is None:
                    out.append({"type": "advance", "units": units, "path": [sc.ids[b] for b in p]})
    if not out:
        return []
    return [{"type": "advance", "units": []}] + out


def _barred(sc: Scenario, rules: dict, c: dict) -> list[str]:
    """The victors of a combat that has no advance to offer who had a path to advance along,
    but would each leave their hex over the stacking limit (7.1): an order to advance them
    after the combat is told so, not merely that no advance is open."""
    adv = c["advance"]
    left = [u for u in adv["units"] if st.on_map(rules, u) and u not in adv["done"]]
    board = view(sc, rules)
    return sorted(u for u in left if _advance_paths(sc, rules, c, u, board)
                  and left_behind(sc, rules, adv["side"], [u], board))


def why_no_advance(sc: Scenario, rules: dict, side: str, order: dict) -> None:
    """An order to advance when no advance after combat is open: if the last combat's victors
    it names had none for the stacking limit in the hex they would leave, refused under 7.1
    with the hex and its count, as an advance order is while the advance is open."""
    units = [u for u in order.get("units") or [] if isinstance(u, str)]
    barred = rules["ps"].get("advance_barred", [])
    if units and all(u in barred and sc.side_of.get(u) == side for u in units):
        behind = left_behind(sc, rules, side, units)
        if behind is not None:
            raise IllegalOrder("7.1", f"{', '.join(units)} may not advance: "
                               f"{left_words(sc, rules, units, *behind)}", None)


def left_behind(sc: Scenario, rules: dict, side: str, leaving: list[str],
                board: Board | None = None) -> tuple[str, list[str]] | None:
    """7.1: no more than three combat units in a hex (four units with an HQ) at any time of the
    Combat Phase. The first hex that `side`'s units `leaving` would leave over that limit, with
    the units they leave there (None: none would): some regiments of a division whole in its
    hex going without the others, who then count one each (7.22). A hex already over the limit
    (a combat result broke a division up there, 7.23) may be left by units whose going brings
    it nearer the limit; the end of the phase eliminates its excess. `board`: the view of the
    rules as they stand, when the caller has it."""
    board = board or view(sc, rules)
    gone = set(leaving)
    for h in sorted({st.hex_of(rules, u) for u in leaving if st.on_map(rules, u)}):
        here = [u for u in board.units_at(sc.idx[h]) if sc.side_of[u] == side]
        stay = [u for u in here if u not in gone]
        after = over_by(sc, rules, stay)
        if after and after >= over_by(sc, rules, here):
            return h, stay
    return None


def left_words(sc: Scenario, rules: dict, leaving: list[str], h: str, stay: list[str]) -> str:
    """Why hex h may not be left with `stay` in it (`left_behind`), in one clause: "N2241 would
    be left holding 4 combat units (103/14Pz and 108/14Pz of 14Pz count one each once the
    division is split, 7.22), and no more than 3 combat units may stand in a hex at any time of
    the Combat Phase (7.1)"."""
    combat, hqs = stack_count(sc, rules, stay)
    count = f"{combat} combat unit{'' if combat == 1 else 's'}" + (f" and {hqs} HQ{'' if hqs == 1 else 's'}"
                                                                   if hqs else "")
    board = view(sc, rules)
    i = sc.idx[h]
    split = []
    for d in sorted({sc.units[u].division for u in leaving if sc.units[u].division}):
        rest = [r for r in sc.divisions[d] if r in stay]
        if rest and board.intact(d, i):
            split.append(f"{' and '.join(rest)} of {d} count one each once the division is split")
    why = f" ({'; '.join(split)}, 7.22)" if split else ""
    limit = "3 combat units, or 4 units with an HQ," if hqs else "3 combat units"
    return (f"{h} would be left holding {count}{why}, and no more than {limit} may stand in a hex at any time of the "
            f"Combat Phase (7.1)")


def _rating_hqs(c: dict) -> list[str]:
    """The HQs that added their rating to the combat (11.43): to the attack (c["hqs"]) or, an
    Axis HQ, to the defence of its hex (c["hq_defence"], hex -> HQ)."""
    return [*c.get("hqs", ()), *c.get("hq_defence", {}).values()]


def _escorted(sc: Scenario, rules: dict, c: dict) -> set[int]:
    """11.44: the hexes an HQ that added its rating to the attack or to the defence may advance
    to: where the combat units it fought with have advanced (an HQ advances with them, never
    alone; a rules lawyer's probe: an Axis HQ that added to the defence advanced alone, past
    its combat unit that stayed). Combat units only: another HQ that advanced escorts none (a
    review: it did, and the HQ went on without its unit all the same)."""
    return {sc.idx[st.hex_of(rules, u)] for u in c["advance"]["done"] if sc.units[u].combat and st.on_map(rules, u)}


def answer_advance(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    c = rules["combat"]
    adv = c["advance"]
    units = order.get("units") or []
    if not units:
        ctx.event("advance", "No further advance after combat (9.85).", side=adv["side"], rule="9.85",
                  chosen_by=ctx.chosen_by)
        _finish(sc, rules, c, ctx)
        run(sc, rules, ctx)
        return
    path = [sc.idx.get(h, -1) for h in order.get("path") or []]
    # which units first: a hex of an id that is no unit was looked up (an orders probe: KeyError)
    if any(u not in adv["units"] or u in adv["done"] or not st.on_map(rules, u) for u in units) \
            or len({st.hex_of(rules, u) for u in units}) != 1:
        raise IllegalOrder("9.81", "advance victorious units of the combat that have not advanced, from one hex", None)
    for uid in units:
        if path not in _advance_paths(sc, rules, c, uid):
            raise IllegalOrder("9.84", f"{uid} may not advance along that path (into the emptied hex, then along the "
                               f"Path of Retreat, or one more empty hex after eliminated defenders, 9.86)", None)
    hqs = [u for u in units if u in _rating_hqs(c)]
    if hqs and len(hqs) == len(units) and path[-1] not in _escorted(sc, rules, c):
        raise IllegalOrder("11.44", f"{', '.join(hqs)} may advance only with the combat units "
                           f"{'of the attack' if adv['side'] == c['att'] else 'it defended'}, into a hex one of them "
                           f"has advanced to", advance_options(sc, rules, c))
    board = view(sc, rules)
    there = [u for u in board.units_at(path[-1]) if sc.side_of[u] == adv["side"]]
    if not stacking_ok(sc, rules, there + units):
        raise IllegalOrder("7.1", f"{sc.ids[path[-1]]} would hold more units than the stacking limit", None)
    behind = left_behind(sc, rules, adv["side"], units)
    if behind is not None:                           # 7.1: nor leave its hex over it, at any time of the phase
        raise IllegalOrder("7.1", f"{', '.join(units)} may not advance: {left_words(sc, rules, units, *behind)}",
                           advance_options(sc, rules, c))
    from .movement import arrive

    start = st.hex_of(rules, units[0])
    for b in path:
        arrive(sc, rules, None, adv["side"], b, ctx.event)               # 10.45; 12.38, 14.13
    for uid in units:
        st.put(rules, uid, sc.ids[path[-1]])
        adv["done"].append(uid)
        st.mark(rules["ps"]["advanced"], uid)
    ctx.event("advance", f"{', '.join(units)} {verb(units, 'advance')} {start} -> {' -> '.join(sc.ids[b] for b in path)} (9.8).",
              side=adv["side"], units=units, path=[start] + [sc.ids[b] for b in path], rule="9.8",
              chosen_by=ctx.chosen_by)
    run(sc, rules, ctx)


# --- finishing ----------------------------------------------------------------------------------------

def _finish(sc: Scenario, rules: dict, c: dict, ctx, fought: bool = True) -> None:
    """The combat is over: who attacked and who was attacked this phase (9.14), unless the
    attack did not take place (13.3: no attacker left with strength after the reveal), which
    leaves the defenders free to be attacked by others."""
    if c["kind"] == "attack" and fought:
        for uid in c["units"] + c.get("hqs", []):
            st.mark(rules["ps"]["attacked"], uid)
            st.mark(rules["pt"]["attacked"], uid)
        for uid in c["defenders"]:
            st.mark(rules["ps"]["targets"], uid)
    rules["combat"] = None
    from . import victory

    victory.note_surrendered(sc, rules, c.get("held", []))


# --- overrun (6.5) --------------------------------------------------------------------------------------

def overrun(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    """6.5, 6.51-6.59: in a Movement Phase, a stack that began the phase together (6.54) moves
    next to the target (path), pays 3 more MP and attacks every unit in the one hex (HQs may be
    overrun, never overrun, 6.53); units that hold stay where they are (6.58)."""
    from . import movement as mv

    if rules["phase"] not in ("move", "mech"):
        raise IllegalOrder("6.5", "overruns take place in the Movement Phases", None)
    target = order.get("target")
    if target not in sc.idx:
        raise IllegalOrder("6.51", no_hex(sc, target), None)
    units, start = mv._units(sc, rules, side, order, "6.51")
    mv._check_can_move(sc, rules, units, "6.51")
    for uid in units:
        u = sc.units[uid]
        if u.hq:
            raise IllegalOrder("11.46", f"{uid}: HQ units take no part in overruns", None)
        if not u.combat:
            raise IllegalOrder("6.51", f"{uid} cannot overrun", None)
        if st.has(rules["ps"]["no_overrun"], uid):
            began = "entered the map this phase" if st.has(rules["ps"]["fresh"], uid) else "began the phase"
            if side == "soviet":
                raise IllegalOrder("6.55", f"{uid} {began} beyond the Communications Radius of every HQ and "
                                   f"may not overrun", None)
            raise IllegalOrder("11.47", f"{uid} {began} beyond the Communications Radius of every {u.nation.capitalize()} "
                               f"HQ and may not overrun (an overrun is an attack, 6.51)", None)
    path = order.get("path") or []
    if path:
        mv.move(sc, rules, side, {"type": "move", "units": units, "path": path}, ctx)
    board = view(sc, rules)
    here = sc.idx[st.hex_of(rules, units[0])]
    t = sc.idx[target]
    if not sc.adjacent(here, t):
        raise IllegalOrder("6.51", f"{target} is not next to {sc.ids[here]}", None)
    kind = sc.side_kind.get((here, t))
    if kind in ("don", "volga"):
        raise IllegalOrder("6.59", "no overrun across the Don or the Volga", None)
    if kind == "lake":
        raise IllegalOrder("10.29", "no attack across an all-lake or all-sea hexside", None)
    if not board.has_combat(t, other(side)):
        raise IllegalOrder("6.51", f"{target} holds no enemy unit to overrun", None)
    west = mv.goes_west(sc, here, [t])     # an overrun moves the stack on into the hex (6.51)
    mv.check_east_only(sc, rules, units, west, False)
    lines = sp.lines_of(sc, rules, side)
    for uid in units:
        _check_attacker(sc, rules, board, side, uid, [t], lines, overrun=True)
        if mv.remaining(sc, rules, uid) < 3:
            raise IllegalOrder("6.51", f"{uid} has {mv.remaining(sc, rules, uid)} MP left; an overrun costs 3", None)
    air = order.get("air")
    if air and side != "axis":
        raise IllegalOrder("14.3", "the Soviet player never spends Air Points on overruns", None)
    air_units = _air_spend(sc, rules, side, air, [t], "14.3", board)
    mv.begin(rules, units)
    mv.record_east_only(rules, units, west, False)
    for uid in units:
        rules["ps"]["moved"][uid] = rules["ps"]["moved"].get(uid, 0) + 3
    _start(sc, rules, "overrun", side, units, [target], ctx, air=air_units, shift=(air or {}).get("shift", 0),
           origin=sc.ids[here])


def _overrun_outcome(sc: Scenario, rules: dict, c: dict, ctx) -> None:
    """6.51, 6.52, 6.56, 6.57, 9.69: into the emptied hex, or movement over for the phase."""
    from . import movement as mv

    units = [u for u in c["units"] if st.on_map(rules, u)]
    vacated = c.get("vacated") or []
    split = c["def_part"] is not None and c["att_part"] is not None
    attacker_hit = c["att_part"] is not None or c["engaged"]
    if vacated and not split and not attacker_hit and units:
        t = sc.idx[c["targets"][0]]
        board = view(sc, rules)
        mv.arrive(sc, rules, board, c["att"], t, ctx.event)
        for uid in units:
            st.put(rules, uid, c["targets"][0])
        ctx.event("overrun", f"{', '.join(units)} {verb(units, 'move')} into {c['targets'][0]} (6.51).", units=units,
                  hex=c["targets"][0], rule="6.51")
    else:
        st.add_all(rules["ps"]["stopped"], units)
        if units:
            ctx.event("overrun", f"{', '.join(units)} may move no further this phase (6.52).", units=units,
                      rule="6.52")
    rules["combat"] = None
    from . import victory

    victory.note_surrendered(sc, rules, c.get("held", []))


# --- legal attacks, for the orders template and the bots --------------------------------------------

def attack_options(sc: Scenario, rules: dict, side: str, limit: int = 30) -> list[dict]:
    """Every enemy hex next to units that may attack it, attacked by all of them."""
    board = view(sc, rules)
    lines = sp.lines_of(sc, rules, side)
    enemy = other(side)
    able: dict[str, bool] = {}

    def may(uid: str) -> bool:
        if uid not in able:
            u = sc.units[uid]
            able[uid] = (u.combat and not st.has(rules["disrupted"], uid) and not st.has(rules["ps"]["attacked"], uid)
                         and not st.has(rules["ps"]["advanced"], uid)
                         and not (rules["turn"] == 1 and side == "axis" and u.setup in ("5.31", "5.32"))
                         and (u.nation in sp.DIRECT or sp.in_radius(sc, rules, board, side, uid, lines)))
        return able[uid]

    out: list[dict] = []
    own = board.side_hexes(side)
    for i in sorted(board.side_hexes(enemy)):
        if own.isdisjoint(sc.nb[i]):
            continue                                        # 9.13: none of the side's units next to it
        h = sc.ids[i]
        if attackable(sc, rules, board, side, h):
            continue
        attackers = []
        for j in sc.nb[i]:
            if sc.side_kind.get((j, i)) in ("volga", "lake"):
                continue
            for uid in board.units_at(j):
                u = sc.units[uid]
                if u.side == side and may(uid) and not (u.motorised and sc.mountain[i]):
                    attackers.append(uid)
        if attackers:
            out.append({"type": "attack", "targets": [h], "units": sorted(attackers)})
            if len(out) >= limit:
                break
    return out


def overrun_options(sc: Scenario, rules: dict, side: str, stack: list[str], board: Board) -> list[dict]:
    """Overruns the stack could make from where it stands (no approach path); `board` holds
    the enemy's units (a half view) or both."""
    from . import movement as mv

    if any(sc.units[u].hq or not sc.units[u].combat or st.has(rules["ps"]["no_overrun"], u) for u in stack):
        return []
    if any(mv.remaining(sc, rules, u) < 3 for u in stack):
        return []
    i = sc.idx[st.hex_of(rules, stack[0])]
    out = []
    for t in sc.nb[i]:
        if not board.has_combat(t, other(side)):
            continue
        if sc.side_kind.get((i, t)) in ("don", "volga", "lake"):
            continue
        if any(sc.units[u].motorised for u in stack) and sc.mountain[t]:
            continue
        if not sc.east_of(i, t) and any(st.has(rules["ps"].get("withdrawing", ()), u) for u in stack):
            continue                                        # 18.11 (movement.check_east_only)
        out.append({"type": "overrun", "units": stack, "target": sc.ids[t]})
    return out
