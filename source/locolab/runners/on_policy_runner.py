"""rsl_rl's OnPolicyRunner with the guarantees a long training run needs.

Extends ``rsl_rl.runners.OnPolicyRunner``: its algorithm, storage, GAE, logger and checkpoint format are used as they
are; its learning loop is restated around LocoLab's one rollout routine (the same steps, in the same order). Added:
- checkpoints are written atomically (temporary file + rename), so a crash never leaves a truncated model, and a
  checkpoint that cannot be written (full disk, read-only folder) is reported in one line while the run goes on with
  the previous checkpoint intact, trying again at the next save interval (TensorBoard too:
  :class:`~.tolerant_writer.DiskTolerantWriter`);
- resume continues at the iteration after the checkpoint's, with optimizer, learning rate and normaliser state, and
  with the environment's curriculum progress (terrain levels, robustness level: saved with each checkpoint by
  :mod:`locolab.envs.curriculum_state`; rsl_rl and Isaac Lab restart curricula from zero);
- checkpoints record the environment they were trained on (observation sizes, action size, joint names), and a
  checkpoint that does not fit (other observation sizes, other robot, other network) is a clear error naming what
  differs;
- SIGINT/SIGTERM finish the current iteration (rollout and update) and then save ``model_<it>.pt`` before the
  process exits; a second signal stops at once;
- non-finite data never reaches training: environments that go NaN/Inf are reset by the environment
  (:mod:`locolab.envs.nonfinite_guard`) and counted here (``NonFinite/env_resets`` and per first bad term, a line on
  the first occurrence of each); an update that makes the policy non-finite is undone with a lower learning rate, at
  most ``nonfinite.max_restores`` times, then the run stops with the last good state saved
  (:mod:`~.nonfinite`);
- the entropy bonus can follow a schedule over iterations (``entropy_schedule``, :mod:`~.entropy_schedule`), and the
  action noise a falling ceiling with the learning rate held (``action_noise_schedule``,
  :mod:`~.action_noise_schedule`);
- mirrored minibatches (rsl_rl's symmetry augmentation) can stop at an iteration (``symmetry_until``): mirroring
  speeds the early gait, but a policy kept symmetric turned in place at half the commanded rate (measured in
  the _CPU agent configs); a mirror loss that is only logged is measured on a sample of each minibatch
  (:mod:`~.logged_mirror_loss`: rsl_rl spends a full actor forward on it);
- torch's thread count can differ between collection and the update (``threads``, :mod:`~.torch_threads`), and the
  update's matrix products can run in bfloat16 (``update_precision``, :mod:`~.update_precision`);
- an algorithm's ``log_scalars`` (e.g. PPO-ROA's lambda, phase and latent errors) go to TensorBoard each iteration;
- episode metrics (:mod:`locolab.envs.metrics`: tracking errors, falls, time-outs, every reward term) of the episodes
  that finished in each rollout go to TensorBoard as ``rollout/<metric>`` (those of the robots trained without
  observation noise, :mod:`locolab.envs.observation_noise`, also as ``rollout_noise_free/<metric>``), and every
  ``evaluation.interval`` iterations a deterministic evaluation on separate environments as ``eval/<metric>``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import torch
from torch.utils.tensorboard import SummaryWriter

from rsl_rl.runners import OnPolicyRunner
from rsl_rl.utils import check_nan

from locolab.distributed import Rank, check_same_parameters, join, this_rank
from locolab.envs.curriculum_state import load_vec_env_curriculum_state, vec_env_curriculum_state
from locolab.envs.observation_noise import noise_free_env_ids
from locolab.envs.metrics import EpisodeAccumulator
from locolab.runners.rollout import rollout

from .device_episode_logger import DeviceEpisodeLogger
from .checkpoints import AGENT_CFG_KEY, CheckpointError, read_checkpoint, save_atomically
from .action_noise_schedule import action_std_ceiling, cap_action_std, hold_learning_rate
from .entropy_schedule import scheduled_entropy
from .logged_mirror_loss import LoggedMirrorLoss
from .nonfinite import NonFiniteCounter, NonFiniteUpdateError, UpdateGuard
from .tolerant_writer import DiskTolerantWriter
from .torch_threads import torch_threads
from .update_precision import update_precision


class TrainingInterrupted(BaseException):
    """Raised out of ``learn`` after a SIGINT/SIGTERM, once the interrupted iteration's state is consistent, or at once
    on a second signal.

    Like ``KeyboardInterrupt`` it is not an ``Exception``: the second signal's raise lands wherever the main thread
    is, and libraries that wrap every ``Exception`` (Warp's kernel launch re-raises it as a RuntimeError) would turn
    the requested stop into a crash.
    """


class LocoLabOnPolicyRunner(OnPolicyRunner):
    """OnPolicyRunner with atomic checkpoints, exact resume and graceful interruption."""

    def __init__(self, env, train_cfg: dict, log_dir: str | None = None, device: str = "cpu") -> None:
        self.joins_ranks = log_dir is not None  # a runner that only loads a policy (play, eval) never joins torchrun
        super().__init__(env, train_cfg, log_dir, device)
        self.logger = DeviceEpisodeLogger.replacing(self.logger)
        if self.alg.symmetry is not None:
            self.alg.symmetry = LoggedMirrorLoss.replacing(self.alg.symmetry)

    def _configure_multi_gpu(self) -> None:
        """rsl_rl's torchrun set-up, with the backend following the device (gloo on CPUs, NCCL on GPUs) and each rank
        on the device train.py chose for it (:mod:`locolab.distributed`). A runner without a log directory (one
        that plays a checkpoint: the walking gate's plays inherit torchrun's variables) stays alone."""
        rank = this_rank() if getattr(self, "joins_ranks", True) else Rank()
        self.gpu_world_size, self.is_distributed = rank.world_size, rank.distributed
        self.gpu_local_rank, self.gpu_global_rank = rank.local_rank, rank.rank
        self.cfg["multi_gpu"] = ({"global_rank": rank.rank, "local_rank": rank.local_rank,
                                  "world_size": rank.world_size} if rank.distributed else None)
        join(rank, self.device)

    def _check_ranks_agree(self, it: int) -> None:
        """Under torchrun: every rank holds rank 0's parameters after the update (a RuntimeError otherwise)."""
        if self.is_distributed:
            modules = [value for value in vars(self.alg).values() if isinstance(value, torch.nn.Module)]
            check_same_parameters(modules, self.device, it)

    def save(self, path: str, infos: dict | None = None) -> bool:
        """Write a checkpoint atomically; False (and one line on stderr) when the file system refuses it."""
        saved = self.alg.save()
        saved["iter"] = self.current_learning_iteration
        saved["infos"] = infos
        saved["env"] = self.environment_signature()
        spec = getattr(getattr(self.env, "unwrapped", None), "spec", None)
        saved["task"] = spec.id if spec is not None else getattr(self.env, "task", None)
        if self.trained_cfg is not None:
            saved[AGENT_CFG_KEY] = self.trained_cfg
        if self.trains:
            saved["curriculum"] = vec_env_curriculum_state(self.env)
        try:
            save_atomically(saved, path)
        except OSError as error:
            print(f"[LocoLab] Could not write checkpoint {path} ({error.strerror or error}); the previous checkpoint "
                  "is kept and the run goes on (next try at the next save interval).", file=sys.stderr, flush=True)
            return False
        self.logger.save_model(path, self.current_learning_iteration)
        return True

    def environment_signature(self) -> dict:
        """What a policy depends on: observation sizes per group, action size and the robots' joint names."""
        observations = self.env.get_observations()
        signature = {
            "observations": {group: list(observations[group].shape[1:]) for group in observations.keys()},
            "num_actions": self.env.num_actions,
        }
        scene = getattr(getattr(self.env, "unwrapped", None), "scene", None)
        if scene is not None:
            signature["joint_names"] = {name: list(robot.joint_names) for name, robot in scene.articulations.items()}
        elif getattr(self.env, "robot_joint_names", None) is not None:  # simulation in other processes
            signature["joint_names"] = self.env.robot_joint_names
        return signature

    def load(self, path: str, load_cfg: dict | None = None, strict: bool = True, map_location: str | None = None):
        loaded = read_checkpoint(path, map_location=map_location or self.device)
        if "env" in loaded:
            differences = signature_differences(loaded["env"], self.environment_signature())
            if differences:
                raise CheckpointError(f"Checkpoint '{path}' was trained on another environment: {differences}.")
        try:
            load_iteration = self.alg.load(loaded, load_cfg, strict)
        except (RuntimeError, KeyError, ValueError) as error:
            reason = "; ".join(line.strip() for line in str(error).splitlines()[:3])
            raise CheckpointError(f"Checkpoint '{path}' does not fit this run: {reason}") from error
        if load_iteration:
            # the checkpoint holds the state after its iteration: continue with the next one
            self.current_learning_iteration = loaded["iter"] + 1
        if self.trains and "curriculum" in loaded:  # resume, or a student starting where its teacher's curricula are
            try:
                load_vec_env_curriculum_state(self.env, loaded["curriculum"])
            except ValueError as error:
                raise CheckpointError(f"Checkpoint '{path}': {error}") from error
        return loaded["infos"]

    trains = False
    """A training runner (set by :func:`~.build.build_runner` when it logs): checkpoints carry the curriculum
    progress and loading one restores it. Playback and evaluation runners leave their environment's curricula alone."""

    def training_state(self) -> dict:
        """Where training stands, as a resumed run starts from it: next iteration, learning rate, the acting model's
        observation-normaliser sample count, the curricula and the algorithm's own scalars (PPO-ROA's lambda, SAC's
        update count and temperature)."""
        normalizer = getattr(self.alg.get_policy(), "obs_normalizer", None)
        state = {"iteration": self.current_learning_iteration, "learning_rate": self.alg.learning_rate,
                 "normalizer_count": float(normalizer.count) if hasattr(normalizer, "count") else None}
        curriculum = vec_env_curriculum_state(self.env)
        state["curriculum"] = curriculum["terms"]
        if curriculum["terrain_levels"] is not None:
            state["mean_terrain_level"] = float(curriculum["terrain_levels"].float().mean())
        if hasattr(self.alg, "reg_lambda"):
            state["reg_lambda"] = self.alg.reg_lambda()
        if hasattr(self.alg, "alpha"):  # SAC
            state.update(updates=self.alg.updates, temperature=self.alg.alpha.item())
        return state

    evaluator = None
    """A :class:`~locolab.eval.periodic.PeriodicEvaluator`, or None: no periodic evaluation."""
    trained_cfg: dict | None = None
    """The agent config as the run started it (``to_dict``), written into every checkpoint (set by
    :func:`~.build.build_runner`): rsl_rl's algorithms consume parts of the dictionary they are built from."""

    def learn(self, num_learning_iterations: int, init_at_random_ep_len: bool = False) -> None:
        """rsl_rl's learning loop with its rollout done by :func:`locolab.runners.rollout.rollout` (episode metrics
        logged under ``rollout/``), periodic evaluation (``eval/``), and a graceful stop: on SIGINT/SIGTERM the
        current iteration is finished, logged and saved, then :class:`TrainingInterrupted` is raised.

        One iteration's collection and update are :meth:`_iterate`'s; what happens around them (non-finite restore,
        logging, evaluation, checkpoints, the stop) is shared with the off-policy runner."""
        if init_at_random_ep_len:
            self.env.episode_length_buf = torch.randint_like(self.env.episode_length_buf,
                                                             high=int(self.env.max_episode_length))
        self.alg.train_mode()
        if self.is_distributed:
            self.alg.broadcast_parameters()
        self.logger.init_logging_writer()
        if isinstance(self.logger.writer, SummaryWriter):
            self.logger.writer = DiskTolerantWriter(lambda: SummaryWriter(log_dir=self.logger.log_dir, flush_secs=10))
        kinds = getattr(self.env, "metric_kinds", None)  # None: an env without LocoLab's metrics (toy tasks)
        self.metrics = EpisodeAccumulator(kinds, self.env.num_envs, self.device) if kinds is not None else None
        noise_free = noise_free_env_ids(self.env) if kinds is not None else None
        start_it = self.current_learning_iteration
        self.guard = UpdateGuard(self.alg, self.cfg.get("nonfinite", {}))
        self.nonfinite = NonFiniteCounter()
        stop = _DeferredStop()
        with stop.installed(), self._collection():
            for it in range(start_it, start_it + num_learning_iterations):
                if stop.pending:
                    self._save_interrupted(it - 1, start_it)
                    raise TrainingInterrupted(f"{stop.pending} received")
                collect_time, learn_time, loss_dict = self._iterate(it)
                try:
                    restored = self.guard.after_update(loss_dict)
                except NonFiniteUpdateError as error:
                    self.current_learning_iteration = max(it - 1, 0)
                    path = Path(self.logger.log_dir or ".") / f"model_{self.current_learning_iteration}.pt"
                    if self.logger.writer is not None and self.save(str(path)):
                        error.add_note(f"the last good state is saved as {path}")
                    raise
                self.current_learning_iteration = it
                self._check_ranks_agree(it)
                if restored is not None:
                    print(f"[LocoLab] Iteration {it}: the update went non-finite ({restored}); restored the state "
                          f"before it and lowered the learning rate to {self.alg.learning_rate:.3g} (restore "
                          f"{self.guard.restores} of {self.guard.max_restores}).", flush=True)
                self.logger.log(it=it, start_it=start_it, total_it=start_it + num_learning_iterations,
                                collect_time=collect_time, learn_time=learn_time, loss_dict=loss_dict,
                                learning_rate=self.alg.learning_rate, action_std=self._action_std(),
                                rnd_weight=self.alg.rnd.weight if self.cfg["algorithm"].get("rnd_cfg") else None)
                self._log_algorithm_scalars(it)
                self._log_nonfinite(it, self.guard.restores)
                if self.metrics is not None:
                    self._log_metrics("rollout", self.metrics.summary(), it)
                    if noise_free is not None:
                        self._log_metrics("rollout_noise_free", self.metrics.summary(noise_free), it)
                    self.metrics.reset_totals()
                interval = self.cfg.get("evaluation", {}).get("interval", 0)
                if self.evaluator is not None and interval > 0 and it % interval == 0:
                    self.evaluate(it)
                if self.logger.writer is not None and it % self.cfg["save_interval"] == 0:
                    self.save(os.path.join(self.logger.log_dir, f"model_{it}.pt"))
            if self.logger.writer is not None:
                self.save(os.path.join(self.logger.log_dir, f"model_{self.current_learning_iteration}.pt"))
                self.logger.stop_logging_writer()

    @contextlib.contextmanager
    def _collection(self):
        """What collection needs for the length of ``learn``: here the observation the next rollout starts from."""
        self._obs = self.env.get_observations().to(self.device)
        yield

    def _iterate(self, it: int) -> tuple[float, float, dict]:
        """One PPO iteration: a rollout into rsl_rl's storage, GAE, the update (with the state before it kept by the
        non-finite guard). Returns the collection and learning seconds and the losses."""
        self._schedule_action_noise(it)
        self._schedule_symmetry(it)
        start = time.time()
        with torch.inference_mode(), self._threads("collection"):
            self._obs = rollout(self.env, self.alg.act, self.cfg["num_steps_per_env"], self._obs, self.metrics,
                                on_step=self._process_env_step, device=self.device)
        if self.cfg.get("check_for_nan", True):  # rsl_rl's check, once a rollout: each `any` is a GPU sync
            self._check_rollout_finite()
        collect_time = time.time() - start
        start = time.time()
        with self._threads("learning"):
            with torch.inference_mode():
                self.alg.compute_returns(self._obs)
            self._schedule_entropy(it)
            self.guard.before_update()
            with update_precision(self.cfg.get("update_precision", "float32"), self.device):
                loss_dict = self.alg.update()
        return collect_time, time.time() - start, loss_dict

    def _check_rollout_finite(self) -> None:
        """rsl_rl's NaN check (a ValueError naming the group) over the stored rollout and the observation GAE
        bootstraps from: a safety net behind the environment's non-finite guard, run once a rollout."""
        storage = self.alg.storage
        check_nan(storage.observations, storage.rewards, storage.dones)
        check_nan(self._obs, storage.rewards[-1], storage.dones[-1])

    def _threads(self, phase: str) -> contextlib.AbstractContextManager:
        """Torch's thread count for one phase of an iteration (``collection`` or ``learning``) from ``threads``."""
        return torch_threads((self.cfg.get("threads") or {}).get(phase, 0))

    def _action_std(self) -> torch.Tensor:
        return self.alg.get_policy().output_std

    def evaluate(self, it: int) -> dict[str, float]:
        """One periodic evaluation of the acting policy's mean action; logged under ``eval/``, with its seconds."""
        start = time.time()
        self.alg.eval_mode()
        try:
            summary = self.evaluator.evaluate(self.alg.get_policy(), self.alg)
        finally:
            self.alg.train_mode()
        summary["seconds"] = time.time() - start
        self._log_metrics("eval", summary, it)
        return summary

    def _process_env_step(self, obs, rewards, dones, extras) -> None:
        """What rsl_rl's loop does with each transition: storage, logger bookkeeping (its NaN check runs once a
        rollout, :meth:`_check_rollout_finite`)."""
        self.nonfinite.add(extras.get("nonfinite"))
        self.alg.process_env_step(obs, rewards, dones, extras)
        intrinsic = self.alg.intrinsic_rewards if self.cfg["algorithm"].get("rnd_cfg") else None
        self.logger.process_env_step(rewards, dones, extras, intrinsic)

    def _save_interrupted(self, it: int, start_it: int) -> None:
        if self.logger.writer is not None and it >= start_it:
            path = Path(self.logger.log_dir) / f"model_{it}.pt"
            saved = self.save(str(path))
            self.logger.stop_logging_writer()
            print(f"[LocoLab] Interrupted: {'saved' if saved else 'could not save'} {path}")

    def _log_metrics(self, prefix: str, summary: dict[str, float], it: int) -> None:
        if self.logger.writer is not None:
            for name, value in summary.items():
                self.logger.writer.add_scalar(f"{prefix}/{name}", value, it)

    def _schedule_entropy(self, it: int) -> None:
        """Set the algorithm's entropy bonus for iteration ``it`` (``entropy_schedule``) and log it."""
        schedule = self.cfg.get("entropy_schedule") or {}
        if schedule.get("end", 0) > schedule.get("start", 0):
            self.alg.entropy_coef = scheduled_entropy(it, self.cfg["algorithm"]["entropy_coef"], **schedule)
        if self.logger.writer is not None:
            self.logger.writer.add_scalar("Loss/entropy_coef", self.alg.entropy_coef, it)

    def _schedule_action_noise(self, it: int) -> None:
        """Cap the acting policy's noise for iteration ``it`` and hold the learning rate (``action_noise_schedule``);
        the ceiling is logged as ``Policy/action_std_ceiling``."""
        schedule = self.cfg.get("action_noise_schedule")
        if not schedule:
            return
        ceiling = action_std_ceiling(it, schedule["start"], schedule["end"], schedule["initial"], schedule["final"])
        if ceiling is None:
            return
        cap_action_std(self.alg.get_policy(), ceiling)
        hold_learning_rate(self.alg, schedule["learning_rate"])
        if self.logger.writer is not None:
            self.logger.writer.add_scalar("Policy/action_std_ceiling", ceiling, it)

    def _schedule_symmetry(self, it: int) -> None:
        """Stop mirroring minibatches from iteration ``symmetry_until`` on (also when a resume starts past it)."""
        until = self.cfg.get("symmetry_until", 0)
        if until and it >= until and self.alg.symmetry is not None:
            self.alg.symmetry = None
            print(f"[LocoLab] Iteration {it}: minibatches are no longer mirrored (symmetry_until={until}).", flush=True)

    def _log_nonfinite(self, it: int, restores: int) -> None:
        counts, new = self.nonfinite.take()
        for source in new:
            print(f"[LocoLab] Iteration {it}: environments went non-finite (first bad term: {source}); they were reset "
                  "and kept out of training (counted under NonFinite/ in TensorBoard).", flush=True)
        if self.logger.writer is not None:
            self.logger.writer.add_scalar("NonFinite/env_resets", sum(counts.values()), it)
            self.logger.writer.add_scalar("NonFinite/update_restores", restores, it)
            for source, count in counts.items():
                self.logger.writer.add_scalar(f"NonFinite/{source}", count, it)

    def _log_algorithm_scalars(self, iteration: int) -> None:
        if self.logger.writer is not None:
            for tag, value in getattr(self.alg, "log_scalars", {}).items():
                self.logger.writer.add_scalar(tag, value, iteration)


def signature_differences(saved: dict, current: dict) -> str:
    """What differs between two environment signatures, in words ("" when they match)."""
    differences = []
    saved_obs, current_obs = saved["observations"], current["observations"]
    for group in sorted(saved_obs.keys() & current_obs.keys()):
        if saved_obs[group] != current_obs[group]:
            differences.append(f"observation '{group}' has shape {saved_obs[group]} in the checkpoint, "
                               f"{current_obs[group]} here")
    if saved["num_actions"] != current["num_actions"]:
        differences.append(f"{saved['num_actions']} actions in the checkpoint, {current['num_actions']} here")
    saved_joints, current_joints = saved.get("joint_names", {}), current.get("joint_names", {})
    for robot in sorted(saved_joints.keys() & current_joints.keys()):
        if saved_joints[robot] != current_joints[robot]:
            differences.append(f"robot '{robot}' has joints {saved_joints[robot]} in the checkpoint, "
                               f"{current_joints[robot]} here")
    return "; ".join(differences)


class _DeferredStop:
    """Records SIGINT/SIGTERM for the runner to stop at the end of the current iteration; a second signal stops at once.

    The first signal only sets :attr:`pending`: an exception raised from a signal handler lands wherever the main
    thread happens to be, mid-iteration, with nothing saved. The second raises :class:`TrainingInterrupted` there,
    which is a ``BaseException`` so that no library's ``except Exception`` turns it into a crash.
    """

    def __init__(self) -> None:
        self.pending: str | None = None
        """Name of the signal received, if any."""

    def _handler(self, signum: int, frame) -> None:
        name = signal.Signals(signum).name
        if self.pending:
            raise TrainingInterrupted(f"{name} received twice")
        self.pending = name
        print(f"[LocoLab] {name}: finishing this iteration, then saving (send it again to stop at once)", flush=True)

    @contextlib.contextmanager
    def installed(self):
        previous = {sig: signal.signal(sig, self._handler) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
