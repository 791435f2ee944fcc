"""Status summary, the board in words (`pbem show`), one area or unit looked at closely, the
board as data for `pbem show --diff`, and the orders template comments."""

from __future__ import annotations

from pbem.core.describe import wrap_list

from ..base import Need
from .areas import BOXES, FULL_STEPS, SIDES, count, enemy, side_name, side_units, status, steps, unit_strength, units_in
from .flow import WITHDRAWAL, legal_orders, phase_name, phase_words
from .movement import movable
from .victory import vp

STATUS_WORDS = {"pool": "waiting to enter (11.1)", "eliminated": "eliminated", "withdrawn": "withdrawn (11.3)"}


def summary(sc, rules: dict) -> dict:
    control = {s: 0 for s in SIDES}
    for side in rules["control"].values():
        control[side] += 1
    units = {s: {"map": 0, "pool": 0, "eliminated": 0, "withdrawn": 0} for s in SIDES}
    for uid, where in rules["units"].items():
        units[sc.units[uid].side][where if where in BOXES else "map"] += 1   # status(), in one pass
    result = rules.get("result")
    return {
        "turn": rules["turn"], "last_turn": sc.last_turn, "phase": phase_name(rules["phase"]) if rules["phase"] else None,
        "vp": vp(sc, rules), "control": control, "cards": dict(rules["cards"]),
        "units": units, "result": result["text"] if result else None,
        "winner": result["winner"] if result else None,
        "now": now_text(sc, rules), "score": f"{score_text(sc, rules)}; {cards_text(rules)}", "decision": None,
    }


def now_text(sc, rules: dict) -> str:
    """Where the game stands, in the words of house rule 3."""
    if "result" in rules:
        return f"Game over after turn {rules['turn']} of {sc.last_turn}"
    text = f"Turn {rules['turn']} of {sc.last_turn}, {phase_words(rules['phase'])}"
    if "combat" in rules:
        text += f", combat in {sc.areas[rules['combat']['area']].name} in progress"
    return text


def score_text(sc, rules: dict) -> str:
    total = sum(a.vp for a in sc.areas.values())
    when = "at the end" if "result" in rules else "if the game ended now"
    return (f"German VP {when}: {vp(sc, rules)['german']} of {total} (German victory at {sc.german_victory} or more, "
            f"Soviet at {sc.soviet_victory} or less, house 9.1)")


def cards_text(rules: dict) -> str:
    return f"tactical cards left: German {rules['cards']['german']}, Soviet {rules['cards']['soviet']} (house 7)"


# --- the board in words ------------------------------------------------------------------------------

def _marks(sc, rules: dict, uid: str) -> list[str]:
    ps = rules["phase_state"]
    marks = ["reduced"] if uid in rules["reduced"] else []
    marks += [word for key, word in (("moved", "moved"), ("placed", "placed"), ("shifted", "shifted"))
              if uid in ps.get(key, ())]
    return marks


def _unit_row(sc, rules: dict, uid: str) -> str:
    """Side, unit (with * for a black counter, 11.3), arm, strength/full, markers."""
    u = sc.units[uid]
    width = max(len(x) for x in sc.unit_ids) + 1
    arm = max(len(x.arm) for x in sc.units.values())
    marks = _marks(sc, rules, uid)
    return (f"{side_name(u.side):<7} {uid + ('*' if u.black else ''):<{width}}  {u.arm:<{arm}}  "
            f"{unit_strength(sc, rules, uid)}/{u.strength[0]}" + (f"  [{', '.join(marks)}]" if marks else ""))


def _area_head(sc, rules: dict, area: str) -> str:
    a = sc.areas[area]
    tags = [rules["control"][area]] + (["crossing"] if a.crossing else [])
    tags += [f"cover {a.cover}"] if a.cover else []
    tags += [f"{a.vp} VP"] if a.vp else []
    return f"{area} - {a.name} [{', '.join(tags)}]"


def render(sc, rules: dict) -> str:
    s = summary(sc, rules)
    lines = [f"Stalingrad city fight. {s['now']}."]
    if s["result"]:
        lines.append(s["result"])
    lines += [score_text(sc, rules) + ".", "T" + cards_text(rules)[1:] + "."]
    lines += ["", "Areas from north to south [controller (house 4), cover (house 6.3), VP (house 9.1)], the areas",
              "next to them and the units in them: side, unit, arm, strength/full, markers."]
    attacked = rules["phase_state"].get("attacked", ())
    for area in sc.map_order:
        lines.append(_area_head(sc, rules, area) + (" attacked this phase" if area in attacked else ""))
        lines.append(f"    next to: {', '.join(sc.areas[area].adjacent)}")
        lines += [f"    {_unit_row(sc, rules, u)}" for side in SIDES for u in units_in(sc, rules, area, side)]
    lines.append("")
    for box in BOXES:
        for side in SIDES:
            units = side_units(sc, rules, side, box)
            if units:
                lines += wrap_list(f"{side_name(side)} units {STATUS_WORDS[box]}:",
                                   [u + (f" (turn {sc.units[u].turn})" if box == "pool" else "") for u in units])
    if any(sc.units[u].black and status(rules, u) == "map" for u in rules["units"]):
        lines.append(f"* black counter: leaves at the end of turn {sc.withdrawal_turn} (11.3).")
    return "\n".join(lines) + "\n"


# --- one thing looked at closely (pbem show --area / --unit) ----------------------------------------

def look(sc, rules: dict, what: str, ident: str) -> list[str]:
    if what == "area":
        if ident not in sc.areas:
            raise ValueError(f"there is no area {ident} on the stalingrad map (`pbem show` lists the areas)")
        return look_area(sc, rules, ident)
    if what == "unit":
        if ident not in sc.units:
            raise ValueError(f"there is no unit {ident} in the stalingrad order of battle")
        return look_unit(sc, rules, ident)
    raise ValueError(f"the stalingrad map is made of areas, not {'hexes' if what == 'hex' else what + 's'}: "
                     f"use --area ID or --unit ID")


def look_area(sc, rules: dict, area: str) -> list[str]:
    a = sc.areas[area]
    lines = [f"Area {area}: {a.name}.", f"Controlled by the {side_name(rules['control'][area])} side (house 4)."]
    if a.cover:
        lines.append(f"Cover {a.cover}: the defender here suffers {a.cover} loss point{'s' if a.cover > 1 else ''} "
                     "fewer unless the attacker has engineers here (house 6.3).")
    if a.vp:
        lines.append(f"{a.vp} VP to the German side if it controls it at the end (house 9.1).")
    if a.crossing:
        lines.append("A Volga crossing: Soviet reinforcements enter only on crossings, and Soviet units on "
                     "crossings have no stacking limit (11.2(2)-(3)); German control of every crossing at the end "
                     "of a turn wins at once (house 9.2).")
    lines.append("Next to:")
    for n in a.adjacent:
        here = [f"{count(sc, rules, n, side)} {side_name(side)}" for side in SIDES if count(sc, rules, n, side)]
        lines.append(f"  {n} - {sc.areas[n].name}: {side_name(rules['control'][n])}"
                     + (", crossing" if sc.areas[n].crossing else "")
                     + (f"; units: {', '.join(here)}" if here else "; no units"))
    units = [u for side in SIDES for u in units_in(sc, rules, area, side)]
    if not units:
        lines.append("No unit is here.")
    else:
        lines.append("Units here (stacking limit: " + f"{sc.stacking_limit} own units, 10.3(2), house 2.2):")
        lines += [f"  {_unit_row(sc, rules, u)}  {sc.units[u].name}" for u in units]
    both = all(count(sc, rules, area, side) for side in SIDES)
    if "combat" in rules and rules["combat"]["area"] == area:
        lines.append(f"A combat is in progress here, the {side_name(rules['combat']['attacker'])} side attacking (house 6).")
    elif area in rules["phase_state"].get("attacked", ()):
        lines.append("Attacked in this combat phase (house 6.1).")
    elif both:
        lines.append("Units of both sides are here: the phasing side may attack in its combat phase (house 6.1).")
    return lines


def look_unit(sc, rules: dict, uid: str) -> list[str]:
    u = sc.units[uid]
    full, reduced = u.strength
    lines = [f"{uid}: {u.name}, {side_name(u.side)} {u.arm}.",
             f"Counter: strength {full} at full strength, {reduced} reduced (house 2.1); "
             + (f"on the map from the start (scenario set-up: {u.area})" if u.turn == 0
                else f"enters on turn {u.turn} (11.1)")
             + (f"; black counter: leaves at the end of turn {sc.withdrawal_turn} (11.3)" if u.black else "") + "."]
    where = status(rules, uid)
    if where != "map":
        over = where == "pool" and "result" in rules
        lines.append("Now: never entered: the game ended first." if over else f"Now: {STATUS_WORDS[where]}.")
        return lines
    area = rules["units"][uid]
    lines.append(f"Now: in {area} - {sc.areas[area].name} ({side_name(rules['control'][area])} control), "
                 f"strength {unit_strength(sc, rules, uid)} ({'reduced' if uid in rules['reduced'] else 'full strength'}).")
    marks = [m for m in _marks(sc, rules, uid) if m not in ("reduced", "black counter")]
    if marks:
        lines.append(f"This phase: {', '.join(marks)}.")
    others = [x for x in units_in(sc, rules, area, u.side) if x != uid]
    if others:
        lines.append(f"With: {', '.join(others)}.")
    foes = units_in(sc, rules, area, enemy(u.side))
    if foes:
        lines.append(f"Enemy units in the same area: {', '.join(foes)}; it may move only to an area its side "
                     "controls that holds no enemy units (house 5.2).")
    return lines


# --- the board as data (pbem show --json, --diff) ----------------------------------------------------

def view(sc, rules: dict) -> dict:
    units = {}
    for uid in sc.unit_ids:
        if uid not in rules["units"]:
            continue  # not in this game (a position leaves it out)
        where = status(rules, uid)
        # counted in steps, as losses are (house 2.1, 6.5): "lost 1 step: 1 of 2 left", where
        # the printed strengths said "lost 2 strength points: 2 of 4 left" of a unit that lost
        # one step (a players' probe); the reduced strength is in the rules, and in `show`
        units[uid] = {"side": sc.units[uid].side, "where": rules["units"][uid], "status": where,
                      "strength": steps(rules, uid) if where == "map" else 0, "full": FULL_STEPS, "markers": []}
    return {
        "now": now_text(sc, rules),
        "units": units,
        "statuses": dict(STATUS_WORDS),
        "control": dict(sorted(rules["control"].items())),
        "places": "areas",
        "strength_in": "step",
        "names": {a: sc.areas[a].name for a in sc.area_ids},
        "facts": [["German VP (house 9.1)", str(vp(sc, rules)["german"])],
                  ["German tactical cards (house 7)", str(rules["cards"]["german"])],
                  ["Soviet tactical cards (house 7)", str(rules["cards"]["soviet"])],
                  ["Areas attacked this phase (house 6.1)", ", ".join(rules["phase_state"].get("attacked", ())) or "none"]],
    }


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
        # the units yet to move that have nowhere to go, said so, not left out (a players' probe: a
        # player went looking for two engaged units the list did not name)
        for uid in sorted(u for u in movable(sc, rules, need.side) if u not in by_unit):
            here, side = rules["units"][uid], sc.units[uid].side
            engaged = count(sc, rules, here, enemy(side)) > 0
            open_ = [a for a in sc.areas[here].adjacent if not engaged
                     or (rules["control"][a] == side and not count(sc, rules, a, enemy(side)))]
            why = ("cannot move (house 5.2: no adjacent area of its side without enemy units)" if not open_ else
                   f"cannot move (house 5.3: {', '.join(open_)} {'is' if len(open_) == 1 else 'are'} full)")
            lines.append(f"{uid} in {here}{', engaged' if engaged else ''}: {why}")
        lines.append("- {type: move, unit: UNIT, to: AREA}   then   - {type: end}")
        return lines
    if need.kind.endswith("-reinforcement") or need.kind == WITHDRAWAL:
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
