"""The kkoh standing orders that spend something — an EW turn (`ew: use`), an Air Support
request (`air_support: use`), a recce unit's evasion (`recce_evade: evade`) — answer yes only
where it can do something (a rules lawyer's probe: each default spent its turn, its request or
its unit for nothing). An answer the player writes is taken as written. Exact outcomes through
the real engine, with scripted dice."""

from __future__ import annotations

from pathlib import Path

from tests.support.cases import run_case
from tests.test_kkoh_cases import scenario_doc


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events if e["type"] not in ("order", "policy")]


def policy_answers(events: list[dict], kind: str) -> list[dict]:
    return [e["order"] for e in events if e["type"] == "policy" and e["kind"] == kind]


# --- K-SFX-1: an EW turn with no enemy marker on the table -------------------------------------------

def ew_game(tmp_path: Path, red_hq_on_table: bool, blue_policies: dict | None = None):
    spec = {
        "columns": 8, "rows": 8,
        "blue": {"specials": {"ew": 1}},
        "units": [
            {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "HA"},
            {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0606", "cell": "21", "facing": "S", "order": "HA"},
        ],
        "position": {"turn": 2, "ap": 0, "step": "turn", **({} if red_hq_on_table else {"lost": {"R-HQ": 1}})},
    }
    blue = {"side": "blue", "orders": [{"type": "end"}], **({"policies": blue_policies} if blue_policies else {})}
    # initiative (blue 6, red 5 - 2: blue has it), blue's EW attack on R-HQ (1+1) if any, red's on B-HQ
    # (5+5); the EW attacks wait for the dice of the packet after blue's
    packets = [{"side": "red", "orders": [{"type": "end"}]}, blue] + ([] if blue_policies else [{"side": "blue"}])
    return run_case(tmp_path, "kkoh", scenario_doc(spec), packets, [6, 5, 1, 1, 5, 5] if red_hq_on_table else [6, 5, 5, 5])


def test_the_ew_standing_order_keeps_the_ew_turn_when_the_enemy_has_no_marker_on_the_table(tmp_path):
    folder, events = ew_game(tmp_path, red_hq_on_table=False)
    rules = folder.state["rules"]
    assert policy_answers(events, "ew") == [{"type": "ew", "use": False}]
    assert "ew-special" not in kinds(events)
    assert rules["used"]["blue"].get("ew", 0) == 0
    assert rules["hqs"]["R-HQ"] == {"lost": 1}


def test_the_ew_standing_order_uses_the_ew_turn_against_a_marker_on_the_table(tmp_path):
    folder, events = ew_game(tmp_path, red_hq_on_table=True)
    assert policy_answers(events, "ew") == [{"type": "ew", "use": True}]
    [special] = [e for e in events if e["type"] == "ew-special"]
    assert special["text"] == "blue uses its EW unit this turn: Out of Command on 2 to 6 (K-SFX-1)."
    [attack] = [e for e in events if e["type"] == "ew" and "R-HQ" in e["text"]]
    assert attack["text"].startswith("EW attack on R-HQ: 1+1 = 2: Out of Command")
    assert folder.state["rules"]["used"]["blue"]["ew"] == 1


def test_an_ew_turn_the_player_spends_himself_is_spent_as_written(tmp_path):
    """Asked (`ew: ask`), blue answers yes with no enemy marker on the table: his answer is taken."""
    from pbem.core import game

    folder, _ = ew_game(tmp_path, red_hq_on_table=False, blue_policies={"ew": "ask"})
    assert (folder.state["awaiting"]["need"]["kind"], folder.state["awaiting"]["decision"]) == ("ew", "2.1/ew")
    packet = game.build_packet(folder.game, folder.state, "blue", [{"type": "ew", "use": True, "decision": "2.1/ew"}],
                               None, None, "")
    applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "blue's answer")
    assert [e["text"] for e in applied.events if e["type"] == "ew-special"] == [
        "blue uses its EW unit this turn: Out of Command on 2 to 6 (K-SFX-1)."]
    assert folder.state["rules"]["used"]["blue"]["ew"] == 1


# --- K-SFX-3 with K-AIR-2: Air Support for an air unit that would find no target -----------------------

def air_game(tmp_path: Path, red_square: str):
    spec = {
        "columns": 12, "rows": 12,
        "blue": {"specials": {"air_support": 1}, "air": [{"id": "B-HELO", "kind": "rotary"}]},
        "units": [
            {"id": "B1", "side": "blue", "row": "tank-1", "square": "0101", "cell": "01", "facing": "N", "order": "HD"},
            {"id": "R1", "side": "red", "row": "tr1-tank", "square": red_square, "cell": "21", "facing": "S",
             "order": "HD"},
        ],
        "turns": 3,
        "position": {"turn": 1, "ap": 4, "step": "fire", "initiative": "red"},
    }
    return run_case(tmp_path, "kkoh", scenario_doc(spec), [{"side": "blue", "orders": [{"type": "end"}]}], [3, 6])


def test_air_support_is_kept_for_an_air_unit_that_would_find_no_enemy_to_attack(tmp_path):
    """R1 nine squares from blue's only unit: beyond a rotary-wing unit's placement (2) and range (2)."""
    folder, events = air_game(tmp_path, "1010")
    rules = folder.state["rules"]
    assert policy_answers(events, "air-support") == [{"type": "air-support", "use": False}]
    [arrival] = [e for e in events if e["type"] == "air-arrival"]
    assert (arrival["die"], arrival["bonus"], arrival["success"]) == (3, 0, False)
    assert rules["used"]["blue"].get("air_support", 0) == 0


def test_air_support_is_used_for_an_air_unit_with_an_enemy_in_reach(tmp_path):
    """R1 three squares from B1: a rotary-wing unit placed beside B1 reaches it."""
    folder, events = air_game(tmp_path, "0104")
    assert policy_answers(events, "air-support") == [{"type": "air-support", "use": True}]
    [arrival] = [e for e in events if e["type"] == "air-arrival"]
    assert (arrival["die"], arrival["bonus"], arrival["success"]) == (3, 2, True)
    assert folder.state["rules"]["used"]["blue"]["air_support"] == 1


# --- K-REC-2 with K-GG-10: a recce that evades with no square to Give Ground to -------------------------

def recce_game(tmp_path: Path, closed: bool, blue_policies: dict | None = None, dice=(2,), full: bool = False):
    units = [
        # blue's lone recce in the corner, facing the table edge, on HA; red's R1 fires into 0000
        {"id": "B-REC", "side": "blue", "row": "recce-1", "square": "0000", "cell": "01", "facing": "S", "order": "HA"},
        {"id": "R1", "side": "red", "row": "tr1-tank", "square": "0001", "cell": "21", "facing": "S", "order": "HD"},
    ]
    if closed:   # R2 holds 0100: the away, diagonal and flank squares are all closed
        units.append({"id": "R2", "side": "red", "row": "tr1-tank", "square": "0100", "cell": "01", "facing": "N",
                      "order": "HD"})
    if full:     # six blue tanks fill 0100 (K-GG-8: on through it), and red holds every square beyond it
        units += [{"id": f"B{n}", "side": "blue", "row": "tank-1", "square": "0100", "cell": cell, "facing": "N",
                   "order": "HD"} for n, cell in enumerate(["01", "00", "02", "11", "10", "12"])]
        units += [{"id": f"R{n}", "side": "red", "row": "tr1-tank", "square": square, "cell": "01", "facing": "N",
                   "order": "HD"} for n, square in ((3, "0200"), (4, "0101"), (5, "0201"))]
    spec = {
        "columns": 6, "rows": 6,
        "commands": [{"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "0303"},
                     {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": "0505"}],
        "units": units,
        "position": {"turn": 1, "ap": 1, "step": "fire", "initiative": "blue"},
    }
    blue = {"side": "blue", "orders": [], **({"policies": blue_policies} if blue_policies else {})}
    red = {"side": "red", "orders": [{"type": "fire", "unit": "R1", "target": "B-REC"}, {"type": "end"}]}
    # with blue's tanks on the table, blue's fire plan too: an `end`
    after = [{"side": "blue", "orders": [{"type": "end"}]}] if full else []
    return run_case(tmp_path, "kkoh", scenario_doc(spec), [blue, red] + after, list(dice))


def test_a_recce_with_no_square_to_give_ground_to_stands_by_its_standing_order_and_takes_the_shot(tmp_path):
    folder, events = recce_game(tmp_path, closed=True)
    assert policy_answers(events, "evade") == [{"type": "evade", "unit": "B-REC", "go": False}]
    assert "recce-evades" not in kinds(events) and "destroyed" not in kinds(events)
    [stands] = [e for e in events if e["type"] == "recce-stands"]
    assert stands["text"] == "B-REC stands its ground under fire (K-REC-2)."
    assert "B-REC" in folder.state["rules"]["pieces"]


def test_a_recce_told_to_evade_with_no_square_to_give_ground_to_is_destroyed_as_written(tmp_path):
    """The player's own answer is taken: failing to Give Ground for any reason destroys (K-GG-10)."""
    folder, events = recce_game(tmp_path, closed=True, blue_policies={"recce_evade": "ask"}, dice=())
    assert folder.state["awaiting"]["need"]["kind"] == "evade"
    from pbem.core import game

    packet = game.build_packet(folder.game, folder.state, "blue", [{"type": "evade", "unit": "B-REC", "go": True}],
                               None, None, "")
    applied = game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "blue's answer")
    [destroyed] = [e for e in applied.events if e["type"] == "destroyed"]
    assert destroyed["text"] == "B-REC is destroyed (it cannot Give Ground, K-GG-10)."


def test_a_recce_with_a_square_to_give_ground_to_evades_by_its_standing_order(tmp_path):
    folder, events = recce_game(tmp_path, closed=False)
    assert policy_answers(events, "evade") == [{"type": "evade", "unit": "B-REC", "go": True}]
    assert "recce-evades" in kinds(events) and "destroyed" not in kinds(events)
    [moved] = [e for e in events if e["type"] == "give-ground"]
    assert (moved["origin"], moved["to"]) == ("0000", "0100")


def test_a_recce_whose_only_square_is_full_with_the_way_on_closed_stands_by_its_standing_order(tmp_path):
    """K-GG-8: a unit gives ground on through an over-full square, the same way; with the way
    on closed it is destroyed (K-GG-10). The only square open to B-REC, 0100, holds six blue
    tanks, and red holds every square beyond it: the standing order stands (a review: the full
    square was taken for a way out, and the recce evaded into its destruction)."""
    folder, events = recce_game(tmp_path, closed=False, full=True, dice=(2, 2, 2, 2))
    assert policy_answers(events, "evade") == [{"type": "evade", "unit": "B-REC", "go": False}]
    assert "destroyed" not in kinds(events) and "B-REC" in folder.state["rules"]["pieces"]


def test_the_evade_walk_looks_at_each_square_and_way_in_once(tmp_path, monkeypatch):
    """K-GG-8 through a field of full squares: 14 squares of six blue tanks each, walled in by red
    units, where the routes through full squares go round a loop with a fork in it. The walk of
    `recce_evade: evade` finds no way out, as the real walk would not, and looks at each square,
    come to from each side, once (a review: without a record of them the routes doubled at every
    fork, and a 13-column table took minutes, the 18-column one hours)."""
    from pbem.rulesets.kkoh import fire, giveground

    rows = ["EFEFEE", "EEFEFE", "FFFFEE", "FFFRFE", "FFESEE", "EEEEEE"]
    units, n = [], 0
    for y, row in enumerate(rows):
        for x, c in enumerate(row):
            square = f"{x:02d}{y:02d}"
            if c == "R":
                units.append({"id": "B-REC", "side": "blue", "row": "recce-1", "square": square, "cell": "01",
                              "facing": "S", "order": "HA"})
            elif c == "F":
                for cell in ["01", "00", "02", "11", "10", "12"]:
                    n += 1
                    units.append({"id": f"B{n}", "side": "blue", "row": "tank-1", "square": square, "cell": cell,
                                  "facing": "N", "order": "HD"})
            else:   # E: a red unit; S: R1, which fires at the recce from its south
                units.append({"id": "R1" if c == "S" else f"R{square}", "side": "red", "row": "tr1-tank",
                              "square": square, "cell": "21" if c == "S" else "01", "facing": "S" if c == "S" else "N",
                              "order": "HD"})
    spec = {"columns": 13, "rows": 12,
            "commands": [{"id": "B-HQ", "side": "blue", "row": "bde-hq", "level": "brigade", "square": "1010"},
                         {"id": "R-HQ", "side": "red", "row": "div-hq", "level": "division", "square": "1111"}],
            "units": units, "position": {"turn": 1, "ap": 1, "step": "fire", "initiative": "blue"}}
    walks: list[list[tuple]] = []      # the (square, square come from) each walk looked at
    real_routes, real_check = giveground.routes, fire.may_give_ground

    def routes(*args):
        walks[-1].append(args[3:5])
        assert len(walks[-1]) <= 14 * 8, "the walk looks at a square and a way in more than once"   # fails fast
        return real_routes(*args)

    def check(*args):
        walks.append([])
        return real_check(*args)

    monkeypatch.setattr(giveground, "routes", routes)
    monkeypatch.setattr(fire, "may_give_ground", check)
    red = {"side": "red", "orders": [{"type": "fire", "unit": "R1", "target": "B-REC"}, {"type": "end"}]}
    _, events = run_case(tmp_path, "kkoh", scenario_doc(spec),
                         [{"side": "blue", "orders": []}, red, {"side": "blue", "orders": [{"type": "end"}]}], [2] * 8)
    assert policy_answers(events, "evade") == [{"type": "evade", "unit": "B-REC", "go": False}]
    assert walks and all(walk and len(walk) == len(set(walk)) for walk in walks)
