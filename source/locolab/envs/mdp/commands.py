"""A velocity command that also asks for turning in place.

Isaac Lab's Go2 command steers every environment by heading: the yaw rate is 0.5 x the heading error, drawn together
with a forward and a sideways speed from [-1, 1] m/s each. A command to turn at 1 rad/s without walking is then rare
(both speeds near zero and the heading more than 2 rad away), and a policy may never learn it: the PPO-ROA teacher
of the CPU recipe (900 iterations) stood under ``play.py --command 0 0 1`` (0.00 rad/s) while it tracked the
combined commands of training to 0.19-0.23 rad/s; the PPO policy of the same recipe happened to learn it.
"""

from __future__ import annotations

import dataclasses

import torch

from isaaclab.envs.mdp.commands.commands_cfg import UniformVelocityCommandCfg
from isaaclab.envs.mdp.commands.velocity_command import UniformVelocityCommand
from isaaclab.utils import configclass


class TurnInPlaceVelocityCommand(UniformVelocityCommand):
    """Isaac Lab's uniform velocity command, with a fraction of the environments (drawn at each resample) asked to
    turn in place: no linear velocity, a yaw rate drawn from ``ranges.ang_vel_z``, no heading control, not
    standing."""

    cfg: TurnInPlaceVelocityCommandCfg

    def __init__(self, cfg: TurnInPlaceVelocityCommandCfg, env) -> None:
        super().__init__(cfg, env)
        self.is_turn_in_place_env = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)

    def _resample_command(self, env_ids) -> None:
        super()._resample_command(env_ids)
        count = len(range(self.num_envs)[env_ids]) if isinstance(env_ids, slice) else len(env_ids)
        turning = torch.rand(count, device=self.device) < self.cfg.rel_turn_in_place_envs
        self.is_turn_in_place_env[env_ids] = turning
        self.vel_command_b[env_ids, :2] = torch.where(turning.unsqueeze(1), 0.0, self.vel_command_b[env_ids, :2])
        self.is_heading_env[env_ids] &= ~turning
        self.is_standing_env[env_ids] &= ~turning


@configclass
class TurnInPlaceVelocityCommandCfg(UniformVelocityCommandCfg):
    class_type: type = TurnInPlaceVelocityCommand

    rel_turn_in_place_envs: float = 0.1
    """Probability that a resample asks an environment to turn in place."""


def with_turn_in_place(command: UniformVelocityCommandCfg, rel_envs: float) -> TurnInPlaceVelocityCommandCfg:
    """``command`` (Isaac Lab's uniform velocity command config) with turning in place for ``rel_envs`` of the
    environments; every other setting kept."""
    settings = {field.name: getattr(command, field.name) for field in dataclasses.fields(command)}
    settings.pop("class_type")
    return TurnInPlaceVelocityCommandCfg(**settings, rel_turn_in_place_envs=rel_envs)
