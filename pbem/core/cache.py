"""Built scenario objects kept between runs of pbem, so that a command does not rebuild the
same map, tables and order of battle every time it starts.

A ruleset's scenario object (DESIGN §2.4) is a pure function of the scenario document, the
options and pbem's own files. Building one costs tens of milliseconds (parsing the bundled
data, working out every neighbour, hexside and step cost); loading it back costs a few.
So the first command of a game builds it and stores it here; later commands load it.

What keeps the cache honest:
- the key is a SHA-256 over the ruleset, the genesis's scenario entry (the bundled
  scenario's name and hash, or the whole embedded document), the options, the Python
  version, and the path, size and modification time of every file of the installed pbem
  package and its schemas: any edit or upgrade gives new keys, and old entries are never
  read again;
- an entry that cannot be read back is ignored and rebuilt; nothing is ever worse than
  building afresh;
- `pbem audit` never reads the cache: it rebuilds the scenario from the genesis and the
  bundled files, as a full replay must (docs/protocol.md §10);
- entries are pickles, so the directory is the user's own (made with mode 0700), and an
  entry that another user owns or could have written is never loaded. A file there is as
  trusted as pbem's installed code, which the same user can change anyway.

Where: `PBEM_CACHE_DIR` if set, else `$XDG_CACHE_HOME/pbem`, else `~/.cache/pbem`.
`PBEM_CACHE_DIR=off` turns the cache off. The location changes how fast pbem starts, never
what it computes: no state, hash or report depends on it.
"""

from __future__ import annotations

import copyreg
import os
import sys
import types
from pathlib import Path

from pbem.core.sha import sha256

try:   # the C unpickler alone: the module `pickle` (which `_store` imports) costs a command 2% more
    from _pickle import loads as _loads
except ImportError:   # an interpreter without it
    from pickle import loads as _loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

FORMAT = "pbem-scenario-cache-1"


def _proxy(mapping: dict) -> types.MappingProxyType:
    return types.MappingProxyType(mapping)


# Scenario objects hand out read-only views of their tables (MappingProxyType), which
# pickle does not know how to rebuild by itself.
copyreg.pickle(types.MappingProxyType, lambda view: (_proxy, (dict(view),)))


def directory() -> Path | None:
    configured = os.environ.get("PBEM_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pbem"


def _stamp() -> bytes:
    """The path, size and modification time of every file pbem runs from or reads."""
    import pbem
    from pbem.core import schema

    roots = [Path(pbem.__file__).resolve().parent] + [d for d in schema.SCHEMA_DIRS if d.is_dir()]
    lines = []
    for root in roots:
        stack = [str(root)]
        while stack:
            for entry in os.scandir(stack.pop()):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif not entry.name.endswith(".pyc"):
                    info = entry.stat()
                    lines.append(f"{entry.path}\0{info.st_size}\0{info.st_mtime_ns}")
    return "\n".join(sorted(lines)).encode()


def key(ruleset_id: str, ruleset_version: str, entry: str, options: str) -> str:
    h = sha256(f"{FORMAT}\n{sys.version}\n{ruleset_id}\n{ruleset_version}\n".encode())
    for part in (entry.encode(), options.encode(), _stamp()):
        h.update(len(part).to_bytes(8, "big") + part)
    return h.hexdigest()


def _trusted(path: Path) -> bool:
    """A file only this user can have written."""
    try:
        info = path.stat()
    except OSError:
        return False
    owner = os.getuid() if hasattr(os, "getuid") else info.st_uid
    return info.st_uid == owner and not info.st_mode & 0o022


# Set by the command line (pbem.entry), whose process runs one command and exits: see `settled`.
FREEZE = False


def settled(make: Callable[[], Any]) -> Any:
    """make(), a scenario object built or loaded, without the garbage collector running while
    its tens of thousands of objects appear (none of them is garbage). In a process of one
    command (FREEZE), the collector is also told to leave every object made so far out of its
    later passes (gc.freeze): the scenario and the imported modules live until the command
    ends, and each full pass would walk them again. A busy adjudicate runs about a tenth
    faster. Long-lived processes (the tests, a library user) are not frozen, so that no
    garbage of theirs is kept."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        world = make()
    finally:
        if enabled:
            gc.enable()
    if FREEZE:
        gc.freeze()
    return world


def scenario(ruleset_id: str, ruleset_version: str, entry: str, options: str, build: Callable[[], Any]) -> Any:
    """The scenario object for this key: loaded from the cache, or built and stored."""
    where = directory()
    if where is None:
        return settled(build)
    if where.exists() and not _trusted(where):   # somebody else's directory: neither read nor write
        return settled(build)
    path = where / f"scenario-{key(ruleset_id, ruleset_version, entry, options)}.pickle"
    if _trusted(path):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            return settled(lambda: _loads(data))
        except Exception:   # a torn or foreign entry: build afresh (and replace it below)
            pass
    world = settled(build)
    _store(where, path, world)
    return world


KEEP = 16   # entries: a few games' scenarios under a few versions of pbem


def _prune(where: Path) -> None:
    """Remove all but the KEEP most recently written entries (older pbem versions leave
    entries nothing reads again)."""
    entries = sorted(where.glob("scenario-*.pickle"), key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)
    for old in entries[KEEP:]:
        old.unlink(missing_ok=True)


def _store(where: Path, path: Path, world: Any) -> None:
    """Write the entry atomically; a cache that cannot be written is no error."""
    import pickle

    try:
        data = pickle.dumps(world, protocol=pickle.HIGHEST_PROTOCOL)
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = where / f".{path.name}.{os.getpid()}"
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
        _prune(where)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        try:
            os.unlink(temporary)   # type: ignore[possibly-undefined]
        except (OSError, NameError):
            pass
