"""Foot stumble: the feet pushing against a face (a box side, a riser) instead of standing on the ground.

On 10 cm box grids blind PPO's robots that stop do not fall: they tread in place or stand with a foot pressed
against a box side, a foot's horizontal contact force up to 0.8-0.9 of its vertical one over their last 2 s, where
the robots that walk on keep it at 0.14-0.20 (docs/measurements/rough_terrain.md, twenty-third session). legged_gym's
``feet_stumble`` counts a foot whose horizontal force exceeds five times its vertical one; this term pays by how much
a foot's horizontal *normal* force exceeds ``ratio`` times its vertical normal force (friction left out, so slipping
on flat ground or standing on a slope below ``atan(ratio)`` costs nothing), in units of ``reference_force``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab.managers import RewardTermCfg, SceneEntityCfg

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv

FOOT_STUMBLE_REWARD = "foot_stumble"
STANDARD_GRAVITY = 9.81
"""[m/s^2]: a robot's weight from its mass."""


def face_push(normal_forces: torch.Tensor, ratio: float) -> torch.Tensor:
    """[N, F] by how many newtons each contact normal force [N, F, 3] leans past ``ratio`` (horizontal over
    vertical)."""
    return (torch.linalg.norm(normal_forces[..., :2], dim=-1) - ratio * normal_forces[..., 2].abs()).clamp(min=0.0)


def foot_stumble(env: ManagerBasedRLEnv, ratio: float, reference_force: float,
                 sensor_cfg: SceneEntityCfg) -> torch.Tensor:
    """[N] the feet's summed :func:`face_push` over ``reference_force`` (the robot's weight: about 1 for a foot
    pushing a wall with the whole robot)."""
    forces = env.scene.sensors[sensor_cfg.name].data.net_normal_forces_w.torch[:, sensor_cfg.body_ids]
    return face_push(forces, ratio).sum(dim=1) / reference_force


def foot_stumble_reward(weight: float, ratio: float, robot_mass: float) -> RewardTermCfg:
    """The penalty's term (``weight`` negative, 0 for off) on the task's ``contact_forces`` sensor's feet, in units of
    the weight of a robot of ``robot_mass`` [kg]."""
    params = {"ratio": ratio, "reference_force": robot_mass * STANDARD_GRAVITY,
              "sensor_cfg": SceneEntityCfg("contact_forces", body_names=".*_foot")}
    return RewardTermCfg(func=foot_stumble, weight=weight, params=params)
