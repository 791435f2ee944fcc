"""Audit cut into parts replayed side by side (`audit(folder, jobs=N)`): whatever is wrong
with a folder, and wherever, the verdict and the first divergence are exactly those of one
pass from state 0 (`jobs=1`)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pbem.core import audit, game

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "stalingrad-demo"
N = len(list((EXAMPLE / "packets").glob("*.yaml")))      # its packets: 20 or more
PART = min(6, N // 4)   # parts of at least this many packets make 4


def cut(folder: Path, parts: int) -> list[int]:
    """Where audit cuts the packets of `folder` into `parts` parts (by their work)."""
    return audit._bounds(audit._first_files(game.packet_files(folder)), parts)


def bounds(jobs: int) -> list[int]:
    """Where audit(jobs=...) cuts the example with MIN_PART set to PART (`small_parts`)."""
    return cut(EXAMPLE, min(jobs, N // PART))


B = bounds(4)
FIRST_EMPTY = next(seq for seq in range(2, B[1]) if "orders: []" in next((EXAMPLE / "packets").glob(f"{seq:04d}-*.yaml")).read_text())


@pytest.fixture
def small_parts(monkeypatch):
    """Parts of at least PART packets, so the example is cut into 4 (`bounds`)."""
    assert N >= 20
    monkeypatch.setattr(audit, "MIN_PART", PART)
    started: list[tuple[int, int]] = []
    start = audit._start_part

    def spy(folder, game, files, paths, first, stop):
        started.append((first, stop))
        return start(folder, game, files, paths, first, stop)

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


def _state_packet(folder: Path, seq: int) -> None:   # made from another packet of its seq: secure games say which
    path = folder / "states" / f"{seq:04d}.yaml"
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("packet: "))
    lines[at] = "packet: " + "ab" * 32 + "\n"
    path.write_text("".join(lines))


def _report_line(folder: Path, seq: int) -> None:
    _edit(folder / "aar" / f"{seq:04d}.md", "Packet", "Paket")


def _packet_gone(folder: Path, seq: int) -> None:
    next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml"))).unlink()


def _packet_order(folder: Path, seq: int) -> None:   # the signature no longer holds
    path = next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml")))
    _edit(path, "orders: []", "orders: [{type: end}]")


def _packet_garbled(folder: Path, seq: int) -> None:   # no packet at all: named before any replay
    next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml"))).write_text("orders: [\n")


def _packet_renamed(folder: Path, seq: int) -> None:   # under the other side's name
    path = next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml")))
    side = path.name[5:].removesuffix(".yaml")
    other = next(p.name[5:].removesuffix(".yaml") for p in (folder / "packets").iterdir()
                 if not p.name.endswith(f"-{side}.yaml"))
    path.rename(path.with_name(f"{seq:04d}-{other}.yaml"))


def _second_file(folder: Path, seq: int) -> None:   # a second file for one seq, its signature broken
    path = next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml")))
    copy = path.with_name(path.name.replace(".yaml", ".alt.yaml"))
    shutil.copy(path, copy)
    text = copy.read_text()
    at = re.search(r'^prev: "?', text, re.MULTILINE).end()    # quoted where the hash begins with a digit
    copy.write_text(text[:at] + ("1" if text[at] == "0" else "0") + text[at + 1:])


def _evidence_alone(folder: Path, seq: int) -> None:   # the packet kept under a fork evidence name only
    path = next(iter((folder / "packets").glob(f"{seq:04d}-*.yaml")))
    path.rename(path.with_name(path.name.replace(".yaml", ".alt.yaml")))


TAMPERINGS = {
    "clean": [],
    "state in the last part": [(_state_field, N - 2)],
    "state at a boundary": [(_state_field, B[2])],
    "state missing at a boundary": [(_state_gone, B[3])],
    "state garbled at a boundary": [(_state_garbled, B[1])],
    "state garbled inside a part": [(_state_garbled, B[2] + 2)],
    "report in the second part": [(_report_line, B[1] + 3)],
    "state from another packet in the last part": [(_state_packet, N - 2)],
    "packet missing in the third part": [(_packet_gone, B[2] + 3)],
    "packet altered in the first part": [(_packet_order, FIRST_EMPTY)],
    "two faults: the earlier one is named": [(_state_field, B[3] + 2), (_report_line, B[1] + 2)],
    "two faults in reverse": [(_report_line, N - 1), (_state_field, 2)],
    # a file wrong in itself is named before any replay that differs, wherever the two are,
    # and a seq of two files before any replay too: each part reads its files first
    "garbled packet in the last part, state in the first": [(_state_field, 2), (_packet_garbled, N - 1)],
    "packet under another name in the third part, report in the first": [(_report_line, 3),
                                                                          (_packet_renamed, B[2] + 1)],
    "second file in the last part, state in the second": [(_state_field, B[1] + 1), (_second_file, N - 2)],
    "second file in the first part, garbled packet in the last": [(_second_file, 2), (_packet_garbled, N - 1)],
    "packet altered in the first part, garbled packet in the last": [(_packet_order, FIRST_EMPTY),
                                                                     (_packet_garbled, N - 1)],
    "fork evidence alone in the third part, state in the first": [(_state_field, 2), (_evidence_alone, B[2] + 1)],
    "extra state after the last packet": [(lambda f, n: shutil.copy(f / "states" / f"{N:04d}.yaml",
                                                                   f / "states" / f"{n:04d}.yaml"), N + 1)],
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
    assert len(small_parts) >= 2   # the cut really happened (four parts, or three when a packet is gone)
    assert in_parts == one_pass
    assert one_pass["ok"] is (name == "clean")


def test_clean_parts_count_every_packet_state_and_roll(small_parts):
    one_pass, in_parts = audit.audit(EXAMPLE, jobs=1), audit.audit(EXAMPLE, jobs=3)
    assert in_parts.ok and in_parts.packets == N and in_parts.states == N + 1 and in_parts.rolls == one_pass.rolls > 0
    assert in_parts.final_state == one_pass.final_state
    b = bounds(3)
    assert len(b) == 4 and small_parts == [(b[1], b[2]), (b[2], b[3])]


def test_a_game_of_sixteen_packets_is_audited_in_two_parts_on_two_cores(tmp_path, monkeypatch):
    """A part of 8 packets is worth its process: forking and reading a boundary state cost
    about what a few cheap packets do, so a short stalingrad game audits sooner in two
    parts (a 45-packet game was audited in one pass, at two thirds the speed)."""
    folder = tmp_path / "short"
    shutil.copytree(EXAMPLE.parent / "stalingrad-demo", folder)
    for sub in ("packets", "states", "aar"):
        for path in (folder / sub).iterdir():
            if int(path.name[:4]) > 16:
                path.unlink()
    started: list[tuple[int, int]] = []
    start = audit._start_part
    monkeypatch.setattr(audit, "_start_part", lambda *a: started.append(a[-2:]) or start(*a))
    result = audit.audit(folder, jobs=2)
    assert result.ok and result.packets == 16 and result.states == 17
    assert started == [tuple(cut(folder, 2)[1:])]
    assert audit.audit(folder, jobs=1).as_dict() == result.as_dict()


def test_a_part_that_fails_in_its_process_is_replayed_in_order(tmp_path, small_parts, monkeypatch):
    """A part whose process dies (here: cannot fork) is played by the auditing process."""
    monkeypatch.setattr(audit.os, "fork", lambda: (_ for _ in ()).throw(OSError("no more processes")))
    folder = tmp_path / "game"
    shutil.copytree(EXAMPLE, folder)
    _state_field(folder, 21)
    result = audit.audit(folder, jobs=4)
    assert result.divergence.file == "states/0021.yaml" and result.packets == 21


def test_a_part_that_fails_after_reading_is_read_and_replayed_here(tmp_path, small_parts, monkeypatch):
    """A part whose process read its files clean and then died is read and replayed by the
    auditing process: the divergence in it is still found, and nothing after it."""
    def dies(*args):
        raise SystemExit(1)

    monkeypatch.setattr(audit, "_replay_part", dies)
    folder = tmp_path / "game"
    shutil.copytree(EXAMPLE, folder)
    _state_field(folder, B[2] + 1)
    _report_line(folder, B[3] + 1)
    result = audit.audit(folder, jobs=4)
    assert len(small_parts) == 3
    assert result.divergence.file == f"states/{B[2] + 1:04d}.yaml" and result.packets == B[2] + 1
    assert result.as_dict() == audit.audit(folder, jobs=1).as_dict()


def _reversed_keys(value):
    """`value` with the keys of every mapping in it in reverse order: the same content."""
    if isinstance(value, dict):
        return {key: _reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(item) for item in value]
    return value


def test_a_boundary_state_with_its_keys_reordered_gives_the_verdict_of_one_pass(tmp_path, monkeypatch):
    """A stored state with its keys written in another order holds the same content (its hash
    is the same, and the layout is no part of the record): the part that starts from it
    replays exactly what one pass replays. (A probe: dos lists a stack's units in the order
    the state's mapping gives them, and a part read that order from the file.)"""
    import json

    from pbem.core.canonical import loads

    folder = tmp_path / "game"
    shutil.copytree(EXAMPLE.parent / "dos-demo", folder)
    total = len(list((folder / "packets").glob("*.yaml")))
    monkeypatch.setattr(audit, "MIN_PART", total // 2)
    boundary = cut(folder, 2)[1]                # where jobs=2 cuts: part 2 starts from this state
    path = folder / "states" / f"{boundary:04d}.yaml"
    state = loads(path.read_bytes(), path.name)
    state["rules"] = _reversed_keys(state["rules"])
    path.write_text(json.dumps(state, ensure_ascii=False) + "\n")
    one_pass, in_parts = audit.audit(folder, jobs=1), audit.audit(folder, jobs=2)
    assert one_pass.ok and one_pass.packets == total
    assert in_parts.as_dict() == one_pass.as_dict()


def test_audit_in_parts_under_a_parent_that_ignores_sigchld(small_parts):
    """A process that ignores SIGCHLD (a mail daemon may, and its children inherit it) has the
    kernel reap its children: the parts' findings still count, and nothing crashes."""
    import signal

    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        result = audit.audit(EXAMPLE, jobs=3)
    finally:
        signal.signal(signal.SIGCHLD, before)
    assert len(small_parts) == 2
    assert result.ok and result.packets == N and result.states == N + 1


def test_fork_evidence_goes_beside_the_packet_of_its_seq(tmp_path):
    """A second file of a seq is weighed against the packet the game went on from, never the
    other way round, and fork evidence with no packet beside it is named (a probe: an exact
    copy kept as .alt had the packet itself named as the copy to remove, and a packet kept
    under the .alt name alone audited clean)."""
    folder = tmp_path / "game"
    shutil.copytree(EXAMPLE, folder)
    path = next(iter((folder / "packets").glob("0005-*.yaml")))
    evidence = path.with_name(path.name.replace(".yaml", ".alt.yaml"))
    shutil.copy(path, evidence)
    copy = audit.audit(folder, jobs=1).divergence
    assert (copy.file, copy.message) == (f"packets/{evidence.name}", f"a second copy of packet 5 (packets/{path.name}): "
                                                                     f"remove it")
    path.unlink()
    alone = audit.audit(folder, jobs=1).divergence
    assert alone.file == f"packets/{evidence.name}" and alone.message == (
        f"a name with an infix keeps fork evidence, and no packet 5 stands beside it: the packet the game went on "
        f"from goes under packets/{path.name}")
    evidence.rename(path)
    assert audit.audit(folder, jobs=1).ok


def test_parts_are_cut_by_the_work_of_their_packets(tmp_path):
    """A packet's work follows its file's size (its orders) plus a fixed part, and a part in
    a process of its own first reads the stored state it starts from: the cut gives each part
    about the same work, not the same number of packets (the second half of a stalingrad game,
    where the fighting is, kept the auditing process waiting for it)."""
    paths = []
    for seq, size in enumerate([3000] * 5 + [200] * 5, start=1):
        paths.append(tmp_path / f"{seq:04d}-a.yaml")
        paths[-1].write_bytes(b"x" * size)
    weight = [audit.PACKET_BYTES + 3000] * 5 + [audit.PACKET_BYTES + 200] * 5
    cut = audit._bounds(paths, 2)
    assert cut == [0, 4, 10]
    # the cut of least difference between the two parts' times (a forked part's are FORKED times
    # its work, and START_BYTES more)
    assert min(range(1, 10), key=lambda b: abs(sum(weight[:b]) - audit.FORKED * sum(weight[b:]) - audit.START_BYTES)) == 4
    assert audit._bounds(paths[5:], 2) == [0, 3, 5]     # alike packets: this process takes the larger share
    # with FORKED 1.15 and START_BYTES 1,000: this process's part 7,374, each other 5,542; cuts
    # nearest 7,374, 12,916 and 18,458
    assert (audit.FORKED, audit.START_BYTES) == (1.15, 1000)
    assert audit._bounds(paths, 4) == [0, 2, 3, 5, 10]
    assert audit._bounds(paths[:2], 2) == [0, 1, 2]    # every part has a packet
