"""An end for robots that stall under a command to walk: they have not covered ``distance`` in ``seconds``.

On 10 cm box grids blind PPO's robots that stop stay stopped for the rest of their 20 s episode, under the policy's
own sampled noise too (docs/measurements/rough_terrain.md, twenty-third session): in training such a robot's
remaining steps repeat one state and teach nothing, and it is demoted only when its episode ends. Isaac Lab's
velocity tasks end episodes on a fall, a time-out or the terrain's edge; this term ends a stalled one, as a time-out
by default (its return is bootstrapped, so only the samples change: the robot restarts on its tile, demoted by the
terrain curriculum) or, with ``time_out=False``, as a failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab.managers import ManagerTermBase, SceneEntityCfg, TerminationTermCfg

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv

STALLED_TERMINATION = "stalled"


class stalled_under_command(ManagerTermBase):
    """[N] bool: the linear command asks for more than ``min_speed`` [m/s] and the base has not moved ``distance``
    [m] (in xy) from where it was ``seconds`` ago or more; off (never true) at ``seconds`` <= 0. The window restarts
    whenever the base gets ``distance`` away from its start, the command drops to ``min_speed`` or the episode
    resets."""

    def __init__(self, cfg: TerminationTermCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        self.start = torch.zeros(self.num_envs, 2, device=self.device)
        self.steps = torch.full((self.num_envs,), -1, dtype=torch.long, device=self.device)
        """Steps since each window's start; -1: a window to start at the next call (after a reset)."""

    def reset(self, env_ids=None) -> None:
        self.steps[slice(None) if env_ids is None else env_ids] = -1

    def __call__(self, env: ManagerBasedRLEnv, seconds: float, distance: float, min_speed: float,
                 command_name: str = "base_velocity",
                 asset_cfg: SceneEntityCfg = SceneEntityCfg("robot")) -> torch.Tensor:
        if seconds <= 0.0:
            return torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        position = env.scene[asset_cfg.name].data.root_pos_w.torch[:, :2]
        walking = env.command_manager.get_command(command_name)[:, :2].norm(dim=1) > min_speed
        restart = (self.steps < 0) | ~walking | ((position - self.start).norm(dim=1) >= distance)
        self.start[restart] = position[restart]
        self.steps = torch.where(restart, 0, self.steps + 1)
        return self.steps * env.step_dt >= seconds


def stalled_termination(seconds: float, distance: float, min_speed: float) -> TerminationTermCfg:
    """The term (:class:`stalled_under_command`) as a time-out; ``seconds`` 0 leaves it off."""
    return TerminationTermCfg(func=stalled_under_command, time_out=True,
                              params={"seconds": seconds, "distance": distance, "min_speed": min_speed})
