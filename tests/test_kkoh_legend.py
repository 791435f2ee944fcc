"""The kkoh picture's legend cites the rule of each terrain feature (players' probe: woods
were cited as K-TER-5, the steep ridges' rule)."""

from __future__ import annotations

from pbem.core.text import cites
from pbem.rulesets.kkoh import draw

# the rules of the terrain section (rulebook "Terrain", as the acceptance list numbers it): K-TER-2 the
# linear features, K-TER-3 roads, K-TER-4 to K-TER-10 the area features one by one
RULE = {"woods": "K-TER-7", "light-woods": "K-TER-9", "bua": "K-TER-6", "marsh": "K-TER-8", "ridge": "K-TER-4",
        "steep-ridge": "K-TER-5", "impassable": "K-TER-10", "river": "K-TER-2", "stream": "K-TER-2",
        "wadi": "K-TER-2", "ditch": "K-TER-2", "road": "K-TER-3"}


def test_each_terrain_of_the_legend_cites_its_own_rule_and_no_other():
    for name, rule in RULE.items():
        label = draw.STYLES[name]["label"]
        assert cites(label, rule), (name, label)
        assert [r for r in set(RULE.values()) - {rule} if cites(label, r)] == [], (name, label)
    assert draw.STYLES["woods"]["label"] == "Woods (K-TER-7)"
