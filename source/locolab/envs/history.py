"""The proprioceptive history: the last H ``policy`` observations of each environment, oldest first.

One implementation serves training, evaluation and (mirrored value for value by the deployment runtime) the robot:
after a reset an environment's history is refilled with its first observation, as if the robot had held still,
which is also how Isaac Lab's observation histories start. It is an rsl_rl VecEnv wrapper rather than an Isaac Lab
observation group so that the newest entry is exactly the policy observation (one noise draw, as on a robot), any
VecEnv gets it (the adaptation tests' torch environment too), and only agents that read it pay for it.
"""

from __future__ import annotations

import torch
from rsl_rl.env import VecEnv
from tensordict import TensorDict

from .vec_env_wrapper import VecEnvWrapper


class ProprioHistory:
    """A ``(num_envs, length, obs_dim)`` buffer of observations, newest last."""

    def __init__(self, length: int) -> None:
        if length < 1:
            raise ValueError(f"history length must be at least 1, got {length}.")
        self.length = length
        self.buffer: torch.Tensor | None = None

    def reset(self, obs: torch.Tensor) -> torch.Tensor:
        """Fill every environment's history with ``obs``."""
        self.buffer = obs[:, None].repeat(1, self.length, 1)
        return self.buffer

    def push(self, obs: torch.Tensor, dones: torch.Tensor) -> torch.Tensor:
        """Append ``obs``; environments marked in ``dones`` (whose ``obs`` starts a new episode) restart from it.

        Returns a new tensor each step, so a history handed out earlier is never modified.
        """
        shifted = torch.cat([self.buffer[:, 1:], obs[:, None]], dim=1)
        restart = dones.view(-1, 1, 1).bool()
        self.buffer = torch.where(restart, obs[:, None].expand_as(shifted), shifted)
        return self.buffer


class ProprioHistoryWrapper(VecEnvWrapper):
    """Adds the observation ``name`` = the last ``length`` observations of group ``source`` to an rsl_rl VecEnv."""

    def __init__(self, env: VecEnv, length: int, source: str = "policy", name: str = "history") -> None:
        super().__init__(env)
        self.source = source
        self.name = name
        self.history = ProprioHistory(length)
        observations = env.get_observations()
        if source not in observations.keys():
            raise ValueError(f"history source '{source}' is not an observation group: {list(observations.keys())}.")
        self.history.reset(observations[source])

    def get_observations(self) -> TensorDict:
        observations = self.env.get_observations()
        observations[self.name] = self.history.buffer
        return observations

    def reset(self, seed: int | None = None) -> TensorDict:
        """Reset the wrapped environment (``reset(seed)``) and start every history from its first observation."""
        observations = self.env.reset(seed=seed)
        observations[self.name] = self.history.reset(observations[self.source])
        return observations

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        observations, rewards, dones, extras = self.env.step(actions)
        observations[self.name] = self.history.push(observations[self.source], dones)
        return observations, rewards, dones, extras
