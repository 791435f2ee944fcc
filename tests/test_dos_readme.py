"""The coverage table of pbem/rulesets/dos/README.md: one row per line of the acceptance
checklist (`[case]`, done or n/a), each done row naming modules whose code cites the case and
tests that exist and name or cite it; the decision table names every standing-order key."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pbem.rulesets.dos.orders import KEY_OF, POLICY_CHOICES

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "pbem" / "rulesets" / "dos" / "README.md"
CHECKLIST = ROOT.parent / "shared" / "acceptance" / "dos-rules.md"   # beside the repository, where present
ROW = re.compile(r"^\| \[(\d+\.\d+)\] \| (done|n/a) \| ([^|]*) \| (.*) \|$")


def cites(text: str, case: str) -> bool:
    return re.search(r"(?<![\d.])" + re.escape(case) + r"(?![\d])", text) is not None


def named(name: str, case: str) -> bool:
    u = case.replace(".", "_")
    if re.search(r"(^test_|_)" + u + r"(_|$)", name):
        return True
    for m in re.finditer(r"(\d+)_(\d+)_to_(\d+)_(\d+)", name):
        a, b = case.split(".")
        if m.group(1) == m.group(3) == a and len(m.group(2)) == len(m.group(4)) == len(b) \
                and m.group(2) <= b <= m.group(4):
            return True
    return False


def rows() -> list[tuple[str, str, str, str]]:
    return [m.groups() for m in map(ROW.match, README.read_text().splitlines()) if m]


def test_every_checklist_line_has_its_row():
    found = rows()
    assert len(found) == 345
    assert sum(r[1] == "done" for r in found) == 300
    if CHECKLIST.exists():
        ids = re.findall(r"^- \[(\d+\.\d+)\]", CHECKLIST.read_text(), re.M)
        assert [r[0] for r in found] == ids


def test_done_rows_name_citing_code_and_tests():
    code = {p.stem: p.read_text() for p in (ROOT / "pbem" / "rulesets" / "dos").glob("*.py")}
    tests = {}
    for p in (ROOT / "tests").glob("test_dos_*.py"):
        src = p.read_text()
        lines = src.splitlines()   # a test's lines by number: ast.get_source_segment splits the file anew each time
        for node in ast.parse(src).body:
            if isinstance(node, ast.FunctionDef):
                body = "\n".join(lines[node.lineno - 1:node.end_lineno])
                tests[f"{p.stem[len('test_dos_'):]}::{node.name}"] = (node.name, body)
    cases = {f"cases/{p.name}": p.read_text().split("\npackets:")[0] for p in (ROOT / "tests" / "cases" / "dos").glob("*.yaml")}
    for case, status, modules, named_tests in rows():
        if status == "n/a":
            assert modules.strip() == "—" and len(named_tests.strip()) > 10, case
            continue
        for m in [x.strip() for x in modules.split(",")]:
            assert m in code and cites(code[m], case), f"[{case}]: {m}.py does not cite it"
        listed = re.findall(r"`([^`]+)`", named_tests)
        assert listed, case
        for t in listed:
            if t.startswith("cases/"):
                assert t in cases and cites(cases[t], case), f"[{case}]: {t}"
            else:
                assert t in tests, f"[{case}]: no test {t}"
                name, body = tests[t]
                assert named(name, case) or cites(body, case), f"[{case}]: {t} neither names nor cites it"


def test_the_decision_table_lists_every_standing_order():
    text = README.read_text()
    for kind, key in KEY_OF.items():
        assert f"`{kind}`" in text and f"`{key}`" in text, kind
        for value in POLICY_CHOICES[key]:
            assert f"`{value}`" in text, (key, value)
