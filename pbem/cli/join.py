from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import PASSPHRASE_HELP, echo, handles_errors, load_key


@click.command("join", epilog=PASSPHRASE_HELP)
@click.argument("game_dir", type=click.Path(file_okay=False))
@click.argument("document", type=click.Path(dir_okay=False))
@click.option("--key", "key_file", type=click.Path(dir_okay=False), help="Your private key (to join, or to complete).")
@click.option("--chain-length", default=4096, show_default=True, type=click.IntRange(64, 2**20),
              help="Your dice chain's length when you join: pbem announces the next one before it runs out.")
@handles_errors
def command(game_dir: str, document: str, key_file: str | None, chain_length: int) -> None:
    """The next step of a secure game's handshake (docs/protocol.md §4), for DOCUMENT:

    a proposal you received: check it, add your dice chain, sign; writes GAME_DIR/join.yaml
    to send back. The join of your own proposal: check it and sign the complete genesis;
    writes GAME_DIR/game.yaml, the game. A complete game.yaml, secure or sandbox: check
    every signature and make GAME_DIR its folder (the joiner's last step; a referee's or
    spectator's first, who then adjudicates the packets into it)."""
    from pbem.core import describe, game
    from pbem.core.canonical import load_mapping
    from pbem.core.text import shown

    source = shown(document)   # a file name that came by mail prints no line of its own
    doc = load_mapping(Path(document), source)
    key = load_key(key_file) if key_file else None
    done = game.join(Path(game_dir), doc, source, key, chain_length=chain_length)
    terms = "\n".join(f"  {line}" for line in describe.terms(done.document))
    if done.step == "joined":
        echo(f"wrote {done.path}: you joined as {_side(doc, key)}. The game you agree to by sending it:\n{terms}\n"
             f"Send it back to {doc['proposer']}, who completes the game with `pbem join THEIR_FOLDER join.yaml "
             f"--key THEIR_KEY` and sends you game.yaml; if you do not agree, do not send it.")
        return
    game_id = done.folder.game.game_id
    if done.step == "completed":
        echo(f"game {game_id} is complete in {game_dir}:\n{terms}\nSend {done.path} to your opponent, who runs "
             f"`pbem join THEIR_FOLDER game.yaml`")
    else:
        checked = ("a sandbox game, with no keys or chains to check" if not done.folder.game.secure
                   else "every key, chain and signature of its genesis checked")
        echo(f"game {game_id} is ready in {game_dir}: {checked}.\n{terms}")
    hint = _next_packet(game_dir, done.folder, key, key_file)
    if hint:
        echo(hint)


def _next_packet(game_dir: str, folder, key, key_file: str | None) -> str | None:
    """After the joiner's last step, or a referee's or spectator's first: who sends the next
    packet and what the one running the command does next. A player (by the key, else by the
    handshake file in his folder: the joiner's last step takes no key) is told about his own
    side, his opponent's only as what his opponent does (players' probe: the red player was
    given the blue player's command)."""
    awaiting = folder.state["awaiting"]
    if not awaiting["packet_from"]:
        return None
    sender, seq = awaiting["packet_from"], folder.state["seq"]
    which = "first packet" if seq == 0 else f"next packet ({seq + 1})"   # a folder already in play
    you = (None if not folder.game.secure else _side(folder.game.genesis, key) if key is not None
           else _own_side(Path(game_dir), folder.game.genesis))
    yours = f"`pbem orders {game_dir} --key {key_file or 'YOUR_KEY'}`"   # the key tells the side (probe)
    if you is not None and you != sender:   # the opponent's packet comes first (players' probe)
        return (f"{which}: from {sender}, your opponent; you play {you}: `pbem adjudicate {game_dir} PACKET` for "
                f"each packet {sender} sends, then {yours} for yours")
    if you is not None:
        return f"{which}: from you ({you}): {yours}"
    # a sandbox game has no keys: its orders template needs the side (a review: --key KEY failed there)
    theirs = "--key KEY" if folder.game.secure else f"--side {sender}"
    return (f"{which}: from {sender} (the player of {sender}: `pbem orders {game_dir} {theirs}`; anyone "
            f"following the game: `pbem adjudicate {game_dir} PACKET` for each packet, in order)")


def _own_side(folder: Path, genesis: dict) -> str | None:
    """The side this folder's handshake file says its holder plays: the joiner, who alone signed
    join.yaml, or the proposer of proposal.yaml (None: neither is there, or it is of another
    proposal than the game's)."""
    from pbem.core import game
    from pbem.core.canonical import load_mapping

    for name in (game.PROPOSAL, game.JOIN):   # the proposer may keep the join it received too (a review)
        if (folder / name).is_file():
            doc = load_mapping(folder / name, name)
            if doc.get("proposal_signature") != genesis.get("proposal_signature"):
                return None
            if name == game.PROPOSAL:
                return doc.get("proposer")
            signed = list(doc.get("signatures") or {})
            return signed[0] if len(signed) == 1 else None
    return None


def _side(doc: dict, key) -> str | None:
    fingerprint = key.public.fingerprint()
    return next((s["name"] for s in doc["sides"] if s.get("fingerprint") == fingerprint), None)
