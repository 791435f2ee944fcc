"""examples/kkoh-demo: a signed kkoh game of at least three full turns, its order chits and
fire plans sealed and opened as the rules ask - each chit when the rules reveal it - (examples/regenerate.sh
kkoh), auditing clean."""

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
    sealed = {f"{p['seq']}.{n}": p["seq"] for p in packets for n in range(1, len(p.get("sealed", [])) + 1)}
    opened = [(e["seal"], p["seq"]) for p in packets for e in p.get("opens", [])]
    assert len({seq for seq in sealed.values()}) >= 6 and len(opened) == len({name for name, _ in opened})
    state = open_folder(FOLDER).state
    unopened = {item["id"] for record in state["sealed"].values() for item in record["items"]}
    assert set(sealed) == {name for name, _ in opened} | unopened          # every item opened once, or still sealed
    seals = {}
    for name, seq in opened:
        seals.setdefault(sealed[name], set()).add(seq)
    assert any(len(seqs) > 1 for seqs in seals.values())                   # chits opened one by one, when revealed
    reports = "".join(p.read_text() for p in sorted((FOLDER / "aar").glob("*.md")))
    assert "has sealed its order chits" in reports and "has sealed its fire plan" in reports
    assert "revealed (item" in reports and "a sealed order chit, tested now; its test die is sealed with it" in reports
    assert not (FOLDER / "private").exists()
