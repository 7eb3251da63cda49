"""Throughput of a LocoLab task, in env-steps/s (``scripts/benchmark.py``).

Measures, in one run so that ratios compare like with like on a shared machine:
- ``sim_random_actions_steps_per_s``: the environment alone, uniform random actions (after a warm-up);
- ``sim_nonfinite_guard_overhead_percent``: extra time per env step of the non-finite guard (NaN/Inf checks of
  state, rewards and observations), from alternating bare and guarded blocks in one process: an upper bound of its
  cost to training, whose iterations also spend time learning;
- ``train_steps_per_s``: full PPO iterations through ``scripts/train.py``;
- ``roa_train_steps_per_s`` and ``roa_finetune_steps_per_s``: PPO-ROA's two phases through ``scripts/train.py``
  (finetune starts from a 2-iteration teacher trained first, not timed);
- ``ppo_rnn_train_steps_per_s``: recurrent PPO (``--agent ppo_rnn``, a GRU actor) through ``scripts/train.py``;
- ``sac_sync_train_steps_per_s`` and ``sac_async_train_steps_per_s``: SAC (``--agent sac``) with each collector,
  updating from the first iteration on (``learning_starts=0``), so the time of its gradient steps is counted. The
  asynchronous collector fills its queue while the trainer starts, so its first iterations take chunks
  collected before the clock ran (``warmup_iterations``); they are dropped too, and the run is that much longer;
- ``stock_train_steps_per_s``: the stock ``isaaclab train`` (rsl_rl backend) with the task's PPO agent;
- ``sim_physics_share``: the share of the environment's random-action step spent in the physics
  (``SimulationContext.step``), the rest being Isaac Lab's managers, actuators and sensors;
- on a CPU, ``sim_profile_mujoco_warp_steps_per_s``: the profile's physics stepped by MuJoCo-Warp instead of the
  profile's engine, MuJoCo C (``env.physics_engine``, locolab.envs.mujoco_c), and ``sim_mujoco_c_vs_mujoco_warp_ratio``;
- on a CPU, ``sim_mujoco_c_steps_per_s`` (every core) and ``sim_mujoco_c_one_thread_steps_per_s``: the same robot,
  PD gains, physics step and random actions in MuJoCo's C engine alone, with no Isaac Lab around it
  (locolab.bench.mujoco_c_throughput), against the environment's ``sim_random_actions_steps_per_s`` (one process,
  one core): the ceiling of a training step's physics; ``sim_vs_mujoco_c_one_thread_ratio`` is the share of it
  the environment keeps;
- on a CPU, ``sim_stage_ms``: milliseconds per env step of each stage of the profile's step (physics: actuators,
  Newton's conversions to and from MuJoCo, MuJoCo C's own ``mj_step``, contacts; Isaac Lab's managers),
  from :func:`locolab.bench.step_profile.step_profile`, and ``sim_mujoco_c_share``: the share of the step inside
  MuJoCo C's own ``mj_step`` on the environment's own worlds, i.e. the environment's speed as a share of MuJoCo C's
  on the same worlds (the MJCF servo robot above has softer contacts than the worlds Newton converts, a 0.02 s
  contact time constant against 0.0018 s, and steps faster: it bounds, but is not, the same physics);
- on a GPU, ``sim_warp_captured_steps_per_s``: the same random-action steps on Isaac Lab's Warp frontend
  (locolab.envs.warp_frontend: MDP terms as Warp kernels, every manager's stage captured in a CUDA graph),
  ``sim_warp_captured_physics_share`` and ``sim_warp_captured_vs_stable_ratio`` (over the stable managers'
  ``sim_random_actions_steps_per_s``); elsewhere, or for a task the frontend cannot run, ``sim_warp_captured_skipped``
  says why;
- on a CPU and a rough task, ``sim_flat_ground_steps_per_s``: the same robots and physics on the flat task's plane,
  and ``sim_terrain_vs_flat_ratio``: what colliding with the terrain's heightfield costs (the rough task's
  ``sim_profile_mujoco_warp_steps_per_s`` is then MuJoCo-Warp with Newton's own collision pipeline, the GPU's);
and their ratios. Every trainer logs rsl_rl's ``Perf/total_fps`` to TensorBoard; the first iteration (warm-up) is
dropped and the rest averaged. With ``--repeats R`` the trainers' order reverses every repeat (ABCD, DCBA, ...) and
the means are taken over all runs. On a CPU, ``train.py`` trains the task's -CPU variant and
the stock trainer keeps Isaac Lab's physics, so ``train_vs_stock_ratio`` is the profile's speed-up; the random-action
simulation is timed under both physics settings (``sim_random_actions_steps_per_s`` with the profile's,
``sim_stock_physics_steps_per_s`` with the task's), and ``*_cores_used`` is each trainer's CPU time over its wall
time (1.0 = one core busy).

Each random-action simulation runs in a fresh process of its own (:func:`locolab.fresh_process.in_fresh_process`).
``args`` is benchmark.py's parsed arguments: ``task``, ``num_envs``, ``sim_steps``, ``iterations``, ``repeats``,
``trainers`` and ``sim_override``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import torch
from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

from locolab.algorithms.sac_cfg import SacRunnerCfg
from locolab.assets import ASSET_ROOT
from locolab.envs import open_env
from locolab.envs.nonfinite_guard import NonFiniteGuard
from locolab.fresh_process import in_fresh_process

from .launcher import run_dirs, train_command
from .mujoco_c_throughput import mujoco_c_steps_per_s
from .sim_configs import sim_cfgs
from .step_profile import step_profile
from .tensorboard import read_scalar

FPS_TAG = "Perf/total_fps"
SIM_PHYSICS = ("profile", "profile_mujoco_warp", "stock")
"""The random-action simulation's physics: the CPU profile's, the same stepped by MuJoCo-Warp, the task's."""
TRAINER_TIMEOUT_S = 3600
"""A trainer run that takes longer is reported as stalled (e.g. waiting on the network)."""


def sim_steps_per_s(task: str, num_envs: int, device: str, steps: int, warmup: int = 10,
                    cpu_profile: bool = True, blocks: int = 4, overrides: list[str] = (),
                    frontend: str = "torch") -> dict[str, float]:
    """Env-steps/s of the environment stepped with uniform random actions in [-1, 1] (``sim_cfgs``' configs), bare
    and behind the non-finite guard (locolab.envs.nonfinite_guard), in alternating blocks of ``steps / blocks`` steps
    each; also the share of the bare steps' time spent in the physics (``SimulationContext.step``: Newton's collision,
    solver and state exchange), the rest being Isaac Lab's managers, actuators and sensors. ``frontend``: Isaac
    Lab's stable managers (torch) or its Warp frontend's (warp; the warm-up then captures the CUDA graphs)."""
    env_cfg, _ = sim_cfgs(task, num_envs, device, cpu_profile, overrides)
    with open_env(task, env_cfg, frontend) as env, torch.inference_mode():
        bare = RslRlVecEnvWrapper(env)
        guarded = NonFiniteGuard(bare)
        bare.reset()
        sim, physics_step = env.unwrapped.sim, env.unwrapped.sim.step
        seconds = {"bare": 0.0, "guarded": 0.0, "physics": 0.0}

        def timed_physics_step(*args, **kwargs):
            start = time.perf_counter()
            try:
                return physics_step(*args, **kwargs)
            finally:
                seconds["physics"] += time.perf_counter() - start

        block = max(1, steps // blocks)
        for index in range(-1, 2 * blocks):  # block -1: warm-up
            name = "guarded" if index % 2 else "bare"
            sim.step = timed_physics_step if index >= 0 and name == "bare" else physics_step
            start = time.perf_counter()
            for _ in range(warmup if index < 0 else block):
                (guarded if name == "guarded" else bare).step(2 * torch.rand(num_envs, bare.num_actions,
                                                                             device=device) - 1)
            if device.startswith("cuda"):
                torch.cuda.synchronize()  # a captured step returns before the GPU is done
            if index >= 0:
                seconds[name] += time.perf_counter() - start
        sim.step = physics_step
    return {"steps_per_s": block * blocks * num_envs / seconds["bare"],
            "guarded_steps_per_s": block * blocks * num_envs / seconds["guarded"],
            "physics_share": seconds["physics"] / seconds["bare"]}


def sim_in_fresh_process(args, device: str, physics: str, task: str | None = None) -> dict:
    """``sim_steps_per_s`` in a fresh process (one environment per process: each owns the process's simulation
    context) with one of :data:`SIM_PHYSICS`, on ``task`` (default: the benchmark's)."""
    overrides = list(args.sim_override) if physics != "stock" else []
    if physics == "profile_mujoco_warp":
        overrides.append("env.physics_engine=mujoco_warp")
    return in_fresh_process(sim_steps_per_s, task or args.task, args.num_envs, device, args.sim_steps,
                            cpu_profile=physics != "stock", overrides=overrides)


WARP_STEP_NEEDS_GPU = ("the Warp frontend's captured step needs a CUDA GPU (CUDA graphs); on a CPU its terms run "
                       "uncaptured, tested in tests/test_warp_frontend.py")


def warp_step_figures(args, device: str, stable_steps_per_s: float) -> dict:
    """The random-action step on the Warp frontend, captured (see the module docstring), against the stable one;
    on a CPU, or for a task the frontend cannot run (:func:`~locolab.envs.warp_frontend.check_warp_frontend`), the
    reason it was not timed."""
    if not device.startswith("cuda"):
        return {"sim_warp_captured_skipped": WARP_STEP_NEEDS_GPU}
    from locolab.envs.warp_frontend import check_warp_frontend  # only here: it loads isaaclab_experimental

    try:
        check_warp_frontend(sim_cfgs(args.task, args.num_envs, device, overrides=list(args.sim_override))[0])
    except ValueError as error:
        return {"sim_warp_captured_skipped": str(error)}
    warp = in_fresh_process(sim_steps_per_s, args.task, args.num_envs, device, args.sim_steps,
                            overrides=list(args.sim_override), frontend="warp")
    return {"sim_warp_captured_steps_per_s": warp["steps_per_s"], "sim_warp_captured_physics_share":
            warp["physics_share"], "sim_warp_captured_vs_stable_ratio": warp["steps_per_s"] / stable_steps_per_s}


def flat_ground_figures(args, device: str, terrain_steps_per_s: float) -> dict[str, float]:
    """On a rough task: the same robots on the flat task's ground, and what the terrain costs (their ratio): the
    heightfield's collisions against the plane's, in one run."""
    flat = args.task.replace("-Rough-", "-Flat-")
    if flat == args.task:
        return {}
    steps_per_s = sim_in_fresh_process(args, device, "profile", task=flat)["steps_per_s"]
    return {"sim_flat_ground_steps_per_s": steps_per_s,
            "sim_terrain_vs_flat_ratio": terrain_steps_per_s / steps_per_s}


def mujoco_c_figures(args) -> dict[str, float]:
    """MuJoCo C's random-action env-steps/s at the profile's physics step, integrator, PD gains and action scale, on
    one thread and on every core."""
    env_cfg, _ = sim_cfgs(args.task, args.num_envs, "cpu")
    legs, solver = env_cfg.scene.robot.actuators["base_legs"], env_cfg.sim.physics.solver_cfg
    substeps = env_cfg.sim.physics.num_substeps
    settings = dict(num_envs=args.num_envs, steps=args.sim_steps, stiffness=float(legs.stiffness),
                    damping=float(legs.damping), physics_dt=env_cfg.sim.dt / substeps,
                    decimation=env_cfg.decimation * substeps,
                    action_scale=float(env_cfg.actions.joint_pos.scale), integrator=solver.integrator,
                    tolerance=solver.tolerance)
    return {"sim_mujoco_c_one_thread_steps_per_s": mujoco_c_steps_per_s(threads=1, **settings),
            "sim_mujoco_c_steps_per_s": mujoco_c_steps_per_s(threads=os.cpu_count() or 1, **settings)}


def fps_after_warmup(log_dir: Path, warmup: int = 1) -> list[float]:
    """``Perf/total_fps`` of every iteration after the first ``warmup``, from the run's TensorBoard events."""
    values = read_scalar(log_dir, FPS_TAG).values[warmup:]
    if not values:
        raise RuntimeError(f"'{FPS_TAG}' under {log_dir} has no iteration after the warm-up one")
    return values


def run_trainer(command: list[str], cwd: Path, env: dict | None = None,
                timeout: float = TRAINER_TIMEOUT_S) -> tuple[float, float]:
    """Run one trainer subprocess; returns its wall time and CPU time (user + system, its children included).
    Raises with the output tails on failure or timeout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(f"{' '.join(command)} did not finish in {timeout:.0f} s:\n{_tail(error.stderr)}") from None
    if result.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed (exit code {result.returncode}):\n"
            f"--- stderr (tail) ---\n{_tail(result.stderr)}\n--- stdout (tail) ---\n{_tail(result.stdout, 1000)}"
        )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _tail(text: str | bytes | None, chars: int = 3000) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return (text or "")[-chars:]


def trainer_train_command(args, device: str, scripts: Path, run_root: Path, *agent: str,
                          warmup: int = 1) -> list[str]:
    """LocoLab's ``scripts/train.py`` on the benchmark's settings, logging under ``run_root`` (``warmup``: iterations
    dropped, so ``--iterations - 1`` are measured)."""
    iterations = args.iterations + warmup - 1
    return train_command(scripts, "--task", args.task, "--num_envs", str(args.num_envs), "--device", device,
                         "--max_iterations", str(iterations), "--seed", "0", "--log_root", str(run_root), *agent)


def stock_train_command(args, device: str) -> list[str]:
    """The stock ``isaaclab train`` (rsl_rl backend); it logs to ./logs/rsl_rl/... of its working directory.

    ``--device`` moves only the simulator there; ``agent.device=`` (a Hydra override, kept because the callback
    returns None) moves the agent.
    """
    program = Path(sys.executable).with_name("isaaclab")
    if not program.exists():
        found = shutil.which("isaaclab")
        # where Isaac Lab is installed into a --target folder (no console script), its module runs the same CLI
        launcher = [found] if found else [sys.executable, "-m", "isaaclab"]
    else:
        launcher = [str(program)]
    return [*launcher, "train", "--rl_library", "rsl_rl", "--task", args.task,
            "--num_envs", str(args.num_envs), "--device", device, "--max_iterations", str(args.iterations), "--seed",
            "0", "--external_callback", "locolab.tasks.register", f"agent.device={device}"]


def warmup_iterations(trainer: str) -> int:
    """Iterations of ``trainer`` dropped before its steps/s are averaged: the first; for the asynchronous SAC trainer
    also the chunks its collector queues ahead (the agent's ``async_queue_size``) and the one it has in progress,
    collected before the trainer's clock ran (counted, they made 4 iterations read 6303 steps/s; drained, 2962)."""
    if trainer != "sac_async_train":
        return 1
    return 1 + SacRunnerCfg().async_queue_size + 1


def trainer_commands(args, device: str, teacher: Path | None,
                     scripts: Path) -> dict[str, Callable[[Path], list[str]]]:
    """Measured trainers by report name: each maps a run root to the command that trains there (those of
    ``--trainers``)."""
    commands = {
        "train": lambda root: trainer_train_command(args, device, scripts, root),
        "ppo_rnn_train": lambda root: trainer_train_command(args, device, scripts, root, "--agent", "ppo_rnn"),
        "roa_train": lambda root: trainer_train_command(args, device, scripts, root, "--agent", "roa"),
        **{f"sac_{collector}_train": lambda root, collector=collector: trainer_train_command(
            args, device, scripts, root, "--agent", "sac", "--collector", collector,
            "agent.algorithm.learning_starts=0", warmup=warmup_iterations(f"sac_{collector}_train"))
           for collector in (("sync", "async") if device == "cpu" else ("sync",))},
        "roa_finetune": lambda root: trainer_train_command(args, device, scripts, root, "--agent", "roa", "--phase",
                                                           "finetune", "--teacher", str(teacher)),
        "stock_train": lambda root: stock_train_command(args, device),
    }
    return {name: command for name, command in commands.items() if name in args.trainers}


def trainer_steps_per_s(args, device: str, scripts: Path) -> dict[str, float]:
    """Each trainer's mean ``Perf/total_fps`` after warm-up and mean wall time, the order reversed every repeat."""
    # the stock entry point resolves Isaac Lab's asset root before our callback imports locolab: hand it over
    env = dict(os.environ, ISAACSIM_ASSET_ROOT=str(ASSET_ROOT))
    with tempfile.TemporaryDirectory(prefix="locolab_bench_") as tmp:
        teacher = None
        if "roa_finetune" in args.trainers:
            teacher_root = Path(tmp) / "teacher"
            teacher_args = argparse.Namespace(**{**vars(args), "iterations": 2})
            run_trainer(trainer_train_command(teacher_args, device, scripts, teacher_root, "--agent", "roa"),
                        scripts.parent)
            (teacher,) = run_dirs(teacher_root)
        commands = trainer_commands(args, device, teacher, scripts)
        fps = {name: [] for name in commands}
        wall = {name: [] for name in commands}
        cpu = {name: [] for name in commands}
        for repeat in range(args.repeats):
            for name in list(commands)[:: 1 if repeat % 2 == 0 else -1]:
                run_root = Path(tmp) / f"{name}_{repeat}"
                run_root.mkdir()
                wall_s, cpu_s = run_trainer(commands[name](run_root), run_root, env)
                wall[name].append(wall_s)
                cpu[name].append(cpu_s)
                fps[name] += fps_after_warmup(run_root, warmup_iterations(name))
    result = {}
    for name in commands:
        result[f"{name}_steps_per_s"] = statistics.fmean(fps[name])
        result[f"{name}_wall_s"] = statistics.fmean(wall[name])
        result[f"{name}_cores_used"] = sum(cpu[name]) / sum(wall[name])
    return result


def throughput(args, device: str, scripts: Path) -> dict:
    """Every figure of the benchmark (see the module docstring) on ``device``, the trainers' ``train.py`` in
    ``scripts``; a RuntimeError or ValueError says what failed."""
    result = {"task": args.task, "num_envs": args.num_envs, "device": device, "iterations": args.iterations,
              "repeats": args.repeats, "torch": version("torch"), "isaaclab": version("isaaclab"),
              "rsl_rl": version("rsl-rl-lib"), "sim_overrides": args.sim_override}
    # one environment per process: each owns the process's simulation context
    profile = sim_in_fresh_process(args, device, "profile")
    result["sim_random_actions_steps_per_s"] = profile["steps_per_s"]
    result["sim_physics_share"] = profile["physics_share"]
    result["sim_nonfinite_guard_overhead_percent"] = 100.0 * (profile["steps_per_s"]
                                                             / profile["guarded_steps_per_s"] - 1.0)
    # the profile's physics applies on a CPU only: elsewhere both are the task's
    result["sim_stock_physics_steps_per_s"] = (sim_in_fresh_process(args, device, "stock")["steps_per_s"]
                                               if device == "cpu" else profile["steps_per_s"])
    if device == "cpu":
        result["sim_profile_mujoco_warp_steps_per_s"] = sim_in_fresh_process(args, device,
                                                                          "profile_mujoco_warp")["steps_per_s"]
        result["sim_mujoco_c_vs_mujoco_warp_ratio"] = (result["sim_random_actions_steps_per_s"]
                                                       / result["sim_profile_mujoco_warp_steps_per_s"])
        result.update(mujoco_c_figures(args))
        result["sim_mujoco_c_one_thread_vs_profile_ratio"] = (result["sim_mujoco_c_one_thread_steps_per_s"]
                                                              / result["sim_random_actions_steps_per_s"])
        result["sim_vs_mujoco_c_one_thread_ratio"] = 1.0 / result["sim_mujoco_c_one_thread_vs_profile_ratio"]
        stages = result["sim_stage_ms"] = in_fresh_process(step_profile, args.task, args.num_envs, device,
                                                           args.sim_steps, overrides=list(args.sim_override))
        result["sim_mujoco_c_share"] = stages.get("physics.solver.mj_step", 0.0) / stages["step"]
        result.update(flat_ground_figures(args, device, result["sim_random_actions_steps_per_s"]))
    result.update(warp_step_figures(args, device, result["sim_random_actions_steps_per_s"]))
    if args.trainers:
        result.update(trainer_steps_per_s(args, device, scripts))
    if {"train", "stock_train"} <= set(args.trainers):
        result["train_vs_stock_ratio"] = result["train_steps_per_s"] / result["stock_train_steps_per_s"]
    for phase in ("ppo_rnn_train", "roa_train", "roa_finetune", "sac_sync_train", "sac_async_train"):
        if f"{phase}_steps_per_s" in result and "train_steps_per_s" in result:
            result[f"{phase}_vs_ppo_ratio"] = result[f"{phase}_steps_per_s"] / result["train_steps_per_s"]
    if {"sac_async_train_steps_per_s", "sac_sync_train_steps_per_s"} <= set(result):
        result["sac_async_vs_sync_ratio"] = result["sac_async_train_steps_per_s"] / result["sac_sync_train_steps_per_s"]
    result["sim_profile_vs_stock_physics_ratio"] = (result["sim_random_actions_steps_per_s"]
                                                    / result["sim_stock_physics_steps_per_s"])
    return result
