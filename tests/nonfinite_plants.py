"""Terms that plant a non-finite value into one environment at one step: an observation term, a reward term and the
robot's joint state. The tests put them into a real task's config (picklable, so simulation processes get them too)."""

from __future__ import annotations

import torch

from isaaclab.envs import mdp
from isaaclab.managers import EventTermCfg


def _planting(env, step: int, what: str) -> bool:
    """True once: the first time ``what`` is computed at policy step ``step``."""
    planted = env.__dict__.setdefault("_planted_nonfinite", set())
    if int(env.common_step_counter) != step or what in planted:
        return False
    planted.add(what)
    return True


def nan_base_ang_vel(env, env_id: int, step: int) -> torch.Tensor:
    """The stock angular-velocity observation, NaN for ``env_id`` at ``step``."""
    value = mdp.base_ang_vel(env).clone()
    if _planting(env, step, "obs"):
        value[env_id] = float("nan")
    return value


def inf_track_lin_vel(env, command_name: str, std: float, env_id: int, step: int) -> torch.Tensor:
    """The stock velocity-tracking reward, +Inf for ``env_id`` at ``step``."""
    value = mdp.track_lin_vel_xy_exp(env, std=std, command_name=command_name).clone()
    if _planting(env, step, "reward"):
        value[env_id] = float("inf")
    return value


def nan_joint_velocity(env, env_ids, env_id: int, step: int) -> None:
    """An interval event: the robot's joint velocities of ``env_id`` become NaN in the simulator at ``step``."""
    if not _planting(env, step, "state"):
        return
    robot = env.scene["robot"]
    velocity = torch.full((1, robot.num_joints), float("nan"), device=env.device)
    robot.write_joint_velocity_to_sim_index(velocity=velocity, env_ids=torch.tensor([env_id], device=env.device))


def plant_nonfinite(env_cfg, obs_step: int, reward_step: int, state_step: int) -> None:
    """Plant a NaN observation (env 1), an Inf reward (env 2) and a NaN joint state (env 3) at the given policy
    steps (a negative step plants nothing); with several simulation processes, each plants into its own slice."""
    if obs_step >= 0:
        term = env_cfg.observations.policy.base_ang_vel
        term.func, term.params = nan_base_ang_vel, {"env_id": 1, "step": obs_step}
    if reward_step >= 0:
        term = env_cfg.rewards.track_lin_vel_xy_exp
        term.func = inf_track_lin_vel
        term.params = {**term.params, "env_id": 2, "step": reward_step}
    if state_step >= 0:
        env_cfg.events.plant_nan_joint_velocity = EventTermCfg(
            func=nan_joint_velocity, mode="interval", interval_range_s=(0.0, 0.0), is_global_time=True,
            params={"env_id": 3, "step": state_step})
