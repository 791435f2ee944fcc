"""Rulebook cases run through the real engine (DESIGN §7): a sandbox game whose genesis
embeds the case's scenario document (the position), scripted dice, and packets of
orders applied one after another exactly as `pbem adjudicate` applies them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.core import game, genesis
from pbem.core.errors import RulesError


def run_case(root: Path, ruleset_id: str, scenario: dict, packets: list[dict], dice: list[int],
             options: dict | None = None) -> tuple[game.Folder, list[dict]]:
    """Play `packets` ([{side, orders, policies?}, ...]) from `scenario` with `dice`.

    Returns the game folder (its game and last state) and the events of all packets, in order. Raises what the engine
    raises (RulesError for an illegal order), so a case can expect a rejection too."""
    from pbem import rulesets

    ruleset = rulesets.get(ruleset_id)
    document = genesis.sandbox(ruleset, {"dice": list(dice)}, scenario_doc=scenario, options=options, created="case")
    with pytest.MonkeyPatch.context() as patch:
        # a case's position is a scenario of its own, which no other command opens: kept in
        # pbem's cache of built scenarios, it would be written (a dos one with every supply
        # row worked out) for nothing to read back; what is built is the same either way
        patch.setenv("PBEM_CACHE_DIR", "off")
        folder = game.create(Path(root), document)
    events: list[dict] = []
    for number, entry in enumerate(packets, start=1):
        packet = game.build_packet(folder.game, folder.state, entry["side"], entry.get("orders", []),
                                   entry.get("policies"), None, "")
        applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), f"case packet {number}")
        events.extend(applied.events)
    return folder, events


def play_case(root: Path, ruleset_id: str, case: dict, scenario: dict,
              options: dict | None = None) -> tuple[game.Folder, list[dict]] | None:
    """Play a case file's packets with its dice. Where the case expects a rejection, check
    that its last packet is refused with that message and rule, and return None; otherwise
    check that every scripted die was rolled, and no other, and return (folder, events)."""
    rejected = case["expect"].get("rejected")
    if rejected:
        with pytest.raises(RulesError) as info:
            run_case(root, ruleset_id, scenario, case["packets"], case["dice"], options)
        text = str(info.value)
        cited = f"({rejected['rule']})"   # the refusal names the rule once, appending it if the message does not
        expected = rejected["message"] if cited in rejected["message"] else f"{rejected['message']} {cited}"
        assert f"is illegal: {expected}" in text and text.count(cited) == 1, text
        assert f"case packet {len(case['packets'])}:" in text, text
        return None
    folder, events = run_case(root, ruleset_id, scenario, case["packets"], case["dice"], options)
    rolls = [e for e in events if e["type"] == "roll"]
    assert len(rolls) == len(case["dice"]), (f"{len(rolls)} dice rolled, {len(case['dice'])} scripted:\n"
                                             + "\n".join(e["text"] for e in events if e["type"] != "order"))
    return folder, events


def matches(value, pattern) -> bool:
    """A pattern matches when each of its keys matches (nested), lists element by element."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(matches(value.get(k), v) for k, v in pattern.items())
    if isinstance(pattern, list):
        return isinstance(value, list) and len(value) == len(pattern) and all(map(matches, value, pattern))
    return value == pattern


def check_events(events: list[dict], expect: dict) -> None:
    """`expect.events` appear in this order (others may come between); `expect.absent_events` never."""
    i = 0
    for pattern in expect.get("events") or []:
        while i < len(events) and not matches(events[i], pattern):
            i += 1
        assert i < len(events), f"event not found in order: {pattern}\n" + "\n".join(e["text"] for e in events)
        i += 1
    for pattern in expect.get("absent_events") or []:
        assert not any(matches(e, pattern) for e in events), f"unexpected event {pattern}"


def check_need(game, rules: dict, expect: dict) -> None:
    """`expect.need`: what the game (a case's folder's game) waits for afterwards (None:
    the game is over)."""
    if "need" not in expect:
        return
    need = game.next_step(rules)
    if expect["need"] is None:
        assert need is None
    else:
        assert need is not None and {k: getattr(need, k) for k in expect["need"]} == expect["need"]
