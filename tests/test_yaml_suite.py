"""The official YAML test suite read by the strict loader (DESIGN §2.1, docs/protocol.md Appendix A).

Every invalid input is refused with an InputError naming the file and the line; every
valid input is either read to exactly the suite's JSON or refused by a rule of pbem's
YAML subset, and the table below says which rule refuses which test, so a change in
what the loader accepts shows here. The cases are vendored in tests/data/yaml-test-suite.
"""

import json
import re
from pathlib import Path

import pytest

from pbem.core.canonical import canonical, loads
from pbem.core.errors import InputError

SUITE = Path(__file__).parent / "data" / "yaml-test-suite" / "cases.json"
CASES = json.loads(SUITE.read_text(encoding="utf-8"))["cases"]

# The rules of docs/protocol.md Appendix A that refuse valid YAML, each known by words of its message.
RULES = [
    ("anchors and aliases", r"anchors \(&|aliases \(\*"),
    ("tags", r"tags"),
    ("directives", r"directives \(%YAML, %TAG\)"),
    ("one document", r"more than one YAML document|holds no YAML document|the file is empty|"
                     r"only comments may follow the end of the document"),
    ("floats", r"could be read as a float"),
    ("plain scalars read otherwise by some reader", r"could be read as|beyond ±2\^53−1"),
    ("keys are one-line strings", r"mapping keys must be strings|a mapping entry has no key|explicit keys|"
                                  r"a key and its ':' must be on one line|a mapping key must be on one line"),
    ("flow mapping entries are 'key: value'", r"the ':' after a key must be followed by a space|"
                                             r"every entry inside \{ \}|a key: value pair inside \[ \]"),
    ("plain scalars do not begin with an indicator", r"a plain value may not begin with|a plain '-'"),
    ("plain and quoted scalars on one line", r"must be on one line; write longer text"),
    ("tabs", r"a tab"),
    ("comments after a space", r"a comment must be preceded by a space"),
    ("lines of flow collections are indented", r"inside \[ \] or \{ \} must be indented"),
    ("block scalars", r"block scalar|keep chomping|indentation indicator"),
]

# Valid tests that the subset refuses, by rule; every other valid test is read exactly.
REFUSED = {
    "anchors and aliases": (
        "26DV 2SXE 3GZX 3R3P 6BFJ 6KGN 6M2F 7BMT 7BUB 8XYN 9KAX BU8L CN3R CUP7 E76Z F2C7 FTA2 HMQ5 JS2J "
        "PW8X SKE5 U3XV V55R W5VH X38W Y2GN ZH7C ZWK4"
    ),
    "tags": (
        "2AUY 2XXW 33X3 35KP 52DL 565N 57H4 6JWB 6WLZ 735Y 74H7 7FWL 8MK2 9WXW EHF6 FH7J J7PZ L94M LE5A "
        "S4JQ UGM3 UKK6/02 WZ62"
    ),
    "directives": (
        "27NA 2LFX 5TYM 6CK3 6LVF BEC7 C4HZ CC74 MUS6/02 MUS6/03 MUS6/04 MUS6/05 MUS6/06 P76L RTP8 U3C3 "
        "W4TN Z9M4"
    ),
    "one document": "6XDY 6ZKB 7Z25 8G76 98YD 9DXL AVM7 HWV9 JHB9 L383 PUW8 QT73",
    "floats": "229Q GH63 RR7F SYW4 YD5X ZF4X",
    "plain scalars read otherwise by some reader": "RZT7 U9NS",
    "keys are one-line strings": (
        "2JQS 4MUZ/00 4MUZ/01 4MUZ/02 5MUD 5WE3 652Z 6PBE 7W2P A2M4 CFD4 DFF7 FRK4 K3WX KK5P LX3P M2N8/00 "
        "M2N8/01 M5DY NHX8 NKF9 Q9WF S3PD S9E8 SBG9 SM9W/01 UKK6/00 V9D5 VJP3/01 X8DW"
    ),
    "flow mapping entries are 'key: value'": "4ABK 4FJ6 5T43 87E4 8KB6 9BXH 9MMW C2DT CT4Q HM87/01 L9U5 LQZ7 QF4Y",
    "plain scalars do not begin with an indicator": "2EBW 58MP DBG4 HM87/00 S7BG UKK6/01",
    "plain and quoted scalars on one line": (
        "36F6 3MYT 3RLN/00 3RLN/01 3RLN/03 3RLN/04 4CQQ 6WPF 82AN 8UDB 9MQT/00 9SA2 9TFX 9YRD A984 AB8U "
        "DE56/00 DE56/01 DE56/02 DE56/03 DE56/04 DE56/05 EX5H EXG3 FBC9 JTV5 KSS4 M7A3 NAT4 NJ66 NP9H "
        "Q8AD RZP5 T4YY UT92 XLQ9 XV9V XW4D"
    ),
    "tabs": (
        "3RLN/02 3RLN/05 4ZYM 5GBF 6BCT 6CA3 6HB6 7A4E 96NN/00 96NN/01 DK95/00 DK95/02 DK95/03 "
        "DK95/04 DK95/05 DK95/07 DK95/08 HS5T J3BT K54U M9B4 MJS9 NB6Z PRH3 Q5MG R4YG T5N4 TL85 UV7Q "
        "Y79Y/001 Y79Y/002 Y79Y/010"
    ),
    "comments after a space": "",
    "lines of flow collections are indented": "7TMG",
    "block scalars": (
        "2G84/02 2G84/03 4QFQ 4WA9 6FWR A6F9 D83L DK3J DWX9 F6MC F8F9 FP8R H2RW JEF9/00 JEF9/01 JEF9/02 "
        "K858 L24T/00 L24T/01 M5C3 P2AD T26H Z67P"
    ),
}
EXPECTED = {case: rule for rule, cases in REFUSED.items() for case in cases.split()}


def rule_of(message: str) -> str | None:
    for rule, words in RULES:
        if re.search(words, message):
            return rule
    return None


def outcome(case: dict) -> tuple[str, str]:
    """('read', canonical JSON) or ('refused', message); any other exception propagates."""
    try:
        return "read", canonical(loads(case["yaml"], "in.yaml")).decode()
    except InputError as exc:
        return "refused", exc.message


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_suite_case(case):
    kind, result = outcome(case)
    if case["error"]:
        assert kind == "refused", f"invalid YAML ({case['name']}) was read as {result}"
        assert re.match(r"in\.yaml, line \d+: \S", result), result
        return
    if kind == "read":
        assert case["id"] not in EXPECTED, f"expected a refusal ({EXPECTED[case['id']]}), read {result}"
        assert "json" in case, f"{case['name']} has no JSON form, so it must be refused; read {result}"
        assert [json.loads(result)] == case["json"] and result == canonical(case["json"][0]).decode()
        return
    assert re.match(r"in\.yaml(, line \d+)?: \S", result), result
    assert rule_of(result) == EXPECTED.get(case["id"]), f"{case['name']}: {result}"


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_suite_case_with_the_pure_python_parser(case, monkeypatch):
    """Without LibYAML the loader may refuse a little more (PyYAML's own scanner takes '?'
    inside [ ] for a key and refuses tabs at the end of a line), but never reads a value
    differently."""
    import yaml

    from pbem.core import canonical as module

    monkeypatch.setattr(module, "_parser_class", lambda _: yaml.SafeLoader)
    kind, result = outcome(case)
    if kind == "refused":
        assert re.match(r"in\.yaml, line \d+: \S" if case["error"] else r"in\.yaml(, line \d+)?: \S", result)
    else:
        assert not case["error"] and [json.loads(result)] == case["json"], result
        assert result == canonical(case["json"][0]).decode()


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_suite_case_through_the_shortcut_for_pbems_own_form(case):
    """The reader of pbem's own written form (canonical._written) either gives a text up
    to the YAML parser or reads it as the parser does: on every case of the suite, and on
    the case rewritten in pbem's form where the parser reads it."""
    from pbem.core import canonical as module

    shortcut = module._written(case["yaml"])
    if shortcut is not module._NOT_WRITTEN:
        assert outcome(case) == ("read", canonical(shortcut).decode())
    kind, result = outcome(case)
    if kind == "read":
        rewritten = module.dumps(json.loads(result))
        assert module._written(rewritten) == module.strict_loads(rewritten) == json.loads(result)
