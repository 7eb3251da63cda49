"""The MuJoCo C throughput probe steps the same robot under the same PD law as training, so its speed is a fair
ceiling: the servo's torque is the task's PD law clipped at the motors' limits, and under zero actions every world
stands at the robot's height."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from mujoco import rollout

from locolab.assets import GO2_SPEC
from locolab.bench.mujoco_c_throughput import (BASE_HEIGHT, default_targets, mujoco_c_steps_per_s,
                                              position_servo_model)

STIFFNESS, DAMPING, PHYSICS_DT = 50.0, 1.0, 0.005


@pytest.fixture(scope="module")
def servo():
    return position_servo_model(STIFFNESS, DAMPING, PHYSICS_DT)


def test_the_servo_applies_the_pd_law_and_the_motor_limits(servo):
    model, standing = servo
    data = mujoco.MjData(model)
    mujoco.mj_setState(model, data, standing, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    joints = model.actuator_trnid[:, 0]
    qpos, dofs = model.jnt_qposadr[joints], model.jnt_dofadr[joints]
    generator = np.random.default_rng(0)
    data.qvel[dofs] = generator.uniform(-2.0, 2.0, model.nu)
    data.ctrl[:] = data.qpos[qpos] + generator.uniform(-0.05, 0.05, model.nu)
    mujoco.mj_forward(model, data)
    expected = STIFFNESS * (data.ctrl - data.qpos[qpos]) - DAMPING * data.qvel[dofs]
    np.testing.assert_allclose(data.qfrc_actuator[dofs], expected, rtol=1e-9, atol=1e-9)

    data.ctrl[:] = data.qpos[qpos] + 3.0  # far beyond what the motors can push toward
    mujoco.mj_forward(model, data)
    limits = [GO2_SPEC.joint("FL", name.split("_")[1]).effort_limit
              for name in (mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, int(j)) for j in joints)]
    np.testing.assert_allclose(data.qfrc_actuator[dofs], limits, rtol=1e-9)


def test_under_zero_actions_every_world_stands_at_the_robots_height(servo):
    model, standing = servo
    assert model.opt.timestep == PHYSICS_DT
    worlds, control_steps, decimation = 4, 100, 4  # 2 s
    targets = np.tile(default_targets(model), (worlds, 1, 1))
    with rollout.Rollout(nthread=2) as runner:
        states, _ = runner.rollout(model, [mujoco.MjData(model) for _ in range(2)], np.tile(standing, (worlds, 1)),
                                   targets, nstep=control_steps * decimation)
    heights = states[:, -1, BASE_HEIGHT]
    np.testing.assert_allclose(heights, heights[0], atol=1e-9)  # the worlds are the same robot, stepped alike
    assert abs(heights[0] - GO2_SPEC.standing_height()) < 0.03, heights[0]


@pytest.mark.parametrize("threads", [1, 2])
def test_the_probe_reports_env_steps_per_second_under_random_actions(threads):
    steps_per_s = mujoco_c_steps_per_s(num_envs=8, steps=5, threads=threads, stiffness=STIFFNESS, damping=DAMPING,
                                       physics_dt=PHYSICS_DT, decimation=4, action_scale=0.25, warmup=2)
    assert math.isfinite(steps_per_s) and steps_per_s > 0
