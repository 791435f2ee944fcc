"""Measure pbem as a user feels it: every figure a ratio to `python -c pass`, timed side by
side in one run (A B A B ..., the ratio taken pair by pair), so that a busy or slow
machine changes the figures little. Prints figures, asserts nothing about speed
(DESIGN §7), but fails loudly when an input it needs is not what it claims to be (a
"busy" turn with few orders, a game that did not end).

    python benchmarks/run.py [--repeat 7] [--only help,adjudicate,audit,size]

Measure an installed pbem, as a user has it (bytecode compiled at install):

    python3 -m venv /tmp/pbem-bench && /tmp/pbem-bench/bin/pip install -q . \\
        && /tmp/pbem-bench/bin/python benchmarks/run.py

(An editable install in an environment that sets PYTHONDONTWRITEBYTECODE compiles pbem
anew on every command, which is not what a user's commands cost.) The figures:

- `pbem --help` and `pbem --version`;
- `pbem adjudicate` of a busy chir player-turn: the whole Soviet game turn 1 of a seeded
  sandbox game, every attack and move the engine allows, in one packet (at least 50
  orders, or the benchmark stops);
- `pbem audit` of a whole secure chir game and of a whole secure stalingrad game, net of
  start-up: (packets - 1) / (wall of auditing the whole folder - wall of auditing the
  same folder cut after its first packet), so interpreter, imports and scenario loading
  cancel out;
- the size of chir's state files over that 12-turn game, and of its folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MIN_BUSY_ORDERS = 50


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"benchmark input broken: {' '.join(cmd)} exited {done.returncode}: "
                         f"{done.stderr.decode(errors='replace')[:300]}")
    return elapsed


def side_by_side(a: list[str], b: list[str], repeat: int) -> tuple[float, float, float]:
    """Median wall of A, of B, and the median of the pairwise ratios A/B."""
    timed(a), timed(b)  # warm-up: file caches
    walls_a, walls_b, ratios = [], [], []
    for _ in range(repeat):
        wa, wb = timed(a), timed(b)
        walls_a.append(wa)
        walls_b.append(wb)
        ratios.append(wa / wb)
    return statistics.median(walls_a), statistics.median(walls_b), statistics.median(ratios)


def pbem_exe() -> list[str]:
    exe = Path(sys.executable).parent / "pbem"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "pbem.cli"]


def row(name: str, value: str, note: str = "") -> None:
    print(f"{name:<44} {value:>14}  {note}")


def startup(exe: list[str], repeat: int) -> None:
    python = [sys.executable, "-c", "pass"]
    for args in (["--help"], ["--version"]):
        wa, wb, ratio = side_by_side(exe + args, python, repeat)
        row(f"pbem {args[0]}", f"{ratio:.2f}x", f"({wa * 1000:.0f} ms; python -c pass {wb * 1000:.0f} ms)")


def busy_turn(directory: Path, exe: list[str], repeat: int) -> None:
    """The Soviet game turn 1 of chir in one packet: set-ups by their default placement,
    then every attack the engine allows first, moves next, planned with the game's own
    seeded dice so that every order is consumed when it is adjudicated."""
    import collections

    from pbem import rulesets
    from pbem.core import bot, engine, game, genesis

    ruleset = rulesets.get("chir")
    folder = game.create(directory / "busy", genesis.sandbox(ruleset, {"seed": "busy"}, created="bench"))
    for side in ("german", "soviet"):   # 3.2, 3.3: each side's set-up by the default placement
        packet = game.build_packet(folder.game, folder.state, side, [{"type": "end"}], None, None, "")
        game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), f"{side} set-up")
    rank = {"attack": 0, "move": 1, "enter": 1, "end": 3}
    count = [0]

    def choose(options: list[dict]) -> dict:
        count[0] += 1
        best = min(rank.get(o["type"], 2) for o in options)
        pool = [o for o in options if rank.get(o["type"], 2) == best]
        return pool[(count[0] * 7919) % len(pool)]

    seeded = engine._Dice(folder.game, folder.state, folder.state["seq"] + 1, None, None)
    orders = bot.plan(folder.game, folder.state, "soviet", choose, roll=lambda label: seeded.roll(label)["value"])
    kinds = collections.Counter(o["type"] for o in orders)
    if len(orders) < MIN_BUSY_ORDERS:
        raise SystemExit(f"benchmark input broken: the busy chir player-turn has {len(orders)} orders "
                         f"({dict(kinds)}), fewer than {MIN_BUSY_ORDERS}")
    packet = game.build_packet(folder.game, folder.state, "soviet", orders, None, None, "")
    path = directory / "busy-packet.yaml"
    path.write_text(game.packet_yaml(packet))
    copy = directory / "busy-copy"
    script = ("import shutil, subprocess, sys; shutil.rmtree(sys.argv[2], ignore_errors=True); "
              "shutil.copytree(sys.argv[1], sys.argv[2])")
    fresh = [sys.executable, "-c", script, str(folder.path), str(copy)]
    subprocess.run(fresh, check=True)
    subprocess.run(exe + ["adjudicate", str(copy), str(path)], check=True, capture_output=True)
    report = (copy / "aar" / f"{packet['seq']:04d}.md").read_text()
    consumed = report.count("soviet order ")
    if consumed < MIN_BUSY_ORDERS:
        raise SystemExit(f"benchmark input broken: only {consumed} of the busy turn's orders were consumed")
    walls, ratios, python = [], [], [sys.executable, "-c", "pass"]
    for _ in range(repeat):
        subprocess.run(fresh, check=True)
        wa = timed(exe + ["adjudicate", str(copy), str(path)])
        wb = timed(python)
        walls.append(wa)
        ratios.append(wa / wb)
    row("pbem adjudicate, busy chir player-turn", f"{statistics.median(ratios):.2f}x",
        f"({statistics.median(walls) * 1000:.0f} ms; {len(orders)} orders: {kinds['attack']} attacks, "
        f"{kinds['move'] + kinds['enter']} moves; {report.count('Die: ')} dice)")


def play(directory: Path, ruleset_id: str) -> Path:
    """A whole secure game with random legal orders, as the conformance test plays it."""
    import random

    from pbem.core import bot
    from tests.support.games import Match

    match = Match(directory, ruleset_id, chain_length=4096, key_seed="bench")
    rng = random.Random(f"bench-{ruleset_id}")

    def choose(options):
        acting = [o for o in options if o.get("type") != "end"]
        return rng.choice(acting) if acting and rng.random() < 0.8 else rng.choice(options)

    for _ in range(5000):
        sender = match.state()["awaiting"]["packet_from"]
        if sender is None:
            break
        match.send(sender, bot.plan(match.game, match.state(sender), sender, choose))
    if match.state()["awaiting"]["packet_from"] is not None:
        raise SystemExit(f"benchmark input broken: the {ruleset_id} game did not end")
    return match.folders[match.ruleset.sides[0]].path


def audit_rate(folder: Path, exe: list[str], repeat: int, label: str) -> None:
    from pbem.core import game

    packets = len(game.packet_files(folder))
    cut = folder.parent / f"{folder.name}-cut"
    shutil.rmtree(cut, ignore_errors=True)
    shutil.copytree(folder, cut)
    for sub in ("packets", "states", "aar"):
        for path in (cut / sub).iterdir():
            if int(path.name[:4]) > 1:
                path.unlink()
    whole, first, _ = side_by_side(exe + ["audit", str(folder)], exe + ["audit", str(cut)], repeat)
    rate = (packets - 1) / (whole - first)
    row(f"pbem audit, {label}, net of start-up", f"{rate:.0f} packets/s",
        f"({packets} packets: {whole:.2f} s whole, {first:.2f} s cut after packet 1)")


def sizes(folder: Path) -> None:
    states = sorted((folder / "states").glob("*.yaml"))
    average = sum(p.stat().st_size for p in states) / len(states)
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    row("chir state file, average over the game", f"{average / 1024:.1f} KB", f"({len(states)} states)")
    row("chir game folder", f"{total / 1024 / 1024:.2f} MB", "(one player's folder)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="help,adjudicate,audit,size")
    args = parser.parse_args()
    only = set(args.only.split(","))
    exe = pbem_exe()
    print(f"pbem: {' '.join(exe)}; python: {sys.executable}; PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}; ratios to `python -c pass`, side by side")
    if "help" in only:
        startup(exe, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if "adjudicate" in only:
            busy_turn(tmp_path, exe, args.repeat)
        if only & {"audit", "size"}:
            chir = play(tmp_path / "chir", "chir")
            if "size" in only:
                sizes(chir)
            if "audit" in only:
                audit_rate(chir, exe, args.repeat, "a 12-turn chir game")
                audit_rate(play(tmp_path / "stalingrad", "stalingrad"), exe, args.repeat, "a stalingrad game")


if __name__ == "__main__":
    main()
