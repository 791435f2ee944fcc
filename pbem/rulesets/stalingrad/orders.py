"""Order and standing-order schemas and the default standing orders.

`schemas/stalingrad-orders.schema.json` at the project root is this ORDER_SCHEMA written
out as JSON (a test checks that they are equal)."""

from __future__ import annotations

from ..base import standing_orders

_ID = {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$", "maxLength": 40}
# An area's and a unit's id, described: a value the pattern refuses is answered in these words,
# not as the regular expression (a new user's probe: "mamayev_kurgan" met '^[a-z0-9][a-z0-9-]*$').
_AREA = dict(_ID, description="an area's id, in lower-case letters, digits and hyphens", examples=["mamayev-kurgan"])
# `pbem show` writes a * after a black counter's id (11.3), which a player copied into an order (a
# players' probe): the words say it is not part of the id.
_UNIT = dict(_ID, description="a unit's id, in lower-case letters, digits and hyphens (without the * that `pbem "
             "show` writes after a black counter's id)", examples=["71id-191"])


def _order(type_: str, title: str, **props) -> dict:
    properties = {"type": {"const": type_}}
    properties.update(props)
    required = ["type"] + [k for k in props if k != "phase"]
    return {"title": title, "type": "object", "properties": properties,
            "required": required, "additionalProperties": False}


ORDER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "stalingrad: one order",
    "description": "An order of the stalingrad ruleset: a phase action, `end`, or the answer to a decision.",
    "type": "object",
    "required": ["type"],
    "oneOf": [
        _order("end", "Close the current phase (optionally naming it, as a check).",
               phase={"type": "string", "pattern": "^[a-z][a-z-]{0,39}$"}),
        _order("reinforce", "11.2: place a reinforcement.", unit=_UNIT, area=_AREA),
        _order("shift", "11.2(3): move a Soviet unit from one crossing to another.", unit=_UNIT, to=_AREA),
        _order("move", "House 5: move a unit to an adjacent area.", unit=_UNIT, to=_AREA),
        _order("attack", "House 6.1: attack in an area holding units of both sides.", area=_AREA),
        _order("card", "House 7: play a tactical card or not.", play={"type": "boolean"}),
        _order("allocate", "House 6.4: put one loss point on a unit.", unit=_UNIT),
        _order("apply", "House 6.5: apply a unit's loss points as steps or with a retreat.",
               unit=_UNIT, how={"enum": ["step", "retreat"]}),
        _order("retreat", "10.3(1): choose among tied retreat areas.", unit=_UNIT, to=_AREA),
        _order("substitute", "11.3(1)-(2): the unit withdrawn in place of an eliminated black unit.",
               unit=_UNIT),
    ],
}

POLICY_CHOICES = {
    "tactical_card": ["at-least-2", "at-least-3", "always", "never"],
    "allocate_own_losses": ["save-units", "weakest-first", "strongest-first", "lowest-id"],
    "allocate_enemy_losses": ["kill-units", "strongest-first", "weakest-first", "lowest-id"],
    "apply_losses": ["save-units", "step", "retreat"],
    "retreat_tie": ["engine-priority", "lowest-id", "ask"],
    "withdrawal_substitute": ["weakest", "strongest", "lowest-id", "ask"],
}
POLICY_SIDES = {"withdrawal_substitute": ("german",)}    # 11.3(1)-(2): the German player's; the others either side's

# The first choice of each standing order is the default, the same for both sides; with
# them every decision is answered and one packet per player-turn suffices. `ask` leaves the
# decision to the side's next packet (10.3(1): "the retreating player decides"; 11.3(2): "at
# the German player's discretion"), which the game then waits for.
POLICY_SCHEMA, DEFAULT_POLICIES = standing_orders("stalingrad", POLICY_CHOICES)
