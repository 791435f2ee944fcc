from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.common import echo, echo_json, game_dir, handles_errors


@click.command("status")
@game_dir
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@handles_errors
def command(game_dir: str, as_json: bool) -> None:
    """Turn, phase, who is awaited and for what, the last packet of each side, VP."""
    from pbem.core import game
    from pbem.core.report import need_text

    folder = game.open_folder(Path(game_dir))
    state, ruleset = folder.state, folder.game.ruleset
    info = {
        "game": folder.game.game_id, "ruleset": ruleset.id, "mode": state["mode"], "seq": state["seq"],
        "summary": folder.game.summary(state["rules"]), "awaiting": state["awaiting"], "last_packet": state["last_packet"],
        "queued_orders": len(state["queue"]),
    }
    if as_json:
        echo_json(info)
        return
    summary = info["summary"]
    echo(f"game {info['game']} - {ruleset.title} ({info['mode']}), state {state['seq']}")
    echo("  " + "; ".join(f"{k} {_text(v)}" for k, v in sorted(summary.items()) if v is not None and k != "result"))
    if summary.get("result"):
        echo(f"  result: {summary['result']}")
    awaiting = state["awaiting"]
    if awaiting["need"] is None:
        echo("  the game is over")
    else:
        need = awaiting["need"]
        since = state["last_packet"].get(_other(folder, awaiting["packet_from"]), {})
        echo(f"  awaiting: a packet from {awaiting['packet_from']}"
                   + (f" (since packet {since['seq']}, sent {since.get('sent') or 'at an unknown time'})" if since else ""))
        echo(f"  the game waits for {awaiting['waiting_for']}: {need_text(need)}")
    for side in folder.game.sides:
        last = state["last_packet"].get(side)
        echo(f"  last packet from {side}: " + (f"{last['seq']} (sent {last.get('sent') or '?'})" if last else "none yet"))
    if info["queued_orders"]:
        echo(f"  {info['queued_orders']} order(s) queued, to be resolved with the next dice")


def _text(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_text(v)}" for k, v in sorted(value.items()))
    return str(value)


def _other(folder, side: str | None) -> str | None:
    sides = folder.game.sides
    return None if side is None else sides[(sides.index(side) + 1) % len(sides)]
