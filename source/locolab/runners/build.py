"""Wraps an Isaac Lab environment for rsl_rl and builds LocoLab's runner on the agent config's device: the on-policy
runner for PPO and PPO-ROA, the off-policy runner for SAC."""

from __future__ import annotations

from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper, check_rsl_rl_version, handle_deprecated_rsl_rl_cfg

from rsl_rl.env import VecEnv
from torch import nn

from locolab.envs.history import ProprioHistoryWrapper
from locolab.envs.nonfinite_guard import NonFiniteGuard
from locolab.envs.metrics import EpisodeMetricsWrapper

from .agent_kind import agent_kind
from .checkpoints import POLICY_MODULES, read_checkpoint, restore_agent_cfg
from .off_policy_runner import OffPolicyRunner
from .on_policy_runner import LocoLabOnPolicyRunner

HISTORY_GROUP = "history"


def check_obs_groups(env_cfg, agent_cfg) -> None:
    """A ValueError naming an observation group the agent reads and the task does not have (rsl_rl would find out
    only once the environment is built, deep in its runner): e.g. a sighted actor's ``scan`` on flat ground."""
    observations = env_cfg.observations
    present = [name for name in vars(observations) if not name.startswith("_") and getattr(observations, name)]
    if getattr(env_cfg, "history_length", None) is not None:
        present.append(HISTORY_GROUP)
    for reader, groups in (getattr(agent_cfg, "obs_groups", None) or {}).items():
        missing = [group for group in groups if group not in present]
        if missing:
            hint = ": the height scan ('scan') exists on the rough task only" if "scan" in missing else ""
            raise ValueError(f"agent.obs_groups.{reader} reads {missing}, which this task does not have (it has "
                             f"{', '.join(present)}){hint}.")


def wrap_for_agent(env, agent_cfg) -> VecEnv:
    """``env`` (a gymnasium Isaac Lab env, or an rsl_rl VecEnv such as
    :class:`~locolab.envs.multiprocess.SubprocessVecEnv`) as the rsl_rl VecEnv the agent reads: with non-finite
    environments reset (:class:`~locolab.envs.nonfinite_guard.NonFiniteGuard`), the episode metrics in every step's
    extras and, when the agent reads the ``history`` observation (PPO-ROA), a
    :class:`~locolab.envs.history.ProprioHistoryWrapper` of the task's ``history_length``."""
    if isinstance(env, VecEnv):
        vec_env = env
    else:
        vec_env = EpisodeMetricsWrapper(NonFiniteGuard(RslRlVecEnvWrapper(env, clip_actions=agent_cfg.clip_actions)))
    if any(HISTORY_GROUP in groups for groups in agent_cfg.obs_groups.values()):
        length = getattr(vec_env.cfg, "history_length", None)
        if length is None:
            raise ValueError(f"The agent reads the '{HISTORY_GROUP}' observation but the task config has no "
                             "history_length.")
        vec_env = ProprioHistoryWrapper(vec_env, length, name=HISTORY_GROUP)
    return vec_env


def build_runner(env, agent_cfg, log_dir: str | None, evaluator=None) -> LocoLabOnPolicyRunner:
    """An rsl_rl runner over ``env`` (see :func:`wrap_for_agent`); ``log_dir=None`` disables logging and
    checkpoints; ``evaluator`` (a :class:`~locolab.eval.periodic.PeriodicEvaluator`) evaluates the policy every
    ``agent_cfg.evaluation.interval`` iterations. SAC (:func:`~.agent_kind.agent_kind`) gets the
    :class:`~.off_policy_runner.OffPolicyRunner`."""
    if agent_kind(agent_cfg)[0] == "sac":
        runner_class = OffPolicyRunner
    else:
        agent_cfg = handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())
        runner_class = LocoLabOnPolicyRunner
    runner = runner_class(wrap_for_agent(env, agent_cfg), agent_cfg.to_dict(), log_dir=log_dir,
                          device=agent_cfg.device)
    runner.evaluator = evaluator
    runner.trains = log_dir is not None
    runner.trained_cfg = agent_cfg.to_dict()
    return runner


def load_policy(env, agent_cfg, checkpoint, policy: str) -> tuple[LocoLabOnPolicyRunner, nn.Module]:
    """A logging-free runner over ``env`` with ``checkpoint`` loaded (a CheckpointError if it does not fit), and
    its ``policy`` ("policy", "teacher" or "student") in evaluation mode, ``agent_cfg`` first given the settings the
    checkpoint trained with (:func:`~.checkpoints.restore_agent_cfg`)."""
    restore_agent_cfg(agent_cfg, read_checkpoint(checkpoint))
    runner = build_runner(env, agent_cfg, log_dir=None)
    runner.load(str(checkpoint))
    runner.alg.eval_mode()
    return runner, getattr(runner.alg, POLICY_MODULES[policy])
