"""A game folder: genesis, packets, states and reports on disk (DESIGN §2).

    game.yaml                 genesis
    packets/0001-german.yaml  signed turn files, numbered
    states/0001.yaml          state after packet 1 (states/0000.yaml is the set-up)
    aar/0001.md               after-action report of packet 1

Writes are atomic (temporary file, fsync, link into place): a state that exists is never
overwritten, and a rejected packet leaves the folder byte for byte as it was.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path

from pbem import rulesets
from pbem.core import dice, engine, genesis, report
from pbem.core.canonical import (CURLY, INDENTATION, MAX_BYTES, PASTED, canonical, digest, dumps, forum_markup,
                                  indentation_changed, load_mapping, loads, pasted, quotes_changed, read_bounded)
from pbem.core.errors import OPENED, FileError, InputError, PbemError, RulesError, UsageError, VerificationError
from pbem.core.packet import HEX64, check_envelope, not_a_packet, packet_id
from pbem.core.record import Record
from pbem.core.sha import sha256
from pbem.core.text import first_unsafe, shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GENESIS = "game.yaml"
PROPOSAL = "proposal.yaml"
JOIN = "join.yaml"
# A file's number as pbem writes it (f"{n:04d}"), ASCII digits only: `\d` also takes other
# scripts' digits, which int() reads, so a state file named in them could pass for the latest;
# and a number padded otherwise (states/00002.yaml beside states/0002.yaml) names a second file
# for one number, which audit would never read (cheaters' probes). Audit lists files by the same.
NUMBER = r"([0-9]{4}|[1-9][0-9]{4,})"
STATE_FILE = re.compile(NUMBER + r"\.yaml\Z")
# a packet, or with an infix (NNNN-side.alt.yaml) the fork evidence kept beside it
PACKET_FILE = re.compile(NUMBER + r"-([a-z][a-z0-9-]*)(\.[A-Za-z0-9._-]+)?\.yaml\Z")


def _named_document(ruleset: Any, scenario: dict) -> dict:
    """The scenario document a genesis or a proposal names (its `scenario` entry), checked
    against its recorded hash."""
    if "document" in scenario:
        return scenario["document"]
    loader = ruleset.scenarios.get(scenario["name"])
    if loader is None:
        raise _Refused(FileError, f"scenario {scenario['name']!r} is not bundled with ruleset {ruleset.id} "
                                  f"(it has {', '.join(sorted(ruleset.scenarios))})")
    document = loader()
    if digest(b"", document) != scenario["sha256"]:
        raise _Refused(VerificationError, f"the bundled scenario {scenario['name']!r} differs from the one it names "
                                          f"(sha256 {scenario['sha256'][:16]}...); use the pbem version that made it")
    return document


class _Refused(Exception):
    """Why a scenario entry names no document this pbem has, before the file that names it is
    known (`kind`: the error to raise, with that file's name in front)."""

    def __init__(self, kind: type, message: str):
        super().__init__(message)
        self.kind = kind


def open_genesis(document: dict, source: str = GENESIS, kept: bool = True) -> engine.Game:
    """The game of a genesis: its schema, and for a secure game every key, chain and
    signature of the handshake (DESIGN §2.2); with the ruleset's scenario built, or loaded
    from pbem's cache of built scenarios unless `kept` is False (core/cache.py)."""
    public = genesis.check(document, source)
    ruleset, world = _ruleset_and_scenario(document, source, kept)
    return engine.Game(genesis=document, game_id=genesis.game_id(document), ruleset=ruleset, public_keys=public,
                       scenario=world)


def option_error(ruleset: Any, options: dict) -> str | None:
    """What is wrong with a game's optional rules, in words, or None: an option the ruleset
    has not, or a value of another type than its default's."""
    known = ruleset.options
    unknown = sorted(set(options) - set(known))
    if unknown:
        return f"unknown option {unknown[0]!r} for {ruleset.id} (known: {', '.join(sorted(known)) or 'none'})"
    for name, value in sorted(options.items()):
        # the rules read an option as its default's type: a string "false" would switch on
        # an option the joiner reads as off (a cheater's probe), so a value of another type is refused
        default = known[name]
        if type(value) is not type(default):
            kind = {bool: "true or false", int: "a whole number", str: "a string"}.get(type(default), type(default).__name__)
            return (f"option {name!r} of {ruleset.id} takes {kind}, as its default {canonical(default).decode()} is, "
                    f"not {canonical(value).decode()}")
    return None


def _ruleset_and_scenario(document: dict, source: str, kept: bool = True) -> tuple[Any, Any]:
    """What a genesis or a proposal asks of this pbem's rulesets: the ruleset and its version,
    its sides in order, known options, and a scenario it can set up, built."""
    ruleset = rulesets.get(document["ruleset"])
    if document["ruleset_version"] != ruleset.version:
        raise VerificationError(_other_version(source, ruleset.id, document["ruleset_version"], ruleset.version))
    names = [side["name"] for side in document["sides"]]
    if names != list(ruleset.sides):
        raise VerificationError(f"{source}: the sides must be {', '.join(ruleset.sides)} in that order, not {', '.join(names)}")
    wrong = option_error(ruleset, document.get("options", {}))
    if wrong:
        raise RulesError(f"{source}: {wrong}")
    options = dict(ruleset.options, **document.get("options", {}))
    embedded = document["scenario"].get("document")
    unsafe = first_unsafe(embedded) if embedded is not None else None
    if unsafe is not None:
        # its names reach `pbem status` and `pbem show` as they are: a line break would print a
        # line of the proposer's making there, a forged die or verdict (a cheater's probe)
        raise FileError(f"{source}: the scenario cannot be set up: {unsafe[0]} holds {shown(unsafe[1])}, a line break, "
                        f"control or invisible formatting character; every text of a scenario is one line of plain "
                        f"characters")
    try:
        world = _scenario(ruleset.id, canonical(document["scenario"]).decode(), canonical(options).decode(), kept)
    except _Unplayable as exc:
        raise FileError(f"{source}: the scenario cannot be set up: {exc}") from None
    except _Refused as exc:
        raise exc.kind(f"{source}: {exc}") from None
    return ruleset, world


class _Unplayable(ValueError):
    """A scenario document or options the ruleset cannot set up (named by the caller's file)."""


def _other_version(source: str, ruleset_id: str, made: str, played: str) -> str:
    """Why this pbem refuses a game of another version of its ruleset, and which pbem to use."""
    import pbem

    releases = pbem.releases_playing(ruleset_id, made)
    if releases:
        where = f"pbem {' or '.join(releases)} plays it: install that release to continue or audit the game"
    elif pbem.version_key(made) > pbem.version_key(played):
        where = "a later release of pbem made it: upgrade pbem to continue or audit the game"
    else:
        where = (f"no release of pbem plays it: the game was made by a development build from before pbem "
                 f"{next(iter(pbem.RELEASES))}, and only such a build can continue or audit it")
    return (f"{source}: the game was made with {ruleset_id} {made}, and this pbem ({pbem.__version__}) plays "
            f"{ruleset_id} {played}; {where}")


@functools.lru_cache(maxsize=8)
def _scenario(ruleset_id: str, entry: str, options: str, kept: bool = True) -> Any:
    """The ruleset's scenario object, made once per process for each scenario and options:
    built, or loaded from the cache of built scenarios when `kept`. (The file that names the
    scenario is no part of the key: a proposal, a join and the genesis of one game share it.)"""
    ruleset = rulesets.get(ruleset_id)

    def build() -> Any:
        named = json.loads(entry)
        try:
            return ruleset.scenario(_named_document(ruleset, named), json.loads(options))
        except ValueError as exc:  # a scenario document the ruleset cannot set up
            raise _Unplayable(str(exc)) from None
        except _INCONSISTENT as exc:
            if "document" not in named:
                raise     # a bundled scenario that fails is pbem's bug: its traceback is wanted
            raise _Unplayable(_inconsistent(exc)) from None

    from pbem.core import cache

    if not kept:
        return cache.settled(build)
    return cache.scenario(ruleset.id, ruleset.version, entry, options, build)


# What a ruleset's checks of an embedded scenario document may still let through and its
# building or set-up trip over: a value of the wrong kind or an id of nothing where the checks
# did not look (a probe of crafted scenarios). The document is refused, not played.
_INCONSISTENT = (KeyError, IndexError, TypeError, AttributeError, RuntimeError, ZeroDivisionError)


def _inconsistent(exc: BaseException) -> str:
    what = {KeyError: "names something it does not define", IndexError: "is shorter than its other entries ask",
            TypeError: "holds a value of the wrong kind"}.get(type(exc), "contradicts itself")
    return f"the scenario document {what} ({type(exc).__name__}: {shown(str(exc))[:120]})"


def initial_state(game: engine.Game, source: str = GENESIS) -> dict:
    """State 0, always computed from the genesis: nobody copies a state file (§2.4).
    `source`: where the genesis comes from, for its refusal."""
    try:
        rules = game.ruleset.setup(game.scenario)
    except ValueError as exc:  # a position the ruleset cannot set up
        raise FileError(f"{source}: the scenario cannot be set up: {exc}") from None
    except _INCONSISTENT as exc:
        if "document" not in game.genesis["scenario"]:
            raise
        raise FileError(f"{source}: the scenario cannot be set up: {_inconsistent(exc)}") from None
    return engine.initial_state(game, rules)


# --- the folder -------------------------------------------------------------------------

class Folder:
    """A game folder as a command holds it: its path, its game, its latest state."""

    __slots__ = ("path", "game", "state")

    def __init__(self, path: Path, game: engine.Game, state: dict):
        self.path = path
        self.game = game
        self.state = state

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.path))
        except ValueError:
            return str(path)


def create(folder: Path, document: dict, source: str = GENESIS) -> Folder:
    """A game folder for a complete genesis: game.yaml and states/0000.yaml (its set-up).
    `source` names what a refusal blames: a sandbox game's scenario file, which its genesis
    embeds (a referee's probe: "game.yaml: ..." of a game.yaml never written)."""
    folder = Path(folder)
    if (folder / GENESIS).exists():
        raise FileError(f"{folder / GENESIS} already exists; a game folder holds one game")
    game = open_genesis(document, source)
    state = initial_state(game, source)
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("packets", "states", "aar"):
        (folder / sub).mkdir(exist_ok=True)
    write_new(folder / "states" / "0000.yaml", state_text(state))
    write_new(folder / GENESIS, genesis_text(document))
    return Folder(folder, game, state)


def genesis_text(document: dict) -> str:
    return "# pbem game: the genesis. Its hash is the game id; never edit it.\n" + dumps(document)


def state_text(state: dict) -> str:
    head = f"# pbem state {state['seq']} of game {state['game']}"
    if state["mode"] == "sandbox":   # the bytes of every stored sandbox state: not report.SANDBOX's wording
        head += "\n# SANDBOX GAME: unsigned packets, dice from a script or a plain seed, not fair dice"
    return head + "\n" + dumps(state)


def check_game_folder(folder: Path) -> None:
    """A FileError (§5: exit 4) unless `folder` holds a genesis: a path that is no game
    folder at all is a wrong path, not a game that fails verification."""
    if not (folder / GENESIS).is_file():
        kind = _not_a_file(folder / GENESIS)
        if kind:   # named as it is, not as a missing file (a cheater's probe: a FIFO in a tarball)
            raise FileError(f"{folder / GENESIS}: {kind}, not a file; a game folder's genesis is a plain file")
        inner = _game_folders_in(folder)
        if inner:   # a new user's probe: run from the folder above the game, where join.yaml was saved
            raise FileError(f"{folder}: not a pbem game folder (no {GENESIS}); the game folder inside it is "
                            f"{' or '.join(inner)}: give that")
        hint = ""
        if (folder / PROPOSAL).is_file() or (folder / JOIN).is_file():
            hint = " yet: the handshake is not complete (`pbem join`)"
        raise FileError(f"{folder}: not a pbem game folder{hint} (no {GENESIS})")


def _game_folders_in(folder: Path) -> list[str]:
    """The folders directly inside `folder` that hold a genesis, as `NAME/` (at most three)."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.is_dir() and (Path(e.path) / GENESIS).is_file())
    except OSError:
        return []
    return [f"{shown(os.path.join(str(folder), name))}/" for name in names[:3]]


def _not_a_file(path: Path) -> str | None:
    """What stands at `path` where a file was wanted ("a named pipe", "a folder"), or None if
    nothing does."""
    import stat

    try:
        mode = path.lstat().st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "a link to nothing" if not path.exists() else _not_a_file(path.resolve())
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else None)


def open_folder(folder: Path) -> Folder:
    """Open a game folder for any command. Every open checks what the command relies on
    (§2.4): the genesis and its signatures, state 0 recomputed from the genesis, and the
    latest state's integrity and its links to the state and the packet before it."""
    folder = Path(folder)
    check_game_folder(folder)
    if folder not in OPENED:
        OPENED.append(folder)
    game = open_genesis(load_mapping(folder / GENESIS, GENESIS))
    zero = initial_state(game)
    _check_stored(folder, zero)
    numbers = state_numbers(folder)
    latest = numbers[-1]
    if latest == 0:
        return Folder(folder, game, zero)
    state = load_state(folder, latest, game)
    before = zero["state_hash"] if latest == 1 else load_state(folder, latest - 1, game)["state_hash"]
    rel = f"states/{latest:04d}.yaml"
    if state["prev_state"] != before:
        raise VerificationError(f"{rel}: its `prev_state` is not the hash of states/{latest - 1:04d}.yaml: the states "
                                f"do not form one chain; run `pbem audit {folder}`")
    if not any(packet_id(read_packet(path, _rel(folder, path))[0]) == state["packet"]
               for seq, path in packet_files(folder) if seq == latest):
        raise VerificationError(f"{rel}: no packet in packets/ is the packet {state['packet'][:16]}... it names; "
                                f"run `pbem audit {folder}`")
    return Folder(folder, game, state)


def altered_state(folders: list[Path]) -> PbemError | None:
    """Why the first of `folders` whose files are not a game is not, or None: asked when the
    rules failed unexpectedly in a command that opened them. Commands trust the latest state
    and the one before it by their hashes and links alone (`status` replays the last packet
    on the one before), so a state edited and re-hashed by hand reaches the rules, and may
    hold what no play gives (a unit the scenario does not have), on which they fail as they
    never do in play. Every state pbem computes from state 0 is one play gives: replaying
    the whole game tells an altered state, named as `status` names one, from a fault of
    pbem's own, which then shows as it is."""
    from pbem.core.render import frames

    for folder in folders:
        try:
            for _ in frames.frames(open_folder(folder)):
                pass
        except PbemError as exc:
            return exc
    return None


def _rel(folder: Path, path: Path) -> str:
    return str(path.relative_to(folder))


def _check_stored(folder: Path, zero: dict) -> None:
    """states/0000.yaml must be the set-up the genesis gives, field for field."""
    path = folder / "states" / "0000.yaml"
    if not path.is_file():
        inner = _game_folders_in(folder)
        if inner:   # a new user's probe: the emailed game.yaml saved beside the game folder `pbem join` made
            raise FileError(f"{folder}: not a whole game folder (no states/0000.yaml), only a {GENESIS}; the game "
                            f"folder inside it is {' or '.join(inner)}: give that")
        raise FileError(f"{folder}: no states/0000.yaml; the folder is incomplete (`pbem join NEW_DIR game.yaml` makes "
                        f"a folder of a game.yaml)")
    data = read_bounded(path, "states/0000.yaml")
    if data == state_text(zero).encode("utf-8"):
        return
    if loads(data, "states/0000.yaml") != zero:
        raise VerificationError("states/0000.yaml is not the set-up this genesis gives (state 0 is always computed "
                                "from game.yaml; the file was altered)")


def load_state(folder: Path, seq: int, game: engine.Game) -> dict:
    """State `seq` of a folder, checked against its own hash, game and number, and that the
    links every command follows, to the state and the packet before it, are hashes (none
    in state 0)."""
    rel = f"states/{seq:04d}.yaml"
    state = loads(read_bounded(folder / rel, rel), rel)
    if not isinstance(state, dict) or state.get("state_hash") != engine.state_hash(state) \
            or state.get("game") != game.game_id or state.get("seq") != seq \
            or not all(state.get(link, "") is None if seq == 0 else isinstance(state.get(link), str)
                       and HEX64.match(state[link]) for link in ("prev_state", "packet")):
        raise VerificationError(f"{rel}: the state file has been altered (its content does not match its state_hash, "
                                f"game or number, or its `prev_state` or `packet` is not a hash); run "
                                f"`pbem audit {folder}`")
    return state


def state_numbers(folder: Path) -> list[int]:
    states = folder / "states"
    if not states.is_dir():
        return []
    return sorted(int(m.group(1)) for m in map(STATE_FILE.match, os.listdir(states)) if m)


def packet_files(folder: Path, seq: int | None = None) -> list[tuple[int, Path]]:
    """The packet files of a folder in order of name, with their seq; only those of `seq` if
    given (a long game's folder is listed once per command, not a path built per file)."""
    packets = folder / "packets"
    if not packets.is_dir():
        return []
    found = []
    for name in sorted(os.listdir(packets)):
        match = PACKET_FILE.match(name)
        if match and (seq is None or int(match.group(1)) == seq):
            found.append((int(match.group(1)), packets / name))
    return found


def applied_already(folder: Folder, packet: dict) -> bool:
    """Whether `packet` is, byte for byte in content and signature, the packet the folder
    went on from at its seq: one a re-send changes nothing with."""
    from pbem.core.packet import packet_id

    seq = packet.get("seq")
    if not isinstance(seq, int) or not 1 <= seq <= folder.state["seq"]:
        return False
    stored = [path for _, path in packet_files(folder.path, seq) if not fork_evidence(path)]
    if not stored:
        return False
    known, _ = read_packet(stored[0], folder.relative(stored[0]))
    return packet_id(known) == packet_id(packet) and known.get("signature") == packet.get("signature")


def fork_evidence(path: Path) -> bool:
    """Whether a file is a second packet kept beside the one the game went on from: one in a
    game folder's packets/ under a packet's name with an infix (NNNN-side.alt.yaml), evidence
    for `pbem audit`, never a packet to apply. A file from elsewhere (an attachment saved as
    turn.58.yaml) is no evidence of anything, whatever its name: it is read as a packet."""
    match = PACKET_FILE.match(path.name)
    if not match or match.group(3) is None:
        return False
    packets = Path(path).absolute().parent
    return packets.name == "packets" and (packets.parent / GENESIS).is_file()


def read_packet(path: Path, source: str | None = None, given: str | None = None) -> tuple[dict, bytes]:
    """`given`: the command (`adjudicate`) a file was named to on the command line, which may be
    another of pbem's files by mistake (a genesis, an orders file): a usage error says which."""
    source = shown(source or str(path))    # an attachment's name could hold a line break
    data = read_bounded(path, source)
    try:
        document = loads(data, source)
    except InputError as exc:
        raise _copy_damage_said(exc, data, source, given) from None
    if given:
        not_a_packet(document, source, given)
    try:
        return check_envelope(document, source), data
    except VerificationError as exc:
        # mail text above the packet that reads as YAML ("Hi Alice, here is my turn:") is a field
        # of no packet: say what the file is (a players' probe), as for text the parser refuses
        inner = pasted(data.decode("utf-8", errors="replace"), source)
        if inner is not None:
            try:   # a packet forged in itself stays a forged packet, mail text or not (a review)
                check_envelope(inner, source)
            except VerificationError:
                raise exc from None
            raise InputError(f"{source}: {PASTED}; the packet check: {exc.message.removeprefix(source + ': ')}") from None
        raise _copy_damage_said(exc, data, source, given) from None


def _copy_damage_said(exc: PbemError, data: bytes, source: str, given: str | None) -> PbemError:
    """`exc`, the refusal of a packet file, or for a file named on the command line (`given`)
    whose indentation or quotes a forum, mail program or word processor changed, an InputError
    saying so (exit 4): an audience's probe found such a packet refused as forged, "packet field
    `signature` must be a mapping" (exit 3), or as malformed YAML, and a new user's one with
    typographic quotes, "`game` must be 32 lower-case hex digits". Nothing is put back, so
    whether the packet is whole in itself is not known: it is checked as it was sent, once saved
    unchanged.
    A file stored in a game folder keeps its refusal and its exit code (audit: a file altered
    there), with the same explanation after it: a referee who saved a thread's packets into a
    folder was told only "packet field `signature` must be a mapping" (a referee's probe)."""
    text = data.decode("utf-8", errors="replace")
    how = indentation_changed(text)
    if forum_markup(text):   # the tags are said first: the lines between them may be whole
        return exc
    if how is not None:
        why = INDENTATION.format(how=how)
    elif quotes_changed(text):   # typographic quotes read as plain text
        why = CURLY
    else:
        return exc
    if not given:
        exc.message += f"; {why}"
        return exc
    what = "the packet check" if isinstance(exc, VerificationError) else "the YAML error"
    return InputError(f"{source}: {why}; {what}{exc.message.removeprefix(source)}")


class Applied:
    """What adjudicating one packet gave: the new state, its events, where the packet was
    kept, the preview of a sealed packet's opening, and warnings for the sender."""

    __slots__ = ("state", "events", "packet_path", "preview", "warnings")

    def __init__(self, state: dict, events: list[dict], packet_path: Path, preview: list[dict] | None = None):
        self.state = state
        self.events = events
        self.packet_path = packet_path
        self.preview = preview
        self.warnings: list[str] = []


def adjudicate(folder: Folder, packet: dict, data: bytes, source: str, preview_key: Any = None) -> Applied:
    """Verify and apply one packet, then write packet, report and state (in that order;
    the state is written last and is the commit point). Nothing is written unless the
    packet verifies, applies, and gives a state and report within the file limit, and
    `preview_key`, if given, is a side's key and gives its preview."""
    reader = None
    if preview_key is not None and folder.game.secure:
        reader = side_of_key(folder.game, preview_key)   # a key of no side: refused before anything is applied
    seq = packet.get("seq")
    # the packet the game went on from, not fork evidence kept beside it (NNNN-side.alt.yaml)
    stored = {n: path for n, path in packet_files(folder.path, seq) if not fork_evidence(path)} \
        if isinstance(seq, int) else {}
    if seq in stored:
        _check_known(folder, packet, stored[seq], source, reader)
    new, events = engine.apply_packet(folder.game, folder.state, packet, source)
    state_file, aar_text = files_of(folder.game, new, events, source)
    preview = None
    if preview_key is not None:
        try:
            preview = preview_next(folder.game, new, preview_key)
        except Exception:   # a look ahead never stops the packet received from being applied
            preview = None
    target = folder.path / "packets" / f"{seq:04d}-{packet['side']}.yaml"
    aar = folder.path / "aar" / f"{seq:04d}.md"
    written: list[Path] = []  # files this call created: removed again if the state is not written
    try:
        if not target.exists():
            write_new(target, data.decode("utf-8"))
            written.append(target)
        if not aar.exists():
            written.append(aar)
        write_new(aar, aar_text, replace=True)
        write_new(folder.path / "states" / f"{seq:04d}.yaml", state_file)
    except BaseException:
        for path in written:
            try:
                os.unlink(path)
            except OSError:
                pass
        raise
    folder.state = new
    return Applied(new, events, target, preview)


def files_of(game: engine.Game, new: dict, events: list[dict], source: str) -> tuple[str, str]:
    """The state file and the report a packet gives, refused if either is over the file limit."""
    state_file, aar_text = state_text(new), report.render(game, new, events)
    for what, text in (("state", state_file), ("report", aar_text)):
        if len(text.encode("utf-8")) > MAX_BYTES:
            raise RulesError(f"{source}: the packet would make a {what} of {len(text.encode('utf-8'))} bytes, over the "
                             f"file limit of {MAX_BYTES}; nothing was written")
    return state_file, aar_text


def _whose_latest(folder: Folder, packet: dict, reader: str | None) -> str:
    """What to do with the folder's latest packet given again, by whose it is to the reader (the
    side of the key given, if any)."""
    sent = "your folder applied it when `pbem submit` wrote it: send the file to your opponent"
    side = packet.get("side")
    if reader is None:
        return f" (if it is the packet you sent as {side}, {sent})"
    if reader == side:
        return f" ({sent})"
    yours = "; the next packet is yours" if folder.state["awaiting"]["packet_from"] == reader else ""
    return (f" (it is {side}'s latest packet, which your folder applied when it came: nothing more to do with this "
            f"file{yours})")


def _check_known(folder: Folder, packet: dict, stored_path: Path, source: str, reader: str | None = None) -> None:
    """A packet whose seq is already stored: a replay, a crash recovery, or a fork. `reader`:
    the side of the key given (`--key`), if any."""
    if packet.get("game") != folder.game.game_id:
        # a packet of another game of the same two keys is no second packet of this one: calling it
        # equivocation would accuse its sender falsely (a probe)
        raise engine.other_game(folder.game, packet, source)
    stored, _ = read_packet(stored_path, folder.relative(stored_path))
    same = packet_id(stored) == packet_id(packet)
    if same and packet["seq"] == folder.state["seq"] + 1:
        return  # written before a crash, its state never was: apply it again
    if same and packet.get("signature") != stored.get("signature"):
        # the same orders under another signature, or none: a damaged or altered copy (a
        # truncated file keeps every field but the end of its signature)
        raise VerificationError(f"{source}: packet {packet['seq']} was already applied ({folder.relative(stored_path)}), "
                                f"and this copy is not it: its signature "
                                + ("is missing" if "signature" not in packet else
                                   "differs from the one stored" if "signature" in stored else
                                   "is one the stored packet has not")
                                + " (a damaged or altered copy; the stored packet is the one the game keeps)")
    if same:
        # the latest: most often the sender's own, which `pbem submit` applied as it wrote it (a new
        # user's probe: the player adjudicated the packet he was about to email)
        # ... or the opponent's, received twice: a key given says which (a players' probe: the
        # receiver was told to send it on, as if he had written it)
        own = _whose_latest(folder, packet, reader) if packet["seq"] == folder.state["seq"] else ""
        raise VerificationError(f"{source}: packet {packet['seq']} was already applied ({folder.relative(stored_path)}); "
                                f"re-sending it changes nothing{own}")
    if stored.get("side") == packet.get("side") and "signature" in packet and "signature" in stored:
        try:
            from pbem.core.packet import verify_signature

            public = folder.game.public_keys[packet["side"]]
            verify_signature(packet, public, packet["side"], source)
            verify_signature(stored, public, stored["side"], folder.relative(stored_path))
        except (VerificationError, KeyError):
            pass
        else:
            second = folder.relative(stored_path.with_name(f"{packet['seq']:04d}-{packet['side']}.alt.yaml"))
            raise VerificationError(f"{source}: equivocation: {packet['side']} signed two different packets for seq "
                                    f"{packet['seq']}: {folder.relative(stored_path)} and {source}; keep both as fork "
                                    f"evidence: put the second as {second}, where `pbem audit` reports the fork")
    raise VerificationError(f"{source}: packet seq {packet['seq']} is already taken by {folder.relative(stored_path)}; "
                            f"the game is at state {folder.state['seq']}")


def chain_secret(game: engine.Game, side: str, key: Any, nonce: str | None = None) -> bytes:
    """The secret of `side`'s chain from `nonce` (hex), by default the genesis's."""
    return genesis.chain_secret(key, bytes.fromhex(nonce or game.side_entry(side)["nonce"]))


def side_of_key(game: engine.Game, key: Any) -> str:
    """The side a key (a private key, or anything with its `public` half) plays; a key of no
    side is refused naming its file where the key knows it (`path`, as --key gave it)."""
    return side_of_public(game, key.public, getattr(key, "path", None))


def side_of_public(game: engine.Game, public: Any, path: str | None = None) -> str:
    """The side a public key plays in `game`; VerificationError for a key of no side, naming
    its file `path` if given (a players' probe: status, submit and adjudicate gave a
    fingerprint alone)."""
    side = genesis.side_of(game.genesis["sides"], public)
    if side is None:
        if path:
            raise VerificationError(f"--key {path}: the key {public.fingerprint()} plays no side of this game; "
                                    f"give the key you play it with")
        raise VerificationError(f"the key {public.fingerprint()} is not the key of any side of this game")
    return side


def reveal_for(game: engine.Game, state: dict, side: str, key: Any) -> dict:
    """The reveal of `side`'s next packet: the next value of its chain (§3.2); with the
    announcement of its next chain when few values are left (docs/protocol.md §5)."""
    seq = state["seq"] + 1
    chain = engine.chain_in_force(game, state, side, seq)
    length = engine.chain_length_of(game, chain, side)
    index = chain["index"] + 1
    if index > length:
        raise VerificationError(f"{side}'s chain of {length} values is used up; the game cannot go on")   # §12: exit 3
    value = dice.chain_value(chain_secret(game, side, key, chain.get("nonce")), length, index)
    if dice.chain_step(value).hex() != chain["value"]:
        raise VerificationError(f"the key of {side} does not give the chain committed in the genesis (was the game "
                                f"joined with another key?)")
    out: dict = {"reveal": {"index": index, "value": value.hex()}}
    if "next" not in chain and length - index < engine.NEXT_CHAIN_WHEN_LEFT:
        out["next_chain"] = next_chain(game, seq, key)
    return out


def next_chain(game: engine.Game, seq: int, key: Any) -> dict:
    """The next chain of the key's side, announced in its packet `seq`: nonce, length and
    anchor. Its nonce is derived from the key, the game and the packet (a signature over
    them, hashed): fresh for every chain, unknown to anyone without the key, and the same
    whenever the packet is made again, so no randomness reaches a packet."""
    from pbem.core import keys

    message = b"pbem-next-chain-v1\n" + bytes.fromhex(game.game_id) + seq.to_bytes(8, "big")
    nonce = sha256(keys.sign_raw(key, message)).digest()[:genesis.NONCE_BYTES]
    return genesis.commitment(key, nonce, genesis.DEFAULT_CHAIN_LENGTH)


def build_packet(game: engine.Game, state: dict, side: str, orders: list, policies: dict | None, key: Any,
                 sent: str, extra: dict | None = None) -> dict:
    from pbem.core import packet as packets

    body: dict = {"pbem": packets.PROTOCOL, "game": game.game_id, "seq": state["seq"] + 1, "prev": state["state_hash"],
                  "side": side, "orders": orders}
    if policies:
        body["policies"] = policies
    if sent:
        body["sent"] = sent
    body.update(extra or {})
    if game.secure:
        body.update(reveal_for(game, state, side, key))
        return packets.sign(body, key)
    return body


def preview_next(game: engine.Game, state: dict, key: Any) -> list[dict] | None:
    """What the key holder's next reveal unlocks if it sends the next packet (§3, a round
    by email): the resolution of what is queued, which its packet cannot change (§3.6)."""
    if not game.secure or state["awaiting"]["packet_from"] is None:
        return None
    side = side_of_key(game, key)
    if side != state["awaiting"]["packet_from"]:
        return None
    after, events = after_reveal(game, state, side, key)
    end = next((i for i, e in enumerate(events) if e["type"] == "takes-effect"), len(events))
    awaiting, before = after["awaiting"], state["awaiting"]
    moved = (awaiting["waiting_for"], awaiting["need"], awaiting.get("decision")) != \
        (before["waiting_for"], before["need"], before.get("decision"))
    if moved and awaiting["waiting_for"] in ("orders", "decision") and (awaiting["need"] or {}).get("side") == side:
        # where the reveal brings the game: the holder's own step, which that same packet can
        # take (players' probe: the withdrawal that came next was said by `pbem orders` alone)
        prompt = awaiting["need"]["prompt"].rstrip(".")
        if awaiting["waiting_for"] == "decision":
            text = (f"Then your own decision {awaiting['decision']} ({prompt}): your packet can give its answer after "
                    f"its reveal (`pbem orders --key` lists the answers).")
        else:
            text = f"Then your own orders ({prompt}): your packet can give them after its reveal (`pbem orders --key`)."
        return events[:end] + [{"type": "next", "text": text}]
    return events[:end]


def after_reveal(game: engine.Game, state: dict, side: str, key: Any,
                 orders: list[dict] | None = None) -> tuple[dict, list[dict]]:
    """The state and events after `side`'s next packet, sent without orders (or with
    `orders`): what its reveal resolves, and so what the orders of that packet would meet.
    Built in memory from the side's own key, never written nor shown."""
    packet = build_packet(game, state, side, list(orders or []), None, key, "")
    return engine.apply_packet(game, state, packet, "(look ahead)", verify=False, lookahead=True)


def packet_yaml(packet: dict) -> str:
    head = f"# pbem packet {packet['seq']} from {shown(str(packet['side']))}, game {shown(str(packet['game']))}\n"
    return head + dumps(packet)


# --- the handshake (§2.2) ---------------------------------------------------------------------

def write_proposal(folder: Path, proposal: dict) -> Path:
    """The proposer's folder before the game exists: proposal.yaml, to send to the opponent."""
    folder = Path(folder)
    for name in (GENESIS, PROPOSAL, JOIN):
        if (folder / name).exists():
            raise FileError(f"{folder / name} already exists; give a new folder for a new game")
    _ruleset_and_scenario(proposal, "the proposal", kept=False)      # a scenario and options it can set up
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / PROPOSAL
    write_new(path, "# pbem proposal: send it to your opponent, who runs `pbem join`.\n" + dumps(proposal))
    return path


class Joined(Record):
    step: str              # "joined", "completed" or "installed"
    path: Path             # the file written: join.yaml, or game.yaml
    document: dict
    folder: Folder | None = None


def join(folder: Path, document: dict, source: str, key: Any = None, *,
         chain_length: int = genesis.DEFAULT_CHAIN_LENGTH, nonce: bytes | None = None) -> Joined:
    """`pbem join`: the next step of the handshake for whatever `document` is: a proposal
    (the joiner adds its chain and signs), a join of one's own proposal (the proposer
    completes it), or a complete genesis (any holder, the joiner first, makes the folder)."""
    folder = Path(folder)
    if isinstance(document, dict) and document.get("mode") == "sandbox":
        # a sandbox game has no handshake: its game.yaml is complete as written, and anyone
        # following the game (a spectator, a referee) makes a folder of it, as of a secure one;
        # never in a folder of a handshake, whose game it cannot be (unsigned, dice not fair)
        genesis.check(document, source)
        for name in (PROPOSAL, JOIN):
            if (folder / name).is_file():
                raise VerificationError(f"{source} is a sandbox game (unsigned packets, dice not fair), not the secure "
                                        f"game of the handshake in {folder} ({name}): do not play it as that game")
        if key is not None:
            raise UsageError(f"{source} is a sandbox game, with no keys and no handshake: if you expected the secure "
                             f"game you proposed or joined, this is not it; to follow it, give no --key")
        if (folder / GENESIS).is_file():
            current = open_folder(folder)
            if current.game.game_id == genesis.game_id(document):
                return Joined("installed", folder / GENESIS, document, current)
        return Joined("installed", folder / GENESIS, document, create(folder, document, source))
    genesis.verify_proposal(document, source)
    if not genesis.is_complete(document):
        if key is None:
            raise UsageError(f"{source} is a proposal: join it with --key YOUR_KEY")
        _ruleset_and_scenario(document, source, kept=False)     # what the joiner agrees to can be played (built
        # here, not kept in pbem's cache: the joiner has agreed to nothing yet)
        genesis.joiner(document, key, source)   # first: the proposer's own folder holds the proposal (a probe)
        for name in (GENESIS, PROPOSAL, JOIN):
            if (folder / name).exists():
                raise FileError(f"{folder / name} already exists; join a proposal in a new folder")
        joined = genesis.join(document, key, source, chain_length=chain_length, nonce=nonce)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / JOIN
        write_new(path, "# pbem join: send it back to the proposer, who runs `pbem join` on it.\n" + dumps(joined))
        return Joined("joined", path, joined)
    proposer = document["proposer"]
    if proposer not in (document.get("signatures") or {}):
        return _complete(folder, document, source, key)
    genesis.verify(document, source)
    if (folder / JOIN).is_file():
        own = load_mapping(folder / JOIN, JOIN)
        if genesis.game_id(own) != genesis.game_id(document):
            raise VerificationError(f"{source} is not the game you joined ({JOIN} in {folder} has game "
                                    f"{genesis.game_id(own)}, this file {genesis.game_id(document)})")
    existing = _existing_game(folder, document, source)
    if existing is not None:
        return Joined("installed", folder / GENESIS, document, existing)
    # a refusal names the file given (mail/old-game.yaml), not the game.yaml it was to become (a
    # referee's probe: "game.yaml: the game was made with chir 1.10.0" of a folder never made)
    made = create(folder, document, source)
    return Joined("installed", folder / GENESIS, document, made)


def _complete(folder: Path, document: dict, source: str, key: Any) -> Joined:
    if key is None:
        raise UsageError(f"{source} joins a proposal; its proposer completes it with --key")
    if not (folder / PROPOSAL).is_file():
        raise FileError(f"{folder}: no {PROPOSAL}: complete a join in the folder of the proposal it joins")
    own = load_mapping(folder / PROPOSAL, PROPOSAL)
    existing = _existing_game(folder, document, source)
    if existing is not None:
        return Joined("completed", folder / GENESIS, existing.game.genesis, existing)
    completed = genesis.complete(document, own, key, source)
    made = create(folder, completed)
    return Joined("completed", folder / GENESIS, completed, made)


def _existing_game(folder: Path, document: dict, source: str) -> Folder | None:
    """The folder's game if it is already this genesis's; refuse a second, different one:
    a proposal completes exactly one game, or its proposer's chain would serve two."""
    if not (folder / GENESIS).is_file():
        return None
    current = open_folder(folder)
    if current.game.game_id != genesis.game_id(document):
        raise VerificationError(f"{source}: {folder} already holds game {current.game.game_id}; a proposal completes "
                                f"one game only (a second join would reuse the same dice chain)")
    return current


# --- atomic writes ------------------------------------------------------------------------

def write_new(path: Path, text: str, replace: bool = False, mode: int = 0o644) -> None:
    """Write `text` to `path` atomically: a temporary file, fsync, then link (never
    overwriting) or, with `replace`, rename over a derivable file such as a report. `mode`:
    the file's permissions (0o600 for a sealer's private items)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    data = text.encode("utf-8")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise FileError(f"{path} already exists; pbem never overwrites it") from None
            finally:
                os.unlink(tmp)
            _clear_unfinished(path)
    except FileError:
        raise
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileError(f"{path}: cannot be written ({exc.strerror})") from None
    _fsync_dir(path.parent)


def _clear_unfinished(path: Path) -> None:
    """Remove the temporary files of writes of `path` whose commands were killed before they
    linked it into place, now that it is there: the command run again completes the folder,
    and audit, which names every file it does not expect, then finds it clean (a referee's
    probe: an honest folder failed its audit after a power cut until the leftover was found
    and removed by hand). A write of another file is left alone; one of this file still under
    way in another process would find its name taken all the same."""
    prefix = f".{path.name}.tmp"
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):]
        if name.startswith(prefix) and pid.isascii() and pid.isdigit():
            try:
                os.unlink(path.parent / name)
            except OSError:
                pass


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # best effort: some file systems cannot sync a folder; the file itself is synced
    finally:
        os.close(fd)
