"""The one rollout routine: training's data collection, periodic evaluation, ``play.py`` and ``eval.py`` step
environments with it, so they measure episodes the same way.

A rollout steps an rsl_rl VecEnv (whose steps carry ``extras["metrics"]``, see :mod:`locolab.envs.metrics`) for
``num_steps`` with a policy function: the algorithm's stochastic ``act`` for training, a deterministic actor for
evaluation. Its switches: ``on_step`` receives every transition (training stores it for PPO), ``accumulator`` turns
steps into episode metrics on the device, ``record`` keeps every env's every step (debugging CSVs).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from tensordict import TensorDict

from rsl_rl.env import VecEnv


class StepRecord:
    """Every environment's reward, done flag and metric values at every step of a rollout, preallocated on the
    device: ``values[t, n]`` holds ``names`` (``reward``, ``done``, then the metric columns)."""

    def __init__(self, metric_names: list[str], num_steps: int, num_envs: int, device: str | torch.device) -> None:
        self.names = ["reward", "done", *metric_names]
        self.values = torch.zeros(num_steps, num_envs, len(self.names), device=device)
        self.steps = 0

    def add(self, rewards: torch.Tensor, dones: torch.Tensor, metrics: torch.Tensor) -> None:
        self.values[self.steps, :, 0] = rewards
        self.values[self.steps, :, 1] = dones.float()
        self.values[self.steps, :, 2:] = metrics
        self.steps += 1


def rollout(
    env: VecEnv,
    act: Callable[[TensorDict], torch.Tensor],
    num_steps: int,
    obs: TensorDict,
    accumulator=None,
    on_step: Callable[[TensorDict, torch.Tensor, torch.Tensor, dict], None] | None = None,
    record: StepRecord | None = None,
    policy_metrics: Callable[[TensorDict], torch.Tensor] | None = None,
    device: str | torch.device | None = None,
) -> TensorDict:
    """Step ``env`` ``num_steps`` times from ``obs`` with actions ``act(obs)``; return the last observations.

    ``policy_metrics(obs) -> [N, K]``: metrics the policy computes (PPO-ROA's latent error), appended after the
    environment's columns and measured like its state metrics, on the observation after each step. Call it under
    ``torch.inference_mode()``.
    """
    device = device or obs.device
    for _ in range(num_steps):
        obs, rewards, dones, extras = env.step(act(obs).to(env.device))
        obs, rewards, dones = obs.to(device), rewards.to(device), dones.to(device)
        if on_step is not None:
            on_step(obs, rewards, dones, extras)
        if accumulator is None and record is None:
            continue
        metrics = extras["metrics"].to(device)
        if policy_metrics is not None:
            metrics = torch.cat([metrics, policy_metrics(obs)], dim=1)
        if accumulator is not None:
            accumulator.add(rewards, dones, metrics)
        if record is not None:
            record.add(rewards, dones, metrics)
    return obs
