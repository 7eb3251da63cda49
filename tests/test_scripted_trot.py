"""The robot can walk in the training simulator: an open-loop trot through the task's own actuators moves it forward.

Measured in MuJoCo's C engine on the generated MJCF (same gait, PD 50 / 1.0, motor limits): 0.73 m/s at 3 Hz,
0.54 m/s at 2 Hz. Newton with the CPU profile's physics: 0.66 and 0.53 m/s. The gait metrics of locolab.envs.metrics
see it as a trot: 3.4 touchdowns per foot and second, diagonal feet in the same contact state 89 % of the time,
lateral ones 19 %. The trot gait reward of the CPU profile (`trot_gait_weight`, kernel width `trot_gait_std` 0.01) pays
it 0.42 a step (of at most 1), the same legs bounding 0.02 (with Spot's width 0.1: 0.78 and 0.27).
"""

from __future__ import annotations

import pytest

from conftest import last_json, run_script

pytestmark = pytest.mark.slow


def scripted_gait(gait: str) -> dict:
    result = run_script("tests/probe_scripted_trot.py", "--gait", gait, "--frequency", "3", "--seconds", "5")
    assert result.returncode == 0, result.stderr[-3000:]
    return last_json(result.stdout)


@pytest.fixture(scope="module")
def trot() -> dict:
    return scripted_gait("trot")


def test_open_loop_trot_walks_forward_in_newton_without_a_fall(trot):
    assert trot["falls"] == 0
    assert trot["forward_velocity"] >= 0.5
    assert abs(trot["lateral_velocity"]) < 0.1  # straight: the diagonal pairs push symmetrically
    assert trot["base_height_min"] > 0.2
    assert 2.5 <= trot["touchdown_rate"] <= 4.5  # one touchdown per foot and 3 Hz cycle, a few bounces
    assert trot["diagonal_contact_agreement"] >= 0.8
    assert trot["lateral_contact_agreement"] <= 0.3


def test_the_trot_gait_reward_pays_a_trot_and_not_a_bound(trot):
    bound = scripted_gait("bound")
    assert bound["lateral_contact_agreement"] >= 0.8 and bound["diagonal_contact_agreement"] <= 0.4  # it bounds
    assert trot["trot_gait_reward"] >= 0.3
    assert bound["trot_gait_reward"] <= 0.1 * trot["trot_gait_reward"]
