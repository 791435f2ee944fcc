"""`pbem show --diff A B` walks the states between A and B: a unit that left the map is said
to have left it from where it last stood, and a unit whose last step was an advance after
combat to have advanced (players' probe: `--diff 4 15` said R/30, destroyed in N2047 after two
retreats, "was in N2150", where it stood at state 4, and listed advances as moves)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner

from pbem.cli import cli
from pbem.core import describe
from pbem.rulesets.dos import report, words
from tests.support import examples
from tests.test_dos_support import SC, at

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dos-demo"


def where(g, state: dict) -> dict[str, str]:
    """Each unit on the map, by the ruleset's view: its cell."""
    return {u: v["where"] for u, v in g.view(state["rules"])["units"].items() if v["status"] == "map"}


def test_a_unit_eliminated_is_said_to_have_stood_last_where_it_stood_last():
    """Every unit the example eliminates, from the first state it stood on the map: the diff
    names the cell it stood in last (before the packet that eliminated it, or at the end of a
    move, retreat or advance of that packet), and the cell of the first state beside it where
    that is another."""
    f = examples.opened(EXAMPLE)
    states = list(examples.every_frame(f))
    places = [where(f.game, fr.state) for fr in states]
    checked = moved = 0
    for k in range(1, len(states)):
        for uid in sorted(set(places[k - 1]) - set(places[k])):
            if f.game.view(states[k].state["rules"])["units"][uid]["status"] != "gone":
                continue
            j = min(n for n in range(k) if uid in places[n] and all(uid in places[m] for m in range(n, k)))
            last = places[k - 1][uid]
            for e in states[k].events:
                if uid in (e.get("units") or [e.get("unit")]) and len(e.get("path") or ()) >= 2:
                    last = e["path"][-1]
            found = describe.changes(f.game, states[j].state, states[k].state, states[j + 1:k + 1])
            said, = [c for c in found if c.get("unit") == uid and c["kind"] == "leave"]
            first = places[j][uid]
            if last == first:
                assert said["from"] == first and said["text"].endswith(f"; it was in {first}."), said
            else:
                assert said["from"] == last and said["was"] == first, said
                assert said["text"].endswith(f"; it was last in {last} (in {first} at state {j})."), said
                moved += 1
            checked += 1
    assert checked >= 10 and moved >= 1, (checked, moved)


def test_an_advance_after_combat_is_said_to_be_one():
    """A unit whose last step into where it stands was an advance after combat (9.8) advanced,
    from the hex it advanced from; one that moved on after it moved."""
    f = examples.opened(EXAMPLE)
    states = list(examples.every_frame(f))
    checked = 0
    for k in range(1, len(states)):
        after = where(f.game, states[k].state)
        before = where(f.game, states[k - 1].state)
        found = {c["unit"]: c for c in describe.changes(f.game, states[k - 1].state, states[k].state, [states[k]])
                 if c["kind"] == "move"}
        for e in states[k].events:
            if e["type"] != "advance" or len(e.get("path") or ()) < 2:
                continue
            for uid in e["units"]:
                moved_on = any(uid in (later.get("units") or [later.get("unit")]) and later.get("path")
                               for later in states[k].events[states[k].events.index(e) + 1:])
                if moved_on or after.get(uid) != e["path"][-1]:
                    continue
                side = f.game.view(states[k].state["rules"])["units"][uid]["side"]
                head = f"{uid} ({side}) advanced after combat from {e['path'][0]} to {e['path'][-1]}"
                came = "." if before[uid] == e["path"][0] else f"; it was in {before[uid]} at state {k - 1}."
                assert found[uid]["text"] == head + came
                assert found[uid]["advanced_from"] == e["path"][0]
                checked += 1
    assert checked >= 5, checked
    # and as `pbem show --diff` prints it, over a packet with an advance
    k = next(fr.seq for fr in states if any(e["type"] == "advance" and e.get("path") for e in fr.events))
    out = CliRunner().invoke(cli, ["show", str(EXAMPLE), "--diff", str(k - 1), str(k)]).output
    assert re.search(r"^- \S+ \((axis|soviet)\) advanced after combat from [NS]\d{4} to [NS]\d{4}", out, re.M), out


def test_a_unit_that_retreats_and_is_eliminated_in_one_packet_stood_last_at_the_end_of_its_retreat():
    """Within one packet the events tell the way: R/30 retreats N2150 -> N2149 -> N2048, then
    a second attack eliminates it there. Two states alone say only where it stood before."""
    sc = SC()
    dos = SimpleNamespace(view=lambda rules: words.view(sc, rules), summary=lambda rules: report.summary(sc, rules),
                          sides=["axis", "soviet"])
    before = at(units={"R/30": {"hex": "N2150"}, "G/57": {"hex": "N2250"}})
    after = copy.deepcopy(before)
    after["units"].update({"R/30": "gone", "G/57": "N2150"})
    events = [{"type": "retreat", "unit": "R/30", "path": ["N2150", "N2149", "N2048"], "rule": "9.72"},
              {"type": "advance", "side": "axis", "units": ["G/57"], "path": ["N2250", "N2150"], "rule": "9.8"},
              {"type": "eliminated", "units": ["R/30"], "rule": "9.67"}]
    step = SimpleNamespace(seq=5, state={"seq": 5, "rules": after}, events=events)
    text = describe.changes_text(dos, {"seq": 4, "rules": before}, {"seq": 5, "rules": after}, [step])
    assert "- R/30 (soviet) is now eliminated; it was last in N2048 (in N2150 at state 4)." in text
    assert "- G/57 (axis) advanced after combat from N2250 to N2150." in text
    alone = describe.changes_text(dos, {"seq": 4, "rules": before}, {"seq": 5, "rules": after})
    assert "- R/30 (soviet) is now eliminated; it was in N2150." in alone
    assert "- G/57 (axis) moved from N2250 to N2150." in alone


def test_show_last_is_what_the_last_packet_changed():
    """A players' probe: "what happened last?" took `--diff` and two state numbers found
    elsewhere. `--last` is the diff from the state before the latest to the latest."""
    example = str(Path(__file__).resolve().parents[1] / "examples" / "chir-demo")
    latest = examples.opened(Path(example)).state["seq"]
    runner = CliRunner()
    last = runner.invoke(cli, ["show", example, "--last"])
    diff = runner.invoke(cli, ["show", example, "--diff", str(latest - 1), str(latest)])
    assert last.exit_code == 0 and last.output == diff.output
    assert last.output.startswith(f"Changes from state {latest - 1} to state {latest}:\n")
    both = runner.invoke(cli, ["show", example, "--last", "--state", "3"])
    assert (both.exit_code, both.stderr) == (2, "pbem: --last shows the latest two states; leave out --state\n")
    two = runner.invoke(cli, ["show", example, "--last", "--diff", "1", "2"])
    assert (two.exit_code, two.stderr) == (
        2, "pbem: show one thing at a time: --unit, --hex, --area, --square, --diff or --last\n")


def test_a_stalingrad_unit_is_said_to_lose_steps_not_its_printed_strength():
    """stalingrad's losses are steps (house 2.1, 6.5): a full unit that takes one is reduced.
    `--diff` said "lost 2 strength points: 2 of 4 left" of a unit of strength 4-2 that lost
    one step (a players' probe); it now counts steps, for every unit the example reduces."""
    folder = Path(__file__).resolve().parent.parent / "examples" / "stalingrad-demo"
    f = examples.opened(folder)
    states = [fr.state for fr in examples.every_frame(f)]
    sc = f.game.scenario
    reduced = [(k, u) for k in range(1, len(states)) for u in sorted(states[k]["rules"]["reduced"])
               if u not in states[k - 1]["rules"]["reduced"] and states[k - 1]["rules"]["units"].get(u)
               == states[k]["rules"]["units"][u] and u in sc.units]
    assert reduced
    for k, uid in reduced[:3]:
        text = CliRunner().invoke(cli, ["show", "--diff", str(k - 1), str(k), str(folder)]).output
        side = sc.units[uid].side
        assert f"- {uid} ({side}) lost 1 step: 1 of 2 left." in text, text
        assert "strength point" not in text
