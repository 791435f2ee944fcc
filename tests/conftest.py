import gc

import pytest
from hypothesis import settings

from pbem import rulesets

# No test is timed: speed is measured side by side in benchmarks/, never by a test. Hypothesis's
# default deadline (200 ms an example) timed each example, and a suite run on a loaded machine
# (`.ci/run` beside other work) failed a property test whose first example took 806 ms.
settings.register_profile("pbem", deadline=None)
settings.load_profile("pbem")

# The suite's processes let the garbage collector wait, as the command line does (pbem/entry.py),
# if less long: pbem makes no reference cycles (tests/test_cycles.py, and every conformance game
# checks its own), so most collections found nothing, and the suite spent about a twentieth of
# its time on them (`.ci/run` is held to 3 minutes on a loaded 2-core machine).
gc.set_threshold(100_000, 20, 20)

# An audit replays in parts on every usable core (pbem/core/audit.py); the suite's workers use
# every core already, so an audit run inside a test replays in one pass, which costs the parts'
# start-up less (a dos conformance game: 15.4 against 17.2 CPU seconds). The parts are tested
# where they are asked for by number (tests/test_audit_parts.py), and `pbem audit` run as a
# command still uses them.
from pbem.core import audit as _audit  # noqa: E402

_audit.MAX_JOBS = 1


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject.toml): one worker more than the cores this process may run on. A
    machine busy with other work shares each core out among the processes ready to run, so
    the suite's share of it grows with its workers: beside two other busy processes on a 2-core
    machine the suite took 204 s with 2 workers, 171 s with 3 and 164 s with 4, and alone 96.5,
    99.8 and 114 s (one run each, 2026-12-07). PYTEST_XDIST_AUTO_NUM_WORKERS still chooses,
    where it is set."""
    import os

    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1   # not on macOS
    return cores + 1


def pytest_collection_modifyitems(items):
    """The longest tests first, longest of all first: the suite's workers then share out the
    many short tests at the end (idle workers take queued tests from busy ones, `--dist
    worksteal`), instead of one worker finishing alone on a game that started last."""
    def seconds(item) -> float:
        mark = item.get_closest_marker("long")
        return mark.args[0] if mark else 0.0
    items.sort(key=lambda item: -seconds(item))


@pytest.fixture(autouse=True)
def test_rulesets_registered(monkeypatch):
    """The test rulesets `duel` (decisions), `blind` (sealed simultaneous plans) and `veiled`
    (sealed items revealed one by one) are
    known to the registry during tests only."""
    monkeypatch.setitem(rulesets.REGISTRY, "duel", "tests.support.duel")
    monkeypatch.setitem(rulesets.REGISTRY, "blind", "tests.support.blind")
    monkeypatch.setitem(rulesets.REGISTRY, "veiled", "tests.support.veiled")


@pytest.fixture(autouse=True, scope="session")
def scenario_cache_of_the_session(tmp_path_factory):
    """pbem's cache of built scenarios (core/cache.py) lives in a directory of the test
    session, for the tests and every pbem process they start, never in the user's own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PBEM_CACHE_DIR", str(tmp_path_factory.mktemp("pbem-cache")))
        yield


@pytest.fixture(autouse=True, scope="session")
def no_waiting_for_the_disk():
    """pbem syncs every file it writes to the disk before linking it into place, so that a
    power cut leaves the old state or the complete new one. No test cuts the power: the
    crash tests fail the sync itself (tests/test_attacks.py, attack 20), which still sees
    every call. Syncing each of the suite's tens of thousands of files would only make the
    tests wait for the disk."""
    import os

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda fd: None)
        yield


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for each process of the suite (tests/test_render.py's DevTools
    client), shared by the picture and replay tests: each starts it at a cost of about half a
    CPU-second, and every test opens its own page in it."""
    from tests.test_render import BROWSER, Chromium

    if BROWSER is None:
        pytest.skip("no Chromium on this machine (.ci/run installs Debian's chromium)")
    b = Chromium()
    yield b
    b.close()
