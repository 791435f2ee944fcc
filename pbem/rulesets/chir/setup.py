"""Game preparation (3.x): placement rules, the default set-up, and the optional
`position` of a scenario document (a referee's or a rulebook case's starting position)."""

from __future__ import annotations

from pbem.core.text import no_unit

from ..base import IllegalOrder
from . import board as bd
from . import state as st
from .scenario import Scenario, other


class _Board:
    """The units on the map, looked up once for the many placements options() checks (the
    state does not change between them)."""

    def __init__(self, sc: Scenario, rules: dict):
        self.stacks = bd.stacks(sc, rules)
        self.holder = {h: bd.side_in(sc, rules, h) for h in self.stacks}
        self.side_of = sc.side_of

    def side_in(self, h: str) -> str | None:
        """board.side_in of a map hex."""
        return self.holder.get(h)

    def units_in(self, h: str, side: str) -> list[str]:
        """board.units_in of a map hex."""
        side_of = self.side_of
        return [x for x in self.stacks.get(h, ()) if side_of[x] == side]


def placement_error(sc: Scenario, rules: dict, uid: str, h: str, board: _Board | None = None) -> tuple[str, str] | None:
    """None if `uid` may be set up in `h` now, else (rule, reason): 3.2 German, 3.3 Soviet,
    6.0-6.3 stacking (3.0's note). `board`: the units on the map, if already looked up."""
    u = sc.units[uid]
    side = u.side
    rule = "3.2" if side == "german" else "3.3"
    if h not in sc:
        return rule, f"there is no hex {h}"
    if (board.side_in(h) if board else bd.side_in(sc, rules, h)) == other(side):
        return "6.0", f"{h} holds enemy units, and enemy units never share a hex"
    code = u.setup
    if code is None:
        return "11.0", f"{uid} is a reinforcement and enters during play"
    enemy = other(side)
    if h in sc.setup_hexes[enemy]:
        return rule, f"{h} is {_setup_place(sc, enemy, h)}: {side.capitalize()} units set up only on their own front or behind it"
    if code == "red-star":
        if h not in sc.red_star:
            return rule, f"{uid} sets up on a red-star hex: {', '.join(sc.red_star)}"
        if any(sc.units[x].setup == "red-star"
               for x in (board.units_in(h, side) if board else bd.units_in(sc, rules, h, side))):
            return rule, "each red-star unit takes its own red-star hex"
    elif code == "C,D":
        if h not in sc.cd_area:
            return rule, f"{uid} (set-up C, D) sets up north or east of fronts C and D, west of the Chir, off front hexes"
    elif code[:4].isdigit():
        centre, radius = code[:4], 1 if code.endswith("-1") else 0
        if sc.distance(centre, h) > radius:
            return rule, f"{uid} sets up {'on ' + centre if not radius else 'on ' + centre + ' or next to it'}"
    else:
        front = sc.fronts[side].get(code)
        if front is None:
            return rule, f"{uid} has set-up code {code}, which has no front on this map"
        if u.front_infantry:
            if h not in front:
                return rule, f"infantry of group {code} sets up on its front hexes: {', '.join(front)}"
        elif side == "german":
            if h not in front and not sc.behind(h, side, code):
                return rule, f"{uid} sets up on the front of group {code} or south or west of it: {sc.why_not_behind(h, side, code)}"
        elif h in sc.front_hexes["soviet"]:
            return rule, f"Soviet non-infantry never sets up on front hexes, and {h} is one"
        elif not sc.behind(h, side, code):
            return rule, f"{uid} sets up north or east of the front of group {code}: {sc.why_not_behind(h, side, code)}"
    there = board.units_in(h, side) if board else bd.units_in(sc, rules, h, side)
    if not bd.stacking_ok(sc, [x for x in there if x != uid] + [uid]):  # board.fits
        return bd.stacking_rule(sc, there + [uid]), f"{uid} would break the stacking limit in {h} with {', '.join(there)}"
    return None


def _setup_place(sc: Scenario, side: str, h: str) -> str:
    """Where in `side`'s set-up (3.2, 3.3) the hex h is."""
    name = side.capitalize()
    group = next((g for g, f in sc.fronts[side].items() if h in f), None)
    if group is not None:
        return f"on the front of {name} group {group}"
    if h in sc.cd_area:
        return f"in the {name} set-up area of group C, D (3.3)"
    if h in sc.red_star:
        return f"a {name} red-star hex (3.3)"
    return f"a hex of the {name} placements of 3.3"


def candidate_hexes(sc: Scenario, uid: str) -> list[str]:
    """Hexes worth trying for a unit, in the default set-up's order of preference: its front
    and the hexes next to it behind the front, or the hexes of its special placement."""
    u = sc.units[uid]
    code = u.setup
    if code == "red-star":
        return list(sc.red_star)
    if code == "C,D":
        return list(sc.cd_area)
    if code and code[:4].isdigit():
        centre = code[:4]
        return [centre] + ([n for n in sc.neigh[centre]] if code.endswith("-1") else [])
    front = list(sc.fronts[u.side].get(code, ()))
    behind = []
    for f in front:
        for n in sc.neigh[f]:
            if n not in behind and sc.behind(n, u.side, code):
                behind.append(n)
    if u.front_infantry:
        return list(front)
    return front + behind if u.side == "german" else behind


def to_place(sc: Scenario, rules: dict, side: str) -> list[str]:
    """Units still to set up, infantry first (they must take the front hexes)."""
    us = [x for x in sc.unit_ids if sc.side_of[x] == side and st.where(rules, x) == "setup"]
    return sorted(us, key=lambda x: (not sc.units[x].front_infantry, x))


def default_hex(sc: Scenario, rules: dict, uid: str) -> str | None:
    """The default placement (`end` in the set-up: a deterministic legal placement per group;
    the data gives set-up groups, not historical hex-by-hex positions): spread each group over
    its hexes in order (round robin by the unit's rank in its group), the first legal one."""
    u = sc.units[uid]
    cands = candidate_hexes(sc, uid)
    if not cands:
        return None
    rank = sum(1 for x, v in sc.units.items() if v.side == u.side and v.setup == u.setup
               and st.on_map(rules, x) and v.front_infantry == u.front_infantry)
    n = len(cands)
    for k in range(n):
        h = cands[(rank + k) % n]
        if placement_error(sc, rules, uid, h) is None:
            return h
    return None


def place_defaults(sc: Scenario, rules: dict, side: str, ctx, by: str) -> None:
    placed = []
    for uid in to_place(sc, rules, side):
        h = default_hex(sc, rules, uid)
        if h is None:
            st.remove(rules, uid, "out")
            ctx.event("setup-failed", f"{uid} finds no legal set-up hex and stays out of play.", unit=uid, rule="3.0")
            continue
        st.put(rules, uid, h)
        placed.append(f"{uid}@{h}")
    if placed:
        ctx.event("setup", f"{side} sets up by the default placement ({by}): {', '.join(placed)}.", side=side,
                  units=placed, chosen_by=ctx.chosen_by, rule="3.2" if side == "german" else "3.3")


def options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    out = []
    board = _Board(sc, rules)
    for uid in to_place(sc, rules, side):
        for h in candidate_hexes(sc, uid):
            if placement_error(sc, rules, uid, h, board) is None:
                out.append({"type": "place", "unit": uid, "hex": h})
    return out + [{"type": "end"}]


def apply_place(sc: Scenario, rules: dict, side: str, order: dict) -> None:
    uid, h = order.get("unit"), order.get("hex")
    u = sc.units.get(uid) if isinstance(uid, str) else None
    if u is None:   # a typo: the unit it most likely meant (a players' probe: "LW/1" for LW/I had no hint)
        waiting = [w for w in sc.side_ids[side] if st.where(rules, w) == "setup"]
        raise IllegalOrder("3.0", f"place {uid}: {no_unit(sc.unit_ids, uid, waiting)}", to_place(sc, rules, side))
    if u.side != side or st.where(rules, uid) != "setup":
        raise IllegalOrder("3.0", f"place {uid}: not a {side} unit waiting to be set up", to_place(sc, rules, side))
    why = placement_error(sc, rules, uid, h)
    if why:
        legal = [x for x in candidate_hexes(sc, uid) if placement_error(sc, rules, uid, x) is None]
        raise IllegalOrder(why[0], f"place {uid} in {h}: {why[1]}", legal)
    st.put(rules, uid, h)


# --- state 0 -------------------------------------------------------------------------------------

POSITION_MARKERS = {"confusion": "confusion", "fired": "fired", "half": "half", "done": "done",
                    "no-move": "no-move", "attacked": "attacked", "manoeuvre-attacked": "manoeuvre-attacked"}


def initial(sc: Scenario) -> dict:
    rules = st.fresh(sc)
    rules["ever_soviet"] = sorted(p.name for p in sc.places if all(h in sc.soviet_at_start for h in p.hexes))
    if sc.position is not None:
        apply_position(sc, rules, sc.position)
    return rules


def apply_position(sc: Scenario, rules: dict, pos: dict) -> None:
    """A position: which units are where, with what strength and markers; every unit not
    listed is out of play. The game starts at the given turn, player and phase."""
    listed = pos.get("units", {})
    for uid in sorted(listed):
        if uid not in sc.units:
            raise ValueError(f"chir position: there is no unit {uid} in the order of battle")
    for uid, u in sc.units.items():
        spec = listed.get(uid)
        if spec is None:
            st.remove(rules, uid, "out")
            continue
        if spec == "pool":
            spec = {"status": "pool"}
        status = spec.get("status", "map")
        if status == "map":
            h = spec.get("hex")
            if h not in sc:
                raise ValueError(f"chir position: {uid} needs a hex on the map, not {h!r}")
            st.put(rules, uid, h)
        else:
            rules["units"][uid] = status
        if status == "pool" and u.entry_hex is None:
            raise ValueError(f"chir position: {uid} is not a reinforcement and cannot wait in the pool")
        points = spec.get("strength", u.full)
        if not 0 < points <= u.full and status != "gone":
            raise ValueError(f"chir position: {uid} strength {points} is not between 1 and {u.full}")
        if status != "gone":
            st.set_strength(sc, rules, uid, points)
        for name in spec.get("markers", []):
            if name == "moved":
                st.set_moved(rules, uid, 0)
            else:
                st.mark(rules, POSITION_MARKERS[name], uid)
        if status == "exited":
            rules["exit_vp"][uid] = spec.get("exit_vp", 0)
    for h, side in sorted(pos.get("control", {}).items()):
        st.record(sc, rules, h, side)
    if "ever_soviet" in pos:
        rules["ever_soviet"] = sorted(pos["ever_soviet"])
    rules["loc_ever_cut"] = bool(pos.get("loc_ever_cut", False))
    rules["turn"] = pos.get("turn", 1)
    if rules["turn"] > sc.last_turn:   # a referee's probe: "GT 20" of a 12-turn game was set up
        raise ValueError(f"chir position: turn {rules['turn']} is after the game's last turn, {sc.last_turn} (4.0)")
    rules["player"] = pos.get("player", "soviet")
    rules["phase"] = pos.get("phase", "attack")
    for h, us in bd.stacks(sc, rules).items():
        sides = {sc.side_of[x] for x in us}
        if len(sides) > 1:
            raise ValueError(f"chir position: units of both sides in {h}")
