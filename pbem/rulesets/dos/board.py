"""The board as one player-turn sees it: stacks, zones of control (8.0), stacking (7.1),
divisional integrity (7.2), who may enter where (6.21, 12.38, 14.13). A `Board` is built
from the rules on demand (a pass over the units on the map) and read, never kept."""

from __future__ import annotations

import weakref

from .scenario import Scenario, other
from . import state as st

_MEMO: dict = {}
MEMO_SIZE = 160
_WATCHED: "weakref.WeakSet[Scenario]" = weakref.WeakSet()


def memo(sc: Scenario, key, make):
    """A small memo of views of the board: a view is a pure function of the parts of the rules
    its key is made of, so rules of the same content (a planning copy, a replay) share it.
    Keys name their scenario `sc` by `id(sc)`; once a scenario of the memo is gone, the memo is
    emptied, so that a scenario made later at the same address (a test's crafted position, a
    second game in one process) never reads another's views."""
    found = _MEMO.get(key)
    if found is None:
        if sc not in _WATCHED:
            _WATCHED.add(sc)
            weakref.finalize(sc, _MEMO.clear)
        found = make()
        if len(_MEMO) >= MEMO_SIZE:
            del _MEMO[next(iter(_MEMO))]
        _MEMO[key] = found
    return found


def control_key(rules: dict) -> tuple:
    """The control of rail and city hexes (10.45) exactly, for a memo key: the hexes and their
    entries, in order (two flat tuples hash and compare faster than one of pairs)."""
    control = rules["control"]
    return tuple(control), tuple(control.values())


def board_key(sc: Scenario, rules: dict, side: str | None = None) -> tuple:
    """What a Board (of one side's units, or of all) is made of, exactly: where the units are,
    the disrupted units, the strategic withdrawals and the broken divisions."""
    return (id(sc), side, sc.places(rules["units"], side), tuple(rules["disrupted"]), tuple(rules["pt"]["withdrew"]),
            tuple(rules["broken"]))


def view(sc: Scenario, rules: dict) -> "Board":
    """The Board of the rules as they stand (shared while they do not change)."""
    key = board_key(sc, rules)
    return memo(sc, key, lambda: Board(sc, rules, places=key[2]))


def half_view(sc: Scenario, rules: dict, side: str) -> "Board":
    """A Board of one side's units only: what the other side's movement reads (its ZOC, the
    hexes it blocks), shared while that side's units do not change."""
    key = board_key(sc, rules, side)
    return memo(sc, key, lambda: Board(sc, rules, side, key[2]))


class Board:
    def __init__(self, sc: Scenario, rules: dict, only: str | None = None, places: tuple | None = None):
        """The board of the rules (`only`: of that side's units); `places`: where those units
        are (Scenario.places), when the caller has them."""
        self.sc = sc
        idx = sc.idx
        off = st.OFF_MAP
        ids = sc.unit_ids if only is None else sc.side_units[only]
        if places is None:
            places = sc.places(rules["units"], only)
        where = {uid: idx[w] for uid, w in zip(ids, places) if w not in off}
        occ: dict[int, list[str]] = {}
        for uid, i in where.items():
            here = occ.get(i)
            if here is None:
                occ[i] = [uid]
            else:
                here.append(uid)
        self.occ = occ       # hex -> units (in id order, as rules["units"] is)
        self.where = where
        self.disrupted = frozenset(rules["disrupted"])
        self.withdrew = frozenset(rules["pt"]["withdrew"])
        self.broken = frozenset(rules["broken"])
        self._zoc: dict[str, frozenset[int]] = {}
        self._side_hexes: dict[str, frozenset[int]] = {}
        self._blocking: dict[str, frozenset[int]] = {}
        self._combat_hexes: dict[str, frozenset[int]] = {}
        self._exerters: tuple[frozenset[str], frozenset[str]] | None = None
        self.derived: dict = {}   # what other rule areas work out from this board alone, kept with it

    # --- who is where ------------------------------------------------------------------------------

    def units_at(self, i: int) -> list[str]:
        return self.occ.get(i, [])

    def side_at(self, i: int) -> str | None:
        us = self.occ.get(i)
        return self.sc.side_of[us[0]] if us else None

    def side_hexes(self, side: str) -> frozenset[int]:
        """Hexes holding any unit of `side`."""
        found = self._side_hexes.get(side)
        if found is None:
            so = self.sc.side_of
            found = self._side_hexes[side] = frozenset([i for i, us in self.occ.items() if so[us[0]] == side])
        return found

    def blocking(self, mover: str) -> frozenset[int]:
        """6.21: hexes a unit of `mover` may not enter: those with enemy units, except a hex
        held only by enemy air units (14.13) or, for the Soviet player, only by Axis trucks and
        air units (12.38)."""
        found = self._blocking.get(mover)
        if found is not None:
            return found
        sc = self.sc
        out = set()
        for i, us in self.occ.items():
            if sc.side_of[us[0]] == mover:
                continue
            for uid in us:
                u = sc.units[uid]
                if u.air or (u.truck and mover == "soviet"):
                    continue
                out.add(i)
                break
        found = self._blocking[mover] = frozenset(out)
        return found

    def has_combat(self, i: int, side: str) -> bool:
        """A combat unit or HQ of `side` in hex i (what can be attacked, 9.21; 17.12)."""
        return i in self.combat_hexes(side)

    def combat_hexes(self, side: str) -> frozenset[int]:
        """The hexes holding a combat unit or HQ of `side` (`has_combat`)."""
        found = self._combat_hexes.get(side)
        if found is None:
            so, ground = self.sc.side_of, self.sc.ground_units
            out = set()
            for i, us in self.occ.items():
                for u in us:
                    if u in ground and so[u] == side:
                        out.add(i)
                        break
            found = self._combat_hexes[side] = frozenset(out)
        return found

    # --- zones of control (8.1) --------------------------------------------------------------------

    def exerts(self, uid: str) -> bool:
        """8.12, 12.38, 14.13, 18.16: every combat unit and HQ, unless disrupted or on a
        strategic withdrawal this player-turn; never trucks or air units."""
        return uid in self._exerting()[0]

    def _exerting(self) -> tuple[frozenset[str], frozenset[str]]:
        """(the units that exert a ZOC, the mountain troops among them) on this board (`exerts`)."""
        if self._exerters is None:
            sc, out = self.sc, self.disrupted | self.withdrew
            # (mostly nothing is out: the scenario's sets serve as they are, not copied per board)
            self._exerters = (sc.ground_units - out, sc.mountain_units - out) if out else \
                (sc.ground_units, sc.mountain_units)
        return self._exerters

    def _zoc_from(self, i: int, units) -> tuple[int, ...]:
        """The hexes in the ZOC of `units` standing in hex i (of those, the ones that exert one):
        the six neighbours, not across the Don, the Volga or a lake or sea hexside (8.11, 10.25),
        and not into mountains except the ZOC of mountain troops (8.13 errata)."""
        exerting, mountain_troops = self._exerting()
        if exerting.isdisjoint(units):
            return ()
        sc = self.sc
        return sc.zoc_nb_lowland[i] if mountain_troops.isdisjoint(units) else sc.zoc_nb[i]

    def zoc(self, side: str) -> frozenset[int]:
        """The hexes in the ZOC of `side`'s units (8.25: mutual; 8.26: a set, so several ZOCs on a
        hex are one): the six neighbours, not across the Don, the
        Volga or a lake or sea hexside (8.11, 10.25), and not into mountains except the ZOC of
        mountain troops (8.13 errata)."""
        found = self._zoc.get(side)
        if found is None:
            # `_zoc_from` for every hex of the side, written out and joined in one union: nearly
            # every rule reads a ZOC, and a board is built for nearly every order
            sc = self.sc
            so, lowland, full = sc.side_of, sc.zoc_nb_lowland, sc.zoc_nb
            exerting, mountain_troops = self._exerting()
            found = self._zoc[side] = frozenset().union(*[
                lowland[i] if mountain_troops.isdisjoint(us) else full[i]
                for i, us in self.occ.items() if so[us[0]] == side and not exerting.isdisjoint(us)])
        return found

    def ezoc(self, side: str) -> frozenset[int]:
        """Enemy ZOC for `side`."""
        return self.zoc(other(side))

    def zoc_of_units(self, side: str, hexes) -> set[int]:
        """The ZOC exerted by `side`'s units standing in `hexes` only."""
        so = self.sc.side_of
        out: set[int] = set()
        for i in hexes:
            out.update(self._zoc_from(i, [u for u in self.occ.get(i, ()) if so[u] == side]))
        return out

    # --- stacking (7.1, 7.22) ------------------------------------------------------------------------

    def intact(self, division: str, i: int) -> bool:
        """7.21-7.23 (errata): every regiment of the division is in hex i and none was ever
        eliminated."""
        if division in self.broken:
            return False
        return all(self.where.get(r) == i for r in self.sc.divisions[division])



def stack_count(sc: Scenario, rules: dict, units: list[str]) -> tuple[int, int]:
    """(combat units, HQs) of units standing together, for 7.1: the regiments of a complete
    division count as one combat unit (7.22); trucks and air units do not count (7.1 errata)."""
    combat = hqs = 0
    counted: set[str] = set()
    broken = rules["broken"]
    for uid in units:
        u = sc.units[uid]
        if u.hq:
            hqs += 1
        elif u.combat:
            d = u.division
            if d is not None:
                if d in counted:
                    continue
                if d not in broken and all(r in units for r in sc.divisions[d]):
                    counted.add(d)
            combat += 1
    return combat, hqs


def stacking_ok(sc: Scenario, rules: dict, units: list[str]) -> bool:
    """7.1: at most three combat units, or four units of any kind with at least one HQ (an HQ
    may stack or stand alone, 11.23); markers (14.42), trucks and air units never count."""
    if len(units) <= 3:
        return True                       # three units of any kind are within both limits
    combat, hqs = stack_count(sc, rules, units)
    return combat <= 3 and combat + hqs <= 4


def over_by(sc: Scenario, rules: dict, units: list[str]) -> int:
    """How far units standing together are over the stacking limit of 7.1 (0: within it):
    combat units beyond three, or units of any kind beyond four where one is an HQ."""
    if len(units) <= 3:
        return 0                          # as stacking_ok
    combat, hqs = stack_count(sc, rules, units)
    return max(0, combat - 3, combat + hqs - 4)
