"""Wraps an Isaac Lab environment for rsl_rl and builds LocoLab's runner on the agent config's device."""

from __future__ import annotations

from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper, check_rsl_rl_version, handle_deprecated_rsl_rl_cfg

from .on_policy_runner import LocoLabOnPolicyRunner


def build_runner(env, agent_cfg, log_dir: str | None) -> LocoLabOnPolicyRunner:
    """An rsl_rl runner over ``env``; ``log_dir=None`` disables logging and checkpoints (playback)."""
    agent_cfg = handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())
    vec_env = RslRlVecEnvWrapper(env, clip_actions=agent_cfg.clip_actions)
    return LocoLabOnPolicyRunner(vec_env, agent_cfg.to_dict(), log_dir=log_dir, device=agent_cfg.device)
