"""Victory Points and victory (19.0-19.2), and the checks that award them: No Retreats
(16.5), directive deadlines (16.6), the continuous front (17.0), the Don line and Soviet
retreats (18.2), strategic withdrawal (18.14), the Volga (19.17) and Astrakhan (19.22)."""

from __future__ import annotations

from .board import Board, control_key, memo, view
from .scenario import Scenario, other
from . import state as st
from . import supply as sp


# --- cities and VP (19.1, 19.2) ----------------------------------------------------------------------

def city_control(sc: Scenario, rules: dict, name: str, board: Board | None = None) -> str | None:
    """19.11: the player who was last in every hex of the city (19.21: Voronezh's two hexes;
    19.22: Astrakhan needs three divisions exited and an Axis unit in S1001). A directive's
    city is captured when this gives the Axis (16.62)."""
    city = sc.city_by_name[name]
    if name == "Astrakhan":
        if exited_divisions(sc, rules) < sc.astrakhan["exits_needed"]:
            return "soviet"
        return "axis" if holds_astrakhan(sc, rules, board or view(sc, rules)) else "soviet"
    hexes = sc.voronezh_counts if name == "Voronezh" else city.hexes
    who = None
    for h in hexes:
        side = st.control(sc, rules, sc.idx[h])
        if who is None:
            who = side
        elif side != who:
            return None
    return who


def exited_divisions(sc: Scenario, rules: dict) -> int:
    """19.22 reading: divisions counted as in 16.34 (a regiment stands for its division); an
    Army HQ that exits is no division (11.0) and counts for none."""
    return len({sc.units[u].division or u for u in rules["exits"] if sc.units[u].combat})


def holds_astrakhan(sc: Scenario, rules: dict, board: Board) -> bool:
    """19.22 reading: "at least one unit in hex S1001" is an Axis unit that holds ground, a
    combat unit or an HQ: not a truck nor an air unit, which count for no stacking (7.1), exert
    no zone of control and are displaced by Soviet units passing through (12.38, 14.13)."""
    i = sc.idx[sc.astrakhan["hex"]]
    return any(sc.side_of[u] == "axis" and (sc.units[u].combat or sc.units[u].hq) for u in board.units_at(i))


def vp(sc: Scenario, rules: dict) -> dict[str, int]:
    """Each side's Victory Points: the cities it holds (19.2), the Axis bonuses (19.12) and
    everything gained or lost otherwise (16.55, 16.63, 17.2, 18.14, 18.22, 19.17). Cities none
    of whose hexes ever changed hands are held as at the start (5.11, 5.12), which makes the
    Axis 30 and the Soviet 175 of 5.13."""
    if exited_divisions(sc, rules) < sc.astrakhan["exits_needed"]:
        # Astrakhan is Soviet whatever the board holds (19.22): the cities' VP read control alone
        key = ("city-vp", id(sc), control_key(rules), bool(rules["exits"]))
        axis, soviet = memo(sc, key, lambda: _city_vp(sc, rules))
    else:
        axis, soviet = _city_vp(sc, rules)
    return {"axis": rules["vp"]["axis"] + sum(rules["bonus"].values()) + axis, "soviet": rules["vp"]["soviet"] + soviet}


def _city_vp(sc: Scenario, rules: dict) -> tuple[int, int]:
    """(Axis, Soviet) VP of the cities each side holds (19.2): `vp`, judged after every order,
    keeps them by the control of rail and city hexes while Astrakhan cannot fall."""
    total = {"axis": 0, "soviet": 0}
    touched = {sc.city_of[sc.idx[h]].name for h in sc.city_hex_ids.intersection(rules["control"])}
    if rules["exits"]:
        touched.add("Astrakhan")
    for city in sc.vp_cities:
        who = city_control(sc, rules, city.name) if city.name in touched else sc.city_start[city.name]
        if who:
            total[who] += city.vp
    return total["axis"], total["soviet"]


def after_order(sc: Scenario, rules: dict, ctx) -> None:
    """What is judged after every order: the Axis capture bonuses (19.12), then the thresholds
    of `judge`."""
    if rules["result"] is not None or rules["phase"] in ("selection", "setup"):
        return
    for city in sc.vp_cities:
        if city.bonus_turn and city.name not in rules["bonus"] and rules["turn"] <= city.bonus_turn:
            if city_control(sc, rules, city.name) == "axis":
                rules["bonus"][city.name] = city.vp
                ctx.event("vp", f"The Axis takes {city.name} by Game-Turn {city.bonus_turn}: a bonus of {city.vp} VP, "
                          f"never lost (19.12).", side="axis", vp=city.vp, city=city.name, rule="19.12")
    judge(sc, rules, ctx)


def judge(sc: Scenario, rules: dict, ctx) -> None:
    """The thresholds of the score, judged "at any point" (15.41, 19.0): after every order and
    after every VP an automatic stage awards (`award`), so that a total passing a threshold
    between two orders is seen where it does.
    - 15.41: the doubling of the north-map reinforcements comes into force once an Axis unit
      has occupied or passed through N0139, N0840 or N1340 while the Soviet player held 100 VP
      or more (a passage is noted as it happens, state.enter_hex); 15.44: it ends for good when
      his total falls below 100, even in the same order that brought it.
    - 19.0: an Axis total three times the Soviet one or better ends the game."""
    score = vp(sc, rules)
    if rules["accel"] is None and (rules["accel_met"] or (score["soviet"] >= st.ACCEL_VP
                                                         and _axis_in_accel_hex(sc, rules))):
        rules["accel"] = "on"
        ctx.event("acceleration", "An Axis unit has reached N0139, N0840 or N1340 while the Soviet player holds 100 or "
                  "more VP: he may double his reinforcements on the north map (15.41).", rule="15.41")
    if rules["accel"] == "on" and score["soviet"] < st.ACCEL_VP:
        rules["accel"] = "over"
        ctx.event("acceleration", "The Soviet VP are below 100: the doubled north-map reinforcements end (15.44).",
                  rule="15.44")
    if score["axis"] >= sc.auto_ratio * score["soviet"]:
        rules["result"] = {"winner": "axis", "level": "Decisive Axis Victory", "vp": score, "automatic": True,
                           "text": f"Decisive Axis Victory: {score['axis']} VP against {score['soviet']}, 3:1 or better "
                                   f"(19.0)."}
        rules["phase"] = "over"
        rules["combat"] = None
        rules["pending"] = []
        ctx.event("victory", rules["result"]["text"], result=rules["result"], rule="19.0")


def _axis_in_accel_hex(sc: Scenario, rules: dict) -> bool:
    """15.41 "occupies": an Axis unit stands in N0139, N0840 or N1340 now (passing through is
    noted as it happens, state.enter_hex)."""
    return not {sc.ids[i] for i in sc.accel_hexes}.isdisjoint(sc.places(rules["units"], "axis"))


def level_of(score: dict[str, int]) -> tuple[str, str]:
    """19.0: the level of victory and its winner by the ratio of Axis to Soviet VP."""
    a, s = score["axis"], score["soviet"]
    if a >= 3 * s:
        return "Decisive Axis Victory", "axis"
    if a >= 2 * s:
        return "Marginal Axis Victory", "axis"
    if a > s:
        return "Marginal Soviet Victory", "soviet"
    return "Decisive Soviet Victory", "soviet"


def final(sc: Scenario, rules: dict, ctx) -> None:
    """19.0: after Game-Turn 25, by the ratio of Axis to Soviet VP."""
    score = vp(sc, rules)
    a, s = score["axis"], score["soviet"]
    level, winner = level_of(score)
    rules["result"] = {"winner": winner, "level": level, "vp": score, "automatic": False,
                       "text": f"{level}: Axis {a} VP, Soviet {s} VP after Game-Turn {rules['turn']} (19.0)."}
    rules["phase"] = "over"
    ctx.event("victory", rules["result"]["text"], result=rules["result"], rule="19.0")


def award(sc: Scenario, rules: dict, side: str, points: int, text: str, ctx, rule: str) -> None:
    """VP gained or lost by an automatic stage, and the thresholds judged at once (`judge`);
    once the game is over nothing more is awarded."""
    if points and rules["result"] is None:
        rules["vp"][side] += points
        ctx.event("vp", text, side=side, vp=points, rule=rule)
        judge(sc, rules, ctx)


# --- 16.5 No Retreats and 18.23: the hexrows held at the start of a player-turn ----------------------

def record_zoc(sc: Scenario, rules: dict, side: str) -> None:
    """At the start of a player-turn: per hexrow, the easternmost hex in Axis ZOC (16.51, 16.52, 16.54:
    hexrows N01-N36, while No Retreats is in force) or the westernmost in Soviet ZOC inside the
    area of 16.31 (18.23, 18.25)."""
    rules["pt"]["zoc"] = {}
    if side == "axis":
        d = rules["directive"]
        if not d or not sc.directive_contents[d["letter"]]["no_retreats"]:
            return
        zoc = view(sc, rules).zoc("axis")
        best: dict[str, int] = {}
        for i in zoc:
            if 1 <= sc.hexrow_n[i] <= 36:
                row = sc.hexrow_label[i]
                if row not in best or sc.x2[i] < sc.x2[best[row]]:
                    best[row] = i
    else:
        zoc = view(sc, rules).zoc("soviet")
        best = {}
        for i in zoc:
            if i in sc.across_don:
                row = sc.hexrow_label[i]
                if row not in best or sc.x2[i] > sc.x2[best[row]]:
                    best[row] = i
    rules["pt"]["zoc"] = {row: sc.ids[i] for row, i in sorted(best.items())}


def zoc_held(sc: Scenario, rules: dict) -> list[str]:
    """The recorded hexes (16.51, 18.23) still in the phasing side's ZOC as a combat of its
    Combat Phase begins: the ground that combat may surrender (16.53, 18.24)."""
    recorded = rules["pt"]["zoc"]
    if not recorded or rules["phase"] != "combat":
        return []
    zoc = view(sc, rules).zoc(rules["player"])
    return [h for row, h in sorted(recorded.items()) if sc.idx[h] in zoc]


def note_surrendered(sc: Scenario, rules: dict, held: list[str]) -> None:
    """16.53, 18.24: a recorded hex that a combat of the Combat Phase takes out of the phasing
    side's ZOC is excused. Only a combat's own results do (`held`: the recorded hexes in ZOC as
    it began); ground already given up by movement stays owed, whatever combats follow."""
    if not held or rules["phase"] != "combat":
        return
    zoc = view(sc, rules).zoc(rules["player"])
    for h in held:
        if sc.idx[h] not in zoc:
            st.mark(rules["pt"]["surrendered"], h)


def zoc_owed(sc: Scenario, rules: dict, side: str) -> list[str]:
    """The recorded hexes (16.51, 18.23) out of `side`'s ZOC as things stand, neither excused
    (16.53, 18.24) nor made good by a hex further east (Axis) or west (Soviet) in the hexrow:
    what the end of the player-turn would charge now."""
    recorded = rules["pt"]["zoc"]
    if not recorded:
        return []
    zoc = view(sc, rules).zoc(side)
    failed = []
    for row, h in recorded.items():
        i = sc.idx[h]
        if i in zoc or st.has(rules["pt"]["surrendered"], h):
            continue
        if side == "axis":
            ok = any(sc.hexrow_label[j] == row and sc.x2[j] < sc.x2[i] for j in zoc)
        else:
            # 18.23: any hex further west in the hexrow, across the Don or not (18.25 limits the
            # hexes to be held to the area of 16.31, not those that excuse them)
            ok = any(sc.hexrow_label[j] == row and sc.x2[j] > sc.x2[i] for j in zoc)
        if not ok:
            failed.append(h)
    return failed


def check_zoc(sc: Scenario, rules: dict, side: str, ctx) -> None:
    """16.55 (Soviet VP at the end of the Axis player-turn) and 18.23 (Axis VP at the end of the
    Soviet player-turn, 19.13 and its reading): one VP per hexrow whose recorded hex is out of
    the side's ZOC with no hex further east (Axis) or west (Soviet) in it."""
    failed = zoc_owed(sc, rules, side)
    if failed:
        gainer = other(side)
        rule = "16.55" if side == "axis" else "18.23"
        award(sc, rules, gainer, len(failed), f"The {side} player gave up ground he had to hold ({', '.join(failed)}): "
              f"{len(failed)} VP to the {gainer} player ({rule}).", ctx, rule)


# --- the Game-Turn Record Inter-Phase (4.2 D) ----------------------------------------------------------

def continuous_front(sc: Scenario, rules: dict, side: str, board: Board) -> bool:
    """17.11 (reading): a chain of adjacent hexes from the north edge to hexrow N36, each held
    by a friendly combat unit or HQ, or in friendly ZOC, and none holding an enemy unit."""
    zoc = board.zoc(side)
    held = {i for i in board.occ if board.has_combat(i, side)}
    enemy = {i for i in board.occ if board.has_combat(i, other(side))}
    ok = (zoc | held) - enemy
    todo = [i for i in sc.edge["north"] if i in ok]
    seen = set(todo)
    while todo:
        a = todo.pop()
        if sc.hexrow_n[a] == 36:
            return True
        for b in sc.nb[a]:
            if b in ok and b not in seen:
                seen.add(b)
                todo.append(b)
    return False


def don_line_failures(sc: Scenario, rules: dict, board: Board) -> list[str]:
    """18.21, 18.22: east-bank hexes of the Voronezh-Don line neither held by a Soviet combat
    unit (an HQ is one, 11.41: "treated in all respects like normal combat units") nor in
    Soviet ZOC, except in hexrows where a hex west of the Don holds "one or more Soviet units"
    (any, an air unit too) or is in Soviet ZOC; none at all while "one or more Axis units are
    across the Don": any, a truck or an air unit too, as 16.31 says of every unit in its area
    (its division count is 16.32-16.34's; until 1.21.0 only combat units and HQs counted)."""
    if any(i in sc.across_don and board.side_at(i) == "axis" for i in board.occ):
        return []
    zoc = board.zoc("soviet")
    held = {i for i in board.occ if board.has_combat(i, "soviet")}
    west_rows = {sc.hexrow_label[i] for i in sc.west_of_don if i in zoc or board.side_at(i) == "soviet"}
    return [sc.ids[i] for i in sc.don_line if i not in zoc and i not in held and sc.hexrow_label[i] not in west_rows]


def volga_supplied(sc: Scenario, rules: dict) -> bool:
    """19.17: whether a supplied Axis combat unit stands on the Volga, judged as the Game-Turn
    Record Inter-Phase begins, on the supply of the Game-Turn it closes: a railhead of that turn
    still counts (and is used by it, 12.33), one the inter-phase places counts only in the next
    ("During the immediately subsequent Game-Turn", 12.33; the rail it clears likewise, 6.44)."""
    board = view(sc, rules)
    volga = [u for i, us in board.occ.items() if i in sc.volga_hex for u in us
             if sc.side_of[u] == "axis" and sc.units[u].combat]
    return bool(volga and sp.supplied(sc, rules, board, "axis", volga, mark=True))


def interphase_vp(sc: Scenario, rules: dict, ctx) -> None:
    """4.2 D in the order README.md fixes: continuous fronts (17.2, 19.15), the Don line (18.22),
    strategic withdrawal (18.14, 19.16), directive deadlines (16.63, 19.14), the Volga (19.17),
    Astrakhan (19.22). A total that reaches 3:1 (19.0) ends the game at the award that brings
    it, and nothing after it is counted."""
    board = view(sc, rules)
    turn = rules["turn"]
    for side in ("axis", "soviet"):
        if not continuous_front(sc, rules, side, board):
            award(sc, rules, other(side), 1, f"The {side} player has no continuous front: 1 VP to the "
                  f"{other(side)} player (17.2).", ctx, "17.2")
    if rules["result"] is not None:
        return
    if turn >= 4:
        failed = don_line_failures(sc, rules, board)
        award(sc, rules, "axis", len(failed), f"Don line hexes neither held nor in Soviet ZOC ({', '.join(failed)}): "
              f"{len(failed)} VP to the Axis (18.22).", ctx, "18.22")
    if rules["result"] is not None:
        return
    if rules["strategic"]:
        lost = turn // 2
        award(sc, rules, "soviet", -lost, f"Strategic withdrawal on Game-Turn {turn}: the Soviet player loses "
              f"{lost} VP (18.14).", ctx, "18.14")
        rules["strategic"] = False
    d = rules["directive"]
    if d:
        for city, due in sorted(d["deadlines"].items()):
            if rules["result"] is not None:
                return
            if turn < due or city in d.get("met", ()):
                continue
            if city_control(sc, rules, city, board) == "axis":
                # captured on schedule, or at last after it: the objective of this directive is
                # met, and losing the city later costs nothing under it (16.63: the VP follow a
                # failure "by the end of the mandated Game-Turn", each further turn "that the Axis
                # Player fails to capture the city"; 16.64: "failed to capture on schedule"; a
                # rules probe: a city held at its deadline and lost later paid every turn after)
                st.mark(d.setdefault("met", []), city)
                continue
            value = sc.city_by_name[city].vp
            paid = rules["penalty"].get(city, 0)
            points = min(2, value - paid)
            if points > 0:
                rules["penalty"][city] = paid + points
                award(sc, rules, "soviet", points, f"Directive {d['letter']} ordered {city} taken by Game-Turn {due}: "
                      f"{points} VP to the Soviet player ({paid + points} of {value} in all, 16.63).", ctx, "16.63")
    if rules["result"] is not None:
        return
    if rules["ps"].get("volga_supplied"):
        award(sc, rules, "axis", sc.volga_vp, "A supplied Axis combat unit stands on the Volga: 1 VP (19.17).", ctx,
              "19.17")
    if rules["exits"] and rules["result"] is None:
        if holds_astrakhan(sc, rules, board):
            rules["lapse"] = 0
        else:
            rules["lapse"] += 1
            if rules["lapse"] >= sc.astrakhan["lapse_interphases"]:
                gone = list(rules["exits"])
                for uid in gone:
                    st.remove(rules, uid, "gone")
                rules["exits"] = []
                rules["lapse"] = 0
                ctx.event("eliminated", f"No Axis unit in {sc.astrakhan['hex']} for three Game-Turn Record Inter-Phases: "
                          f"the units that left the map ({', '.join(gone)}) are eliminated (19.22).", units=gone,
                          side="axis", rule="19.22")
