"""Isaac Lab configclasses for SAC (:class:`locolab.algorithms.sac.SAC`) and its off-policy runner, in the style of
isaaclab_rl's rsl_rl configs: the runner fields LocoLab's scripts read (seed, device, experiment, intervals,
observation sets) keep their rsl_rl names."""

from __future__ import annotations

from dataclasses import MISSING
from typing import Literal

from isaaclab.utils import configclass

from locolab.runners.runner_cfg import (
    EntropyScheduleCfg,
    NonFiniteCfg,
    PeriodicEvalCfg,
    TorchThreadsCfg,
    WalkingGateCfg,
)


@configclass
class SacActorCfg:
    """The tanh-squashed Gaussian actor: an rsl_rl ``MLPModel`` on the ``actor`` observation set."""

    hidden_dims: list[int] = [256, 256, 128]
    activation: str = "elu"
    obs_normalization: bool = True
    init_std: float = 0.3
    """Initial standard deviation before the squash. With 1.0 (3 action units after the bound) the CPU run's robots
    fell within 2 s in 99.8 % of episodes after 136 iterations (0.56 M samples); with 0.3 (and ``init_alpha`` 0.001)
    episodes were 3x longer by iteration 161: the noise's joint jerks and the penalties they earn made falling early
    look cheap to the critic."""
    init_mean_std: float | None = 1e-3
    """Standard deviation of the mean head's initial weights (biases 0; None: PyTorch's default initialisation),
    so the untrained actor's mean action is the default pose in every state, as RSL-RL-SAC and FastSAC start their
    actors. Measured on 128 random observations (actor 256-128, bound 3): with PyTorch's initialisation the mean actions
    had a standard deviation of 0.45 action units and reached 1.7 (0.42 rad), more than the initial noise; with 1e-3,
    0.009 and 0.03."""
    action_bound: float = 3.0
    """Actions are ``action_bound * tanh(u)``. The Go2 task scales actions by 0.25 rad around the default pose, so
    3.0 allows 0.75 rad, about the range PPO's actions cover; a much wider bound spends exploration on joint
    positions a gait never uses."""
    action_bounds: list[list[float]] | None = None
    """``[low, high]`` of each action in the policy's joint order (``policy.json``), replacing ``action_bound``: the
    range a walking policy's actions cover, e.g. the 2.5th and 97.5th percentiles that ``play.py`` reports as
    ``action_percentiles`` for a PPO checkpoint (the bounds A. Raffin's SAC-on-Isaac-Lab study took from PPO). The
    untrained actor's mean action is then each range's centre."""


@configclass
class SacCriticCfg:
    """The twin Q-functions on the ``critic`` observation set (privileged terms included) and the action."""

    hidden_dims: list[int] = [512, 256, 128]
    activation: str = "elu"
    obs_normalization: bool = True
    layer_norm: bool = False
    """A LayerNorm after each hidden layer (:func:`locolab.models.q_function.q_network`)."""


@configclass
class SacAlgorithmCfg:
    class_name: str = "locolab.algorithms.sac:SAC"
    gamma: float = 0.99
    tau: float = 0.01
    """Soft target update rate per gradient step."""
    n_step: int = 3
    """Steps of reward summed before bootstrapping (terminations and time-outs cut it short)."""
    batch_size: int = 8192
    num_updates: int = 8
    """Gradient steps per iteration (an iteration collects ``num_steps_per_env`` steps of every environment)."""
    buffer_size: int = 1_000_000
    learning_starts: int = 32768
    """Transitions in the buffer before the first update; until then the untrained actor's noise explores."""
    actor_learning_rate: float = 3e-4
    critic_learning_rate: float = 3e-4
    alpha_learning_rate: float = 3e-4
    init_alpha: float = 0.001
    """Initial entropy temperature; Isaac Lab's rewards are per-step rates times the 20 ms step (about 0.05 a step),
    so returns are small and a temperature of 1 would drown them. At 0.01 the entropy bonus (about 0.045 a step at
    the initial noise) matched the rewards, and at a learning rate of 3e-4 the temperature took thousands of updates
    to fall; at 0.001 it is a tenth of them."""
    target_entropy: float | None = None
    """Entropy the temperature steers toward; None: minus the number of actions, SAC's usual target for actions in
    [-1, 1]. The entropy grows by log(bound) per action, so with the bound of 3 that target holds far less noise
    (a pre-squash standard deviation near 0.03): the CPU profile sets 10
    (``agents/go2_sac_cfg.py``: ``SacCpuCfg``)."""
    max_grad_norm: float = 10.0
    mean_penalty: float = 0.0
    """Weight of the squared pre-squash mean action in the actor's loss (rlkit's ``policy_mean_reg_weight``): keeps
    the mean off the flat ends of the tanh, where the critic's gradient vanishes. Measured on the standing SAC
    policies of three CPU runs (entropy targets -12, -6 and 0): 38-52 % of their mean joint actions lay beyond 0.9 of
    the bound, and the entropy the temperature holds then needs ever wider noise (the pre-squash std rose from 0.1 to
    0.3-0.37). With 0.01 (entropy target 0): 15 % at iteration 600, 24 % at 1036, and the robot still stood. Off in
    the GPU defaults; the CPU profile sets 0.1 beside its falling entropy target
    (``agents/go2_sac_cfg.py``: ``SacCpuCfg``)."""
    mean_penalty_free: float = 0.0
    """Pre-squash mean magnitude the penalty leaves free: it squares only the excess, ``max(|u| - free, 0)``. At 0
    (the default) every mean is pulled toward the default pose; above 0 only the means heading for the tanh's flat
    ends are (tanh(1) = 0.76 of the bound, tanh(1.5) = 0.91), and a gait may use the joints' middle range
    unpenalised."""
    symmetry_augmentation: bool = False
    """Add every transition's left-right mirror image to the replay buffer too (:func:`locolab.envs.symmetry.
    mirror_transitions`): twice the transitions per simulated step, for the price of a copy, like PPO's mirrored
    minibatches."""


@configclass
class SacRunnerCfg:
    """The off-policy runner (:class:`locolab.runners.off_policy_runner.OffPolicyRunner`)."""

    seed: int = 42
    device: str = "cuda:0"
    num_steps_per_env: int = 8
    """Steps of every environment collected per iteration."""
    max_iterations: int = MISSING
    save_interval: int = 100
    experiment_name: str = MISSING
    run_name: str = ""
    logger: str = "tensorboard"
    obs_groups: dict[str, list[str]] = {"actor": ["policy"], "critic": ["critic"]}
    clip_actions: float | None = None
    init_at_random_ep_len: bool = True
    collector: Literal["sync", "async"] = "sync"
    """``sync``: collect, then update. ``async``: a background thread collects while the learner updates (CPU only:
    see :mod:`locolab.offpolicy.collectors`)."""
    async_queue_size: int = 2
    """Chunks the asynchronous collector may run ahead of the learner."""
    entropy_schedule: EntropyScheduleCfg = EntropyScheduleCfg()
    """For SAC the schedule moves the entropy target (``algorithm.target_entropy`` until ``start``, then linearly to
    ``final`` at ``end``), as PPO's moves its entropy bonus: wide exploration while a gait is found, then a narrower
    policy whose mean action is the gait."""
    algorithm: SacAlgorithmCfg = SacAlgorithmCfg()
    actor: SacActorCfg = SacActorCfg()
    critic: SacCriticCfg = SacCriticCfg()
    evaluation: PeriodicEvalCfg = PeriodicEvalCfg()
    nonfinite: NonFiniteCfg = NonFiniteCfg()
    threads: TorchThreadsCfg = TorchThreadsCfg()
    walking_gate: WalkingGateCfg = WalkingGateCfg()
    """Training past ``max_iterations`` until the final checkpoint walks (PPO's gate,
    :mod:`locolab.runners.walking_gate`); off unless set."""


def check_sac_cfg(cfg: SacRunnerCfg) -> None:
    """Settings that cannot train, as a ValueError naming the setting and the fix."""
    alg = cfg.algorithm
    for name in ("batch_size", "num_updates", "buffer_size", "n_step"):
        if getattr(alg, name) < 1:
            raise ValueError(f"agent.algorithm.{name} must be at least 1, got {getattr(alg, name)}.")
    if alg.batch_size > alg.buffer_size:
        raise ValueError(f"agent.algorithm.batch_size ({alg.batch_size}) is larger than the replay buffer "
                         f"(agent.algorithm.buffer_size={alg.buffer_size}): raise the buffer or lower the batch.")
    if alg.learning_starts > alg.buffer_size:
        raise ValueError(f"agent.algorithm.learning_starts ({alg.learning_starts}) exceeds the replay buffer "
                         f"(agent.algorithm.buffer_size={alg.buffer_size}): updates would never start.")
    if not 0.0 < alg.tau <= 1.0 or not 0.0 < alg.gamma <= 1.0:
        raise ValueError(f"agent.algorithm.tau and gamma must lie in (0, 1], got tau={alg.tau}, gamma={alg.gamma}.")
    if cfg.actor.action_bounds is not None:
        from locolab.models.squashed_gaussian import bounds_tensors

        try:
            bounds_tensors(len(cfg.actor.action_bounds), cfg.actor.action_bound, cfg.actor.action_bounds)
        except (TypeError, ValueError) as error:
            raise ValueError(f"agent.actor.{error}") from None  # the count is checked when the actor is built
    if cfg.collector not in ("sync", "async"):
        raise ValueError(f"--collector must be sync or async, got '{cfg.collector}'.")
    if cfg.collector == "async" and cfg.device != "cpu":
        raise ValueError("--collector async runs on a CPU (it fills the core the single-threaded simulation leaves "
                         f"idle); on {cfg.device} use --collector sync.")
