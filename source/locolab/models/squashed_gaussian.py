"""The tanh-squashed Gaussian of SAC's actor, as an rsl_rl distribution module.

Extends rsl_rl's ``HeteroscedasticGaussianDistribution`` (mean and log-std both from the MLP): actions are
``center + half_range * tanh(u)`` with ``u`` Gaussian, so they stay inside the bounds the critic was trained on: one
symmetric ``action_bound`` for every action, or a ``(low, high)`` pair per action (``action_bounds``). The bounds are
buffers of the module, so a checkpoint carries them to ``play.py``, ``eval.py`` and ``export.py``, which build the actor
from the task's default config. Being an rsl_rl distribution, an rsl_rl ``MLPModel`` carries it: the SAC actor then has
rsl_rl's observation normaliser, observation groups, ``as_onnx()`` export and deterministic ``forward``
(``center + half_range * tanh(mean)``), so those scripts and the torch-free runtime use it like a PPO actor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from rsl_rl.modules.distribution import HeteroscedasticGaussianDistribution


class SquashedGaussianDistribution(HeteroscedasticGaussianDistribution):
    """``center + half_range * tanh(u)``, ``u ~ N(mean, std)``, mean and log-std from the MLP (log-std clamped)."""

    def __init__(self, output_dim: int, init_std: float = 1.0,
                 std_range: tuple[float, float] = (math.exp(-5), math.exp(2)), action_bound: float = 1.0,
                 init_mean_std: float | None = None,
                 action_bounds: Sequence[Sequence[float]] | None = None) -> None:
        """``action_bounds``: ``(low, high)`` of each action; None: ``(-action_bound, action_bound)`` for all."""
        super().__init__(output_dim, init_std=init_std, std_range=std_range, std_type="log")
        low, high = bounds_tensors(output_dim, action_bound, action_bounds)
        self.register_buffer("action_center", (high + low) / 2)
        self.register_buffer("action_half_range", (high - low) / 2)
        self.init_mean_std = init_mean_std

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs) -> None:
        """Checkpoints written before the bounds were buffers keep this module's (the config's) bounds."""
        for name in ("action_center", "action_half_range"):
            state_dict.setdefault(prefix + name, getattr(self, name))
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def squash(self, u: torch.Tensor) -> torch.Tensor:
        return self.action_center + self.action_half_range * torch.tanh(u)

    def __getstate__(self) -> dict:
        """A copy (``copy.deepcopy``, pickling) leaves out the distribution of the last forward pass: after a SAC
        update its mean and standard deviation carry the update's autograd graph, which cannot be deep-copied (the
        asynchronous collector copies the actor each time ``learn`` starts, as the walking gate's chunks do)."""
        return {**super().__getstate__(), "_distribution": None}

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
        return self.squash(self._distribution.sample())

    def rsample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterised action and its log-density, with the tanh and scale change of variables:
        ``log p(a) = log N(u) - sum log(half_range * (1 - tanh(u)^2))`` (the stable softplus form)."""
        u = self._distribution.rsample()
        correction = 2.0 * (math.log(2.0) - u - nn.functional.softplus(-2.0 * u)) + self.action_half_range.log()
        log_prob = self._distribution.log_prob(u).sum(dim=-1) - correction.sum(dim=-1)
        return self.squash(u), log_prob

    def deterministic_output(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.squash(mlp_output[..., 0, :])

    def as_deterministic_output_module(self) -> nn.Module:
        return _SquashedMean(self.action_center, self.action_half_range)


class ActionBoundsError(ValueError):
    """Action bounds that cannot squash: a wrong count, a pair out of order, a value not finite."""


def bounds_tensors(num_actions: int, action_bound: float,
                   action_bounds: Sequence[Sequence[float]] | None) -> tuple[torch.Tensor, torch.Tensor]:
    """``(low, high)`` of every action; an :class:`ActionBoundsError` naming the problem for bounds that cannot
    squash."""
    if action_bounds is None:
        if not action_bound > 0:
            raise ActionBoundsError(f"action_bound must be positive, got {action_bound}.")
        bound = torch.full((num_actions,), float(action_bound))
        return -bound, bound
    pairs = [tuple(pair) for pair in action_bounds]
    if len(pairs) != num_actions or any(len(pair) != 2 for pair in pairs):
        raise ActionBoundsError(f"action_bounds needs one [low, high] pair per action ({num_actions}), got "
                                f"{action_bounds}.")
    low, high = torch.tensor(pairs, dtype=torch.float32).unbind(dim=-1)
    if not bool((low < high).all()) or not bool(torch.isfinite(low).all() and torch.isfinite(high).all()):
        raise ActionBoundsError(f"action_bounds: every pair needs finite low < high, got {action_bounds}.")
    return low, high


class _SquashedMean(nn.Module):
    """Exportable ``center + half_range * tanh(mean)``."""

    def __init__(self, center: torch.Tensor, half_range: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("center", center.detach().clone())
        self.register_buffer("half_range", half_range.detach().clone())

    def forward(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.center + self.half_range * torch.tanh(mlp_output[..., 0, :])
