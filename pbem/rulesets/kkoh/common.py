"""Small rules every phase uses: losses and destruction (K-TRP-2, K-DF-9, K-DF-10), random
choices made by a die (K-GG-3, K-IF-10, K-AIR-2), demoralisation (K-MOR-1..4)."""

from __future__ import annotations

from .layout import close_ranks
from .scenario import Scenario
from .state import Board


def dice_choice(ctx, label: str, among: int) -> int:
    """A choice among `among` made by dice, uniform: one die for up to six (re-rolled above
    the largest multiple), two dice read as 1-36 for more. 0 .. among-1; no roll for one. Every
    random choice of the rules is made with six-sided dice (K-INT-4)."""
    if among <= 1:
        return 0
    if among <= 6:
        top = (6 // among) * among
        while True:
            die = ctx.d6(label)
            if die <= top:
                return (die - 1) % among
    if among > 36:
        raise ValueError(f"a choice among {among} is more than two dice can make")
    top = (36 // among) * among
    while True:
        value = (ctx.d6(label) - 1) * 6 + ctx.d6(label)
        if value <= top:
            return (value - 1) % among


def lose(sc: Scenario, board: Board, pid: str, n: int, ctx, rule: str, why: str) -> bool:
    """`pid` takes `n` losses (strength points). A unit with none left is destroyed and removed
    (K-TRP-2, K-DF-9); infantry aboard and towed guns share their vehicles' fate, being one
    piece (K-DF-10). Returns True if it is destroyed."""
    if n <= 0 or not board.alive(pid):
        return False
    rec = board.piece(pid)
    left = board.points_left(pid) - n
    if left <= 0:
        square = rec["sq"]
        board.remove(pid)
        ctx.event("destroyed", f"{pid} is destroyed ({why}, {rule}).", unit=pid, side=sc.pieces[pid].side,
                  square=square, rule=rule)
        job = board.rules.get("gg")
        if job is None:
            close_ranks(sc, board, [square], ctx)    # those behind it close up (K-GM-2)
        elif square not in job["left"]:     # a Give Ground under way: once all have gone (giveground)
            job["left"].append(square)
            job["left"].sort()
        check_morale(sc, board, ctx)
        return True
    rec["hits"] = rec.get("hits", 0) + n
    ctx.event("loss", f"{pid} takes {'a loss' if n == 1 else f'{n} losses'} ({why}, {rule}).", unit=pid,
              side=sc.pieces[pid].side, losses=n, rule=rule)
    check_morale(sc, board, ctx)
    return False


def strength(sc: Scenario, board: Board, formation: str) -> int:
    return sum(board.points_left(p) for p in sc.body(formation) if board.alive(p))


def is_demoralised(sc: Scenario, board: Board, formation: str) -> bool:
    """Below half its starting strength points (K-MOR-1, K-MOR-3: 6 of 12 is not below half)."""
    return 2 * strength(sc, board, formation) < sc.morale_start[formation]


def demoralised(sc: Scenario, board: Board, pid: str) -> bool:
    """A unit may not launch Close Assaults if the battalion or battlegroup it fights in is
    Demoralised (K-MOR-1): its own formation, or for an attachment the formation it is attached
    to ("this then applies to the attachments as well"). An attachment counts in neither
    formation's strength (K-MOR-2), and its home formation's demoralisation is not its own."""
    rules = board.rules
    piece = sc.pieces[pid]
    if piece.attached:
        host = [f for f, entry in sc.formations.items() if entry["hq"] == piece.hq] or [piece.formation]
        return any(f in rules["demoralised"] for f in host)
    return piece.formation in rules["demoralised"]


def check_morale(sc: Scenario, board: Board, ctx, phase: bool = False) -> None:
    """Tested after every loss and in the Morale Phase (K-MOR-4 reading; K-MOR-3 and the
    rulebook's example, K-EX-4, are case morale-example.yaml)."""
    rules = board.rules
    for f in sorted(sc.formations):
        if f in rules["demoralised"] or sc.morale_start[f] == 0:
            continue
        if is_demoralised(sc, board, f):
            rules["demoralised"].append(f)
            rules["demoralised"].sort()
            ctx.event("demoralised", f"{f} ({sc.formations[f].get('name', f)}) is Demoralised: {strength(sc, board, f)} of "
                      f"{sc.morale_start[f]} strength points left, below half; it may launch no more Close Assaults "
                      f"(K-MOR-1).", formation=f, side=sc.formations[f]["side"], left=strength(sc, board, f),
                      start=sc.morale_start[f], rule="K-MOR-1")
