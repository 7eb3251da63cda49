"""A tiny rsl_rl VecEnv for collector tests: each observation is the transition's unique id (step * N + env)."""

from __future__ import annotations

import threading

import torch
from tensordict import TensorDict
from torch import nn


class CountingVecEnv:
    """``num_envs`` environments whose ``policy`` observation is ``step * num_envs + env``. Environment ``e``'s
    episode ends every ``episode_length + e`` steps, by time-out when the step count is even, else by termination.
    ``fail_at``: the step that raises (a simulator error in the collector thread)."""

    def __init__(self, num_envs: int = 3, episode_length: int = 4, fail_at: int | None = None) -> None:
        self.num_envs = num_envs
        self.num_actions = 1
        self.device = "cpu"
        self.episode_length = episode_length
        self.fail_at = fail_at
        self.steps = 0
        self.actions: list[torch.Tensor] = []
        self.stepping_thread: threading.Thread | None = None

    def get_observations(self) -> TensorDict:
        ids = self.steps * self.num_envs + torch.arange(self.num_envs, dtype=torch.float32)
        return TensorDict({"policy": ids[:, None], "critic": ids[:, None]}, batch_size=[self.num_envs])

    def step(self, actions: torch.Tensor):
        if self.steps == self.fail_at:
            raise FloatingPointError("simulated solver failure")
        self.stepping_thread = threading.current_thread()
        self.actions.append(actions.clone())
        self.steps += 1
        periods = self.episode_length + torch.arange(self.num_envs)
        dones = (self.steps % periods == 0).float()
        time_outs = dones.bool() & (self.steps % 2 == 0)
        rewards = torch.full((self.num_envs,), float(self.steps))
        return self.get_observations(), rewards, dones, {"time_outs": time_outs, "log": {"steps": self.steps}}


class ConstantPolicy(nn.Module):
    """Acts with its one weight: the actions show which published weights chose them."""

    def __init__(self, value: float = 0.0) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([value]))

    def forward(self, obs: TensorDict, stochastic_output: bool = False) -> torch.Tensor:
        return self.weight.expand(obs.batch_size[0], 1).clone()
