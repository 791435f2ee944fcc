"""Close Assault (K-CA-1 to K-CA-20), its factors (K-CAF-1), the orders comparison (K-CAO-1),
the Result Table (K-CAT-1), the results (K-CAR-1 to K-CAR-6) and attrition (K-ATR-1 to K-ATR-4).

A moving side declares its assaults as moves of its eligible units or groups that started
the phase as groups (whole, or with any of their units left behind, K-CA-2), partly into an
orthogonally adjacent enemy square (K-CA-3, K-CA-5).
After the bombardment calls they are fought one at a time in the order the attacker
chooses (K-CA-1, K-CA-4). The attackers stay in the square they came from until they win
and occupy; a retreating attacker is back there (K-CA-18). Attackers that won while enemy
units remained occupy the square as soon as a later assault of their side has cleared it
(K-CA-14, K-CA-15), after that assault's own occupiers.

A fight runs as a queue of steps kept in `rules["ca"]` (nominate, fight, loss, attrition,
counter attack, withdraw (asked before anyone gives ground), retreat, win, occupy, back,
refight); a step that is a player's choice stops the queue as a decision (flow.py) until its
answer or standing order comes. When a fight is over, command markers share its result
(K-CMK-4, `_markers_fate`).
A square may be assaulted by as many assaults as are legal (K-CA-6); as attackers stay in
their own square until they occupy, no square is ever over-full, during an assault or after
(K-CA-12). Only units roll attrition, never command markers (K-CMK-5, K-ATR-4). The
rulebook's example (K-EX-1, K-EX-2, K-EX-3) is case close-assault-example.yaml.
"""

from __future__ import annotations

from itertools import combinations

from pbem.core.text import agreeing

from ..base import IllegalOrder
from . import artillery, layout, movement
from .command import ask_reveal, change_modifiers, force_order, group_in_command, majority, marker_status
from .common import demoralised, lose
from .giveground import displace_markers, give_ground, waiting
from .scenario import Scenario, other
from .state import Board, mark

ATTACK_ORDERS = ("FA", "PA", "HA", "M")
COUNTS_AS = ("armour", "infantry")      # K-INF-7: how an attacking mechanised infantry unit counts
DECISIONS = ("assault-next", "ca-defence", "ca-loss", "attrition", "counter-attack", "withdraw", "occupy",
             "occupy-facing", "breakthrough")


# --- declaring (K-CA-2 to K-CA-5) --------------------------------------------------------------

def check_declare(sc: Scenario, rules: dict, side: str, order: dict, ap: int, board: Board | None = None) -> dict:
    """An assault order checked without changing anything (K-CA-2 to K-CA-5); `board`: a view
    of `rules` to share."""
    board = board or Board(sc, rules)
    units = movement.check_body(sc, board, side, order.get("units"), "assault")
    here = rules["pieces"][units[0]]["sq"]
    target = order.get("target")
    if target not in sc.grid or sc.grid.orthogonal_distance(here, target) != 1:
        raise IllegalOrder("K-CA-5", f"assault: {target!r} is not next to {here} through an edge: an assault is never "
                           f"a diagonal move (K-CA-5, K-MOV-2)", None)
    enemies = board.at(target, other(side))
    markers = [h for h in board.hqs_at(target) if sc.commands[h].side == other(side)]
    if not enemies and not markers:
        raise IllegalOrder("K-CA-6", f"assault: there is no enemy in {target} to assault", None)
    if len(units) > 1:
        # K-CA-3: units assault together only as a battle group that started the phase as one (and
        # is one still: its shape is not adjusted in the phase, K-CA-3); K-CA-2: units that may not
        # attack "must be left behind in the assault move as indeed may any unit", so the group
        # may assault less any of its units
        start = rules["ps"]["groups"]
        g = start.get(units[0])
        started = {p for p, grp in start.items() if grp == g} if g else set()
        if g is None or not set(units) <= started or not set(units) <= set(board.members(units[0])):
            raise IllegalOrder("K-CA-3", f"assault: units assault together only as a battle group that started the phase "
                               f"as one, or part of one, the rest left behind ({', '.join(units)} are not); each may "
                               f"assault alone (K-CA-2, K-CA-3, K-ORD-8)", None)
    dismount = bool(order.get("dismount", False))
    for u in units:
        mode = board.piece(u).get("mode")
        if dismount and mode != "mounted":
            raise IllegalOrder("K-CA-10", f"assault: {u} is not mounted and cannot dismount", None)
        # K-INF-4, K-MOV-4, K-CA-10: infantry in vehicles assaults and dismounts only in an Action
        # Phase in which it may move in its vehicles; the check is made on the mounted unit, so a
        # unit that moved in its vehicles earlier in the turn may still dismount in the assault
        if dismount and not movement.may_move(sc, board, u, ap):
            raise IllegalOrder("K-INF-4", f"assault: {u} may dismount in a Close Assault only in an Action Phase in "
                               f"which it may move in its vehicles, and it may not move in Action Phase {ap} "
                               f"(K-INF-4, K-MOV-4)", None)
        why = movement.unit_may_move(sc, board, u, ap, True)
        if why:
            raise IllegalOrder("K-CA-5", f"assault: {why}", None)
        if u in rules["ps"]["ifired"] or any(c.get("unit") == u for c in artillery.calls(rules, side)):
            raise IllegalOrder("K-IF-4", f"assault: {u} is called for Indirect Fire in this Action Phase, and artillery "
                               f"engaged in a Close Assault may not Indirect Fire in the same Action Phase (K-IF-4)", None)
        if board.order(u) not in ATTACK_ORDERS:
            raise IllegalOrder("K-CAO-1", f"assault: {u} is on {board.order(u)}: only units on FA, PA, HA or M may "
                               f"assault (K-CAO-1, K-ORD-5)", None)
        prof = sc.profile(u, "dismounted" if dismount else mode)
        if not prof.assault:
            raise IllegalOrder("K-CA-2", f"assault: {u} may not attack in a Close Assault (only armour, mechanised "
                               f"armoured self-propelled artillery, reconnaissance and infantry, K-CA-2, K-CA-11)"
                               + (f"; leave it behind and assault with {', '.join(p for p in units if p != u)}"
                                  if len(units) > 1 else ""), None)
        if demoralised(sc, board, u):
            raise IllegalOrder("K-MOR-1", f"assault: {u}'s formation is Demoralised and may launch no Close Assault "
                               f"(K-MOR-1)", None)
        why = movement.terrain_block(sc, board.profile(u), here, target)
        if why:
            raise IllegalOrder("K-TER-5", f"assault: {why}", None)
        # K-TER-8, K-MOV-7: a Close Assault moves into the square (K-CA-5), and the attackers occupy
        # it: terrain that allows one move a turn limits it as it limits a move (the mounted unit's
        # profile for a dismounting assault: it moves in its vehicles, K-INF-4)
        why = movement.slow_block(sc, board, u, board.profile(u), here, target, ap)
        if why:
            raise IllegalOrder("K-MOV-7", f"assault: {why}; a Close Assault is a move into {target} (K-CA-5, "
                               f"K-MOV-7)", None)
    vehicles = [u for u in units if sc.profile(u, "dismounted" if dismount else board.piece(u).get("mode")).vehicle]
    for square in (here, target):
        if layout.road_square(sc, square) and vehicles:
            face = f"{square}:{sc.grid.direction(square, target if square == here else here)}:{side}"
            if len(vehicles) > 1 or face in rules["ps"]["faces"]:
                raise IllegalOrder("K-TER-5", f"assault: through each face of {square} ({sc.area[square].name}) only one "
                                   f"vehicle unit of a side may assault (K-TER-5)", None)
    hqs = sorted(order.get("hqs") or [])
    for h in hqs:
        if h not in sc.commands or sc.commands[h].side != side or rules["hqs"].get(h, {}).get("sq") != here:
            raise IllegalOrder("K-CA-2", f"assault: {h!r} is not a command marker of {side} in {here}", None)
    counts_as = check_counts_as(board, "assault", units, order, dismount)
    return {"units": units, "from": here, "target": target, "dismount": dismount, "hqs": hqs, "vehicles": vehicles,
            "counts_as": counts_as}


def check_counts_as(board: Board, what: str, units: list[str], order: dict, dismount: bool = False) -> str | None:
    """An order's `counts_as` (K-INF-7): `armour` or `infantry`, for every attacking mechanised
    infantry unit of the assault; only where one attacks mounted."""
    counts_as = order.get("counts_as")
    if counts_as is None:
        return None
    if counts_as not in COUNTS_AS:
        raise IllegalOrder("K-INF-7", f"{what}: counts_as is armour or infantry, not {counts_as!r} (K-INF-7)", None)
    if dismount or not counts_as_choices(board, units):
        raise IllegalOrder("K-INF-7", f"{what}: counts_as is only for mechanised infantry assaulting mounted in its "
                           f"tracked armoured carriers, which counts as armour or as infantry (K-INF-7); "
                           f"{', '.join(units)} {'dismount' if dismount else 'have none'}", None)
    return counts_as


def declare(sc: Scenario, rules: dict, side: str, order: dict, ctx, ap: int) -> None:
    plan = check_declare(sc, rules, side, order, ap)
    n = 1 + max([a["n"] for a in rules["assaults"]] or [0])
    if plan["dismount"]:
        for u in plan["units"]:
            rules["pieces"][u]["mode"] = "dismounted"
    for u in plan["units"]:
        mark(rules, "ps", "moved", u)
    for square in (plan["from"], plan["target"]):
        if layout.road_square(sc, square) and plan["vehicles"]:
            other_sq = plan["target"] if square == plan["from"] else plan["from"]
            mark(rules, "ps", "faces", f"{square}:{sc.grid.direction(square, other_sq)}:{side}")
    rules["assaults"].append({"n": n, "side": side, "units": plan["units"], "from": plan["from"],
                              "target": plan["target"], "dismount": plan["dismount"], "hqs": plan["hqs"]})
    if plan["counts_as"]:
        rules["assaults"][-1].update(counts_as=plan["counts_as"], counts_as_by="order")     # K-INF-7
    ctx.event("assault-declared", f"Close Assault {n}: {', '.join(plan['units'])} from {plan['from']} into "
              f"{plan['target']}" + (" (dismounting)" if plan["dismount"] else "") + " (K-CA-5).", side=side, assault=n,
              units=plan["units"], origin=plan["from"], target=plan["target"], rule="K-CA-5")


def options(sc: Scenario, rules: dict, side: str, ap: int) -> list[dict]:
    return list(iter_options(sc, rules, side, ap))


def iter_options(sc: Scenario, rules: dict, side: str, ap: int, board: Board | None = None):
    board = board or Board(sc, rules)
    enemy = other(side)
    # the squares an assault may go into: held by the enemy's units or markers (K-CA-5)
    held = set(board.squares(enemy)) | {rec["sq"] for h, rec in rules["hqs"].items()
                                        if "sq" in rec and sc.commands[h].side == enemy}
    moved = set(rules["ps"]["moved"])
    for group in board.each_mover(side):
        here = rules["pieces"][group[0]]["sq"]
        targets = [target for target in sc.faces[here] if target in held]
        # the units of the group that have not moved or assaulted: those left behind by an assault
        # of part of it may still assault, alone or together (K-CA-2, K-CA-3)
        body = [u for u in group if u not in moved]
        if not targets or not body or board.hidden(body[0]):
            continue    # no enemy next to it; or a sealed chit is shown first (`show`, K-ORD-6 reading)
        for target in targets:
            if len(body) == 1:
                yield from _body_options(sc, rules, side, body, target, ap, board)
                continue
            # the group whole; the group less the units that may not attack, which K-CA-2 leaves
            # behind (any other part may be ordered too: check_declare takes it); each unit alone
            # (K-CA-3)
            singles = {u: list(_body_options(sc, rules, side, [u], target, ap, board)) for u in body}
            yield from _body_options(sc, rules, side, body, target, ap, board)
            able = [u for u in body if singles[u]]
            if 1 < len(able) < len(body):
                yield from _body_options(sc, rules, side, able, target, ap, board)
            for u in body:
                yield from singles[u]


def _body_options(sc: Scenario, rules: dict, side: str, b: list[str], target: str, ap: int, board: Board):
    """The legal assaults of the units `b` into `target`: mounted, and dismounting (K-CA-10)."""
    # K-CA-10: infantry in vehicles may also assault and dismount (AIFV +1, on foot)
    mounted = all(rules["pieces"][u].get("mode") == "mounted" for u in b)
    for dismount in ((False, True) if mounted else (False,)):
        order = {"type": "assault", "units": b, "target": target}
        if dismount:
            order["dismount"] = True
        try:
            check_declare(sc, rules, side, order, ap, board)
        except IllegalOrder:
            continue
        yield order


# --- the fight --------------------------------------------------------------------------------

def exposed(sc: Scenario, board: Board, pid: str, enemy_armour: bool) -> bool:
    """Loses on 1 or 2 in attrition: a Vulnerable Target, deployed artillery, or infantry on foot
    engaged by armour (K-ATR-1)."""
    prof = board.profile(pid)
    return prof.vulnerable or prof.unlimbered or (enemy_armour and prof.infantry is not None and not prof.vehicle)


def is_armour(board: Board, pid: str) -> bool:
    prof = board.profile(pid)
    return prof.vehicle and prof.armour is not None


def _current(rules: dict) -> dict:
    ca = rules["ca"]
    return next(a for a in rules["assaults"] if a["n"] == ca["n"])


def participants(board: Board, rules: dict) -> dict[str, list[str]]:
    ca = rules["ca"]
    a = _current(rules)
    att = [u for u in ca["att"] if board.alive(u)]
    dfn = [u for u in ca["def"] if board.alive(u)]
    return {a["side"]: att, other(a["side"]): dfn}


def strength(board: Board, units: list[str]) -> int:
    """The units that count for 'units more / fewer' (K-CAF-1): limbered guns contribute no
    strength (K-CA-11)."""
    return sum(1 for p in units if board.piece(p).get("mode") != "limbered")


def mechanised_infantry(board: Board, pid: str) -> bool:
    """K-INF-7: "Mechanised, that is Armoured Infantry in tracked vehicles": infantry aboard its
    armoured tracked carriers (mechanised mobility: an AIFV such as the Marder or the BMP, or an
    APC such as the M113). Wheeled carriers (motorised, the BTR-70) are not tracked: not this."""
    prof = board.profile(pid)
    return (board.piece(pid).get("mode") == "mounted" and prof.infantry is not None and prof.move == "mechanised"
            and is_armour(board, pid))


def counts_as_choices(board: Board, att: list[str]) -> list[str]:
    """The attacking mechanised infantry units that choose how they count (K-INF-7)."""
    return [p for p in att if mechanised_infantry(board, p)]


def factors(sc: Scenario, board: Board, a: dict, att: list[str], dfn: list[str], body: list[str]) -> dict[str, int]:
    """The attacker's final factor, part by part (K-CAF-1, K-CAO-1, K-SFX-4); an attacking
    mechanised infantry unit counts as the assault's `counts_as` says, or the engine's best
    (`chosen_factors`, K-INF-7)."""
    return chosen_factors(sc, board, a, att, dfn, body)[0]


def chosen_factors(sc: Scenario, board: Board, a: dict, att: list[str], dfn: list[str],
                   body: list[str]) -> tuple[dict[str, int], str | None]:
    """The factors and how the attacking mechanised infantry counts (K-INF-7): "may Close
    Assault as if Armour or Infantry for factors, but as only one unit for strength purposes",
    the attacker choosing one, never both. The choice is the assault's `counts_as` (the order's,
    or the one made at its first round); without it the one giving the attacker the higher
    final factor, armour on a tie. None: no attacker chooses."""
    mech = set(counts_as_choices(board, att))
    if not mech:
        return _factors(sc, board, a, att, dfn, body, None, mech), None
    if a.get("counts_as") in COUNTS_AS:
        return _factors(sc, board, a, att, dfn, body, a["counts_as"], mech), a["counts_as"]
    best: tuple[dict[str, int], str] | None = None
    status = marker_status(sc, board)     # the same board for both choices: worked out once
    for choice in COUNTS_AS:          # armour first: it keeps a tie
        parts = _factors(sc, board, a, att, dfn, body, choice, mech, status)
        if best is None or sum(parts.values()) > sum(best[0].values()):
            best = (parts, choice)
    return best


def _factors(sc: Scenario, board: Board, a: dict, att: list[str], dfn: list[str], body: list[str],
             counts_as: str | None, mech: set[str], status: dict[str, bool] | None = None) -> dict[str, int]:
    """`chosen_factors` for one choice of `counts_as`, for the attacking mechanised infantry
    `mech`; `status`: the markers' `marker_status`, when the caller has it."""
    f = sc.tables["assault"]["factors"]
    out: dict[str, int] = {}
    diff = strength(board, att) - strength(board, dfn)
    if diff > 0:
        out["units_more"] = diff * f["per_unit_more"]
    elif diff < 0:
        out["units_fewer"] = -diff * f["per_unit_fewer"]
    att_hurt = sum(1 for p in att if board.damaged(p))
    def_hurt = sum(1 for p in dfn if board.damaged(p))
    if att_hurt > def_hurt:
        out["attackers_more_losses"] = f["attackers_more_losses"]
    elif def_hurt > att_hurt:
        out["defenders_more_losses"] = f["defenders_more_losses"]
    for who, units, sign in (("attackers", att, 1), ("defenders", dfn, -1)):
        if majority(sc, units, "S"):
            out[f"{who}_superior"] = f[f"{who}_superior"]
        if majority(sc, units, "I"):
            out[f"{who}_inferior"] = f[f"{who}_inferior"]
    if len(att) > 1 and not group_in_command(sc, board, att, status):
        out["attacking_group_out_of_command"] = f["attacking_group_out_of_command"]
    if len(body) > 1 and not group_in_command(sc, board, [p for p in body if board.alive(p)], status):
        out["defending_group_out_of_command"] = f["defending_group_out_of_command"]
    # arms (K-CAF-1, K-INF-7, K-CA-10): an attacking mechanised infantry unit (mounted in tracked
    # armoured carriers) counts as armour or as its infantry type, as `counts_as` says, never both
    # (K-INF-7); a defending one, and infantry in wheeled armoured carriers, count as armour and as
    # infantry: K-INF-7 speaks only of the mechanised infantry that Close Assaults
    if not counts_as:
        mech = set()

    def armour(p: str) -> bool:
        return is_armour(board, p) and not (p in mech and counts_as == "infantry")

    def infantry_of(p: str) -> str | None:
        return None if p in mech and counts_as == "armour" else board.profile(p).infantry

    arms = {}
    for who, units in (("attackers", att), ("defenders", dfn)):
        infantry = {infantry_of(p) for p in units} - {None}
        arms[who] = {"armour": any(armour(p) for p in units), "infantry": infantry,
                     "only_gi": bool(units) and all(infantry_of(p) == "GI" and not armour(p) for p in units),
                     "aifv": any(sc.pieces[p].aifv and board.piece(p).get("mode") == "dismounted" for p in units)}
    for who, foe in (("attackers", "defenders"), ("defenders", "attackers")):
        mine, theirs = arms[who], arms[foe]
        if theirs["armour"]:
            if mine["only_gi"]:
                out[f"{who}_solely_gi_vs_armour"] = f[f"{who}_solely_gi_vs_armour"]
            elif "MI" in mine["infantry"]:
                out[f"{who}_mi" if who == "defenders" else "attackers_mi_vs_armour"] = \
                    f["defenders_mi" if who == "defenders" else "attackers_mi_vs_armour"]
            elif "RI" in mine["infantry"]:
                out[f"{who}_ri_vs_armour"] = f[f"{who}_ri_vs_armour"]
        if mine["armour"] and mine["infantry"]:
            out[f"{who}_armour_and_infantry"] = f[f"{who}_armour_and_infantry"]
        if mine["aifv"]:
            out[f"{who}_dismounted_from_aifv"] = f[f"{who}_dismounted_from_aifv"]
    terrain = defensive_terrain(sc, board, a, dfn)
    if terrain:
        out["defensive_terrain"] = terrain
    if dfn and all(board.profile(p).artillery for p in dfn):
        out["defenders_solely_artillery"] = f["defenders_solely_artillery"]
    if att and 2 * sum(1 for p in att if board.profile(p).vulnerable) > len(att):
        out["attackers_vulnerable"] = f["attackers_vulnerable"]
    if dfn and 2 * sum(1 for p in dfn if board.profile(p).vulnerable) > len(dfn):
        out["defenders_vulnerable"] = f["defenders_vulnerable"]
    live_body = [p for p in body if board.alive(p)]
    if live_body:
        how = layout.exposure(board.piece(live_body[0])["f"], sc.grid.direction(a["target"], a["from"]))
        if how == "flank":
            out["flank"] = f["flank"]
        elif how == "rear":
            out["rear"] = f["rear"]
    if not a.get("breakthrough"):
        out.update(artillery.bombardment(sc, board, a, {a["side"]: att, other(a["side"]): dfn}))
    # K-CAO-1: the attacker's order against the defending unit or group's
    if att and live_body:
        mine = board.order(att[0])
        theirs = board.order(live_body[0])
        table = sc.tables["orders_comparison"]
        if mine in table["attacker"] and theirs in table["defender"]:
            value = table["defender"][theirs][table["attacker"].index(mine)]
            if value:
                out["orders"] = value
    return out


def defensive_terrain(sc: Scenario, board: Board, a: dict, dfn: list[str]) -> int:
    """'Assault against defensive terrain' -1 or -2 (K-CAF-1, K-TER-2..9, K-TER-11): the
    defenders' area feature (ridges only upslope; marsh and light woods only for infantry and
    deployed guns) or a linear feature on the edge crossed; the stronger one."""
    values = [0]
    feature = sc.area[a["target"]]
    if feature.ca_defence:
        if feature.ca_for == "all":
            values.append(feature.ca_defence)
        elif feature.ca_for == "upslope" and not sc.area[a["from"]].high:
            values.append(feature.ca_defence)
        elif feature.ca_for == "foot" and dfn and all(not board.profile(p).vehicle or board.profile(p).unlimbered
                                                      for p in dfn):
            values.append(feature.ca_defence)
    edge = sc.edge_feature(a["from"], a["target"])
    if edge is not None and edge.ca_defence:
        values.append(edge.ca_defence)
    return min(values)


def losses_of(result: str) -> int:
    """The n of a result "DR+n" or "AR+n" (K-CAR-1, K-CAR-6); 0 for DR, DF and AR."""
    return int(result[3:]) if "+" in result else 0


def result_of(sc: Scenario, factor: int, die: int) -> str:
    table = sc.tables["results"]
    column = max(min(factor, table["columns"][0]), table["columns"][-1])
    return table["rows"][str(die)][table["columns"].index(column)]


# --- running the assault step -------------------------------------------------------------------

def pending(rules: dict) -> list[dict]:
    return [a for a in rules["assaults"] if not a.get("done")]


def start(sc: Scenario, rules: dict, a: dict, ctx) -> None:
    board = Board(sc, rules)
    att = [u for u in a["units"] if board.alive(u)]
    rules["ca"] = {"n": a["n"], "att": att, "def": [], "body": [], "round": 1, "steps": []}
    side = a["side"]
    kind = "Breakthrough Close Assault" if a.get("breakthrough") else "Close Assault"
    if not att:
        ctx.event("assault-void", f"{kind} {a['n']}: no attacker is left.", assault=a["n"], rule="K-CA-4")
        rules["ca"]["steps"] = []
        return
    if any(demoralised(sc, board, u) for u in att):
        # K-MOR-1: a Demoralised formation "can then no longer launch Close Assaults", and a loss
        # takes effect at once (K-CA-20: it "cancels the Breakthrough Close Assault"; K-MOR-4):
        # an assault declared with the others of the step, whose formation a loss in one fought
        # before it has Demoralised, is not launched. Its attackers never left their square.
        ctx.event("assault-cancelled", f"{kind} {a['n']}: a loss in an earlier assault has Demoralised the attackers' "
                  f"formation, which may launch no Close Assault; {', '.join(att)} "
                  f"{agreeing(att, 'stays', 'stay')} in {a['from']} (K-MOR-1).", side=side, assault=a["n"], units=att,
                  square=a["from"], rule="K-MOR-1")
        rules["ca"]["steps"] = []
        return
    enemies = board.at(a["target"], other(side))
    if not enemies:
        markers = [h for h in board.hqs_at(a["target"]) if sc.commands[h].side == other(side)]
        for h in markers:
            board.move_hq(h, None)
            ctx.event("hq-destroyed", f"{h}, alone in {a['target']}, is destroyed by Close Assault {a['n']} with no loss "
                      f"to the attacker (K-CMK-4).", hq=h, side=sc.commands[h].side, assault=a["n"], rule="K-CMK-4")
        rules["ca"]["steps"] = [{"do": "occupy", "fought": bool(markers)}]
        if not markers:
            ctx.event("assault-unopposed", f"{kind} {a['n']}: {a['target']} is clear of the enemy; the attackers did not "
                      f"have to fight (K-CA-14).", assault=a["n"], rule="K-CA-14")
        return
    rules["ca"]["steps"] = [{"do": "nominate"}, {"do": "fight"}]


def decision(sc: Scenario, rules: dict) -> tuple[str, str, str] | None:
    """The decision the assault step waits for: (side, kind, prompt), or None."""
    ca = rules["ca"]
    if ca is None:
        live = pending(rules)
        if len(live) > 1:
            return live[0]["side"], "assault-next", "choose which Close Assault is fought next (K-CA-1)"
        if not live:
            bt = breakthrough_candidate(sc, rules)
            if bt is not None:
                return bt["side"], "breakthrough", (f"Close Assault {bt['n']} won: take a Breakthrough Close Assault into "
                                                    f"{bt['target']}, or give ground (K-CA-20)")
        return None
    if not ca["steps"]:
        return None
    step = ca["steps"][0]
    a = _current(rules)
    attacker, defender = a["side"], other(a["side"])
    do = step["do"]
    if do == "nominate":
        return defender, "ca-defence", f"Close Assault {a['n']} into {a['target']}: name the defending unit or group and a supporting unit (K-CA-7)"
    if do == "loss" and len(loss_options(sc, rules, step)) > 1:
        return step["side"], "ca-loss", f"Close Assault {a['n']}: which engaged unit takes the next loss (K-CAR-1, K-CAR-6)"
    if do == "attr" and len(attrition_options(sc, rules, step)) > 1:
        return step["side"], "attrition", f"Close Assault {a['n']}: which unit tests attrition next (most vulnerable first, K-ATR-2)"
    if do == "counter":
        return defender, "counter-attack", f"Close Assault {a['n']}: try a Counter Attack (orders test at -1, K-CAR-3)?"
    if do == "withdraw" and withdraw_candidates(sc, rules):
        return defender, "withdraw", f"Close Assault {a['n']}: may an unengaged unit in {a['target']} give ground (K-CAR-1)?"
    if do == "occupy" and step.get("choose"):
        return attacker, "occupy", f"Close Assault {a['n']}: which attacker occupies {a['target']} next (K-CA-15)"
    if do == "face" and facing_options(sc, rules, step):
        return attacker, "occupy-facing", (f"Close Assault {a['n']}: the facing of the units that occupied {a['target']}, "
                                           f"and whether they stay one battle group (K-CA-17)")
    return None


def legal(sc: Scenario, rules: dict, kind: str) -> list[dict]:
    board = Board(sc, rules)
    if kind == "assault-next":
        return [{"type": "next", "assault": a["n"]} for a in pending(rules)]
    if kind == "breakthrough":
        bt = breakthrough_candidate(sc, rules)
        return [{"type": "breakthrough", "assault": bt["n"], "take": False},
                {"type": "breakthrough", "assault": bt["n"], "take": True}]
    ca = rules["ca"]
    step = ca["steps"][0]
    if kind == "ca-defence":
        return defence_options(sc, board, rules)
    if kind == "ca-loss":
        return [{"type": "loss", "unit": p} for p in loss_options(sc, rules, step)]
    if kind == "attrition":
        return [{"type": "test", "unit": p} for p in attrition_options(sc, rules, step)]
    if kind == "counter-attack":
        return [{"type": "counter", "attempt": False}, {"type": "counter", "attempt": True}]
    if kind == "withdraw":
        p = withdraw_candidates(sc, rules)[0]
        return [{"type": "withdraw", "unit": p, "go": False}, {"type": "withdraw", "unit": p, "go": True}]
    if kind == "occupy":
        return [{"type": "occupy", "unit": p} for p in step["choose"]] + [{"type": "occupy", "unit": None}]
    if kind == "occupy-facing":
        return facing_options(sc, rules, step)
    return []


def facing_options(sc: Scenario, rules: dict, step: dict) -> list[dict]:
    """K-CA-17: every legal facing of the occupiers, as one group or as single units; the
    facing they came in with first."""
    board = Board(sc, rules)
    units = [u for u in step["units"] if board.alive(u)]
    if not units:
        return []
    square = rules["pieces"][units[0]]["sq"]
    first = rules["pieces"][units[0]]["f"]
    out = []
    for f in [first] + [e for e in ("N", "E", "S", "W") if e != first]:
        for grouped in ((True, False) if len(units) > 1 else (False,)):
            if grouped and not (all(layout.can_group(sc, units[0], p) for p in units[1:])
                                and len({board.order(p) for p in units}) == 1):
                continue
            cells = layout.place_cells(sc, board, square, units, f, grouped)
            if cells is None:
                continue
            entries = {p: dict(rules["pieces"][p]) for p in board.at(square) if p not in units}
            for p, cell in zip(units, cells):
                entries[p] = dict(rules["pieces"][p], cell=cell, f=f)
                entries[p].pop("g", None)
                if grouped:
                    entries[p]["g"] = "new"
            if layout.check_entries(sc, square, entries) is None:
                out.append({"type": "face", "facing": f, "group": grouped})
    return out


def defence_options(sc: Scenario, board: Board, rules: dict) -> list[dict]:
    a = _current(rules)
    side = other(a["side"])
    engaged = set(rules["ps"].get("defended", []))
    levels = layout.defence_levels(sc, board, a["target"], a["from"], side, engaged)
    level = next((lv for lv in levels if lv), [])
    targets = targeted(rules)
    out = []
    for body in level:
        # K-CA-7: the support is "one other single unit ... that has not already Given Ground or is
        # not already the target of an Assault itself": a unit that only supported an earlier
        # assault was not its target and may support again (K-EX-3: in the Breakthrough "the
        # Russians could defend with the T64s supported by the remaining BTR company", the BTR that
        # had supported the T64s in the assault before). K-CA-11: a limbered gun contributes
        # nothing, so it is never named as the supporting unit. K-IF-4, K-CA-8: artillery "may not
        # Indirect Fire in an Action Phase if it is also engaged in a Close Assault": a battery
        # that has fired this phase is not named as support, which is the owner's choice (a review:
        # a mortar that bombarded for an assault supported the defence of its own square after)
        fired = rules["ps"]["ifired"]
        supports = [None] + [p for p in board.at(a["target"], side) if p not in body and p not in rules["ps"]["gg"]
                             and p not in targets and board.piece(p).get("mode") != "limbered" and p not in fired]
        for s in supports:
            out.append({"type": "defend", "units": body, "support": s})
    return out


def targeted(rules: dict) -> set[str]:
    """The units that have been the target of a Close Assault of this step: each defending unit
    or group named (K-CA-7), not its support."""
    return {p for a in rules["assaults"] for p in a.get("body", [])}


def loss_options(sc: Scenario, rules: dict, step: dict) -> list[str]:
    board = Board(sc, rules)
    return participants(board, rules)[step["side"]]


def attrition_options(sc: Scenario, rules: dict, step: dict) -> list[str]:
    """The untested units that may test next: the most vulnerable first (K-ATR-2)."""
    board = Board(sc, rules)
    units = step.get("units") or participants(board, rules)[step["side"]]
    left = [p for p in units if board.alive(p) and p not in step["tested"]]
    if not left:
        return []
    worst = [p for p in left if exposed(sc, board, p, step["armour"])]
    return worst or left


def withdraw_candidates(sc: Scenario, rules: dict) -> list[str]:
    a = _current(rules)
    board = Board(sc, rules)
    ca = rules["ca"]
    done = ca.get("withdrawn", [])
    return [p for p in board.at(a["target"], other(a["side"])) if p not in ca["def"] and p not in done]


def _won_open(rules: dict):
    """The assaults won while enemy units remained (K-CAR-1) whose Breakthrough is not yet
    made, declined or given up (K-CA-20)."""
    return (a for a in rules["assaults"] if a.get("won") and not a.get("bt_done"))


def breakthrough_candidate(sc: Scenario, rules: dict) -> dict | None:
    board = Board(sc, rules)
    return next((a for a in _won_open(rules) if board.at(a["target"], other(a["side"]))), None)


def cleared_winner(board: Board) -> dict | None:
    """A Close Assault fought and won while enemy units remained in its square, which a later
    friendly assault (or attrition) has since cleared of the enemy: its attackers must occupy
    it (K-CA-14), first among the occupiers (K-CA-15)."""
    return next((a for a in _won_open(board.rules) if a.get("done") and not board.at(a["target"], other(a["side"]))
                 and any(board.alive(u) for u in a["units"])), None)


def _occupy_cleared(board: Board, a: dict, ctx) -> None:
    """K-CA-14, K-CA-15: the winners of an earlier assault move into the square a later assault
    cleared, as far as there is room (the owner choosing among them), the others stay back
    (K-CA-16); no Breakthrough is left to make (K-CA-20)."""
    rules = board.rules
    a["bt_done"] = True
    att = [u for u in a["units"] if board.alive(u)]
    ctx.event("assault-cleared", f"Close Assault {a['n']}: {a['target']} is cleared of the enemy; {', '.join(att)}, who "
              f"fought and won, must occupy it (K-CA-14, K-CA-15).", side=a["side"], assault=a["n"], units=att,
              square=a["target"], rule="K-CA-14")
    rules["ca"] = {"n": a["n"], "att": att, "def": [], "body": [], "round": 1, "steps": [{"do": "occupy", "fought": True}]}


def answer(sc: Scenario, rules: dict, kind: str, order: dict, ctx) -> None:
    """Apply the answer to an assault decision, then run on."""
    options = legal(sc, rules, kind)
    plan = None
    if kind == "occupy-facing":
        # K-CA-17: the full form (each unit its facing, the groups as the player forms them) is
        # checked as it comes; the simple form is one of the options listed
        plan = check_face(sc, rules, rules["ca"]["steps"][0], order)
    counts_as = None
    if kind == "breakthrough" and "counts_as" in order:
        # K-INF-7: the attacker chooses again for the Breakthrough, a Close Assault of its own
        # (K-CA-20); checked below, before anything changes
        counts_as = order["counts_as"]
        order = {k: v for k, v in order.items() if k != "counts_as"}
    if plan is None and order not in options:
        raise IllegalOrder("K-CA-7", f"{kind}: that answer is not one of the legal ones now", options[:12])
    board = Board(sc, rules)
    if kind == "assault-next":
        a = next(x for x in rules["assaults"] if x["n"] == order["assault"])
        start(sc, rules, a, ctx)
    elif kind == "breakthrough":
        a = next(x for x in rules["assaults"] if x["n"] == order["assault"])
        att = [u for u in a["units"] if board.alive(u)]
        if counts_as is not None:
            if not order["take"]:
                raise IllegalOrder("K-INF-7", "breakthrough: counts_as goes with take: true (how the mechanised "
                                   "infantry counts in the Breakthrough Close Assault, K-INF-7)", options)
            check_counts_as(board, "breakthrough", att, {"counts_as": counts_as})
        a["bt_done"] = True
        if order["take"]:
            if any(demoralised(sc, board, u) for u in att):
                ctx.event("breakthrough-cancelled", f"Close Assault {a['n']}: a loss has Demoralised the attackers; no "
                          f"Breakthrough (K-CA-20).", assault=a["n"], rule="K-CA-20")
                _back(sc, board, a, att, None, ctx, "K-CA-20")
            else:
                n = 1 + max(x["n"] for x in rules["assaults"])
                bt = {"n": n, "side": a["side"], "units": att, "from": a["from"], "target": a["target"],
                      "dismount": False, "hqs": a.get("hqs", []), "breakthrough": True}
                if counts_as is not None:
                    bt.update(counts_as=counts_as, counts_as_by="order")      # K-INF-7
                rules["assaults"].append(bt)
                ctx.event("breakthrough", f"Breakthrough Close Assault {n}: {', '.join(att)} go on into {a['target']} "
                          f"(no bombardment, one round of Desperate Fighting, K-CA-20).", side=a["side"], assault=n,
                          units=att, target=a["target"], rule="K-CA-20")
                start(sc, rules, bt, ctx)
        else:
            ctx.event("breakthrough-declined", f"Close Assault {a['n']}: no Breakthrough; the attackers give ground to "
                      f"{a['from']} (K-CA-20).", assault=a["n"], rule="K-CA-20")
            _back(sc, board, a, att, None, ctx, "K-CA-20")
    else:
        ca = rules["ca"]
        step = ca["steps"][0]
        a = _current(rules)
        if kind == "ca-defence":
            ca["body"] = list(order["units"])
            a["body"] = list(order["units"])       # the target of this assault (K-CA-7)
            ca["def"] = list(order["units"]) + ([order["support"]] if order["support"] else [])
            for p in ca["def"]:
                mark(rules, "ps", "defended", p)
            ctx.event("defence", f"Close Assault {a['n']}: {', '.join(order['units'])} defend"
                      + (f", supported by {order['support']}" if order["support"] else "") + " (K-CA-7).",
                      side=other(a["side"]), assault=a["n"], units=order["units"], support=order["support"],
                      chosen_by=ctx.chosen_by, rule="K-CA-7")
            ca["steps"].pop(0)
        elif kind == "ca-loss":
            _take_loss(sc, board, step, order["unit"], ctx)
        elif kind == "attrition":
            _test(sc, board, step, order["unit"], ctx)
        elif kind == "counter-attack":
            ca["steps"].pop(0)
            _counter(sc, board, a, order["attempt"], ctx)
        elif kind == "withdraw":
            ca.setdefault("withdrawn", []).append(order["unit"])
            if order["go"]:
                _withdraw(sc, board, a, order["unit"], ctx)
        elif kind == "occupy-facing":
            ca["steps"].pop(0)
            if plan is not None:
                _reface_each(sc, board, plan, ctx)
            else:
                _reface(sc, board, step["units"], order["facing"], order["group"], ctx)
        elif kind == "occupy":
            if order["unit"] is None:
                step["choose"] = []
                step["stop"] = True
            else:
                step["order"] = step.get("order", []) + [order["unit"]]
                step["choose"] = [p for p in step["choose"] if p != order["unit"]]
                if len(step["order"]) >= step["room"]:
                    step["choose"] = []
    run(sc, rules, ctx)


def run(sc: Scenario, rules: dict, ctx) -> None:
    """Run the assault step until it waits for a decision or has no assault left."""
    while True:
        if waiting(rules):
            return      # a unit giving ground waits for its owner's choice of place (K-GG-5)
        ca = rules["ca"]
        if ca is None:
            live = pending(rules)
            if len(live) == 1:
                start(sc, rules, live[0], ctx)
                continue
            return
        if decision(sc, rules) is not None:
            return
        if ca["steps"] and ca["steps"][0]["do"] == "fight" and ask_reveal(rules, ca["att"] + ca["def"] + ca["body"]):
            return      # K-ORD-6: the chits of everyone engaged are revealed before the fight
        if ca["steps"] and ca["steps"][0]["do"] == "retreat" and ask_reveal(rules, ca.get("volunteers", [])):
            return      # K-CAR-1: "all orders become HD": the volunteers' chits are revealed first (a probe)
        if not ca["steps"]:
            a = _current(rules)
            _markers_fate(sc, Board(sc, rules), a, ctx)
            a["done"] = True
            rules["ca"] = None
            board = Board(sc, rules)
            cleared = cleared_winner(board)
            if cleared is not None:
                _occupy_cleared(board, cleared, ctx)
            continue
        _do(sc, rules, ca["steps"][0], ctx)


def _do(sc: Scenario, rules: dict, step: dict, ctx) -> None:
    ca = rules["ca"]
    board = Board(sc, rules)
    a = _current(rules)
    do = step["do"]
    if do == "nominate":      # only one legal answer would have been asked too; here none is left
        options = defence_options(sc, board, rules)
        if not options:
            ca["steps"] = [{"do": "win"}]
            return
        choice = options[0]
        ca["body"], ca["def"] = list(choice["units"]), list(choice["units"])
        a["body"] = list(choice["units"])
        ca["steps"].pop(0)
        return
    if do == "fight":
        ca["steps"].pop(0)
        _fight(sc, board, a, ctx)
        return
    if do == "loss":
        options = loss_options(sc, rules, step)
        if not options:
            ca["steps"].pop(0)
            return
        _take_loss(sc, board, step, options[0], ctx)
        return
    if do == "attr":
        options = attrition_options(sc, rules, step)
        if not options or step["count"] <= len(step["tested"]) or step.get("hit"):
            ca["steps"].pop(0)
            return
        _test(sc, board, step, options[0], ctx)
        return
    ca["steps"].pop(0)
    if do == "retreat":
        _defenders_retreat(sc, board, a, ctx)
    elif do == "withdraw":
        pass   # no unengaged defender is left to choose
    elif do == "win":
        _win(sc, board, a, ctx)
    elif do == "occupy":
        _occupy(sc, board, a, step, ctx)
    elif do == "face":
        pass   # no other legal facing: they keep the one they came in with
    elif do == "follow":
        _markers_follow(sc, board, a, step["units"], ctx)
    elif do == "back":
        _back(sc, board, a, [u for u in ca["att"] if board.alive(u)], step.get("to"), ctx, step.get("rule", "K-CAR-5"))
    elif do == "refight":
        ca["round"] += 1
        ca["steps"].insert(0, {"do": "fight"})


def _fight(sc: Scenario, board: Board, a: dict, ctx) -> None:
    rules = board.rules
    ca = rules["ca"]
    att = [u for u in ca["att"] if board.alive(u)]
    dfn = [u for u in ca["def"] if board.alive(u)]
    if not att:
        ctx.event("assault-over", f"Close Assault {a['n']}: no attacker is left; the defenders hold.", assault=a["n"])
        ca["steps"] = []
        return
    if not dfn:
        ca["steps"] = [{"do": "win"}]
        return
    for p in att + dfn:
        if board.profile(p).artillery:
            mark(rules, "ps", "engaged", p)
    if ca["round"] == 1:
        ctx.event("orders-revealed", f"Close Assault {a['n']}: the chits are revealed: "
                  + ", ".join(f"{p} {board.order(p)}" for p in att + dfn) + " (K-ORD-6).",
                  orders={p: board.order(p) for p in att + dfn}, rule="K-ORD-6")
    ca["fought"] = True         # both sides fought: their command markers share the result (K-CMK-4)
    parts, counts_as = chosen_factors(sc, board, a, att, dfn, ca["body"])
    chose = ""
    more = {}
    if counts_as is not None:
        # K-INF-7: the attacker's choice holds for the whole assault: made here, at its first
        # round, unless the order gave it
        if "counts_as" not in a:
            a.update(counts_as=counts_as, counts_as_by="engine")
        mech = counts_as_choices(board, att)
        chose = (f"; {', '.join(mech)} {'counts' if len(mech) == 1 else 'count'} as {counts_as}, "
                 + ("as ordered" if a.get("counts_as_by") == "order" else "the better factor for the attacker")
                 + ", K-INF-7")
        more = {"counts_as": counts_as, "counts_as_units": mech, "counts_as_by": a.get("counts_as_by", "engine")}
    total = sum(parts.values())
    die = ctx.d6(f"t{rules['turn']}.ap{rules['ap']}.ca.{a['n']}.{ca['round']}")
    result = result_of(sc, total, die)
    ca["result"] = result
    column = "EVENS" if total == 0 else f"{total:+d}"
    ctx.event("assault", f"Close Assault {a['n']} ({', '.join(att)} against {', '.join(dfn)}{chose}): final factor "
              f"{column} (" + (", ".join(f"{k.replace('_', ' ')} {v:+d}" for k, v in parts.items()) or "no factor")
              + f"), die {die}: {result} (K-CAF-1, K-CAT-1).", side=a["side"], assault=a["n"], attackers=att,
              defenders=dfn, factors=parts, factor=total, die=die, result=result, round=ca["round"],
              breakthrough=bool(a.get("breakthrough")), **more, rule="K-CAT-1")
    n_att, n_def = len(att), len(dfn)
    smaller = min(n_att, n_def)
    def_armour = any(is_armour(board, p) for p in dfn)
    att_armour = any(is_armour(board, p) for p in att)
    attacker, defender = a["side"], other(a["side"])

    def attr(side: str, count: int, enemy_armour: bool, units: list[str] | None = None, why: str = "K-ATR-1") -> dict:
        return {"do": "attr", "side": side, "count": count, "armour": enemy_armour, "tested": [],
                "units": units, "rule": why}

    steps: list[dict] = []
    if result.startswith("DR"):
        extra = losses_of(result)
        if extra:
            steps.append({"do": "loss", "side": defender, "n": extra, "rule": "K-CAR-1"})
        steps += [attr(defender, min(n_def, n_att), att_armour), attr(attacker, min(n_att, n_def), def_armour)]
        if extra:
            steps += [{"do": "withdraw"}, {"do": "retreat"}, {"do": "win"}]
        else:
            steps += [{"do": "counter"}]
    elif result == "DF":
        steps += [attr(defender, smaller, att_armour, why="K-CAR-4"), attr(attacker, smaller, def_armour, why="K-CAR-4")]
        if ca["round"] == 1:   # a Breakthrough too: its "one round of Desperate Fighting" (K-CA-20)
            steps.append({"do": "refight"})
            ctx.event("desperate-fighting", f"Close Assault {a['n']}: Desperate Fighting; after attrition the assault is "
                      f"fought again (K-CAR-4).", assault=a["n"], rule="K-CAR-4")
        else:
            steps.append({"do": "back", "to": None, "rule": "K-CAR-4"})
    else:   # AR, AR+n
        extra = losses_of(result)
        if extra:
            steps.append({"do": "loss", "side": attacker, "n": extra, "rule": "K-CAR-6"})
        steps += [{"do": "back", "to": "HD" if extra else "HA", "rule": "K-CAR-6" if extra else "K-CAR-5"},
                  attr(attacker, min(n_att, n_def), def_armour), attr(defender, min(n_def, n_att), att_armour)]
    ca["steps"] = steps + ca["steps"]


def _take_loss(sc: Scenario, board: Board, step: dict, pid: str, ctx) -> None:
    lose(sc, board, pid, 1, ctx, step.get("rule", "K-CAR-1"), f"Close Assault {board.rules['ca']['n']}")
    step["n"] -= 1
    if step["n"] <= 0:
        board.rules["ca"]["steps"].pop(0)


def _test(sc: Scenario, board: Board, step: dict, pid: str, ctx) -> None:
    """One attrition roll of an Engaged unit (K-CA-13): a loss on 1, on 1-2 if exposed
    (K-ATR-1); at most one loss a round (K-ATR-3)."""
    rules = board.rules
    table = sc.tables["attrition"]
    if not step["tested"]:          # a side's round of attrition begins: its one loss is still to come
        rules["ca"].setdefault("attrition_lost", {})[step["side"]] = False
    step["tested"].append(pid)
    need = table["exposed_loss_on"] if exposed(sc, board, pid, step["armour"]) else table["loss_on"]
    die = ctx.d6(f"t{rules['turn']}.ap{rules['ap']}.ca.{rules['ca']['n']}.attrition.{pid}.{len(rules['ca'].get('rounds', [])) + 1}")
    rules["ca"].setdefault("rounds", []).append(pid)
    hit = die <= need
    ctx.event("attrition", f"{pid} tests attrition: die {die}, a loss on {need} or less: "
              + ("a loss" if hit else "no loss") + " (K-ATR-1).", unit=pid, side=sc.pieces[pid].side, die=die,
              needed=need, loss=hit, rule=step.get("rule", "K-ATR-1"))
    if hit:
        lose(sc, board, pid, 1, ctx, "K-ATR-1", "attrition")
        step["hit"] = True
        rules["ca"]["attrition_lost"][step["side"]] = True
    if hit or len(step["tested"]) >= step["count"] or not attrition_options(sc, rules, step):
        rules["ca"]["steps"].pop(0)


def _counter(sc: Scenario, board: Board, a: dict, attempt: bool, ctx) -> None:
    """K-CAR-3: on a DR the defender may try an orders test to Counter Attack; a Counter Attack is
    not a Close Assault, so Demoralised units may make it (K-CA-19)."""
    rules = board.rules
    ca = rules["ca"]
    dfn = [p for p in ca["def"] if board.alive(p)]
    att = [p for p in ca["att"] if board.alive(p)]
    if not attempt or not dfn:
        ca["steps"] = [{"do": "withdraw"}, {"do": "retreat"}, {"do": "win"}] + ca["steps"]
        return
    mods = change_modifiers(sc, board, dfn, None, counter_attack=True)
    die = ctx.d6(f"t{rules['turn']}.ap{rules['ap']}.ca.{a['n']}.counter")
    score = die + sum(mods.values())
    ok = score >= sc.tables["order_change"]["target"]
    ctx.event("counter-attack", f"Close Assault {a['n']}: {', '.join(dfn)} try a Counter Attack: die {die}" + "".join(
        f", {k.replace('_', ' ')} {v:+d}" for k, v in mods.items()) + f" = {score}: "
        + ("they hold and the assault becomes an AR" if ok else "it fails; they retreat") + " (K-CAR-3).",
        side=other(a["side"]), assault=a["n"], die=die, modifiers=mods, score=score, success=ok, rule="K-CAR-3")
    att_armour = any(is_armour(board, p) for p in att)
    def_armour = any(is_armour(board, p) for p in dfn)
    if ok:
        ca["result"] = "AR"
        ca["steps"] = [{"do": "attr", "side": other(a["side"]), "count": len(dfn), "armour": att_armour, "tested": [],
                        "units": None, "rule": "K-CAR-3"},
                       {"do": "attr", "side": a["side"], "count": len(dfn), "armour": def_armour, "tested": [],
                        "units": None, "rule": "K-CAR-3"},
                       {"do": "back", "to": "HA", "rule": "K-CAR-3"}] + ca["steps"]
    else:
        ca["steps"] = [{"do": "attr", "side": other(a["side"]), "count": len(dfn), "armour": att_armour, "tested": [],
                        "units": None, "rule": "K-CAR-3"},
                       {"do": "withdraw"}, {"do": "retreat"}, {"do": "win"}] + ca["steps"]


def _defenders_retreat(sc: Scenario, board: Board, a: dict, ctx) -> None:
    """The engaged defenders, and the unengaged ones that chose to go with them (`_withdraw`,
    asked before any of them moves), Give Ground away from the assault together, in one
    sequence of the slowest moving first: "Units that Give Ground as a result of a Close Assault
    must move in a sequence of the slowest moving first" (K-GG-6), and "All that Give Ground do
    so immediately and all orders become HD" (K-CAR-1, K-CAR-2); command markers share their
    fate (K-CMK-4)."""
    rules = board.rules
    ca = rules["ca"]
    going = [p for p in ca["def"] if board.alive(p)]
    going += [p for p in ca.get("volunteers", []) if board.alive(p) and p not in going]
    if not going:
        return
    force_order(board, going, "HD", "K-CAR-1", ctx)
    ca["steps"].insert(0, {"do": "follow", "units": going})     # once they have all given ground (K-GG-5 may wait)
    give_ground(sc, board, going, a["from"], ctx, f"t{rules['turn']}.ap{rules['ap']}.ca.{a['n']}.gg", fire=False,
                rule="K-CAR-1")


def _markers_follow(sc: Scenario, board: Board, a: dict, units: list[str], ctx) -> None:
    """Command markers left alone in the square go back with the units that gave ground from
    it (the lowest square they reached), or are destroyed with them (K-CMK-4)."""
    side = other(a["side"])
    if board.at(a["target"], side):
        return
    markers = [h for h in board.hqs_at(a["target"]) if sc.commands[h].side == side]
    landed = sorted({board.piece(p)["sq"] for p in units if board.alive(p)})
    for h in markers:
        if landed:
            board.move_hq(h, landed[0])
            ctx.event("hq-retreats", f"{h} goes back with its units to {landed[0]} (K-CMK-4).", hq=h, to=landed[0],
                      rule="K-CMK-4")
            # K-SFX-5: the marker's movement out of the square and into the one it reaches rolls for
            # their minelets, as a plain marker move does
            marker_mines(sc, board, h, a["target"], landed[0], ctx,
                         f"t{board.rules['turn']}.ap{board.rules['ap']}.ca.{a['n']}.mines.{h}")
        else:
            board.move_hq(h, None)
            ctx.event("hq-destroyed", f"{h} is destroyed with the units in {a['target']} (K-CMK-4).", hq=h,
                      side=side, rule="K-CMK-4")


def _markers_fate(sc: Scenario, board: Board, a: dict, ctx) -> None:
    """K-CMK-4: command markers "suffer the result of the other units fighting, being destroyed if
    all other friendly units are", whatever the result (AR, a second DF, attrition after a DR):
    once the assault is over, the markers that went in with its attackers (`hqs`) are destroyed if
    every attacker of the fight is, and the defender's markers in the assaulted square if no unit
    of their side is left there (a marker that went back with retreating units is no longer
    there, `_markers_follow`). A fight never fought (no attacker left to make it) changes
    nothing."""
    rules = board.rules
    ca = rules["ca"]
    if not ca.get("fought"):
        return
    if not any(board.alive(u) for u in ca["att"]):
        for h in a.get("hqs", []):
            if rules["hqs"].get(h, {}).get("sq") == a["from"]:
                board.move_hq(h, None)
                ctx.event("hq-destroyed", f"{h}, who went in with {', '.join(ca['att'])} in Close Assault {a['n']}, is "
                          f"destroyed with them (K-CMK-4).", hq=h, side=a["side"], assault=a["n"], rule="K-CMK-4")
    side = other(a["side"])
    if not board.at(a["target"], side):
        for h in [h for h in board.hqs_at(a["target"]) if sc.commands[h].side == side]:
            board.move_hq(h, None)
            ctx.event("hq-destroyed", f"{h} is destroyed in {a['target']}: no unit of {side} is left there after Close "
                      f"Assault {a['n']} (K-CMK-4).", hq=h, side=side, assault=a["n"], rule="K-CMK-4")


def marker_mines(sc: Scenario, board: Board, hid: str, here: str, to: str, ctx, label: str) -> None:
    """A command marker that goes with units (into the square they occupy after a Close Assault,
    or back with units giving ground from it) rolls for minelets as a plain marker move does
    (K-SFX-5, `movement.marker_mines`): on foot, as infantry, in an Action Phase in which
    infantry moves (the owner's better way, README reading), else in its vehicles."""
    way = "infantry" if "infantry" in movement.marker_ways(sc, hid, board.rules["ap"]) else "troops"
    movement.marker_mines(sc, board, hid, here, to, way, ctx, label)


def _withdraw(sc: Scenario, board: Board, a: dict, pid: str, ctx) -> None:
    """An unengaged defender elects to give ground voluntarily, rolling attrition as a loser
    (K-CAR-1, K-CAR-2); it gives ground with the engaged defenders, slowest first (K-GG-6,
    `_defenders_retreat`): every unengaged unit is asked before any unit moves."""
    rules = board.rules
    side = sc.pieces[pid].side
    if rules["ca"].get("attrition_lost", {}).get(side):
        # K-ATR-3: "a maximum of one may be caused from any one Assault": the side took it in
        # this round, so the volunteer's roll could cause nothing
        ctx.event("attrition", f"{pid} gives ground without an attrition test: its side has taken the one attrition "
                  f"loss of this round of Close Assault {rules['ca']['n']} (K-ATR-3).", unit=pid, side=side,
                  loss=False, rule="K-ATR-3")
    else:
        att_armour = any(is_armour(board, p) for p in rules["ca"]["att"] if board.alive(p))
        step = {"do": "attr", "side": side, "count": 1, "armour": att_armour, "tested": [], "units": [pid],
                "rule": "K-CAR-1"}
        rules["ca"]["steps"].insert(0, step)
        _test(sc, board, step, pid, ctx)
    if board.alive(pid):
        rules["ca"].setdefault("volunteers", []).append(pid)


def _win(sc: Scenario, board: Board, a: dict, ctx) -> None:
    rules = board.rules
    a["fought"] = True
    if board.at(a["target"], other(a["side"])):
        a["won"] = True
        if a.get("breakthrough"):
            att = [u for u in rules["ca"]["att"] if board.alive(u)]
            ctx.event("breakthrough-held", f"Breakthrough Close Assault {a['n']} won, but enemy units remain in "
                      f"{a['target']}: the attackers give ground to {a['from']} (K-CA-20).", assault=a["n"], rule="K-CA-20")
            _back(sc, board, a, att, None, ctx, "K-CA-20")
            a["won"] = False
        else:
            ctx.event("assault-won", f"Close Assault {a['n']} won; enemy units remain in {a['target']}: the attackers may "
                      f"make a Breakthrough Close Assault when the phase's assaults are done (K-CAR-1, K-CA-20).",
                      assault=a["n"], rule="K-CAR-1")
        return
    markers = [h for h in board.hqs_at(a["target"]) if sc.commands[h].side == other(a["side"])]
    for h in markers:
        board.move_hq(h, None)
        ctx.event("hq-destroyed", f"{h} is destroyed in {a['target']} (K-CMK-4).", hq=h, side=other(a["side"]),
                  rule="K-CMK-4")
    rules["ca"]["steps"].insert(0, {"do": "occupy", "fought": True})


def _occupy(sc: Scenario, board: Board, a: dict, step: dict, ctx) -> None:
    """K-CA-14/15/17: successful attackers occupy the cleared square, those who fought and won
    first, the owner choosing among them; the rest stay back (K-CA-16)."""
    rules = board.rules
    att = [u for u in rules["ca"]["att"] if board.alive(u)]
    side = a["side"]
    facing = sc.grid.direction(a["from"], a["target"])
    room = layout.MAX_UNITS - len(board.at(a["target"], side))
    if len(att) > room and room > 0 and "choose" not in step:
        step.update(choose=list(att), order=[], room=room)     # the owner chooses who goes in (K-CA-15)
        rules["ca"]["steps"].insert(0, step)
        return
    entering = step["order"] if "choose" in step else att[:max(room, 0)]
    placed = []
    group = None
    cells = layout.place_cells(sc, board, a["target"], entering, facing, len(entering) > 1)
    while entering and cells is None:
        entering = entering[:-1]
        cells = layout.place_cells(sc, board, a["target"], entering, facing, len(entering) > 1) if entering else None
    if entering and cells:
        for p in entering:
            board.leave_group(p)
        if len(entering) > 1 and all(layout.can_group(sc, entering[0], p) for p in entering[1:]) and \
                len({board.order(p) for p in entering}) == 1:
            group = board.new_group()
        for p, cell in zip(entering, cells):
            board.place(p, a["target"], cell, facing)
            if group:
                board.piece(p)["g"] = group
            placed.append(p)
            mark(rules, "ps", "left", p)
            _record_move(sc, board, a, p)
        if layout.check_square(sc, board, a["target"]) is not None and group:
            board.set_group(placed, None)
        layout.close_ranks(sc, board, [a["from"]], ctx)    # those left behind close up (K-GM-2)
        force_order(board, placed, "HD", "K-CAR-1", ctx, when=("FA", "PA"))
        going_in = [h for h in a.get("hqs", []) if rules["hqs"].get(h, {}).get("sq") == a["from"]]
        for h in going_in:
            board.move_hq(h, a["target"])
        if a["target"] in rules["held"]:
            rules["held"][a["target"]] = side
        occupy = "occupies" if len(placed) == 1 else "occupy"
        ctx.event("occupy", f"{', '.join(placed)} {occupy} {a['target']}, facing {facing} (K-CA-14, K-CA-17).",
                  side=side, assault=a["n"], units=placed, square=a["target"], rule="K-CA-14")
        # the defenders' markers went with them (_win, _markers_follow): this finds none unless
        # a later rule leaves one behind
        displace_markers(sc, board, a["target"], side, ctx, f"which {', '.join(placed)} {occupy}")
        rules["ca"]["steps"].insert(0, {"do": "face", "units": placed})
        for p in placed:
            movement.after_step(sc, board, p, a["from"], a["target"], ctx,
                                f"t{rules['turn']}.ap{rules['ap']}.ca.{a['n']}.mines.{p}")
        # K-SFX-5: "Any vehicle movement, including command markers, within, in or out of such a
        # square may take a loss": the markers that went in with the occupiers roll as a plain
        # marker move does, after the units
        for h in going_in:
            marker_mines(sc, board, h, a["from"], a["target"], ctx,
                         f"t{rules['turn']}.ap{rules['ap']}.ca.{a['n']}.mines.{h}")
    stay = [u for u in att if u not in placed]
    if stay:
        ctx.event("pull-back", f"{', '.join(stay)} stay in {a['from']}: no room in {a['target']} (K-CA-16).", units=stay,
                  rule="K-CA-16")


def _record_move(sc: Scenario, board: Board, a: dict, pid: str) -> None:
    """The turn's record of an occupier's move, as a move makes it (K-INF-4, K-MOV-7). A unit that
    dismounted in a Close Assault of this phase made the assault move in its vehicles (it may
    assault dismounting only in an Action Phase it may move in them, K-INF-4 reading); one that
    moved in its vehicles earlier in the turn keeps that record, so it may not then move on foot
    (K-INF-4). Occupying a square across terrain that allows one move a turn is the unit's one
    move of the turn (K-TER-8, K-MOV-7)."""
    rules = board.rules
    dismounted = any(x.get("dismount") and pid in x["units"] for x in rules["assaults"])
    prof = sc.profile(pid, "mounted") if dismounted else board.profile(pid)
    if prof.vehicle or rules["ts"]["moved"].get(pid) == "vehicle":
        rules["ts"]["moved"][pid] = "vehicle"
    else:
        rules["ts"]["moved"][pid] = "foot"
    if movement.slowed(sc, prof, a["from"], a["target"]):
        mark(rules, "ts", "locked", pid)


def check_face(sc: Scenario, rules: dict, step: dict, order: dict) -> dict | None:
    """A `face` order in its full form (K-CA-17, K-CAR-1: the occupiers "may reorganise in any
    legal facing and any group may split down to smaller groups or individual units"):
    `facings` gives a unit its own facing (the others take `facing`), `groups` the battle
    groups they form (each of two or more of them, facing one way; the rest stand alone), in
    place of `group`. Returns the arrangement ({"bodies": [[units, facing, grouped]], "cells":
    {unit: cell}}); None for the simple form (`facing` and `group` only), which `facing_options`
    lists. Raises IllegalOrder, one sentence, for an arrangement the layout rules refuse."""
    if "facings" not in order and "groups" not in order and "group" in order:
        return None
    board = Board(sc, rules)
    units = [u for u in step["units"] if board.alive(u)]
    named = ", ".join(units)
    if ("group" in order) == ("groups" in order):
        raise IllegalOrder("K-CA-17", "face: give `group` (all the occupiers one battle group, or none) or `groups` (the "
                           "battle groups they form), not both nor neither", None)
    facings = dict(order.get("facings") or {})
    stray = [u for u in facings if u not in units]
    if stray:
        raise IllegalOrder("K-CA-17", f"face: {stray[0]} is not one of the units that occupied the square ({named})", None)
    facing_of = {u: facings.get(u, order["facing"]) for u in units}
    if "groups" in order:
        groups = [list(g) for g in order["groups"]]
    else:
        groups = [list(units)] if order["group"] and len(units) > 1 else []
    seen: set[str] = set()
    for g in groups:
        bad = [u for u in g if u not in units]
        if bad:
            raise IllegalOrder("K-CA-17", f"face: {bad[0]} is not one of the units that occupied the square ({named})",
                               None)
        twice = [u for u in g if u in seen or g.count(u) > 1]
        if twice:
            raise IllegalOrder("K-CA-17", f"face: {twice[0]} is named in more than one battle group", None)
        seen.update(g)
        if len(g) < 2:
            raise IllegalOrder("K-GM-5", f"face: a battle group is two or more units: {g[0]} alone is none (leave it "
                               f"out of `groups`, K-GM-5)", None)
        ways = sorted({facing_of[u] for u in g})
        if len(ways) > 1:
            raise IllegalOrder("K-GM-5", f"face: a battle group faces one way: {', '.join(g)} would face "
                               f"{' and '.join(ways)} (K-GM-5, K-CA-17)", None)
    bodies = [[sorted(g), facing_of[g[0]], True] for g in groups]
    bodies += [[[u], facing_of[u], False] for u in units if u not in seen]
    square = rules["pieces"][units[0]]["sq"]
    cells = arrange(sc, board, square, units, bodies)
    if cells is None:
        raise IllegalOrder("K-GM-2", f"face: {named} cannot stand in {square} so: each unit stands closest to the edge it "
                           f"faces, behind a friendly unit facing the same way, each battle group in edge contact "
                           f"(K-GM-2, K-GM-5, K-CA-17)", None)
    entries = {p: dict(rules["pieces"][p]) for p in board.at(square) if p not in units}
    for k, (members, f, grouped) in enumerate(bodies):
        for p in members:
            entries[p] = dict(rules["pieces"][p], cell=cells[p], f=f)
            entries[p].pop("g", None)
            if grouped:
                entries[p]["g"] = f"new{k}"
    why = layout.check_entries(sc, square, entries)
    if why:
        raise IllegalOrder("K-CA-17", f"face: {why}", None)
    return {"bodies": bodies, "cells": cells}


def arrange(sc: Scenario, board: Board, square: str, movers: list[str], bodies: list) -> dict[str, str] | None:
    """Cells for the bodies ([units, facing, grouped], in order) of `movers` in `square`, the
    front-most found body by body: every unit closest to the edge it faces (K-GM-2), each group
    in edge contact (K-GM-5); the other units there keep their places, the movers' own places
    count as free. None if there is none."""
    rules = board.rules
    mine = set(movers)
    fixed = {rules["pieces"][p]["cell"]: rules["pieces"][p]["f"] for p in board.at(square) if p not in mine}
    budget = [20000]      # a bound on the search (six units in nine cells never come near it)

    def sound(placed: dict[str, str]) -> bool:
        # no unit stands behind a unit facing elsewhere (an empty place ahead may be filled later)
        return all(placed.get(layout.in_front(f, c), f) == f for c, f in placed.items())

    def search(i: int, placed: dict[str, str], got: dict[str, str]) -> dict[str, str] | None:
        if i == len(bodies):
            complete = all(layout.in_front(f, c) is None or layout.in_front(f, c) in placed for c, f in placed.items())
            return dict(got) if complete else None
        members, f, grouped = bodies[i]
        free = [c for c in layout.PLACES[f] if c not in placed]
        for chosen in combinations(free, len(members)):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if grouped and not layout.connected(chosen):
                continue
            trial = dict(placed, **{c: f for c in chosen})
            if not sound(trial):
                continue
            found = search(i + 1, trial, dict(got, **dict(zip(members, chosen))))
            if found is not None:
                return found
        return None

    return search(0, fixed, {})


def _reface_each(sc: Scenario, board: Board, plan: dict, ctx) -> None:
    """K-CA-17, K-CAR-1: the occupiers reorganise as the full `face` order says (`check_face`):
    each body its facing, the groups new battle groups, the rest single units."""
    units = [p for members, _, _ in plan["bodies"] for p in members]
    square = board.piece(units[0])["sq"]
    for u in units:
        board.leave_group(u)
    words = []
    for members, f, grouped in plan["bodies"]:
        group = board.new_group() if grouped else None
        for p in members:
            board.place(p, square, plan["cells"][p], f)
            if group:
                board.piece(p)["g"] = group
        words.append(f"{', '.join(members)} face {f} as one battle group" if grouped else
                     f"{members[0]} faces {f} alone")
    ctx.event("occupy-facing", f"In {square}: {'; '.join(words)} (K-CA-17).", units=sorted(units),
              facings={p: f for members, f, _ in plan["bodies"] for p in members},
              groups=[members for members, _, grouped in plan["bodies"] if grouped], chosen_by=ctx.chosen_by,
              rule="K-CA-17")


def _reface(sc: Scenario, board: Board, units: list[str], facing: str, grouped: bool, ctx) -> None:
    """K-CA-17: the occupiers take the facing chosen, as one group or as single units."""
    units = [u for u in units if board.alive(u)]
    square = board.piece(units[0])["sq"]
    cells = layout.place_cells(sc, board, square, units, facing, grouped)
    for u in units:
        board.leave_group(u)
    group = board.new_group() if grouped else None
    for u, cell in zip(units, cells):
        board.place(u, square, cell, facing)
        if group:
            board.piece(u)["g"] = group
    ctx.event("occupy-facing", f"{', '.join(units)} {'face' if len(units) > 1 else 'faces'} {facing} in {square}"
              + (" as one battle group" if grouped else (" as single units" if len(units) > 1 else "")) + " (K-CA-17).",
              units=units, facing=facing, group=grouped, chosen_by=ctx.chosen_by, rule="K-CA-17")


def _back(sc: Scenario, board: Board, a: dict, att: list[str], to: str | None, ctx, rule: str) -> None:
    """The attackers Give Ground to the square they came from, keeping facing and grouping
    (K-CA-18): they are back where they stood; FA or PA drop as the result says. Having Given
    Ground, they are safe from further fire (K-DF-8), move no more (K-GG-9) and may not support
    a defence (K-CA-7) in the phase."""
    if to is not None:
        force_order(board, att, to, rule, ctx, when=("FA", "PA"))
    for p in att:
        mark(board.rules, "ps", "gg", p)
        mark(board.rules, "ps", "moved", p)
    if att:
        ctx.event("attackers-back", f"{', '.join(att)} {agreeing(att, 'gives', 'give')} ground back to {a['from']}, "
                  f"still facing {board.piece(att[0])['f']} ({rule}, K-CA-18).", side=a["side"], units=att,
                  square=a["from"], rule=rule)
