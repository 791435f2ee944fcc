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
