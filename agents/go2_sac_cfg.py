"""SAC agents for the Go2 velocity tasks (``--agent sac``): the same observation sets as PPO (blind actor on
``policy``, asymmetric critic on ``critic``), so the two compare like with like.

GPU defaults follow massively parallel off-policy practice (thousands of environments, a few steps of each per
iteration, large minibatches, a million-transition buffer on the device); the CPU sizes are the CPU profile's
(:class:`locolab.cpu_profile.SacCpuProfileCfg`).
"""

from isaaclab.utils import configclass

from locolab.algorithms.sac_cfg import SacRunnerCfg


@configclass
class LocoLabGo2FlatSacRunnerCfg(SacRunnerCfg):
    max_iterations: int = 3000
    experiment_name: str = "locolab_go2_flat_sac"


@configclass
class LocoLabGo2RoughSacRunnerCfg(SacRunnerCfg):
    max_iterations: int = 10000
    experiment_name: str = "locolab_go2_rough_sac"
