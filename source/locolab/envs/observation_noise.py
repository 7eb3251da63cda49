"""The policy observations' noise in evaluation: Isaac Lab's play mode turns it off; ``play.py --observation_noise``
keeps it on, as in training.

Why a switch: a policy can learn a gait that only the training's noise keeps up. Three of six ``make train`` runs on
the CPU profile did (docs/measurements/cpu_ppo_walking.md): their mean action walked 0.30-0.35 m/s under a 0.5 m/s
command with clean observations and 0.46-0.50 m/s with the training's observation noise, where the walking runs'
speed does not depend on it. Playing a checkpoint both ways tells such a gait from one that holds without noise.
"""

from __future__ import annotations

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
