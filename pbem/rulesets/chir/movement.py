"""Movement (8.x), reinforcements (11.x) and leaving the map by the south-edge road (4.4)."""

from __future__ import annotations

from pbem.core.geometry import paths

from ..base import IllegalOrder
from . import board as bd
from .scenario import board


def budget(rules: dict, uid: str) -> int:
    """Movement allowance in half MP. 8.6/9.12.1: a Half Move marker halves it (rounded down
    in whole MP); 8.7: a German self-propelled gun that has fired moves at half too."""
    u = rules["units"][uid]
    if u["half"] or (u["fired"] and u["sp"]):
        return (u["mp"] // 2) * 2
    return u["mp"] * 2


def why_not_move(rules: dict, uid: str, side: str) -> str | None:
    """None if the unit may start a move now, else the reason with its rule."""
    u = rules["units"].get(uid)
    if u is None:
        return f"there is no unit {uid}"
    if u["side"] != side:
        return f"{uid} is not a {side} unit"
    if u["status"] != "map":
        return f"{uid} is not on the map"
    if u["moved"] or u["done"]:
        return f"{uid} has completed its movement (8.1)"
    if u["no_move"]:
        return f"{uid} retreated from defensive fire in its concentrated attack and may not move (8.6, 9.12.1)"
    if u["conf"]:
        return f"{uid} has a confusion marker and may not move (8.0)"
    if u["cls"] == "artillery" and u["fired"] and not (u["sp"] and u["side"] == "german"):
        return f"{uid} is artillery with a fired marker and may not move (8.7)"
    return None


def step_cost(rules: dict, uid: str, a: str, c: str) -> int:
    """8.3, 8.4: road cost along a road (bridges cancel rivers); else the terrain of the hex
    entered, plus the river hexside."""
    return board(rules).cost["mot" if rules["units"][uid]["mot"] else "non"][a][c]


class _View:
    """What a move needs to know about the board at its start (computed once per order)."""

    def __init__(self, rules: dict, side: str):
        self.rules = rules
        self.side = side
        self.b = board(rules)
        self.ezoc, self.tank_ezoc = bd.ezoc(rules, side)
        self.enemy = {u["hex"] for u in rules["units"].values() if u["status"] == "map" and u["side"] != side}
        self.friends: dict[str, list[str]] = bd.stacks(rules, side)

    def friendly_combat_arm(self, h: str, movers: list[str]) -> bool:
        return any(bd.combat_arm(self.rules["units"][x]) for x in self.friends.get(h, []) if x not in movers)


def _support_only(rules: dict, uids: list[str]) -> bool:
    return not any(bd.combat_arm(rules["units"][u]) for u in uids)


def check_path(rules: dict, side: str, uids: list[str], start: str | None, path: list[str], *,
               exit_map: bool = False, order_text: str = "move") -> dict:
    """Validate a move (or an entry when start is None) and return what it costs and whether
    it needs a tactical retreat die. Raises IllegalOrder."""
    v = _View(rules, side)
    b = v.b
    for h in path:
        if h not in b:
            raise IllegalOrder("2.1", f"{order_text}: there is no hex {h} on the map", None)
    spent = {u: 0 for u in uids}
    prev = start
    tactical = False
    if start is not None and start in v.ezoc and (path or exit_map):
        tactical = True
    for i, h in enumerate(path):
        if h in v.enemy:
            raise IllegalOrder("8.1", f"{order_text}: {h} holds enemy units", None)
        if prev is None:
            # 11.1: the first hex of an entry costs the normal (road) cost
            for u in uids:
                spent[u] += b.st["road_cost"]["mot" if rules["units"][u]["mot"] else "non"]
        else:
            if not b.grid.adjacent(prev, h):
                raise IllegalOrder("8.1", f"{order_text}: {prev} and {h} are not adjacent", None)
            if prev in v.ezoc and i > 0:
                raise IllegalOrder("8.5.1", f"{order_text}: the units entered an enemy zone of control in {prev} "
                                   f"and must stop there", None)
            if i == 0 and tactical and h in v.ezoc and not v.friends.get(h):
                raise IllegalOrder("8.5.3", f"{order_text}: {h} is in an enemy zone of control entered directly "
                                   f"from another EZOC hex ({start}); only a hex with a friendly unit may be entered so",
                                   None)
            for u in uids:
                spent[u] += step_cost(rules, u, prev, h)
        if h in v.ezoc and _support_only(rules, uids) and not v.friendly_combat_arm(h, uids):
            raise IllegalOrder("8.5.1", f"{order_text}: anti-tank and artillery units may enter the enemy zone of "
                               f"control in {h} only with an armoured or infantry unit", None)
        prev = h
    last = prev
    if exit_map:
        if side != "soviet":
            raise IllegalOrder("4.4", f"{order_text}: German units may not leave the map", None)
        if last not in b.exit:
            raise IllegalOrder("4.4", f"{order_text}: units leave the map only from the south-edge road hex "
                               f"{', '.join(sorted(b.exit))}", sorted(b.exit))
        if path and last in v.ezoc:
            raise IllegalOrder("8.5.1", f"{order_text}: {last} is in an enemy zone of control; the units stop there", None)
        for u in uids:
            spent[u] += b.st["exit_cost"]
    for u in uids:
        if spent[u] > budget(rules, u):
            raise IllegalOrder("8.1", f"{order_text}: {u} needs {spent[u] / 2:g} MP and has {budget(rules, u) / 2:g}",
                               None)
    if last is not None and not exit_map and path and not bd.fits(rules, last, uids):
        raise IllegalOrder("6.4", f"{order_text}: the units would break the stacking limit in {last}", None)
    return {"spent": spent, "tactical": tactical, "last": last,
            "tank_ezoc": start in v.tank_ezoc if start else False}


def _check_stack(rules: dict, side: str, uids: list[str], order_text: str) -> str:
    if not uids or len(set(uids)) != len(uids):
        raise IllegalOrder("6.5", f"{order_text}: name each moving unit once", None)
    for u in uids:
        reason = why_not_move(rules, u, side)
        if reason:
            raise IllegalOrder("8.0", f"{order_text}: {reason}", movable(rules, side))
    hexes = {rules["units"][u]["hex"] for u in uids}
    if len(hexes) != 1:
        raise IllegalOrder("6.5", f"{order_text}: only units in the same hex may move together as a stack", None)
    return hexes.pop()


def tactical_retreat(rules: dict, side: str, uids: list[str], start: str, tank_ezoc: bool, ctx, label: str) -> bool:
    """8.5.2: leaving an EZOC. Supported (a unit of the stack stays behind in the EZOC):
    automatic. Unsupported: one die for the stack, 1-3 succeeds, -1 if every unit is
    motorised and the EZOC is not a tank ZOC."""
    staying = [u for u in bd.units_in(rules, start, side) if u not in uids]
    if staying:
        ctx.event("tactical-retreat", f"{', '.join(uids)} leave the enemy zone of control in {start} with support "
                  f"({', '.join(staying)} stay): automatic success.", units=uids, hex=start, supported=True,
                  success=True, rule="8.5.2")
        return True
    die = ctx.d6(label)
    mod = -1 if all(rules["units"][u]["mot"] for u in uids) and not tank_ezoc else 0
    success = die + mod <= 3
    ctx.event("tactical-retreat", f"{', '.join(uids)} attempt a tactical retreat from {start} without support: "
              f"die {die}{' -1 (all motorised, not a tank ZOC)' if mod else ''} = {die + mod}: "
              f"{'success' if success else 'failure, movement ends'}.", units=uids, hex=start, supported=False,
              die=die, modifier=mod, success=success, rule="8.5.2")
    return success


def move(rules: dict, side: str, order: dict, ctx) -> None:
    uids = sorted(order.get("units") or [])
    path = list(order.get("path") or [])
    exit_map = bool(order.get("exit", False))
    text = f"move {','.join(uids)}"
    start = _check_stack(rules, side, uids, text)
    if not path and not exit_map:
        raise IllegalOrder("8.1", f"{text}: give the hexes of the path (or exit: true)", None)
    info = check_path(rules, side, uids, start, path, exit_map=exit_map, order_text=text)
    ps = rules["ps"]
    ps["moves"] += 1
    ps["last_move"] = None
    if info["tactical"]:
        ok = tactical_retreat(rules, side, uids, start, info["tank_ezoc"], ctx,
                              f"t{rules['turn']}.{side}.movement.m{ps['moves']}.tactical")
        if not ok:
            for u in uids:
                rules["units"][u]["moved"] = True
                rules["units"][u]["done"] = True
            return
    _walk(rules, side, uids, start, path, info, ctx, exit_map)
    ps["last_move"] = {"units": uids, "may_attack": not exit_map}


def _walk(rules: dict, side: str, uids: list[str], start: str | None, path: list[str], info: dict, ctx,
          exit_map: bool) -> None:
    for h in path:
        bd.enter(rules, h, side)
    for u in uids:
        unit = rules["units"][u]
        unit["hex"] = info["last"]
        unit["moved"] = True
        unit["used"] = info["spent"][u]
        unit["status"] = "map"
    where = " -> ".join(([start] if start else []) + path)
    ctx.event("move", f"{', '.join(uids)} move {where} ({max(info['spent'].values()) / 2:g} MP).",
              units=uids, path=([start] if start else []) + path, mp_halves=max(info["spent"].values()), rule="8.1")
    if exit_map:
        exit_units(rules, uids, info["last"], ctx)


def exit_units(rules: dict, uids: list[str], h: str, ctx) -> None:
    """4.4: Soviet units leave by the south-edge road; their strength scores only if a line of
    communication runs from the exit to 4316 or 4323 avoiding German units and control."""
    from .victory import exit_line

    line = exit_line(rules, h)
    for u in uids:
        unit = rules["units"][u]
        unit["status"] = "exited"
        unit["exit_vp"] = unit["str"] * rules["board"]["victory"]["exit_vp_per_point"] if line else 0
        unit["hex"] = None
    total = sum(rules["units"][u]["exit_vp"] for u in uids)
    ctx.event("exit", f"{', '.join(uids)} leave the map at {h}: "
              + (f"line of communication to {'/'.join(rules['board']['exit_loc_to'])} open, {total} VP."
                 if line else "no line of communication to the Soviet entry hexes, no VP."),
              units=uids, hex=h, line=line, vp=total, rule="4.4")


def enter_reinforcements(rules: dict, side: str, order: dict, ctx) -> None:
    uids = sorted(order.get("units") or [])
    path = list(order.get("path") or [])
    text = f"enter {','.join(uids)}"
    if not uids or not path:
        raise IllegalOrder("11.1", f"{text}: name the units and the path starting at the entry hex", None)
    entries = set()
    for u in uids:
        unit = rules["units"].get(u)
        if unit is None or unit["side"] != side or unit["status"] != "pool" or unit["entry"] is None:
            raise IllegalOrder("11.1", f"{text}: {u} is not a {side} reinforcement waiting to enter", waiting(rules, side))
        if unit["entry"]["turn"] > rules["turn"]:
            raise IllegalOrder("11.1", f"{text}: {u} enters on GT {unit['entry']['turn']}, not before", waiting(rules, side))
        entries.add(unit["entry"]["hex"])
    if len(entries) != 1 or path[0] != next(iter(entries)):
        raise IllegalOrder("11.1", f"{text}: the units enter together at their entry hex "
                           f"{', '.join(sorted(entries))}", None)
    entry = path[0]
    if bd.side_in(rules, entry) not in (None, side):
        raise IllegalOrder("11.1", f"{text}: enemy units hold the entry hex {entry}; the reinforcements wait", None)
    info = check_path(rules, side, uids, None, path, exit_map=bool(order.get("exit", False)), order_text=text)
    rules["ps"]["moves"] += 1
    _walk(rules, side, uids, None, path, info, ctx, bool(order.get("exit", False)))
    rules["ps"]["last_move"] = {"units": uids, "may_attack": not order.get("exit", False)}


def waiting(rules: dict, side: str) -> list[str]:
    return [u for u, x in sorted(rules["units"].items())
            if x["side"] == side and x["status"] == "pool" and x["entry"] and x["entry"]["turn"] <= rules["turn"]]


def movable(rules: dict, side: str) -> list[str]:
    return [u for u in bd.on_map(rules, side) if why_not_move(rules, u, side) is None]


# --- legal options ---------------------------------------------------------------------------

def destinations(rules: dict, side: str, uids: list[str], start: str | None, entry: str | None = None,
                 v: "_View | None" = None) -> dict[str, tuple[int, list[str]]]:
    """Cheapest legal path to every hex the group can reach (a conservative search: each
    step costs the dearest of the group's costs; the allowance is the smallest)."""
    v = v or _View(rules, side)
    b = v.b
    limit = min(budget(rules, u) for u in uids)
    support_only = _support_only(rules, uids)
    origin = start if start is not None else entry
    tactical = start is not None and start in v.ezoc

    def neighbours(h: str):
        return b.neigh[h]

    tables = [b.cost[k] for k in sorted({"mot" if rules["units"][u]["mot"] else "non" for u in uids})]

    def cost(a: str, c: str):
        if c in v.enemy:
            return None
        if c in v.ezoc and support_only and not v.friendly_combat_arm(c, uids):
            return None
        if a == origin and tactical and c in v.ezoc and not v.friends.get(c):
            return None
        return max(t[a][c] for t in tables)

    first = 0
    if start is None:
        first = max(b.st["road_cost"]["mot" if rules["units"][u]["mot"] else "non"] for u in uids)
        if first > limit:
            return {}
        if entry in v.ezoc:
            return {entry: (first, [entry])}
    found = paths.reachable_paths(origin, limit - first, neighbours, cost, stop=lambda h: h in v.ezoc)
    out = {}
    for h, (c, p) in found.items():
        if start is not None and h == start:
            continue
        out[h] = (c + first, p[1:] if start is not None else p)
    return out


def options(rules: dict, side: str) -> list[dict]:
    out: list[dict] = []
    groups: list[list[str]] = []
    by_hex: dict[str, list[str]] = {}
    for u in movable(rules, side):
        by_hex.setdefault(rules["units"][u]["hex"], []).append(u)
    for h, us in sorted(by_hex.items()):
        groups.append(us)
        if len(us) > 1:
            groups.extend([[u] for u in us])
    b = board(rules)
    v = _View(rules, side)

    def fits(dest: str, us: list[str]) -> bool:
        return bd.stacking_ok(rules, [x for x in v.friends.get(dest, []) if x not in us] + us)

    for us in groups:
        start = rules["units"][us[0]]["hex"]
        for dest, (cost, path) in destinations(rules, side, us, start, v=v).items():
            if fits(dest, us):
                out.append({"type": "move", "units": us, "path": path})
            if side == "soviet" and dest in b.exit and dest not in v.ezoc \
                    and all(cost + b.st["exit_cost"] <= budget(rules, u) for u in us):
                out.append({"type": "move", "units": us, "path": path, "exit": True})
    entries: dict[str, list[str]] = {}
    for u in waiting(rules, side):
        entries.setdefault(rules["units"][u]["entry"]["hex"], []).append(u)
    for entry, us in sorted(entries.items()):
        if bd.side_in(rules, entry) not in (None, side):
            continue
        sets = [us] + ([[u] for u in us] if len(us) > 1 else [])
        for group in sets:
            for dest, (cost, path) in destinations(rules, side, group, None, entry, v=v).items():
                if fits(dest, group):
                    out.append({"type": "enter", "units": group, "path": path})
    return out
