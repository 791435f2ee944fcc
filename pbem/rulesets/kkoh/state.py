"""The rules state: only what play changes, and the Board view every rule reads it through.

What the genesis fixes (the table, terrain, tables, the fixed attributes of pieces and
command markers, formations) is the scenario (scenario.py) and is never stored. The state
(`rules`):

    turn, ap, step        where the game stands: ap 0 is the Command Phase, 1-4 the Action
                          Phases, 5 the Morale Phase; `step` the step inside it (flow.py)
    initiative            the side with the initiative this turn (K-INI)
    (K-MRK-1: order chits are `o`, loss markers `hits`, destroyed units `gone`, bombarding-fire
    markers the `fire` of an assault, Out of Command markers `ooc` and the command status.)
    pieces: {id: {...}}   every piece on the table: `sq` square, `cell` inside it ("rc"), `f`
                          facing (N E S W), `o` order chit, and only when they apply: `g` its
                          battle group, `hits` 1 (a loss, K-TRP-2), `mode` (mounted/dismounted,
                          limbered/deployed). A destroyed piece is removed.
    gone: [id]            destroyed pieces (for victory and the report), sorted
    hqs: {id: {...}}      command markers: `sq`, or `lost` (the turn it was destroyed, K-CMD-11)
    ooc: [id]             markers put Out of Command by an EW attack (K-CMD-3/4), sorted
    group_seq             the number of the last battle group formed (group keys "g<n>")
    ps, ts                this Action Phase's and this turn's bookkeeping (`fresh_ps`, `fresh_ts`)
    plans                 orders being gathered: chit changes (K-ORD), fire plans (K-DF)
    sealed: {side: n}     how many items each side sealed in the step under way (§3)
    assaults, ca          the Close Assaults declared in a movement step, the one being fought
    air, used, minelets   aircraft, special effects spent, minelet markers (K-AIR, K-SFX)
    held                  objectives and who holds them; demoralised formations; result
"""

from __future__ import annotations

from .scenario import INSIDE, SIDES, Scenario, other

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Iterator


def fresh_ps() -> dict:
    """This Action Phase: who fired (Direct, Indirect), moved, gave ground; the groups as
    they stood at its start (K-CA-3, K-ORD-8); artillery rolls; faces used in road squares."""
    return {"fired": [], "ifired": [], "moved": [], "left": [], "gg": [], "groups": {}, "rolled": [], "engaged": [],
            "faces": [], "evaded": [], "decided": [], "mounted": [], "defended": []}


def fresh_ts() -> dict:
    """This turn: pieces that moved (and as what), pieces held to one move by terrain
    (K-MOV-7), rockets that fired (K-ART-6)."""
    return {"moved": {}, "locked": [], "rockets": []}


def initial(sc: Scenario) -> dict:
    """State 0 from the scenario's deployment (and its `position`, if any). Rolls nothing."""
    pieces: dict[str, dict] = {}
    labels: dict[tuple[str, str], str] = {}
    seq = 0
    for entry in sc.doc["units"]:
        piece = sc.pieces[entry["id"]]
        rec = {"sq": entry["square"], "cell": entry["cell"], "f": entry["facing"], "o": entry["order"]}
        if entry.get("group"):
            key = (entry["square"], entry["group"])
            if key not in labels:
                seq += 1
                labels[key] = f"g{seq}"
            rec["g"] = labels[key]
        if entry.get("losses"):
            rec["hits"] = entry["losses"]
        if piece.paired:
            rec["mode"] = "mounted" if entry.get("mounted", True) else "dismounted"
        elif piece.is_towed:
            rec["mode"] = "limbered" if entry.get("limbered", False) else "deployed"
        pieces[entry["id"]] = rec
    hqs = {c["id"]: {"sq": c["square"]} for c in sc.doc["commands"]}
    pos = sc.position or {}
    for hid, turn in (pos.get("lost") or {}).items():
        hqs[hid] = {"lost": turn}
    rules = {
        "turn": pos.get("turn", 1), "ap": pos.get("ap", 0), "step": "start", "initiative": pos.get("initiative"),
        "pieces": pieces, "gone": [], "hqs": hqs, "ooc": sorted(pos.get("out_of_command") or []),
        "group_seq": seq, "ps": fresh_ps(), "ts": fresh_ts(), "plans": {}, "sealed": {}, "assaults": [], "ca": None,
        "air": {a: {"state": "ready"} for a in sorted(sc.air)}, "used": {side: {} for side in SIDES},
        "minelets": [dict(m) for m in pos.get("minelets") or []],
        "held": {o: (pos.get("held") or {}).get(o, sc.victory.get("holds_objectives", "blue")) for o in sc.objectives},
        "demoralised": [], "result": None,
    }
    for side, used in (pos.get("used") or {}).items():
        rules["used"][side] = dict(used)
    for aid, status in (pos.get("air") or {}).items():
        rules["air"][aid] = dict(status)
    for pid, how in (pos.get("moved") or {}).items():
        rules["ts"]["moved"][pid] = how
    for pid, n in (pos.get("losses") or {}).items():    # the battle day's losses so far (K-MOR-2)
        pieces[pid]["hits"] = pieces[pid].get("hits", 0) + n
    for pid in pos.get("gone") or []:
        del rules["pieces"][pid]
        rules["gone"].append(pid)
    rules["gone"].sort()
    return rules


class Board:
    """A read view of the rules with indexes built on demand (who is in which square). Every
    change to where pieces stand goes through its methods, which keep the index right.
    A `still` board is a view of rules that nothing changes while it is in use (the legal
    orders listed from it): it also remembers each side's `movers`, and refuses changes."""

    def __init__(self, sc: Scenario, rules: dict, still: bool = False):
        self.sc = sc
        self.rules = rules
        self._at: dict[str, list[str]] | None = None
        self._hq_at: dict[str, list[str]] | None = None
        self._movers: dict[str, list[list[str]]] | None = {} if still else None

    # --- reading -------------------------------------------------------------------------

    def _index(self) -> dict[str, list[str]]:
        if self._at is None:
            at: dict[str, list[str]] = {}
            pieces = self.rules["pieces"]
            for pid in self.sc.piece_ids:     # sorted once in the scenario; the pieces on the table are among them
                rec = pieces.get(pid)
                if rec is not None:
                    at.setdefault(rec["sq"], []).append(pid)
            self._at = at
        return self._at

    def at(self, square: str, side: str | None = None) -> list[str]:
        """The pieces in a square (sorted), of one side if given."""
        found = (self._at if self._at is not None else self._index()).get(square, [])
        return found if side is None else [p for p in found if self.sc.pieces[p].side == side]

    def occupied_by(self, square: str) -> str | None:
        """The side holding a square with its pieces (markers hold no square, K-GG-2)."""
        found = (self._at if self._at is not None else self._index()).get(square)
        return self.sc.pieces[found[0]].side if found else None

    def squares(self, side: str | None = None) -> list[str]:
        return sorted(s for s, ps in self._index().items() if ps and (side is None or self.sc.pieces[ps[0]].side == side))

    def crowded(self, limit: int) -> list[str]:
        """The squares holding more than `limit` pieces of either side (sorted): the only ones
        where one side can have more than `limit` (`movement.overfull`)."""
        return sorted([s for s, ps in self._index().items() if len(ps) > limit])

    def hqs_at(self, square: str) -> list[str]:
        if self._hq_at is None:
            at: dict[str, list[str]] = {}
            for hid in sorted(self.rules["hqs"]):
                rec = self.rules["hqs"][hid]
                if "sq" in rec:
                    at.setdefault(rec["sq"], []).append(hid)
            self._hq_at = at
        return self._hq_at.get(square, [])

    def piece(self, pid: str) -> dict:
        return self.rules["pieces"][pid]

    def alive(self, pid: str) -> bool:
        return pid in self.rules["pieces"]

    def profile(self, pid: str):
        mode = self.rules["pieces"][pid].get("mode")
        return self.sc.pieces[pid].modes[mode or "normal"]

    def hits(self, pid: str) -> int:
        return self.rules["pieces"][pid].get("hits", 0)

    def damaged(self, pid: str) -> bool:
        """Has taken losses (K-DF-6 "firer has taken losses"): a loss marker, or fielded with a loss."""
        return self.hits(pid) > 0 or self.sc.pieces[pid].reduced

    def points_left(self, pid: str) -> int:
        return self.sc.pieces[pid].points - self.hits(pid)

    def group(self, pid: str) -> str | None:
        return self.rules["pieces"][pid].get("g")

    def members(self, pid: str) -> list[str]:
        """The piece's battle group (itself alone if it has none), sorted."""
        g = self.group(pid)
        if g is None:
            return [pid]
        sq = self.rules["pieces"][pid]["sq"]
        return [p for p in self.at(sq) if self.rules["pieces"][p].get("g") == g]

    def movers(self, side: str) -> list[list[str]]:
        """Each battle group and lone piece of a side, as a sorted list (K-BG-1): `members`
        of each piece, read from the square index."""
        return list(self.each_mover(side))

    def each_mover(self, side: str) -> Iterator[list[str]]:
        """`movers` one by one, as they are read: for a search that may stop at the first
        (the board must not change meanwhile); a still board reads them once."""
        if self._movers is None:
            return self._read_movers(side)
        found = self._movers.get(side)
        if found is None:
            found = self._movers[side] = list(self._read_movers(side))
        return (list(body) for body in found)     # each reader its own lists, as when read afresh

    def _read_movers(self, side: str) -> Iterator[list[str]]:
        pieces = self.rules["pieces"]
        seen: set[str] = set()
        for pid in self.sc.side_pieces[side]:
            rec = pieces.get(pid)
            if rec is None or pid in seen:
                continue
            g = rec.get("g")
            if g is None:
                yield [pid]
                continue
            m = [p for p in self.at(rec["sq"]) if pieces[p].get("g") == g]
            seen.update(m)
            yield m

    def order(self, pid: str) -> str:
        order = self.rules["pieces"][pid]["o"]
        if order is None:     # a rule read a chit the rules have not revealed: a bug, never a guess
            raise RuntimeError(f"kkoh: the order chit of {pid} is sealed and was read before it was revealed")
        return order

    def hidden(self, pid: str) -> bool:
        """The piece's order chit is sealed: known to its owner only (K-ORD-6, K-MRK-1)."""
        return self.rules["pieces"][pid]["o"] is None

    def cells(self, square: str, exclude: Iterable[str] = ()) -> dict[str, str]:
        """cell -> piece in a square."""
        skip = set(exclude)
        return {self.rules["pieces"][p]["cell"]: p for p in self.at(square) if p not in skip}

    # --- changing ------------------------------------------------------------------------

    def _changing(self) -> None:
        if self._movers is not None:     # a bug, never a guess: what a still board remembers would be stale
            raise RuntimeError("kkoh: a still view of the rules was asked to change them")

    def place(self, pid: str, square: str, cell: str, facing: str) -> None:
        self._changing()
        rec = self.rules["pieces"][pid]
        if rec["sq"] != square and self._at is not None:
            self._at[rec["sq"]].remove(pid)
            self._at.setdefault(square, []).append(pid)
            self._at[square].sort()
        rec["sq"], rec["cell"], rec["f"] = square, cell, facing

    def remove(self, pid: str) -> None:
        self._changing()
        rec = self.rules["pieces"].pop(pid)
        if self._at is not None:
            self._at[rec["sq"]].remove(pid)
        gone = self.rules["gone"]
        gone.append(pid)
        gone.sort()
        # a group left with one member is a group no more (K-BG-1)
        g = rec.get("g")
        if g is not None:
            left = [p for p in self.at(rec["sq"]) if self.rules["pieces"][p].get("g") == g]
            if len(left) == 1:
                self.rules["pieces"][left[0]].pop("g", None)

    def move_hq(self, hid: str, square: str | None) -> None:
        self._changing()
        self.rules["hqs"][hid] = {"sq": square} if square is not None else {"lost": self.rules["turn"]}
        self._hq_at = None

    def set_group(self, pids: list[str], group: str | None) -> None:
        self._changing()
        for p in pids:
            if group is None:
                self.rules["pieces"][p].pop("g", None)
            else:
                self.rules["pieces"][p]["g"] = group

    def new_group(self) -> str:
        self._changing()
        self.rules["group_seq"] += 1
        return f"g{self.rules['group_seq']}"

    def leave_group(self, pid: str) -> None:
        """The piece leaves its group; what is left of the group stays one if still two or more."""
        self._changing()
        g = self.group(pid)
        if g is None:
            return
        rest = [p for p in self.members(pid) if p != pid]
        self.rules["pieces"][pid].pop("g", None)
        if len(rest) == 1:
            self.rules["pieces"][rest[0]].pop("g", None)


def mark(rules: dict, scope: str, key: str, pid: str) -> None:
    """Add `pid` to the sorted list rules[scope][key]."""
    found = rules[scope][key]
    if pid not in found:
        found.append(pid)
        found.sort()


def side_of(sc: Scenario, pid: str) -> str:
    return sc.pieces[pid].side


__all__ = ["Board", "INSIDE", "initial", "fresh_ps", "fresh_ts", "mark", "other", "side_of"]
