"""After-action reports rendered from structured events (Markdown, plain text, BBCode).

The Markdown report is the one written to `aar/NNNN.md`; `pbem audit` regenerates it
and compares. Rendering depends only on the state and the events, never on the clock."""

from __future__ import annotations

from typing import Any

FORMATS = ("md", "text", "bbcode")


def _headline(game: Any, state: dict) -> tuple[str, list[str]]:
    summary = game.ruleset.summary(state["rules"])
    title = f"{game.ruleset.title}: after-action report, packet {state['seq']}"
    lines = [f"Game {state['game']}, ruleset {game.ruleset.id} {game.ruleset.version}."]
    if state["mode"] == "sandbox":
        lines.append("SANDBOX GAME: unsigned packets, dice from a script or a plain seed; not fair dice.")
    where = ", ".join(f"{key} {summary[key]}" for key in ("turn", "phase") if summary.get(key) is not None)
    if where:
        lines.append(f"Now: {where}.")
    return title, lines


def _awaiting_line(state: dict) -> str:
    awaiting = state["awaiting"]
    if awaiting["need"] is None:
        return "The game is over."
    need = awaiting["need"]
    why = {"dice": "the dice of the next reveal", "orders": "orders", "decision": "a decision"}.get(awaiting["waiting_for"], awaiting["waiting_for"])
    return (f"Next packet: from {awaiting['packet_from']}. The game waits for {why}: "
            f"{need_text(need)}.")


def need_text(need: dict) -> str:
    """"side, prompt (rule)" without repeating a rule the prompt already cites."""
    rule = need.get("rule")
    note = f" ({rule})" if rule and f"({rule})" not in need["prompt"] else ""
    return f"{need['side']}, {need['prompt'].rstrip('.')}{note}"


def render(game: Any, state: dict, events: list[dict], fmt: str = "md") -> str:
    title, head = _headline(game, state)
    result = game.ruleset.summary(state["rules"]).get("result")
    tail = [f"Result: {result.rstrip('.')}."] if result else []
    tail.append(_awaiting_line(state))
    if fmt == "md":
        out = [f"# {title}", ""] + head + [""] + [_md_event(e) for e in events] + [""] + tail
    elif fmt == "bbcode":
        out = [f"[b]{title}[/b]", ""] + head + ["", "[list]"] + [f"[*]{_text(e)}" for e in events] + ["[/list]", ""] + tail
    else:
        out = [title, "=" * len(title)] + head + [""] + [f"- {_text(e)}" for e in events] + [""] + tail
    return "\n".join(out) + "\n"


def _text(event: dict) -> str:
    text = event["text"]
    if event.get("house_rule"):
        text += " [house rule]"
    return text


def _md_event(event: dict) -> str:
    indent = "  " if event["type"] == "roll" else ""
    return f"{indent}- {_text(event)}"
