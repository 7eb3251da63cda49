"""How fast MuJoCo's C engine steps LocoLab's robot on a CPU with nothing around it: the ceiling of a training step.

The CPU profile trains on MuJoCo C under Isaac Lab's managers (locolab.envs.mujoco_c), whose observations, rewards,
commands, events and Newton's state exchange take their share of each step. This measures the physics alone, so that
``benchmark.py`` can say how much of MuJoCo C's speed the environment keeps.

The robot is the generated MJCF with its motors turned into MuJoCo position actuators (the task's PD gains, the
motors' torque limits), so that the PD loop runs inside the engine and ``mujoco.rollout`` steps every world for a
whole control step in C on ``threads`` threads; Python only draws the actions and resets fallen robots between
control steps, as the random-action benchmark of the Isaac Lab environment does.
"""

from __future__ import annotations

import time

import mujoco
import numpy as np
from mujoco import rollout

from locolab.assets import GO2_SPEC, ensure_robot_files
from locolab.eval.sim2sim import FALL_HEIGHT

STATE = mujoco.mjtState.mjSTATE_FULLPHYSICS
BASE_HEIGHT = 3
"""Index of the base's height in a full-physics state vector (time, then the free joint's x, y, z)."""
INTEGRATORS = {"euler": mujoco.mjtIntegrator.mjINT_EULER, "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}
"""MuJoCo's integrators by the names of Isaac Lab's ``MJWarpSolverCfg.integrator``."""


def position_servo_model(stiffness: float, damping: float, physics_dt: float, integrator: str = "euler",
                         tolerance: float = 1e-6) -> tuple[mujoco.MjModel, np.ndarray]:
    """The generated MJCF at ``physics_dt`` with each motor turned into a PD servo (torque = stiffness x (target -
    position) - damping x velocity, clipped by the joints' torque limits as the MJCF has them) and the training
    solver's integrator and tolerance; also the standing state the worlds start and reset from."""
    model = mujoco.MjModel.from_xml_path(str(ensure_robot_files().mjcf))
    model.opt.timestep = physics_dt
    model.opt.integrator = INTEGRATORS[integrator]
    model.opt.tolerance = tolerance
    model.actuator_gaintype[:] = mujoco.mjtGain.mjGAIN_FIXED
    model.actuator_gainprm[:, 0] = stiffness
    model.actuator_biastype[:] = mujoco.mjtBias.mjBIAS_AFFINE
    model.actuator_biasprm[:, :3] = (0.0, -stiffness, -damping)
    model.actuator_ctrllimited[:] = 0  # the controls are now joint angles, not the motors' torques
    data = mujoco.MjData(model)
    default = default_targets(model)
    data.qpos[model.jnt_qposadr[model.actuator_trnid[:, 0]]] = default
    mujoco.mj_forward(model, data)
    standing = np.empty(mujoco.mj_stateSize(model, STATE))
    mujoco.mj_getState(model, data, standing, STATE)
    return model, standing


def default_targets(model: mujoco.MjModel) -> np.ndarray:
    """The spec's standing pose, in the model's actuator order."""
    pose = GO2_SPEC.default_joint_pos()
    return np.array([pose[mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, int(joint))]
                     for joint in model.actuator_trnid[:, 0]])


def mujoco_c_steps_per_s(num_envs: int, steps: int, threads: int, stiffness: float, damping: float,
                         physics_dt: float, decimation: int, action_scale: float, integrator: str = "euler",
                         tolerance: float = 1e-6, warmup: int = 10, seed: int = 0) -> float:
    """Env-steps/s of ``num_envs`` robots in MuJoCo's C engine under uniform random actions in [-1, 1] (joint
    targets ``action_scale`` x action from the standing pose), ``decimation`` physics steps of ``physics_dt`` per
    env step, on ``threads`` threads; a robot whose base falls under the fall height restarts standing."""
    model, standing = position_servo_model(stiffness, damping, physics_dt, integrator, tolerance)
    default = default_targets(model)
    generator = np.random.default_rng(seed)
    state = np.tile(standing, (num_envs, 1))
    trajectory = np.empty((num_envs, decimation, standing.size))
    with rollout.Rollout(nthread=threads) as runner:
        datas = [mujoco.MjData(model) for _ in range(threads)]
        start = 0.0
        for step in range(warmup + steps):
            if step == warmup:
                start = time.perf_counter()
            targets = default + action_scale * generator.uniform(-1.0, 1.0, (num_envs, 1, model.nu))
            runner.rollout(model, datas, state, targets, nstep=decimation, state=trajectory)
            state = trajectory[:, -1].copy()
            fallen = state[:, BASE_HEIGHT] < FALL_HEIGHT
            state[fallen] = standing
        return steps * num_envs / (time.perf_counter() - start)
