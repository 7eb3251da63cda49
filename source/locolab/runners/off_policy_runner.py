"""The off-policy runner: SAC trained from a replay buffer fed by a synchronous or an asynchronous collector.

Extends :class:`~.on_policy_runner.LocoLabOnPolicyRunner`, whose guarantees it keeps as they are (atomic
checkpoints that record the environment and its curricula, exact resume, SIGINT/SIGTERM saving, the non-finite
guard, periodic evaluation, episode metrics under ``rollout/``, rsl_rl's logger and so PPO's metric names:
``Train/mean_reward``, ``Loss/value_function`` (the critics' loss), ``Loss/surrogate`` (the actor's), ``Perf/*``).
What differs is one iteration (:meth:`_iterate`): take a chunk of ``num_steps_per_env`` steps from the collector,
turn it into n-step transitions in the replay buffer (with their left-right mirror images when the algorithm's
``symmetry_augmentation`` is on), run ``num_updates`` SAC gradient steps on sampled minibatches
(once the buffer holds ``learning_starts`` transitions) and publish the new actor weights to the collector. The
entropy target follows ``entropy_schedule`` over iterations (:mod:`~.entropy_schedule`, PPO's bonus schedule).

The synchronous collector steps and updates in turn, each phase on its ``threads`` count (as the on-policy
runner). On a CPU the asynchronous collector's simulation processes run while the learner updates, so the learner
keeps to one torch thread and ``threads`` does not apply: two threads competing with the simulation for 2 cores
made a SAC update 3.5-9x slower (36 vs 4 ms on a small network, 752 vs 216 ms at the CPU profile's former 2048
batch).

The replay buffer is not part of a checkpoint (it is large and refills in a few iterations): a resumed run collects
``learning_starts`` transitions with the resumed actor before its first update.
"""

from __future__ import annotations

import contextlib
import time

import torch

from locolab.algorithms.sac import SAC
from locolab.envs.symmetry import mirror_maps, mirror_transitions
from locolab.offpolicy.collectors import COLLECTORS, AsyncCollector, Chunk
from locolab.offpolicy.nstep import NStepWindow
from locolab.offpolicy.replay_buffer import ReplayBuffer

from .device_episode_logger import DeviceEpisodeLogger
from .entropy_schedule import scheduled_entropy
from .on_policy_runner import LocoLabOnPolicyRunner


class OffPolicyRunner(LocoLabOnPolicyRunner):
    """SAC with a replay buffer and a ``sync`` or ``async`` collector (``cfg["collector"]``)."""

    alg: SAC

    def __init__(self, env, train_cfg: dict, log_dir: str | None = None, device: str = "cpu") -> None:
        self.env = env
        self.cfg = train_cfg
        self.device = device
        self.joins_ranks = log_dir is not None
        self._configure_multi_gpu()  # under torchrun: SAC averages its gradients over the ranks itself
        alg_cfg = train_cfg["algorithm"]
        self.alg = SAC.from_config(env.get_observations(), env.num_actions, train_cfg, device)
        self.buffer = ReplayBuffer(alg_cfg["buffer_size"], device)
        self.logger = DeviceEpisodeLogger(log_dir=log_dir, cfg=train_cfg, env_cfg=env.cfg, num_envs=env.num_envs,
                                          is_distributed=self.is_distributed, gpu_world_size=self.gpu_world_size,
                                          gpu_global_rank=self.gpu_global_rank, device=device)
        self.current_learning_iteration = 0
        self.collector = None

    def save(self, path: str, infos: dict | None = None) -> bool:
        """The runner's checkpoint, with the environment to itself while its curriculum state is read."""
        with self.collector.paused() if self.collector is not None else contextlib.nullcontext():
            return super().save(path, infos)

    @contextlib.contextmanager
    def _collection(self):
        """The collector and the n-step window for the length of ``learn``; the collector is closed on the way out."""
        collector_class = COLLECTORS[self.cfg["collector"]]
        options = {}
        if collector_class is AsyncCollector:
            options["queue_size"] = self.cfg["async_queue_size"]
            if str(self.device) == "cpu":
                torch.set_num_threads(1)
        self.collector = collector_class(self.env, self.alg.actor, self.cfg["num_steps_per_env"], self.device,
                                         **options)
        self.window = NStepWindow(self.cfg["algorithm"]["n_step"], self.cfg["algorithm"]["gamma"])
        try:
            yield
        finally:
            self.collector.close()
            self.collector = None

    def _iterate(self, it: int) -> tuple[float, float, dict]:
        start = time.time()
        with self._threads("collection"):
            chunk = self.collector.collect()
        collect_time = time.time() - start
        start = time.time()
        with self._threads("learning"):
            self._account(chunk)
            self.alg.update_normalization(chunk.steps["obs"].reshape(-1))
            transitions = self.window.add(chunk.steps)
            if transitions is not None:
                transitions = transitions.reshape(-1)
                if self.cfg["algorithm"].get("symmetry_augmentation", False):
                    transitions = torch.cat([transitions, mirror_transitions(mirror_maps(self.env), transitions)])
                self.buffer.extend(transitions)
            self._schedule_entropy(it)
            self.guard.before_update()
            loss_dict = self._update()
        self.collector.publish(self.alg.actor, it + 1)
        return collect_time, time.time() - start, loss_dict

    def _schedule_entropy(self, it: int) -> None:
        """Set SAC's entropy target for iteration ``it`` (``entropy_schedule``) and log it as ``SAC/target_entropy``."""
        schedule = self.cfg.get("entropy_schedule") or {}
        if schedule.get("end", 0) > schedule.get("start", 0):
            self.alg.target_entropy = scheduled_entropy(it, self.alg.initial_target_entropy, **schedule)
        if self.logger.writer is not None:
            self.logger.writer.add_scalar("SAC/target_entropy", self.alg.target_entropy, it)

    def _threads(self, phase: str) -> contextlib.AbstractContextManager:
        """The asynchronous collector steps while the learner updates: one thread throughout (module docstring)."""
        if isinstance(self.collector, AsyncCollector):
            return contextlib.nullcontext()
        return super()._threads(phase)

    def _update(self) -> dict[str, float]:
        """``num_updates`` SAC steps on sampled minibatches, their losses averaged (none before ``learning_starts``)."""
        alg_cfg = self.cfg["algorithm"]
        if self.buffer.size < alg_cfg["learning_starts"]:
            return {}
        totals: dict[str, float] = {}
        for _ in range(alg_cfg["num_updates"]):
            for name, value in self.alg.update(self.buffer.sample(alg_cfg["batch_size"])).items():
                totals[name] = totals.get(name, 0.0) + value
        return {name: total / alg_cfg["num_updates"] for name, total in totals.items()}

    def _account(self, chunk: Chunk) -> None:
        """Episode bookkeeping of every collected step, in the learner's thread: rsl_rl's logger, the episode
        metrics and the non-finite counts."""
        steps = chunk.steps
        dones = (steps["terminated"] | steps["time_out"]).float()
        for t, extras in enumerate(chunk.extras):
            self.nonfinite.add(extras.get("nonfinite"))
            self.logger.process_env_step(steps["reward"][t], dones[t], extras)
            if self.metrics is not None and "metrics" in steps.keys():
                self.metrics.add(steps["reward"][t], dones[t], steps["metrics"][t])

    def _action_std(self) -> torch.Tensor:
        return self.alg.action_std

    def _log_algorithm_scalars(self, iteration: int) -> None:
        """SAC's scalars and the transitions added to the replay buffer so far (``SAC/buffer_transitions``)."""
        super()._log_algorithm_scalars(iteration)
        if self.logger.writer is not None:
            self.logger.writer.add_scalar("SAC/buffer_transitions", self.buffer.added, iteration)
