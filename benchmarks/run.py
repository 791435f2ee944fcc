"""Measure pbem as a user feels it: every figure a ratio to `python -c pass`, timed side by
side in one run (A B A B ..., the ratio taken pair by pair), so that a busy or slow
machine changes the figures little. Prints figures, asserts nothing about speed
(DESIGN §7), but fails loudly when an input it needs is not what it claims to be (a
"busy" turn with few orders, a game that did not end).

    python benchmarks/run.py [--repeat 7] [--only help,adjudicate,audit,size,dos]

Measure an installed pbem, as a user has it (bytecode compiled at install):

    python3 -m venv /tmp/pbem-bench && /tmp/pbem-bench/bin/pip install -q . \\
        && /tmp/pbem-bench/bin/python benchmarks/run.py

(An editable install in an environment that sets PYTHONDONTWRITEBYTECODE compiles pbem
anew on every command, which is not what a user's commands cost.) The figures:

- `pbem --help` and `pbem --version`;
- `pbem adjudicate` of a busy chir player-turn: the whole Soviet game turn 1 of a seeded
  sandbox game, every attack and move the engine allows, in one packet (at least 50
  orders, every one consumed, or the benchmark stops); timed as a game's later commands
  run (the built scenario loaded from pbem's cache, core/cache.py) and with the cache off,
  as the first command of a game runs; and beside it the standard library's share: a bare
  interpreter importing only the standard-library modules that command imports;
- `pbem audit` of a whole secure chir game and of a whole secure stalingrad game, net of
  start-up: (packets - 1) / (wall of auditing the whole folder - wall of auditing the
  same folder cut after its first packet), so interpreter, imports and scenario loading
  cancel out; the difference is the median over pairs timed one after the other (three
  times as many pairs for the short stalingrad game), with the middle half of the pairs'
  rates beside it to show how steady the figure was;
- the size of chir's state files over that 12-turn game, and of its folder;
- dos: `pbem adjudicate` of a busy Axis player-turn (game turn 2 of a seeded sandbox game,
  as for chir), and, in process, supply of every unit of both sides on the full map
  (`supply.field` for each side on the mid-game position of `tests/cases/dos/`, the board
  views built cold each time; median of 30).
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


def timed(cmd: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=env)
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


def busy_turn(directory: Path, exe: list[str], repeat: int, ruleset_id: str, side: str, kind: str, turn: int) -> None:
    """`side`'s whole player-turn in one packet, from the first need of `kind` in game turn
    `turn` of a seeded sandbox game: every attack the engine allows first, moves next,
    planned with the game's own seeded dice so that every order is consumed when it is
    adjudicated. The turns before go by quickly: each side ends each phase at once (set-ups
    by their default placement)."""
    import collections

    from pbem import rulesets
    from pbem.core import bot, engine, game, genesis

    ruleset = rulesets.get(ruleset_id)
    folder = game.create(directory / f"busy-{ruleset_id}", genesis.sandbox(ruleset, {"seed": "busy"}, created="bench"))

    def seeded_plan(sender: str, choose) -> list[dict]:
        seeded = engine._Dice(folder.game, folder.state, folder.state["seq"] + 1, None, None)
        return bot.plan(folder.game, folder.state, sender, choose,
                        roll=lambda label, among=None: seeded.roll(label, among)["value"])

    def send(sender: str, orders: list[dict]) -> None:
        packet = game.build_packet(folder.game, folder.state, sender, orders, None, None, "")
        game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), f"{sender} packet")

    def first_end(options: list[dict]) -> dict:
        return next((o for o in options if o["type"] == "end"), options[0])

    for _ in range(1000):
        awaiting, rules = folder.state["awaiting"], folder.state["rules"]
        if awaiting["packet_from"] == side and (awaiting["need"] or {}).get("kind") == kind and rules.get("turn") == turn:
            break
        sender = awaiting["packet_from"]
        if sender is None:
            raise SystemExit(f"benchmark input broken: the {ruleset_id} game ended before {side}'s {kind} of turn {turn}")
        send(sender, seeded_plan(sender, first_end)[:1])   # one order a packet: the loop stops where the turn begins
    rank = {"attack": 0, "move": 1, "enter": 1, "end": 3}
    count = [0]

    def choose(options: list[dict]) -> dict:
        count[0] += 1
        best = min(rank.get(o["type"], 2) for o in options)
        pool = [o for o in options if rank.get(o["type"], 2) == best]
        return pool[(count[0] * 7919) % len(pool)]

    orders = seeded_plan(side, choose)
    kinds = collections.Counter(o["type"] for o in orders)
    if len(orders) < MIN_BUSY_ORDERS:
        raise SystemExit(f"benchmark input broken: the busy {ruleset_id} player-turn has {len(orders)} orders "
                         f"({dict(kinds)}), fewer than {MIN_BUSY_ORDERS}")
    packet = game.build_packet(folder.game, folder.state, side, orders, None, None, "")
    path = directory / f"busy-{ruleset_id}-packet.yaml"
    path.write_text(game.packet_yaml(packet))
    copy = directory / f"busy-{ruleset_id}-copy"
    script = ("import shutil, subprocess, sys; shutil.rmtree(sys.argv[2], ignore_errors=True); "
              "shutil.copytree(sys.argv[1], sys.argv[2])")
    fresh = [sys.executable, "-c", script, str(folder.path), str(copy)]
    subprocess.run(fresh, check=True)
    subprocess.run(exe + ["adjudicate", str(copy), str(path)], check=True, capture_output=True)
    report = (copy / "aar" / f"{packet['seq']:04d}.md").read_text()
    consumed = report.count(f"{side} order ")
    if consumed < len(orders):
        raise SystemExit(f"benchmark input broken: only {consumed} of the busy turn's {len(orders)} orders were consumed")
    python = [sys.executable, "-c", "pass"]
    # as the second command of a game finds it (the check above kept the built scenario in
    # pbem's cache), and with the cache off, as the very first command of a game runs
    for label, env in (("", None), (", cache off", dict(os.environ, PBEM_CACHE_DIR="off"))):
        walls, ratios = [], []
        for _ in range(repeat):
            subprocess.run(fresh, check=True)
            wa = timed(exe + ["adjudicate", str(copy), str(path)], env)
            wb = timed(python)
            walls.append(wa)
            ratios.append(wa / wb)
        row(f"pbem adjudicate, busy {ruleset_id} player-turn{label}", f"{statistics.median(ratios):.2f}x",
            f"({statistics.median(walls) * 1000:.0f} ms; {side}, turn {turn}: {len(orders)} orders: {kinds['attack']} "
            f"attacks, {kinds['move'] + kinds['enter']} moves; {report.count('Die: ')} dice)")
    stdlib_floor(fresh, exe + ["adjudicate", str(copy), str(path)], repeat, ruleset_id)


def stdlib_floor(fresh: list[str], command: list[str], repeat: int, ruleset_id: str) -> None:
    """The standard library's share of the command's ratio: a bare interpreter importing the
    standard-library modules that the command itself imports (read from its own `-X
    importtime` lines), nothing of pbem's, as a ratio to `python -c pass`."""
    subprocess.run(fresh, check=True)
    script_args = command[1:] if command[0] == sys.executable else command   # `python -m pbem.cli ...` or the script
    done = subprocess.run([sys.executable, "-X", "importtime"] + script_args, capture_output=True, check=True)
    names = []
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.rsplit("|", 1)[1].strip()
            if name.split(".")[0] in sys.stdlib_module_names and name not in names:   # no pbem, no dependency
                names.append(name)
    if len(names) < 10:
        raise SystemExit(f"benchmark input broken: `-X importtime` named {len(names)} standard modules")
    script = ("import importlib\n"
              f"for name in {names!r}:\n"
              "    try:\n        importlib.import_module(name)\n    except ImportError:\n        pass\n")
    wa, wb, ratio = side_by_side([sys.executable, "-c", script], [sys.executable, "-c", "pass"], repeat)
    row(f"  its {len(names)} standard-library modules alone", f"{ratio:.2f}x",
        f"({wa * 1000:.0f} ms: python importing what the busy {ruleset_id} adjudicate imports, not pbem)")


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


def audit_rate(folder: Path, exe: list[str], repeat: int, label: str, times: int = 1) -> None:
    from pbem.core import game

    packets = len(game.packet_files(folder))
    cut = folder.parent / f"{folder.name}-cut"
    shutil.rmtree(cut, ignore_errors=True)
    shutil.copytree(folder, cut)
    for sub in ("packets", "states", "aar"):
        for path in (cut / sub).iterdir():
            if int(path.name[:4]) > 1:
                path.unlink()
    # The net time is a small difference of two process walls (a 47-packet stalingrad game:
    # about a tenth of a second between two walls of a fifth), so it is taken pair by pair,
    # whole then cut, and the median of those differences gives the rate: a pause of the
    # machine during one command moves one pair, not the figure. Pairs: `times` x repeat.
    timed(exe + ["audit", str(folder)]), timed(exe + ["audit", str(cut)])   # warm-up: file caches
    walls, rates = [], []
    for _ in range(repeat * times):
        whole, first = timed(exe + ["audit", str(folder)]), timed(exe + ["audit", str(cut)])
        walls.append((whole, first))
        rates.append((packets - 1) / (whole - first) if whole > first else float("inf"))
    net = statistics.median(whole - first for whole, first in walls)
    if net <= 0:
        raise SystemExit(f"benchmark input broken: auditing {packets} packets took no longer than auditing one")
    quartiles = statistics.quantiles(rates, n=4) if len(rates) >= 4 else None
    spread = (f"; middle half of {len(rates)} pairs {quartiles[0]:.0f}-{quartiles[2]:.0f}/s" if quartiles
              else f"; {len(rates)} pairs, too few for a spread")
    row(f"pbem audit, {label}, net of start-up", f"{(packets - 1) / net:.0f} packets/s",
        f"({packets} packets: {statistics.median(w for w, _ in walls):.2f} s whole, "
        f"{statistics.median(f for _, f in walls):.2f} s cut after packet 1{spread})")


def sizes(folder: Path) -> None:
    states = sorted((folder / "states").glob("*.yaml"))
    average = sum(p.stat().st_size for p in states) / len(states)
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    row("chir state file, average over the game", f"{average / 1024:.1f} KB", f"({len(states)} states)")
    row("chir game folder", f"{total / 1024 / 1024:.2f} MB", "(one player's folder)")


def dos_supply() -> None:
    import json

    from pbem.rulesets.dos import board, scenario, supply

    sc = scenario.Scenario(scenario.load_historical(), {})
    rules = json.loads((ROOT / "tests" / "cases" / "dos" / "midgame-rules.json").read_text())
    on_map = sum(1 for where in rules["units"].values() if where[:1] in ("N", "S"))   # a hex of either sheet
    if on_map < 100:
        raise SystemExit(f"benchmark input broken: the dos mid-game position has {on_map} units on the map")
    times = []
    for _ in range(30):
        board._MEMO.clear()
        start = time.perf_counter()
        view = board.view(sc, rules)
        supply.field(sc, rules, view, "axis")
        supply.field(sc, rules, view, "soviet")
        times.append(time.perf_counter() - start)
    row("dos supply of both sides, full map (in process)", f"{statistics.median(times) * 1000:.1f} ms",
        f"({on_map} units on the map; best {min(times) * 1000:.1f} ms of 30)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="help,adjudicate,audit,size,dos")
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
            busy_turn(tmp_path, exe, args.repeat, "chir", "soviet", "soviet-attack", 1)
        if only & {"audit", "size"}:
            chir = play(tmp_path / "chir", "chir")
            if "size" in only:
                sizes(chir)
            if "audit" in only:
                audit_rate(chir, exe, args.repeat, "a 12-turn chir game")
                audit_rate(play(tmp_path / "stalingrad", "stalingrad"), exe, args.repeat, "a stalingrad game", times=3)
        if "dos" in only:
            busy_turn(tmp_path, exe, args.repeat, "dos", "axis", "axis-move", 2)
            dos_supply()


if __name__ == "__main__":
    main()
