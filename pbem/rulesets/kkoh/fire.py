"""Direct Fire (K-DF-1 to K-DF-10, K-GM-8 to K-GM-10, K-BAS-2/3, K-REC-2, K-DOC-3).

Both sides plan their fire at once (sealed where both can fire: flow.py), one order per firing
unit naming its target; then every die is rolled before any result is applied (K-DF-5). A
unit fires through the edge it faces: into the square ahead, or, at most one unit per
diagonal per faced edge, into a front diagonal (K-GM-8); heavy ATGW also into the three
squares beyond (K-DF-1). Only the front rank fires, and in a battle group one unit of the
second rank per edge (K-GM-9, K-DF-3). Targets are the nearest rank of the enemy by the
priorities of K-GM-10; fire is spread as evenly as possible over them (K-DF-5), judged over the
whole plan once it is complete (`end`, or the opening of a sealed plan), never shot by shot, so
that the order in which shots are listed changes nothing (`uneven`). Through each
face of a steep ridge, wood or built-up square one vehicle unit of a side fires, out of it or
into it (K-TER-5, K-TER-6, K-TER-7).
"""

from __future__ import annotations

from pbem.core.geometry import squaregrid as sg
from pbem.core.text import did_you_mean

from ..base import IllegalOrder
from . import layout
from .common import lose
from .scenario import CLASS_RANK, INSIDE, Feature, Scenario, other
from .state import Board, mark

# a Direct Fire result in words (K-DF-7), as the report and the picture say it
FIRE_WORDS = {"loss": "a loss and Give Ground", "give-ground": "Give Ground", "none": "no effect"}
# a shot's modifiers in the words of the Direct Fire table (K-DF-6; a players' probe: "firer m -1",
# "target m +1" left M unexplained)
MODIFIER_WORDS = {"firer_losses": "firer with losses", "heavy_atgw_long_range": "heavy ATGW at long range",
                  "class": "gun class against target class", "firer_ir": "firer with IR", "target_ia": "target with IA",
                  "target_m": "target on M orders", "firer_m": "firer on M orders",
                  "target_pd_or_cover": "target on PD orders or in cover", "target_fd": "target on FD orders",
                  "rear": "rear shot", "vulnerable": "vulnerable target"}


def plan(rules: dict, side: str) -> list[dict]:
    """A side's fire plan so far (read only: never creates it)."""
    return rules["plans"].get("fire", {}).get(side, [])


def firer_block(sc: Scenario, board: Board, pid: str) -> str | None:
    """Why a unit may not fire at all now, or None (K-DF-3, K-DF-4, K-GM-9)."""
    rules = board.rules
    prof = board.profile(pid)
    if prof.df is None:
        return f"{pid} has no Direct Fire weapon (K-INF-1, K-ART-4, K-ART-7)"
    ps = rules["ps"]
    if pid in ps["fired"] or pid in ps["ifired"] or pid in ps["gg"] or pid in ps["evaded"]:
        return f"{pid} has fired, given ground or bombarded in this Action Phase (K-DF-4, K-DF-5)"
    rec = rules["pieces"][pid]
    rank = INSIDE.rank(rec["f"], rec["cell"])
    if rank == 1:
        return None
    if rank == 2 and rec.get("g"):
        front = INSIDE.in_front(rec["f"], rec["cell"])
        ahead = [p for p in board.at(rec["sq"]) if rules["pieces"][p]["cell"] == front]
        if ahead and rules["pieces"][ahead[0]].get("g") == rec["g"]:
            return None
    return (f"{pid} is not in the front rank facing {rec['f']} (only the front rank fires, and one second-rank unit of a "
            f"battle group per edge, K-GM-9, K-DF-3)")


def arc(sc: Scenario, board: Board, pid: str) -> list[tuple[str, int, int]]:
    """The squares the unit may fire into: (square, ahead, right) (K-DF-1, K-GM-8, K-INT-3);
    remembered in the scenario by square, facing and range (the table never changes)."""
    rec = board.piece(pid)
    reach = sc.range_df(board.profile(pid).heavy_atgw)
    key = ("arc", rec["sq"], rec["f"], reach)
    found = sc.memo.get(key)
    if found is None:
        out = []
        for ahead in range(1, reach + 1):
            for right in (0, -1, 1):
                square = sc.grid.from_relative(rec["sq"], rec["f"], ahead, right)
                if square is not None:
                    out.append((square, ahead, right))
        found = sc.memo[key] = tuple(out)
    return list(found)


def line_block(sc: Scenario, board: Board, origin: str, target: str, ahead: int, right: int) -> str | None:
    """K-DF-2 (L75: "Diagonal Fire may not pass between the corners of occupied squares or beyond
    a square that contains an area terrain feature when firing at more than one squares range"):
    a diagonal shot may not pass between the corners of two occupied squares, nor, beyond one
    square, past any of L23's "Area features" (K-TER-1). A shot straight ahead beyond one square
    is stopped only by the features that block line of sight (K-TER-4..7): marsh, light woods
    and impassable squares do not."""
    squares, corners = sc.grid.crossed(origin, target)
    if right:
        for a, b in corners:
            if a in sc.grid and b in sc.grid and board.occupied_by(a) and board.occupied_by(b):
                return f"the shot would pass between the corners of occupied {a} and {b} (K-DF-2)"
    if ahead > 1:
        for s in squares:
            feature = sc.area[s] if s in sc.grid else None
            if feature is None or feature.name == "open":
                continue
            if feature.sight:
                return f"{s} ({feature.name}) blocks the line of sight (K-DF-2, K-TER-4)"
            if right:
                return (f"{s} ({feature.name}) is an area terrain feature, which no diagonal shot beyond one square "
                        f"passes (K-DF-2, K-TER-1)")
    return None


def _meant(sc: Scenario, rules: dict, ident: object, side: str) -> str:
    """The unit of `side` on the table that `ident` most likely meant, as a hint, or nothing
    (a new user's probe: `target: R-Recl` got no hint, as dos's orders give)."""
    return did_you_mean(sorted(p for p in rules["pieces"] if sc.pieces[p].side == side), ident)


def check_fire(sc: Scenario, rules: dict, side: str, order: dict) -> dict:
    """Check one fire order against the plan so far; return the shot to add."""
    board = Board(sc, rules)
    pid, target = order.get("unit"), order.get("target")
    if pid not in rules["pieces"] or sc.pieces[pid].side != side:
        raise IllegalOrder("K-DF-3", f"fire: {pid!r} is not a unit of {side} on the table"
                           + _meant(sc, rules, pid, side), None)
    shots = plan(rules, side)
    if any(s["unit"] == pid for s in shots):
        raise IllegalOrder("K-DF-5", f"fire: {pid} already has its target this Action Phase", None)
    why = firer_block(sc, board, pid)
    if why:
        raise IllegalOrder("K-DF-3", f"fire: {why}", None)
    if target not in rules["pieces"] or sc.pieces[target].side != other(side):
        raise IllegalOrder("K-DF-1", f"fire: {target!r} is not an enemy unit on the table"
                           + _meant(sc, rules, target, other(side)), None)
    rec = rules["pieces"][pid]
    square = rules["pieces"][target]["sq"]
    found = [(s, a, r) for s, a, r in arc(sc, board, pid) if s == square]
    if not found:
        raise IllegalOrder("K-DF-1", f"fire: {target} in {square} is not in {pid}'s arc of fire from {rec['sq']} facing "
                           f"{rec['f']} (K-DF-1, K-GM-8)", None)
    _, ahead, right = found[0]
    why = line_block(sc, board, rec["sq"], square, ahead, right)
    if why:
        raise IllegalOrder("K-DF-2", f"fire: {why}", None)
    edge = (rec["sq"], rec["f"])
    mine = [s for s in shots if (s["from"], s["edge"]) == edge]
    if right and any(s["right"] == right for s in mine):
        raise IllegalOrder("K-GM-8", f"fire: one unit only fires into each front diagonal through an edge "
                           f"({rec['sq']} {rec['f']})", None)
    if INSIDE.rank(rec["f"], rec["cell"]) == 2 and any(s["rank"] == 2 for s in mine):
        raise IllegalOrder("K-GM-9", f"fire: one second-rank unit only fires through an edge ({rec['sq']} {rec['f']})", None)
    vehicle = board.profile(pid).vehicle
    if vehicle and layout.road_square(sc, rec["sq"]) and any(s["vehicle"] for s in mine):
        raise IllegalOrder("K-TER-5", f"fire: from {rec['sq']} ({sc.area[rec['sq']].name}) one vehicle unit only fires "
                           f"through each face", None)
    # K-TER-5 (K-TER-6/7 "otherwise as steep ridges"; README reading "from or into"): one vehicle
    # unit of a side also fires INTO such a square through each of its faces. A shot leaves
    # through the firer's faced edge (K-GM-8), so it enters through the target square's face
    # opposite that edge (a front diagonal shot included: it enters by a corner of that face)
    if vehicle and layout.road_square(sc, square):
        into = [s for s in shots if s["vehicle"] and s["sq"] == square and s["edge"] == rec["f"]]
        if into:
            raise IllegalOrder("K-TER-5", f"fire: into {square} ({sc.area[square].name}) one vehicle unit of a side only "
                               f"fires through each face: {pid} would fire through its {sg.opposite(rec['f'])} face, as "
                               f"{into[0]['unit']} does (K-TER-5)", None)
    targets, how = layout.fire_targets(sc, board, square, rec["sq"], other(side), set(rules["ps"]["gg"]))
    if board.profile(pid).mortar:
        targets = [t for t in targets if not board.profile(t).vehicle]
    if target not in targets:
        raise IllegalOrder("K-GM-10", f"fire: from {rec['sq']} into {square} only {', '.join(targets) or 'no unit'} may "
                           f"be fired at (the nearest rank: facing units, else flank, else rear; mortars not at vehicles, "
                           f"K-GM-10, K-DF-4)", None)
    # K-DF-5, the spread: judged over the whole plan when it is complete (even_out), not here
    return {"unit": pid, "target": target, "sq": square, "from": rec["sq"], "edge": rec["f"], "ahead": ahead,
            "right": right, "rank": INSIDE.rank(rec["f"], rec["cell"]), "vehicle": vehicle}


def eligible(sc: Scenario, board: Board, shot: dict) -> list[str]:
    """The targets the shot's firer may fire at in the square it fires into: the nearest rank
    by K-GM-10, none that has Given Ground (K-DF-8), mortars not at vehicles (K-DF-4); the
    shot's own target is one of them (check_fire)."""
    targets, _ = layout.fire_targets(sc, board, shot["sq"], shot["from"], sc.pieces[shot["target"]].side,
                                     set(board.rules["ps"]["gg"]))
    if board.profile(shot["unit"]).mortar:
        targets = [t for t in targets if not board.profile(t).vehicle]
    return targets


def _times(n: int) -> str:
    return {0: "not at all", 1: "once", 2: "twice"}.get(n, f"{n} times")


def uneven(sc: Scenario, board: Board, shots: list[dict], sets: list[list[str]] | None = None) -> dict | None:
    """K-DF-5: fire "must be spread as evenly as possible, as per the firers' choice, amongst the
    eligible targets, before firing dice are rolled". A plan is as even as possible when no
    shifting of fire along its shots (a firer moves to another target it may fire at, whose
    firer moves on, ...) takes a shot from a target fired at `n` times to one fired at `n - 2`
    or fewer: the plans no such shift improves are exactly the evenest ones (each target's share
    cannot be levelled further). None for such a plan; else what is wrong with it: the target
    fired at most (`over`), the one left short (`left`), their shots (`counts`), and the index
    in `shots` of the shot at `over` the shift starts from (`shot`: the last listed that can),
    the firers the shift passes through (`path`). Which targets are named does not depend on
    the order in which the shots are listed."""
    if sets is None:
        sets = [eligible(sc, board, s) for s in shots]
    load: dict[str, int] = {}
    for targets in sets:
        for t in targets:
            load.setdefault(t, 0)
    at: dict[str, list[int]] = {}
    for i, s in enumerate(shots):
        load[s["target"]] = load.get(s["target"], 0) + 1
        at.setdefault(s["target"], []).append(i)
    for t in sorted(load, key=lambda x: (-load[x], x)):
        if load[t] < 2:
            break
        parent: dict[str, tuple[str, int] | None] = {t: None}
        queue = [t]
        while queue:
            x = queue.pop(0)
            for i in reversed(at.get(x, [])):
                for y in sets[i]:
                    if y not in parent:
                        parent[y] = (x, i)
                        queue.append(y)
        low = [u for u in parent if load[u] <= load[t] - 2]
        if low:
            u = min(low, key=lambda x: (load[x], x))
            path, here = [], u
            while parent[here] is not None:
                here, i = parent[here]
                path.insert(0, shots[i]["unit"])
                first = i
            return {"over": t, "left": u, "counts": {t: load[t], u: load[u]}, "shot": first, "path": path}
    return None


def uneven_words(found: dict) -> str:
    """The refusal of an uneven plan, in one sentence (K-DF-5)."""
    over, left, path = found["over"], found["left"], found["path"]
    how = (f"{path[0]} could fire at {left} instead" if len(path) == 1 else
           f"{path[0]} could fire at another target, and {', '.join(path[1:])} in turn at {left}")
    return (f"fire must be spread as evenly as possible over the eligible targets before any die is rolled: "
            f"{over} is fired at {_times(found['counts'][over])} and {left} {_times(found['counts'][left])}, though "
            f"{how} (K-DF-5)")


def even_out(sc: Scenario, rules: dict, side: str, ctx, sealed: bool) -> None:
    """A plan at its end that is not spread as evenly as possible (K-DF-5): its shots were
    accepted one by one, maybe in earlier packets, and cannot be taken back, nor a sealed plan
    sent again, so the shot each shift would start from is void, one at a time, until it is
    (the last listed of those at the target fired at most). A plan whose shots come with its
    `end` in one packet is evened the same way: `pbem submit` shows the void shot before the
    packet is sent."""
    board = Board(sc, rules)
    shots = plan(rules, side)
    while True:
        found = uneven(sc, board, shots)
        if not found:
            return
        gone = shots.pop(found["shot"])
        ctx.event("void-item", f"{side}'s {'sealed ' if sealed else ''}fire of {gone['unit']} at {gone['target']} is void: "
                  f"{uneven_words(found)}.", side=side,
                  order={"type": "fire", "unit": gone["unit"], "target": gone["target"]}, rule="K-DF-5")


def add_fire(sc: Scenario, rules: dict, side: str, order: dict) -> dict:
    shot = check_fire(sc, rules, side, order)
    rules["plans"].setdefault("fire", {}).setdefault(side, []).append(shot)
    return shot


def options(sc: Scenario, rules: dict, side: str) -> list[dict]:
    """Every fire order legal now for the side (one per firer and target) after which the plan
    is still spread as evenly as possible (K-DF-5): a plan made of them may always end. (A shot
    not listed may still be given, and the plan evened by later ones before its end.)"""
    board = Board(sc, rules)
    shots = plan(rules, side)
    sets = [eligible(sc, board, s) for s in shots]
    firing = {s["unit"] for s in shots}
    out = []
    for pid in sc.side_pieces[side]:
        if pid in firing or pid not in rules["pieces"] or firer_block(sc, board, pid) is not None:
            continue
        for square, ahead, right in arc(sc, board, pid):
            if board.occupied_by(square) != other(side):
                continue
            for target in board.at(square, other(side)):
                order = {"type": "fire", "unit": pid, "target": target}
                try:
                    new = check_fire(sc, rules, side, order)
                except IllegalOrder:
                    continue
                if uneven(sc, board, shots + [new], sets + [eligible(sc, board, new)]) is None:
                    out.append(order)
    return out


def can_fire(sc: Scenario, rules: dict, side: str) -> bool:
    board = Board(sc, rules)
    for pid in sc.side_pieces[side]:
        if pid in rules["pieces"] and firer_block(sc, board, pid) is None:
            for square, _, _ in arc(sc, board, pid):
                if board.occupied_by(square) == other(side):
                    return True
    return False


# --- recce evading (K-REC-2) ----------------------------------------------------------------

def evaders(sc: Scenario, rules: dict) -> list[str]:
    """Lone specialist reconnaissance units fired at, not on HD or a more defensive order,
    that have not fired themselves: each may Give Ground to avoid all incoming fire (K-REC-2)."""
    from .command import below

    board = Board(sc, rules)
    fired = {s["unit"] for side in ("blue", "red") for s in plan(rules, side)}
    targeted = sorted({s["target"] for side in ("blue", "red") for s in plan(rules, side)})
    out = []
    for t in targeted:
        if not board.alive(t) or not sc.pieces[t].recce or t in fired or t in rules["ps"]["evaded"]:
            continue
        if below(sc, board.order(t), "HD") or len(board.at(board.piece(t)["sq"])) != 1:
            continue
        if t in rules["ps"]["decided"]:
            continue
        out.append(t)
    return out


def may_give_ground(sc: Scenario, rules: dict, pid: str) -> bool:
    """Whether the recce `pid`, evading, may Give Ground away from the first shot at it to a
    square with room (K-GG-2, K-GG-8: on through an over-full one, the same way), by one of the
    routes the dice may pick among equals (K-GG-3): without one, evading destroys it (K-GG-10),
    which no standing order chooses for its owner (a review: a first square that was full, and
    the way on closed, was taken for a way out)."""
    from .giveground import way_out

    board = Board(sc, rules)
    first = next(s for s in sorted_shots(rules) if s["target"] == pid)
    return way_out(sc, board, pid, board.piece(pid)["sq"], first["from"])


def evade(sc: Scenario, rules: dict, pid: str, go: bool, ctx) -> None:
    from .giveground import give_ground

    mark(rules, "ps", "decided", pid)
    if not go:
        ctx.event("recce-stands", f"{pid} stands its ground under fire (K-REC-2).", unit=pid, rule="K-REC-2")
        return
    board = Board(sc, rules)
    side = sc.pieces[pid].side
    first = next(s for s in sorted_shots(rules) if s["target"] == pid)
    mark(rules, "ps", "evaded", pid)
    ctx.event("recce-evades", f"{pid} gives ground to avoid the fire aimed at it; every shot at it is spent, and its "
              f"own (K-REC-2).", unit=pid, side=side, rule="K-REC-2")
    give_ground(sc, board, [pid], first["from"], ctx, f"t{rules['turn']}.ap{rules['ap']}.evade.{pid}", fire=True,
                rule="K-REC-2")


def sorted_shots(rules: dict) -> list[dict]:
    """Every planned shot in the order of resolution: the side without initiative first."""
    first = other(rules["initiative"])
    return plan(rules, first) + plan(rules, other(first))


# --- resolution (K-DF-5 to K-DF-10) ------------------------------------------------------------

def defensive_terrain(sc: Scenario, board: Board, target: str, source: str) -> bool:
    """K-TER-11 reading: the target's square gives it a Close Assault advantage against fire
    from `source` (ridges only upslope; marsh and light woods only to units on foot or
    deployed guns), or the linear feature on the face the shot crosses into the target's square
    does (a stream with a defender's advantage, K-TER-2), as the same edge does in a Close
    Assault (a probe: a tank behind a stream had the advantage against an assault across it,
    not against fire)."""
    square = board.piece(target)["sq"]
    feature = sc.area[square]
    edge = _face_crossed(sc, source, square)
    if edge is not None and edge.ca_defence < 0:
        return True
    if feature.ca_defence >= 0:
        return False
    if feature.ca_for == "upslope":
        return not sc.area[source].high
    if feature.ca_for == "foot":
        prof = board.profile(target)
        return not prof.vehicle or prof.unlimbered
    return True


def _face_crossed(sc: Scenario, source: str, square: str) -> Feature | None:
    """The linear feature on the face through which a shot from `source` enters `square`: from
    the last square its line passes (or `source` itself) where that one shares a face with
    `square`; a front diagonal shot arrives by a corner and crosses no face."""
    passed, _ = sc.grid.crossed(source, square)
    last = passed[-1] if passed else source
    if sc.grid.orthogonal_distance(last, square) != 1:
        return None
    return sc.edge_feature(last, square)


def modifiers(sc: Scenario, board: Board, shot: dict) -> dict[str, int]:
    m = sc.tables["direct_fire"]["modifiers"]
    firer, target = shot["unit"], shot["target"]
    fp, tp = board.profile(firer), board.profile(target)
    out: dict[str, int] = {}
    if board.damaged(firer):
        out["firer_losses"] = m["firer_losses"]
    if fp.heavy_atgw and shot["ahead"] > sc.range_df(False):
        out["heavy_atgw_long_range"] = m["heavy_atgw_long_range"]
    diff = CLASS_RANK[fp.df] - CLASS_RANK[tp.target]
    if diff > 0:
        out["class"] = diff * m["per_class_above"]
    elif diff < 0:
        out["class"] = -diff * m["per_class_below"]
    if fp.ir:
        out["firer_ir"] = m["firer_ir"]
    if tp.ia and tp.armour:
        out["target_ia"] = m["target_ia"]
    if board.order(target) == "M":
        out["target_m"] = m["target_m"]
    if board.order(firer) == "M":
        out["firer_m"] = m["firer_m"]
    if board.order(target) == "FD":
        out["target_fd"] = m["target_fd"]
    elif board.order(target) == "PD" or defensive_terrain(sc, board, target, shot["from"]):
        out["target_pd_or_cover"] = m["target_pd_or_cover"]
    _, how = layout.fire_targets(sc, board, shot["sq"], shot["from"], sc.pieces[target].side, set(board.rules["ps"]["gg"]))
    if tp.vulnerable:
        out["vulnerable"] = m["vulnerable"]
    elif how == "rear":   # through the face behind, by the shot's main direction (K-GM-10/11)
        out["rear"] = m["rear"]
    return out


def resolve(sc: Scenario, rules: dict, ctx) -> None:
    """Roll every shot, then apply every result (K-DF-5): losses first, then Give Ground."""
    board = Board(sc, rules)
    table = sc.tables["direct_fire"]
    results: dict[str, dict] = {}
    n = 0
    for shot in sorted_shots(rules):
        firer, target = shot["unit"], shot["target"]
        mark(rules, "ps", "fired", firer)
        seen = rules["ps"].setdefault("fire_in", [])     # incoming fire no unit may block by giving ground (K-GG-5)
        if [shot["sq"], shot["from"], sc.pieces[firer].side] not in seen:
            seen.append([shot["sq"], shot["from"], sc.pieces[firer].side])
            seen.sort()
        if target in rules["ps"]["evaded"]:
            ctx.event("fire-spent", f"{firer}'s shot at {target} is spent: {target} gave ground (K-REC-2).", unit=firer,
                      target=target, rule="K-REC-2")
            continue
        n += 1
        mods = modifiers(sc, board, shot)
        die = ctx.d6(f"t{rules['turn']}.ap{rules['ap']}.fire.{n}")
        score = die + sum(mods.values())
        effect = ("loss" if score >= table["loss_and_give_ground"] else
                  "give-ground" if score >= table["give_ground"] else "none")
        ctx.event("fire", f"{firer} fires at {target} in {shot['sq']}: die {die}" + "".join(
            f", {MODIFIER_WORDS[k]} {v:+d}" for k, v in mods.items()) + f" = {score}: "
            + FIRE_WORDS[effect] + " (K-DF-6, K-DF-7).",
            side=sc.pieces[firer].side, unit=firer, target=target, die=die, modifiers=mods, score=score, effect=effect,
            # where firer and target stand as the die is rolled, for the picture (a loss's Give Ground moves the target)
            at=[f"{rules['pieces'][u]['sq']}.{rules['pieces'][u]['cell']}" for u in (firer, target)], rule="K-DF-7")
        r = results.setdefault(target, {"losses": 0, "gg": False, "source": None})
        if effect == "loss":
            r["losses"] += 1
        if effect != "none":
            r["gg"] = True
            if r["source"] is None:
                r["source"] = shot["from"]
    rules["plans"]["fire_results"] = {t: r for t, r in sorted(results.items()) if r["losses"] or r["gg"]}
    rules["plans"].pop("fire", None)


def soviet_choices(sc: Scenario, rules: dict) -> list[str]:
    """Targets of Soviet doctrine that must Give Ground: each may take a loss instead (K-DOC-3)."""
    done = rules["plans"].get("held", [])
    board = Board(sc, rules)
    return [t for t, r in rules["plans"].get("fire_results", {}).items()
            if r["gg"] and sc.pieces[t].doctrine == "soviet" and t not in done and t in rules["pieces"]
            and board.points_left(t) > r["losses"]]      # a unit the fire's losses destroy has nothing to choose


def hold(sc: Scenario, rules: dict, pid: str, convert: bool, ctx) -> None:
    rules["plans"].setdefault("held", []).append(pid)
    if convert:
        r = rules["plans"]["fire_results"][pid]
        r["gg"] = False
        r["losses"] += 1
        ctx.event("soviet-hold", f"{pid} stands: its Give Ground becomes a loss (Soviet doctrine, K-DOC-3).", unit=pid,
                  rule="K-DOC-3")


def apply_results(sc: Scenario, rules: dict, ctx) -> bool:
    """Every loss, then every Give Ground, target by target (K-DF-7). False while a unit
    waits for its owner's choice of place (K-GG-5): called again, it goes on where it stopped
    (the targets still to Give Ground are `plans["gg_due"]`)."""
    from .command import force_order
    from .giveground import give_ground, waiting

    board = Board(sc, rules)
    plans = rules["plans"]
    if "fire_results" in plans:
        results = plans.pop("fire_results")
        plans.pop("held", None)
        for t, r in results.items():
            if r["losses"]:
                lose(sc, board, t, r["losses"], ctx, "K-DF-7", "Direct Fire")
        plans["gg_due"] = [[t, r["source"]] for t, r in results.items() if r["gg"]]
    due = plans.get("gg_due", [])
    while due and not waiting(rules):
        t, source = due.pop(0)
        if board.alive(t):
            force_order(board, [t], "HD", "K-GG-7", ctx, when=("HD1", "HD2", "HD3", "PD", "FD"))
            give_ground(sc, board, [t], source, ctx, f"t{rules['turn']}.ap{rules['ap']}.gg.{t}", fire=True,
                        rule="K-DF-7")
    if waiting(rules):
        return False
    plans.pop("gg_due", None)
    return True
