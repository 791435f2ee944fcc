"""The coverage table of pbem/rulesets/kkoh/README.md: one row per line of the acceptance
checklist (`[K-...]`), each marked done, partial or n/a; a done or partial row names code
that cites the id and tests that cite it; an n/a row gives its reason; the status line
counts the rows as they are."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KKOH = ROOT / "pbem" / "rulesets" / "kkoh"
README = KKOH / "README.md"
CHECKLIST = ROOT.parent / "shared" / "acceptance" / "kkoh-rules.md"   # beside the repository, where present
ROW = re.compile(r"^\| \[(K-[A-Z]+-\d+)\] \| (done|partial|n/a) \| ([^|]*) \| ([^|]*) \| (.*) \|$")


def rows() -> list[tuple[str, ...]]:
    return [m.groups() for m in map(ROW.match, README.read_text().splitlines()) if m]


def _cites(path: Path, rule: str) -> bool:
    return re.search(re.escape(rule) + r"(?![\d])", path.read_text()) is not None


def _file(name: str) -> Path | None:
    for folder in (KKOH, KKOH / "data", ROOT / "tests", ROOT / "tests" / "cases" / "kkoh"):
        if (folder / name).is_file():
            return folder / name
    return None


def test_every_checklist_line_has_one_row():
    ids = [r[0] for r in rows()]
    assert len(ids) == len(set(ids)) == 204
    if CHECKLIST.exists():
        assert ids == re.findall(r"^- \[(K-[A-Z]+-\d+)\]", CHECKLIST.read_text(), re.M)


def test_rows_name_code_and_tests_that_cite_their_id():
    for rule, status, code, tests, note in rows():
        if status == "n/a":
            assert len(note.strip()) > 10, f"{rule}: an n/a row gives its reason"
            continue
        code_files = [c.strip() for c in code.split(",") if c.strip()]
        test_files = [t.strip() for t in tests.split(",") if t.strip()]
        assert code_files and test_files, rule
        for name in code_files + test_files:
            path = _file(name)
            assert path is not None, f"{rule}: {name} does not exist"
            assert _cites(path, rule), f"{rule}: {name} does not cite it"
        if status == "partial":
            assert len(note.strip()) > 10, f"{rule}: a partial row says what is missing"


def test_the_status_line_counts_the_rows():
    found = rows()
    done = sum(r[1] == "done" for r in found)
    partial = sum(r[1] == "partial" for r in found)
    na = sum(r[1] == "n/a" for r in found)
    assert f"**{done} of {len(found)} lines done** (code and test), {partial} partial, {na} not applicable" \
        in " ".join(README.read_text().split())
