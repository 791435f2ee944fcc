"""The example game folders audit clean (a format change must regenerate them)."""

from pathlib import Path

import pytest

from pbem.core.audit import audit

EXAMPLES = sorted(p.parent for p in (Path(__file__).resolve().parents[1] / "examples").glob("*/game.yaml"))


def test_there_are_examples():
    assert {p.name for p in EXAMPLES} >= {"stalingrad-demo", "chir-demo"}


@pytest.mark.parametrize("folder", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_audits_clean(folder):
    result = audit(folder)
    assert result.ok, result.divergence.sentence()
    assert result.packets >= 2 and result.signatures == result.packets
    if folder.name == "chir-demo":  # issue: at least two full game turns
        from pbem.core.game import open_folder

        assert open_folder(folder).state["rules"]["turn"] >= 3
