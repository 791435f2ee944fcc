"""Measure pbem as a user feels it; prints figures, asserts nothing (DESIGN §7).

    python benchmarks/run.py [--ruleset stalingrad] [--repeat 5]

- `pbem --version` wall time next to `python -c pass` (start-up cost of the CLI);
- one `pbem adjudicate` wall time (a packet that resolves dice, as a user runs it);
- audit throughput in packets per second over a whole random game;
- chir: one `pbem adjudicate` of a busy player-turn (at least 20 moves and 8 attacks), a
  whole Soviet player-turn in one packet of a seeded sandbox game.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def wall(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pbem_exe() -> list[str]:
    exe = shutil.which("pbem") or str(Path(sys.executable).parent / "pbem")
    return [exe] if Path(exe).exists() else [sys.executable, "-m", "pbem"]


def play_game(directory: Path, ruleset_id: str) -> "object":
    from pbem.core import bot
    from tests.support.games import Match

    match = Match(directory, ruleset_id, chain_length=4000, key_seed="bench")
    choose = bot.chooser("bench")
    while match.state()["awaiting"]["packet_from"] is not None:
        sender = match.state()["awaiting"]["packet_from"]
        match.send(sender, bot.plan(match.game, match.state(sender), sender, choose))
    return match


def busy_turn(directory: Path, exe: list[str], repeat: int) -> None:
    """A Soviet player-turn of chir with as many attacks and moves as the engine allows,
    planned with the game's own (seeded) dice so that every order is consumed."""
    import collections

    from pbem import rulesets
    from pbem.core import bot, engine, game, genesis

    ruleset = rulesets.get("chir")
    folder = game.create(directory / "busy", genesis.sandbox(ruleset, {"seed": "busy"}, created="bench"))
    first = game.build_packet(folder.game, folder.state, "german", [], None, None, "")
    game.adjudicate(folder, first, game.packet_yaml(first).encode(), "set-up")
    rank = {"attack": 0, "move": 1, "enter": 1, "end": 3}
    count = [0]

    def choose(options: list[dict]) -> dict:
        count[0] += 1
        best = min(rank.get(o["type"], 2) for o in options)
        pool = [o for o in options if rank.get(o["type"], 2) == best]
        return pool[(count[0] * 7919) % len(pool)]

    seeded = engine._Dice(folder.game, folder.state, folder.state["seq"] + 1, None, None)
    orders = bot.plan(folder.game, folder.state, "soviet", choose, roll=lambda label: seeded.roll(label)["value"])
    packet = game.build_packet(folder.game, folder.state, "soviet", orders, None, None, "")
    path = directory / "busy-packet.yaml"
    path.write_text(game.packet_yaml(packet))
    kinds = collections.Counter(o["type"] for o in orders)
    times = []
    for _ in range(repeat):
        copy = directory / "busy-copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(folder.path, copy)
        start = time.perf_counter()
        subprocess.run(exe + ["adjudicate", str(copy), str(path)], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    rolls = (copy / "aar" / "0002.md").read_text().count("Die: ")
    print(f"chir busy player-turn   {statistics.median(times) * 1000:8.1f} ms  ({kinds['move']} moves, "
          f"{kinds['attack']} attacks, {len(orders)} orders, {rolls} dice; wall, CLI)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="stalingrad")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    exe = pbem_exe()

    python = wall([sys.executable, "-c", "pass"], args.repeat)
    version = wall(exe + ["--version"], args.repeat)
    help_ = wall(exe + ["--help"], args.repeat)
    print(f"python -c pass          {python * 1000:8.1f} ms")
    print(f"pbem --version          {version * 1000:8.1f} ms")
    print(f"pbem --help             {help_ * 1000:8.1f} ms")

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        start = time.perf_counter()
        match = play_game(tmp_path / "game", args.ruleset)
        played = time.perf_counter() - start
        first = match.folders[match.ruleset.sides[0]].path
        packets = match.state()["seq"]
        print(f"random {args.ruleset} game    {packets:8d} packets, played (both folders) in {played:.2f} s")

        # One `pbem adjudicate` as a user runs it: the packet with the most dice, applied to
        # a copy of the folder as it stood before that packet.
        from pbem.core import game as games

        best = max(range(1, packets + 1), key=lambda k: (Path(first / "aar" / f"{k:04d}.md").read_text().count("Die: "), -k))
        times = []
        for _ in range(args.repeat):
            copy = tmp_path / "copy"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(first, copy)
            for sub in ("states", "aar", "packets"):
                for path in (copy / sub).iterdir():
                    if int(path.name[:4]) >= best:
                        path.unlink()
            packet = next((first / "packets").glob(f"{best:04d}-*.yaml"))
            start = time.perf_counter()
            subprocess.run(exe + ["adjudicate", str(copy), str(packet)], check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        dice = Path(first / "aar" / f"{best:04d}.md").read_text().count("Die: ")
        print(f"pbem adjudicate         {statistics.median(times) * 1000:8.1f} ms  (packet {best}, {dice} dice, wall, CLI)")

        from pbem.core.audit import audit

        start = time.perf_counter()
        result = audit(first)
        elapsed = time.perf_counter() - start
        assert result.ok, result.divergence.sentence()
        print(f"audit throughput        {packets / elapsed:8.1f} packets/s  ({packets} packets in {elapsed:.2f} s, in process)")
        start = time.perf_counter()
        subprocess.run(exe + ["audit", str(first)], check=True, capture_output=True)
        print(f"pbem audit (CLI)        {(time.perf_counter() - start):8.2f} s")
        if "chir" in rulesets_known():
            busy_turn(tmp_path, exe, args.repeat)


def rulesets_known() -> list[str]:
    from pbem import rulesets

    return rulesets.ids()


if __name__ == "__main__":
    main()
