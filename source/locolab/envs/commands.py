"""A fixed velocity command for evaluation: every environment, every step, the same (vx, vy, wz).

Isaac Lab's ``UniformVelocityCommand`` samples a command per environment at resets and every
``resampling_time_range`` seconds, turns a sampled heading into a yaw rate, and leaves a fraction of environments
standing. A fixed-command evaluation collapses each range to one value and switches those three behaviours off, so
what the policy is asked is exactly what the caller wrote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from isaaclab.envs.mdp.commands.velocity_command import UniformVelocityCommand

COMMAND_NAME = "base_velocity"


def parse_velocity_command(values: Sequence[str | float]) -> tuple[float, float, float]:
    """``(vx, vy, wz)`` from three numbers; a ValueError naming the problem otherwise."""
    if len(values) != 3:
        raise ValueError(f"--command takes three numbers VX VY WZ (m/s, m/s, rad/s), got {len(values)}.")
    command = []
    for name, value in zip(("VX", "VY", "WZ"), values):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"--command {name} '{value}' is not a number.") from None
        if not math.isfinite(number):
            raise ValueError(f"--command {name} must be finite, got {value}.")
        command.append(number)
    return tuple(command)


def fix_velocity_command(env_cfg, command: Sequence[float]) -> None:
    """Make ``env_cfg``'s base-velocity command ``command`` in every environment, never resampled, in place."""
    vx, vy, wz = (float(c) for c in command)
    cfg = getattr(env_cfg.commands, COMMAND_NAME)
    cfg.heading_command = False
    cfg.rel_standing_envs = 0.0
    cfg.rel_heading_envs = 0.0
    # resampled only at resets, to the same value
    cfg.resampling_time_range = (1.0e9, 1.0e9)
    cfg.ranges.lin_vel_x = (vx, vx)
    cfg.ranges.lin_vel_y = (vy, vy)
    cfg.ranges.ang_vel_z = (wz, wz)


class SweptVelocityCommand(UniformVelocityCommand):
    """Isaac Lab's uniform velocity command with environments that can each be held at their own fixed command.

    Evaluation sweeps give each slice of the environments one command; ``fix_velocity_command`` (one command for
    all) cannot. Where :attr:`fixed` is not NaN, a resample writes it (no heading control, no standing).
    """

    def __init__(self, cfg, env) -> None:
        super().__init__(cfg, env)
        self.fixed = torch.full((self.num_envs, 3), float("nan"), device=self.device)
        """(vx, vy, wz) per environment; NaN rows sample as Isaac Lab does."""

    def _resample_command(self, env_ids) -> None:
        super()._resample_command(env_ids)
        fixed = self.fixed[env_ids]
        held = ~torch.isnan(fixed[:, 0])
        self.vel_command_b[env_ids] = torch.where(held.unsqueeze(1), fixed, self.vel_command_b[env_ids])
        self.is_heading_env[env_ids] &= ~held
        self.is_standing_env[env_ids] &= ~held
