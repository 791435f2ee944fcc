"""The bodies of `pbem adjudicate` and `pbem audit`, the commands a game runs every round,
and of `pbem status` and `pbem show`, which players and onlookers run between rounds, as plain
functions. Their click commands (adjudicate.py, audit.py, status.py, show.py) call them; so does
`pbem.entry` for their plain command lines (positional arguments only), without
importing click, which costs about as much again as a bare interpreter's start."""

from __future__ import annotations

import sys
from pathlib import Path

from pbem.cli.common import echo, echo_json, handles_errors, load_key, warn_missing_seals

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@handles_errors
def adjudicate(game_dir: str, *packet_files: str, key_file: str | None = None, fmt: str = "text") -> None:
    """Several packets are applied in the order of their seq (each says its own number, so
    attachments saved under any names, `thread/*.yaml`, come in order), each printing its
    report; a packet the folder has applied already is skipped with a line, so that a player
    or an onlooker can give every packet of a thread or of another folder (`packets/*.yaml`)
    and have the new ones applied. Every file is read before any is applied; the first that
    fails to apply stops the command, with those before it applied and said so."""
    from pbem.core import game, report
    from pbem.core.errors import PbemError
    from pbem.core.text import shown

    folder = game.open_folder(Path(game_dir))
    key = load_key(key_file) if key_file else None
    if key is not None and folder.game.secure:
        game.side_of_key(folder.game, key)   # a key of no side: refused before any packet is applied
    given = []
    for packet_file in packet_files:
        if len(packet_files) > 1 and game.fork_evidence(Path(packet_file)):
            # NNNN-side.alt.yaml in a game folder's packets/: a second packet kept beside the one the
            # game went on from, which `packets/*.yaml` lists too (and before it): evidence for `pbem
            # audit`, never applied. A file from elsewhere is read as a packet, whatever its name.
            echo(f"{shown(packet_file)}: fork evidence (a second packet of one seq), not a packet to apply; skipped.")
            continue
        packet, data = game.read_packet(Path(packet_file), packet_file, given="adjudicate")
        given.append((packet_file, packet, data))
    given.sort(key=lambda entry: entry[1]["seq"])     # stable: packets of one seq stay as given
    done, applied, last_applied = 0, None, False
    for number, (packet_file, packet, data) in enumerate(given, start=1):
        try:
            if len(given) > 1 and game.applied_already(folder, packet):
                # a thread's packets given again (attacks.md #1: one packet applied twice alone is refused)
                echo(f"{shown(packet_file)}: packet {packet['seq']} was applied already; skipped.")
                continue
            applied = game.adjudicate(folder, packet, data, packet_file,
                                      preview_key=key if number == len(given) else None)
            last_applied = number == len(given)
        except PbemError as exc:
            if done:
                exc.message += (f" (the {done} packet{'s' if done != 1 else ''} before it in seq order "
                                f"{'were' if done != 1 else 'was'} applied)")
            raise
        done += 1
        echo(("\n" if done > 1 else "") + report.render(folder.game, applied.state, applied.events, fmt), nl=False)
    if key is not None and folder.game.secure and not last_applied:
        echo("\nPREVIEW: none: the last packet given was skipped, not applied now (`pbem status --key` says what "
             "your next packet's reveal brings).")
        return
    if applied is None:
        return
    if applied.preview is not None and len(applied.preview) > 1:
        echo("\nPREVIEW (not written): what your next packet's reveal unlocks, whatever your packet says "
             "(docs/protocol.md §7, the resolution rule):")
        for line in preview_lines(applied.preview):
            echo(line)
    elif applied.preview is not None:
        echo("\nPREVIEW (not written): your next packet's reveal unlocks nothing: no queued order or step waits for "
             "its dice (docs/protocol.md §7, the resolution rule).")


def preview_lines(preview: list[dict]) -> list[str]:
    """The preview's events after its first, one line each, draws in a row (and a sealed plan's
    padding) on one line as the reports have them (players' probe: 48 lines of draws)."""
    from pbem.core import report
    from pbem.core.text import shown

    return [f"  - {shown(event['text'])}" for event in report.together(preview[1:])]


@handles_errors
def audit(game_dir: str, as_json: bool = False) -> None:
    from pbem.core.audit import audit
    from pbem.core.game import check_game_folder

    check_game_folder(Path(game_dir))
    result = audit(Path(game_dir))
    if as_json:
        echo_json(result.as_dict())
    elif result.ok:
        def counted(n: int, noun: str) -> str:
            return f"{n} {noun}" + ("" if n == 1 else "s")

        record = (f", {counted(result.states, 'state')} and their reports verified" if result.record else
                  " verified; the folder holds the genesis and packets only, so every state was recomputed from them "
                  "and there was no stored state or report to compare")
        mode = ("sandbox game" if result.mode == "sandbox" else "secure game")
        echo(f"audit OK: {mode} {result.game}, {counted(result.packets, 'packet')}, "
             f"{counted(result.signatures, 'signature')}, {counted(result.reveals, 'reveal')}, "
             f"{counted(result.rolls, 'dice roll')}{record}; final state {result.final_state}"
             + (f"; result: {result.result.rstrip('.')}" if result.result else "") + ".")
        echo(" ".join(result.terms))
        if result.scenario and result.scenario.get("differences"):
            # the rules followed are those of the scenario game.yaml holds, which a referee reads
            echo(f"The rules followed are those of the scenario in game.yaml. {result.scenario['text']}")
        if result.awaited:
            echo(f"The game is not over at its final state. {result.awaited}")
        if result.mode == "sandbox":
            echo("A sandbox game: its packets are unsigned and its dice come from the script or seed in game.yaml, so "
                 "this shows the rules were followed, not who sent the packets nor that the dice were fair.")
        else:
            keys = ", ".join(f"{side} {fingerprint}" for side, fingerprint in result.keys.items())
            echo(f"A secure game: every packet was signed by its side's key ({keys}: check them against the "
                 f"players'), and every die came from dice chains each side committed to before any value they "
                 f"open was revealed; so this shows that each packet came from the holder of its side's key, that "
                 f"no side could choose a die nor act on one it could foresee, and that the rules were followed.")
    else:
        echo(f"pbem: audit failed: {result.divergence.sentence()}", err=True)
    if not result.ok:
        sys.exit(3)


@handles_errors
def status(game_dir: str, key_file: str | None = None, as_json: bool = False) -> None:
    from pbem.core import describe, game

    folder = game.open_folder(Path(game_dir))
    key = _public_or_private_key(key_file) if key_file else None
    you = game.side_of_key(folder.game, key) if key is not None else None
    # a private key also tells what its holder's next reveal brings (a public one cannot)
    info = describe.status(folder, you, key=None if key is None or isinstance(key, _Public) else key)
    if as_json:
        echo_json(info)
    else:
        echo("\n".join(info["text"]))
    if you is not None and folder.game.secure and not isinstance(key, _Public):   # a private key: the player's own folder
        warn_missing_seals(folder, you)


@handles_errors
def show(game_dir: str, fmt: str = "text", as_json: bool = False, seq: int | None = None, unit: str | None = None,
         hex_: str | None = None, area: str | None = None, square: str | None = None,
         diff: tuple[int, int] | None = None, last: bool = False) -> None:
    from pbem.core import describe, game, sealing
    from pbem.core.errors import UsageError

    asked = [(what, ident) for what, ident in (("unit", unit), ("hex", hex_), ("area", area), ("square", square))
             if ident is not None]
    if len(asked) + bool(diff) + last > 1:
        raise UsageError("show one thing at a time: --unit, --hex, --area, --square, --diff or --last")
    if (diff or last) and seq is not None:
        raise UsageError(f"{'--diff names its two states' if diff else '--last shows the latest two states'}; leave "
                         f"out --state")
    folder = game.open_folder(Path(game_dir))
    as_json = as_json or fmt == "json"
    if last:   # what the last packet changed (a players' probe: "what happened last?" took two numbers)
        latest = folder.state["seq"]
        if latest == 0:
            raise UsageError(f"{game_dir}: no packet has been applied yet: state 0 is the set-up")
        diff = (latest - 1, latest)
    if diff:
        before, after = (describe.state_at(folder, n) for n in diff)
        steps = describe.states_between(folder, *diff)   # where units went on the way, and how
        if as_json:
            echo_json({"from": before["seq"], "to": after["seq"],
                       "changes": describe.changes(folder.game, before, after, steps)})
        else:
            echo("\n".join(describe.changes_text(folder.game, before, after, steps)))
        return
    state = describe.state_at(folder, seq)
    if asked:
        (what, ident), = asked
        # the player's own folder: what his side sealed, kept in private/, is said to him (a
        # players' probe: a unit whose chit was sealed anew was given the chit it had before)
        own = {side: items for side in sorted(sealing.kept_sides(folder)) if side in folder.game.sides
               for items in [sealing.own_items(folder, side, state)] if items}
        lines = describe.look(folder.game, state["rules"], what, ident, own)
        if as_json:
            echo_json({"seq": state["seq"], what: ident, "text": lines})
        else:
            echo("\n".join(lines))
    elif as_json:
        board = folder.game.view(state["rules"])
        echo_json({"seq": state["seq"], "summary": folder.game.summary(state["rules"]), "rules": state["rules"],
                   **({"board": board} if board is not None else {})})
    else:
        if not folder.game.secure:   # as its states, reports and pictures say
            from pbem.core.report import SANDBOX

            echo(SANDBOX)
        echo(folder.game.render(state["rules"]), nl=False)


def _public_or_private_key(path: str) -> Any:
    """A public key file is enough to say which side is you; a private one works too."""
    from pbem.core import keys
    from pbem.core.errors import FileError

    try:
        head = Path(path).read_bytes()[:64]
    except OSError as exc:
        raise FileError(f"{path}: cannot read the key file ({exc.strerror})") from None
    if head.startswith(b"ssh-"):
        return _Public(keys.load_public_key_file(path), path)
    if not head.startswith(b"-----BEGIN "):
        raise FileError(f"{path}: neither an OpenSSH public key (ssh-ed25519 ...) nor a private key file; --key takes "
                        f"either, to say which side is yours")
    return load_key(path)


class _Public:
    """A public key where the core asks for a key's `public` half, with its file's name, as a
    private key has it, for the refusal of a key of no side to name the file."""

    def __init__(self, public, path: str):
        self.public = public
        self.path = path
