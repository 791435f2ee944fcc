"""What `pbem orders` lists for dos (README, "Orders"): the legal orders of a movement phase
or a set-up are too many to work out for every unit, so the template lists the set-up's areas
and a sample of moves, says so, and works out every legal order of one unit or hex named with
`--only`. Every order it lists is one the engine takes."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from pbem.core import templates
from pbem.rulesets.base import IllegalOrder
from pbem.rulesets.dos import flow, movement, setup
from pbem.rulesets.dos import report, words
from pbem.rulesets.dos.board import stacking_ok, view
from pbem.rulesets.dos import state as st
from tests.test_dos_setup import drawn, set_up
from tests.test_dos_support import SC, Ctx, at, play

SENT = "2026-12-04T10:00:00Z"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dos-demo"


def takes(rules: dict, order: dict) -> bool:
    """Whether the engine takes `order` now (applied to a copy)."""
    sc = SC()
    rules = copy.deepcopy(rules)
    try:
        flow.apply(sc, rules, flow.next_step(sc, rules), order, Ctx())
    except IllegalOrder:
        return False
    return True


def axis_moves(phase: str | None = None) -> tuple:
    """The dos example opened, and of its states that wait for the Axis player's moves (in
    `phase`, if given: "move" for the Initial Movement Phase) the first with the fewest units
    moved in the phase, where most units can move still (a game played anew may wait for them
    first halfway through a phase), with that need."""
    from pbem.core import engine, game

    opened = game.open_folder(EXAMPLE)
    found = []
    for seq in range(opened.state["seq"] + 1):
        state = game.load_state(EXAMPLE, seq, opened.game)
        need = engine.awaited_need(state)
        if need is not None and need.kind == "axis-move" and state["awaiting"]["waiting_for"] == "orders" \
                and phase in (None, state["rules"]["phase"]):
            found.append((len(state["rules"]["ps"].get("moved") or ()), seq, state, need))
    if not found:
        pytest.fail("no state of the dos example waits for the Axis player's moves")
    _, _, state, need = min(found, key=lambda f: f[:2])
    return opened, state, need


def test_a_soviet_set_up_lists_the_units_and_every_hex_of_one_unit():
    sc = SC()
    rules, _ = drawn()
    need = flow.next_step(sc, rules)
    left = setup.to_set_up(sc, rules, "soviet")
    orders, note = flow.listing(sc, rules, need, None)
    assert orders == [{"type": "end"}] and f"each of the {len(left)} units left to set up" in note
    lines = report.describe_need(sc, rules, need)
    assert f"{len(left)} units to set up, east of the 28 June 1942 Front Line (5.22)" in " ".join(lines)
    assert all(any(uid in line for line in lines) for uid in left)
    uid = left[0]
    orders, note = flow.listing(sc, rules, need, uid)
    places = [o for o in orders if o["type"] == "place"]
    hexes = [o["hex"] for o in places]
    assert note is None and all(o["unit"] == uid for o in places)
    # every hex of the map east of the line, none west of it (5.22)
    assert hexes == [h for h in sc.ids if sc.idx[h] not in sc.axis_start]
    for order in places[:: len(places) // 12]:
        assert takes(rules, order), order
    assert not takes(rules, {"type": "place", "unit": uid, "hex": next(h for h in sc.ids if sc.idx[h] in sc.axis_start)})


def test_a_hex_named_lists_every_unit_that_may_set_up_there_and_the_stacking_limit_is_kept():
    sc = SC()
    rules, _ = drawn()
    need = flow.next_step(sc, rules)
    left = setup.to_set_up(sc, rules, "soviet")
    h = sc.ids[sorted(setup.line_band(sc) - sc.axis_start)[0]]
    assert [o["unit"] for o in flow.listing(sc, rules, need, h)[0] if o["type"] == "place"] == left
    rifles = [u for u in left if u.startswith("R/")][:3]
    for uid in rifles:
        setup.place(sc, rules, "soviet", {"type": "place", "unit": uid, "hex": h})
    listed = [o["unit"] for o in flow.listing(sc, rules, need, h)[0] if o["type"] == "place"]
    # three combat units fill it, but for an HQ, and air units do not count (7.1, errata): of
    # the units still to set up, only they may be placed there now
    free = [u for u in left if sc.units[u].hq or sc.units[u].air]
    assert free and listed == free
    assert not takes(rules, {"type": "place", "unit": [u for u in left if u not in listed][0], "hex": h})


def test_an_axis_set_up_names_each_units_band_and_refuses_nothing_it_lists():
    sc = SC()
    rules, ctx = drawn()
    flow.apply(sc, rules, flow.next_step(sc, rules), {"type": "end"}, ctx)   # the Soviet default placement
    need = flow.next_step(sc, rules)
    assert need.side == "axis" and need.kind == "setup"
    text = "\n".join(report.describe_need(sc, rules, need))
    assert "each in the band of its army (20.1)" in text
    assert "its orders may follow the `end` in this same packet" in text.replace("\n", " ")
    band = text[text.index("5.32 (hexrows N2900 to N3600)"):text.index("5.33 (")]
    assert "G/44" in band and "G/57" not in band
    orders, note = flow.listing(sc, rules, need, "G/44")
    rows = {sc.row[sc.idx[o["hex"]]] for o in orders if o["type"] == "place"}
    assert note is None and rows and min(rows) >= 29 and max(rows) <= 36
    assert "Sets up: in the band of 5.32, hexrows N2900 to N3600" in "\n".join(words.look(sc, rules, "unit", "G/44"))
    error = setup.place_error(sc, rules, "axis", "G/44", "N2252")
    assert (error.rule, error.message) == ("5.32", "G/44 sets up in the band of 5.32, hexrows N2900 to N3600")
    assert flow.listing(sc, rules, need, "R/176")[1] == "R/176 is a Soviet unit."


def test_a_movement_phase_lists_a_sample_and_says_so_and_every_move_of_a_unit_named():
    sc = SC()
    rules, _ = set_up()
    need = flow.next_step(sc, rules)
    assert (rules["turn"], need.kind) == (1, "axis-move")
    sample, note = flow.listing(sc, rules, need, None)
    assert sample == flow.legal_orders(sc, rules, need) and note.startswith("A sample: the moves of the next stack")
    movers = {tuple(o["units"]) for o in sample if o["type"] == "move"}
    assert len(movers) == 1
    ezoc = movement.context(sc, rules, "axis").ezoc
    uid = next(u for u in setup.placed(sc, rules, "axis") if sc.units[u].setup == "5.33" and not sc.units[u].air
               and sc.idx[st.hex_of(rules, u)] not in ezoc and (u,) not in movers)
    orders, note = flow.listing(sc, rules, need, uid)
    moves = [o for o in orders if o["type"] == "move"]
    ends = [o["path"][-1] for o in moves]
    assert note is None and len(moves) > 24 and len(set(ends)) == len(ends) and orders[-1] == {"type": "end"}
    for order in moves[:: len(moves) // 8]:
        assert takes(rules, order), order
    # 5.38: the units of 5.31 and 5.32 stand still on Game-Turn 1, and the template says why
    assert flow.listing(sc, rules, need, "G/44")[1] == \
        "G/44 has no move now: the units of 5.31 and 5.32 may not move on Game-Turn 1 (5.38)."
    assert flow.listing(sc, rules, need, "X/9")[1] == ("there is no unit X/9. Nor is X/9 an order type of this phase "
                                                       "(move, rail, overrun, enter, evacuate, air-supply, end).")


def test_the_orders_template_prints_the_note_and_every_move_of_a_unit_named():
    """A state of the example game that waits for a side's orders in its Movement Phase."""
    import re

    opened, state, need = axis_moves()
    whole = templates.orders_template(opened.game, state, "axis")
    assert "# A sample: the moves of the next stack able to move" in whole
    listed = len(opened.game.listing(state["rules"], need)[0])
    assert f"# Legal orders listed now ({listed}), not every one (see the note below); orders are" in whole
    assert "Legal orders now" not in whole    # a count read as every legal order (players' probe)
    sample = opened.game.legal_orders(state["rules"], need)
    moves, uid = next((moves, u) for u in sorted(SC().side_units["axis"]) if st.on_map(state["rules"], u)
                      and not any(u in o.get("units", []) for o in sample)
                      for moves in [movement.unit_options(SC(), state["rules"], "axis", u)] if moves)
    text = templates.orders_template(opened.game, state, "axis", only=uid)
    assert f"# Legal orders now ({len(moves) + 1}; {len(moves)} of them name {uid})" in text
    listed = re.findall(r"^#   - (.*)$", text, re.M)
    assert len(listed) == min(len(moves), templates.MAX_NAMED) and all(f'"{uid}"' in line for line in listed)


def ended_until(folder, reached):
    """`folder` after packets that end each phase, answer each decision with its first legal
    order (the withdrawal of 15.23) and send nothing while dice are awaited, until `reached`
    holds of its state."""
    from pbem.core import game
    from pbem.core.submit import submit_orders

    while not reached(folder.state):
        sender = folder.state["awaiting"]["packet_from"]
        awaiting, rules = folder.state["awaiting"], folder.state["rules"]
        orders = ([{"type": "end"}] if awaiting["waiting_for"] == "orders" else
                  folder.game.legal_orders(rules, folder.game.next_step(rules))[:1]
                  if awaiting["waiting_for"] == "decision" and awaiting["need"]["kind"] == "withdrawal" else [])
        folder = submit_orders(folder, orders, None, side=sender, sent=SENT) and game.open_folder(folder.path)
    return folder


def test_submit_warns_of_a_hex_left_over_the_stacking_limit_and_of_the_units_it_costs(tmp_path):
    """7.1: a unit may move into a full hex (units pass through friendly stacks), so the order
    is legal; the excess is eliminated when the Movement Phase ends. `pbem submit` (and its dry
    run) warns of both (players' probe: a typo cost a division under a 'legal packet')."""
    from pbem.core import game, genesis
    from pbem.core.submit import submit_orders
    from pbem import rulesets

    folder = game.create(tmp_path / "g", genesis.sandbox(rulesets.get("dos"), {"seed": "stack"}, created=SENT))
    folder = ended_until(folder, lambda state: (state["awaiting"]["need"] or {}).get("kind") == "axis-move")
    sc, rules = folder.game.scenario, folder.state["rules"]
    board = view(sc, rules)
    move = next(order for uid in setup.placed(sc, rules, "axis") if sc.units[uid].combat and not sc.units[uid].hq
                for j in sc.nb[sc.idx[st.hex_of(rules, uid)]]
                if board.units_at(j) and not stacking_ok(sc, rules, board.units_at(j) + [uid])
                for order in [{"type": "move", "units": [uid], "path": [sc.ids[j]]}] if takes(rules, order))
    h = move["path"][-1]
    tried = submit_orders(folder, [move], None, side="axis", sent=SENT, dry_run=True)
    assert [w for w in tried.warnings if "stacking limit" in w] == [
        f"{h} is over the stacking limit (7.1: {flow.STACKING_WORDS}): unless units leave it, the excess is "
        "eliminated when this Movement Phase ends"]
    tried = submit_orders(folder, [move, {"type": "end"}], None, side="axis", sent=SENT, dry_run=True)
    lost = [e["units"] for e in tried.events if e["type"] == "eliminated" and e.get("rule") == "7.1"]
    assert len(lost) == 1
    assert [w for w in tried.warnings if "stacking limit" in w] == [
        f"{lost[0][0]} was eliminated: {h} was over the stacking limit as the Movement Phase ended (7.1: "
        f"{flow.STACKING_WORDS})"]
    assert game.open_folder(folder.path).state["seq"] == folder.state["seq"]   # a dry run writes nothing
    # with `overstack: ask` the end of the phase asks the player which units go (7.1): nothing is lost
    # yet, and the hex's warning, "unless units leave it", no longer holds (review)
    asked = submit_orders(folder, [move, {"type": "end"}], {"overstack": "ask"}, side="axis", sent=SENT, dry_run=True)
    assert not [e for e in asked.events if e["type"] == "eliminated"]
    assert not [w for w in asked.warnings if "stacking limit" in w]


def test_an_order_naming_no_unit_or_hex_says_which_one_it_most_likely_meant():
    """3.1: hex ids carry their mapsheet letter; a mistyped unit id gets the unit it most
    likely meant, and one of the other side says whose it is (players' probe: 'R/1766 is not
    a soviet unit' read as if it were an Axis unit; `hex: "2348"` was 'not a hex')."""
    from pbem.rulesets.dos import naming

    sc = SC()
    rules, _ = drawn()
    unit = setup.to_set_up(sc, rules, "soviet")[0]
    assert setup.place_error(sc, rules, "soviet", unit, "2348").message == \
        "2348 is not a hex id: it begins with its mapsheet, N2348 or S2348 (3.1)"
    assert setup.place_error(sc, rules, "soviet", unit, "n2348").message == "n2348 is not a hex id: did you mean N2348?"
    assert setup.place_error(sc, rules, "soviet", unit, "N9999").message == "N9999 is not a hex of the playing area"
    assert setup.place_error(sc, rules, "soviet", unit.lower(), "N2348").message == \
        f"there is no unit {unit.lower()} (did you mean {unit}?)"
    assert naming.no_unit(sc, "R/1766") == "there is no unit R/1766 (did you mean R/176?)"
    assert naming.no_unit(sc, "G/4500") == "there is no unit G/4500 (did you mean G/45?)"   # not G/50, as close
    # two digits typed the wrong way round: GR/37, not GR/47, which difflib scores higher (a players' probe)
    assert naming.no_unit(sc, "GR/73") == "there is no unit GR/73 (did you mean GR/37?)"
    assert naming.no_unit(sc, "Q/999") == "there is no unit Q/999"
    assert setup.place_error(sc, rules, "soviet", "G/44", "N2348").message == "G/44 is an Axis unit"


def test_submit_warns_of_a_queued_order_no_state_of_the_game_can_take(tmp_path):
    """An order queued for a later phase is checked when the game reaches it (void if the
    situation changed), but what it names does not depend on the board: an Axis unit placed
    outside its band, an id of no unit or hex. The dry run says so at once (players' probe: the
    Axis player learnt of it three packets later, from the Soviet player's report)."""
    from pbem.core import game, genesis
    from pbem.core.submit import submit_orders
    from pbem import rulesets

    folder = game.create(tmp_path / "g", genesis.sandbox(rulesets.get("dos"), {"seed": "queue"}, created=SENT))
    orders = [{"type": "place", "unit": "G/44", "hex": "N2252"}, {"type": "place", "unit": "G/57", "hex": "2252"},
              {"type": "place", "unit": "G/4", "hex": "N2252"}, {"type": "place", "unit": "G/57", "hex": "N2252"}]
    tried = submit_orders(folder, orders, None, side="axis", sent=SENT, dry_run=True)
    never = [w for w in tried.warnings if "can never take it" in w]
    assert never == [
        "order 1 of packet 1 waits in the queue, but the game can never take it: G/44 sets up in the band of 5.32, "
        "hexrows N2900 to N3600; it will be void when the game reaches it",
        "order 2 of packet 1 waits in the queue, but the game can never take it: 2252 is not a hex id: it begins "
        "with its mapsheet, N2252 or S2252 (3.1); it will be void when the game reaches it",
        "order 3 of packet 1 waits in the queue, but the game can never take it: there is no unit G/4 (did you "
        "mean GR/4?); it will be void when the game reaches it"]   # G/57 (5.33) may set up in N2252


def test_only_an_order_type_or_an_unknown_name_gets_a_note_not_a_crash():
    """Review: `--only end` in a set-up took `end` for a unit (KeyError), `--only place` was
    told that `place` is no order type, and a filtered sample of moves lost its note."""
    sc = SC()
    rules, _ = drawn()
    need = flow.next_step(sc, rules)
    for only in ("end", "place"):
        orders, note = flow.listing(sc, rules, need, only)
        assert orders == [{"type": "end"}] and note.startswith("Place orders are not listed")
    assert flow.listing(sc, rules, need, "R/1766")[1] == ("there is no unit R/1766 (did you mean R/176?). Nor is R/1766 "
                                                          "an order type of this phase (place, end).")
    assert flow.listing(sc, rules, need, "n2348")[1] == ("n2348 is not a hex id: did you mean N2348? Nor is n2348 an "
                                                         "order type of this phase (place, end).")
    assert flow.listing(sc, rules, need, "2348")[1].startswith("2348 is not a hex id: it begins with its mapsheet")
    rules, _ = set_up()
    need = flow.next_step(sc, rules)
    assert flow.listing(sc, rules, need, "N2915") == (flow.legal_orders(sc, rules, need), flow.SAMPLE_NOTE)
    assert flow.listing(sc, rules, need, "move")[1].startswith("These are a sample")


def test_only_a_unit_lists_its_rail_moves_and_an_air_units_too():
    """Every legal order of a unit named: a truck's rail moves to every rail hex it can reach
    (not the three farthest), an air unit's rail moves (14.12: air units move by rail only)."""
    sc = SC()
    rules, _ = set_up()
    need = flow.next_step(sc, rules)
    for uid in ("Tr/1", "AirK/4"):
        orders, note = flow.listing(sc, rules, need, uid)
        rail = [o for o in orders if o["type"] == "rail"]
        assert note is None and len(rail) > 6, (uid, len(rail))
        assert len({o["path"][-1] for o in rail}) == len(rail)
        for order in rail[:: len(rail) // 5]:
            assert takes(rules, order), order
    assert not [o for o in flow.listing(sc, rules, need, "AirK/4")[0] if o["type"] == "move"]


def test_only_a_reinforcement_lists_its_entries_by_rail_too():
    """A players' probe: `--only TC/4` listed 42 entries, each to an entry hex alone, and the
    player wrote `{type: enter, ..., rail: true}` by hand. A reinforcement named lists its
    entries followed by a rail move (15.3 with 6.3), each rail hex it can reach once, from a
    rail hex of entry outside any Enemy ZOC; every one is taken by the engine."""
    from pbem.core import engine, game

    opened = game.open_folder(EXAMPLE)
    found = None
    for seq in range(opened.state["seq"] + 1):
        state = game.load_state(EXAMPLE, seq, opened.game)
        need = engine.awaited_need(state)
        counted = [u for u in movement.ready(SC(), state["rules"], "soviet") if movement.rail_units(SC(), u)] \
            if need is not None and need.kind == "soviet-move" and state["rules"]["phase"] == "move" else []
        if counted:              # a unit that counts against the rail limit (not an HQ, 11.22)
            found = state, need, counted[0]
            break
    if found is None:
        pytest.fail("no state of the dos example waits for a Soviet Initial Movement Phase with reinforcements")
    state, need, uid = found
    sc, rules = SC(), state["rules"]
    orders, _ = flow.listing(sc, rules, need, uid)
    plain = [o for o in orders if o["type"] == "enter" and not o.get("rail")]
    by_rail = [o for o in orders if o["type"] == "enter" and o.get("rail")]
    assert plain and len(by_rail) > len(plain), (len(plain), len(by_rail))
    ends = [o["path"][-1] for o in by_rail]
    assert len(set(ends)) == len(ends) and not set(ends) & {o["path"][0] for o in plain}
    assert {o["path"][0] for o in by_rail} <= {o["path"][0] for o in plain}
    for order in by_rail[:: max(1, len(by_rail) // 8)] + by_rail[-1:]:
        assert takes(rules, order), order
    rules["rail_used"] = movement.RAIL_LIMIT["soviet"]                           # 6.31: the limit reached
    assert not [o for o in flow.listing(sc, rules, need, uid)[0] if o.get("rail")]


def test_submit_says_that_the_attackers_standing_order_retreats_them_from_a_hex_won(tmp_path):
    """A players' probe: at 6-1 a De/A1 retreated the four attackers by the standing order
    `attacker_result: retreat`, the hex won left empty, and the player learned it only once the
    dice were open. A packet of attacks under that standing order is warned of it, once (not
    again as a caution of the imagined play); under `loss` it is not."""
    from pbem.rulesets.dos import RULESET as DOS
    from tests.support.games import Match

    doc = DOS.scenarios["historical"]()
    doc["position"] = {"turn": 3, "player": "axis", "phase": "combat", "rest": "out",
                       "units": {"R/6": {"hex": "N2245", "revealed": [4, 4]}, "A/21": {"hex": "N2143"},
                                 "G/57": {"hex": "N2246"}}}
    attack = [{"type": "attack", "targets": ["N2245"], "units": ["G/57"]}, {"type": "end"}]
    for policies, said in ((None, 1), ({"attacker_result": "loss"}, 0)):
        match = Match(tmp_path / str(said), "dos", key_seed="s11", scenario_doc=doc)
        warnings = match.send("axis", attack, policies).warnings
        assert sum(flow.ATTACKER_RETREATS in w for w in warnings) == said, warnings
        assert [w for w in warnings if flow.ATTACKER_RETREATS in w] == [flow.ATTACKER_RETREATS] * said
    assert flow.ATTACKER_RETREATS.startswith("your standing order `attacker_result: retreat` answers the attackers' "
                                             "part of every result of your attacks, split ones too (D1/A1, De/A1)")
    # the packet's own attacks only: one of an earlier packet, played in a packet that only
    # answered a decision, is not warned of again (a review)
    sc, rules = SC(), at(phase="combat")
    retreat = {"attacker_result": "retreat"}

    def warned(events, queued):
        return flow.ATTACKER_RETREATS in flow.cautions(sc, rules, [{"type": "packet", "seq": 3}] + events, "axis",
                                                       queued, retreat)

    played = {"type": "order", "side": "axis", "index": 1, "order": {"type": "attack", "targets": ["N2245"]}}
    waiting = {"side": "axis", "index": 1, "order": {"type": "overrun", "units": ["G/57"]}}
    assert warned([dict(played, seq=3)], []) and warned([], [dict(waiting, seq=3)])
    assert not warned([dict(played, seq=2)], []) and not warned([], [dict(waiting, seq=2)])
    assert not warned([dict(played, seq=3, side="soviet")], [])


def test_a_combat_phase_lists_each_attack_and_says_what_else_may_be_ordered():
    sc = SC()
    rules, ctx = set_up()
    flow.apply(sc, rules, flow.next_step(sc, rules), {"type": "end"}, ctx)
    need = flow.next_step(sc, rules)
    assert rules["phase"] == "combat", rules["phase"]
    orders, note = flow.listing(sc, rules, need, None)
    assert orders[-1] == {"type": "end"} and note == flow.ATTACK_NOTE


def test_a_queued_retreat_answer_may_name_the_enemy_unit():
    """9.72: the opponent chooses the path of a retreating unit; the answer names that enemy
    unit, and the submit caution must not call it one no state can take (review)."""
    sc = SC()
    assert flow._never(sc, {"type": "retreat", "unit": "C/11", "path": ["N0101"]}, "axis") is None
    assert flow._never(sc, {"type": "retreat", "unit": "C/1100", "path": ["N0101"]}, "axis").startswith(
        "there is no unit C/1100")
    assert flow._never(sc, {"type": "move", "units": ["C/11"], "path": ["N0101"]}, "axis") == "C/11 is a Soviet unit"


def test_the_template_lists_a_sides_own_standing_orders_and_submit_says_anothers_change_nothing(tmp_path):
    """Eight of dos's standing orders answer one side's decisions only (rail clearing is the
    Axis player's, 6.42; acceleration the Soviet player's, 15.42): a side's template lists its
    own (players' probe: the Soviet template offered `rail_clearing`), and a packet setting
    another side's is told that it changes nothing."""
    from pbem.core import game, genesis
    from pbem.core.submit import submit_orders
    from pbem import rulesets

    dos = rulesets.get("dos")
    folder = game.create(tmp_path / "g", genesis.sandbox(dos, {"seed": "policies"}, created=SENT))
    axis_only = {"withdrawal", "directive_removal", "rail_clearing", "truck_railheads", "defence_air_supply",
                 "hq_defence"}
    soviet_only = {"selection", "acceleration"}
    for side, foreign in (("axis", soviet_only), ("soviet", axis_only)):
        text = templates.orders_template(folder.game, folder.state, side)
        listed = set(re.findall(r"^#  (\w+): ", text.split("\npolicies:\n")[1], re.M))
        offered = set(re.findall(r"(\w+): [\w-]+(?:\|[\w-]+)*", text.split("Uncomment to change:\n")[1].split("\npolicies:")[0]))
        assert listed == offered == set(dos.default_policies) - foreign, side
        assert {"advance", "losses", "defence_air", "major_city_double"} <= listed    # either side's (9.8, 9.67, 14.22, 9.33)
    tried = submit_orders(folder, [], {"rail_clearing": "none", "acceleration": "normal"}, side="axis", sent=SENT,
                          dry_run=True)
    assert [w for w in tried.warnings if w.startswith("policies:")] == [
        "policies: acceleration answers only soviet's decisions, so setting it for axis changes nothing"]


def test_every_ruleset_names_its_one_sided_standing_orders_by_their_keys_and_sides():
    from pbem import rulesets

    named = 0
    for ruleset_id in rulesets.ids():
        ruleset = rulesets.get(ruleset_id)
        for key, sides in (ruleset.policy_sides or {}).items():
            assert key in ruleset.default_policies and set(sides) < set(ruleset.sides), (ruleset_id, key)
            named += 1
    assert named == 8 + 1     # dos's eight, stalingrad's withdrawal substitute (11.3)


def test_only_an_order_type_of_a_movement_phase_says_the_list_is_a_sample_and_how_to_see_every_one():
    """`--only rail` filters the phase's sample, which may hold no rail move though many units
    could move by rail (players' probe: "0 of them name rail" read as "no rail move now")."""
    from pbem.core import engine, game

    opened, sc = game.open_folder(EXAMPLE), SC()
    for seq in range(opened.state["seq"] + 1):   # a state of the example whose sample holds moves, and no rail
        state = game.load_state(EXAMPLE, seq, opened.game)     # move, where some unit may move by rail
        need = engine.awaited_need(state)
        if need is None or need.kind != "axis-move" or state["awaiting"]["waiting_for"] != "orders":
            continue
        rules = state["rules"]
        sample = flow.legal_orders(sc, rules, need)
        if sum(1 for o in sample if o["type"] == "move") > 1 and not any(o["type"] == "rail" for o in sample) \
                and any(o["type"] == "rail" for u in sc.side_units["axis"] if st.on_map(rules, u)
                        for o in movement.unit_options(sc, rules, "axis", u)):     # there are rail moves to list
            break
    else:
        pytest.fail("no state of the dos example offers a sample of moves without a rail move, where rail moves are")
    orders, note = flow.listing(sc, rules, need, "rail")
    assert orders == sample and note == (
        "These are a sample (the moves of the next stack able to move, to some of the hexes it can reach): every "
        "rail move of every unit would be too many to list. `pbem orders ... --only UNIT` lists every rail move of "
        "one unit, with its other moves.")
    _, note = flow.listing(sc, rules, need, "move")
    assert "every move of every unit would be too many to list" in note
    whole = templates.orders_template(opened.game, state, "axis", only="rail")
    assert "# Legal orders listed now (" in whole and "0 of them name rail), not every one (see the note below)" in whole


def test_a_units_template_lists_its_rail_moves_after_its_many_moves_by_foot():
    """A unit may reach a hundred hexes by foot before its rail moves, listed last: `--only
    UNIT` lists up to MAX_NAMED orders, not the 80 of a whole phase's list (players' probe:
    Tr/2's rail moves were all in "... 99 more")."""
    import re

    opened, state, need = axis_moves("move")
    sc, rules = SC(), state["rules"]
    uid, moves = min(((u, moves) for u in sorted(sc.side_units["axis"]) if st.on_map(rules, u)
                      for moves in [movement.unit_options(sc, rules, "axis", u)]
                      if len(moves) > templates.MAX_LISTED and any(o["type"] == "rail" for o in moves)),
                     key=lambda found: len(found[1]))      # the one that `--only` lists whole most surely
    assert len(moves) < templates.MAX_NAMED
    listed = re.findall(r"^#   - (.*)$", templates.orders_template(opened.game, state, "axis", only=uid), re.M)
    assert len(listed) == len(moves) and sum("type: rail" in line for line in listed) == \
        sum(o["type"] == "rail" for o in moves) > 0


def test_submit_warns_of_reinforcements_left_off_the_map_as_the_initial_movement_phase_ends(tmp_path):
    """15.1, 15.3: reinforcements ready to enter that do not enter wait off the map for a later
    Initial Movement Phase; `pbem submit` says so when a packet ends that phase without them
    (players' probe: 34 of 36 Soviet reinforcements stayed off the map, unsaid)."""
    from pbem.core import game, genesis
    from pbem.core.submit import submit_orders
    from pbem import rulesets

    folder = game.create(tmp_path / "g", genesis.sandbox(rulesets.get("dos"), {"seed": "ready"}, created=SENT))
    folder = ended_until(folder, lambda state: (state["awaiting"]["need"] or {}).get("kind") == "axis-move"
                         and state["rules"]["turn"] == 2)
    rules = folder.state["rules"]
    ready = movement.ready(SC(), rules, "axis")
    assert len(ready) > 1 and rules["phase"] == "move"
    tried = submit_orders(folder, [{"type": "end"}], None, side="axis", sent=SENT, dry_run=True)
    said = [w for w in tried.warnings if "reinforcements did not enter" in w]
    assert said == [f"{len(ready)} of your reinforcements did not enter as your Initial Movement Phase ended "
                    f"({', '.join(ready[:8])}{f' and {len(ready) - 8} more' if len(ready) > 8 else ''}): they wait "
                    f"off the map for a later one (15.1, 15.3)"]
    tried = submit_orders(folder, [], None, side="axis", sent=SENT, dry_run=True)    # the phase goes on
    assert not any("reinforcements did not enter" in w for w in tried.warnings)


def test_the_soviet_template_before_the_draw_describes_the_set_up_its_reveal_brings(tmp_path):
    """Packet 2's reveal draws the Soviet initial force (5.21), and the Soviet player may set it
    up in the same packet: the template lists the units and the area they set up in, as it does
    when the set-up is awaited, before the note that speaks of "its area (above)" (players'
    probe: nothing was above it)."""
    from pbem.core import templates as core_templates
    from tests.support.games import Match

    m = Match(tmp_path, "dos", key_seed="draw")
    m.send("axis", [])
    text = core_templates.orders_template(m.game, m.state("soviet"), "soviet", m.keys["soviet"])
    area = text.index("units to set up, east of the 28 June 1942 Front Line (5.22)")
    assert "# Your reveal resolves what is queued, and then the game comes to your own orders." in text
    assert area < text.index("may go to any hex of its area") and "every unit in supply (5.25)" in text[area:area + 400]
    placed = m.send("soviet", [{"type": "end"}])   # set up in packet 2, after its draw (README)
    awaiting = placed.state["awaiting"]
    assert placed.state["seq"] == 2 and (awaiting["packet_from"], awaiting["need"]["kind"]) == ("axis", "setup")
    assert [u for u, w in placed.state["rules"]["units"].items() if SC().side_of[u] == "soviet" and w == "setup"] == []


def test_after_the_withdrawal_its_packet_lists_the_initial_movement_phase_too(tmp_path):
    """The Axis player's packet that reveals the dice before a withdrawal (15.21)
    answers it, and may carry the Initial Movement Phase's orders after it: the template lists
    those orders too, after the answer filled in, and `--only` finds a reinforcement's entries
    there (players' probe: the phase after the answer was written blind)."""
    from pbem.core import templates
    from tests.support.games import Match

    m = Match(tmp_path, "dos", key_seed="withdraw-6", chain_length=256)
    for _ in range(60):
        state = m.state()
        sender = state["awaiting"]["packet_from"]
        text = templates.orders_template(m.game, m.state(sender), sender, m.keys[sender])
        if "own decision" in text and "withdraw" in text:
            break
        waiting, need = state["awaiting"]["waiting_for"], state["awaiting"]["need"]
        mine = need is not None and need["side"] == sender
        m.send(sender, [{"type": "end"}] if waiting == "orders" and mine else
               m.game.legal_orders(state["rules"], m.game.next_step(state["rules"]))[:1] if waiting == "decision" and mine
               else [])
    else:
        pytest.fail("no withdrawal came")
    assert sender == "axis"
    lines = text.splitlines()
    answers = lines.index("# With the answer filled in, the game then comes to your orders: write them after it, in this")
    # (the Game-Turn of the withdrawal the dice bring, of those 15.5 lists)
    assert re.fullmatch(r"# axis: Game-Turn \d+, axis Initial Movement Phase: move, rail, overrun, enter, evacuate, "
                        r"air-supply, then end \(rule 6\.0\)\.", lines[answers + 2]), lines[answers + 2]
    assert lines[lines.index("orders:") + 1].startswith("  - {type: withdraw, units: [")
    only = templates.orders_template(m.game, m.state("axis"), "axis", m.keys["axis"], only="Germania/Wiking")
    after = only[only.index("# With the answer filled in"):]
    assert '#   - {type: enter, units: ["Germania/Wiking"], path: [' in after


def test_only_unit_lists_a_soviet_units_strategic_withdrawals_out_of_an_axis_zoc():
    """18.11: "the Soviet Player may ignore Axis Zones of Control in moving any unit that is
    being moved east only". R/6 stands in G/57's zone: `--only R/6` listed only its overrun,
    though a withdrawal east was accepted (a rules probe); now it lists a withdrawal to each
    hex one reaches, and each is accepted."""
    sc = SC()
    rules = at(turn=5, player="soviet",
               units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, "A/21": {"hex": "N2143"}})
    orders, note = flow.listing(sc, rules, flow.next_step(sc, rules), "R/6")
    withdrawals = [o for o in orders if o.get("withdraw")]
    assert note is None and len(withdrawals) == 68 and len({o["path"][-1] for o in withdrawals}) == 68
    assert {"type": "move", "units": ["R/6"], "path": ["N2244"], "withdraw": True} in withdrawals
    assert [o for o in orders if not o.get("withdraw")] == [{"type": "overrun", "units": ["R/6"], "target": "N2246"},
                                                            {"type": "end"}]
    for order in withdrawals:
        tried = copy.deepcopy(rules)
        play(tried, [order])
        assert tried["units"]["R/6"] == order["path"][-1]


def test_only_unit_lists_east_only_moves_for_a_unit_that_withdrew_and_no_withdrawal_for_one_moved_west():
    """18.11 holds for a unit's whole move in the phase (movement.check_east_only), so `--only`
    lists no move the rules would refuse: R/6, having withdrawn east out of G/57's zone, is
    offered withdrawals east only, each accepted, and no overrun of G/57 behind it; R/6 having
    moved west out of no zone, into G/57's, is offered no withdrawal (and no move: it stands in
    an Enemy ZOC)."""
    sc = SC()
    rules = at(turn=5, player="soviet",
               units={"R/6": {"hex": "N2245", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, "A/21": {"hex": "N2143"}})
    play(rules, [{"type": "move", "units": ["R/6"], "path": ["N2244"], "withdraw": True}])
    orders, note = flow.listing(sc, rules, flow.next_step(sc, rules), "R/6")
    assert orders[-1] == {"type": "end"} and len(orders) > 10
    assert all(o["type"] == "move" and o["withdraw"] for o in orders[:-1]), orders
    here = sc.idx["N2244"]
    for order in orders[:-1]:
        path = [here] + [sc.idx[h] for h in order["path"]]
        assert all(sc.east_of(a, b) for a, b in zip(path, path[1:])), order
        tried = copy.deepcopy(rules)
        play(tried, [order])
        assert tried["units"]["R/6"] == order["path"][-1]

    rules = at(turn=5, player="soviet",
               units={"R/6": {"hex": "N2244", "revealed": [2, 4]}, "G/57": {"hex": "N2246"}, "A/21": {"hex": "N2143"}})
    assert not sc.east_of(sc.idx["N2244"], sc.idx["N2245"])
    play(rules, [{"type": "move", "units": ["R/6"], "path": ["N2245"]}])
    orders, note = flow.listing(sc, rules, flow.next_step(sc, rules), "R/6")
    assert not any(o.get("withdraw") for o in orders), orders
    assert [o["type"] for o in orders] == ["overrun", "end"]

    # an overrun is movement too: none west of a unit that withdrew (6/3Pz is north-west of N3031)
    rules = at(turn=5, player="soviet", units={"R/6": {"hex": "N3132", "revealed": [6, 8]}, "G/57": {"hex": "N3133"},
                                               "6/3Pz": {"hex": "N2932"}, "A/21": {"hex": "N3030"}})
    assert {"type": "overrun", "units": ["R/6"], "target": "N3133"} in \
        flow.listing(sc, rules, flow.next_step(sc, rules), "R/6")[0]        # G/57, west of R/6: before it withdrew
    play(rules, [{"type": "move", "units": ["R/6"], "path": ["N3031"], "withdraw": True}])
    assert sc.adjacent(sc.idx["N3031"], sc.idx["N2932"]) and not sc.east_of(sc.idx["N3031"], sc.idx["N2932"])
    orders, note = flow.listing(sc, rules, flow.next_step(sc, rules), "R/6")
    assert not any(o["type"] == "overrun" for o in orders), orders


def _sandbox_cli(tmp_path, monkeypatch, packets: list[tuple[str, str]]):
    """A sandbox dos game (seed x) given `packets` (side, orders text) through `pbem submit`; `run`."""
    from click.testing import CliRunner

    from pbem.cli import cli

    monkeypatch.chdir(tmp_path)

    def run(*args: str, code: int = 0) -> str:
        done = CliRunner().invoke(cli, list(args))
        assert done.exit_code == code, done.output
        return done.output

    run("new", "g", "--ruleset", "dos", "--side", "axis", "--side", "soviet", "--sandbox", "--seed", "x",
        "--created", "x")
    for n, (side, text) in enumerate(packets):
        Path(f"p{n}.yaml").write_text(text)
        run("submit", "g", f"p{n}.yaml", "--side", side)
    return run


def test_the_interdiction_template_is_a_sample_said_to_be_one_whose_lines_may_all_be_kept(tmp_path, monkeypatch):
    """A players' probe: the Air Interdiction Phase's template gave every air unit the same two
    hexes, as if all there were, and kept as written the packet was refused (two markers in one
    hex, 14.45)."""
    ends = "orders:\n" + "  - {type: end}\n" * 4
    run = _sandbox_cli(tmp_path, monkeypatch, [("soviet", "orders: []\n"), ("soviet", "orders:\n  - {type: end}\n"),
                                               ("axis", ends)])
    text = run("orders", "g", "--side", "axis")
    assert "# Legal orders listed now (3), not every one (see the note below)" in text
    assert "# A sample: each air unit with an Air Point left is shown placing its two markers on enemy-held" in text
    listed = re.findall(r'^#   - \{type: interdict, air: (\S+), hexes: \["(\w+)", "(\w+)"\]\}$', text, re.M)
    hexes = [h for _, a, b in listed for h in (a, b)]
    assert len(listed) == 2 and len(set(hexes)) == 4, listed
    kept = "orders:\n" + "".join(f'  - {{type: interdict, air: {air}, hexes: ["{a}", "{b}"]}}\n' for air, a, b in listed)
    Path("kept.yaml").write_text(kept + "  - {type: end}\n")
    done = run("submit", "g", "kept.yaml", "--side", "axis", "--dry-run")
    assert all(f"{air} places Air Interdiction markers on {a}, {b} (14.41)." in done for air, a, b in listed)


def test_units_out_of_supply_are_listed_with_the_air_supply_that_reaches_them(tmp_path, monkeypatch):
    """A players' probe: with the 9th Panzer Division out of supply (halved, 12.51), no template
    listed an air-supply order, not even `--only 10/9Pz` or `--only air-supply` (12.4)."""
    run = _sandbox_cli(tmp_path, monkeypatch, [
        ("soviet", "orders: []\n"),
        ("soviet", "orders:\n  - {type: place, unit: R/81, hex: N2448}\n  - {type: place, unit: GR/33, hex: N2448}\n"
                   "  - {type: end}\n"),
        ("axis", "orders:\n  - {type: end}\n"),
        ("axis", "orders:\n  - {type: overrun, units: [10/9Pz, 11/9Pz, 33/9Pz], target: N0849, air: {units: [AirK/8], "
                 "shift: -1}}\n  - {type: end}\n  - {type: attack, targets: [N0750], units: [110/11Pz, 111/11Pz, "
                 "15/11Pz, G/385, Hun/7, Hun/9], air: {units: [AirK/4, AirK/4], shift: -1}}\n  - {type: end}\n"
                 "  - {type: end}\n  - {type: end}\n"),
        ("soviet", "orders:\n  - {type: end}\n  - {type: attack, targets: [N0849], units: [R/315, R/335, R/402]}\n"
                   "  - {type: end}\n  - {type: end}\n  - {type: end}\n")])
    only = run("orders", "g", "--side", "axis", "--only", "air-supply")
    listed = re.findall(r'^#   - \{type: air-supply, air: (\S+), units: \["(\S+)"\]\}$', only, re.M)
    assert sorted(unit for _, unit in listed) == ["10/9Pz", "11/9Pz", "33/9Pz"], only
    assert "one Air Point supplies up to five steps of units" in only.replace("\n# ", " ")
    assert '#   - {type: air-supply, air: %s, units: ["10/9Pz"]}' % dict((u, a) for a, u in listed)["10/9Pz"] in run(
        "orders", "g", "--side", "axis", "--only", "10/9Pz")
    air, unit = listed[0]
    Path("s.yaml").write_text(f'orders:\n  - {{type: air-supply, air: {air}, units: ["{unit}"]}}\n')
    assert f"{air} spends an Air Point to supply {unit} for this phase (12.4)." in run(
        "submit", "g", "s.yaml", "--side", "axis", "--dry-run")
