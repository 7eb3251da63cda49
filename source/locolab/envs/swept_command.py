"""A velocity command that evaluation sweeps can hold at a different fixed value in each environment (its own module:
importing Isaac Lab's command terms starts Warp, which argument checks that only need :mod:`locolab.envs.commands`
should not)."""

from __future__ import annotations

import torch

from locolab.envs.turn_in_place_command import TurnInPlaceVelocityCommand


class SweptVelocityCommand(TurnInPlaceVelocityCommand):
    """LocoLab's velocity command with environments that can each be held at their own fixed command.

    Evaluation sweeps give each slice of the environments one command; ``fix_velocity_command`` (one command for
    all) cannot. Where :attr:`fixed` is not NaN, a resample writes it (no heading control, no standing, no
    turning in place).
    """

    def __init__(self, cfg, env) -> None:
        super().__init__(cfg, env)
        self.fixed = torch.full((self.num_envs, 3), float("nan"), device=self.device)
        """(vx, vy, wz) per environment; NaN rows sample as training does."""

    def _resample_command(self, env_ids) -> None:
        super()._resample_command(env_ids)
        fixed = self.fixed[env_ids]
        held = ~torch.isnan(fixed[:, 0])
        self.vel_command_b[env_ids] = torch.where(held.unsqueeze(1), fixed, self.vel_command_b[env_ids])
        self.is_heading_env[env_ids] &= ~held
        self.is_standing_env[env_ids] &= ~held
        self.is_turn_in_place_env[env_ids] &= ~held
