"""Isaac Lab configclasses for PPO-ROA, in the style of isaaclab_rl's rsl_rl configs (which they extend)."""

from __future__ import annotations

from dataclasses import MISSING
from typing import Literal

from isaaclab.utils import configclass
from isaaclab_rl.rsl_rl import RslRlOnPolicyRunnerCfg, RslRlPpoAlgorithmCfg

from locolab.runners.runner_cfg import LocoLabRunnerExtrasCfg


@configclass
class RslRlRoaEncoderCfg:
    """``encoder_priv``: privileged observations -> z (a few dozen inputs: 128-64 is ample)."""

    hidden_dims: list[int] = [128, 64]
    activation: str = "elu"


@configclass
class RslRlRoaAdaptModuleCfg:
    """``adapt_module``: proprioceptive history -> z_hat. The default is RMA/ROA's temporal convolution."""

    class_name: str = "locolab.models:TemporalConvEncoder"
    embedding_dim: int = 32
    channels: list[int] = [32, 32, 32]
    kernel_sizes: list[int] = [8, 5, 5]
    strides: list[int] = [4, 1, 1]
    activation: str = "relu"


@configclass
class RslRlRoaMLPAdaptModuleCfg:
    """The MLP alternative for ``adapt_module`` (the flattened history)."""

    class_name: str = "locolab.models:HistoryMLPEncoder"
    hidden_dims: list[int] = [256, 128]
    activation: str = "elu"


@configclass
class RslRlRoaAlgorithmCfg(RslRlPpoAlgorithmCfg):
    """PPO-ROA: PPO's settings plus the teacher-student ones (see :class:`locolab.algorithms.PPOROA`)."""

    class_name: str = "locolab.algorithms.ppo_roa:PPOROA"
    phase: Literal["train", "finetune"] = "train"
    """``train``: the teacher acts and learns; ``finetune``: the student acts and learns (starts from --teacher)."""
    latent_dim: int = 16
    """Size of z (and z_hat)."""
    encoder_priv: RslRlRoaEncoderCfg = RslRlRoaEncoderCfg()
    adapt_module: RslRlRoaAdaptModuleCfg | RslRlRoaMLPAdaptModuleCfg = RslRlRoaAdaptModuleCfg()
    reg_lambda_max: float = MISSING
    """Final weight of the ROA regulariser ||z - sg(z_hat)|| in the teacher's loss."""
    reg_lambda_window: tuple[int, int] = MISSING
    """Train-phase iterations over which lambda ramps linearly from 0 to ``reg_lambda_max``."""
    adaptation_learning_rate: float = 1e-3
    num_adaptation_epochs: int = 2
    num_adaptation_mini_batches: int = 4
    distillation_learning_rate: float = 1e-3
    """Learning rate of actor_adapt's distillation of the teacher's action mean (phase train)."""
    ema_tau: float = 0.04
    """adapt_ema <- (1 - tau) adapt_ema + tau adapt_module after every update."""
    update_normalizers_in_finetune: bool = False
    """Keep updating the observation normalisers in phase finetune (default: frozen at the teacher's)."""


@configclass
class RslRlRoaRunnerCfg(RslRlOnPolicyRunnerCfg, LocoLabRunnerExtrasCfg):
    """OnPolicyRunner config for PPO-ROA: the observation sets the ROA modules read."""

    obs_groups: dict[str, list[str]] = {
        "actor": ["policy"],
        "critic": ["critic"],
        "priv": ["priv"],
        "history": ["history"],
    }
    algorithm: RslRlRoaAlgorithmCfg = MISSING
