"""rsl_rl's MLPModel conditioned on a latent that an encoder computes from another observation set.

ROA's teacher is ``actor`` reading z = ``encoder_priv``(privileged observations) and its student ``actor_adapt``
reading z_hat = ``adapt_ema``(history). Overriding only the MLP input (``get_latent``) keeps everything else of
MLPModel: the observation normaliser, the Gaussian head, log-probabilities, entropy and KL.

A model built with a ``latent_key`` takes its latent from that observation entry when the TensorDict carries one
(a latent computed once per transition and stored with it) instead of running its encoder again: ROA's updates replay
each stored transition many times, and the student's history encoder is the costliest part of its forward pass.
"""

from __future__ import annotations

import copy

import torch
from rsl_rl.models import MLPModel
from tensordict import TensorDict
from torch import nn

from .encoders import ObsSetEncoder


class LatentMLPModel(MLPModel):
    """MLP over ``[normalised obs_groups[obs_set], encoder(obs)]``; the encoder is a submodule (saved with it).
    ``obs[latent_key]``, where present, stands in for ``encoder(obs)``."""

    def __init__(self, obs: TensorDict, obs_groups: dict[str, list[str]], obs_set: str, output_dim: int,
                 encoder: ObsSetEncoder, latent_key: str | None = None, **mlp_model_kwargs) -> None:
        self.encoder_latent_dim = encoder.latent_dim  # read by _get_latent_dim during MLPModel.__init__
        super().__init__(obs, obs_groups, obs_set, output_dim, **mlp_model_kwargs)
        self.encoder = encoder
        self.latent_key = latent_key

    def get_latent(self, obs: TensorDict, masks: torch.Tensor | None = None, hidden_state=None) -> torch.Tensor:
        given = self.latent_key is not None and self.latent_key in obs.keys()
        latent = obs[self.latent_key] if given else self.encoder(obs)
        return torch.cat([super().get_latent(obs, masks, hidden_state), latent], dim=-1)

    def _get_latent_dim(self) -> int:
        return self.obs_dim + self.encoder_latent_dim

    def as_onnx(self, verbose: bool = False) -> nn.Module:
        """An export copy: deterministic actions from the observation and the encoder's input, as two tensors."""
        return _OnnxLatentMLPModel(self)


class _OnnxLatentMLPModel(nn.Module):
    """``actions = mlp([normalise(obs), encoder(encoder_input)])`` on plain tensors, like rsl_rl's ONNX models: the
    input names are ``obs`` and the encoder's observation set (``history`` for ROA's student, ``priv`` for its
    teacher)."""

    def __init__(self, model: LatentMLPModel) -> None:
        super().__init__()
        self.obs_normalizer = copy.deepcopy(model.obs_normalizer)
        self.mlp = copy.deepcopy(model.mlp)
        self.encoder = copy.deepcopy(model.encoder)
        self.deterministic_output = (model.distribution.as_deterministic_output_module()
                                     if model.distribution is not None else nn.Identity())
        self.input_shapes = {"obs": (model.obs_dim,), model.encoder.obs_set: model.encoder.input_shape}

    def forward(self, obs: torch.Tensor, encoder_input: torch.Tensor) -> torch.Tensor:
        latent = torch.cat([self.obs_normalizer(obs), self.encoder.encode(encoder_input)], dim=-1)
        return self.deterministic_output(self.mlp(latent))

    def get_dummy_inputs(self) -> tuple[torch.Tensor, ...]:
        return tuple(torch.zeros(1, *shape) for shape in self.input_shapes.values())

    @property
    def input_names(self) -> list[str]:
        return list(self.input_shapes)

    @property
    def output_names(self) -> list[str]:
        return ["actions"]
