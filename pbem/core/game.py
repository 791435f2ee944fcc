"""A game folder: genesis, packets, states and reports on disk (DESIGN §2).

    game.yaml                 genesis
    packets/0001-german.yaml  signed turn files, numbered
    states/0001.yaml          state after packet 1 (states/0000.yaml is the set-up)
    aar/0001.md               after-action report of packet 1

Writes are atomic (temporary file, fsync, link into place): a state that exists is never
overwritten, and a rejected packet leaves the folder byte for byte as it was.
"""

from __future__ import annotations

import os
import re
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem import rulesets
from pbem.core import dice, engine, report
from pbem.core.canonical import DOMAIN_GENESIS, MAX_BYTES, canonical, digest, dumps, load_mapping, loads
from pbem.core.errors import FileError, InputError, RulesError, UsageError, VerificationError
from pbem.core.packet import SIDE_NAME, check_envelope, packet_hash

GENESIS = "game.yaml"
DEFAULT_CHAIN_LENGTH = 1024
_STATE_FILE = re.compile(r"(\d{4,})\.yaml\Z")
_PACKET_FILE = re.compile(r"(\d{4,})-([a-z][a-z0-9-]*)(\..+)?\.yaml\Z")


def game_id(genesis: dict) -> str:
    return digest(DOMAIN_GENESIS, genesis)[:32]


def scenario_document(ruleset: Any, genesis: dict) -> dict:
    """The scenario a genesis names, checked against its recorded hash."""
    scenario = genesis["scenario"]
    if "document" in scenario:
        return scenario["document"]
    loader = ruleset.scenarios.get(scenario["name"])
    if loader is None:
        raise FileError(f"game.yaml: scenario {scenario['name']!r} is not bundled with ruleset {ruleset.id} "
                        f"(it has {', '.join(sorted(ruleset.scenarios))})")
    document = loader()
    if digest(b"", document) != scenario["sha256"]:
        raise VerificationError(f"game.yaml: the bundled scenario {scenario['name']!r} differs from the one this game "
                                f"was created with (sha256 {scenario['sha256'][:16]}...); use the pbem version that created it")
    return document


def open_genesis(genesis: dict, source: str = GENESIS) -> engine.Game:
    from pbem.core import keys, schema

    problems = schema.errors(schema.load("genesis.schema.json"), genesis)
    if problems:
        raise VerificationError(f"{source}: the genesis does not match its schema: {problems[0]}")
    ruleset = rulesets.get(genesis["ruleset"])
    if genesis["ruleset_version"] != ruleset.version:
        raise VerificationError(f"{source}: the game was made with {ruleset.id} version {genesis['ruleset_version']}, "
                                f"this pbem has version {ruleset.version}")
    names = [side["name"] for side in genesis["sides"]]
    if names != list(ruleset.sides):
        raise VerificationError(f"{source}: the sides must be {', '.join(ruleset.sides)} in that order, not {', '.join(names)}")
    public = {}
    if genesis["mode"] == "secure":
        for side in genesis["sides"]:
            if "key" not in side:
                raise VerificationError(f"{source}: side {side['name']} has no public key, and this is a secure game")
            public[side["name"]] = keys.load_public_key(side["key"])
    return engine.Game(genesis=genesis, game_id=game_id(genesis), ruleset=ruleset, public_keys=public)


def setup_rules(game: engine.Game) -> dict:
    ruleset = game.ruleset
    options = dict(ruleset.options)
    unknown = sorted(set(game.genesis.get("options", {})) - set(options))
    if unknown:
        raise RulesError(f"game.yaml: unknown option {unknown[0]!r} for {ruleset.id} (known: {', '.join(sorted(options)) or 'none'})")
    options.update(game.genesis.get("options", {}))
    try:
        return ruleset.setup(scenario_document(ruleset, game.genesis), options)
    except ValueError as exc:  # a scenario document the ruleset cannot set up
        raise FileError(f"game.yaml: the scenario cannot be set up: {exc}") from None


def make_genesis(ruleset_id: str, sides: dict[str, Any], *, scenario: str | None = None, scenario_doc: dict | None = None,
                 options: dict | None = None, sandbox: dict | None = None, created: str = "",
                 chain_length: int = DEFAULT_CHAIN_LENGTH) -> dict:
    """A genesis document. `sides` maps side name -> keys.PublicKey (or None in a sandbox)."""
    ruleset = rulesets.get(ruleset_id)
    if sorted(sides) != sorted(ruleset.sides):
        raise UsageError(f"ruleset {ruleset_id} has sides {', '.join(ruleset.sides)}; give each once with --side SIDE=PUBKEY_FILE")
    if scenario_doc is not None:
        scenario_entry: dict = {"document": scenario_doc}
    else:
        name = scenario or ruleset.default_scenario
        if name not in ruleset.scenarios:
            raise UsageError(f"ruleset {ruleset_id} has no scenario {name!r} (it has {', '.join(sorted(ruleset.scenarios))})")
        scenario_entry = {"name": name, "sha256": digest(b"", ruleset.scenarios[name]())}
    side_entries = []
    for name in ruleset.sides:
        entry: dict = {"name": name, "chain_length": chain_length}
        if sides[name] is not None:
            entry["key"] = sides[name].line()
            entry["fingerprint"] = sides[name].fingerprint()
        side_entries.append(entry)
    genesis = {
        "pbem": 1, "ruleset": ruleset.id, "ruleset_version": ruleset.version, "scenario": scenario_entry,
        "options": dict(sorted((options or {}).items())), "sides": side_entries, "created": created,
        "mode": "sandbox" if sandbox is not None else "secure",
    }
    if sandbox is not None:
        genesis["sandbox"] = sandbox
    return genesis


# --- the folder -------------------------------------------------------------------------

@dataclass
class Folder:
    path: Path
    game: engine.Game
    state: dict  # the latest state

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.path))
        except ValueError:
            return str(path)


def create(folder: Path, genesis: dict) -> Folder:
    folder = Path(folder)
    if (folder / GENESIS).exists():
        raise FileError(f"{folder / GENESIS} already exists; a game folder holds one game")
    game = open_genesis(genesis)
    state = engine.initial_state(game, setup_rules(game))
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("packets", "states", "aar"):
        (folder / sub).mkdir(exist_ok=True)
    write_new(folder / "states" / "0000.yaml", state_text(state))
    write_new(folder / GENESIS, genesis_text(genesis))
    return Folder(folder, game, state)


def genesis_text(genesis: dict) -> str:
    return "# pbem game: the genesis. Its hash is the game id; never edit it.\n" + dumps(genesis)


def state_text(state: dict) -> str:
    head = f"# pbem state {state['seq']} of game {state['game']}"
    if state["mode"] == "sandbox":
        head += "\n# SANDBOX GAME: unsigned packets, dice from a script or a plain seed, not fair dice"
    return head + "\n" + dumps(state)


def open_folder(folder: Path) -> Folder:
    folder = Path(folder)
    if not (folder / GENESIS).is_file():
        raise FileError(f"{folder}: not a pbem game folder (no {GENESIS})")
    genesis = load_mapping(folder / GENESIS, f"{folder.name}/{GENESIS}")
    game = open_genesis(genesis)
    numbers = state_numbers(folder)
    if not numbers:
        raise FileError(f"{folder}: no states/0000.yaml; the folder is incomplete")
    path = folder / "states" / f"{numbers[-1]:04d}.yaml"
    state = load_mapping(path, str(path.relative_to(folder)))
    if state.get("state_hash") != engine.state_hash(state) or state.get("game") != game.game_id or state.get("seq") != numbers[-1]:
        raise VerificationError(f"{path.relative_to(folder)}: the state file has been altered (its content does not match "
                                f"its state_hash, game or number); run `pbem audit {folder}`")
    return Folder(folder, game, state)


def state_numbers(folder: Path) -> list[int]:
    states = folder / "states"
    if not states.is_dir():
        return []
    return sorted(int(m.group(1)) for m in map(_STATE_FILE.match, os.listdir(states)) if m)


def packet_files(folder: Path) -> list[tuple[int, Path]]:
    packets = folder / "packets"
    if not packets.is_dir():
        return []
    found = []
    for name in sorted(os.listdir(packets)):
        match = _PACKET_FILE.match(name)
        if match:
            found.append((int(match.group(1)), packets / name))
    return found


def read_packet(path: Path, source: str | None = None) -> tuple[dict, bytes]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)  # bounded memory, however large the file
            size = os.fstat(handle.fileno()).st_size
    except FileNotFoundError:
        raise FileError(f"{source or path}: no such file") from None
    except OSError as exc:
        raise FileError(f"{source or path}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{source or path}: the file is {max(size, len(data))} bytes, over the limit of {MAX_BYTES}")
    return check_envelope(loads(data, source or str(path)), source or str(path)), data


@dataclass
class Applied:
    state: dict
    events: list[dict]
    packet_path: Path
    preview: list[dict] | None = None
    warnings: list[str] = dataclasses.field(default_factory=list)


def adjudicate(folder: Folder, packet: dict, data: bytes, source: str, preview_key: Any = None) -> Applied:
    """Verify and apply one packet, then write packet, report and state (in that order;
    the state is written last and is the commit point)."""
    seq = packet.get("seq")
    stored = {n: p for n, p in packet_files(folder.path)}
    if isinstance(seq, int) and seq in stored:
        _check_known(folder, packet, stored[seq], source)
    new, events = engine.apply_packet(folder.game, folder.state, packet, source)
    target = folder.path / "packets" / f"{seq:04d}-{packet['side']}.yaml"
    aar = folder.path / "aar" / f"{seq:04d}.md"
    written: list[Path] = []  # files this call created: removed again if the state is not written
    try:
        if not target.exists():
            write_new(target, data.decode("utf-8"))
            written.append(target)
        if not aar.exists():
            written.append(aar)
        write_new(aar, report.render(folder.game, new, events), replace=True)
        write_new(folder.path / "states" / f"{seq:04d}.yaml", state_text(new))
    except BaseException:
        for path in written:
            try:
                os.unlink(path)
            except OSError:
                pass
        raise
    preview = None
    if preview_key is not None:
        preview = preview_next(folder.game, new, preview_key)
    folder.state = new
    return Applied(new, events, target, preview)


def _check_known(folder: Folder, packet: dict, stored_path: Path, source: str) -> None:
    """A packet whose seq is already stored: a replay, a crash recovery, or a fork."""
    stored, _ = read_packet(stored_path, folder.relative(stored_path))
    same = packet_hash(stored) == packet_hash(packet)
    if same and packet["seq"] == folder.state["seq"] + 1:
        return  # written before a crash, its state never was: apply it again
    if same:
        raise VerificationError(f"{source}: packet {packet['seq']} was already applied ({folder.relative(stored_path)}); "
                                f"re-sending it changes nothing")
    if stored.get("side") == packet.get("side") and "signature" in packet and "signature" in stored:
        try:
            from pbem.core.packet import verify_signature

            public = folder.game.public_keys[packet["side"]]
            verify_signature(packet, public, packet["side"], source)
            verify_signature(stored, public, stored["side"], folder.relative(stored_path))
        except (VerificationError, KeyError):
            pass
        else:
            raise VerificationError(f"{source}: equivocation: {packet['side']} signed two different packets for seq "
                                    f"{packet['seq']}: {folder.relative(stored_path)} and {source} (fork evidence: keep both files)")
    raise VerificationError(f"{source}: packet seq {packet['seq']} is already taken by {folder.relative(stored_path)}; "
                            f"the game is at state {folder.state['seq']}")


def chain_secret(game: engine.Game, key: Any) -> bytes:
    from pbem.core import keys

    return dice.chain_secret(keys.sign_raw(key, dice.CHAIN_SEED_DOMAIN + bytes.fromhex(game.game_id)))


def side_of_key(game: engine.Game, key: Any) -> str:
    fingerprint = key.public.fingerprint()
    for side in game.genesis["sides"]:
        if side.get("fingerprint") == fingerprint:
            return side["name"]
    raise VerificationError(f"the key {fingerprint} is not the key of any side of this game")


def reveal_for(game: engine.Game, state: dict, side: str, key: Any) -> dict:
    """The reveal (and, for a side's first packet, the anchor) of `side`'s next packet."""
    chain = state["chains"][side]
    length = game.chain_length(side)
    index = chain["index"] + 1
    if index > length:
        raise RulesError(f"{side}'s chain of {length} values is used up; the game cannot go on")
    secret = chain_secret(game, key)
    fields = {"reveal": {"index": index, "value": dice.chain_value(secret, length, index).hex()}}
    if chain["index"] == 0:
        fields["anchor"] = dice.chain_value(secret, length, 0).hex()
    return fields


def build_packet(game: engine.Game, state: dict, side: str, orders: list, policies: dict | None, key: Any,
                 sent: str, extra: dict | None = None) -> dict:
    from pbem.core import packet as packets

    body: dict = {"pbem": 1, "game": game.game_id, "seq": state["seq"] + 1, "prev": state["state_hash"], "side": side,
                  "orders": orders}
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
    """What the key holder's next reveal unlocks, if it sends the next packet (§3, a round by email)."""
    if not game.secure or state["awaiting"]["packet_from"] is None:
        return None
    side = side_of_key(game, key)
    if side != state["awaiting"]["packet_from"]:
        return None
    ack = build_packet(game, state, side, [], None, key, "")
    _, events = engine.apply_packet(game, state, ack, "(preview)", verify=False)
    return events


def packet_yaml(packet: dict) -> str:
    head = f"# pbem packet {packet['seq']} from {packet['side']}, game {packet['game']}\n"
    return head + dumps(packet)


# --- atomic writes ------------------------------------------------------------------------

def write_new(path: Path, text: str, replace: bool = False) -> None:
    """Write `text` to `path` atomically: a temporary file, fsync, then link (never
    overwriting) or, with `replace`, rename over a derivable file such as a report."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    data = text.encode("utf-8")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
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
    except FileError:
        raise
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileError(f"{path}: cannot be written ({exc.strerror})") from None
    _fsync_dir(path.parent)


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
