"""chir: 48th Panzer Korps: Battles on the River Chir (December 1942).

Every rule of the rulebook (1.0-14.0) is implemented; README.md lists them section by
section with every decision point, its legal options and its standing order, and the
readings chosen where the text is ambiguous or contradicts itself.
"""

from __future__ import annotations

import copy

from ..base import Ruleset, document_scenario
from . import flow, report, scenario
from .orders import DEFAULT_POLICIES, ORDER_SCHEMA, POLICY_SCHEMA

RULESET = Ruleset(
    id="chir",
    version="1.1.0",
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
    # Until its world moves into a scenario object of its own, the scenario is the
    # document and the options, and the rules keep the rest.
    scenario=document_scenario,
    setup=lambda scenario_: flow.setup_rules(*copy.deepcopy(scenario_)),
    next_step=lambda scenario_, rules: flow.next_step(rules),
    apply=lambda scenario_, rules, need, order, ctx: flow.apply(rules, need, order, ctx),
    legal_orders=lambda scenario_, rules, need: flow.legal_orders(rules, need),
    policy=lambda scenario_, rules, need, policies: flow.policy(rules, need, policies),
    summary=lambda scenario_, rules: report.summary(rules),
    render=lambda scenario_, rules: report.render(rules),
    describe_need=lambda scenario_, rules, need: report.describe_need(rules, need),
)
