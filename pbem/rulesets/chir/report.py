"""Status summary, the board in words (`pbem show`), one hex or unit looked at closely, the
board as data for `pbem show --diff`, and the comments of `pbem orders`.

VP are counted in halves inside the ruleset (victory.py); every text here gives them as the
rulebook does (4.1: "0.5 VP")."""

from __future__ import annotations

from pbem.core.describe import wrap_list
from pbem.core.text import counted, no_unit

from ..base import Need
from . import board as bd
from . import combat, removal, victory
from . import state as st
from .scenario import SIDES, Scenario, other

PHASE_WORDS = {"attack": "concentrated attack phase", "movement": "movement phase"}
# the markers a player sees on the counters (2.5, 8.1, 9.12), in the order they are listed
MARKER_WORDS = {"confusion": "confusion", "fired": "fired", "half": "Half Move", "done": "facing turned",
                "no-move": "may not move"}
MARKER_RULES = {"confusion": "7.1: no ZOC; retreated", "fired": "10.2: has fired", "half": "8.6: half MP, no manoeuvre attack",
                "done": "8.1: its movement is over", "no-move": "9.12: may not move"}
STATUS_WORDS = {"setup": "still to set up", "pool": "waiting to enter", "out": "out of play", "gone": "eliminated",
                "exited": "left the map"}


def side_name(side: str) -> str:
    return side.capitalize()


def vp_text(halves: int) -> str:
    """VP as the rulebook writes them: 12, 12.5, -10."""
    return victory.halves_text(halves)


# --- what a report's result codes mean -----------------------------------------------------------

def result_key(events: list[dict]) -> list[str]:
    """What the fire results of a report mean (9.8), each once: an onlooker reads "die 2: 1-0"
    without the rulebook (a forum audience's walkthrough)."""
    # a fire's result, and the results an attack's last line repeats (in a later report, where
    # the attack waited for a decision)
    shown = {e["result"] for e in events if e["type"] == "fire"}
    shown |= {e[kind] for e in events if e["type"] == "attack-end" for kind in ("defensive", "offensive") if e.get(kind)}
    codes = sorted(shown, key=lambda code: (code != "-", code))
    if not codes:
        return []
    return _strength_key(events) + _results_key(codes)


def _strength_key(events: list[dict]) -> list[str]:
    """How a fire line's strength and column are found (9.6, 9.7): "Infantry: 3 x1/4 = 0",
    "target class tank" and "column 5-7" beside "die 2: 1-0" read as one more result code to
    an onlooker (an audience's walkthrough)."""
    column = next((e["column_before"] for e in events
                   if e["type"] == "fire" and e.get("outcome") != "zero" and e.get("column_before")), None)
    if column is None:
        return []
    low, _, high = column.partition("-")
    span = f"{low} to {high}" if high else (f"{column[:-1]} or more" if column.endswith("+") else column)
    return [f'Fire strength, rules 9.6 and 9.7: each firing class\'s strength times its weapon effect against the '
            f'target class ("tank" if the stack fired at holds a tank unit, else "not tank"), fractions dropped; a '
            f'column such as "{column}" is the Combat Results Table\'s column for a strength of {span}, shifted by '
            f'the modifiers named after it.']


def _results_key(codes: list[str]) -> list[str]:
    words, damage = [], False
    for code in codes:
        if code == "-":
            words.append('"-" = no effect')
        else:
            morale, strength = combat.parse_result(code)
            words.append(f'"{code}" = morale damage {morale}, strength loss {strength}')
            damage = damage or morale > 0
    # what passing the test costs too: "1-0" and then a lost point read as a contradiction
    more = ("; morale damage N: the units hit retreat N hexes or more, or test morale and then stay and lose N more "
            "strength if they pass, or retreat if they fail, rule 9.9") if damage else ""
    # "rule 9.8", not "(9.8)": a forum turns "8)" into a smiley
    return ["Fire results, rule 9.8: " + "; ".join(words) + more + "."]


# --- status ----------------------------------------------------------------------------------------

def summary(sc: Scenario, rules: dict) -> dict:
    score = victory.vp(sc, rules)
    halves = score["halves"]
    result = rules["result"]
    return {
        "turn": rules["turn"], "last_turn": sc.last_turn, "player": rules["player"], "phase": rules["phase"],
        "step": rules["attack"]["step"] if rules["attack"] else None,
        "vp": {"soviet": vp_text(halves["soviet"]), "german": vp_text(halves["german"])},
        "vp_halves": dict(halves), "line_of_communication": "open" if score["line"] else "cut",
        "result": result["text"] if result else None,
        "winner": result["winner"] if result else None,
        "level": result["level"] if result else None,
        "now": now_text(sc, rules),
        "score": score_text(sc, score, rules),
        "decision": decision_text(sc, rules),
    }


def now_text(sc: Scenario, rules: dict) -> str:
    """Where the game stands, in the words of 5.0."""
    phase, side = rules["phase"], rules["player"]
    if phase == "over":
        return f"Game over after game turn {sc.last_turn} of {sc.last_turn}"
    if phase == "setup":
        return f"Set-up: the {side_name(side)} player sets up ({'3.2' if side == 'german' else '3.3'})"
    text = f"Game turn {rules['turn']} of {sc.last_turn}, {side_name(side)} {PHASE_WORDS[phase]}"
    a = rules["attack"]
    if a:
        text += f", attack {a['n']} on {a['target']} in progress"
    return text


def score_text(sc: Scenario, score: dict, rules: dict) -> str:
    """The VP, the level of victory they give (4.5: audience probe, "Soviet 13, German 35" left
    the reader to work out a 22-point Brilliant victory) and the line of communication."""
    halves = score["halves"]
    when = "at the end (4.0)" if rules["phase"] == "over" else "if the game ended now (4.0)"
    lv = victory.level(sc, halves)
    apart = abs(halves["soviet"] - halves["german"])   # in halves: a half point counts down (4.5)
    counted_as = f", counted as {lv['difference']}" if apart % 2 else ""
    level = (f"a {side_name(lv['winner'])} {lv['level'][0].lower()}{lv['level'][1:]} by {vp_text(apart)}{counted_as}"
             if lv["winner"] else f"a {lv['level'].lower()}, {vp_text(apart)} apart{counted_as}")
    return (f"VP {when}: Soviet {vp_text(halves['soviet'])}, German {vp_text(halves['german'])}, {level} (4.5); "
            f"the German line of communication to the Don is {'open' if score['line'] else 'cut'} (4.3)")


def decision_text(sc: Scenario, rules: dict) -> str | None:
    """The decision the game waits for, in the player's words (None if it waits for none)."""
    r = removal.pending(rules)
    if r is not None:
        return (f"which {side_name(r['side'])} units leave {r['hex']}, over the stacking limit after {r['why']} "
                f"({r['rule']})")
    waiting = combat.awaiting(sc, rules)
    if waiting is None:
        return None
    side, kind, _, _, rule = waiting
    a = rules["attack"]
    hit = a["hit"]
    if kind == "defensive-artillery":
        return f"whether artillery supports the defence of {a['target']} against attack {a['n']} ({rule})"
    if kind == "defensive-fire":
        return f"which attacking group the defenders of {a['target']} fire at, if any ({rule})"
    if kind == "invalidate-artillery":
        return f"which artillery supporting attack {a['n']} on {a['target']} is given up ({rule})"
    if kind == "advance":
        return f"whether the attackers of {a['target']} advance after combat, up to {counted(a['M'], 'hex', 'hexes')} ({rule})"
    units = ", ".join(u for u in hit["units"] if st.on_map(rules, u))
    if kind == "loss":
        return f"which of {units} in {hit['hex']} loses the next strength point ({rule})"
    if kind == "morale":
        return f"whether {units} in {hit['hex']} retreat or take the morale test (morale damage {hit['M']}, {rule})"
    movers = ", ".join(u for u in sorted(hit["retreaters"]) if st.on_map(rules, u))
    return (f"where {movers} {'retreats' if ',' not in movers else 'retreat'} from {hit['at']}, "
            f"{hit['steps']} of at least {counted(hit['M'], 'hex', 'hexes')} gone ({rule})")


# --- the board in words ------------------------------------------------------------------------------

def unit_words(sc: Scenario, uid: str) -> str:
    """What the counter shows at a glance: arm and size."""
    u = sc.units[uid]
    return f"{u.arm} {u.size}"


def markers_of(rules: dict, uid: str) -> list[str]:
    return [word for name, word in MARKER_WORDS.items() if st.marked(rules, name, uid)]


def _unit_row(sc: Scenario, rules: dict, uid: str, width: int) -> str:
    u = sc.units[uid]
    marks = markers_of(rules, uid)
    words = max(len(unit_words(sc, x)) for x in sc.unit_ids)
    return (f"{uid:<{width}}  {unit_words(sc, uid):<{words}}  {st.strength(sc, rules, uid)}/{u.full}  morale {u.morale}"
            + (f"  [{', '.join(marks)}]" if marks else ""))


def runs(sc: Scenario, hexes: list[str]) -> list[str]:
    """Hexes as runs in the order of hex ids: ["1834-1837", "2832"]."""
    index = sorted(sc.hex_index[h] for h in hexes)
    out: list[str] = []
    start = prev = None
    for i in index + [None]:
        if start is not None and (i is None or i != prev + 1):
            out.append(sc.ids[start] if start == prev else f"{sc.ids[start]}-{sc.ids[prev]}")
            start = None
        if i is not None and start is None:
            start = i
        prev = i
    return out


def render(sc: Scenario, rules: dict) -> str:
    s = summary(sc, rules)
    score = victory.vp(sc, rules)
    lines = [f"48th Panzer Korps: Battles on the River Chir. {s['now']}."]
    if s["result"]:
        lines.append(s["result"])
    lines.append(s["score"] + ".")
    for side in SIDES:
        lines += [f"  {side_name(side)} {vp_text(item['halves'])} VP: {item['what']} ({item['rule']})"
                  for item in score["items"] if item["side"] == side]
    of = bd.control(sc, rules)
    lines += ["", "Places (4.2):"]
    for place in sc.places:
        owners = {h: of(h) for h in place.hexes}
        held = set(owners.values())
        who = (f"{side_name(held.pop())}, {place.vp} VP" if len(held) == 1 else
               "split (" + ", ".join(f"{h} {side_name(o)}" for h, o in owners.items()) + "): no VP")
        lines.append(f"  {place.name} ({', '.join(place.hexes)}): {who}")
    width = max(len(u) for u in sc.unit_ids)
    for side in SIDES:
        stacks = bd.stacks(sc, rules, side)
        count = sum(len(us) for us in stacks.values())
        lines += ["", f"{side_name(side)} units on the map ({count}): hex, unit, arm and size, strength/printed, "
                  "morale, markers" if count else f"{side_name(side)} units on the map: none"]
        for h, us in stacks.items():
            for i, uid in enumerate(us):
                lines.append(f"  {h if i == 0 else '':4}  {_unit_row(sc, rules, uid, width)}")
    lines.append("")
    for status, title in (("setup", "to set up"), ("pool", "waiting to enter (11.0)"),
                          ("gone", "eliminated (4.1)"), ("exited", "left the map (4.4)")):
        for side in SIDES:
            us = [u for u in sc.unit_ids if sc.side_of[u] == side and st.status(rules, u) == status]
            if status == "setup":
                title = f"to set up ({'3.2' if side == 'german' else '3.3'})"
            if us:
                lines += wrap_list(f"{side_name(side)} units {title}:", [
                    f"{u}" + (f" (GT {sc.units[u].entry_turn} at {sc.units[u].entry_hex})" if status == "pool" else "")
                    + (f" ({rules['exit_vp'].get(u, 0)} VP)" if status == "exited" else "") for u in us])
    soviet = [h for h in sc.ids if of(h) == "soviet"]
    lines += wrap_list("Soviet-controlled hexes (3.3; every other hex is German):", runs(sc, soviet) or ["none"])
    return "\n".join(lines) + "\n"


# --- one thing looked at closely (pbem show --hex / --unit) -------------------------------------------

def look(sc: Scenario, rules: dict, what: str, ident: str) -> list[str]:
    if what == "hex":
        if ident not in sc:
            raise ValueError(f"there is no hex {ident} on the chir map (hexes {sc.ids[0]} to {sc.ids[-1]}, CCRR)")
        return look_hex(sc, rules, ident)
    if what == "unit":
        if ident not in sc.units:
            raise ValueError(f"{no_unit(sc.unit_ids, ident)} in the chir order of battle (ids such as LW/I, 333/1116)")
        return look_unit(sc, rules, ident)
    raise ValueError(f"the chir map is made of hexes, not {what}s: use --hex CCRR or --unit ID")


def _cost(sc: Scenario, h: str) -> str | None:
    """The terrain cost of entering h (8.3), in MP, read off a step from a neighbour with no
    road and no river between them."""
    for n in sc.neigh[h]:
        if sc.is_river(n, h) or h in sc.road_next.get(n, ()):
            continue
        mot, non = sc.cost["mot"][n][h], sc.cost["non"][n][h]
        return f"{vp_text(mot)} MP motorised, {vp_text(non)} MP non-motorised"
    return None


def look_hex(sc: Scenario, rules: dict, h: str) -> list[str]:
    of = bd.control(sc, rules)
    terrain = sc.terrain(h)
    shift = sc.terrain_shift.get(terrain, 0)
    lines = [f"Hex {h}: {terrain}" + (f" (defender's column shift {shift}, 9.7.3)" if shift else "")
             + f"; controlled by the {side_name(of(h))} side (3.3)."]
    cost = _cost(sc, h)
    if cost:
        lines.append(f"Entering it costs {cost} (8.3), less along a road (8.4).")
    for place in sc.places:
        if h in place.hexes:
            lines.append(f"Town: {place.name} ({', '.join(place.hexes)}), {place.vp} VP to the side that controls "
                         f"{'every hex' if len(place.hexes) > 1 else 'it'} at the end (4.2).")
    if h == sc.loc_from:
        lines.append("The German line of communication to the Don starts here (4.3).")
    if h in sc.exit:
        lines.append("Soviet units may leave the map here for 0.5 MP (4.4).")
    entering = sorted({(sc.units[u].entry_turn, sc.side_of[u]) for u in sc.unit_ids if sc.units[u].entry_hex == h})
    for turn, side in entering:
        lines.append(f"{side_name(side)} reinforcements enter here on GT {turn} (11.0).")
    for side in SIDES:
        for group, front in sc.fronts[side].items():
            if h in front:
                lines.append(f"Set-up: front of {side_name(side)} group {group} ({'3.2' if side == 'german' else '3.3'}).")
    lines.append("Neighbours:")
    occupant = {n: bd.side_in(sc, rules, n) for n in sc.neigh[h]}
    for n in sc.neigh[h]:
        notes = [sc.terrain(n), f"{side_name(of(n))} control"]
        if sc.is_river(h, n):
            notes.append(f"across the {sc.river_name(h, n)}" + (" by a bridge" if sc.crossable(h, n) else ""))
        if n in sc.road_next.get(h, ()):
            notes.append("road")
        if occupant[n]:
            notes.append(f"{side_name(occupant[n])} units")
        lines.append(f"  {n}: {', '.join(notes)}")
    zones = []
    for side in SIDES:
        zone, tanks = bd.zoc(sc, rules, side)
        if h in zone:
            zones.append(f"{side_name(side)} {'tank ' if h in tanks else ''}ZOC")
    # the zones that reach this hex from its neighbours (a players' probe read "none" against
    # the units here that project one, said below)
    lines.append("Zones of control reaching it (7.0): " + (", ".join(zones) if zones else "none") + ".")
    here = bd.units_in(sc, rules, h)
    if not here:
        lines.append("No unit is here.")
    else:
        side = sc.side_of[here[0]]
        lines.append(f"{side_name(side)} units here (strength {bd.strength(sc, rules, here)}"
                     + ("" if bd.stacking_ok(sc, here) else "; over the stacking limit") + "):")
        width = max(len(u) for u in here)
        lines += [f"  {_unit_row(sc, rules, u, width)}" for u in here]
        # 7.0: 3 or more strength project a zone of control, 3 or more of armour a tank ZOC;
        # 7.1: units with a confusion marker count 0
        counted = [u for u in here if not st.marked(rules, "confusion", u)]
        if bd.strength(sc, rules, counted) >= 3:
            tanks = bd.strength(sc, rules, [u for u in counted if sc.units[u].cls == "tank"]) >= 3
            lines.append(f"They project a {'tank ' if tanks else ''}zone of control into the six hexes around (7.0).")
    return lines


def look_unit(sc: Scenario, rules: dict, uid: str) -> list[str]:
    u = sc.units[uid]
    army = f", army {u.army}" if u.army else ""
    lines = [f"{uid}: {side_name(u.side)} {u.arm} {u.size} {u.name} of {u.aff}{army}."]
    counter = [f"fire class {u.cls} (9.6)", f"printed strength {u.full}", f"morale {u.morale}",
               f"movement {u.mp} MP, {'motorised' if u.mot else 'non-motorised'} (8.2)"]
    if u.light:
        counter.append(f"light tank, {u.light} red circle{'s' if u.light > 1 else ''} (9.7.4)")
    if u.heavy:
        counter.append("heavy tank (9.7.4)")
    if u.range is not None:
        counter.append(f"artillery range {u.range} hexes (10.1)")
    if u.support:
        counter.append({"any": "supports any German group", "own": f"supports {u.aff} units only",
                        "5TA": "supports 5th Tank Army units only"}.get(u.support, f"supports {u.support}") + " (10.2)")
    if u.sp:
        counter.append("self-propelled (8.7)")
    lines.append("Counter: " + "; ".join(counter) + ".")
    if u.entry_hex:
        lines.append(f"Reinforcement: enters on GT {u.entry_turn} at {u.entry_hex} (11.0).")
    elif u.setup:
        lines.append(f"Set-up code: {u.setup} (2.3.9).")
    status = st.status(rules, uid)
    points = st.strength(sc, rules, uid)
    if status != "map":
        lines.append(f"Now: {STATUS_WORDS[status]}"
                     + (f", scoring {rules['exit_vp'].get(uid, 0)} VP (4.4)" if status == "exited" else "")
                     + (f", {u.full * sc.victory['elim_vp_per_point']} VP to the {side_name(other(u.side))} side (4.1)"
                        if status == "gone" else "") + ".")
        if status == "exited" and points < u.full:
            lines.append(f"Strength {points} of {u.full}.")
        return lines
    h = st.hex_of(rules, uid)
    lost = u.full - points
    lines.append(f"Now: in {h} ({sc.terrain(h)}, {side_name(bd.controller(sc, rules, h))} control), strength {points} "
                 f"of {u.full}" + (f", {lost} lost ({vp_text(lost * sc.victory['lost_halves_per_point'])} VP to the {side_name(other(u.side))} side, 4.1)" if lost else "")
                 + ".")
    marks = [f"{MARKER_WORDS[m]} ({MARKER_RULES[m]})" for m in MARKER_WORDS if st.marked(rules, m, uid)]
    lines.append("Markers: " + ("; ".join(marks) if marks else "none") + ".")
    flags = []
    if st.moved(rules, uid):
        flags.append(f"moved this phase, {vp_text(st.used(rules, uid))} MP used")
    if st.marked(rules, "attacked", uid):
        flags.append("attacked in this concentrated attack phase (9.1)")
    if st.marked(rules, "manoeuvre-attacked", uid):
        flags.append("made a manoeuvre attack this movement phase (9.2)")
    if uid in rules["ps"]["eligible"] and not st.marked(rules, "attacked", uid):   # once a phase (9.1): not both
        flags.append("may attack in this concentrated attack phase (9.1)")
    if flags:
        lines.append("This phase: " + "; ".join(flags) + ".")
    others = [x for x in bd.units_in(sc, rules, h) if x != uid]
    if others:
        lines.append(f"Stacked with: {', '.join(others)}.")
    zone, tanks = bd.ezoc(sc, rules, u.side)
    enemy = bd.occupied(sc, rules, other(u.side))
    near = [n for n in sc.neigh[h] if n in enemy]
    lines.append(("In the enemy's " + ("tank " if h in tanks else "") + "zone of control (7.0)" if h in zone
                  else "Not in an enemy zone of control (7.0)")
                 + (f"; enemy units next to it in {', '.join(near)}." if near else "."))
    return lines


# --- the board as data (pbem show --json, --diff) ----------------------------------------------------

def view(sc: Scenario, rules: dict) -> dict:
    of = bd.control(sc, rules)
    score = victory.vp(sc, rules)
    units = {}
    for uid in sc.unit_ids:
        status = st.status(rules, uid)
        units[uid] = {"side": sc.side_of[uid], "where": rules["units"][uid], "status": status,
                      "strength": 0 if status == "gone" else st.strength(sc, rules, uid), "full": sc.units[uid].full,
                      "markers": markers_of(rules, uid) if status == "map" else []}
    return {
        "now": now_text(sc, rules),
        "units": units,
        "statuses": dict(STATUS_WORDS),
        "control": {h: of(h) for h in sc.ids},
        "places": "hexes",
        "facts": [["Soviet VP (4.0)", vp_text(score["halves"]["soviet"])],
                  ["German VP (4.0)", vp_text(score["halves"]["german"])],
                  ["German line of communication to the Don (4.3)", "open" if score["line"] else "cut"]],
    }


def describe_need(sc: Scenario, rules: dict, need: Need) -> list[str]:
    lines = [f"{need.side}: {need.prompt} (rule {need.rule})."]
    if need.kind == "setup":
        lines.append("place: {type: place, unit: ID, hex: \"CCRR\"} (hex ids in quotes); end: set up every unit left "
                     "by the default placement.")
    elif need.decision:
        lines.append("standing order key for this decision: "
                     + {"defensive-artillery": "defensive_artillery", "defensive-fire": "defensive_fire",
                        "invalidate-artillery": "invalidate", "loss": "losses", "morale": "morale",
                        "retreat": "retreat", "advance": "advance", "stack-removal": "stack_removal"}.get(need.kind, need.kind))
        from pbem.core.templates import flow

        for order in combat.legal(sc, rules, need.kind)[:20]:
            lines.append(f"legal: {flow(order)}")   # as an order is written, `null` and all
    elif need.kind.endswith("-attack"):
        lines.append("attack: {type: attack, target: \"CCRR\", units: [IDs adjacent since the phase began], "
                     "support: [artillery IDs, one per attacking hex]}; end: close the phase.")
    else:
        lines.append("move: {type: move, units: [IDs in one hex], path: [\"CCRR\", ...], exit: false}; "
                     "enter: {type: enter, units: [...], path: [entry hex, ...]}; attack: manoeuvre attack by "
                     "the stack just moved (or one that has not moved); end: close the phase.")
    return lines
