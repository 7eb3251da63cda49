"""The turning-in-place velocity command term (its own module: importing Isaac Lab's command terms starts Warp, which
configs and argument checks should not; :mod:`locolab.envs.mdp.commands` names it by string)."""

from __future__ import annotations

import torch

from isaaclab.envs.mdp.commands.velocity_command import UniformVelocityCommand


class TurnInPlaceVelocityCommand(UniformVelocityCommand):
    """Isaac Lab's uniform velocity command, with a fraction of the environments (drawn at each resample) asked to
    turn in place: no linear velocity, a yaw rate drawn from ``ranges.ang_vel_z``, no heading control, not
    standing."""

    def __init__(self, cfg, env) -> None:
        super().__init__(cfg, env)
        self.is_turn_in_place_env = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)

    def _resample_command(self, env_ids) -> None:
        super()._resample_command(env_ids)
        if self.cfg.rel_turn_in_place_envs <= 0.0:
            return  # no draws: with it off, the random stream (and a seeded run) is Isaac Lab's
        count = len(range(self.num_envs)[env_ids]) if isinstance(env_ids, slice) else len(env_ids)
        turning = torch.rand(count, device=self.device) < self.cfg.rel_turn_in_place_envs
        self.is_turn_in_place_env[env_ids] = turning
        self.vel_command_b[env_ids, :2] = torch.where(turning.unsqueeze(1), 0.0, self.vel_command_b[env_ids, :2])
        self.is_heading_env[env_ids] &= ~turning
        self.is_standing_env[env_ids] &= ~turning
