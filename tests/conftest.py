import pytest

from pbem import rulesets


@pytest.fixture(autouse=True)
def duel_registered(monkeypatch):
    """The `duel` test ruleset is known to the registry during tests only."""
    monkeypatch.setitem(rulesets.REGISTRY, "duel", "tests.support.duel")
