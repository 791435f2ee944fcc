"""chir: 48th Panzer Korps: Battles on the River Chir (December 1942).

Every rule of the rulebook (1.0-14.0) is implemented; README.md lists them section by
section with every decision point, its legal options and its standing order, and the
readings chosen where the text is ambiguous or contradicts itself.
"""

from __future__ import annotations

from ..base import Ruleset
from . import draw, flow, heuristics, report, scenario
from .orders import DEFAULT_POLICIES, ORDER_SCHEMA, POLICY_SCHEMA

RULESET = Ruleset(
    id="chir",
    version="1.19.0",
    title="48th Panzer Korps: Battles on the River Chir",
    # The German player sets up first (3.2), so German sends packet 1; packets then
    # alternate, while each game turn begins with the Soviet player-turn (5.0).
    sides=("german", "soviet"),
    scenarios={"historical": scenario.load_historical},
    default_scenario="historical",
    options={"never_soviet_city_multiplier": False, "line_never_cut": False},  # 14.0, by agreement
    order_schema=ORDER_SCHEMA,
    policy_schema=POLICY_SCHEMA,
    default_policies=DEFAULT_POLICIES,
    # the world the genesis fixes (scenario.py); the rules state holds what play changes (state.py)
    scenario=scenario.build,
    setup=flow.setup_rules,
    next_step=flow.next_step,
    apply=flow.apply,
    legal_orders=flow.legal_orders,
    policy=flow.policy,
    summary=report.summary,
    render=report.render,
    describe_need=report.describe_need,
    view=report.view,
    look=report.look,
    draw=draw.draw,  # the board as a scene for core/render
    cautions=flow.cautions,
    result_key=report.result_key,
    bot=heuristics.HEURISTICS,
)
