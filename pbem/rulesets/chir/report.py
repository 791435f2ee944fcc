"""Status summary, the plain-text board and the comments of `pbem orders`."""

from __future__ import annotations

from ..base import Need
from . import board as bd
from . import combat, victory
from . import state as st
from .orders import POLICY_SCHEMA
from .scenario import Scenario


def summary(sc: Scenario, rules: dict) -> dict:
    score = victory.vp(sc, rules)
    halves = score["halves"]
    result = rules["result"]
    return {
        "turn": rules["turn"], "last_turn": sc.last_turn, "player": rules["player"], "phase": rules["phase"],
        "step": rules["attack"]["step"] if rules["attack"] else None,
        "vp": {"soviet": victory.halves_text(halves["soviet"]), "german": victory.halves_text(halves["german"])},
        "vp_halves": dict(halves), "line_of_communication": "open" if score["line"] else "cut",
        "result": result["text"] if result else None,
        "winner": result["winner"] if result else None,
        "level": result["level"] if result else None,
    }


def render(sc: Scenario, rules: dict) -> str:
    s = summary(sc, rules)
    head = (f"48th Panzer Korps (chir): GT {s['turn']} of {s['last_turn']}, {s['player']} {s['phase']} phase"
            + (f", attack step {s['step']}" if s["step"] else "")
            + f"; VP Soviet {s['vp']['soviet']}, German {s['vp']['german']}; "
              f"German line to the Don {s['line_of_communication']}.")
    lines = [head]
    if s["result"]:
        lines.append(s["result"])
    of = bd.control(sc, rules)
    for h, us in bd.stacks(sc, rules).items():
        side = sc.side_of[us[0]]
        ctrl = of(h)
        lines.append(f"{h} {side:6} {bd.strength(sc, rules, us):2}: " + ", ".join(bd.unit_text(sc, rules, u) for u in us)
                     + (f"  (control {ctrl})" if ctrl != side else ""))
    soviet_hexes = sorted(h for h in sc.ids if of(h) == "soviet")
    lines.append("Soviet-controlled hexes: " + (", ".join(soviet_hexes) or "none"))
    for status, title in (("pool", "waiting to enter"), ("setup", "to set up"), ("gone", "eliminated"),
                          ("exited", "left the map")):
        for side in ("soviet", "german"):
            us = [u for u, x in sc.units.items() if x.side == side and st.status(rules, u) == status]
            if us:
                lines.append(f"{side} {title}: " + ", ".join(
                    f"{u}" + (f" (GT {sc.units[u].entry_turn} at {sc.units[u].entry_hex})"
                              if status == "pool" else "") for u in us))
    return "\n".join(lines) + "\n"


def describe_need(sc: Scenario, rules: dict, need: Need) -> list[str]:
    lines = [f"{need.side}: {need.prompt} (rule {need.rule})."]
    if need.kind == "setup":
        lines.append("place: {type: place, unit: ID, hex: CCRR}; end: set up every unit left by the default placement.")
    elif need.decision:
        lines.append(f"standing order key for this decision: "
                     + {"defensive-artillery": "defensive_artillery", "defensive-fire": "defensive_fire",
                        "invalidate-artillery": "invalidate", "loss": "losses", "morale": "morale",
                        "retreat": "retreat", "advance": "advance", "stack-removal": "stack_removal"}.get(need.kind, need.kind))
        for order in combat.legal(sc, rules, need.kind)[:20]:
            lines.append("legal: " + ", ".join(f"{k}={v}" for k, v in sorted(order.items())))
    elif need.kind.endswith("-attack"):
        lines.append("attack: {type: attack, target: CCRR, units: [IDs adjacent since the phase began], "
                     "support: [artillery IDs, one per attacking hex]}; end: close the phase.")
    else:
        lines.append("move: {type: move, units: [IDs in one hex], path: [CCRR, ...], exit: false}; "
                     "enter: {type: enter, units: [...], path: [entry hex, ...]}; attack: manoeuvre attack by "
                     "the stack just moved (or one that has not moved); end: close the phase.")
    lines.append("standing orders: " + "; ".join(f"{k}: {'|'.join(v['enum'])}" for k, v in POLICY_SCHEMA["properties"].items()))
    return lines
