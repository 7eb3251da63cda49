"""Periodic evaluation during training: the deterministic policy on separate environments, every K iterations.

Separate environments rather than the training ones with their state saved and restored: an Isaac Lab environment's
state is spread over the physics model, every manager (command timers and targets, event intervals, curriculum,
observation noise and history buffers) and the randomised dynamics, and nothing restores all of it exactly; a run whose
training episodes were cut by evaluations would also learn from different data than one without them. The evaluation
environment is the task's ``-Play`` variant in its own simulation process (Isaac Lab runs one simulation per
process), reset with the same seed before every evaluation, so two evaluations of the same weights are the same.
"""

from __future__ import annotations

import contextlib
import math

from locolab.envs.physics_settings import copy_physics
from locolab.envs import load_task_cfgs, play_variant
from locolab.envs.multiprocess import SubprocessVecEnv
from locolab.runners.build import wrap_for_agent
from locolab.runners.runner_cfg import PeriodicEvalCfg

from .evaluate import evaluate_policy


def check_periodic_eval_cfg(cfg: PeriodicEvalCfg | None) -> None:
    """A ValueError naming a setting that cannot evaluate (before any environment is built)."""
    if cfg is not None and cfg.seconds is not None and not (math.isfinite(cfg.seconds) and cfg.seconds > 0):
        raise ValueError(f"agent.evaluation.seconds must be a positive number of seconds (or null: the task's "
                         f"episode length), got {cfg.seconds}.")


class PeriodicEvaluator:
    """Runs one deterministic evaluation of a policy on its own environment and returns the episode metrics."""

    def __init__(self, env, cfg: PeriodicEvalCfg) -> None:
        self.env = env
        self.cfg = cfg

    def evaluate(self, policy, alg=None) -> dict[str, float]:
        """Metrics of each environment's first episode (those still running at the time limit included), with the
        policy's own metrics when ``alg`` (the algorithm it belongs to) has them (PPO-ROA's latent error)."""
        evaluation = evaluate_policy(self.env, policy, int(self.env.max_episode_length), alg=alg, seed=self.cfg.seed,
                                     episodes_per_env=1)
        return evaluation.summary()


@contextlib.contextmanager
def periodic_evaluation(task: str, env_cfg, agent_cfg):
    """A :class:`PeriodicEvaluator` for training ``task`` with ``agent_cfg`` (None when its evaluation interval is 0),
    over the task's ``-Play`` variant with ``agent_cfg.evaluation.num_envs`` environments in one extra process."""
    cfg: PeriodicEvalCfg | None = getattr(agent_cfg, "evaluation", None)
    if cfg is None or cfg.interval <= 0:
        yield None
        return
    eval_task = play_variant(task)
    eval_cfg, _ = load_task_cfgs(eval_task, num_envs=cfg.num_envs, device=env_cfg.sim.device, seed=cfg.seed)
    if cfg.seconds is not None:
        eval_cfg.episode_length_s = cfg.seconds
    copy_physics(eval_cfg, env_cfg)  # the physics the policy trains in
    env = SubprocessVecEnv(eval_task, eval_cfg, 1, clip_actions=agent_cfg.clip_actions)
    try:
        yield PeriodicEvaluator(wrap_for_agent(env, agent_cfg), cfg)
    finally:
        env.close()
