"""Standing still under a standing command: Isaac Lab's joint-deviation penalty, gated on the whole command.

The gait clock stops asking for steps under a standing command (:data:`~locolab.envs.mdp.gait_clock.MOVING_COMMAND`),
but nothing asked the feet to stay put either, and the rough runs' robots stepped in place and drifted at 0.10 m/s
under a zero command (docs/measurements/rough_terrain.md). Isaac Lab's ``stand_still_joint_deviation_l1`` gates on
the linear command alone, so under heading commands it would also penalise turning in place; this term gates on all
three components, exactly where the clock goes quiet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab.envs.mdp import joint_deviation_l1
from isaaclab.managers import RewardTermCfg, SceneEntityCfg

from locolab.envs.mdp.gait_clock import moving_command

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv

STAND_STILL_REWARD = "stand_still"


def stand_still_joint_deviation(env: ManagerBasedRLEnv, command_name: str = "base_velocity",
                                asset_cfg: SceneEntityCfg = SceneEntityCfg("robot")) -> torch.Tensor:
    """[N] the joints' summed distance from their defaults [rad] under a standing command (norm of lin_vel_x,
    lin_vel_y, ang_vel_z at most :data:`~locolab.envs.mdp.gait_clock.MOVING_COMMAND`), zero otherwise."""
    return joint_deviation_l1(env, asset_cfg) * ~moving_command(env, command_name)


def stand_still_reward(weight: float) -> RewardTermCfg:
    """The penalty's term (``weight`` negative) over every joint of the robot."""
    return RewardTermCfg(func=stand_still_joint_deviation, weight=weight)
