"""JSON Schema validation. A document is first checked by the fast compiled check of
`pbem.core.fastcheck`; jsonschema, slow to import, is loaded only to explain a failure
(or for a schema the fast check does not cover). Schemas of the envelopes live in
`schemas/` at the top of the project and are packaged as `pbem/schemas` data."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_DIRS = (Path(__file__).resolve().parents[2] / "schemas", Path(__file__).resolve().parents[1] / "schemas")


_BY_IDENTITY: dict[tuple[str, int], tuple[dict, Any]] = {}


def _cached(kind: str, schema: dict, make: Any) -> Any:
    """`make(text)` for `schema`, remembered by the schema's identity: pbem's schemas are
    long-lived objects, and serialising one for each document checked costs more than
    the check (the entry keeps the schema, so its identity cannot be reused)."""
    entry = _BY_IDENTITY.get((kind, id(schema)))
    if entry is None or entry[0] is not schema:
        entry = (schema, make(json.dumps(schema, sort_keys=True)))
        _BY_IDENTITY[(kind, id(schema))] = entry
    return entry[1]


def validator(schema: dict) -> Any:
    return _cached("validator", schema, _validator)


@lru_cache(maxsize=64)
def _validator(text: str) -> Any:
    import jsonschema

    schema = json.loads(text)
    # The schemas are pbem's own; tests/test_schemas.py checks them against their
    # metaschema once, so that every run does not pay for it (about 50 ms).
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return jsonschema.validators.extend(cls, _ecma_keywords(cls.VALIDATORS))(schema)


def _ecma_keywords(builtin: dict) -> dict:
    """jsonschema's keywords that match regular expressions, with `$` meaning the end of the
    text as JSON Schema's (ECMA-262) regular expressions have it (fastcheck.python_pattern): a
    value's `pattern`, and the names of an object's properties (`patternProperties`, and
    `additionalProperties` beside it). A key "east\\n" passed "^(south|north|west|east)$"."""
    import re

    from jsonschema.exceptions import ValidationError

    from pbem.core.fastcheck import python_pattern

    def pattern(validator: Any, value: str, instance: Any, schema: dict) -> Any:
        if validator.is_type(instance, "string") and re.search(python_pattern(value), instance) is None:
            yield ValidationError(f"{instance!r} does not match {value!r}")

    def pattern_properties(validator: Any, value: dict, instance: Any, schema: dict) -> Any:
        yield from builtin["patternProperties"](validator, {python_pattern(p): sub for p, sub in value.items()},
                                                instance, schema)

    def additional_properties(validator: Any, value: Any, instance: Any, schema: dict) -> Any:
        if "patternProperties" in schema:
            schema = dict(schema, patternProperties={python_pattern(p): sub
                                                     for p, sub in schema["patternProperties"].items()})
        yield from builtin["additionalProperties"](validator, value, instance, schema)

    return {"pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties}


def unknown_keys(schema: dict, document: Any, what: str, ruleset_id: str) -> str | None:
    """The keys of `document` that the object `schema` does not know, in words, with the
    nearest known key and the list of them ("`retreats` is not a standing order of chir (did
    you mean `retreat`?); they are: ..."), not jsonschema's "Additional properties are not
    allowed"; None when it knows them all."""
    from difflib import get_close_matches

    known = list(schema.get("properties", {}))
    unknown = [key for key in document if key not in known] if isinstance(document, dict) else []
    if not unknown:
        return None
    close = get_close_matches(str(unknown[0]), [key for key in known if key not in document], n=1)
    verb = f"is not a {what}" if len(unknown) == 1 else f"are not {what}s"
    return (f"{_ticked(unknown)} {verb} of {ruleset_id}" + (f" (did you mean `{close[0]}`?)" if close else "")
            + f"; they are: {', '.join(sorted(known))}")


@lru_cache(maxsize=16)
def load(name: str) -> dict:
    """A schema shipped with pbem, by file name (e.g. "genesis.schema.json")."""
    for folder in SCHEMA_DIRS:
        path = folder / name
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    raise FileNotFoundError(f"schema {name} is not installed with pbem")


def is_valid(schema: dict, document: Any) -> bool:
    """Whether `document` matches `schema`: the fast check where it covers the schema."""
    check = _cached("check", schema, _check)
    if check is None:
        return validator(schema).is_valid(document)
    return check(document)


@lru_cache(maxsize=64)
def _check(text: str) -> Any:
    from pbem.core import fastcheck

    try:
        return fastcheck.compile_schema(json.loads(text))
    except fastcheck.Unsupported:
        return None


def _said(value: Any) -> str:
    """A value of an order as the player wrote it in YAML: a string quoted, `null`, `true`, 3
    (jsonschema and Python's repr say None and True, which the player never wrote)."""
    return repr(value) if isinstance(value, str) else json.dumps(value)


def _yaml_words(error: Any) -> None:
    """jsonschema starts its messages with the value as Python writes it (`None is not of
    type 'string'`): said as YAML (`null is not ...`; a user's probe)."""
    instance = error.instance
    if (instance is None or isinstance(instance, bool)) and error.message.startswith(repr(instance)):
        error.message = json.dumps(instance) + error.message[len(repr(instance)):]


def order_errors(schema: dict, order: Any) -> list:
    """The jsonschema errors of one order against an orders schema, most general first
    ([] when it is valid). An orders schema is a `oneOf` of one branch per order type:
    the order is checked against its own type's branch only, and against the whole
    schema only to explain a failure. Where the schema's words are unclear, the first
    error says it in the player's: a misspelt or missing key, an unknown order type, an
    id written as a number."""
    branches = _cached("branches", schema, _branches)
    kind = order.get("type") if isinstance(order, dict) else None
    branch = branches.get(kind) if isinstance(kind, str) else None
    if is_valid(branch if branch is not None else schema, order):
        return []
    # Explained by its own type's branch, when it names a type: the most precise reason.
    found = validator(branch if branch is not None else schema).iter_errors(order)
    errors = sorted(found, key=lambda e: (len(e.path), list(map(str, e.path))))
    for error in errors:
        _yaml_words(error)
        _quote_hint(error)
        _list_hint(error)
        _enum_words(error)
        _pattern_words(error)
        _short_value(error)
    if branches and isinstance(order, dict):
        keys = _keys_error(schema, order)
        if keys is not None:
            return [keys] + errors
    return errors


SHOWN_VALUE = 60   # characters of a value that an error quotes


def _short_value(error: Any) -> None:
    """A long value quoted in an error, cut to its first SHOWN_VALUE characters and its size:
    a packet's 200,000-character field was echoed whole into the one sentence of the error (a
    hostile-input review)."""
    text = repr(error.instance)
    if len(text) > SHOWN_VALUE and text in error.message:
        size = (f"{len(error.instance)} characters" if isinstance(error.instance, str) else
                f"{len(error.instance)} items" if isinstance(error.instance, (list, dict)) else f"{len(text)} characters")
        error.message = error.message.replace(text, f"{text[:SHOWN_VALUE]}... ({size})")


def _enum_words(error: Any) -> None:
    """The values an enum allows, in words, not as a Python list."""
    if error.validator == "enum" and isinstance(error.validator_value, list):
        error.message = f"{error.instance!r} is not one of: {', '.join(map(str, error.validator_value))}"


def _pattern_words(error: Any) -> None:
    """A value that does not match a pattern its schema describes, in the schema's words, not as
    the regular expression: "'R1' is not a square's id, column and row, such as 0907"."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "pattern" and schema.get("description") and schema.get("examples"):
        error.message = (f"{error.instance!r} is not {schema['description']}, such as "
                         f"{' or '.join(map(str, schema['examples']))}")


def _quote_hint(error: Any) -> None:
    """An integer where a string is wanted is most often an id written unquoted
    (`hex: 3413`): say how to quote it."""
    wanted = error.validator_value if error.validator == "type" else None
    if type(error.instance) is not int or "string" not in ([wanted] if isinstance(wanted, str) else wanted or []):
        return
    key = next((part for part in reversed(error.path) if isinstance(part, str)), None)
    letters = _letter_ids([error.schema], str(error.instance)) if error.instance >= 0 else None
    if letters is not None:
        error.message = f"{error.message} (YAML reads it as an integer), and {letters}"
        return
    quoted = f'"{error.instance}"'
    example = f"{key}: {quoted}" if error.path and error.path[-1] == key else \
        (f"{key}: [{quoted}, ...]" if key is not None else quoted)
    error.message = f"{error.message} (YAML reads it as an integer); quote it: {example}"


def number_hint(schema: dict, path: tuple | list, number: str) -> str | None:
    """What to write for `number`, digits that YAML reads as a number (or that pbem's YAML
    refuses as one, `0442`), found at `path` (keys and list indexes) in a document of
    `schema`, where the schema wants an id that begins with a letter: "ids here begin with a
    letter (N3117, S0442): write "N0442" or "S0442", quoted"; None where it wants something
    else, or the schema does not say."""
    schemas = _at(schema, list(path))
    letters = _letter_ids(schemas, number) if number.isdigit() and number.isascii() else None
    return letters or _integer_wanted(schemas, number)


def _integer_wanted(schemas: list, number: str) -> str | None:
    """Where every schema of `schemas` wants an integer (its type, or an enum of integers) and
    `number` is an integer written with a sign or leading zeros (`+1`, `01`), which some YAML
    reader would take for a string: the integer to write, plain. Quoted, as the bare refusal
    says, it would be refused again as a string (a players' probe: `shift: +1`, then `'+1'`)."""
    if not schemas or not re.fullmatch(r"[-+]?[0-9]{1,16}", number):
        return None
    for s in schemas:
        enum = s.get("enum") if isinstance(s, dict) else None
        if not isinstance(s, dict) or not (s.get("type") == "integer" or (
                enum and all(isinstance(v, int) and not isinstance(v, bool) for v in enum))):
            return None
    value = int(number)
    allowed = sorted({v for s in schemas for v in s.get("enum") or ()}, key=lambda v: (abs(v), -v))
    if allowed and value not in allowed:    # not a value to write (a review: "write 2" where 1 or -1 is wanted)
        return f"the value here is an integer, one of {', '.join(map(str, allowed))}, written plain"
    low = max((s["minimum"] for s in schemas if isinstance(s.get("minimum"), int)), default=None)
    high = min((s["maximum"] for s in schemas if isinstance(s.get("maximum"), int)), default=None)
    if (low is not None and value < low) or (high is not None and value > high):    # nor out of its range
        return ("the value here is an integer" + (f" from {low}" if low is not None else "")
                + (f" to {high}" if high is not None else "") + ", written plain")
    return f"the value here is an integer: write {value}, plain" + (
        f" (one of {', '.join(map(str, allowed))})" if allowed else "")


def _letter_ids(schemas: list, number: str) -> str | None:
    """Ids that begin with a letter (a schema's `examples`: dos hexes, "N3117"): the number
    quoted would be refused too, so name the ids it may have meant, with as many digits as
    the examples have. None unless every schema of `schemas` gives such examples."""
    if not schemas or not all(isinstance(s, dict) and s.get("examples") for s in schemas):
        return None
    examples = [e for s in schemas for e in s["examples"]]
    heads = [re.fullmatch("([A-Z]+)([0-9]+)", str(e)) for e in examples]
    if None in heads:
        return None
    widths = {len(head.group(2)) for head in heads}
    digits = number.zfill(widths.pop()) if len(widths) == 1 else number
    meant = " or ".join(f'"{prefix}{digits}"' for prefix in sorted({head.group(1) for head in heads}))
    return f"ids here begin with a letter ({', '.join(dict.fromkeys(map(str, examples)))}): write {meant}, quoted"


def _at(schema: Any, path: list) -> list[dict]:
    """The subschemas of `schema` that a value at `path` in a document is checked against,
    through properties, items and the branches of oneOf, anyOf and allOf."""
    if not isinstance(schema, dict):
        return []
    found = [sub for key in ("oneOf", "anyOf", "allOf") for branch in schema.get(key, ()) for sub in _at(branch, path)]
    if not path:
        return found if found else [schema]
    head, rest = path[0], path[1:]
    if isinstance(head, str) and head in schema.get("properties", {}):
        found += _at(schema["properties"][head], rest)
    elif isinstance(head, int) and isinstance(schema.get("items"), dict):
        found += _at(schema["items"], rest)
    return found


def _list_hint(error: Any) -> None:
    """A single value where a list is wanted (`units: Tr/3`): say so in words, with the list
    to write, not "is not of type 'array'"."""
    wanted = error.validator_value if error.validator == "type" else None
    if "array" not in ([wanted] if isinstance(wanted, str) else wanted or []) or isinstance(error.instance, (list, dict)):
        return
    key = error.path[-1] if error.path and isinstance(error.path[-1], str) else None
    from pbem.core.canonical import scalar_text

    written = f"[{scalar_text(error.instance)}]"
    error.message = f"{_said(error.instance)} is a single value where a list is wanted: " + (
        f"{key}: {written}" if key is not None else written)


def _keys_error(schema: dict, order: dict) -> Any:
    """The error of an order with a key no order of its type takes, a key it lacks, or no
    known `type`, said from the schema of its type (keys in the order it gives them);
    None if its keys are not at fault."""
    from difflib import get_close_matches

    from jsonschema.exceptions import ValidationError

    branches = {b.get("properties", {}).get("type", {}).get("const"): b for b in schema["oneOf"]}
    types = ", ".join(str(t) for t in branches)
    if "type" not in order:
        known = {key for b in branches.values() for key in b.get("properties", {})}
        unknown = [key for key in order if key not in known]
        head = f"{_named('unknown key', unknown)} (missing `type`)" if unknown else "missing `type`"
        return ValidationError(f"{head}; the order types are {types}")
    kind = order["type"]
    branch = branches.get(kind) if isinstance(kind, str) else None
    if branch is None:
        close = get_close_matches(kind, list(map(str, branches)), n=1) if isinstance(kind, str) else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return ValidationError(f"{_said(kind)} is not an order type{hint}; the order types are {types}", path=["type"])
    properties = branch.get("properties", {})
    unknown = [key for key in order if key not in properties]
    missing = [key for key in branch.get("required", []) if key not in order]
    alternatives = [alt["required"] for alt in branch.get("oneOf", []) if list(alt) == ["required"]]
    if not unknown and not missing and alternatives:  # such as `to` or `path`, not both
        given = [keys for keys in alternatives if all(key in order for key in keys)]
        if len(given) != 1:
            words = " or ".join(_ticked(keys) for keys in alternatives)
            head = f"missing {words}" if not given else f"give only one of {words}"
            return ValidationError(f"{head}; an order of type {kind} takes the keys {', '.join(properties)}")
    if not unknown and not missing:
        return None
    if not unknown:
        head = _named("missing key", missing)
    elif missing:
        head = f"{_named('unknown key', unknown)} (missing {_ticked(missing)})"
    else:
        close = get_close_matches(unknown[0], [key for key in properties if key not in order], n=1)
        head = _named("unknown key", unknown) + (f" (did you mean `{close[0]}`?)" if close else "")
    return ValidationError(f"{head}; an order of type {kind} takes the keys {', '.join(properties)}")


def _named(what: str, keys: list[str]) -> str:
    return f"{what}{'s' if len(keys) > 1 else ''} {_ticked(keys)}"


def _ticked(keys: list[str]) -> str:
    return ", ".join(f"`{key}`" for key in keys)


def order_types(schema: dict) -> list[str]:
    """The order types of an orders schema (its `oneOf` branches), in the schema's order."""
    return list(_cached("branches", schema, _branches))


@lru_cache(maxsize=16)
def _branches(text: str) -> dict:
    schema = json.loads(text)
    branches = {}
    for branch in schema.get("oneOf", []):
        kind = branch.get("properties", {}).get("type", {}).get("const")
        if isinstance(kind, str):
            branches[kind] = branch
    return branches


def errors(schema: dict, document: Any) -> list[str]:
    """Every violation, as 'path: message', in a stable order ([] when it is valid)."""
    if is_valid(schema, document):
        return []
    found = sorted(validator(schema).iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    for error in found:
        _enum_words(error)
        _short_value(error)
    return [f"{_path(e.absolute_path) or '(top)'}: {e.message}" for e in found]


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
