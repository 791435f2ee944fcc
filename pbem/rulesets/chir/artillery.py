"""Artillery fire support (10.x): who may support whom, and the one-per-group limit."""

from __future__ import annotations

from . import board as bd
from .scenario import board


def why_not_support(rules: dict, art: str, group: list[str], target: str, kind: str, defensive: bool) -> str | None:
    """None if `art` may give supporting fire to the firing `group` against (or, in defence,
    for) the defending hex `target`; else the reason with its rule."""
    u = rules["units"].get(art)
    if u is None:
        return f"there is no unit {art}"
    if u["cls"] != "artillery" or u["status"] != "map":
        return f"{art} is not artillery on the map (10.0)"
    if any(g == art for g in group):
        return f"{art} fires with its own stack, not in support (10.0)"
    if bd.adjacent_enemy(rules, u["hex"], u["side"]):
        return f"{art} is adjacent to enemy units and may not give supporting fire (10.2)"
    if u["conf"]:
        return f"{art} has a confusion marker (10.2)"
    if u["fired"] and not defensive:
        return f"{art} has a fired marker (10.2)"
    rng = u["range"] or 0
    if board(rules).distance(u["hex"], target) > rng:
        return f"{target} is beyond the range {rng} of {art} (10.1)"
    if kind == "manoeuvre":
        if u["side"] != "german":
            return f"only German artillery supports manoeuvre attacks (9.2, 10.2)"
        if u["moved"] and not (u["sp"] and u["used"] < u["mp"]):
            return f"{art} moved in this movement phase (10.2; a self-propelled gun only if it used less than half its MP, 9.2)"
    members = [rules["units"][g] for g in group]
    if not members:
        return "the supported group is empty"
    if u["support"] == "own" and any(m["aff"] != u["aff"] for m in members):
        return f"{art} supports only units of {u['aff']} (10.2, division colour)"
    if u["support"] == "5TA" and any(m["army"] != "5TA" for m in members):
        return f"{art} supports only units of the 5th Tank Army (10.2)"
    return None


def candidates(rules: dict, side: str, group: list[str], target: str, kind: str, defensive: bool) -> list[str]:
    return [a for a in bd.on_map(rules, side) if rules["units"][a]["cls"] == "artillery"
            and why_not_support(rules, a, group, target, kind, defensive) is None]


def matching(rules: dict, arts: list[str], groups: dict[str, list[str]], target: str, kind: str) -> dict[str, str] | None:
    """10.2: one supporting artillery per firing group. A complete assignment art -> group
    hex, or None if there is none."""
    can = {a: [h for h, g in sorted(groups.items())
               if why_not_support(rules, a, g, target, kind, False) is None] for a in arts}
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
        pool.update(candidates(rules, side, g, target, kind, False))
    chosen: list[str] = []
    for a in sorted(pool, key=lambda x: (-rules["units"][x]["str"], x)):
        if len(chosen) >= len(groups):
            break
        if matching(rules, chosen + [a], groups, target, kind) is not None:
            chosen.append(a)
    return sorted(chosen)
