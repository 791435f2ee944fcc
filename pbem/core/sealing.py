"""Sealed orders on the sender's side (DESIGN §3): salts, and the items kept until opened.

A sealed item is sent as SHA-256(b"pbem-seal-v1\\n" + game_id + seq + side + 0x00 + salt +
canonical(item)) and opened as {seal: "SEQ.N", salt, item} when it is due (§8). In a secure game
each salt is derived from the player's key, like the dice chain: the hash of the key's
Ed25519 signature over a public message, which only the key can make (so no secret but the
key is needed; pbem has no command to retype a lost item, though: keep `private/`). The items
are kept, until they are opened, in `private/seal-NNNN-SIDE.yaml` of the sealer's own folder
(mode 600), so that `pbem submit` opens each when it is due without retyping. They are written, atomically,
before the sealing packet is: a crash once the packet is in the folder would otherwise leave
the sealer unable ever to open its seal, and so to send another packet. A packet refused
before it is written takes them away again.
"""

from __future__ import annotations

import os
from pathlib import Path

from pbem.core.canonical import dumps, load_mapping
from pbem.core.errors import FileError, PbemError, VerificationError
from pbem.core.game import write_new
from pbem.core.sha import sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SALT_DOMAIN = b"pbem-seal-salt-v1\n"
PRIVATE = "private"


def salts(game: Any, seq: int, side: str, key: Any, count: int) -> list[bytes]:
    """One 32-byte salt per item, recomputable by the sealer: from the key in a secure game;
    from public data in a sandbox game, which keeps nothing secret."""
    prefix = SALT_DOMAIN + bytes.fromhex(game.game_id) + seq.to_bytes(8, "big") + side.encode() + b"\x00"
    if key is None:
        return [sha256(prefix + n.to_bytes(8, "big")).digest() for n in range(count)]
    from pbem.core import keys

    return [sha256(keys.sign_raw(key, prefix + n.to_bytes(8, "big"))).digest() for n in range(count)]


def path(folder: Any, seq: int, side: str) -> Path:
    return Path(folder.path) / PRIVATE / f"seal-{seq:04d}-{side}.yaml"


def keep(folder: Any, seq: int, side: str, items: list, item_salts: list[bytes]) -> bool:
    """Keep the items of a seal; whether that made the private folder."""
    target = path(folder, seq, side)
    made = not target.parent.exists()
    target.parent.mkdir(mode=0o700, exist_ok=True)
    text = ("# pbem: orders you sealed; keep this file private, and keep it: `pbem submit` opens each order\n"
            "# from it when the rules reveal it (docs/protocol.md §8), and cannot without it.\n"
            + dumps({"seq": seq, "side": side, "items": items, "salts": [s.hex() for s in item_salts]}))
    try:
        write_new(target, text, replace=True, mode=0o600)   # a second try at one seq seals anew
    except BaseException:
        if made:
            target.parent.rmdir()
        raise
    return made


def forget(folder: Any, seq: int, side: str, tidy: bool = False) -> None:
    """Forget a kept seal; with `tidy`, also the private folder `keep` made for it, if that
    leaves it empty (a refused packet changes nothing in the folder)."""
    target = path(folder, seq, side)
    try:
        os.unlink(target)
        if tidy:
            os.rmdir(target.parent)
    except OSError:
        pass


def kept_sides(folder: Any) -> set[str]:
    """The sides whose sealed orders the folder's private/ keeps (seal-SEQ-SIDE.yaml)."""
    where = Path(folder.path) / PRIVATE
    return {p.name.split("-", 2)[2].removesuffix(".yaml") for p in where.glob("seal-*-*.yaml")} if where.is_dir() else set()


def unopenable(folder: Any, side: str) -> list[str]:
    """The files of private/ that hold `side`'s items still sealed and are not there, or hold
    them otherwise than sealed (damaged, or edited since), each said in a sentence (a players'
    probe: with private/ lost, `pbem orders` and `pbem status` still said `pbem submit` would
    open them, and it failed only when one was due; a cheater's probe: a file edited by hand
    made the owner's views leave the item out, unsaid, and a kkoh test die sealed with it can
    only be read with its salt)."""
    return _kept(folder, side)[1]


def own_items(folder: Any, side: str, state: dict | None = None) -> dict[str, dict]:
    """`side`'s items still sealed (in `state`, the folder's latest if not given), by name
    ("SEQ.N"), each {"item", "salt"} (the salt reads the dice sealed with the item, §8) as the
    folder's private/ keeps them: what the sealer wrote, for the sealer's own eyes (a new
    user's probe: a player could read her own chits only by opening private/ by hand). Only
    items that are what was sealed, by their salt and the seal's hash: one whose file is gone,
    damaged or edited since (`unopenable` says so) is left out, never said as sealed (a
    cheater's probe: an edited file made `pbem show` tell a referee of a chit never sealed,
    and a malformed one stopped it)."""
    return _kept(folder, side, state)[0]


def _kept(folder: Any, side: str, state: dict | None = None) -> tuple[dict[str, dict], list[str]]:
    """`own_items` and `unopenable`, in one pass that reads each file of private/ once."""
    from pbem.core.engine import as_sealed

    items: dict[int, list[dict]] = {}
    for item in (state or folder.state)["sealed"].get(side, {}).get("items", []):
        items.setdefault(int(item["id"].split(".")[0]), []).append(item)
    good: dict[str, dict] = {}
    problems = []
    for seq in sorted(items):
        source = path(folder, seq, side)
        where = f"{folder.relative(source)}, where pbem kept the orders {side} sealed in packet {seq},"
        if not source.is_file():
            problems.append(f"{where} is missing: `pbem submit` cannot open them when the rules reveal them, and the "
                            f"game stops there; copy it back from the folder where you sealed them, or from a backup")
            continue
        bad = []
        try:
            kept = load_mapping(source, folder.relative(source))
        except PbemError:
            kept = None
        for item in items[seq]:
            entry = _entry(kept, int(item["id"].split(".")[1]))
            if entry is not None and as_sealed(folder.game.game_id, seq, side, entry, item["hash"]):
                good[item["id"]] = entry
            else:
                bad.append(item["id"])
        if bad:
            them = "it" if len(bad) == 1 else "them"
            problems.append(f"{where} no longer holds {'item' if len(bad) == 1 else 'items'} {', '.join(bad)} as "
                            f"sealed (the file was damaged or changed since `pbem submit --seal` wrote it): `pbem "
                            f"submit` cannot open {them} when the rules reveal {them}, and the game stops there; "
                            f"restore the file from a copy")
    return good, problems


def _entry(kept: Any, n: int) -> dict | None:
    """Item `n` (from 1) of a kept file's document, with its salt; None where the file, damaged
    or edited past reading, holds none."""
    try:
        return {"salt": kept["salts"][n - 1], "item": kept["items"][n - 1]}
    except (KeyError, IndexError, TypeError):
        return None


def opening(folder: Any, side: str, due: list[str]) -> list[dict]:
    """The `opens` of the sealer's packet: the items due ("SEQ.N"), in order, each named,
    from what it kept."""
    kept: dict[int, dict] = {}
    entries = []
    for name in due:
        seq, n = (int(part) for part in name.split("."))
        if seq not in kept:
            source = path(folder, seq, side)
            if not source.is_file():
                raise FileError(f"{side} must open item {name}, sealed in packet {seq}, now, but {source} (where pbem "
                                f"kept it) is missing: copy it back from the folder where you sealed it, or from a "
                                f"backup; without it the item cannot be opened, and the game cannot go on")
            kept[seq] = load_mapping(source, str(source))
        entry = _entry(kept[seq], n)
        if entry is None:   # (a probe: a line of the file lost ended `pbem submit` in a KeyError)
            raise VerificationError(f"{folder.relative(path(folder, seq, side))}: item {n}, which {side} sealed in "
                                    f"packet {seq}, cannot be read from it: the file was damaged or changed since "
                                    f"`pbem submit --seal` wrote it; restore the file from a copy")
        entries.append({"seal": name, **entry})
    _unchanged(folder, side, entries)
    return entries


def _unchanged(folder: Any, side: str, entries: list[dict]) -> None:
    """Each item kept in private/ is the one sealed: a file edited since (a mind changed) is
    named with the item, rather than leaving the opponent's check to refuse the packet."""
    from pbem.core.engine import as_sealed, order_text

    sealed = {item["id"]: item["hash"] for item in folder.state["sealed"].get(side, {}).get("items", [])}
    for entry in entries:
        seq, n = (int(part) for part in entry["seal"].split("."))
        if entry["seal"] in sealed and not as_sealed(folder.game.game_id, seq, side, entry, sealed[entry["seal"]]):
            raise VerificationError(
                f"{folder.relative(path(folder, seq, side))}: item {n} ({order_text(entry['item'])}) is not what "
                f"{side} sealed in packet {seq}: the file was changed since `pbem submit --seal` wrote it, and a sealed "
                f"order cannot be changed (docs/protocol.md §8); restore the file from a copy")


def forget_opened(folder: Any, side: str, opened: list[str], state: dict) -> None:
    """Forget a kept seal once every item of it is open (public now)."""
    left = {item["id"].split(".")[0] for item in state["sealed"].get(side, {}).get("items", [])}
    for seq in sorted({name.split(".")[0] for name in opened}):
        if seq not in left:
            forget(folder, int(seq), side)
