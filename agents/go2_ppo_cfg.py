"""PPO agents for the Go2 velocity tasks: the stock Go2 runners, blind actor, asymmetric critic, normalised inputs.

The actor reads ``policy`` only (proprioception: the same inputs as ROA's student, so PPO is its blind baseline);
the critic reads ``critic`` (noise-free proprioception plus the privileged terms). Normalisation makes the same
hyper-parameters work across the observation scales of the randomised tasks; its running statistics are part of every
checkpoint, so resume and playback see the same inputs.
"""

from isaaclab.utils import configclass

from locolab.runners.runner_cfg import LocoLabRunnerExtrasCfg

from isaaclab_tasks.core.velocity.config.go2.agents.rsl_rl_ppo_cfg import (
    UnitreeGo2FlatPPORunnerCfg,
    UnitreeGo2RoughPPORunnerCfg,
)


def use_locolab_defaults(cfg, experiment_name: str) -> None:
    """LocoLab's experiment name, observation sets and normalised actor and critic inputs, in place."""
    cfg.experiment_name = experiment_name
    cfg.obs_groups = {"actor": ["policy"], "critic": ["critic"]}
    cfg.actor.obs_normalization = True
    cfg.critic.obs_normalization = True


@configclass
class LocoLabGo2RoughPPORunnerCfg(UnitreeGo2RoughPPORunnerCfg, LocoLabRunnerExtrasCfg):
    def __post_init__(self):
        super().__post_init__()
        use_locolab_defaults(self, "locolab_go2_rough")


@configclass
class LocoLabGo2FlatPPORunnerCfg(UnitreeGo2FlatPPORunnerCfg, LocoLabRunnerExtrasCfg):
    def __post_init__(self):
        super().__post_init__()
        use_locolab_defaults(self, "locolab_go2_flat")
