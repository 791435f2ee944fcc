import pytest

from pbem import rulesets


@pytest.fixture(autouse=True)
def test_rulesets_registered(monkeypatch):
    """The test rulesets `duel` (decisions), `blind` (sealed simultaneous plans) and `veiled`
    (sealed items revealed one by one) are
    known to the registry during tests only."""
    monkeypatch.setitem(rulesets.REGISTRY, "duel", "tests.support.duel")
    monkeypatch.setitem(rulesets.REGISTRY, "blind", "tests.support.blind")
    monkeypatch.setitem(rulesets.REGISTRY, "veiled", "tests.support.veiled")
