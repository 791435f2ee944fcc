"""Markers and their removal: confusion at the end of every phase (7.1, 12.0), Half Move
and facing in the owner's recovery phase (12.0), fired at the end of the game turn (10.2, 12.0)."""

from __future__ import annotations


def _remove(rules: dict, ctx, flag: str, marker: str, rule: str) -> None:
    gone = [uid for uid, u in sorted(rules["units"].items()) if u[flag]]
    for uid in gone:
        rules["units"][uid][flag] = False
    if gone:
        ctx.event("markers-removed", f"{marker.capitalize()} markers removed: {', '.join(gone)} ({rule}).", units=gone,
                  marker=marker, rule=rule)


def end_of_phase(rules: dict, ctx) -> None:
    """7.1, 12.0: confusion markers of both sides come off at the end of each phase."""
    _remove(rules, ctx, "conf", "confusion", "7.1")


def recovery(rules: dict, side: str, ctx) -> None:
    """12.0: the phase player's units get their facing back and lose their Half Move markers
    (also in an enemy zone of control); the turn's attack flags are cleared."""
    halves = []
    for uid, u in sorted(rules["units"].items()):
        if u["side"] != side:
            continue
        if u["half"]:
            halves.append(uid)
        u["half"] = False
        u["done"] = False
        u["no_move"] = False
        u["attacked"] = False
        u["moved"] = False
        u["mattacked"] = False
        u["used"] = 0
    ctx.event("recovery", f"{side.capitalize()} recovery phase: facings restored"
              + (f"; Half Move markers removed from {', '.join(halves)}" if halves else "") + " (12.0).",
              side=side, units=halves, rule="12.0")


def end_of_turn(rules: dict, ctx) -> None:
    """10.2, 12.0: fired markers of both sides come off at the end of the game turn."""
    _remove(rules, ctx, "fired", "fired", "10.2")
