"""Victory (4.1-4.5) and the optional conditions of 14.0. VP are integers in HALF points."""

from __future__ import annotations

from collections import deque

from . import board as bd
from . import state as st
from .scenario import Scenario


def german_line(sc: Scenario, rules: dict) -> bool:
    """4.3: a road line from 2541 to the south or west edge, through no Soviet unit and no
    Soviet zone of control (a German unit in the hex does not help)."""
    zone, _ = bd.zoc(sc, rules, "soviet")
    soviet = bd.occupied(sc, rules, "soviet")
    start = sc.loc_from
    blocked = zone | soviet
    if start in blocked:
        return False
    seen = {start}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        if h in sc.loc_edge_hexes:
            return True
        for n in sc.road_next.get(h, ()):
            if n not in seen and n not in blocked:
                seen.add(n)
                queue.append(n)
    return False


def exit_line(sc: Scenario, rules: dict, start: str) -> bool:
    """4.4: a line from the exit hex to 4316 or 4323, both included, through no hex with German
    units and no German-controlled hex (3.3 with its zone-of-control clause: `board.control`)."""
    german = bd.occupied(sc, rules, "german")
    goals = set(sc.exit_loc_to)
    of = bd.control(sc, rules)

    def open_(h: str) -> bool:
        return h not in german and of(h) != "german"

    if not open_(start):
        return False
    seen = {start}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        if h in goals:
            return True
        for n in sc.neigh[h]:
            if n not in seen and open_(n):
                seen.add(n)
                queue.append(n)
    return False


def vp(sc: Scenario, rules: dict) -> dict:
    """VP in halves by side, with the items that make them up."""
    v = sc.victory
    options = sc.options
    halves = {"soviet": 0, "german": 0}
    items: list[dict] = []

    def add(side: str, h: int, what: str, rule: str) -> None:
        if h:
            halves[side] += h
            items.append({"side": side, "halves": h, "what": what, "rule": rule})

    # only units eliminated, below their printed strength or off the map by 4.4 score (4.1, 4.4)
    scoring = {uid for uid, where in rules["units"].items() if where == "gone"}
    scoring.update(rules["strength"], rules["exit_vp"])
    for uid in sorted(scoring):
        u = sc.units[uid]
        enemy = "german" if u.side == "soviet" else "soviet"
        status = st.status(rules, uid)
        points = st.strength(sc, rules, uid)
        if status == "gone":
            add(enemy, u.full * v["elim_vp_per_point"] * 2, f"{uid} eliminated", "4.1")
        elif status in ("map", "exited") and points < u.full:
            add(enemy, (u.full - points) * v["lost_halves_per_point"], f"{uid} lost {u.full - points}", "4.1")
        if status == "exited" and rules["exit_vp"].get(uid):
            add("soviet", rules["exit_vp"][uid] * 2, f"{uid} left the map", "4.4")
    of = bd.control(sc, rules)
    for place in sc.places:
        owners = {of(h) for h in place.hexes}
        if len(owners) == 1:
            owner = owners.pop()
            value = place.vp * 2
            if owner == "german" and options.get("never_soviet_city_multiplier") and place.name not in rules["ever_soviet"]:
                num, den = v["multiplier"]
                value = 2 * ((place.vp * num * 2 + den) // (2 * den))  # 14.0: x1.5, fractions rounded (half up)
            add(owner, value, place.name, "4.2" if value == place.vp * 2 else "14.0")
    line = german_line(sc, rules)
    if not line:
        add("german", v["loc_vp"] * 2, "line of communication to the Don cut", "4.3")
    elif options.get("line_never_cut") and not rules["loc_ever_cut"]:
        add("german", v["never_cut_vp"] * 2, "line of communication never cut", "14.0")
    return {"halves": halves, "items": items, "line": line}


def halves_text(h: int) -> str:
    return f"{h // 2}" + (".5" if h % 2 else "") if h >= 0 else "-" + halves_text(-h)


def level(sc: Scenario, halves: dict) -> dict:
    """4.5: the level comes from the difference; a half point counts down."""
    diff = abs(halves["soviet"] - halves["german"]) // 2
    name = None
    for lo, hi, label in sc.victory["levels"]:
        if diff >= lo and (hi is None or diff <= hi):
            name = label
    winner = None
    if halves["soviet"] != halves["german"]:
        winner = "soviet" if halves["soviet"] > halves["german"] else "german"
    draw = name == sc.victory["levels"][0][2]
    return {"difference": diff, "level": name, "winner": None if draw else winner}


def final(sc: Scenario, rules: dict, ctx) -> None:
    score = vp(sc, rules)
    lv = level(sc, score["halves"])
    text = (f"Game over after GT {sc.last_turn}: Soviet {halves_text(score['halves']['soviet'])} VP, German "
            f"{halves_text(score['halves']['german'])} VP; difference {lv['difference']}: "
            + (f"{lv['winner']} {lv['level']}" if lv["winner"] else lv["level"]) + ".")
    rules["result"] = {"winner": lv["winner"], "level": lv["level"], "difference": lv["difference"],
                       "vp_halves": score["halves"], "text": text}
    for item in score["items"]:
        ctx.event("vp", f"{item['side']}: {halves_text(item['halves'])} VP for {item['what']} ({item['rule']}).",
                  **item)
    ctx.event("result", text, winner=lv["winner"], level=lv["level"], difference=lv["difference"],
              vp_halves=score["halves"], rule="4.5")
