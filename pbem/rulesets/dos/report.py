"""Status summary, the plain-text board and the comments of `pbem orders`."""

from __future__ import annotations

from ..base import Need
from .board import view
from .directives import excess_words
from .orders import KEY_OF
from .scenario import Scenario
from . import state as st
from . import victory
from . import words


# what each part of a Combat Results Table result means (9.5, 9.66-9.69)
RESULT_WORDS = {
    "Ae": "every attacking unit eliminated",
    "De": "every defending unit eliminated",
    "A1": "the attacker loses 1 step or retreats 1 hex",
    "A2": "the attacker loses 2 steps or retreats 2 hexes",
    "D1": "the defender loses 1 step or retreats 1 hex",
    "D2": "the defender loses 2 steps or retreats 2 hexes",
    "Eng": "engaged: each side loses 1 step and stays, no retreat, no advance",
}


def result_key(events: list[dict]) -> list[str]:
    """What the combat results of a report mean (9.5), each part once: an onlooker reads
    "die 3: D1/A1" without the rulebook (a forum audience's walkthrough)."""
    # a combat's result, and the part a later packet's answer takes (the choice of a retreat or
    # losses, 9.67, where a decision left it to that packet)
    results = {e["result"] for e in events if e["type"] == "combat" and "result" in e}
    results |= {e["part"] for e in events if e["type"] == "choice" and "part" in e}
    if not results:
        return []
    parts = sorted({part for result in results for part in result.split("/")}, key=list(RESULT_WORDS).index)
    splits = sorted(result for result in results if "/" in result)
    split = "".join(f'; "{result}" = the defender\'s part first, then the attacker\'s' for result in splits)
    double = "; doubled: every step loss of the combat counts twice, in a Major city, 9.33" if any(
        e["type"] == "double" for e in events) else ""
    last = "; a unit that loses its last step is eliminated" if set(parts) - {"Ae", "De"} else ""
    # "rules 9.5 ...", not "(9.5)": a forum turns the "8)" of "(9.68)" into a smiley
    return ["Combat results, rules 9.5 and 9.66 to 9.69: " + "; ".join(f'"{part}" = {RESULT_WORDS[part]}' for part in parts)
            + split + double + last + "."]


def summary(sc: Scenario, rules: dict) -> dict:
    score = victory.vp(sc, rules) if rules["phase"] not in ("selection",) else dict(sc.start_vp)
    result = rules["result"]
    d = rules["directive"]
    return {
        "turn": rules["turn"], "last_turn": sc.last_turn, "player": rules["player"], "phase": rules["phase"],
        "step": rules["combat"]["step"] if rules["combat"] else None,
        "vp": score, "directive": d["letter"] if d else None,
        "result": result["text"] if result else None,
        "winner": result["winner"] if result else None,
        "level": result["level"] if result else None,
        "now": words.now_text(sc, rules),
        "score": words.score_text(sc, rules, score),
    }


def unit_text(sc: Scenario, rules: dict, uid: str) -> str:
    u = sc.units[uid]
    if st.untried(sc, rules, uid):
        text = f"{uid} U-{u.ma}"
    elif u.hq:
        text = f"{uid} ({u.leadership}){u.ma}"
    elif u.air:
        text = f"{uid} air {u.air_points - rules['air'].get(uid, 0)}/{u.air_points}"
    elif u.truck:
        text = f"{uid} truck"
    else:
        a, d = st.strengths(sc, rules, uid)
        text = f"{uid} {a}-{d}-{u.ma}" if u.side == "soviet" else f"{uid} {a}-{u.ma}"
    marks = []
    if st.has(rules["disrupted"], uid):
        marks.append("disrupted")
    if st.has(rules["ps"]["oos"], uid):
        marks.append("out of supply")
    return text + (f" [{', '.join(marks)}]" if marks else "")


def render(sc: Scenario, rules: dict) -> str:
    s = summary(sc, rules)
    head = (f"Drive on Stalingrad (dos): {s['now']}"     # as status says it (players' probe)
            + f"; VP Axis {s['vp']['axis']}, Soviet {s['vp']['soviet']}; Hitler Directive {s['directive'] or 'none'}.")
    lines = [head]
    if s["result"]:
        lines.append(s["result"])
    board = view(sc, rules)
    for i in sorted(board.occ):
        us = board.occ[i]
        lines.append(f"{sc.ids[i]} {sc.side_of[us[0]]:6}: " + ", ".join(unit_text(sc, rules, u) for u in us))
    for city in sc.vp_cities:
        lines.append(f"{city.name} ({city.vp} VP): {victory.city_control(sc, rules, city.name, board) or 'nobody'}")
    for status, title in (("ready", "ready to enter"), ("setup", "to set up"), ("due", "due back"), ("gone", "eliminated")):
        for side in ("axis", "soviet"):
            us = [u for u, w in rules["units"].items() if sc.side_of[u] == side and w == status]
            if us:
                lines.append(f"{side} {title}: " + ", ".join(us))
    if rules["cleared"]:
        lines.append("Axis-cleared rail: " + ", ".join(rules["cleared"]))
    for side in ("axis", "soviet"):
        if rules["interdiction"][side]:
            lines.append(f"{side} Air Interdiction markers: " + ", ".join(rules["interdiction"][side]))
    return "\n".join(lines) + "\n"


def describe_need(sc: Scenario, rules: dict, need: Need) -> list[str]:
    lines = [f"{need.side}: {need.prompt} (rule {need.rule})."]
    if need.kind == "setup":
        lines.append("place: {type: place, unit: ID, hex: N0101}; end: set up every unit left by the default placement.")
        lines += setup_areas(sc, rules, need.side)
    elif need.decision:
        lines.append(f"standing order key for this decision: {KEY_OF.get(need.kind, need.kind)}")
        if need.kind == "withdrawal":
            from .reinforce import named_words, pending_withdrawal

            lines.append(named_words(sc, rules, pending_withdrawal(sc, rules)))
        if need.kind in ("defender-result", "attacker-result"):
            from .combat import trapped

            # said before the choice is made (a new user's probe: a retreat eliminated a unit unforewarned)
            caught = trapped(sc, rules, rules["combat"], "def" if need.kind == "defender-result" else "att")
            if caught:
                lines.append(f"No path of retreat for {', '.join(caught)}: a retreat eliminates "
                             f"{'it' if len(caught) == 1 else 'them'} (9.73); losing steps does not.")
    elif need.kind.startswith("axis-") and (over := excess_words(sc, rules)):
        lines.append(f"{over}.")      # 16.33, 16.4: said before the player-turn's orders are written
    if need.kind.endswith("-move") and rules["phase"] == "move":
        lines += ready_words(sc, rules, need.side)
    if need.kind.endswith("-move") or need.kind.endswith("-mech"):
        lines.append("move: {type: move, units: [IDs in one hex], path: [hexes entered], withdraw: false}; rail: "
                     "{type: rail, units, path}; overrun: {type: overrun, units, path, target, air: {units, shift}}; "
                     "enter: {type: enter, units, path: [entry hex, ...], rail: false}; evacuate: {type: evacuate, "
                     "units}; air-supply: {type: air-supply, air, units}; end.")
    elif need.kind.endswith("-combat"):
        lines.append("attack: {type: attack, targets: [hexes], units: [IDs next to every target], hqs: [Soviet HQ], "
                     "air: {units: [air unit per point], shift: -1}}; end.")
    elif need.kind.endswith("-interdiction"):
        lines.append("interdict: {type: interdict, air: ID, hexes: [one or two hexes]}; end.")
    return lines


def ready_words(sc: Scenario, rules: dict, side: str) -> list[str]:
    """The reinforcements ready to enter in this Initial Movement Phase (15.1, 15.3), a Soviet
    one by the map section it enters on: said where the orders are written (a players' probe:
    the template showed one `enter` of 36 reinforcements, the rest told only by a dry run)."""
    import textwrap

    from .movement import entry_section, ready

    waiting = ready(sc, rules, side)
    if not waiting:
        return []
    count = f"{len(waiting)} reinforcement{'s' if len(waiting) > 1 else ''} ready to enter"
    if side == "axis":
        parts = [", ".join(waiting)]
        head = f"{count}, on the west edge (15.1): "
    else:
        by = {s: [u for u in waiting if entry_section(sc, rules, u) == s] for s in ("north", "south", "any")}
        words = {"north": "on the north map", "south": "on the south map", "any": "on either map (11.5)"}
        parts = [f"{words[s]}: {', '.join(us)}" for s, us in by.items() if us]
        head = f"{count} (15.3), "
    return textwrap.wrap(head + "; ".join(parts) + "; `pbem orders ... --only UNIT` lists a unit's entries.", 96,
                         break_on_hyphens=False)


def setup_areas(sc: Scenario, rules: dict, side: str) -> list[str]:
    """Where each unit left to set up may go (5.22-5.25; 5.31-5.36, each Axis unit in the band
    of its army in the order of battle, 20.1): a comment line for each area."""
    import textwrap

    from .setup import ZONE_WORDS, to_set_up

    left = to_set_up(sc, rules, side)
    if not left:
        return ["Every unit is set up: `end` checks the set-up as a whole."]
    if side == "soviet":
        head = [f"{len(left)} units to set up, east of the 28 June 1942 Front Line (5.22), each Front Line hex held "
                "or in Soviet ZOC (5.23), at most 14 of them away from the Front Line and the hexes next to it (5.24, "
                "errata), every unit in supply (5.25), within the stacking limit (7.1):"]
        groups = [("", left)]
    else:
        head = [f"{len(left)} units to set up, west of the 28 June 1942 Front Line, each Front Line hex in the ZOC of an "
                "Axis unit (5.36), the regiments of a division in one hex (5.3), within the stacking limit (7.1); "
                "each in the band of its army (20.1):"]
        groups = [(f"{zone} ({ZONE_WORDS[zone]}): ", [u for u in left if sc.units[u].setup == zone])
                  for zone in sorted(ZONE_WORDS)]
    lines = textwrap.wrap(" ".join(head), 96, break_on_hyphens=False)
    for label, units in groups:
        if units:
            lines += textwrap.wrap(label + ", ".join(units) + ".", 96, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False)
    if side == "axis":
        lines += textwrap.wrap("After `end`, Game-Turn 1 begins with the Axis Initial Movement Phase (4.2): its orders "
                               "may follow the `end` in this same packet (the units of 5.31 and 5.32 stand still on "
                               "Game-Turn 1, 5.38).", 96, break_on_hyphens=False)
    return lines
