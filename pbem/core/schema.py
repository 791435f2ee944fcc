"""JSON Schema validation. A document is first checked by the fast compiled check of
`pbem.core.fastcheck`; jsonschema, slow to import, is loaded only to explain a failure
(or for a schema the fast check does not cover). Schemas of the envelopes live in
`schemas/` at the top of the project and are packaged as `pbem/schemas` data."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
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
    return cls(schema)


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


def order_errors(schema: dict, order: Any) -> list:
    """The jsonschema errors of one order against an orders schema, most general first
    ([] when it is valid). An orders schema is a `oneOf` of one branch per order type:
    the order is checked against its own type's branch only, and against the whole
    schema only to explain a failure."""
    branches = _cached("branches", schema, _branches)
    kind = order.get("type") if isinstance(order, dict) else None
    branch = branches.get(kind) if isinstance(kind, str) else None
    if is_valid(branch if branch is not None else schema, order):
        return []
    # Explained by its own type's branch, when it names a type: the most precise reason.
    found = validator(branch if branch is not None else schema).iter_errors(order)
    return sorted(found, key=lambda e: (len(e.path), list(map(str, e.path))))


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
    return [f"{_path(e.absolute_path) or '(top)'}: {e.message}" for e in found]


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
