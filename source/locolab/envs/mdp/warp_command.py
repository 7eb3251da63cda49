"""Warp twin of LocoLab's velocity command (:class:`locolab.envs.turn_in_place_command.TurnInPlaceVelocityCommand`).

Isaac Lab 3's Warp frontend (``isaaclab_experimental``) has a mask-based, capturable command manager but no velocity
command term for it: its ``CommandTerm`` resamples through ``env.rng_state_wp`` (one Warp generator per environment)
and selects environments by boolean masks, never by index lists. This twin is Isaac Lab's uniform velocity command
plus LocoLab's turning in place on those terms: one launch to resample the masked environments, one to apply
heading control and standing, one to add the tracking errors, one to turn them into the episode's metrics at a reset.
Its draws follow the same law as the torch term's (Warp's generator is not torch's); heading control, standing and
the metrics are the same arithmetic (``tests/test_warp_twins.py``). Evaluation's swept command stays torch only: it
holds commands fixed and is never captured.
"""

from __future__ import annotations

import math

import torch
import warp as wp
from isaaclab_experimental.managers.command_manager import CommandTerm


@wp.kernel
def _resample_kernel(mask: wp.array(dtype=wp.bool), rng_state: wp.array(dtype=wp.uint32), ranges: wp.array(dtype=float),
                     heading_command: int, rel_heading: float, rel_standing: float, rel_turn: float,
                     command: wp.array(dtype=wp.float32, ndim=2), heading_target: wp.array(dtype=wp.float32),
                     is_heading: wp.array(dtype=wp.bool), is_standing: wp.array(dtype=wp.bool),
                     is_turning: wp.array(dtype=wp.bool)):
    env = wp.tid()
    if not mask[env]:
        return
    state = rng_state[env]  # ranges: lin_vel_x, lin_vel_y, ang_vel_z, heading as (low, high) pairs
    command[env, 0] = wp.randf(state, ranges[0], ranges[1])
    command[env, 1] = wp.randf(state, ranges[2], ranges[3])
    command[env, 2] = wp.randf(state, ranges[4], ranges[5])
    if heading_command != 0:
        heading_target[env] = wp.randf(state, ranges[6], ranges[7])
        is_heading[env] = wp.randf(state) <= rel_heading
    is_standing[env] = wp.randf(state) <= rel_standing
    turning = False
    if rel_turn > 0.0:  # turning in place: no linear velocity, no heading control, not standing
        turning = wp.randf(state) < rel_turn
        if turning:
            command[env, 0] = 0.0
            command[env, 1] = 0.0
            is_heading[env] = False
            is_standing[env] = False
    is_turning[env] = turning
    rng_state[env] = state


@wp.func
def _wrap_to_pi(angle: float) -> float:
    """Isaac Lab's ``wrap_to_pi``: (angle + pi) mod 2 pi (floored, as torch's ``%``) - pi, with +pi kept for odd
    multiples of pi above zero."""
    shifted = angle + wp.pi
    wrapped = shifted - 2.0 * wp.pi * wp.floor(shifted / (2.0 * wp.pi))
    if wrapped == 0.0 and angle > 0.0:
        return wp.pi
    return wrapped - wp.pi


@wp.kernel
def _update_command_kernel(heading_command: int, stiffness: float, ang_low: float, ang_high: float,
                           heading_w: wp.array(dtype=wp.float32), heading_target: wp.array(dtype=wp.float32),
                           is_heading: wp.array(dtype=wp.bool), is_standing: wp.array(dtype=wp.bool),
                           command: wp.array(dtype=wp.float32, ndim=2)):
    env = wp.tid()
    if heading_command != 0 and is_heading[env]:
        error = _wrap_to_pi(heading_target[env] - heading_w[env])
        command[env, 2] = wp.clamp(stiffness * error, ang_low, ang_high)
    if is_standing[env]:
        command[env, 0] = 0.0
        command[env, 1] = 0.0
        command[env, 2] = 0.0


@wp.kernel
def _accumulate_errors_kernel(command: wp.array(dtype=wp.float32, ndim=2), lin_vel_b: wp.array(dtype=wp.vec3f),
                              ang_vel_b: wp.array(dtype=wp.vec3f), error_xy_sum: wp.array(dtype=wp.float32),
                              error_yaw_sum: wp.array(dtype=wp.float32), step_count: wp.array(dtype=wp.float32)):
    env = wp.tid()
    dx = command[env, 0] - lin_vel_b[env][0]
    dy = command[env, 1] - lin_vel_b[env][1]
    error_xy_sum[env] = error_xy_sum[env] + wp.sqrt(dx * dx + dy * dy)
    error_yaw_sum[env] = error_yaw_sum[env] + wp.abs(command[env, 2] - ang_vel_b[env][2])
    step_count[env] = step_count[env] + 1.0


@wp.kernel
def _episode_metrics_kernel(mask: wp.array(dtype=wp.bool), xy_threshold: float, yaw_threshold: float,
                            error_xy_sum: wp.array(dtype=wp.float32), error_yaw_sum: wp.array(dtype=wp.float32),
                            step_count: wp.array(dtype=wp.float32), error_vel_xy: wp.array(dtype=wp.float32),
                            error_vel_yaw: wp.array(dtype=wp.float32), success_rate: wp.array(dtype=wp.float32)):
    env = wp.tid()
    if not mask[env]:
        return
    steps = wp.max(step_count[env], 1.0)
    mean_xy = error_xy_sum[env] / steps
    mean_yaw = error_yaw_sum[env] / steps
    error_vel_xy[env] = mean_xy
    error_vel_yaw[env] = mean_yaw
    success_rate[env] = wp.where(mean_xy < xy_threshold and mean_yaw < yaw_threshold, 1.0, 0.0)
    error_xy_sum[env] = 0.0
    error_yaw_sum[env] = 0.0
    step_count[env] = 0.0


class TurnInPlaceVelocityCommandWarp(CommandTerm):
    """The velocity command on Isaac Lab's Warp command manager: the same config
    (:class:`locolab.envs.mdp.commands.TurnInPlaceVelocityCommandCfg`), buffers as Warp arrays, mask-based resets."""

    def __init__(self, cfg, env) -> None:
        super().__init__(cfg, env)
        if cfg.heading_command and cfg.ranges.heading is None:
            raise ValueError("heading_command=True needs ranges.heading: set it or turn heading commands off")
        self.robot = env.scene[cfg.asset_name]
        n = self.num_envs
        self.vel_command_b = self._zeros(n, 3)
        self.heading_target = self._zeros(n)
        self.is_heading_env, self.is_standing_env, self.is_turn_in_place_env = (self._zeros(n, dtype=wp.bool)
                                                                               for _ in range(3))
        self.error_xy_sum, self.error_yaw_sum, self.step_count = (self._zeros(n) for _ in range(3))
        self.metrics = {name: self._zeros(n) for name in ("error_vel_xy", "error_vel_yaw", "success_rate")}
        ranges = cfg.ranges
        self._ranges = wp.array([*ranges.lin_vel_x, *ranges.lin_vel_y, *ranges.ang_vel_z,
                                 *(ranges.heading or (-math.pi, math.pi))], dtype=float, device=self.device)
        self._prepare_reset_extras()

    def _zeros(self, *shape: int, dtype=wp.float32) -> wp.array:
        return wp.zeros(shape, dtype=dtype, device=self.device)

    @property
    def command(self) -> wp.array:
        """The desired base velocity (vx, vy, wz) in the base frame, (num_envs, 3)."""
        return self.vel_command_b

    def reset(self, env_ids=None, *, env_mask: wp.array | None = None) -> dict[str, torch.Tensor]:
        """The episode's mean tracking errors and success for the masked environments, then the base reset."""
        if env_mask is None:
            env_mask = self._env.resolve_env_mask(env_ids=env_ids)
        wp.launch(_episode_metrics_kernel, dim=self.num_envs, device=self.device,
                  inputs=[env_mask, float(self.cfg.vel_xy_success_threshold),
                          float(self.cfg.vel_yaw_success_threshold), self.error_xy_sum, self.error_yaw_sum,
                          self.step_count, *self.metrics.values()])
        return super().reset(env_mask=env_mask)

    def _update_metrics(self) -> None:
        data = self.robot.data
        wp.launch(_accumulate_errors_kernel, dim=self.num_envs, device=self.device,
                  inputs=[self.vel_command_b, data.root_lin_vel_b.warp, data.root_ang_vel_b.warp,
                          self.error_xy_sum, self.error_yaw_sum, self.step_count])

    def _resample_command(self, env_mask: wp.array) -> None:
        cfg = self.cfg
        wp.launch(_resample_kernel, dim=self.num_envs, device=self.device,
                  inputs=[env_mask, self._env.rng_state_wp, self._ranges, int(cfg.heading_command),
                          float(cfg.rel_heading_envs), float(cfg.rel_standing_envs),
                          float(getattr(cfg, "rel_turn_in_place_envs", 0.0)), self.vel_command_b,
                          self.heading_target, self.is_heading_env, self.is_standing_env, self.is_turn_in_place_env])

    def _update_command(self) -> None:
        cfg = self.cfg
        wp.launch(_update_command_kernel, dim=self.num_envs, device=self.device,
                  inputs=[int(cfg.heading_command), float(cfg.heading_control_stiffness),
                          float(cfg.ranges.ang_vel_z[0]), float(cfg.ranges.ang_vel_z[1]),
                          self.robot.data.heading_w.warp, self.heading_target, self.is_heading_env,
                          self.is_standing_env, self.vel_command_b])
