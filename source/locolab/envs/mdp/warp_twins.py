"""Warp twins of LocoLab's own MDP terms, for Isaac Lab's Warp frontend (``isaaclab_experimental``).

Isaac Lab 3 runs its velocity tasks' terms as Warp kernels and captures the whole environment step in a CUDA graph
(``--frontend warp``); its stock terms have twins there, LocoLab's did not. Each twin here follows that package's
conventions: a function ``func(env, out, **params) -> None`` (a class for a term with set-up) that writes the
manager's preallocated ``out`` warp array with one launch, reading its inputs as zero-copy warp views of Isaac Lab's
buffers; a noise function changes ``data`` in place. The twins the flat task's captured step runs (feet contact,
dynamics, the gyroscope) read persistent buffers only and draw from ``env.rng_state_wp`` (one Warp generator per
environment), so a CUDA graph replays them unchanged; class twins derive from Isaac Lab's Warp ``ManagerTermBase``
(mask-based resets), and observation twins declare their width as Isaac Lab's do (``out_dim`` or ``axes``).
:data:`WARP_TWINS` maps each torch term to its twin (the dynamics event's is in :mod:`.warp_dynamics`, the velocity
command's in :mod:`.warp_command`); :mod:`locolab.envs.warp_frontend` swaps them in. On a CPU the torch terms stay
the default; ``tests/test_warp_twins.py`` holds every twin to its torch term over a randomised run (same values; the
noise by its distribution, since Warp's generator is not torch's).
"""

from __future__ import annotations

import torch
import warp as wp
from isaaclab.envs.utils.io_descriptors import GenericObservationIODescriptor
from isaaclab.managers import RewardTermCfg, SceneEntityCfg
from isaaclab_experimental.envs.utils.io_descriptors import generic_io_descriptor_warp
from isaaclab_experimental.managers import ManagerTermBase
from isaaclab_experimental.utils.warp import zero_masked_2d
from isaaclab_tasks.contrib.velocity.config.spot.mdp import GaitReward

from locolab.envs.observation_noise import noise_free_count, uniform_noise_but_first
from locolab.envs.turn_in_place_command import TurnInPlaceVelocityCommand

from . import dynamics, observations
from .warp_command import TurnInPlaceVelocityCommandWarp
from .warp_dynamics import randomize_dynamics


def warp_view(tensor: torch.Tensor) -> wp.array:
    """A zero-copy warp view of a torch tensor (a warp-backed buffer's own array when it has one)."""
    return tensor.warp if hasattr(tensor, "warp") else wp.from_torch(tensor.contiguous())


@wp.kernel
def _feet_contact_kernel(forces: wp.array(dtype=wp.float32, ndim=4), body_ids: wp.array(dtype=wp.int32),
                         threshold: float, out: wp.array(dtype=wp.float32, ndim=2)):
    env, foot = wp.tid()
    body = body_ids[foot]
    touched = float(0.0)
    for step in range(forces.shape[1]):
        force = wp.vec3(forces[env, step, body, 0], forces[env, step, body, 1], forces[env, step, body, 2])
        if wp.length(force) > threshold:
            touched = 1.0
    out[env, foot] = touched


@generic_io_descriptor_warp(out_dim="body:1")
def feet_contact(env, out: wp.array, sensor_cfg: SceneEntityCfg, threshold: float = 1.0) -> None:
    """Twin of :func:`locolab.envs.mdp.observations.feet_contact`: 1 per selected body whose contact force exceeded
    ``threshold`` [N] in the sensor's history. Capturable with Isaac Lab's Warp ``SceneEntityCfg`` (the frontend's),
    whose ``body_ids_wp`` is resolved once."""
    history = env.scene.sensors[sensor_cfg.name].data.net_normal_forces_w_history.torch
    body_ids = getattr(sensor_cfg, "body_ids_wp", None)
    if body_ids is None:
        body_ids = wp.array(list(range(history.shape[2]))[sensor_cfg.body_ids] if isinstance(sensor_cfg.body_ids,
                            slice) else list(sensor_cfg.body_ids), dtype=wp.int32, device=str(history.device))
    wp.launch(_feet_contact_kernel, dim=out.shape, inputs=[wp.from_torch(history.contiguous()), body_ids,
                                                          float(threshold), out], device=out.device)


@wp.kernel
def _normalized_kernel(values: wp.array(dtype=wp.float32, ndim=2), low: wp.array(dtype=wp.float32),
                       high: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32, ndim=2)):
    env, column = wp.tid()
    span = high[column] - low[column]
    out[env, column] = wp.where(span > 0.0, 2.0 * (values[env, column] - low[column]) / wp.max(span, 1.0e-12) - 1.0,
                                0.0)


class dynamics_params(ManagerTermBase):  # noqa: N801
    """Twin of :func:`locolab.envs.mdp.observations.dynamics_params`: the randomised dynamics in [-1, 1]
    (:meth:`~locolab.envs.mdp.dynamics.randomize_dynamics.normalized`), from the event's persistent table in one
    launch. A class so that its width, one column per parameter of the robot's event, is known to the manager."""

    def __init__(self, cfg, env):
        super().__init__(cfg, env)
        event = env.event_manager.get_term_cfg(cfg.params.get("event_name", "dynamics")).func
        self._views = [warp_view(event.values), warp_view(event.low), warp_view(event.high)]
        self._descriptor = GenericObservationIODescriptor(extras={"axes": list(event.names)})
        """Isaac Lab's Warp observation manager sizes the term's buffer by its descriptor's axes: the columns."""

    def __call__(self, env, out: wp.array, event_name: str = "dynamics") -> None:
        wp.launch(_normalized_kernel, dim=out.shape, inputs=[*self._views, out], device=out.device)


@wp.func
def _pair_reward(a0: float, b0: float, a1: float, b1: float, max_err: float, std: float) -> float:
    """exp(-(clip((a0 - a1)^2) + clip((b0 - b1)^2)) / std): Isaac Lab's gait reward's kernel on one foot pair."""
    limit = max_err * max_err
    return wp.exp(-(wp.min((a0 - a1) * (a0 - a1), limit) + wp.min((b0 - b1) * (b0 - b1), limit)) / std)


@wp.kernel
def _trot_gait_kernel(air: wp.array(dtype=wp.float32, ndim=2), contact: wp.array(dtype=wp.float32, ndim=2),
                      feet: wp.array(dtype=wp.int32), command: wp.array(dtype=wp.float32, ndim=2),
                      velocity: wp.array(dtype=wp.float32, ndim=2), std: float, max_err: float,
                      velocity_threshold: float, out: wp.array(dtype=wp.float32)):
    env = wp.tid()
    a = feet[0]  # pairs (a, b) and (c, d) move together
    b = feet[1]
    c = feet[2]
    d = feet[3]
    sync = (_pair_reward(air[env, a], contact[env, a], air[env, b], contact[env, b], max_err, std)
            * _pair_reward(air[env, c], contact[env, c], air[env, d], contact[env, d], max_err, std))
    # one foot's air time against the other's contact time, and the reverse, for each pair not in sync
    anti = (_pair_reward(air[env, a], contact[env, a], contact[env, c], air[env, c], max_err, std)
            * _pair_reward(air[env, b], contact[env, b], contact[env, d], air[env, d], max_err, std)
            * _pair_reward(air[env, a], contact[env, a], contact[env, d], air[env, d], max_err, std)
            * _pair_reward(air[env, c], contact[env, c], contact[env, b], air[env, b], max_err, std))
    commanded = wp.sqrt(command[env, 0] * command[env, 0] + command[env, 1] * command[env, 1]
                        + command[env, 2] * command[env, 2])
    moving = wp.sqrt(velocity[env, 0] * velocity[env, 0] + velocity[env, 1] * velocity[env, 1])
    out[env] = wp.where(commanded > 0.0 or moving > velocity_threshold, sync * anti, 0.0)


class trot_gait_reward(ManagerTermBase):  # noqa: N801  (Isaac Lab names its class terms like functions)
    """Twin of Isaac Lab's Spot ``GaitReward`` as LocoLab's trot reward configures it
    (:func:`locolab.envs.mdp.rewards.trot_gait`): its feet pairs found once, one launch per step."""

    def __init__(self, cfg: RewardTermCfg, env):
        super().__init__(cfg, env)
        stable = GaitReward(cfg, env)  # Isaac Lab's own checks and name matching of the feet pairs
        (a, b), (c, d) = stable.synced_feet_pairs
        self.feet = wp.array([a, b, c, d], dtype=wp.int32, device=str(env.device))
        self.sensor, self.asset = stable.contact_sensor, stable.asset

    def __call__(self, env, out: wp.array, std: float, max_err: float, velocity_threshold: float,
                 synced_feet_pair_names, asset_cfg: SceneEntityCfg, sensor_cfg: SceneEntityCfg) -> None:
        data = self.sensor.data
        command = env.command_manager.get_command("base_velocity")
        velocity = self.asset.data.root_lin_vel_b.torch
        wp.launch(_trot_gait_kernel, dim=out.shape[0], device=out.device,
                  inputs=[warp_view(data.current_air_time.torch), warp_view(data.current_contact_time.torch),
                          self.feet, warp_view(command), warp_view(velocity), float(std), float(max_err),
                          float(velocity_threshold), out])


@wp.kernel
def _uniform_noise_but_first_kernel(out: wp.array(dtype=wp.float32, ndim=2), seed: int, clean: int,
                                    n_min: float, n_max: float, operation: int):
    env = wp.tid()
    if env < clean:
        return
    state = wp.rand_init(seed, env)
    for column in range(out.shape[1]):
        noise = wp.randf(state, n_min, n_max)
        if operation == 0:
            out[env, column] = out[env, column] + noise
        elif operation == 1:
            out[env, column] = out[env, column] * noise
        else:
            out[env, column] = noise


OPERATIONS = {"add": 0, "scale": 1, "abs": 2}


def uniform_noise_but_first_warp(data: wp.array, cfg, seed: int | None = None) -> None:
    """Twin of :func:`locolab.envs.observation_noise.uniform_noise_but_first`, in place: uniform noise on every row
    but the first ``noise_free_envs`` share (a fresh seed per call unless ``seed`` is given)."""
    seed = int(torch.randint(0, 2**31 - 1, ()).item()) if seed is None else seed
    clean = noise_free_count(data.shape[0], cfg.noise_free_envs)
    wp.launch(_uniform_noise_but_first_kernel, dim=data.shape[0], device=data.device,
              inputs=[data, seed, clean, float(cfg.n_min), float(cfg.n_max), OPERATIONS[cfg.operation]])


@wp.kernel
def _gyro_with_bias_kernel(ang_vel: wp.array(dtype=wp.float32, ndim=2), values: wp.array(dtype=wp.float32, ndim=2),
                           first_column: int, drift: wp.array(dtype=wp.float32, ndim=2),
                           seen_step: wp.array(dtype=wp.int64), episode_step: wp.array(dtype=wp.int64),
                           rng_state: wp.array(dtype=wp.uint32), step_std: float, limit: float,
                           applied: wp.array(dtype=wp.float32, ndim=2), out: wp.array(dtype=wp.float32, ndim=2)):
    env = wp.tid()
    advance = episode_step[env] != seen_step[env]  # one drift step per environment step, however often observed
    seen_step[env] = episode_step[env]
    state = rng_state[env]
    for axis in range(3):
        offset = drift[env, axis]
        if advance:
            offset = wp.clamp(offset + wp.randn(state) * step_std, -limit, limit)
            drift[env, axis] = offset
        bias = values[env, first_column + axis]
        applied[env, axis] = bias
        out[env, axis] = ang_vel[env, axis] + bias + offset
    rng_state[env] = state


@wp.kernel
def _reset_drift_kernel(env_mask: wp.array(dtype=wp.bool), drift: wp.array(dtype=wp.float32, ndim=2),
                        seen_step: wp.array(dtype=wp.int64)):
    env = wp.tid()
    if env_mask[env]:
        for axis in range(3):
            drift[env, axis] = 0.0
        seen_step[env] = wp.int64(-1)


class gyro_with_bias(ManagerTermBase):  # noqa: N801
    """Twin of :class:`locolab.envs.mdp.observations.gyro_with_bias`: the episode's gyroscope offset and a random-walk
    drift drawn from the environments' Warp generators (the same law, not the same draws), one launch per step. The
    drift steps when an environment's episode step moved since its last observation (the torch term: when the
    environment step did), read from device buffers so that a captured graph replays it."""

    _descriptor = GenericObservationIODescriptor(extras={"axes": ["X", "Y", "Z"]})
    """Isaac Lab's Warp observation manager sizes the term's buffer by its descriptor's axes."""

    def __init__(self, cfg, env):
        super().__init__(cfg, env)
        self._dynamics = env.event_manager.get_term_cfg(cfg.params.get("event_name", "dynamics")).func
        self._first_column = self._dynamics.columns("gyro_bias")[0]
        device = str(env.device)
        self.drift = wp.zeros((env.num_envs, 3), dtype=wp.float32, device=device)
        self._seen_step = wp.full(env.num_envs, -1, dtype=wp.int64, device=device)
        self._mask_all = wp.ones(env.num_envs, dtype=wp.bool, device=device)

    def reset(self, env_mask: wp.array | None = None) -> None:
        wp.launch(_reset_drift_kernel, dim=self.num_envs, device=self.drift.device,
                  inputs=[self._mask_all if env_mask is None else env_mask, self.drift, self._seen_step])

    def __call__(self, env, out: wp.array, event_name: str = "dynamics", drift_std: float = 0.005,
                 limit: float = 0.05) -> None:
        wp.launch(_gyro_with_bias_kernel, dim=out.shape[0], device=out.device,
                  inputs=[warp_view(env.scene["robot"].data.root_ang_vel_b.torch), warp_view(self._dynamics.values),
                          self._first_column, self.drift, self._seen_step, warp_view(env.episode_length_buf),
                          env.rng_state_wp, float(drift_std * env.step_dt ** 0.5), float(limit),
                          warp_view(self._dynamics.applied_gyro_bias), out])


WARP_TWINS = {observations.feet_contact: feet_contact, observations.dynamics_params: dynamics_params,
              observations.gyro_with_bias: gyro_with_bias, dynamics.randomize_dynamics: randomize_dynamics,
              GaitReward: trot_gait_reward,
              uniform_noise_but_first: uniform_noise_but_first_warp,
              TurnInPlaceVelocityCommand: TurnInPlaceVelocityCommandWarp}
"""LocoLab's torch terms and their Warp twins."""
