"""sim2sim's sim-to-real effects: each option reaches MuJoCo's model or the loop (read back from MuJoCo, or seen in the
torques it applies), the realism profile sets them all, and a bad value is a one-line error. MuJoCo only."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from locolab.assets import GO2_SPEC, ensure_robot_files
from locolab.eval.robot_effects import REALISTIC, RobotEffects, TargetDelay, torque_limits
from locolab.eval.sim2sim import MujocoRobot, run_sim2sim

POLICY_JOINTS = [f"{leg}_{part}_joint" for part in ("hip", "thigh", "calf") for leg in ("FL", "FR", "RL", "RR")]


def robot_with(effects: RobotEffects) -> MujocoRobot:
    return MujocoRobot(ensure_robot_files().mjcf, POLICY_JOINTS, effects=effects)


def test_the_realism_profile_is_in_mujocos_model():
    robot = robot_with(REALISTIC)
    model, feet = robot.model, robot.feet
    assert len(feet) == 4 and (model.geom_condim[feet] == 6).all()
    others = np.setdiff1d(np.arange(model.ngeom), feet)
    assert (model.geom_condim[others] == 3).all()  # only the feet
    assert np.allclose(model.geom_friction[feet, 1], 0.02) and np.allclose(model.geom_friction[feet, 2], 0.01)
    assert np.allclose(model.dof_damping[robot.dof_adr], 0.1)
    assert np.allclose(model.dof_frictionloss[robot.dof_adr], 0.2)
    assert not model.dof_damping[:6].any()  # the free base has none
    default = robot_with(RobotEffects()).model
    assert (default.geom_condim == 3).all() and not default.dof_damping.any() and not default.dof_frictionloss.any()


@pytest.mark.parametrize("field,value,read", [
    ("foot_condim", 4, lambda robot: robot.model.geom_condim[robot.feet]),
    ("foot_torsional_friction", 0.03, lambda robot: robot.model.geom_friction[robot.feet, 1]),
    ("foot_rolling_friction", 0.004, lambda robot: robot.model.geom_friction[robot.feet, 2]),
    ("joint_damping", 0.25, lambda robot: robot.model.dof_damping[robot.dof_adr]),
    ("joint_friction", 0.35, lambda robot: robot.model.dof_frictionloss[robot.dof_adr]),
])
def test_each_model_option_is_read_back_from_mujoco(field, value, read):
    assert np.allclose(read(robot_with(RobotEffects(**{field: value}))), value)


@pytest.mark.parametrize("bias", [0.07, -0.04])
def test_the_gyroscope_reads_its_bias(bias):
    robot = robot_with(RobotEffects(gyro_bias=bias))
    robot.reset(np.zeros(12))
    robot.data.qvel[3:6] = [0.3, -0.2, 0.5]
    mujoco.mj_forward(robot.model, robot.data)
    truth = robot.data.sensordata[robot.gyro]
    np.testing.assert_allclose(robot.state(np.zeros(3)).ang_vel, truth + bias, atol=1e-6)


def test_the_target_delay_shifts_a_step_input_by_its_steps():
    delay = TargetDelay(3)
    applied = [delay(np.array([1.0 if step >= 5 else 0.0]))[0] for step in range(12)]
    assert applied == [0.0] * 8 + [1.0] * 4  # the jump given at step 5 acts at step 8
    delay.reset()
    assert delay(np.array([2.0]))[0] == 2.0  # after a reset: the first target at once


def test_the_dc_motor_envelope():
    effort, limit = np.array([20.0, 20.0, 20.0, 20.0]), np.array([10.0, 10.0, 10.0, 10.0])
    low, high = torque_limits(effort, limit, np.array([0.0, 5.0, 10.0, -5.0]))
    np.testing.assert_allclose(high, [20.0, 10.0, 0.0, 20.0])  # driving forward, torque falls with speed
    np.testing.assert_allclose(low, [-20.0, -20.0, -20.0, -10.0])


class StepController:
    """Asks for the default pose, then (from control step 25 on) the first joint 0.3 rad further."""

    def __init__(self) -> None:
        self.default_joint_pos = np.array([GO2_SPEC.default_joint_pos()[name] for name in POLICY_JOINTS])
        self.metadata = {"joint_names": POLICY_JOINTS, "control_period_s": 0.02,
                         "pd_gains": {"stiffness": [30.0] * 12, "damping": [0.5] * 12}, "effort_limit": [40.0] * 12,
                         "velocity_limit": [30.0] * 12}
        self.steps = 0

    def reset(self) -> None:
        pass

    def step(self, state) -> np.ndarray:
        self.steps += 1
        return self.default_joint_pos + (0.3 if self.steps > 25 else 0.0) * np.eye(12)[0]


def first_torque_jump(effects: RobotEffects) -> int:
    """The physics step at which the first joint's torque jumps by more than 5 N m (the 0.3 rad step: 9 N m)."""
    torques = []
    run_sim2sim(StepController(), ensure_robot_files().mjcf, seconds=0.7, command=(0.0, 0.0, 0.0),
                disturbance=lambda robot, _: torques.append(robot.data.ctrl[robot.actuators[0]]), effects=effects)
    return int(np.flatnonzero(np.abs(np.diff(torques)) > 5.0)[0])


def test_the_latency_delays_the_motors_by_its_physics_steps():
    assert first_torque_jump(RobotEffects(latency_ms=15.0)) - first_torque_jump(RobotEffects()) == 3


@pytest.mark.parametrize("option,message", [
    (["--foot_condim", "5"], "--foot_condim 5: MuJoCo takes 1, 3, 4, 6."),
    (["--latency_ms", "7"], "--latency_ms 7: give a multiple of the physics step (5 ms)."),
    (["--joint_damping", "-1"], "--joint_damping -1.0: give a finite number, at least 0."),
    (["--gyro_bias", "nan"], "--gyro_bias nan: give a finite number."),
    (["--gyro_noise", "-0.1"], "--gyro_noise -0.1: give a finite number, at least 0."),
])
def test_bad_values_are_one_line_errors(option, message, capsys, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("sim2sim_script", "scripts/sim2sim.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--policy", str(tmp_path), *option]) == 2
    assert capsys.readouterr().err.strip() == f"error: {message}"
