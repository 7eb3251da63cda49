"""Swing clearance: how high the feet the gait clock has in the air are above the terrain under them.

A blind rough-terrain policy with the gait clock lifted its rear feet 3-6 cm at 0.5 m/s on flat ground (front feet
8-11 cm): on 10 cm box grids its robots stopped against a box edge without falling
(docs/measurements/rough_terrain.md). Isaac Lab's rough task rewards air time only (weight 0.01). This term pays each
swing foot of the clock's trot (:func:`~locolab.envs.mdp.gait_clock.trot_stance`) for its clearance up to a target
height, as legged_gym-style foot-clearance terms and walk-these-ways' swing height do, with the ground under the foot
read from the height scanner's ray hits (the nearest ray, 0.1 m apart), so a step up counts from its top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab.managers import RewardTermCfg, SceneEntityCfg

from locolab.envs.metrics import FEET

from .gait_clock import gait_phase, moving_command, trot_stance

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv

SWING_CLEARANCE_REWARD = "swing_clearance"
FAR = 1.0e6
"""Stand-in xy [m] for rays that hit nothing: never the nearest."""


def ground_below(points_xy: torch.Tensor, ray_hits: torch.Tensor) -> torch.Tensor:
    """[N, P] the height of the ray hit nearest in xy to each of ``points_xy`` [N, P, 2], of ``ray_hits`` [N, R, 3]
    (rays that hit nothing, non-finite, are skipped)."""
    hit = torch.isfinite(ray_hits).all(dim=-1, keepdim=True)
    hits = torch.where(hit, ray_hits, torch.full_like(ray_hits, FAR))
    nearest = torch.cdist(points_xy, hits[..., :2]).argmin(dim=-1)
    return torch.gather(hits[..., 2], 1, nearest)


def foot_clearance(env: ManagerBasedRLEnv, foot_radius: float, sensor_cfg: SceneEntityCfg) -> torch.Tensor:
    """[N, 4] each foot's (:data:`~locolab.envs.metrics.FEET` order) lowest point above the ground below it [m]."""
    robot = env.scene["robot"]
    ids, _ = robot.find_bodies([f"{foot}_foot" for foot in FEET], preserve_order=True)
    feet = robot.data.body_pos_w.torch[:, ids]
    hits = env.scene.sensors[sensor_cfg.name].data.ray_hits_w.torch
    return feet[..., 2] - foot_radius - ground_below(feet[..., :2], hits)


def swing_clearance(env: ManagerBasedRLEnv, frequency_hz: float, target_height: float, foot_radius: float,
                    sensor_cfg: SceneEntityCfg, command_name: str = "base_velocity") -> torch.Tensor:
    """[N] mean over the clock's swing feet of ``min(clearance / target_height, 1)`` (none below the ground); zero
    under a standing command."""
    swing = ~trot_stance(gait_phase(env, frequency_hz))
    lifted = (foot_clearance(env, foot_radius, sensor_cfg) / target_height).clamp(0.0, 1.0)
    return (lifted * swing).sum(dim=1) / swing.sum(dim=1) * moving_command(env, command_name)


def swing_clearance_reward(frequency_hz: float, target_height: float, foot_radius: float,
                           weight: float) -> RewardTermCfg:
    """The term (:func:`swing_clearance`) on the task's ``height_scanner``, per step in [0, ``weight``]."""
    params = {"frequency_hz": frequency_hz, "target_height": target_height, "foot_radius": foot_radius,
              "sensor_cfg": SceneEntityCfg("height_scanner")}
    return RewardTermCfg(func=swing_clearance, weight=weight, params=params)
