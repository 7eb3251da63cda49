"""Episode metrics, declared once per task and accumulated on the device during any rollout.

Training (``rollout/``), periodic evaluation (``eval/``), ``play.py`` and ``eval.py`` all measure episodes with these
definitions. rsl_rl's logger keeps only the return, the length and Isaac Lab's ``Episode_Reward/*`` (each term's
episode sum over the *maximum* episode length); it has no tracking errors, falls or per-grid-point aggregation, so
this module adds them.

Where the environment lives computes the per-step values (:func:`step_metric_values`, one [N, M] tensor): in the
trainer's process through :class:`EpisodeMetricsWrapper`, or in each simulation process of
:class:`~locolab.envs.multiprocess.SubprocessVecEnv`. Either way they reach the rollout as ``extras["metrics"]``.
:class:`EpisodeAccumulator` turns them into per-episode values with tensor operations only, and moves them to the
host once, when asked for a summary.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from tensordict import TensorDict

from isaaclab.utils import configclass

from rsl_rl.env import VecEnv

from .vec_env_wrapper import VecEnvWrapper

STATE, STEP = "state", "step"
"""Metric kinds. ``state``: a property of the state after a step, averaged over the episode's steps (the step that
ends an episode is left out: its state after the step is already the next episode's reset state). ``step``: summed
over the episode (reward terms; fall and time-out flags, which are 1 only at the episode's last step)."""


def _command(env) -> torch.Tensor:
    return env.command_manager.get_command("base_velocity")


def lin_vel_error(env) -> torch.Tensor:
    """||command_xy - base velocity_xy|| [m/s], base frame."""
    return torch.linalg.norm(_command(env)[:, :2] - env.scene["robot"].data.root_lin_vel_b.torch[:, :2], dim=1)


def ang_vel_error(env) -> torch.Tensor:
    """|command_yaw_rate - base yaw rate| [rad/s]."""
    return torch.abs(_command(env)[:, 2] - env.scene["robot"].data.root_ang_vel_b.torch[:, 2])


def base_vel_x(env) -> torch.Tensor:
    return env.scene["robot"].data.root_lin_vel_b.torch[:, 0]


def base_vel_y(env) -> torch.Tensor:
    return env.scene["robot"].data.root_lin_vel_b.torch[:, 1]


def base_yaw_rate(env) -> torch.Tensor:
    return env.scene["robot"].data.root_ang_vel_b.torch[:, 2]


def speed(env) -> torch.Tensor:
    """Horizontal base speed [m/s]."""
    return torch.linalg.norm(env.scene["robot"].data.root_lin_vel_b.torch[:, :2], dim=1)


def command_x(env) -> torch.Tensor:
    return _command(env)[:, 0]


def command_y(env) -> torch.Tensor:
    return _command(env)[:, 1]


def command_yaw_rate(env) -> torch.Tensor:
    return _command(env)[:, 2]


def fall(env) -> torch.Tensor:
    """1 where the episode ended this step by a fall: a termination that is not a time-out (``base_contact`` when
    the task has it)."""
    terminations = env.termination_manager
    ended = terminations.terminated
    if "base_contact" in terminations.active_terms:
        ended = ended & terminations.get_term("base_contact").bool()
    return (ended & ~terminations.time_outs).float()


FEET = ("FL", "FR", "RL", "RR")
"""Foot prefixes of the contact sensor's ``<leg>_foot`` bodies, in the gait metrics' order."""
DIAGONAL_PAIRS = ((0, 3), (1, 2))
LATERAL_PAIRS = ((0, 1), (2, 3))


def _feet_sensor(env):
    """The ``contact_forces`` sensor and its foot indices in :data:`FEET` order."""
    sensor = env.scene.sensors["contact_forces"]
    ids, _ = sensor.find_sensors([f"{foot}_foot" for foot in FEET], preserve_order=True)
    return sensor, ids


def foot_contacts(env) -> torch.Tensor:
    """[N, 4] bool: which feet (:data:`FEET` order) touch the ground."""
    sensor, ids = _feet_sensor(env)
    return sensor.data.current_contact_time.torch[:, ids] > 0.0


def _pair_agreement(contacts: torch.Tensor, pairs: tuple[tuple[int, int], ...]) -> torch.Tensor:
    return torch.stack([(contacts[:, a] == contacts[:, b]).float() for a, b in pairs], dim=1).mean(dim=1)


def diagonal_contact_agreement(env) -> torch.Tensor:
    """Fraction of diagonal foot pairs (FL-RR, FR-RL) both on or both off the ground: 1 in an ideal trot, about 0.5
    when the feet move independently. Measured: the scripted 3 Hz trot of ``tests/probe_scripted_trot.py`` 0.89; the
    shuffle that PPO's action noise made in a run whose mean action stood (:mod:`locolab.runners.action_noise_schedule`)
    0.49-0.50."""
    return _pair_agreement(foot_contacts(env), DIAGONAL_PAIRS)


def lateral_contact_agreement(env) -> torch.Tensor:
    """The same for the left-right pairs (FL-FR, RL-RR): 0 in an ideal trot, 1 in a bound or a pronk. Measured: the
    scripted trot 0.19, the noise's shuffle 0.37-0.47."""
    return _pair_agreement(foot_contacts(env), LATERAL_PAIRS)


def touchdown_rate(env) -> torch.Tensor:
    """Touchdowns per foot and second [1/s] (a foot that landed during the last step counts once). Measured: the
    scripted 3 Hz trot 3.4, the noise's shuffle 7.5 (air times 0.08 s)."""
    sensor, ids = _feet_sensor(env)
    landed = sensor.compute_first_contact(env.step_dt).torch[:, ids]
    return landed.float().mean(dim=1) / env.step_dt


DYNAMICS_EVENT = "dynamics"


def _applied_dynamics(env, name: str) -> torch.Tensor:
    """The value of :class:`~locolab.envs.mdp.randomize_dynamics` parameter ``name`` each environment's robot has
    (a per-joint parameter averaged over the joints)."""
    term = env.event_manager.get_term_cfg(DYNAMICS_EVENT).func
    return term.values[:, term.columns(name)].mean(dim=1)


def friction(env) -> torch.Tensor:
    return _applied_dynamics(env, "friction")


def added_base_mass(env) -> torch.Tensor:
    """Payload [kg]."""
    return _applied_dynamics(env, "added_base_mass")


def base_com_x(env) -> torch.Tensor:
    """Forward shift of the base's centre of mass [m]."""
    return _applied_dynamics(env, "base_com_x")


def motor_strength(env) -> torch.Tensor:
    return _applied_dynamics(env, "motor_strength")


def contact_time_constant(env) -> torch.Tensor:
    """Time constant of the ground contacts [s]: how soft the ground was."""
    return _applied_dynamics(env, "contact_time_constant")


def time_out(env) -> torch.Tensor:
    """1 where the episode ended this step by reaching its time limit."""
    return env.termination_manager.time_outs.float()


@configclass
class MetricTermCfg:
    """One episode metric: ``func(env) -> [N]`` evaluated after every step, and its :data:`STATE`/:data:`STEP`
    kind."""

    func: Callable | None = None
    """None: a reward term's value (added by :func:`metric_terms`)."""
    kind: str = STATE


@configclass
class VelocityMetricsCfg:
    """The episode metrics of a velocity-tracking task, besides ``return``, ``length`` and one ``reward/<term>`` per
    reward term (always added). Tasks declare theirs as ``metrics: VelocityMetricsCfg = VelocityMetricsCfg()``."""

    lin_vel_error = MetricTermCfg(func=lin_vel_error)
    ang_vel_error = MetricTermCfg(func=ang_vel_error)
    base_vel_x = MetricTermCfg(func=base_vel_x)
    base_vel_y = MetricTermCfg(func=base_vel_y)
    base_yaw_rate = MetricTermCfg(func=base_yaw_rate)
    speed = MetricTermCfg(func=speed)
    command_x = MetricTermCfg(func=command_x)
    command_y = MetricTermCfg(func=command_y)
    command_yaw_rate = MetricTermCfg(func=command_yaw_rate)
    touchdown_rate = MetricTermCfg(func=touchdown_rate)
    diagonal_contact_agreement = MetricTermCfg(func=diagonal_contact_agreement)
    lateral_contact_agreement = MetricTermCfg(func=lateral_contact_agreement)
    fall = MetricTermCfg(func=fall, kind=STEP)
    time_out = MetricTermCfg(func=time_out, kind=STEP)


@configclass
class DynamicsMetricsCfg(VelocityMetricsCfg):
    """The velocity metrics plus the robot each episode had, for tasks with LocoLab's recorded dynamics (a
    ``dynamics`` reset event, :class:`~locolab.envs.mdp.randomize_dynamics`): ``play.py`` names what a robot that
    fell carried, and training logs the dynamics its episodes met (``rollout/added_base_mass``, ...). State metrics,
    so an episode's value is exactly its robot's: the step that ends it, after which the next robot is drawn, is left
    out."""

    friction = MetricTermCfg(func=friction)
    added_base_mass = MetricTermCfg(func=added_base_mass)
    base_com_x = MetricTermCfg(func=base_com_x)
    motor_strength = MetricTermCfg(func=motor_strength)
    contact_time_constant = MetricTermCfg(func=contact_time_constant)


DYNAMICS_METRICS = ("friction", "added_base_mass", "base_com_x", "motor_strength", "contact_time_constant")
"""The metrics of :class:`DynamicsMetricsCfg` beyond the velocity ones."""


def metric_terms(env) -> dict[str, MetricTermCfg]:
    """The task's declared terms (``env.cfg.metrics``) plus one ``reward/<term>`` per active reward term, in the
    column order of :func:`step_metric_values`."""
    cfg = getattr(env.cfg, "metrics", None)
    if cfg is None:
        raise ValueError(f"Task config {type(env.cfg).__name__} declares no episode metrics: give it a "
                         "'metrics: VelocityMetricsCfg = VelocityMetricsCfg()' field.")
    terms = {name: term for name, term in cfg.__dict__.items() if isinstance(term, MetricTermCfg)}
    for name in env.reward_manager.active_terms:
        terms[f"reward/{name}"] = MetricTermCfg(kind=STEP)
    return terms


def step_rewards(env) -> torch.Tensor:
    """[N, terms] weighted rewards of the last step (no dt): the stable reward manager's ``_step_reward``, or the torch
    view of the Warp frontend's (:mod:`locolab.envs.warp_frontend`) buffer of the same values."""
    manager = env.reward_manager
    return manager._step_reward if hasattr(manager, "_step_reward") else manager._step_reward_tensor_view


def step_metric_values(env, terms: dict[str, MetricTermCfg]) -> torch.Tensor:
    """[N, M] values of ``terms`` after a step of the (unwrapped) Isaac Lab env ``env``. A reward term's value is its
    weighted reward of this step times the step length, as the reward manager adds it to the reward."""
    rewards = step_rewards(env) * env.step_dt  # per-term rewards of the last step (weighted, no dt)
    reward_index = {name: i for i, name in enumerate(env.reward_manager.active_terms)}
    columns = [rewards[:, reward_index[name[len("reward/"):]]] if term.func is None else term.func(env)
               for name, term in terms.items()]
    return torch.stack(columns, dim=1).float()


def metric_kinds(terms: dict[str, MetricTermCfg]) -> dict[str, str]:
    """Each metric column's kind, in column order: what an accumulator of these terms needs."""
    return {name: term.kind for name, term in terms.items()}


class EpisodeMetricsWrapper(VecEnvWrapper):
    """Adds ``extras["metrics"]`` ([N, M], columns :attr:`metric_kinds`) to each step of an rsl_rl VecEnv over one
    in-process Isaac Lab env."""

    def __init__(self, env: VecEnv) -> None:
        super().__init__(env)
        self.terms = metric_terms(env.unwrapped)
        self.metric_kinds = metric_kinds(self.terms)

    def reset(self, seed: int | None = None) -> TensorDict:
        """Reset every environment, seeding Isaac Lab's random generators with ``seed`` first (when given)."""
        self.env.unwrapped.reset(seed=seed)
        return self.env.get_observations()

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        observations, rewards, dones, extras = self.env.step(actions)
        extras["metrics"] = step_metric_values(self.env.unwrapped, self.terms)
        return observations, rewards, dones, extras


BUILT_IN = ("return", "length")
"""Episode values every accumulator keeps: the sum of rewards and the number of steps."""


class EpisodeAccumulator:
    """Per-episode values of every metric, accumulated per environment with tensor operations only.

    ``kinds`` maps each metric column to :data:`STATE` (episode mean) or :data:`STEP` (episode sum). Finished
    episodes are added to per-environment totals; :meth:`summary` reduces them (over all environments or a slice,
    e.g. one grid point of a sweep) and is the only host transfer. ``episodes_per_env`` caps how many episodes of
    each environment count (evaluation counts each environment's first episode: a fixed, comparable sample).
    """

    def __init__(self, kinds: dict[str, str], num_envs: int, device: str | torch.device,
                 episodes_per_env: int | None = None, log_capacity: int = 0) -> None:
        """``log_capacity``: keep up to that many episodes one by one (:meth:`episode_log`), written on the device."""
        self.names = [*BUILT_IN, *kinds]
        self.is_state = torch.tensor([False, False, *(kind == STATE for kind in kinds.values())], device=device)
        self.episodes_per_env = episodes_per_env
        self.running = torch.zeros(num_envs, len(self.names), device=device)
        self.state_steps = torch.zeros(num_envs, 1, device=device)
        self.totals = torch.zeros_like(self.running)
        self.episodes = torch.zeros(num_envs, device=device)
        self.env_ids = torch.arange(num_envs, device=device, dtype=torch.float).unsqueeze(1)
        # one row per episode (env, cut, then names); the extra last row takes the writes past the capacity
        self.log = torch.zeros(log_capacity + 1, 2 + len(self.names), device=device) if log_capacity else None
        self.logged = torch.zeros((), dtype=torch.long, device=device)

    def add(self, rewards: torch.Tensor, dones: torch.Tensor, metrics: torch.Tensor) -> None:
        """One step of every environment: its reward, whether its episode ended, its metric values [N, M]."""
        dones = dones.bool()
        ongoing = (~dones).float().unsqueeze(1)
        step = torch.cat([rewards.unsqueeze(1), torch.ones_like(rewards).unsqueeze(1), metrics], dim=1)
        self.running += torch.where(self.is_state, step * ongoing, step)
        self.state_steps += ongoing
        counted = dones if self.episodes_per_env is None else dones & (self.episodes < self.episodes_per_env)
        self._close(counted)
        self.running.masked_fill_(dones.unsqueeze(1), 0.0)  # masked_fill, not [dones] = 0: no host sync on a GPU
        self.state_steps.masked_fill_(dones.unsqueeze(1), 0.0)

    def _close(self, mask: torch.Tensor, cut: bool = False) -> None:
        episode = torch.where(self.is_state, self.running / self.state_steps.clamp_min(1.0), self.running)
        self.totals += episode * mask.float().unsqueeze(1)
        self.episodes += mask.float()
        if self.log is not None:
            capacity = len(self.log) - 1
            index = (self.logged + torch.cumsum(mask.long(), 0) - 1).clamp_max(capacity)
            index = torch.where(mask, index, capacity)
            rows = torch.cat([self.env_ids, torch.full_like(self.env_ids, float(cut)), episode], dim=1)
            self.log.index_copy_(0, index, rows)
            self.logged += mask.sum()

    def close_running(self) -> None:
        """Count the episodes still running as finished (an evaluation that ends before they do)."""
        running = self.running[:, 1] > 0
        if self.episodes_per_env is not None:
            running &= self.episodes < self.episodes_per_env
        self._close(running, cut=True)
        self.running.zero_()
        self.state_steps.zero_()

    def summary(self, env_ids: slice | torch.Tensor | None = None) -> dict[str, float]:
        """Mean of each metric over the counted episodes of ``env_ids`` (all by default), with ``episodes``; empty
        when no episode has finished."""
        rows = slice(None) if env_ids is None else env_ids
        count = self.episodes[rows].sum()
        values = torch.cat([(self.totals[rows].sum(0) / count.clamp_min(1.0)), count.unsqueeze(0)]).tolist()
        if values[-1] == 0:
            return {}
        return {**dict(zip(self.names, values[:-1])), "episodes": values[-1]}

    def episode_log(self) -> list[dict[str, float]]:
        """The logged episodes in the order they ended: ``env``, ``cut`` (still running when the rollout ended) and
        every metric."""
        count = min(int(self.logged), len(self.log) - 1)
        columns = ["env", "cut", *self.names]
        return [dict(zip(columns, row)) for row in self.log[:count].tolist()]

    def reset_totals(self) -> None:
        """Forget the finished episodes (training: after each iteration's log); running episodes go on."""
        self.totals.zero_()
        self.episodes.zero_()
