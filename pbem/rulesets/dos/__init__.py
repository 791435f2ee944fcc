"""dos: Drive on Stalingrad (SPI 1977) with the errata of 19 May 1978.

Every numbered case of the rulebook is implemented or marked not applicable with its reason;
README.md lists them case by case (the acceptance checklist's lines), every decision point
with its legal options and standing order, and the readings chosen where the text is
ambiguous or contradicts itself. The map, counters and charts the text lacks are
reconstructed in data/ (see data/README.md).
"""

from __future__ import annotations

from ..base import Ruleset
from . import draw, flow, report, scenario, words
from .orders import DEFAULT_POLICIES, ORDER_SCHEMA, POLICY_SCHEMA, POLICY_SIDES

RULESET = Ruleset(
    id="dos",
    version="1.29.0",
    title="Drive on Stalingrad",
    # The Axis player sends packet 1; the Soviet initial force is drawn with the dice that
    # packet 2 (the Soviet player's) unlocks, so the Soviet player sees it before he sets up.
    sides=("axis", "soviet"),
    scenarios={"historical": scenario.load_historical},
    default_scenario="historical",
    options={"hitler_directives": True},     # 16.0: may be dropped by agreement
    order_schema=ORDER_SCHEMA,
    policy_schema=POLICY_SCHEMA,
    default_policies=DEFAULT_POLICIES,
    policy_sides=POLICY_SIDES,
    scenario=scenario.build,
    share_strings=scenario.Scenario.share_strings,
    setup=flow.setup_rules,
    next_step=flow.next_step,
    apply=flow.apply,
    legal_orders=flow.legal_orders,
    listing=flow.listing,
    cautions=flow.cautions,
    result_key=report.result_key,
    policy=flow.policy,
    summary=report.summary,
    render=report.render,
    describe_need=report.describe_need,
    view=words.view,
    look=words.look,
    draw=draw.draw,  # the game-map as a scene for core/render
)
