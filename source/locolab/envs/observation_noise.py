"""The policy observations' noise in evaluation and in training.

Evaluation: Isaac Lab's play mode turns it off; ``play.py --observation_noise`` keeps it on, as in training.
Training: :class:`PartlyUniformNoiseCfg` leaves a share of the robots without it (``noise_free_envs``), so that the
closed loop the robot ships with (clean observations, the mean action) is part of what PPO optimises.

Why a switch: a policy can learn a gait that only the training's noise keeps up. Three of six ``make train`` runs on
the CPU profile did (docs/measurements/cpu_ppo_walking.md): their mean action walked 0.30-0.35 m/s under a 0.5 m/s
command with clean observations and 0.46-0.50 m/s with the training's observation noise, where the walking runs'
speed does not depend on it. Playing a checkpoint both ways tells such a gait from one that holds without noise.
"""

from __future__ import annotations

import torch

from isaaclab.utils import configclass
from isaaclab.utils.noise import UniformNoiseCfg, noise_model

POLICY_GROUP = "policy"


def keep_observation_noise(env_cfg, group: str = POLICY_GROUP) -> None:
    """Corrupt ``group``'s observations with their configured noise terms (``enable_corruption``), as in training."""
    getattr(env_cfg.observations, group).enable_corruption = True


def noisy_observation_terms(env, group: str = POLICY_GROUP) -> list[str]:
    """The terms of ``group`` that the built environment corrupts with noise, read from its observation manager
    (Isaac Lab drops a term's noise when its group's corruption is off)."""
    manager = env.unwrapped.observation_manager
    names, cfgs = manager.active_terms[group], manager._group_obs_term_cfgs[group]
    return [name for name, cfg in zip(names, cfgs) if cfg.noise is not None]


def noise_free_count(num_envs: int, share: float) -> int:
    """How many of a simulation process's ``num_envs`` robots (its first ones) see no observation noise."""
    return round(share * num_envs)


def uniform_noise_but_first(data: torch.Tensor, cfg: PartlyUniformNoiseCfg) -> torch.Tensor:
    """Isaac Lab's uniform noise on every robot's row of ``data`` but the first ``noise_free_envs`` share."""
    noisy = noise_model.uniform_noise(data, cfg)
    clean = noise_free_count(data.shape[0], cfg.noise_free_envs)
    return torch.cat([data[:clean], noisy[clean:]]) if clean else noisy


@configclass
class PartlyUniformNoiseCfg(UniformNoiseCfg):
    """Isaac Lab's uniform noise, off for the first ``noise_free_envs`` share of each simulation process's robots.

    Extends Isaac Lab's noise configs (one noise for every robot) with a share of robots that see none, so the
    robots without noise run the same closed loop as play.py, the export and the robot."""

    func = uniform_noise_but_first
    noise_free_envs: float = 0.0


def set_noise_free_envs(env_cfg, share: float, group: str = POLICY_GROUP) -> None:
    """Leave the first ``share`` of each process's robots without ``group``'s uniform observation noise."""
    for term in vars(getattr(env_cfg.observations, group)).values():
        noise = getattr(term, "noise", None)
        if isinstance(noise, UniformNoiseCfg):
            term.noise = PartlyUniformNoiseCfg(n_min=noise.n_min, n_max=noise.n_max, operation=noise.operation,
                                               noise_free_envs=share)


def noise_free_share(env_cfg, group: str = POLICY_GROUP) -> float:
    """The share of robots that see none of ``group``'s observation noise while the others do (0: no such split)."""
    group_cfg = getattr(getattr(env_cfg, "observations", None), group, None)
    if group_cfg is None or not group_cfg.enable_corruption:
        return 0.0
    noises = [noise for term in vars(group_cfg).values() if (noise := getattr(term, "noise", None)) is not None]
    return min((getattr(noise, "noise_free_envs", 0.0) for noise in noises), default=0.0)


def noise_free_env_ids(env) -> torch.Tensor | None:
    """The ids of an rsl_rl VecEnv's robots without policy observation noise (None: every robot has the same),
    across its simulation processes' slices (``bounds``): training logs their episodes apart."""
    share = noise_free_share(getattr(env, "cfg", None))
    bounds = getattr(env, "bounds", [(0, env.num_envs)])
    ids = torch.cat([torch.arange(start, start + noise_free_count(stop - start, share)) for start, stop in bounds])
    return ids if share and len(ids) else None
