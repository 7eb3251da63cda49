"""A small vectorised torch environment where acting well needs a hidden parameter (no simulator, no Isaac Lab).

A point x on a line must be driven to 0 and held there. Each step it moves by ``0.5 k (a + d)``: a is the action,
d an observed random drive (like a gait's own motion, it keeps the dynamics excited whatever the policy does) and
the gain k is hidden, drawn per episode from +-[0.5, 1.5], so its sign decides which way to push. The teacher
observes k (``priv``). The blind policy cannot: its best is to cancel d and stay where it started. The student can
infer k from its history of (x, last action, drive) once the history holds a step of its episode.
"""

from __future__ import annotations

import torch
from rsl_rl.env import VecEnv
from tensordict import TensorDict


class HiddenGainEnv(VecEnv):
    """Observation groups: ``policy`` = [x, last action, drive], ``priv`` = [k / 1.5], ``critic`` = both."""

    def __init__(self, num_envs: int, episode_length: int = 40, seed: int = 0, device: str = "cpu") -> None:
        self.num_envs = num_envs
        self.num_actions = 1
        self.max_episode_length = episode_length
        self.device = device
        self.cfg = {"episode_length": episode_length}
        self.generator = torch.Generator(device=device).manual_seed(seed)
        self.episode_length_buf = torch.zeros(num_envs, dtype=torch.long, device=device)
        self.x = torch.zeros(num_envs, device=device)
        self.gain = torch.zeros(num_envs, device=device)
        self.last_action = torch.zeros(num_envs, device=device)
        self.drive = torch.zeros(num_envs, device=device)
        self.reset_envs(torch.ones(num_envs, dtype=torch.bool, device=device))

    def _uniform(self, low: float, high: float) -> torch.Tensor:
        return low + (high - low) * torch.rand(self.num_envs, generator=self.generator, device=self.device)

    def reset_envs(self, mask: torch.Tensor) -> None:
        sign = torch.where(self._uniform(0, 1) < 0.5, -1.0, 1.0)
        self.gain = torch.where(mask, sign * self._uniform(0.5, 1.5), self.gain)
        self.x = torch.where(mask, self._uniform(-1, 1), self.x)
        self.last_action = torch.where(mask, 0.0, self.last_action)
        self.drive = torch.where(mask, self._uniform(-1, 1), self.drive)
        self.episode_length_buf = torch.where(mask, 0, self.episode_length_buf)

    def get_observations(self) -> TensorDict:
        policy = torch.stack([self.x, self.last_action, self.drive], dim=-1)
        priv = (self.gain / 1.5)[:, None]
        return TensorDict({"policy": policy, "priv": priv, "critic": torch.cat([policy, priv], dim=-1)},
                          batch_size=[self.num_envs])

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        action = actions[:, 0].clamp(-1.0, 1.0)
        noise = 0.01 * torch.randn(self.num_envs, generator=self.generator, device=self.device)
        self.x = (self.x + 0.5 * self.gain * (action + self.drive) + noise).clamp(-2.0, 2.0)
        self.last_action = action
        self.drive = self._uniform(-1, 1)
        rewards = torch.exp(-(self.x / 0.2) ** 2)
        self.episode_length_buf += 1
        time_outs = self.episode_length_buf >= self.max_episode_length
        self.reset_envs(time_outs)
        return self.get_observations(), rewards, time_outs.long(), {"time_outs": time_outs}
