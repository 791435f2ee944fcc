"""Areas, units and control: small read-mostly helpers over the `rules` state.

The map is an area graph kept in the state (`rules["areas"]`), so a state file is
complete. Control (house rule 4, NOT from the fragment): every area is controlled by one
side; an empty area keeps its controller.
"""

from __future__ import annotations

from ..base import IllegalOrder

SIDES = ("german", "soviet")


def enemy(side: str) -> str:
    return "soviet" if side == "german" else "german"


def unit_strength(unit: dict) -> int:
    """House rule 2.1: a unit at full strength has two steps, a reduced unit one."""
    return unit["strength"][0] if unit["steps"] >= 2 else unit["strength"][1]


def units_in(rules: dict, area: str, side: str | None = None) -> list[str]:
    """Ids of the units on the map in `area` (of `side` if given), sorted."""
    return [
        uid
        for uid, u in sorted(rules["units"].items())
        if u["status"] == "map" and u["area"] == area and (side is None or u["side"] == side)
    ]


def count(rules: dict, area: str, side: str) -> int:
    return len(units_in(rules, area, side))


def occupancy(rules: dict) -> dict:
    """{area: {"german": n, "soviet": n}} for every area, in one pass over the units."""
    occ = {a: {"german": 0, "soviet": 0} for a in sorted(rules["areas"])}
    for uid, u in sorted(rules["units"].items()):
        if u["status"] == "map":
            occ[u["area"]][u["side"]] += 1
    return occ


def contested(rules: dict, area: str) -> bool:
    return count(rules, area, "german") > 0 and count(rules, area, "soviet") > 0


def is_crossing(rules: dict, area: str) -> bool:
    return bool(rules["areas"][area]["crossing"])


def has_room(rules: dict, area: str, side: str, arriving: int = 1, occ: dict | None = None) -> bool:
    """10.3(2) stacking limit of 10 own units per area (house rule 2.2 applies it to
    movement and placement too); 11.2(3): no limit for Soviet units on crossings."""
    if side == "soviet" and is_crossing(rules, area):
        return True
    here = occ[area][side] if occ is not None else count(rules, area, side)
    return here + arriving <= rules["stacking_limit"]


def adjacent(rules: dict, area: str) -> list[str]:
    return list(rules["areas"][area]["adjacent"])


def name(rules: dict, area: str) -> str:
    return rules["areas"][area]["name"]


def set_control(rules: dict, area: str, side: str, ctx, rule: str, why: str,
                house_rule: bool) -> None:
    if rules["areas"][area]["control"] == side:
        return
    rules["areas"][area]["control"] = side
    fields = {"area": area, "side": side, "rule": rule}
    if house_rule:
        fields["house_rule"] = True
    ctx.event("control", f"{name(rules, area)} passes to the {side} side: {why}.", **fields)


def update_control(rules: dict, ctx) -> None:
    """House rule 4.3 (NOT from the fragment): an area holding units of one side only
    passes to that side; an empty area keeps its controller."""
    for area in sorted(rules["areas"]):
        g, s = count(rules, area, "german"), count(rules, area, "soviet")
        if g and not s:
            set_control(rules, area, "german", ctx, "house 4.3",
                        "only German units are there", True)
        elif s and not g:
            set_control(rules, area, "soviet", ctx, "house 4.3",
                        "only Soviet units are there", True)


_DESCRIPTIONS = {
    "move": "move {unit} to {to}", "reinforce": "reinforce {unit} in {area}", "shift": "shift {unit} to {to}",
    "attack": "attack in {area}", "retreat": "retreat {unit} to {to}", "apply": "apply losses of {unit} as {how}",
    "allocate": "allocate a loss point to {unit}", "substitute": "substitute {unit}", "end": "end",
}


def describe(order) -> str:
    """A short text naming an order for messages: "move 13gd-34 to station-1"."""
    if not isinstance(order, dict):
        return repr(order)
    if order.get("type") == "card":
        return "play a tactical card" if order.get("play") else "keep the tactical card"
    template = _DESCRIPTIONS.get(order.get("type"))
    if template is not None:
        fields = {key: order.get(key) for key in ("unit", "to", "area", "how")}
        return template.format(**fields)
    return ", ".join(f"{k}={order[k]}" for k in sorted(order))


def known_unit(rules: dict, order: dict, key: str = "unit") -> dict:
    uid = order.get(key)
    if uid not in rules["units"]:
        raise IllegalOrder("house 2.1", f"Order '{describe(order)}': there is no unit "
                           f"with id {uid!r} (house 2.1); use a unit id from the order of battle.",
                           "a unit id from the order of battle")
    return rules["units"][uid]


def known_area(rules: dict, order: dict, key: str) -> str:
    aid = order.get(key)
    if aid not in rules["areas"]:
        raise IllegalOrder("house 1.1", f"Order '{describe(order)}': there is no area "
                           f"with id {aid!r} (house 1.1); use an area id of the map.",
                           sorted(rules["areas"]))
    return aid


def listing(items: list[str]) -> str:
    return ", ".join(items) if items else "none"
