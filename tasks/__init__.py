"""LocoLab's gymnasium tasks. Importing this module registers them."""

import gymnasium as gym

from locolab.assets import use_offline_asset_root

use_offline_asset_root()  # before any Isaac Lab import reads ISAACSIM_ASSET_ROOT

from locolab import agents  # noqa: E402

AGENT_ENTRY_POINTS = {
    ("ppo", "train"): "rsl_rl_cfg_entry_point",
    ("ppo_rnn", "train"): "rsl_rl_rnn_cfg_entry_point",
    ("roa", "train"): "rsl_rl_roa_cfg_entry_point",
    ("roa", "finetune"): "rsl_rl_roa_finetune_cfg_entry_point",
    ("sac", "train"): "sac_cfg_entry_point",
}
"""Agent config entry point of each (``--agent``, ``--phase``)."""

_VARIANTS = {
    "LocoLab-Velocity-Flat-Go2": ("LocoLabGo2FlatEnvCfg", "Flat"),
    "LocoLab-Velocity-Flat-Go2-Play": ("LocoLabGo2FlatEnvCfg_PLAY", "Flat"),
    "LocoLab-Velocity-Rough-Go2": ("LocoLabGo2RoughEnvCfg", "Rough"),
    "LocoLab-Velocity-Rough-Go2-Play": ("LocoLabGo2RoughEnvCfg_PLAY", "Rough"),
}


def register() -> None:
    """Register every LocoLab task (idempotent). Also the ``--external_callback`` of the stock ``isaaclab train``."""
    for task, (env_cfg, terrain) in _VARIANTS.items():
        if task in gym.registry:
            continue
        gym.register(
            id=task,
            entry_point="isaaclab.envs:ManagerBasedRLEnv",
            disable_env_checker=True,
            kwargs={
                "env_cfg_entry_point": f"{__name__}.go2_velocity_env_cfg:{env_cfg}",
                "rsl_rl_cfg_entry_point": f"{agents.__name__}.go2_ppo_cfg:LocoLabGo2{terrain}PPORunnerCfg",
                "rsl_rl_rnn_cfg_entry_point": f"{agents.__name__}.go2_ppo_rnn_cfg:LocoLabGo2{terrain}PPORnnRunnerCfg",
                "rsl_rl_roa_cfg_entry_point": f"{agents.__name__}.go2_roa_cfg:LocoLabGo2{terrain}RoaRunnerCfg",
                "rsl_rl_roa_finetune_cfg_entry_point":
                    f"{agents.__name__}.go2_roa_cfg:LocoLabGo2{terrain}RoaFinetuneRunnerCfg",
                "sac_cfg_entry_point": f"{agents.__name__}.go2_sac_cfg:LocoLabGo2{terrain}SacRunnerCfg",
            },
        )


register()
