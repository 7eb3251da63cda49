"""A curriculum that widens the randomised dynamics and the pushes as velocity tracking improves.

Isaac Lab's velocity tasks grow terrain difficulty with a curriculum but apply their full randomisation from the first
step. At CPU batch sizes that slows learning to walk: every push and every extreme friction, payload or motor sample
costs a policy that cannot yet walk. This term starts from the nominal robot (each dynamics range shrunk to its
midpoint, pushes at zero velocity) and raises a level in [0, 1] by ``step`` whenever the environments ending their
episodes tracked the velocity command well (their ``track_lin_vel_xy_exp`` return is at least ``threshold`` of its
maximum), lowering it when they tracked badly. At level 1 the ranges are the task's configured ones (what the README
documents), so a trained policy has met every sample. The level is logged as ``Curriculum/robustness``.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch

from isaaclab.managers import CurriculumTermCfg, ManagerTermBase

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv


class robustness_curriculum(ManagerTermBase):
    """Scale the ``dynamics`` event's ranges and the ``push_robot`` velocities by a level that follows tracking."""

    def __init__(self, cfg: CurriculumTermCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        params = cfg.params
        self.level = float(params.get("initial_level", 0.0))
        self.dynamics = env.event_manager.get_term_cfg(params.get("dynamics_event", "dynamics")).func
        push_event = params.get("push_event", "push_robot")
        self.push_cfg = (env.event_manager.get_term_cfg(push_event)
                         if push_event in env.event_manager.active_terms.get("interval", []) else None)
        self.final_push = copy.deepcopy(self.push_cfg.params["velocity_range"]) if self.push_cfg else None
        self._apply()

    def state_dict(self) -> dict:
        """The level, saved with each checkpoint (locolab.envs.curriculum_state) so a resumed run keeps it."""
        return {"level": self.level}

    def load_state_dict(self, state: dict) -> None:
        self.level = float(state["level"])
        self._apply()

    def _apply(self) -> None:
        self.dynamics.range_scale = self.level
        if self.push_cfg is not None:
            self.push_cfg.params["velocity_range"] = {
                axis: (low * self.level, high * self.level) for axis, (low, high) in self.final_push.items()}

    def tracking_score(self, env: ManagerBasedRLEnv, env_ids: torch.Tensor, reward_term: str) -> float | None:
        """The reward term's return over the ending episodes as a fraction of its maximum (None if no time passed)."""
        manager = env.reward_manager
        weight = manager.get_term_cfg(reward_term).weight
        seconds = float(env.episode_length_buf[env_ids].sum()) * env.step_dt
        if seconds <= 0.0 or weight <= 0.0:
            return None
        return float(manager._episode_sums[reward_term][env_ids].sum()) / (weight * seconds)

    def __call__(self, env: ManagerBasedRLEnv, env_ids: Sequence[int], dynamics_event: str = "dynamics",
                 push_event: str = "push_robot", reward_term: str = "track_lin_vel_xy_exp", threshold: float = 0.7,
                 step: float = 0.05, initial_level: float = 0.0) -> torch.Tensor:
        if isinstance(env_ids, slice):
            env_ids = torch.arange(env.num_envs, device=env.device)[env_ids]
        env_ids = torch.as_tensor(env_ids, device=env.device)
        if len(env_ids) > 0:
            score = self.tracking_score(env, env_ids, reward_term)
            if score is not None:
                if score >= threshold:
                    self.level = min(1.0, self.level + step)
                elif score < 0.5 * threshold:
                    self.level = max(0.0, self.level - step)
                self._apply()
        return torch.tensor(self.level)


def robustness_curriculum_cfg() -> CurriculumTermCfg:
    """The term's config with every parameter spelled out at its default, so that a command-line override such as
    ``env.curriculum.robustness.params.step=0.1`` finds its key."""
    parameters = inspect.signature(robustness_curriculum.__call__).parameters.values()
    return CurriculumTermCfg(func=robustness_curriculum, params={
        p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty})
