"""A ruleset's bundled scenario data: data files strictly parsed (DESIGN §2.1), and checked
against the ruleset's scenario schema when a game is opened.

The check of a large map and order of battle costs tens of milliseconds at every start of
pbem. The parts that are exactly the bundled data the tests checked (their digest is kept
in the ruleset, and a test names the new digest after an edit of the data) are not checked
again; anything else (an edited file, a document embedded in a genesis) is checked in full.

Each data file has a twin beside it, FILE.yaml.json: the document the strict parse of
FILE.yaml gives, as JSON (keys in the file's order), with the SHA-256 of the YAML bytes it
was made from. The strict parser takes 45 to 90 ms for a ruleset's data (pyyaml's import
and the checks of every node); reading the twin, after hashing the YAML file, takes 1 to 4.
That is what `pbem audit` pays at every start, since it builds the scenario from these files
rather than from the cache (and any command where the cache has no entry yet). The twin is
read only when the YAML file is byte for byte the one it was made from, so an edited file
is parsed afresh; tests/test_bundled.py checks that every twin gives exactly what the
strict parse gives, and `python -m pbem.core.bundled` writes them again after an edit.
"""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path

from pbem.core.canonical import digest, load_file, loads, read_bounded
from pbem.core.record import Record
from pbem.core.sha import sha256
from pbem.core.text import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_READ: dict[str, tuple[tuple[int, int], bytes]] = {}


def data_file(path: Path, source: str) -> Any:
    """A data file shipped with pbem, read once per process (from its twin while the twin was
    made from the file's bytes, else strictly parsed) and handed out as a fresh copy each time
    (callers edit what they get: a test's position, an embedded document). The file's size
    and modification time are checked on every call, so an edited file is read again; a
    process of one command reads each file once anyway."""
    try:
        info = os.stat(path)
    except OSError:
        return load_file(path, source)   # which says what is wrong with it, naming it
    stamp = (info.st_size, info.st_mtime_ns)
    kept = _READ.get(str(path))
    if kept is None or kept[0] != stamp:
        label = shown(source)   # as load_file names a file
        data = read_bounded(path, label)   # read once: hashed for the twin, else parsed
        doc = twin_of(path, data)
        kept = _READ[str(path)] = (stamp, marshal.dumps(loads(data, label) if doc is _NO_TWIN else doc))
    return marshal.loads(kept[1])


# to be changed whenever the strict parser comes to read a data file otherwise, so that no
# twin made before is read (tests/test_bundled.py compares every twin with the parse, too)
TWIN_FORMAT = "pbem-bundled-twin-1"
_NO_TWIN = object()


def twin_path(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def twin_of(path: Path, data: bytes | None = None) -> Any:
    """The document of the data file `path` as its twin keeps it, if the twin was made from
    the file's present bytes (`data`, where the caller has read them); else _NO_TWIN (no twin,
    an unreadable one, or one of another version of the file)."""
    try:
        twin = json.loads(twin_path(path).read_bytes())
        if data is None:
            data = path.read_bytes()
    except (OSError, ValueError):
        return _NO_TWIN
    if not isinstance(twin, dict) or twin.get("format") != TWIN_FORMAT or "data" not in twin \
            or twin.get("yaml_sha256") != sha256(data).hexdigest():
        return _NO_TWIN
    return twin["data"]


def twin_text(path: Path) -> str:
    """The twin of the data file `path` as it stands (strictly parsed): JSON, one value a line."""
    twin = {"format": TWIN_FORMAT, "about": f"{path.name} as pbem's strict parser reads it (pbem/core/bundled.py)",
            "yaml_sha256": sha256(path.read_bytes()).hexdigest(), "data": load_file(path)}
    return json.dumps(twin, ensure_ascii=False, indent=0) + "\n"


def data_files() -> list[Path]:
    """Every ruleset's data files."""
    return sorted((Path(__file__).resolve().parent.parent / "rulesets").glob("*/data/*.yaml"))


def main() -> None:
    """Write the twin of every data file whose twin is missing or stale."""
    for path in data_files():
        text = twin_text(path)
        twin = twin_path(path)
        if not twin.is_file() or twin.read_text(encoding="utf-8") != text:
            twin.write_text(text, encoding="utf-8")
            print(f"wrote {twin}")


if __name__ == "__main__":
    main()


class Bundled(Record):
    ruleset: str
    directory: Path
    parts: tuple[str, ...]          # one data file each: DIRECTORY/PART.yaml
    schema: str                     # the scenario schema, a file of schemas/
    checked: str                    # the digest of the bundled parts the tests checked
    prepare: Callable[[dict], dict] = lambda schema: schema   # a faster equivalent schema

    def load(self) -> dict:
        return {part: data_file(self.directory / f"{part}.yaml", f"{self.ruleset}/data/{part}.yaml") for part in self.parts}

    def digest(self, doc: Any) -> str | None:
        """SHA-256 of the canonical parts of a document, or None if one is missing."""
        if not isinstance(doc, dict) or any(part not in doc for part in self.parts):
            return None
        return digest(f"{self.ruleset}-data\n".encode(), {part: doc[part] for part in self.parts})

    def validate(self, doc: dict) -> None:
        from pbem.core import schema

        checks = self.prepare(schema.load(self.schema))
        if self.digest(doc) == self.checked:   # the data the tests checked: only the rest is left
            checks = dict(checks, properties={**checks["properties"], **{part: True for part in self.parts}})
        problems = schema.errors(checks, doc)
        if problems:
            raise ValueError(f"{self.ruleset} scenario: {problems[0]}")
