from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import PASSPHRASE_HELP, dice_script, echo, handles_errors, load_key


@click.command("new", epilog=PASSPHRASE_HELP)
@click.argument("game_dir", type=click.Path(file_okay=False))
@click.option("--ruleset", "ruleset_id", required=True, help="Ruleset id (chir, stalingrad, ...).")
@click.option("--scenario", default=None, help="A bundled scenario name, or a path to a scenario YAML to embed.")
@click.option("--side", "sides", multiple=True, metavar="SIDE=PUBKEY_FILE",
              help="Each side and its player's public key file (SIDE alone in a sandbox game).")
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="Secure games: your private key; you propose the game and play the side of its public key.")
@click.option("--option", "options", multiple=True, metavar="K=V", help="An optional rule (integers and true/false are parsed).")
@click.option("--sandbox", is_flag=True, help="Unsigned packets and dice from a script or seed: teaching, solo play, tests.")
@click.option("--dice", default=None, help="Sandbox: scripted dice, e.g. 3,5,1 (used in order).")
@click.option("--seed", default=None, help="Sandbox: a plain seed for the dice.")
@click.option("--chain-length", default=4096, show_default=True, type=click.IntRange(64, 2**20),
              help="Your dice chain's length: pbem announces the next one before it runs out.")
@click.option("--created", default=None, help="Creation time recorded in the genesis (default: now, UTC).")
@handles_errors
def command(game_dir: str, ruleset_id: str, scenario: str | None, sides: tuple, key_file: str | None, options: tuple,
            sandbox: bool, dice: str | None, seed: str | None, chain_length: int, created: str | None) -> None:
    """Propose a secure game (writes GAME_DIR/proposal.yaml, signed, to send to your
    opponent, who runs `pbem join`), or create a sandbox game folder at once."""
    from pbem import rulesets
    from pbem.core import game, genesis, keys
    from pbem.core.canonical import load_mapping, loads
    from pbem.core.errors import UsageError
    from pbem.core.text import shown

    ruleset = rulesets.get(ruleset_id)
    if (dice or seed) and not sandbox:
        raise UsageError("--dice and --seed belong to sandbox games; add --sandbox")
    if dice and seed:
        raise UsageError("give --dice or --seed, not both")
    if sandbox and key_file:
        raise UsageError("a sandbox game is not signed: leave out --key")
    if not sandbox and not key_file:
        raise UsageError("a secure game is proposed with your key: add --key YOUR_PRIVATE_KEY (or --sandbox)")
    side_keys = {}
    for entry in sides:
        name, _, path = entry.partition("=")
        if not path and not sandbox:
            raise UsageError(f"--side {entry}: give SIDE=PUBKEY_FILE (a key is needed in a secure game)")
        if path and sandbox:
            raise UsageError(f"--side {entry}: a sandbox game's sides take no key (it is not signed): "
                             f"give --side {name}")
        side_keys[name] = keys.load_public_key_file(path) if path else None
        if path:   # the file named first, as every refusal of a file given (the option alone said less)
            genesis.check_key_line(side_keys[name], f"{shown(path)} (--side {name})")
    parsed = {}
    for entry in options:
        name, sep, value = entry.partition("=")
        if not sep:
            raise UsageError(f"--option {entry}: give K=V")
        parsed[name] = loads(value, f"--option {name}") if value else ""
    wrong = game.option_error(ruleset, parsed)
    if wrong:   # the command line's mistake (2); a proposal received with it is refused as a rules error (1)
        raise UsageError(f"--option: {wrong}")
    fields = {"options": parsed, "created": created if created is not None else _now()}
    if scenario and (scenario.endswith((".yaml", ".yml")) or "/" in scenario):
        fields["scenario_doc"] = load_mapping(Path(scenario))
    else:
        fields["scenario"] = scenario
    if sandbox:
        document = genesis.sandbox(ruleset, _dice_source(dice, seed), **fields)
        genesis.sides_entries(ruleset, side_keys)
        # a refusal of the scenario names the user's file, not the game.yaml never written
        source = shown(scenario) if "scenario_doc" in fields else game.GENESIS
        folder = game.create(Path(game_dir), document, source=source)
        echo(f"created sandbox game {folder.game.game_id} in {game_dir} ({ruleset.title})")
        awaiting = folder.state["awaiting"]
        # players' probe: "from soviet", and then a packet from axis was taken, as a sandbox game takes any
        echo(f"first packet: from {awaiting['packet_from']}, whom the rules ask first "
             f"({awaiting['need']['prompt'].rstrip('.')}); a sandbox game takes packets from any side "
             f"(`pbem submit {game_dir} FILE --side SIDE`), and another side's orders wait in the queue until "
             f"the game reaches them")
        return
    key = load_key(key_file)
    proposal = genesis.propose(ruleset, side_keys, key, chain_length=chain_length, **fields)
    path = game.write_proposal(Path(game_dir), proposal)
    other = [s["name"] for s in proposal["sides"] if s["name"] != proposal["proposer"]]
    echo(f"wrote {path}: a signed proposal of a {ruleset.title} game, you playing {proposal['proposer']}")
    echo(f"send it to {', '.join(other)}, who runs `pbem join THEIR_FOLDER proposal.yaml --key THEIR_KEY` and "
         f"sends back join.yaml; then run `pbem join {game_dir} join.yaml --key {key_file}`")


def _dice_source(dice: str | None, seed: str | None) -> dict:
    return {"dice": dice_script(dice)} if dice is not None else {"seed": seed or ""}


def _now() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
