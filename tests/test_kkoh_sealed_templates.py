"""kkoh's sealed order chits as a player meets them (a new players' probe): the move refused
for a sealed chit offers the `show` of that group alone; `pbem orders` lists, from the
player's own seal file, what each sealed group may do once shown; `pbem show --unit` says a
chit sealed anew is sealed, not the chit it had. Each test fails on the code before the fix."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from pbem import rulesets
from pbem.cli import cli
from pbem.core import engine, game, sealing
from pbem.core.errors import RulesError, VerificationError
from tests.support.games import Match
from tests.test_kkoh_cases import scenario_doc
from tests.test_kkoh_sealed import drive_to, step

SEED = "show-each-99"  # the dice of these games: red loses the initiative of turn 2, R1's test die is 4
# keys whose dice make red's test die wait for dice and turn 1 end in blue's next packet (the dice hang
# on the game id, and so on the version): test_an_open_answer_waiting_for_dice_goes_on_in_its_own_step_only
LEAK_SEED = "leak-6"
MOVE_B1 = {"type": "move", "units": ["B1"], "to": "0101", "facing": "E"}


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def two_groups_each(tmp_path, chain_length: int = 256) -> Match:
    """Two lone tanks a side, far apart, every chit sealed at deployment (kept); blue has the
    initiative."""
    doc = scenario_doc({"columns": 6, "rows": 6, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "M"},
        {"id": "B2", "side": "blue", "row": "tank-1", "square": "0301", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0505", "cell": "21", "facing": "S", "order": "HA"},
        {"id": "R2", "side": "red", "row": "tr1-tank", "square": "0305", "cell": "21", "facing": "S", "order": "HA"}]})
    return Match(tmp_path, "kkoh", chain_length=chain_length, key_seed=SEED, scenario_doc=doc)


def blue_moves(tmp_path) -> Match:
    """`two_groups_each` at blue's first movement step, Action Phase 1 of turn 1."""
    match = two_groups_each(tmp_path)
    n = drive_to(match, "move")
    assert (n.side, match.state()["rules"]["ap"]) == ("blue", 1)
    return match


def show(match: Match, side: str, *args: str) -> list[str]:
    """`pbem show` in `side`'s own folder (its private/ keeps what it sealed)."""
    result = CliRunner().invoke(cli, ["show", str(match.folders[side].path), *args])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_a_move_refused_for_a_sealed_chit_offers_the_show_of_its_group_alone(tmp_path):
    """The refusal offered one `show` of every sealed group of the side (B1 and B2), and a chit
    shown is seen by the opponent: it offers B1's alone, which lets the move go ahead. A queued
    move voided for the same reason keeps its report's words (bound to the ruleset's version)."""
    match = blue_moves(tmp_path)
    with pytest.raises(RulesError) as refused:
        match.send("blue", [MOVE_B1])
    assert refused.value.message == (
        "orders: order 1 (move facing=E to=0101 units=B1) is illegal: move: the order chit of B1 is sealed: show it "
        "first (a `show` order; pbem checks every move against the chit, K-ORD-5, K-MOV-4, K-ORD-8) (K-ORD-6).\n"
        "Legal now: show units=B1")
    match.send("blue", [{"type": "end"}, MOVE_B1])          # the move waits for blue's next movement step
    voids = []
    for _ in range(8):
        voids = [e["text"] for e in step(match).events if e["type"] == "void"]
        if voids:
            break
    assert voids == ["blue order 2 of packet 7 (move facing=E to=0101 units=B1) is void: move: the order chit of B1 "
                     "is sealed: show it first (a `show` order; pbem checks every move against the chit, K-ORD-5, "
                     "K-MOV-4, K-ORD-8) (K-ORD-6); legal then: show units=B1,B2."]


def test_show_says_a_chit_sealed_anew_is_sealed_and_tells_its_owner_which(tmp_path):
    """Red, without the initiative, seals its turn-2 chits first (R1 to M). Until Issuing Orders
    tests them the state keeps the chits each group carried, and `pbem show --unit R1` gave
    HA as its chit, in both folders. Now it is sealed (the board says ?); red's own folder,
    whose private/ keeps the seal, says which chit red sealed, and once tested what the opening
    will give (its owner reads the die sealed with it at the test, by the item's salt)."""
    match = two_groups_each(tmp_path, chain_length=512)
    assert drive_to(match, "orders", turn=2).side == "red"
    assert match.state()["rules"]["pieces"]["R1"]["o"] == "HA"
    seq = match.send("red", [{"type": "chit", "units": ["R1"], "order": "M"}, {"type": "end"}],
                     seal=True).state["seq"]
    chit = (f"Order chit sealed (K-ORD-6): red sealed new chits in packet {seq}, each tested when Issuing Orders ends "
            f"(K-ORD-3); it carried HA before them; 2 of 2 strength points.")
    assert show(match, "blue", "--unit", "R1")[3:5] == [chit, "Not in a battle group: it acts alone (K-GM-4)."]
    assert show(match, "red", "--unit", "R1")[3:5] == [
        chit, f"red sealed M for it (item {seq}.1, kept in private/: for red's eyes only)."]
    assert "  0505 open: R1[21S ?]; HQ R-HQ" in show(match, "blue")
    # and the picture: R1's counter reads ?, not the HA it carried (`pbem render`, `pbem replay`)
    from pbem.rulesets.kkoh import draw

    counters = {c["unit"]: c["values"] for item in draw.draw(match.game.scenario, match.state()["rules"], [])["items"]
                if item["type"] == "stack" for c in item["counters"]}
    assert (counters["R1"], counters["B1"]) == ("?", "M")
    assert show(match, "blue", "--unit", "B1")[3] == "Order chit M; 2 of 2 strength points."   # blue has sealed nothing
    # a change given openly is public, and said beside the chit until it is tested
    match.send("blue", [{"type": "chit", "units": ["B1"], "order": "HA"}, {"type": "end"}], seal=False)
    assert show(match, "red", "--unit", "B1")[3] == ("Order chit M; a change to HA given openly, tested when Issuing "
                                                     "Orders ends (K-ORD-3); 2 of 2 strength points.")
    step(match)                                                   # the tests roll
    entry = dict(match.state()["rules"]["hidden"]["red"][0])
    draw = entry.pop("draw")                                      # the test die, sealed with the item (K-ORD-4)
    assert entry == {"units": ["R1"], "item": f"{seq}.1", "was": "HA", "mods": {"majority_inferior": -1}}
    from pbem.core import dice, sealing

    assert dice.sealed_die(draw, sealing.own_items(match.folders["red"], "red")[f"{seq}.1"]["salt"]) == 4
    assert show(match, "blue", "--unit", "R1")[3:5] == [
        "Order chit sealed (K-ORD-6); 2 of 2 strength points.", "Not in a battle group: it acts alone (K-GM-4)."]
    assert show(match, "red", "--unit", "R1")[3:5] == [
        "Order chit sealed (K-ORD-6); 2 of 2 strength points.",
        f"red sealed M for it (item {seq}.1, kept in private/: for red's eyes only); when the rules reveal it: R1: "
        "die 4, majority inferior -1 = 3: changes HA to M (3 or more needed, K-ORD-3)."]


def sealed_block(match: Match, side: str, only: str | None = None) -> list[str]:
    """The lines of `pbem orders` (as `pbem orders --key` writes them, with the side's private/)
    on what its sealed groups may do once shown."""
    from pbem.core import sealing, templates

    own = sealing.own_items(match.folders[side], side)
    text = templates.orders_template(match.game, match.state(side), side, None, only, own).splitlines()
    start = next((n for n, line in enumerate(text) if line.startswith("# Your groups whose chit is sealed")), None)
    return [] if start is None else text[start:text.index("# Your opponent reads this packet whole: its orders, "
                                                          "queued ones too, and its policies.")]


NOTE = ["# Your groups whose chit is sealed are shown before they move (pbem checks each move against the",
        "# chit, K-ORD-5, K-MOV-4, K-ORD-6): a group's `show` and then its orders go in this packet, which",
        "# opens the chit too (`pbem submit` does, from private/), and they are checked against it there.",
        "# By the chits you sealed (private/, for your eyes only), what each may do in this Action Phase",
        "# once shown:"]


def test_the_template_lists_what_a_sealed_group_may_do_once_shown_and_it_does(tmp_path):
    """Blue's two tanks carry sealed chits (M, kept at deployment). The move step's template
    listed a `show` of each and `end`, and their moves were written blind. The rules forbid no
    move of a unit whose chit is hidden (K-ORD-6 reveals chits only in a Close Assault or Direct
    Fire); pbem asks for a `show` first, to check the move against the chit (K-ORD-5, K-MOV-4),
    and a `show` and the moves may go in one packet: from blue's seal file the template lists
    each group's `show` and then its moves on the chit it sealed. Sent as listed, the packet
    opens the chit and the move is made in it."""
    match = blue_moves(tmp_path)
    moves_b1 = [f"#   - {{type: move, units: [\"B1\"], to: \"{to}\", facing: {facing}}}" for to, facing in (
        ("0101", "E"), ("0101", "S"), ("0101", "W"), ("0102", '"N"'), ("0202", '"N"'), ("0201", "E"), ("0200", "S"),
        ("0100", "S"), ("0000", "S"), ("0001", "W"), ("0002", '"N"'))]
    block = sealed_block(match, "blue")
    # the `show` and the moves go in one packet, which opens the chits too (docs/protocol.md §8; a
    # players' probe: each `show` cost the opponent an empty packet, and its sender one that opened)
    from pbem.core import templates

    assert ("# A group whose chit is sealed shows it first (`show`), then moves: `pbem submit` opens the chits a\n"
            "# `show` reveals in the same packet, from private/, and the moves behind it go on in that packet.\n"
            # a `show` behind a move that rolls dice cost a packet that only opened it (a kkoh player's probe)
            "# Give every `show` before the first move that rolls dice (a minelet, K-SFX-5): orders behind it wait\n"
            "# for the next packet's dice, and a `show` among them reveals a chit that only a later packet opens.\n"
            ) in templates.orders_template(match.game, match.state("blue"), "blue")
    assert block[:len(NOTE) + 2 + len(moves_b1)] == NOTE + [
        "# B1, sealed M (item 5.1); shown: order chit M at deployment:", '#   - {type: show, units: ["B1"]}'] + moves_b1
    assert block[len(NOTE) + 2 + len(moves_b1)] == "# B2, sealed M (item 5.2); shown: order chit M at deployment:"
    assert len(block) == len(NOTE) + 2 * (2 + len(moves_b1))
    # `--only` a square: the group's show comes with the moves that name it
    assert sealed_block(match, "blue", "0102") == NOTE + [
        "# B1, sealed M (item 5.1); shown: order chit M at deployment:", '#   - {type: show, units: ["B1"]}',
        '#   - {type: move, units: ["B1"], to: "0102", facing: "N"}']
    assert sealed_block(match, "red") == []                     # not red's step
    opened = match.send("blue", [{"type": "show", "units": ["B1"]}, {"type": "move", "units": ["B1"], "to": "0102",
                                                                      "facing": "N"}, {"type": "end"}])
    # `pbem submit` opens B1's chit in the packet that shows it; the move follows in it
    assert [e["text"] for e in opened.events if e["type"] in ("chit-revealed", "move", "end")] == [
        "B1: order chit M at deployment: revealed (item 5.1, K-ORD-6).", "B1 moves to 0102, facing N (K-MOV-8).",
        "blue ends its movement in Action Phase 1."]
    assert {k: match.state()["rules"]["pieces"]["B1"][k] for k in ("sq", "f", "o")} == {"sq": "0102", "f": "N", "o": "M"}


def test_the_template_says_a_sealed_change_by_its_test_die_and_which_groups_may_do_nothing(tmp_path):
    """Turn 2: red seals R1's change HA to M and R2's HA to HD. In Action Phase 1 only
    mechanised units on M move (K-MOV-4): the template works out from the test die sealed at
    Issuing Orders (read with the item's salt) that R1's change holds (4, -1 = 3) and lists its
    moves; R2, on HA or HD, may do nothing, and showing it would only tell blue its chit. The
    note says whether R2's change held, and its die (a players' probe: a group named there as
    "(HD)" did not say that the M sealed for it had failed)."""
    from pbem.core import dice, sealing
    from tests.test_kkoh_sealed import need

    match = two_groups_each(tmp_path, chain_length=512)
    drive_to(match, "orders", turn=2)
    seq = match.send("red", [{"type": "chit", "units": ["R1"], "order": "M"},
                             {"type": "chit", "units": ["R2"], "order": "HD"}, {"type": "end"}], seal=True).state["seq"]
    match.send("blue", [{"type": "end"}], seal=True)
    for _ in range(12):
        n, state = need(match), match.state()
        if (n.kind, n.side, state["awaiting"]["packet_from"]) == ("move", "red", "red"):
            break
        step(match)
    assert (match.state()["rules"]["turn"], match.state()["rules"]["ap"]) == (2, 1)
    block = sealed_block(match, "red")
    assert block[:3] == NOTE[:3] and '#   - {type: show, units: ["R1"]}' in block
    assert '#   - {type: move, units: ["R1"], to: "0505", facing: "N"}' in block
    text = " ".join(line.removeprefix("#").strip() for line in block)
    draw = next(e for e in match.state()["rules"]["hidden"]["red"] if e["units"] == ["R2"])["draw"]
    die = dice.sealed_die(draw, sealing.own_items(match.folders["red"], "red")[f"{seq}.2"]["salt"])
    now, result = ("HD", "changes HA to HD") if die - 1 >= 3 else ("HA", "fails to change HA to HD")
    assert (f"these may do nothing in this Action Phase, and a `show` would only tell your opponent their chit: R2 "
            f"({now}; sealed HD: die {die}, majority inferior -1 = {die - 1}: {result} (3 or more needed, K-ORD-3)). "
            f"What each other group may do once shown: R1, sealed M (item {seq}.1); shown: die 4, majority inferior -1 "
            f"= 3: changes HA to M (3 or more needed, K-ORD-3):") in text, text
    # the listing opens the chits on a copy: the rules it reads are left as they were
    import copy

    from pbem.core import sealing
    from pbem.rulesets.kkoh import flow

    rules = copy.deepcopy(match.state()["rules"])
    before = copy.deepcopy(rules)
    note, groups = flow.sealed_listing(match.game.scenario, rules, need(match), sealing.own_items(match.folders["red"],
                                                                                                   "red"))
    assert [about.split(",")[0] for about, _ in groups] == ["R1"] and rules == before


def test_an_open_order_queued_before_never_answers_a_sealed_step(tmp_path):
    """A players' probe: an `end` left queued (a bombardment step closed by itself) met blue's
    next order chits, a sealed step, and gave them in the open, read by red before it sealed its
    own (K-ORD-1). An open order queued in an earlier packet is void at a sealed step, its queue
    with it (on_void: stop), and the game waits for blue's seal (docs/protocol.md §8)."""
    from tests.test_kkoh_sealed import need

    match = blue_moves(tmp_path)
    match.send("blue", [{"type": "end"}] * 6)         # five more than the step takes: they wait in the queue
    voids: list[str] = []
    for _ in range(16):
        state = match.state()
        if state["awaiting"]["waiting_for"] == "sealed orders" and need(match).side == "blue":
            break
        voids += [e["text"] for e in step(match).events if e["type"] == "void"]
    assert (state["rules"]["turn"], need(match).kind) == (2, "orders")
    assert voids == ["blue order 5 of packet 7 (end) is void: blue's orders are sealed orders, and an open order "
                     "queued in an earlier packet never answers them (docs/protocol.md §8) (K-ORD-1); its queued "
                     "order 6 of packet 7 is dropped too (standing order on_void: stop)."]
    assert [q for q in state["queue"] if q["side"] == "blue"] == [] and "blue" not in state["rules"]["plans"].get(
        "chits", {})


def test_an_open_answer_waiting_for_dice_goes_on_in_its_own_step_only(tmp_path):
    """Red gives its turn-1 chits openly, and twelve `end`s behind them; the test die makes the
    step wait for dice. Blue's next packet finishes that step with red's orders of that packet,
    plays turn 1 out and comes to turn 2's chits: red's stray `end` there is void, as any open
    order queued before is at a sealed step (a cheater's probe: the exception for an open answer
    waiting for dice held for the whole packet, and red's turn-2 chits were given in the open)."""
    from tests.test_kkoh_cases import scenario_doc
    from tests.test_kkoh_sealed import chits_for

    doc = scenario_doc({"columns": 30, "rows": 30, "units": [
        {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "M"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "2828", "cell": "21", "facing": "S", "order": "HA"}],
        "position": {"turn": 1, "ap": 0, "step": "orders", "initiative": "red"}})
    match = Match(tmp_path, "kkoh", chain_length=256, key_seed=LEAK_SEED, scenario_doc=doc)
    match.send("blue", [{"type": "end"}] * 12, seal=False)
    match.send("red", chits_for(match, "red", 1) + [{"type": "end"}] * 12, seal=False)
    assert match.state()["awaiting"]["waiting_for"] == "dice"
    texts = [e["text"] for e in match.send("blue", []).events]
    assert "red order 2 of packet 2: end" in texts            # its own step, once the dice come
    assert "red order 6 of packet 2: end" not in texts and (
        "red order 6 of packet 2 (end) is void: red's orders are sealed orders, and an open order queued in an "
        "earlier packet never answers them (docs/protocol.md §8) (K-ORD-1); its queued orders 7 to 14 of packet 2 "
        "are dropped too (standing order on_void: stop).") in texts
    assert match.state()["rules"]["turn"] == 2


def test_show_says_only_what_was_sealed_and_survives_a_damaged_seal_file(tmp_path):
    """`show --unit` tells the sealer what he sealed from private/, checked against the seal's
    hash: a file edited since says nothing of it (a cheater's probe: it told of a chit PA never
    sealed, to a referee handed the folder), and a malformed one stops nothing (it raised a
    TypeError)."""
    match = two_groups_each(tmp_path, chain_length=512)
    drive_to(match, "orders", turn=2)
    seq = match.send("red", [{"type": "chit", "units": ["R1"], "order": "M"}, {"type": "end"}],
                     seal=True).state["seq"]
    kept = match.folders["red"].path / "private" / f"seal-{seq:04d}-red.yaml"
    text = kept.read_text()
    assert show(match, "red", "--unit", "R1")[4] == f"red sealed M for it (item {seq}.1, kept in private/: for red's eyes only)."
    for edited in (text.replace("order: M", "order: PA"), text.replace("units: [R1]", "units: [R1, 7]")):
        kept.write_text(edited)
        assert show(match, "red", "--unit", "R1")[4] == "Not in a battle group: it acts alone (K-GM-4)."


def test_submit_warns_of_a_queued_order_that_names_the_enemys_units(tmp_path):
    """A players' probe: red, with nothing to decide, queued a `show` of blue's groups, and the
    dry run called it "a legal packet", though no state of the game can take it (given at red's
    own step it is refused, K-ORD-6): the dry run says so, and that it will be void. A `show` of
    red's own group and a move of it raise no such warning."""
    from pbem.core.submit import submit_orders
    from tests.test_kkoh_sealed import need

    match = blue_moves(tmp_path)
    for _ in range(20):
        if match.state()["awaiting"]["packet_from"] == "red" and need(match).side == "blue":
            break
        step(match)
    else:
        pytest.fail("red never sent while blue decided")
    orders = [{"type": "show", "units": ["B1", "B2"]}, {"type": "fire", "unit": "B1", "target": "R1"},
              {"type": "show", "units": ["R9"]}, {"type": "show", "units": ["R1"]},
              {"type": "move", "units": ["R1"], "to": "0504", "facing": "S"}]
    tried = submit_orders(match.folders["red"], orders, None, key=match.keys["red"], side="red",
                          sent="2026-11-29T10:00:00Z", dry_run=True)
    seq = match.state()["seq"] + 1
    never = [w for w in tried.warnings if "can never take it" in w]
    assert never == [
        f"order 1 of packet {seq} (show) waits in the queue, but the game can never take it: it names units that are "
        f"not red's: B1 (blue's), B2 (blue's); it will be void when the game reaches it",
        f"order 2 of packet {seq} (fire) waits in the queue, but the game can never take it: it names units that are "
        f"not red's: B1 (blue's); it will be void when the game reaches it",
        f"order 3 of packet {seq} (show) waits in the queue, but the game can never take it: it names units that are "
        f"not red's: R9 (no unit of this game); it will be void when the game reaches it"]


def test_a_change_to_pa_is_said_with_the_modifier_the_table_names():
    """A players' probe: a chit's opening said "die 6, majority inferior -1, to pa -1 = 4"; the
    table (K-ORD-3, L67) says "Changing to PA -1", as the other modifiers are said in words."""
    from pbem.rulesets.kkoh import command

    ruleset = rulesets.get("kkoh")
    sc = ruleset.scenario(ruleset.scenarios[ruleset.default_scenario](), dict(ruleset.options))
    entry = {"units": ["R-Rec1"], "item": "5.1", "was": "M", "mods": {"majority_inferior": -1},
             "draw": {"label": "t2.orders.1", "segment": 5, "seed": "00" * 32}}
    now, words, fields = command.opening(sc, "red", entry, {"type": "chit", "units": ["R-Rec1"], "order": "PA"},
                                         lambda: 6)
    assert (now, words) == ("PA", "R-Rec1: die 6, majority inferior -1, changing to PA -1 = 4: changes M to PA "
                                  "(3 or more needed, K-ORD-3)")
    assert fields["modifiers"] == {"majority_inferior": -1, "to_pa": -1}
    # the picture's key says when a chit shows "?" (a players' probe: "until Issuing Orders opens them")
    from pbem.rulesets.kkoh import draw

    assert "? while it is sealed: from its side's seal at Issuing Orders until the rules reveal it" in draw.LEGEND[1]


def test_a_packet_opens_the_chits_its_own_show_reveals_all_in_order_or_leaves_them_due(tmp_path):
    """docs/protocol.md §8: entries of `opens` after the items due open the items the packet's
    own orders reveal, each named by its seal, all of them in the order revealed, each equal to
    its seal; a packet may also leave them due for its sender's next packet, as before."""
    match = blue_moves(tmp_path)
    g, state, folder, key = match.game, match.state("blue"), match.folders["blue"], match.keys["blue"]
    both = [{"type": "show", "units": ["B1", "B2"]}]

    def packet(opens, orders=both):
        return game.build_packet(g, state, "blue", orders, None, key, "", {"opens": opens} if opens is not None else None)

    left, _ = engine.apply_packet(g, state, packet(None), "left")
    revealed = list(left["awaiting"]["need"]["opens"])
    assert len(revealed) == 2 and left["sealed"]["blue"]["due"] == revealed          # due in blue's next packet
    entries = sealing.opening(folder, "blue", revealed)
    new, events = engine.apply_packet(g, state, packet(entries), "early")
    assert [e["items"] for e in events if e["type"] == "opened"] == [revealed]
    assert [(e["index"], e["opened"]) for e in events if e["type"] == "order" and "opened" in e] == \
        [(2, revealed[0]), (3, revealed[1])]                                            # numbered after its orders
    assert "blue" not in new["sealed"] and new["awaiting"]["need"]["kind"] == "move"
    assert {new["rules"]["pieces"][u]["o"] for u in ("B1", "B2")} == {"M"}
    unnamed = [{k: v for k, v in entry.items() if k != "seal"} for entry in entries]
    for opens, words in (
            (unnamed, "an item opened beyond them, which the packet's own orders reveal, is named by its `seal`"),
            ([dict(entries[0], salt="00" * 32), entries[1]], "or its salt differs from what blue sealed"),
            (entries[:1], f"`opens` opens {revealed[0]} where the packet's orders reveal blue's sealed item(s) "
                          f"{', '.join(revealed)}: it opens all of them, in that order, or none"),
            (entries[::-1], f"`opens` opens {', '.join(revealed[::-1])} where the packet's orders reveal"),
            (entries + entries[:1], f"`opens` opens item {revealed[0]} twice")):
        with pytest.raises(VerificationError, match=re.escape(words)):
            engine.apply_packet(g, state, packet(opens), "altered")
    b1 = [{"type": "show", "units": ["B1"]}]
    with pytest.raises(VerificationError, match=re.escape(
            f"`opens` opens item {revealed[1]}, which the rules have not revealed, before this packet or by its own "
            f"orders")):
        engine.apply_packet(g, state, packet(entries, b1), "beyond")
    with pytest.raises(VerificationError, match="which the rules have not revealed, before this packet or by its own"):
        engine.apply_packet(g, state, packet(entries, []), "unrevealed")
