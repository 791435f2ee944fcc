"""examples/kkoh-demo: a signed kkoh game of at least three full turns, its order chits and
fire plans sealed and opened as the rules ask (examples/regenerate.sh kkoh), auditing clean."""

from pathlib import Path

from pbem.core.audit import audit
from pbem.core.canonical import load_mapping
from pbem.core.game import open_folder

FOLDER = Path(__file__).resolve().parents[1] / "examples" / "kkoh-demo"


def test_the_kkoh_example_has_three_full_turns_of_sealed_orders_and_audits_clean():
    result = audit(FOLDER)
    assert result.ok, result.divergence.sentence()
    assert result.signatures == result.packets >= 40
    assert open_folder(FOLDER).state["rules"]["turn"] >= 4
    packets = [load_mapping(p) for p in sorted((FOLDER / "packets").glob("*.yaml"))]
    sealing = [p["seq"] for p in packets if "sealed" in p]
    opening = [p["seq"] for p in packets if "opens" in p]
    assert len(sealing) >= 6 and len(opening) == len(sealing)
    for p in packets:            # each seal is opened by the sealer's next packet (two later)
        if "sealed" in p:
            assert p["seq"] + 2 in opening
    reports = "".join(p.read_text() for p in sorted((FOLDER / "aar").glob("*.md")))
    assert "has sealed its order chits" in reports and "has sealed its fire plan" in reports
    assert not (FOLDER / "private").exists()
