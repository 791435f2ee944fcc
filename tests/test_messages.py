"""What a player reads when an orders file is wrong: one sentence naming the file, the
order and what to write instead (DESIGN §5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core.schema import order_errors
from pbem.rulesets.chir.orders import ORDER_SCHEMA as CHIR
from pbem.rulesets.dos.orders import ORDER_SCHEMA as DOS
from pbem.rulesets.stalingrad.orders import ORDER_SCHEMA as STALINGRAD


@pytest.fixture
def submit(tmp_path, monkeypatch):
    """`pbem submit` of an orders file's text to a fresh sandbox game of a ruleset, as
    german: its exit code and what it says."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(ruleset: str, text: str) -> tuple[int, str]:
        if not Path(ruleset).exists():
            made = runner.invoke(cli, ["new", ruleset, "--ruleset", ruleset, "--side", "german", "--side", "soviet",
                                       "--sandbox", "--created", "x"], catch_exceptions=False)
            assert made.exit_code == 0, made.output
        Path("o.yaml").write_text(text)
        result = runner.invoke(cli, ["submit", ruleset, "o.yaml", "--side", "german"], catch_exceptions=False)
        return result.exit_code, result.stderr
    return invoke


def test_an_unquoted_hex_id_is_told_to_be_quoted(submit):
    code, said = submit("chir", "orders: [{type: place, unit: LW/I, hex: 3413}]\n")
    assert code == 1
    assert said == ("pbem: o.yaml: order 1, field `hex`: 3413 is not of type 'string' (YAML reads it as an "
                    "integer); quote it: hex: \"3413\"\n")


def test_a_misspelt_type_key_is_named_with_the_missing_type(submit):
    code, said = submit("stalingrad", 'orders: [{typ: reinforce, unit: "24pd-26pgr", area: aerodromny}]\n')
    assert code == 1
    assert said == ("pbem: o.yaml: order 1: unknown key `typ` (missing `type`); the order types are end, "
                    "reinforce, shift, move, attack, card, allocate, apply, retreat, substitute\n")


def test_a_misspelt_key_of_a_typed_order_is_named_with_the_keys_of_its_type(submit):
    code, said = submit("stalingrad", 'orders: [{type: reinforce, unit: "24pd-26pgr", aera: aerodromny}]\n')
    assert code == 1
    assert said == ("pbem: o.yaml: order 1: unknown key `aera` (missing `area`); an order of type "
                    "reinforce takes the keys type, unit, area\n")


def test_a_flow_mapping_left_open_is_named(submit):
    code, said = submit("stalingrad", 'orders:\n  - {type: reinforce, unit: "24pd-26pgr", area: aerodromny\n'
                                      '  - {type: end}\n')
    assert code == 4
    assert said == ("pbem: o.yaml, line 2: the `{` opened on this line is not closed after 'aerodromny' (expected "
                    "`,` or `}`)\n")


def test_the_chir_template_shows_hex_ids_quoted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    runner.invoke(cli, ["new", "g", "--ruleset", "chir", "--side", "german", "--side", "soviet", "--sandbox",
                        "--created", "x"], catch_exceptions=False)
    template = runner.invoke(cli, ["orders", "g", "--side", "german"], catch_exceptions=False).output
    assert '# place: {type: place, unit: ID, hex: "CCRR"} (hex ids in quotes);' in template


@pytest.mark.parametrize("schema, order, path, message", [
    (CHIR, {"type": "move", "units": ["LW/I"], "path": [3413, "3414"]}, ["path", 0],
     "3413 is not of type 'string' (YAML reads it as an integer); quote it: path: [\"3413\", ...]"),
    (CHIR, {"type": "retreat", "to": 3413}, ["to"],
     "3413 is not of type 'string', 'null' (YAML reads it as an integer); quote it: to: \"3413\""),
    # dos hex ids begin with their mapsheet: the number quoted would be refused too (players' probe)
    (DOS, {"type": "place", "unit": "GR/14", "hex": 3036}, ["hex"],
     "3036 is not of type 'string' (YAML reads it as an integer), and ids here begin with a letter (N3117, S0442): "
     "write \"N3036\" or \"S3036\", quoted"),
    (DOS, {"type": "move", "units": ["GR/14"], "path": ["N3037", 3036]}, ["path", 1],
     "3036 is not of type 'string' (YAML reads it as an integer), and ids here begin with a letter (N3117, S0442): "
     "write \"N3036\" or \"S3036\", quoted"),
    # with the digits of the ids it may mean: 442 for 0442
    (DOS, {"type": "place", "unit": "GR/14", "hex": 442}, ["hex"],
     "442 is not of type 'string' (YAML reads it as an integer), and ids here begin with a letter (N3117, S0442): "
     "write \"N0442\" or \"S0442\", quoted"),
    (DOS, {"type": "place", "unit": 14, "hex": "N3036"}, ["unit"],
     "14 is not of type 'string' (YAML reads it as an integer); quote it: unit: \"14\""),
    (CHIR, {"type": "move", "units": "LW/I", "path": ["3414"]}, ["units"],
     "'LW/I' is a single value where a list is wanted: units: [LW/I]"),
    (CHIR, {"type": "move", "units": ["LW/I"], "path": "3414"}, ["path"],
     "'3414' is a single value where a list is wanted: path: [\"3414\"]"),
    (STALINGRAD, {"unit": "24pd-26pgr"}, [],
     "missing `type`; the order types are end, reinforce, shift, move, attack, card, allocate, apply, retreat, "
     "substitute"),
    (STALINGRAD, {"type": "reinfroce", "unit": "24pd-26pgr"}, ["type"],
     "'reinfroce' is not an order type (did you mean 'reinforce'?); the order types are end, reinforce, shift, "
     "move, attack, card, allocate, apply, retreat, substitute"),
    (STALINGRAD, {"type": "reinforce", "unit": "24pd-26pgr"}, [],
     "missing key `area`; an order of type reinforce takes the keys type, unit, area"),
    (CHIR, {"type": "attack", "target": "3413", "units": ["A/I"], "suport": ["B/I"]}, [],
     "unknown key `suport` (did you mean `support`?); an order of type attack takes the keys type, target, units, "
     "support"),
    (CHIR, {"type": "retreat"}, [], "missing `to` or `path`; an order of type retreat takes the keys type, to, path"),
    # values said as the player wrote them in YAML, not as Python writes them (a user's probe: "None is not an order type")
    (CHIR, {"type": None}, ["type"], "null is not an order type; the order types are end, place, attack, move, enter, "
     "artillery, fire, remove, invalidate, loss, morale, retreat, advance, advance-end"),
    (CHIR, {"type": "move", "units": None, "path": ["3414"]}, ["units"],
     "null is a single value where a list is wanted: units: [null]"),
    (CHIR, {"type": "move", "units": [True], "path": ["3414"]}, ["units", 0], "true is not of type 'string'"),
    (CHIR, {"type": "retreat", "to": "3413", "path": []}, [],
     "give only one of `to` or `path`; an order of type retreat takes the keys type, to, path"),
])
def test_an_order_outside_its_schema_is_explained_from_the_schema_of_its_type(schema, order, path, message):
    first = order_errors(schema, order)[0]
    assert (list(first.path), first.message) == (path, message)


@pytest.fixture
def dos_setup(tmp_path, monkeypatch):
    """`pbem submit --dry-run` of an orders file's text as soviet, to a sandbox dos game at
    the Soviet set-up (packet 2): its exit code and what it says."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    made = runner.invoke(cli, ["new", "dos", "--ruleset", "dos", "--side", "axis", "--side", "soviet", "--sandbox",
                               "--created", "x"], catch_exceptions=False)
    assert made.exit_code == 0, made.output
    Path("o.yaml").write_text("orders: []\n")
    drawn = runner.invoke(cli, ["submit", "dos", "o.yaml", "--side", "soviet"], catch_exceptions=False)
    assert drawn.exit_code == 0, drawn.output

    def invoke(text: str) -> tuple[int, str]:
        Path("o.yaml").write_text(text)
        result = runner.invoke(cli, ["submit", "dos", "o.yaml", "--side", "soviet", "--dry-run"],
                               catch_exceptions=False)
        return result.exit_code, result.stderr
    return invoke


@pytest.mark.parametrize("text, said", [
    ("orders:\n  - {type: place, unit: R/6, hex: 0442}\n",
     "pbem: o.yaml, line 2: '0442' could be read as an integer by YAML 1.1 or 1.2 readers, and ids here begin with "
     "a letter (N3117, S0442): write \"N0442\" or \"S0442\", quoted\n"),
    ("- {type: move, units: [R/6], path: [N0441, 0442]}\n",     # a bare list of orders, a hex of a path
     "pbem: o.yaml, line 1: '0442' could be read as an integer by YAML 1.1 or 1.2 readers, and ids here begin with "
     "a letter (N3117, S0442): write \"N0442\" or \"S0442\", quoted\n"),
    ("orders:\n  - {type: place, unit: 0442, hex: N0442}\n",   # a unit id may be digits: quoted, it may be right
     "pbem: o.yaml, line 2: '0442' could be read as an integer by YAML 1.1 or 1.2 readers; quote it\n"),
    # where an integer is wanted, the integer to write, not "quote it", which the schema refuses as
    # a string next (a players' probe: `shift: +1`, then `shift: "+1"`)
    ("orders:\n  - {type: attack, targets: [N2349], units: [G/57], air: {units: [AirK/8], shift: +1}}\n",
     "pbem: o.yaml, line 2: '+1' could be read as an integer by YAML 1.1 or 1.2 readers, and the value here is an "
     "integer: write 1, plain (one of 1, -1)\n"),
    # not one of them: no value to write is suggested (a review: "write 2")
    ("orders:\n  - {type: attack, targets: [N2349], units: [G/57], air: {units: [AirK/8], shift: +2}}\n",
     "pbem: o.yaml, line 2: '+2' could be read as an integer by YAML 1.1 or 1.2 readers, and the value here is an "
     "integer, one of 1, -1, written plain\n"),
])
def test_a_dos_hex_number_the_yaml_refuses_is_answered_with_the_ids_it_may_mean(dos_setup, text, said):
    """`hex: 0442` is not told to be quoted, which '0442' would be refused too (players' probe:
    two round trips), but to write the id with its mapsheet letter."""
    assert dos_setup(text) == (4, said)


def test_the_integer_hint_names_no_value_the_schema_refuses():
    """An integer written with a sign or leading zeros where an integer is wanted: the integer to
    write, where the schema takes it; else the values it takes, as a list or a range (a review:
    "write 2" where 1 or -1 is wanted, "write 0" where 1 to 999 is)."""
    from pbem.core.schema import number_hint

    shift = {"type": "object", "properties": {"shift": {"enum": [1, -1]}}}
    count = {"type": "object", "properties": {"assault": {"type": "integer", "minimum": 1, "maximum": 999}}}
    assert [number_hint(shift, ["shift"], n) for n in ("+1", "-01", "+2")] == [
        "the value here is an integer: write 1, plain (one of 1, -1)",
        "the value here is an integer: write -1, plain (one of 1, -1)",
        "the value here is an integer, one of 1, -1, written plain"]
    assert [number_hint(count, ["assault"], n) for n in ("+3", "007", "+0", "-05")] == [
        "the value here is an integer: write 3, plain", "the value here is an integer: write 7, plain",
        "the value here is an integer from 1 to 999, written plain",
        "the value here is an integer from 1 to 999, written plain"]


@pytest.mark.parametrize("number, meant", [("0442", "N0442 or S0442"), ("0742", "N0742")])
def test_a_quoted_dos_hex_number_names_the_hexes_of_the_map_it_may_be(dos_setup, number, meant):
    """S0742 is off the southern mapsheet: only N0742 is named."""
    assert dos_setup(f'orders:\n  - {{type: place, unit: R/6, hex: "{number}"}}\n') == (
        1, f"pbem: o.yaml: order 1 (place hex={number} unit=R/6) is illegal: {number} is not a hex id: it begins "
           f"with its mapsheet, {meant} (3.1, 5.2).\n")


def test_a_number_the_yaml_refuses_is_told_to_be_quoted_where_ids_are_numbers(submit):
    assert submit("chir", "orders: [{type: place, unit: LW/I, hex: 0139}]\n") == (
        4, "pbem: o.yaml, line 1: '0139' could be read as an integer by YAML 1.1 or 1.2 readers; quote it\n")


def test_a_refused_order_cites_its_rule_once(submit):
    """stalingrad's messages name their rule themselves; the refusal adds it only where the
    message does not (it said "(house 2.1). (house 2.1).")."""
    code, said = submit("stalingrad", 'orders: [{type: reinforce, unit: "24pd-26pg", area: aerodromny}]\n')
    assert code == 1
    first = said.splitlines()[0]
    assert first.count("(house 2.1)") == 1 and first.endswith(
        "is illegal: there is no unit '24pd-26pg' (did you mean 24pd-26pgr?) in the order of battle (house 2.1).")
    assert len(said.splitlines()) == 1   # no "Legal now: a unit id from the order of battle" (a players' probe)
    code, said = submit("stalingrad", 'orders: [{type: reinforce, unit: "24pd-26pgr", area: aerodromy}]\n')
    assert said.splitlines()[0].endswith(
        "is illegal: there is no area 'aerodromy' (did you mean aerodromny?) on the map (house 1.1).")
    code, said = submit("chir", 'orders: [{type: place, unit: "LW/I", hex: "0101"}]\n')
    first = said.splitlines()[0]
    assert code == 1 and first.endswith("there is no hex 0101 (3.2).") and first.count("(3.2)") == 1, said


def test_a_packet_without_orders_when_orders_are_awaited_is_signed_with_a_warning(submit):
    """A packet of no orders reveals the next dice value and is legal; from a side the game waits
    orders from it costs a round trip, so `pbem submit` says so, and says nothing when none are due."""
    code, said = submit("stalingrad", "orders: []\n")                  # german, awaited for orders
    assert code == 0
    assert said == ("warning: this packet gives no orders, and the game waited for german's orders; it only reveals "
                    "your next dice value, and the game still waits for orders from you\n")
    result = CliRunner().invoke(cli, ["submit", "stalingrad", "o.yaml", "--side", "soviet"], catch_exceptions=False)
    assert result.exit_code == 0 and result.stderr == ""                # soviet had nothing to decide


def test_a_first_decision_its_standing_order_answers_is_said_so_everywhere(tmp_path, monkeypatch):
    """dos state 0 waits for the Soviet selection (5.21), which the standing order `draw` answers
    as packet 1's dice open, before its orders: the template offers no answer, status says a
    packet without orders does, and submit does not call such a packet idle."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    made = runner.invoke(cli, ["new", "dos", "--ruleset", "dos", "--side", "axis", "--side", "soviet", "--sandbox",
                               "--created", "x"], catch_exceptions=False)
    assert made.exit_code == 0, made.output
    template = runner.invoke(cli, ["orders", "dos", "--side", "soviet"], catch_exceptions=False).output
    assert "# Your standing order answers this decision (0.0/selection)" in template and "\norders: []\n" in template
    status = runner.invoke(cli, ["status", "dos"], catch_exceptions=False).output
    assert "0.0/selection" in status and "its standing order answers it as the packet's dice open" in status
    Path("o.yaml").write_text("orders: []\n")
    sent = runner.invoke(cli, ["submit", "dos", "o.yaml", "--side", "axis"], catch_exceptions=False)
    assert sent.exit_code == 0 and "warning" not in sent.stderr



def test_a_packet_without_orders_that_lets_the_standing_order_answer_is_not_called_idle(tmp_path, monkeypatch):
    """dos state 0 waits for the Soviet selection; in a sandbox game the Soviet player may send
    packet 1, empty, and the standing order draws (5.21) as its dice open: the game moved on to
    his set-up, so no warning that the packet was idle."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    runner.invoke(cli, ["new", "dos", "--ruleset", "dos", "--side", "axis", "--side", "soviet", "--sandbox",
                        "--created", "x"], catch_exceptions=False)
    Path("o.yaml").write_text("orders: []\n")
    sent = runner.invoke(cli, ["submit", "dos", "o.yaml", "--side", "soviet"], catch_exceptions=False)
    assert sent.exit_code == 0, sent.output + sent.stderr
    assert "draw" in sent.output and "warning" not in sent.stderr


def test_another_of_pbems_files_given_for_a_packet_is_named_as_what_it_is(tmp_path):
    """`pbem adjudicate GAME game.yaml` or an orders file: a usage slip (exit 2) said as such,
    not "the packet has no `game` field" with the exit code of a forgery (players' probe). In a
    game folder the same file is still a forged packet (exit 3)."""
    import shutil

    example = Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo"
    game = tmp_path / "game"
    shutil.copytree(example, game)
    (tmp_path / "o.yaml").write_text("orders:\n  - {type: end}\n")
    runner = CliRunner()
    cases = [(game / "game.yaml", "is a game's genesis, not a packet: `pbem join` takes it"),
             (game / "proposal.yaml", "is a proposal of a game, not a packet"),
             (game / "states" / "0003.yaml", "is a state file, not a packet"),
             (tmp_path / "o.yaml", "is an orders file, not a packet: `pbem submit` makes a packet of it")]
    for path, said in cases:
        result = runner.invoke(cli, ["adjudicate", str(game), str(path)])
        assert result.exit_code == 2 and result.output.startswith(f"pbem: {path} {said}"), result.output
    (game / "packets" / "0003-german.yaml").write_text("orders:\n  - {type: end}\n")
    audited = runner.invoke(cli, ["audit", str(game)])
    assert audited.exit_code == 3 and "no `pbem` field" in audited.output, audited.output


# --- a mistyped unit id: the unit it most likely meant (players' probe) ----------------------------

def test_a_mistyped_unit_id_is_matched_by_look_alike_characters_then_by_the_ids_the_order_may_name():
    """`R/3O` (letter O) was answered "did you mean R/73?", as close by letters as R/30: an id
    equal but for case, O for 0 or l and I for 1 comes first; then the closest of the ids the
    caller says the order may name now; then the closest of all."""
    from pbem.core.text import no_unit

    assert no_unit(["R/73", "R/30"], "R/3O") == "there is no unit R/3O (did you mean R/30?)"
    assert no_unit(["R/73", "R/30"], "r/3o") == "there is no unit r/3o (did you mean R/30?)"
    assert no_unit(["LW/I", "LW/II"], "LW/1") == "there is no unit LW/1 (did you mean LW/I?)"
    assert no_unit(["B/1", "B/I"], "b/l", prefer=["B/I"]) == "there is no unit b/l (did you mean B/I?)"
    assert no_unit(["R/30", "R/305"], "R/306") == "there is no unit R/306 (did you mean R/30?)"
    assert no_unit(["R/30", "R/305"], "R/306", prefer=["R/305"]) == "there is no unit R/306 (did you mean R/305?)"
    assert no_unit(["R/30", "R/305"], "Q/999", prefer=["R/305"]) == "there is no unit Q/999"


@pytest.mark.parametrize("unit, meant", [
    ("R/3O", "R/30"),     # O for 0, though R/73 is as close by letters
    ("R/306", "R/305"),   # drawn, to set up now: not R/30, which the text begins with but is in the pool
])
def test_a_dos_set_up_order_naming_no_unit_names_the_unit_it_most_likely_meant(dos_setup, unit, meant):
    assert dos_setup(f'orders:\n  - {{type: place, unit: "{unit}", hex: N2149}}\n') == (
        1, f"pbem: o.yaml: order 1 (place hex=N2149 unit={unit}) is illegal: there is no unit {unit} (did you mean "
           f"{meant}?) (5.2).\n")


def test_chir_suggests_the_unit_the_players_side_could_use():
    """chir 1.8.0 takes `no_unit`'s suggestion, as dos did in 1.10.0: a unit of the side that
    could be named now first (chir 1.7.0 gave both sides the first of two as close, the
    German Ob/Art to a Soviet player too), and look-alike characters taken as one."""
    from pbem.core import text
    from tests.test_chir_rules import position, refusal

    units = {"Ob/Art": {"hex": "2930"}, "CC/Art": {"hex": "2830"}}
    said = {}
    for player in ("german", "soviet"):
        rules = position(units, phase="movement", player=player)
        said[player] = refusal(rules, {"type": "move", "units": ["Oc/Art"], "path": ["2931"]})
    assert said == {"german": ("8.0", "move Oc/Art: there is no unit Oc/Art (did you mean Ob/Art?)"),
                    "soviet": ("8.0", "move Oc/Art: there is no unit Oc/Art (did you mean CC/Art?)")}
    assert text.no_unit(["11Pz/119I", "11Pz/110I"], "11Pz/11OI") == \
        "there is no unit 11Pz/11OI (did you mean 11Pz/110I?)"   # a look-alike O for 0 first


# --- an answer to a decision that is not open (players' probe) ------------------------------------

def test_an_answer_to_a_decision_that_is_not_open_names_the_one_open_now(tmp_path):
    """A player who copied last packet's answer was told that "order 5.3", which he never
    wrote, was "not waiting to be resolved", and not which decision was open: he is told the
    decision is not open, and the key of the one of his side open now, if any."""
    from pbem.core.errors import RulesError
    from tests.support.games import Match

    match = Match(tmp_path, key_seed="test2")             # r1's die in segment 4 is a 6, a hit
    match.send("red", [])
    stale = [{"type": "absorb", "unit": "b2", "decision": "1.1/absorb"}]
    with pytest.raises(RulesError) as refused:
        match.send("blue", stale, {"absorb": "ask"})
    assert str(refused.value) == (
        "orders: order 1 (absorb unit=b2) answers decision 1.1/absorb, which is not open: it was answered already, or "
        "never came (docs/protocol.md §7.2); no decision of blue is open now: leave the answer out")
    match.send("blue", [], {"absorb": "ask"})
    match.send("red", [{"type": "fire", "unit": "r1", "target": "b1"}])
    assert match.send("blue", []).state["awaiting"]["decision"] == "3.1/absorb"
    match.send("red", [])
    with pytest.raises(RulesError) as refused:
        match.send("blue", stale)
    assert str(refused.value) == (
        "orders: order 1 (absorb unit=b2) answers decision 1.1/absorb, which is not open: it was answered already, or "
        "never came (docs/protocol.md §7.2); the one open now is 3.1/absorb: write `decision: \"3.1/absorb\"`")
    assert match.state("blue")["seq"] == 5                # nothing applied


def test_an_answer_to_a_later_decision_that_an_earlier_answer_left_out_says_so(tmp_path):
    """A players' probe (dos): the template listed the second retreat of a D1 worked out from
    its default answer to the first; the player sent R/38 elsewhere, which left R/6 one vacant
    hex (9.73), taken without asking, and his answer for it was refused as "answered already,
    or never came", which it was not. The refusal says which answer of the packet left it out."""
    from pbem.core.errors import RulesError
    from pbem.rulesets.dos import RULESET as DOS
    from tests.support.games import Match

    doc = DOS.scenarios["historical"]()
    doc["position"] = {"turn": 3, "player": "axis", "phase": "combat", "rest": "out",
                       "units": {"R/6": {"hex": "N2245", "revealed": [4, 4]}, "R/38": {"hex": "N2245", "revealed": [4, 4]},
                                 "A/21": {"hex": "N2143"}, "G/57": {"hex": "N2246"}, "G/75": {"hex": "N2146"}}}
    match = Match(tmp_path, "dos", key_seed="s19", scenario_doc=doc)
    match.send("axis", [{"type": "attack", "targets": ["N2245"], "units": ["G/57"]}, {"type": "end"}],
               {"retreat_paths": "ask"})
    applied = match.send("soviet", [], {"defender_result": "retreat"})        # 1-1, die 2: D1/A1, retreated
    assert applied.state["awaiting"]["decision"] == "1.1/retreat"
    first, second = applied.state["rules"]["combat"]["retreat"]["queue"]
    answers = [{"type": "retreat", "unit": first, "path": ["N2345"], "decision": "1.1/retreat"},
               {"type": "retreat", "unit": second, "path": ["N2244"], "decision": "1.1/retreat/2"}]
    with pytest.raises(RulesError) as refused:
        match.send("axis", answers)
    assert str(refused.value).startswith(
        f"orders: order 2 (retreat path=N2244 unit={second}) answers decision 1.1/retreat/2, which is not open: it "
        f"never came after this packet's answer to decision 1.1/retreat: the decisions `pbem orders` lists after an "
        f"open one are worked out from the answers it fills in, and another answer may leave a later one with a single "
        f"option, taken without asking, or none (docs/protocol.md §7.2); leave it out; "), str(refused.value)
    assert match.state("axis")["seq"] == 2                                    # nothing applied
    applied = match.send("axis", answers[:1])
    assert [e["text"] for e in applied.events if e["type"] == "retreat"][:2] == [
        f"{first} retreats N2245 -> N2345 (path chosen by the axis player, 9.72).",
        f"{second} retreats N2245 -> N2244 (the only path open, 9.72)."]


# --- the joiner's last step (players' probe) -------------------------------------------------------

def test_the_joiner_is_told_what_he_does_next_for_his_own_side(tmp_path, monkeypatch):
    """Bob, playing blue, installing the complete game.yaml (no key needed) was shown the red
    player's command alone: his folder's join.yaml tells his side, and he is told about it;
    the proposer by his proposal.yaml; a spectator's folder tells no side."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output + result.stderr
        return result.output

    run("keygen", "red", "--dir", "keys")
    run("keygen", "blue", "--dir", "keys")
    run("new", "r", "--ruleset", "duel", "--side", "red=keys/red.pub", "--side", "blue=keys/blue.pub", "--key",
        "keys/red", "--created", "2026-11-29T10:00:00Z")
    run("join", "b", "r/proposal.yaml", "--key", "keys/blue")
    assert run("join", "r", "b/join.yaml", "--key", "keys/red").splitlines()[-1] == \
        "first packet: from you (red): `pbem orders r --key keys/red`"
    assert run("join", "b", "r/game.yaml").splitlines()[-1] == (
        "first packet: from red, your opponent; you play blue: `pbem adjudicate b PACKET` for each packet red sends, "
        "then `pbem orders b --key YOUR_KEY` for yours")
    assert run("join", "r", "r/game.yaml").splitlines()[-1] == \
        "first packet: from you (red): `pbem orders r --key YOUR_KEY`"
    assert run("join", "s", "r/game.yaml").splitlines()[-1] == (
        "first packet: from red (the player of red: `pbem orders s --key KEY`; anyone following the "
        "game: `pbem adjudicate s PACKET` for each packet, in order)")
    # a sandbox game has no keys: the command given is one that runs there (a review)
    run("new", "sb", "--ruleset", "duel", "--side", "red", "--side", "blue", "--sandbox", "--seed", "x")
    hint = run("join", "sbs", "sb/game.yaml").splitlines()[-1]
    assert hint == ("first packet: from red (the player of red: `pbem orders sbs --side red`; anyone following the "
                    "game: `pbem adjudicate sbs PACKET` for each packet, in order)")
    assert run("orders", "sbs", "--side", "red").startswith("# pbem orders for red")


@pytest.mark.parametrize("document, where, char", [
    ({"areas": [{"name": "ok"}, {"name": "Mechetka\nResult: Soviet victory"}]}, "areas[1].name", "\n"),
    ({"units": {"german\u202e": []}}, "units (the key german\\u202e)", "\u202e"),
    ({"levels": [{"level": "win\u200b"}]}, "levels[0].level", "\u200b"),
    ({"turns": 6, "names": ["a", "b"], 7: "x"}, None, None),
])
def test_first_unsafe_names_where_a_scenario_text_could_forge_a_line(document, where, char):
    """The path and the character a scenario refused at join is named by (game.py): a line
    break, a bidi override in a key, a zero-width space; nothing in plain text."""
    from pbem.core.text import first_unsafe

    assert first_unsafe(document) == ((where, char) if where else None)


def test_a_genesis_value_out_of_its_list_is_told_in_words(tmp_path):
    """A game.yaml whose mode is none of the modes names them as words, not as a Python list
    (['secure', 'sandbox'] was printed)."""
    import shutil

    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "stalingrad-demo", tmp_path / "g")
    genesis = tmp_path / "g" / "game.yaml"
    genesis.write_text(genesis.read_text().replace("\nmode: secure\n", "\nmode: securest\n"))
    done = CliRunner().invoke(cli, ["status", str(tmp_path / "g")])
    assert done.exit_code == 3 and done.stderr == (
        "pbem: game.yaml: the genesis does not match its schema: mode: 'securest' is not one of: secure, sandbox\n")


@pytest.mark.parametrize("text, line, words", [
    # an order uncommented where the template lists it, above `orders:`
    ("# order template\n#   - {type: end}\n  - {type: end}\n# more\norders:\n", 3,
     "this order stands above the `orders:` line, outside its list: move it below that line"),
    ("orders: []\n  - {type: end}\n", 1, "`orders: []` is an empty list, so the orders below it belong to none: write "
                                         "`orders:` without the `[]`"),
    ("orders: []   # none yet\n- {type: end}\n", 1, "`orders: []` is an empty list"),
])
def test_an_order_written_outside_the_orders_list_is_said_so_at_its_line(submit, text, line, words):
    """A players' probe: uncommenting a listed order where the template lists it read "line
    152: the YAML is malformed or truncated (did not find expected <document start>)", the line
    of `orders:`, not of the order; orders under a left-over `orders: []` read "did not find
    expected key"."""
    code, said = submit("chir", text)
    assert code == 4 and said.startswith(f"pbem: o.yaml, line {line}: {words}"), said


def test_an_order_of_a_later_phase_is_told_how_to_reach_that_phase(submit):
    """A players' probe: a move in chir's concentrated attack phase was refused with "the game
    waits for ... attack orders, then end", and nothing of what to do. An order of a type the
    open phase does not take, where that phase takes an `end`, is told to put the `end` first."""
    code, said = submit("stalingrad", 'orders: [{type: move, unit: "295id-518", to: ko-settlement}]\n')
    assert code == 1 and said.splitlines()[0].endswith(
        "is illegal: the game waits for Turn 1, German reinforcement phase: place reinforcements in German-controlled "
        "areas (11.2(1)), then end, which takes reinforce, end; for a later phase, put an `end` of this one before "
        "it.")
    code, said = submit("stalingrad", 'orders: [{type: reinforce, unit: "24pd-26pgr", area: aerodromy}]\n')
    assert "for a later phase" not in said   # a type the phase takes: refused for its own reason


def test_a_square_id_given_wrongly_is_told_in_words_not_as_its_pattern():
    """A players' probe: a kkoh assault whose target named a unit read "'R-TR2-TB1-1' does not
    match '^[0-9]{4}$'"; the schema describes a square's id, with an example, and says so."""
    from pbem import rulesets

    kkoh = rulesets.get("kkoh").order_schema
    errors = order_errors(kkoh, {"type": "assault", "target": "R-TR2-TB1-1", "units": ["B-Pz1-1"]})
    assert errors[0].message == "'R-TR2-TB1-1' is not a square's id, column and row, such as 0907"
    errors = order_errors(kkoh, {"type": "move", "units": ["B-Pz1-1"], "to": "7", "facing": "N"})
    assert errors[0].message == "'7' is not a square's id, column and row, such as 0907"
