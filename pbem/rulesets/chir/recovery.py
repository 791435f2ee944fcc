"""Markers and their removal: confusion at the end of every phase (7.1, 12.0), Half Move
and facing in the owner's recovery phase (12.0), fired at the end of the game turn (10.2, 12.0)."""

from __future__ import annotations

from . import state as st
from .scenario import Scenario


def _remove(rules: dict, ctx, marker: str, rule: str) -> None:
    gone = list(rules["markers"][marker])
    rules["markers"][marker] = []
    if gone:
        ctx.event("markers-removed", f"{marker.capitalize()} markers removed: {', '.join(gone)} ({rule}).", units=gone,
                  marker=marker, rule=rule)


def end_of_phase(sc: Scenario, rules: dict, ctx) -> None:
    """7.1, 12.0: confusion markers of both sides come off at the end of each phase."""
    _remove(rules, ctx, "confusion", "7.1")


def recovery(sc: Scenario, rules: dict, side: str, ctx) -> None:
    """12.0: the phase player's units get their facing back and lose their Half Move markers
    (also in an enemy zone of control); the turn's attack flags are cleared."""
    markers = rules["markers"]
    halves = [uid for uid in markers["half"] if sc.side_of[uid] == side]
    for name in ("half", "done", "no-move", "attacked", "manoeuvre-attacked"):
        markers[name] = [uid for uid in markers[name] if sc.side_of[uid] != side]
    st.clear_moves(rules, [uid for uid in rules["moved"] if sc.side_of[uid] == side])
    ctx.event("recovery", f"{side.capitalize()} recovery phase: facings restored"
              + (f"; Half Move markers removed from {', '.join(halves)}" if halves else "") + " (12.0).",
              side=side, units=halves, rule="12.0")


def end_of_turn(sc: Scenario, rules: dict, ctx) -> None:
    """10.2, 12.0: fired markers of both sides come off at the end of the game turn."""
    _remove(rules, ctx, "fired", "10.2")
