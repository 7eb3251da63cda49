"""PPO-ROA and PPO on :class:`HiddenGainEnv`, through LocoLab's OnPolicyRunner: the adaptation tests' training."""

from __future__ import annotations

from pathlib import Path

import torch

from hidden_gain_env import HiddenGainEnv
from locolab.envs import ProprioHistoryWrapper
from locolab.runners.on_policy_runner import LocoLabOnPolicyRunner

HISTORY_LENGTH = 8
NUM_ENVS = 128
OBS_GROUPS = {"actor": ["policy"], "critic": ["critic"], "priv": ["priv"], "history": ["history"]}

PPO_CFG = {
    "class_name": "PPO", "num_learning_epochs": 5, "num_mini_batches": 4, "learning_rate": 1e-3,
    "schedule": "adaptive", "desired_kl": 0.01, "gamma": 0.95, "lam": 0.95, "entropy_coef": 0.005,
    "max_grad_norm": 1.0, "value_loss_coef": 1.0, "use_clipped_value_loss": True, "clip_param": 0.2,
}
ROA_CFG = PPO_CFG | {
    "class_name": "locolab.algorithms.ppo_roa:PPOROA", "phase": "train", "latent_dim": 4,
    "encoder_priv": {"hidden_dims": [32], "activation": "elu"},
    "adapt_module": {"class_name": "locolab.models:TemporalConvEncoder", "embedding_dim": 16, "channels": [16, 16],
                     "kernel_sizes": [3, 3], "strides": [1, 1]},
    "reg_lambda_max": 0.1, "reg_lambda_window": [10, 30],
    "num_adaptation_epochs": 4, "adaptation_learning_rate": 3e-3,
    "ema_tau": 0.2,
}
"""ROA for a 40-iteration run: the EMA's time constant (1 / tau iterations) shrunk with the run (0.04 suits
thousands of iterations), more adaptation epochs per iteration, lambda ramped over iterations 10-30."""


def runner_cfg(algorithm: dict, obs_groups: dict) -> dict:
    model = {"class_name": "MLPModel", "hidden_dims": [64, 64], "activation": "elu", "obs_normalization": True}
    return {
        "num_steps_per_env": 40, "save_interval": 10_000, "obs_groups": dict(obs_groups), "algorithm": algorithm,
        "actor": model | {"distribution_cfg": {"class_name": "GaussianDistribution", "init_std": 1.0}},
        "critic": dict(model),
    }


def history_env(num_envs: int, seed: int) -> ProprioHistoryWrapper:
    return ProprioHistoryWrapper(HiddenGainEnv(num_envs, seed=seed), HISTORY_LENGTH)


def train_roa(log_dir: Path, phase: str, iterations: int, teacher: Path | None = None,
              seed: int = 0) -> LocoLabOnPolicyRunner:
    torch.manual_seed(seed)
    runner = LocoLabOnPolicyRunner(history_env(NUM_ENVS, seed), runner_cfg(ROA_CFG | {"phase": phase}, OBS_GROUPS),
                                   log_dir=str(log_dir), device="cpu")
    if teacher is not None:
        runner.load(str(teacher), load_cfg={"teacher": True})
    runner.learn(iterations, init_at_random_ep_len=True)
    return runner


def train_ppo(iterations: int, seed: int = 0) -> LocoLabOnPolicyRunner:
    torch.manual_seed(seed)
    runner = LocoLabOnPolicyRunner(HiddenGainEnv(NUM_ENVS, seed=seed),
                                   runner_cfg(PPO_CFG, {"actor": ["policy"], "critic": ["critic"]}), log_dir=None,
                                   device="cpu")
    runner.learn(iterations, init_at_random_ep_len=True)
    return runner


@torch.inference_mode()
def mean_return(policy, num_envs: int = 1024, seed: int = 123) -> float:
    """Mean undiscounted return of one episode per environment, deterministic actions, fresh episodes."""
    env = history_env(num_envs, seed)
    policy.eval()
    obs, total = env.get_observations(), torch.zeros(num_envs)
    for _ in range(env.max_episode_length):
        obs, rewards, _, _ = env.step(policy(obs))
        total += rewards
    return total.mean().item()
