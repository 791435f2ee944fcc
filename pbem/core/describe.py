"""The game in words, for `pbem status` and `pbem show`: who is awaited and for what, since
when; one thing on the board looked at closely; what changed between two states.

The ruleset supplies the words that need its rules: the summary's `now`, `score` and
`decision`, `look` (one unit, hex, area or square) and `view` (the board as data, which the
changes between two states are read from). Everything here is game-agnostic and
deterministic: sorted iteration, no clock."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.core.canonical import ABSENT
from pbem.core.errors import UsageError
from pbem.core.text import cites, seal_names, with_rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def wrap_list(head: str, items: list[str], width: int = 100) -> list[str]:
    """`head` and the items, comma-separated, in lines of at most `width` characters (longer
    only for one long item), broken between items only; later lines indented by two."""
    lines, line = [], head + " "
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if len(line) + len(piece) > width and line.strip() and line != head + " ":
            lines.append(line.rstrip())
            line = "  "
        line += piece + " "
    return lines + [line.rstrip()]


def _view(game: Any, rules: dict) -> dict | None:
    return game.view(rules)


def state_at(folder: Any, seq: int | None) -> dict:
    """State `seq` of a folder (the latest if None), checked as `pbem render` checks what it
    draws: its packet, applied to the state before it, gives it. A state file edited and
    re-hashed (a result claimed, units moved) is refused, not described (referee's probe);
    `pbem audit` checks them all."""
    from pbem.core.render import frames

    latest = folder.state["seq"]
    if seq is not None and not 0 <= seq <= latest:
        raise UsageError(f"there is no state {seq}: the game is at state {latest} (states 0 to {latest})")
    return frames.frame(folder, seq).state


# --- status -------------------------------------------------------------------------------------

def _packet(seq: int) -> str:
    # a packet is "packet 4" in every report, template and message (players' probe: "0004" here alone)
    return str(seq)


def _sent(entry: dict) -> str:
    # `sent` is what the sender wrote, informational only: a thread's own timestamps witness delivery
    return f"(sent {entry['sent']} by its sender's clock)" if entry.get("sent") else "(no sending time given)"


def _who(side: str | None, you: str | None) -> str:
    return f"{side} (you)" if side is not None and side == you else str(side)


def _what(awaiting: dict, summary: dict, standing: bool = False) -> str:
    """What the awaited side must give, in its words: orders of a phase, or a decision (which
    its standing order may answer, `standing`: see engine.standing_answer)."""
    need = awaiting["need"]
    if awaiting["waiting_for"] == "decision":
        text = with_rule(summary.get("decision") or need["prompt"], need["rule"])
        if standing:
            return (f"a decision: {awaiting['decision']}, {text}; its standing order answers it as the packet's dice "
                    f"open, so a packet without orders does (`pbem orders` shows the answer)")
        total = awaiting.get("options_total")
        legal = f"; {total} legal answer{'s' if total != 1 else ''} (`pbem orders` lists them)" if total else ""
        return f"a decision: {awaiting['decision']}, {text}{legal}"
    if awaiting["waiting_for"] == "openings":
        opens, prompt = need["opens"], with_rule(need["prompt"], need["rule"])
        if all(cites(prompt, name) for name in opens):   # the prompt lists them: once is enough
            return f"the opening of {len(opens)} sealed item{'' if len(opens) == 1 else 's'}: {prompt}"
        return f"the opening of sealed item{'' if len(opens) == 1 else 's'} {', '.join(opens)}: {prompt}"
    kind = "sealed orders" if need["sealed"] else "orders"
    return f"{kind}: {with_rule(need['prompt'], need['rule'])}"


def _awaited(awaiting: dict, summary: dict, you: str | None, standing: bool = False,
             dice: dict | None = None) -> str:
    """`dice`: the state's dice of a sandbox game with a script."""
    need, sender = awaiting["need"], awaiting["packet_from"]
    if awaiting["waiting_for"] == "dice" and dice is not None and "script" in dice:
        from pbem.core.engine import more_dice, script_words

        said, rolled_after = script_words(dice)
        return (f"Awaited: more dice. The game's dice script {said}; a packet from {_who(sender, you)} adds more, "
                f"`{more_dice(sender)}`{rolled_after}, and then {_who(need['side'], you)}: "
                f"{with_rule(need['prompt'], need['rule'])}.")
    if awaiting["waiting_for"] == "dice":
        # the step is decided (a queued order, or a standing order's answer): only its dice are missing
        # (players' probe: "the step they finish is decided already (soviet: ... choose the attacking
        # group to fire at)" read as soviet still to choose, the prompt being the last words)
        return (f"Awaited: a packet from {_who(sender, you)}, whose reveal opens the dice the game waits for "
                f"(docs/protocol.md §7), which finish a step {_who(need['side'], you)} has answered already: "
                f"{with_rule(need['prompt'], need['rule'])}.")
    what = _what(awaiting, summary, standing)
    if sender == need["side"]:
        return f"Awaited: {_who(sender, you)}, for {what}."
    return (f"Awaited: a packet from {_who(sender, you)}, who has nothing to decide now (packets alternate; one "
            f"without orders will do); then {_who(need['side'], you)}, for {what}.")


def awaited_line(game: Any, state: dict, summary: dict, you: str | None = None) -> str:
    """Who sends the next packet and what the game waits for, in one sentence: the line of
    `pbem status` and the last line of every report."""
    if state["awaiting"]["need"] is None:
        return "The game is over: no packet is awaited."
    from pbem.core import engine

    return _awaited(state["awaiting"], summary, you, engine.standing_answer(game, state) is not None, state["dice"])


def chain_used_up(game: Any, state: dict) -> str | None:
    """The sentence that the side the game waits for can send no more packets, its dice chain
    used up with no next chain announced (docs/protocol.md §5); None if it can."""
    if state["awaiting"]["need"] is None or not game.secure:
        return None
    from pbem.core import engine

    sender = state["awaiting"]["packet_from"]
    chain = engine.chain_in_force(game, state, sender, state["seq"] + 1)
    length = engine.chain_length_of(game, chain, sender)
    if chain["index"] < length:
        return None
    return (f"{sender}'s dice chain of {length} values is used up, and {sender} announced no next chain in time: "
            f"{sender} can send no more packets, and the game cannot go on (docs/protocol.md §5).")


def status(folder: Any, you: str | None = None, key: Any = None) -> dict:
    """The status as data (the `--json` form) with `text`, its lines in words. `key`: a side's
    private key; where that side sends the next packet and its reveal brings the game to that
    side's own step, `then` says so (as `pbem adjudicate --key` and `pbem orders --key` do),
    else None (another side's key, or a look ahead that fails). Worked out in memory from the
    key, never written nor shown. The latest state is checked first (`latest_events`)."""
    events = latest_events(folder)
    game, state = folder.game, folder.state
    summary = game.summary(state["rules"])
    awaiting, last = state["awaiting"], state["last_packet"]
    latest = next(({"side": side, **entry} for side, entry in sorted(last.items()) if entry["seq"] == state["seq"]),
                  None)
    queued: dict[str, int] = {}
    for item in state["queue"]:
        queued[item["side"]] = queued.get(item["side"], 0) + 1
    sealed = {side: {"items": [item["id"] for item in s["items"]], "due": list(s["due"])}
              for side, s in sorted(state["sealed"].items())}
    info = {
        "game": game.game_id, "ruleset": game.ruleset.id, "mode": state["mode"], "seq": state["seq"],
        "summary": summary, "awaiting": awaiting, "last_packet": last, "queued_orders": len(state["queue"]),
        "you": you, "since": latest, "queued": queued, "sealed": sealed,
        "queue": [{field: item[field] for field in ("side", "seq", "index", "order")} for item in state["queue"]],
    }
    # packets of the folder beyond its latest state: written, never applied (a state file lost
    # or removed; players' probe: status went on from the state before, and said nothing)
    from pbem.core.game import fork_evidence, packet_files, preview_next

    info["unapplied"] = [{"seq": seq, "path": str(path)} for seq, path in packet_files(folder.path)
                         if seq > state["seq"] and not fork_evidence(path)]
    info["then"] = None
    if key is not None:
        from pbem.core.errors import PbemError

        try:
            ahead = preview_next(game, state, key)
        except PbemError:   # a look ahead that fails (a chain used up) leaves the status as it is
            ahead = None
        if ahead and ahead[-1]["type"] == "next":
            info["then"] = ahead[-1]["text"]
    info["chains"] = None   # a sandbox game has no chains
    if game.secure:   # each side's dice chain: how many values it has revealed and has left
        from pbem.core import engine

        info["chains"] = {}
        for side in game.sides:
            chain = state["chains"][side]
            length = engine.chain_length_of(game, chain, side)
            announced = chain.get("next")
            info["chains"][side] = {
                "length": length, "revealed": chain["index"], "left": length - chain["index"],
                "value": chain["value"],   # the last value revealed: the anchor until the first
                "next": None if announced is None else {"length": announced["chain_length"],
                                                        "from_seq": announced["from_seq"]}}
    info["scenario"] = scenario_terms(game.genesis)
    info["voids"] = last_voids(events)
    info["text"] = _status_lines(game, state, info)
    return info


def latest_events(folder: Any) -> list[dict]:
    """The events of the latest packet, from its replay on the state before it, which checks
    that it gives the latest state (`state_at`): a state file edited and re-hashed is refused."""
    from pbem.core.render import frames

    return frames.frame(folder, None).events


def last_voids(events: list[dict], side: str | None = None) -> list[str]:
    """The orders the latest packet's resolution made void (of `side`, if given), in the words
    of its report: a player whose queued order went void read it only among the report's lines,
    and status and the template said nothing of it (a players' probe). Taken from the packet's
    replay (`latest_events`), not read from the report file: a folder handed over could hold a
    report with void lines pbem never wrote, which status printed as its own (a cheater's probe)."""
    return [e["text"] for e in events
            if e["type"] == "void" and "index" in e and (side is None or e["side"] == side)]


def now_lines(summary: dict) -> list[str]:
    """The turn and phase a ruleset's summary gives, and the result once there is one."""
    lines = []
    now = summary.get("now") or ", ".join(f"{k} {summary[k]}" for k in ("turn", "phase") if summary.get(k) is not None)
    if now:
        lines.append(now[0].upper() + now[1:] + ".")
    if summary.get("result"):
        lines.append(f"Result: {summary['result'].rstrip('.')}.")
    return lines


def score_lines(game: Any, summary: dict) -> list[str]:
    """The score as the ruleset words it, else each side's VP."""
    score = summary.get("score")
    if score:
        return [score[0].upper() + score[1:] + "."]
    if isinstance(summary.get("vp"), dict):
        return ["VP: " + ", ".join(f"{side} {summary['vp'][side]}" for side in game.sides if side in summary["vp"]) + "."]
    return []


def _status_lines(game: Any, state: dict, info: dict) -> list[str]:
    import shlex   # imported where used, as textwrap below: adjudicate and most commands need neither

    summary, awaiting, you = info["summary"], info["awaiting"], info["you"]
    mode = "sandbox game (unsigned packets, no fair dice)" if state["mode"] == "sandbox" else "secure game"
    lines = [f"{game.ruleset.title}. Ruleset {game.ruleset.id} {game.ruleset.version}, {mode} {game.game_id}, "
             f"state {state['seq']}."]
    if info["scenario"].get("differences"):   # what the proposer embedded differs from what pbem bundles
        lines.append(info["scenario"]["text"])
    lines += now_lines(summary)
    lines.append(awaited_line(game, state, summary, you))
    lines += [f"Void in packet {state['seq']}'s resolution (aar/{state['seq']:04d}.md): {line}" for line in info["voids"]]
    for number, entry in enumerate(info["unapplied"]):
        path = Path(entry["path"])
        command = f"`pbem adjudicate {shlex.quote(str(path.parent.parent))} {shlex.quote(str(path))}`"
        lines.append(f"packets/{path.name} is in the folder but was never applied (its state, states/{entry['seq']:04d}"
                     f".yaml, is missing): " + (f"{command} applies it." if number == 0 else f"{command} after it."))
    if info["then"]:
        lines.append(info["then"])
    used_up = chain_used_up(game, state)
    if used_up:
        lines.append(used_up)
    if game.secure:
        for side in game.sides:
            announced = state["chains"][side].get("next")
            if announced:
                lines.append(f"{side} announced its next dice chain ({announced['chain_length']} values); its packet "
                             f"{announced['from_seq']} starts it (docs/protocol.md §5).")
    lines += _packets_lines(game, state, info)
    for side, s in info["sealed"].items():
        kept = [name for name in s["items"] if name not in s["due"]]
        parts = []
        if s["due"]:
            parts.append(f"its next packet opens {seal_names(s['due'])}")
        if kept:
            parts.append(f"{seal_names(kept)} stay{'s' if len(kept) == 1 else ''} sealed until the rules reveal "
                         f"{'it' if len(kept) == 1 else 'them'}")
        lines.append(f"{side} has {len(s['items'])} sealed item{'s' if len(s['items']) != 1 else ''}: "
                     + "; ".join(parts) + " (docs/protocol.md §8).")
    if info["queued"]:
        lines.append(queued_line(game, state))
    lines += score_lines(game, summary)
    if you is not None and awaiting["need"] is not None:
        lines.append(f"You play {you}: " + ("the next packet is yours (`pbem orders` writes a template of it, "
                                            "`pbem submit` signs and sends it)." if awaiting["packet_from"] == you
                                            else f"the next packet is {awaiting['packet_from']}'s."))
    elif you is not None:
        lines.append(f"You played {you}.")
    return lines


QUEUED_SHOWN = 8   # queued orders `pbem status` names; `--json` gives them all


def queued_line(game: Any, state: dict) -> str:
    """The orders queued in `state`, by side, when they take effect and which they are."""
    queued: dict[str, int] = {}
    for item in state["queue"]:
        queued[item["side"]] = queued.get(item["side"], 0) + 1
    per = ", ".join(f"{side} {n}" for side, n in sorted(queued.items(), key=lambda kv: game.sides.index(kv[0])))
    when = "wait for the dice of the next packet" if state["awaiting"]["waiting_for"] == "dice" else \
        "are applied as the game reaches them"
    return f"Queued orders ({per}) {when}:" + queued_list(state["queue"])


def queued_list(queue: list[dict], shown: int = QUEUED_SHOWN) -> str:
    """The queued orders in words, first to come first (players' probe: a side wrote again the
    orders it had queued, for nothing said which they were): " german order 2 of packet 4
    (attack target=2620); ... and 3 more."."""
    from pbem.core.engine import order_text

    named = [f"{item['side']} order {item['index']} of packet {item['seq']} ({order_text(item['order'])})"
             for item in queue[:shown]]
    more = f"; and {len(queue) - shown} more (`pbem status --json` lists them all)" if len(queue) > shown else ""
    return " " + "; ".join(named) + more + "."


def _packets_lines(game: Any, state: dict, info: dict) -> list[str]:
    last, since, awaiting = state["last_packet"], info["since"], state["awaiting"]
    if since is None:
        return [f"No packet yet: {awaiting['packet_from']} sends packet 1."] if awaiting["need"] else []
    sender = awaiting["packet_from"]
    head = (f"Awaited since packet {_packet(since['seq'])} from {since['side']} {_sent(since)}"
            if awaiting["need"] is not None and sender != since["side"]
            else f"Last packet: {_packet(since['seq'])} from {since['side']} {_sent(since)}")
    others = [f"{side}'s last packet: " + (f"{_packet(last[side]['seq'])} {_sent(last[side])}" if side in last else "none yet")
              for side in game.sides if side != since["side"]]
    return [head + "; " + "; ".join(others) + "."]


# --- one thing looked at closely ------------------------------------------------------------------

def look(game: Any, rules: dict, what: str, ident: str, own: dict | None = None) -> list[str]:
    """`pbem show --unit/--hex/--area/--square`; `own`: the items still sealed that the folder's
    private/ keeps, by side and name (`sealing.own_items`), for their owner's eyes."""
    if game.ruleset.look is None:
        raise UsageError(f"the {game.ruleset.id} ruleset describes no single {what}; `pbem show` prints the board")
    try:
        return game.look(rules, what, ident, own)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# --- what changed between two states --------------------------------------------------------------

ORDER = ("turn", "move", "enter", "loss", "gain", "leave", "markers", "control", "fact")


def states_between(folder: Any, first: int, last: int) -> list:
    """The states after state `first` up to state `last`, each with the events of the packet
    that made it (checked as `state_at` checks a state): the way from one to the other, for
    `changes`; none when `last` is not after `first`."""
    from pbem.core.render import frames

    return [frames.frame(folder, seq) for seq in range(first + 1, last + 1)]


def changes(game: Any, before: dict, after: dict, steps: list | None = None) -> list[dict]:
    """What changed from state `before` to state `after`, as sentences with their data,
    ordered by kind (turn, moves, entries, losses, units leaving the map, markers,
    control, the ruleset's facts such as VP) and within a kind by side and unit. With
    `steps` (`states_between` them), a unit that left the map is said to have left it from
    where it last stood, and one whose last step was an advance after combat or a retreat
    to have advanced or retreated; without, from where it stood in `before`, which is all two
    states tell."""
    a, b = _view(game, before["rules"]), _view(game, after["rules"])
    if a is None or b is None:
        return _summary_changes(game.summary(before["rules"]), game.summary(after["rules"]))
    out: list[dict] = []
    if a.get("now") != b.get("now"):
        out.append({"kind": "turn", "from": a.get("now"), "to": b.get("now"),
                    "text": f"Now: {b.get('now')} (before: {a.get('now')})."})
    sides = list(game.sides)
    units = sorted(set(a["units"]) & set(b["units"]),
                   key=lambda u: (sides.index(b["units"][u]["side"]) if b["units"][u]["side"] in sides else len(sides), u))
    noun = b.get("strength_in", "strength point")
    ways = _ways(game, a, steps) if steps else {}
    for uid in units:
        out += _unit_changes(uid, a["units"][uid], b["units"][uid], a.get("statuses", {}), b.get("statuses", {}), noun,
                             ways.get(uid), before.get("seq"))
    out += _control_changes(a, b)
    before_facts = dict((label, value) for label, value in a.get("facts", []))
    for label, value in b.get("facts", []):
        if before_facts.get(label) != value:
            out.append({"kind": "fact", "label": label, "from": before_facts.get(label), "to": value,
                        "text": f"{label}: {before_facts.get(label)}, now {value}."})
    out.sort(key=lambda change: ORDER.index(change["kind"]))  # stable: the order above within a kind
    return out


_AFTER_COMBAT = {"advance": ("advanced after combat", "advanced_from"), "retreat": ("retreated", "retreated_from")}


def _ways(game: Any, first: dict, steps: list) -> dict[str, tuple[str, tuple[str, str] | None]]:
    """Where each unit last stood on the map over `steps` (frames, from the view `first` of the
    state before them), with (the cell it came from, the event's type) if it came there by an advance after
    combat or a retreat, else None. Within a packet its events tell the way (an event with
    `units` or `unit` and a `path`: a unit retreats, then is eliminated in the same packet);
    after it, the state tells where each unit stands (players' probe: R/30, destroyed in N2047
    after two retreats, "was in N2150", where it stood ten states before; a retreat "moved")."""
    ways: dict[str, tuple[str, tuple[str, str] | None]] = {uid: (u["where"], None) for uid, u in first["units"].items()
                                                           if u["status"] == "map"}
    for step in steps:
        for e in step.events:
            path, units = e.get("path"), e.get("units") or ([e["unit"]] if e.get("unit") else [])
            if isinstance(path, list) and len(path) >= 2 and isinstance(units, list):
                how = (str(path[0]), e["type"]) if e["type"] in _AFTER_COMBAT else None
                for uid in units:
                    ways[str(uid)] = (str(path[-1]), how)
        for uid, u in (_view(game, step.state["rules"]) or {"units": {}})["units"].items():
            if u["status"] == "map" and ways.get(uid, ("",))[0] != u["where"]:
                ways[uid] = (u["where"], None)   # no event of the packet says how: it stands there
    return ways


def _unit_changes(uid: str, x: dict, y: dict, words_x: dict, words_y: dict, noun: str,
                  way: tuple[str, tuple[str, str] | None] | None = None, first: int | None = None) -> list[dict]:
    label = f"{uid} ({y['side']})"
    out = []
    on_x, on_y = x["status"] == "map", y["status"] == "map"
    last, how = way if way is not None and way[0] else (x["where"] if on_x else None, None)
    at = f" at state {first}" if first is not None else ""
    if on_x and on_y and x["where"] != y["where"] and how and last == y["where"]:
        came, kind = how
        verb, field = _AFTER_COMBAT[kind]
        out.append({"kind": "move", "unit": uid, "from": x["where"], "to": y["where"], field: came,
                    "text": f"{label} {verb} from {came} to {y['where']}"
                            + (f"; it was in {x['where']}{at}." if came != x["where"] else ".")})
    elif on_x and on_y and x["where"] != y["where"]:
        out.append({"kind": "move", "unit": uid, "from": x["where"], "to": y["where"],
                    "text": f"{label} moved from {x['where']} to {y['where']}."})
    elif not on_x and on_y:
        # below full strength now: said with it, as no loss is told of a unit not on the map before
        # (a players' probe: three reinforcements that entered and lost steps were only "now in")
        short = y["strength"] != y["full"]
        out.append({"kind": "enter", "unit": uid, "from": x["status"], "to": y["where"],
                    **({"strength": y["strength"]} if short else {}),
                    "text": f"{label} is now in {y['where']}"
                            + (f" with {y['strength']} of {y['full']} {noun}s" if short else "")
                            + f"; it was {words_x.get(x['status'], x['status'])}."})
    elif on_x and not on_y:
        where = f"last in {last} (in {x['where']}{at})" if last != x["where"] else f"in {x['where']}"
        out.append({"kind": "leave", "unit": uid, "from": last, "to": y["status"],
                    **({"was": x["where"]} if last != x["where"] else {}),
                    "text": f"{label} is now {words_y.get(y['status'], y['status'])}; it was {where}."})
    elif x["status"] != y["status"]:
        out.append({"kind": "leave", "unit": uid, "from": x["status"], "to": y["status"],
                    "text": f"{label} is now {words_y.get(y['status'], y['status'])}; "
                            f"it was {words_x.get(x['status'], x['status'])}."})
    if on_x and on_y and x["strength"] != y["strength"]:   # a unit entering: its strength is said above
        d = y["strength"] - x["strength"]
        kind = "loss" if d < 0 else "gain"
        verb = "lost" if d < 0 else "gained"
        out.append({"kind": kind, "unit": uid, "from": x["strength"], "to": y["strength"],
                    "text": f"{label} {verb} {abs(d)} {noun}{'s' if abs(d) != 1 else ''}: "
                            f"{y['strength']} of {y['full']} left."})
    if on_x and on_y and x["markers"] != y["markers"]:
        placed = [m for m in y["markers"] if m not in x["markers"]]
        removed = [m for m in x["markers"] if m not in y["markers"]]
        pairs = _changed_markers(placed, removed)
        parts = [_marker_change(was, now) for was, now in pairs]
        changed = {marker for pair in pairs for marker in pair}
        parts += [f"{', '.join(ms)} marker{'s' if len(ms) > 1 else ''} {verb}"
                  for ms, verb in (([m for m in placed if m not in changed], "placed"),
                                   ([m for m in removed if m not in changed], "removed")) if ms]
        out.append({"kind": "markers", "unit": uid, "placed": placed, "removed": removed,
                    "text": f"{label}: {'; '.join(parts)}."})
    return out


def _marker_change(was: str, now: str) -> str:
    """A marker of a family that took the place of another, in words: a sealed one opened is
    revealed, not changed (an audience probe: "order marker sealed changed to HD1" read as a
    change of order, which kkoh's K-ORD-2 makes a matter of a test), and one sealed in its
    place is said so."""
    family, before, after = was.split(" ")[0], was.split(" ")[1], now.split(" ")[1]
    if before == "sealed":
        return f"{family} marker revealed: {after}"
    if after == "sealed":
        return f"{family} marker {before} replaced by a sealed one"
    return f"{family} marker {before} changed to {after}"


def _changed_markers(placed: list[str], removed: list[str]) -> list[tuple[str, str]]:
    """(was, now) for a marker of a family ("order HD", "order M": kkoh's order chits) that
    took the place of another of its family: one placed, one removed. Said as one change (a
    players' probe: "order sealed marker placed; order HD marker removed")."""
    def family(marker: str) -> str | None:   # "order" of "order HD": two words, the second a code
        words = marker.split(" ")
        return words[0] if len(words) == 2 else None

    out = []
    for name in sorted({family(m) for m in placed} - {None}):
        now = [m for m in placed if family(m) == name]
        was = [m for m in removed if family(m) == name]
        if len(now) == 1 and len(was) == 1:
            out.append((was[0], now[0]))
    return out


def _control_changes(a: dict, b: dict) -> list[dict]:
    before, after = a.get("control", {}), b.get("control", {})
    changed = [p for p in after if before.get(p) != after[p]]
    if not changed:
        return []
    names = b.get("names", {})
    if b.get("places") == "areas":
        return [{"kind": "control", "places": [p], "to": after[p],
                 "text": f"{p} - {names.get(p, p)} passed to the {after[p]} side."} for p in changed]
    out = []
    for side in sorted({after[p] for p in changed}):
        places = [p for p in changed if after[p] == side]
        noun = ("hex" if len(places) == 1 else "hexes") if b.get("places") == "hexes" else "places"
        out.append({"kind": "control", "places": places, "to": side,
                    "text": f"{len(places)} {noun} passed to {side} control: {', '.join(places)}."})
    return out


def _summary_changes(x: dict, y: dict) -> list[dict]:
    """Without a ruleset view: what differs in the summaries."""
    return [{"kind": "fact", "label": key, "from": x.get(key), "to": y.get(key),
             "text": f"{key}: {x.get(key)}, now {y.get(key)}."}
            for key in sorted(set(x) | set(y)) if x.get(key) != y.get(key)]


def changes_text(game: Any, before: dict, after: dict, steps: list | None = None) -> list[str]:
    import textwrap

    found = changes(game, before, after, steps)
    head = f"Changes from state {before['seq']} to state {after['seq']}:"
    lines = [head]
    for text in _alike_together(found):
        lines += textwrap.wrap(f"- {text}", width=100, subsequent_indent="  ", break_on_hyphens=False)
    if found:
        return lines
    # a packet whose orders all wait for dice changes nothing yet: said so, and which wait (a
    # new user's probe: "nothing changed" read as a packet that did nothing)
    waiting = textwrap.wrap(queued_line(game, after), width=100, initial_indent="  ", subsequent_indent="  ",
                            break_on_hyphens=False) if after.get("queue") and after["seq"] > before["seq"] else []
    return lines + ["- nothing changed on the board" + (" yet." if waiting else ".")] + waiting


def _alike_together(found: list[dict]) -> list[str]:
    """The changes' sentences, the units of one side whose markers changed alike said in one,
    where the first of them is ("R-AD2, R-Hy1 (red): order marker HD2 changed to sealed."; a
    players' probe: 39 such lines as a kkoh turn's chits were sealed), and so the units of one
    side that passed alike from one status off the map to another. `--json` keeps a change for
    each unit."""
    out: list[str] = []
    alike: dict[str, tuple[int, list[str]]] = {}     # "(side): change" -> (its line, its units)
    for change in found:
        text = change["text"]
        if change["kind"] == "leave" and " is now " in text and "; it was " in text:
            # units of one side off the map that passed alike from one status to another ("are now
            # ready to enter (15.0); they were not in play yet"; a players' probe: 36 such lines on a
            # dos Game-Turn, burying its moves and losses)
            label, _, rest = text.partition(" is now ")
            now, _, was = rest.partition("; it was ")
            uid, _, side = label.rpartition(" (")
            key, merged = f"({side} are now {now}; they were {was}", True
        elif change["kind"] == "markers":
            label, _, what = text.partition(": ")
            uid, _, side = label.rpartition(" (")
            key, merged = f"({side}: {what}", True
        else:
            key, merged = "", False
        if not merged:
            out.append(text)
        elif key in alike:
            line, units = alike[key]
            units.append(uid)
            out[line] = f"{', '.join(units)} {key}"
        else:
            alike[key] = (len(out), [uid])
            out.append(text)
    return out


# --- what a side agrees to --------------------------------------------------------------------

def scenario_terms(genesis: dict) -> dict:
    """The scenario a genesis plays, as data with its sentence in `text`: one bundled with
    pbem by name, or a document the proposer embedded, compared field by field with the
    bundled scenario of its id, or, with no id or an id pbem does not bundle, with the bundled
    scenario it differs from least. A proposer who changed one cell of a bundled table and left
    out the id is found out all the same (a cheater's probe: the joiner was told only "not one
    bundled with pbem" and had 80 KB of YAML to read)."""
    from pbem import rulesets
    from pbem.core.canonical import differences
    from pbem.core.text import shown

    ruleset = rulesets.get(genesis["ruleset"])
    entry = genesis["scenario"]
    if "name" in entry:
        return {"bundled": entry["name"], "text": f"Scenario {entry['name']}, as bundled with pbem."}
    document = entry["document"]
    ident = document.get("id") if isinstance(document, dict) else None
    if isinstance(ident, str) and ident in ruleset.scenarios:
        names = [ident]
        head = f"Scenario EMBEDDED by the proposer, with the id of the bundled scenario {ident}"
    else:
        names = sorted(ruleset.scenarios)
        head = ("Scenario EMBEDDED by the proposer, " + (f"with the id {shown(str(ident))}" if ident is not None
                                                          else "without an id") + ", not one bundled with pbem")
    # the bundled scenario it differs from least, the first in name order among as close
    found, name = min(((list(differences(_bundled(ruleset, n), document, absent=ABSENT)), n) for n in names),
                      key=lambda pair: (len(pair[0]), pair[1]))
    paths = [path for path, _, _ in found]
    data = {"bundled": None, "embedded": True, "id": ident, "compared_with": name, "differences": len(paths),
            # a field one of them lacks has no value there
            "fields": [{"field": path, **({} if was is ABSENT else {"bundled": was}),
                        **({} if now is ABSENT else {"embedded": now})} for path, was, now in found[:8]]}
    # every differing section is named, and how many fields differ: a list cut short must not
    # hide the one change that matters among cosmetic ones
    tops = list(dict.fromkeys(re.split(r"[.\[ ]", path, maxsplit=1)[0] for path in paths))
    sections = "" if tops == paths else ", in " + ", ".join(shown(top) for top in tops)   # not "in position: position"
    first = ", ".join(shown(path) + _was_now(was, now) for path, was, now in found[:8]) \
        + (f" and {len(paths) - 8} more" if len(paths) > 8 else "")
    count = f"{len(paths)} field{'s differ' if len(paths) != 1 else ' differs'}"
    if names == [ident]:
        data["text"] = head + (f", but {count}{sections}: {first}." if paths else ", and the same content.")
    elif paths:
        data["text"] = f"{head}: against the bundled scenario {name}, the closest, {count}{sections}: {first}."
    else:
        data["text"] = f"{head}: the same content as the bundled scenario {name}."
    return data


_BUNDLED: dict[tuple[str, str, str], dict] = {}


def _bundled(ruleset: Any, name: str) -> dict:
    """A bundled scenario's document, read once a process (only compared, never changed): a
    process that describes many games, a test run or a referee's script, reads it once."""
    key = (ruleset.id, ruleset.version, name)
    if key not in _BUNDLED:
        _BUNDLED[key] = ruleset.scenarios[name]()
    return _BUNDLED[key]


def _was_now(was: Any, now: Any) -> str:
    """A changed field's values, ' (bundled "1-0", here "3-2")', where both are short enough
    to read in a line (strings quoted, so that a space added at the end shows); else nothing
    (the path alone)."""
    from pbem.core.canonical import canonical
    from pbem.core.text import shown

    def short(value: Any) -> str | None:
        text = canonical(value).decode()
        return shown(text) if len(text) <= 32 else None

    if was is ABSENT or now is ABSENT:
        return " (added)" if was is ABSENT else " (left out)"
    a, b = short(was), short(now)
    return f" (bundled {a}, here {b})" if a is not None and b is not None else ""


def terms(genesis: dict, scenario: dict | None = None) -> list[str]:
    """What a side agrees to by joining or completing a game, in words: the ruleset,
    the scenario (bundled, or embedded and where it differs from a bundled one: `scenario_terms`,
    or `scenario` where the caller has it already), every option not at its default, each
    side's key fingerprint and dice chain. A proposer may embed a scenario of his own or choose
    options; the joiner sees them before he sends his join."""
    from pbem import rulesets
    from pbem.core.canonical import canonical
    from pbem.core.genesis import DEFAULT_CHAIN_LENGTH
    from pbem.core.text import shown

    ruleset = rulesets.get(genesis["ruleset"])
    scenario = scenario or scenario_terms(genesis)
    lines = [f"Ruleset {ruleset.id} {genesis['ruleset_version']}: {ruleset.title}.",
             scenario["text"] + (" Read it in the proposal before you join." if scenario["bundled"] is None and
                                 scenario["compared_with"] != scenario["id"] and scenario["differences"] else "")]
    changed = [f"{shown(name)} = {canonical(value).decode()} (default {canonical(ruleset.options.get(name)).decode()})"
               for name, value in genesis["options"].items() if canonical(ruleset.options.get(name)) != canonical(value)]
    lines.append("Options: " + ("; ".join(changed) + "." if changed else "all at their defaults."))
    if genesis["mode"] == "sandbox":
        dice = genesis["sandbox"]
        source = (f"the script {', '.join(str(d) for d in dice['dice'][:12])}" + (", ..." if len(dice["dice"]) > 12 else "")
                  if "dice" in dice else f"the plain seed {shown(repr(dice['seed']))}")
        lines.append(f"A sandbox game: unsigned packets, dice from {source}, not fair dice.")
        return lines
    # who plays: anyone may send a proposal naming any key, so the joiner compares his
    # opponent's fingerprint with the one his opponent's `pbem keygen` printed
    keys = [f"{side['name']} {side['fingerprint']}" for side in genesis["sides"] if "fingerprint" in side]
    lines.append("Keys: " + ", ".join(keys) + "; a player checks his opponent's fingerprint with him by another "
                 "channel than the one this came by (the opponent's `pbem keygen` printed it).")
    chains = [(side["name"], side["chain_length"]) for side in genesis["sides"] if "chain_length" in side]
    lines.append("Dice chains: " + ", ".join(f"{name} {length} values" for name, length in chains) + ".")
    for name, length in chains:
        if length < DEFAULT_CHAIN_LENGTH:
            lines.append(f"Note: {name}'s dice chain has only {length} values, fewer than pbem's default "
                         f"{DEFAULT_CHAIN_LENGTH}: {name}'s pbem announces a next chain before it runs out, and "
                         f"without one the game stops when {name} has sent {length} packets (docs/protocol.md §5).")
    return lines

