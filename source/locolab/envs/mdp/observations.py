"""Observation terms: the privileged ones (what the simulator knows and a real robot does not measure) and a
gyroscope with a persistent, drifting offset."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch

from isaaclab.managers import ManagerTermBase, ObservationTermCfg, SceneEntityCfg

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv


def dynamics_params(env: ManagerBasedRLEnv, event_name: str = "dynamics") -> torch.Tensor:
    """The dynamics applied by the :class:`~locolab.envs.mdp.randomize_dynamics` event ``event_name``, in [-1, 1]."""
    return env.event_manager.get_term_cfg(event_name).func.normalized()


def feet_contact(env: ManagerBasedRLEnv, sensor_cfg: SceneEntityCfg, threshold: float = 1.0) -> torch.Tensor:
    """1 for each selected body whose contact force exceeded ``threshold`` [N] in the sensor's history, else 0."""
    forces = env.scene.sensors[sensor_cfg.name].data.net_normal_forces_w_history.torch[:, :, sensor_cfg.body_ids]
    return (forces.norm(dim=-1).amax(dim=1) > threshold).float()


class gyro_with_bias(ManagerTermBase):
    """The base's angular velocity as a real gyroscope reports it: offset by the episode's randomised bias
    (``gyro_bias`` of the :class:`~locolab.envs.mdp.randomize_dynamics` event) plus a slow random-walk drift.

    Isaac Lab's noise models draw afresh every step; a gyroscope's offset persists and wanders, which a policy
    that integrates its history must not mistake for turning. The drift's rate (``drift_std``, rad/s per square
    root of a second, zero at each reset) is a MEMS gyroscope's bias instability, taken generously; ``limit`` bounds
    the drift."""

    def __init__(self, cfg: ObservationTermCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        self.drift = torch.zeros(env.num_envs, 3, device=env.device)
        self._step = -1
        self._dynamics = env.event_manager.get_term_cfg(cfg.params.get("event_name", "dynamics")).func
        self._columns = self._dynamics.columns("gyro_bias")

    def reset(self, env_ids: Sequence[int] | None = None) -> None:
        self.drift[slice(None) if env_ids is None else env_ids] = 0.0

    def __call__(self, env: ManagerBasedRLEnv, event_name: str = "dynamics", drift_std: float = 0.005,
                 limit: float = 0.05) -> torch.Tensor:
        if env.common_step_counter != self._step:  # one drift step per environment step, however often observed
            self._step = env.common_step_counter
            self.drift += torch.randn_like(self.drift) * drift_std * math.sqrt(env.step_dt)
            self.drift.clamp_(-limit, limit)
        dynamics = self._dynamics
        dynamics.applied_gyro_bias[:] = dynamics.values[:, self._columns]
        return env.scene["robot"].data.root_ang_vel_b.torch + dynamics.applied_gyro_bias + self.drift
