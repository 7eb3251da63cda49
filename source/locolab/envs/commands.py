"""A fixed velocity command for evaluation: every environment, every step, the same (vx, vy, wz).

Isaac Lab's ``UniformVelocityCommand`` samples a command per environment at resets and every
``resampling_time_range`` seconds, turns a sampled heading into a yaw rate, and leaves a fraction of environments
standing (LocoLab's also leaves one turning in place). A fixed-command evaluation collapses each range to one value
and switches those behaviours off, so what the policy is asked is exactly what the caller wrote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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
    cfg.rel_turn_in_place_envs = 0.0
    # resampled only at resets, to the same value
    cfg.resampling_time_range = (1.0e9, 1.0e9)
    cfg.ranges.lin_vel_x = (vx, vx)
    cfg.ranges.lin_vel_y = (vy, vy)
    cfg.ranges.ang_vel_z = (wz, wz)
