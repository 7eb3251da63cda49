"""Wraps an Isaac Lab environment for rsl_rl and builds LocoLab's runner on the agent config's device."""

from __future__ import annotations

from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper, check_rsl_rl_version, handle_deprecated_rsl_rl_cfg

from rsl_rl.env import VecEnv
from torch import nn

from locolab.envs.history import ProprioHistoryWrapper

from .checkpoints import POLICY_MODULES
from .on_policy_runner import LocoLabOnPolicyRunner

HISTORY_GROUP = "history"


def build_runner(env, agent_cfg, log_dir: str | None) -> LocoLabOnPolicyRunner:
    """An rsl_rl runner over ``env`` (a gymnasium Isaac Lab env, or an rsl_rl VecEnv such as
    :class:`~locolab.envs.multiprocess.SubprocessVecEnv`); ``log_dir=None`` disables logging and checkpoints.

    When the agent reads the ``history`` observation (PPO-ROA), the environment is wrapped in a
    :class:`~locolab.envs.history.ProprioHistoryWrapper` of the task's ``history_length``.
    """
    agent_cfg = handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())
    vec_env = env if isinstance(env, VecEnv) else RslRlVecEnvWrapper(env, clip_actions=agent_cfg.clip_actions)
    if any(HISTORY_GROUP in groups for groups in agent_cfg.obs_groups.values()):
        length = getattr(vec_env.cfg, "history_length", None)
        if length is None:
            raise ValueError(f"The agent reads the '{HISTORY_GROUP}' observation but the task config has no "
                             "history_length.")
        vec_env = ProprioHistoryWrapper(vec_env, length, name=HISTORY_GROUP)
    return LocoLabOnPolicyRunner(vec_env, agent_cfg.to_dict(), log_dir=log_dir, device=agent_cfg.device)


def load_policy(env, agent_cfg, checkpoint, policy: str) -> tuple[LocoLabOnPolicyRunner, nn.Module]:
    """A logging-free runner over ``env`` with ``checkpoint`` loaded (a CheckpointError if it does not fit), and
    its ``policy`` ("policy", "teacher" or "student") in evaluation mode."""
    runner = build_runner(env, agent_cfg, log_dir=None)
    runner.load(str(checkpoint))
    runner.alg.eval_mode()
    return runner, getattr(runner.alg, POLICY_MODULES[policy])
