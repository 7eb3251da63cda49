"""What LocoLab's on-policy runner (:mod:`.on_policy_runner`) reads beyond rsl_rl's runner config: one configclass
that the PPO, recurrent PPO and PPO-ROA runner configs inherit beside their Isaac Lab base."""

from isaaclab.utils import configclass

from locolab.eval.periodic import PeriodicEvalCfg

from .action_noise_schedule import ActionNoiseScheduleCfg
from .entropy_schedule import EntropyScheduleCfg
from .nonfinite import NonFiniteCfg
from .torch_threads import TorchThreadsCfg
from .walking_gate import WalkingGateCfg


@configclass
class LocoLabRunnerExtrasCfg:
    evaluation: PeriodicEvalCfg = PeriodicEvalCfg()
    nonfinite: NonFiniteCfg = NonFiniteCfg()
    entropy_schedule: EntropyScheduleCfg = EntropyScheduleCfg()
    action_noise_schedule: ActionNoiseScheduleCfg = ActionNoiseScheduleCfg()
    symmetry_until: int = 0
    """From this iteration on, minibatches are no longer mirrored (``algorithm.symmetry_cfg``); 0: never stop."""
    threads: TorchThreadsCfg = TorchThreadsCfg()
    update_precision: str = "float32"
    """Number format of the update's matrix products: ``float32`` or ``bfloat16`` (:mod:`.update_precision`)."""
    walking_gate: WalkingGateCfg = WalkingGateCfg()
    """Training past ``max_iterations`` until the final checkpoint walks (:mod:`.walking_gate`); off unless set."""
