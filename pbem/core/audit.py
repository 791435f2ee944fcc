"""Audit a whole game folder: replay every packet from the genesis (DESIGN §4.1).

The audit folds the pure adjudication step over all packets in order and compares each
result with the stored state and report. It stops at the first divergence and names it
precisely: the file, the field, what the replay expected and what the file holds. Two
different packets signed for the same seq are reported as fork evidence naming both.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from pathlib import Path

from pbem.core import engine, genesis, report
from pbem.core.canonical import ABSENT, differences, first_difference, load_mapping, loads, read_bounded
from pbem.core.text import shown
from pbem.core.errors import PbemError, VerificationError
from pbem.core.game import (GENESIS, JOIN, NUMBER, PACKET_FILE, PROPOSAL, STATE_FILE, initial_state, open_genesis,
                            packet_files, read_packet, state_numbers, state_text)
from pbem.core.packet import packet_id, verify_signature
from pbem.core.sealing import PRIVATE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_AAR_NAME = re.compile(NUMBER + r"\.md\Z")
_PRIVATE_NAME = re.compile(r"seal-" + NUMBER + r"-[a-z][a-z0-9-]*\.yaml\Z")


class Divergence:
    """The first file where the folder and the replay part: the sentence that says how, and
    the field, the value expected and the value found where one value differs."""

    __slots__ = ("file", "message", "field", "expected", "found", "evidence")

    def __init__(self, file: str, message: str, field: str | None = None, expected: Any = None, found: Any = None,
                 evidence: list[str] | None = None):
        self.file = file
        self.message = message
        self.field = field
        self.expected = expected
        self.found = found
        self.evidence = evidence if evidence is not None else []

    def as_dict(self) -> dict:
        return {"file": self.file, "message": self.message, "field": self.field, "expected": self.expected,
                "found": self.found, "evidence": self.evidence}

    def sentence(self) -> str:
        text = f"{shown(self.file)}: {self.message}"   # a stray file's name could hold a line break
        if self.field is not None:
            expected, found = _from_difference(repr(self.expected), repr(self.found))
            # a report's difference is at a line, a file's at a field
            where = self.field if self.field.startswith("line ") else f"field {self.field}"
            text += f" ({where}: expected {_cut(expected)}, found {_cut(found)})"
        return text


def _from_difference(expected: str, found: str, before: int = 30) -> tuple[str, str]:
    """Two long values, as written (repr), cut to where they part, `before` characters ahead
    of it, so that what the sentence shows of them is their difference (a players' probe: two
    report lines cut at 80 characters read the same)."""
    if max(len(expected), len(found)) <= 80:
        return expected, found
    start = next((i for i, (a, b) in enumerate(zip(expected, found)) if a != b), min(len(expected), len(found)))
    start = max(0, start - before)
    if start <= 1:
        return expected, found
    return expected[0] + "..." + expected[start:], found[0] + "..." + found[start:]   # after the opening quote


def _cut(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


class AuditResult:
    """What an audit found: the counts of what it checked, the final state and result, and
    the divergence that ended it, if any."""

    __slots__ = ("game", "mode", "keys", "packets", "signatures", "reveals", "rolls", "states", "final_state",
                 "result", "awaited", "divergence", "record", "scenario", "ruleset", "options", "terms")

    def __init__(self) -> None:
        self.game: str | None = None
        # "secure" or "sandbox": a clean sandbox game proves the rules were followed, not
        # who sent the packets nor that the dice were fair (they come from a script or seed)
        self.mode: str | None = None
        self.keys: dict[str, str] = {}   # side -> the fingerprint of its key (a secure game)
        self.packets = self.signatures = self.reveals = self.rolls = self.states = 0
        self.final_state: str | None = None
        self.result: str | None = None
        self.awaited: str | None = None   # a game not over: what its last state waits for
        self.divergence: Divergence | None = None
        # False for a folder of the genesis and packets only (no states/, no aar/): what a
        # forum thread carries; the replay is checked, and there is no record to compare
        self.record = True
        # the scenario the genesis plays: bundled by name, or embedded and how it differs from
        # the bundled one closest to it (describe.scenario_terms)
        self.scenario: dict | None = None
        # the rules the game was played under, which a referee checks first (a new user's probe:
        # the verdict named neither the ruleset nor its version): {"id", "version"}, the options,
        # and their sentences as the handshake printed them (describe.terms)
        self.ruleset: dict | None = None
        self.options: dict | None = None
        self.terms: list[str] = []

    @property
    def ok(self) -> bool:
        return self.divergence is None

    def as_dict(self) -> dict:
        return {"ok": self.ok, "game": self.game, "mode": self.mode, "keys": self.keys, "packets": self.packets,
                "signatures": self.signatures, "reveals": self.reveals, "rolls": self.rolls, "states": self.states,
                "final_state": self.final_state, "result": self.result, "awaited": self.awaited,
                "divergence": self.divergence.as_dict() if self.divergence else None, "record": self.record,
                "scenario": self.scenario, "ruleset": self.ruleset, "options": self.options}


def audit(folder: Path, jobs: int | None = None) -> AuditResult:
    """Replay a whole folder; `jobs` processes share the replay (default: the usable cores).

    The verdict and the report of the first divergence do not depend on `jobs`: see
    `_replay_in_parts`."""
    folder = Path(folder)
    out = AuditResult()
    try:
        _audit(folder, out, _jobs(jobs))
    except PbemError as exc:
        out.divergence = out.divergence or _divergence_of(exc)
    return out


def _divergence_of(exc: PbemError) -> Divergence:
    where = _file_of(exc.message)
    message = exc.message.removeprefix(f"{where}: ")     # the sentence names the file once
    if message.startswith(f"{where}, line "):
        message = message.removeprefix(f"{where}, ")     # "line 30: ..."
    return Divergence(file=where, message=message)


def _jobs(jobs: int | None) -> int:
    """Processes for the replay: the cores this process may use, on Linux only (a forked
    child is safe there; macOS warns against fork once system libraries are loaded)."""
    if jobs is not None:
        return max(1, jobs)
    if not sys.platform.startswith("linux") or not hasattr(os, "sched_getaffinity"):
        return 1
    return min(len(os.sched_getaffinity(0)), MAX_JOBS)


def _audit(folder: Path, out: AuditResult, jobs: int) -> None:
    document = load_mapping(folder / GENESIS, GENESIS)
    try:
        game = open_genesis(document, kept=False)   # a full replay builds the scenario from the genesis, too
    except VerificationError as exc:
        out.divergence = _genesis_altered(folder, document, exc)
        return
    out.game, out.mode = game.game_id, document["mode"]
    out.ruleset, out.options = {"id": document["ruleset"], "version": document["ruleset_version"]}, document["options"]
    out.keys = {side["name"]: side["fingerprint"] for side in document["sides"] if "fingerprint" in side}
    if not _expected_files(folder, document, out):
        return
    state = initial_state(game)
    out.record = (folder / "states").is_dir() or (folder / "aar").is_dir()
    if out.record and not _compare_state(folder, 0, state, out):
        return
    # in order of seq, where the order of names alone puts 10000 before 9999, and in a seq the
    # packet before any fork evidence kept beside it (an infix sorts before `.yaml`), then by
    # name (a stable sort)
    files = sorted(packet_files(folder), key=lambda entry: (entry[0], _evidence(entry[1])))
    final = _replay_in_parts(folder, game, files, state, out, jobs if out.record else 1)   # parts start from stored states
    if final is None:
        return
    expected_seq = len({seq for seq, _ in files}) + 1
    extra = [n for n in state_numbers(folder) if n >= expected_seq]
    if extra:
        out.divergence = Divergence(f"states/{extra[0]:04d}.yaml", "a state with no packet to derive it from")
        return
    reports = sorted(int(m.group(1)) for m in map(_AAR_NAME.match, _names(folder / "aar")) if m)
    stray = [n for n in reports if not 1 <= n < expected_seq]
    if stray:
        out.divergence = Divergence(f"aar/{stray[0]:04d}.md", "a report with no packet to derive it from")
        return
    out.final_state = final["state_hash"]
    summary = game.summary(final["rules"])
    out.result = summary.get("result")
    from pbem.core.describe import awaited_line, chain_used_up, scenario_terms, terms

    # where the game stands: a folder cut short audits clean (a player can always withhold a
    # packet), and its verdict says what it waits for
    used_up = chain_used_up(game, final)       # a probe: "Awaited: red" of a red that can send no more
    out.awaited = None if out.result else awaited_line(game, final, summary) + (f" {used_up}" if used_up else "")
    out.scenario = scenario_terms(document)
    ruleset_line, scenario_line, options_line = terms(document, out.scenario)[:3]   # (compared once)
    # an embedded scenario that differs is said on a line of its own
    out.terms = [ruleset_line] + ([] if out.scenario.get("differences") else [scenario_line]) + [options_line]


def _read_part(folder: Path, game: engine.Game, files: list[tuple[int, Path]]
               ) -> tuple[dict[int, list[tuple[Path, dict]]], Divergence | None, Divergence | None]:
    """Read the packet files of one part (in order of seq, then of name): the packets by seq,
    the first file that is no packet of its name, and the first seq with several files
    (`_fork`). What reading finds counts ahead of anything a replay finds, wherever the two
    are: a file that is wrong in itself is named before a replay that differs."""
    by_seq: dict[int, list[tuple[Path, dict]]] = {}
    for seq, path in files:
        rel = _packet_rel(path)
        if seq not in by_seq and _evidence(path):
            # fork evidence goes beside the packet the game went on from: alone, it was taken
            # for that packet, and the folder audited clean (a probe)
            return by_seq, Divergence(rel, f"a name with an infix keeps fork evidence, and no packet {seq} stands "
                                      f"beside it: the packet the game went on from goes under "
                                      f"packets/{path.name.split('.', 1)[0]}.yaml"), None
        try:
            packet, _ = read_packet(path, rel)
        except PbemError as exc:
            return by_seq, _divergence_of(exc), None
        by_seq.setdefault(seq, []).append((path, packet))
        if packet["seq"] != seq:
            return by_seq, Divergence(rel, "the file name and the packet disagree on seq", "seq", seq,
                                      packet["seq"]), None
        named = _named_side(path)
        if packet["side"] != named:
            # `0025-german-alt.yaml`: a second packet of one seq kept under a name audit reads as another side's
            alt = (f": a second packet of seq {seq} kept as fork evidence goes under "
                   f"packets/{path.name.split('-', 1)[0]}-{shown(packet['side'])}.alt.yaml"
                   if isinstance(packet["side"], str) and named.startswith(packet["side"] + "-") else "")
            return by_seq, Divergence(rel, f"the file name says {named} sent it, and the packet is "
                                      f"{shown(packet['side'])}'s{alt}", "side", named, packet["side"]), None
    scratch = AuditResult()
    for seq in sorted(by_seq):
        try:
            if _fork(folder, game, by_seq[seq], scratch):
                return by_seq, None, scratch.divergence
        except PbemError as exc:
            return by_seq, None, _divergence_of(exc)
    return by_seq, None, None


def _packet_rel(path: Path) -> str:
    """A packet file's name within the game folder, where `packet_files` lists them (made as
    a string: with pathlib's joins and `relative_to`, audit spent 4% of its time on paths)."""
    return "packets/" + path.name


def _evidence(path: Path) -> bool:
    """Whether a packet file's name has an infix (`0025-german.alt.yaml`): fork evidence kept
    beside the packet of its seq (docs/protocol.md §10)."""
    return PACKET_FILE.match(path.name).group(3) is not None


def _named_side(path: Path) -> str:
    """The side a packet file's name says sent it (`0007-german.yaml`: german)."""
    return path.name.split(".", 1)[0].split("-", 1)[1]


def _replay(folder: Path, game: engine.Game, paths: list[Path], packets: dict[int, dict], start: int, stop: int,
            state: dict, out: AuditResult) -> dict | None:
    """Replay the packets at positions start..stop-1 (packet k at position k-1: `paths` the
    file of each, `packets` what the files read hold) from state `start`, comparing every
    state and report; the state reached, or None at the first divergence."""
    content = None   # the canonical form of `state`, once a packet here has made it
    for position in range(start, stop):
        path, packet = paths[position], packets[position]
        seq, rel = position + 1, _packet_rel(path)
        said = (packet["seq"] != seq or packet.get("game") != game.game_id
                or seq > 1 and packet.get("prev") != state["state_hash"])
        stray = engine.stray(game, packet)
        if said and game.secure and not stray:
            # what it says is checked on its signature first: a field altered after signing is
            # that, not a packet missing, of another game or on another state (a referee's probe)
            engine.signed_as_it_stands(game, packet, rel)
        if packet["seq"] != seq and not stray:
            out.divergence = Divergence(rel, f"packet {seq} is missing before it", "seq", seq, packet["seq"])
            return None
        if packet.get("game") != game.game_id:      # before `prev`: that would blame its sender (a probe)
            # a file of another game under a key of neither side is that first, whatever its seq (a review)
            keys = engine.stray_key(game, packet)
            out.divergence = Divergence(rel, f"a packet of another game ({shown(str(packet.get('game')))})"
                                        + (f": {keys}" if keys else ""), "game", game.game_id, packet.get("game"))
            return None
        if seq > 1 and packet.get("prev") != state["state_hash"] and (not game.secure
                                                                     or packet.get("side") in game.public_keys):
            # the packets before this one chain up (each `prev` checked): its sender adjudicated
            # another packet seq-1 than the file, or made it on a state no packet gives; said once
            # its signature shows its sender wrote that `prev` (a review: a forged one blamed the side)
            if game.secure:
                verify_signature(packet, game.public_keys[packet["side"]], packet["side"], rel, game.public_keys)
            # the sender of the packet before, as its file name says (its content says the same:
            # every file was read before the replay), which may be another part's to read
            before = paths[position - 1]
            name, sender = _packet_rel(before), _named_side(before)
            side = shown(str(packet["side"]))
            out.divergence = Divergence(rel, f"{side}'s packet {seq} follows a state {seq - 1} other than the one "
                                        f"{name} gives: {side} adjudicated another packet {seq - 1}, or made packet "
                                        f"{seq} on a state no packet gives; "
                                        + _other_packet_words(sender, seq - 1, name, game.secure, f"{side}'s",
                                                              f"packet {seq}"),
                                        "prev", state["state_hash"], packet.get("prev"))
            return None
        state, events, content = engine.replay_packet(game, state, content, packet, rel)
        out.packets += 1
        out.signatures += 1 if game.secure else 0
        out.reveals += 1 if game.secure else 0
        out.rolls += sum(1 for e in events if e["type"] == "roll")
        if not out.record:
            continue
        if not _compare_state(folder, seq, state, out):
            return None
        if not _compare_report(os.path.join(folder, "aar", f"{seq:04d}.md"), f"aar/{seq:04d}.md",
                               report.render(game, state, events), out):
            return None
    return state


def _replay_in_parts(folder: Path, game: engine.Game, files: list[tuple[int, Path]], state: dict,
                     out: AuditResult, jobs: int) -> dict | None:
    """Read and replay the packet files, cut into consecutive parts (by seq) worked side by
    side in forked processes.

    Each part first reads its files: the first file that is wrong in itself, in order,
    is the finding, then the first seq with several files, as one pass reading every file
    before replaying any would find them. Part i > 0 then replays from the stored state at
    its first boundary rather than from the replay, which is still a full replay: the parts
    before it check that stored state against their own replay, and a part's findings count
    only when every part before it is clean. So the first divergence reported is the one a
    single pass would report, and a clean verdict means every state was recomputed from
    state 0 by one chain of steps. A part that cannot start (the boundary state unreadable)
    or fails in its own process is read and replayed here in order instead, so an error
    shows as it would in one pass."""
    seqs = sorted({seq for seq, _ in files})
    paths = _first_files(files)
    parts = min(jobs, len(seqs) // MIN_PART)
    bounds = _bounds(paths, parts) if parts > 1 else [0, len(seqs)]
    ranges = list(zip(bounds, bounds[1:]))

    def files_of(start: int, stop: int) -> list[tuple[int, Path]]:
        if stop <= start:
            return []
        first, last = seqs[start], seqs[stop - 1]
        return [(seq, path) for seq, path in files if first <= seq <= last]

    children = [_start_part(folder, game, files_of(start, stop), paths, start, stop) for start, stop in ranges[1:]]
    packets: dict[int, dict] = {}   # position -> packet, of the parts read here

    def read_here(start: int, stop: int) -> tuple[Divergence | None, Divergence | None]:
        by_seq, reading, forked = _read_part(folder, game, files_of(start, stop))
        for position in range(start, stop):
            if seqs[position] in by_seq:
                packets[position] = by_seq[seqs[position]][0][1]
        return reading, forked

    try:
        reading, forked = read_here(*ranges[0])
        if reading is not None:     # the first file wrong in itself
            out.divergence = reading
            return None
        # this process replays its own part while the others read theirs: what it finds
        # counts once every part has read clean, as one pass reads every file first
        first = AuditResult()
        first.mode, first.record = out.mode, out.record
        reached = _replay_held(folder, game, paths, packets, *ranges[0], state, first) if forked is None else None
        forks = [forked]
        for i, (start, stop) in enumerate(ranges[1:], 1):
            said = _ahead_of(children[i - 1])
            if said is None:   # its process could not say: read it here
                _stop_part(children[i - 1])
                children[i - 1] = None
                said = read_here(start, stop)
            reading, forked = said
            if reading is not None:    # every part before read clean
                out.divergence = reading
                return None
            forks.append(forked)
        for forked in forks:
            if forked is not None:
                out.divergence = forked
                return None
        _add(out, first.as_dict())
        state = reached
        for i, (start, stop) in enumerate(ranges[1:], 1):
            if state is None:
                return None
            found, children[i - 1] = _finish_part(children[i - 1]), None
            if found is None:   # the part could not run by itself: play it here
                if start < stop and stop - 1 not in packets:
                    reading, forked = read_here(start, stop)
                    if reading or forked:   # a file changed while the audit read it
                        out.divergence = reading or forked
                        return None
                state = _replay(folder, game, paths, packets, start, stop, state, out)
                continue
            _add(out, found)
            state = found["state"]
        return state
    finally:
        for child in children:
            _stop_part(child)


def _replay_held(folder: Path, game: engine.Game, paths: list[Path], packets: dict[int, dict], start: int,
                 stop: int, state: dict, out: AuditResult) -> dict | None:
    """`_replay`, with an error that would end the audit held in `out` as its divergence
    rather than raised: it counts only if no file after it is wrong in itself."""
    try:
        return _replay(folder, game, paths, packets, start, stop, state, out)
    except PbemError as exc:
        out.divergence = _divergence_of(exc)
        return None


def _add(out: AuditResult, found: dict) -> None:
    """Count what a part checked into `out`, and its divergence if it found one."""
    for name in ("packets", "signatures", "reveals", "rolls", "states"):
        setattr(out, name, getattr(out, name) + found[name])
    if found["divergence"] is not None:
        out.divergence = Divergence(**found["divergence"])


def _first_files(files: list[tuple[int, Path]]) -> list[Path]:
    """The file of each seq the replay reads: the first by name (a second is `_fork`'s)."""
    first: dict[int, Path] = {}
    for seq, path in files:
        first.setdefault(seq, path)
    return [first[seq] for seq in sorted(first)]


MAX_JOBS = 8
# packets: a game is cut into no more parts than it has MIN_PART packets, so that each part
# has about that many packets' work (`_bounds` cuts by work: a part may hold fewer, larger
# packets); less is not worth a process. Forking the audit and reading a boundary state
# costs about what replaying a few cheap (stalingrad) packets does: measured in process
# on 2 cores, a stalingrad game of 45 packets audits in 93 ms in two parts against 141 ms in
# one, of 16 packets in 34 ms against 45 ms, of 8 packets in no more time either way.
MIN_PART = 8


# How the packets are cut into parts: a packet's work is taken as its file's size plus
# PACKET_BYTES; a part run by a process of its own takes FORKED times as long for the same
# work, and START_BYTES more. Measured on a 46-packet stalingrad game: in one process, a
# packet's replay took 0.22 ms plus 0.97 ms per KB of its file (its orders), and reading it,
# comparing its state and writing its report about 0.6 ms more, so a packet costs about its
# size plus 800 bytes; a part's process first reads the stored state it starts from (about
# 1 ms), and then took some 15% longer for its packets than their size said, over a dozen
# runs (the later packets of a game cost a little more, and a forked process starts cold).
# Cut into halves by count, the second half kept the auditing process waiting 20 to 60 ms,
# a tenth of the audit; cut by size alone, 19 ms (median); cut so, 3 ms.
PACKET_BYTES = 800
START_BYTES = 1000
FORKED = 1.15


def _bounds(paths: list[Path], parts: int) -> list[int]:
    """Positions cutting the packets (`paths`, one file a seq) into at most `parts` runs of
    about equal time, each of at least one packet: a part ends before the packet whose middle
    passes its share (a packet larger than a share can leave fewer parts). Only speed depends
    on the cut, never a finding."""
    weights = [PACKET_BYTES + _size(path) for path in paths]
    # part 0 is this process's own; a forked part takes FORKED times as long for its packets,
    # and START_BYTES more: first = FORKED * other + START_BYTES, first + (parts - 1) * other = total
    first = (sum(weights) + (parts - 1) * START_BYTES / FORKED) / (1 + (parts - 1) / FORKED)
    other = (first - START_BYTES) / FORKED
    bounds, done = [0], 0
    for position, weight in enumerate(weights):
        cut = len(bounds)
        if cut < parts and position > bounds[-1] and done + weight / 2 > first + other * (cut - 1):
            bounds.append(position)
        done += weight
    return bounds + [len(paths)]


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _start_part(folder: Path, game: engine.Game, files: list[tuple[int, Path]], paths: list[Path], start: int,
                stop: int) -> tuple[int, Any] | None:
    """Fork a process reading `files` and replaying packets start..stop-1 from stored state
    `start`; on a pipe, one JSON line with what reading found, then what the replay found as
    one JSON document. None if no process could start."""
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid:
        os.close(write_end)
        return pid, os.fdopen(read_end, "rb")
    os.close(read_end)
    status = 0
    try:
        with os.fdopen(write_end, "wb") as pipe:
            by_seq, reading, forked = _read_part(folder, game, files)
            pipe.write(json.dumps({"read": reading and reading.as_dict(), "fork": forked and forked.as_dict()})
                       .encode() + b"\n")
            pipe.flush()
            if reading is None and forked is None:
                packets = {position: by_seq[seq][0][1] for position, seq in enumerate(sorted(by_seq), start)}
                pipe.write(json.dumps(_replay_part(folder, game, paths, packets, start, stop)).encode())
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _replay_part(folder: Path, game: engine.Game, paths: list[Path], packets: dict[int, dict], start: int,
                 stop: int) -> dict | None:
    """What a part's process found replaying from stored state `start`: None if that state
    cannot be read as one (the auditing process then replays the part itself)."""
    found: dict | None = None
    out = AuditResult()
    out.mode = "secure" if game.secure else "sandbox"     # what a divergence may say of the packets
    try:
        rel = f"states/{start:04d}.yaml"
        state = loads(read_bounded(folder / rel, rel), rel)
        if isinstance(state, dict) and state.get("state_hash") == engine.state_hash(state):
            found = {"state": _replay(folder, game, paths, packets, start, stop, state, out)}
    except PbemError as exc:
        out.divergence = _divergence_of(exc)
        found = {"state": None}
    if found is not None:
        found.update(out.as_dict())    # what `_add` counts, and the divergence
    return found


def _ahead_of(child: tuple[int, Any] | None) -> tuple[Divergence | None, Divergence | None] | None:
    """What a part's process found reading its files, or None if it could not say."""
    if child is None:
        return None
    line = child[1].readline()
    try:
        said = json.loads(line)
    except ValueError:
        return None
    return tuple(Divergence(**said[kind]) if said[kind] else None for kind in ("read", "fork"))


def _finish_part(child: tuple[int, Any] | None) -> dict | None:
    """What a part found replaying, or None if it could not run by itself."""
    if child is None:
        return None
    pid, pipe = child
    with pipe:
        data = pipe.read()
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        # reaped already: a process that ignores SIGCHLD (as a mail daemon may, and its
        # children inherit) has the kernel reap its children. A part that failed wrote no
        # findings or only a part of them, which do not read as JSON
        status = 0
    try:
        return json.loads(data) if status == 0 and data else None
    except ValueError:
        return None


def _stop_part(child: tuple[int, Any] | None) -> None:
    """End a part whose findings are no longer needed (an earlier part diverged)."""
    if child is None:
        return
    pid, pipe = child
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass   # already reaped by _finish_part
    pipe.close()


# What an operating system's file browser leaves in a folder it shows (macOS Finder, its
# AppleDouble files on other volumes, Windows Explorer): pbem reads none of them, so audit
# passes over them, or a folder looked at once would never get a verdict (a referee's probe).
SYSTEM_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


def _names(folder: Path) -> list[str]:
    """`_entries` of a folder by name alone; none where there is no folder."""
    return [name for name, _ in _entries(folder)] if folder.is_dir() else []


def _entries(folder: Path) -> list[tuple[str, bool]]:
    """The names in a folder, sorted, but for the plain files a file browser leaves there
    (SYSTEM_FILES, `._NAME`), each with whether it is a regular file (no link): from one read
    of the directory, without a call to stat per file where the file system says its kind."""
    with os.scandir(folder) as found:
        entries = [(entry.name, entry.is_file(follow_symlinks=False)) for entry in found]
    return sorted((name, regular) for name, regular in entries
                  if not (regular and (name in SYSTEM_FILES or name.startswith("._"))))


def _seal_file(path: Path, rel: str, document: dict, out: AuditResult) -> bool:
    """A private/seal-SEQ-SIDE.yaml is what `pbem submit` keeps of a side's sealed orders
    (pbem/core/sealing.py): a side of the game, and a mapping naming that seq and side. Its
    items are the sealer's secret until opened, so audit checks no more of it."""
    seq, side = int(rel.split("-")[1]), rel.split("-", 2)[2].removesuffix(".yaml")
    if side not in {s["name"] for s in document["sides"]}:
        out.divergence = Divergence(rel, f"a file audit does not expect in a game folder: {side} is not a side of "
                                    "this game (a stray file: remove it, or keep it elsewhere)")
        return False
    try:
        kept = loads(read_bounded(path, rel), rel)
    except PbemError as exc:
        out.divergence = Divergence(rel, f"not the orders pbem keeps sealed: {exc.message.removeprefix(rel + ': ')}")
        return False
    if not (isinstance(kept, dict) and type(kept.get("seq")) is int and kept["seq"] == seq and kept.get("side") == side):
        out.divergence = Divergence(rel, f"not the orders pbem keeps sealed: it names no seq {seq} and side {side} "
                                    "(a stray file: remove it, or keep it elsewhere)")
        return False
    return True


def _expected_files(folder: Path, document: dict, out: AuditResult) -> bool:
    """Every file in the folder is one audit knows: the genesis and its handshake files,
    packets, states, reports, and the sealer's private items. Anything else is named."""
    allowed = {"packets": PACKET_FILE, "states": STATE_FILE, "aar": _AAR_NAME, PRIVATE: _PRIVATE_NAME}
    for name in _names(folder):
        path = folder / name
        if name in (GENESIS, PROPOSAL, JOIN) and path.is_file():
            continue
        if name in allowed and path.is_dir() and not path.is_symlink():
            for inner, regular in _entries(path):
                if not regular and allowed[name].match(inner):
                    # named as what it is (a referee's probe: a link with a packet's name was called a
                    # stray file); audit reads only files that are themselves in the folder (§10)
                    kind = "a link" if (path / inner).is_symlink() else \
                        "a folder" if (path / inner).is_dir() else "something other than a file"
                    out.divergence = Divergence(f"{name}/{inner}", f"{kind}, not a plain file: audit reads only files "
                                                "kept in the game folder itself (put the file there in its place)")
                    return False
                if not (regular and allowed[name].match(inner)):
                    folder_here = (path / inner).is_dir() and not (path / inner).is_symlink()
                    out.divergence = Divergence(f"{name}/{inner}", "a folder audit does not expect in a game folder "
                                                "(remove it, or keep it elsewhere)" if folder_here else
                                                "a file audit does not expect in a game folder (a leftover or a "
                                                "stray file: remove it, or keep it elsewhere)")
                    return False
                if name == PRIVATE and not _seal_file(path / inner, f"{name}/{inner}", document, out):
                    return False
            continue
        out.divergence = Divergence(name, "a file audit does not expect in a game folder (remove it, or keep it elsewhere)")
        return False
    for name, what in ((PROPOSAL, "proposal"), (JOIN, "join")):
        if (folder / name).is_file():
            kept = loads(read_bounded(folder / name, name), name)
            # exactly the file pbem writes of game.yaml's handshake, signatures and all: compared by
            # what they sign alone, a proposal carrying a chain of the joiner's or a join without its
            # signatures audited clean, and a proposal with `sides: [1]` ended in a traceback (an
            # audit fuzzer's finds)
            wanted = _handshake_file(document, what)
            if wanted is None or not isinstance(kept, dict):
                out.divergence = Divergence(name, f"the {what} kept in the folder is not the one game.yaml was made from")
                return False
            found = next(differences(wanted, kept, absent=ABSENT), None)
            if found is None:
                continue
            field, expected, value = found
            theirs = _anchor(kept)
            if theirs is not None and theirs != _anchor(document):
                # a referee's probe: another game's game.yaml put in the folder was said to be a join
                # altered; the proposer's dice chain tells two games apart
                message = ("is of another game than game.yaml (the proposer's dice chain differs): one of the two "
                           "files was put here from another game's folder")
                field = next(f"sides[{n}].anchor" for n, side in enumerate(document["sides"])
                             if side["name"] == document["proposer"])
                expected, value = _anchor(document), theirs
            elif field.split(".")[0] not in ("proposal_signature", "signatures"):
                message = "is not the one game.yaml was made from"
            elif isinstance(expected, str) and isinstance(value, str):   # ABSENT is no string
                message = "carries a signature game.yaml does not: it was altered"
            else:
                message = "lacks a signature that game.yaml was made with, or has one of another form: it was altered"
            out.divergence = Divergence(name, f"the {what} kept in the folder {message}", field,
                                        *("(absent)" if v is ABSENT else v for v in (expected, value)))
            return False
    return True


def _genesis_altered(folder: Path, document: dict, exc: VerificationError) -> Divergence:
    """The divergence of a game.yaml whose signatures fail: where a handshake file kept beside it
    (proposal.yaml, join.yaml) verifies by itself, the first field in which game.yaml differs
    from what that file's signer signed, with both values (a referee's probe: an edited option
    was said to be "content that does not match what german signed", the field left for him to
    find, though the proposal beside it held the signed value)."""
    found = _divergence_of(exc)
    checks = ((PROPOSAL, genesis.verify_proposal, genesis.proposal_view),
              (JOIN, lambda kept, name: genesis.verify(kept, name, require_all=False), genesis.unsigned))
    for name, verify, view in checks:
        try:
            kept = load_mapping(folder / name, name)
            verify(kept, name)
            signed, written = view(kept), view(document)
        except (PbemError, KeyError, TypeError, ValueError):
            continue        # no such file, or one that is itself no evidence
        first = next(differences(signed, written, absent=ABSENT), None)
        if first is not None:
            field, expected, value = first
            return Divergence(found.file, f"{found.message}; {name} beside it, whose signature verifies, shows "
                                          f"where", field,
                              *("(absent)" if v is ABSENT else v for v in (expected, value)))
    return found


def _anchor(document: dict) -> Any:
    """The proposer's chain anchor of a genesis or a handshake file (None where it has none)."""
    sides = document.get("sides")
    return next((side.get("anchor") for side in sides if isinstance(side, dict)
                 and side.get("name") == document.get("proposer")), None) if isinstance(sides, list) else None


def _handshake_file(document: dict, what: str) -> dict | None:
    """The proposal or the join file of a secure genesis as pbem writes it: the proposal (the
    genesis without the joiner's chain and the completing signatures) with its signature; the
    complete genesis with the joiner's signature alone. None for a sandbox genesis, which has
    no handshake."""
    if document.get("mode") != "secure":
        return None
    if what == "proposal":
        return dict(genesis.proposal_view(document), proposal_signature=document.get("proposal_signature"))
    joiner = next(side["name"] for side in document["sides"] if side["name"] != document["proposer"])
    return dict(document, signatures={joiner: (document.get("signatures") or {}).get(joiner)})


def _fork(folder: Path, game: engine.Game, entries: list[tuple[Path, dict]], out: AuditResult) -> bool:
    """Several files for one seq: fork evidence if two different packets are both validly
    signed by one side; otherwise the file that should not be there is named (a copy whose
    signature was re-encoded is refused, never taken for a second packet)."""
    if len(entries) < 2:
        return False
    valid: dict[str, tuple[str, dict]] = {}
    for path, packet in entries:
        rel = str(path.relative_to(folder))
        if packet["game"] != game.game_id:
            # said first, blaming no side (a referee's probe: another game's packet kept as evidence
            # was refused for its key, which read as a forgery)
            out.divergence = Divergence(rel, f"one of {len(entries)} files for seq {packet['seq']}, and not a second "
                                        f"packet of it: it is a packet of another game ({packet['game']}) "
                                        f"(docs/protocol.md §10)", "game", game.game_id, packet["game"])
            return True
        if game.secure:
            key = game.public_keys.get(packet["side"])
            try:
                if key is None:
                    raise VerificationError(f"{rel}: side {packet['side']!r} is not a side of this game")
                verify_signature(packet, key, packet["side"], rel, game.public_keys)
            except VerificationError as exc:
                out.divergence = Divergence(rel, f"one of {len(entries)} files for seq {packet['seq']}, and its "
                                            f"signature is refused: {exc.message.removeprefix(rel + ': ')}")
                return True
        # a packet that could never have been sent for this seq is no evidence against the
        # side whose turn it was: the file named is the one that should not be there
        turn = game.sender_of(packet["seq"]) if game.secure else packet["side"]
        if packet["side"] != turn:
            out.divergence = Divergence(rel, f"one of {len(entries)} files for seq {packet['seq']}, and not a second "
                                        f"packet of it: seq {packet['seq']} is {turn}'s to send, and {packet['side']} "
                                        f"signed it (docs/protocol.md §10)", "side", turn, packet["side"])
            return True
        if packet_id(packet) in valid:
            out.divergence = Divergence(rel, f"a second copy of packet {packet['seq']} "
                                        f"({valid[packet_id(packet)][0]}): remove it")
            return True
        valid[packet_id(packet)] = (rel, packet)
    (name_a, a), (name_b, b) = list(valid.values())[:2]
    signed = f", both validly signed by {a['side']}" if game.secure and a["side"] == b["side"] else ""
    out.divergence = Divergence(name_a, f"fork: two different packets for seq {a['seq']}{signed}: "
                                f"{name_a} and {name_b}{_where_they_differ(a, b, name_a, name_b)}"
                                + _went_on_from(folder, a["seq"], valid),
                                evidence=[name_a, name_b])
    return True


def _where_they_differ(a: dict, b: dict, name_a: str, name_b: str) -> str:
    """The first field two packets differ in, but for their signatures; in their orders, the
    two orders themselves (a players' probe: "they first differ at orders[0].hex" named a field
    the other packet's first order, an `end`, does not have)."""
    difference = first_difference({k: v for k, v in a.items() if k != "signature"},
                                  {k: v for k, v in b.items() if k != "signature"})
    if difference is None:
        return ""
    found = re.match(r"orders\[([0-9]+)\]", difference[0])
    if found:
        n = int(found.group(1))

        def brief(order: Any) -> str:   # a side that signed two packets wrote them: not echoed whole (a review)
            text = engine.order_text(order)
            return text if len(text) <= 120 else text[:120] + "..."

        return f" (they first differ at orders[{n}]: {brief(a['orders'][n])} in {name_a}, {brief(b['orders'][n])} in {name_b})"
    return f" (they first differ at {difference[0]})"


def _went_on_from(folder: Path, seq: int, valid: dict[str, tuple[str, dict]]) -> str:
    """Which of the fork's packets the game went on from, as its stored state of that seq
    records it (a referee's first question), if the folder has that state."""
    rel = f"states/{seq:04d}.yaml"
    try:
        recorded = loads(read_bounded(folder / rel, rel), rel).get("packet")
    except (PbemError, OSError, AttributeError):
        return ""
    name = valid.get(recorded, (None,))[0] if isinstance(recorded, str) else None
    return f"; {rel} records {name} as the packet it was made from" if name else ""


def _compare_state(folder: Path, seq: int, expected: dict, out: AuditResult) -> bool:
    rel = f"states/{seq:04d}.yaml"
    path = os.path.join(folder, rel)
    if not os.path.isfile(path) and seq == 0:
        # no packet makes state 0 (an audit fuzzer's find: "the packets from packet 0 on were not applied")
        gone = "" if (folder / "states").is_dir() else ", with the whole states/ folder"
        out.divergence = Divergence(rel, f"the state file is missing: state 0 is made from game.yaml when the folder is "
                                    f"made, not from a packet, so it was removed{gone} (a folder that keeps neither "
                                    f"states/ nor aar/ is audited from game.yaml and its packets alone)")
        return False
    if not os.path.isfile(path):
        later = any(int(m.group(1)) > seq for m in map(STATE_FILE.match, _names(folder / "states")) if m)
        # a packet saved into packets/ but never applied, the likeliest cause where no later
        # state is there either: say how to apply it (a referee's probe)
        out.divergence = Divergence(rel, "the state file is missing" + ("" if later else (
            f": the packets from packet {seq} on were put in packets/ but not applied in this folder "
            f"(`pbem adjudicate {shown(str(folder))} PACKET` applies one), or the state was removed")))
        return False
    data = read_bounded(path, rel)
    if data == state_text(expected).encode("utf-8"):
        out.states += 1  # byte-identical to the replay: the common case, no parsing needed
        return True
    found = loads(data, rel)
    if isinstance(found, dict) and found.get("state_hash") == expected["state_hash"] == engine.state_hash(found):
        out.states += 1  # laid out otherwise, the same canonical content
        return True
    misplaced = _misplaced_state(seq, expected, found, out.mode == "secure") if isinstance(found, dict) else None
    if misplaced is not None:
        out.divergence = Divergence(rel, *misplaced)
        return False
    difference = first_difference(expected, found)
    if difference is not None:
        where, want, got = difference
        out.divergence = Divergence(rel, "the stored state differs from the replay", where, want, got)
        return False
    out.states += 1
    return True


def _misplaced_state(seq: int, expected: dict, found: dict, secure: bool) -> tuple | None:
    """(message, field, expected, found) when a stored state is of another game, another
    seq or another packet than the replay's: said as such, before any field of its content
    (a referee's probe: a replaced packet was reported as a hash deep in `last_packet`, and
    two swapped state files as a decision key)."""
    for name in ("game", "seq"):       # a state cut short, or edited, is neither of another game nor swapped
        if name not in found:
            return (f"it has no `{name}`: the file is cut short or was edited", name, expected[name], None)
    if found.get("game") != expected["game"]:
        return ("a state of another game", "game", expected["game"], found.get("game"))
    if type(found["seq"]) is not int:
        return ("its `seq` is no state number: the file was edited", "seq", seq, found["seq"])
    if found.get("seq") != seq:
        return (f"it holds state {shown(str(found.get('seq')))}, not state {seq}: state files renamed or swapped "
                f"(each is named after its seq)", "seq", seq, found.get("seq"))
    if seq and found.get("packet") != expected["packet"]:
        sender = next(side for side, last in sorted(expected["last_packet"].items()) if last["seq"] == seq)
        name = f"packets/{seq:04d}-{sender}.yaml"
        recorded = found.get("packet")
        return (f"it was made from a packet {seq} other than {name} (it records packet {shown(str(recorded))[:16]}..., "
                f"the file is {expected['packet'][:16]}...): "
                + _other_packet_words(sender, seq, name, secure, "the opponent's", "this state"),
                "packet", expected["packet"], recorded)
    return None


def _other_packet_words(sender: str, seq: int, name: str, secure: bool, holder: str, made: str) -> str:
    """What a referee can do when `made` (a state, a packet) was made from another packet
    `seq` than the file `name`; `holder` is who should have that other packet."""
    if not secure:
        return "a sandbox game's packets are not signed, so either file may have been edited"
    return (f"if {sender} signed both ({holder} copy of packet {seq} shows it), save that copy as "
            f"{name.removesuffix('.yaml')}.alt.yaml and audit again to have the fork named (docs/protocol.md §10); "
            f"if no such copy can be shown, {made} was not made from {sender}'s packet")


_BREAKS = {"\n": "LF", "\r\n": "CR LF", "\r": "CR"}


def _mixed_line_break(text: str) -> tuple[int, str, str] | None:
    """The first line break of another kind than the text's first (LF, CR LF, CR), as (the
    number of the line it ends, the first kind, its kind); None where all are of one kind."""
    if "\r" not in text:
        return None   # LF alone: as pbem writes them
    first = None
    for number, match in enumerate(re.finditer(r"\r\n|\r|\n", text), 1):
        kind = _BREAKS[match.group()]
        if first is None:
            first = kind
        elif kind != first:
            return number, first, kind
    return None


def _compare_report(path: str, rel: str, expected: str, out: AuditResult) -> bool:
    if not os.path.isfile(path):
        out.divergence = Divergence(rel, "the after-action report is missing")
        return False
    try:
        found = read_bounded(path, rel).decode("utf-8")
    except UnicodeDecodeError as exc:   # a report pbem writes is UTF-8: bytes that are not were put there
        out.divergence = Divergence(rel, f"the report is not UTF-8 (byte {exc.start + 1}); the replay's is")
        return False
    # what mail or an editor may do to a text and the YAML files tolerate (docs/protocol.md A.1):
    # CRLF or CR line endings, a byte order mark (an audit fuzzer's find: a report with either failed)
    found = found.removeprefix("\ufeff")
    mixed = _mixed_line_break(found)
    if mixed is not None:
        # one kind throughout, as a mail program or an editor writes them: a bare CR among LFs
        # makes a terminal write the next line over the one before, and so hides a line of the
        # report from a reader while it still reads the same (a cheater's probe)
        # what hides a line is a bare CR; a stray CR LF among LFs is said as what it is (a referee's
        # probe: the verdict spoke of a bare CR where the file held none)
        why = ("which hides lines from a reader: a terminal writes the line after a bare CR over the one before it"
               if "CR" in mixed[1:] else "where a mail program or an editor writes one kind throughout: these lines "
               "were written otherwise")
        out.divergence = Divergence(rel, f"the report mixes kinds of line break, {why}", f"line {mixed[0]}", mixed[1],
                                    mixed[2])
        return False
    found = found.replace("\r\n", "\n").replace("\r", "\n")
    if found == expected:
        return True
    want_lines, got_lines = expected.split("\n"), found.split("\n")
    for number, (want, got) in enumerate(zip(want_lines + [""] * len(got_lines), got_lines + [""] * len(want_lines)), 1):
        if want != got:
            out.divergence = Divergence(rel, "the report differs from the replay", f"line {number}", want, got)
            return False
    # the same lines but for empty ones at the end, which the padding above cannot tell apart
    # (a probe: blank lines added to a report audited clean)
    out.divergence = Divergence(rel, "the report differs from the replay in its empty lines at the end",
                                "lines", len(want_lines), len(got_lines))
    return False


def _file_of(message: str) -> str:
    head = re.sub(r", line [0-9]+\Z", "", message.split(":", 1)[0])   # "game.yaml, line 30: ..." names game.yaml
    return head if "/" in head or head.endswith(".yaml") else "(game)"
