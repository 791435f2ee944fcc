import pytest

from pbem import rulesets


@pytest.fixture(autouse=True)
def test_rulesets_registered(monkeypatch):
    """The test rulesets `duel` (decisions) and `blind` (sealed simultaneous plans) are
    known to the registry during tests only."""
    monkeypatch.setitem(rulesets.REGISTRY, "duel", "tests.support.duel")
    monkeypatch.setitem(rulesets.REGISTRY, "blind", "tests.support.blind")
