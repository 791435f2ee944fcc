from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import handles_errors


@click.command("new")
@click.argument("game_dir", type=click.Path(file_okay=False))
@click.option("--ruleset", "ruleset_id", required=True, help="Ruleset id (stalingrad, ...).")
@click.option("--scenario", default=None, help="A bundled scenario name, or a path to a scenario YAML to embed.")
@click.option("--side", "sides", multiple=True, metavar="SIDE=PUBKEY_FILE",
              help="Each side and its player's public key file (SIDE alone in a sandbox game).")
@click.option("--option", "options", multiple=True, metavar="K=V", help="An optional rule (integers and true/false are parsed).")
@click.option("--sandbox", is_flag=True, help="Unsigned packets and dice from a script or seed: teaching, solo play, tests.")
@click.option("--dice", default=None, help="Sandbox: scripted dice, e.g. 3,5,1 (used in order).")
@click.option("--seed", default=None, help="Sandbox: a plain seed for the dice.")
@click.option("--chain-length", default=1024, show_default=True, type=click.IntRange(1, 1_000_000),
              help="Dice chain values per side: the most packets a side can send.")
@click.option("--created", default=None, help="Creation time recorded in game.yaml (default: now, UTC).")
@handles_errors
def command(game_dir: str, ruleset_id: str, scenario: str | None, sides: tuple, options: tuple, sandbox: bool,
            dice: str | None, seed: str | None, chain_length: int, created: str | None) -> None:
    """Create a game folder: game.yaml (the genesis) and states/0000.yaml (the set-up)."""
    from pbem.core import game, keys
    from pbem.core.canonical import load_mapping, loads
    from pbem.core.errors import UsageError

    from pbem import rulesets

    rulesets.get(ruleset_id)
    if (dice or seed) and not sandbox:
        raise UsageError("--dice and --seed belong to sandbox games; add --sandbox")
    if dice and seed:
        raise UsageError("give --dice or --seed, not both")
    side_keys = {}
    for entry in sides:
        name, _, path = entry.partition("=")
        if not path and not sandbox:
            raise UsageError(f"--side {entry}: give SIDE=PUBKEY_FILE (a key is needed in a secure game)")
        side_keys[name] = keys.load_public_key_file(path) if path else None
    parsed = {}
    for entry in options:
        key, sep, value = entry.partition("=")
        if not sep:
            raise UsageError(f"--option {entry}: give K=V")
        parsed[key] = loads(value, f"--option {key}") if value else ""
    sandbox_doc = None
    if sandbox:
        if dice:
            try:
                script = [int(v) for v in dice.replace(" ", "").split(",") if v]
            except ValueError:
                raise UsageError(f"--dice {dice}: give dice as integers 1 to 6 separated by commas") from None
            if any(not 1 <= v <= 6 for v in script):
                raise UsageError(f"--dice {dice}: every die must be 1 to 6")
            sandbox_doc = {"dice": script}
        else:
            sandbox_doc = {"seed": seed or ""}
    scenario_doc = None
    if scenario and (scenario.endswith((".yaml", ".yml")) or "/" in scenario):
        scenario_doc = load_mapping(Path(scenario))
        scenario = None
    genesis = game.make_genesis(ruleset_id, side_keys, scenario=scenario, scenario_doc=scenario_doc, options=parsed,
                                sandbox=sandbox_doc, created=created if created is not None else _now(),
                                chain_length=chain_length)
    folder = game.create(Path(game_dir), genesis)
    click.echo(f"created game {folder.game.game_id} in {game_dir} ({folder.game.ruleset.title}, {genesis['mode']})")
    awaiting = folder.state["awaiting"]
    if awaiting["packet_from"]:
        click.echo(f"first packet: from {awaiting['packet_from']} (`pbem orders {game_dir} --side {awaiting['packet_from']}`)")


def _now() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
