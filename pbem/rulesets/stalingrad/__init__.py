"""stalingrad: the city fight of 1942, an area-movement game.

Every sentence of the fragment's rules (10.3 retreat, 11.0 reinforcements and withdrawal)
is implemented, its silences read as house clarifications; everything else is a compact
frame of pbem house rules, marked as such in README.md, in code comments and with
`house_rule=True` on events.
"""

from __future__ import annotations

from ..base import Ruleset
from . import draw, flow, heuristics, report, scenario
from .orders import DEFAULT_POLICIES, ORDER_SCHEMA, POLICY_SCHEMA, POLICY_SIDES

RULESET = Ruleset(
    id="stalingrad",
    version="1.17.0",
    title="Stalingrad city fight (area movement; rules fragment 10.3 and 11.0 with house rules)",
    sides=("german", "soviet"),
    scenarios={"city-1942": scenario.load_city_1942},
    default_scenario="city-1942",
    options={},
    order_schema=ORDER_SCHEMA,
    policy_schema=POLICY_SCHEMA,
    default_policies=DEFAULT_POLICIES,
    policy_sides=POLICY_SIDES,
    scenario=scenario.build,
    setup=scenario.setup,
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
    bot=heuristics.HEURISTICS,
)
