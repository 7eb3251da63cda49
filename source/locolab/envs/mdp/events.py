"""Pushes of a set speed per environment, for evaluation sweeps.

Isaac Lab's ``push_by_setting_velocity`` draws each push from one range shared by every environment and keeps no
record of it; a push sweep needs each slice of the environments pushed at its own speed, and the speed the
simulator actually received, for the report.
"""

from __future__ import annotations

import math

import torch

from isaaclab.managers import EventTermCfg, ManagerTermBase, SceneEntityCfg


class push_at_speed(ManagerTermBase):
    """Interval event: add a horizontal velocity of :attr:`speeds` [m/s] (per environment) in a random direction.

    The velocity change is read back from the articulation after it is written and summed in :attr:`applied_sum`
    (with :attr:`pushes`), so reports give the pushes the simulator applied.
    """

    def __init__(self, cfg: EventTermCfg, env) -> None:
        super().__init__(cfg, env)
        self.robot = env.scene[cfg.params.get("asset_cfg", SceneEntityCfg("robot")).name]
        self.speeds = torch.zeros(self.num_envs, device=self.device)
        self.applied_sum = torch.zeros(self.num_envs, device=self.device)
        self.pushes = torch.zeros(self.num_envs, device=self.device)

    def __call__(self, env, env_ids: torch.Tensor, asset_cfg: SceneEntityCfg = SceneEntityCfg("robot")) -> None:
        before = self.robot.data.root_vel_w.torch[env_ids].clone()
        angle = 2 * math.pi * torch.rand(len(env_ids), device=self.device)
        velocity = before.clone()
        velocity[:, 0] += self.speeds[env_ids] * torch.cos(angle)
        velocity[:, 1] += self.speeds[env_ids] * torch.sin(angle)
        self.robot.write_root_velocity_to_sim_index(root_velocity=velocity, env_ids=env_ids)
        after = self.robot.data.root_vel_w.torch[env_ids]
        self.applied_sum[env_ids] += torch.linalg.norm(after[:, :2] - before[:, :2], dim=1)
        self.pushes[env_ids] += 1

    def applied_speed(self) -> torch.Tensor:
        """Mean push speed each environment received (NaN where it was never pushed)."""
        return self.applied_sum / self.pushes
