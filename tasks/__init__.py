"""LocoLab's gymnasium tasks. Importing this module registers them."""

import gymnasium as gym

import locolab  # noqa: F401  (offline asset root before any Isaac Lab import)

from locolab import agents

_VARIANTS = {
    "LocoLab-Velocity-Flat-Go2": ("LocoLabGo2FlatEnvCfg", "LocoLabGo2FlatPPORunnerCfg"),
    "LocoLab-Velocity-Flat-Go2-Play": ("LocoLabGo2FlatEnvCfg_PLAY", "LocoLabGo2FlatPPORunnerCfg"),
    "LocoLab-Velocity-Rough-Go2": ("LocoLabGo2RoughEnvCfg", "LocoLabGo2RoughPPORunnerCfg"),
    "LocoLab-Velocity-Rough-Go2-Play": ("LocoLabGo2RoughEnvCfg_PLAY", "LocoLabGo2RoughPPORunnerCfg"),
}


def register() -> list[str]:
    """Register every LocoLab task (idempotent); also usable as ``isaaclab train --external_callback``.

    Returns:
        An empty list: the callback protocol of Isaac Lab's train entry point expects the unconsumed arguments.
    """
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
    return []


register()
