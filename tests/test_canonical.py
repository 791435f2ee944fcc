"""DESIGN §2.1 and docs/protocol.md, Appendix A: strict YAML, plain scalars, canonical bytes, hashes."""

import functools
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core import canonical
from pbem.core.canonical import canonical as canon
from pbem.core.canonical import digest, dumps, loads, strict_loads
from pbem.core.errors import InputError


@pytest.mark.parametrize("text, value", [
    ("a: '12'", "12"), ('a: "true"', "true"), ("a: 'NO'", "NO"), ('a: "0139"', "0139"), ("a: '~'", "~"),
    ("a: 12", 12), ("a: -3", -3), ("a: 0", 0), ("a: -0", 0), ("a: true", True), ("a: false", False),
    ("a: null", None), ("a:", None), ("a: 9007199254740991", 2**53 - 1), ("a: -9007199254740991", -(2**53 - 1)),
    ("a: x.5", "x.5"), ("a: 3118", 3118), ("a: '3118'", "3118"), ("a: yEs", "yEs"), ("a: nO", "nO"),
    ("a: 1:60", "1:60"), ("a: 0x", "0x"), ("a: e3", "e3"), ("a: inf", "inf"), ("a: NaN", "NaN"), ("a: v1.2", "v1.2"),
    ("a: 2026-11", "2026-11"), ("a: 11:30am", "11:30am"), ("a: a:b", "a:b"), ("a: a#b", "a#b"), ("a: -x", "-x"),
    ("a: 'x''y'", "x'y"), ('a: "\\u00e9\\t\\U0001F600"', "é\t😀"), ("a: [x, {b: 1}]", ["x", {"b": 1}]),
])
def test_scalars_resolve_as_yaml_1_2_core_narrowed(text, value):
    assert loads(text)["a"] == value
    assert type(loads(text)["a"]) is type(value)


YAML_1_1_BOOLEANS = "y Y yes Yes YES n N no No NO True TRUE False FALSE on On ON off Off OFF".split()
NULLS = "~ Null NULL".split()
INTEGERS = ["0b1010", "-0b1", "0b1_0", "017", "0139", "-017", "00", "0_7", "0o17", "0x1F", "-0x1f", "0x_1", "1:30",
            "-1:30:00", "190:20:30", "1_000", "+5", "+0", "1__0", "09",
            "0_9", "09_", "-0_9", "+_1", "0o1_7", "-0o7"]   # the last six: ruamel.yaml's and go-yaml's YAML 1.2
FLOATS = ["1.5", "1.", ".5", "-.5", "+1.5", "1e3", "1E3", "1e+3", "-1e-3", "1.5e3", "1_0.5", "1._5", "1:30.5",
          ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "+.inf", ".nan", ".NaN", ".NAN", ".", "-.", "1.2.3", "...",
          "0.5", "-0.0", "6.8523015e+5",
          "1_e1", "1_E+1", "09_.5", "+.5_", "-.5_e+1", "1_.5e1"]   # the last six: ruamel.yaml's and go-yaml's YAML 1.2
TIMESTAMPS = ["2026-11-29", "2026-11-29T10:00:00Z", "2026-11-29t10:00:00Z", "2026-11-29 10:00:00",
              "2026-1-5T1:00:00", "2026-11-29T10:00:00.25", "2026-11-29T10:00:00+01:00", "2026-11-29 10:00:00 -5",
              "2026-11-29T10:00:00.5 Z", "2001-12-14t21:59:43.10-05:00"]
OTHERS = ["<<", "="]
AMBIGUOUS = YAML_1_1_BOOLEANS + NULLS + INTEGERS + FLOATS + TIMESTAMPS + OTHERS


@pytest.mark.parametrize("word", AMBIGUOUS)
def test_plain_scalars_some_reader_takes_for_no_string_are_refused(word):
    for text, line in ((f"a: 1\nb: {word}\n", 2), (f"a: 1\n{word}: x\n", 2), (f"- 1\n- [x, {word}]\n", 2)):
        with pytest.raises(InputError) as caught:
            loads(text, "p.yaml")
        message = caught.value.message
        assert message.startswith(f"p.yaml, line {line}: ") and caught.value.exit_code == 4
        assert "float" in message if word in FLOATS else "quote it" in message
    for quoted in (f"'{word}'", json.dumps(word)):
        assert loads(f"a: {quoted}") == {"a": word}


@pytest.mark.parametrize("text, fragment", [
    ("a: 1\na: 2", "the key 'a' appears twice"),
    ("x:\n  b: 1\n  b: 1", "the key 'b' appears twice"),
    ("a: 1\n'a': 2", "the key 'a' appears twice"),
    ("1: x", "mapping keys must be strings, not an integer"),
    ("true: x", "mapping keys must be strings, not a boolean"),
    ("null: x", "mapping keys must be strings, not null"),
    ("~: x", "quote it"),
    ("? [1]\n: x", "mapping keys must be strings, not a list"),
    ("{[1]: x}", "mapping keys must be strings, not a list"),
    ("{: x}", "a mapping entry has no key"),
    ("a: 1.5", "float"), ("a: 1e3", "float"), ("a: .5", "float"), ("a: .inf", "float"), ("a: -.Inf", "float"),
    ("a: .nan", "float"), ("a: 1.", "float"),
    ("a: 9007199254740992", "beyond ±2^53−1"), ("a: -9007199254740992", "beyond ±2^53−1"),
    ("a: 9007199254740993", "beyond ±2^53−1"), ("a: -9007199254740993", "beyond ±2^53−1"),
    ("a: " + "9" * 5000, "beyond ±2^53−1"), ("a: -" + "1" * 5000, "beyond ±2^53−1"),
    ("a: &x 1", "anchors (&x) are not allowed"), ("a: &x [1]\nb: *x", "anchors"),
    ("a: !!python/object:os.system x", "tags"), ("a: !!str x", "tags"), ("a: !custom x", "tags"),
    ("a: ! 12", "tags such as '!' are not allowed"), ("- ! [1]", "tags"),
    ("a: !!python/object/apply:os.system [ls]", "tags"),
    ("a: [1, 2", "the `[` opened on this line is never closed"), ("a: 'x", "malformed or truncated"),
    ("a: b\n---\nc: d", "more than one YAML document"),
    ("%YAML 1.2\n---\na: 1", "directives (%YAML, %TAG) are not allowed"),
    ("%FOO bar\n---\na: 1", "directives (%YAML, %TAG) are not allowed"),
    ("a: 1\n...\nb: 2", "only comments may follow the end of the document"),
    ("", "empty"), ("   \n\n", "empty"), ("# just a comment\n", "holds no YAML document"),
])
def test_rejections_name_the_problem(text, fragment):
    with pytest.raises(InputError) as caught:
        loads(text, "packet.yaml")
    assert fragment in caught.value.message
    assert caught.value.message.startswith("packet.yaml")
    assert caught.value.exit_code == 4


# Where LibYAML reads YAML otherwise than the YAML 1.2 spec (or accepts what the spec
# refuses), the construct is refused: each refusal names the line and says what to do.
@pytest.mark.parametrize("text, line, fragment", [
    ('key: "value"# invalid comment\n', 1, "a comment must be preceded by a space"),
    ("a: [b, c]#x\n", 1, "a comment must be preceded by a space"),
    ("a: [b,#x\n  c]\n", 1, "a comment must be preceded by a space"),
    ("block: ># comment\n  scalar\n", 1, "a comment must be preceded by a space"),
    ("[-]\n", 1, "a plain '-' inside [ ] or { } is not YAML; quote it"),
    ("a: [-, -]\n", 1, "quote it"),
    ("- ! 12\n", 1, "tags such as '!' are not allowed"),
    ("a: 1\n{ ?foo: bar }: 2\n", 2, "mapping keys must be strings"),
    ("x: { ?foo: bar }\n", 1, "explicit keys ('? key') are not allowed"),
    ("x: [?foo]\n", 1, "a key: value pair inside [ ] must be written inside { }"),
    ("? a\n: b\n", 1, "explicit keys"),
    ("a: ?x\n", 1, "a plain value may not begin with '?'; quote it"),
    ("a: :x\n", 1, "a plain value may not begin with ':'; quote it"),
    ("a: |+\n  x\n\n", 1, "keep chomping (|+ or >+) is not allowed"),
    ("a: >+\n  x\n", 1, "keep chomping"),
    ("a: |2\n   x\n", 1, "an indentation indicator after | or > is not allowed"),
    ("a: |\n  x\n   \n", 3, "a line of only spaces in a block scalar may not be longer than"),
    ("a: >\n   \n  x\n", 2, "a block scalar with no text may not hold a line of spaces"),
    ("a: >\n  x\n    \n  z\n", 3, "a line of only spaces in a block scalar may not be longer than"),
    ("a: >\n \n  \nb: 1\n", 2, "a block scalar with no text may not hold a line of spaces"),
    ("a: |\n  x", 1, "a block scalar (| or >) that ends the file must end with a line break"),
    ("-\n|\n x\n", 2, "the | of a block scalar must be indented more than the key or '-' it belongs to"),
    ("k:\n>\n x\n", 2, "must be indented more than the key"),
    ("--- |\n\n# x\n", 1, "a block scalar at the top level with no indented text"),
    ("--- >\nline1\n", 1, "a block scalar at the top level with no indented text"),
    ('foo: "bar\n  baz"\n', 1, "a plain or quoted value must be on one line"),
    ("foo: bar\n  baz\n", 1, "a plain or quoted value must be on one line"),
    ('foo: "bar\n\tbaz"\n', 2, "a tab in the indentation of a line; indent with spaces"),
    ("a:\n\tb: 1\n", 2, "a tab in the indentation"),
    ("a:\t1\n", 1, "a tab may stand only inside a scalar or a comment, or at the end of a line; use spaces"),
    ("- a\n-\t\n  b\n", 2, "a tab may not follow the '-' of a list entry; use spaces"),
    ("- [\n\tfoo,\n foo\n ]\n", 2, "a tab in the indentation"),
    ("flow: [a,\nb,\nc]\n", 2, "a line inside [ ] or { } must be indented at least 1 space"),
    ("a:\n  b: [x,\n  z]\n", 3, "must be indented at least 3 spaces"),
    ("a: [x,\n# c\n  z]\n", 2, "a comment inside [ ] or { } must be indented at least 1 space"),
    ("{\n a: b\n# c\n}\n", 3, "a comment inside [ ] or { } must be indented at least 1 space"),
    ("a: [x, [z,\n]]\n", 2, "must be indented at least 1 space"),
    ("a: [\n  x\n]\n", 3, "must be indented at least 1 space"),
    ("a:\n  b: [\n    1\n  ]\n", 4, "must be indented at least 3 spaces"),
    ("[x: y]\n", 1, "a key: value pair inside [ ] must be written inside { }"),
    ("{a, b: c}\n", 1, "every entry inside { } must be a key, ':' and a value"),
    ("{a:1}\n", 1, "every entry inside { } must be a key"),
    ('{"a":1}\n', 1, "the ':' after a key must be followed by a space"),
    ("a: {x:}\n", 1, "the ':' after a key must be followed by a space"), ("- [x:, y]\n", 1, "followed by a space"),
    ("{a\n: 1}\n", 1, "a key and its ':' must be on one line"),
    ("a: \u2028\n", 1, "U+2028 (a line separator) may only be written as an escape"),
    ("a: x\u0085y\n", 1, "U+0085"), ("# \u2029\na: 1\n", 1, "U+2029"),
    ("a: 1\nb: \ufeffx\n", 2, "U+FEFF (a byte order mark)"),
    ("a: \x07\n", 1, "U+0007 (a control character)"), ("a: '\x7f'\n", 1, "U+007F"),
    ('a: "\\ud800"\n', 1, "half of a surrogate pair"), ('a: "\\ud83d\\ude00"\n', 1, "half of a surrogate pair"),
    ('a: "\\U00110000"\n', 1, "beyond U+10FFFF"),
    ("a: 1\nb: \ud800\n", 2, "lone surrogate (U+D800)"),
])
def test_libyaml_departures_are_refused(text, line, fragment):
    with pytest.raises(InputError) as caught:
        loads(text, "p.yaml")
    message = caught.value.message
    assert message.startswith(f"p.yaml, line {line}: ") and fragment in message, message
    assert "\n" not in message


@pytest.mark.parametrize("text, value", [
    ("a: 1\r\nb: 2\r\n", {"a": 1, "b": 2}), ("a: |\r  x\r  y\r", {"a": "x\ny\n"}),
    ("a: >-\n  folded\n  text\n\n  next\nb: 1\n", {"a": "folded text\nnext", "b": 1}),
    ("a: |\n  x\n\n  y\n# comment\n", {"a": "x\n\ny\n"}), ("a: |\n  x\n  \n", {"a": "x\n"}),
    ("a: b #c\n", {"a": "b"}), ("a: 'x # y' # z\n", {"a": "x # y"}),
    ("a: [\n  x,\n  z, # c\n  # d\n  ]\n", {"a": ["x", "z"]}), ("a:\n  b: [\n    1\n    ]\n", {"a": {"b": [1]}}),
    ("{a: 1,\n b: [2]}\n", {"a": 1, "b": [2]}), ("a: x\ty\n", {"a": "x\ty"}),
    ('a: "x\ty"  # c\t1\n', {"a": "x\ty"}), ("a: 1\t\nb:\t# c\n  - z \t\n", {"a": 1, "b": ["z"]}),
    ("---\na: 1\n...\n# bye\n", {"a": 1}), ("--- |\n  x\n", "x\n"),
    ("a: 'what?'\nb: why?\n", {"a": "what?", "b": "why?"}),
])
def test_what_the_subset_reads(text, value):
    assert loads(text) == value


def test_rejection_names_the_line():
    with pytest.raises(InputError, match=r"^p\.yaml, line 3: the key 'b' appears twice"):
        loads("a: 1\nb: 2\nb: 3\n", "p.yaml")


def test_not_utf8_is_rejected():
    with pytest.raises(InputError, match="not UTF-8"):
        loads(b"a: \xff\xfe", "p.yaml")


# YAML 1.2's printable characters less U+0085, U+2028, U+2029 and U+FEFF (the file's first
# character aside): what the loader reads in any position of a text.
PRINTABLE = [(0x09, 0x0A), (0x20, 0x7E), (0xA0, 0x2027), (0x202A, 0xD7FF), (0xE000, 0xFEFE), (0xFF00, 0xFFFD),
             (0x10000, 0x10FFFF)]


def test_the_characters_refused_are_exactly_those_outside_the_printable_set():
    from pbem.core.canonical import _BAD_CHAR

    edges = {c + d for lo, hi in PRINTABLE for c in (lo, hi) for d in (-1, 0, 1)} | {0x85, 0x2028, 0x2029, 0xFEFF, 0xD800}
    for point in sorted(p for p in edges if 0 <= p <= 0x10FFFF):
        printable = any(lo <= point <= hi for lo, hi in PRINTABLE)
        assert (_BAD_CHAR.search(chr(point)) is None) == printable, hex(point)


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


TRICKY = AMBIGUOUS + ["true", "false", "null", "", "-", "?", ":", "?x", ":x", "-x", "- x", "a: b", "a #b", "#",
                      "x\ty", " x", "x ", "a\u2028b", "\u0085", "\ufeff", "\x7f", "\x00", "'", '"', "\\", "|",
                      ">", "&a", "*a", "!a", "%a", "@a", "`a", "[]", "{}", ",", "...", "---", "9007199254740992"]
strings = st.text(max_size=20) | st.sampled_from(TRICKY)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1) | strings,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(strings, children, max_size=4),
    max_leaves=20,
)


@pytest.mark.long(4)
@given(st.dictionaries(strings, json_values, max_size=5))
def test_dump_then_strict_load_round_trips(doc):
    assert canon(strict_loads(dumps(doc))) == canon(doc)


YAML_CHARS = st.sampled_from(list("ab:- []{}'\"&*!|>#\n\t,?%@`0123456789.~\\\x00\x7f\u2028é"))


# values the size and shape of pbem's files: long lists that wrap, deep nesting, lists of
# lists, wide mappings that cannot be written on one line
big_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1) | strings,
    lambda children: st.lists(children, max_size=40) | st.dictionaries(strings, children, max_size=12),
    max_leaves=200,
)


@settings(max_examples=100, suppress_health_check=list(HealthCheck))
@given(big_values, st.sampled_from(["", "# pbem state 3 of game x\n", "# a\n#\n"]))
def test_pbems_own_form_is_read_without_yaml_to_what_the_yaml_parser_reads(value, comments):
    text = comments + dumps(value)
    strict = strict_loads(text)
    assert canon(strict) == canon(value)
    assert canonical._written(text) == strict and type(canonical._written(text)) is type(strict)


@settings(max_examples=400, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.text(YAML_CHARS, max_size=60), json_values.map(dumps).flatmap(
    lambda text: st.tuples(st.integers(0, len(text)), st.integers(0, 3), st.text(YAML_CHARS, max_size=3)).map(
        lambda cut: text[:cut[0]] + cut[2] + text[cut[0] + cut[1]:]))))
def test_the_shortcut_never_reads_a_text_otherwise_than_the_yaml_parser(text):
    """Any text, most of them pbem's form with a few characters changed: the shortcut
    either gives it up or gives the value the strict YAML path gives; where that path
    refuses the text, so does the shortcut. The shortcut reads the text as `loads` hands it
    over, after the checks of the text as a whole (characters, line breaks, tabs) that refuse
    it before either reader sees it: "#\x00- null" is refused there, and the shortcut, which
    skips comment lines unread, never meets it."""
    try:
        text = canonical._text(text, "<input>")
    except InputError:
        return
    value = canonical._written(text)
    if value is canonical._NOT_WRITTEN:
        return
    assert canon(strict_loads(text)) == canon(value)


@pytest.mark.parametrize("text", ["#\x00- null\n- null\n", "#x\r- 1\n- 2\n", "# \u2028\n- 1\n"])
def test_a_comment_line_is_read_by_loads_as_the_strict_path_reads_it(text):
    """The shortcut skips the comment lines before a document unread; what could make one
    read otherwise (a control character, a bare CR, which YAML takes for a line break, a line
    separator) is handled before it: refused, or a CR made a line break, as the strict path has
    it (a case the differential test found)."""
    try:
        strict = ("value", strict_loads(text))
    except InputError as exc:
        strict = ("refused", exc.message)
    try:
        fast = ("value", loads(text))
    except InputError as exc:
        fast = ("refused", exc.message)
    assert fast == strict


@pytest.mark.parametrize("value, shortcut", [
    ({"a": {"b": 1}}, True),
    ({5: "x"}, False),                                          # keys must be strings
    ({"a": "x" * (canonical.MAX_STRING + 1)}, False),           # over the string limit
    ({"x" * (canonical.MAX_STRING + 1): 1}, False),
    (functools.reduce(lambda inner, _: [inner], range(canonical.MAX_DEPTH + 1), 1), False),   # 65 levels
    (functools.reduce(lambda inner, _: [inner], range(canonical.MAX_DEPTH), 1), True),
])
def test_the_shortcut_keeps_the_limits_and_rules_of_the_strict_path(value, shortcut):
    text = dumps(value)
    assert (canonical._written(text) is not canonical._NOT_WRITTEN) == shortcut
    if not shortcut:
        with pytest.raises(InputError):
            loads(text, "f.yaml")


def test_too_many_nodes_in_pbems_own_form_is_refused_too(monkeypatch):
    monkeypatch.setattr(canonical, "MAX_NODES", 10)
    text = dumps({"a": list(range(9))})   # 1 mapping + 1 key + 1 list + 9 = 12 nodes
    assert canonical._written(text) is canonical._NOT_WRITTEN
    with pytest.raises(InputError, match="more than 10 nodes"):
        loads(text, "f.yaml")
    assert loads(dumps({"a": list(range(6))}), "f.yaml") == {"a": list(range(6))}


def _nodes(value) -> int:
    """The nodes of a value as the limit counts them: every value, and every key."""
    if isinstance(value, dict):
        return 1 + sum(1 + _nodes(item) for item in value.values())
    if isinstance(value, list):
        return 1 + sum(_nodes(item) for item in value)
    return 1


@settings(max_examples=300)
@given(st.dictionaries(strings, json_values, min_size=1, max_size=5))
def test_the_shortcut_counts_nodes_to_the_last_as_the_strict_loader(doc):
    """At a node limit of exactly the count of a text's nodes, both paths read it; one fewer,
    both refuse it (the shortcut then leaves it to the strict loader, which refuses it).
    Documents of up to a hundred leaves reach every way a node is written (block and flow,
    keys, empty collections, nesting): generating `big_values` for this cost half a minute."""
    text, count = dumps(doc), _nodes(doc)
    saved = canonical.MAX_NODES
    try:
        canonical.MAX_NODES = count
        assert canonical._written(text) == strict_loads(text) == doc
        canonical.MAX_NODES = count - 1
        assert canonical._written(text) is canonical._NOT_WRITTEN
        with pytest.raises(InputError, match=f"more than {count - 1} nodes"):
            strict_loads(text)
    finally:
        canonical.MAX_NODES = saved


def test_every_example_file_is_read_by_the_shortcut_without_importing_yaml():
    """...nor compiling a pattern of the strict loader's (each costs every start of pbem time)."""
    code = ("import sys, pathlib; from pbem.core import canonical\n"
            "files = sorted(pathlib.Path(sys.argv[1]).glob('*/**/*.yaml'))\n"
            "values = [canonical.loads(f.read_bytes(), str(f)) for f in files]\n"
            "text = canonical.dumps({'values': values[:50], 'odd': ['1.5', 'NO', '0139', 'a b', 'x\\u2028']})\n"
            "lazy = {k: v for k, v in vars(canonical).items() if isinstance(v, canonical.LazyPattern)}\n"
            "lazy.update((kind, pattern) for kind, pattern in canonical._NUMBER_KINDS)\n"
            "print(len(files), 'yaml' in sys.modules, len(lazy), *sorted(k.replace(' ', '-') for k, p in lazy.items() "
            "if p._compiled is not None))")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parents[1] / "examples")],
                          capture_output=True, text=True, check=True)
    count, imported, lazy, *compiled = done.stdout.split()
    # every YAML file of the four examples: 398 at pbem 0.30.0 (fewer packets a kkoh and a chir turn)
    assert int(count) > 300 and imported == "False"
    # the writer's search for what JSON leaves unescaped runs for 'x\u2028' alone; the reader's
    # for refused characters, and the explanations of a refusal, never
    assert (int(lazy), compiled) == (16, ["_UNSAFE"])


def test_a_lazy_pattern_matches_as_the_compiled_one():
    pattern = canonical.LazyPattern(r"^%", re.M)
    assert pattern._compiled is None
    with pytest.raises(AttributeError):
        object.__getattribute__(pattern, "finditer")     # no method is set before the first use
    assert [m.start() for m in pattern.finditer("%a\nb\n%c")] == [0, 5]
    assert pattern._compiled is not None and pattern._compiled.flags & re.M
    # once compiled, each method is the compiled pattern's own, with nothing in between
    for method in ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"):
        assert object.__getattribute__(pattern, method).__self__ is pattern._compiled, method   # in its slot
    assert pattern.pattern == "^%"     # what is not a method is still the pattern's
    number = dict(canonical._NUMBER_KINDS)["an integer"]
    assert number.fullmatch("0x1F") and not number.fullmatch("1F")


@pytest.mark.parametrize("word", TRICKY)
def test_dumps_quotes_every_string_a_reader_could_take_otherwise(word):
    assert loads(dumps({word: [word]})) == {word: [word]}
    assert canonical.scalar_text(word) != word or canonical.is_plain_string(word)


@pytest.mark.parametrize("value", [2**53, -(2**53), "a\ud800b", {"\udfff": 1}])
def test_dumps_refuses_what_cannot_load_back(value):
    with pytest.raises(ValueError):
        dumps({"a": value})


@pytest.mark.parametrize("value", [(1, 2), "hex", "place"])
def test_dumps_refuses_a_tuple_and_so_any_record(value):
    """pbem's records are named tuples (pbem/core/__init__.py), which `json` would write as
    lists: the writer refuses every tuple, so no record can reach a state, packet or genesis
    file in place of the plain data the rules keep."""
    from pbem.core.geometry.hexgrid import Hex
    from pbem.rulesets.chir.scenario import Place

    record = {"hex": Hex(1, 2), "place": Place("Oblivskaya", ("3320",), 2)}.get(value, value)
    with pytest.raises(TypeError, match="cannot write"):
        dumps({"a": record})
    with pytest.raises(TypeError, match="cannot write"):
        dumps({"a": [record]})


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_canonical_matches_json_reference(doc):
    assert json.loads(canon(doc)) == doc
    assert canon(json.loads(canon(doc))) == canon(doc)


def test_c_loader_is_used_where_present():
    import yaml

    if getattr(yaml, "__with_libyaml__", False):
        assert canonical._parser_class(yaml) is yaml.CSafeLoader


@settings(max_examples=1500, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.text(YAML_CHARS, max_size=60), st.binary(max_size=60)))
def test_any_input_loads_or_is_an_input_error(data):
    """Fuzz: whatever the bytes, the strict loader returns a value or raises InputError."""
    try:
        loads(data, "fuzz.yaml")
    except InputError as exc:
        assert exc.message.startswith("fuzz.yaml")


@functools.cache
def _documented_patterns() -> list[re.Pattern]:
    """The patterns of docs/protocol.md §A.6 that a plain scalar may not match."""
    text = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    table = text[text.index("| read as | patterns |"):text.index("So `NO`")]
    cells = [row.split(" | ", 1)[1] for row in table.splitlines()[2:] if row.startswith("| ")]
    return [re.compile(code.replace("\\|", "|")) for cell in cells for code in re.findall(r"`([^`]+)`", cell)]


@settings(max_examples=3000)
@given(st.text(st.sampled_from("0123456789+-._:eExXbBoO tTZ yYnN~<=aIifFN"), min_size=1, max_size=12)
       | st.sampled_from(AMBIGUOUS + TRICKY))
def test_docs_define_the_plain_scalars_the_loader_refuses(word):
    word = word.strip(" ")
    documented = any(pattern.fullmatch(word) for pattern in _documented_patterns())
    integer = re.fullmatch(r"-?(0|[1-9][0-9]*)", word) is not None
    refused = not canonical.is_plain_string(word) and word not in ("", "null", "true", "false")
    if word and not integer and word[0] not in "?:" and word != "-":
        assert refused == documented, word


def test_the_genesis_docs_show_is_one_pbem_reads():
    """docs/protocol.md §4's game.yaml, its placeholders filled in, reads with pbem's own
    loader (a review: its bare `ruleset_version: 1.1.0` reads as a float, refused), with the
    fields the genesis has."""
    docs = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    genesis = docs.split("## 4. The genesis")[1].split("```yaml\n")[1].split("```")[0]
    doc = canonical.loads(genesis.replace("...", "x"), "docs/protocol.md §4")
    assert isinstance(doc["ruleset_version"], str) and doc["pbem"] == 2
    assert [side["name"] for side in doc["sides"]] == ["german", "soviet"]


@pytest.mark.parametrize("size", [10, canonical.MAX_BYTES, canonical.MAX_BYTES + 1])
def test_a_file_is_read_whole_to_the_limit_and_refused_beyond_it(tmp_path, size):
    """(A named pipe, whose size says nothing, is refused without waiting for a writer:
    tests/test_hostile_files.py.)"""
    plain = tmp_path / "plain.yaml"
    plain.write_bytes(b"b" * size)
    if size > canonical.MAX_BYTES:
        with pytest.raises(InputError, match="over the limit"):
            canonical.read_bounded(plain)
    else:
        assert canonical.read_bounded(plain) == b"b" * size


# A `[` or `{` left open reads as a value running on to the next line, or as a file that
# stops early: the refusal says which bracket is open, not only what the parser saw.
@pytest.mark.parametrize("text, line, message", [
    ('orders:\n  - {type: reinforce, unit: "24pd-26pgr", area: aerodromny\n  - {type: end}\n', 2,
     "the `{` opened on this line is not closed after 'aerodromny' (expected `,` or `}`)"),
    ("orders:\n  - {type: move, unit: x\n     to: y}\n", 2,
     "the `{` opened on this line is not closed after 'x' (expected `,` or `}`)"),
    ("a: [b,\n  c\n  d\n", 2, "the `[` opened before it is not closed after 'c' (expected `,` or `]`)"),
    ('orders:\n  - {type: reinforce, unit: "24pd-26pgr", area: aerodromny\n', 2,
     "the `{` opened on this line is never closed (expected `,` or `}`)"),
    ("orders: [{type: end}\n# the end\n\n", 1, "the `[` opened on this line is never closed (expected `,` or `]`)"),
    ("orders:\n  - {type: end\n  - {type: end}\n", 2, "the `{` opened on this line is not closed after 'end' (expected `,` or `}`)"),
    ("x: [a, b}\n", 1, "expected `,` or `]` here: the `[` opened on this line is not closed"),
    ("x: [a,\n  b}\n", 2, "expected `,` or `]` here: the `[` opened on line 1 is not closed"),
])
def test_an_unclosed_bracket_is_named(text, line, message):
    with pytest.raises(InputError) as caught:
        loads(text, "o4.yaml")
    assert caught.value.message == f"o4.yaml, line {line}: {message}"


# A value written on two lines inside brackets that are closed is refused as it was.
@pytest.mark.parametrize("text", ['a: [b, "c\n  d"]\n', "a: [b,\n  c\n  d]\n", "- {multi\n  line: value}\n"])
def test_a_value_on_two_lines_inside_closed_brackets_is_still_a_value_on_two_lines(text):
    with pytest.raises(InputError, match="a plain or quoted value must be on one line"):
        loads(text, "o4.yaml")


def test_no_character_python_calls_printable_is_one_pbem_refuses_or_escapes():
    """The reader (`_text`), the writer (`scalar_text`) and the escaping of text for reports and
    the terminal (`text.shown`, `for_output`, `first_unsafe`) look for their characters only in
    a text that is not printable (line breaks and tabs aside, where they are allowed): every
    character of their classes must be one Python calls unprintable, or one would slip through."""
    from pbem.core import text

    printable = "".join(chr(point) for point in range(0x110000) if chr(point).isprintable())
    assert len(printable) > 100_000
    for pattern in (canonical._BAD_CHAR, canonical._UNSAFE, text._UNSAFE_ANY, text._UNSAFE_OUTPUT):
        assert pattern.search(printable) is None, pattern.pattern
    # and the searches still run where a text is not printable
    for bad in ("\x1b", "\u2028", "\ufeff", "\x85"):
        with pytest.raises(InputError, match="may only be written as an escape"):
            loads(f"a: b{bad}c\nd: 1\n".encode())
        assert text.shown(f"b{bad}c") != f"b{bad}c" and text.for_output(f"b\n{bad}c") != f"b\n{bad}c"
        assert text.first_unsafe({"a": [f"b{bad}"]}) == ("a[0]", bad)
    assert text.for_output("a\tb\nc") == "a\tb\nc" and text.shown("a\u00a0b") == "a\u00a0b"
    assert dumps("a\u2028b") == '"a\\u2028b"\n' and dumps("a\u00a0b") == '"a\u00a0b"\n'


@pytest.mark.parametrize("empty", [[], {}])
def test_an_empty_collection_under_a_key_too_long_for_its_line_is_still_written_on_it(empty):
    """Block style cannot write an empty list or mapping: `[]` and `{}` stand on their key's
    line however long it is (a review: under a key of 97 characters, [] raised IndexError and
    {} was written as a bare key, which reads back as null), at any depth."""
    for value in ({"k" * 97: empty}, {"a": {"b": {"c" * 93: empty, "d": 1}}}, [{"k" * 120: empty}]):
        text = dumps(value)
        assert loads(text) == strict_loads(text) == value
    assert dumps({"k" * 97: empty}) == "k" * 97 + f": {json.dumps(empty)}\n"
