"""LocoLab's gymnasium tasks. Importing this module registers them.

Each terrain has a training task and its ``-Play`` variant, and ``-CPU`` variants sized for 2 CPU cores
(:mod:`.go2_velocity_cpu_env_cfg`) whose agents are the ``_CPU`` runner configs of ``locolab.agents``. The agents did not
train on one CPU environment, so PPO-ROA and SAC have their own ``-CPU`` task ids (:func:`cpu_variant` names them).
"""

import gymnasium as gym

from locolab.assets import use_offline_asset_root

use_offline_asset_root()  # before any Isaac Lab import reads ISAACSIM_ASSET_ROOT

from locolab import agents  # noqa: E402
from locolab.task_ids import CPU_SUFFIX  # noqa: E402

AGENT_ENTRY_POINTS = {
    ("ppo", "train"): "rsl_rl_cfg_entry_point",
    ("ppo_rnn", "train"): "rsl_rl_rnn_cfg_entry_point",
    ("roa", "train"): "rsl_rl_roa_cfg_entry_point",
    ("roa", "finetune"): "rsl_rl_roa_finetune_cfg_entry_point",
    ("sac", "train"): "sac_cfg_entry_point",
}
"""Agent config entry point of each (``--agent``, ``--phase``)."""

_CPU_TASK_OF_AGENT = {("ppo", "train"): "", ("ppo_rnn", "train"): "", ("sac", "train"): "-Sac",
                      ("roa", "train"): "-Roa", ("roa", "finetune"): "-RoaFinetune"}
"""What goes between a task id and ``-CPU`` for each agent's CPU environment."""
_AGENT_CLASSES = {
    "rsl_rl_cfg_entry_point": "go2_ppo_cfg:LocoLabGo2{terrain}PPORunnerCfg",
    "rsl_rl_rnn_cfg_entry_point": "go2_ppo_rnn_cfg:LocoLabGo2{terrain}PPORnnRunnerCfg",
    "rsl_rl_roa_cfg_entry_point": "go2_roa_cfg:LocoLabGo2{terrain}RoaRunnerCfg",
    "rsl_rl_roa_finetune_cfg_entry_point": "go2_roa_cfg:LocoLabGo2{terrain}RoaFinetuneRunnerCfg",
    "sac_cfg_entry_point": "go2_sac_cfg:LocoLabGo2{terrain}SacRunnerCfg",
}


def _variants() -> dict[str, tuple[str, str, str]]:
    """``{task id: (env config module:class, terrain, agent class suffix)}`` of every LocoLab task."""
    variants = {}
    for terrain in ("Flat", "Rough"):
        base = f"LocoLab-Velocity-{terrain}-Go2"
        variants[base] = (f"go2_velocity_env_cfg:LocoLabGo2{terrain}EnvCfg", terrain, "")
        variants[f"{base}-Play"] = (f"go2_velocity_env_cfg:LocoLabGo2{terrain}EnvCfg_PLAY", terrain, "")
        for agent in sorted(set(_CPU_TASK_OF_AGENT.values())):
            variants[f"{base}{agent}{CPU_SUFFIX}"] = (
                f"go2_velocity_cpu_env_cfg:LocoLabGo2{terrain}{agent.lstrip('-')}EnvCfg_CPU", terrain, "_CPU")
        variants[f"{base}{CPU_SUFFIX}-Play"] = (f"go2_velocity_cpu_env_cfg:LocoLabGo2{terrain}EnvCfg_CPU_PLAY",
                                                terrain, "_CPU")
    return variants


def cpu_variant(task: str, agent: str, phase: str) -> str | None:
    """The registered CPU variant of ``task`` for an agent (e.g. ``LocoLab-Velocity-Flat-Go2-Roa-CPU``), or None when
    ``task`` has none (it is a CPU or play variant already, or not LocoLab's)."""
    variant = f"{task}{_CPU_TASK_OF_AGENT[(agent, phase)]}{CPU_SUFFIX}"
    return variant if variant in gym.registry else None


def register() -> None:
    """Register every LocoLab task (idempotent). Also the ``--external_callback`` of the stock ``isaaclab train``."""
    for task, (env_cfg, terrain, agent_suffix) in _variants().items():
        if task in gym.registry:
            continue
        gym.register(
            id=task,
            entry_point="isaaclab.envs:ManagerBasedRLEnv",
            disable_env_checker=True,
            kwargs={
                "env_cfg_entry_point": f"{__name__}.{env_cfg}",
                **{key: f"{agents.__name__}.{path.format(terrain=terrain)}{agent_suffix}"
                   for key, path in _AGENT_CLASSES.items()},
            },
        )


register()
