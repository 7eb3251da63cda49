"""The tanh-squashed Gaussian of SAC's actor, as an rsl_rl distribution module.

Extends rsl_rl's ``HeteroscedasticGaussianDistribution`` (mean and log-std both from the MLP): actions are
``action_bound * tanh(u)`` with ``u`` Gaussian, so they stay inside the bound the critic was trained on. Being an rsl_rl
distribution, an rsl_rl ``MLPModel`` carries it: the SAC actor then has rsl_rl's observation normaliser, observation
groups, ``as_onnx()`` export and deterministic ``forward`` (``action_bound * tanh(mean)``), so ``play.py``,
``export.py``, ``eval.py`` and the torch-free runtime use it like a PPO actor.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from rsl_rl.modules.distribution import HeteroscedasticGaussianDistribution


class SquashedGaussianDistribution(HeteroscedasticGaussianDistribution):
    """``action_bound * tanh(u)``, ``u ~ N(mean, std)``, mean and log-std from the MLP (log-std clamped)."""

    def __init__(self, output_dim: int, init_std: float = 1.0,
                 std_range: tuple[float, float] = (math.exp(-5), math.exp(2)), action_bound: float = 1.0,
                 init_mean_std: float | None = None) -> None:
        super().__init__(output_dim, init_std=init_std, std_range=std_range, std_type="log")
        self.action_bound = float(action_bound)
        self.init_mean_std = init_mean_std

    def init_mlp_weights(self, mlp: nn.Module) -> None:
        """rsl_rl's log-std head initialisation and, with ``init_mean_std``, a mean head of weights
        ``N(0, init_mean_std)`` and zero biases: the untrained actor's mean action is then near 0 (the default pose)
        in every state, instead of a state-dependent offset of PyTorch's default initialisation."""
        super().init_mlp_weights(mlp)
        if self.init_mean_std is not None:
            nn.init.normal_(mlp[-2].weight[: self.output_dim], std=self.init_mean_std)
            nn.init.zeros_(mlp[-2].bias[: self.output_dim])

    def sample(self) -> torch.Tensor:
        """An exploration action (no gradient)."""
        return self.action_bound * torch.tanh(self._distribution.sample())

    def rsample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterised action and its log-density, with the tanh and scale change of variables:
        ``log p(a) = log N(u) - sum log(bound * (1 - tanh(u)^2))`` (the stable softplus form)."""
        u = self._distribution.rsample()
        correction = 2.0 * (math.log(2.0) - u - nn.functional.softplus(-2.0 * u)) + math.log(self.action_bound)
        log_prob = self._distribution.log_prob(u).sum(dim=-1) - correction.sum(dim=-1)
        return self.action_bound * torch.tanh(u), log_prob

    def deterministic_output(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.action_bound * torch.tanh(mlp_output[..., 0, :])

    def as_deterministic_output_module(self) -> nn.Module:
        return _SquashedMean(self.action_bound)


class _SquashedMean(nn.Module):
    """Exportable ``action_bound * tanh(mean)``."""

    def __init__(self, action_bound: float) -> None:
        super().__init__()
        self.action_bound = action_bound

    def forward(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.action_bound * torch.tanh(mlp_output[..., 0, :])
