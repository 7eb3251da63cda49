"""PPO-ROA agents for the Go2 velocity tasks: phase ``train`` (teacher) and phase ``finetune`` (student).

PPO settings, network sizes and rollout length are those of the task's PPO agent (so the two compare like with
like); ROA's own defaults follow the ROA code (latent 16, temporal-conv adaptation module, tau 0.04, 2 x 4
adaptation minibatches, lambda up to 0.1) with the regulariser ramp placed inside our shorter runs: on a GPU at 4096
environments the flat teacher trains 1000 iterations (lambda 0 -> 0.1 between 200 and 600), the rough one 3000
(500 -> 2000).

The ``_CPU`` configs train on 2 CPU cores with PPO's CPU settings; the flat teacher on its own schedule (measured before
PPO's moved earlier; docs/measurements/cpu_profile.md), the rough teacher on rough PPO's.
"""

from isaaclab.utils import configclass

from locolab.algorithms.ppo_roa_cfg import RslRlRoaAlgorithmCfg, RslRlRoaEncoderCfg, RslRlRoaRunnerCfg

from locolab.runners.runner_cfg import ActionNoiseScheduleCfg, EntropyScheduleCfg, WalkingGateCfg

from .go2_ppo_cfg import (
    WALKING_GATE_EXTRA_ITERATIONS,
    ROUGH_GATE_MIN_SUCCESS,
    ROUGH_PPO_CPU_SCHEDULE,
    rough_walking_gate,
    LocoLabGo2FlatPPORunnerCfg,
    LocoLabGo2RoughPPORunnerCfg,
    PpoCpuCfg,
    use_cpu_schedule,
    use_rough_cpu_networks,
)


def roa_from_ppo(ppo, roa: RslRlRoaRunnerCfg, experiment_name: str,
                 max_iterations: int, reg_lambda_window: tuple[int, int]) -> None:
    """Fill ``roa`` from a PPO agent config ``ppo``: same models and PPO settings, ROA's observation sets."""
    roa.num_steps_per_env = ppo.num_steps_per_env
    roa.save_interval = ppo.save_interval
    roa.actor = ppo.actor
    roa.critic = ppo.critic
    ppo_settings = ppo.algorithm.to_dict()
    del ppo_settings["class_name"]
    roa.algorithm = RslRlRoaAlgorithmCfg(**ppo_settings, reg_lambda_max=0.1, reg_lambda_window=reg_lambda_window)
    roa.experiment_name = experiment_name
    roa.max_iterations = max_iterations


def use_finetune_phase(roa: RslRlRoaRunnerCfg, max_iterations: int) -> None:
    """Turn a train-phase ROA config into its finetune phase, logging under ``<experiment>_finetune``."""
    roa.algorithm.phase = "finetune"
    roa.experiment_name += "_finetune"
    roa.max_iterations = max_iterations


@configclass
class LocoLabGo2FlatRoaRunnerCfg(RslRlRoaRunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        roa_from_ppo(LocoLabGo2FlatPPORunnerCfg(), self, "locolab_go2_flat_roa", 1000, (200, 600))


@configclass
class LocoLabGo2FlatRoaFinetuneRunnerCfg(LocoLabGo2FlatRoaRunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        use_finetune_phase(self, max_iterations=300)


ROUGH_ENCODER_PRIV_DIMS = [256, 128]
"""The teacher's privileged encoder on rough terrain, where it reads the height scan (187 heights) beside the 42
privileged values: twice the flat encoder's width."""


@configclass
class LocoLabGo2RoughRoaRunnerCfg(RslRlRoaRunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        roa_from_ppo(LocoLabGo2RoughPPORunnerCfg(), self, "locolab_go2_rough_roa", 3000, (500, 2000))
        self.algorithm.encoder_priv = RslRlRoaEncoderCfg(hidden_dims=ROUGH_ENCODER_PRIV_DIMS)


@configclass
class LocoLabGo2RoughRoaFinetuneRunnerCfg(LocoLabGo2RoughRoaRunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        use_finetune_phase(self, max_iterations=1000)


ROA_TEACHER_CPU_SCHEDULE = {"desired_kl": 0.01, "entropy_off": (215, 216), "action_noise_window": (215, 450),
                            "action_noise_final": 0.1, "symmetry_until": 650, "max_iterations": 700}
"""The teacher's CPU schedule: the one PPO had when the teacher's recipe was measured."""
ROA_CPU_REG_LAMBDA_WINDOW = (200, 600)
ROA_FINETUNE_CPU = {"max_iterations": 300, "symmetry_until": 150, "learning_rate": 3.0e-4}
"""The student's CPU finetuning: 300 iterations at the teacher's last learning rate, no entropy bonus, the last 150
not mirrored."""


def use_cpu_finetune_phase(roa: RslRlRoaRunnerCfg) -> None:
    """A CPU teacher config turned into its student's finetuning (:data:`ROA_FINETUNE_CPU`)."""
    use_finetune_phase(roa, ROA_FINETUNE_CPU["max_iterations"])
    roa.algorithm.entropy_coef = 0.0
    roa.algorithm.schedule, roa.algorithm.learning_rate = "fixed", ROA_FINETUNE_CPU["learning_rate"]
    roa.entropy_schedule, roa.action_noise_schedule = EntropyScheduleCfg(), ActionNoiseScheduleCfg()
    roa.symmetry_until = ROA_FINETUNE_CPU["symmetry_until"]


@configclass
class LocoLabGo2FlatRoaRunnerCfg_CPU(PpoCpuCfg, LocoLabGo2FlatRoaRunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        use_cpu_schedule(self, ROA_TEACHER_CPU_SCHEDULE)
        self.algorithm.reg_lambda_window = ROA_CPU_REG_LAMBDA_WINDOW
        self.walking_gate = WalkingGateCfg(extra_iterations=WALKING_GATE_EXTRA_ITERATIONS)


@configclass
class LocoLabGo2FlatRoaFinetuneRunnerCfg_CPU(LocoLabGo2FlatRoaRunnerCfg_CPU):
    def __post_init__(self):
        super().__post_init__()
        use_cpu_finetune_phase(self)


ROUGH_ROA_TEACHER_CPU_SCHEDULE = dict(ROUGH_PPO_CPU_SCHEDULE)
"""The rough teacher on a CPU: rough PPO's schedule (KL target 0.02, 635 iterations), so the teacher and its blind
baseline learn alike. On the flat teacher's (KL 0.01, 700) the first rough teacher's terrain levels trailed PPO's
all run (1.96 against 3.06 at iteration 300; docs/measurements/rough_terrain.md, seventh session)."""
ROUGH_ROA_CPU_REG_LAMBDA_WINDOW = ROA_CPU_REG_LAMBDA_WINDOW
ROUGH_ROA_FINETUNE_ITERATIONS = 600
"""The rough student's finetuning: twice the flat one's, the last 300 not mirrored."""


@configclass
class LocoLabGo2RoughRoaRunnerCfg_CPU(PpoCpuCfg, LocoLabGo2RoughRoaRunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        use_cpu_schedule(self, ROUGH_ROA_TEACHER_CPU_SCHEDULE)
        use_rough_cpu_networks(self)
        self.algorithm.reg_lambda_window = ROUGH_ROA_CPU_REG_LAMBDA_WINDOW
        self.walking_gate = rough_walking_gate(ROUGH_GATE_MIN_SUCCESS["sighted"])  # the teacher reads the scan


@configclass
class LocoLabGo2RoughRoaFinetuneRunnerCfg_CPU(LocoLabGo2RoughRoaRunnerCfg_CPU):
    def __post_init__(self):
        super().__post_init__()
        use_cpu_finetune_phase(self)
        self.max_iterations = ROUGH_ROA_FINETUNE_ITERATIONS
        self.symmetry_until = ROUGH_ROA_FINETUNE_ITERATIONS // 2
        self.walking_gate = rough_walking_gate()
