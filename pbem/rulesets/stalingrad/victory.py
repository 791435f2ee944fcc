"""Victory: house rule 9, NOT from the fragment.

9.1 Each area has a victory-point value (scenario data). At the end of the last turn the
    German side scores the VP of the areas it controls: at or above `german_victory` it
    wins, at or below `soviet_victory` the Soviet side wins, otherwise a draw. (Revised in
    1.2.0: the levels, 4 and 2 in the scenario, are set by self-play between the bots so
    that the game is a contest; they were 11 and 6, which no German player reached.)
9.2 Sudden death: if the German side controls every crossing at the end of any turn, the
    62nd Army is cut off from the east bank and the German side wins at once.
"""

from __future__ import annotations

from .areas import SIDES


def vp(sc, rules: dict) -> dict:
    out = {s: 0 for s in SIDES}
    for area, side in rules["control"].items():
        out[side] += sc.areas[area].vp
    return out


LEVELS = ("house 9.1 revised in 1.2.0: victory levels set by self-play between the bots, "
          "so that the game is a contest")


def _finish(sc, rules: dict, ctx, winner: str | None, level: str, text: str, rule: str) -> None:
    rules["result"] = {"winner": winner, "level": level, "text": text}
    fields = {"reason": LEVELS} if rule == "house 9.1" else {}
    ctx.event("game-over", text, winner=winner, level=level, vp=vp(sc, rules), rule=rule,
              house_rule=True, **fields)


def end_of_turn(sc, rules: dict, ctx) -> None:
    crossings = sc.crossings
    if crossings and all(rules["control"][a] == "german" for a in crossings):
        _finish(sc, rules, ctx, "german", "sudden death",
                f"German sudden-death victory on turn {rules['turn']}: every Volga crossing "
                f"is in German hands (house 9.2).", "house 9.2")
        return
    if rules["turn"] < sc.last_turn:
        return
    points = vp(sc, rules)["german"]
    if points >= sc.german_victory:
        winner, level = "german", "victory"
    elif points <= sc.soviet_victory:
        winner, level = "soviet", "victory"
    else:
        winner, level = None, "draw"
    who = f"{winner.capitalize()} victory" if winner else "Draw"
    _finish(sc, rules, ctx, winner, level,
            f"{who} after turn {rules['turn']}: the German side holds {points} VP "
            f"(German victory at {sc.german_victory} or more, Soviet at "
            f"{sc.soviet_victory} or less) (house 9.1).", "house 9.1")
