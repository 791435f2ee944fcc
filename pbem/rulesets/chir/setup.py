"""Game preparation (3.x): placement rules, the default set-up, and the optional
`position` of a scenario document (a referee's or a rulebook case's starting position)."""

from __future__ import annotations

from ..base import IllegalOrder
from . import board as bd
from .scenario import board, board_key, other, static, units, validate

MARKERS = ("conf", "fired", "half", "done", "no_move", "attacked", "moved", "mattacked")
MARKER_NAMES = {"confusion": "conf", "fired": "fired", "half": "half", "done": "done", "no-move": "no_move",
                "attacked": "attacked", "moved": "moved", "manoeuvre-attacked": "mattacked"}


def is_front_infantry(u: dict) -> bool:
    """3.2/3.3: infantry sets up on front hexes; anti-aircraft guns (blue frame) may also
    set up behind the front (3.2 exception)."""
    return u["cls"] == "infantry" and u["arm"] != "anti-aircraft"


def placement_error(rules: dict, uid: str, h: str) -> tuple[str, str] | None:
    """None if `uid` may be set up in `h` now, else (rule, reason): 3.2 German, 3.3 Soviet,
    6.0-6.3 stacking (3.0's note)."""
    b = board(rules)
    u = rules["units"][uid]
    side = u["side"]
    st = rules["board"]
    rule = "3.2" if side == "german" else "3.3"
    if h not in b:
        return rule, f"there is no hex {h}"
    if bd.side_in(rules, h) == other(side):
        return "6.0", f"{h} holds enemy units, and enemy units never share a hex"
    code = u["setup"]
    if code is None:
        return "11.0", f"{uid} is a reinforcement and enters during play"
    enemy = other(side)
    if h in b.setup_hexes[enemy]:
        return rule, f"{h} is {_setup_place(rules, enemy, h)}: {side.capitalize()} units set up only on their own front or behind it"
    if code == "red-star":
        if h not in st["red_star"]:
            return rule, f"{uid} sets up on a red-star hex: {', '.join(st['red_star'])}"
        if any(rules["units"][x]["setup"] == "red-star" for x in bd.units_in(rules, h, side)):
            return rule, "each red-star unit takes its own red-star hex"
    elif code == "C,D":
        if h not in st["cd_area"]:
            return rule, f"{uid} (set-up C, D) sets up north or east of fronts C and D, west of the Chir, off front hexes"
    elif code[:4].isdigit():
        centre, radius = code[:4], 1 if code.endswith("-1") else 0
        if b.distance(centre, h) > radius:
            return rule, f"{uid} sets up {'on ' + centre if not radius else 'on ' + centre + ' or next to it'}"
    else:
        front = st["fronts"][side].get(code)
        if front is None:
            return rule, f"{uid} has set-up code {code}, which has no front on this map"
        if is_front_infantry(u):
            if h not in front:
                return rule, f"infantry of group {code} sets up on its front hexes: {', '.join(front)}"
        elif side == "german":
            if h not in front and not b.behind(h, side, code):
                return rule, f"{uid} sets up on the front of group {code} or south or west of it: {b.why_not_behind(h, side, code)}"
        elif any(h in f for f in st["fronts"]["soviet"].values()):
            return rule, f"Soviet non-infantry never sets up on front hexes, and {h} is one"
        elif not b.behind(h, side, code):
            return rule, f"{uid} sets up north or east of the front of group {code}: {b.why_not_behind(h, side, code)}"
    if not bd.fits(rules, h, [uid]):
        there = bd.units_in(rules, h, side)
        return bd.stacking_rule(rules, there + [uid]), f"{uid} would break the stacking limit in {h} with {', '.join(there)}"
    return None


def _setup_place(rules: dict, side: str, h: str) -> str:
    """Where in `side`'s set-up (3.2, 3.3) the hex h is."""
    st = rules["board"]
    name = side.capitalize()
    group = next((g for g, f in sorted(st["fronts"][side].items()) if h in f), None)
    if group is not None:
        return f"on the front of {name} group {group}"
    if h in st["cd_area"]:
        return f"in the {name} set-up area of group C, D (3.3)"
    if h in st["red_star"]:
        return f"a {name} red-star hex (3.3)"
    return f"a hex of the {name} placements of 3.3"


def candidate_hexes(rules: dict, uid: str) -> list[str]:
    """Hexes worth trying for a unit, in the default set-up's order of preference: its front
    and the hexes next to it behind the front, or the hexes of its special placement."""
    b = board(rules)
    u = rules["units"][uid]
    st = rules["board"]
    code = u["setup"]
    if code == "red-star":
        return list(st["red_star"])
    if code == "C,D":
        return list(st["cd_area"])
    if code and code[:4].isdigit():
        centre = code[:4]
        return [centre] + ([n for n in b.neigh[centre]] if code.endswith("-1") else [])
    front = st["fronts"][u["side"]].get(code, [])
    behind = []
    for f in front:
        for n in b.neigh[f]:
            if n not in behind and b.behind(n, u["side"], code):
                behind.append(n)
    if is_front_infantry(u):
        return list(front)
    return front + behind if u["side"] == "german" else behind


def to_place(rules: dict, side: str) -> list[str]:
    """Units still to set up, infantry first (they must take the front hexes)."""
    us = [x for x, u in sorted(rules["units"].items()) if u["side"] == side and u["status"] == "setup"]
    return sorted(us, key=lambda x: (not is_front_infantry(rules["units"][x]), x))


def place(rules: dict, uid: str, h: str) -> None:
    u = rules["units"][uid]
    u["hex"] = h
    u["status"] = "map"


def default_hex(rules: dict, uid: str) -> str | None:
    """The default placement (`end` in the set-up: a deterministic legal placement per group;
    the data gives set-up groups, not historical hex-by-hex positions): spread each group over
    its hexes in order (round robin by the unit's rank in its group), the first legal one."""
    u = rules["units"][uid]
    cands = candidate_hexes(rules, uid)
    if not cands:
        return None
    rank = sum(1 for x, v in rules["units"].items() if v["side"] == u["side"] and v["setup"] == u["setup"]
               and v["status"] == "map" and is_front_infantry(v) == is_front_infantry(u))
    n = len(cands)
    for k in range(n):
        h = cands[(rank + k) % n]
        if placement_error(rules, uid, h) is None:
            return h
    return None


def place_defaults(rules: dict, side: str, ctx, by: str) -> None:
    placed = []
    for uid in to_place(rules, side):
        h = default_hex(rules, uid)
        if h is None:
            rules["units"][uid]["status"] = "out"
            ctx.event("setup-failed", f"{uid} finds no legal set-up hex and stays out of play.", unit=uid, rule="3.0")
            continue
        place(rules, uid, h)
        placed.append(f"{uid}@{h}")
    if placed:
        ctx.event("setup", f"{side} sets up by the default placement ({by}): {', '.join(placed)}.", side=side,
                  units=placed, chosen_by=ctx.chosen_by, rule="3.2" if side == "german" else "3.3")


def options(rules: dict, side: str) -> list[dict]:
    out = []
    for uid in to_place(rules, side):
        for h in candidate_hexes(rules, uid):
            if placement_error(rules, uid, h) is None:
                out.append({"type": "place", "unit": uid, "hex": h})
    return out + [{"type": "end"}]


def apply_place(rules: dict, side: str, order: dict) -> None:
    uid, h = order.get("unit"), order.get("hex")
    u = rules["units"].get(uid)
    if u is None or u["side"] != side or u["status"] != "setup":
        raise IllegalOrder("3.0", f"place {uid}: not a {side} unit waiting to be set up", to_place(rules, side))
    why = placement_error(rules, uid, h)
    if why:
        legal = [x for x in candidate_hexes(rules, uid) if placement_error(rules, uid, x) is None]
        raise IllegalOrder(why[0], f"place {uid} in {h}: {why[1]}", legal)
    place(rules, uid, h)


# --- state 0 -------------------------------------------------------------------------------------

def initial(doc: dict, options_: dict) -> dict:
    validate(doc)
    st = static(doc)
    rules = {
        "board_key": board_key(st), "board": st, "options": dict(sorted(options_.items())),
        "turn": 1, "last_turn": st["victory"]["turns"], "player": "german", "phase": "setup",
        "units": units(doc), "control": {h: "soviet" for h in st["control_soviet"]},
        "ever_soviet": [], "loc_ever_cut": False,
        "ps": fresh_ps(), "attack": None, "removal": None, "result": None,
    }
    for p in st["places"]:
        if all(rules["control"].get(h) == "soviet" for h in p["hexes"]):
            rules["ever_soviet"].append(p["name"])
    rules["ever_soviet"].sort()
    if "position" in doc:
        apply_position(rules, doc["position"])
    return rules


def fresh_ps() -> dict:
    return {"attacks": 0, "targets": [], "eligible": [], "moves": 0, "last_move": None}


def apply_position(rules: dict, pos: dict) -> None:
    """A position: which units are where, with what strength and markers; every unit not
    listed is out of play. The game starts at the given turn, player and phase."""
    b = board(rules)
    listed = pos.get("units", {})
    for uid in sorted(listed):
        if uid not in rules["units"]:
            raise ValueError(f"chir position: there is no unit {uid} in the order of battle")
    for uid, u in rules["units"].items():
        spec = listed.get(uid)
        if spec is None:
            u["status"], u["hex"] = "out", None
            continue
        if spec == "pool":
            spec = {"status": "pool"}
        status = spec.get("status", "map")
        u["status"] = status
        u["hex"] = spec.get("hex") if status == "map" else None
        if status == "map" and u["hex"] not in b:
            raise ValueError(f"chir position: {uid} needs a hex on the map, not {u['hex']!r}")
        if status == "pool" and u["entry"] is None:
            raise ValueError(f"chir position: {uid} is not a reinforcement and cannot wait in the pool")
        u["str"] = spec.get("strength", u["full"])
        if not 0 < u["str"] <= u["full"] and status != "gone":
            raise ValueError(f"chir position: {uid} strength {u['str']} is not between 1 and {u['full']}")
        for name in spec.get("markers", []):
            u[MARKER_NAMES[name]] = True
        if status == "exited":
            u["exit_vp"] = spec.get("exit_vp", 0)
    for h, side in sorted(pos.get("control", {}).items()):
        if side == "soviet":
            rules["control"][h] = "soviet"
        else:
            rules["control"].pop(h, None)
    if "ever_soviet" in pos:
        rules["ever_soviet"] = sorted(pos["ever_soviet"])
    rules["loc_ever_cut"] = bool(pos.get("loc_ever_cut", False))
    rules["turn"] = pos.get("turn", 1)
    rules["player"] = pos.get("player", "soviet")
    rules["phase"] = pos.get("phase", "attack")
    for h, us in bd.stacks(rules).items():
        sides = {rules["units"][x]["side"] for x in us}
        if len(sides) > 1:
            raise ValueError(f"chir position: units of both sides in {h}")
