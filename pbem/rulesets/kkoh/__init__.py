"""kkoh: Kalt Krieg ohne Hass (Cold War brigade-level miniatures on 1 km squares).

Every rule of the rulebook is implemented; README.md maps every line of the acceptance
checklist to the code and test that carry it, records the reading adopted for each table
rebuilt from its flattened lines, and lists every decision point with its legal options
and standing order.
"""

from __future__ import annotations

from ..base import Ruleset
from . import command, draw, flow, report, scenario, words
from .orders import DEFAULT_POLICIES, ORDER_SCHEMA, POLICY_SCHEMA

RULESET = Ruleset(
    id="kkoh",
    version="1.29.0",
    title="Kalt Krieg ohne Hass",
    # blue sends packet 1; red answers the automatic initiative decision of state 0 (README)
    sides=scenario.SIDES,
    scenarios={"pz-brigade": scenario.load_historical},
    default_scenario="pz-brigade",
    options={},
    order_schema=ORDER_SCHEMA,
    policy_schema=POLICY_SCHEMA,
    default_policies=DEFAULT_POLICIES,
    scenario=scenario.build,
    setup=flow.setup_rules,
    next_step=flow.next_step,
    apply=flow.apply,
    legal_orders=flow.legal_orders,
    listing=flow.listing,
    sealed_listing=flow.sealed_listing,
    cautions=flow.cautions,
    policy=flow.policy,
    summary=report.summary,
    render=report.render,
    describe_need=report.describe_need,
    result_key=report.result_key,
    draw=draw.draw,
    view=words.view,
    look=words.look,
    look_own=words.look,
    seal_items=command.seal_items,
    sealed_steps=True,
)
