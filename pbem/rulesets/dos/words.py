"""The game in words for `pbem status` and `pbem show` (pbem.core.describe): where the game
stands, the board as data (`view`, what `pbem show --diff` compares) and one hex or unit
looked at closely (`look`)."""

from __future__ import annotations

from . import naming
from . import state as st
from . import supply
from . import victory
from .board import view as board_view
from .scenario import Scenario, other
from .setup import ZONE_WORDS

PHASES = {"selection": "selection of the Soviet initial force (5.21)", "setup": "set-up (5.2, 5.3)",
          "move": "Initial Movement Phase", "combat": "Combat Phase", "mech": "Mechanized/Cavalry Movement Phase",
          "interdiction": "Air Interdiction Phase", "over": "the game is over"}
# the automatic stages between phases (flow.py), where a decision or dice may stop the game:
# the phase they follow or open is not the one under way (players' probe: "soviet Air
# Interdiction Phase" during the Game-Turn Record Inter-Phase)
STAGE_WORDS = {"axis-end": "end of the axis Player-Turn (16.33, 16.4)",
               "soviet-end": "end of the soviet Player-Turn",
               "soviet-start": "soviet Initial Movement Phase, before it begins (15.4)",
               "soviet-draw": "soviet Initial Movement Phase, before it begins (15.3)",
               "interphase": "Game-Turn Record Inter-Phase (4.2 D)", "interphase-vp": "Game-Turn Record Inter-Phase (4.2 D)",
               "directive": "Hitler Directive Inter-Phase (16.0)",
               "axis-start": "axis Initial Movement Phase, before any unit moves (15.21)"}
STATUS_WORDS = {"setup": "to be set up (5.2, 5.3)", "pool": "not in play yet (15.0)",
                "ready": "ready to enter as a reinforcement (15.1, 15.3)", "due": "off the map, due back (15.25)",
                "gone": "eliminated", "out": "out of the game (15.2, 16.4)",
                "exited": "exited the map (19.22)", "map": "on the map"}
MARKERS = (("oos", "out of supply this phase (12.0)"), ("air_supplied", "supplied by air this phase (12.4)"),
           ("fresh", "a reinforcement, in supply this phase (12.53)"),
           # within an HQ's Radius is a Line of Communications no longer than its Leadership
           # Rating (12.12), which Enemy ZOC blocks: the hexes alone can mislead (players' probe)
           ("no_overrun", "no Line of Communications to an HQ within its Leadership Rating as the phase began "
                          "(12.12; Enemy ZOC blocks one): may not overrun (6.55)"),
           ("withdrawing", "ignored Axis ZOC this phase: moves on east only in it (18.11)"),
           ("not_east", "moved into a hex not east this phase: may not ignore Axis ZOC in it (18.11)"))
ARMS = {"infantry": "infantry", "mech": "mechanized", "cavalry": "cavalry", "hq": "HQ", "truck": "truck",
        "air": "air unit"}


def date(sc: Scenario, turn: int) -> str:
    return sc.dates[turn - 1] if 0 < turn <= len(sc.dates) else ""


def now_text(sc: Scenario, rules: dict) -> str:
    phase, side = rules["phase"], rules["player"]
    if phase == "over":
        return f"Game over after Game-Turn {rules['turn']} of {sc.last_turn}"
    turn = rules["turn"]
    where = STAGE_WORDS.get(rules["stage"] or "") or f"{side} {PHASES[phase]}"
    text = f"Game-Turn {turn} of {sc.last_turn} ({date(sc, turn)}), {where}"
    if rules["combat"]:
        text += f", {rules['combat']['kind']} on {', '.join(rules['combat']['targets'])} in progress"
    return text


def score_text(sc: Scenario, rules: dict, score: dict) -> str:
    """The VP, and while the game goes on what they would make of it if it ended now (a players'
    probe: an onlooker read "Axis 32, Soviet 177" and could not tell who was winning)."""
    over = rules["phase"] == "over"
    when = "at the end (19.0)" if over else "as they stand (19.1)"
    d = rules["directive"]
    standing = "" if over else f"; if the game ended now: {victory.level_of(score)[0]} (19.0)"
    return (f"VP {when}: Axis {score['axis']}, Soviet {score['soviet']}{standing}; Hitler Directive in force (16.0): "
            + (d["letter"] if d else "none"))


def markers_of(sc: Scenario, rules: dict, uid: str) -> list[str]:
    out = [words for key, words in MARKERS if st.has(rules["ps"].get(key, ()), uid)]
    if st.has(rules["disrupted"], uid):
        out.append("disrupted (6.6)")
    if st.has(rules["pt"]["withdrew"], uid):
        out.append("on a strategic withdrawal (18.1)")
    if any(r["truck"] == uid for r in rules["railheads"]):
        out.append("a railhead: an Axis supply source (12.32, 12.33)")    # players' probe: drawn, never said
    return out


def view(sc: Scenario, rules: dict) -> dict:
    """The board as data: every unit (strength counted in steps, 9.6), who controls each rail
    and city hex (10.44, 10.45), the VP and the markers on the map."""
    units = {}
    withdrawn = {u for us in rules["withdrawn"].values() for u in us}
    for uid in sc.unit_ids:
        status = st.status(rules, uid)
        if status == "out":      # out of the game by a withdrawal (15.2) or a directive's limit (16.33, 16.4)
            status = "withdrawn" if uid in withdrawn else "removed"
        units[uid] = {"side": sc.side_of[uid], "where": rules["units"][uid], "status": status,
                      "strength": 0 if status == "gone" else st.steps_left(sc, rules, uid),
                      "full": sc.units[uid].step_count,
                      "markers": markers_of(sc, rules, uid) if status == "map" else []}
    score = victory.vp(sc, rules) if rules["phase"] != "selection" else dict(sc.start_vp)
    d = rules["directive"]
    return {
        "now": now_text(sc, rules),
        "units": units,
        "statuses": {**{k: v for k, v in STATUS_WORDS.items() if k != "map"},
                     "withdrawn": "withdrawn from the game (15.2)",
                     "removed": "out of the game, sent to the Leningrad front (16.33, 16.4)"},
        "control": {sc.ids[i]: st.control(sc, rules, i) for i in sorted(sc.rail_hex)},
        "places": "hexes",
        "strength_in": "step",   # 9.6: a unit loses steps, not strength points
        "facts": [["Axis VP (19.1)", score["axis"]], ["Soviet VP (19.1)", score["soviet"]],
                  ["Hitler Directive (16.0)", d["letter"] if d else "none"],
                  ["Axis-cleared rail hexes (6.42)", len(rules["cleared"])],
                  ["Axis Air Interdiction markers (14.4)", ", ".join(rules["interdiction"]["axis"]) or "none"],
                  ["Soviet Air Interdiction markers (14.4)", ", ".join(rules["interdiction"]["soviet"]) or "none"]],
    }


def look(sc: Scenario, rules: dict, what: str, ident: str) -> list[str]:
    if what == "hex":
        if ident not in sc.idx:
            if ident in sc.water:
                raise ValueError(f"{ident} is a {sc.water[ident]} hex: not part of the playing area (10.29)")
            raise ValueError(f"there is no hex {ident} on the dos map (sheet N or S, hexrow and position: N3117)")
        return look_hex(sc, rules, ident)
    if what == "unit":
        if ident not in sc.units:
            raise ValueError(f"{naming.no_unit(sc, ident)} in the dos orders of battle (ids such as G/57, R/6, A/21)")
        return look_unit(sc, rules, ident)
    raise ValueError(f"the dos map is made of hexes, not {what}s: use --hex N3117 or --unit ID")


def _unit_text(sc: Scenario, rules: dict, uid: str) -> str:
    from .report import unit_text
    return unit_text(sc, rules, uid)


def look_hex(sc: Scenario, rules: dict, h: str) -> list[str]:
    i = sc.idx[h]
    board = board_view(sc, rules)
    lines = [f"Hex {h}: {sc.terrain_of[i]} (10.1), mapsheet {'north' if h[0] == 'N' else 'south'}."]
    city = sc.city_of.get(i)
    if city:
        held = victory.city_control(sc, rules, city.name, board) if city.vp else None
        lines.append(f"{'Major' if city.cls == 'major' else 'Minor'} city: {city.name} ({', '.join(city.hexes)})"
                     + (f", {city.vp} VP (19.2), held by {held or 'nobody'}" if city.vp else "") + ".")
    if i in sc.rail_hex:
        turn = st.control_turn(rules, h)
        lines.append(f"Rail hex, {st.control(sc, rules, i)} controlled (10.44, 10.45)"
                     + (f", since Game-Turn {turn}" if turn else "") + "."
                     + (" Axis-cleared (6.42)." if st.has(rules["cleared"], h) else ""))
    if i in sc.front_set:
        lines.append("On the Front Line of 28 June 1942 (5.22, 10.44).")
    for side in ("axis", "soviet"):
        if h in rules["interdiction"][side]:
            lines.append(f"A {side} Air Interdiction marker is here (14.4).")
    zones = [side for side in ("axis", "soviet") if i in board.zoc(side)]
    lines.append("Zones of control reaching it (8.0): " + (", ".join(zones) if zones else "none") + ".")
    lines.append("Neighbours:")
    for j in sc.nb[i]:
        notes = [sc.terrain_of[j]]
        kind = sc.crossing(i, j)
        if kind:
            notes.append("across an all-lake hexside" if kind == "lake"
                         else f"across the {sc.river_name[(i, j)]}" + (" (minor river)" if kind == "minor" else ""))
        if j in sc.rail_nb[i]:
            notes.append("railroad")
        if j in sc.city_of:
            notes.append(sc.city_of[j].name)
        side = board.side_at(j)
        if side:
            notes.append(f"{side} units")
        lines.append(f"  {sc.ids[j]}: {', '.join(notes)}")
    here = board.units_at(i)
    lines.append("Units: " + ("; ".join(_unit_text(sc, rules, u) for u in here) if here else "none") + ".")
    return lines


def look_unit(sc: Scenario, rules: dict, uid: str) -> list[str]:
    u = sc.units[uid]
    lines = [f"{uid}: {u.name}, {u.nation} {ARMS.get(u.arm, u.arm)}" + (" (mountain troops)" if u.mountain else "")
             + f", {u.side} side."]
    counter = [f"movement allowance {u.ma}"]
    if u.hq:
        counter.append(f"Leadership Rating {u.leadership} (11.1)")
    if u.air:
        counter.append(f"{u.air_points} Air Points, range {u.air_range} (14.1)")
    if u.untried:
        counter.append(f"untried, drawn from the {u.untried} pool (13.0)")
    elif u.steps:
        counter.append("steps " + ", ".join("-".join(map(str, s)) if isinstance(s, tuple) else str(s) for s in u.steps)
                       + " (9.6)")
    if u.division:
        counter.append(f"a regiment of {u.division} (7.2)")
    lines.append("Counter: " + "; ".join(counter) + ".")
    if u.turn:
        lines.append(f"Arrives on Game-Turn {u.turn} (15.5)" + (f", by {u.by}" if u.by else "") + ".")
    status = st.status(rules, uid)
    if status != "map":
        lines.append(f"Now: {STATUS_WORDS[status]}"
                     + (f" on Game-Turn {rules['due'][uid]}" if status == "due" and uid in rules["due"] else "") + ".")
        if status == "setup" and u.setup == "5.35":
            lines.append("Sets up: anywhere west of the 28 June 1942 Front Line (5.35, 5.36).")
        elif status == "setup" and u.setup in ZONE_WORDS:
            lines.append(f"Sets up: in the band of {u.setup}, {ZONE_WORDS[u.setup]}, west of the 28 June 1942 Front "
                         "Line (5.36; its army's band in the order of battle, 20.1).")
        elif status == "setup":
            lines.append("Sets up: east of the 28 June 1942 Front Line, next to it unless it is one of the 14 that "
                         "may set up anywhere (5.22, 5.24).")
        return lines
    h = st.hex_of(rules, uid)
    lost = st.lost(rules, uid)
    city = sc.city_of.get(sc.idx[h])   # players' probe: a unit in Voronezh stood "in N0741 (clear)"
    where = sc.terrain_of[sc.idx[h]] + (f", {'Major' if city.cls == 'major' else 'Minor'} city of {city.name}"
                                        if city else "")
    lines.append(f"Now: in {h} ({where}): {_unit_text(sc, rules, uid)}"
                 + (f", {lost} step{'s' if lost > 1 else ''} lost (9.6)" if lost else "") + ".")
    if st.untried(sc, rules, uid):
        lines.append("Untried: its strength is revealed when it first fights (13.2).")
    marks = markers_of(sc, rules, uid)
    lines.append("Markers: " + ("; ".join(marks) if marks else "none") + ".")
    why = supply.reason(sc, rules, board_view(sc, rules), uid)          # air units too (12.46, 14.11)
    lines.append("Supply as the board stands now (12.0): " + ("in supply." if why is None else f"out: {why}."))
    if uid in rules["ps"]["moved"]:
        lines.append(f"Moved this phase: {rules['ps']['moved'][uid]} MP spent (6.1).")
    enemy = other(u.side)
    if sc.idx[h] in board_view(sc, rules).zoc(enemy):
        lines.append(f"In {'an' if enemy == 'axis' else 'a'} {enemy.capitalize()} zone of control (8.0).")
    return lines
