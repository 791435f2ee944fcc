"""The points system (K-PTS-1 to K-PTS-3; rulebook L203-L225): the cost of a unit from what it
is, by the formulas and values of `tables.yaml` (`points`). It reproduces every printed
price of the three army lists (`armies.yaml`), except the British mortar platoon, printed
at 10 where the formula gives 12 (the list price is kept; README "Army lists"): `cost` is the
formula's, `list_cost` the price a piece of the list costs in play (the victory score)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping


def full_cost(row: Mapping, table: Mapping, doctrine: str) -> int:
    """The cost of one full-strength unit of a list row (K-PTS-1, K-PTS-2)."""
    quality = table["quality"][row["quality"]]
    mobility = table["mobility"][row["mobility"]]
    kind = row["type"]
    if kind == "command":
        # Command = 8 + Mobility +/- Quality, -2 if Soviet style (L207)
        return table["base"]["command"] + mobility + quality + (table["soviet_command"] if doctrine == "soviet" else 0)
    if kind == "infantry":
        # Infantry = 2 + RI or MI or ATGW +/- Quality (L207, L209, L219); the medium ATGW of
        # K-INF-1 ("additionally costed") adds the Missile column's M on top of the grade
        atgw = table["missile"][row["atgw"]] if row.get("atgw") else 0
        return table["base"]["infantry"] + table["infantry"][row.get("infantry", "GI")] + atgw + quality
    value = table["base"][kind] + mobility + quality
    if row.get("gun"):
        value += table["gun"][row["gun"]]
    if row.get("missile"):
        value += table["missile"][row["missile"]]
    if row.get("armour"):
        value += table["armour"][row["armour"]]
    if row.get("ir"):
        value += table["ir"]
    if row.get("ia"):
        value += table["ia"]
    if row["mobility"] == "recce":
        value += table["spec_recce"]
    if row.get("self_ordering"):
        value += table["self_ordering"]
    if row.get("aifv"):
        value += table["aifv"]
    if row.get("rocket"):
        value += table["rocket"]
    return value


def reduced(full: int) -> int:
    """A unit fielded with losses ("(-)") costs half, rounded up (L225, K-PTS-3)."""
    return -(-full // 2)


def cost(row: Mapping, table: Mapping, doctrine: str, *, reduced_strength: bool | None = None) -> int:
    """The cost of one unit of the row, at full or reduced strength (the row's own unless
    `reduced_strength` says)."""
    return _at_strength(full_cost(row, table, doctrine), row, reduced_strength)


def list_cost(row: Mapping, table: Mapping, doctrine: str, *, reduced_strength: bool | None = None) -> int:
    """The cost of one unit of the row in play (K-PTS-1, K-LST-1; README "Army lists"): the
    formula's, but where the list prints another price (`misprint` records the formula's) the
    printed price is kept, half of it, rounded up, for a unit fielded with losses (K-PTS-3)."""
    full = row["cost"] if "misprint" in row else full_cost(row, table, doctrine)
    return _at_strength(full, row, reduced_strength)


def _at_strength(full: int, row: Mapping, reduced_strength: bool | None) -> int:
    """A full-strength price, or half of it for a unit fielded with losses (the row's own
    strength unless `reduced_strength` says)."""
    is_reduced = row.get("reduced", False) if reduced_strength is None else reduced_strength
    return reduced(full) if is_reduced else full


def list_total(rows: list[Mapping], table: Mapping, doctrine: str) -> int:
    """The printed price of a whole list: each row's printed cost times its count (a row
    "x 4 + x 4 (-)" adds its reduced units)."""
    return sum(row["cost"] * row.get("count", 1) + row.get("reduced_cost", 0) * row.get("reduced_count", 0)
               for row in rows)
