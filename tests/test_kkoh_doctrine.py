"""K-DOC-2, Soviet style: "Infantry companies within a tank regiment may be attached to any tank
battalion HQ`s. The same for tank companies within an infantry regiment"; the army list adds
"Divisional assets must be allocated to any HQ marker". A scenario attaching a Soviet-style
unit any other way is refused, naming the unit, its host and the rule (kkoh 1.14.0 checked
only that no AA unit was attached). Each refusal here fails on 1.14.0."""

from __future__ import annotations

import pytest

from pbem import rulesets
from tests.test_kkoh_rules import U, table


@pytest.fixture(autouse=True)
def kkoh_registered(monkeypatch):
    monkeypatch.setitem(rulesets.REGISTRY, "kkoh", "pbem.rulesets.kkoh")


def _marker(mid: str, level: str, superior: str | None, square: str) -> dict:
    return {"id": mid, "side": "red", "row": "hq" if level != "battalion" else "bn", "level": level,
            "superior": superior, "square": square}


# a tank regiment (three tank battalions and a motor rifle battalion), an infantry regiment (two
# motor rifle battalions and a tank battalion), a second tank regiment, and the division's own
# reconnaissance; blue has its brigade
COMMANDS = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "brigade", "square": "0000"},
            _marker("R-HQ", "division", None, "0909"),
            _marker("R-TR", "regiment", "R-HQ", "0908"),
            _marker("R-TB1", "battalion", "R-TR", "0907"), _marker("R-TB2", "battalion", "R-TR", "0906"),
            _marker("R-TB3", "battalion", "R-TR", "0905"), _marker("R-TMB", "battalion", "R-TR", "0904"),
            _marker("R-MR", "regiment", "R-HQ", "0809"),
            _marker("R-MB1", "battalion", "R-MR", "0808"), _marker("R-MB2", "battalion", "R-MR", "0807"),
            _marker("R-MTB", "battalion", "R-MR", "0806"),
            _marker("R-TR2", "regiment", "R-HQ", "0709"), _marker("R-T2B1", "battalion", "R-TR2", "0708"),
            _marker("R-LONE", "battalion", "R-HQ", "0707")]
FORMATIONS = {"b": {"hq": "B-HQ"}, "div": {"hq": "R-HQ"}, "tb1": {"hq": "R-TB1"}, "tb2": {"hq": "R-TB2"},
              "tb3": {"hq": "R-TB3"}, "tmb": {"hq": "R-TMB"}, "mb1": {"hq": "R-MB1"}, "mb2": {"hq": "R-MB2"},
              "mtb": {"hq": "R-MTB"}, "t2b1": {"hq": "R-T2B1"}, "lone": {"hq": "R-LONE"}}
# each battalion's own companies: one a square, down the middle of the table
OWN = [("tb1", "tank"), ("tb2", "tank"), ("tb3", "tank"), ("tmb", "ri"), ("mb1", "ri"), ("mb2", "ri"),
       ("mtb", "tank"), ("t2b1", "tank"), ("lone", "ri"), ("div", "recce")]


def scenario(unit: str, row: str, formation: str, host: str, **extra):
    units = [U("B1", "blue", "tank", "0101", "01", "N", formation="b")]
    units += [U(f"R-{f}-{n}", "red", r, f"0{5 + n}0{i}", "01", "S", formation=f)
              for i, (f, r) in enumerate(OWN) for n in range(2)]
    units.append(U(unit, "red", row, "0409", "01", "S", formation=formation, attached_to=host, **extra))
    sc, _ = table(units, commands=COMMANDS, formations=FORMATIONS)
    return sc


@pytest.mark.parametrize("row, formation, host", [
    ("ri", "tmb", "R-TB2"),        # infantry of a tank regiment to a tank battalion of it
    ("tank", "mtb", "R-MB1"),      # a tank company of an infantry regiment to a battalion of it
    ("recce", "div", "R-TB1"),     # the division's own: to any HQ marker
    ("sp", "div", "R-MR"),
    ("ri", "lone", "R-TB1"),       # a battalion of the division's own, of no regiment: the division's own
])
def test_k_doc_2_the_attachments_soviet_doctrine_allows(row, formation, host):
    sc = scenario("X", row, formation, host, **({"level": "bn-bde"} if row == "sp" else {}))
    assert (sc.pieces["X"].hq, sc.pieces["X"].formation, sc.pieces["X"].attached) == (host, formation, True)
    assert (sc._arm("R-TR"), sc._arm("R-MR"), sc._arm("R-TB1"), sc._arm("R-TMB")) == ("tank", "infantry", "tank", "infantry")


@pytest.mark.parametrize("row, formation, host, why", [
    ("ri", "tmb", "R-T2B1", r"outside its own regiment R-TR"),
    ("tank", "mtb", "R-TB1", r"outside its own regiment R-MR"),
    ("ri", "tmb", "R-TR", r"but an infantry company of tank regiment R-TR goes only to one of its tank battalions"),
    ("tank", "mtb", "R-MR", r"but a tank company of infantry regiment R-MR goes only to one of its battalions"),
    ("tank", "tb1", "R-TB2", r"but of R-TR \(a tank regiment\) only infantry companies of a tank regiment and tank "
                             r"companies of an infantry regiment are attached"),
    ("ri", "mb1", "R-MTB", r"but of R-MR \(an infantry regiment\) only infantry companies"),
    ("recce", "tmb", "R-TB1", r"but of R-TR \(a tank regiment\) only"),       # reconnaissance is no tank company
])
def test_k_doc_2_any_other_soviet_attachment_is_refused(row, formation, host, why):
    with pytest.raises(ValueError, match=rf"kkoh scenario: units\.X: attached to {host}, {why}.*\(K-DOC-2\)"):
        scenario("X", row, formation, host)


def test_k_doc_2_nato_units_are_not_held_to_the_soviet_rule():
    """Blue (NATO) attaches across its own formations within K-DOC-1's two; the Soviet rule does
    not reach it."""
    commands = COMMANDS + [{"id": "B-BN1", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-HQ",
                            "square": "0001"}]
    units = [U("B1", "blue", "tank", "0101", "01", "N", formation="b", attached_to="B-BN1"),
             U("R1", "red", "tank", "0909", "01", "S", formation="tb1")]
    sc, _ = table(units, commands=commands, formations=FORMATIONS)
    assert sc.pieces["B1"].hq == "B-BN1"


def test_an_attachment_says_where_from_so_that_k_doc_can_be_checked():
    """A unit marked `attached: true` in its host's formation, with no `attached_to`, said it
    came from elsewhere without saying from where, so no doctrine could be checked (a Soviet tank
    company listed as attached into a motor rifle battalion of another regiment passed): the
    field is gone, and a unit attached to its own formation's HQ is refused."""
    with pytest.raises(ValueError, match=r"units\[0\]: Additional properties are not allowed \('attached' was unexpected\)"):
        table([U("R1", "red", "tank", "0909", "01", "S", formation="mb1", attached=True)],
              commands=COMMANDS, formations=FORMATIONS)
    with pytest.raises(ValueError, match=r"kkoh scenario: units\.X: attached_to 'R-TB1' is the HQ of its own formation "
                                         r"'tb1': a unit is attached to another HQ \(K-DOC-1, K-DOC-2\)"):
        scenario("X", "tank", "tb1", "R-TB1")


NATO_COMMANDS = [{"id": "B-HQ", "side": "blue", "row": "hq", "level": "division", "square": "0000"},
                 {"id": "B-BDE1", "side": "blue", "row": "hq", "level": "brigade", "superior": "B-HQ", "square": "0001"},
                 {"id": "B-BDE2", "side": "blue", "row": "hq", "level": "brigade", "superior": "B-HQ", "square": "0002"},
                 {"id": "B-BN1", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-BDE1", "square": "0003"},
                 {"id": "B-BN2", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-BDE1", "square": "0004"},
                 {"id": "B-BN3", "side": "blue", "row": "bn", "level": "battalion", "superior": "B-BDE2", "square": "0005"},
                 _marker("R-HQ", "division", None, "0909")]
NATO_FORMATIONS = {"div": {"hq": "B-HQ"}, "bde1": {"hq": "B-BDE1"}, "bn1": {"hq": "B-BN1"}, "bn2": {"hq": "B-BN2"},
                   "bn3": {"hq": "B-BN3"}, "r": {"hq": "R-HQ"}}


@pytest.mark.parametrize("formation, host, parent", [("bn1", "B-BN2", None), ("bde1", "B-BN1", None),
                                                     ("div", "B-BN3", None), ("bn1", "B-BN3", "B-BDE1"),
                                                     ("bde1", "B-BN3", "B-BDE1")])
def test_k_doc_1_a_nato_battlegroup_is_formed_within_the_parent_brigade_or_regiment(formation, host, parent):
    """"Each battalion may attach and detach up to two units to form its Battlegroup within the
    parent Brigade or Regiment": within brigade 1 (a battalion's unit or the brigade's own), or
    a unit of the division's own (which the text leaves free), is accepted; into brigade 2's
    battalion, refused (1.14.0 accepted it)."""
    units = [U("X", "blue", "tank", "0101", "01", "N", formation=formation, attached_to=host),
             U("R1", "red", "tank", "0909", "01", "S", formation="r")]
    if parent is None:
        sc, _ = table(units, commands=NATO_COMMANDS, formations=NATO_FORMATIONS)
        assert sc.pieces["X"].hq == host
    else:
        with pytest.raises(ValueError, match=rf"units\.X: attached to {host}, outside its parent {parent}: a NATO "
                                             r"battalion forms its Battlegroup within the parent Brigade or Regiment "
                                             r"\(K-DOC-1\)"):
            table(units, commands=NATO_COMMANDS, formations=NATO_FORMATIONS)


def test_a_chain_of_command_that_loops_is_refused():
    """Markers R-C1 and R-C2 each the other's superior: with one marker a side without a
    superior, 1.14.0 accepted the loop, and looking up the regiment of a unit attached from it
    (K-DOC-2) never ended. A superior is now of a higher level than its marker, so no chain
    loops."""
    commands = COMMANDS + [_marker("R-C1", "battalion", "R-C2", "0101"), _marker("R-C2", "battalion", "R-C1", "0102")]
    with pytest.raises(ValueError, match=r"kkoh scenario: commands\.R-C1: a battalion marker under R-C2, a battalion: "
                                         r"a superior is of a higher level \(division, brigade, regiment, battalion; "
                                         r"K-CMD\)"):
        table([U("B1", "blue", "tank", "0101", "01", "N", formation="b"),
               U("X", "red", "ri", "0505", "01", "S", formation="c1", attached_to="R-TB1")],
              commands=commands, formations=dict(FORMATIONS, c1={"hq": "R-C1"}))


def test_k_doc_2_an_asset_of_the_army_list_goes_to_any_hq_marker():
    """"Divisional assets must be allocated to any HQ marker" (the Soviet list); "brigade asset,
    may be allocated to any HQ" (the NATO lists): a row the list marks `asset` is attached to
    any HQ of its side, whatever its formation, and counts in no battalion's two (a probe: the
    division's artillery regiment's batteries, assets of the list, could not be attached at
    all)."""
    import copy

    from tests import test_kkoh_rules

    armies = copy.deepcopy(test_kkoh_rules.ARMIES)
    for army in armies.values():
        army["rows"] = [dict(row, asset=True) if row["id"] == "sp" else row for row in army["rows"]]
    units = [U("B1", "blue", "tank", "0101", "01", "N", formation="b")]
    units += [U(f"R-{f}-{n}", "red", r, f"0{5 + n}0{i}", "01", "S", formation=f)
              for i, (f, r) in enumerate(OWN) for n in range(2)]
    units.append(U("X", "red", "sp", "0409", "01", "S", formation="tb1", attached_to="R-MB2", level="bn-bde"))
    sc, _ = test_kkoh_rules.make(units, armies=armies, columns=10, rows=10, commands=COMMANDS, formations=FORMATIONS,
                                 blue={"army": "test-nato"}, red={"army": "test-soviet"})
    assert sc.pieces["X"].hq == "R-MB2"
    with pytest.raises(ValueError, match=r"units\.X: attached to R-MB2, outside its own regiment R-TR"):
        scenario("X", "sp", "tb1", "R-MB2", level="bn-bde")      # the same battery, not an asset of the list
    nato = [U("X", "blue", "sp", "0101", "01", "N", formation="bn1", attached_to="B-BN3", level="bn-bde"),
            U("R1", "red", "tank", "0909", "01", "S", formation="r")]
    sc, _ = test_kkoh_rules.make(nato, armies=armies, columns=10, rows=10, commands=NATO_COMMANDS,
                                 formations=NATO_FORMATIONS, blue={"army": "test-nato"}, red={"army": "test-soviet"})
    assert sc.pieces["X"].hq == "B-BN3"     # outside its brigade, as an asset may go


def test_k_doc_2_a_bmp_company_is_infantry_and_a_tied_regiment_takes_either_rule():
    """A review: BMP companies (armour rows with `aifv`) counted as tank companies, so a motor
    rifle regiment's BMPs could go to its other battalions and a tank regiment's could not go
    to its tank battalions; and a regiment fielding as many tank as infantry battalions refused
    the textbook attachment. BMPs are infantry now, and a tied regiment takes either rule."""
    sc = scenario("X", "aifv", "tmb", "R-TB1")          # a tank regiment's BMPs to its tank battalion
    assert sc.pieces["X"].hq == "R-TB1" and sc._tank(sc.pieces["X"]) is False
    with pytest.raises(ValueError, match=r"units\.X: attached to R-MB2, but of R-MR \(an infantry regiment\) only"):
        scenario("X", "aifv", "mb1", "R-MB2")           # a motor rifle regiment's BMPs between its battalions
    commands = COMMANDS + [_marker("R-TR3", "regiment", "R-HQ", "0609"), _marker("R-T3B", "battalion", "R-TR3", "0608"),
                           _marker("R-T3M", "battalion", "R-TR3", "0607")]
    formations = dict(FORMATIONS, t3b={"hq": "R-T3B"}, t3m={"hq": "R-T3M"})
    units = [U("B1", "blue", "tank", "0101", "01", "N", formation="b"),
             U("T1", "red", "tank", "0606", "01", "S", formation="t3b"),
             U("M1", "red", "ri", "0605", "01", "S", formation="t3m"),
             U("M2", "red", "ri", "0604", "01", "S", formation="t3m", attached_to="R-T3B"),
             U("T2", "red", "tank", "0603", "01", "S", formation="t3b", attached_to="R-T3M")]
    sc, _ = table(units, commands=commands, formations=formations)
    assert sc._arm("R-TR3") is None and (sc.pieces["M2"].hq, sc.pieces["T2"].hq) == ("R-T3B", "R-T3M")
