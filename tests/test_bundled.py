"""The twins of the rulesets' data files (pbem/core/bundled.py): each gives exactly what the
strict parse of its YAML file gives, and only while the file is the one it was made from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pbem.core import bundled
from pbem.core.canonical import load_file

REGENERATE = "run `python -m pbem.core.bundled` after editing a data file"


def exact(doc) -> str:
    """A document's JSON with its keys in their order: equal texts are equal documents,
    key order and types included (1, 1.0 and true differ)."""
    return json.dumps(doc, ensure_ascii=False)


def test_every_data_file_has_a_twin_that_reads_as_the_strict_parser_reads_the_file():
    paths = bundled.data_files()
    assert {path.parent.parent.name for path in paths} == {"chir", "dos", "kkoh", "stalingrad"} and len(paths) == 17
    for path in paths:
        twin = bundled.twin_of(path)
        assert twin is not bundled._NO_TWIN, f"{path}: no twin of its present bytes; {REGENERATE}"
        assert exact(twin) == exact(load_file(path)), f"{path}: the twin differs from the strict parse; {REGENERATE}"
        assert bundled.twin_path(path).read_text(encoding="utf-8") == bundled.twin_text(path), REGENERATE


def _copy(tmp_path: Path) -> Path:
    """stalingrad's data file and its twin, copied."""
    source = next(path for path in bundled.data_files() if path.parent.parent.name == "stalingrad")
    path = tmp_path / source.name
    shutil.copy(source, path)
    shutil.copy(bundled.twin_path(source), bundled.twin_path(path))
    return path


def test_a_data_file_is_read_from_its_twin_while_the_file_is_the_one_it_was_made_from(tmp_path):
    path = _copy(tmp_path)
    twin = bundled.twin_path(path)
    doc = json.loads(twin.read_text(encoding="utf-8"))
    doc["data"]["title"] = "read from the twin"      # a twin that says otherwise shows which was read
    twin.write_text(json.dumps(doc), encoding="utf-8")
    assert bundled.data_file(path, "scenario.yaml")["title"] == "read from the twin"
    parsed = load_file(path)["title"]
    assert parsed != "read from the twin"
    # the YAML edited after its twin was made: parsed afresh, what the file now says
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if line.startswith("title: "))
    path.write_text("".join(lines[:at] + ["title: edited\n"] + lines[at + 1:]), encoding="utf-8")
    assert bundled.twin_of(path) is bundled._NO_TWIN
    assert bundled.data_file(path, "scenario.yaml")["title"] == "edited"


@pytest.mark.parametrize("twin_text", ["{", "[]", '{"format": "pbem-bundled-twin-1"}',
                                       '{"format": "another", "yaml_sha256": "HASH", "data": {}}',
                                       '{"format": "pbem-bundled-twin-1", "yaml_sha256": "HASH"}'])
def test_a_broken_or_foreign_twin_is_ignored(tmp_path, twin_text):
    from pbem.core.sha import sha256

    path = _copy(tmp_path)
    bundled.twin_path(path).write_text(twin_text.replace("HASH", sha256(path.read_bytes()).hexdigest()))
    assert bundled.twin_of(path) is bundled._NO_TWIN
    assert exact(bundled.data_file(path, "scenario.yaml")) == exact(load_file(path))


def test_auditing_a_game_parses_no_yaml_of_pbems_data(tmp_path):
    """`pbem audit` builds the scenario from the bundled files at every start, from their twins:
    the examples' audits import no YAML parser at all (their own files are in pbem's form)."""
    from tests.support.imports import imported

    examples = Path(__file__).resolve().parent.parent / "examples"
    for name in ("chir", "stalingrad"):
        assert imported(tmp_path, ["audit", str(examples / f"{name}-demo")], ("yaml",)) == [], name


def test_a_missing_data_file_is_a_file_error_naming_it(tmp_path):
    from pbem.core.errors import FileError

    with pytest.raises(FileError, match="stalingrad/data/none.yaml"):
        bundled.data_file(tmp_path / "none.yaml", "stalingrad/data/none.yaml")
