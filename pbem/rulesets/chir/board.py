"""Stacks, strength, zones of control (7.x), stacking (6.x) and control of hexes (3.3)."""

from __future__ import annotations

from .scenario import board, other

SIZE_THIRDS = {"company": 1, "battalion": 3, "regiment": 9}  # 6.1: 3 companies = 1 battalion


def on_map(rules: dict, side: str | None = None) -> list[str]:
    return [uid for uid, u in sorted(rules["units"].items())
            if u["status"] == "map" and (side is None or u["side"] == side)]


def stacks(rules: dict, side: str | None = None) -> dict[str, list[str]]:
    """hex -> units there (sorted), for units on the map."""
    out: dict[str, list[str]] = {}
    for uid in on_map(rules, side):
        out.setdefault(rules["units"][uid]["hex"], []).append(uid)
    return dict(sorted(out.items()))


def units_in(rules: dict, h: str, side: str | None = None) -> list[str]:
    return [uid for uid, u in sorted(rules["units"].items())
            if u["status"] == "map" and u["hex"] == h and (side is None or u["side"] == side)]


def side_in(rules: dict, h: str) -> str | None:
    for u in rules["units"].values():
        if u["status"] == "map" and u["hex"] == h:
            return u["side"]
    return None


def strength(rules: dict, uids: list[str]) -> int:
    return sum(rules["units"][u]["str"] for u in uids)


def is_tank(u: dict) -> bool:
    return u["cls"] == "tank"


def combat_arm(u: dict) -> bool:
    """Armoured or infantry unit (7.2, 8.5.1, 9.1, 9.4.1)."""
    return u["cls"] in ("tank", "infantry")


# --- 7.0 zones of control ---------------------------------------------------------------------

def zoc(rules: dict, side: str) -> tuple[set[str], set[str]]:
    """(hexes in the ZOC of `side`, hexes in its tank ZOC). 7.0: a hex whose units total 3 or
    more strength projects a ZOC into the six adjacent hexes (across rivers too); 3 or more
    of armoured units make it a tank ZOC. 7.1: units with a confusion marker count 0."""
    b = board(rules)
    total: dict[str, int] = {}
    tanks: dict[str, int] = {}
    for uid in on_map(rules, side):
        u = rules["units"][uid]
        if u["conf"]:
            continue
        total[u["hex"]] = total.get(u["hex"], 0) + u["str"]
        if is_tank(u):
            tanks[u["hex"]] = tanks.get(u["hex"], 0) + u["str"]
    zone: set[str] = set()
    tank_zone: set[str] = set()
    for h, s in total.items():
        if s >= 3:
            zone.update(b.neigh[h])
            if tanks.get(h, 0) >= 3:
                tank_zone.update(b.neigh[h])
    return zone, tank_zone


def ezoc(rules: dict, side: str) -> tuple[set[str], set[str]]:
    """The enemy zone of control as seen by `side`."""
    return zoc(rules, other(side))


def adjacent_enemy(rules: dict, h: str, side: str) -> bool:
    b = board(rules)
    enemy = {u["hex"] for u in rules["units"].values() if u["status"] == "map" and u["side"] != side}
    return any(n in enemy for n in b.neigh[h])


# --- 6.x stacking --------------------------------------------------------------------------------

def stacking_ok(rules: dict, uids: list[str]) -> bool:
    """Do these units (all of one side) fit in one hex? 6.1 German: 3 battalions, or 4 of
    one unit (LW field-division units stack without penalty: they count as any unit);
    6.2/6.3 Soviet: one regiment alone, or 2 battalions, or 3 of one army."""
    if len(uids) <= 1:
        return True
    units = [rules["units"][u] for u in uids]
    side = units[0]["side"]
    thirds = sum(SIZE_THIRDS.get(u["size"], 3) for u in units)
    if side == "german":
        if thirds <= 9:
            return True
        field = set(rules["board"].get("field_divisions", []))
        affs = {u["aff"] for u in units if u["aff"] not in field}
        return thirds <= 12 and len(affs) <= 1
    if any(u["size"] == "regiment" for u in units):
        return False
    if thirds <= 6:
        return True
    return thirds <= 9 and len({u["army"] for u in units}) == 1


def stacking_rule(rules: dict, uids: list[str]) -> str:
    """The section whose limit these units (all of one side) come under: 6.1 German, 6.3 a
    Soviet regiment with other units, 6.2 other Soviet stacks."""
    units = [rules["units"][u] for u in uids]
    if units[0]["side"] == "german":
        return "6.1"
    return "6.3" if any(u["size"] == "regiment" for u in units) else "6.2"


def fits(rules: dict, h: str, movers: list[str]) -> bool:
    """Would `movers` fit into hex h with the friendly units already there?"""
    side = rules["units"][movers[0]]["side"]
    there = [u for u in units_in(rules, h, side) if u not in movers]
    return stacking_ok(rules, there + list(movers))


# --- 3.3 control -----------------------------------------------------------------------------

def control(rules: dict):
    """3.3: a function giving the controller of any hex now. A hex into which one side's zone
    of control extends, and neither the other side's zone of control nor its units, is that
    side's (3.3's second clause, read in README.md); any other hex belongs to the player who
    last moved a unit into it (`rules["control"]`, the first clause), and at the start 2832 is
    Soviet and every other hex German."""
    soviet_zone, _ = zoc(rules, "soviet")
    german_zone, _ = zoc(rules, "german")
    held = {u["hex"]: u["side"] for u in rules["units"].values() if u["status"] == "map"}
    record = rules["control"]

    def of(h: str) -> str:
        if h in soviet_zone and h not in german_zone and held.get(h) != "german":
            return "soviet"
        if h in german_zone and h not in soviet_zone and held.get(h) != "soviet":
            return "german"
        return record.get(h, "german")

    return of


def controller(rules: dict, h: str) -> str:
    return control(rules)(h)


def enter(rules: dict, h: str, side: str) -> None:
    """3.3: the player who last moved one of his units into a hex controls it."""
    if side == "german":
        rules["control"].pop(h, None)
    else:
        rules["control"][h] = "soviet"
    if side == "soviet" and h in board(rules).place_hexes:
        note_soviet_places(rules, entered=h)


def note_soviet_places(rules: dict, entered: str | None = None) -> None:
    """14.0 bookkeeping: the places every hex of which the Soviet side controls now (the hex
    a Soviet unit is entering counts as Soviet); checked at each entry and at the end of each
    phase, as the 4.3 line is."""
    of = control(rules)
    for place in rules["board"]["places"]:
        if place["name"] not in rules["ever_soviet"] \
                and all(h == entered or of(h) == "soviet" for h in place["hexes"]) \
                and (entered is None or entered in place["hexes"]):
            rules["ever_soviet"] = sorted(rules["ever_soviet"] + [place["name"]])


def unit_text(rules: dict, uid: str) -> str:
    u = rules["units"][uid]
    marks = [m for m, on in (("confusion", u["conf"]), ("fired", u["fired"]), ("half", u["half"])) if on]
    return f"{uid} {u['str']}" + (f" [{', '.join(marks)}]" if marks else "")
