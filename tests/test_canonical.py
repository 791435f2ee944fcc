"""DESIGN §2.1: strict YAML, the YAML 1.2 core-schema scalars, canonical bytes, hashes."""

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core import canonical
from pbem.core.canonical import canonical as canon
from pbem.core.canonical import digest, dumps, loads
from pbem.core.errors import InputError


@pytest.mark.parametrize("text, value", [
    ("a: NO", "NO"), ("a: no", "no"), ("a: Yes", "Yes"), ("a: off", "off"),
    ("a: 0139", "0139"), ("a: 0o17", "0o17"), ("a: 0x1F", "0x1F"), ("a: +5", "+5"),
    ("a: 1:30", "1:30"), ("a: 2026-11-29", "2026-11-29"), ("a: 2026-11-29T10:00:00Z", "2026-11-29T10:00:00Z"),
    ("a: True", "True"), ("a: FALSE", "FALSE"), ("a: Null", "Null"), ("a: '12'", "12"), ('a: "true"', "true"),
    ("a: 12", 12), ("a: -3", -3), ("a: 0", 0), ("a: true", True), ("a: false", False),
    ("a: null", None), ("a: ~", None), ("a:", None), ("a: 9007199254740992", 2**53), ("a: -9007199254740992", -2**53),
    ("a: x.5", "x.5"), ("a: 3118", 3118), ("a: '3118'", "3118"),
])
def test_scalars_resolve_as_yaml_1_2_core_narrowed(text, value):
    assert loads(text)["a"] == value
    assert type(loads(text)["a"]) is type(value)


@pytest.mark.parametrize("text, fragment", [
    ("a: 1\na: 2", "the key 'a' appears twice"),
    ("x:\n  b: 1\n  b: 1", "the key 'b' appears twice"),
    ("1: x", "mapping keys must be strings, not an integer"),
    ("true: x", "mapping keys must be strings, not a boolean"),
    ("~: x", "mapping keys must be strings, not null"),
    ("? [1]\n: x", "mapping keys must be strings, not a list"),
    ("a: 1.5", "float"), ("a: 1e3", "float"), ("a: .5", "float"), ("a: .inf", "float"), ("a: -.Inf", "float"),
    ("a: .nan", "float"), ("a: 1.", "float"),
    ("a: 9007199254740993", "beyond ±2^53"), ("a: -9007199254740993", "beyond ±2^53"),
    ("a: &x 1", "anchors (&x) are not allowed"), ("a: &x [1]\nb: *x", "anchors"),
    ("a: !!python/object:os.system x", "tags"), ("a: !!str x", "tags"), ("a: !custom x", "tags"),
    ("a: !!python/object/apply:os.system [ls]", "tags"),
    ("a: [1, 2", "malformed or truncated"), ("a: 'x", "malformed or truncated"),
    ("a: b\n---\nc: d", "more than one YAML document"),
    ("", "empty"), ("   \n\n", "empty"),
])
def test_rejections_name_the_problem(text, fragment):
    with pytest.raises(InputError) as caught:
        loads(text, "packet.yaml")
    assert fragment in caught.value.message
    assert caught.value.message.startswith("packet.yaml")
    assert caught.value.exit_code == 4


def test_rejection_names_the_line():
    with pytest.raises(InputError, match=r"^p\.yaml, line 3: the key 'b' appears twice"):
        loads("a: 1\nb: 2\nb: 3\n", "p.yaml")


def test_not_utf8_is_rejected():
    with pytest.raises(InputError, match="not UTF-8"):
        loads(b"a: \xff\xfe", "p.yaml")


def test_utf8_bom_is_accepted():
    assert loads("\ufeffa: 1".encode()) == {"a": 1}


def test_billion_laughs_is_rejected_at_the_first_anchor():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9))
    with pytest.raises(InputError, match="anchors"):
        loads(bomb)


def test_deep_nesting_is_rejected():
    with pytest.raises(InputError, match="nested deeper than 64"):
        loads("a: " + "[" * 10_000 + "]" * 10_000)


def test_oversized_input_is_rejected_before_parsing():
    with pytest.raises(InputError, match="over the limit"):
        loads(b"a: " + b"x" * (canonical.MAX_BYTES + 1))


def test_long_string_is_rejected():
    with pytest.raises(InputError, match="longer than the limit"):
        loads("a: " + "x" * (canonical.MAX_STRING + 1))


def test_too_many_nodes_is_rejected(monkeypatch):
    monkeypatch.setattr(canonical, "MAX_NODES", 100)
    with pytest.raises(InputError, match="more than 100 nodes"):
        loads("a: [" + ", ".join(["1"] * 200) + "]")


def test_canonical_bytes_are_sorted_compact_utf8():
    assert canon({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()


def test_digest_is_domain_separated():
    obj = {"a": 1}
    assert digest(b"pbem-state-v1\n", obj) == hashlib.sha256(b'pbem-state-v1\n{"a":1}').hexdigest()
    assert digest(b"pbem-state-v1\n", obj) != digest(b"pbem-packet-v1\n", obj)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**53, max_value=2**53) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_dump_then_strict_load_round_trips(doc):
    assert loads(dumps(doc)) == doc


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_canonical_matches_json_reference(doc):
    assert json.loads(canon(doc)) == doc
    assert canon(json.loads(canon(doc))) == canon(doc)


def test_c_loader_is_used_where_present():
    import yaml

    if getattr(yaml, "__with_libyaml__", False):
        assert canonical._Parser is yaml.CSafeLoader


YAML_CHARS = st.sampled_from(list("ab:- []{}'\"&*!|>#\n\t,?%@`0123456789.~\\\x00\x7f\u2028é"))


@settings(max_examples=1500, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.text(YAML_CHARS, max_size=60), st.binary(max_size=60)))
def test_any_input_loads_or_is_an_input_error(data):
    """Fuzz: whatever the bytes, the strict loader returns a value or raises InputError."""
    try:
        loads(data, "fuzz.yaml")
    except InputError as exc:
        assert exc.message.startswith("fuzz.yaml")
