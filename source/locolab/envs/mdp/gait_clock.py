"""A gait clock: a phase the policy reads and the trot it asks for, rewarded.

Isaac Lab's velocity tasks give the policy no sense of time, so a standing pose is a fixed point of the mean action:
on rough ground the CPU runs' mean action stood under every command below 0.5-0.7 m/s, whatever the rewards, once the
action noise that had done the stepping was gone (docs/measurements/rough_terrain.md). The clock gives the policy a
rhythm that does not depend on the commanded speed (as in periodic-reward gait work, e.g. Siekmann et al. 2021,
and walk-these-ways' gait phase): the observation is ``(sin 2 pi phase, cos 2 pi phase)``, the phase advancing
``frequency_hz`` cycles a second from 0 at each reset, and the reward pays each foot whose contact matches a trot on
that phase (FL and RR in stance in the first half, FR and RL in the second) while the command asks to move.

The phase is a function of the steps since the reset only (Isaac Lab's ``episode_length_buf``), so a robot's loop
reproduces it from a step counter: ``policy.json``'s ``gait_clock`` says how (:mod:`locolab.export.metadata`).
Mirroring left and right swaps the two diagonal pairs, which is half a period: ``(sin, cos) -> (-sin, -cos)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from isaaclab.managers import ObservationTermCfg, RewardTermCfg

from locolab.envs.metrics import DIAGONAL_PAIRS, FEET, foot_contacts

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv

GAIT_CLOCK_TERM = "gait_clock"
"""The clock's observation term (last in the ``policy`` group)."""
GAIT_CLOCK_REWARD = "gait_clock_stepping"
MOVING_COMMAND = 0.1
"""Command size [m/s, rad/s] (norm of lin_vel_x, lin_vel_y, ang_vel_z) above which the clock's stepping is asked."""


def moving_command(env: ManagerBasedRLEnv, command_name: str = "base_velocity") -> torch.Tensor:
    """[N] bool: the command asks to move (its norm over lin_vel_x, lin_vel_y, ang_vel_z above
    :data:`MOVING_COMMAND`); the rough tasks' clock-driven terms and the stand-still penalty split on it."""
    return env.command_manager.get_command(command_name).norm(dim=1) > MOVING_COMMAND


def gait_phase(env: ManagerBasedRLEnv, frequency_hz: float) -> torch.Tensor:
    """[N] phase in [0, 1): cycles since the environment's last reset, fractional part."""
    return torch.frac(env.episode_length_buf.float() * (env.step_dt * frequency_hz))


def gait_clock(env: ManagerBasedRLEnv, frequency_hz: float) -> torch.Tensor:
    """[N, 2] the clock as the policy reads it: ``(sin 2 pi phase, cos 2 pi phase)``."""
    angle = 2.0 * math.pi * gait_phase(env, frequency_hz)
    return torch.stack((torch.sin(angle), torch.cos(angle)), dim=1)


def trot_stance(phase: torch.Tensor) -> torch.Tensor:
    """[N, 4] bool: the feet (:data:`~locolab.envs.metrics.FEET` order) a trot on ``phase`` has on the ground: the
    first diagonal pair in the first half of the period, the second in the second half."""
    first_half = phase < 0.5
    stance = torch.empty(phase.shape[0], len(FEET), dtype=torch.bool, device=phase.device)
    for foot in DIAGONAL_PAIRS[0]:
        stance[:, foot] = first_half
    for foot in DIAGONAL_PAIRS[1]:
        stance[:, foot] = ~first_half
    return stance


def clock_stepping(env: ManagerBasedRLEnv, frequency_hz: float, command_name: str = "base_velocity") -> torch.Tensor:
    """[N] share of the feet whose contact matches :func:`trot_stance` on the clock; zero under a standing command."""
    matches = (foot_contacts(env) == trot_stance(gait_phase(env, frequency_hz))).float().mean(dim=1)
    return matches * moving_command(env, command_name)


def gait_clock_observation(frequency_hz: float) -> ObservationTermCfg:
    """The clock's observation term (noise-free: a robot's loop counts it exactly)."""
    return ObservationTermCfg(func=gait_clock, params={"frequency_hz": frequency_hz})


def gait_clock_reward(frequency_hz: float, weight: float) -> RewardTermCfg:
    """The clock's stepping reward (:func:`clock_stepping`), per step in [0, ``weight``]."""
    return RewardTermCfg(func=clock_stepping, weight=weight, params={"frequency_hz": frequency_hz})
