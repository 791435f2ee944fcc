"""pbem's releases and the ruleset versions they play: a genesis binds its ruleset's version,
so a change to a ruleset's version is a new release of pbem, recorded in `pbem.RELEASES`, and
a game of another version is refused with the release that plays it."""

import re
from pathlib import Path

import pytest

import pbem
from pbem import rulesets
from pbem.core import game, genesis
from pbem.core.errors import VerificationError

ROOT = Path(__file__).resolve().parents[1]
TEST_RULESETS = {"duel", "blind", "veiled"}


def _number(version: str) -> tuple[int, ...]:
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    return pbem.version_key(version)


def test_this_release_plays_the_ruleset_versions_its_row_records():
    row = pbem.RELEASES[pbem.__version__]
    assert set(row) == set(rulesets.ids()) - TEST_RULESETS
    assert {ruleset_id: rulesets.get(ruleset_id).version for ruleset_id in row} == row


def test_releases_ascend_and_this_one_is_the_newest():
    releases = list(pbem.RELEASES)
    assert [_number(r) for r in releases] == sorted(_number(r) for r in releases)
    assert releases[-1] == pbem.__version__
    for older, newer in zip(releases, releases[1:]):   # a ruleset's version never goes back
        assert all(_number(pbem.RELEASES[newer][r]) >= _number(v) for r, v in pbem.RELEASES[older].items()
                   if r in pbem.RELEASES[newer])


def test_the_package_metadata_has_the_same_version():
    assert re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1) == pbem.__version__


def test_version_line_names_every_ruleset_version():
    assert pbem.version_line() == ("pbem, version " + pbem.__version__ + " (rulesets: " +
                                   ", ".join(f"{r} {v}" for r, v in sorted(pbem.RELEASES[pbem.__version__].items())) + ")")


def _genesis_of(version: str) -> dict:
    document = genesis.sandbox(rulesets.get("chir"), {"seed": "versions"}, created="2026-12-03T10:00:00Z")
    return {**document, "ruleset_version": version}


CHIR = rulesets.get("chir").version
LATER = f"{_number(CHIR)[0] + 1}.0.0"


@pytest.mark.parametrize("releases, made, says", [
    ({"0.1.5": {"chir": "0.9.0"}, "0.2.0": {"chir": CHIR}}, "0.9.0",
     f"the game was made with chir 0.9.0, and this pbem (0.2.0) plays chir {CHIR}; pbem 0.1.5 plays it: install that "
     "release to continue or audit the game"),
    ({"0.1.5": {"chir": "0.9.0"}, "0.1.6": {"chir": "0.9.0"}, "0.2.0": {"chir": CHIR}}, "0.9.0",
     "; pbem 0.1.5 or 0.1.6 plays it: install"),
    ({"0.2.0": {"chir": CHIR}}, "0.9.0",
     "; no release of pbem plays it: the game was made by a development build from before pbem 0.2.0, and only such "
     "a build can continue or audit it"),
    ({"0.2.0": {"chir": CHIR}}, LATER, "; a later release of pbem made it: upgrade pbem to continue or audit the game"),
])
def test_a_game_of_another_ruleset_version_is_refused_with_the_release_that_plays_it(monkeypatch, releases, made, says):
    monkeypatch.setattr(pbem, "RELEASES", releases)
    monkeypatch.setattr(pbem, "__version__", "0.2.0")
    with pytest.raises(VerificationError) as refused:
        game.open_genesis(_genesis_of(made))
    assert refused.value.message.startswith(f"game.yaml: the game was made with chir {made}, and this pbem (0.2.0) "
                                            f"plays chir {CHIR}; ")
    assert says in refused.value.message


@pytest.mark.parametrize("mode", ["sandbox", "secure"])
def test_joining_a_game_another_release_plays_names_the_file_given(tmp_path, monkeypatch, mode):
    """A referee's probe: `pbem join FOLDER mail/old-game.yaml` of a game of another version of
    its ruleset said "game.yaml: the game was made with chir ...", naming a file that was never
    written, not the one given. The refusal names the file given, and no folder is made."""
    from click.testing import CliRunner

    from pbem.cli import cli
    from tests.support.games import Match

    if mode == "sandbox":   # unsigned: its version is what the file says
        document, made, plays = _genesis_of("0.9.0"), "0.9.0", CHIR
        monkeypatch.setattr(pbem, "RELEASES", {"0.1.5": {"chir": "0.9.0"}, "0.2.0": {"chir": CHIR}})
        monkeypatch.setattr(pbem, "__version__", "0.2.0")
    else:                   # signed by both players with this version; this pbem then plays another
        document, made, plays = Match(tmp_path / "players", "chir").genesis, CHIR, LATER
        chir = rulesets.get("chir")
        monkeypatch.setattr(game.rulesets, "get", lambda ruleset_id: chir._replace(version=LATER)
                            if ruleset_id == "chir" else rulesets.get(ruleset_id))
    given = tmp_path / "mail" / "old-game.yaml"
    given.parent.mkdir()
    given.write_text(game.genesis_text(document))
    result = CliRunner().invoke(cli, ["join", str(tmp_path / "follow"), str(given)])
    assert result.exit_code == 3, result.output
    assert result.stderr.startswith(f"pbem: {given}: the game was made with chir {made}, and this pbem "), result.stderr
    assert f"plays chir {plays}; " in result.stderr
    assert not (tmp_path / "follow").exists()
