"""LocoLab's gymnasium tasks. Importing this module registers them."""

import sys

import gymnasium as gym

import locolab  # noqa: F401  (offline asset root before any Isaac Lab import)

from locolab import agents

_VARIANTS = {
    "LocoLab-Velocity-Flat-Go2": ("LocoLabGo2FlatEnvCfg", "LocoLabGo2FlatPPORunnerCfg"),
    "LocoLab-Velocity-Flat-Go2-Play": ("LocoLabGo2FlatEnvCfg_PLAY", "LocoLabGo2FlatPPORunnerCfg"),
    "LocoLab-Velocity-Rough-Go2": ("LocoLabGo2RoughEnvCfg", "LocoLabGo2RoughPPORunnerCfg"),
    "LocoLab-Velocity-Rough-Go2-Play": ("LocoLabGo2RoughEnvCfg_PLAY", "LocoLabGo2RoughPPORunnerCfg"),
}


def register() -> None:
    """Register every LocoLab task (idempotent)."""
    for task, (env_cfg, agent_cfg) in _VARIANTS.items():
        if task in gym.registry:
            continue
        gym.register(
            id=task,
            entry_point="isaaclab.envs:ManagerBasedRLEnv",
            disable_env_checker=True,
            kwargs={
                "env_cfg_entry_point": f"{__name__}.go2_velocity_env_cfg:{env_cfg}",
                "rsl_rl_cfg_entry_point": f"{agents.__name__}.go2_ppo_cfg:{agent_cfg}",
            },
        )


def external_callback() -> list[str]:
    """``isaaclab train --external_callback locolab.tasks.external_callback``: register LocoLab's tasks in the stock
    entry point. Its protocol wants back the command-line arguments the callback did not consume (all of them:
    the Hydra overrides such as ``agent.device=cpu`` must reach Isaac Lab)."""
    register()
    return sys.argv[1:]


register()
