"""Warp twin of the episode metrics' per-step values (:func:`locolab.envs.metrics.step_metric_values`).

The torch path stacks one small tensor operation per metric column (about forty launches a step with the reward
columns); a captured GPU step wants one launch and no host work. :class:`WarpStepMetrics` resolves the columns once
(feet, reward and dynamics columns by index) and then writes the whole [N, M] table with one kernel, reading Isaac
Lab's buffers as zero-copy Warp views. Column order and values are the torch path's (``tests/test_warp_twins.py``);
a metric without a twin is a one-line error when the twin is built, not a wrong column.
"""

from __future__ import annotations

import warp as wp

from . import metrics
from .mdp.warp_twins import warp_view

_REWARD, _DYNAMICS = 14, 15
_CODES = {metrics.lin_vel_error: 0, metrics.ang_vel_error: 1, metrics.base_vel_x: 2, metrics.base_vel_y: 3,
          metrics.base_yaw_rate: 4, metrics.speed: 5, metrics.command_x: 6, metrics.command_y: 7,
          metrics.command_yaw_rate: 8, metrics.touchdown_rate: 9, metrics.diagonal_contact_agreement: 10,
          metrics.lateral_contact_agreement: 11, metrics.fall: 12, metrics.time_out: 13,
          **{getattr(metrics, name): _DYNAMICS for name in metrics.DYNAMICS_METRICS}}


@wp.func
def _agreement(contact: wp.array(dtype=wp.float32, ndim=2), feet: wp.array(dtype=wp.int32), env: int, a: int,
               b: int, c: int, d: int) -> float:
    """Share of the foot pairs (a, b) and (c, d) whose feet are both on or both off the ground."""
    first = wp.where((contact[env, feet[a]] > 0.0) == (contact[env, feet[b]] > 0.0), 1.0, 0.0)
    second = wp.where((contact[env, feet[c]] > 0.0) == (contact[env, feet[d]] > 0.0), 1.0, 0.0)
    return (first + second) / 2.0


@wp.kernel
def _metrics_kernel(codes: wp.array(dtype=wp.int32), first: wp.array(dtype=wp.int32), count: wp.array(dtype=wp.int32),
                    command: wp.array(dtype=wp.float32, ndim=2), lin_vel: wp.array(dtype=wp.vec3f),
                    ang_vel: wp.array(dtype=wp.vec3f), contact_time: wp.array(dtype=wp.float32, ndim=2),
                    first_contact: wp.array(dtype=wp.float32, ndim=2), feet: wp.array(dtype=wp.int32),
                    terminated: wp.array(dtype=wp.bool), term_dones: wp.array(dtype=wp.bool, ndim=2), fall_term: int,
                    time_outs: wp.array(dtype=wp.bool), step_reward: wp.array(dtype=wp.float32, ndim=2),
                    dynamics: wp.array(dtype=wp.float32, ndim=2), step_dt: float,
                    out: wp.array(dtype=wp.float32, ndim=2)):
    env, column = wp.tid()
    code = codes[column]
    v = lin_vel[env]
    value = float(0.0)
    if code == 0:
        dx = command[env, 0] - v[0]
        dy = command[env, 1] - v[1]
        value = wp.sqrt(dx * dx + dy * dy)
    elif code == 1:
        value = wp.abs(command[env, 2] - ang_vel[env][2])
    elif code == 2:
        value = v[0]
    elif code == 3:
        value = v[1]
    elif code == 4:
        value = ang_vel[env][2]
    elif code == 5:
        value = wp.sqrt(v[0] * v[0] + v[1] * v[1])
    elif code >= 6 and code <= 8:
        value = command[env, code - 6]
    elif code == 9:  # touchdowns per foot and second
        landed = float(0.0)
        for foot in range(4):
            landed += first_contact[env, feet[foot]]
        value = landed / 4.0 / step_dt
    elif code == 10:  # FL-RR, FR-RL (metrics.DIAGONAL_PAIRS)
        value = _agreement(contact_time, feet, env, 0, 3, 1, 2)
    elif code == 11:  # FL-FR, RL-RR (metrics.LATERAL_PAIRS)
        value = _agreement(contact_time, feet, env, 0, 1, 2, 3)
    elif code == 12:  # a termination that is not a time-out (by base contact where the task has that term)
        fell = terminated[env]
        if fall_term >= 0:
            fell = fell and term_dones[env, fall_term]
        value = wp.where(fell and not time_outs[env], 1.0, 0.0)
    elif code == 13:
        value = wp.where(time_outs[env], 1.0, 0.0)
    elif code == 14:
        value = step_reward[env, first[column]] * step_dt
    else:
        total = float(0.0)
        for index in range(count[column]):
            total += dynamics[env, first[column] + index]
        value = total / float(count[column])
    out[env, column] = value


class WarpStepMetrics:
    """:func:`~locolab.envs.metrics.step_metric_values` as one Warp launch over ``terms``
    (:func:`~locolab.envs.metrics.metric_terms`' order) of the unwrapped Isaac Lab env ``env``."""

    def __init__(self, env, terms: dict[str, metrics.MetricTermCfg]) -> None:
        rewards = list(env.reward_manager.active_terms)
        dynamics = None
        codes, first, count = [], [], []
        for name, term in terms.items():
            if term.func is None:
                codes.append(_REWARD), first.append(rewards.index(name[len("reward/"):])), count.append(1)
                continue
            if term.func not in _CODES:
                raise ValueError(f"metric '{name}' ({getattr(term.func, '__name__', term.func)}) has no Warp twin: "
                                 "add its column to locolab.envs.warp_metrics or use the torch metrics")
            codes.append(_CODES[term.func])
            if codes[-1] == _DYNAMICS:
                dynamics = env.event_manager.get_term_cfg(metrics.DYNAMICS_EVENT).func
                columns = dynamics.columns(term.func.__name__)
                first.append(columns[0]), count.append(len(columns))
            else:
                first.append(0), count.append(1)
        device = str(env.device)
        self._codes, self._first, self._count = (wp.array(values, dtype=wp.int32, device=device)
                                                 for values in (codes, first, count))
        self._sensor, feet = metrics._feet_sensor(env)
        self._feet = wp.array(feet, dtype=wp.int32, device=device)
        self._dynamics = dynamics  # a 1 x 1 stand-in where no column reads the dynamics
        self._no_dynamics = wp.zeros((1, 1), dtype=wp.float32, device=device)
        self._terminations = env.termination_manager
        names = list(self._terminations.active_terms)
        self._fall_term = names.index("base_contact") if "base_contact" in names else -1
        self.out = wp.zeros((env.num_envs, len(codes)), dtype=wp.float32, device=device)

    def __call__(self, env) -> wp.array:
        """The step's [N, M] metric values (this object's buffer, overwritten by the next call)."""
        robot = env.scene["robot"].data
        terminations = self._terminations
        dynamics = warp_view(self._dynamics.values) if self._dynamics is not None else self._no_dynamics
        wp.launch(_metrics_kernel, dim=self.out.shape, device=self.out.device, inputs=[
            self._codes, self._first, self._count, warp_view(env.command_manager.get_command("base_velocity")),
            robot.root_lin_vel_b.warp, robot.root_ang_vel_b.warp,
            warp_view(self._sensor.data.current_contact_time),
            warp_view(self._sensor.compute_first_contact(env.step_dt)),
            self._feet, warp_view(terminations.terminated), warp_view(terminations._term_dones), self._fall_term,
            warp_view(terminations.time_outs),
            warp_view(env.reward_manager._step_reward), dynamics, float(env.step_dt), self.out])
        return self.out
