"""PPO agents for the Go2 velocity tasks: the stock Go2 runners, blind actor, asymmetric critic, normalised inputs.

The actor reads ``policy`` only (proprioception: the same inputs as ROA's student, so PPO is its blind baseline);
the critic reads ``critic`` (noise-free proprioception plus the privileged terms). Normalisation makes the same
hyper-parameters work across the observation scales of the randomised tasks; its running statistics are part of every
checkpoint, so resume and playback see the same inputs.

The ``_CPU`` configs are the same agents sized and scheduled for 2 CPU cores (the ``-CPU`` tasks'
agents; docs/measurements/cpu_profile.md has the runs behind each value).
"""

from isaaclab.utils import configclass
from isaaclab_rl.rsl_rl import RslRlSymmetryCfg

from locolab.envs.symmetry import compute_symmetric_states
from locolab.runners.runner_cfg import (
    ActionNoiseScheduleCfg,
    EntropyScheduleCfg,
    LocoLabRunnerExtrasCfg,
    TorchThreadsCfg,
    WalkingGateCfg,
)

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


PPO_CPU = {"num_steps_per_env": 24, "learning_rate": 1.0e-3, "schedule": "adaptive", "entropy_coef": 0.01,
           "num_learning_epochs": 5, "num_mini_batches": 2}
"""PPO on 2 CPU cores at 512 robots: 12288 samples an iteration in two minibatches (docs/measurements/cpu_profile.md)."""
PPO_CPU_SCHEDULE = {"desired_kl": 0.02, "entropy_off": (150, 151), "action_noise_window": (150, 385),
                    "action_noise_final": 0.05, "symmetry_until": 585, "max_iterations": 635}
"""When a CPU PPO run does what: at a KL target of 0.02 the runs leave standing by iteration 71-96; the entropy bonus
ends at 150, the action noise's ceiling falls to 0.05 by 385, the last 50 iterations are not mirrored."""
ACTION_NOISE_LEARNING_RATE = 3.0e-4
"""The learning rate held from the start of the action noise's window on."""
WALKING_GATE_EXTRA_ITERATIONS = 500
"""On flat ground a CPU run trains on, 50 iterations at a time, until its final checkpoint walks (at most this many)."""
ROUGH_PPO_CPU_SCHEDULE = dict(PPO_CPU_SCHEDULE)
"""Rough terrain on a CPU: the flat schedule. With the rough tasks' gait clock the mean action walks at 0.3-1.0 m/s by
iteration 300 (without it, it stood under 0.5 m/s on this schedule and on one stretched twice: 1270 iterations;
docs/measurements/rough_terrain.md)."""
ROUGH_CPU_HIDDEN_DIMS = [256, 128, 128]
"""Actor and critic layers of the rough agents on a CPU: Isaac Lab's 512-256-128 made the first rough run's update
4.0 s of its 11 s iterations (docs/measurements/rough_terrain.md); these cost about 2.7x less per sample (weights)."""
ROUGH_GATE_TILES = (("stairs_up", 0.10), ("stairs_down", 0.10), ("slope_up", 0.3), ("slope_down", 0.3),
                    ("boxes", 0.10), ("rough", 0.06))
"""The terrain sweep's tiles a rough CPU run's final checkpoint must cross (with the walking checks on flat ground)."""
ROUGH_GATE_MIN_SUCCESS = {"blind": 0.8, "sighted": 0.9}
"""Share of a tile's robots that must cross it: the rough-terrain goals' bars, 0.9 for a policy that reads the terrain
(the PPO-ROA teacher) and 0.8 for a blind one (the student; blind PPO and its GRU, for which the goals set none).
Blind PPO at 0.9 stopped on boxes 10 cm (56-88 % in five runs; docs/measurements/rough_terrain.md)."""


def rough_walking_gate(min_success: float = ROUGH_GATE_MIN_SUCCESS["blind"]) -> WalkingGateCfg:
    """The rough CPU runs' gate: flat-ground walking checks, then :data:`ROUGH_GATE_TILES`."""
    return WalkingGateCfg(extra_iterations=WALKING_GATE_EXTRA_ITERATIONS, terrain_tiles=ROUGH_GATE_TILES,
                          terrain_min_success=min_success)


def use_rough_cpu_networks(cfg) -> None:
    """:data:`ROUGH_CPU_HIDDEN_DIMS` for a rough agent's actor (its MLP; a recurrent actor's head) and critic."""
    cfg.actor.hidden_dims = list(ROUGH_CPU_HIDDEN_DIMS)
    cfg.critic.hidden_dims = list(ROUGH_CPU_HIDDEN_DIMS)


def use_cpu_schedule(cfg, schedule: dict) -> None:
    """``schedule`` (:data:`PPO_CPU_SCHEDULE`'s keys) on a PPO-family runner config."""
    cfg.algorithm.desired_kl = schedule["desired_kl"]
    start, end = schedule["entropy_off"]
    cfg.entropy_schedule = EntropyScheduleCfg(start=start, end=end, final=0.0)
    start, end = schedule["action_noise_window"]
    cfg.action_noise_schedule = ActionNoiseScheduleCfg(start=start, end=end, final=schedule["action_noise_final"],
                                                       learning_rate=ACTION_NOISE_LEARNING_RATE)
    cfg.symmetry_until = schedule["symmetry_until"]
    cfg.max_iterations = schedule["max_iterations"]


@configclass
class PpoCpuCfg:
    """Mixin (listed before a PPO-family runner config): PPO's sizes, mirrored minibatches, torch threads and
    schedule on a CPU; periodic evaluation off (it cost about 20 % of a CPU run's time)."""

    def __post_init__(self):
        super().__post_init__()
        self.num_steps_per_env = PPO_CPU["num_steps_per_env"]
        for name in ("learning_rate", "schedule", "entropy_coef", "num_learning_epochs", "num_mini_batches"):
            setattr(self.algorithm, name, PPO_CPU[name])
        self.algorithm.symmetry_cfg = RslRlSymmetryCfg(use_data_augmentation=True,
                                                       data_augmentation_func=compute_symmetric_states)
        self.threads = TorchThreadsCfg(collection=1, learning=0)
        self.evaluation.interval = 0
        use_cpu_schedule(self, PPO_CPU_SCHEDULE)


@configclass
class LocoLabGo2FlatPPORunnerCfg_CPU(PpoCpuCfg, LocoLabGo2FlatPPORunnerCfg):
    """``make train``'s agent on a CPU."""

    def __post_init__(self):
        super().__post_init__()
        self.walking_gate = WalkingGateCfg(extra_iterations=WALKING_GATE_EXTRA_ITERATIONS)


@configclass
class LocoLabGo2RoughPPORunnerCfg_CPU(PpoCpuCfg, LocoLabGo2RoughPPORunnerCfg):
    """PPO on a CPU on rough terrain, trained on until it walks on flat ground and crosses the gate's tiles."""

    def __post_init__(self):
        super().__post_init__()
        use_cpu_schedule(self, ROUGH_PPO_CPU_SCHEDULE)
        use_rough_cpu_networks(self)
        self.walking_gate = rough_walking_gate()
