"""`pbem submit`: turn an orders file into a signed packet, applied to the sender's folder."""

from __future__ import annotations

import copy
import datetime
import os
import re
from pathlib import Path

from pbem.core import engine, game, schema, sealing
from pbem.core.canonical import NumberRefused, load_file
from pbem.core.errors import FileError, InputError, RulesError, UsageError, VerificationError
from pbem.core.text import numbers, shown, with_rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ORDER_FILE_KEYS = {"orders", "policies"}


def read_orders(path: Path, order_schema: dict | None = None) -> tuple[list, dict | None]:
    """An orders file is a mapping {orders: [...], policies: {...}} or a bare list of orders.
    With the game's `order_schema`, a number the YAML refuses (`hex: 0442`) where the
    schema wants an id that begins with a letter is answered with the ids it may mean, not
    "quote it": quoted, it would be refused too."""
    try:
        doc = load_file(path, str(path))
    except NumberRefused as refused:
        at = refused.path[1:] if refused.path[:1] == ("orders",) else refused.path   # (order index, key, ...)
        hint = (schema.number_hint(order_schema, at[1:], refused.value)
                if order_schema is not None and at and isinstance(at[0], int) else None)
        if hint is None:
            raise
        raise InputError(f"{refused.where}: {refused.reason}, and {hint}") from None
    except InputError as refused:
        # the two ways an edited template most often breaks, said in its words (a players'
        # probe: an order uncommented where the template lists it read "line 152: the YAML is
        # malformed or truncated (did not find expected <document start>)"); the file was read
        # whole, within the size limit, to be parsed
        misplaced = _misplaced_orders(path) if "the YAML is malformed" in refused.message else None
        if misplaced is None:
            raise
        raise InputError(f"{path}, line {misplaced[0]}: {misplaced[1]}") from None
    if isinstance(doc, list):
        return doc, None
    if not isinstance(doc, dict):
        raise RulesError(f"{path}: an orders file holds `orders:` (a list) and optionally `policies:`")
    if {"game", "seq", "side"} <= set(doc):     # a new user's probe: a packet received, given to submit
        raise UsageError(f"{path} is a packet, not an orders file: `pbem adjudicate GAME_DIR {path}` applies a packet "
                         f"your opponent sent; `pbem submit` takes the orders you write (`pbem orders` writes a "
                         f"template)")
    unknown = sorted(set(doc) - _ORDER_FILE_KEYS)
    if unknown:
        raise RulesError(f"{path}: unknown key `{unknown[0]}` (an orders file holds `orders:` and `policies:`)")
    orders = doc.get("orders") or []
    policies = doc.get("policies")
    if not isinstance(orders, list) or not all(isinstance(o, dict) for o in orders):
        raise RulesError(f"{path}: `orders` must be a list of orders, each a mapping with a `type`")
    if policies is not None and not isinstance(policies, dict):
        raise RulesError(f"{path}: `policies` must be a mapping of standing orders")
    return orders, policies


def _misplaced_orders(path: Path) -> tuple[int, str] | None:
    """(line, what is wrong) where an orders file the YAML parser refused has an order above
    its `orders:` line, or orders below an `orders: []`; None otherwise."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    key = next((n for n, line in enumerate(lines) if re.match(r"orders\s*:", line)), None)
    if key is None:
        return None
    item = re.compile(r"\s*- ")
    above = next((n for n, line in enumerate(lines[:key]) if item.match(line)), None)
    if above is not None:
        return above + 1, ("this order stands above the `orders:` line, outside its list: move it below that line "
                           "(an order uncommented where the template lists it stays there)")
    if re.fullmatch(r"orders\s*:\s*\[\s*\]\s*(#.*)?", lines[key]):
        below = next((n for n, line in enumerate(lines[key + 1:], key + 1) if item.match(line)), None)
        if below is not None:
            return key + 1, ("`orders: []` is an empty list, so the orders below it belong to none: write `orders:` "
                             "without the `[]`")
    return None


def submit(folder: game.Folder, orders_path: Path, *, key: Any = None, side: str | None = None,
           out: Path | None = None, sent: str | None = None, seal: bool | None = None,
           dice: list[int] | None = None, dry_run: bool = False) -> game.Applied:
    if out is not None and Path(out).exists():
        raise FileError(f"{out} already exists; pbem never overwrites it (nothing was signed or applied)")
    orders, policies = read_orders(orders_path, folder.game.ruleset.order_schema)
    return submit_orders(folder, orders, policies, key=key, side=side, out=out, sent=sent,
                         source=shown(str(orders_path)), seal=seal, dice=dice, dry_run=dry_run)


def submit_orders(folder: game.Folder, orders: list, policies: dict | None, *, key: Any = None, side: str | None = None,
                  out: Path | None = None, sent: str | None = None, source: str = "orders",
                  seal: bool | None = None, dice: list[int] | None = None, dry_run: bool = False) -> game.Applied:
    """`seal`: seal the orders (True), send them open even where the rules ask for sealed
    orders (False), or neither said (None): then orders where the rules ask this side for
    sealed ones are refused, for they would be open to the opponent for good.
    `dice`: a sandbox game's scripted dice, added to its script by this packet.
    `dry_run`: the packet is built and applied in memory only, with the checks and warnings
    a real submit gives (among them, which of its queued orders imagined rolls of the next dice
    would make void, up to IMAGINED rolls): nothing is written or sent, and the packet is never
    shown, so no second packet for its seq can come of it."""
    g, state = folder.game, folder.state
    if out is not None and Path(out).exists():
        raise FileError(f"{out} already exists; pbem never overwrites it (nothing was signed or applied)")
    if out is not None and not (Path(out).parent.is_dir() and os.access(Path(out).parent, os.W_OK)):
        # asked before the packet is signed and applied: the game must not move on without it
        raise FileError(f"{out} cannot be written: there is no folder {Path(out).parent} to write in, or it may not be "
                        "written (nothing was signed or applied)")
    if dice is not None and (g.secure or "dice" not in g.genesis["sandbox"]):
        raise UsageError(f"--dice {','.join(map(str, dice))}: only a sandbox game with scripted dice takes dice "
                         f"from its players; this game's dice come from "
                         + ("its players' chains" if g.secure else "a seed"))
    if g.secure:
        key_side = game.side_of_key(g, key)
        if side is not None and side != key_side:
            raise UsageError(f"--side {side} does not match the key, which is {key_side}'s")
        side = key_side
        expected = g.sender_of(state["seq"] + 1)
        if side != expected:
            last = state["last_packet"].get(side)
            sent_file = (f"; {side}'s packet {last['seq']} is packets/{last['seq']:04d}-{side}.yaml, if it must be sent "
                         f"again" if last else "")
            # the key says who sends: a player who gave the other side's key by mistake reads
            # the same refusal as one who sends out of turn (a players' probe: told to wait
            # for the packet he had to send himself)
            raise RulesError(f"it is {expected}'s turn to send packet {state['seq'] + 1}, and the key given is "
                             f"{side}'s: if you play {expected}, give your own key; if you play {side}, wait for "
                             f"{expected}'s packet and adjudicate it (packets alternate){sent_file}")
    elif side is None:
        raise UsageError("a sandbox game needs --side SIDE")
    seq = state["seq"] + 1
    stored = folder.path / "packets" / f"{seq:04d}-{side}.yaml"
    if stored.exists() and dry_run:
        raise UsageError(f"packet {seq} is already signed ({folder.relative(stored)}): `pbem submit` sends it as it "
                         f"is, and a dry run has nothing to try")
    if stored.exists():
        # Signed before a crash, never applied: re-send it; never sign a second packet for seq.
        packet, data = game.read_packet(stored, folder.relative(stored))
        applied = game.adjudicate(folder, packet, data, folder.relative(stored))
        unused = f"the orders in {source}" + (" and the --dice values" if dice else "")
        applied.warnings.append(f"packet {seq} was already signed ({folder.relative(stored)}): it was applied and is "
                                f"re-sent as it is; {unused} were not used"
                                + (f" (its dice: {', '.join(map(str, packet['dice']))})" if packet.get("dice") else ""))
        if out is not None:
            game.write_new(out, data.decode("utf-8"))
        return applied
    if sent is None:
        sent = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    extra: dict = {"dice": list(dice)} if dice else {}
    due = state["sealed"].get(side, {}).get("due", [])
    if due:
        extra["opens"] = sealing.opening(folder, side, due)
    if seal is None and orders and g.secure and g.ruleset.sealed_steps:
        # players' probe: a forgotten --seal showed the opponent a turn's hidden orders, told only after
        # signing; the sealed step may be the one this packet's reveal or openings bring (a review).
        # (A sandbox game's seals hide nothing: their salts are public, docs/protocol.md §8.)
        need, _ = _need_met(g, state, side, key, sent, extra, policies, source)
        if need is not None and need.sealed and need.side == side:
            raise UsageError(f"{source}: the rules ask you for sealed orders ({need.prompt.rstrip('.')}), and these "
                             f"are not sealed: `pbem submit --seal` seals them; to send them open, for your opponent "
                             f"to read, give --no-seal (nothing was signed or sent)")
    sealed_items = None
    if seal:
        if not orders:
            raise UsageError(f"{source}: --seal seals the orders of the file, and it gives none")
        def checked(items: list) -> None:
            try:
                engine.check_orders(g, items, seq, source, engine.awaited_decision(state, side))
            except RulesError as exc:
                raise RulesError(f"{exc.message}; nothing was sealed or signed") from None

        checked(orders)   # as written: the ruleset reads them to arrange them (a review: a malformed item broke it)
        orders = arrange(g, state, side, key, sent, extra, policies, orders, source)
        checked(orders)   # as arranged: an item the schema refuses could never be opened, and the game would stick
        sealed_items, orders = orders, []
        salts = sealing.salts(g, seq, side, key, len(sealed_items))
        extra["sealed"] = [engine.seal_hash(g.game_id, seq, side, salt, item) for salt, item in zip(salts, sealed_items)]
    tried: list[dict] | None = None    # the events of the packet as it stands, applied in memory
    if state["sealed"].get(side):
        extra, tried = _opens_revealed(g, state, side, key, sent, extra, policies, orders, source, folder)
    if seal is None and orders and g.secure and g.ruleset.sealed_steps:
        if tried is None:
            tried = _tried(g, state, side, key, sent, extra, policies, orders, source)
        _no_open_answer_to_a_sealed_step(state, side, tried or [], source)
    packet = game.build_packet(g, state, side, orders, policies, key, sent, extra)
    if dry_run:
        new, events = engine.apply_packet(g, state, packet, source)
        game.files_of(g, new, events, source)   # the file limit, as a real submit checks it
        tried = game.Applied(new, events, None)
        tried.warnings = warnings(g, state, new, events, side, orders or sealed_items, sealed_items is not None,
                                  policies, folder)
        return tried
    text = game.packet_yaml(packet)
    made = False
    if sealed_items is not None:
        # kept before the packet is written: a crash between the two must not lose what it seals
        # (a cheater's probe: the sealer could never open the seal, nor send another packet)
        made = sealing.keep(folder, seq, side, sealed_items, salts)
    try:
        applied = game.adjudicate(folder, packet, text.encode("utf-8"), source)
    except BaseException as exc:
        if sealed_items is not None and not stored.exists():
            sealing.forget(folder, seq, side, tidy=made)   # nothing signed went into the folder: nothing sealed
        if isinstance(exc, VerificationError):   # our own packet failing verification is a bug or a wrong key
            raise VerificationError(f"the packet built from {source} does not verify: {exc.message}") from None
        raise
    if "opens" in extra:
        sealing.forget_opened(folder, side, [entry["seal"] for entry in extra["opens"]], applied.state)  # public now
    if out is not None:
        try:
            game.write_new(out, text)
        except FileError as exc:
            raise FileError(f"{exc.message}; packet {seq} was signed and applied all the same, and is kept as "
                            f"{folder.relative(stored)}: send that file") from None
    applied.warnings = warnings(g, state, applied.state, applied.events, side, orders or sealed_items,
                                sealed_items is not None, policies, folder)
    return applied


def warnings(g: engine.Game, before: dict, after: dict, events: list[dict], side: str, gave: Any,
             sealed: bool = False, policies: dict | None = None, folder: game.Folder | None = None) -> list[str]:
    """What the sender of a packet should know of it before sending it on (`gave`: its orders,
    or its items, `sealed`); `folder`, the sender's, lets the look ahead open what the sender
    sealed (see `foresee`)."""
    queued = still_queued(after, side, after["seq"])
    open_orders = [] if sealed or not isinstance(gave, list) else gave
    first = len(before["sealed"].get(side, {}).get("due", [])) + 1   # the items it opens come first (§8)
    cautions = g.cautions(after, events, side, queued)
    # a caution of the position as it stands is said once, not again as one of the imagined play
    foreseen = [said for said in foresee(g, after, side, folder) if said.removeprefix(IMAGINED_WORDS) not in cautions]
    return (repeats(after, side, open_orders, first) + answered_twice(open_orders, first)
            + after_end(g, before, side, open_orders, first) + dropped(after, events, side, open_orders, first)
            + unawaited(g, before, side, gave) + misnamed(after, side)
            + foreseen
            + kept(after, side, g.secure and g.ruleset.sealed_steps) + idle(before, after, side, gave)
            + left_open(after, side, gave) + script_used_up(after)
            + not_yours(g, side, policies) + cautions
            + (others_folder(g, folder, side, after["seq"]) if sealed else [])
            + damaged_seals(g, folder, side))


def damaged_seals(g: engine.Game, folder: game.Folder | None, side: str) -> list[str]:
    """The sender's files of private/ that no longer hold its items still sealed as sealed, or
    are gone, as `pbem orders` and `pbem status --key` say them: a packet whose orders reveal
    such an item goes without its opening, which waits, and the game stops there until the
    file is restored (a damaged-file probe: the packet went, said only that its orders waited
    for the openings, and the next one was refused)."""
    from pbem.core import sealing

    return sealing.unopenable(folder, side) if folder is not None and g.secure else []


def after_end(g: engine.Game, before: dict, side: str, orders: list, first: int) -> list[str]:
    """Orders written below the `end` that closes the phase the packet begins in, of a type that
    phase takes: they are played in the phases after it, where the same type may be another
    thing (a players' probe: chir attacks below the template's `end` of the concentrated attack
    phase were made as manoeuvre attacks in the movement phase, unsaid)."""
    need = g.next_step(before["rules"])
    if need is None or need.side != side or need.decision or before["awaiting"]["waiting_for"] != "orders":
        return []
    ends = [n for n, order in enumerate(orders) if isinstance(order, dict) and order.get("type") == "end"]
    if not ends:
        return []
    below = [n for n, order in enumerate(orders[ends[0] + 1:], ends[0] + 1)
             if isinstance(order, dict) and order.get("type") in need.accepts and order.get("type") != "end"]
    if not below:
        return []
    one = len(below) == 1
    named = numbers([{"seq": before["seq"] + 1, "index": n + first} for n in below])
    return [f"{named} {'comes' if one else 'come'} below order {ends[0] + first} (end), which closes "
            f"{need.prompt.split(':')[0].rstrip('.')}: {'it is' if one else 'they are'} played in the phases after it, "
            f"not in this one; this phase's orders go above the `end`"]


def others_folder(g: engine.Game, folder: game.Folder | None, side: str, seq: int) -> list[str]:
    """A seal made in a folder whose private/ keeps another side's sealed orders: most likely
    the opponent's folder, or a copy of it (a players' probe: red's chits went into blue's
    private/, and red's own folder never had them, so red could not open them from it)."""
    from pbem.core import sealing

    if folder is None or not g.secure:
        return []
    theirs = sorted(sealing.kept_sides(folder) - {side})
    if not theirs:
        return []
    return [f"this folder's private/ keeps {' and '.join(theirs)}'s sealed orders: if it is not your own game folder, "
            f"copy {sealing.PRIVATE}/seal-{seq:04d}-{side}.yaml into yours, where `pbem submit` "
            f"opens your sealed orders from when the rules reveal them"]


def repeats(after: dict, side: str, orders: list, first: int = 1) -> list[str]:
    """Orders of this packet that repeat one of the side's own queued from an earlier packet,
    both still queued after it, so both to be applied (players' probe: an attack and an `end`
    queued three packets back were written again, which would have attacked twice and ended
    a phase unplayed). Not where the packet applied or dropped either (a referee's probe:
    "both will be applied" under a report that dropped both). `first`: the index in the packet
    of its first order (the items it opens come before)."""
    # (an answer written again to its decision replaces the queued one: never applied twice)
    k = after["seq"]
    queued = [item for item in after["queue"] if item["side"] == side and "decision" not in item["order"]]
    earlier = [item for item in queued if item["seq"] < k]
    mine = {item["index"] for item in queued if item["seq"] == k}
    found = []
    for number, order in enumerate(orders, 1):
        same = next((item for item in earlier if item["order"] == order), None)
        if same is not None and first + number - 1 in mine:
            found.append(f"order {number} ({engine.order_text(order)}) repeats order {same['index']} of your packet "
                         f"{same['seq']}, still queued: both will be applied as the game reaches them (`pbem status` "
                         f"lists your queued orders); leave this one out unless you mean it twice")
    return found


def answered_twice(orders: list, first: int = 1) -> list[str]:
    """Answers of this packet to one decision: the later replaces the earlier (DESIGN §4.3), so
    only the last is ever used (a players' probe: two answers to one defensive fire, and the
    report spoke of one alone). `first`: the index in the packet of its first order."""
    named: dict[str, list[int]] = {}
    for number, order in enumerate(orders, first):
        key = order.get("decision") if isinstance(order, dict) else None
        if isinstance(key, str):
            named.setdefault(key, []).append(number)
    return [f"orders {', '.join(map(str, indexes[:-1]))} and {indexes[-1]} {'both' if len(indexes) == 2 else 'all'} "
            f"answer decision {key}: a later "
            f"answer to a decision replaces an earlier one, so only order {indexes[-1]} is used"
            for key, indexes in named.items() if len(indexes) > 1]


def dropped(after: dict, events: list[dict], side: str, orders: list, first: int = 1) -> list[str]:
    """Orders of this packet dropped unapplied because an order of an earlier packet turned
    void under the standing order on_void: stop (a referee's probe: the corrections of a
    packet went with the order they corrected, and nothing said why)."""
    k = after["seq"]
    done = {(e["seq"], e["index"]) for e in events if e["type"] in ("order", "void") and e.get("side") == side}
    done |= {(item["seq"], item["index"]) for item in after["queue"] if item["side"] == side}
    gone = [{"seq": k, "index": n} for n in range(first, first + len(orders)) if (k, n) not in done]
    cause = next((e for e in events if e["type"] == "void" and e["side"] == side and e["seq"] != k
                  and e["dropped"] > 1), None)
    if not gone or cause is None:
        return []
    # the packet's numbers, as the report gives them, and the file's where the items it opens come first
    in_file = numbers([{"seq": k, "index": item["index"] - first + 1} for item in gone]).removesuffix(f" of packet {k}")
    files = f" (your file's {in_file})" if first > 1 else ""
    return [f"{numbers(gone)}{files} {'is' if len(gone) == 1 else 'are'} dropped unapplied with the void order "
            f"{cause['index']} of your packet {cause['seq']} (standing order on_void: stop); under `policies: "
            f"{{on_void: skip}}`, given in this packet, a void order drops only itself, and your other orders "
            f"queued before these apply first"]


def still_queued(state: dict, side: str, seq: int) -> list[dict]:
    """The items of `side`'s packet `seq` still in the state's queue, in order."""
    return [item for item in state["queue"] if item["side"] == side and item["seq"] == seq]


def not_yours(g: engine.Game, side: str, policies: dict | None) -> list[str]:
    """Standing orders set for another side's decisions: legal, kept, and never used."""
    return [f"policies: {key} answers only {' and '.join(g.ruleset.policy_sides[key])}'s decisions, so setting it "
            f"for {side} changes nothing"
            for key in sorted(policies or {}) if not engine.policy_of_side(g.ruleset, key, side)]


def script_used_up(after: dict) -> list[str]:
    """A sandbox game whose dice script is used up waits for a packet with more dice: the
    report of a packet without them speaks of the next reveal, which a sandbox game has not."""
    if after["mode"] != "sandbox" or after["awaiting"]["waiting_for"] != "dice" or "script" not in after["dice"]:
        return []
    sender = after["awaiting"]["packet_from"]
    said, rolled_after = engine.script_words(after["dice"])
    return [f"the game's dice script {said}, and the game waits for more: send a packet with "
            f"`{engine.more_dice(sender)}` (the dice rolled at your table{rolled_after})"]


def unawaited(g: Any, before: dict, side: str, orders: list) -> list[str]:
    """A sandbox game takes a packet from any side (a secure game refuses it): say so when it
    brings orders and the game waited for another side, as a mistyped --side would otherwise
    pass unseen."""
    awaited = before["awaiting"]["packet_from"]
    if g.secure or awaited in (None, side) or not orders:
        return []
    return [f"the game waited for a packet from {awaited}, not {side}: {side}'s orders wait in the queue until the "
            f"game reaches them (a sandbox game takes packets from any side)"]


def misnamed(after: dict, side: str) -> list[str]:
    """Answers of this packet still queued, named for another decision than the one of the
    side's that the game now waits for, though they are of a type it takes: most likely meant
    for it (a players' probe: "5.1/result" for 5.1/defender-result was accepted, answered
    nothing, and the decision cost a round trip). A decision so named may still come later."""
    awaited = engine.awaited_decision(after, side)
    return [f"order {item['index']} ({engine.order_text(item['order'])}) answers decision {item['decision']}, but the "
            f"game now waits for your decision {awaited}, which no order of yours answers: if you meant it, name it "
            f"`decision: \"{awaited}\"` (an answer to a decision that never comes is never applied)"
            for item in still_queued(after, side, after["seq"]) if _meant_for_awaited(after, side, item)]


def _meant_for_awaited(after: dict, side: str, item: dict) -> bool:
    """Whether a queued answer names another decision than the side's one the game waits for,
    though it is of a type that decision takes."""
    awaited = engine.awaited_decision(after, side)
    return (awaited is not None and item.get("decision") not in (None, awaited)
            and item["order"].get("type") in (after["awaiting"]["need"].get("accepts") or ()))


def kept(after: dict, side: str, sealed_steps: bool = False) -> list[str]:
    """Orders of this packet that the game has not reached wait in the queue and apply, in
    order, as the game next asks this side for orders, or for a decision the first of them
    answers (an unnamed answer is taken by the side's next decision of its type, docs/protocol.md
    §7.2: a players' probe read "as the game next asks german for orders" and found its `fire`
    taken by a defensive fire), however late: say so where they do not
    wait for dice alone (a player who wrote next turn's orders into this packet would
    otherwise learn it when they went off), and that they never apply once the game is over.
    `sealed_steps`: a secure game whose rules ask for sealed orders, where the step such an
    order meets may be one of them, at which the engine voids it (§8; a players' probe found a
    stray `end` giving next turn's order chits away in the open, which it did then)."""
    queued = still_queued(after, side, after["seq"])
    awaiting = after["awaiting"]
    if not queued or awaiting["waiting_for"] == "dice":
        return []
    if awaiting["need"] is None:
        one = len(queued) == 1
        return [f"the game is over: {numbers(queued)} {'is' if one else 'are'} never applied"]
    # an answer named for a decision waits for that decision, not for the side's next orders
    # (`misnamed` speaks of one that looks meant for the decision awaited)
    named = [item for item in queued if "decision" in item and not _meant_for_awaited(after, side, item)]
    said = [f"order {item['index']} answers decision {item['decision']}: it waits in the queue for that decision, "
            f"and applies when it comes (never, if it does not)" for item in named]
    mine = [item for item in queued if "decision" not in item]
    if not mine:
        return said
    one = len(mine) == 1
    need = awaiting["need"]
    now = "your" if need["side"] == side else f"{need['side']}'s"
    return said + [f"{numbers(mine)} {'waits' if one else 'wait'} in the queue: the game now waits for {now} "
            f"{awaiting['waiting_for']} ({need['prompt'].rstrip('.')}), and {'it applies' if one else 'they apply, in order,'} "
            f"as the game next asks {side} for orders, or for a decision {'it' if one else 'the first of them'} "
            f"answers, however late that is (an order it cannot take then is void); "
            f"your opponent reads {'it' if one else 'them'} in the packet"
            + "".join(f"; order {item['index']} (end) ends the step it then meets, whichever that is"
                      for item in mine if item["order"].get("type") == "end")   # kkoh probe: a step auto-ended
            + (f"; if that step is one the rules ask you to seal, {'it is' if one else 'they are'} void there (an open "
               f"order queued before never answers a sealed step, docs/protocol.md §8): orders meant for a sealed "
               f"step go in its own packet, with --seal" if sealed_steps else "")]


def idle(before: dict, after: dict, side: str, gave: Any) -> list[str]:
    """A packet without orders from a side the game waits orders from is legal (it reveals the
    next dice value), but costs a round trip: say so when the game still waits for that side."""
    waited, now = before["awaiting"], after["awaiting"]
    asked = ("orders", "sealed orders", "decision")
    if not gave and waited["waiting_for"] == "dice" and now["waiting_for"] in asked \
            and (now["need"] or {}).get("side") == side and before["mode"] != "sandbox":
        # its own reveal brought the game to its own step, which this packet could have taken
        # (`pbem orders --key` lists it: players' probe, a withdrawal answered a round trip late)
        what = f"decision {now['decision']}" if now["waiting_for"] == "decision" else now["waiting_for"]
        return [f"this packet gives no orders, and its reveal brings the game to your own {what} "
                f"({now['need']['prompt'].rstrip('.')}): your next packet gives "
                f"{'it' if what.startswith('decision') else 'them'}, "
                f"after your opponent's, a round trip later (`pbem orders --key` lists what this one could give)"]
    if gave or waited["waiting_for"] not in asked or (waited["need"] or {}).get("side") != side:
        return []
    if (now["waiting_for"], now["need"], now.get("decision")) != (waited["waiting_for"], waited["need"],
                                                                  waited.get("decision")):
        return []   # the packet moved the game on (a standing order answered, a phase ended)
    return [f"this packet gives no orders, and the game waited for {side}'s {waited['waiting_for']}; it only reveals "
            f"your next dice value, and the game still waits for {now['waiting_for']} from you"]


def left_open(after: dict, side: str, gave: Any) -> list[str]:
    """The packet's last order took the game to another step of this side's (an `end` of one
    phase, and the next phase is this side's too), which it could have given orders for in
    this same packet: as it stands, the opponent's packet, with nothing to decide, comes first
    (players' probe: one `end` per phase of a dos player-turn cost a round trip each)."""
    now = after["awaiting"]
    need = now["need"] or {}
    if after["mode"] == "sandbox" or not gave or now["packet_from"] == side or need.get("side") != side \
            or now["waiting_for"] not in ("orders", "decision") \
            or still_queued(after, side, after["seq"]):   # `kept` speaks of orders still queued
        # (sealed orders go in a packet of their own: that round trip is the rules')
        return []
    decision = now["waiting_for"] == "decision"
    what = f"your decision {now['decision']}" if decision else f"your own {now['waiting_for']}"
    them = "its answer" if decision else "them"
    return [f"this packet stops where the game asks for {what} ({need['prompt'].rstrip('.')}): your opponent "
            f"must send a packet with nothing to decide before you can give {them}, a round trip; add {them} to "
            f"this packet after its last order to save it (orders apply as the game reaches them)"]


def arrange(g: engine.Game, state: dict, side: str, key: Any, sent: str, extra: dict, policies: dict | None,
            orders: list, source: str) -> list:
    """The items to seal for `orders`, as the ruleset arranges them at the sealed need this
    packet meets (after what is queued resolves and its openings take effect)."""
    if g.ruleset.seal_items is None:
        return orders
    from pbem.rulesets.base import IllegalOrder

    need, rules = _need_met(g, state, side, key, sent, extra, policies, source)
    if need is None or not need.sealed or need.side != side:
        return orders   # refused when applied: the rules ask for no sealed orders (or the packet says what is wrong)
    try:
        return g.seal_items(rules, need, orders)
    except IllegalOrder as exc:
        raise RulesError(f"{source}: the orders cannot be sealed: {with_rule(exc.message, exc.rule)}; nothing was sealed or "
                         f"signed") from None


def _need_met(g: engine.Game, state: dict, side: str, key: Any, sent: str, extra: dict, policies: dict | None,
              source: str) -> tuple[Any, dict | None]:
    """(the step this packet's orders meet, the rules then): where the game is once what is
    queued resolves with its dice and its openings take effect (an empty packet like it,
    applied in memory); (None, None) if such a packet is refused (the real one will say why)."""
    probe = game.build_packet(g, state, side, [], policies, key, sent, extra)
    try:
        after, _ = engine.apply_packet(g, state, probe, source, verify=False, lookahead=True)
    except (RulesError, VerificationError):
        return None, None
    return g.next_step(after["rules"]), after["rules"]


IMAGINED = 4    # the look-ahead's imagined rolls where the first makes an order void
NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four"}


def foresee(g: engine.Game, state: dict, side: str, folder: game.Folder | None = None) -> list[str]:
    """Orders of this packet that wait for dice are checked only when their turn comes
    (§4.4). Play them through with imagined dice, as a sandbox would, and warn of any that
    would then be void, such as a unit ordered to fire twice. A warning, not an error: the
    real dice may differ. Where the first roll voids an order, played again, up to `IMAGINED`
    rolls in all while an order is void with every one so far: an order void with all of them
    most likely is whatever the dice, else the words say with how many (players' probe: "one
    imagined roll" read as bad luck). Where the
    game then waits for the sender's own sealed items, its next packet opens them from its
    `folder` and the look ahead goes on to the orders behind them (players' probe: a move
    against the group's own chit, HD, was foreseen void only when the chit was open)."""
    if not still_queued(state, side, state["seq"]):
        return []
    other = next((s for s in g.sides if s != side), side)

    def stand_in(before: dict, sender: str, opens: list[dict]) -> dict:
        return {"pbem": 2, "game": g.game_id, "seq": before["seq"] + 1, "prev": before["state_hash"], "side": sender,
                "orders": [], **({"opens": opens} if opens else {})}

    def voids(seed: str, start: dict = state) -> tuple[dict[int, str], dict, list[dict]] | None:
        imagined = g._replace(genesis={**g.genesis, "mode": "sandbox", "sandbox": {"seed": seed}})
        try:
            after, events = engine.apply_packet(imagined, start, stand_in(start, other, []), "(foresee)", verify=False,
                                                lookahead=True)
        except Exception:  # a look ahead must never stop a packet that is already written
            return None
        try:   # the sender's next packet opens what the game waits for: its own items, from its folder
            opens = own_openings(folder, after, side)
            if opens:
                after, more = engine.apply_packet(imagined, after, stand_in(after, side, opens), "(foresee)",
                                                  verify=False, lookahead=True)
                events = events + more
        except Exception:
            pass   # no further than the openings, as without the folder
        return {e["index"]: e["text"] for e in events
                if e["type"] == "void" and e["side"] == side and e["seq"] == state["seq"]}, after, events

    looked = voids("foresee")
    if looked is None:
        return []
    first, after, events = looked
    # a void no die comes before is the rules' alone: said so, not as a likelihood of imagined
    # rolls (a players' probe: a kkoh move against its own chit, HA in Action Phase 1, was "most
    # likely void whatever the dice", where no die is rolled)
    certain: set[int] = set()
    rolled = False
    for e in events:
        rolled = rolled or e["type"] == "roll"
        if not rolled and e["type"] == "void" and e["side"] == side and e["seq"] == state["seq"]:
            certain.add(e["index"])
    # more rolls only where the first voids an order, up to four in all while some order is void
    # with every roll so far, so that "most likely whatever the dice" is said only of an order
    # all four void (a players' probe: two rolls, each with a 6 that made a unit give ground,
    # called an assault "most likely void"; it was legal)
    # An imagined roll that stops before an order (at a decision, say) neither voids it nor
    # leaves it legal: each order is counted over the rolls that came to it, those that took or
    # voided it (a players' probe: an air unit that had moved, void by rule 14.12 whatever the
    # dice, was "void with 3 of four imagined rolls", the fourth stopped at the sender's own
    # retreat decision before it); one dropped with an earlier void order (`on_void: stop`) was
    # not come to either (a review). An imagined play that fails is no roll at all.
    def reach(run_after: dict, run_events: list[dict]) -> tuple[set[int], str]:
        return ({e["index"] for e in run_events if e["type"] in ("order", "void") and e.get("side") == side
                 and e.get("seq") == state["seq"]}, stopped_at(run_after))

    runs, reached, tried = [first], [reach(after, events)], 1
    dicey = set(first) - certain
    while dicey and tried < IMAGINED and (len(runs) < 2 or any(
            all(i in r for r, (got, _) in zip(runs, reached) if i in got) for i in dicey)):
        tried += 1
        run = voids(f"foresee-{tried}")
        if run is not None:
            runs.append(run[0])
            reached.append(reach(run[1], run[2]))
    # what the rules do once the dice come, as they do at once (players' probe: a move over the
    # stacking limit behind an attack was foreseen silently, its unit removed when it took effect)
    # (of what the imagined play did: the orders still queued, and the position as it stands, are
    # spoken of by the real warnings)
    now = set(g.cautions(state, [], side, []))
    later = [f"{IMAGINED_WORDS}{caution}" for caution in g.cautions(after, events, side, []) if caution not in now]
    unreached = unlooked(g, after, side, state["seq"], any(e["type"] == "roll" for e in events))
    return (void_words(runs, certain, reached) if first else []) + later + unreached + (
        _past_their_ask(g, state, after, side, other, voids) if unreached else [])


def _past_their_ask(g: engine.Game, state: dict, after: dict, side: str, other: str, voids: Any) -> list[str]:
    """Where the look ahead stops at the opponent's decision that its standing order leaves to it
    (`ask`), the orders it did not reach, looked at once more with that decision answered as
    pbem's default standing order for it would (that one standing order alone): those then void,
    each said with the answer imagined, and with the imagined roll where a die came before it (a
    players' probe: a second attack on an area, void whatever came, went out behind the
    opponent's `retreat_tie: ask`, and dropped the rest of the turn)."""
    need = engine.awaited_need(after)
    if after["awaiting"]["waiting_for"] != "decision" or need is None or need.side != other:
        return []
    unreached = {item["index"] for item in still_queued(after, side, state["seq"])}
    values = engine.effective_policies(g.ruleset, after, other)
    defaults = g.ruleset.default_policies
    # the standing order that answers this decision: the one whose default gives an answer to it
    answering = [key for key in sorted(values) if values[key] == "ask" and defaults.get(key, "ask") != "ask"
                 and engine.policy_of_side(g.ruleset, key, other)
                 and g.policy(after["rules"], need, {**values, key: defaults[key]}) is not None]
    if not answering:
        return []
    key = answering[0]
    start = copy.deepcopy(state)
    start["policies"][other]["values"][key] = defaults[key]
    looked = voids("foresee", start)
    if looked is None:
        return []
    found, _, events = looked
    rolled, certain = False, set()
    for e in events:
        rolled = rolled or e["type"] == "roll"
        if not rolled and e["type"] == "void" and e["side"] == side and e["seq"] == state["seq"]:
            certain.add(e["index"])
    return [f"were {other} to answer its decision {after['awaiting']['decision']} as its default standing order "
            f"({key}: {defaults[key]}) would, " + ("" if index in certain else "with one imagined roll of the dice, ")
            + text for index, text in found.items() if index in unreached]


IMAGINED_WORDS = "once the dice come (imagined here): "


def _tried(g: engine.Game, state: dict, side: str, key: Any, sent: str, extra: dict, policies: dict | None,
           orders: list, source: str) -> list[dict] | None:
    """The events of the packet as it stands, applied in memory, or None where it is refused
    (the real application says why)."""
    probe = game.build_packet(g, state, side, orders, policies, key, sent, extra)
    try:
        return engine.apply_packet(g, state, probe, source, verify=False, lookahead=True)[1]
    except (RulesError, VerificationError):
        return None


def _opens_revealed(g: engine.Game, state: dict, side: str, key: Any, sent: str, extra: dict, policies: dict | None,
                    orders: list, source: str, folder: game.Folder) -> tuple[dict, list[dict] | None]:
    """`extra` with the `opens` of the items this packet's own orders reveal, after those due
    now (§8): where the packet, applied in memory, leaves the game waiting for the sender's
    sealed items of an earlier packet, their openings from `folder` join the packet, which
    is tried again, until it stops elsewhere; and the events of its last try (`_tried`). A
    players' probe: each kkoh `show`, and each fire plan that reveals a chit, took a packet of
    the opponent's with nothing in it and one of the sender's that only opened the chits,
    before the orders behind them went on."""
    seq = state["seq"] + 1
    for _ in range(engine.MAX_QUEUED_PER_SIDE):   # each round opens an item at least
        # tried without its seal, which the game takes after the openings before it (§8): with
        # it, the packet is refused where its own reveal brings the game to the items it opens and
        # only then to the sealed step (a cheater's review: the seal was refused, "the rules ask
        # for no sealed orders now", and the items were never added)
        bare = {name: value for name, value in extra.items() if name != "sealed"}
        probe = game.build_packet(g, state, side, orders, policies, key, sent, bare)
        try:
            after, events = engine.apply_packet(g, state, probe, source, verify=False, lookahead=True)
        except (RulesError, VerificationError):
            return extra, None   # the packet as it stands is refused, and the real application says why
        awaiting = after["awaiting"]
        if (awaiting["waiting_for"], (awaiting["need"] or {}).get("side")) != ("openings", side):
            break
        asked = {item["id"] for item in after["sealed"].get(side, {}).get("items", []) if item["reveal"] == "asked"}
        queued = {q.get("opened") for q in after["queue"] if q["side"] == side}
        revealed = [name for name in awaiting["need"]["opens"] if name not in queued]
        if not revealed or any(name not in asked or int(name.split(".")[0]) >= seq for name in revealed):
            break   # an item of this very packet's seal is kept only once it is signed
        try:
            opens = sealing.opening(folder, side, revealed)
        except (FileError, VerificationError):
            break   # not kept here as sealed: due in the next packet, where submit says what is wrong
        extra = dict(extra, opens=extra.get("opens", []) + opens)
    else:
        return extra, None
    # the events of the packet whole, its seal too
    return extra, events if len(bare) == len(extra) else _tried(g, state, side, key, sent, extra, policies, orders,
                                                                 source)


def _no_open_answer_to_a_sealed_step(state: dict, side: str, events: list[dict], source: str) -> None:
    """Refuse orders of the packet (its `events`, applied in memory) that would answer a
    sealed step of the sender's openly, a step its own orders bring it to: past a `show` whose
    chits the packet opens, say (a cheater's reading of those openings: the check above saw
    only the step the packet meets first), without `--no-seal`, for they would be open to the
    opponent for good."""
    seq = state["seq"] + 1
    open_ones = [e for e in events if e["type"] == "order" and e.get("open_at_sealed") and e["seq"] == seq
                 and e["side"] == side]
    if open_ones:
        first = open_ones[0]
        number = first["index"] - len(state["sealed"].get(side, {}).get("due", []))   # in the file: openings first
        raise UsageError(f"{source}: order {number} ({engine.order_text(first['order'])}) answers your own "
                         f"sealed orders, which the packet's orders come to, and it is not sealed: send those orders "
                         f"in a packet of their own with `pbem submit --seal`; to send them open, for your opponent "
                         f"to read, give --no-seal (nothing was signed or sent)")


def own_openings(folder: game.Folder | None, after: dict, side: str) -> list[dict]:
    """The `opens` of `side`'s next packet where the game waits for its openings: the items
    due, as `pbem submit` opens them from what `side` kept in its folder (none without one)."""
    awaiting = after["awaiting"]
    due = after["sealed"].get(side, {}).get("due", [])
    waits = (awaiting["waiting_for"], (awaiting["need"] or {}).get("side"))
    if folder is None or not due or waits != ("openings", side):
        return []
    return sealing.opening(folder, side, due)


def unlooked(g: engine.Game, after: dict, side: str, seq: int, rolled: bool = True) -> list[str]:
    """Orders of the packet the look-ahead did not reach: the game stops first for a decision
    no standing order answers, another side's or the sender's own, which that side's next
    packet gives. Say so, or the dry run's silence reads as "checked" (players' probe: an order
    behind an attack was void, and the rest of the turn dropped with it)."""
    left = [item["index"] for item in still_queued(after, side, seq)]
    awaiting = after["awaiting"]
    need = awaiting["need"]
    if not left or awaiting["waiting_for"] != "decision":
        return []    # orders for a later phase: `kept` says where they wait
    one = len(left) == 1
    orders = f"order {left[0]}" if one else f"orders {left[0]} to {left[-1]}"
    # the sender's own decision too (a players' probe: a move queued behind a defensive fire
    # waited behind the sender's morale test, and the dry run said nothing of it)
    whose = ("your decision", "your next packet gives") if need["side"] == side else (
        f"{need['side']}'s decision", f"{need['side']}'s next packet gives (no standing order of {need['side']}'s "
        f"answers it)")
    # "after the dice" only where the look-ahead rolled some (a players' probe: it read so with none),
    # and said to be imagined: what it decided may not come (a players' probe: "(A2: ...)" read as certain)
    dice = "after the dice (imagined here), " if rolled else ""
    return [f"the look-ahead could not reach {orders} of this packet: {dice}the game "
            f"waits for {whose[0]} {awaiting['decision']} ({need['prompt']}), which {whose[1]}; {'it is' if one else 'they are'} "
            f"checked only when the game reaches {'it' if one else 'them'}"
            + (", and a void order drops those after it (your on_void: stop)"
               if engine.effective_policies(g.ruleset, after, side).get("on_void") == "stop" else "")]


def void_words(runs: list[dict[int, str]], certain: set[int] = frozenset(),
               reached: list[tuple[set[int], str]] | None = None) -> list[str]:
    """The warnings of the orders the look-aheads (imagined rolls, the first first) found void
    (order number -> the void's words, as the first roll has them): void with every one of
    `IMAGINED` rolls, most likely whatever the dice; else with how many of those imagined.
    `certain`: those the first found void before any die was rolled, void whatever the dice.
    `reached`: for each roll, the orders it came to (took or voided) and where it stopped
    (`stopped_at`); an order is counted over the rolls that came to it (without `reached`,
    every roll did)."""
    first, count = runs[0], len(runs)
    said = []
    for index, text in first.items():
        if index in certain:
            said.append(f"{text} It is void whatever the dice: no die is rolled before it.")
            continue
        hits = sum(1 for run in runs if index in run)
        came = [n for n in range(count) if reached is None or index in reached[n][0]]
        if len(came) == count:
            said.append(f"with {NUMBERS[count]} different imagined rolls of the dice, {text} It would most likely be "
                        f"void whatever the dice." if hits == count == IMAGINED else
                        f"with {hits} of {NUMBERS[count]} imagined rolls of the dice, {text}")
            continue
        where = sorted({_stopped_before(runs[n], reached[n][1], index) for n in range(count) if n not in came} - {""})
        short = count - len(came)
        others = "the other" if short == 1 else f"the other {NUMBERS[short]}"
        some = ("the one imagined roll" if len(came) == 1 else
                f"{'each' if hits == len(came) else hits} of the {NUMBERS[len(came)]} imagined rolls")
        said.append(f"with {some} of the dice that came to it (of {NUMBERS[count]}: {others} stopped before it"
                    f"{', ' + ' or '.join(where) if where else ''}), {text}")
    return said


def _stopped_before(voided: dict[int, str], stop: str, index: int) -> str:
    """Where a roll that did not come to order `index` stopped, in words: at an earlier order of
    the packet it voided (the standing order on_void: stop drops those after it), else where the
    game waited (`stop`, from `stopped_at`)."""
    earlier = [v for v in voided if v < index]
    if earlier:
        return f"where order {min(earlier)} of this packet was void and the orders after it were dropped"
    return stop


def stopped_at(after: dict) -> str:
    """Where an imagined play stopped, in words for a warning: "at axis's decision 5.3/retreat"."""
    awaiting = after["awaiting"]
    need = awaiting["need"]
    if need is None:
        return "at the end of the game"
    if awaiting["waiting_for"] == "decision":
        return f"at {need['side']}'s decision {awaiting['decision']}"
    return f"where the game waits for {need['side']}'s {awaiting['waiting_for']}"
