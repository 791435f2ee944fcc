"""kkoh in words for `pbem status` and `pbem show` (pbem.core.describe): the turn and the
score as the rules say them, the table as data for `show --diff`, and one unit, command
marker or square looked at closely (`show --unit`, `show --square`)."""

from __future__ import annotations

from pbem.core.text import did_you_mean
from . import command, report, victory
from .scenario import INSIDE, SIDES, Scenario
from .state import Board

KINDS = {"command": "command", "armour": "armour", "atgw": "ATGW", "infantry": "infantry", "transport": "transport",
         "fd-arty": "field artillery", "aa-arty": "air defence", "at-arty": "anti-tank artillery"}
QUALITY = {"S": "superior", "A": "average", "I": "inferior"}
EDGE_NAMES = {"N": "north", "E": "east", "S": "south", "W": "west"}
TERRAIN = {"open": "open ground", "bua": "built-up area", "light-woods": "light woods", "steep-ridge": "steep ridge"}
DOCTRINE = {"nato": "NATO", "soviet": "Soviet"}


def terrain(sc: Scenario, square: str) -> str:
    name = sc.area[square].name
    return TERRAIN.get(name, name)


def view(sc: Scenario, rules: dict) -> dict:
    """The table as data (core/describe.py): every unit where it stands (square, cell and
    facing), its strength points (K-TRP-2: two, one fewer for each loss and for a unit fielded
    with a loss), its order chit, losses and mode, its battle group; who holds each objective;
    the score."""
    units = {}
    for pid in sc.piece_ids:
        piece = sc.pieces[pid]
        rec = rules["pieces"].get(pid)
        if rec is None:
            units[pid] = {"side": piece.side, "where": None, "status": "destroyed", "strength": 0, "full": 2,
                          "markers": []}
            continue
        markers = ([f"order {command.open_chit(rules, piece.side, rec) or 'sealed'}"] + (["loss"] if rec.get("hits") else [])
                   + ([rec["mode"]] if rec.get("mode") else []))
        units[pid] = {"side": piece.side, "where": _where(rec), "status": "map",
                      "strength": piece.points - rec.get("hits", 0), "full": 2, "markers": markers,
                      # its battle group, as the text names it (an audience probe: only in rules.pieces)
                      **({"group": rec["g"]} if rec.get("g") else {})}
    score = victory.scores(sc, rules)
    facts = [["Score blue", score["blue"]], ["Score red", score["red"]], ["Initiative", rules["initiative"]],
             ["Demoralised formations", ", ".join(rules["demoralised"]) or "none"],
             ["Command markers on the table", sum(1 for r in rules["hqs"].values() if "sq" in r)]]
    return {"units": units, "control": dict(sorted(rules["held"].items())), "places": "places", "facts": facts,
            "statuses": {"destroyed": "destroyed"}, "now": report.summary(sc, rules)["now"]}


def _where(rec: dict) -> str:
    return f"{rec['sq']} cell {rec['cell']} facing {rec['f']}"


def look(sc: Scenario, rules: dict, what: str, ident: str, own: dict[str, dict[str, dict]] | None = None) -> list[str]:
    """One unit, command marker or square in words; `own`: the items still sealed that the
    folder's private/ keeps, by side and name (`sealing.own_items`), said to their owner."""
    if what == "unit":
        if ident in sc.pieces:
            return _unit(sc, rules, ident, (own or {}).get(sc.pieces[ident].side))
        if ident in sc.commands:
            return _marker(sc, rules, ident)
        raise ValueError(f"{ident} is no unit or command marker of this game"
                         f"{did_you_mean(sorted([*sc.pieces, *sc.commands]), ident)} (ids as in `pbem show`, such as "
                         f"{sc.piece_ids[0]})")
    if what == "square":
        if ident not in sc.grid:
            raise ValueError(f"{ident} is no square of the table (CCRR: column 00-{sc.doc['map']['columns'] - 1:02d}, "
                             f"row 00-{sc.doc['map']['rows'] - 1:02d})")
        return _square(sc, rules, ident)
    raise ValueError(f"kkoh's table has 1 km squares, not {what}es: use --square CCRR" if what == "hex" else
                     f"kkoh's table has 1 km squares, not {what}s: use --square CCRR")


def _unit(sc: Scenario, rules: dict, pid: str, own: dict[str, dict] | None = None) -> list[str]:
    piece = sc.pieces[pid]
    head = (f"{pid} ({piece.side}): {piece.name}; {KINDS.get(piece.kind, piece.kind)}, {QUALITY[piece.quality]} "
            f"quality, {DOCTRINE[piece.doctrine]} doctrine" + (", specialist reconnaissance" if piece.recce else "")
            + f"; worth {piece.cost} points (K-PTS).")
    command_line = f"Formation {piece.formation}, commanded by {piece.hq}" + (" (attached)" if piece.attached else "")
    rec = rules["pieces"].get(pid)
    if rec is None:
        return [head, command_line + ".", f"Destroyed: the enemy scores its {piece.cost} points."]
    board = Board(sc, rules)
    status = command.marker_status(sc, board)
    # a self-ordering unit is In Command whatever its marker (a players' probe read its line as
    # saying an Out of Command marker was in command)
    lines = [head, command_line + ((", In Command: self-ordering reconnaissance, never Out of Command (K-REC-3)."
                                    if piece.self_ordering else ", In Command.")
                                   if command.piece_in_command(sc, board, pid, status) else ", Out of Command (K-CMD).")]
    cell, facing = rec["cell"], rec["f"]
    # the facing as orders write it, and in words (a players' probe wrote "west" in a move)
    lines.append(f"In {rec['sq']} ({terrain(sc, rec['sq'])}), cell {cell}, facing {facing} ({EDGE_NAMES[facing]}): "
                 f"rank {INSIDE.rank(facing, cell)}, file {INSIDE.file(facing, cell)} (K-GM-2, K-GM-3).")
    hits = rec.get("hits", 0)
    strength = f"{piece.points - hits} of 2 strength points" + (" (fielded with a loss, K-TRP-3)" if piece.reduced else "")
    if piece.fielded_losses:   # its loss marker counts in no loss of morale (K-MOR-2)
        strength += " (deployed with its loss marker: 1 in its formation's starting strength, K-MOR-2)"
    lines.append(f"Order chit {_chit(sc, rules, pid)}; {strength}" + (f"; {hits} loss marker" if hits else "")
                 + (f"; {rec['mode']}" if rec.get("mode") else "") + ".")
    mine = command.own_chit(sc, rules, pid, own) if own else None
    if mine is not None:
        lines.append(_own_chit_words(sc, rules, pid, mine))
    members = [p for p in board.members(pid) if p != pid] if rec.get("g") else []
    lines.append(f"In battle group {rec['g']} with {', '.join(members)} (K-BG-1)." if members else
                 "Not in a battle group: it acts alone (K-GM-4).")
    return lines + _classes(piece)


def _classes(piece) -> list[str]:
    """What a shot at it or by it reads, mode by mode (a players' probe checked a Direct Fire
    roll only from the army lists' data): its fire class, armour, the class it is fired at as,
    how it moves."""
    lines = []
    for mode, p in sorted(piece.modes.items()):
        fire = (f"Direct Fire class {p.df}" + (" with improved ranging (IR)" if p.ir else "")
                + (", at two squares (heavy ATGW)" if p.heavy_atgw else "")
                + (", none at vehicles (mortar)" if p.mortar else "")) if p.df else "no Direct Fire"
        armour = f"armour {p.armour}" + (", improved (IA)" if p.ia else "") if p.armour else "no armour"
        head = "Fire and armour" if mode == "normal" else mode.capitalize()
        infantry = f"; {p.infantry} infantry in a Close Assault (K-INF-2)" if p.infantry else ""
        lines.append(f"{head}: {fire} (K-DF-4{', K-INF-1' if p.infantry and not p.df else ''}"
                     f"{', K-TNK-2' if p.ir else ''}); {armour} (K-TNK-1{', K-TNK-2' if p.ia else ''}); fired at as "
                     f"{p.target} (K-DF-6){infantry}; moves as {p.move} (K-MOV-4).")
    if piece.if_class:
        lines.append(f"Indirect Fire class {piece.if_class}, range {piece.if_range} (K-IF-2).")
    return lines


def _chit(sc: Scenario, rules: dict, pid: str) -> str:
    """The unit's order chit as the state has it: sealed (K-ORD-6), also where its side has
    sealed a new chit that Issuing Orders has not tested yet, whose state still keeps the chit
    it carried before (a players' probe read that one as its chit); a change given openly and
    not yet tested is said beside the chit."""
    side, rec = sc.pieces[pid].side, rules["pieces"][pid]
    anew = command.sealed_anew(rules, side)
    first = rules["turn"] == 1 and not sc.position
    if anew is not None:
        return (f"sealed (K-ORD-6): {side} sealed " + (f"the deployment's chits in packet {anew} (K-ORD-1)" if first
                else f"new chits in packet {anew}, each tested when Issuing Orders ends (K-ORD-3)")
                + f"; it carried {rec['o']} before them")
    if rec["o"] is None:
        return "sealed (K-ORD-6)"
    given = next((p["order"] for p in rules["plans"].get("chits", {}).get(side, []) if pid in p["units"]), None)
    if given is not None:
        return rec["o"] + (f"; {given} given openly for the deployment, set when Issuing Orders ends (K-ORD-1)" if first
                           else f"; a change to {given} given openly, tested when Issuing Orders ends (K-ORD-3)")
    return rec["o"]


def _own_chit_words(sc: Scenario, rules: dict, pid: str, mine: command.OwnChit) -> str:
    """What its owner's seal file says of the unit's sealed chit (private/, for his eyes only)."""
    side = sc.pieces[pid].side
    head = f"{side} sealed {mine.order} for it (item {mine.item}, kept in private/: for {side}'s eyes only)"
    return head + ("." if mine.words is None else f"; when the rules reveal it: {mine.words}.")


def _marker(sc: Scenario, rules: dict, hid: str) -> list[str]:
    c = sc.commands[hid]
    head = (f"{hid} ({c.side}): {c.name}; {c.level} command marker, {QUALITY[c.quality]} quality"
            + (f", under {c.superior}" if c.superior else "") + " (K-CMK-1).")
    rec = rules["hqs"][hid]
    if "sq" not in rec:
        return [head, f"Destroyed on turn {rec['lost']}; it may be replaced (K-CMD-11)."]
    status = command.marker_status(sc, Board(sc, rules))
    return [head, f"In {rec['sq']}; " + ("In Command." if status.get(hid) else "Out of Command (K-CMD-3).")]


def _square(sc: Scenario, rules: dict, square: str) -> list[str]:
    board = Board(sc, rules)
    lines = [f"{square}: {terrain(sc, square)}" + (" (an objective, held by " + rules["held"][square] + ")"
                                            if square in sc.objectives else "") + "."]
    edges, roads = [], []
    for n in sc.grid.neighbours(square):
        key = sc.grid.edge_key(square, n)
        side = EDGE_NAMES[sc.grid.direction(square, n)]
        if key in sc.edges:
            edges.append(f"{sc.edges[key].name} on the {side} edge (to {n})")
        if key in sc.roads:
            roads.append(f"{side} (to {n})")
    lines.append(("Edges: " + "; ".join(edges) if edges else "No linear feature on its edges") + ".")
    lines.append(("Roads to the " + ", ".join(roads) if roads else "No road") + " (K-TER-3).")
    for side in SIDES:
        here = board.at(square, side)
        if here:
            lines.append(f"{side}: " + "; ".join(f"{p} in cell {rules['pieces'][p]['cell']} facing "
                                                 f"{rules['pieces'][p]['f']}" for p in here) + ".")
    markers = report.marker_words(sc, board, square, None, command.marker_status(sc, board))
    if markers:
        lines.append("Command markers: " + ", ".join(markers) + ".")
    mines = [m["pair"] for m in rules["minelets"] if m["square"] == square]
    if mines:
        lines.append("Minelet markers: " + ", ".join(mines) + " (K-SFX-5).")
    if len(lines) == 3:
        lines.append("No unit or marker is here.")
    return lines
