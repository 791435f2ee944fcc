"""Order and standing-order schemas, and the default standing orders.

`schemas/kkoh-orders.schema.json` is ORDER_SCHEMA written out as JSON (a test checks that
they are equal). Ids are strings of a safe alphabet here: an id that names no unit or square
is an illegal order citing its rule, not a malformed packet."""

from __future__ import annotations

from ..base import standing_orders

_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9/._-]{0,39}$"
_ID = {"type": "string", "pattern": _ID_PATTERN}
_IDS = {"type": "array", "items": _ID, "minItems": 1, "maxItems": 12}
# described, with an example, for a refusal's words (a players' probe: an assault's target
# given as a unit read "does not match '^[0-9]{4}$'")
_SQUARE = {"type": "string", "pattern": "^[0-9]{4}$", "description": "a square's id, column and row",
           "examples": ["0907"]}
_MAYBE_SQUARE = {"type": ["string", "null"], "pattern": "^[0-9]{4}$", "description": "a square's id, column and row",
                 "examples": ["0907"]}
_EDGE = {"enum": ["N", "E", "S", "W"]}
_ORDER = {"enum": ["FA", "PA", "HA", "M", "HD", "HD1", "HD2", "HD3", "PD", "FD"]}
_CELL = {"type": "string", "pattern": "^[0-2][0-2]$"}
_N = {"type": "integer", "minimum": 1, "maximum": 999}
_COUNTS_AS = {"enum": ["armour", "infantry"]}      # K-INF-7 (assault.COUNTS_AS)


def _order(type_: str, title: str, required: list[str], **props) -> dict:
    properties = {"type": {"const": type_}}
    properties.update(props)
    return {"title": title, "type": "object", "properties": properties,
            "required": ["type"] + required, "additionalProperties": False}


def _face() -> dict:
    """K-CA-17, K-CAR-1: the occupiers' facing and grouping. Simple: `facing` and `group` (all one
    battle group, or all single units). Full: `facings` gives any of them its own facing (the
    others take `facing`) and `groups` the battle groups they form (the rest stand alone), in
    place of `group`."""
    face = _order("face", "K-CA-17: the facing of the units that occupied a square, and whether they stay one group; "
                  "or each unit its own facing (`facings`) and the battle groups they form (`groups`, in place of "
                  "`group`).", ["facing"], facing=_EDGE, group={"type": "boolean"},
                  facings={"type": "object", "propertyNames": _ID, "additionalProperties": _EDGE, "maxProperties": 6},
                  groups={"type": "array", "items": {"type": "array", "items": _ID, "minItems": 2, "maxItems": 6},
                          "maxItems": 3})
    face["anyOf"] = [{"required": ["group"]}, {"required": ["groups"]}]
    return face


ORDER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "kkoh: one order",
    "description": "An order of the kkoh ruleset (Kalt Krieg ohne Hass): a step's action, `end`, an item of sealed "
                   "orders (`chit`, `fire`), or the answer to a decision.",
    "type": "object",
    "required": ["type"],
    "oneOf": [
        _order("end", "Close the current step (issuing orders, fire plan, movement, bombardment calls).", []),
        _order("chit", "K-ORD: the order chit of one battle group or lone unit (a sealed item).", ["units", "order"],
               units=_IDS, order=_ORDER),
        _order("fire", "K-DF: one unit's Direct Fire at an enemy unit (a sealed item).", ["unit", "target"],
               unit=_ID, target=_ID),
        _order("move", "K-MOV: move a unit or battle group one square (or within its square), facing an edge; "
               "optionally its cells, units joining it at the destination, no new group.", ["units", "facing"],
               units=_IDS, to=_SQUARE, facing=_EDGE, cells={"type": "array", "items": _CELL, "maxItems": 6},
               join={"type": "array", "items": _ID, "maxItems": 5}, group={"type": "boolean"}),
        _order("assault", "K-CA: a Close Assault by a battle group or a unit into an adjacent square; optionally "
               "`dismount` (K-CA-10), `hqs` (the command markers going with it) and `counts_as` (K-INF-7: every "
               "mechanised infantry unit attacking mounted in its tracked armoured carriers counts for the factors as "
               "armour or as its infantry type, never both; left out, the one giving the higher final factor, armour "
               "on a tie).", ["units", "target"],
               units=_IDS, target=_SQUARE, dismount={"type": "boolean"}, hqs={"type": "array", "items": _ID, "maxItems": 3},
               counts_as=_COUNTS_AS),
        _order("dismount", "K-INF-4: infantry gets out of its transports.", ["units"], units=_IDS),
        _order("mount", "K-INF-5: infantry gets back into its transports (Action Phase 4).", ["units"], units=_IDS),
        _order("limber", "K-ART-7: towed guns limber up.", ["units"], units=_IDS),
        _order("unlimber", "K-ART-7: towed guns deploy.", ["units"], units=_IDS),
        _order("hq", "K-CMK-2: move a command marker one square.", ["hq", "to"], hq=_ID, to=_SQUARE),
        _order("show", "K-ORD-6 (reading): show the sealed order chits of the battle groups and lone units these units "
               "belong to, so that they may move, change mode or assault.", ["units"],
               units={"type": "array", "items": _ID, "minItems": 1, "maxItems": 400}),
        _order("bombard", "K-IF: call a battery to bombard in support of a Close Assault, dedicated to one of your "
               "units in it.", ["unit", "assault", "support"], unit=_ID, assault=_N, support=_ID),
        _order("counter-battery", "K-IF-10: task a battery to counter-battery fire (with counter-battery assets, K-SFX-2).",
               ["unit"], unit=_ID, assets={"type": "boolean"}),
        _order("chemical", "K-SFX-4: a chemical attack in a Close Assault your artillery bombards.", ["assault"], assault=_N),
        _order("roll", "K-INI-1: roll for initiative (the standing order always does).", []),
        _order("replace", "K-CMD-11: where a destroyed command marker comes back (null: not yet).", ["hq", "square"],
               hq=_ID, square=_MAYBE_SQUARE),
        _order("minelets", "K-SFX-5: the square of the first marker of a pair of minelets.", ["pair", "square"],
               pair=_ID, square=_SQUARE),
        _order("ew", "K-SFX-1: use the EW unit for this turn's attacks.", ["use"], use={"type": "boolean"}),
        _order("evade", "K-REC-2: a lone reconnaissance unit under fire gives ground, or stands.", ["unit", "go"],
               unit=_ID, go={"type": "boolean"}),
        _order("hold", "K-DOC-3: a Soviet-style unit takes a loss instead of giving ground.", ["unit", "convert"],
               unit=_ID, convert={"type": "boolean"}),
        _order("air-support", "K-SFX-3: use Air Support for this air unit's arrival.", ["use"], use={"type": "boolean"}),
        _order("air-target", "K-AIR-2/5: where an arrived air unit attacks (and, rotary wing, where it is placed).",
               ["square"], square=_SQUARE, **{"from": _SQUARE}),
        _order("air-unit", "K-AIR-3: the unit an air attack hits.", ["unit"], unit=_ID),
        _order("next", "K-CA-1: the Close Assault fought next.", ["assault"], assault=_N),
        _order("defend", "K-CA-7: the defending unit or group and its supporting unit (or null).", ["units", "support"],
               units=_IDS, support={"type": ["string", "null"], "pattern": _ID_PATTERN}),
        _order("loss", "K-CAR-1/6: the engaged unit that takes the next loss.", ["unit"], unit=_ID),
        _order("test", "K-ATR-2: the unit that tests attrition next.", ["unit"], unit=_ID),
        _order("counter", "K-CAR-3: try a Counter Attack.", ["attempt"], attempt={"type": "boolean"}),
        _order("withdraw", "K-CAR-1: an unengaged defender gives ground voluntarily, or stays.", ["unit", "go"],
               unit=_ID, go={"type": "boolean"}),
        _order("occupy", "K-CA-15: the next successful attacker to occupy the square (null: no more).", ["unit"],
               unit={"type": ["string", "null"], "pattern": _ID_PATTERN}),
        _face(),
        _order("place", "K-GG-5: the place a unit giving ground takes in its new square (its facing unchanged).",
               ["unit", "cell"], unit=_ID, cell=_CELL),
        _order("breakthrough", "K-CA-20: take or decline a Breakthrough Close Assault; taking it, optionally "
               "`counts_as` for its mechanised infantry, as in `assault` (K-INF-7).", ["assault", "take"],
               assault=_N, take={"type": "boolean"}, counts_as=_COUNTS_AS),
    ],
}

ORDER_TYPES = tuple(o["properties"]["type"]["const"] for o in ORDER_SCHEMA["oneOf"])

POLICY_CHOICES = {
    "replace_hq": ["with-units", "ask"],
    "minelets": ["ask", "enemy-front"],   # K-SFX-5: the owner places them, in his first packet
    "ew": ["use", "save", "ask"],
    "recce_evade": ["evade", "stand", "ask"],
    "soviet_hold": ["give-ground", "take-loss", "ask"],
    "air_support": ["use", "save", "ask"],
    "air_target": ["most-units", "ask"],
    "assault_order": ["declared", "ask"],
    "ca_defence": ["with-support", "alone", "ask"],
    "losses": ["spread", "concentrate", "ask"],
    "attrition": ["undamaged-first", "damaged-first", "ask"],
    "counter_attack": ["never", "try", "ask"],
    "withdraw": ["stay", "withdraw", "ask"],
    "occupy": ["listed", "ask"],
    "occupy_facing": ["forward", "ask"],
    "breakthrough": ["decline", "take", "ask"],
    "give_ground_place": ["front-most", "ask"],
}

# The first choice of each is the default: with them a player sends only the orders of each step
# (and, on turn 1, where his minelets go).
POLICY_SCHEMA, DEFAULT_POLICIES = standing_orders("kkoh", POLICY_CHOICES)
