"""Hitler Directives (16.0-16.8). The table gives one of six letters, A-F (16.21); each letter's
contents (data/directives.yaml, 16.24) combine up to five elements (16.22): a limit across the
Don (16.3), a limit on German mechanized divisions in the north (16.4), No Retreats (16.5,
victory.py), the 11th Army and extra trucks (16.7, 16.8) and city deadlines (16.6)."""

from __future__ import annotations

from .board import view
from .scenario import Scenario
from . import state as st
from . import victory


def column(sc: Scenario, axis_vp: int) -> int:
    """16.0 (errata): the column of the Axis VP; below 30 the 30-39 column, above 205 the last."""
    for k, (lo, hi, _bonus) in enumerate(sc.directive_columns):
        if lo <= axis_vp <= hi:
            return k
    return 0 if axis_vp < sc.directive_columns[0][0] else len(sc.directive_columns) - 1


def letter(sc: Scenario, axis_vp: int, die: int, turn: int) -> tuple[str, int, int]:
    """(directive letter, adjusted die, column) for a roll on the Hitler Directive Table (16.1)."""
    k = column(sc, axis_vp)
    adjusted = die + sc.directive_columns[k][2] - turn
    rows = sorted(sc.directive_rows)
    row = min(max(adjusted, rows[0]), rows[-1])
    return sc.directive_rows[row][k], adjusted, k


def interphase(sc: Scenario, rules: dict, ctx) -> None:
    """4.2 A, 16.0: from Game-Turn 2 (the reading of 2.0 and 16.61's example), the Axis rolls;
    on an odd roll he rolls on the table."""
    turn = rules["turn"]
    if turn >= 2 and sc.options.get("hitler_directives", True):
        base = f"t{turn}.directive"
        first = ctx.d6(base)
        if first % 2 == 0:
            ctx.event("directive", f"Hitler Directive Inter-Phase: die {first}, even: no roll on the table (16.0).",
                      die=first, rule="16.0")
        else:
            axis_vp = victory.vp(sc, rules)["axis"]
            die = ctx.d6(base + ".table")
            new, adjusted, k = letter(sc, axis_vp, die, turn)
            lo, hi, bonus = sc.directive_columns[k]
            ctx.event("directive", f"Hitler Directive Inter-Phase: die {first}, odd: Axis {axis_vp} VP, column "
                      f"{lo}-{hi}, die {die} + bonus {bonus} - Game-Turn {turn} = {adjusted}: Directive {new} (16.0, "
                      f"16.1).", die=die, bonus=bonus, adjusted=adjusted, column=f"{lo}-{hi}", letter=new, rule="16.1")
            _obtain(sc, rules, new, ctx)
    _eleventh_and_trucks(sc, rules, ctx)


def _obtain(sc: Scenario, rules: dict, new: str, ctx) -> None:
    """16.23: a different letter replaces the old directive at once; the same letter leaves it
    as it is (reading). 16.61: each city's deadline is its Game-Turn or two after this one."""
    old = rules["directive"]
    if old and old["letter"] == new:
        ctx.event("directive", f"Directive {new} stays in force unchanged (16.23).", letter=new, rule="16.23")
        return
    turn = rules["turn"]
    cities = sc.directive_contents[new]["cities"]
    rules["directive"] = {"letter": new, "obtained": turn,
                          "deadlines": {c: max(t, turn + 2) for c, t in sorted(cities.items())}}
    contents = sc.directive_contents[new]
    don = "unlimited" if contents["across_don"] is None else contents["across_don"]
    ctx.event("directive", f"Directive {new} in force: divisions across the Don {don}, German mechanized divisions "
              f"on the north map {contents['mech_north']}, No Retreats {'yes' if contents['no_retreats'] else 'no'}"
              + (", cities: " + ", ".join(f"{c} by {t}" for c, t in rules["directive"]["deadlines"].items())
                 if cities else "") + " (16.24).", letter=new, deadlines=rules["directive"]["deadlines"], rule="16.24")


def _eleventh_and_trucks(sc: Scenario, rules: dict, ctx) -> None:
    """16.7: C or D in force in Game-Turn 3, 4 or 5 makes the Eleventh Army available; 16.8:
    an even Game-Turn under C or D gives one more truck, six at most."""
    d = rules["directive"]
    turn = rules["turn"]
    if not d:
        return
    ea = sc.eleventh_army
    if not rules["eleventh"] and turn in ea["turns"] and d["letter"] in ea["letters"]:
        rules["eleventh"] = True
        ready = [u for u, x in sc.units.items() if x.by == "16.7" and rules["units"][u] == "pool"]
        for uid in ready:
            rules["units"][uid] = "ready"
        ctx.event("reinforcements", f"Directive {d['letter']} on Game-Turn {turn}: the Eleventh Army ({', '.join(ready)}) "
                  f"may enter as reinforcements (16.7).", units=ready, rule="16.7")
    et = sc.extra_trucks
    if turn % 2 == 0 and d["letter"] in et["letters"] and rules["trucks"] < et["max"]:
        spare = sorted((u for u, x in sc.units.items() if x.by == "16.8" and rules["units"][u] == "pool"),
                       key=lambda u: int(u.split("/")[1]))
        if spare:
            rules["units"][spare[0]] = "ready"
            rules["trucks"] += 1
            ctx.event("reinforcements", f"Directive {d['letter']} on an even Game-Turn: an additional truck, {spare[0]} "
                      f"({rules['trucks']} of {et['max']}, 16.8).", units=[spare[0]], rule="16.8")


# --- 16.3, 16.4: the limits checked at the end of the Axis player-turn ---------------------------

def _division_key(sc: Scenario, uid: str) -> str:
    return sc.units[uid].division or uid


def excess(sc: Scenario, rules: dict) -> tuple[str, int, dict[str, list[str]]] | None:
    """(rule, units of the limit over, candidates: division -> units to remove) for the first
    limit broken, or None. 16.32: no limit without a directive or under F (null in the data)."""
    d = rules["directive"]
    if not d:
        return None
    contents = sc.directive_contents[d["letter"]]
    board = view(sc, rules)
    limit = contents["across_don"]
    if limit is not None:
        found: dict[str, list[str]] = {}
        for i, us in board.occ.items():
            if i not in sc.across_don:
                continue
            for uid in us:
                u = sc.units[uid]
                if u.side == "axis" and u.combat:
                    found.setdefault(_division_key(sc, uid), []).append(uid)
        if len(found) > limit:
            return "16.33", len(found) - limit, found
    limit = contents["mech_north"]
    if limit is not None:
        found = {}
        for i, us in board.occ.items():
            if sc.sheet[i] != "N":
                continue
            for uid in us:
                u = sc.units[uid]
                if u.side == "axis" and u.nation == "german" and u.arm == "mech":
                    found.setdefault(_division_key(sc, uid), []).append(uid)
        if len(found) > limit:
            return "16.4", len(found) - limit, found
    return None


def removal_options(sc: Scenario, rules: dict) -> list[dict]:
    found = excess(sc, rules)
    if found is None:
        return []
    rule, n, cands = found
    return [{"type": "remove", "units": sorted(us)} for _, us in sorted(cands.items())]


def apply_removal(sc: Scenario, rules: dict, order: dict, ctx) -> None:
    from ..base import IllegalOrder

    options = removal_options(sc, rules)
    units = sorted(order.get("units") or [])
    if {"type": "remove", "units": units} not in options:
        raise IllegalOrder("16.33", "remove one division (all its units in the area) of those over the limit",
                           [o["units"] for o in options])
    rule = excess(sc, rules)[0]
    for uid in units:
        st.remove(rules, uid, "out")
    ctx.event("removed", f"{', '.join(units)} leave the game for the Leningrad front ({rule}).", units=units,
              rule=rule, chosen_by=ctx.chosen_by)


def weakest_removal(sc: Scenario, rules: dict) -> dict | None:
    options = removal_options(sc, rules)
    return min(options, key=lambda o: _worth(sc, rules, o)) if options else None


def _worth(sc: Scenario, rules: dict, option: dict) -> tuple:
    """What `directive_removal: weakest` weighs: the division's defence (an untried unit 3)."""
    return (sum(st.strengths(sc, rules, u)[1] if not st.untried(sc, rules, u) else 3 for u in option["units"]),
            option["units"])


def excess_words(sc: Scenario, rules: dict) -> str | None:
    """The divisions the end of this Axis Player-Turn takes away for a directive's limits, said
    ahead, for `pbem orders` and `pbem submit` (players' probe: eight Panzergrenadier regiments
    left for Leningrad unannounced); None when no limit is over. The limits are played out on a
    copy as the stage plays them, 16.33 first and then 16.4 (a division partly across the Don
    leaves only its regiments there, and the rest may still count on the north map)."""
    import copy

    if excess(sc, rules) is None:
        return None
    trial = copy.deepcopy(rules)
    taken: dict[str, list[str]] = {}
    counts: dict[str, tuple[int, int]] = {}
    while (found := excess(sc, trial)) is not None:
        rule, over, candidates = found
        counts.setdefault(rule, (len(candidates), len(candidates) - over))
        option = weakest_removal(sc, trial)
        taken.setdefault(rule, []).append(", ".join(option["units"]))
        for uid in option["units"]:
            st.remove(trial, uid, "out")
    parts = []
    for rule, (stand, limit) in counts.items():
        where = "across the Don" if rule == "16.33" else "on the north map"
        kind = "Axis divisions" if rule == "16.33" else "German mechanized divisions"
        n = len(taken[rule])
        parts.append(f"{stand} {kind if stand > 1 else kind[:-1]} {'stand' if stand > 1 else 'stands'} {where} against "
                     f"the limit of {limit} of Hitler Directive {rules['directive']['letter']}: {n} "
                     f"{'leave' if n > 1 else 'leaves'} the game for the Leningrad front at the end of this Axis "
                     f"Player-Turn ({rule}), the standing order `directive_removal: weakest` taking "
                     f"{'; '.join(taken[rule])}, `ask` leaving the choice to you")
    moving = rules["phase"] in ("move", "mech") and not rules["pending"]
    return "; ".join(parts) + (" (unless units leave the area first)" if moving else "")
