"""Reinforcements, withdrawals and returns (15.0-15.5, 20.0), and the random draws of the
Soviet forces (5.21, 15.3): each a pick of the dice of the moment the rules make it, from
the group's counters not yet drawn (DESIGN §3.6)."""

from __future__ import annotations

from itertools import combinations, islice, product

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
    numbers only (15.42), and the acceleration "does not affect" the south map's influx "as
    listed on the Reinforcement Schedule" (15.43): the extra north-map draws come after this
    Game-Turn's south-map ones and take no counter the south map's later entries of the
    schedule need, so a pool running low runs out on the doubled draws, never on the south's
    (15.44). (1.17.0 kept only this Game-Turn's: the doubled draws emptied the pools of later
    south-map entries, 13 of the 36 never came, a rules probe.)"""
    turn = rules["turn"]
    track = sc.soviet_track.get(turn, {})
    drawn = []
    for group in ("rifle", "cavalry", "guards", "mech", "hq"):
        north, south = track.get(group, (0, 0))
        drawn += draw(sc, rules, group, north, ctx, f"t{turn}.reinforce.{group}.n", "ready", "north")
        drawn += draw(sc, rules, group, south, ctx, f"t{turn}.reinforce.{group}.s", "ready", "south")
        if double:
            owed = sum(entry.get(group, (0, 0))[1] for t, entry in sc.soviet_track.items() if t > turn)
            left = sum(1 for u in sc.groups[group] if rules["units"][u] == "pool")
            drawn += draw(sc, rules, group, min(north, max(0, left - owed)), ctx, f"t{turn}.reinforce.{group}.x",
                          "ready", "north")
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
#
# Readings (15.22-15.25, 20.1):
# - 15.21/15.23: the named unit if it is available (15.22), or, at the player's choice (15.22 c),
#   any one available equivalent: a German infantry, mountain or Jaeger division for infantry, a
#   whole unbroken German mechanized division for mechanized. Every such choice is offered.
# - 15.24 applies only when no unit is available under 15.21/15.23. The player then withdraws
#   units of the type, in an Enemy ZOC or not (15.24 lifts 15.22 d only): German infantry,
#   mountain and Jaeger divisions, or German mechanized regiments, none withdrawn before in place
#   of another unit (15.22 b). "Equivalent to the full original strength" is read as exactly
#   equal: their steps left must add up to the named unit's full steps. Where no set of units
#   adds up to exactly that, the set must make the least total above it (15.24 says he "must
#   withdraw" that strength, so falling short never satisfies it), and where all the units of
#   the type together have fewer steps, all of them go.
# - Returns (15.25, 20.1): 20.1 brings back one unit on the return turn ("76*", "11 Pz*"), and
#   15.25 brings back "the unit ordered to withdraw", at full strength. Under 15.21 that is the
#   named unit; under 15.23 it is the one equivalent withdrawn in its stead (one division for
#   one division; 15.22 b presupposes that such a substitute can be back on the map). Under
#   15.24 only the named unit's own counters among those withdrawn come back, at full strength;
#   the units withdrawn in its place leave the game for good, and if the named unit is not among
#   them nothing comes back (it never left the map).

OPTIONS_15_24 = 12          # how many 15.24 sets are offered (any exact set is accepted)


def due_withdrawals(sc: Scenario, rules: dict) -> list[dict]:
    return [w for w in sc.withdrawals if w["turn"] == rules["turn"]]


def in_place(sc: Scenario, rules: dict) -> set[str]:
    """15.22 (b): the units withdrawn before in place of the unit a withdrawal named."""
    named = {w["turn"]: set(w["units"]) for w in sc.withdrawals}
    return {u for t, us in rules["withdrawn"].items() for u in us if u not in named.get(int(t), ())}


def _available(sc: Scenario, rules: dict, units: list[str], board: Board, excluded: set[str]) -> bool:
    return unavailable(sc, rules, units, board, excluded) is None


def unavailable(sc: Scenario, rules: dict, units: list[str], board: Board, excluded: set[str]) -> str | None:
    """Why `units` (a unit, or a division's regiments) may not be withdrawn, in words with its
    case of 15.22: a part eliminated or off the map (a), withdrawn before in place of another
    unit (b), a part in an Enemy ZOC (d); None: available."""
    ezoc = board.ezoc("axis")
    for uid in units:
        if uid in excluded:
            return f"{uid} was withdrawn before in place of another unit (15.22 b)"
        if not st.on_map(rules, uid):
            return f"{uid} is {'eliminated (15.22 a)' if st.status(rules, uid) == 'gone' else 'not on the map'}"
        if sc.units[uid].division and sc.units[uid].division in rules["broken"]:
            return f"{sc.units[uid].division}, the division of {uid}, lost a regiment (15.22 a)"
        if sc.idx[st.hex_of(rules, uid)] in ezoc:
            return f"{uid} is in an Enemy ZOC in {st.hex_of(rules, uid)} (15.22 d)"
    return None


def pending_withdrawal(sc: Scenario, rules: dict) -> dict:
    """The withdrawal whose decision the game waits for (15.21): the first pending one."""
    return sc.withdrawals[rules["pending"][0]["index"]]


def named_words(sc: Scenario, rules: dict, w: dict) -> str:
    """The unit a withdrawal names and whether it may go: for `pbem orders` (15.21-15.24)."""
    named = sorted(w["units"])
    who = ", ".join(named)
    why = unavailable(sc, rules, named, view(sc, rules), in_place(sc, rules))
    if why is None:
        return (f"The track names {who} (15.21): available; the standing order `withdrawal: named` withdraws it, "
                f"or give an equivalent of its type in its place (15.22 c, 15.23).")
    if _substitutes(sc, rules, w):
        return (f"The track names {who} (15.21), which is unavailable: {why}. An available unit of its type goes in "
                f"its place, your choice (15.23).")
    itself = {"type": "withdraw", "units": named} in _options_15_24(sc, rules, w)
    return (f"The track names {who} (15.21), which is unavailable: {why}; and no unit of its type is available "
            f"either, so units of its type, in an Enemy ZOC or not, whose steps make its full strength go (15.24)"
            + (f": {who} itself among them, which the standing order `withdrawal: named` withdraws." if itself else
               ", your choice."))


def _equivalents(sc: Scenario, rules: dict, kind: str) -> list[list[str]]:
    """Units of the type: German infantry divisions, or whole German mechanized divisions."""
    if kind == "infantry":
        return [[u] for u, x in sc.units.items() if x.kind in INFANTRY and st.on_map(rules, u)]
    out = []
    for d, regs in sc.divisions.items():
        if all(st.on_map(rules, r) for r in regs) and sc.units[regs[0]].nation == "german":
            out.append(list(regs))
    return out


def _substitutes(sc: Scenario, rules: dict, w: dict) -> list[dict]:
    """15.21 and 15.23: every legal choice, the named unit first."""
    board = view(sc, rules)
    excluded = in_place(sc, rules)
    out = []
    named = list(w["units"])
    if _available(sc, rules, named, board, excluded):
        out.append({"type": "withdraw", "units": sorted(named)})              # 15.21
    for group in _equivalents(sc, rules, w["type"]):                           # 15.23
        if sorted(group) != sorted(named) and _available(sc, rules, group, board, excluded):
            out.append({"type": "withdraw", "units": sorted(group)})
    return out


def _pool_15_24(sc: Scenario, rules: dict, w: dict) -> list[str]:
    """15.24: the units of the type on the map, in an Enemy ZOC or not, except those withdrawn
    before in place of another (15.22 b); the named unit's counters first, then by id."""
    excluded = in_place(sc, rules)
    if w["type"] == "infantry":
        kind = lambda x: x.kind in INFANTRY
    else:
        kind = lambda x: x.nation == "german" and x.arm == "mech"
    named = set(w["units"])
    return sorted((u for u, x in sc.units.items() if kind(x) and st.on_map(rules, u) and u not in excluded),
                  key=lambda u: (u not in named, u))


def _target_15_24(sc: Scenario, rules: dict, w: dict, pool: list[str]) -> int:
    """The steps a 15.24 set must make: the named unit's full steps if some set makes exactly
    that; else the least total above it; else (too few steps of the type) all there is."""
    need = sum(sc.units[u].step_count for u in w["units"])
    reach = {0}
    for u in pool:
        reach |= {r + st.steps_left(sc, rules, u) for r in reach}
    return min((r for r in reach if r >= need), default=max(reach))


def _partitions(total: int, counts: dict[int, int], values: list[int]) -> list[tuple[int, ...]]:
    """The ways to make `total` from step values (largest first), at most counts[v] of each."""
    if total == 0:
        return [()]
    if not values:
        return []
    v, rest = values[0], values[1:]
    out = []
    for k in range(min(counts[v], total // v), -1, -1):
        out += [(v,) * k + p for p in _partitions(total - k * v, counts, rest)]
    return out


def _options_15_24(sc: Scenario, rules: dict, w: dict, pool: list[str] | None = None) -> list[dict]:
    """A finite, representative choice of the legal 15.24 sets (any exact set is accepted):
    the named unit alone when it is whole and at full strength, then, fewest units first, one
    set for each way of making the steps (the named unit's counters and the lowest ids first),
    then further sets of each way in turn, OPTIONS_15_24 at most; `pool`: `_pool_15_24` if known."""
    pool = _pool_15_24(sc, rules, w) if pool is None else pool
    if not pool:
        return []
    target = _target_15_24(sc, rules, w, pool)
    groups: dict[int, list[str]] = {}
    for u in pool:
        groups.setdefault(st.steps_left(sc, rules, u), []).append(u)
    shapes = sorted(_partitions(target, {v: len(us) for v, us in groups.items()}, sorted(groups, reverse=True)),
                    key=lambda p: (len(p), [-v for v in p]))

    def sets(shape):
        need = {v: shape.count(v) for v in set(shape)}
        for pick in product(*(combinations(groups[v], k) for v, k in sorted(need.items()))):
            yield sorted(u for part in pick for u in part)

    out: list[dict] = []

    def add(units):
        o = {"type": "withdraw", "units": units}
        if o not in out and len(out) < OPTIONS_15_24:
            out.append(o)

    named = sorted(w["units"])
    if set(named) <= set(pool) and sum(st.steps_left(sc, rules, u) for u in named) == target:
        add(named)
    for shape in shapes:
        add(next(sets(shape)))
    more = [islice(sets(shape), 1, None) for shape in shapes]      # then the next set of each shape in turn
    while more and len(out) < OPTIONS_15_24:
        left = []
        for it in more:
            units = next(it, None)
            if units is not None:
                add(units)
                left.append(it)
        more = left
    return out


def _legal_15_24(sc: Scenario, rules: dict, w: dict, units: list[str], pool: list[str]) -> bool:
    """15.24: distinct units of the pool (`_pool_15_24`) whose steps left make exactly the target."""
    if not units or len(set(units)) != len(units) or not set(units) <= set(pool):
        return False
    return sum(st.steps_left(sc, rules, u) for u in units) == _target_15_24(sc, rules, w, pool)


def withdrawal_options(sc: Scenario, rules: dict, w: dict) -> list[dict]:
    """15.21 and 15.23 (all the legal choices), or, if there is none, a representative choice of
    the legal sets of 15.24."""
    return _substitutes(sc, rules, w) or _options_15_24(sc, rules, w)


def apply_withdrawal(sc: Scenario, rules: dict, w: dict, order: dict, ctx) -> None:
    units = sorted(order.get("units") or [])
    named = sorted(w["units"])
    first = _substitutes(sc, rules, w)
    if first:
        if {"type": "withdraw", "units": units} not in first:
            why = unavailable(sc, rules, units, view(sc, rules), in_place(sc, rules)) if units else None
            # the units it may withdraw, not "the unit named" where that is the one refused (a
            # players' probe: told to withdraw the unit it had just refused)
            choices = " or ".join(", ".join(o["units"]) for o in first[:6]) + (", or another" if len(first) > 6 else "")
            named_ok = {"type": "withdraw", "units": named} in first
            raise IllegalOrder("15.23", (f"{why}, so it may not be withdrawn; " if why else "")
                               + (f"withdraw {', '.join(named)}, the unit named, or an available unit of its type in "
                                  f"its place (15.22): {choices}" if named_ok else
                                  f"{', '.join(named)}, the unit named, {'is' if len(named) == 1 else 'are'} not "
                                  f"available: withdraw an available unit of its type in its place (15.22, 15.23): "
                                  f"{choices}"), [o["units"] for o in first[:12]])
        rule = "15.21" if units == named else "15.23"
    else:
        pool = _pool_15_24(sc, rules, w)
        if not pool:
            ctx.event("withdrawal", f"No unit of the type is left to withdraw for {', '.join(w['units'])} (15.24).",
                      rule="15.24")
            return
        if not _legal_15_24(sc, rules, w, units, pool):
            raise IllegalOrder("15.24", "no unit is available (15.22, 15.23): withdraw units of the type, in an "
                               "Enemy ZOC or not, whose steps make exactly the full steps of the unit named "
                               "(15.24)", [o["units"] for o in _options_15_24(sc, rules, w, pool)])
        rule = "15.24"
    returns = {r["withdrawn_on"]: r["turn"] for r in sc.returns}
    back = returns.get(rules["turn"])
    # 15.25, 20.1: one unit comes back: the named unit (15.21) or its one equivalent (15.23); of
    # a 15.24 set only the named unit's own counters, the units withdrawn in its place for good
    returning = [u for u in units if rule != "15.24" or u in named] if back else []
    for uid in units:
        if uid in returning:
            st.remove(rules, uid, "due", back)
        else:
            st.remove(rules, uid, "out")
    rules["withdrawn"][str(rules["turn"])] = units
    # one citation at the end: the rule the withdrawal follows, and 15.25 where a return is said
    if rule != "15.24" or not back:
        tail, cited = (f"; back on Game-Turn {back} at full strength", f"{rule}, 15.25") if back else ("", rule)
    elif returning:
        others = "" if len(returning) == len(units) else ", the others for good"
        tail, cited = f"; {', '.join(returning)} back on Game-Turn {back} at full strength{others}", f"{rule}, 15.25"
    else:
        tail = f"; none comes back on Game-Turn {back}: only the unit ordered to withdraw returns"
        cited = f"{rule}, 15.25, 20.1"
    ctx.event("withdrawal", f"{', '.join(units)} withdrawn from the game (ordered: {', '.join(w['units'])})"
              + tail + f" ({cited}).", units=units, ordered=list(w["units"]), returning=returning, rule=rule,
              chosen_by=ctx.chosen_by)
