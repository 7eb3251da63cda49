"""Deterministic evaluation of a loaded policy on an environment: what ``play.py`` and ``eval.py`` share.

It is :func:`locolab.runners.rollout.rollout` with the policy's mean action, an :class:`EpisodeAccumulator` over the
task's metrics (plus the policy's own, e.g. PPO-ROA's latent error), optionally each episode and each step kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import torch

from locolab.envs.metrics import DYNAMICS_METRICS, STATE, EpisodeAccumulator
from locolab.runners.rollout import StepRecord, rollout


@dataclass
class Evaluation:
    accumulator: EpisodeAccumulator
    record: StepRecord | None
    actions: torch.Tensor | None = None
    """Every action the policy took, ``[steps, envs, actions]`` (with ``record_steps``)."""

    def summary(self, env_ids=None) -> dict[str, float]:
        return self.accumulator.summary(env_ids)

    def episodes(self) -> list[dict[str, float]]:
        return self.accumulator.episode_log()


@contextlib.contextmanager
def recurrent_memory(policy, fresh: bool):
    """For a recurrent ``policy`` (rsl_rl's ``is_recurrent``): yields the rollout's ``on_step`` that empties each
    environment's memory when its episode ends (as rsl_rl's PPO does in training), starts from an empty memory when
    ``fresh`` (the environments were just reset), and gives the policy back the memory it had before (a training
    rollout's, when the acting model is evaluated periodically). Yields None for other policies."""
    if not getattr(policy, "is_recurrent", False):
        yield None
        return
    before = policy.get_hidden_state()
    if fresh:
        policy.reset()
    try:
        yield lambda obs, rewards, dones, extras: policy.reset(dones)
    finally:
        policy.reset(hidden_state=before)


def evaluate_policy(vec_env, policy: Callable, num_steps: int, alg=None, seed: int | None = None,
                    episodes_per_env: int | None = None, log_episodes: bool = False, record_steps: bool = False,
                    before_step: Callable[[], None] | None = None) -> Evaluation:
    """Run ``policy`` (deterministic) on ``vec_env`` for ``num_steps`` and measure its episodes.

    ``alg``: the algorithm the policy belongs to; its ``policy_metrics`` (if any) are measured too. ``seed``: reset
    every environment with this seed first (else continue from the current state). ``episodes_per_env``: count only
    each environment's first episodes. Episodes still running at the end are counted as ``cut``.
    ``before_step()`` runs before each action (a video recorder's capture).
    """
    device = getattr(alg, "device", None) or vec_env.device
    obs = (vec_env.reset(seed=seed) if seed is not None else vec_env.get_observations()).to(device)
    policy_metrics = getattr(alg, "policy_metrics", None)
    names = getattr(alg, "policy_metric_names", ()) if policy_metrics is not None else ()
    kinds = {**vec_env.metric_kinds, **{name: STATE for name in names}}
    num_envs = vec_env.num_envs
    capacity = num_envs * (num_steps + 1) if log_episodes else 0
    accumulator = EpisodeAccumulator(kinds, num_envs, device, episodes_per_env, log_capacity=capacity)
    record = StepRecord(list(kinds), num_steps, num_envs, device) if record_steps else None
    actions = torch.zeros(num_steps, num_envs, vec_env.num_actions, device=device) if record_steps else None
    taken = 0

    def act(observations):
        nonlocal taken
        if before_step is not None:
            before_step()
        action = policy(observations)
        if actions is not None:
            actions[taken] = action
            taken += 1
        return action

    with torch.inference_mode(), recurrent_memory(policy, fresh=seed is not None) as on_step:
        rollout(vec_env, act, num_steps, obs, accumulator, on_step=on_step, record=record,
                policy_metrics=policy_metrics, device=device)
        accumulator.close_running()
    return Evaluation(accumulator, record, actions)


COMMAND_COLUMNS = ("command_x", "command_y", "command_yaw_rate")
ACTION_PERCENTILES = (2.5, 97.5)
"""The percentiles of each action that ``play.py`` reports: the range 95 % of a policy's actions lie in, which SAC
can take as its action bounds (``agent.actor.action_bounds``)."""
BASE_VELOCITY_COLUMNS = ("base_vel_x", "base_vel_y", "base_yaw_rate")


def play_summary(evaluation: Evaluation, steps: int) -> dict:
    """``play.py``'s JSON summary: means over every episode (cut ones included), falls counted, and the command
    every environment saw, lowest and highest over every step (read back from the command manager)."""
    metrics = evaluation.summary()
    episodes = evaluation.episodes()
    record = evaluation.record
    commanded = record.values[:record.steps, :, [record.names.index(name) for name in COMMAND_COLUMNS]]
    base_velocity = [round(metrics[name], 4) for name in BASE_VELOCITY_COLUMNS]
    return {
        "episodes": len(episodes),
        "completed_episodes": sum(not episode["cut"] for episode in episodes),
        "mean_return": metrics["return"],
        "mean_lin_vel_error": metrics["lin_vel_error"],
        "mean_ang_vel_error": metrics["ang_vel_error"],
        "falls": sum(episode["fall"] > 0.5 for episode in episodes),
        "fallen_robots": fallen_robots(episodes),
        "commanded_min": [round(v, 6) for v in commanded.amin(dim=(0, 1)).tolist()],
        "commanded_max": [round(v, 6) for v in commanded.amax(dim=(0, 1)).tolist()],
        "mean_base_velocity": base_velocity,
        "mean_forward_velocity": base_velocity[0],
        "mean_speed": round(metrics["speed"], 4),
        "action_percentiles": action_percentiles(evaluation.actions),
        "steps": steps,
        "metrics": metrics,
    }


def fallen_robots(episodes: list[dict[str, float]]) -> list[dict]:
    """Each episode that ended in a fall: its environment, its steps and, where the task records them
    (:class:`~locolab.envs.metrics.DynamicsMetricsCfg`), the dynamics its robot had: which robots a policy cannot
    carry."""
    return [{"env": int(episode["env"]), "steps": int(episode["length"]),
             **{name: round(episode[name], 4) for name in DYNAMICS_METRICS if name in episode}}
            for episode in episodes if episode["fall"] > 0.5]


def action_percentiles(actions: torch.Tensor) -> dict[str, list[float]]:
    """``{"2.5": [per action], "97.5": [...]}`` over every step and environment of ``actions [steps, envs, A]``."""
    flat = actions.reshape(-1, actions.shape[-1]).float()
    levels = torch.tensor(ACTION_PERCENTILES, device=flat.device) / 100.0
    values = torch.quantile(flat, levels, dim=0)
    return {f"{level:g}": [round(v, 4) for v in row.tolist()] for level, row in zip(ACTION_PERCENTILES, values)}
