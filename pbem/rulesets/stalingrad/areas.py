"""Areas, units and control: the small helpers the rules read the state through.

The map and the fixed attributes of units are in the scenario object (`sc`, see
scenario.py); the rules state (`rules`) holds only what play changes:
`rules["units"]` {unit: its area, or the box it is in}, `rules["reduced"]` (units on the
map at one step), `rules["control"]` {area: side}. The rules read an area's controller,
and the area of a unit they know to be on the map, straight from those mappings; whether
a unit is on the map, its steps and its strength through the helpers below. Control
(house rule 4, NOT from the fragment): every area is controlled by one side; an empty
area keeps its controller.
"""

from __future__ import annotations

from pbem.core.text import did_you_mean

from ..base import IllegalOrder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

SIDES = ("german", "soviet")
# the boxes off the map a unit can be in, instead of an area
BOXES = ("pool", "eliminated", "withdrawn")
_OFF_MAP = frozenset(BOXES)   # for `in`, asked for every unit many times a step
# Where `rules["units"].get` puts a unit that is not on the map: a box, or None for a unit
# a start position left out of the game (scenario.apply_position).
_NOT_ON_MAP = _OFF_MAP | {None}
FULL_STEPS = 2  # house rule 2.1: full and reduced strength


def enemy(side: str) -> str:
    return "soviet" if side == "german" else "german"


def side_name(side: str) -> str:
    """A side as the texts name it: "German", "Soviet"."""
    return side.capitalize()


# ---- units ------------------------------------------------------------------------------

def status(rules: dict, uid: str) -> str:
    """"map", or the box the unit is in ("pool", "eliminated", "withdrawn")."""
    where = rules["units"][uid]
    return where if where in _OFF_MAP else "map"


def steps(rules: dict, uid: str) -> int:
    """The steps of a unit on the map (house rule 2.1)."""
    return 1 if uid in rules["reduced"] else FULL_STEPS


def unit_strength(sc, rules: dict, uid: str) -> int:
    """House rule 2.1: a unit at full strength has two steps, a reduced unit one."""
    full, reduced = sc.units[uid].strength
    return reduced if uid in rules["reduced"] else full


def place(rules: dict, uid: str, where: str) -> None:
    """Put a unit in an area or a box; a unit leaving the map leaves its lost steps behind."""
    rules["units"][uid] = where
    if where in BOXES and uid in rules["reduced"]:
        rules["reduced"].remove(uid)


def reduce(rules: dict, uid: str) -> None:
    rules["reduced"] = sorted(rules["reduced"] + [uid])


def side_units(sc, rules: dict, side: str, where: str) -> list[str]:
    """Ids of the units of `side` in `where` ("map", a box), sorted: the side's units of the
    scenario in their order, those a start position left out of the game skipped."""
    units = rules["units"]
    if where == "map":
        return [uid for uid in sc.side_ids[side] if units.get(uid) not in _NOT_ON_MAP]
    return [uid for uid in sc.side_ids[side] if units.get(uid) == where]


def units_in(sc, rules: dict, area: str, side: str | None = None) -> list[str]:
    """Ids of the units on the map in `area` (of `side` if given), sorted."""
    units = rules["units"]
    return [uid for uid in (sc.unit_ids if side is None else sc.side_ids[side]) if units.get(uid) == area]


def count(sc, rules: dict, area: str, side: str) -> int:
    """The number of units of `side` in `area`."""
    return len(units_in(sc, rules, area, side))


def occupancy(sc, rules: dict) -> dict:
    """{area: {"german": n, "soviet": n}} for every area, in one pass over the units."""
    return occupancy_of(sc, rules, sc.area_ids)


def occupancy_of(sc, rules: dict, areas: tuple[str, ...]) -> dict:
    """`occupancy` of these areas only (of all of them; or where one unit is and where it
    may go: an order checked), in one pass over the units that counts no other area."""
    occ = {a: {"german": 0, "soviet": 0} for a in areas}
    units = sc.units
    for uid, where in rules["units"].items():
        if where in occ:
            occ[where][units[uid].side] += 1
    return occ


# ---- areas ------------------------------------------------------------------------------

def has_room(sc, rules: dict, area: str, side: str, arriving: int = 1, occ: dict | None = None) -> bool:
    """10.3(2) stacking limit of 10 own units per area (house rule 2.2 applies it to
    movement and placement too); 11.2(3): no limit for Soviet units on crossings."""
    if side == "soviet" and sc.areas[area].crossing:
        return True
    here = occ[area][side] if occ is not None else count(sc, rules, area, side)
    return here + arriving <= sc.stacking_limit


def name(sc, area: str) -> str:
    return sc.areas[area].name


def set_control(sc, rules: dict, area: str, side: str, ctx, rule: str, why: str,
                house_rule: bool) -> None:
    if rules["control"][area] == side:
        return
    rules["control"][area] = side
    fields = {"area": area, "side": side, "rule": rule}
    if house_rule:
        fields["house_rule"] = True
    ctx.event("control", f"{name(sc, area)} passes to the {side_name(side)} side: {why} ({rule}).", **fields)


def update_control(sc, rules: dict, ctx) -> None:
    """House rule 4.3 (NOT from the fragment): an area holding units of one side only
    passes to that side; an empty area keeps its controller."""
    for area, occ in occupancy(sc, rules).items():
        g, s = occ["german"], occ["soviet"]
        if g and not s:
            set_control(sc, rules, area, "german", ctx, "house 4.3",
                        "only German units are there", True)
        elif s and not g:
            set_control(sc, rules, area, "soviet", ctx, "house 4.3",
                        "only Soviet units are there", True)


# ---- orders -----------------------------------------------------------------------------

def known_unit(sc, rules: dict, order: dict, key: str = "unit"):
    """The scenario's record of the unit an order names, if it is in the game."""
    uid = order.get(key)
    if uid not in rules["units"]:
        raise IllegalOrder("house 2.1", f"there is no unit {uid!r}{did_you_mean(list(rules['units']), uid)} in the "
                           f"order of battle (house 2.1)", [])
    return sc.units[uid]


def known_area(sc, order: dict, key: str, offer: Callable[[], list[dict]] | None = None) -> str:
    """The area `order[key]` names, refused where the map has none. `offer`: the legal orders
    of the need, of which a sender's refused packet offers those of the order's unit (or all,
    where none is that unit's), not every area of the map (a new user's probe: a misspelt area
    of a Soviet reinforcement listed all 26 areas as "Legal now", where four crossings were).
    A void line in a report keeps the areas, as its ruleset version wrote it."""
    aid = order.get(key)
    if aid not in sc.areas:
        legal = offer() if offer is not None else []
        mine = [o for o in legal if o.get("unit") == order.get("unit")]
        raise IllegalOrder("house 1.1", f"there is no area {aid!r}{did_you_mean(list(sc.area_ids), aid)} on the map "
                           f"(house 1.1)", list(sc.area_ids), mine or legal or None)
    return aid


def listing(items: list[str]) -> str:
    return ", ".join(items) if items else "none"
