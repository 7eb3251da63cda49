"""SAC agents for the Go2 velocity tasks (``--agent sac``): the same observation sets as PPO (blind actor on
``policy``, asymmetric critic on ``critic``), so the two compare like with like.

GPU defaults follow massively parallel off-policy practice (thousands of environments, a few steps of each per
iteration, large minibatches, a million-transition buffer on the device). The ``_CPU`` configs are SAC's sizes on 2
CPU cores (docs/measurements/sac.md and docs/measurements/cpu_profile.md have the runs behind each value).
"""

from isaaclab.utils import configclass

from locolab.algorithms.sac_cfg import SacRunnerCfg
from locolab.runners.runner_cfg import EntropyScheduleCfg, TorchThreadsCfg, WalkingGateCfg


@configclass
class LocoLabGo2FlatSacRunnerCfg(SacRunnerCfg):
    max_iterations: int = 3000
    experiment_name: str = "locolab_go2_flat_sac"


@configclass
class LocoLabGo2RoughSacRunnerCfg(SacRunnerCfg):
    max_iterations: int = 10000
    experiment_name: str = "locolab_go2_rough_sac"


@configclass
class SacCpuCfg:
    """Mixin (listed before a SAC runner config): 4096 transitions an iteration at 512 robots, each replayed about 8
    times (32 updates of 1024), smaller networks with LayerNorm critics, an entropy target that keeps the noise wide
    while a gait is found and falls after, and a penalty that keeps the mean action off the tanh's flat ends."""

    def __post_init__(self):
        super().__post_init__()
        self.num_steps_per_env = 8
        self.max_iterations = 1600
        algorithm = self.algorithm
        algorithm.batch_size, algorithm.num_updates = 1024, 32
        algorithm.buffer_size, algorithm.learning_starts = 400_000, 16384
        algorithm.target_entropy, algorithm.alpha_learning_rate = 10.0, 3e-3
        algorithm.symmetry_augmentation, algorithm.mean_penalty = False, 0.1
        self.actor.hidden_dims = [256, 128]
        self.critic.hidden_dims = [256, 256]
        self.critic.layer_norm = True
        self.entropy_schedule = EntropyScheduleCfg(start=800, end=1400, final=-4.0)
        self.threads = TorchThreadsCfg(collection=1, learning=0)
        self.evaluation.interval = 0


@configclass
class LocoLabGo2FlatSacRunnerCfg_CPU(SacCpuCfg, LocoLabGo2FlatSacRunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        # SAC's checkpoints of one run swing between walking and not: train on until the final one walks
        self.walking_gate = WalkingGateCfg(extra_iterations=600, chunk=100)


@configclass
class LocoLabGo2RoughSacRunnerCfg_CPU(SacCpuCfg, LocoLabGo2RoughSacRunnerCfg):
    """SAC on a CPU on rough terrain (no walking gate)."""
