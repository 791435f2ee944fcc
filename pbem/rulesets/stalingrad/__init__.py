"""stalingrad: the city fight of 1942, an area-movement game.

The rules of the fragment (10.3 retreat, 11.0 reinforcements and withdrawal) are
implemented exactly; everything else is a compact frame of pbem house rules, marked as
such in README.md, in code comments and with `house_rule=True` on events.
"""

from __future__ import annotations

import copy

from ..base import Ruleset, document_scenario
from . import flow, report, scenario
from .orders import DEFAULT_POLICIES, ORDER_SCHEMA, POLICY_SCHEMA

RULESET = Ruleset(
    id="stalingrad",
    version="1.0.0",
    title="Stalingrad city fight (area movement; rules fragment 10.3 and 11.0 with house rules)",
    sides=("german", "soviet"),
    scenarios={"city-1942": scenario.load_city_1942},
    default_scenario="city-1942",
    options={},
    order_schema=ORDER_SCHEMA,
    policy_schema=POLICY_SCHEMA,
    default_policies=DEFAULT_POLICIES,
    # Until its world moves into a scenario object of its own, the scenario is the
    # document and the options, and the rules keep the rest.
    scenario=document_scenario,
    setup=lambda scenario_: scenario.setup(*copy.deepcopy(scenario_)),
    next_step=lambda scenario_, rules: flow.next_step(rules),
    apply=lambda scenario_, rules, need, order, ctx: flow.apply(rules, need, order, ctx),
    legal_orders=lambda scenario_, rules, need: flow.legal_orders(rules, need),
    policy=lambda scenario_, rules, need, policies: flow.policy(rules, need, policies),
    summary=lambda scenario_, rules: report.summary(rules),
    render=lambda scenario_, rules: report.render(rules),
    describe_need=lambda scenario_, rules, need: report.describe_need(rules, need),
)
