"""After-action reports rendered from structured events (Markdown, plain text, BBCode).

The Markdown report is the one written to `aar/NNNN.md`; `pbem audit` regenerates it
and compares. Rendering depends only on the state and the events, never on the clock."""

from __future__ import annotations

from pbem.core.engine import roll_index
from pbem.core.text import bbcode, markdown, shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("md", "text", "bbcode")
# the first words of every report of a sandbox game, and of its pictures and `pbem show`
SANDBOX = "SANDBOX GAME: unsigned packets, dice from a script or a plain seed; not fair dice."


def _headline(game: Any, state: dict, summary: dict) -> tuple[str, list[str]]:
    title = f"{game.ruleset.title}: after-action report, packet {state['seq']}"
    lines = [f"Game {state['game']}, ruleset {game.ruleset.id} {game.ruleset.version}."]
    if state["mode"] == "sandbox":
        lines.append(SANDBOX)
    # the words `pbem status` uses ("Game turn 1 of 12, Soviet concentrated attack phase")
    now = summary.get("now") or ", ".join(f"{key} {summary[key]}" for key in ("turn", "phase")
                                          if summary.get(key) is not None)
    if now:
        lines.append(f"Now: {now[0].upper() + now[1:]}.")
    return title, lines


def render(game: Any, state: dict, events: list[dict], fmt: str = "md") -> str:
    """The report in one format. Every line is escaped for its format (text from packets
    can neither forge a line nor open markup); the structure around it is pbem's own."""
    from pbem.core.describe import awaited_line

    summary = game.summary(state["rules"])
    title, head = _headline(game, state, summary)
    events = together(events)
    result = summary.get("result")
    # what the codes and dice above mean, for a reader without the rulebook or the protocol
    tail = key(game, state, events)
    if result:
        tail.append(f"Result: {result.rstrip('.')}.")
    tail.append(awaited_line(game, state, summary))   # the line `pbem status` prints
    if fmt == "md":
        # a blank line after each line of the head, and between those of the tail: a Markdown
        # viewer joins lines that follow each other into one paragraph (an audience's probe:
        # "Game ..., ruleset ... SANDBOX GAME: ... Now: ..." read as one sentence)
        out = ([f"# {markdown(title)}", ""] + [part for line in head for part in (markdown(line), "")]
               + [("  - " if e["type"] == "roll" else "- ") + _text(e, markdown) for e in events]
               + [""] + [part for line in tail for part in ("", markdown(line))][1:])
    elif fmt == "bbcode":
        out = ([f"[b]{bbcode(title)}[/b]", ""] + [bbcode(line) for line in head] + ["", "[list]"]
               + _bbcode_items(events) + ["[/list]", ""] + [bbcode(line) for line in tail])
    else:
        out = ([shown(title), "=" * len(title)] + [shown(line) for line in head] + [""]
               + [f"- {_text(e, shown)}" for e in events] + [""] + [shown(line) for line in tail])
    return "\n".join(out) + "\n"


def _bbcode_items(events: list[dict]) -> list[str]:
    """The events as BBCode list items, each run of dice in a list of its own inside the item
    before it, as the Markdown report indents them (an audience's probe: the dice read as
    events of their own on a forum)."""
    out: list[str] = []
    nested = False
    for e in events:
        if (e["type"] == "roll") != nested and out:
            out.append("[list]" if not nested else "[/list]")
            nested = not nested
        out.append(f"[*]{_text(e, bbcode)}")
    return out + (["[/list]"] if nested else [])


# After the events of a secure game that rolled dice: what a die's line says, for an audience
# that sees "Die: 5 (segment 3, t1.soviet.attack.a2.defence)" and knows no protocol (a forum
# audience's walkthrough). A sandbox game says at its head that its dice are not fair.
DICE_KEY = ("Dice: each die and draw comes from secret values that both players committed to in advance, so neither "
            "could choose one or act on one they could foresee; \"segment {seq}\" means the dice that packet {seq} "
            "opened, the words after it name the roll, and pbem audit recomputes every one from the signed packets.")
# said where a die sealed with an item is read (docs/protocol.md §8): its segment is an earlier packet's
SEALED_DICE_KEY = ("A die \"sealed with item N\" was drawn in the segment it names and kept secret with that sealed "
                   "item, known to its owner alone, until the item was opened now.")


def key(game: Any, state: dict, events: list[dict]) -> list[str]:
    """The lines that explain the report's result codes (the ruleset's `result_key`) and, in a
    secure game, its dice."""
    lines = list(game.ruleset.result_key(events)) if game.ruleset.result_key is not None else []
    decided = next((e["decision"] for e in events if e.get("decision")), None)
    if decided is not None:
        lines.append(decision_words(decided))
    if state["mode"] == "secure" and any(e["type"] == "roll" for e in events):
        lines.append(DICE_KEY.format(seq=state["seq"]))
        if any(e["type"] == "roll" and "item" in e for e in events):
            lines.append(SEALED_DICE_KEY)
    return lines


def decision_words(key: str) -> str:
    """What a decision key is, told by the first of a report's: "2.57/defensive-fire" read as a
    rule number beside the rules' own "(9.9)" (an audience's walkthrough)."""
    origin = key.split("/")[0]
    seq, index = origin.split(".")
    source = '"0.0": none, before any order' if origin == "0.0" else f"order {index} of packet {seq}"
    return (f'Decision keys such as "{key}" name a decision by the order that brought it about ({source}) and by '
            f"its kind, so that a packet can answer it ahead; they are not rule numbers.")


def together(events: list[dict]) -> list[dict]:
    """The events as the reports list them: draws in a row, and a sealed plan's padding, on
    one line each; dice under the line they decided."""
    return dice_after(openings_together(draws_together(events)))


def dice_after(events: list[dict]) -> list[dict]:
    """Each run of rolls after the event that follows it: a ruleset rolls, then says what the
    roll decided, and a report that listed the die first hung it, indented, under the line
    before, which it had nothing to do with (an audience's walkthrough: "Defensive fire ...
    die 6: -." with the next fire's "Die: 2" under it). A run with no event after it (the
    last of a report) stays where it is."""
    out: list[dict] = []
    rolls: list[dict] = []
    for event in events:
        if event["type"] == "roll":
            rolls.append(event)
        else:
            out.append(event)
            out += rolls
            rolls = []
    return out + rolls


def draws_together(events: list[dict]) -> list[dict]:
    """Draws in a row (a random pick among N: dos's untried strengths and reinforcements) on
    one line, as "Draws (segment 2): 146 of 155 (setup.rifle.0 #0), 12 of 154 (...)": one line
    each buried the report (players' probe: 49 of them before the force they drew)."""
    out: list[dict] = []
    for event in events:
        if event["type"] == "roll" and event.get("among") and out and out[-1].get("draws"):
            out[-1]["draws"].append(event)
        elif event["type"] == "roll" and event.get("among"):
            out.append({"type": "roll", "draws": [event]})
        else:
            out.append(event)
    return [_draws_line(e["draws"]) if e.get("draws") else e for e in out]


def openings_together(events: list[dict]) -> list[dict]:
    """Opened sealed items in a row that are the same order (a sealed plan's padding: kkoh pads
    a fire plan with `end` to a count that tells nothing) on one line, "red orders 2 to 84 of
    packet 10: end, each": one line each buried the one shot among 83 (a players' probe)."""
    out: list[dict] = []
    for event in events:
        last = out[-1] if out else None
        if (event["type"] == "order" and "opened" in event and last is not None and last["type"] == "order"
                and "opened" in last and (last["side"], last["seq"]) == (event["side"], event["seq"])
                and last.get("last", last["index"]) + 1 == event["index"] and last["order"] == event["order"]):
            last["last"] = event["index"]
            last["text"] = (f"{event['side']} orders {last['index']} to {event['index']} of packet {event['seq']}: "
                            f"{event['text'].split(': ', 1)[1]}, each")
        else:
            out.append(dict(event) if event["type"] == "order" and "opened" in event else event)
    return out


def _draws_line(draws: list[dict]) -> dict:
    if len(draws) == 1:
        return draws[0]
    segments = {d.get("segment") for d in draws}
    shared = next(iter(segments)) if len(segments) == 1 and None not in segments and \
        all(d["source"] != "script" for d in draws) else None
    def where(d: dict) -> str:
        if d["source"] == "script":
            return f"scripted die {d['script_index'] + 1}"
        return (f"{d['label']}{roll_index(d)}" if shared is not None else
                f"segment {d['segment']}, {d['label']}{roll_index(d)}")
    runs = _label_runs(draws) if shared is not None else []
    if any(len(run) > 1 for run in runs):
        # labels that count up, said once at the head of their run: each said beside its draw made
        # a line of 1,300 characters of which the draws were a fifth (an audience's walkthrough)
        def said(run: list[dict]) -> str:
            values = ", ".join(f"{d['value'] + 1} of {d['among']}" for d in run)
            return f"{run[0]['label']} to {run[-1]['label']}: {values}" if len(run) > 1 else f"{where(run[0])}: {values}"
        return {"type": "roll", "text": f"Draws (segment {shared}): {'; '.join(said(run) for run in runs)}."}
    listed = ", ".join(f"{d['value'] + 1} of {d['among']} ({where(d)})" for d in draws)
    return {"type": "roll", "text": f"Draws{f' (segment {shared})' if shared is not None else ''}: {listed}."}


def _label_runs(draws: list[dict]) -> list[list[dict]]:
    """The draws in runs: each run a label's first rolls ("setup.rifle.0", "setup.rifle.1", ...)
    whose last parts count up by one, written as numbers are ("7", not "07"); a draw that
    continues none is a run of its own."""
    runs: list[list[dict]] = []
    for d in draws:
        head, _, tail = d["label"].rpartition(".")
        last = runs[-1][-1] if runs else None
        if last is not None and not d["index"] and not last["index"] and tail.isascii() and tail.isdigit() \
                and str(int(tail)) == tail and last["label"] == f"{head}.{int(tail) - 1}":
            runs[-1].append(d)
        else:
            runs.append([d])
    return runs


def _text(event: dict, escape: Any) -> str:
    text = escape(event["text"])
    if event.get("house_rule"):
        text += " [house rule]" if escape is not markdown else " \\[house rule\\]"
    return text
