"""rsl_rl's OnPolicyRunner with the guarantees a long training run needs.

Extends ``rsl_rl.runners.OnPolicyRunner`` rather than replacing it: rollout, GAE and PPO are untouched. Added:
- checkpoints are written atomically (temporary file + rename), so a crash never leaves a truncated model;
- resume continues at the iteration after the checkpoint's, with optimizer and normaliser state;
- checkpoints record the environment they were trained on (observation sizes, action size, joint names), and a
  checkpoint that does not fit (other observation sizes, other robot, other network) is a clear error naming what
  differs;
- SIGINT/SIGTERM finish the current iteration (rollout and update) and then save ``model_<it>.pt`` before the
  process exits; a second signal stops at once;
- an algorithm's ``log_scalars`` (e.g. PPO-ROA's lambda, phase and latent errors) go to TensorBoard each iteration.
"""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

from rsl_rl.runners import OnPolicyRunner

from .checkpoints import CheckpointError, read_checkpoint, save_atomically


class TrainingInterrupted(Exception):
    """Raised out of ``learn`` after a SIGINT/SIGTERM, once the interrupted iteration's state is consistent."""


class LocoLabOnPolicyRunner(OnPolicyRunner):
    """OnPolicyRunner with atomic checkpoints, exact resume and graceful interruption."""

    def save(self, path: str, infos: dict | None = None) -> None:
        saved = self.alg.save()
        saved["iter"] = self.current_learning_iteration
        saved["infos"] = infos
        saved["env"] = self.environment_signature()
        spec = getattr(getattr(self.env, "unwrapped", None), "spec", None)
        saved["task"] = spec.id if spec is not None else getattr(self.env, "task", None)
        save_atomically(saved, path)
        self.logger.save_model(path, self.current_learning_iteration)

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
        return loaded["infos"]

    def learn(self, num_learning_iterations: int, init_at_random_ep_len: bool = False) -> None:
        """Train; on SIGINT/SIGTERM finish the current iteration, save it and raise :class:`TrainingInterrupted`."""
        start_it = self.current_learning_iteration
        updates_done = 0
        rollout_starts = True
        update, act = self.alg.update, self.alg.act
        stop = _DeferredStop()

        def update_and_count():
            nonlocal updates_done, rollout_starts
            result = update()
            updates_done += 1
            rollout_starts = True
            self._log_algorithm_scalars(start_it + updates_done - 1)
            return result

        def act_unless_stopped(obs):
            # at the first action of a rollout the previous iteration is updated, logged and (at its interval) saved:
            # stopping there finishes exactly the iteration that was running when the signal came
            nonlocal rollout_starts
            if rollout_starts and stop.pending:
                raise TrainingInterrupted(f"{stop.pending} received")
            rollout_starts = False
            return act(obs)

        self.alg.update, self.alg.act = update_and_count, act_unless_stopped
        try:
            with stop.installed():
                super().learn(num_learning_iterations, init_at_random_ep_len)
        except TrainingInterrupted:
            self.current_learning_iteration = start_it + updates_done - 1
            if self.logger.writer is not None and updates_done > 0:
                path = Path(self.logger.log_dir) / f"model_{self.current_learning_iteration}.pt"
                self.save(str(path))
                self.logger.stop_logging_writer()
                print(f"[LocoLab] Interrupted: saved {path}")
            raise
        finally:
            del self.alg.update, self.alg.act

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
    thread happens to be, and libraries that wrap every exception (Warp's kernel launch turns it into a RuntimeError)
    would hide it and crash the run without a checkpoint.
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
