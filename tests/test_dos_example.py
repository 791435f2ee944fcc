"""examples/dos-demo: a signed dos game of at least two full Game-Turns from the historical
scenario, auditing clean (tests/test_examples.py audits every example)."""

from pathlib import Path

from pbem.core.game import open_folder

DEMO = Path(__file__).resolve().parents[1] / "examples" / "dos-demo"


def test_the_dos_demo_has_two_game_turns():
    folder = open_folder(DEMO)
    rules = folder.state["rules"]
    assert folder.game.genesis["ruleset"] == "dos"
    assert rules["turn"] >= 3 and rules["phase"] != "selection"


def test_a_packet_is_applied_to_rules_holding_the_scenarios_own_unit_and_hex_strings():
    """Ruleset.share_strings: the engine gives the rules it applies a packet to the scenario's
    own id strings (dos looks its units up some 700 times a packet); no value changes."""
    import json

    from pbem.core import engine
    from pbem.core.canonical import canonical, load_mapping
    from pbem.core.game import packet_files, read_packet

    folder = open_folder(DEMO)
    sc = folder.game.scenario
    seq, path = packet_files(DEMO)[-1]
    before = load_mapping(DEMO / "states" / f"{seq - 1:04d}.yaml")
    rules = json.loads(json.dumps(before["rules"]))
    sc.share_strings(rules)
    assert canonical(rules) == canonical(before["rules"]) and list(rules["units"]) == list(before["rules"]["units"])
    own = {s: s for s in (*sc.ids, *sc.unit_ids)}
    on_map = [where for where in rules["units"].values() if where in sc.idx]
    assert len(on_map) > 100 and all(where is sc.ids[sc.idx[where]] for where in on_map)
    assert all(uid is own[uid] for uid in rules["units"]) and set(rules["units"]) == set(sc.unit_ids)
    assert not any(uid is own[uid] for uid in json.loads(json.dumps(before["rules"]))["units"])   # JSON's own strings

    new, _ = engine.apply_packet(folder.game, before, read_packet(path)[0], path.name)
    assert engine.state_hash(new) == load_mapping(DEMO / "states" / f"{seq:04d}.yaml")["state_hash"]
    placed = [uid for uid, where in new["rules"]["units"].items() if where in sc.idx]
    assert all(uid is own[uid] for uid in new["rules"]["units"]) and len(placed) > 100
