"""The rules state: only what play changes, and the helpers every rule reads it through.

What the genesis fixes (map, tables, the fixed attributes of units) is the scenario
(scenario.py) and is never stored. The state (`rules`):

    turn, player, phase     where the game stands (4.2): phase is selection, setup, move,
                            combat, mech, interdiction or over
    units: {id: where}      a hex id, or a status: setup (to set up), pool (not yet drawn or
                            not yet due), ready (a reinforcement that may enter now), due
                            (back on a later Game-Turn: `due`), gone (eliminated), out (out of
                            the game: withdrawn, sent to Leningrad, never drawn), exited (19.22)
    due: {id: turn}         when a unit off the map comes back (11.5, 12.38, 14.13, 15.25)
    ready_map: {id: n|s}    the map section a drawn Soviet reinforcement enters on (15.3)
    lost: {id: steps}       steps lost (9.6); a unit that has lost none is not listed
    revealed: {id: value}   the true strength drawn for an untried unit (13.2)
    control: {hex: "a3"}    10.45 for rail and city hexes whose last unit differs from the start
                            (10.44) or changed once: side letter and the Game-Turn of the change
    cleared: [hex]          Axis-cleared rail hexes (6.42)
    disrupted: [id]         6.6; broken: [division] lost a regiment for good (7.23)
    interdiction            {axis: [hex], soviet: [hex]} markers on the map (14.4)
    air: {id: points}       Air Points spent this Game-Turn (14.7); air_moved: [id] (14.12)
    vp: {axis, soviet}      VP gained or lost other than by holding cities (19.1)
    bonus: {city: vp}       19.12; penalty: {city: vp} 16.63-16.64
    directive               None or {letter, obtained, deadlines: {city: turn}, met: [city]} (16.0, 16.63)
    eleventh, trucks        16.7 qualified; 16.8 extra trucks granted so far
    withdrawn: {turn: [id]} 15.2, for the returns of 20.1
    exits, lapse            19.22: units exited from S1001, inter-phases without a unit there
    accel, accel_met        15.4: None, "on" or "over"; whether an Axis unit passed through 15.41's
                            hexes while the Soviet player held 100 or more VP
    strategic               a strategic withdrawal this Game-Turn (18.14)
    railheads               12.3: [{truck, chain: [id], used}]
    rail_used               units the phasing player has counted against his own 6.31 limit this
                            Game-Turn (each player moves by rail in his own player-turn only)
    pt                      this player-turn: withdrew (18.12, 18.16), attacked (18.15),
                            retreated (9.75: unit -> hex), zoc (16.51/18.23: hexrow -> hex),
                            surrendered (16.53, 18.24)
    ps                      this phase: moved {id: MP}, current [id] (6.28), stopped, rail,
                            oos (12.0), fresh (12.53), no_overrun (6.55), attacked, targets,
                            advanced (9.85), air_supplied (12.44), evacuate (11.5 still open);
                            in the Initial Movement Phase only, and only when not empty,
                            in_ezoc (6.14: the phasing units in an Enemy ZOC as it began);
                            only when not empty: placed (15.3: city -> units deployed),
                            withdrawing (18.11: units that ignored Axis ZOC), not_east
                            (18.11: units that entered a hex not east of the one they left)
    combat                  an attack or overrun in progress (combat.py)
    pending                 decisions waiting outside combat (flow.py)
    result                  the result once the game is over (19.0)

Lists are sorted; dicts hold only what differs from the default.
"""

from __future__ import annotations

from bisect import bisect_left

from .scenario import Scenario

ACCEL_VP = 100   # 15.41, 15.44
OFF_MAP = frozenset(("setup", "pool", "ready", "due", "gone", "out", "exited"))


def fresh_ps() -> dict:
    return {"moved": {}, "current": [], "stopped": [], "rail": [], "oos": [], "fresh": [], "no_overrun": [],
            "attacked": [], "targets": [], "advanced": [], "air_supplied": [], "evacuate": False}


def fresh_pt() -> dict:
    return {"withdrew": [], "attacked": [], "retreated": {}, "zoc": {}, "surrendered": []}


def fresh(sc: Scenario) -> dict:
    """The state before the set-up: the Axis set-up units to set up, everything else in its pool."""
    units = {}
    for uid, u in sc.units.items():
        units[uid] = "setup" if (u.side == "axis" and u.setup) else "pool"
    return {
        "turn": 1, "player": "soviet", "phase": "selection",
        "units": units, "due": {}, "ready_map": {}, "lost": {}, "revealed": {}, "control": {}, "cleared": [],
        "disrupted": [], "broken": [], "interdiction": {"axis": [], "soviet": []}, "air": {}, "air_moved": [],
        "vp": {"axis": 0, "soviet": 0}, "bonus": {}, "penalty": {}, "directive": None, "eleventh": False,
        "trucks": 0, "withdrawn": {}, "exits": [], "lapse": 0, "strategic": False,
        "railheads": [], "railhead_blocked": [], "rail_used": 0, "accel": None, "accel_met": False, "pt": fresh_pt(), "ps": fresh_ps(), "combat": None, "pending": [],
        "result": None,
    }


# --- where units are ---------------------------------------------------------------------------

def hex_of(rules: dict, uid: str) -> str | None:
    w = rules["units"][uid]
    return None if w in OFF_MAP else w


def on_map(rules: dict, uid: str) -> bool:
    return rules["units"][uid] not in OFF_MAP


_OFF_MAP_WORDS = {"gone": "was eliminated", "out": "has left the game", "exited": "has exited the map",
                  "due": "is off the map until it comes back", "ready": "has not entered the map yet",
                  "setup": "is not set up yet", "pool": "is not in play"}


def not_on_map(rules: dict, uid: str) -> str:
    """Why a unit an order names is not on the map, in words: "R/6 is not on the map: it was
    eliminated" (a players' probe: an attacker eliminated earlier in the packet was said only
    to be off the map)."""
    return f"{uid} is not on the map: it {_OFF_MAP_WORDS[rules['units'][uid]]}"


def status(rules: dict, uid: str) -> str:
    w = rules["units"][uid]
    return w if w in OFF_MAP else "map"


def put(rules: dict, uid: str, h: str) -> None:
    rules["units"][uid] = h


def remove(rules: dict, uid: str, where: str, due: int | None = None) -> None:
    """The unit leaves the map: gone, out, exited, or due back on Game-Turn `due`."""
    rules["units"][uid] = where
    if where == "due":
        rules["due"][uid] = due
    unmark(rules["disrupted"], uid)
    if where != "exited":
        rules["lost"].pop(uid, None)


# --- sorted lists --------------------------------------------------------------------------------

def mark(items: list, x) -> None:
    i = bisect_left(items, x)
    if i == len(items) or items[i] != x:
        items.insert(i, x)


def unmark(items: list, x) -> None:
    i = bisect_left(items, x)
    if i < len(items) and items[i] == x:
        del items[i]


def has(items: list, x) -> bool:
    i = bisect_left(items, x)
    return i < len(items) and items[i] == x


def add_all(items: list, xs) -> None:
    for x in xs:
        mark(items, x)


# --- steps and strengths (9.6, 13.0) ---------------------------------------------------------------

def lost(rules: dict, uid: str) -> int:
    return rules["lost"].get(uid, 0)


def steps_left(sc: Scenario, rules: dict, uid: str) -> int:
    u = sc.units[uid]
    return max(0, u.step_count - lost(rules, uid))


def untried(sc: Scenario, rules: dict, uid: str) -> bool:
    """Still untried (13.0): its strength is hidden from both players."""
    return sc.units[uid].untried is not None and uid not in rules["revealed"]


def strengths(sc: Scenario, rules: dict, uid: str) -> tuple[int, int]:
    """(attack, defense) printed for its current step (3.31): an Axis unit's Combat Strength
    serves both; an HQ has no attack and defends with its rating (Soviet) or half (Axis,
    11.41); trucks and air units have none. An untried unit must be revealed first."""
    u = sc.units[uid]
    if u.hq:
        return 0, (u.leadership if u.side == "soviet" else u.leadership // 2)
    if u.truck or u.air:
        return 0, 0
    if u.untried:
        v = rules["revealed"][uid]
    else:
        v = u.steps[min(lost(rules, uid), len(u.steps) - 1)]
    if isinstance(v, (list, tuple)):
        return v[0], v[1]
    return v, v


def take_step(sc: Scenario, rules: dict, uid: str) -> bool:
    """One step lost (9.6): one step for Axis-ally infantry and HQs (9.61, 11.42), two for
    regiments, mechanized units and Guards (9.62), four for German infantry and mountain
    divisions, two for Jaeger (9.63), one for every untried unit (9.64, 9.65 errata); True
    when that eliminates the unit."""
    n = lost(rules, uid) + 1
    if n >= sc.units[uid].step_count:
        return True
    rules["lost"][uid] = n
    return False


# --- control of rail and city hexes (10.44, 10.45) ----------------------------------------------

def start_control(sc: Scenario, i: int) -> str:
    """10.44: rail and city hexes west of the 28 June 1942 Front Line are Axis, all others Soviet."""
    return "axis" if i in sc.axis_start else "soviet"


def control(sc: Scenario, rules: dict, i: int) -> str:
    entry = rules["control"].get(sc.ids[i])
    if entry is None:
        return "axis" if i in sc.axis_start else "soviet"
    return "axis" if entry[0] == "a" else "soviet"


def control_turn(rules: dict, h: str) -> int:
    """The Game-Turn of the last change of control of a rail or city hex (0: never changed)."""
    entry = rules["control"].get(h)
    return int(entry[1:]) if entry else 0


def enter_hex(sc: Scenario, rules: dict, i: int, side: str) -> None:
    """A unit of `side` occupies or passes through hex i (10.45). Rail and city hexes keep
    who was last there, and when that changed (6.47). 15.41: an Axis unit passing through its
    hexes while the Soviet player holds 100 or more VP meets its conditions, once and for all."""
    if side == "axis" and i in sc.accel_hexes and not rules["accel_met"]:
        from .victory import vp

        if vp(sc, rules)["soviet"] >= ACCEL_VP:
            rules["accel_met"] = True
    if i not in sc.rail_hex:
        return
    h = sc.ids[i]
    entry = rules["control"].get(h)
    current = start_control(sc, i) if entry is None else ("axis" if entry[0] == "a" else "soviet")
    if current == side:
        return
    turn = rules["turn"]
    if side == "soviet" and entry is not None and int(entry[1:]) == turn:
        turn = 0    # 6.47: Soviet at the start of this Game-Turn, usable at once again
    rules["control"][h] = ("a" if side == "axis" else "s") + str(turn)
