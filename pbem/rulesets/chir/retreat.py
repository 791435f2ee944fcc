"""Retreat (9.10) and advance after combat (9.11)."""

from __future__ import annotations

from pbem.core.text import agreeing, counted

from ..base import IllegalOrder
from . import board as bd
from . import removal
from . import state as st
from .scenario import Scenario, other


def eliminate(sc: Scenario, rules: dict, uid: str, ctx, why: str, rule: str) -> None:
    ctx.event("eliminated", f"{uid} is eliminated ({why}).", unit=uid, hex=st.hex_of(rules, uid), rule=rule)
    st.remove(rules, uid, "gone")


def lose(sc: Scenario, rules: dict, uid: str, points: int, ctx, why: str, rule: str) -> None:
    """9.9.3: strength points come off one by one; at 0 the unit is removed."""
    before = st.strength(sc, rules, uid)
    taken = min(points, before)
    left = before - taken
    st.set_strength(sc, rules, uid, left)
    ctx.event("loss", f"{uid} loses {taken} strength ({why}): {left} left.", unit=uid, points=taken,
              left=left, rule=rule)
    if left <= 0:
        eliminate(sc, rules, uid, ctx, "strength 0", "9.9.3")


# --- 9.10 retreat ---------------------------------------------------------------------------------

def start(sc: Scenario, rules: dict, hit: dict, ctx) -> None:
    """Begin a retreat: 9.10.4 anti-tank and artillery units already confused are removed;
    every retreating unit gets a confusion marker (9.10, 7.1)."""
    for uid in sorted(hit["retreaters"]):
        if not st.on_map(rules, uid):
            continue
        if sc.units[uid].cls in ("anti-tank", "artillery") and st.marked(rules, "confusion", uid):
            eliminate(sc, rules, uid, ctx, "anti-tank or artillery unit with a confusion marker must retreat", "9.10.4")
            continue
        st.mark(rules, "confusion", uid)
    hit["r_started"] = True
    hit["at"] = hit["hex"]
    hit["path"] = [hit["hex"]]
    hit["steps"] = 0
    hit["r_losses"] = []
    alive = _alive(sc, rules, hit)
    if alive:
        ctx.event("marker", f"Confusion markers on {', '.join(alive)} (9.10).", units=alive, marker="confusion",
                  rule="9.10")


def _alive(sc: Scenario, rules: dict, hit: dict) -> list[str]:
    return [u for u in sorted(hit["retreaters"]) if st.on_map(rules, u)]


def candidates(sc: Scenario, rules: dict, hit: dict) -> tuple[str, list[str]]:
    """What the retreat may do at its current hex, and the hexes tied at the best 9.10.1
    priority (not in an EZOC, then within stacking, then towards the own rear) for a next step:
    ('step', hexes) it must go on; ('may-stop', hexes) it has gone the morale damage or more
    and may end here, or go on (9.10: "equal to or greater"); ('stop', []) it ends here, with
    no hex to go on to but into an EZOC (9.10.2); ('none', []) it must go on and cannot."""
    side = hit["side"]
    alive = _alive(sc, rules, hit)
    cur = hit["at"]
    zone, _ = bd.ezoc(sc, rules, side)
    friends = bd.stacks(sc, rules, side)

    def fits(h: str) -> bool:  # board.fits with the stacks at hand
        return bd.stacking_ok(sc, [u for u in friends.get(h, ()) if u not in alive] + alive)

    may_stop = hit["steps"] >= hit["M"] and cur not in zone and fits(cur)
    enemy = bd.occupied(sc, rules, other(side))
    opts = [n for n in sc.neigh[cur] if n not in enemy and n not in hit["path"] and sc.crossable(cur, n)]
    if not opts:
        return ("stop" if may_stop else "none"), []
    keyed = sorted((n in zone, not fits(n), not sc.rearward(side, cur, n), n) for n in opts)
    best = keyed[0][:3]
    if may_stop and best[0]:
        # 9.10.2: into an EZOC "only when no other retreat options are available", and ending
        # the retreat here is one
        return "stop", []
    return ("may-stop" if may_stop else "step"), [k[3] for k in keyed if k[:3] == best]


def retreat_options(sc: Scenario, rules: dict, hit: dict) -> list[dict]:
    """The retreat decision's legal answers: end here (`to: null`) where the retreat may end,
    and each of the tied next hexes (9.10, 9.10.1). A `path` answer strings such steps."""
    kind, hexes = candidates(sc, rules, hit)
    return ([{"type": "retreat", "to": None}] if kind == "may-stop" else []) \
        + [{"type": "retreat", "to": h} for h in hexes]


def step(sc: Scenario, rules: dict, hit: dict, to: str, ctx, chosen: str) -> None:
    """Retreat one hex: 9.10.2 each unit entering an EZOC hex loses 1 (2 in a tank ZOC,
    unless it is itself a tank)."""
    side = hit["side"]
    alive = _alive(sc, rules, hit)
    zone, tank_zone = bd.ezoc(sc, rules, side)
    for uid in alive:
        st.put(rules, uid, to)
    bd.enter(sc, rules, to, side)
    hit["path"].append(to)
    hit["steps"] += 1
    hit["at"] = to
    ctx.event("retreat-step", f"{', '.join(alive)} {agreeing(alive, 'retreats', 'retreat')} to {to}"
              + (f" ({chosen})" if chosen else "") + ".",
              units=alive, to=to, step=hit["steps"], ezoc=to in zone, chosen_by=chosen or "rule", rule="9.10.1")
    if to in zone:
        for uid in alive:
            pts = 2 if to in tank_zone and sc.units[uid].cls != "tank" else 1
            hit["r_losses"].append({"unit": uid, "hex": to, "points": pts})
            lose(sc, rules, uid, pts, ctx, f"retreat into the enemy {'tank ' if pts == 2 else ''}zone of control in {to}",
                 "9.10.2")


def finish(sc: Scenario, rules: dict, hit: dict, ctx, blocked: bool) -> None:
    """The retreat's account; where it is blocked, said before the units it eliminates are (a
    players' probe: "119/a is eliminated (no hex to retreat to)", then "119/a retreats 3309.")."""
    alive = _alive(sc, rules, hit)
    units = sorted(hit["retreaters"])
    beyond = hit["steps"] - hit["M"] if alive and not blocked and hit["steps"] > hit["M"] else 0
    if blocked and hit["steps"] == 0:
        went = f"{agreeing(units, 'finds', 'find')} no hex to retreat to from {hit['path'][0]}"
    else:
        went = (f"{agreeing(units, 'retreats', 'retreat')} {' -> '.join(hit['path'])}"
                + (" and can go no farther" if blocked else ""))
    ctx.event("retreat", f"{', '.join(units)} {went}"
              + (f" ({counted(hit['steps'], 'hex', 'hexes')} for morale damage {hit['M']})" if beyond else "")
              + ("; EZOC losses: " + ", ".join(f"{x['unit']} -{x['points']} in {x['hex']}" for x in hit["r_losses"])
                 if hit["r_losses"] else "") + ".",
              units=units, path=list(hit["path"]), hexes=hit["steps"], losses=hit["r_losses"],
              survivors=[] if blocked else alive, rule="9.10")
    if blocked:
        for uid in alive:
            eliminate(sc, rules, uid, ctx, "no hex to retreat to", "9.10")


def run(sc: Scenario, rules: dict, hit: dict, ctx) -> bool:
    """Advance the retreat; True when it is over, False when the owner must choose a hex."""
    if not hit.get("r_started"):
        start(sc, rules, hit, ctx)
    while True:
        if not _alive(sc, rules, hit):
            finish(sc, rules, hit, ctx, False)
            return True
        kind, hexes = candidates(sc, rules, hit)
        if kind == "stop" or (kind == "may-stop" and hit.get("stop")):
            finish(sc, rules, hit, ctx, False)
            return True
        if kind == "may-stop":
            return False  # 9.10: the owner may end the retreat here or go farther
        if kind == "none":
            cur = hit["at"]
            zone, _ = bd.ezoc(sc, rules, hit["side"])
            if hit["steps"] >= hit["M"] and cur not in zone:
                # 9.10.3: no hex left within the stacking limit: the owner removes retreated
                # units to comply (decision stack-removal), then the retreat ends here
                alive = _alive(sc, rules, hit)
                removal.require(sc, rules, cur, hit["side"], alive, "9.10.3", f"the retreat of {', '.join(alive)}", ctx)
                return False
            finish(sc, rules, hit, ctx, True)
            return True
        if len(hexes) > 1:
            return False
        step(sc, rules, hit, hexes[0], ctx, "")


def choose(sc: Scenario, rules: dict, hit: dict, order: dict, ctx) -> None:
    """The owner's answer: the next hex (`to`), the end of the retreat (`to: null`, once it has
    gone the morale damage and may end, 9.10), or several steps at once (`path`), after which
    the retreat ends if it may (and otherwise goes on as usual)."""
    by = "standing order" if ctx.chosen_by == "policy" else "owner's choice"
    if "path" in order:
        path = list(order.get("path") or [])
        if not path:
            raise IllegalOrder("9.10", "retreat: give the hexes of the path", retreat_options(sc, rules, hit))
        for i, to in enumerate(path):
            if not _alive(sc, rules, hit):
                break
            kind, hexes = candidates(sc, rules, hit)
            if kind not in ("step", "may-stop") or to not in hexes:
                raise IllegalOrder("9.10.1", f"retreat path {' '.join(path)}: hex {i + 1} ({to}) must be "
                                   f"{' or '.join(hexes) or 'none: the retreat cannot go on'} (priority: outside enemy "
                                   f"ZOC, within stacking, towards the own rear)", retreat_options(sc, rules, hit))
            step(sc, rules, hit, to, ctx, by)
        if _alive(sc, rules, hit) and candidates(sc, rules, hit)[0] == "may-stop":
            hit["stop"] = True
        return
    to = order.get("to")
    kind, hexes = candidates(sc, rules, hit)
    if to is None:
        if kind != "may-stop":
            zone, _ = bd.ezoc(sc, rules, hit["side"])
            rule, why = (("9.10", f"they have gone {hit['steps']} of the {counted(hit['M'], 'hex', 'hexes')} of the morale damage")
                         if hit["steps"] < hit["M"] else ("9.10.2", "it is in an enemy zone of control")
                         if hit["at"] in zone else ("9.10.3", "it is over the stacking limit"))
            raise IllegalOrder(rule, f"retreat: the units may not end the retreat in {hit['at']}: {why}",
                               retreat_options(sc, rules, hit))
        hit["stop"] = True
        return
    if kind not in ("step", "may-stop") or to not in hexes:
        raise IllegalOrder("9.10.1", f"retreat to {to}: the retreat may go only to "
                           f"{', '.join(hexes) or 'nowhere'} (priority: outside enemy ZOC, within stacking, "
                           f"towards the own rear)", retreat_options(sc, rules, hit))
    step(sc, rules, hit, to, ctx, by)


def policy_choice(sc: Scenario, rules: dict, hit: dict, policy: str) -> dict:
    """engine-priority: of the tied hexes, the one whose way on enters the fewest enemy zones of
    control before the retreat may end (looking ahead), then the farthest back, then the lowest
    id; end the retreat as soon as it may. break-contact: the same, but where the retreat may end
    next to an enemy unit it goes on while a next hex lies outside enemy ZOC and within the
    stacking limit."""
    kind, hexes = candidates(sc, rules, hit)
    sign = -1 if hit["side"] == "german" else 1
    zone, _ = bd.ezoc(sc, rules, hit["side"])
    ahead = {h: _zones_ahead(sc, rules, hit, h, zone, LOOK_AHEAD) for h in hexes} if len(hexes) > 1 else {}
    best = sorted(hexes, key=lambda h: (ahead.get(h, 0), -sign * sc.offset(h)[0], -sign * sc.offset(h)[1], h))
    if kind == "may-stop":
        safe = [h for h in best if h not in zone and bd.fits(sc, rules, h, _alive(sc, rules, hit))]
        if policy != "break-contact" or not safe or not bd.adjacent_enemy(sc, rules, hit["at"], hit["side"]):
            return {"type": "retreat", "to": None}
        return {"type": "retreat", "to": safe[0]}
    return {"type": "retreat", "to": best[0]}


LOOK_AHEAD = 6          # hexes a standing order looks ahead along a retreat (policy_choice)
NO_WAY = 1_000          # the cost of a way on that is blocked, or longer than the look-ahead


def _zones_ahead(sc: Scenario, rules: dict, hit: dict, to: str, zone: set, depth: int) -> int:
    """The fewest enemy ZOC hexes the retreat enters from stepping into `to` until it may end,
    each step among the hexes 9.10.1 leaves it (NO_WAY if every way is blocked, or runs past
    `depth` hexes): what a player would count before choosing among tied hexes, so that a
    standing order does not walk a unit into zones of control it could have kept out of."""
    on = dict(hit, at=to, path=hit["path"] + [to], steps=hit["steps"] + 1)
    here = 1 if to in zone else 0
    kind, hexes = candidates(sc, rules, on)
    if kind in ("stop", "may-stop"):
        return here
    if kind == "none" or depth <= 1:
        return NO_WAY
    return here + min(_zones_ahead(sc, rules, on, h, zone, depth - 1) for h in hexes)


# --- 9.11 advance after combat --------------------------------------------------------------------

def eligible(sc: Scenario, rules: dict, a: dict) -> list[str]:
    """Attacking units that may still advance: not anti-tank or artillery (9.11), alive and in
    the hex they attacked from, not retreated, not yet advanced."""
    out = []
    for h, group in sorted(a["groups"].items()):
        if h not in a.get("fired_groups", []):
            continue
        for uid in group:
            if st.hex_of(rules, uid) == h and sc.units[uid].cls in ("tank", "infantry") \
                    and uid not in a["att_retreated"] and uid not in a["advanced"]:
                out.append(uid)
    return out


def _ground(sc: Scenario, rules: dict, a: dict) -> tuple[frozenset[str], set[str], set[str]]:
    """What an advance's path is checked against (9.11): the enemy zone of control, the
    defenders' retreat route and the hexes holding enemy units."""
    zone, _ = bd.ezoc(sc, rules, a["att"])
    return zone, set(a.get("def_route", [])), bd.occupied(sc, rules, other(a["att"]))


def check_path(sc: Scenario, rules: dict, a: dict, uids: list[str], path: list[str]) -> tuple[str, str] | None:
    """None if the advance along `path` is legal, else (rule, reason)."""
    return _path_fault(sc, a, st.hex_of(rules, uids[0]), path, _ground(sc, rules, a))


def _path_fault(sc: Scenario, a: dict, cur: str, path: list[str],
                ground: tuple[frozenset[str], set[str], set[str]]) -> tuple[str, str] | None:
    """`check_path` of units in hex `cur`, on the `_ground` of the rules as they stand."""
    if not path or len(path) > a["M"]:
        return "9.11", "an advance is of 1 hex" if a["M"] == 1 else f"an advance is 1 to {a['M']} hexes"
    zone, route, enemy = ground
    for i, h in enumerate(path):
        if h not in sc:
            return "9.11", f"there is no hex {h}"
        if not sc.adjacent(cur, h):
            return "9.11", f"{cur} and {h} are not adjacent"
        if h in enemy:
            return "9.11", f"{h} holds enemy units"
        if not sc.crossable(cur, h) and not (i == 0 and h == a["target"]):
            return "9.11.1", f"no advance across the river between {cur} and {h} without a bridge"
        if i < len(path) - 1 and h in zone and h not in route:
            return "9.11.2", f"{h} is in an enemy zone of control off the defenders' retreat route: the advance stops there"
        cur = h
    return None


def options(sc: Scenario, rules: dict, a: dict) -> list[dict]:
    """The legal advances (9.11): for the attackers of each hex, all together and (of two or
    more) each alone, one shortest legal path to each hex they may end in. The rules stand
    still meanwhile, so the zones, the enemy and the friendly stacks that the paths are
    checked against are read once."""
    elig = eligible(sc, rules, a)
    by_hex: dict[str, list[str]] = {}
    for u in elig:
        by_hex.setdefault(st.hex_of(rules, u), []).append(u)
    ground = _ground(sc, rules, a)
    zone, route, _ = ground
    friends = bd.stacks(sc, rules, a["att"])
    out = []
    for h, us in sorted(by_hex.items()):
        sets = [us] + ([[u] for u in us] if len(us) > 1 else [])
        for group in sets:
            seen = {h}
            frontier: list[list[str]] = [[]]
            for _ in range(a["M"]):
                nxt = []
                for p in frontier:
                    cur = p[-1] if p else h
                    for n in sc.neigh[cur]:
                        if n in seen:
                            continue
                        cand = p + [n]
                        if _path_fault(sc, a, h, cand, ground) is None:
                            if bd.fits_among(sc, friends.get(n, []), group):
                                out.append({"type": "advance", "units": group, "path": cand})
                            seen.add(n)
                            if not (n in zone and n not in route):
                                nxt.append(cand)
                frontier = nxt
    return out + [{"type": "advance-end"}]


def advance(sc: Scenario, rules: dict, a: dict, order: dict, ctx) -> None:
    uids = sorted(order.get("units") or [])
    path = list(order.get("path") or [])
    elig = eligible(sc, rules, a)
    bad = [u for u in uids if u not in elig]
    if not uids or bad:
        raise IllegalOrder("9.11", f"advance: {', '.join(bad) or 'no unit'} may not advance "
                           f"(only attacking armoured and infantry units that have not yet advanced)", elig)
    if len({st.hex_of(rules, u) for u in uids}) != 1:
        raise IllegalOrder("9.11", "advance: units advancing together must start in the same hex", elig)
    why = check_path(sc, rules, a, uids, path)
    if why:
        raise IllegalOrder(why[0], f"advance {','.join(uids)}: {why[1]}", None)
    start = st.hex_of(rules, uids[0])
    for h in path:
        bd.enter(sc, rules, h, a["att"])
    for u in uids:
        st.put(rules, u, path[-1])
        if a["kind"] == "manoeuvre":
            # 9.11: its facing turns, "its movement has been completed" (8.1): a manoeuvre attack
            # ends the stack's move. After a concentrated attack the advancing units move at half
            # in the Movement Phase that follows, as 9.12.1 and the example of play (13.0) have it
            st.mark(rules, "done", u)
    a["advanced"] = sorted(a["advanced"] + uids)
    ctx.event("advance", f"{', '.join(uids)} {agreeing(uids, 'advances', 'advance')} {' -> '.join([start] + path)}"
              f" ({'standing order' if ctx.chosen_by == 'policy' else 'attacker’s choice'}).",
              units=uids, path=[start] + path, chosen_by=ctx.chosen_by, rule="9.11")
    # 6.4, 9.11: an advance may end over the stacking limit; the attacker then removes units
    end = path[-1]
    removal.require(sc, rules, end, a["att"], bd.units_in(sc, rules, end, a["att"]), "6.4",
                    f"the advance after combat of {', '.join(uids)}", ctx)


def advance_cautions(sc: Scenario, rules: dict, side: str, queued: list[dict], policies: dict) -> list[str]:
    """Queued orders of `side` that name units of an attack of its before them which may
    advance after combat (tank and infantry units, 9.11), where its standing order advances
    (`advance: vacated`) and no order of the packet answers an advance itself: should the
    attack clear the defender's hex, such a unit may advance into it first, and the order,
    written for where the unit stands now, may then be void (a stack moves from one hex, 6.5;
    a path begins beside the hex the unit stands in, 8.1). Orders are written before their dice
    (a players' probe: a move of two units of an attack, one of which advanced, was void with
    the rest of the movement phase, and the dry run's imagined roll had not cleared the hex)."""
    if policies.get("advance") != "vacated":
        return []
    if any(isinstance(item["order"], dict) and item["order"].get("type") in ("advance", "advance-end")
           for item in queued):
        return []   # the packet answers an advance itself: which, the standing order does not decide
    attacks: list[tuple[str, str, set[str]]] = []     # (which attack, its target, its units that may advance)

    def may_advance(units: list) -> set[str]:
        return {u for u in units if isinstance(u, str) and u in sc.units and sc.units[u].cls in ("tank", "infantry")}

    a = rules.get("attack")
    if a is not None and a["att"] == side and not a["advanced"]:
        attacks.append((f"attack {a['n']}", a["target"], may_advance([u for group in a["groups"].values() for u in group])))
    out = []
    for item in queued:
        order = item["order"]
        units = order.get("units") if isinstance(order, dict) and isinstance(order.get("units"), list) else []
        for label, target, movers in attacks:
            named = [u for u in units if u in movers]
            if named:
                them, stand = agreeing(named, "it", "them"), agreeing(named, "it stands", "they stand")
                out.append(f"order {item['index']} of packet {item['seq']} ({order.get('type')}) names "
                           f"{', '.join(named)}, of {label} on {target}: should that attack clear {target}, your "
                           f"standing order `advance: vacated` may advance {them} there first (9.11), and the order, "
                           f"written for where {stand} now, may then be void; `advance: none` (or `ask`) under "
                           f"policies keeps {them} where {stand}")
                break
        if isinstance(order, dict) and order.get("type") == "attack" and isinstance(order.get("target"), str):
            attacks.append((f"the attack of order {item['index']}", order["target"], may_advance(units)))
    return out


def policy_advance(sc: Scenario, rules: dict, a: dict) -> dict:
    """vacated: the first group (or else unit) that fits advances into the defender's hex."""
    target = a["target"]
    if bd.units_in(sc, rules, target, a["att"]) or bd.side_in(sc, rules, target) == other(a["att"]):
        return {"type": "advance-end"}
    for opt in options(sc, rules, a):
        if opt["type"] == "advance" and opt["path"] == [target]:
            return opt
    return {"type": "advance-end"}
