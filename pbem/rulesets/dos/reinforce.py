"""Reinforcements, withdrawals and returns (15.0-15.5, 20.0), and the random draws of the
Soviet forces (5.21, 15.3): each a pick of the dice of the moment the rules make it, from
the group's counters not yet drawn (DESIGN §3.6)."""

from __future__ import annotations

from ..base import IllegalOrder
from .board import view, Board
from .scenario import Scenario
from . import state as st

INFANTRY = ("ger-inf", "ger-mtn", "ger-jg")        # 15.23: the infantry type


def draw(sc: Scenario, rules: dict, group: str, count: int, ctx, label: str, where: str,
         section: str | None = None, only=None) -> list[str]:
    """Draw `count` counters of a Soviet group at random from those still in the pool (5.2,
    15.3); fewer when the pool runs out (15.44)."""
    chosen = []
    for k in range(count):
        pool = [u for u in sc.groups[group] if rules["units"][u] == "pool" and (only is None or only(u))]
        if not pool:
            break
        uid = pool[ctx.pick(f"{label}.{k}", len(pool))]
        rules["units"][uid] = where
        if section:
            rules["ready_map"][uid] = section
        chosen.append(uid)
    return chosen


def initial_selection(sc: Scenario, rules: dict, ctx) -> None:
    """5.21 (errata): 27 untried rifle, 6 untried cavalry, 5 Guards or NKVD rifle divisions,
    2 mechanized units and 9 HQs at random, and the 2nd, 4th and 8th Air Armies."""
    init = sc.initial
    picked: dict[str, list[str]] = {}
    for group in ("rifle", "cavalry", "guards", "mech", "hq"):
        only = None
        if group == "guards" and init.get("guards_rifle_only"):
            only = lambda u: sc.units[u].arm == "infantry"     # 5.21: Guards and/or NKVD *rifle* divisions
        picked[group] = draw(sc, rules, group, init[group], ctx, f"setup.{group}", "setup", only=only)
    for uid, u in sc.units.items():
        if u.side == "soviet" and u.setup == "5.21":
            rules["units"][uid] = "setup"
    ctx.event("selection", "The Soviet initial force is drawn at random (5.21): " + "; ".join(
        f"{g} {', '.join(us)}" for g, us in picked.items()) + ".", picked=picked, rule="5.21")


def soviet_turn(sc: Scenario, rules: dict, ctx, double: bool) -> None:
    """15.3, 15.4: the Soviet reinforcements of this Game-Turn, drawn by group (20.2's units,
    sorted into the five groups of 15.3) and map section; doubling multiplies the north map's
    numbers only (15.42, 15.43)."""
    turn = rules["turn"]
    track = sc.soviet_track.get(turn, {})
    drawn = []
    for group in ("rifle", "cavalry", "guards", "mech", "hq"):
        north, south = track.get(group, (0, 0))
        if double:
            north *= 2
        drawn += draw(sc, rules, group, north, ctx, f"t{turn}.reinforce.{group}.n", "ready", "north")
        drawn += draw(sc, rules, group, south, ctx, f"t{turn}.reinforce.{group}.s", "ready", "south")
    for uid, u in sc.units.items():
        if u.side == "soviet" and u.turn == turn and rules["units"][uid] == "pool":
            rules["units"][uid] = "ready"
            rules["ready_map"][uid] = u.map or "north"
            drawn.append(uid)
    back = _due(sc, rules, "soviet")
    if drawn or back:
        ctx.event("reinforcements", f"Soviet reinforcements of Game-Turn {turn}"
                  + (" (north map doubled, 15.42)" if double else "") + ": "
                  + ", ".join(f"{u} ({rules['ready_map'].get(u, 'any')})" for u in drawn + back) + " (15.3).",
                  units=drawn + back, doubled=double, rule="15.3")


def _due(sc: Scenario, rules: dict, side: str) -> list[str]:
    """Units back from evacuation or displacement (11.5, 12.38, 14.13) and returns (15.25)."""
    back = []
    for uid, when in sorted(rules["due"].items()):
        if sc.side_of[uid] == side and when <= rules["turn"] and rules["units"][uid] == "due":
            rules["units"][uid] = "ready"
            if side == "soviet":
                rules["ready_map"][uid] = "any"
            del rules["due"][uid]
            back.append(uid)
    return back


def axis_turn(sc: Scenario, rules: dict, ctx) -> None:
    """15.1, 20.1: the Axis reinforcements of this Game-Turn become ready to enter."""
    turn = rules["turn"]
    ready = []
    for uid, u in sc.units.items():
        if u.side == "axis" and u.turn == turn and rules["units"][uid] == "pool":
            rules["units"][uid] = "ready"
            ready.append(uid)
    back = _due(sc, rules, "axis")
    if ready or back:
        ctx.event("reinforcements", f"Axis reinforcements of Game-Turn {turn}: {', '.join(ready + back)} (15.1).",
                  units=ready + back, rule="15.1")


# --- withdrawals (15.2) ---------------------------------------------------------------------------

def due_withdrawals(sc: Scenario, rules: dict) -> list[dict]:
    return [w for w in sc.withdrawals if w["turn"] == rules["turn"]]


def _available(sc: Scenario, rules: dict, units: list[str], board: Board) -> bool:
    """15.22: on the map, no part eliminated or withdrawn before, none in an Enemy ZOC."""
    ezoc = board.ezoc("axis")
    for uid in units:
        if not st.on_map(rules, uid):
            return False
        if sc.units[uid].division and sc.units[uid].division in rules["broken"]:
            return False
        if sc.idx[st.hex_of(rules, uid)] in ezoc:
            return False
    return True


def _equivalents(sc: Scenario, rules: dict, kind: str) -> list[list[str]]:
    """Units of the type: German infantry divisions, or whole German mechanized divisions."""
    if kind == "infantry":
        return [[u] for u, x in sc.units.items() if x.kind in INFANTRY and st.on_map(rules, u)]
    out = []
    for d, regs in sc.divisions.items():
        if all(st.on_map(rules, r) for r in regs) and sc.units[regs[0]].nation == "german":
            out.append(list(regs))
    return out


def withdrawal_options(sc: Scenario, rules: dict, w: dict) -> list[dict]:
    board = view(sc, rules)
    already = {u for us in rules["withdrawn"].values() for u in us}
    out = []
    named = list(w["units"])
    if _available(sc, rules, named, board) and not already & set(named):
        out.append({"type": "withdraw", "units": sorted(named)})              # 15.21
    for group in _equivalents(sc, rules, w["type"]):                           # 15.23
        if sorted(group) != sorted(named) and _available(sc, rules, group, board):
            out.append({"type": "withdraw", "units": sorted(group)})
    if out:
        return out
    # 15.24: units of the type, in Enemy ZOC or not, with as many steps as the unit at full strength
    need = sum(sc.units[u].step_count for u in named)
    if w["type"] == "infantry":
        pool = sorted((u for u, x in sc.units.items() if x.kind in INFANTRY and st.on_map(rules, u)),
                      key=lambda u: (st.steps_left(sc, rules, u), u))
    else:
        pool = sorted((u for u, x in sc.units.items() if x.nation == "german" and x.arm == "mech"
                       and st.on_map(rules, u)), key=lambda u: (st.steps_left(sc, rules, u), u))
    for start in range(len(pool)):
        chosen, steps = [], 0
        for u in pool[start:] + pool[:start]:
            if steps >= need:
                break
            chosen.append(u)
            steps += st.steps_left(sc, rules, u)
        option = {"type": "withdraw", "units": sorted(chosen)}
        if chosen and option not in out:
            out.append(option)
        if len(out) >= 6:
            break
    return out


def apply_withdrawal(sc: Scenario, rules: dict, w: dict, order: dict, ctx) -> None:
    options = withdrawal_options(sc, rules, w)
    units = sorted(order.get("units") or [])
    if not options:
        ctx.event("withdrawal", f"No unit of the type is left to withdraw for {', '.join(w['units'])} (15.24).",
                  rule="15.24")
        return
    if {"type": "withdraw", "units": units} not in options:
        raise IllegalOrder("15.23", "withdraw the unit named, or an equivalent unit of the same type that is "
                           "available (15.22), or, if none is, units of the type with as many steps (15.24)",
                           [o["units"] for o in options[:12]])
    returns = {r["withdrawn_on"]: r["turn"] for r in sc.returns}
    back = returns.get(rules["turn"])
    for uid in units:
        if back:
            st.remove(rules, uid, "due", back)
        else:
            st.remove(rules, uid, "out")
    rules["withdrawn"][str(rules["turn"])] = units
    rule = "15.21" if units == sorted(w["units"]) else ("15.23" if len(options) and units in
                                                         [o["units"] for o in options] else "15.24")
    ctx.event("withdrawal", f"{', '.join(units)} withdrawn from the game (ordered: {', '.join(w['units'])})"
              + (f"; back on Game-Turn {back} at full strength (15.25)" if back else "") + f" ({rule}).",
              units=units, ordered=list(w["units"]), rule=rule, chosen_by=ctx.chosen_by)
