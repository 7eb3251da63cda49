"""sim2sim's MuJoCo robot reports what the robot's sensors would, checked against ground truth worked out here from
first principles: the base placed in known poses and moving at known rates, the joints set one by one by name, and
every field of :class:`locolab.deploy.RobotState` (and the metrics' base velocity and the PD loop's torques) compared
in the policy's own joint order, which is not the MJCF's. MuJoCo only: no Isaac Lab, no policy, no training."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from locolab.assets import GO2_SPEC, ensure_robot_files
from locolab.eval.sim2sim import MujocoRobot, run_sim2sim

MJCF_JOINTS = GO2_SPEC.joint_names()
"""The MJCF's joint order: leg by leg."""
POLICY_JOINTS = [f"{leg}_{part}_joint" for part in ("hip", "thigh", "calf") for leg in ("FL", "FR", "RL", "RR")]
"""A policy's joint order, grouped by part as Isaac Lab's articulation reports the Go2's joints: not the MJCF's."""
JOINT_POS = {name: value for name, value in zip(MJCF_JOINTS, [
    0.11, 0.63, -1.31, -0.12, 0.74, -1.42, 0.13, 0.85, -1.53, -0.14, 0.96, -1.64])}
"""Distinct joint angles [rad], inside every joint's range, so that any mix-up of joints shows."""
JOINT_VEL = {name: value for name, value in zip(MJCF_JOINTS, [
    1.5, -2.5, 3.5, -0.5, 0.25, -1.75, 2.75, -3.25, 0.75, -1.25, 2.25, -2.9])}
"""Distinct joint velocities [rad/s]."""
ATOL = RTOL = 1e-6
"""RobotState holds float32: its rounding (a relative 6e-8) is the only error allowed."""

POSES = {  # (roll, pitch, yaw) [rad]
    "level": (0.0, 0.0, 0.0),
    "rolled": (0.5, 0.0, 0.0),
    "pitched": (0.0, -0.4, 0.0),
    "yawed": (0.0, 0.0, 2.0),
    "rolled_pitched_yawed": (0.3, -0.4, 2.0),
    "upside_down": (math.pi, 0.2, -1.0),
}
ANG_VEL_WORLD = np.array([0.7, -1.1, 1.6])
"""The base's angular velocity in the world frame [rad/s]: not along z, so any frame mix-up shows."""
LIN_VEL_WORLD = np.array([0.4, -0.25, 0.1])
"""The base origin's velocity in the world frame [m/s]."""


def rotation_x(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rotation_y(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rotation_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def euler_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Base-to-world rotation of intrinsic z-y'-x'' (yaw, pitch, roll) angles: its columns are the base's axes."""
    return rotation_z(yaw) @ rotation_y(pitch) @ rotation_x(roll)


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of (w, x, y, z) quaternions."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def euler_quat(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """The (w, x, y, z) quaternion of :func:`euler_matrix`, composed from the three axis rotations' half angles."""
    def axis_angle(axis: int, angle: float) -> np.ndarray:
        quat = np.zeros(4)
        quat[0], quat[1 + axis] = math.cos(angle / 2), math.sin(angle / 2)
        return quat

    return quat_multiply(quat_multiply(axis_angle(2, yaw), axis_angle(1, pitch)), axis_angle(0, roll))


def rotate_into_base(quat: np.ndarray, vector) -> np.ndarray:
    """A world-frame vector seen from a base of orientation ``quat`` (w, x, y, z): q* (0, v) q, by quaternion products
    rather than a rotation matrix."""
    conjugate = quat * np.array([1.0, -1.0, -1.0, -1.0])
    return quat_multiply(quat_multiply(conjugate, np.concatenate([[0.0], vector])), quat)[1:]


def skew_vector(matrix: np.ndarray) -> np.ndarray:
    """The vector w of the skew-symmetric part of ``matrix``, [w]x (so that [w]x v = w x v)."""
    return 0.5 * np.array([matrix[2, 1] - matrix[1, 2], matrix[0, 2] - matrix[2, 0], matrix[1, 0] - matrix[0, 1]])


@pytest.fixture(scope="module")
def robot() -> MujocoRobot:
    """The generated MJCF mapped to POLICY_JOINTS, so any place that falls back to the MJCF's order shows."""
    assert POLICY_JOINTS != MJCF_JOINTS and sorted(POLICY_JOINTS) == sorted(MJCF_JOINTS)
    return MujocoRobot(ensure_robot_files().mjcf, POLICY_JOINTS)


def place(robot: MujocoRobot, roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Put the base at a known pose moving at ANG_VEL_WORLD and LIN_VEL_WORLD, and every joint, by name, at its
    JOINT_POS and JOINT_VEL; returns the base-to-world rotation. The free joint's velocity is MuJoCo's convention
    (linear in the world frame, angular in the body frame): :func:`test_the_placed_base_moves_as_intended` checks
    that the base then really moves at these rates."""
    rotation = euler_matrix(roll, pitch, yaw)
    mujoco.mj_resetData(robot.model, robot.data)
    robot.data.qpos[0:3] = [0.1, -0.2, 0.5]
    robot.data.qpos[3:7] = euler_quat(roll, pitch, yaw)
    robot.data.qvel[0:3] = LIN_VEL_WORLD
    robot.data.qvel[3:6] = rotation.T @ ANG_VEL_WORLD
    for name in MJCF_JOINTS:
        robot.data.joint(name).qpos[0] = JOINT_POS[name]
        robot.data.joint(name).qvel[0] = JOINT_VEL[name]
    mujoco.mj_forward(robot.model, robot.data)
    return rotation


@pytest.mark.parametrize("pose", POSES.values(), ids=POSES.keys())
def test_the_placed_base_moves_as_intended(robot, pose):
    """The ground truth's own check: MuJoCo's base orientation is this file's rotation, and integrating the state
    a moment either way moves the base origin at LIN_VEL_WORLD and turns it at ANG_VEL_WORLD (finite differences)."""
    rotation = place(robot, *pose)
    assert np.abs(robot.data.xmat[robot.base].reshape(3, 3) - rotation).max() < 1e-12
    h = 1e-6
    poses = []
    for step in (-h, h):
        data = mujoco.MjData(robot.model)
        data.qpos[:] = robot.data.qpos
        mujoco.mj_integratePos(robot.model, data.qpos, robot.data.qvel, step)
        mujoco.mj_kinematics(robot.model, data)
        poses.append((data.xpos[robot.base].copy(), data.xmat[robot.base].reshape(3, 3).copy()))
    (pos_before, rot_before), (pos_after, rot_after) = poses
    assert np.abs((pos_after - pos_before) / (2 * h) - LIN_VEL_WORLD).max() < 1e-8
    rotation_rate = (rot_after - rot_before) / (2 * h)  # dR/dt = [w_world]x R
    assert np.abs(skew_vector(rotation_rate @ rotation.T) - ANG_VEL_WORLD).max() < 1e-8


@pytest.mark.parametrize("pose", POSES.values(), ids=POSES.keys())
def test_state_reports_the_imu_and_encoders_in_the_base_frame_and_the_policys_joint_order(robot, pose):
    rotation = place(robot, *pose)
    command = np.array([0.3, -0.1, 0.5])
    state = robot.state(command)
    for name in ("joint_pos", "joint_vel", "ang_vel", "gravity", "command"):
        assert getattr(state, name).dtype == np.float32, name
    # encoders: the joint of each policy slot, looked up by name
    np.testing.assert_allclose(state.joint_pos, [JOINT_POS[name] for name in POLICY_JOINTS], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(state.joint_vel, [JOINT_VEL[name] for name in POLICY_JOINTS], rtol=RTOL, atol=ATOL)
    # gyroscope: the base's angular velocity seen from the base, R^T w_world
    np.testing.assert_allclose(state.ang_vel, rotation.T @ ANG_VEL_WORLD, rtol=RTOL, atol=ATOL)
    # orientation: the unit gravity direction seen from the base, R^T (0, 0, -1)
    np.testing.assert_allclose(state.gravity, rotation.T @ [0.0, 0.0, -1.0], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(state.command, command, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(("pose", "gravity"), [
    ((0.0, 0.0, 0.0), (0.0, 0.0, -1.0)),
    ((0.0, 0.0, 2.0), (0.0, 0.0, -1.0)),  # heading does not change which way is down
    ((0.5, 0.0, 0.0), (0.0, -math.sin(0.5), -math.cos(0.5))),  # left side up: down leans to the right (-y)
    ((0.0, 0.4, 0.0), (math.sin(0.4), 0.0, -math.cos(0.4))),  # nose down: down leans forward (+x)
    ((math.pi, 0.0, 0.0), (0.0, 0.0, 1.0)),  # upside down
], ids=["level", "yawed", "rolled_left_side_up", "nose_down", "upside_down"])
def test_gravity_leans_the_way_a_tilted_robot_feels_it(robot, pose, gravity):
    """Signs by hand, independent of any rotation matrix: which way "down" leans for a tilted base."""
    place(robot, *pose)
    np.testing.assert_allclose(robot.state(np.zeros(3)).gravity, gravity, rtol=RTOL, atol=ATOL)


def test_a_pure_spin_about_the_base_up_axis_reads_as_yaw_rate_on_the_gyro(robot):
    """A base pitched nose down, spinning about its own up axis: the gyro reads (0, 0, rate), the world does not."""
    pitch, rate = 0.4, 1.3
    rotation = place(robot, 0.0, pitch, 0.0)
    robot.data.qvel[3:6] = [0.0, 0.0, rate]  # body frame
    mujoco.mj_forward(robot.model, robot.data)
    np.testing.assert_allclose(robot.state(np.zeros(3)).ang_vel, [0.0, 0.0, rate], rtol=RTOL, atol=ATOL)
    assert abs((rotation @ [0.0, 0.0, rate])[0]) > 0.5  # the world-frame reading would differ


@pytest.mark.parametrize("pose", POSES.values(), ids=POSES.keys())
def test_base_velocity_is_the_base_frame_velocity_and_yaw_rate(robot, pose):
    """The metrics' (vx, vy, yaw rate): the base origin's velocity and the angular velocity, both in the base frame."""
    rotation = place(robot, *pose)
    linear, angular = rotation.T @ LIN_VEL_WORLD, rotation.T @ ANG_VEL_WORLD
    np.testing.assert_allclose(robot.base_velocity(), [linear[0], linear[1], angular[2]], rtol=0, atol=1e-12)


def test_pd_torques_reach_each_named_joints_motor_clipped_to_its_effort(robot):
    """Policy slot i's target, gains and effort limit drive the motor of policy joint i, not MJCF joint i."""
    place(robot, *POSES["rolled_pitched_yawed"])
    n = len(POLICY_JOINTS)
    targets = np.array([JOINT_POS[name] + 0.01 * (i + 1) for i, name in enumerate(POLICY_JOINTS)])
    targets[0] += 5.0  # far from its joint angle: this one's torque is clipped
    stiffness, damping = 20.0 + np.arange(n), 0.3 + 0.1 * np.arange(n)
    effort = np.full(n, 40.0)
    robot.apply_pd(targets, stiffness, damping, effort)
    for i, name in enumerate(POLICY_JOINTS):
        joint = robot.model.joint(name).id
        (actuator,) = np.flatnonzero(robot.model.actuator_trnid[:, 0] == joint)
        torque = stiffness[i] * (targets[i] - JOINT_POS[name]) - damping[i] * JOINT_VEL[name]
        assert robot.data.ctrl[actuator] == pytest.approx(float(np.clip(torque, -40.0, 40.0)), abs=1e-9), name
    (clipped,) = np.flatnonzero(robot.model.actuator_trnid[:, 0] == robot.model.joint(POLICY_JOINTS[0]).id)
    assert robot.data.ctrl[clipped] == 40.0


def test_reset_stands_the_joints_at_the_policys_pose_by_name(robot):
    """reset() puts policy slot i's angle on the joint of that name, the base level at the MJCF's start, at rest."""
    pose = np.array([JOINT_POS[name] for name in POLICY_JOINTS])
    robot.reset(pose)
    for name in MJCF_JOINTS:
        assert robot.data.joint(name).qpos[0] == pytest.approx(JOINT_POS[name], abs=1e-12), name
    assert np.array_equal(robot.data.qpos[0:7], robot.model.qpos0[0:7]) and not robot.data.qvel.any()
    np.testing.assert_allclose(robot.state(np.zeros(3)).gravity, [0.0, 0.0, -1.0], rtol=RTOL, atol=ATOL)


class RecordingController:
    """A stand-in for PolicyRuntime that keeps every state it is given and asks for the default pose, wiggled so the
    joints move."""

    def __init__(self) -> None:
        self.default_joint_pos = np.array([GO2_SPEC.default_joint_pos()[n] for n in POLICY_JOINTS])
        self.metadata = {
            "joint_names": POLICY_JOINTS, "control_period_s": 0.02,
            "pd_gains": {"stiffness": [30.0] * 12, "damping": [0.5] * 12}, "effort_limit": [40.0] * 12,
        }
        self.states = []

    def reset(self) -> None:
        pass

    def step(self, state) -> np.ndarray:
        self.states.append(state)
        return self.default_joint_pos + 0.3 * math.sin(0.7 * len(self.states)) * np.ones(12)


def test_the_policy_reads_imu_and_encoders_of_the_same_instant_during_a_run(robot):
    """Through run_sim2sim's physics steps, each state the policy gets is the robot's at that moment: the IMU must
    not lag the encoders (mj_step leaves sensors and kinematics at the state before its integration). The truth is
    what the first physics step after each read starts from, seen by the ``disturbance`` hook."""
    truths = []  # (quaternion, body angular velocity, joint positions and velocities by name), per physics step

    def record_and_kick(robot: MujocoRobot, time_s: float) -> None:
        data = robot.data
        truths.append((data.qpos[3:7].copy(), data.qvel[3:6].copy(),
                       {name: (data.joint(name).qpos[0], data.joint(name).qvel[0]) for name in POLICY_JOINTS}))
        if len(truths) % (10 * substeps) == 1:  # every 0.2 s a kick turns the base fast about every axis
            data.qvel[0:6] = [0.5, 0.3, 0.0, 2.0, -1.5, 1.0]

    substeps = round(0.02 / robot.model.opt.timestep)
    controller = RecordingController()
    run_sim2sim(controller, ensure_robot_files().mjcf, seconds=1.0, command=(0.2, 0.0, 0.1),
                disturbance=record_and_kick)
    assert len(controller.states) == 50 and len(truths) == 50 * substeps
    turning = 0
    for index, state in enumerate(controller.states):
        quat, ang_vel, joints = truths[index * substeps]
        np.testing.assert_allclose(state.ang_vel, ang_vel, rtol=RTOL, atol=ATOL, err_msg=f"control step {index}")
        np.testing.assert_allclose(state.gravity, rotate_into_base(quat, [0.0, 0.0, -1.0]), rtol=RTOL, atol=ATOL,
                                   err_msg=f"control step {index}")
        np.testing.assert_allclose(state.joint_pos, [joints[name][0] for name in POLICY_JOINTS], rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(state.joint_vel, [joints[name][1] for name in POLICY_JOINTS], rtol=RTOL, atol=ATOL)
        turning += bool(np.abs(ang_vel).max() > 0.5)
    assert turning >= 10  # the check saw a moving base, where a lag would show
