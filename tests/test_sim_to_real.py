"""The sim-to-real effects reach the physics engine (read from its own model and Newton's actuators), the delay
shifts a step input by its number of physics steps, and the policy's gyroscope carries its bias: in both engines."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import probe_report

pytestmark = pytest.mark.slow

JUMP = 8.0
"""A torque change [N m] between physics steps that only the target's jump (about 15 N m) makes; the standing
robot's own torques change by under 5 N m a step."""


@pytest.fixture(scope="module", params=["mujoco_warp", "mujoco_c"])
def probe(request) -> dict:
    return probe_report("tests/probe_sim_to_real.py", "--engine", request.param)


def test_the_feet_have_torsional_and_rolling_friction_in_the_engines_model(probe):
    model, sampled = probe["engine_model"], probe["sampled"]
    assert model["feet_per_world"] == [4] * 8  # condim 6 on the four feet, in every world
    assert np.allclose(model["torsional"], sampled["foot_torsional_friction"], atol=1e-6)
    assert np.allclose(model["rolling"], sampled["foot_rolling_friction"], atol=1e-6)
    assert np.ptp(sampled["foot_torsional_friction"]) > 0.01  # per robot, not one value


def test_joint_damping_and_friction_loss_are_the_engines_per_world(probe):
    model, sampled = probe["engine_model"], probe["sampled"]
    for field, name in (("damping", "joint_damping"), ("frictionloss", "joint_friction")):
        per_world = np.asarray(model[field])
        assert per_world.shape == (8, 12)
        assert np.allclose(per_world, np.asarray(sampled[name])[:, None], atol=1e-6), field
        assert np.ptp(sampled[name]) > 0.05


def test_newtons_actuators_hold_each_robots_delay(probe):
    delays = np.asarray(probe["newton_delays"])
    assert np.array_equal(delays, np.repeat(np.asarray(probe["sampled"]["action_delay"])[:, None], 12, axis=1))
    assert set(probe["sampled"]["action_delay"]) <= {0.0, 1.0, 2.0, 3.0, 4.0}


def test_a_step_input_reaches_the_motor_after_its_delay(probe):
    torques = np.asarray(probe["torques"])  # [physics step, robot, dof]
    change = np.abs(np.diff(torques, axis=0)).max(axis=2)
    jump_step = probe["physics_steps_per_control_step"]  # one control step before the jump was recorded
    for robot, delay in enumerate(probe["delays"]):
        first = int(np.flatnonzero(change[:, robot] > JUMP)[0]) + 1
        assert first == jump_step + delay, (robot, delay, change[:, robot].round(1).tolist())


def test_the_policys_gyroscope_carries_the_held_bias_and_a_bounded_drift(probe):
    offsets = np.asarray(probe["gyro_offsets"])  # [step, robot, axis]: policy minus the critic's true velocity
    bias = probe["gyro_bias"]
    drift = offsets - bias
    assert np.abs(drift).max() <= 0.05 + 1e-5  # the drift's limit
    assert np.abs(drift.mean()) < 0.01 and np.abs(drift).max() > 1e-3  # it wanders, around the bias
    assert np.abs(np.diff(offsets, axis=0)).max() < 0.01  # slowly: 5 sigma of a 0.005 rad/s/sqrt(s) walk over 20 ms
    assert np.allclose(probe["gyro_bias_read_back"], bias, atol=1e-7)  # what the observation added, drift aside
