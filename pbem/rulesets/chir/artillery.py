"""Artillery fire support (10.x): who may support whom, and the one-per-group limit."""

from __future__ import annotations

from . import board as bd
from .scenario import board


def why_not_support(rules: dict, art: str, group: list[str], target: str, kind: str) -> tuple[str, str] | None:
    """None if `art` may give supporting fire to the firing `group` against (or, in defence,
    for) the defending hex `target`; else (rule, reason). Supporting fire is the same in attack
    and in defence (10.2): once per player-turn, never with a fired marker; the fired
    artillery that 10.5 lets fire in defence is artillery of the attacked stack firing at the
    attackers next to it, not supporting fire (see README.md, readings)."""
    u = rules["units"].get(art)
    if u is None:
        return "10.3", f"there is no unit {art}"
    if u["cls"] != "artillery" or u["status"] != "map":
        return "10.0", f"{art} is not artillery on the map"
    if any(g == art for g in group):
        return "10.0", f"{art} fires with its own stack, not in support"
    if bd.adjacent_enemy(rules, u["hex"], u["side"]):
        return "10.2", f"{art} is adjacent to enemy units and may not give supporting fire"
    if u["conf"]:
        return "10.2", f"{art} has a confusion marker"
    if u["fired"]:
        return "10.2", f"{art} has a fired marker: it has given its supporting fire for this turn"
    rng = u["range"] or 0
    if board(rules).distance(u["hex"], target) > rng:
        return "10.1", f"{target} is beyond the range {rng} of {art}"
    if kind == "manoeuvre":
        if u["side"] != "german":
            return "10.2", "only German artillery supports manoeuvre attacks"
        if u["moved"] and not (u["sp"] and u["used"] < u["mp"]):
            if u["sp"]:
                return "9.2", f"{art} used half its movement points or more in this movement phase"
            return "10.2", f"{art} moved in this movement phase"
    members = [rules["units"][g] for g in group]
    if not members:
        return "10.2", "the supported group is empty"
    if u["support"] == "own" and any(m["aff"] != u["aff"] for m in members):
        return "10.2", f"{art} has the colour of {u['aff']} and supports only units of {u['aff']}"
    if u["support"] == "5TA" and any(m["army"] != "5TA" for m in members):
        others = sorted(g for g in group if rules["units"][g]["army"] != "5TA")
        return "10.2", (f"{art} is 5th Tank Army artillery without a division colour and supports only units of "
                        f"the 5th Tank Army, not {', '.join(others)}")
    return None


def candidates(rules: dict, side: str, group: list[str], target: str, kind: str) -> list[str]:
    return [a for a in bd.on_map(rules, side) if rules["units"][a]["cls"] == "artillery"
            and why_not_support(rules, a, group, target, kind) is None]


def matching(rules: dict, arts: list[str], groups: dict[str, list[str]], target: str, kind: str) -> dict[str, str] | None:
    """10.2: one supporting artillery per firing group. A complete assignment art -> group
    hex, or None if there is none."""
    can = {a: [h for h, g in sorted(groups.items())
               if why_not_support(rules, a, g, target, kind) is None] for a in arts}
    owner: dict[str, str] = {}

    def place(a: str, seen: set[str]) -> bool:
        for h in can[a]:
            if h in seen:
                continue
            seen.add(h)
            if h not in owner or place(owner[h], seen):
                owner[h] = a
                return True
        return False

    for a in sorted(arts):
        if not place(a, set()):
            return None
    return {a: h for h, a in sorted(owner.items())}


def best_support(rules: dict, side: str, groups: dict[str, list[str]], target: str, kind: str) -> list[str]:
    """A greedy largest set of supporting artillery (strongest first) that can be matched."""
    if kind == "manoeuvre" and side != "german":
        return []
    pool = set()
    for g in groups.values():
        pool.update(candidates(rules, side, g, target, kind))
    chosen: list[str] = []
    for a in sorted(pool, key=lambda x: (-rules["units"][x]["str"], x)):
        if len(chosen) >= len(groups):
            break
        if matching(rules, chosen + [a], groups, target, kind) is not None:
            chosen.append(a)
    return sorted(chosen)
