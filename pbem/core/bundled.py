"""A ruleset's bundled scenario data: data files strictly parsed (DESIGN §2.1), and checked
against the ruleset's scenario schema when a game is opened.

The check of a large map and order of battle costs tens of milliseconds at every start of
pbem. The parts that are exactly the bundled data the tests checked (their digest is kept
in the ruleset, and a test names the new digest after an edit of the data) are not checked
again; anything else (an edited file, a document embedded in a genesis) is checked in full.
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path

from pbem.core.canonical import digest, load_file
from pbem.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_READ: dict[str, tuple[tuple[int, int], bytes]] = {}


def data_file(path: Path, source: str) -> Any:
    """A data file shipped with pbem, strictly parsed once per process and handed out as a
    fresh copy each time (callers edit what they get: a test's position, an embedded
    document). The file's size and modification time are checked on every call, so an edited
    file is read again; a process of one command reads each file once anyway."""
    info = os.stat(path)
    stamp = (info.st_size, info.st_mtime_ns)
    kept = _READ.get(str(path))
    if kept is None or kept[0] != stamp:
        kept = _READ[str(path)] = (stamp, marshal.dumps(load_file(path, source)))
    return marshal.loads(kept[1])


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
