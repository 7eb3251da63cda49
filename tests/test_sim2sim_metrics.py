"""sim2sim's MuJoCo robot and metrics, pinned without a trained policy: friction, payload and contact softness reach
MuJoCo's model, the fall rule, a default-pose PD controller stands still, and the velocity error and distance of a
base driven at a scripted constant velocity."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from conftest import run_script

from locolab.assets import GO2_SPEC, ensure_robot_files
from locolab.eval.sim2sim import MujocoRobot, run_sim2sim

JOINTS = GO2_SPEC.joint_names()


@pytest.fixture(scope="module")
def mjcf():
    return ensure_robot_files().mjcf


class DefaultPoseController:
    """A stand-in for PolicyRuntime that always asks for the default pose (what a zero action means)."""

    def __init__(self) -> None:
        self.default_joint_pos = np.array([GO2_SPEC.default_joint_pos()[n] for n in JOINTS], dtype=np.float32)
        self.metadata = {
            "joint_names": JOINTS,
            "pd_gains": {"stiffness": [50.0] * 12, "damping": [1.0] * 12},
            "effort_limit": [GO2_SPEC.joint(n[:2], n.split("_")[1]).effort_limit for n in JOINTS],
            "control_period_s": 0.02,
        }
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1

    def step(self, state) -> np.ndarray:
        return self.default_joint_pos


def test_friction_and_payload_are_in_mujocos_model(mjcf):
    plain = MujocoRobot(mjcf, JOINTS)
    loaded = MujocoRobot(mjcf, JOINTS, friction=0.4, payload_kg=2.0)
    assert np.all(loaded.model.geom_friction[:, 0] == pytest.approx(0.4))
    assert not np.all(plain.model.geom_friction[:, 0] == pytest.approx(0.4))
    assert loaded.model.body_mass[loaded.base] == pytest.approx(plain.model.body_mass[plain.base] + 2.0)
    assert loaded.model.body_mass.sum() == pytest.approx(plain.model.body_mass.sum() + 2.0)


def test_a_softer_contact_time_constant_lets_the_standing_robot_sink(mjcf):
    settled = {}  # base height after the last physics step, per time constant
    for time_constant in (0.01, 0.03):
        robot = MujocoRobot(mjcf, JOINTS, contact_time_constant=time_constant)
        assert np.all(robot.model.geom_solref[:, 0] == pytest.approx(time_constant))

        def record(robot: MujocoRobot, _: float, time_constant: float = time_constant) -> None:
            settled[time_constant] = robot.data.xpos[robot.base, 2]

        run_sim2sim(DefaultPoseController(), mjcf, seconds=2.0, command=(0.0, 0.0, 0.0),
                    contact_time_constant=time_constant, disturbance=record)
    assert settled[0.03] < settled[0.01] - 0.003  # measured 0.286 vs 0.293 m


def test_contact_time_constants_that_mujoco_would_change_are_refused(mjcf):
    with pytest.raises(ValueError, match="under two physics steps.*at least 0.01 s"):
        MujocoRobot(mjcf, JOINTS, contact_time_constant=0.005)
    result = run_script("sim2sim.py", "--policy", "unused", "--contact_time_constant", "nan")
    assert result.returncode == 2 and "take finite numbers" in result.stderr


def test_fall_rule_on_a_tipped_pose_and_a_low_base(mjcf):
    robot = MujocoRobot(mjcf, JOINTS)
    default = DefaultPoseController().default_joint_pos
    robot.reset(default)
    assert not robot.fallen()
    for roll_deg, fallen in ((50.0, False), (70.0, True), (180.0, True)):
        robot.reset(default)
        half = math.radians(roll_deg) / 2
        robot.data.qpos[3:7] = [math.cos(half), math.sin(half), 0.0, 0.0]
        mujoco.mj_forward(robot.model, robot.data)
        assert robot.fallen() is fallen, roll_deg
    robot.reset(default)
    robot.data.qpos[2] = 0.1
    mujoco.mj_forward(robot.model, robot.data)
    assert robot.fallen()


def test_a_default_pose_pd_controller_stands_without_a_fall_and_near_zero_velocity(mjcf):
    result = run_sim2sim(DefaultPoseController(), mjcf, seconds=4.0, command=(0.0, 0.0, 0.0))
    assert result.falls == 0 and result.time_upright == pytest.approx(4.0)
    assert result.lin_vel_error < 0.05 and result.ang_vel_error < 0.05
    assert result.distance < 0.05


def test_velocity_error_and_distance_of_a_base_moved_at_a_scripted_constant_velocity(mjcf):
    speed = 0.3

    def carry_forward(robot: MujocoRobot, time_s: float) -> None:
        # the base's world velocity held at (speed, 0, 0), no rotation; the robot faces +x in the MJCF
        robot.data.qvel[0:6] = [speed, 0.0, 0.0, 0.0, 0.0, 0.0]
        robot.data.qpos[3:7] = [1.0, 0.0, 0.0, 0.0]

    seconds = 3.0
    result = run_sim2sim(DefaultPoseController(), mjcf, seconds=seconds, command=(0.5, 0.0, 0.0),
                         disturbance=carry_forward)
    assert result.falls == 0
    assert result.mean_base_velocity[0] == pytest.approx(speed, abs=0.02)
    assert result.lin_vel_error == pytest.approx(0.5 - speed, abs=0.02)
    assert result.distance == pytest.approx(speed * seconds, rel=0.05)
