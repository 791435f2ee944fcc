"""Order and standing-order schemas, and the default standing orders.

`schemas/chir-orders.schema.json` is ORDER_SCHEMA written out as JSON (a test checks that
they are equal). Ids are strings of a safe alphabet here: an id that names no unit or hex
is an illegal order with its rule, not a malformed packet."""

from __future__ import annotations

from ..base import standing_orders

# Unit and hex ids: letters, digits and / . _ - only, so no id a player writes can carry a
# control character or markup into a report (DESIGN §5).
_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9/._-]{0,39}$"
_ID = {"type": "string", "pattern": _ID_PATTERN}
_IDS = {"type": "array", "items": _ID, "maxItems": 60}
_MAYBE = {"type": ["string", "null"], "pattern": _ID_PATTERN}


def _order(type_: str, title: str, required: list[str], **props) -> dict:
    properties = {"type": {"const": type_}}
    properties.update(props)
    return {"title": title, "type": "object", "properties": properties,
            "required": ["type"] + required, "additionalProperties": False}


ORDER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "chir: one order",
    "description": "An order of the chir ruleset (48th Panzer Korps): a phase action, `end`, or the answer to a decision.",
    "type": "object",
    "required": ["type"],
    "oneOf": [
        _order("end", "Close the current phase or set-up (optionally naming it, as a check).", [],
               phase={"enum": ["setup", "attack", "movement"]}),
        _order("place", "3.2/3.3: set up a unit.", ["unit", "hex"], unit=_ID, hex=_ID),
        _order("attack", "9.1/9.2: declare an attack with its supporting artillery (10.3).", ["target", "units"],
               target=_ID, units=_IDS, support=_IDS),
        _order("move", "8.x: move a unit or stack along a path (optionally leaving the map, 4.4).", ["units"],
               units=_IDS, path=_IDS, exit={"type": "boolean"}),
        _order("enter", "11.1: bring reinforcements in at their entry hex and move them.", ["units", "path"],
               units=_IDS, path=_IDS, exit={"type": "boolean"}),
        _order("artillery", "10.3: the defender's supporting artillery (null: none).", ["unit"], unit=_MAYBE),
        _order("fire", "9.4: the attacking group the defender fires at (null: no defensive fire), and optionally "
               "which eligible defending units fire (default: all).", ["target"], target=_MAYBE, units=_IDS),
        _order("remove", "6.4/9.10.3: units removed to comply with the stacking limit.", ["units"], units=_IDS),
        _order("invalidate", "10.3: declared artillery the attacker gives up.", ["units"], units=_IDS),
        _order("loss", "9.8/9.9.2: the unit that takes the next strength point among equals.", ["unit"], unit=_ID),
        _order("morale", "9.9: answer morale damage by retreat or morale test.", ["choice"],
               choice={"enum": ["retreat", "test"]}),
        dict(_order("retreat", "9.10: the next retreat hex among equal choices (9.10.1), or null to end a retreat that "
                    "has gone the morale damage; or `path`: several such hexes, the retreat ending after them if it may.",
                    [], to=_MAYBE, path=_IDS), oneOf=[{"required": ["to"]}, {"required": ["path"]}]),
        _order("advance", "9.11: advance attacking units along a path.", ["units", "path"], units=_IDS, path=_IDS),
        _order("advance-end", "9.11: no (further) advance after combat.", []),
    ],
}

POLICY_CHOICES = {
    "defensive_artillery": ["strongest", "none", "ask"],
    "defensive_fire": ["strongest-group", "weakest-group", "none", "ask"],
    "invalidate": ["weakest", "ask"],
    "losses": ["lowest-morale", "ask"],
    "morale": ["test-if-allowed", "retreat", "ask"],
    "retreat": ["engine-priority", "break-contact", "ask"],
    "advance": ["vacated", "none", "ask"],
    "stack_removal": ["weakest", "ask"],
}

# The first choice of each is the default: a player relying on them sends one packet per player-turn.
POLICY_SCHEMA, DEFAULT_POLICIES = standing_orders("chir", POLICY_CHOICES)
