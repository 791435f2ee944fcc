"""Combat (9.x): declaring concentrated and manoeuvre attacks, fire, the CRT and its column
shifts, results, losses, morale, and the attack's sub-steps as a resumable state machine.

An attack in progress lives in `rules["attack"]`; its `step` says where it stands:

    def-artillery   awaiting the defender's artillery declaration (10.3)
    def-fire        awaiting the defender's choice of target group for defensive fire (9.4)
    def-roll        defensive fire to be rolled (9.5)
    def-hit         applying the defensive fire's result to an attacking group (`hit`)
    invalidate      awaiting the attacker's choice of artillery to invalidate (10.3)
    att-roll        offensive fire to be rolled
    att-hit         applying the offensive fire's result to the defenders (`hit`)
    advance         awaiting the attacker's advances after combat (9.11)
    finish          markers and flags after the attack (8.6, 9.12)

A `hit` (the result of one fire being applied) has its own `stage`: loss (awaiting a
loss-allocation tie, 9.8), choice (awaiting retreat or morale test, 9.9), test (9.9.1),
extra (additional losses, 9.9.2), retreat (awaiting a retreat hex, 9.10), over.
"""

from __future__ import annotations

from itertools import combinations

from pbem.core.text import agreeing, counted, no_unit

from ..base import IllegalOrder
from . import artillery, removal, retreat
from . import board as bd
from . import state as st
from .scenario import Scenario, other

FIRE_CLASS = {"tank": "tank", "anti-tank": "anti_tank", "infantry": "infantry", "artillery": "artillery_adjacent"}
CLASS_TEXT = {"tank": "Tanks", "anti_tank": "Anti-tank", "infantry": "Infantry",
              "artillery_adjacent": "Artillery (adjacent)", "artillery_supporting": "Artillery (support)"}


# --- fire strength, columns, shifts (9.5-9.7) ------------------------------------------------

def fire_strength(sc: Scenario, rules: dict, firers: list[str], supports: list[str],
                  tank_target: bool) -> tuple[int, list[dict]]:
    """9.6: sum each firing class, multiply by its weapon effect against the target class,
    drop fractions per class; the total is the fire strength."""
    weapons = sc.weapons
    sums: dict[str, list] = {}
    for uid in firers:
        sums.setdefault(FIRE_CLASS[sc.units[uid].cls], []).append(st.strength(sc, rules, uid))
    for uid in supports:
        sums.setdefault("artillery_supporting", []).append(st.strength(sc, rules, uid))
    parts = []
    total = 0
    for cls in ("tank", "anti_tank", "infantry", "artillery_adjacent", "artillery_supporting"):
        if cls not in sums:
            continue
        num, den = weapons[cls]["tank" if tank_target else "not_tank"]
        raw = sum(sums[cls])
        value = raw * num // den
        total += value
        mult = f"x{num}" if den == 1 else f"x{num}/{den}"
        parts.append({"class": cls, "strengths": sums[cls], "sum": raw, "multiplier": [num, den], "value": value,
                      "text": f"{CLASS_TEXT[cls]}: ({'+'.join(map(str, sums[cls]))}) {mult} = {value}"
                      if len(sums[cls]) > 1 else f"{CLASS_TEXT[cls]}: {raw} {mult} = {value}"})
    return total, parts


def column_index(sc: Scenario, strength: int) -> int:
    for i, (label, lo, hi) in enumerate(sc.crt_columns):
        if strength >= lo and (hi is None or strength <= hi):
            return i
    return 0


def resolve_column(sc: Scenario, strength: int, shift: int) -> tuple[str | None, str | None, str]:
    """(column before shifts, final column, outcome): 9.7 limits. outcome is "ok",
    "zero" (strength 0: no effect) or "cancelled" (left of the first column)."""
    cols = sc.crt_columns
    if strength <= 0:
        return None, None, "zero"
    base = column_index(sc, strength)
    final = base + shift
    if final < 0:
        return cols[base][0], None, "cancelled"
    final = min(final, len(cols) - 1)  # right of 35+: resolved on 35+
    return cols[base][0], cols[final][0], "ok"


def tank_shifts(sc: Scenario, firers: list[str], target: list[str]) -> list[dict]:
    """9.7.4: light tanks (offensive and defensive fire) and heavy tanks."""
    shifts = sc.shifts
    out = []
    units = sc.units
    tgt = [units[u] for u in target]
    if tgt and all(u.cls == "tank" and u.light > 0 for u in tgt) \
            and any(units[f].cls == "tank" and units[f].light == 0 for f in firers):
        n = min(u.light for u in tgt)
        out.append({"id": "light_tank", "shift": n * shifts.get("light_tank", 1), "rule": "9.7.4",
                    "text": f"target of light tanks only ({n} red circle{'s' if n > 1 else ''})"})
    if any(u.cls == "tank" and u.heavy for u in tgt):
        out.append({"id": "heavy_tank", "shift": shifts.get("heavy_tank", -1), "rule": "9.7.4",
                    "text": "heavy tank in the target stack"})
    return out


def encircled(sc: Scenario, rules: dict, target: str, side: str) -> bool:
    """9.7.2: every on-map hex next to the target is occupied by the attacker's units or in
    the attacker's zone of control."""
    zone, _ = bd.zoc(sc, rules, side)
    mine = bd.occupied(sc, rules, side)
    return all(n in mine or n in zone for n in sc.neigh[target])


def offensive_shifts(sc: Scenario, rules: dict, a: dict, groups: dict[str, list[str]], firers: list[str],
                     target: list[str]) -> list[dict]:
    shifts = sc.shifts
    out = []
    if a["kind"] == "concentrated" and len(groups) > 1:
        out.append({"id": "multi_group", "shift": (len(groups) - 1) * shifts.get("multi_group", 1), "rule": "9.7.1",
                    "text": f"{len(groups)} attacking groups"})
    if encircled(sc, rules, a["target"], a["att"]):
        out.append({"id": "encirclement", "shift": shifts.get("encirclement", 1), "rule": "9.7.2",
                    "text": "target encircled"})
    terrain = sc.terrain(a["target"])
    ts = sc.terrain_shift[terrain]
    if ts:
        out.append({"id": "terrain", "shift": ts, "rule": "9.7.3", "text": f"defender in {terrain}"})
    if groups and all(sc.is_river(h, a["target"]) for h in groups):
        out.append({"id": "river", "shift": sc.river_shift, "rule": "9.7.3",
                    "text": "every attacking unit across a river hexside"})
    out.extend(tank_shifts(sc, firers, target))
    return out


def result_of(sc: Scenario, column: str, die: int) -> str:
    return sc.crt_results[column][die - 1]


def parse_result(res: str) -> tuple[int, int]:
    if res == "-":
        return 0, 0
    m, s = res.split("-")
    return int(m), int(s)


def fire(sc: Scenario, rules: dict, ctx, *, kind: str, n: int, firers: list[str], supports: list[str], target_hex: str,
         target: list[str], shifts: list[dict], label: str, side: str) -> tuple[str, int, int]:
    """Resolve one fire (9.5) and report it; returns (result, morale damage, strength loss)."""
    tank_target = any(sc.units[u].cls == "tank" for u in target)
    strength, parts = fire_strength(sc, rules, firers, supports, tank_target)
    total_shift = sum(s["shift"] for s in shifts)
    base, final, outcome = resolve_column(sc, strength, total_shift)
    fields = dict(attack=n, fire=kind, side=side, firers=sorted(firers), support=sorted(supports),
                  # where the firers stand, for the picture of a fire whose attack an earlier packet declared
                  firer_hexes=sorted({h for h in map(lambda u: st.hex_of(rules, u), firers) if h is not None}),
                  # and where its supporting artillery stands, for the picture's support arrows (10.0)
                  support_hexes=sorted({h for h in map(lambda u: st.hex_of(rules, u), supports) if h is not None}),
                  target_hex=target_hex, target=sorted(target), target_class="tank" if tank_target else "not tank",
                  parts=parts, strength=strength, column_before=base, shifts=shifts, shift=total_shift,
                  column=final, rule="9.5")
    head = (f"{kind.capitalize()} fire of {side} ({', '.join(sorted(firers + supports))}) at {target_hex} "
            f"({', '.join(sorted(target))}; target class {'tank' if tank_target else 'not tank'}): "
            + "; ".join(p["text"] for p in parts) + f"; strength {strength}")
    shift_text = "".join(f"; {s['text']}: {s['shift']:+d} ({s['rule']})" for s in shifts)
    if outcome == "zero":
        ctx.event("fire", head + ": no effect (9.7).", die=None, result="-", outcome="zero", **fields)
        return "-", 0, 0
    if outcome == "cancelled":
        ctx.event("fire", head + f", column {base}{shift_text}: left of the first column, fire cancelled (9.7).",
                  die=None, result="-", outcome="cancelled", **fields)
        return "-", 0, 0
    die = ctx.d6(label)
    res = result_of(sc, final, die)
    ctx.event("fire", head + f", column {base}{shift_text}; final column {final}; die {die}: {res}.",
              die=die, result=res, outcome="ok", **fields)
    m, s = parse_result(res)
    return res, m, s


# --- applying a result: losses, morale, additional losses (9.8, 9.9) -------------------------

def _alive(sc: Scenario, rules: dict, hit: dict) -> list[str]:
    return [u for u in hit["units"] if st.hex_of(rules, u) == hit["hex"]]


def loss_candidates(sc: Scenario, rules: dict, hit: dict) -> list[str]:
    """9.8: tank units first for a tank-class target (as far as possible); then the unit of
    greatest strength; ties are the owner's choice. 9.9.2: additional losses come off the
    strongest, but with no strength loss at least one goes on a tank."""
    if hit["stage"] == "loss":
        pool = _alive(sc, rules, hit)
        tanks_first = hit["tank"]
    else:
        pool = [u for u in hit["extra_units"] if st.on_map(rules, u)]
        tanks_first = hit["tank"] and hit["S"] == 0 and not hit["tank_extra_done"]
    if tanks_first:
        tanks = [u for u in pool if sc.units[u].cls == "tank"]
        if tanks:
            pool = tanks
    if not pool:
        return []
    top = max(st.strength(sc, rules, u) for u in pool)
    return sorted(u for u in pool if st.strength(sc, rules, u) == top)


def _take(sc: Scenario, rules: dict, hit: dict, uid: str, ctx, chosen: str) -> None:
    stage = hit["stage"]
    why = "fire result" if stage == "loss" else "additional loss after the passed morale test"
    if chosen:
        why += f"; {chosen}"
    if stage == "extra" and sc.units[uid].cls == "tank":
        hit["tank_extra_done"] = True
    retreat.lose(sc, rules, uid, 1, ctx, why, "9.8" if stage == "loss" else "9.9.2")
    if stage == "loss":
        hit["s_left"] -= 1
    else:
        hit["extra_left"] -= 1


def test_allowed(sc: Scenario, rules: dict, hit: dict) -> bool:
    """9.9: the test may be chosen only if the stack still has at least the morale damage."""
    return bd.strength(sc, rules, _alive(sc, rules, hit)) >= hit["M"]


def run_hit(sc: Scenario, rules: dict, hit: dict, ctx) -> bool:
    """Carry the hit forward; True when over, False when its owner must decide."""
    while True:
        stage = hit["stage"]
        if stage in ("loss", "extra"):
            left = hit["s_left"] if stage == "loss" else hit["extra_left"]
            cands = loss_candidates(sc, rules, hit) if left > 0 else []
            if cands and len(cands) > 1:
                return False
            if cands:
                _take(sc, rules, hit, cands[0], ctx, "")
                continue
            if stage == "loss":
                hit["stage"] = "choice" if hit["M"] > 0 and _alive(sc, rules, hit) else "over"
            else:
                hit["stage"] = "retreat" if hit["retreaters"] else "over"
            continue
        if stage == "choice":
            if test_allowed(sc, rules, hit):
                return False
            alive = _alive(sc, rules, hit)
            ctx.event("morale-choice", f"{', '.join(alive)} {agreeing(alive, 'has', 'have')} "
                      f"{bd.strength(sc, rules, alive)} strength, less than the morale damage {hit['M']}: "
                      f"{agreeing(alive, 'it', 'they')} must retreat (9.9).",
                      units=alive, choice="retreat",
                      forced=True, chosen_by="rule", rule="9.9")
            hit["retreaters"] = alive
            hit["stage"] = "retreat"
            continue
        if stage == "test":
            alive = _alive(sc, rules, hit)
            die = ctx.d6(hit["label"] + ".morale")
            passed = [u for u in alive if die <= sc.units[u].morale]
            failed = [u for u in alive if u not in passed]
            # the roll it needed, for a reader without the rulebook (an audience's walkthrough)
            ctx.event("morale-test", f"Morale test of {', '.join(alive)} (a unit passes on its morale or less, 9.9.1): "
                      f"die {die}" + "".join(f"; {u} (morale {sc.units[u].morale}) {'passes' if u in passed else 'fails'}"
                                             for u in alive) + ".",
                      units=alive, die=die, passed=passed, failed=failed,
                      morale={u: sc.units[u].morale for u in alive}, rule="9.9.1")
            hit["extra_units"] = passed
            hit["extra_left"] = hit["M"] if passed else 0
            hit["retreaters"] = failed
            hit["stage"] = "extra"
            continue
        if stage == "retreat":
            if not retreat.run(sc, rules, hit, ctx):
                return False
            hit["stage"] = "over"
            continue
        return True


def new_hit(sc: Scenario, owner: str, hex_: str, units: list[str], m: int, s: int, label: str) -> dict:
    return {"side": owner, "hex": hex_, "units": sorted(units), "M": m, "S": s, "s_left": s,
            "tank": any(sc.units[u].cls == "tank" for u in units),
            "stage": "loss", "extra_left": 0, "extra_units": [], "tank_extra_done": False,
            "retreaters": [], "label": label}


# --- declaring attacks (9.1, 9.2, 10.3) -------------------------------------------------------

def _label(rules: dict, a: dict) -> str:
    return f"t{rules['turn']}.{a['att']}.{rules['phase']}.a{a['n']}"


def attacked_before(ps: dict, defenders: list[str]) -> bool:
    """9.1: "It is not possible to attack the same group of enemy units more than once in the
    same phase": a stack every unit of which defended together in one earlier concentrated
    attack of the phase, wherever it stands now (a group that retreated is the same group; a
    stack joined by a unit not attacked with it is another)."""
    stack = set(defenders)
    return any(stack <= set(group) for group in ps["attacked_groups"])


def _check_target(sc: Scenario, rules: dict, side: str, target) -> list[str]:
    if not isinstance(target, str) or target not in sc:
        raise IllegalOrder("9.1", f"attack: there is no hex {target}", None)
    defenders = bd.units_in(sc, rules, target, other(side))
    if not defenders:
        raise IllegalOrder("9.1", f"attack: {target} holds no enemy units", None)
    return defenders


def declare_concentrated(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    target = order.get("target")
    uids = sorted(order.get("units") or [])
    support = sorted(order.get("support") or [])
    text = f"attack {target}"
    defenders = _check_target(sc, rules, side, target)
    ps = rules["ps"]
    if attacked_before(ps, defenders):
        raise IllegalOrder("9.1", f"{text}: {', '.join(defenders)} {'was' if len(defenders) == 1 else 'were'} attacked "
                           f"earlier in this phase, and the same group of enemy units may not be attacked twice", None)
    if not uids or len(set(uids)) != len(uids):
        raise IllegalOrder("9.1", f"{text}: name each attacking unit once", None)
    groups = _groups(sc, rules, side, uids, target, text, concentrated=True)
    _check_support(sc, rules, side, support, groups, target, "concentrated", text)
    _start(sc, rules, side, "concentrated", target, defenders, groups, support, ctx)


def _groups(sc: Scenario, rules: dict, side: str, uids: list[str], target: str, text: str,
            concentrated: bool) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for uid in uids:
        u = sc.units.get(uid) if isinstance(uid, str) else None
        if u is None:
            on_map = [u for u in sc.side_ids[side] if st.on_map(rules, u)]
            raise IllegalOrder("9.1", f"{text}: {no_unit(sc.unit_ids, uid, on_map)}", None)
        h = st.hex_of(rules, uid)
        if u.side != side or h is None:
            raise IllegalOrder("9.1", f"{text}: {uid} is not a {side} unit on the map", None)
        if not sc.adjacent(h, target):
            raise IllegalOrder("9.0", f"{text}: {uid} in {h} is not adjacent to {target}", None)
        if concentrated:
            if uid not in rules["ps"]["eligible"]:
                raise IllegalOrder("9.1", f"{text}: {uid} was not adjacent to an enemy unit at the start of the "
                                   f"concentrated attack phase", None)
            if st.marked(rules, "attacked", uid):
                raise IllegalOrder("9.1", f"{text}: {uid} has already attacked in this phase", None)
        if u.cls == "artillery" and (st.marked(rules, "fired", uid) or st.marked(rules, "confusion", uid)):
            raise IllegalOrder("9.4.2", f"{text}: artillery {uid} has a fired or confusion marker and may not fire", None)
        groups.setdefault(h, []).append(uid)
    for h, g in groups.items():
        units = [sc.units[x] for x in g]
        if any(x.cls == "anti-tank" for x in units) and not any(x.combat_arm for x in units):
            raise IllegalOrder("9.1", f"{text}: anti-tank units attack only together with armoured or infantry "
                               f"units of their stack ({h})", None)
    return dict(sorted(groups.items()))


def _check_support(sc: Scenario, rules: dict, side: str, support: list[str], groups: dict, target: str, kind: str,
                   text: str) -> None:
    if len(set(support)) != len(support):
        raise IllegalOrder("10.3", f"{text}: name each supporting artillery unit once", None)
    if kind == "manoeuvre" and side != "german" and support:
        raise IllegalOrder("10.2", f"{text}: Soviet artillery may not support manoeuvre attacks", [])
    for art in support:
        reasons = [artillery.why_not_support(sc, rules, art, g, target, kind) for g in groups.values()]
        if all(r is not None for r in reasons):
            rule, why = reasons[0]
            raise IllegalOrder(rule, f"{text}: {why}", artillery.best_support(sc, rules, side, groups, target, kind))
    if len(support) > len(groups):
        raise IllegalOrder("10.2", f"{text}: only one supporting artillery unit per attacking group "
                           f"({len(groups)} group{'s' if len(groups) > 1 else ''})", None)
    if artillery.matching(sc, rules, support, groups, target, kind) is None:
        raise IllegalOrder("10.2", f"{text}: the supporting artillery cannot be matched one per group it may support",
                           artillery.best_support(sc, rules, side, groups, target, kind))


def declare_manoeuvre(sc: Scenario, rules: dict, side: str, order: dict, ctx) -> None:
    target = order.get("target")
    uids = sorted(order.get("units") or [])
    support = sorted(order.get("support") or [])
    text = f"attack {target}"
    defenders = _check_target(sc, rules, side, target)
    why = manoeuvre_block(sc, rules, side, uids)
    if why:
        raise IllegalOrder(why[0], f"{text}: {why[1]}", None)
    groups = _groups(sc, rules, side, uids, target, text, concentrated=False)
    _check_support(sc, rules, side, support, groups, target, "manoeuvre", text)
    _start(sc, rules, side, "manoeuvre", target, defenders, groups, support, ctx)


def manoeuvre_block(sc: Scenario, rules: dict, side: str, uids: list[str]) -> tuple[str, str] | None:
    """9.2: a single stack that has just finished its move, or one that has not moved."""
    if not uids:
        return "9.2", "name the attacking stack"
    units = {u: sc.units.get(u) if isinstance(u, str) else None for u in uids}
    for uid, u in units.items():
        if u is None or u.side != side or not st.on_map(rules, uid):
            return "9.2", f"{uid} is not a {side} unit on the map"
        if u.cls not in ("tank", "infantry"):
            return "9.2", f"{uid} is {u.cls}: only armoured and infantry units make manoeuvre attacks, and a stack " \
                          f"with such a unit makes none"
        if st.marked(rules, "half", uid):
            return "8.6", f"{uid} attacked in the concentrated attack phase (Half Move) and may not make a manoeuvre attack"
        if st.marked(rules, "attacked", uid):
            return "9.2", f"{uid} made a concentrated attack this turn"
        if st.marked(rules, "manoeuvre-attacked", uid):
            return "9.2", f"{uid} has already made a manoeuvre attack in this phase"
    if len({st.hex_of(rules, uid) for uid in units}) != 1:
        return "9.2", "the attackers must be one stack"
    last = rules["ps"]["last_move"]
    if last is not None and last["units"] == uids:
        if not last["may_attack"]:
            return "9.2", "these units may not attack after this move"
        return None
    if last is not None and set(uids) < set(last["units"]):
        left = [u for u in last["units"] if u not in uids]
        barred = [f"{u} ({sc.units[u].cls})" for u in left if sc.units[u].cls not in ("tank", "infantry")]
        if barred:
            return "9.2", (f"the stack that has just moved also holds {', '.join(barred)}, which may not make manoeuvre "
                           f"attacks, and every unit of the attacking stack takes part: this stack may not attack")
        return "9.2", f"every unit of the stack that has just moved takes part in its attack: {', '.join(last['units'])}"
    if any(st.moved(rules, uid) or st.marked(rules, "done", uid) for uid in units):
        return "9.2", "a manoeuvre attack follows at once the move of the stack that makes it"
    if any(st.marked(rules, "no-move", uid) for uid in units):
        return "9.12.1", "these units may not move or attack"
    return None


def _start(sc: Scenario, rules: dict, side: str, kind: str, target: str, defenders: list[str], groups: dict,
           support: list[str], ctx) -> None:
    rules["ps"]["attacks"] += 1
    n = rules["ps"]["attacks"]
    if kind == "concentrated":
        rules["ps"]["attacked_groups"] = sorted(rules["ps"]["attacked_groups"] + [sorted(defenders)])
    rules["ps"]["last_move"] = None
    a = {"n": n, "kind": kind, "att": side, "def": other(side), "target": target, "defenders": defenders,
         "groups": groups, "support": support, "def_support": None, "def_target": None, "def_units": None, "step": "def-artillery",
         "hit": None, "att_retreated": [], "def_route": [], "M": 0, "advanced": [], "invalid": [],
         "fired_groups": [], "def_result": None, "att_result": None}
    rules["attack"] = a
    if kind == "manoeuvre":
        for uids in groups.values():
            for u in uids:
                st.set_moved(rules, u)
                st.mark(rules, "done", u)
                st.mark(rules, "manoeuvre-attacked", u)
    else:
        for uids in groups.values():
            for u in uids:
                st.mark(rules, "attacked", u)
    ctx.event("attack", f"{kind.capitalize()} attack {n} by {side} on {target} ({', '.join(defenders)}): "
              + "; ".join(f"group {h}: {', '.join(g)}" for h, g in groups.items())
              + (f"; supporting artillery {', '.join(support)}" if support else "; no supporting artillery") + ".",
              attack=n, kind=kind, side=side, target=target, defenders=defenders, groups=groups, support=support,
              rule="9.1" if kind == "concentrated" else "9.2")
    run(sc, rules, ctx)


# --- the attack's state machine -------------------------------------------------------------------

MAX_SINGLE_FIRERS = 4  # legal_orders lists single-unit defensive fire up to this many eligible units


def defensive_firers(sc: Scenario, rules: dict, a: dict) -> list[str]:
    """9.4: the defending units that may fire, once each; artillery with a confusion marker may
    not (9.4.2), one with a fired marker may in defence (10.5). Fire is optional: the
    defender's `fire` order may name which of them fire. 10.2: with a battery supporting the
    defence, only the units it may support fire with it."""
    support = a.get("def_support")
    return [u for u in bd.units_in(sc, rules, a["target"], a["def"])
            if not (sc.units[u].cls == "artillery" and st.marked(rules, "confusion", u))
            and (support is None or artillery.serves(sc, support, u))]


def def_support_options(sc: Scenario, rules: dict, a: dict) -> list[str]:
    if a["kind"] == "manoeuvre" and a["def"] != "german":
        return []
    stack = bd.units_in(sc, rules, a["target"], a["def"])
    return artillery.defence_candidates(sc, rules, a["def"], stack, a["target"], a["kind"])


def live_groups(sc: Scenario, rules: dict, a: dict) -> dict[str, list[str]]:
    out = {}
    for h, g in a["groups"].items():
        alive = [u for u in g if st.hex_of(rules, u) == h and u not in a["att_retreated"]]
        if alive:
            out[h] = alive
    return out


def firing_groups(sc: Scenario, rules: dict, a: dict) -> dict[str, list[str]]:
    """Groups still able to fire: 9.4.1 anti-tank guns only with armour or infantry left;
    artillery may fire alone in a concentrated attack (9.4.2)."""
    out = {}
    for h, g in live_groups(sc, rules, a).items():
        has_arm = any(sc.units[u].combat_arm for u in g)
        firers = [u for u in g if has_arm or sc.units[u].cls != "anti-tank"]
        if firers:
            out[h] = firers
    return out


def keep_options(sc: Scenario, rules: dict, a: dict) -> list[list[str]]:
    """10.3 exception: the largest sets of declared artillery that can still be matched one per
    firing group."""
    groups = firing_groups(sc, rules, a)
    arts = [x for x in a["support"] if st.on_map(rules, x)]
    for size in range(min(len(arts), len(groups)), -1, -1):
        sets = [list(c) for c in combinations(arts, size)
                if artillery.matching(sc, rules, list(c), groups, a["target"], a["kind"]) is not None]
        if sets:
            return sets
    return [[]]


def run(sc: Scenario, rules: dict, ctx) -> None:
    """Carry the attack forward until it needs a decision or is over."""
    a = rules["attack"]
    while a is not None:
        if removal.pending(rules) is not None:
            return  # 6.4, 9.10.3: the units over the stacking limit are removed first
        step = a["step"]
        if step == "def-artillery":
            if not def_support_options(sc, rules, a) or not live_groups(sc, rules, a):
                a["step"] = "def-fire"
                continue
            return
        if step == "def-fire":
            if not live_groups(sc, rules, a) or (not defensive_firers(sc, rules, a) and a["def_support"] is None):
                ctx.event("defensive-fire", f"No defensive fire at attack {a['n']}.", attack=a["n"], rule="9.4")
                a["step"] = "invalidate"
                continue
            return
        if step == "def-roll":
            group = live_groups(sc, rules, a).get(a["def_target"], [])
            chosen = a.get("def_units")
            firers = list(chosen) if chosen is not None else defensive_firers(sc, rules, a)
            supports = [a["def_support"]] if a["def_support"] else []
            shifts = tank_shifts(sc, firers, group)
            if any(st.marked(rules, "confusion", u) for u in firers):
                shifts.append({"id": "confusion", "shift": sc.shifts.get("confusion", -1),
                               "rule": "9.7.5", "text": "a defending unit with a confusion marker fires"})
            res, m, s = fire(sc, rules, ctx, kind="defensive", n=a["n"], firers=firers, supports=supports,
                             target_hex=a["def_target"], target=group, shifts=shifts,
                             label=_label(rules, a) + ".defence", side=a["def"])
            for x in supports:  # 10.2: supporting fire in defence is supporting fire; 13.0 shows the marker
                st.mark(rules, "fired", x)
                ctx.event("marker", f"Fired marker on {x}: it gave supporting fire in defence (10.2).", units=[x],
                          marker="fired", rule="10.2")
            a["def_result"] = res
            if m or s:
                a["hit"] = new_hit(sc, a["att"], a["def_target"], group, m, s, _label(rules, a) + ".defence")
                a["step"] = "def-hit"
            else:
                a["step"] = "invalidate"
            continue
        if step == "def-hit":
            if not run_hit(sc, rules, a["hit"], ctx):
                return
            a["att_retreated"] = sorted(set(a["att_retreated"]) | set(a["hit"]["retreaters"]))
            a["hit"] = None
            a["step"] = "invalidate"
            continue
        if step == "invalidate":
            arts = [x for x in a["support"] if st.on_map(rules, x)]
            opts = keep_options(sc, rules, a)
            if opts and len(opts[0]) == len(arts):
                a["step"] = "att-roll"
                continue
            if len(opts) == 1:
                _invalidate(sc, rules, a, sorted(set(arts) - set(opts[0])), ctx)
                continue
            return
        if step == "att-roll":
            groups = firing_groups(sc, rules, a)
            a["fired_groups"] = sorted(groups)
            target = bd.units_in(sc, rules, a["target"], a["def"])
            arts = [x for x in a["support"] if st.on_map(rules, x) and x not in a["invalid"]]
            for x in a["support"] + [u for g in groups.values() for u in g if sc.units[u].cls == "artillery"]:
                if st.on_map(rules, x) and not st.marked(rules, "fired", x):
                    st.mark(rules, "fired", x)
                    ctx.event("marker", f"Fired marker on {x} (9.8).", units=[x], marker="fired", rule="9.8")
            if not groups or not target:
                ctx.event("offensive-fire", f"No offensive fire at attack {a['n']}: "
                          + ("no attacking group is left to fire." if not groups else "no defender is left."),
                          attack=a["n"], rule="9.9")
                a["step"] = "finish"
                continue
            firers = [u for g in groups.values() for u in g]
            shifts = offensive_shifts(sc, rules, a, groups, firers, target)
            res, m, s = fire(sc, rules, ctx, kind="offensive", n=a["n"], firers=firers, supports=arts,
                             target_hex=a["target"], target=target, shifts=shifts,
                             label=_label(rules, a) + ".attack", side=a["att"])
            a["att_result"] = res
            a["M"] = m
            if m or s:
                a["hit"] = new_hit(sc, a["def"], a["target"], target, m, s, _label(rules, a) + ".attack")
                a["step"] = "att-hit"
            else:
                a["step"] = "finish"
            continue
        if step == "att-hit":
            if not run_hit(sc, rules, a["hit"], ctx):
                return
            hit = a["hit"]
            if hit.get("r_started"):
                a["def_route"] = list(hit["path"])
            a["hit"] = None
            left = bd.units_in(sc, rules, a["target"], a["def"])
            if not left and a["M"] > 0 and retreat.eligible(sc, rules, a):
                ctx.event("advance-possible", f"{a['target']} is clear: the attackers may advance up to "
                          f"{counted(a['M'], 'hex', 'hexes')} (9.11).", attack=a["n"], hexes=a["M"], rule="9.11")
                a["step"] = "advance"
            else:
                a["step"] = "finish"
            continue
        if step == "advance":
            if len(retreat.options(sc, rules, a)) <= 1:
                a["step"] = "finish"
                continue
            return
        if step == "finish":
            finish(sc, rules, a, ctx)
            rules["attack"] = None
            return


def _invalidate(sc: Scenario, rules: dict, a: dict, arts: list[str], ctx) -> None:
    a["invalid"] = sorted(arts)
    if arts:
        ctx.event("invalidated", f"Supporting artillery {', '.join(arts)} invalidated: fewer attacking groups can "
                  f"fire than artillery was declared (10.3); it still counts as having fired.",
                  units=arts, chosen_by=ctx.chosen_by, rule="10.3")
    a["step"] = "att-roll"


def finish(sc: Scenario, rules: dict, a: dict, ctx) -> None:
    """8.6, 9.12.1: after a concentrated attack the attackers move at half (Half Move marker)
    and may not make manoeuvre attacks; those that retreated from defensive fire may not move.
    After a manoeuvre attack the stack's movement is over (9.2)."""
    attackers = [u for g in a["groups"].values() for u in g if st.on_map(rules, u)]
    if a["kind"] == "concentrated":
        halved = []
        for u in attackers:
            if u in a["att_retreated"]:
                st.mark(rules, "no-move", u)
                st.mark(rules, "done", u)
            elif sc.units[u].cls != "artillery":
                st.mark(rules, "half", u)
                halved.append(u)
        if halved:
            ctx.event("marker", f"Half Move markers on {', '.join(halved)} (8.6, 9.12.1).", units=halved,
                      marker="half", rule="9.12.1")
        stopped = [u for u in attackers if u in a["att_retreated"]]
        if stopped:
            ctx.event("marker", f"{', '.join(stopped)} retreated from defensive fire and may not move (8.6).",
                      units=stopped, marker="no-move", rule="8.6")
    ctx.event("attack-end", f"Attack {a['n']} on {a['target']} is over: defensive fire {a['def_result'] or 'none'}, "
              f"offensive fire {a['att_result'] or 'none'}.", attack=a["n"], target=a["target"],
              defensive=a["def_result"], offensive=a["att_result"], rule="9.3")


# --- decisions -------------------------------------------------------------------------------------

def awaiting(sc: Scenario, rules: dict) -> tuple[str, str, str, tuple[str, ...], str] | None:
    """(side, kind, prompt, accepts, rule) of the decision the attack waits for."""
    a = rules["attack"]
    if a is None:
        return None
    step = a["step"]
    if step == "def-artillery":
        return (a["def"], "defensive-artillery", f"attack {a['n']} on {a['target']}: declare defensive supporting "
                "artillery (or none)", ("artillery",), "10.3")
    if step == "def-fire":
        return (a["def"], "defensive-fire", f"attack {a['n']} on {a['target']}: choose the attacking group to fire "
                "at (or none)", ("fire",), "9.4")
    if step == "invalidate":
        return (a["att"], "invalidate-artillery", f"attack {a['n']}: choose which supporting artillery to invalidate",
                ("invalidate",), "10.3")
    if step == "advance":
        return (a["att"], "advance", f"attack {a['n']}: advance after combat (up to {counted(a['M'], 'hex', 'hexes')}) or end",
                ("advance", "advance-end"), "9.11")
    hit = a["hit"]
    if hit is None:
        return None
    stage = hit["stage"]
    if stage in ("loss", "extra"):
        return (hit["side"], "loss", f"attack {a['n']}: which unit loses the next strength point",
                ("loss",), "9.8" if stage == "loss" else "9.9.2")
    if stage == "choice":
        return (hit["side"], "morale", f"attack {a['n']}: morale damage {hit['M']}: retreat or take the morale test",
                ("morale",), "9.9")
    if stage == "retreat":
        if retreat.candidates(sc, rules, hit)[0] == "may-stop":
            return (hit["side"], "retreat", f"attack {a['n']}: the retreat has gone {hit['steps']} hex"
                    f"{'es' if hit['steps'] != 1 else ''} (morale damage {hit['M']}): end it here (to: null) or go "
                    "on to a next hex", ("retreat",), "9.10")
        return (hit["side"], "retreat", f"attack {a['n']}: choose the next retreat hex", ("retreat",), "9.10.1")
    return None


def legal(sc: Scenario, rules: dict, kind: str) -> list[dict]:
    if kind == "stack-removal":
        return removal.options(sc, rules)
    a = rules["attack"]
    if kind == "defensive-artillery":
        return [{"type": "artillery", "unit": None}] + [{"type": "artillery", "unit": x} for x in def_support_options(sc, rules, a)]
    if kind == "defensive-fire":
        # 9.4 "fire is optional": none, or at each group with every eligible unit; with 2 to
        # MAX_SINGLE_FIRERS eligible units also each unit alone (any other subset is legal too)
        eligible = defensive_firers(sc, rules, a)
        out = [{"type": "fire", "target": None}]
        for h in live_groups(sc, rules, a):
            out.append({"type": "fire", "target": h})
            if 1 < len(eligible) <= MAX_SINGLE_FIRERS:
                out.extend({"type": "fire", "target": h, "units": [u]} for u in eligible)
        return out
    if kind == "invalidate-artillery":
        arts = [x for x in a["support"] if st.on_map(rules, x)]
        return [{"type": "invalidate", "units": sorted(set(arts) - set(keep))} for keep in keep_options(sc, rules, a)]
    if kind == "advance":
        return retreat.options(sc, rules, a)
    hit = a["hit"]
    if kind == "loss":
        return [{"type": "loss", "unit": u} for u in loss_candidates(sc, rules, hit)]
    if kind == "morale":
        return [{"type": "morale", "choice": "retreat"}, {"type": "morale", "choice": "test"}]
    if kind == "retreat":
        return retreat.retreat_options(sc, rules, hit)
    return []


def answer(sc: Scenario, rules: dict, kind: str, order: dict, ctx) -> None:
    a = rules["attack"]
    by = "standing order" if ctx.chosen_by == "policy" else "player's order"
    if kind == "defensive-artillery":
        unit = order.get("unit")
        opts = def_support_options(sc, rules, a)
        if unit is not None and unit not in opts:
            stack = bd.units_in(sc, rules, a["target"], a["def"])
            # the units it could support (10.2); with none, the whole stack, which names the colour
            served = [u for u in stack if unit in sc.units and artillery.serves(sc, unit, u)] or stack
            rule, why = artillery.why_not_support(sc, rules, unit, served, a["target"],
                                                  a["kind"]) or ("10.2", "it may not support this defence")
            raise IllegalOrder(rule, f"artillery {unit}: {why}", [None] + opts)
        a["def_support"] = unit
        ctx.event("defensive-artillery", f"{a['def']} declares {'supporting artillery ' + unit if unit else 'no supporting artillery'} "
                  f"for attack {a['n']} ({by}).", attack=a["n"], unit=unit, chosen_by=ctx.chosen_by, rule="10.3")
        a["step"] = "def-fire"
    elif kind == "defensive-fire":
        target = order.get("target")
        groups = live_groups(sc, rules, a)
        if target is not None and target not in groups:
            raise IllegalOrder("9.4", f"fire at {target}: the attacking groups are in {', '.join(groups)}",
                               legal(sc, rules, kind))
        firers = _defensive_choice(sc, rules, a, target, order.get("units"), kind)
        a["def_target"] = target
        a["def_units"] = firers
        sup = f" and supporting artillery {a['def_support']}" if target and a["def_support"] else ""
        ctx.event("defensive-target", f"{a['def']} fires at the group in {target} with {', '.join(firers) or 'no unit'}"
                  f"{sup} ({by})." if target else f"{a['def']} does not fire ({by}).", attack=a["n"], target=target,
                  units=firers, chosen_by=ctx.chosen_by, rule="9.4")
        a["step"] = "def-roll" if target else "invalidate"
    elif kind == "invalidate-artillery":
        arts = [x for x in a["support"] if st.on_map(rules, x)]
        wanted = sorted(order.get("units") or [])
        legal_sets = [sorted(set(arts) - set(k)) for k in keep_options(sc, rules, a)]
        if wanted not in legal_sets:
            raise IllegalOrder("10.3", f"invalidate {','.join(wanted)}: legal choices are "
                               + "; ".join(",".join(s) for s in legal_sets), legal_sets)
        _invalidate(sc, rules, a, wanted, ctx)
    elif kind == "advance":
        if order["type"] == "advance-end":
            ctx.event("advance-end", f"{a['att']} ends the advance after attack {a['n']} ({by}).", attack=a["n"],
                      chosen_by=ctx.chosen_by, rule="9.11")
            a["step"] = "finish"
        else:
            retreat.advance(sc, rules, a, order, ctx)
    elif kind == "loss":
        hit = a["hit"]
        cands = loss_candidates(sc, rules, hit)
        if order.get("unit") not in cands:
            raise IllegalOrder("9.8", f"loss on {order.get('unit')}: the next point must come off "
                               f"{' or '.join(cands)}", [{"type": "loss", "unit": u} for u in cands])
        _take(sc, rules, hit, order["unit"], ctx, by)
    elif kind == "morale":
        hit = a["hit"]
        choice = order.get("choice")
        alive = _alive(sc, rules, hit)
        if choice == "test" and not test_allowed(sc, rules, hit):
            raise IllegalOrder("9.9", "morale test: the stack has less strength than the morale damage; it must retreat",
                               [{"type": "morale", "choice": "retreat"}])
        if choice not in ("retreat", "test"):
            raise IllegalOrder("9.9", f"morale: choose retreat or test, not {choice}", None)
        ctx.event("morale-choice", f"{', '.join(alive)}: morale damage {hit['M']}, "
                  f"{'morale test' if choice == 'test' else 'retreat at least ' + str(hit['M']) + ' hex' + ('es' if hit['M'] > 1 else '')} ({by}).",
                  units=alive, choice=choice, forced=False, chosen_by=ctx.chosen_by, rule="9.9")
        if choice == "test":
            hit["stage"] = "test"
        else:
            hit["retreaters"] = alive
            hit["stage"] = "retreat"
    elif kind == "retreat":
        retreat.choose(sc, rules, a["hit"], order, ctx)
    run(sc, rules, ctx)


def _defensive_choice(sc: Scenario, rules: dict, a: dict, target: str | None, units, kind: str) -> list[str]:
    """9.4: the defending units that fire: every eligible one unless the order names some."""
    eligible = defensive_firers(sc, rules, a)
    if target is None:
        if units:
            raise IllegalOrder("9.4", "fire with no target: no unit fires, so name none", legal(sc, rules, kind))
        return []
    if units is None:
        return eligible
    chosen = sorted(units)
    if len(set(chosen)) != len(chosen):
        raise IllegalOrder("9.4", "fire: name each firing unit once", legal(sc, rules, kind))
    bad = [u for u in chosen if u not in eligible]
    if bad:
        support = a.get("def_support")
        if support is not None and all(u in defensive_firers(sc, rules, dict(a, def_support=None)) for u in bad):
            raise IllegalOrder("10.2", f"fire: {', '.join(bad)} may not fire with the supporting artillery {support}, "
                               f"which supports only the group of units firing of its own formation; the units that "
                               f"may are {', '.join(eligible) or 'none'}", legal(sc, rules, kind))
        raise IllegalOrder("9.4", f"fire: {', '.join(bad)} may not fire in defence at attack {a['n']}; the units that "
                           f"may are {', '.join(eligible) or 'none'}", legal(sc, rules, kind))
    if not chosen:
        raise IllegalOrder("9.4", "fire: name at least one firing unit, or fire at null (no defensive fire)",
                           legal(sc, rules, kind))
    return chosen


def policy(sc: Scenario, rules: dict, kind: str, pol: dict) -> dict | None:
    a = rules["attack"]
    if kind == "defensive-artillery":
        p = pol.get("defensive_artillery", "strongest")
        if p == "ask":
            return None
        opts = def_support_options(sc, rules, a)
        if p == "none" or not opts:
            return {"type": "artillery", "unit": None}
        return {"type": "artillery", "unit": sorted(opts, key=lambda x: (-st.strength(sc, rules, x), x))[0]}
    if kind == "defensive-fire":
        p = pol.get("defensive_fire", "strongest-group")
        if p == "ask":
            return None
        groups = live_groups(sc, rules, a)
        if p == "none" or not groups:
            return {"type": "fire", "target": None}
        tank_of = {h: any(sc.units[u].cls == "tank" for u in g) for h, g in groups.items()}
        score = {h: fire_strength(sc, rules, g, [], False)[0] for h, g in groups.items()}
        if p == "weakest-group":
            return {"type": "fire", "target": sorted(groups, key=lambda h: (score[h], h))[0]}
        return {"type": "fire", "target": sorted(groups, key=lambda h: (-score[h], tank_of[h], h))[0]}
    if kind == "invalidate-artillery":
        if pol.get("invalidate", "weakest") == "ask":
            return None
        opts = legal(sc, rules, kind)
        return sorted(opts, key=lambda o: (sum(st.strength(sc, rules, u) for u in o["units"]), o["units"]))[0]
    if kind == "advance":
        p = pol.get("advance", "vacated")
        if p == "ask":
            return None
        if p == "none":
            return {"type": "advance-end"}
        return retreat.policy_advance(sc, rules, a)
    hit = a["hit"]
    if kind == "loss":
        if pol.get("losses", "lowest-morale") == "ask":
            return None
        cands = loss_candidates(sc, rules, hit)
        return {"type": "loss", "unit": sorted(cands, key=lambda u: (sc.units[u].morale, u))[0]}
    if kind == "morale":
        p = pol.get("morale", "test-if-allowed")
        if p == "ask":
            return None
        if p == "retreat" or not test_allowed(sc, rules, hit):
            return {"type": "morale", "choice": "retreat"}
        return {"type": "morale", "choice": "test"}
    if kind == "retreat":
        p = pol.get("retreat", "engine-priority")
        if p == "ask":
            return None
        return retreat.policy_choice(sc, rules, hit, p)
    return None


# --- legal attack declarations (for legal_orders) -------------------------------------------------

def concentrated_options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    ps = rules["ps"]
    enemy = bd.stacks(sc, rules, other(side))
    mine = bd.stacks(sc, rules, side)
    out = []
    for target in sorted(enemy):
        if attacked_before(ps, enemy[target]):
            continue
        groups: dict[str, list[str]] = {}
        for n in sc.neigh[target]:
            for uid in mine.get(n, ()):
                if uid in ps["eligible"] and not st.marked(rules, "attacked", uid) \
                        and not (sc.units[uid].cls == "artillery"
                                 and (st.marked(rules, "fired", uid) or st.marked(rules, "confusion", uid))):
                    groups.setdefault(n, []).append(uid)
        for h in list(groups):
            g = groups[h]
            if not any(sc.units[u].combat_arm for u in g):
                g = [u for u in g if sc.units[u].cls != "anti-tank"]
            if g:
                groups[h] = g
            else:
                del groups[h]
        if not groups:
            continue
        # 9.1: every adjacent group together, each alone, and (from three groups on) every pair:
        # a finite, representative choice (apply takes any legal combination)
        hexes = sorted(groups)
        combos = [dict(groups)] + ([{h: groups[h]} for h in hexes] if len(hexes) > 1 else []) \
            + ([{a: groups[a], b: groups[b]} for a, b in combinations(hexes, 2)] if len(hexes) > 2 else [])
        for combo in combos:
            units = sorted(u for g in combo.values() for u in g)
            out.append({"type": "attack", "target": target, "units": units, "support": []})
            sup = artillery.best_support(sc, rules, side, combo, target, "concentrated")
            if sup:
                out.append({"type": "attack", "target": target, "units": units, "support": sup})
    return out


def manoeuvre_options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    out = []
    stacks_to_try: list[list[str]] = []
    last = rules["ps"]["last_move"]
    if last is not None and last["may_attack"]:
        stacks_to_try.append(last["units"])
    for h, us in bd.stacks(sc, rules, side).items():
        fresh = [u for u in us if not st.moved(rules, u) and not st.marked(rules, "done", u)
                 and sc.units[u].cls in ("tank", "infantry")]
        if fresh:
            stacks_to_try.append(fresh)
    seen = set()
    enemy = bd.occupied(sc, rules, other(side))
    # 9.2: a stack, or any one of its units (not every unit of an attacking stack must take part, 9.1)
    stacks_to_try += [[u] for us in list(stacks_to_try) if len(us) > 1 for u in us]
    for uids in stacks_to_try:
        key = tuple(uids)
        h = st.hex_of(rules, uids[0]) if uids else None
        # a stack next to no enemy has no target (and one off the map is blocked): skip the checks
        if key in seen or h is None or not any(n in enemy for n in sc.neigh[h]) \
                or manoeuvre_block(sc, rules, side, uids):
            continue
        seen.add(key)
        for target in sc.neigh[h]:
            if target in enemy:
                out.append({"type": "attack", "target": target, "units": uids, "support": []})
                sup = artillery.best_support(sc, rules, side, {h: uids}, target, "manoeuvre")
                if sup:
                    out.append({"type": "attack", "target": target, "units": uids, "support": sup})
    return out
