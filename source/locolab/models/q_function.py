"""SAC's twin Q-functions on the critic's observation set: Q(s, a) from normalised observations and the action."""

from __future__ import annotations

import torch
from tensordict import TensorDict
from torch import nn

from rsl_rl.modules import MLP, EmpiricalNormalization


class TwinQFunction(nn.Module):
    """Two independent Q networks over one observation normaliser (rsl_rl's ``MLP`` and ``EmpiricalNormalization``).

    rsl_rl's ``MLPModel`` reads observations only; a Q-function also reads the action, so the two inputs are joined
    here. The normaliser covers the observations, not the action (bounded by the actor's tanh)."""

    def __init__(self, obs: TensorDict, obs_groups: list[str], num_actions: int, hidden_dims: list[int],
                 activation: str = "elu", obs_normalization: bool = True) -> None:
        super().__init__()
        self.obs_groups = list(obs_groups)
        obs_dim = sum(obs[group].shape[-1] for group in self.obs_groups)
        self.obs_normalizer = EmpiricalNormalization(obs_dim) if obs_normalization else nn.Identity()
        self.q1 = MLP(obs_dim + num_actions, 1, hidden_dims, activation)
        self.q2 = MLP(obs_dim + num_actions, 1, hidden_dims, activation)

    def observation(self, obs: TensorDict) -> torch.Tensor:
        return self.obs_normalizer(torch.cat([obs[group] for group in self.obs_groups], dim=-1))

    def forward(self, obs: TensorDict, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inputs = torch.cat([self.observation(obs), actions], dim=-1)
        return self.q1(inputs).squeeze(-1), self.q2(inputs).squeeze(-1)

    def update_normalization(self, obs: TensorDict) -> None:
        if isinstance(self.obs_normalizer, EmpiricalNormalization):
            self.obs_normalizer.update(torch.cat([obs[group] for group in self.obs_groups], dim=-1))
