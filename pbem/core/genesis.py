"""The genesis (`game.yaml`), agreed in a handshake before any die exists (DESIGN §2.2).

A secure genesis is made in three steps, so that every side's dice chain is fixed before
anyone reveals anything:

1. the proposer writes a *proposal*: ruleset, scenario, options, both sides' public keys,
   and for its own side a fresh nonce, a chain length and the chain's anchor; it signs the
   proposal (`proposal_signature`);
2. the other side checks it and *joins*: it adds its own nonce, chain length and anchor,
   which completes the genesis, and signs the complete genesis (`signatures.<side>`);
3. the proposer checks the join and signs the complete genesis too. Only then does the
   game exist: its id is the hash of the complete genesis without its signatures.

Every signature is an SSHSIG in namespace `pbem-genesis-v1` over canonical bytes. The
proposal a proposer signed is recovered from the complete genesis by leaving out the
joiner's nonce, chain length and anchor, so one file carries all three signatures.
A sandbox genesis has no keys, no chains and no signatures.
"""

from __future__ import annotations

import base64
import binascii
import os
import re

from pbem.core.canonical import DOMAIN_GENESIS, canonical, digest
from pbem.core.errors import UsageError, VerificationError
from pbem.core.text import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROTOCOL = 2
NAMESPACE = "pbem-genesis-v1"
DEFAULT_CHAIN_LENGTH = 4096
MIN_CHAIN_LENGTH = 64
MAX_CHAIN_LENGTH = 2**20
NONCE_BYTES = 16
CHAIN_FIELDS = ("nonce", "chain_length", "anchor")
SIGNATURE_FIELDS = ("proposal_signature", "signatures")


def unsigned(genesis: dict) -> dict:
    """The genesis without its signatures: what the game id and every signature cover."""
    return {k: v for k, v in genesis.items() if k not in SIGNATURE_FIELDS}


def game_id(genesis: dict) -> str:
    """First 16 bytes (32 hex digits) of the hash of the genesis without signatures."""
    return digest(DOMAIN_GENESIS, unsigned(genesis))[:32]


def proposal_view(genesis: dict) -> dict:
    """The proposal the proposer signed: the genesis without signatures and without any
    other side's chain commitment."""
    view = unsigned(genesis)
    view["sides"] = [side if side["name"] == genesis["proposer"]
                     else {k: v for k, v in side.items() if k not in CHAIN_FIELDS}
                     for side in genesis["sides"]]
    return view


def is_complete(genesis: dict) -> bool:
    return all("anchor" in side for side in genesis["sides"])


def fresh_nonce() -> bytes:
    """A new random nonce: a new game never reuses a chain, even between the same keys."""
    return os.urandom(NONCE_BYTES)


def chain_secret(key: Any, nonce: bytes) -> bytes:
    """c_N = SHA-256(Ed25519-sign(key, b"pbem-chain-seed-v2\\n" + nonce)) (§3.1)."""
    from pbem.core import dice, keys

    return dice.chain_secret(keys.sign_raw(key, dice.chain_seed_message(nonce)))


def commitment(key: Any, nonce: bytes, chain_length: int) -> dict:
    """A side's chain fields for the genesis: its nonce, chain length and anchor c_0."""
    from pbem.core import dice

    _check_length(chain_length)
    anchor = dice.chain_value(chain_secret(key, nonce), chain_length, 0)
    return {"nonce": nonce.hex(), "chain_length": chain_length, "anchor": anchor.hex()}


def _check_length(length: int) -> None:
    if not MIN_CHAIN_LENGTH <= length <= MAX_CHAIN_LENGTH:
        raise UsageError(f"a chain length must be {MIN_CHAIN_LENGTH} to {MAX_CHAIN_LENGTH}, not {length}")


def _sign(key: Any, document: dict) -> str:
    from pbem.core import keys

    return base64.b64encode(keys.sshsig_sign(key, canonical(document), NAMESPACE)).decode()


def _verify(public: Any, document: dict, value: Any, side: str, signed: str, source: str) -> None:
    """`side`'s signature `value` of `document` (what it `signed`: "proposal" or "genesis")."""
    from pbem.core import keys

    what = f"the {signed} signature of {side}"
    if not isinstance(value, str):
        raise VerificationError(f"{source}: {what} is missing")
    try:
        blob = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise VerificationError(f"{source}: {what} is not valid base64") from None
    if base64.b64encode(blob).decode() != value:
        raise VerificationError(f"{source}: {what} is not in canonical base64")
    try:
        keys.sshsig_verify(public, canonical(document), blob, NAMESPACE)
    except keys.AlteredError:   # as a packet's (core/packet.py): what happened, in one sentence
        raise VerificationError(
            f"{source}: its content does not match what {side} signed ({side}'s {signed} signature, key "
            f"{public.fingerprint()}): the file was altered after {side} signed it, or the signature is not by "
            f"{side}'s key; use the file as it was sent, unchanged") from None
    except VerificationError as exc:
        raise VerificationError(f"{source}: {what} does not verify ({exc.message})") from None


# --- making the documents -------------------------------------------------------------------

def sides_entries(ruleset: Any, sides: dict[str, Any]) -> list[dict]:
    """The genesis `sides`, in the ruleset's packet order, each with its key (a PublicKey)."""
    if sorted(sides) != sorted(ruleset.sides):
        if all(key is None for key in sides.values()):   # a sandbox game: sides without keys
            raise UsageError(f"ruleset {ruleset.id} has sides {', '.join(ruleset.sides)}; a sandbox game names each "
                             f"once with --side SIDE, without a key: {' '.join(f'--side {s}' for s in ruleset.sides)}")
        raise UsageError(f"ruleset {ruleset.id} has sides {', '.join(ruleset.sides)}; "
                         f"give each once with --side SIDE=PUBKEY_FILE")
    entries = []
    for name in ruleset.sides:
        entry: dict = {"name": name}
        if sides[name] is not None:
            check_key_line(sides[name], f"--side {name}")
            entry["key"] = sides[name].line()
            entry["fingerprint"] = sides[name].fingerprint()
        entries.append(entry)
    return entries


def check_key_line(key: Any, label: str) -> None:
    """Refuse, as the command line's slip, a public key whose line the genesis schema would
    refuse: the comment is all a key line may get wrong. `label` names where the key came from
    (the file, or the option that gave it)."""
    if not re.search(_key_pattern(), key.line()):
        raise UsageError(f"{label}: the key's comment {shown(repr(key.comment))} is not printable ASCII of at most "
                         f"200 characters; edit the comment after the key in its .pub file, or leave it out (nothing "
                         f"was written)")


def _key_pattern() -> str:
    """The genesis schema's pattern of a side's key line, as Python must be told it."""
    from pbem.core import schema
    from pbem.core.fastcheck import python_pattern

    key = schema.load("genesis.schema.json")["properties"]["sides"]["items"]["properties"]["key"]
    return python_pattern(key["pattern"])


def base(ruleset: Any, *, scenario: str | None = None, scenario_doc: dict | None = None,
         options: dict | None = None, created: str = "") -> dict:
    """The fields every genesis has, secure or sandbox: ruleset, scenario, options, created."""
    if scenario_doc is not None:
        scenario_entry: dict = {"document": scenario_doc}
    else:
        name = scenario or ruleset.default_scenario
        if name not in ruleset.scenarios:
            raise UsageError(f"ruleset {ruleset.id} has no scenario {name!r} (it has {', '.join(sorted(ruleset.scenarios))})")
        scenario_entry = {"name": name, "sha256": digest(b"", ruleset.scenarios[name]())}
    return {"pbem": PROTOCOL, "ruleset": ruleset.id, "ruleset_version": ruleset.version, "scenario": scenario_entry,
            "options": dict(sorted((options or {}).items())), "created": created}


def sandbox(ruleset: Any, dice_source: dict, **fields: Any) -> dict:
    """A sandbox genesis: unsigned packets, dice from a script or a plain seed."""
    genesis = base(ruleset, **fields)
    genesis.update(mode="sandbox", sandbox=dice_source, sides=[{"name": name} for name in ruleset.sides])
    try:   # the command line's mistake, as in `propose` (a probe: a bad --created exited 3, naming the
        _check_schema(genesis, "the game")   # game.yaml never written)
    except VerificationError as exc:
        raise UsageError(f"{exc.message} (an option, the dice, the seed or a scenario given); nothing was "
                         "written") from None
    return genesis


def propose(ruleset: Any, sides: dict[str, Any], key: Any, *, chain_length: int = DEFAULT_CHAIN_LENGTH,
            nonce: bytes | None = None, **fields: Any) -> dict:
    """A signed proposal of a secure game by the holder of `key`, one of `sides`' keys."""
    genesis = base(ruleset, **fields)
    entries = sides_entries(ruleset, sides)
    proposer = side_of(entries, key.public)
    if proposer is None:
        raise UsageError(f"--key {key.public.fingerprint()} is not the key of any side given with --side; "
                         "the proposer plays one of the sides")
    for entry in entries:
        if entry["name"] == proposer:
            entry.update(commitment(key, nonce or fresh_nonce(), chain_length))
    genesis.update(mode="secure", proposer=proposer, sides=entries)
    try:   # the command line's mistake (a new user's probe: one key for both sides exited 3)
        check_sides(genesis, "the proposal")
    except VerificationError as exc:
        raise UsageError(f"{exc.message}; nothing was written") from None
    genesis["proposal_signature"] = _sign(key, proposal_view(genesis))
    try:   # what the opponent's `pbem join` checks first: never send a proposal it refuses
        _check_schema(genesis, "the proposal")
    except VerificationError as exc:
        raise UsageError(f"{exc.message} (a key file's comment, an option or a scenario given); nothing was "
                         "written") from None
    return genesis


def joiner(proposal: dict, key: Any, source: str) -> str:
    """The side `key` joins the proposal as: refused if it is no side's, the proposer's own, or
    a side that has joined already."""
    side = side_of(proposal["sides"], key.public)
    if side is None:
        raise VerificationError(f"{source}: the key {key.public.fingerprint()} is not the key of any side of this proposal")
    if side == proposal["proposer"]:
        raise UsageError(f"{source} is your own proposal; send it to your opponent, who joins it")
    if "anchor" in next(s for s in proposal["sides"] if s["name"] == side):
        raise VerificationError(f"{source}: {side} has already joined this proposal")
    return side


def join(proposal: dict, key: Any, source: str, *, chain_length: int = DEFAULT_CHAIN_LENGTH,
         nonce: bytes | None = None) -> dict:
    """The joiner's step: check the proposal, add this side's chain, sign the complete genesis."""
    verify_proposal(proposal, source)
    side = joiner(proposal, key, source)
    genesis = dict(proposal)
    genesis["sides"] = [dict(s, **commitment(key, nonce or fresh_nonce(), chain_length)) if s["name"] == side else s
                        for s in proposal["sides"]]
    genesis["signatures"] = {side: _sign(key, unsigned(genesis))}
    return genesis


def complete(joined: dict, own_proposal: dict, key: Any, source: str) -> dict:
    """The proposer's step: check that `joined` joins exactly `own_proposal`, and sign it."""
    verify(joined, source, require_all=False)
    if canonical(proposal_view(joined)) != canonical(proposal_view(own_proposal)) \
            or joined.get("proposal_signature") != own_proposal.get("proposal_signature"):
        raise VerificationError(f"{source} does not join your proposal: it names another ruleset, scenario, option, "
                                "key or chain, or was made from another proposal")
    proposer = joined["proposer"]
    if side_of(joined["sides"], key.public) != proposer:
        given = f"--key {key.path}: " if getattr(key, "path", None) else ""   # the file named (a players' probe)
        raise VerificationError(f"{source}: {given}the key {key.public.fingerprint()} is not the proposer's "
                                f"({proposer}'s) key; the proposer completes the game with the key it proposed with")
    genesis = dict(joined)
    genesis["signatures"] = dict(joined.get("signatures", {}), **{proposer: _sign(key, unsigned(joined))})
    return genesis


def side_of(entries: list[dict], public: Any) -> str | None:
    fingerprint = public.fingerprint()
    return next((s["name"] for s in entries if s.get("fingerprint") == fingerprint), None)


# --- checking them ---------------------------------------------------------------------------

def check_sides(genesis: dict, source: str) -> dict:
    """Keys, fingerprints and chain lengths of a secure genesis; side -> PublicKey."""
    from pbem.core import keys

    public = {}
    for side in genesis["sides"]:
        name = side["name"]
        if "key" not in side:
            raise VerificationError(f"{source}: side {name} has no public key, and this is a secure game")
        try:
            key = keys.load_public_key(side["key"], own=False)
        except VerificationError as exc:
            # `pbem new` writes Ed25519 keys alone: one that is none was changed after the file was
            # made (a probe: a digit changed in a mailed game.yaml was refused as "The public key is
            # a Csh-ed25519 key; ... (make one with ssh-keygen ...)", naming no file and no side)
            reason = exc.message[0].lower() + exc.message[1:].rstrip(".")
            raise VerificationError(f"{source}: the key of side {name} cannot be read ({reason}); the file was altered "
                                    f"or damaged after it was made: ask for it again, unchanged") from None
        if side.get("fingerprint") != key.fingerprint():
            raise VerificationError(f"{source}: the fingerprint of side {name} is {side.get('fingerprint')}, but its key's "
                                    f"fingerprint is {key.fingerprint()}")
        if "chain_length" in side and not MIN_CHAIN_LENGTH <= side["chain_length"] <= MAX_CHAIN_LENGTH:
            raise VerificationError(f"{source}: side {name}'s chain length {side['chain_length']} is outside "
                                    f"{MIN_CHAIN_LENGTH} to {MAX_CHAIN_LENGTH}")
        public[name] = key
    wires = [key.wire() for key in public.values()]
    if len(set(wires)) != len(wires):
        raise VerificationError(f"{source}: two sides have the same key; each side of a secure game plays with its own key")
    if len(public) != 2:
        raise VerificationError(f"{source}: a secure game has exactly two sides, not {len(public)}")
    if genesis.get("proposer") not in public:
        raise VerificationError(f"{source}: the proposer {genesis.get('proposer')!r} is not a side of the game")
    return public


def check_chains(sides: list[dict], source: str) -> None:
    """No side's dice chain may be another's or begin with a value another side's makes
    public: two sides with the same nonce or anchor, or an anchor that is the chain hash of
    another side's (its first value would be that anchor, out from the start), would reveal
    values the other side knew before they were due, and an audit would call the dice of a
    colluding pair unforeseeable (a cheaters' probe; docs/protocol.md §5 refuses the same of a
    next chain). Two players who share their chain values out of band can foresee dice
    together whatever pbem checks; this refuses what the files themselves show."""
    from pbem.core.dice import chain_step

    for first, second in ((a, b) for n, a in enumerate(sides) for b in sides[n + 1:]):
        if first["nonce"] == second["nonce"]:
            raise VerificationError(f"{source}: {first['name']} and {second['name']} have the same chain nonce; each side "
                                    f"commits a chain of its own, from a fresh nonce")
        one, other = bytes.fromhex(first["anchor"]), bytes.fromhex(second["anchor"])
        if one == other or chain_step(one) == other or chain_step(other) == one:
            raise VerificationError(f"{source}: {second['name']}'s dice chain anchor is {first['name']}'s, or one hash "
                                    f"step from it, so one side would reveal values the other knew before they were "
                                    f"due; each side commits a chain of its own (docs/protocol.md §4)")


def verify_proposal(proposal: dict, source: str) -> dict:
    """A proposal's structure and its proposer's signature; side -> PublicKey."""
    _check_schema(proposal, source)
    if proposal["mode"] != "secure":
        raise VerificationError(f"{source}: a sandbox game needs no handshake: `pbem join GAME_DIR game.yaml` makes "
                                f"a folder of its game.yaml, and `pbem new --sandbox` starts one")
    public = check_sides(proposal, source)
    proposer = proposal["proposer"]
    own = next(s for s in proposal["sides"] if s["name"] == proposer)
    if "anchor" not in own:
        raise VerificationError(f"{source}: the proposer {proposer} has not committed its dice chain")
    _verify(public[proposer], proposal_view(proposal), proposal.get("proposal_signature"), proposer, "proposal",
            source)
    return public


def verify(genesis: dict, source: str, *, require_all: bool = True) -> dict:
    """A complete secure genesis: every side's chain and signature (with `require_all`;
    else only the signatures present); side -> PublicKey."""
    public = verify_proposal(genesis, source)
    if not is_complete(genesis):
        missing = [s["name"] for s in genesis["sides"] if "anchor" not in s]
        raise VerificationError(f"{source}: the genesis is not complete: {', '.join(missing)} has not joined "
                                f"(`pbem join`)")
    check_chains(genesis["sides"], source)
    signatures = genesis.get("signatures") or {}
    for name in sorted(signatures):
        if name not in public:
            raise VerificationError(f"{source}: a signature is given for {name!r}, which is not a side of the game")
    for name, key in public.items():
        if name in signatures:
            _verify(key, unsigned(genesis), signatures[name], name, "genesis", source)
        elif require_all:
            step = ("has not signed the complete genesis (the proposer's `pbem join` of the join file)"
                    if name == genesis["proposer"] else "has not signed it")
            raise VerificationError(f"{source}: {name} {step}; no packet may be signed before")
    return public


def _check_schema(genesis: Any, source: str) -> None:
    from pbem.core import schema

    if isinstance(genesis, dict) and genesis.get("pbem") != PROTOCOL:
        raise VerificationError(f"{source}: the file is pbem format {genesis.get('pbem')!r}; this pbem reads format "
                                f"{PROTOCOL} (protocol 2) only: start a new game with this version")
    problems = schema.errors(schema.load("genesis.schema.json"), genesis)
    if problems:
        raise VerificationError(f"{source}: the genesis does not match its schema: {problems[0]}")


def check(genesis: dict, source: str) -> dict:
    """Any genesis a folder is opened with: schema, and for a secure game every check
    above; side -> PublicKey ({} for a sandbox game)."""
    _check_schema(genesis, source)
    if genesis["mode"] == "sandbox":
        return {}
    return verify(genesis, source)

