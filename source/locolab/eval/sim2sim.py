"""Sim-to-sim: an exported policy, through the deployment runtime, driving the robot in MuJoCo's own C engine.

Training ran in Newton (its model, Isaac Lab's actuators, and MuJoCo-Warp or, on a CPU, MuJoCo C stepping the
worlds: locolab.envs.mujoco_c); this is a second model of the robot, the generated MJCF, with its own contacts, PD
loop and integration step (play.py is the check in an engine a CPU-trained policy did not train in). The policy only
sees what a robot measures (joint encoders, the IMU's gyroscope and orientation) through
:class:`locolab.deploy.PolicyRuntime`, at the policy's control period; a PD loop at the physics rate (the MJCF's
timestep) turns its joint targets into torques clipped to the motors' limits, as a robot's motor drivers would.
:class:`~locolab.eval.robot_effects.RobotEffects` adds what a real robot has (foot and joint friction, the motors'
torque-speed limit, latency, a biased gyroscope).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import mujoco
import numpy as np

from locolab.deploy import PolicyRuntime, RobotState, gravity_in_base_frame

from .mujoco_height_scan import HeightScanner
from .robot_effects import Gyroscope, RobotEffects, TargetDelay, apply_to_model, torque_limits
from .terrain_course import START_OFFSETS, TerrainCourse
from .walking_checks import WALKING_CHECKS

FALL_HEIGHT = 0.15
"""Base height [m] under which the robot counts as fallen."""
FALL_TILT_COS = 0.5
"""The robot counts as fallen when its up axis is tilted more than 60 degrees (cosine below this)."""
HEADING_STIFFNESS = 0.5
"""Yaw rate commanded per radian of heading error [1/s]: Isaac Lab's velocity task's ``heading_control_stiffness``,
the law every training command follows (``rel_heading_envs=1.0``)."""
YAW_RATE_LIMIT = 1.0
"""Bound of a heading-holding yaw-rate command [rad/s]: the task's ``ang_vel_z`` range."""


@dataclass
class Sim2SimResult:
    """What one sim-to-sim run measured (upright time only for the tracking errors)."""

    seconds: float
    command: list[float]
    friction: float | None
    payload_kg: float
    contact_time_constant: float | None
    """MuJoCo ``solref`` time constant of every contact [s] (None: the MJCF's, MuJoCo's default 0.02)."""
    lin_vel_error: float
    """Mean ||command xy - base velocity xy|| in the base frame [m/s]."""
    ang_vel_error: float
    """Mean |command yaw rate - base yaw rate| [rad/s]."""
    distance: float
    """Base travel in the ground plane, summed over upright stretches [m]."""
    falls: int
    time_upright: float
    """Seconds spent not fallen [s]."""
    mean_base_velocity: list[float] = field(default_factory=list)
    """Mean base-frame (vx, vy, yaw rate) while upright."""
    mean_speed: float = math.nan
    """Mean ||(vx, vy)|| while upright [m/s]."""
    interventions: dict[str, int] = field(default_factory=dict)
    """The runtime's safety interventions by kind (:attr:`locolab.deploy.PolicyRuntime.interventions`)."""
    effects: dict = field(default_factory=dict)
    """The sim-to-real effects of the run (:class:`locolab.eval.robot_effects.RobotEffects`)."""
    course: dict | None = None
    """On a terrain course: its settings, the start offset, whether the robot crossed it (its base past the last
    edge) before any fall, and the farthest x its base reached before the first fall [m]."""


class MujocoRobot:
    """The generated MJCF in MuJoCo, mapped to the policy's joint order, with friction, payload, contact softness and
    the sim-to-real effects of the model (feet, joints) applied; on a terrain ``course``, started at ``start_offset``
    (x, y) from the MJCF's pose; ``scan_layout`` (``policy.json``'s ``height_scan``): it also scans the ground."""

    def __init__(self, mjcf: str | Path, joint_names: list[str], friction: float | None = None,
                 payload_kg: float = 0.0, base_body: str = "base", contact_time_constant: float | None = None,
                 effects: RobotEffects = RobotEffects(), course: TerrainCourse | None = None,
                 start_offset: tuple[float, float] = (0.0, 0.0), scan_layout: dict | None = None) -> None:
        spec = mujoco.MjSpec.from_file(str(mjcf))
        if course is not None:
            course.add_to(spec)
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        joints = [mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name) for name in joint_names]
        missing = [name for name, joint in zip(joint_names, joints) if joint < 0]
        if missing:
            raise ValueError(f"'{mjcf}' has no joints {missing}: the policy was trained on another robot.")
        self.qpos_adr = np.array([self.model.jnt_qposadr[j] for j in joints])
        self.dof_adr = np.array([self.model.jnt_dofadr[j] for j in joints])
        actuator_of_joint = {int(self.model.actuator_trnid[a, 0]): a for a in range(self.model.nu)}
        self.actuators = np.array([actuator_of_joint[j] for j in joints])
        self.base = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, base_body)
        self.gyro = self._sensor_slice("imu_gyro")
        self.quat = self._sensor_slice("imu_quat")
        if friction is not None:
            self.model.geom_friction[:, 0] = friction
        self.model.body_mass[self.base] += payload_kg
        if contact_time_constant is not None:
            stiffest = 2 * self.model.opt.timestep  # MuJoCo raises any shorter time constant to this
            if not contact_time_constant >= stiffest:
                raise ValueError(f"a contact time constant of {contact_time_constant} s is under two physics steps, "
                                 f"which MuJoCo would silently raise: give at least {stiffest:g} s.")
            self.model.geom_solref[:, 0] = contact_time_constant
        effects.check(self.model.opt.timestep)
        geom_name = lambda geom: mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_GEOM, geom) or ""  # noqa: E731
        self.feet = np.array([geom for geom in range(self.model.ngeom) if geom_name(geom).endswith("_foot")], int)
        apply_to_model(self.model, effects, self.feet, self.dof_adr)
        self.gyroscope = Gyroscope(effects.gyro_bias, effects.gyro_noise)
        self.initial_qpos = self.model.qpos0.copy()
        self.initial_qpos[:2] += start_offset  # the free joint's x, y
        self.scanner = HeightScanner(self.model, scan_layout, self.base) if scan_layout else None

    def _sensor_slice(self, name: str) -> slice:
        sensor = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SENSOR, name)
        start = self.model.sensor_adr[sensor]
        return slice(start, start + self.model.sensor_dim[sensor])

    def reset(self, joint_pos: np.ndarray) -> None:
        """Standing start: the MJCF's base pose, joints at ``joint_pos``, at rest."""
        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[:] = self.initial_qpos
        self.data.qpos[self.qpos_adr] = joint_pos
        mujoco.mj_forward(self.model, self.data)

    def state(self, command: np.ndarray) -> RobotState:
        """What the robot's sensors report (encoders, IMU gyroscope and orientation), in the policy's joint order and
        the base frame. The IMU is MuJoCo's sensor data: current after ``mj_forward``, a step old after ``mj_step``."""
        return RobotState(
            joint_pos=self.data.qpos[self.qpos_adr].astype(np.float32),
            joint_vel=self.data.qvel[self.dof_adr].astype(np.float32),
            ang_vel=self.gyroscope(self.data.sensordata[self.gyro]),
            gravity=gravity_in_base_frame(self.data.sensordata[self.quat]),
            command=command.astype(np.float32),
            height_scan=self.scanner(self.data) if self.scanner is not None else None,
        )

    def apply_pd(self, targets: np.ndarray, stiffness: np.ndarray, damping: np.ndarray, effort: np.ndarray,
                 velocity_limit: np.ndarray | None = None) -> None:
        """PD torques clipped to the motors' limits: flat, or (``velocity_limit`` given) the DC-motor envelope."""
        joint_vel = self.data.qvel[self.dof_adr]
        torque = stiffness * (targets - self.data.qpos[self.qpos_adr]) - damping * joint_vel
        low, high = (-effort, effort) if velocity_limit is None else torque_limits(effort, velocity_limit, joint_vel)
        self.data.ctrl[self.actuators] = np.clip(torque, low, high)

    def base_velocity(self) -> np.ndarray:
        """(vx, vy) in the base frame and the yaw rate: the free joint's linear velocity is in the world frame, its
        angular velocity in the body frame."""
        rotation = self.data.xmat[self.base].reshape(3, 3)
        linear = rotation.T @ self.data.qvel[0:3]
        return np.array([linear[0], linear[1], self.data.qvel[5]])

    def heading(self) -> float:
        """Yaw of the base's forward axis in the world [rad] (Isaac Lab's ``heading_w``)."""
        rotation = self.data.xmat[self.base].reshape(3, 3)
        return math.atan2(rotation[1, 0], rotation[0, 0])

    def fallen(self) -> bool:
        up = self.data.xmat[self.base].reshape(3, 3)[2, 2]  # z component of the base's z axis
        return bool(self.data.xpos[self.base, 2] < FALL_HEIGHT or up < FALL_TILT_COS)


def run_sim2sim(policy: str | Path | PolicyRuntime, mjcf: str | Path, seconds: float,
                command: tuple[float, float, float], friction: float | None = None, payload_kg: float = 0.0,
                recorder=None, disturbance: Callable[[MujocoRobot, float], None] | None = None,
                contact_time_constant: float | None = None, effects: RobotEffects = RobotEffects(),
                course: TerrainCourse | None = None, start_offset: tuple[float, float] = (0.0, 0.0),
                hold_heading: float | None = None) -> Sim2SimResult:
    """Drive the MJCF robot with the exported policy (a directory, or anything with PolicyRuntime's ``metadata``,
    ``default_joint_pos``, ``reset()`` and ``step(state)``) for ``seconds``; a fall restarts it standing.

    ``recorder`` (a :class:`locolab.render.MujocoVideoRecorder` of the same MJCF) gets one frame per control step;
    ``disturbance(robot, time_s)`` runs before every physics step (a push, a scripted base motion);
    ``contact_time_constant`` softens or stiffens every contact (MuJoCo's ``solref``; the MJCF's is MuJoCo's 0.02 s);
    ``effects`` adds what a real robot has (:class:`~locolab.eval.robot_effects.RobotEffects`); ``course`` puts a
    staircase or a ramp ahead of the robot (:class:`~locolab.eval.terrain_course.TerrainCourse`); ``hold_heading``
    [rad] replaces the command's yaw rate, each control step, by the one that turns the robot back to that heading, as
    an operator would and as Isaac Lab's heading command does in training (:func:`heading_yaw_rate`).
    """
    runtime = policy if hasattr(policy, "step") else PolicyRuntime(policy)
    meta = runtime.metadata
    robot = MujocoRobot(mjcf, meta["joint_names"], friction, payload_kg, contact_time_constant=contact_time_constant,
                        effects=effects, course=course, start_offset=start_offset,
                        scan_layout=meta.get("height_scan"))  # a sighted policy's (export writes None otherwise)
    velocity_limit = np.asarray(meta["velocity_limit"]) if effects.motor_torque_speed else None
    delay = TargetDelay(effects.latency_steps(robot.model.opt.timestep))
    stiffness = np.asarray(meta["pd_gains"]["stiffness"])
    damping = np.asarray(meta["pd_gains"]["damping"])
    effort = np.asarray(meta["effort_limit"])
    period = meta["control_period_s"]
    substeps = max(1, round(period / robot.model.opt.timestep))
    command_array = np.asarray(command, dtype=np.float32)

    robot.reset(runtime.default_joint_pos)
    runtime.reset()
    falls, upright_steps, distance = 0, 0, 0.0
    velocities, farthest = [], -math.inf
    start_xy = robot.data.xpos[robot.base, :2].copy()
    commands = []  # the command of each upright step, for the tracking errors
    for _ in range(math.ceil(seconds / period)):
        if hold_heading is not None:
            command_array[2] = heading_yaw_rate(hold_heading, robot.heading())
        targets = runtime.step(robot.state(command_array))
        for _ in range(substeps):
            if disturbance is not None:
                disturbance(robot, robot.data.time)
            robot.apply_pd(delay(targets), stiffness, damping, effort, velocity_limit)
            mujoco.mj_step(robot.model, robot.data)
        # mj_step leaves sensors and poses at the state before its integration: without this, the IMU read next
        # would lag the encoders by a physics step, and the fall rule and velocities would read the old pose
        mujoco.mj_forward(robot.model, robot.data)
        if recorder is not None:
            recorder.frames.append(recorder.render_qpos(robot.data.qpos))
        if not falls:
            farthest = max(farthest, float(robot.data.xpos[robot.base, 0]))
        if robot.fallen():
            falls += 1
            distance += float(np.linalg.norm(robot.data.xpos[robot.base, :2] - start_xy))
            robot.reset(runtime.default_joint_pos)
            runtime.reset()
            delay.reset()
            start_xy = robot.data.xpos[robot.base, :2].copy()
            continue
        upright_steps += 1
        velocities.append(robot.base_velocity())
        commands.append(command_array.copy())
    distance += float(np.linalg.norm(robot.data.xpos[robot.base, :2] - start_xy))
    velocities = np.asarray(velocities) if velocities else np.full((1, 3), np.nan)
    commands = np.asarray(commands) if commands else command_array[None]
    return Sim2SimResult(
        seconds=seconds,
        command=[float(c) for c in command],
        friction=friction,
        payload_kg=payload_kg,
        contact_time_constant=contact_time_constant,
        lin_vel_error=float(np.linalg.norm(velocities[:, :2] - commands[:, :2], axis=1).mean()),
        ang_vel_error=float(np.abs(velocities[:, 2] - commands[:, 2]).mean()),
        distance=distance,
        falls=falls,
        time_upright=upright_steps * period,
        mean_base_velocity=velocities.mean(axis=0).tolist(),
        mean_speed=float(np.linalg.norm(velocities[:, :2], axis=1).mean()),
        interventions=dict(getattr(runtime, "interventions", {})),
        effects=effects.as_dict(),
        course=None if course is None else {**asdict(course), "start_offset": list(start_offset),
                                            "hold_heading": hold_heading,
                                            "crossed": farthest > course.end, "farthest_x": farthest},
    )


def heading_yaw_rate(target: float, heading: float) -> float:
    """The yaw rate [rad/s] Isaac Lab's heading command asks for: the wrapped heading error times
    :data:`HEADING_STIFFNESS`, within +-:data:`YAW_RATE_LIMIT`."""
    error = math.remainder(target - heading, math.tau)
    return float(np.clip(HEADING_STIFFNESS * error, -YAW_RATE_LIMIT, YAW_RATE_LIMIT))


def sim2sim_walking(policy: str | Path | PolicyRuntime, mjcf: str | Path, seconds: float = 20.0,
                    effects: RobotEffects = RobotEffects()) -> tuple[bool, list[dict]]:
    """The walking checks (:data:`~locolab.eval.walking_checks.WALKING_CHECKS`) in MuJoCo with ``effects``: whether
    every one passes, and each one's verdict with the figures it was judged on."""
    results = []
    for check in WALKING_CHECKS:
        run = run_sim2sim(policy, mjcf, seconds, check.command, effects=effects)
        results.append(check.verdict({"mean_forward_velocity": run.mean_base_velocity[0], "mean_speed": run.mean_speed,
                                      "mean_lin_vel_error": run.lin_vel_error,
                                      "mean_ang_vel_error": run.ang_vel_error, "falls": run.falls}))
    return all(not result["failures"] for result in results), results


def sim2sim_course(policy: str | Path | PolicyRuntime, mjcf: str | Path, course: TerrainCourse,
                   seconds: float = 20.0, effects: RobotEffects = RobotEffects(),
                   offsets: tuple[tuple[float, float], ...] = START_OFFSETS, recorder=None,
                   hold_course_heading: bool = True) -> tuple[bool, list[dict]]:
    """The robot commanded 0.5 m/s forward across ``course`` from each start offset, holding the course's heading
    (along +x) as training's commands do, or (``hold_course_heading=False``) with a yaw rate of 0 whatever its drift:
    whether it crossed every time without a fall, and each run's course record with its tracking figures
    (``recorder``: frames of the first)."""
    runs = []
    for index, offset in enumerate(offsets):
        run = run_sim2sim(policy, mjcf, seconds, (0.5, 0.0, 0.0), recorder=recorder if index == 0 else None,
                          effects=effects, course=course, start_offset=offset,
                          hold_heading=0.0 if hold_course_heading else None)
        runs.append({**run.course, "falls": run.falls, "mean_lin_vel_error": run.lin_vel_error})
    return all(run["crossed"] and run["falls"] == 0 for run in runs), runs
