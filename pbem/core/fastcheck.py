"""A fast yes-or-no check of a document against one of pbem's own JSON Schemas.

jsonschema is the reference, and the only source of error messages, but importing it
takes about twice as long as starting the interpreter: more than a whole adjudication
of a busy player-turn otherwise needs. So the schemas are compiled once per process into
small Python closures that answer "valid or not" for the keywords pbem's schemas use;
only a document that fails (or a schema with any other keyword) goes to jsonschema,
which then says why. `tests/test_schemas.py` checks, over every schema pbem ships and
many generated documents, that this check and jsonschema always agree.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Check = Callable[[Any], bool]

# Annotations, and keywords handled where their schema is compiled.
_IGNORED = {"$schema", "$id", "$comment", "title", "description", "examples", "default", "format",
            "$defs", "definitions", "then", "else", "readOnly", "writeOnly", "deprecated"}
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}


@functools.lru_cache(maxsize=256)
def python_pattern(pattern: str) -> str:
    """A JSON Schema `pattern` (an ECMA-262 regular expression) as Python's `re` must be told
    it: a `$` outside a character class ends the text only, as in ECMA-262, where Python's
    also matches before a final newline ("0206\\n" matched "^[0-9]{4}$": a difference from
    any other validator of the same schema, on signed content; a cheater's probe). The
    schemas pbem ships use no other construct whose meaning differs."""
    out, escaped, in_class = [], False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            out.append(r"\Z")
            continue
        out.append(char)
    return "".join(out)


class Unsupported(Exception):
    """The schema uses a keyword this check does not know: use jsonschema for it."""


def compile_schema(schema: dict) -> Check:
    return _Compiler(schema).compile(schema)


def same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, and 1 is not "1"."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same, a, b))
    if type(a) in (int, float) and type(b) in (int, float):
        return a == b
    return type(a) is type(b) and a == b


def _every(checks: list[Check]) -> Check:
    """One check that passes where every one of `checks` passes (in order, stopping at the
    first that fails)."""
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    if len(checks) == 3:
        first, second, third = checks
        return lambda v: first(v) and second(v) and third(v)

    def check(v: Any) -> bool:
        for one in checks:
            if not one(v):
                return False
        return True
    return check


class _Compiler:
    def __init__(self, root: dict):
        self.root = root
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        checks: list[Check] = []
        for key, value in schema.items():
            if key in _IGNORED:
                continue
            make = getattr(self, "_" + key.lstrip("$"), None)
            if make is None:
                raise Unsupported(key)
            checks.append(make(value, schema))
        return _every(checks)

    # --- any type -------------------------------------------------------------------------
    def _type(self, value: Any, schema: dict) -> Check:
        tests = [_TYPES[t] for t in ([value] if isinstance(value, str) else value)]
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(test(v) for test in tests)

    def _const(self, value: Any, schema: dict) -> Check:
        if type(value) is str:     # most consts: an order's type (a string equals only a string)
            return lambda v: v == value
        return lambda v: same(v, value)

    def _enum(self, value: list, schema: dict) -> Check:
        if value and all(type(option) is str for option in value):
            options = frozenset(value)
            return lambda v: type(v) is str and v in options
        return lambda v: any(same(v, option) for option in value)

    def _oneOf(self, value: list, schema: dict) -> Check:
        subs = [self.compile(s) for s in value]
        return lambda v: sum(1 for sub in subs if sub(v)) == 1

    def _anyOf(self, value: list, schema: dict) -> Check:
        subs = [self.compile(s) for s in value]
        return lambda v: any(sub(v) for sub in subs)

    def _allOf(self, value: list, schema: dict) -> Check:
        subs = [self.compile(s) for s in value]
        return lambda v: all(sub(v) for sub in subs)

    def _not(self, value: Any, schema: dict) -> Check:
        sub = self.compile(value)
        return lambda v: not sub(v)

    def _if(self, value: Any, schema: dict) -> Check:
        test = self.compile(value)
        then = self.compile(schema.get("then", True))
        otherwise = self.compile(schema.get("else", True))
        return lambda v: then(v) if test(v) else otherwise(v)

    def _ref(self, value: str, schema: dict) -> Check:
        if not value.startswith("#/"):
            raise Unsupported(f"$ref {value}")
        if value not in self.refs:
            self.refs[value] = lambda v: True  # a placeholder while a recursive schema compiles
            target: Any = self.root
            for part in value[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            compiled = self.compile(target)
            self.refs[value] = compiled
        refs = self.refs
        return lambda v: refs[value](v)

    # --- strings --------------------------------------------------------------------------
    def _pattern(self, value: str, schema: dict) -> Check:
        search = re.compile(python_pattern(value)).search
        return lambda v: not isinstance(v, str) or search(v) is not None

    def _minLength(self, value: int, schema: dict) -> Check:
        return lambda v: not isinstance(v, str) or len(v) >= value

    def _maxLength(self, value: int, schema: dict) -> Check:
        return lambda v: not isinstance(v, str) or len(v) <= value

    # --- numbers --------------------------------------------------------------------------
    def _minimum(self, value: int, schema: dict) -> Check:
        return lambda v: type(v) not in (int, float) or v >= value

    def _maximum(self, value: int, schema: dict) -> Check:
        return lambda v: type(v) not in (int, float) or v <= value

    # --- arrays ---------------------------------------------------------------------------
    def _items(self, value: Any, schema: dict) -> Check:
        if isinstance(value, list):
            raise Unsupported("items as a list")
        sub = self.compile(value)

        def check(v: Any) -> bool:
            if isinstance(v, list):
                for item in v:
                    if not sub(item):
                        return False
            return True
        return check

    def _minItems(self, value: int, schema: dict) -> Check:
        return lambda v: not isinstance(v, list) or len(v) >= value

    def _maxItems(self, value: int, schema: dict) -> Check:
        return lambda v: not isinstance(v, list) or len(v) <= value

    def _uniqueItems(self, value: bool, schema: dict) -> Check:
        if not value:
            return lambda v: True
        return lambda v: not isinstance(v, list) or all(not same(a, b) for i, a in enumerate(v) for b in v[i + 1:])

    # --- objects --------------------------------------------------------------------------
    def _required(self, value: list, schema: dict) -> Check:
        def check(v: Any) -> bool:
            if isinstance(v, dict):
                for key in value:
                    if key not in v:
                        return False
            return True
        return check

    def _properties(self, value: dict, schema: dict) -> Check:
        subs = [(key, self.compile(sub)) for key, sub in value.items()]

        def check(v: Any) -> bool:
            if isinstance(v, dict):
                for key, sub in subs:
                    if key in v and not sub(v[key]):
                        return False
            return True
        return check

    def _patternProperties(self, value: dict, schema: dict) -> Check:
        subs = [(re.compile(python_pattern(p)).search, self.compile(s)) for p, s in value.items()]
        return lambda v: not isinstance(v, dict) or all(sub(item) for key, item in v.items()
                                                        for match, sub in subs if match(key))

    def _additionalProperties(self, value: Any, schema: dict) -> Check:
        known = set(schema.get("properties", {}))
        patterns = [re.compile(python_pattern(p)).search for p in schema.get("patternProperties", {})]
        sub = self.compile(value)

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            return all(sub(item) for key, item in v.items()
                       if key not in known and not any(match(key) for match in patterns))
        return check

    def _propertyNames(self, value: Any, schema: dict) -> Check:
        sub = self.compile(value)
        return lambda v: not isinstance(v, dict) or all(sub(key) for key in v)

    def _minProperties(self, value: int, schema: dict) -> Check:
        return lambda v: not isinstance(v, dict) or len(v) >= value

    def _maxProperties(self, value: int, schema: dict) -> Check:
        return lambda v: not isinstance(v, dict) or len(v) <= value

    def _dependentRequired(self, value: dict, schema: dict) -> Check:
        return lambda v: not isinstance(v, dict) or all(all(need in v for need in needs)
                                                        for key, needs in value.items() if key in v)
