"""Privileged observation terms: what the simulator knows and a real robot does not measure."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab.managers import SceneEntityCfg

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv


def dynamics_params(env: ManagerBasedRLEnv, event_name: str = "dynamics") -> torch.Tensor:
    """The dynamics applied by the :class:`~locolab.envs.mdp.randomize_dynamics` event ``event_name``, in [-1, 1]."""
    return env.event_manager.get_term_cfg(event_name).func.normalized()


def feet_contact(env: ManagerBasedRLEnv, sensor_cfg: SceneEntityCfg, threshold: float = 1.0) -> torch.Tensor:
    """1 for each selected body whose contact force exceeded ``threshold`` [N] in the sensor's history, else 0."""
    forces = env.scene.sensors[sensor_cfg.name].data.net_normal_forces_w_history.torch[:, :, sensor_cfg.body_ids]
    return (forces.norm(dim=-1).amax(dim=1) > threshold).float()
