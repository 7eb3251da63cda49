"""Recurrent PPO agents for the Go2 velocity tasks (``--agent ppo_rnn``): a GRU actor on ``policy``.

The same runner, PPO settings and asymmetric MLP critic as the task's PPO agent (:mod:`.go2_ppo_cfg`); the actor is
rsl_rl's ``RNNModel``: the normalised ``policy`` observation goes through a recurrent layer (its hidden state is the
policy's memory, in place of ROA's history window), then an MLP. rsl_rl keeps the hidden states during the rollout,
resets them at dones and trains on whole sequences (padded trajectories per minibatch). An LSTM is one override away:
``agent.actor.rnn_type=lstm``.
"""

from isaaclab.utils import configclass
from isaaclab_rl.rsl_rl import RslRlRNNModelCfg

from .go2_ppo_cfg import (
    LocoLabGo2FlatPPORunnerCfg,
    LocoLabGo2FlatPPORunnerCfg_CPU,
    LocoLabGo2RoughPPORunnerCfg,
    LocoLabGo2RoughPPORunnerCfg_CPU,
)

RNN_HIDDEN_DIM = 128
"""Size of the recurrent state (per layer; an LSTM has a cell state of the same size)."""


def use_recurrent_actor(cfg, experiment_name: str) -> None:
    """Replace the MLP actor of a PPO runner config by a GRU + MLP actor with the same head and action noise."""
    mlp = {name: getattr(cfg.actor, name) for name in cfg.actor.to_dict() if name != "class_name"}
    cfg.actor = RslRlRNNModelCfg(**mlp, rnn_type="gru", rnn_hidden_dim=RNN_HIDDEN_DIM, rnn_num_layers=1)
    cfg.experiment_name = experiment_name


@configclass
class LocoLabGo2FlatPPORnnRunnerCfg(LocoLabGo2FlatPPORunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        use_recurrent_actor(self, "locolab_go2_flat_rnn")


@configclass
class LocoLabGo2RoughPPORnnRunnerCfg(LocoLabGo2RoughPPORunnerCfg):
    def __post_init__(self):
        super().__post_init__()
        use_recurrent_actor(self, "locolab_go2_rough_rnn")


@configclass
class LocoLabGo2FlatPPORnnRunnerCfg_CPU(LocoLabGo2FlatPPORunnerCfg_CPU):
    """PPO's CPU settings with the GRU actor, without mirrored minibatches (rsl_rl mirrors no recurrent policy)."""

    def __post_init__(self):
        super().__post_init__()
        use_recurrent_actor(self, "locolab_go2_flat_rnn")
        self.algorithm.symmetry_cfg = None


@configclass
class LocoLabGo2RoughPPORnnRunnerCfg_CPU(LocoLabGo2RoughPPORunnerCfg_CPU):
    def __post_init__(self):
        super().__post_init__()
        use_recurrent_actor(self, "locolab_go2_rough_rnn")
        self.algorithm.symmetry_cfg = None
