"""The rules state: only what play changes, and the small helpers every rule reads it through.

What the genesis fixes (the board, the fixed attributes of units, the tables, the options,
the last turn) is the scenario (scenario.py) and is never stored. The state (`rules`):

    turn, player, phase    where the game stands (5.0)
    units: {id: where}     every unit: the hex it is in, or `setup` (still to set up, 3.x),
                           `pool` (a reinforcement still to enter, 11.x), `out` (out of play),
                           `gone` (eliminated), `exited` (left the map, 4.4)
    strength: {id: n}      units with less than their printed strength (2.4, 9.9.3) that are
                           not eliminated; every other unit has its printed strength
    markers: {name: [id]}  the units with each marker: `confusion` (7.1), `fired` (10.2),
                           `half` (Half Move, 8.6), `done` (facing turned: its movement is
                           over), `no-move` (8.6), `attacked` (in the concentrated attack
                           phase, 9.1), `manoeuvre-attacked` (in this movement phase, 9.2)
    moved: {id: half MP}   units that moved in this movement phase, and the MP they used
    exit_vp: {id: VP}      what each unit that left the map scores (4.4)
    control: {german: [run], soviet: [run]}
                           3.3's first clause where it differs from the start: the hexes
                           whose last unit to enter was that side's (board.control), as
                           runs of hexes in id order ("1637-1643": 1637 to 1643)
    ever_soviet            14.0: the places ever held by the Soviet side
    loc_ever_cut           14.0: whether the 4.3 line was ever cut at the end of a phase
    ps                     this phase: attacks, targets, eligible, moves, last_move
    attack, removal        an attack in progress (combat.py), a removal (removal.py)
    result                 the result once the game is over (4.5)

Lists of ids and hexes are sorted; the dicts hold only units that differ from the default.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .scenario import Scenario, other

OFF_MAP = frozenset(("setup", "pool", "out", "gone", "exited"))
MARKERS = ("attacked", "confusion", "done", "fired", "half", "manoeuvre-attacked", "no-move")


def fresh(sc: Scenario) -> dict:
    """The state before the set-up: every unit to set up or in the pool (3.1)."""
    return {
        "turn": 1, "player": "german", "phase": "setup",
        "units": {uid: "pool" if u.entry_hex else "setup" for uid, u in sc.units.items()},
        "strength": {}, "markers": {name: [] for name in MARKERS}, "moved": {}, "exit_vp": {},
        "control": {"german": [], "soviet": []}, "ever_soviet": [], "loc_ever_cut": False,
        "ps": fresh_ps(), "attack": None, "removal": None, "result": None,
    }


def fresh_ps() -> dict:
    return {"attacks": 0, "attacked_groups": [], "eligible": [], "moves": 0, "last_move": None}


# --- where units are -----------------------------------------------------------------------------

def where(rules: dict, uid: str) -> str:
    """The unit's hex, or its status off the map."""
    return rules["units"][uid]


def hex_of(rules: dict, uid: str) -> str | None:
    w = rules["units"][uid]
    return None if w in OFF_MAP else w


def status(rules: dict, uid: str) -> str:
    """`map`, or the status of a unit off the map (`setup`, `pool`, `out`, `gone`, `exited`)."""
    w = rules["units"][uid]
    return w if w in OFF_MAP else "map"


def on_map(rules: dict, uid: str) -> bool:
    return rules["units"][uid] not in OFF_MAP


def put(rules: dict, uid: str, h: str) -> None:
    """The unit is now in hex h."""
    rules["units"][uid] = h


def remove(rules: dict, uid: str, status_: str) -> None:
    """The unit leaves the map, or never comes: `gone`, `exited`, `out`."""
    rules["units"][uid] = status_
    if status_ == "gone":
        rules["strength"].pop(uid, None)


# --- strength (2.4, 9.9.3) -----------------------------------------------------------------------

def strength(sc: Scenario, rules: dict, uid: str) -> int:
    return rules["strength"].get(uid, sc.units[uid].full)


def set_strength(sc: Scenario, rules: dict, uid: str, points: int) -> None:
    if points == sc.units[uid].full:
        rules["strength"].pop(uid, None)
    else:
        rules["strength"][uid] = points


# --- markers and movement ---------------------------------------------------------------------------

def marked(rules: dict, name: str, uid: str) -> bool:
    return uid in rules["markers"][name]


def mark(rules: dict, name: str, uid: str) -> None:
    ids = rules["markers"][name]
    i = bisect_left(ids, uid)
    if i == len(ids) or ids[i] != uid:
        ids.insert(i, uid)


def unmark(rules: dict, name: str, uid: str) -> None:
    ids = rules["markers"][name]
    i = bisect_left(ids, uid)
    if i < len(ids) and ids[i] == uid:
        del ids[i]


def moved(rules: dict, uid: str) -> bool:
    return uid in rules["moved"]


def used(rules: dict, uid: str) -> int:
    """Half MP the unit used in this movement phase."""
    return rules["moved"].get(uid, 0)


def set_moved(rules: dict, uid: str, used_: int | None = None) -> None:
    """The unit has moved (with `used_` half MP, or keeping what it used before)."""
    rules["moved"][uid] = rules["moved"].get(uid, 0) if used_ is None else used_


def clear_moves(rules: dict, uids) -> None:
    """Movement phase over for these units: no moved flag, no MP used."""
    for uid in uids:
        rules["moved"].pop(uid, None)


# --- 3.3's first clause -----------------------------------------------------------------------------
#
# Each side's list in `control` holds runs of hexes in the order of hex ids: "1637-1643" is every
# hex from 1637 to 1643 in that order, "2832" a run of one. Runs are sorted, never touch or
# overlap, and a hex is in at most one side's list.

def _bounds(sc: Scenario, run: str) -> tuple[int, int]:
    first, _, last = run.partition("-")
    return sc.hex_index[first], sc.hex_index[last or first]


def _run(sc: Scenario, lo: int, hi: int) -> str:
    return sc.ids[lo] if lo == hi else f"{sc.ids[lo]}-{sc.ids[hi]}"


def _find(sc: Scenario, runs: list[str], i: int) -> int:
    """The position of the last run that starts at or before hex index i (-1 if none)."""
    return bisect_right(runs, i, key=lambda run: sc.hex_index[run.partition("-")[0]]) - 1


def _add(sc: Scenario, runs: list[str], h: str) -> None:
    i = sc.hex_index[h]
    k = _find(sc, runs, i)
    lo = hi = i
    if k >= 0:
        a, b = _bounds(sc, runs[k])
        if b >= i:
            return
        if b == i - 1:
            lo = a
            del runs[k]
            k -= 1
    if k + 1 < len(runs):
        a, b = _bounds(sc, runs[k + 1])
        if a == i + 1:
            hi = b
            del runs[k + 1]
    runs.insert(k + 1, _run(sc, lo, hi))


def _discard(sc: Scenario, runs: list[str], h: str) -> None:
    i = sc.hex_index[h]
    k = _find(sc, runs, i)
    if k < 0:
        return
    a, b = _bounds(sc, runs[k])
    if b < i:
        return
    runs[k:k + 1] = ([_run(sc, a, i - 1)] if a < i else []) + ([_run(sc, i + 1, b)] if i < b else [])


def record(sc: Scenario, rules: dict, h: str, side: str) -> None:
    """`side` last moved a unit into h (3.3): stored only where that differs from the start."""
    control = rules["control"]
    _discard(sc, control[other(side)], h)
    if side == sc.start_control(h):
        _discard(sc, control[side], h)
    else:
        _add(sc, control[side], h)


def _holds(sc: Scenario, runs: list[str], h: str) -> bool:
    i = sc.hex_index[h]
    k = _find(sc, runs, i)
    return k >= 0 and _bounds(sc, runs[k])[1] >= i


def recorded(sc: Scenario, rules: dict):
    """A function giving 3.3's first clause for any hex: the side whose unit last entered it,
    or the side that holds it at the start."""
    german, soviet = rules["control"]["german"], rules["control"]["soviet"]
    start = sc.start_control

    def of(h: str) -> str:
        if soviet and _holds(sc, soviet, h):
            return "soviet"
        if german and _holds(sc, german, h):
            return "german"
        return start(h)

    return of
