"""dos: a whole division retreating as a combat result (9.67, 9.72-9.75 with 7.1, 7.21-7.23).

7.22 (errata): "If all of the regiments comprising a particular Panzer or Panzergrenadier
division are present in a single hex, they may be treated as 'one combat unit' for the purposes
of Case 7.1." 9.73: "units may not be retreated into or through a hex in violation of the
stacking restrictions; units that would be forced to do so are eliminated instead." 9.72: the
Path of Retreat is determined by the opposing player, and "Units in a stack may be retreated in
different directions."

Found by a rules probe: a whole division retreating into a friendly hex that held two units was
retreated one regiment at a time; the first arrived (the division split, each regiment counting
one), the other two found the hex full and were eliminated under 9.73, although the three
together count one unit and the hex holds three. Now a whole division's regiments are judged as
they would stand together: the enemy may still send them apart (9.72), but only where every
regiment keeps a path within the stacking limit, counting the regiments apart one each
(README, readings chosen: "9.72, 9.73 a whole division retreating")."""

from __future__ import annotations

import copy

from pbem.rulesets.dos import RULESET, combat, flow
from pbem.rulesets.dos import state as st
from pbem.rulesets.dos.board import stacking_ok
from tests.support.cases import run_case
from tests.test_dos_support import SC, at, events_of, play, refused

PZ11 = ("15/11Pz", "110/11Pz", "111/11Pz")          # one Panzer and two Panzergrenadier regiments (7.2 errata)
HQ = {"A/21": {"hex": "N2143"}}                      # the Soviet HQ that supplies the Soviet units about N2245
TANKS_WEST = {"TC/1": {"hex": "N2244"}, "TC/16": {"hex": "N2244"}}
TANKS_NORTH = {"TC/4": {"hex": "N2145"}, "TC/24": {"hex": "N2145"}}
ASK = {"defender_result": "retreat", "retreat_paths": "ask", "advance": "none"}


def attack(targets, units, **extra) -> dict:
    return {"type": "attack", "targets": targets, "units": units, **extra}


def on(rules: dict, h: str) -> list[str]:
    return sorted(u for u, w in rules["units"].items() if w == h)


def texts(ctx, kind: str) -> list[str]:
    return [e["text"] for e in events_of(ctx, kind)]


def paths_offered(rules: dict) -> tuple[str, list[list[str]]]:
    """The unit whose path of retreat the game waits for, and every path offered (what `pbem
    orders` lists and a bot chooses from)."""
    sc = SC()
    need = flow.next_step(sc, rules)
    assert (need.kind, need.rule) == ("retreat", "9.72"), need
    options = flow.legal_orders(sc, rules, need)
    assert options == combat.retreat_options(sc, rules, rules["combat"])
    units = {o["unit"] for o in options}
    assert len(units) == 1
    return units.pop(), [o["path"] for o in options]


def soviet_attack(units: dict, attackers: list[str], die: int, **policies):
    """The Soviet Combat Phase of Game-Turn 3: 11Pz whole in N2245, attacked by the tank corps
    named (16 against 16, 1-1, die 1: D1; 32 against 16, 2-1, die 1: D2)."""
    rules = at(turn=3, player="soviet", phase="combat",
               units={**{u: {"hex": "N2245"} for u in PZ11}, **TANKS_WEST, **TANKS_NORTH, **HQ, **units})
    ctx = play(rules, [attack(["N2245"], attackers)], dice=[die], policies={**ASK, **policies})
    return rules, ctx


# --- the probe: the only retreat hex holds two friendly units ------------------------------------------------

# N2246 holds G/57 and G/75; R/6 holds N2346, and the ZOC of the tank corps and R/6 shuts the
# rest of the ring around N2245 (9.71): every regiment's one path leads into N2246
ONE_WAY = {"G/57": {"hex": "N2246"}, "G/75": {"hex": "N2246"}, "R/6": {"hex": "N2346", "revealed": [1, 1]}}
ONE_WAY_EVENTS = [
    "15/11Pz retreats N2245 -> N2246 (the only path open, 9.72).",
    "110/11Pz retreats N2245 -> N2246 (the only path open, 9.72).",
    "111/11Pz retreats N2245 -> N2246 (the only path open, 9.72); 11Pz stands whole there, one combat unit for the "
    "stacking limit (7.22)."]


def test_7_22_9_73_a_whole_division_retreats_into_a_hex_of_two_friendly_units_and_none_is_eliminated():
    """D1 (16 against 16, 1-1, die 1), answered with a retreat: the three regiments of 11Pz
    retreat into N2246 beside G/57 and G/75, three units with the division counting one (7.22).
    They were retreated one at a time: 15/11Pz arrived, and 110/11Pz and 111/11Pz were
    eliminated under 9.73 for a hex 'full' with the division split."""
    rules, ctx = soviet_attack(ONE_WAY, ["TC/1", "TC/16"], 1, retreat_paths="first")
    assert (events_of(ctx, "combat")[0]["column"], events_of(ctx, "combat")[0]["result"]) == ("1-1", "D1")
    assert texts(ctx, "choice") == ["The defender answers D1 with a retreat (9.67)."]
    assert texts(ctx, "retreat") == ONE_WAY_EVENTS
    assert [e["chosen_by"] for e in events_of(ctx, "retreat")] == ["only path"] * 3
    assert [e["path"] for e in events_of(ctx, "retreat")] == [["N2245", "N2246"]] * 3
    assert not events_of(ctx, "eliminated") and rules["broken"] == []
    assert on(rules, "N2246") == ["110/11Pz", "111/11Pz", "15/11Pz", "G/57", "G/75"]
    assert on(rules, "N2245") == [] and stacking_ok(SC(), rules, on(rules, "N2246"))
    # 9.75: retreated into a Friendly-occupied hex, each regiment
    assert rules["pt"]["retreated"] == {u: "N2246" for u in PZ11}
    # the end of the Combat Phase finds N2246 within the limit (7.1): nothing to eliminate
    ctx = play(rules, [{"type": "end"}], ctx=ctx)
    assert not events_of(ctx, "eliminated") and (rules["player"], rules["phase"]) == ("soviet", "mech")
    assert on(rules, "N2246") == ["110/11Pz", "111/11Pz", "15/11Pz", "G/57", "G/75"]


def test_7_22_9_73_through_the_engine(tmp_path):
    """The probe through pbem's engine: the Soviet packet attacks, the Axis standing order
    retreats, the Soviet standing order picks the paths; the report's lines as above."""
    doc = RULESET.scenarios["historical"]()
    doc["position"] = {"turn": 3, "player": "soviet", "phase": "combat",
                       "units": {**{u: {"hex": "N2245"} for u in PZ11}, **TANKS_WEST, **TANKS_NORTH, **HQ, **ONE_WAY}}
    folder, events = run_case(tmp_path, "dos", doc, [
        {"side": "axis", "policies": {"defender_result": "retreat"}},
        {"side": "soviet", "orders": [attack(["N2245"], ["TC/1", "TC/16"]), {"type": "end"}],
         "policies": {"advance": "none"}}], [1])
    assert [e["text"] for e in events if e["type"] == "retreat"] == ONE_WAY_EVENTS
    assert not [e for e in events if e["type"] == "eliminated"]
    rules = folder.state["rules"]
    assert on(rules, "N2246") == ["110/11Pz", "111/11Pz", "15/11Pz", "G/57", "G/75"]
    assert (rules["player"], rules["phase"], rules["broken"]) == ("soviet", "mech", [])


# --- the enemy chooses, and may split the division where it leaves every regiment room --------------------------

# D2 (32 against 16, 2-1, die 1): the second ring is shut but for N2247 and N2347, two German
# infantry divisions in each (N2147, N2445 and N2446 hold three, full); N2347 is reached through
# N2246 or N2346, N2247 through N2246 only
FULL = {u: {"hex": h} for h, us in (("N2147", ("G/111", "G/125", "G/132")), ("N2445", ("G/198", "G/22", "G/24")),
                                     ("N2446", ("G/16", "G/168", "G/170"))) for u in us}
TWO_WAYS = {**FULL, "G/57": {"hex": "N2347"}, "G/75": {"hex": "N2347"}, "G/79": {"hex": "N2247"},
            "G/113": {"hex": "N2247"}}
FOUR = ["TC/1", "TC/16", "TC/4", "TC/24"]
LIMIT = "and no more than 3 combat units may stand in a hex at any time of the Combat Phase (7.1)"


def test_9_72_9_73_a_split_that_leaves_a_regiment_no_room_is_refused_and_not_offered():
    """The Soviet player chooses each regiment's path (9.72). 15/11Pz may go into either hex.
    Once it stands in N2347, 110/11Pz may not go into N2247: 111/11Pz would then find both hexes
    full, each with a regiment counting one; it may follow 15/11Pz by either way, the way the
    last regiment took listed first. 111/11Pz may not leave its two regiments in N2347 apart
    (four units) either. The division stands whole in N2347, nothing eliminated."""
    rules, ctx = soviet_attack(TWO_WAYS, FOUR, 1)
    assert events_of(ctx, "combat")[0]["result"] == "D2"
    assert paths_offered(rules) == ("15/11Pz", [["N2246", "N2247"], ["N2246", "N2347"], ["N2346", "N2347"]])
    ctx = play(rules, [{"type": "retreat", "unit": "15/11Pz", "path": ["N2246", "N2347"]}], policies=ASK, ctx=ctx)
    assert paths_offered(rules) == ("110/11Pz", [["N2246", "N2347"], ["N2346", "N2347"]])
    err = refused(rules, {"type": "retreat", "unit": "110/11Pz", "path": ["N2246", "N2247"]}, "7.1")
    assert err.message == ("110/11Pz may not retreat into N2247: 111/11Pz of 11Pz would then have no path of retreat "
                           "within the stacking limit, its regiments apart counting one each (7.22, 9.73)")
    assert err.legal == [["N2246", "N2347"], ["N2346", "N2347"]]
    ctx = play(rules, [{"type": "retreat", "unit": "110/11Pz", "path": ["N2346", "N2347"]}], policies=ASK, ctx=ctx)
    assert paths_offered(rules) == ("111/11Pz", [["N2346", "N2347"], ["N2246", "N2347"]])
    err = refused(rules, {"type": "retreat", "unit": "111/11Pz", "path": ["N2246", "N2247"]}, "7.1")
    assert err.message == ("111/11Pz may not retreat into N2247: N2347 would be left holding 4 combat units (110/11Pz "
                           f"and 15/11Pz of 11Pz count one each once the division is split, 7.22), {LIMIT}")
    ctx = play(rules, [{"type": "retreat", "unit": "111/11Pz", "path": ["N2246", "N2347"]}, {"type": "end"}],
               policies=ASK, ctx=ctx)
    assert texts(ctx, "retreat") == [
        "15/11Pz retreats N2245 -> N2246 -> N2347 (path chosen by the soviet player, 9.72).",
        "110/11Pz retreats N2245 -> N2346 -> N2347 (path chosen by the soviet player, 9.72).",
        "111/11Pz retreats N2245 -> N2246 -> N2347 (path chosen by the soviet player, 9.72); 11Pz stands whole there, "
        "one combat unit for the stacking limit (7.22)."]
    assert not events_of(ctx, "eliminated") and rules["broken"] == [] and rules["phase"] == "mech"
    assert on(rules, "N2347") == ["110/11Pz", "111/11Pz", "15/11Pz", "G/57", "G/75"]
    assert on(rules, "N2247") == ["G/113", "G/79"]


def test_9_72_every_path_offered_taken_by_every_regiment_loses_nothing():
    """Whatever the Soviet player chooses among the paths offered, regiment after regiment,
    every regiment of 11Pz retreats and every hex stays within the limit."""
    sc = SC()
    start, _ = soviet_attack(TWO_WAYS, FOUR, 1)
    games = [start]
    finished = 0
    while games:
        rules = games.pop()
        if rules["combat"] is None or rules["combat"]["step"] != "def-retreat":
            assert all(st.status(rules, u) == "map" for u in PZ11) and rules["broken"] == []
            assert all(stacking_ok(sc, rules, on(rules, h)) for h in ("N2247", "N2347"))
            finished += 1
            continue
        uid, paths = paths_offered(rules)
        for path in paths:
            after = copy.deepcopy(rules)
            ctx = play(after, [{"type": "retreat", "unit": uid, "path": path}], policies=ASK)
            assert not events_of(ctx, "eliminated"), (uid, path)
            games.append(after)
    # 15/11Pz into N2347 by either way, then each of the others by either way (8); into N2247 by
    # its one way, and the others follow it there, the only path open to each (1)
    assert finished == 9


def test_9_72_the_enemy_may_split_the_division_where_each_regiment_keeps_room():
    """N2246 holds one German division, N2346 two (D1, 1-1): after 15/11Pz goes into N2346,
    110/11Pz may be sent into N2246 instead, the division apart (9.72: units in a stack may be
    retreated in different directions); 111/11Pz then has room only beside it, and goes there,
    the only path open. Nothing is eliminated; 11Pz no longer stands whole."""
    held = {"G/57": {"hex": "N2246"}, "G/79": {"hex": "N2346"}, "G/113": {"hex": "N2346"}}
    rules, ctx = soviet_attack(held, ["TC/1", "TC/16"], 1)
    assert events_of(ctx, "combat")[0]["result"] == "D1"
    assert paths_offered(rules) == ("15/11Pz", [["N2246"], ["N2346"]])
    ctx = play(rules, [{"type": "retreat", "unit": "15/11Pz", "path": ["N2346"]}], policies=ASK, ctx=ctx)
    assert paths_offered(rules) == ("110/11Pz", [["N2346"], ["N2246"]])          # following it first
    ctx = play(rules, [{"type": "retreat", "unit": "110/11Pz", "path": ["N2246"]}, {"type": "end"}], policies=ASK,
               ctx=ctx)
    assert texts(ctx, "retreat") == [
        "15/11Pz retreats N2245 -> N2346 (path chosen by the soviet player, 9.72).",
        "110/11Pz retreats N2245 -> N2246 (path chosen by the soviet player, 9.72).",
        "111/11Pz retreats N2245 -> N2246 (the only path open, 9.72)."]
    assert not events_of(ctx, "eliminated") and rules["phase"] == "mech"
    assert on(rules, "N2246") == ["110/11Pz", "111/11Pz", "G/57"]
    assert on(rules, "N2346") == ["15/11Pz", "G/113", "G/79"]


def test_9_72_the_standing_order_first_keeps_the_division_together():
    """Four friendly hexes around N2245 hold two German divisions each (D1): the standing order
    `first` takes the first path offered, and each regiment's first is the path of the one
    before it; 11Pz retreats whole into N2146 (it went into three hexes, one regiment each). The
    third regiment has no other way once two stand there: it may not leave them apart, four
    units with G/57 and G/75."""
    pairs = {u: {"hex": h} for h, us in (("N2146", ("G/57", "G/75")), ("N2246", ("G/79", "G/113")),
                                         ("N2345", ("G/111", "G/125")), ("N2346", ("G/132", "G/16"))) for u in us}
    rules, ctx = soviet_attack(pairs, ["TC/1", "TC/16"], 1, retreat_paths="first")
    assert [(e["unit"], e["path"], e["chosen_by"]) for e in events_of(ctx, "retreat")] == [
        (u, ["N2245", "N2146"], how) for u, how in zip(PZ11, ("policy", "policy", "only path"))]
    assert not events_of(ctx, "eliminated")
    assert on(rules, "N2146") == ["110/11Pz", "111/11Pz", "15/11Pz", "G/57", "G/75"]


# --- vacant hexes: the division may keep together, and is no Friendly-occupied hex to itself ---------------------

def test_9_73_9_75_a_hex_its_own_regiments_retreated_into_is_vacant_to_the_division():
    """Two vacant hexes open (D1): the second regiment was made to go into the other one (9.73:
    'into a vacant hex'), and the third, following the first, was marked under 9.75 as retreated
    into a Friendly-occupied hex. A hex that only its own division's regiments entered in this
    retreat is vacant to the division: the Soviet player may keep it together or send it apart,
    and no regiment counts as retreated into a Friendly-occupied hex."""
    rules, ctx = soviet_attack({}, ["TC/1", "TC/16"], 1)
    assert paths_offered(rules) == ("15/11Pz", [["N2246"], ["N2346"]])
    ctx = play(rules, [{"type": "retreat", "unit": "15/11Pz", "path": ["N2246"]}], policies=ASK, ctx=ctx)
    assert paths_offered(rules) == ("110/11Pz", [["N2246"], ["N2346"]])
    split = copy.deepcopy(rules)
    ctx = play(rules, [{"type": "retreat", "unit": "110/11Pz", "path": ["N2246"]},
                       {"type": "retreat", "unit": "111/11Pz", "path": ["N2246"]}], policies=ASK, ctx=ctx)
    assert on(rules, "N2246") == list(sorted(PZ11)) and rules["pt"]["retreated"] == {}
    assert [e["chosen_by"] for e in events_of(ctx, "retreat")] == ["order"] * 3
    # sent apart, as 9.72 lets him
    ctx = play(split, [{"type": "retreat", "unit": "110/11Pz", "path": ["N2346"]}], policies=ASK)
    assert paths_offered(split) == ("111/11Pz", [["N2346"], ["N2246"]])
    play(split, [{"type": "retreat", "unit": "111/11Pz", "path": ["N2246"]}], policies=ASK, ctx=ctx)
    assert on(split, "N2246") == ["111/11Pz", "15/11Pz"] and on(split, "N2346") == ["110/11Pz"]
    assert split["pt"]["retreated"] == {}


# --- the attacker's retreat (A1) -------------------------------------------------------------------------------

def test_7_22_9_67_a_whole_division_that_attacked_retreats_whole_into_a_hex_of_two_friendly_units():
    """11Pz attacks from N2246 (16 against 18, 1-2, die 3: A1), and the Axis standing order
    retreats: the only hex open is N2147 (G/57, G/75); N2247 and N2347 are full, N2146 and N2346
    in the ZOC of R/6 and R/38. The three regiments retreat there together (two of them were
    eliminated under 9.73)."""
    units = {**{u: {"hex": "N2246"} for u in PZ11}, "R/6": {"hex": "N2245", "revealed": [1, 9]},
             "R/38": {"hex": "N2245", "revealed": [1, 9]}, "G/57": {"hex": "N2147"}, "G/75": {"hex": "N2147"},
             "G/79": {"hex": "N2247"}, "G/113": {"hex": "N2247"}, "G/111": {"hex": "N2247"},
             "G/125": {"hex": "N2347"}, "G/132": {"hex": "N2347"}, "G/16": {"hex": "N2347"}, **HQ}
    rules = at(phase="combat", units=units)
    ctx = play(rules, [attack(["N2245"], list(PZ11)), {"type": "end"}], dice=[3],
               policies={"attacker_result": "retreat", "advance": "none"})
    assert (events_of(ctx, "combat")[0]["column"], events_of(ctx, "combat")[0]["result"]) == ("1-2", "A1")
    assert texts(ctx, "choice") == ["The attacker answers A1 with a retreat (9.67)."]
    assert texts(ctx, "retreat") == [
        "15/11Pz retreats N2246 -> N2147 (the only path open, 9.72).",
        "110/11Pz retreats N2246 -> N2147 (the only path open, 9.72).",
        "111/11Pz retreats N2246 -> N2147 (the only path open, 9.72); 11Pz stands whole there, one combat unit for the "
        "stacking limit (7.22)."]
    assert not events_of(ctx, "eliminated") and rules["broken"] == [] and rules["phase"] == "mech"
    assert on(rules, "N2147") == ["110/11Pz", "111/11Pz", "15/11Pz", "G/57", "G/75"]
