"""rsl_rl's OnPolicyRunner with the guarantees a long training run needs.

Extends ``rsl_rl.runners.OnPolicyRunner`` rather than replacing it: rollout, GAE and PPO are untouched. Added:
- checkpoints are written atomically (temporary file + rename), so a crash never leaves a truncated model;
- resume continues at the iteration after the checkpoint's, with optimizer and normaliser state;
- a loaded checkpoint that does not fit (other observation sizes, other network) is a clear error;
- SIGINT/SIGTERM finish the current update and then save ``model_<it>.pt`` before the process exits.
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
        save_atomically(saved, path)
        self.logger.save_model(path, self.current_learning_iteration)

    def load(self, path: str, load_cfg: dict | None = None, strict: bool = True, map_location: str | None = None):
        loaded = read_checkpoint(path, map_location=map_location or self.device)
        try:
            load_iteration = self.alg.load(loaded, load_cfg, strict)
        except (RuntimeError, KeyError) as error:
            raise CheckpointError(
                f"Checkpoint '{path}' does not fit this task's model: {str(error).splitlines()[0]} "
                f"(was it trained on another task, robot or agent config?)"
            ) from error
        if load_iteration:
            # the checkpoint holds the state after its iteration: continue with the next one
            self.current_learning_iteration = loaded["iter"] + 1
        return loaded["infos"]

    def learn(self, num_learning_iterations: int, init_at_random_ep_len: bool = False) -> None:
        """Train; on SIGINT/SIGTERM save the last completed iteration and raise :class:`TrainingInterrupted`."""
        start_it = self.current_learning_iteration
        updates_done = 0
        update = self.alg.update
        stop = _DeferredStop()

        def update_then_maybe_stop():
            nonlocal updates_done
            with stop.deferred():
                result = update()
                updates_done += 1
            if stop.pending:
                self.current_learning_iteration = start_it + updates_done - 1
                raise TrainingInterrupted("signal received during the update")
            return result

        self.alg.update = update_then_maybe_stop
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
            del self.alg.update


class _DeferredStop:
    """Turns SIGINT/SIGTERM into :class:`TrainingInterrupted`, postponed while a parameter update runs."""

    def __init__(self) -> None:
        self.deferring = False
        self.pending = False

    def _handler(self, signum: int, frame) -> None:
        if self.deferring:
            self.pending = True
        else:
            raise TrainingInterrupted(signal.Signals(signum).name)

    @contextlib.contextmanager
    def installed(self):
        previous = {sig: signal.signal(sig, self._handler) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    @contextlib.contextmanager
    def deferred(self):
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False
