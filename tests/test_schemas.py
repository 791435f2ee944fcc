"""Every JSON Schema pbem ships is a valid schema, and the rulesets' own schemas match."""

import json
from pathlib import Path

import jsonschema
import pytest

from pbem import rulesets

SCHEMAS = sorted((Path(__file__).resolve().parents[1] / "schemas").glob("*.json"))


@pytest.mark.parametrize("path", SCHEMAS, ids=[p.name for p in SCHEMAS])
def test_schema_is_valid(path):
    schema = json.loads(path.read_text())
    jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator).check_schema(schema)


@pytest.mark.parametrize("ruleset_id", rulesets.ids() + ["duel"])
def test_ruleset_schemas_are_valid(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    for schema in (ruleset.order_schema, ruleset.policy_schema):
        jsonschema.Draft202012Validator.check_schema(schema)


def test_the_envelope_schemas_are_shipped():
    assert {"genesis.schema.json", "packet.schema.json", "state.schema.json"} <= {p.name for p in SCHEMAS}


# --- the fast check agrees with jsonschema -------------------------------------------------------

import copy
import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core import fastcheck, schema as schemas

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 70), st.sampled_from(
    ["", "red", "end", "fire", "move", "3320", "x" * 41, "LW/I", "a b", "2026-11-29T10:00:00Z", "SHA256:" + "A" * 43,
     "ab" * 32, "0f" * 16, "ssh-ed25519 AAAA", "secure", "sandbox", "german", "soviet", "retreat", "ask", "1.2/loss"]))
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(st.sampled_from(["3320", "LW/I", "red"]), min_size=58, max_size=62),
                                                    st.dictionaries(st.sampled_from(["type", "unit", "units", "to", "hex",
                                                                                     "target", "path", "phase", "name"]),
                                                                    inner, max_size=4)), max_leaves=12)


@functools.cache
def _all_schemas() -> tuple[dict, ...]:
    found = [json.loads(p.read_text()) for p in SCHEMAS]
    for ruleset_id in sorted(set(rulesets.ids()) | {"duel", "blind"}):
        ruleset = rulesets.get(ruleset_id)
        found += [ruleset.order_schema, ruleset.policy_schema]
        found += list(ruleset.order_schema.get("oneOf", []))
    # each once: a ruleset's orders schema is also shipped in schemas/, and two rulesets may
    # share a branch; checking the same schema twice would double the cost, not the test
    unique: dict[str, dict] = {}
    for schema in found:
        unique.setdefault(json.dumps(schema, sort_keys=True), schema)
    return tuple(unique.values())


@functools.cache
def _checkers() -> tuple[tuple, ...]:
    """(fast check, jsonschema validator) of every schema, compiled once per process."""
    return tuple((fastcheck.compile_schema(schema), schemas.validator(schema)) for schema in _all_schemas())


@pytest.fixture(scope="session")
def samples(tmp_path_factory, worker_id) -> dict:
    """The documents of `_samples` and the verdicts of both checks on each (`_verdicts`),
    worked out once for the whole run: the first worker of a parallel run to need them writes
    them to the run's shared directory, under a lock."""
    if worker_id == "master":
        return _samples_and_verdicts()
    import fcntl

    shared = tmp_path_factory.getbasetemp().parent / "schema-samples.json"
    with open(f"{shared}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not shared.is_file():
            shared.write_text(json.dumps(_samples_and_verdicts()))
        return json.loads(shared.read_text())


def _samples_and_verdicts() -> dict:
    docs = _samples()
    with pytest.MonkeyPatch.context() as patch:   # a session fixture runs before conftest's test rulesets are in
        for ruleset_id in ("duel", "blind"):
            patch.setitem(rulesets.REGISTRY, ruleset_id, f"tests.support.{ruleset_id}")
        return {"docs": docs, "verdicts": _verdicts(docs)}


def _verdicts(docs: list) -> list[list[list[bool]]]:
    """For every schema (in `_all_schemas` order) and every document: [the fast check's
    verdict, jsonschema's]."""
    return [[[check(doc), reference.is_valid(doc)] for doc in docs] for check, reference in _checkers()]


def _samples() -> list:
    """Real documents: the genesis, packets and states of short games of every ruleset, and
    the legal orders offered along the way, each once."""
    import random
    import tempfile

    from pbem.core import bot
    from pbem.core.canonical import load_mapping
    from tests.support.games import Match

    docs: list = []
    with tempfile.TemporaryDirectory() as tmp:
        for ruleset_id in sorted(set(rulesets.ids()) - {"blind"}):   # blind's plans are sealed: no bot
            match = Match(Path(tmp) / ruleset_id, ruleset_id, chain_length=4096, key_seed="samples")
            rng = random.Random(ruleset_id)
            docs.append(match.genesis)
            for _ in range(12 if ruleset_id == "chir" else 40):   # chir: set-ups and a busy game turn
                state = match.state()
                sender = state["awaiting"]["packet_from"]
                if sender is None:
                    break
                need = match.game.next_step(state["rules"])
                if need is not None:
                    docs += rng.sample(legal := match.game.legal_orders(state["rules"], need), min(8, len(legal)))
                orders, seal = bot.plan_packet(match.game, match.state(sender), sender, rng.choice)
                applied = match.send(sender, orders, seal=seal)   # kkoh seals its order chits and fire plans
                docs.append(load_mapping(applied.packet_path))
                docs.append(applied.state)
    unique = {json.dumps(doc, sort_keys=True): doc for doc in reversed(docs)}   # the first of equals stays
    return list(reversed(unique.values()))


def _mutate(doc, data):
    """`doc` with a few leaves replaced, keys dropped or added, anywhere in it."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, 2))):
        parent, key = None, None
        target = doc
        while isinstance(target, (dict, list)) and target:
            keys = sorted(target) if isinstance(target, dict) else list(range(len(target)))
            parent, key = target, data.draw(st.sampled_from(keys))
            target = target[key]
            if data.draw(st.integers(0, 3)) == 0:
                break
        if parent is None:
            return data.draw(JSON)
        how = data.draw(st.integers(0, 4))
        if how == 4 and isinstance(target, list) and target:
            parent[key] = target * 61               # past any maxItems
        elif how == 0 and isinstance(parent, dict):
            del parent[key]
        elif how == 1 and isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["type", "unit", "extra", "to", "seq", "zzz"]))] = data.draw(SCALARS)
        else:
            parent[key] = data.draw(SCALARS if how == 2 else JSON)
    return doc


def test_the_fast_check_covers_every_schema_pbem_ships():
    for schema in _all_schemas():
        fastcheck.compile_schema(schema)   # raises Unsupported for an unknown keyword


_VALID_PAIRS: list = []


def _valid_pairs(samples: dict) -> list[tuple[int, int]]:
    """(schema, sample) pairs where the sample is valid by both checks: mutations of them
    probe the edges. That the two checks agree on every pair is the test below, so no valid
    pair is missed unnoticed."""
    if not _VALID_PAIRS:
        _VALID_PAIRS.extend(_pairs_valid_by_both(samples))
    return _VALID_PAIRS


def _pairs_valid_by_both(samples: dict) -> list[tuple[int, int]]:
    return [(i, j) for i, row in enumerate(samples["verdicts"]) for j, (fast, reference) in enumerate(row)
            if fast and reference]


@pytest.mark.long(15)
@settings(max_examples=1000)
@given(data=st.data())
def test_the_fast_check_agrees_with_jsonschema(samples, data):
    i, j = data.draw(st.sampled_from(_valid_pairs(samples)))
    (check, reference), seed = _checkers()[i], samples["docs"][j]
    doc = _mutate(seed, data) if data.draw(st.integers(0, 19)) else data.draw(JSON)
    assert check(doc) == reference.is_valid(doc), (_all_schemas()[i].get("title"), doc)


# Not marked long, though it needs the samples: it only reads the verdicts that the fixture
# works out, once for the run, as the test above (marked long) starts. Marked long too, it
# started at once on another worker, only to wait there for the fixture (about 7 s idle).
def test_the_fast_check_agrees_on_every_sample(samples):
    docs, verdicts = samples["docs"], samples["verdicts"]
    assert len(docs) > 300   # every ruleset's games were played
    assert len(verdicts) == len(_all_schemas()) and all(len(row) == len(docs) for row in verdicts)
    for schema, row in zip(_all_schemas(), verdicts):
        for doc, (fast, reference) in zip(docs, row):
            assert fast == reference, (schema.get("title"), doc)
    assert sum(fast for row in verdicts for fast, _ in row) > len(docs)   # the valid pairs are many


def test_a_pattern_ends_at_the_end_of_the_text_as_json_schemas_regular_expressions_have_it():
    """JSON Schema's `pattern` is an ECMA-262 regular expression, whose `$` ends the text;
    Python's `$` also matches before a final newline, so "0206\\n" passed "^[0-9]{4}$" in
    both checks, where another validator of the same schema refuses it (a cheater's probe: a
    parser differential on signed content)."""
    assert fastcheck.python_pattern("^[0-9]{4}$") == r"^[0-9]{4}\Z"
    assert fastcheck.python_pattern(r"^a\$[$]b$") == r"^a\$[$]b\Z"   # an escaped `$` and one in a class stay
    square = {"type": "string", "pattern": "^[0-9]{4}$"}
    chir_order = rulesets.get("chir").order_schema
    for schema, good, bad in ((square, "0206", "0206\n"),
                              (chir_order, {"type": "move", "units": ["LW/I"], "path": ["3221"]},
                               {"type": "move", "units": ["LW/I\n"], "path": ["3221"]})):
        fast, reference = fastcheck.compile_schema(schema), schemas.validator(schema)
        assert (fast(good), reference.is_valid(good)) == (True, True)
        assert (fast(bad), reference.is_valid(bad)) == (False, False)


def test_a_property_names_pattern_ends_at_the_end_of_the_name_too():
    """The names of an object's properties are matched the same way (`patternProperties`,
    and `additionalProperties: false` beside it): a key "east\\n" passed the chir scenario's
    "^(south|north|west|east)$" in both checks (a review)."""
    edges = rulesets.get("chir").scenarios["historical"]()["map"]["edges"]
    names = {"type": "object", "patternProperties": {"^(south|north|west|east)$": {"type": "string"}},
             "additionalProperties": False}
    fast, reference = fastcheck.compile_schema(names), schemas.validator(names)
    assert (fast({"east": "x"}), reference.is_valid({"east": "x"})) == (True, True)
    assert (fast({"east\n": "x"}), reference.is_valid({"east\n": "x"})) == (False, False)
    # without additionalProperties a name the pattern does not match is free: "A\n" is not "A"
    typed = {"type": "object", "patternProperties": {"^[A-E]$": {"type": "integer"}}}
    fast, reference = fastcheck.compile_schema(typed), schemas.validator(typed)
    assert (fast({"A": "x"}), reference.is_valid({"A": "x"})) == (False, False)
    assert (fast({"A\n": "x"}), reference.is_valid({"A\n": "x"})) == (True, True)
    document = rulesets.get("chir").scenarios["historical"]()
    document["map"]["edges"] = dict(edges, **{"east\n": next(iter(edges.values()))})
    schema = schemas.load("chir-scenario.schema.json")
    assert fastcheck.compile_schema(schema)(document) is False and not schemas.validator(schema).is_valid(document)


def test_a_long_value_is_quoted_cut_in_the_error_that_refuses_it():
    """A packet whose unit id was 200,000 characters long was refused with the whole id in the
    one sentence of the error, 200 KB on the opponent's terminal (a hostile-input review): an
    error quotes a value's start and says its size, in the words of an order and of a file."""
    chir = rulesets.get("chir").order_schema
    error = schemas.order_errors(chir, {"type": "move", "units": ["x" * 100_000], "path": ["3221"]})[0].message
    assert error.startswith("'" + "x" * 59 + "... (100000 characters)") and len(error) < 200
    [state] = schemas.errors({"type": "object", "properties": {"units": {"maxItems": 3}}}, {"units": list(range(50))})
    assert state.startswith("units: [0, 1, 2, 3,") and "... (50 items) is too long" in state and len(state) < 200
    short = schemas.errors({"type": "object", "properties": {"u": {"maxLength": 3}}}, {"u": "abcd"})
    assert short == ["u: 'abcd' is too long"]    # a short value is quoted whole
