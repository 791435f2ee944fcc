"""The cache of built scenarios (core/cache.py): a command that loads a kept scenario computes
exactly what a command that builds it computes; a damaged, foreign or outdated entry is never
used; `pbem audit` never reads the cache."""

from __future__ import annotations

import functools
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pbem import rulesets
from pbem.core import cache, game
from tests.support.games import sandbox


def _same(a, b, where="scenario", depth=0) -> None:
    """Assert that two objects are equal: by their own equality where their class has one
    (mappings, sets, tuples and the named tuples of records), else attribute by attribute,
    else (a built-in object such as an `operator.itemgetter`) by what pickling it keeps."""
    assert depth < 20 and type(a) is type(b), where
    if isinstance(a, dict) and getattr(type(a), "__len__", len) is None:   # rows made when first read
        a_rows, b_rows = dict(dict.items(a)), dict(dict.items(b))             # (dos's _Rows): those both hold
        both = sorted(a_rows.keys() & b_rows.keys())
        assert [a_rows[k] for k in both] == [b_rows[k] for k in both], where
        return
    if a is None or type(a).__eq__ is not object.__eq__:
        if a != b and isinstance(a, (dict, tuple, list)) and len(a) == len(b):
            pairs = zip(sorted(a, key=repr), sorted(b, key=repr)) if isinstance(a, dict) else zip(a, b)
            for x, y in pairs:   # tell where: objects inside may compare only attribute by attribute
                _same(a[x] if isinstance(a, dict) else x, b[y] if isinstance(b, dict) else y, f"{where}/{x!r}"[:200],
                      depth + 1)
            return
        assert a == b, where
        return
    names = list(vars(a)) if hasattr(a, "__dict__") else [n for k in type(a).__mro__ for n in getattr(k, "__slots__", ())]
    if not names and not hasattr(a, "__dict__"):
        assert a.__reduce__() == b.__reduce__(), where
        return
    if hasattr(a, "__dict__"):   # a table worked out when first read (a map's hexes) is compared, read
        lazy = {n for n in dir(type(a)) if isinstance(getattr(type(a), n, None), functools.cached_property)}
        assert vars(a).keys() - lazy == vars(b).keys() - lazy, where
        names = sorted(vars(a).keys() | vars(b).keys() | lazy)
    assert names, where
    for name in names:
        _same(getattr(a, name), getattr(b, name), f"{where}.{name}", depth + 1)


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("scenario-*.pickle"))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("PBEM_CACHE_DIR", str(directory))
    return directory


def _built(ruleset_id: str):
    ruleset = rulesets.get(ruleset_id)
    return ruleset, lambda: ruleset.scenario(ruleset.scenarios[ruleset.default_scenario](), dict(ruleset.options))


@pytest.mark.parametrize("ruleset_id", rulesets.ids())
def test_a_kept_scenario_is_the_built_one_and_is_not_built_again(cache_dir, ruleset_id):
    ruleset, build = _built(ruleset_id)
    builds = []

    def counted():
        builds.append(1)
        return build()

    first = cache.scenario(ruleset.id, ruleset.version, '{"name":"x"}', "{}", counted)
    assert len(_entries(cache_dir)) == 1 and len(builds) == 1
    again = cache.scenario(ruleset.id, ruleset.version, '{"name":"x"}', "{}", counted)
    assert len(builds) == 1, "the second command built the scenario again"
    assert again is not first
    _same(again, first)


def test_a_kept_dos_scenario_holds_every_supply_row_as_a_fresh_build_works_it_out(cache_dir):
    """dos keeps every row of both sides' `back` tables (supply traced backwards, 12.14) in the
    cache entry: a loaded scenario holds all of them, builds none of them again, and each is
    the row a fresh build works out when it is first read; equal rows, and equal steps within
    them, are kept once (one object each, which the pickle writes once)."""
    ruleset, build = _built("dos")
    cache.scenario(ruleset.id, ruleset.version, '{"name":"x"}', "{}", build)
    loaded = cache.scenario(ruleset.id, ruleset.version, '{"name":"x"}', "{}", build)
    fresh = build()
    hexes = range(len(fresh.ids))
    for side in ("axis", "soviet"):
        table = loaded.back(side)
        assert dict.__len__(table) == len(fresh.ids), f"{side}: the entry lacks rows"
        table.make = None     # reading a kept row must not work it out again
        assert [table[b] for b in hexes] == [fresh.back(side)[b] for b in hexes], side
    axis, soviet = loaded.back("axis"), loaded.back("soviet")
    shared = [b for b in hexes if axis[b] == soviet[b]]
    assert len(shared) > len(fresh.ids) // 2 and all(axis[b] is soviet[b] for b in shared)
    assert any(axis[b] != soviet[b] for b in hexes), "the sides' river costs differ somewhere (10.4)"
    rows = [table[b] for table in (axis, soviet) for b in hexes]
    assert len({id(row) for row in rows}) == len(set(rows))
    steps = [step for row in rows for step in row]
    assert len({id(step) for step in steps}) == len(set(steps)) < len(steps) // 4


def test_the_key_changes_with_every_input(monkeypatch):
    base = cache.key("chir", "1.2.0", '{"name":"historical"}', "{}")
    assert base == cache.key("chir", "1.2.0", '{"name":"historical"}', "{}")
    assert len({base, cache.key("dos", "1.2.0", '{"name":"historical"}', "{}"),
                cache.key("chir", "1.2.1", '{"name":"historical"}', "{}"),
                cache.key("chir", "1.2.0", '{"name":"other"}', "{}"),
                cache.key("chir", "1.2.0", '{"name":"historical"}', '{"line_never_cut":true}')}) == 5
    monkeypatch.setattr(cache, "_stamp", lambda: b"another installation of pbem")
    assert cache.key("chir", "1.2.0", '{"name":"historical"}', "{}") != base


def test_the_stamp_covers_every_file_pbem_runs_from_and_reads():
    import pbem

    stamp = cache._stamp().decode()
    package = Path(pbem.__file__).resolve().parent
    for path in (package / "core" / "engine.py", package / "rulesets" / "chir" / "scenario.py",
                 package / "rulesets" / "chir" / "data" / "map.yaml"):
        info = path.stat()
        assert f"{path}\0{info.st_size}\0{info.st_mtime_ns}" in stamp.split("\n"), path


def test_a_damaged_entry_is_rebuilt_and_replaced(cache_dir):
    ruleset, build = _built("stalingrad")
    cache.scenario(ruleset.id, ruleset.version, "{}", "{}", build)
    [entry] = _entries(cache_dir)
    entry.write_bytes(entry.read_bytes()[:100])   # torn
    builds = []
    world = cache.scenario(ruleset.id, ruleset.version, "{}", "{}", lambda: builds.append(1) or build())
    assert builds == [1]
    assert pickle.dumps(world) == pickle.dumps(build())
    assert pickle.loads(entry.read_bytes()) is not None   # whole again


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="file ownership is POSIX")
def test_an_entry_others_could_have_written_is_never_loaded(cache_dir):
    ruleset, build = _built("stalingrad")
    cache.scenario(ruleset.id, ruleset.version, "{}", "{}", build)
    [entry] = _entries(cache_dir)
    entry.write_bytes(pickle.dumps("a planted object"))
    os.chmod(entry, 0o666)
    assert cache.scenario(ruleset.id, ruleset.version, "{}", "{}", build) != "a planted object"
    os.chmod(entry, 0o600)
    entry.write_bytes(pickle.dumps("a planted object"))
    os.chmod(cache_dir, 0o777)   # a directory others may write to: neither read nor written
    assert cache.scenario(ruleset.id, ruleset.version, "{}", "{}", build) != "a planted object"


def test_off_builds_every_time_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_CACHE_DIR", "off")
    ruleset, build = _built("stalingrad")
    builds = []
    for _ in range(2):
        cache.scenario(ruleset.id, ruleset.version, "{}", "{}", lambda: builds.append(1) or build())
    assert builds == [1, 1]


def test_audit_rebuilds_the_scenario_from_the_genesis(tmp_path, monkeypatch):
    from pbem.core.audit import audit

    folder = sandbox(tmp_path / "g", "stalingrad", seed="audit")
    game._scenario.cache_clear()

    def refuse(*args, **kwargs):
        raise AssertionError("audit read the cache of built scenarios")

    monkeypatch.setattr(cache, "scenario", refuse)
    result = audit(folder.path)
    assert result.ok, result.divergence.sentence()


def test_commands_compute_the_same_bytes_with_a_cold_a_warm_and_no_cache(tmp_path):
    """The Soviet attacks of chir's turn 1, adjudicated by `pbem` in fresh processes:
    building the scenario, loading it from the cache, and with the cache off give the same
    state and report, byte for byte."""
    from pbem.core import bot, engine

    folder = sandbox(tmp_path / "g", "chir", seed="cache")
    while folder.state["awaiting"]["need"]["kind"] != "soviet-attack":   # set-ups by their defaults
        sender = folder.state["awaiting"]["packet_from"]
        packet = game.build_packet(folder.game, folder.state, sender, [{"type": "end"}], None, None, "")
        game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), "set-up")
    seeded = engine._Dice(folder.game, folder.state, folder.state["seq"] + 1, None, None)   # the dice it will meet
    orders = bot.plan(folder.game, folder.state, "soviet",
                      lambda options: next((o for o in options if o["type"] == "attack"), options[-1]),
                      roll=lambda label, among=None: seeded.roll(label, among)["value"])
    packet = game.build_packet(folder.game, folder.state, "soviet", orders, None, None, "")
    path = tmp_path / "busy.yaml"
    path.write_text(game.packet_yaml(packet))
    seq = f"{packet['seq']:04d}"
    results = {}
    for mode in ("cold", "warm", "off"):
        copy = tmp_path / mode
        shutil.copytree(folder.path, copy)
        env = dict(os.environ, PBEM_CACHE_DIR="off" if mode == "off" else str(tmp_path / "c"))
        done = subprocess.run([sys.executable, "-m", "pbem.cli", "adjudicate", str(copy), str(path)],
                              capture_output=True, env=env)
        assert done.returncode == 0, done.stderr.decode()
        assert len(_entries(tmp_path / "c")) == 1, f"{mode}: the cold run kept no scenario"
        results[mode] = ((copy / "states" / f"{seq}.yaml").read_bytes(), (copy / "aar" / f"{seq}.md").read_bytes())
    assert results["cold"][1].count(b"Concentrated attack") >= 5
    assert results["cold"] == results["warm"] == results["off"]


def test_only_the_newest_entries_are_kept(cache_dir):
    ruleset, build = _built("stalingrad")

    def entry(n):
        name = cache.key(ruleset.id, ruleset.version, '{"n":%d}' % n, "{}")
        return cache_dir / f"scenario-{name}.pickle"

    for n in range(cache.KEEP + 3):
        cache.scenario(ruleset.id, ruleset.version, '{"n":%d}' % n, "{}", build)
        os.utime(entry(n), ns=(10**9 * (n + 1), 10**9 * (n + 1)))   # written in this order
    assert _entries(cache_dir) == sorted(entry(n) for n in range(3, cache.KEEP + 3))


def test_a_command_process_freezes_its_scenario_and_a_library_user_keeps_collecting(tmp_path, cache_dir):
    """`pbem status` (a process of one command) leaves the scenario it loads, and what it had
    imported, out of the collector's later passes; opening a game in a long-lived process
    freezes nothing; either way the collector runs again afterwards, also when building fails."""
    import gc

    folder = sandbox(tmp_path / "g", "chir", seed="freeze")
    code = ("import gc, sys; sys.argv = ['pbem', 'status', sys.argv[1]]\n"
            "from pbem.entry import main\n"
            "try:\n    main()\nfinally:\n"
            "    sys.stderr.write(f'frozen={gc.get_freeze_count()} enabled={gc.isenabled()}')")
    shutil.rmtree(cache_dir, ignore_errors=True)   # making the game may have kept its scenario: build it first
    for run in ("builds", "loads"):
        done = subprocess.run([sys.executable, "-c", code, str(folder.path)], capture_output=True, text=True)
        assert done.returncode == 0 and "Ruleset chir" in done.stdout, (run, done.stderr)
        assert len(_entries(cache_dir)) == 1, run
        frozen = int(done.stderr.split("frozen=")[1].split()[0])
        assert frozen > 10_000 and done.stderr.endswith("enabled=True"), (run, done.stderr)

    before = gc.get_freeze_count()
    game._scenario.cache_clear()
    assert game.open_folder(folder.path).game.scenario is not None
    assert gc.get_freeze_count() == before and gc.isenabled()

    def broken():
        raise ValueError("no map")
    with pytest.raises(ValueError):
        cache.settled(broken)
    assert gc.isenabled()


def test_one_scenario_object_serves_every_file_that_names_it_and_a_refusal_names_the_file(tmp_path):
    """A process that reads a proposal, a join and the genesis of one game builds its scenario
    once: the name of the file is no part of what is kept. A scenario entry that names no
    bundled scenario, or one of another version, is still refused in the words of the file
    that names it, whichever file asked first."""
    from pbem.core.errors import FileError, VerificationError

    document = game.open_folder(sandbox(tmp_path / "g", "stalingrad").path).game.genesis
    game._scenario.cache_clear()
    first = game.open_genesis(document, "proposal.yaml").scenario
    assert game.open_genesis(document, "game.yaml").scenario is first
    assert game._scenario.cache_info().misses == 1
    for source in ("proposal.yaml", "game.yaml"):
        unknown = dict(document, scenario={"name": "nowhere", "sha256": "0" * 64})
        with pytest.raises(FileError, match=rf"^{source}: scenario 'nowhere' is not bundled with ruleset stalingrad "
                                             r"\(it has city-1942\)"):
            game.open_genesis(unknown, source)
        other = dict(document, scenario=dict(document["scenario"], sha256="0" * 64))
        with pytest.raises(VerificationError, match=rf"^{source}: the bundled scenario 'city-1942' differs from the one "
                                                     r"it names \(sha256 0000000000000000\.\.\.\)"):
            game.open_genesis(other, source)


def test_a_shipped_data_file_is_parsed_once_and_handed_out_as_a_fresh_copy(tmp_path, monkeypatch):
    """bundled.data_file: a caller that edits what it got (a test's position) changes nothing
    the next caller gets; a file edited since is read again; the parse is the strict loader's."""
    from pbem.core import bundled, canonical

    path = tmp_path / "data.yaml"
    path.write_text("units: {LW/I: {hex: '3320'}}\n")
    parsed = []
    real = canonical.loads
    monkeypatch.setattr(bundled, "loads", lambda *args: parsed.append(args) or real(*args))
    first = bundled.data_file(path, "data.yaml")
    first["units"]["LW/I"]["hex"] = "0000"
    assert bundled.data_file(path, "data.yaml") == {"units": {"LW/I": {"hex": "3320"}}} and len(parsed) == 1
    path.write_text("units: {LW/I: {hex: '3321'}}\n")
    os.utime(path, ns=(1, 1))                          # a new stamp, however fast the machine
    assert bundled.data_file(path, "data.yaml") == {"units": {"LW/I": {"hex": "3321"}}} and len(parsed) == 2
    path.write_text("units: [\n")
    os.utime(path, ns=(2, 2))
    with pytest.raises(canonical.InputError, match="data.yaml"):
        bundled.data_file(path, "data.yaml")


def test_a_command_that_loads_a_kept_scenario_never_imports_the_module_pickle(tmp_path):
    """An entry is read by the C unpickler alone: the module `pickle` (2% of a command's time,
    with what it imports) is for writing an entry, which only a command that found none does."""
    examples = sorted(str(p) for p in (Path(__file__).resolve().parent.parent / "examples").iterdir()
                      if (p / "game.yaml").is_file())
    code = ("import sys\n"
            "from pbem.core import describe, game\n"
            "for path in sys.argv[1:]:\n"
            "    describe.status(game.open_folder(path))\n"
            "sys.stderr.write(repr('pickle' in sys.modules))")
    env = dict(os.environ, PBEM_CACHE_DIR=str(tmp_path / "c"))
    cold, warm = (subprocess.run([sys.executable, "-c", code, *examples], capture_output=True, text=True, env=env)
                  for _ in range(2))
    assert len(examples) == 4 and len(_entries(tmp_path / "c")) == 4
    assert (cold.returncode, cold.stderr) == (0, "True")    # it stored the four
    assert (warm.returncode, warm.stderr) == (0, "False")
