"""The pass-through part of LocoLab's rsl_rl VecEnv wrappers (rsl_rl has a VecEnv interface but no wrapper base)."""

from __future__ import annotations

import torch
from rsl_rl.env import VecEnv
from tensordict import TensorDict


class VecEnvWrapper(VecEnv):
    """Forwards everything to the wrapped VecEnv ``env``; subclasses override what they add."""

    def __init__(self, env: VecEnv) -> None:
        self.env = env
        self.num_envs, self.num_actions = env.num_envs, env.num_actions
        self.max_episode_length, self.device = env.max_episode_length, env.device

    @property
    def cfg(self):
        return self.env.cfg

    @property
    def bounds(self) -> list[tuple[int, int]]:
        """The ``[start, stop)`` slices of the robots that each simulation process steps (one process: all)."""
        return getattr(self.env, "bounds", [(0, self.num_envs)])

    @property
    def episode_length_buf(self) -> torch.Tensor:
        return self.env.episode_length_buf

    @episode_length_buf.setter
    def episode_length_buf(self, value: torch.Tensor) -> None:
        self.env.episode_length_buf = value

    def get_observations(self) -> TensorDict:
        return self.env.get_observations()

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        return self.env.step(actions)

    def __getattr__(self, name: str):
        """Everything else (``unwrapped``, ``close``, ``seed``, ...) is the wrapped environment's."""
        return getattr(self.env, name)
