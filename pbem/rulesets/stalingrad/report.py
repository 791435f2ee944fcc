"""Status summary, plain-text board and the orders template comments."""

from __future__ import annotations

from ..base import Need
from .areas import SIDES, count, unit_strength, units_in
from .flow import legal_orders
from .victory import vp


def summary(rules: dict) -> dict:
    control = {s: 0 for s in SIDES}
    for area in sorted(rules["areas"]):
        control[rules["areas"][area]["control"]] += 1
    status = {s: {"map": 0, "pool": 0, "eliminated": 0, "withdrawn": 0} for s in SIDES}
    for uid, u in sorted(rules["units"].items()):
        status[u["side"]][u["status"]] += 1
    result = rules["result"]
    return {
        "turn": rules["turn"], "last_turn": rules["last_turn"], "phase": rules["phase"],
        "vp": vp(rules), "control": control, "cards": dict(rules["cards"]),
        "units": status, "result": result["text"] if result else None,
        "winner": result["winner"] if result else None,
    }


def _unit_text(rules: dict, uid: str) -> str:
    u = rules["units"][uid]
    mark = "*" if u["black"] else ""
    red = "" if u["steps"] >= 2 else " reduced"
    return f"{uid}{mark}({unit_strength(u)}{red})"


def render(rules: dict) -> str:
    s = summary(rules)
    lines = [f"Stalingrad, turn {s['turn']} of {s['last_turn']}, phase {s['phase']}; "
             f"German VP {s['vp']['german']}; cards German {s['cards']['german']}, "
             f"Soviet {s['cards']['soviet']}."]
    if s["result"]:
        lines.append(s["result"])
    for area in rules["map_order"]:
        a = rules["areas"][area]
        tags = [a["control"]] + (["crossing"] if a["crossing"] else [])
        tags += [f"cover {a['cover']}"] if a["cover"] else []
        tags += [f"{a['vp']} VP"] if a["vp"] else []
        lines.append(f"{area} - {a['name']} [{', '.join(tags)}]")
        for side in SIDES:
            units = units_in(rules, area, side)
            if units:
                lines.append(f"    {side}: " + " ".join(_unit_text(rules, u) for u in units))
    for status in ("pool", "eliminated", "withdrawn"):
        for side in SIDES:
            units = [uid for uid, u in sorted(rules["units"].items())
                     if u["side"] == side and u["status"] == status]
            if units:
                lines.append(f"{side} {status}: " + " ".join(units))
    lines.append("(* black counter: leaves at the end of turn 3, rule 11.3)")
    return "\n".join(lines)


def describe_need(rules: dict, need: Need) -> list[str]:
    lines = [f"{need.prompt} [{need.rule}]"]
    legal = legal_orders(rules, need)
    if need.kind.endswith("-movement"):
        by_unit: dict[str, list[str]] = {}
        for o in legal:
            if o["type"] == "move":
                by_unit.setdefault(o["unit"], []).append(o["to"])
        for uid in sorted(by_unit):
            u = rules["units"][uid]
            enemies = count(rules, u["area"], "soviet" if u["side"] == "german" else "german")
            engaged = ", engaged" if enemies else ""
            lines.append(f"{uid} in {u['area']}{engaged}: may move to {', '.join(by_unit[uid])}")
        lines.append("- {type: move, unit: UNIT, to: AREA}   then   - {type: end}")
        return lines
    if need.kind.endswith("-reinforcement") or need.kind == "german-withdrawal":
        units = sorted({o["unit"] for o in legal if o["type"] == "reinforce"})
        areas = sorted({o["area"] for o in legal if o["type"] == "reinforce"})
        if units:
            lines.append(f"reinforcements: {', '.join(units)}")
            lines.append(f"may enter in: {', '.join(areas)}")
        shifts = sorted({o["unit"] for o in legal if o["type"] == "shift"})
        if shifts:
            lines.append(f"may shift to another crossing (11.2(3)): {', '.join(shifts)}")
        lines.append("- {type: reinforce, unit: UNIT, area: AREA}   then   - {type: end}")
        return lines
    for o in legal:
        lines.append("- {" + ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}"
                                       for k, v in sorted(o.items(), key=lambda kv: kv[0] != "type"))
                     + "}")
    return lines
