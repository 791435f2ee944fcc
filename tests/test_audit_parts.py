"""Audit cut into parts replayed side by side (`audit(folder, jobs=N)`): whatever is wrong
with a folder, and wherever, the verdict and the first divergence are exactly those of one
pass from state 0 (`jobs=1`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pbem.core import audit

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "chir-demo"   # 24 packets


@pytest.fixture
def small_parts(monkeypatch):
    """Parts of 6 packets, so the 24-packet example is cut into 4."""
    monkeypatch.setattr(audit, "MIN_PART", 6)
    started: list[tuple[int, int]] = []
    start = audit._start_part

    def spy(folder, game, packets, first, stop):
        started.append((first, stop))
        return start(folder, game, packets, first, stop)

    monkeypatch.setattr(audit, "_start_part", spy)
    return started


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path.name} has no {old!r} to tamper with"
    path.write_text(text.replace(old, new, 1))


def _state_field(folder: Path, seq: int) -> None:   # a changed value: the replay differs
    _edit(folder / "states" / f"{seq:04d}.yaml", "last_reveal: ", "last_reveal: 00")


def _state_gone(folder: Path, seq: int) -> None:
    (folder / "states" / f"{seq:04d}.yaml").unlink()


def _state_garbled(folder: Path, seq: int) -> None:   # a part cannot start from it
    (folder / "states" / f"{seq:04d}.yaml").write_text("awaiting: [\n")


def _report_line(folder: Path, seq: int) -> None:
    _edit(folder / "aar" / f"{seq:04d}.md", "Packet", "Paket")


def _packet_gone(folder: Path, seq: int) -> None:
    next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml"))).unlink()


def _packet_order(folder: Path, seq: int) -> None:   # the signature no longer holds
    path = next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml")))
    _edit(path, "orders: []", "orders: [{type: end}]")


TAMPERINGS = {
    "clean": [],
    "state in the last part": [(_state_field, 22)],
    "state at a boundary": [(_state_field, 12)],
    "state missing at a boundary": [(_state_gone, 18)],
    "state garbled at a boundary": [(_state_garbled, 6)],
    "state garbled inside a part": [(_state_garbled, 14)],
    "report in the second part": [(_report_line, 9)],
    "packet missing in the third part": [(_packet_gone, 15)],
    "packet altered in the first part": [(_packet_order, 3)],
    "two faults: the earlier one is named": [(_state_field, 20), (_report_line, 8)],
    "two faults in reverse": [(_report_line, 23), (_state_field, 2)],
    "extra state after the last packet": [(lambda f, n: shutil.copy(f / "states" / "0024.yaml",
                                                                   f / "states" / f"{n:04d}.yaml"), 25)],
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_parts_report_exactly_what_one_pass_reports(tmp_path, small_parts, name):
    folder = tmp_path / "game"
    shutil.copytree(EXAMPLE, folder)
    for tamper, seq in TAMPERINGS[name]:
        tamper(folder, seq)
    one_pass = audit.audit(folder, jobs=1).as_dict()
    assert small_parts == []
    in_parts = audit.audit(folder, jobs=4).as_dict()
    assert len(small_parts) >= 2   # the cut really happened (four parts of 24 packets, three of 23)
    assert in_parts == one_pass
    assert one_pass["ok"] is (name == "clean")


def test_clean_parts_count_every_packet_state_and_roll(small_parts):
    one_pass, in_parts = audit.audit(EXAMPLE, jobs=1), audit.audit(EXAMPLE, jobs=3)
    assert in_parts.ok and in_parts.packets == 24 and in_parts.states == 25 and in_parts.rolls == one_pass.rolls > 0
    assert in_parts.final_state == one_pass.final_state
    assert small_parts == [(8, 16), (16, 24)]


def test_a_part_that_fails_in_its_process_is_replayed_in_order(tmp_path, small_parts, monkeypatch):
    """A part whose process dies (here: cannot fork) is played by the auditing process."""
    monkeypatch.setattr(audit.os, "fork", lambda: (_ for _ in ()).throw(OSError("no more processes")))
    folder = tmp_path / "game"
    shutil.copytree(EXAMPLE, folder)
    _state_field(folder, 21)
    result = audit.audit(folder, jobs=4)
    assert result.divergence.file == "states/0021.yaml" and result.packets == 21
