"""Status summary, plain-text board and the orders template comments."""

from __future__ import annotations

from ..base import Need
from .areas import BOXES, SIDES, count, enemy, side_units, status, unit_strength, units_in
from .flow import legal_orders
from .victory import vp


def summary(sc, rules: dict) -> dict:
    control = {s: 0 for s in SIDES}
    for side in rules["control"].values():
        control[side] += 1
    units = {s: {"map": 0, "pool": 0, "eliminated": 0, "withdrawn": 0} for s in SIDES}
    for uid in rules["units"]:
        units[sc.units[uid].side][status(rules, uid)] += 1
    result = rules.get("result")
    return {
        "turn": rules["turn"], "last_turn": sc.last_turn, "phase": rules["phase"],
        "vp": vp(sc, rules), "control": control, "cards": dict(rules["cards"]),
        "units": units, "result": result["text"] if result else None,
        "winner": result["winner"] if result else None,
    }


def _unit_text(sc, rules: dict, uid: str) -> str:
    mark = "*" if sc.units[uid].black else ""
    red = " reduced" if uid in rules["reduced"] else ""
    return f"{uid}{mark}({unit_strength(sc, rules, uid)}{red})"


def render(sc, rules: dict) -> str:
    s = summary(sc, rules)
    lines = [f"Stalingrad, turn {s['turn']} of {s['last_turn']}, phase {s['phase']}; "
             f"German VP {s['vp']['german']}; cards German {s['cards']['german']}, "
             f"Soviet {s['cards']['soviet']}."]
    if s["result"]:
        lines.append(s["result"])
    for area in sc.map_order:
        a = sc.areas[area]
        tags = [rules["control"][area]] + (["crossing"] if a.crossing else [])
        tags += [f"cover {a.cover}"] if a.cover else []
        tags += [f"{a.vp} VP"] if a.vp else []
        lines.append(f"{area} - {a.name} [{', '.join(tags)}]")
        for side in SIDES:
            units = units_in(sc, rules, area, side)
            if units:
                lines.append(f"    {side}: " + " ".join(_unit_text(sc, rules, u) for u in units))
    for box in BOXES:
        for side in SIDES:
            units = side_units(sc, rules, side, box)
            if units:
                lines.append(f"{side} {box}: " + " ".join(units))
    lines.append("(* black counter: leaves at the end of turn 3, rule 11.3)")
    return "\n".join(lines)


def describe_need(sc, rules: dict, need: Need) -> list[str]:
    lines = [f"{need.prompt} [{need.rule}]"]
    legal = legal_orders(sc, rules, need)
    if need.kind.endswith("-movement"):
        by_unit: dict[str, list[str]] = {}
        for o in legal:
            if o["type"] == "move":
                by_unit.setdefault(o["unit"], []).append(o["to"])
        for uid in sorted(by_unit):
            here = rules["units"][uid]
            engaged = ", engaged" if count(sc, rules, here, enemy(sc.units[uid].side)) else ""
            lines.append(f"{uid} in {here}{engaged}: may move to {', '.join(by_unit[uid])}")
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
