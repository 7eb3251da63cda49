"""The settings of LocoLab's runner features, in one leaf module that the runner configs of every agent (PPO, recurrent
PPO, PPO-ROA, SAC) import: it imports nothing from LocoLab, so a config never pulls in the code that runs it.

Each configclass names the module that reads it. :class:`LocoLabRunnerExtrasCfg` gathers them for the on-policy
runner configs, which inherit it beside Isaac Lab's ``RslRlOnPolicyRunnerCfg``.
"""

from __future__ import annotations

from isaaclab.utils import configclass


@configclass
class PeriodicEvalCfg:
    """Evaluation every ``interval`` iterations (0: never) of ``num_envs`` first episodes under a fixed seed.
    Read by :mod:`locolab.eval.periodic`."""

    interval: int = 50
    """Iterations between evaluations; 0 switches evaluation off (the CPU profile's default, see its docstring)."""
    num_envs: int = 32
    seconds: float | None = None
    """Length of each evaluation episode; None: the task's (20 s). Shorter evaluations cost less and still measure
    tracking, but see fewer falls."""
    seed: int = 20261123
    """Reset seed of every evaluation: each one sees the same commands, dynamics and initial states."""


@configclass
class NonFiniteCfg:
    """What the runner does when an update makes the policy non-finite. Read by :mod:`locolab.runners.nonfinite`."""

    max_restores: int = 3
    """Restores of the last good state per run; one more non-finite update stops the run (after saving that state)."""
    learning_rate_factor: float = 0.5
    """Each restore multiplies every optimizer's learning rate by this (an adaptive schedule may raise it again)."""


@configclass
class EntropyScheduleCfg:
    """``algorithm.entropy_coef`` until iteration ``start``, then linearly to ``final`` at ``end``; ``end`` <= ``start``
    (the default, 0 and 0) keeps it constant. Read by :mod:`locolab.runners.entropy_schedule`."""

    start: int = 0
    end: int = 0
    final: float = 0.0


@configclass
class ActionNoiseScheduleCfg:
    """From iteration ``start`` the action noise's ceiling falls linearly from ``initial`` to ``final`` at ``end``
    (and stays there), and the learning rate is fixed at ``learning_rate``. ``end`` <= ``start`` (the default) leaves
    the noise and the learning-rate schedule to rsl_rl. Read by :mod:`locolab.runners.action_noise_schedule`."""

    start: int = 0
    end: int = 0
    initial: float = 1.0
    """Ceiling at ``start`` (rsl_rl's initial noise: no limit until the noise's own fall slows down)."""
    final: float = 0.1
    learning_rate: float = 3.0e-4


@configclass
class TorchThreadsCfg:
    """Torch threads of the trainer's process; 0 keeps torch's default (one per core).
    Read by :mod:`locolab.runners.torch_threads`."""

    collection: int = 0
    """While the rollout steps the environments and the policy acts."""
    learning: int = 0
    """While the algorithm updates (returns, PPO epochs)."""


@configclass
class WalkingGateCfg:
    """Train past ``max_iterations`` until the final checkpoint passes the walking checks.
    Read by :mod:`locolab.runners.walking_gate`."""

    extra_iterations: int = 0
    """At most this many iterations beyond the planned ones; 0: no gate (training stops after the planned ones)."""
    chunk: int = 50
    """Iterations between two checks once the planned iterations are done."""
    play_seed: int = 1
    """Seed of the gate's plays: not play.py's default 0, with which the README's checks are made."""
    play_seconds: float = 20.0
    """Length of each of the gate's plays: the walking checks' 20 s. Shorter judges less of a gait; the tests shorten
    it to see the gate's sequence in minutes (a play of 16 robots for 20 s takes about 150 s on a CPU)."""
    terrain_tiles: tuple = ()
    """Rough terrain: ``(type, value)`` tiles of the terrain sweep (:mod:`locolab.eval.terrain_sweep`) the checkpoint
    must also cross; with any, the walking checks play on flat ground. Empty: the walking checks alone."""
    terrain_min_success: float = 0.9
    """Share of a tile's robots that must cross it."""


@configclass
class LocoLabRunnerExtrasCfg:
    """What LocoLab's on-policy runner (:mod:`locolab.runners.on_policy_runner`) reads beyond rsl_rl's runner config."""

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
