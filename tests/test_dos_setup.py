"""dos set-up: 5.1-5.3 (the random Soviet selection, the placement checks of 5.22-5.25 and
5.3-5.38) and the default placements a player may leave the rest to.

Test names begin with the case they test."""

from __future__ import annotations

import random
import re

import pytest

from pbem.rulesets.dos import flow, setup, victory
from pbem.rulesets.dos import state as st
from pbem.rulesets.dos import supply as sp
from pbem.rulesets.dos.board import view
from tests.test_dos_support import SC, Ctx, IllegalOrder, events_of, play


class Draws(Ctx):
    """Random picks from a seeded generator, each recorded with the size of its pool."""

    def __init__(self, seed: int):
        super().__init__()
        self.rnd = random.Random(seed)
        self.pools: list[tuple[str, int]] = []

    def pick(self, label: str, among: int) -> int:
        self.pools.append((label, among))
        return self.rnd.randrange(among)


def drawn(seed: int = 0) -> tuple[dict, Draws]:
    """State after the Soviet selection: the Soviet player sets up."""
    rules = flow.setup_rules(SC())
    ctx = Draws(seed)
    play(rules, [{"type": "draw"}], ctx=ctx)
    return rules, ctx


def set_up(seed: int = 0) -> tuple[dict, Draws]:
    rules, ctx = drawn(seed)
    play(rules, [{"type": "end"}, {"type": "end"}], ctx=ctx)
    return rules, ctx


def soviet(rules: dict, where: str = "setup") -> list[str]:
    sc = SC()
    return sorted(u for u, w in rules["units"].items() if sc.side_of[u] == "soviet"
                  and (w == where if where != "map" else st.on_map(rules, u)))


# --- 5.1, 5.2: the markers and the random Soviet selection --------------------------------------------

def test_5_13_the_game_begins_at_30_to_175_on_game_turn_1():
    sc = SC()
    rules, _ = set_up()
    assert (rules["turn"], rules["player"], rules["phase"]) == (1, "axis", "move")
    assert victory.vp(sc, rules) == {"axis": 30, "soviet": 175}


def test_5_11_5_12_control_markers_hold_the_cities_at_the_start():
    sc = SC()
    rules, _ = set_up()
    for name in ("Kharkov", "Kursk", "Mariupol", "Taganrog"):
        assert victory.city_control(sc, rules, name) == "axis", name                                 # 5.11
    for name in ("Voronezh", "Rostov", "Millerovo", "Krasnodar", "Stalingrad"):
        assert victory.city_control(sc, rules, name) == "soviet", name                               # 5.12


def test_5_2_5_21_the_initial_force_is_drawn_one_by_one_from_what_is_left():
    sc = SC()
    rules, ctx = drawn(3)
    counts = {}
    for g in ("rifle", "cavalry", "guards", "mech", "hq"):
        pools = [n for label, n in ctx.pools if label.startswith(f"setup.{g}.")]
        counts[g] = len(pools)
        assert pools == list(range(pools[0], pools[0] - len(pools), -1)), g    # each from the counters left
    assert counts == {"rifle": 27, "cavalry": 6, "guards": 5, "mech": 2, "hq": 9}                   # 5.21 (errata: 6)
    chosen = soviet(rules)
    assert len([u for u in chosen if sc.units[u].combat]) == 27 + 6 + 5 + 2
    assert sorted(u for u in chosen if sc.units[u].air) == ["AA/2", "AA/4", "AA/8"]
    assert all(sc.units[u].arm == "infantry" for u in chosen if sc.units[u].group == "guards")      # Guards *rifle*
    assert events_of(ctx, "selection")[0]["rule"] == "5.21"
    other, _ = drawn(4)
    assert soviet(other) != chosen                                                                    # at random


def test_5_26_5_37_untried_units_stay_untried_through_the_set_up():
    sc = SC()
    rules, ctx = set_up(1)
    assert rules["revealed"] == {}
    assert not [label for label in ctx.labels if "untried" in label]
    assert any(st.untried(sc, rules, u) for u in soviet(rules, "map"))
    assert any(st.untried(sc, rules, u) for u in sc.units if sc.side_of[u] == "axis" and st.on_map(rules, u))


# --- 5.22-5.25: the Soviet placement ---------------------------------------------------------------

def test_5_22_no_soviet_unit_west_of_the_front_line():
    rules, _ = drawn()
    uid = soviet(rules)[0]
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "place", "unit": uid, "hex": "N2154"}])
    assert info.value.rule == "5.22"


def test_5_24_at_most_fourteen_away_from_the_line():
    sc = SC()
    rules, _ = drawn()
    band = setup.line_band(sc)
    far = [i for i in range(len(sc.ids)) if i not in band and i not in sc.axis_start and not sc.mountain[i]
           and sc.sheet[i] == "N" and sc.pos[i] < 20]
    units = [u for u in soviet(rules) if sc.units[u].combat]
    for uid, i in zip(units[:14], far):
        play(rules, [{"type": "place", "unit": uid, "hex": sc.ids[i]}])
    # fourteen away: legal as far as 5.24 goes
    with pytest.raises(IllegalOrder) as info:
        setup.check(sc, rules, "soviet")
    assert info.value.rule != "5.24"
    play(rules, [{"type": "place", "unit": units[14], "hex": sc.ids[far[14]]}])
    with pytest.raises(IllegalOrder) as info:
        setup.check(sc, rules, "soviet")
    assert info.value.rule == "5.24" and "15 units" in info.value.message


def test_5_23_every_front_line_hex_held_or_in_soviet_zoc():
    sc = SC()
    rules, _ = drawn()
    uid = [u for u in soviet(rules) if sc.units[u].combat][0]
    play(rules, [{"type": "place", "unit": uid, "hex": sc.ids[sc.front[0]]}])
    with pytest.raises(IllegalOrder) as info:
        setup.check(sc, rules, "soviet")
    assert info.value.rule == "5.23"


def test_5_25_every_soviet_unit_in_supply():
    sc = SC()
    rules, _ = drawn()
    play(rules, [{"type": "end"}])                       # the default placement: legal
    assert rules["player"] == "axis"
    hqs = [st.hex_of(rules, u) for u in soviet(rules, "map") if sc.units[u].hq]
    far = next(i for i in range(len(sc.ids)) if sc.sheet[i] == "N" and i not in sc.axis_start and not sc.mountain[i]
               and all(sc.distance(i, sc.idx[h]) > 6 for h in hqs) and i not in setup.line_band(sc)
               and sc.pos[i] < 12)
    # move a unit that the Front Line can spare to a hex beyond every HQ's radius
    for u in soviet(rules, "map"):
        if not sc.units[u].combat:
            continue
        h = st.hex_of(rules, u)
        st.put(rules, u, sc.ids[far])
        try:
            setup.check(sc, rules, "soviet")
        except IllegalOrder as err:
            if err.rule == "5.25":                       # and why: every HQ more than 6 hexes away
                # the end is refused for the placement, named with its hex (a new user's probe)
                assert err.message.startswith(f"the set-up may not end with units placed out of supply: {u} in "
                                              f"{sc.ids[far]}; {u}: no soviet HQ within its Leadership Rating: the "
                                              f"nearest, "), err.message
                assert err.message.endswith("; place them again (a `place` order moves a unit placed this set-up)")
                return
        st.put(rules, u, h)
    raise AssertionError("no unit could be moved out of supply")


# --- 5.3-5.38: the Axis placement -----------------------------------------------------------------

def test_5_31_to_5_34_each_unit_in_its_band_west_of_the_line():
    sc = SC()
    rules, _ = drawn()
    play(rules, [{"type": "end"}])
    seventeenth = next(u for u, x in sc.units.items() if x.setup == "5.31" and x.kind == "ger-inf")
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "place", "unit": seventeenth, "hex": "N2154"}])            # row 21: 6th Army's band
    assert info.value.rule == "5.31"
    east = next(sc.ids[i] for i in range(len(sc.ids)) if i not in sc.axis_start and sc.row[i] == 38)
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "place", "unit": seventeenth, "hex": east}])
    assert info.value.rule == "5.36"
    for zone, (lo, hi) in setup.ZONES.items():
        assert (lo, hi) == {"5.31": (37, 80), "5.32": (29, 36), "5.33": (15, 28), "5.34": (1, 14)}[zone]


def test_5_35_air_corps_and_trucks_anywhere_west_of_the_line():
    sc = SC()
    rules, _ = drawn()
    play(rules, [{"type": "end"}])
    far = next(sc.ids[i] for i in sorted(sc.axis_start) if sc.row[i] == 3 and not sc.mountain[i])
    south = next(sc.ids[i] for i in sorted(sc.axis_start) if sc.row[i] == 45 and not sc.mountain[i])
    play(rules, [{"type": "place", "unit": "Tr/1", "hex": far}, {"type": "place", "unit": "AirK/4", "hex": south}])
    assert (st.hex_of(rules, "Tr/1"), st.hex_of(rules, "AirK/4")) == (far, south)


def test_5_3_the_regiments_of_a_division_set_up_together():
    sc = SC()
    rules, _ = drawn()
    play(rules, [{"type": "end"}])
    regs = sc.divisions["3Pz"]
    a, b = sorted(i for i in sc.axis_start if 15 <= sc.row[i] <= 28 and not sc.mountain[i])[:2]
    play(rules, [{"type": "place", "unit": regs[0], "hex": sc.ids[a]},
                 {"type": "place", "unit": regs[1], "hex": sc.ids[b]}])
    # `pbem submit` warns of it before the end, saying where they stand (a players' probe: the
    # refusal came only at the end, and said not where)
    apart = "; ".join(f"{r} in {h}" for h, r in sorted([(sc.ids[a], regs[0]), (sc.ids[b], regs[1])]))
    assert [w for w in flow.cautions(sc, rules, [], "axis", []) if "stand apart" in w] == [
        f"the regiments of 3Pz stand apart ({apart}): the end of your set-up is refused until they stand together in "
        f"one hex (5.3)"]
    assert not [w for w in flow.cautions(sc, rules, [], "soviet", []) if "stand apart" in w]
    play(rules, [{"type": "place", "unit": regs[1], "hex": sc.ids[a]}])     # together: nothing to say
    assert not [w for w in flow.cautions(sc, rules, [], "axis", []) if "stand apart" in w]
    play(rules, [{"type": "place", "unit": regs[1], "hex": sc.ids[b]}])
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "end"}])
    # and the refusal says where they stand too (a players' probe: it sent him searching his file)
    # (the end places the third, unplaced, where the default set-up has it)
    assert info.value.rule == "5.3" and re.fullmatch(
        r"the regiments of 3Pz set up together, in one hex, and they stand apart: (\S+ in [NS]\d{4}(; )?){3}; "
        r"place them again \(a `place` order moves a unit placed this set-up\)", info.value.message), info.value.message
    assert all(f"{r} in {sc.ids[i]}" in info.value.message for r, i in ((regs[0], a), (regs[1], b)))


def test_5_36_every_front_line_hex_in_axis_zoc():
    sc = SC()
    rules, _ = set_up()
    zoc = view(sc, rules).zoc("axis")
    assert all(i in zoc for i in sc.front)
    for u in [u for u, x in sc.units.items() if x.side == "axis" and st.on_map(rules, u)]:
        if sc.adjacent(sc.idx[st.hex_of(rules, u)], sc.front[0]) or st.hex_of(rules, u) == sc.ids[sc.front[0]]:
            st.remove(rules, u, "out")
    with pytest.raises(IllegalOrder) as info:
        setup.check(sc, rules, "axis")
    assert info.value.rule == "5.36"


def test_5_38_17th_army_and_1st_panzer_army_hold_still_on_game_turn_1():
    sc = SC()
    rules, _ = set_up()
    still = next(u for u, x in sc.units.items() if x.setup == "5.32" and x.kind == "ger-inf")
    ezoc = view(sc, rules).ezoc("axis")
    free = next(u for u, x in sc.units.items() if x.setup == "5.33" and x.kind == "ger-inf"
                and sc.idx[st.hex_of(rules, u)] not in ezoc)
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "move", "units": [still], "path": [sc.ids[sc.nb[sc.idx[st.hex_of(rules, still)]][0]]]}])
    assert info.value.rule == "5.38"
    h = sc.idx[st.hex_of(rules, free)]
    step = next(j for j in sc.nb[h] if j in sc.axis_start and not view(sc, rules).occ.get(j) and not sc.mountain[j])
    play(rules, [{"type": "move", "units": [free], "path": [sc.ids[step]]}])
    assert st.hex_of(rules, free) == sc.ids[step]


# --- the default placements ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_the_default_placement_completes_a_set_up_begun_by_hand(seed):
    """A players' probe: with two HQs placed by hand, one far off the line (A/62 at N3117) and
    one beside another's radius (A/40 at N0848), `end` refused the set-up, naming line hexes
    40 hexes from either (5.23): the HQs left were spaced from each gap plus their rating, and
    left the far end of the line in no radius. Each HQ left now stands where its radius holds
    the first line hex in none and reaches furthest past it. And where the HQs placed by hand
    leave too little, the refusal says why."""
    sc = SC()
    rules, ctx = drawn(seed)
    # (the HQs the draw gave: the strongest far off, the weakest beside the first one's radius)
    hqs = sorted((u for u in soviet(rules) if sc.units[u].hq), key=lambda u: (-sc.units[u].leadership, u))
    play(rules, [{"type": "place", "unit": hqs[0], "hex": "N3117"}, {"type": "place", "unit": hqs[-1], "hex": "N0848"},
                 {"type": "end"}], ctx=ctx)
    setup.check(sc, rules, "soviet")
    assert not [u for u in soviet(rules) if sc.units[u].hq]   # every HQ placed
    assert rules["player"] == "axis"
    rules, ctx = drawn(seed)
    far = [i for i in range(len(sc.ids)) if i not in sc.axis_start and min(sc.distance(i, j) for j in sc.front) > 8]
    hand = [{"type": "place", "unit": u, "hex": sc.ids[i]} for u, i in zip(hqs[:5], far[::5])]   # the 5 strongest off
    with pytest.raises(IllegalOrder) as info:
        play(rules, hand + [{"type": "end"}], ctx=ctx)
    assert info.value.rule == "5.23" and "the HQs placed so far leave those hexes out of reach" in info.value.message
    # said so only where no HQ reaches an open line hex: where one does (all but two combat units
    # placed by hand at the line's north end, too few left for the rest), the refusal is 5.23's own
    rules, ctx = drawn(seed)
    band = sorted(setup.line_band(sc), key=lambda i: (sc.row[i], sc.pos[i]))
    for u in [u for u in soviet(rules) if sc.units[u].combat][:-2]:
        i = next(i for i in band if setup.place_error(sc, rules, "soviet", u, sc.ids[i]) is None)
        play(rules, [{"type": "place", "unit": u, "hex": sc.ids[i]}], ctx=ctx)
    with pytest.raises(IllegalOrder) as info:
        play(rules, [{"type": "end"}], ctx=ctx)
    assert info.value.rule == "5.23" and "out of reach" not in info.value.message, info.value.message
    assert setup.open_front_in_reach(sc, rules)   # (as the default placement left them: HQs reach them)


@pytest.mark.parametrize("seed", [*range(6), 9, 37, 41])   # 9, 37, 41: a Guards division alone held three line hexes
def test_the_default_placements_are_legal_for_any_draw(seed):
    """`end` with nothing placed gives a legal set-up whatever the draw (flow.legal_orders
    offers only `end` in the set-up): every Soviet unit placed and supplied, every Axis unit
    in its band, every Axis unit of an allied nationality inside its HQ's radius."""
    sc = SC()
    rules, ctx = drawn(seed)
    play(rules, [{"type": "end"}], ctx=ctx)
    setup.check(sc, rules, "soviet")                     # 5.25: at the Soviet set-up, before the Axis one
    play(rules, [{"type": "end"}], ctx=ctx)
    assert not [u for u, w in rules["units"].items() if w == "setup"]
    setup.check(sc, rules, "axis")
    board = view(sc, rules)
    supplied, _ = sp.field(sc, rules, board, "axis")
    axis = [u for u, x in sc.units.items() if x.side == "axis" and st.on_map(rules, u) and not x.air]
    assert [u for u in axis if u not in supplied] == []
    for u in axis:
        assert setup.zone_ok(sc, sc.units[u].setup, sc.idx[st.hex_of(rules, u)]), u
    # and the Soviet set-up still holds once the Axis units stand beside the line: its HQs out
    # of their reach (no first attack takes one, 11.33) and every unit's Line of Communication
    # clear of their ZOC (12.11; players' probe: 20 units were cut off on Game-Turn 1)
    soviet = [u for u, x in sc.units.items() if x.side == "soviet" and st.on_map(rules, u)]
    supplied, _ = sp.field(sc, rules, board, "soviet")
    assert [u for u in soviet if sc.units[u].combat and u not in supplied] == []
    hqs = [u for u in soviet if sc.units[u].hq]
    assert len(hqs) == 9 and [u for u in hqs if sc.idx[st.hex_of(rules, u)] in board.zoc("axis")] == []
