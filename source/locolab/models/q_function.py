"""SAC's twin Q-functions on the critic's observation set: Q(s, a) from normalised observations and the action."""

from __future__ import annotations

import torch
from tensordict import TensorDict
from torch import nn

from rsl_rl.modules import MLP, EmpiricalNormalization
from rsl_rl.utils import resolve_nn_activation


class TwinQFunction(nn.Module):
    """Two independent Q networks over one observation normaliser (rsl_rl's ``MLP`` and ``EmpiricalNormalization``).

    rsl_rl's ``MLPModel`` reads observations only; a Q-function also reads the action, so the two inputs are joined
    here. The normaliser covers the observations, not the action (bounded by the actor's tanh)."""

    def __init__(self, obs: TensorDict, obs_groups: list[str], num_actions: int, hidden_dims: list[int],
                 activation: str = "elu", obs_normalization: bool = True, layer_norm: bool = False) -> None:
        super().__init__()
        self.obs_groups = list(obs_groups)
        obs_dim = sum(obs[group].shape[-1] for group in self.obs_groups)
        self.obs_normalizer = EmpiricalNormalization(obs_dim) if obs_normalization else nn.Identity()
        self.q1 = q_network(obs_dim + num_actions, hidden_dims, activation, layer_norm)
        self.q2 = q_network(obs_dim + num_actions, hidden_dims, activation, layer_norm)

    def observation(self, obs: TensorDict) -> torch.Tensor:
        return self.obs_normalizer(torch.cat([obs[group] for group in self.obs_groups], dim=-1))

    def forward(self, obs: TensorDict, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inputs = torch.cat([self.observation(obs), actions], dim=-1)
        return self.q1(inputs).squeeze(-1), self.q2(inputs).squeeze(-1)

    def update_normalization(self, obs: TensorDict) -> None:
        if isinstance(self.obs_normalizer, EmpiricalNormalization):
            self.obs_normalizer.update(torch.cat([obs[group] for group in self.obs_groups], dim=-1))


def q_network(input_dim: int, hidden_dims: list[int], activation: str, layer_norm: bool) -> nn.Module:
    """rsl_rl's ``MLP`` to one output, or with ``layer_norm`` the same layers with a LayerNorm after each hidden linear
    layer (before its activation; rsl_rl's ``MLP`` has none). LayerNorm bounds a hidden layer's scale, so the critic
    cannot extrapolate to ever larger values for actions far from the data, which the actor would chase to the bounds
    (Ball et al., RLPD, 2023)."""
    if not layer_norm:
        return MLP(input_dim, 1, hidden_dims, activation)
    layers: list[nn.Module] = []
    for size in hidden_dims:
        layers += [nn.Linear(input_dim, size), nn.LayerNorm(size), resolve_nn_activation(activation)]
        input_dim = size
    return nn.Sequential(*layers, nn.Linear(input_dim, 1))
