"""Collectors: they step an environment with a policy and hand back ``[T, N]`` TensorDicts of transitions; nothing
else (no learning, no logging).

:class:`SyncCollector` collects when asked (collect, then update). :class:`AsyncCollector` collects in a background
thread with its own copy of the policy, into a bounded queue, while the learner updates; the learner publishes new
weights after each update and the copy picks them up before its next action. On a CPU this overlaps the simulation
processes' stepping with the learner's gradient steps, which a collect-then-update loop leaves idle in turn. Measured
on 2 cores (docs/measurements/sac.md) the overlap did not pay: the simulation processes already fill both cores, so
the learner's one thread competes with them, while a synchronous update has both cores (2.3-2.5 s an iteration
against 2.0-2.3 at 32 updates; the same pace at 16).

Both step through :func:`locolab.runners.rollout.rollout`, the routine PPO's training and every evaluation use.
"""

from __future__ import annotations

import contextlib
import copy
import queue
import threading
from dataclasses import dataclass, field

import torch
from tensordict import TensorDict
from torch import nn

from rsl_rl.env import VecEnv

from locolab.runners.rollout import rollout

STEP_EXTRAS = ("log", "nonfinite")
"""The parts of a step's extras a chunk keeps for the trainer's logging: Isaac Lab's episode logs and the non-finite
guard's reset counts."""


@dataclass
class Chunk:
    """``num_steps`` consecutive steps of every environment."""

    steps: TensorDict
    """``[T, N]``: ``obs``, ``action``, ``reward``, ``terminated``, ``time_out``, ``next_obs`` (and ``metrics``, the
    episode-metric columns, when the environment reports them)."""
    extras: list[dict] = field(default_factory=list)
    """Per step, the :data:`STEP_EXTRAS` the environment reported."""
    policy_version: int = 0
    """The oldest policy version that chose an action in this chunk."""


class CollectorError(RuntimeError):
    """The collector thread failed; the original exception is the ``__cause__``."""


class SyncCollector:
    """Collects ``num_steps`` steps of ``env`` with ``policy``'s stochastic actions, in the caller's thread."""

    def __init__(self, env: VecEnv, policy: nn.Module, num_steps: int, device: str | torch.device) -> None:
        self.env = env
        self.policy = policy
        self.num_steps = num_steps
        self.device = device
        self.version = 0
        self.obs = env.get_observations().to(device)

    def collect(self) -> Chunk:
        return self._collect_chunk()

    def publish(self, policy: nn.Module, version: int) -> None:
        """The learner's weights after update ``version`` (the synchronous collector acts with them already)."""
        self.version = version

    @contextlib.contextmanager
    def paused(self):
        """Exclusive use of the environment (a checkpoint reads its curriculum state)."""
        yield

    def close(self) -> None:
        pass

    def _act(self, obs: TensorDict) -> tuple[torch.Tensor, int]:
        return self.policy(obs, stochastic_output=True), self.version

    def _collect_chunk(self) -> Chunk:
        steps, extras, versions = [], [], []
        current: dict = {}

        def act(obs: TensorDict) -> torch.Tensor:
            action, version = self._act(obs)
            versions.append(version)
            current.update(obs=obs, action=action)
            return action

        def on_step(next_obs: TensorDict, rewards: torch.Tensor, dones: torch.Tensor, step_extras: dict) -> None:
            time_out = step_extras["time_outs"].to(self.device).bool() & dones.bool()
            step = {**current, "reward": rewards, "terminated": dones.bool() & ~time_out, "time_out": time_out,
                    "next_obs": next_obs}
            if "metrics" in step_extras:
                step["metrics"] = step_extras["metrics"].to(self.device)
            steps.append(TensorDict(step, batch_size=[self.env.num_envs], device=self.device))
            extras.append({key: step_extras[key] for key in STEP_EXTRAS if key in step_extras})

        with torch.no_grad():
            self.obs = rollout(self.env, act, self.num_steps, self.obs, on_step=on_step, device=self.device)
        return Chunk(torch.stack(steps), extras, min(versions))


class AsyncCollector(SyncCollector):
    """Collects in a background thread into a queue of at most ``queue_size`` chunks.

    The thread acts with its own copy of the policy; :meth:`publish` copies the learner's weights into it (under a
    lock, between two actions), so a chunk is at most ``queue_size + 1`` published versions behind the learner when
    it is taken. :meth:`collect` returns chunks in order and re-raises a failure of the thread as a
    :class:`CollectorError`; :meth:`close` stops the thread and joins it.
    """

    def __init__(self, env: VecEnv, policy: nn.Module, num_steps: int, device: str | torch.device,
                 queue_size: int = 2) -> None:
        super().__init__(env, copy.deepcopy(policy).eval(), num_steps, device)
        if queue_size < 1:
            raise ValueError(f"the collector's queue_size must be at least 1, got {queue_size}.")
        self._queue: queue.Queue[Chunk] = queue.Queue(maxsize=queue_size)
        self._weights = threading.Lock()
        self._env = threading.Lock()
        self._stopping = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="locolab-collector", daemon=True)
        self._thread.start()

    def collect(self) -> Chunk:
        while True:
            try:
                return self._queue.get(timeout=0.5)
            except queue.Empty:
                if self._error is not None:
                    raise CollectorError(f"the collector thread failed: {type(self._error).__name__}: "
                                         f"{self._error}") from self._error
                if not self._thread.is_alive():
                    raise CollectorError("the collector thread has stopped")

    def publish(self, policy: nn.Module, version: int) -> None:
        with self._weights:  # load_state_dict copies: the learner's tensors are not shared with the thread
            self.policy.load_state_dict(policy.state_dict())
            self.version = version

    @contextlib.contextmanager
    def paused(self):
        with self._env:
            yield

    def close(self) -> None:
        self._stopping.set()
        while self._thread.is_alive():
            with contextlib.suppress(queue.Empty):
                self._queue.get_nowait()  # unblock a put
            self._thread.join(timeout=0.1)

    def _act(self, obs: TensorDict) -> tuple[torch.Tensor, int]:
        with self._weights:
            return self.policy(obs, stochastic_output=True), self.version

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                with self._env:
                    chunk = self._collect_chunk()
                while not self._stopping.is_set():
                    try:
                        self._queue.put(chunk, timeout=0.1)
                        break
                    except queue.Full:
                        continue
        except BaseException as error:  # surfaced in the main thread by collect()
            self._error = error


COLLECTORS = {"sync": SyncCollector, "async": AsyncCollector}
