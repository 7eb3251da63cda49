"""An rsl_rl ``VecEnv`` over several simulation processes: one Isaac Lab environment per process, each over a slice
of the robots, so that every CPU core steps physics.

Why: on a CPU, Warp runs its kernels on one thread, so one training process keeps one core busy and the others idle.
Here each worker process builds the task with ``num_envs / num_workers`` robots (its own seed; resets, curriculum and
randomisation per slice) behind Isaac Lab's ``RslRlVecEnvWrapper``; the trainer's process only runs the policy and
the learning. Actions, observations (every group), rewards, dones and time-outs travel through shared-memory tensors
(no pickling per step), and so do the episode metrics each worker computes after every step
(:func:`locolab.envs.metrics.step_metric_values`, returned as ``extras["metrics"]``); the only per-step message is a
short command and, back, each worker's episode log (floats), averaged over the workers that report a key, and its
count of environments reset for non-finite values (:class:`~locolab.envs.nonfinite_guard.NonFiniteGuard`, summed). An
exception in a worker is raised in the trainer with the worker's traceback; workers exit when the trainer closes the
environment or dies.
"""

from __future__ import annotations

import contextlib
import copy
import signal
import traceback

import gymnasium as gym
import torch
import torch.multiprocessing as mp
from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper
from tensordict import TensorDict

from rsl_rl.env import VecEnv

from .curriculum_state import curriculum_state, load_curriculum_state
from .factory import open_env
from .metrics import metric_kinds, metric_terms, step_metric_values
from .nonfinite_guard import NonFiniteGuard
from .symmetry import MirrorMaps

WORKER_START_TIMEOUT_S = 900.0
"""A worker builds its environment (Warp compiles kernels on a cold cache: about 75 s)."""
WORKER_CLOSE_TIMEOUT_S = 60.0
"""A worker closes its environment; one that takes longer is terminated."""
WORKER_TERMINATE_TIMEOUT_S = 5.0
"""A terminated (SIGTERM) worker exits; one that is still alive after this is killed (SIGKILL)."""


class WorkerError(RuntimeError):
    """A simulation worker failed; the message carries its traceback."""


def split_envs(num_envs: int, num_workers: int) -> list[tuple[int, int]]:
    """Contiguous ``[start, stop)`` slices of ``num_envs`` over ``num_workers`` (sizes differ by at most one)."""
    if num_workers < 1 or num_envs < num_workers:
        raise ValueError(f"{num_envs} environments cannot be split over {num_workers} simulation processes.")
    base, extra = divmod(num_envs, num_workers)
    bounds, start = [], 0
    for index in range(num_workers):
        stop = start + base + (1 if index < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def _worker(conn, spec: gym.envs.registration.EnvSpec, env_cfg, clip_actions: float | None, start: int,
            stop: int) -> None:
    """One simulation process: register the trainer's task ``spec`` here, build the slice's environment, then serve
    commands until ``close``."""
    torch.set_num_threads(1)
    # Ctrl-C reaches the whole process group: the trainer decides when to stop (it finishes its iteration first)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        task = spec.id
        if task not in gym.registry:
            gym.registry[task] = spec
        env_cfg.scene.num_envs = stop - start
        with open_env(task, env_cfg) as env:
            vec = NonFiniteGuard(RslRlVecEnvWrapper(env, clip_actions=clip_actions))
            obs = vec.get_observations()
            unwrapped = env.unwrapped
            terms = metric_terms(unwrapped)
            try:
                mirror = MirrorMaps(unwrapped).as_lists()
            except ValueError:
                mirror = None
            conn.send(("spec", {
                "obs_shapes": {group: tuple(value.shape[1:]) for group, value in obs.items()},
                "num_actions": vec.num_actions,
                "max_episode_length": int(vec.max_episode_length),
                "joint_names": {name: list(robot.joint_names) for name, robot in unwrapped.scene.articulations.items()},
                "mirror": mirror,
                "metric_kinds": metric_kinds(terms),
            }))
            _, buffers = conn.recv()
            rows = slice(start, stop)

            def write(observations: TensorDict) -> None:
                for group, value in observations.items():
                    buffers[group][rows].copy_(value)

            write(obs)
            conn.send(("ready", None))
            while True:
                command, data = conn.recv()
                if command == "step":
                    obs, rewards, dones, extras = vec.step(buffers["actions"][rows].to(vec.device))
                    write(obs)
                    buffers["metrics"][rows].copy_(step_metric_values(unwrapped, terms))
                    buffers["rewards"][rows].copy_(rewards)
                    buffers["dones"][rows].copy_(dones)
                    buffers["time_outs"][rows].copy_(extras.get("time_outs", torch.zeros_like(dones)))
                    log = {key: float(value) for key, value in extras.get("log", {}).items()}
                    conn.send(("log", (log, extras.get("nonfinite", {}))))
                elif command == "reset":
                    env.reset(seed=data)
                    write(vec.get_observations())
                    conn.send(("ok", None))
                elif command == "episode_length":
                    vec.episode_length_buf[:] = data[rows].to(vec.episode_length_buf.device)
                    conn.send(("ok", None))
                elif command == "curriculum_state":
                    conn.send(("state", curriculum_state(unwrapped)))
                elif command == "load_curriculum_state":
                    load_curriculum_state(unwrapped, *data)
                    conn.send(("ok", None))
                elif command == "close":
                    break
    except Exception:  # noqa: BLE001  (everything goes back to the trainer, with its traceback)
        try:
            conn.send(("error", traceback.format_exc()))
        except (BrokenPipeError, EOFError):
            pass
    finally:
        conn.close()


class SubprocessVecEnv(VecEnv):
    """rsl_rl's VecEnv interface over ``num_workers`` simulation processes of one task.

    Several workers are for CPUs; one worker on a GPU is how a trainer keeps a second, separate environment
    (periodic evaluation: one simulation per process). Its tensors are on the CPU either way.
    """

    def __init__(self, task: str, env_cfg, num_workers: int, clip_actions: float | None = None) -> None:
        if env_cfg.sim.device != "cpu" and num_workers > 1:
            raise ValueError("Several simulation processes are for CPUs; on a GPU one process steps every robot.")
        self.task = task
        self.cfg = env_cfg
        self.device = "cpu"
        self.num_envs = env_cfg.scene.num_envs
        self.bounds = split_envs(self.num_envs, num_workers)
        context = mp.get_context("spawn")
        self._conns, self._processes = [], []
        try:
            for index, (start, stop) in enumerate(self.bounds):
                parent, child = context.Pipe()
                cfg = copy.deepcopy(env_cfg)
                cfg.seed = None if env_cfg.seed is None else env_cfg.seed + 1000 * index
                process = context.Process(target=_worker, args=(child, gym.spec(task), cfg, clip_actions, start, stop),
                                          daemon=True)
                self._conns.append(parent)
                self._processes.append(process)
                process.start()
                child.close()
            specs = [self._receive(index, "spec", WORKER_START_TIMEOUT_S) for index in range(num_workers)]
            spec = specs[0]
            self.num_actions = spec["num_actions"]
            self.max_episode_length = spec["max_episode_length"]
            self.robot_joint_names = spec["joint_names"]
            self.mirror = spec["mirror"]
            self.metric_kinds = spec["metric_kinds"]
            self._buffers = {group: torch.zeros(self.num_envs, *shape).share_memory_()
                             for group, shape in spec["obs_shapes"].items()}
            self._groups = list(spec["obs_shapes"])
            self._buffers["actions"] = torch.zeros(self.num_envs, self.num_actions).share_memory_()
            self._buffers["rewards"] = torch.zeros(self.num_envs).share_memory_()
            self._buffers["dones"] = torch.zeros(self.num_envs, dtype=torch.long).share_memory_()
            self._buffers["time_outs"] = torch.zeros(self.num_envs, dtype=torch.long).share_memory_()
            self._buffers["metrics"] = torch.zeros(self.num_envs, len(self.metric_kinds)).share_memory_()
            for conn in self._conns:
                conn.send(("buffers", self._buffers))
            for index in range(num_workers):
                self._receive(index, "ready", WORKER_START_TIMEOUT_S)
        except BaseException:  # a worker failed or the start-up was interrupted: the others are not waited for
            self.close(wait=False)
            raise
        self._episode_length = torch.zeros(self.num_envs, dtype=torch.long)

    def _receive(self, index: int, expected: str, timeout: float | None = None):
        conn = self._conns[index]
        if timeout is not None and not conn.poll(timeout):
            raise WorkerError(f"simulation process {index} sent nothing for {timeout:.0f} s.")
        try:
            kind, data = conn.recv()
        except EOFError:
            code = self._processes[index].exitcode
            raise WorkerError(f"simulation process {index} exited (code {code}) without a message.") from None
        if kind == "error":
            raise WorkerError(f"simulation process {index} failed:\n{data}")
        if kind != expected:
            raise WorkerError(f"simulation process {index} answered '{kind}', expected '{expected}'.")
        return data

    def _observations(self) -> TensorDict:
        return TensorDict({group: self._buffers[group].clone() for group in self._groups}, batch_size=[self.num_envs])

    def get_observations(self) -> TensorDict:
        return self._observations()

    @property
    def episode_length_buf(self) -> torch.Tensor:
        return self._episode_length

    @episode_length_buf.setter
    def episode_length_buf(self, value: torch.Tensor) -> None:
        self._episode_length = value.to(torch.long).cpu().clone()
        for conn in self._conns:
            conn.send(("episode_length", self._episode_length))
        for index in range(len(self._conns)):
            self._receive(index, "ok")

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        self._buffers["actions"].copy_(actions)
        for conn in self._conns:
            conn.send(("step", None))
        replies = [self._receive(index, "log") for index in range(len(self._conns))]
        logs = [log for log, _ in replies]
        merged, nonfinite = {}, {}
        for key in {key for log in logs for key in log}:
            values = [log[key] for log in logs if key in log]
            merged[key] = sum(values) / len(values)
        for _, counts in replies:
            for source, count in counts.items():
                nonfinite[source] = nonfinite.get(source, 0) + count
        dones = self._buffers["dones"].clone()
        self._episode_length += 1
        self._episode_length[dones.bool()] = 0
        extras = {"time_outs": self._buffers["time_outs"].clone(), "log": merged,
                  "metrics": self._buffers["metrics"].clone()}
        if nonfinite:
            extras["nonfinite"] = nonfinite
        return self._observations(), self._buffers["rewards"].clone(), dones, extras

    def reset(self, seed: int | None = None) -> TensorDict:
        """Reset every environment (each worker seeded ``seed`` + 1000 x its index, as at construction)."""
        for index, conn in enumerate(self._conns):
            conn.send(("reset", None if seed is None else seed + 1000 * index))
        for index in range(len(self._conns)):
            self._receive(index, "ok")
        self._episode_length.zero_()
        return self._observations()

    def curriculum_states(self) -> list[dict]:
        """Each simulation process's curriculum progress (:func:`locolab.envs.curriculum_state.curriculum_state`)."""
        for conn in self._conns:
            conn.send(("curriculum_state", None))
        return [self._receive(index, "state") for index in range(len(self._conns))]

    def load_curriculum_states(self, terms: list[dict], terrain_levels: torch.Tensor | None) -> None:
        """Give each process the term state of saved slice ``index % len(terms)`` and its rows of ``terrain_levels``."""
        if terrain_levels is not None and terrain_levels.numel() != self.num_envs:
            raise ValueError(f"the checkpoint holds terrain levels of {terrain_levels.numel()} environments, this run "
                             f"has {self.num_envs}: resume with the same number of environments.")
        for index, (conn, (start, stop)) in enumerate(zip(self._conns, self.bounds)):
            conn.send(("load_curriculum_state", (terms[index % len(terms)] if terms else {},
                                                 None if terrain_levels is None else terrain_levels[start:stop])))
        for index in range(len(self._conns)):
            self._receive(index, "ok")

    def close(self, wait: bool = True) -> None:
        """Ask every worker to close its environment and wait for it (``wait``); a worker still alive after that
        (building its environment, which takes a minute and reads no command meanwhile; over
        ``WORKER_CLOSE_TIMEOUT_S``; or waited for when a signal interrupts the wait) is terminated, so a failed
        start-up or an interrupted shutdown neither stalls nor leaves simulation processes behind."""
        started = [process for process in self._processes if process.pid is not None]
        try:
            if wait:
                for conn, process in zip(self._conns, self._processes):
                    if process.is_alive():
                        try:
                            conn.send(("close", None))
                        except (BrokenPipeError, OSError):
                            pass
                for process in started:
                    process.join(timeout=WORKER_CLOSE_TIMEOUT_S)
        finally:
            for process in started:
                if process.is_alive():
                    process.terminate()
            for process in started:
                process.join(timeout=WORKER_TERMINATE_TIMEOUT_S)
                if process.is_alive():  # a library in the worker handles SIGTERM: it would wait for the trainer
                    process.kill()
                    process.join()
            self._processes = []


@contextlib.contextmanager
def open_training_env(task: str, env_cfg, sim_processes: int = 1, clip_actions: float | None = None,
                      frontend: str = "torch"):
    """``open_env`` for one simulation process (on ``frontend``); for more, a :class:`SubprocessVecEnv` (CPU) that
    splits the robots over that many processes."""
    if sim_processes <= 1:
        with open_env(task, env_cfg, frontend) as env:
            yield env
        return
    vec_env = SubprocessVecEnv(task, env_cfg, sim_processes, clip_actions=clip_actions)
    try:
        yield vec_env
    finally:
        vec_env.close()
