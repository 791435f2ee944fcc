"""Victory: house rules of the scenario (the book sets no victory conditions or game length,
K-PRE-3, K-REF-2; a turn is about 20 minutes, K-INT-2, so the bundled 8 turns are about 2 h 40). The bundled scenario's, marked `house_rule: true` in its data: the game
lasts `turns` game turns (at most the 20 of the turn track, K-REF-1); each side scores the
points cost (K-PTS) of the enemy units it has destroyed and `objective_points` for each
objective square it holds at the end; a square is held by the last side to have had units
in it alone; the higher score wins, equal scores draw."""

from __future__ import annotations

from .scenario import SIDES, Scenario, other
from .state import Board


def update_held(sc: Scenario, rules: dict) -> None:
    board = Board(sc, rules)
    for square in sc.objectives:
        side = board.occupied_by(square)
        if side is not None:
            rules["held"][square] = side


def scores(sc: Scenario, rules: dict) -> dict[str, int]:
    out = {side: 0 for side in SIDES}
    for pid in rules["gone"]:
        out[other(sc.pieces[pid].side)] += sc.pieces[pid].cost
    for square, side in rules["held"].items():
        out[side] += sc.victory.get("objective_points", 0)
    return out


def final(sc: Scenario, rules: dict, ctx) -> None:
    score = scores(sc, rules)
    if score["blue"] == score["red"]:
        result = f"a draw, {score['blue']} to {score['red']}"
    else:
        winner = max(SIDES, key=lambda s: score[s])
        result = f"{winner} wins, {score[winner]} to {score[other(winner)]}"
    rules["result"] = result
    ctx.event("game-over", f"The game ends after turn {rules['turn']}: {result} (house rule of the scenario: enemy units "
              f"destroyed at their points cost, {sc.victory.get('objective_points', 0)} for each objective held).",
              scores=score, held=dict(rules["held"]), result=result, house_rule=True, rule="K-PRE-3")
