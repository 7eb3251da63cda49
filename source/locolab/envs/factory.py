"""Builds LocoLab environments: task lookup, device choice (simulator AND agent), offline checks, kit-less launch.

Isaac Lab's stock entry points move only the simulator with ``--device``; the rsl_rl agent config keeps
``cuda:0``. Everything here sets both from one value.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import gymnasium as gym
import torch

from locolab.task_ids import CPU_SUFFIX, PLAY_SUFFIX, base_task

from .asset_check import check_assets_offline
from .passive_forces import skip_absent_passive_forces
from .solver_warnings import quiet_capped_solver

CPU_NUM_ENVS = 64
"""Environments used on a CPU when the caller does not say: the GPU default (4096) would crawl on 2 cores."""

_DEVICE_PATTERN = re.compile(r"^(cpu|cuda(:\d+)?)$")


def default_device() -> str:
    """``cuda:0`` when a GPU is visible, else ``cpu``."""
    return "cuda:0" if torch.cuda.is_available() else "cpu"


def resolve_device(device: str | None) -> str:
    """Validate a ``--device`` value (``cpu``, ``cuda``, ``cuda:N``) against this machine."""
    if device is None:
        return default_device()
    if not _DEVICE_PATTERN.match(device):
        raise ValueError(f"--device '{device}' is not understood: use 'cpu', 'cuda' or 'cuda:N'.")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"--device {device} was requested but no CUDA GPU is visible here: use --device cpu.")
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise ValueError(f"--device {device}: only {torch.cuda.device_count()} GPU(s) are visible.")
        return f"cuda:{index}"
    return device


def registered_tasks(prefix: str = "LocoLab-") -> list[str]:
    """The gymnasium ids LocoLab registers."""
    import locolab.tasks  # noqa: F401  (registers the tasks)

    return sorted(name for name in gym.registry if name.startswith(prefix))


def play_variant(task: str) -> str:
    """``task``, or its ``-Play`` variant (fewer environments, no pushes or noise) when it has one. A CPU training
    variant plays as the task it was derived from: Isaac Lab's physics on MuJoCo-Warp, which it did not train in."""
    task = base_task(task)
    play = f"{task}{PLAY_SUFFIX}"
    return play if not task.endswith(PLAY_SUFFIX) and play in registered_tasks() else task


def load_task_cfgs(
    task: str,
    agent_entry_point: str = "rsl_rl_cfg_entry_point",
    num_envs: int | None = None,
    device: str | None = None,
    seed: int | None = None,
):
    """Resolve a task's environment and agent configs for one device, and check that its assets are local.

    Returns:
        ``(env_cfg, agent_cfg)`` with the simulator and the agent on the same device.
    """
    tasks = registered_tasks()
    if task not in gym.registry:
        raise ValueError(f"Unknown task '{task}'. LocoLab tasks: {', '.join(tasks)}.")
    if agent_entry_point not in gym.spec(task).kwargs:
        raise ValueError(f"Task '{task}' has no agent config '{agent_entry_point}'.")
    from isaaclab_tasks.utils import resolve_task_config

    env_cfg, agent_cfg = resolve_task_config(task, agent_entry_point, overrides=[])
    device = resolve_device(device)
    env_cfg.sim.device = device
    agent_cfg.device = device
    if num_envs is not None:
        if num_envs < 1:
            raise ValueError(f"--num_envs must be at least 1, got {num_envs}.")
        env_cfg.scene.num_envs = num_envs
    elif device == "cpu" and CPU_SUFFIX not in task:
        env_cfg.scene.num_envs = min(env_cfg.scene.num_envs, CPU_NUM_ENVS)
    if seed is not None:
        agent_cfg.seed = seed
    env_cfg.seed = agent_cfg.seed
    check_assets_offline(env_cfg)
    return env_cfg, agent_cfg


PHYSICS_ENGINES = ("mujoco_warp", "mujoco_c")
"""Values of a LocoLab task's ``physics_engine``."""


def check_physics_engine(env_cfg) -> str:
    """The engine ``env_cfg``'s ``physics_engine`` names (tasks without one: MuJoCo-Warp); a ValueError names a bad
    one, or MuJoCo C asked for on a GPU."""
    engine = getattr(env_cfg, "physics_engine", "mujoco_warp")
    if engine not in PHYSICS_ENGINES:
        raise ValueError(f"physics_engine '{engine}' is not known: use one of {', '.join(PHYSICS_ENGINES)}.")
    if engine == "mujoco_c" and env_cfg.sim.device != "cpu":
        raise ValueError(f"physics_engine 'mujoco_c' steps the worlds on the CPU, not on {env_cfg.sim.device}: "
                         "use env.physics_engine=mujoco_warp there.")
    return engine


def select_physics_engine(env_cfg) -> None:
    """Point ``env_cfg``'s simulation at the engine its ``physics_engine`` names (:func:`check_physics_engine`)."""
    if check_physics_engine(env_cfg) == "mujoco_c":
        from .mujoco_c import step_worlds_in_mujoco_c

        step_worlds_in_mujoco_c(env_cfg)


@contextlib.contextmanager
def open_env(task: str, env_cfg, frontend: str = "torch") -> Iterator[gym.Env]:
    """Launch the (kit-less) simulation runtime and build the environment; close both on exit. ``frontend="warp"``:
    on Isaac Lab's Warp frontend (:mod:`locolab.envs.warp_frontend`, imported only then: it loads
    ``isaaclab_experimental``)."""
    from isaaclab.app import launch_simulation

    select_physics_engine(env_cfg)
    with launch_simulation(env_cfg, {"device": env_cfg.sim.device, "headless": True}):
        if frontend == "warp":
            from .warp_frontend import make_warp_env

            env = make_warp_env(env_cfg)
        else:
            env = gym.make(task, cfg=env_cfg)
        quiet_capped_solver(env_cfg)
        skip_absent_passive_forces(env_cfg)
        try:
            yield env
        finally:
            env.close()
