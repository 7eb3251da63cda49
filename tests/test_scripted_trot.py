"""The robot can walk in the training simulator: an open-loop trot through the task's own actuators moves it forward.

Measured in MuJoCo's C engine on the generated MJCF (same gait, PD 50 / 1.0, motor limits): 0.73 m/s at 3 Hz,
0.54 m/s at 2 Hz. Newton with the CPU profile's physics: 0.66 and 0.53 m/s. The gait metrics of locolab.eval.metrics see it as a
trot: 3.4 touchdowns per foot and second, diagonal feet in the same contact state 89 % of the time, lateral ones 19 %.
"""

from __future__ import annotations

import pytest

from conftest import last_json, run_script

pytestmark = pytest.mark.slow


def test_open_loop_trot_walks_forward_in_newton_without_a_fall():
    result = run_script("tests/probe_scripted_trot.py", "--frequency", "3", "--seconds", "5")
    assert result.returncode == 0, result.stderr[-3000:]
    trot = last_json(result.stdout)
    assert trot["falls"] == 0
    assert trot["forward_velocity"] >= 0.5
    assert abs(trot["lateral_velocity"]) < 0.1  # straight: the diagonal pairs push symmetrically
    assert trot["base_height_min"] > 0.2
    assert 2.5 <= trot["touchdown_rate"] <= 4.5  # one touchdown per foot and 3 Hz cycle, a few bounces
    assert trot["diagonal_contact_agreement"] >= 0.8
    assert trot["lateral_contact_agreement"] <= 0.3
