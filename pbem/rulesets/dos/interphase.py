"""Decisions outside combat (`rules["pending"]`) and the Game-Turn Record Inter-Phase (4.2 D):
withdrawals (15.2), the north-map doubling (15.4), excess stacks (7.1), the directive limits
(16.33, 16.4), Axis rail clearing (6.42, 6.43) and truck railheads (12.3)."""

from __future__ import annotations

from ..base import IllegalOrder
from .scenario import Scenario
from . import air, combat, directives, reinforce, victory
from . import state as st
from . import supply as sp

CLEAR_PER_TURN = 3        # 6.42 (errata)
TRUCK_REACH = 5           # 12.31

KINDS = {
    "withdrawal": ("withdraw", "15.2", "withdraw the unit the track orders, or an equivalent (15.2)"),
    "accelerate": ("accelerate", "15.42", "double the Soviet reinforcements on the north map this turn (15.42)"),
    "stack": ("eliminate", "7.1", "eliminate units of an over-stacked hex (7.1)"),
    "directive-removal": ("remove", "16.33", "remove divisions over the directive's limit (16.33, 16.4)"),
    "clear": ("clear", "6.42", "clear up to three rail hexes (6.42, 6.43)"),
    "railhead": ("railheads", "12.32", "place or move truck railheads (12.32-12.35); `chains` may name your own "
                 "lines of trucks (12.31)"),
}


def pending(kind: str, side: str, **fields) -> dict:
    accepts, rule, prompt = KINDS[kind]
    if kind == "stack":
        prompt = f"{fields['hex']} is over the stacking limit: eliminate units (7.1)"
    return {"kind": kind, "side": side, "accepts": [accepts], "rule": rule, "prompt": prompt, **fields}


def pending_options(sc: Scenario, rules: dict, p: dict) -> list[dict]:
    kind = p["kind"]
    if kind == "withdrawal":
        return reinforce.withdrawal_options(sc, rules, sc.withdrawals[p["index"]]) or [{"type": "withdraw", "units": []}]
    if kind == "accelerate":
        return [{"type": "accelerate", "choice": "double"}, {"type": "accelerate", "choice": "normal"}]
    if kind == "stack":
        h = p["hex"]
        mine = [u for u, w in rules["units"].items() if w == h and sc.side_of[u] == p["side"]
                and (sc.units[u].combat or sc.units[u].hq)]
        return [{"type": "eliminate", "units": [u]} for u in mine]
    if kind == "directive-removal":
        return directives.removal_options(sc, rules)
    if kind == "clear":
        return [{"type": "clear", "hexes": []}] + [{"type": "clear", "hexes": c} for c in clear_chains(sc, rules)]
    if kind == "railhead":
        auto = railhead_plan(sc, rules)
        return [{"type": "railheads", "place": [], "advance": []}] + (
            [{"type": "railheads", **auto}] if auto["place"] or auto["advance"] else [])
    return []


def answer(sc: Scenario, rules: dict, p: dict, order: dict, ctx) -> None:
    kind = p["kind"]
    if kind == "withdrawal":
        reinforce.apply_withdrawal(sc, rules, sc.withdrawals[p["index"]], order, ctx)
        rules["ps"]["withdrawals"] = rules["ps"].get("withdrawals", 0) + 1
    elif kind == "accelerate":
        if order.get("choice") not in ("double", "normal"):
            raise IllegalOrder("15.42", "answer double or normal", ["double", "normal"])
        rules["ps"]["double"] = order["choice"] == "double"
        ctx.event("acceleration", f"The Soviet player {'doubles' if rules['ps']['double'] else 'does not double'} his "
                  f"north-map reinforcements this Game-Turn (15.42).", rule="15.42", chosen_by=ctx.chosen_by)
    elif kind == "stack":
        units = order.get("units") or []
        options = pending_options(sc, rules, p)
        if {"type": "eliminate", "units": units} not in options:
            raise IllegalOrder("7.1", f"eliminate one unit of {p['hex']} at a time", [o["units"] for o in options])
        for uid in units:
            combat.eliminate(sc, rules, uid)
        ctx.event("eliminated", f"{', '.join(units)} eliminated: {p['hex']} was over the stacking limit (7.1).",
                  units=units, hex=p["hex"], rule="7.1", chosen_by=ctx.chosen_by, side=p["side"],
                  phase=rules["phase"])   # the end of a Movement Phase or of a Combat Phase, either side's (7.1)
    elif kind == "directive-removal":
        directives.apply_removal(sc, rules, order, ctx)
    elif kind == "clear":
        hexes = order.get("hexes") or []
        check_clear(sc, rules, hexes)
        st.add_all(rules["cleared"], hexes)
        if hexes:
            ctx.event("clear", f"The Axis player clears {', '.join(hexes)} (6.42).", hexes=hexes, rule="6.42",
                      chosen_by=ctx.chosen_by)
        rules["ps"]["cleared_done"] = True
    elif kind == "railhead":
        _apply_railheads(sc, rules, order, pending_options(sc, rules, p), ctx)
        rules["ps"]["railheads_done"] = True
    rules["pending"].pop(0)


# --- 6.42, 6.43: clearing rail hexes -----------------------------------------------------------------

def clear_chains(sc: Scenario, rules: dict) -> list[list[str]]:
    """Every set of rail hexes 6.42 and 6.43 let the Axis player clear in one inter-phase, each
    set once: one to three hexes, each last passed by an Axis unit and not yet cleared (a), each
    next along the line to an Axis-cleared hex or to rail west of the Front Line (b), or joined
    to one that is through hexes of the set (the consecutive hexes of 6.43; the one meeting (b)
    may be any of them). Single chains first, each from a hex meeting (b) outward along the
    line, then those with that hex in the middle, then sets of chains on different lines."""
    clearable, qualifies = _clear_tests(sc, rules)
    starts = sorted(_starts(sc, clearable, qualifies))
    pieces: list[list[int]] = []
    for i in starts:     # each chain before the longer ones it begins, depth first along the line
        todo = [[i]]
        while todo:
            chain = todo.pop()
            pieces.append(chain)
            if len(chain) < CLEAR_PER_TURN:
                todo += reversed([chain + [j] for j in sorted(sc.rail_nb[chain[-1]])
                                  if j not in chain and clearable(j)])
    for i in starts:                                  # 6.43: the hex meeting (b) in the middle
        ends = sorted(j for j in sc.rail_nb[i] if clearable(j))
        pieces += [[a, i, b] for k, a in enumerate(ends) for b in ends[k + 1:]]
    sets = list(pieces)
    for k, p in enumerate(pieces):                    # 6.42: up to three hexes in all, on any lines
        for n, q in enumerate(pieces[k + 1:], k + 1):
            if len(p) + len(q) <= CLEAR_PER_TURN and not set(p) & set(q):
                sets.append(p + q)
                if len(p) + len(q) < CLEAR_PER_TURN:
                    sets += [p + q + r for r in pieces[n + 1:] if len(r) == 1 and r[0] not in p + q]
    seen: set[frozenset] = set()
    out = []
    for c in sets:
        key = frozenset(c)
        if key not in seen:
            seen.add(key)
            out.append([sc.ids[x] for x in c])
    return out


def can_clear(sc: Scenario, rules: dict) -> bool:
    """Whether `clear_chains` has a set to offer: some rail hex meets (a) and (b) of 6.43 (each
    such hex is a set of its own)."""
    return next(_starts(sc, *_clear_tests(sc, rules)), None) is not None


def _starts(sc: Scenario, clearable, qualifies):
    """The rail hexes meeting (a) and (b) of 6.43, where a set to clear may start."""
    return (i for i in sc.rail_hex if clearable(i) and qualifies(i))


def _clear_tests(sc: Scenario, rules: dict):
    """(a) with not yet cleared, and (b) of 6.43, for rail hex indices."""
    cleared = set(rules["cleared"])

    def clearable(i: int) -> bool:
        return (i not in sc.axis_start and sc.ids[i] not in cleared and st.control(sc, rules, i) == "axis")

    def qualifies(i: int) -> bool:
        return any(j in sc.axis_start or sc.ids[j] in cleared for j in sc.rail_nb[i])

    return clearable, qualifies


def check_clear(sc: Scenario, rules: dict, hexes: list) -> None:
    """6.42 (errata): up to three rail hexes, named in any order; 6.43: each last passed by an
    Axis unit, east of the Front Line and not cleared yet (a), and next along the line to an
    Axis-cleared hex or rail west of the line (b), or consecutive with hexes of the order that
    lead to one that is."""
    if len(set(hexes)) != len(hexes) or len(hexes) > CLEAR_PER_TURN:
        raise IllegalOrder("6.42", f"name up to {CLEAR_PER_TURN} different rail hexes to clear", None)
    clearable, qualifies = _clear_tests(sc, rules)
    for h in hexes:
        i = sc.idx.get(h)
        if i is None or i not in sc.rail_hex:
            raise IllegalOrder("6.43", f"{h} is not a rail hex", None)
        if not clearable(i):
            raise IllegalOrder("6.43", f"{h} may not be cleared: only a rail hex east of the Front Line, not yet "
                               "cleared, whose last unit to pass through was an Axis unit", None)
    named = {sc.idx[h] for h in hexes}
    reached = {i for i in named if qualifies(i)}
    grew = True
    while grew:                                       # consecutive hexes: along the line from one meeting (b)
        more = {j for i in reached for j in sc.rail_nb[i] if j in named} - reached
        grew = bool(more)
        reached |= more
    for h in hexes:
        if sc.idx[h] not in reached:
            raise IllegalOrder("6.43", f"{h} is neither next to an Axis-cleared rail hex or rail west of the Front Line "
                               "nor consecutive along the line with hexes of the order that are", None)


# --- 12.3: truck supply chains and their railheads -------------------------------------------------------

def chains(sc: Scenario, rules: dict) -> list[list[str]]:
    """12.31: trucks in chains, the first within five hexes of an Axis source, each next one
    within five of the one before, the route free of terrain closed to supply lines (and,
    reading, of enemy units and Enemy ZOC); any number of chains, from any sources (12.37).
    This is the stringing the engine makes when the Axis player names none (a `railheads`
    order without `chains`): each chain from the first truck by id, each next truck the first
    by id in reach. A player who wants another names his own lines (`line_fault` checks them)."""
    lines = sp.lines_of(sc, rules, "axis")
    sources = set(lines.sources())
    units = rules["units"]
    trucks = [u for u in sc.truck_units if units[u] not in st.OFF_MAP]      # in id order
    where = {u: sc.idx[st.hex_of(rules, u)] for u in trucks}
    reach = {u: lines.within(where[u], TRUCK_REACH) for u in trucks}
    used: set[str] = set()
    out = []
    for first in trucks:
        if first in used or not any(h in sources for h in reach[first]):
            continue
        chain = [first]
        used.add(first)
        while True:
            nxt = next((u for u in trucks if u not in used and where[u] in reach[chain[-1]]), None)
            if nxt is None:
                break
            chain.append(nxt)
            used.add(nxt)
        out.append(chain)
    return out


def line_fault(sc: Scenario, rules: dict, line: list[str]) -> str | None:
    """Why `line`, trucks in the order the Axis player strings them, is not a Truck Supply
    Chain as the trucks stand (12.31), or None: Axis trucks on the map, none twice, the first
    within five hexes of an Axis source, each next one within five of the one before, traced
    as `chains` traces them."""
    if not line:
        return "names no truck"
    if len(set(line)) < len(line):
        return "names a truck twice"
    for u in line:
        if u not in sc.units or not sc.units[u].truck:
            return f"names {u}, which is not a truck"
        if not st.on_map(rules, u):
            return f"names {u}, which {st.not_on_map(rules, u).removeprefix(u + ' ')}"
    lines = sp.lines_of(sc, rules, "axis")
    first = sc.idx[st.hex_of(rules, line[0])]
    if not set(lines.sources()) & set(lines.within(first, TRUCK_REACH)):
        return f"begins with {line[0]}, which is not within five hexes of an Axis supply source"
    for a, b in zip(line, line[1:]):
        if sc.idx[st.hex_of(rules, b)] not in lines.within(sc.idx[st.hex_of(rules, a)], TRUCK_REACH):
            return f"has {b} more than five hexes of supply line from {a}, the truck before it"
    return None


def _taken(rules: dict, but: dict | None = None) -> set[str]:
    """The trucks of the chains that carry a railhead (but `but`'s): 12.36, never two on one."""
    return {u for r in rules["railheads"] if r is not but for u in r["chain"] + [r["truck"]]}


def _onward(sc: Scenario, rules: dict, r: dict, named: list[list[str]]) -> list[str] | None:
    """The line a railhead moves on along (12.34, 12.35): the line the order names with its
    truck and one after it; else the line it was placed on, while it still joins a source to
    the next truck (12.31); else the engine's chain with a truck after it. None if none."""
    line = next((line for line in named if r["truck"] in line[:-1]), None)
    if line is not None:
        return line
    kept = r["chain"]
    if r["truck"] in kept[:-1] and line_fault(sc, rules, kept[:kept.index(r["truck"]) + 2]) is None:
        return kept
    return next((c for c in chains(sc, rules) if r["truck"] in c[:-1]), None)


def railhead_plan(sc: Scenario, rules: dict) -> dict:
    """12.32-12.35: a railhead on the first truck of each chain that has none (unless one was
    used on it this turn, 12.36); an unused railhead moves on to the next truck of its line
    (`_onward`). New chains are the engine's stringing (`chains`)."""
    place = [chain[0] for chain in chains(sc, rules)
             if not set(chain) & (_taken(rules) | set(rules["railhead_blocked"]))]
    advance = []
    for r in rules["railheads"]:
        line = None if r["used"] else _onward(sc, rules, r, [])
        if line is not None and line[line.index(r["truck"]) + 1] not in _taken(rules, r):
            advance.append(r["truck"])
    return {"place": place, "advance": sorted(advance)}


def _apply_railheads(sc: Scenario, rules: dict, order: dict, options: list[dict], ctx) -> None:
    """12.32-12.36 as ordered. A railhead placed or moved on follows the line the order names
    for it in `chains` (the line that begins with the truck it is placed on, or that has the
    truck it is on and a truck after it), else the engine's stringing (`chains`)."""
    named = [list(line) for line in order.get("chains") or []]
    for line in named:
        fault = line_fault(sc, rules, line)
        if fault is not None:
            raise IllegalOrder("12.31", f"the truck chain {', '.join(line)} {fault}", [railhead_plan(sc, rules)])
    if len({u for line in named for u in line}) < sum(len(line) for line in named):
        raise IllegalOrder("12.31", "a truck may be in one chain only: the chains named share a truck",
                           [railhead_plan(sc, rules)])
    strung = chains(sc, rules)
    plan = railhead_plan(sc, rules)
    for truck in order.get("place") or []:
        chain = next((line for line in named if line[0] == truck), None) \
            or next((c for c in strung if c[0] == truck), None)
        if chain is None:
            raise IllegalOrder("12.32", f"{truck} is not the first truck of a chain: place railheads on the first "
                               "truck of chains without one, or move unused ones to the next truck of their chain",
                               [plan])
        if set(chain) & (_taken(rules) | set(rules["railhead_blocked"])):
            raise IllegalOrder("12.36", f"the chain {', '.join(chain)} already has a railhead, or had one used this "
                               "Game-Turn: never more than one in a chain", [plan])
        rules["railheads"].append({"truck": truck, "chain": chain, "used": False})
        ctx.event("railhead", f"An Axis railhead on truck {truck} at {st.hex_of(rules, truck)} (12.32).", truck=truck,
                  rule="12.32", chosen_by=ctx.chosen_by)
    advance = order.get("advance") or []
    onward = {}
    for truck in advance:
        r = next((r for r in rules["railheads"] if r["truck"] == truck), None)
        line = _onward(sc, rules, r, named) if r is not None and not r["used"] else None
        if line is None or (truck not in plan["advance"] and not any(truck in n[:-1] for n in named)):
            raise IllegalOrder("12.34", f"{truck} carries no unused railhead with a truck after it in its chain: "
                               "place railheads on the first truck of chains without one, or move unused ones "
                               "to the next truck of their chain", [plan])
        if set(line) & _taken(rules, r):
            raise IllegalOrder("12.36", f"the chain {', '.join(line)} has a truck of another railhead's chain: "
                               "never more than one railhead in a chain", [plan])
        onward[truck] = line
    for r in rules["railheads"]:
        if r["truck"] in onward:
            chain = onward[r["truck"]]
            k = chain.index(r["truck"])
            r["truck"] = chain[k + 1]
            r["chain"] = chain
            ctx.event("railhead", f"The unused railhead moves on to truck {r['truck']} (12.34).", truck=r["truck"],
                      rule="12.34", chosen_by=ctx.chosen_by)
    rules["railheads"].sort(key=lambda r: r["truck"])


# --- 4.2 D: the Game-Turn Record Inter-Phase ---------------------------------------------------------------

def stage_interphase(sc: Scenario, rules: dict, ctx) -> None:
    """The Volga judged on the Game-Turn's supply (19.17); air units back to 0 (14.7); used
    railheads go (12.33, 12.36); the Axis clears rail (6.42) and places or moves railheads
    (12.32-12.35); then the VP of the inter-phase."""
    ps = rules["ps"]
    if not ps.get("interphase_begun"):
        ps["interphase_begun"] = True
        ps["volga_supplied"] = victory.volga_supplied(sc, rules)      # 19.17, before railheads go or come
        air.reset(rules)
        used = [r for r in rules["railheads"] if r["used"]]
        if used:
            rules["railheads"] = [r for r in rules["railheads"] if not r["used"]]
            rules["railhead_blocked"] = sorted({u for r in used for u in r["chain"]})
            ctx.event("railhead", f"Railheads used for supply this Game-Turn are removed: "
                      f"{', '.join(r['truck'] for r in used)} (12.33, 12.36).", rule="12.36")
        else:
            rules["railhead_blocked"] = []
        ctx.event("phase", f"Game-Turn {rules['turn']}: Game-Turn Record Inter-Phase (4.2 D).", turn=rules["turn"],
                  phase="interphase", rule="4.2")
    if not ps.get("cleared_done"):
        if can_clear(sc, rules):
            rules["pending"].append(pending("clear", "axis"))
            return
        ps["cleared_done"] = True
    if not ps.get("railheads_done"):
        plan = railhead_plan(sc, rules)
        if plan["place"] or plan["advance"]:
            rules["pending"].append(pending("railhead", "axis"))
            return
        ps["railheads_done"] = True
    rules["stage"] = "interphase-vp"


def stage_vp(sc: Scenario, rules: dict, ctx) -> None:
    victory.interphase_vp(sc, rules, ctx)
    if rules["result"] is not None:         # 19.0: an award brought 3:1
        rules["stage"] = None
        return
    if rules["turn"] >= sc.last_turn:
        rules["stage"] = None
        victory.final(sc, rules, ctx)
        return
    rules["turn"] += 1
    rules["player"] = "axis"
    rules["rail_used"] = 0                                # 6.31: the Axis player's allowance of the Game-Turn
    ctx.event("game-turn", f"Game-Turn {rules['turn']} begins ({sc.dates[rules['turn'] - 1]} 1942).",
              turn=rules["turn"], rule="4.2")
    rules["stage"] = "directive"
