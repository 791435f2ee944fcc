"""Rulebook cases run through the real engine (DESIGN §7): a sandbox game whose genesis
embeds the case's scenario document (the position), scripted dice, and packets of
orders applied one after another exactly as `pbem adjudicate` applies them."""

from __future__ import annotations

from pathlib import Path

from pbem.core import game


def run_case(root: Path, ruleset_id: str, scenario: dict, packets: list[dict], dice: list[int],
             options: dict | None = None) -> tuple[dict, list[dict]]:
    """Play `packets` ([{side, orders, policies?}, ...]) from `scenario` with `dice`.

    Returns the last state and the events of all packets, in order. Raises what the engine
    raises (RulesError for an illegal order), so a case can expect a rejection too."""
    from pbem import rulesets

    ruleset = rulesets.get(ruleset_id)
    genesis = game.make_genesis(ruleset_id, {s: None for s in ruleset.sides}, scenario_doc=scenario,
                                options=options, sandbox={"dice": list(dice)}, created="case")
    folder = game.create(Path(root), genesis)
    events: list[dict] = []
    for number, entry in enumerate(packets, start=1):
        packet = game.build_packet(folder.game, folder.state, entry["side"], entry.get("orders", []),
                                   entry.get("policies"), None, "")
        applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), f"case packet {number}")
        events.extend(applied.events)
    return folder.state, events
