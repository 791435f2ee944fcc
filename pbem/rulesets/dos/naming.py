"""What an order names that is not a unit or hex of the game, in words a player can act on:
the mapsheet letter a bare hex number lacks (3.1), the unit a mistyped id most likely meant,
the side a unit of the other side belongs to."""

from __future__ import annotations

from pbem.core.text import agreeing, no_unit as named_no_unit

from .scenario import Scenario

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable


def verb(units: list[str], base: str) -> str:
    """A report's verb agreeing with its units: "G/9 attacks", "G/44, G/62 attack" (the verbs of
    dos's reports take an s alone: attack, advance, enter, move, overrun)."""
    return agreeing(units, base + "s", base)


def no_hex(sc: Scenario, h: object) -> str:
    """Why `h` is not a hex of the playing area (it is not in `sc.idx`)."""
    text = str(h)
    sheets = [f"{sheet}{text}" for sheet in "NS" if f"{sheet}{text}" in sc.idx]
    if sheets:
        return f"{text} is not a hex id: it begins with its mapsheet, {' or '.join(sheets)} (3.1)"
    if text.upper() in sc.idx:
        return f"{text} is not a hex id: did you mean {text.upper()}?"
    return f"{text} is not a hex of the playing area"


def not_own_unit(sc: Scenario, uid: object, side: str, prefer: Iterable[str] | None = None) -> str | None:
    """Why `uid` is not a unit of `side` (None: it is one); an id of no unit gets the one it most
    likely meant, of `prefer` (the units the order could name now) if one is close, by default
    of the side's units."""
    if uid in sc.units:
        if sc.side_of[uid] == side:
            return None
        return f"{uid} is {'an Axis' if sc.side_of[uid] == 'axis' else 'a Soviet'} unit"
    return no_unit(sc, uid, sc.side_units[side] if prefer is None else prefer)


def no_unit(sc: Scenario, uid: object, prefer: Iterable[str] = ()) -> str:
    """Why `uid` names no unit of the order of battle, with the id it most likely meant (of
    `prefer`, the units the order could name now, if one is close)."""
    return named_no_unit(sc.unit_ids, uid, prefer)
