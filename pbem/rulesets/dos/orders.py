"""Order and standing-order schemas, the default standing orders, and how a standing order
answers each decision.

`schemas/dos-orders.schema.json` is ORDER_SCHEMA written out as JSON (a test checks that
they are equal). Ids are strings of a safe alphabet: an id that names no unit or hex is an
illegal order with its rule, not a malformed packet."""

from __future__ import annotations

from ..base import standing_orders
from . import state as st

_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9/._-]{0,39}$"
_ID = {"type": "string", "pattern": _ID_PATTERN}
_MAYBE = {"type": ["string", "null"], "pattern": _ID_PATTERN}
_IDS = {"type": "array", "items": _ID, "maxItems": 60}
# a hex id begins with its mapsheet (3.1): the examples let a bare number written unquoted be
# answered with the ids it may have meant (core/schema.py), not with "quote it"
_HEX = {**_ID, "examples": ["N3117", "S0442"]}
_HEXES = {"type": "array", "items": _HEX, "maxItems": 200}
_AIR = {"type": "object", "properties": {"units": {"type": "array", "items": _ID, "maxItems": 12},
                                         "shift": {"enum": [1, -1]}},
        "required": ["units"], "additionalProperties": False}


def _order(type_: str, title: str, required: list[str], **props) -> dict:
    properties = {"type": {"const": type_}}
    properties.update(props)
    return {"title": title, "type": "object", "properties": properties,
            "required": ["type"] + required, "additionalProperties": False}


ORDER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "dos: one order",
    "description": "An order of the dos ruleset (Drive on Stalingrad): a phase action, `end`, or the answer to a "
                   "decision.",
    "type": "object",
    "required": ["type"],
    "oneOf": [
        _order("end", "Close the current phase or set-up (optionally naming it, as a check).", [],
               phase={"enum": ["setup", "move", "combat", "mech", "interdiction"]}),
        _order("draw", "5.21: draw the Soviet initial force at random.", []),
        _order("place", "5.2/5.3: set up a unit.", ["unit", "hex"], unit=_ID, hex=_HEX),
        _order("move", "6.1: move a unit or stack along a path; `withdraw` for a Soviet strategic withdrawal (18.1), "
               "`exit` to leave the map from S1001 (19.22).", ["units"], units=_IDS, path=_HEXES,
               withdraw={"type": "boolean"}, exit={"type": "boolean"}),
        _order("rail", "6.3: move a unit or stack by rail along a path.", ["units", "path"], units=_IDS, path=_HEXES),
        _order("overrun", "6.5: move a stack next to the target (path) and overrun it; Axis Air Points (14.3).",
               ["units", "target"], units=_IDS, path=_HEXES, target=_HEX, air=_AIR),
        _order("enter", "15.1/15.3: reinforcements enter at a hex (the path's first) and may move on, by rail too.",
               ["units", "path"], units=_IDS, path=_HEXES, rail={"type": "boolean"}),
        _order("evacuate", "11.5/14.6: remove Soviet HQs or air units, back three Game-Turns later.", ["units"],
               units=_IDS),
        _order("attack", "9.1: attack hexes with units; Soviet HQs add their rating (11.43); Air Points (14.21).",
               ["targets", "units"], targets={**_HEXES, "maxItems": 60}, units=_IDS, hqs=_IDS,
               air=_AIR),
        _order("air-supply", "12.4: an Air Point supplies up to five steps of German units for this phase "
               "(`air` null: none).", ["air", "units"], air=_MAYBE, units=_IDS),
        _order("interdict", "14.41: an Air Point places one or two Air Interdiction markers.", ["air", "hexes"],
               air=_ID, hexes={**_HEXES, "maxItems": 2}),
        _order("air", "14.22: the defender's Air Points on a combat.", ["units"],
               units={"type": "array", "items": _ID, "maxItems": 12}, shift={"enum": [1, -1]}),
        _order("hq", "11.43: the Axis HQ that adds to the defence (null: none).", ["hq"], hq=_MAYBE),
        _order("result", "9.67: answer a D1/D2 or A1/A2 result with step losses or a retreat.", ["choice"],
               choice={"enum": ["loss", "retreat"]}),
        _order("double", "9.33: double every step loss of the combat in a Major city.", ["choice"],
               choice={"enum": ["yes", "no"]}),
        _order("loss", "9.67: the unit that loses the next step.", ["unit"], unit=_ID),
        _order("retreat", "9.72: the path of retreat of an enemy unit.", ["path"], unit=_ID, path=_HEXES),
        _order("advance", "9.8: advance units after combat along a path (no units: no further advance).", ["units"],
               units=_IDS, path=_HEXES),
        _order("withdraw", "15.2: the units withdrawn for the track's order.", ["units"], units=_IDS),
        _order("accelerate", "15.42: double the north-map reinforcements this turn, or not.", ["choice"],
               choice={"enum": ["double", "normal"]}),
        _order("eliminate", "7.1: a unit of an over-stacked hex eliminated.", ["units"], units=_IDS),
        _order("remove", "16.33/16.4: a division over the directive's limit leaves the game.", ["units"], units=_IDS),
        _order("clear", "6.42: the rail hexes the Axis player clears.", ["hexes"],
               hexes={**_HEXES, "maxItems": 3}),
        _order("railheads", "12.31-12.35: trucks that get a railhead, and railheads moved on; `chains`, the "
               "lines of trucks as the Axis player strings them (none named: the engine's).", ["place", "advance"],
               place=_IDS, advance=_IDS, chains={"type": "array", "items": {**_IDS, "minItems": 1}, "maxItems": 30}),
    ],
}

POLICY_CHOICES = {
    "selection": ["draw"],
    "withdrawal": ["named", "ask"],
    "acceleration": ["double", "normal", "ask"],
    "overstack": ["weakest", "ask"],
    "directive_removal": ["weakest", "ask"],
    "rail_clearing": ["longest", "none", "ask"],
    "truck_railheads": ["auto", "none", "ask"],
    "defence_air": ["none", "all", "ask"],
    "defence_air_supply": ["when-needed", "none", "ask"],
    "hq_defence": ["add", "none", "ask"],
    "defender_result": ["retreat", "loss", "ask"],
    "attacker_result": ["retreat", "loss", "ask"],
    "major_city_double": ["no", "yes", "ask"],
    "losses": ["least-strength", "most-steps", "ask"],
    "retreat_paths": ["first", "ask"],
    "advance": ["one", "all", "none", "ask"],
}
POLICY_SCHEMA, DEFAULT_POLICIES = standing_orders("dos", POLICY_CHOICES)
# the standing orders of one side's decisions only (README: Decision points); the others answer either side's
POLICY_SIDES = {
    "selection": ("soviet",),             # 5.21
    "withdrawal": ("axis",),              # 15.2
    "acceleration": ("soviet",),          # 15.42
    "directive_removal": ("axis",),       # 16.33, 16.4
    "rail_clearing": ("axis",),           # 6.42
    "truck_railheads": ("axis",),         # 12.32-12.35
    "defence_air_supply": ("axis",),      # 12.44
    "hq_defence": ("axis",),              # 11.43
}

# which standing order answers which decision
KEY_OF = {
    "selection": "selection", "withdrawal": "withdrawal", "accelerate": "acceleration", "stack": "overstack",
    "directive-removal": "directive_removal", "clear": "rail_clearing", "railhead": "truck_railheads",
    "air-defence": "defence_air", "air-supply-defence": "defence_air_supply", "hq-defence": "hq_defence",
    "defender-result": "defender_result", "attacker-result": "attacker_result", "double-losses": "major_city_double",
    "loss": "losses", "retreat": "retreat_paths", "advance": "advance",
}


def decision_policy(sc, rules: dict, kind: str, pol: dict, options: list[dict]) -> dict | None:
    """The answer a standing order gives, from the decision's legal options (None: ask)."""
    value = pol.get(KEY_OF.get(kind, ""), "ask")
    if value == "ask" or not options:
        return None
    if kind == "selection":
        return {"type": "draw"}
    if kind == "directive-removal":
        from .directives import weakest_removal
        return weakest_removal(sc, rules)
    if kind == "withdrawal":
        # the unit the track names, whenever it may go: available (15.21), or, none of its type
        # being available, among the units of 15.24 (an Enemy ZOC no bar); which other unit goes
        # in its place (15.23, 15.24) is the Axis player's choice, asked unless only one may go
        from .reinforce import pending_withdrawal

        named = {"type": "withdraw", "units": sorted(pending_withdrawal(sc, rules)["units"])}
        return options[0] if len(options) == 1 else named if named in options else None
    if kind == "accelerate":
        return {"type": "accelerate", "choice": value}
    if kind == "stack":
        from .board import stacking_ok

        def worth(o):
            uid = o["units"][0]
            a, d = (3, 3) if st.untried(sc, rules, uid) else st.strengths(sc, rules, uid)
            return (a + d, st.steps_left(sc, rules, uid), uid)
        # the weakest unit whose loss makes the stack legal; if none does, the weakest
        here = [o["units"][0] for o in options]
        mine = [u for u in rules["units"] if rules["units"][u] == rules["units"][here[0]] and sc.side_of[u] == sc.side_of[here[0]]]
        enough = [o for o in options if stacking_ok(sc, rules, [u for u in mine if u != o["units"][0]])]
        return min(enough or options, key=worth)
    if kind == "clear":
        if value == "none":
            return options[0]
        return max(options, key=lambda o: (len(o["hexes"]), [-len(h) for h in o["hexes"]]))
    if kind == "railhead":
        return options[-1] if value == "auto" else options[0]
    if kind == "air-defence":
        return options[-1] if value == "all" else options[0]
    if kind == "air-supply-defence":
        # a point for German defenders out of supply, not one for an air unit alone
        needed = [o for o in options if any(u != o["air"] for u in o["units"])]
        return needed[0] if value == "when-needed" and needed else options[0]
    if kind == "hq-defence":
        return options[1] if value == "add" and len(options) > 1 else options[0]
    if kind in ("defender-result", "attacker-result"):
        if value == "retreat":
            # retreat when every unit of the side has a path of retreat (9.72, 9.73), else lose steps
            from .combat import can_all_retreat
            c = rules["combat"]
            which = "def" if kind == "defender-result" else "att"
            if not can_all_retreat(sc, rules, c, which):
                return {"type": "result", "choice": "loss"}
        answer = {"type": "result", "choice": value}
        # an attacker's retreat that would leave a hex over the stacking limit is not offered (7.1)
        return answer if answer in options else options[0]
    if kind == "double-losses":
        return {"type": "double", "choice": value}
    if kind == "loss":
        optional = ((rules.get("combat") or {}).get("loss") or {}).get("optional", ())

        def cost(o):
            uid = o["unit"]
            a, d = st.strengths(sc, rules, uid)
            # a step that eliminates a Panzer or Panzergrenadier regiment costs its division
            # Divisional Integrity for good (7.23): after every other unit's step but an HQ's,
            # whichever standing order (a players' probe: the weakest regiment lost both steps of a D2 where one
            # step each from two regiments lost no more and kept the division whole)
            division = sc.units[uid].division
            breaks = (division is not None and not st.has(rules["broken"], division)
                      and st.steps_left(sc, rules, uid) == 1)
            # an HQ not in the attack, stacked with it (11.42), only by the owner's own answer
            spare = uid in optional
            if value == "most-steps":
                return (spare, breaks, -st.steps_left(sc, rules, uid), a + d, uid)
            hq = sc.units[uid].hq
            return (spare, hq, breaks, a + d, uid)
        return min(options, key=cost)
    if kind == "retreat":
        return options[0]
    if kind == "advance":
        c = rules["combat"]
        moves = [o for o in options if o["units"]]
        if value == "none" or not moves:
            return options[0]
        if value == "one" and c["advance"]["done"]:
            return options[0]
        safe = _safe_advances(sc, rules, c, [o for o in moves if len(o["path"]) == 1] or moves)
        if not safe:
            return options[0]

        return min(safe, key=lambda o: (-_advance_worth(sc, rules, o["units"]), o["units"], o["path"]))
    return options[0]


def _safe_advances(sc, rules: dict, c: dict, moves: list[dict]) -> list[dict]:
    """The advances a standing order may make (README: Decision points): a German regiment
    advances with every regiment of its division that stands with it and may take the same
    path, and never alone from a division whole in its hex (7.21, 7.22); and no advance leaves
    the hex it starts from, or the hex it ends in, over the stacking limit of 7.1 (the phase's
    end would eliminate a unit for it)."""
    from .board import stacking_ok, view

    board = view(sc, rules)
    side = c["advance"]["side"]
    # every unit and path of the legal advances, alone or with regiments of its division (7.1, 7.22)
    may = {(u, tuple(o["path"])) for o in moves for u in o["units"]}
    out: list[dict] = []
    for o in moves:
        uid, path = o["units"][0], tuple(o["path"])
        division = sc.units[uid].division
        start = sc.idx[st.hex_of(rules, uid)]
        mine = [u for u in board.units_at(start) if sc.side_of[u] == side]
        units = sorted(u for u in mine if u == uid or (division is not None and sc.units[u].division == division
                                                        and (u, path) in may))
        if units[0] != uid:
            continue                                   # the group is offered once, under its first unit
        if division is not None and board.intact(division, start) and len(units) < len(sc.divisions[division]):
            continue                                   # it would lose its integrity, doubling and all (7.21)
        there = [u for u in board.units_at(sc.idx[path[-1]]) if sc.side_of[u] == side]
        group = {"type": "advance", "units": units, "path": list(path)}
        if group not in out and stacking_ok(sc, rules, [u for u in mine if u not in units]) \
                and stacking_ok(sc, rules, there + units):
            out.append(group)
    return out


def _advance_worth(sc, rules: dict, units: list[str]) -> int:
    """The combat strength (attack + defence) of an advancing group, a whole division's doubled
    (7.21); untried units count nothing (13.0)."""
    worth = sum(sum(st.strengths(sc, rules, u)) for u in units if not st.untried(sc, rules, u))
    division = sc.units[units[0]].division
    whole = division is not None and division not in rules["broken"] and sorted(units) == sorted(sc.divisions[division])
    return 2 * worth if whole else worth
