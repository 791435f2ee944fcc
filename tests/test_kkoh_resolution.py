"""The rule that makes the dice fair (DESIGN §3.6) for kkoh, as tests/test_resolution.py checks
it for the rulesets it lists: what segment k decides is a function of state k-1 and v_k
alone. Any other legal packet k (empty, other standing orders, orders reversed or doubled, the
standing order's answer given by hand) changes no roll of segment k and nothing it decided."""

from __future__ import annotations

import pytest

from tests import test_resolution


@pytest.mark.parametrize("seed", ["a"])
def test_what_segment_k_decides_in_kkoh_depends_on_state_k_minus_1_and_v_k_alone(seed):
    test_resolution.test_what_segment_k_decides_depends_on_state_k_minus_1_and_v_k_alone("kkoh", 60, seed)
