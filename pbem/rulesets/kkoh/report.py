"""What `pbem status`, `pbem show` and `pbem orders` print for kkoh."""

from __future__ import annotations

from ..base import Need
from . import assault, command, victory
from .scenario import SIDES, Scenario
from .state import Board

STEP_NAMES = {"replace": "replacing command markers", "minelets": "laying minelets", "initiative": "initiative",
              "orders": "issuing orders", "ew": "electronic warfare", "fire": "Direct Fire", "evade": "Direct Fire",
              "hold": "Direct Fire", "air": "aircraft", "move1": "first movement", "calls1": "bombardment calls",
              "assault1": "Close Assaults", "move2": "second movement", "calls2": "bombardment calls",
              "assault2": "Close Assaults", "morale": "Morale Phase", "over": "over"}


def result_key(events: list[dict]) -> list[str]:
    """What the Close Assault results of a report mean (K-CAR-1 to K-CAR-6), each once: an
    onlooker reads "die 5: DR" without the rules (a forum audience's walkthrough). A Counter
    Attack that holds makes a DR an AR (K-CAR-3): that AR is said too."""
    order = {"DR": 0, "DF": 1, "AR": 2}
    results = {e["result"] for e in events if e["type"] == "assault"}
    if any(e["type"] == "counter-attack" and e.get("success") for e in events):
        results.add("AR")
    if not results:
        return []
    words = []
    for result in sorted(results, key=lambda r: (order[r[:2]], r)):
        extra = assault.losses_of(result)
        losses = f" with {extra} {'loss' if extra == 1 else 'losses'}" if extra else ""
        if result == "DR":
            words.append('"DR" = the defender Gives Ground, unless its Counter Attack holds and makes it an AR, '
                         'K-CAR-2, K-CAR-3')
        elif result.startswith("DR"):
            words.append(f'"{result}" = the defender Gives Ground{losses}, K-CAR-1')
        elif result == "DF":
            words.append('"DF" = Desperate Fighting: attrition, then the assault is fought once more, and a second DF '
                         'makes the attacker Give Ground, K-CAR-4')
        else:
            words.append(f'"{result}" = the attacker Gives Ground{losses}, K-CAR-{6 if extra else 5}')
    return ["Close Assault results: " + "; ".join(words) + "; to Give Ground is to fall back, and the units engaged "
            "on each side test for attrition."]


def summary(sc: Scenario, rules: dict) -> dict:
    phase = "Command Phase" if rules["ap"] == 0 else ("Morale Phase" if rules["ap"] == 5 else f"Action Phase {rules['ap']}")
    step = STEP_NAMES.get(rules["step"], rules["step"])
    phase = phase if step == phase else f"{phase}: {step}"        # "Morale Phase", not "Morale Phase: Morale Phase"
    score = victory.scores(sc, rules)
    return {"turn": rules["turn"], "phase": phase, "initiative": rules["initiative"], "vp": score,
            "result": rules["result"],
            # words for `pbem status` (core/describe.py)
            "now": f"turn {rules['turn']} of {sc.last_turn}, {phase}",
            "score": f"score: blue {score['blue']}, red {score['red']} (house rule of the scenario: the points of the "
                     f"enemy units destroyed, {sc.victory.get('objective_points', 0)} for each objective held)"}


def render(sc: Scenario, rules: dict) -> str:
    board = Board(sc, rules)
    status = command.marker_status(sc, board)
    s = summary(sc, rules)
    initiative = s["initiative"] or "not yet decided (K-INI-1)"
    lines = [sc.doc["name"], f"Turn {s['turn']} of {sc.last_turn}, {s['phase']}; initiative: {initiative}; "
             f"score {s['vp']['blue']} (blue) to {s['vp']['red']} (red)",
             "Each unit: ID[cell facing group chit ...]: its cell in the square (row from the north edge and "
             "column from the west edge, 0-2; `pbem show --unit` gives its rank and file), the edge it faces "
             "(K-GM-2, K-GM-3), its battle group, its order chit (K-ORD-1; ? while sealed), then hit, mode."]
    for side in SIDES:
        lines.append(f"{side}: {sc.side_info[side]['name']}")
        for square in board.squares(side):
            units = []
            for p in board.at(square):
                rec = rules["pieces"][p]
                chit = command.open_chit(rules, side, rec) or "?"
                units.append(f"{p}[{rec['cell']}{rec['f']}{' ' + rec['g'] if rec.get('g') else ''} {chit}"
                             f"{' hit' if rec.get('hits') else ''}{' ' + rec['mode'] if rec.get('mode') else ''}]")
            markers = marker_words(sc, board, square, side, status)
            lines.append(f"  {square} {sc.area[square].name}: " + " ".join(units)
                         + (f"; HQ {', '.join(markers)}" if markers else ""))
        alone = sorted({rules["hqs"][h]["sq"] for h in rules["hqs"] if "sq" in rules["hqs"][h]
                        and sc.commands[h].side == side and not board.at(rules["hqs"][h]["sq"])})
        for square in alone:   # its status too (a probe: the picture flagged one out of command, these words not)
            lines.append(f"  {square}: HQ " + ", ".join(marker_words(sc, board, square, side, status)))
    if rules["gone"]:
        lines.append("destroyed: " + ", ".join(rules["gone"]))
    if rules["demoralised"]:
        lines.append("demoralised: " + ", ".join(rules["demoralised"]))
    if rules["result"]:
        lines.append(f"result: {rules['result']}")
    return "\n".join(lines) + "\n"


def marker_words(sc: Scenario, board: Board, square: str, side: str | None, status: dict) -> list[str]:
    """The command markers of `side` (every side's, if None) in `square`, each marked when it is
    Out of Command (K-CMD-3)."""
    return [f"{h}{'' if status.get(h) else ' (out of command)'}" for h in board.hqs_at(square)
            if side is None or sc.commands[h].side == side]


def current_chits(sc: Scenario, rules: dict, side: str) -> list[str]:
    """Each group's chit as it stands, the one a group keeps unless a chit order changes it
    (players' probe: nothing to compare the template's options against)."""
    import textwrap

    board = Board(sc, rules)
    now = "; ".join(f"{', '.join(body)}: {'sealed' if board.hidden(body[0]) else board.order(body[0])}"
                    for body in command.bodies(board, side))
    return textwrap.wrap(f"Chits now (kept unless changed): {now}.", 100, break_on_hyphens=False)


def describe_need(sc: Scenario, rules: dict, need: Need) -> list[str]:
    if need.sealed and need.kind == "orders":
        first = rules["turn"] == 1 and not sc.position
        tested = ("On turn 1 these are the deployment's chits: any order but FA and FD, and no test (K-ORD-1)."
                  if first else
                  "Every group's test is rolled now (K-ORD-3); whether it changes shows when its chit is revealed.")
        return ["These chits are sealed (docs/protocol.md §8): give a chit order for each group that changes, then end; `pbem submit",
                "--seal` seals one chit for every group (the others keep theirs) and sends only their hashes. Each",
                "stays sealed until the rules reveal it: Direct Fire, a Close Assault, your `show` before the group",
                f"moves, the end of the turn (K-ORD-6). {tested} Giving them openly is allowed too."] \
            + current_chits(sc, rules, need.side)
    if need.sealed:
        return ["These orders are sealed (docs/protocol.md §8): `pbem submit --seal` sends only their hashes; your next packet opens",
                "them. Your opponent gives theirs before seeing yours. Giving them openly is allowed too.",
                "One fire order per firing unit, spread as evenly as possible over the targets each could fire at",
                "(K-DF-5), judged over the whole plan at its end; all dice after both plans."]
    if need.opens:
        return ["The rules reveal these sealed chits now (K-ORD-6): `pbem submit` opens them for you from private/."]
    if need.kind.endswith("-open"):
        return ["`pbem submit` opens the items you sealed in this packet for you: they take effect in the order sealed;",
                "an opened item the rules refuse now is void (K-ORD-2, K-DF-5)."]
    if need.kind == "move":
        return ["One move per unit or group this Action Phase: to a square next to it, or within its square; a Close",
                "Assault moves a group that started the phase as one (or part of it, the rest left behind, K-CA-2),",
                "or a unit alone, into an enemy square through an edge (K-CA-3, K-CA-5).",
                "A group whose chit is sealed shows it first (`show`), then moves: `pbem submit` opens the chits a",
                "`show` reveals in the same packet, from private/, and the moves behind it go on in that packet.",
                "Give every `show` before the first move that rolls dice (a minelet, K-SFX-5): orders behind it wait",
                "for the next packet's dice, and a `show` among them reveals a chit that only a later packet opens."]
    if need.kind == "give-ground-place":
        return ["Cells are \"rc\": row from the north edge, column from the west edge. The unit keeps its facing; each",
                "place listed is free, closest to its edge (K-GM-2) and, where the square allows, blocks no other",
                "incoming Direct Fire into it (K-GG-5)."]
    if need.kind == "occupy-facing":
        return ["Listed: one facing for all the occupiers, as one battle group or as single units. Any other legal",
                "arrangement may be given (K-CA-17): `facings: {unit: edge}` gives a unit its own facing (the others",
                "take `facing`), and `groups: [[unit, unit], ...]` the battle groups they form in place of `group`",
                "(each facing one way; the rest stand alone)."]
    if need.kind == "calls":
        return ["Each battery bombards one Close Assault for one of your units in it, or fires counter-battery (K-IF)."]
    return []
