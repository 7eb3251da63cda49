"""One training run, as ``scripts/train.py`` starts it: configs, checks, environment, runner, walking gate.

The task and agent configs come from the registry; on a machine without a GPU the task's ``-CPU`` variant and its agent
(``locolab.tasks.cpu_variant``) are chosen, sized for 2 cores. Flags and ``env.``/``agent.`` overrides are applied to
the configs as loaded, checked before any environment is built, and saved in ``params/{env,agent}.yaml``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from datetime import datetime
from pathlib import Path

import torch
from isaaclab.utils.io import dump_yaml

from locolab.algorithms.sac_cfg import check_sac_cfg
from locolab.config_overrides import apply_overrides
from locolab.distributed import (Rank, RanksDivergedError, from_rank_zero, join, leave, lost_rank_message,
                                 rank_device, this_rank)
from locolab.envs import (MissingAssetError, check_assets_offline, check_physics_engine, load_task_cfgs,
                          open_training_env, resolve_device)
from locolab.envs.mdp import check_dynamics_cfg, check_terrain_curriculum
from locolab.eval.periodic import check_periodic_eval_cfg, periodic_evaluation
from locolab.models.squashed_gaussian import ActionBoundsError
from locolab.runners import (CheckpointError, read_checkpoint, resolve_checkpoint, restore_agent_cfg,
                             trained_agent)
from locolab.runners.build import build_runner, check_obs_groups
from locolab.runners.nonfinite import NonFiniteUpdateError
from locolab.runners.on_policy_runner import TrainingInterrupted
from locolab.runners.update_precision import check_update_precision
from locolab.eval.walking import play_checks
from locolab.runners.walking_gate import learn_until_walking
from locolab.runners.warm_start import WarmStartError, warm_start
from locolab.stop_signal import STOPPED_EXIT_CODE
from locolab.task_ids import base_task
from locolab.tasks import AGENT_ENTRY_POINTS, cpu_variant
from locolab.train_arguments import check_arguments, check_folder_name

def training_task(args: argparse.Namespace) -> str:
    """The task to train: ``--task``, or on a CPU its variant for the agent (unless ``--no_cpu_profile``). Says which
    in the run's first line."""
    device = resolve_device(args.device)
    task = cpu_variant(args.task, args.agent, args.phase) if device == "cpu" and not args.no_cpu_profile else None
    if task is None:
        return args.task
    print(f"[LocoLab] No GPU asked for or visible: training {task}, the CPU variant of {args.task}, with its agent's "
          "CPU config (sized for 2 cores; --no_cpu_profile trains the task as given)", flush=True)
    return task


def checked_checkpoint(path: str, agent: str, phase: str, tasks: tuple[str, ...] = ()) -> tuple[Path, dict]:
    """The checkpoint file ``path`` names and its dictionary, read once to fail before the environment is built if it
    is unreadable, was trained by another agent or in another ROA phase, or (``tasks`` given: a resume) on a task not
    among them (a CheckpointError)."""
    checkpoint = resolve_checkpoint(path)
    saved = read_checkpoint(checkpoint)
    saved_agent, saved_phase = trained_agent(saved)
    if saved_agent != agent:  # first: each agent has its own CPU task, so the task would differ too
        raise CheckpointError(f"Checkpoint '{checkpoint}' was trained with --agent {saved_agent}, not --agent {agent}.")
    if saved_phase != phase:
        raise CheckpointError(f"Checkpoint '{checkpoint}' is from ROA phase '{saved_phase}', expected phase '{phase}'.")
    if tasks and saved.get("task") not in (None, *tasks):
        given = base_task(saved["task"])  # what to pass: train.py picks the CPU variant itself
        if given == base_task(tasks[-1]):
            raise CheckpointError(f"Checkpoint '{checkpoint}' was trained on {saved['task']}, this run would train "
                                  f"{tasks[-1]}: resume a CPU variant's run on a CPU without --no_cpu_profile, and "
                                  "any other run with --no_cpu_profile or on a GPU.")
        raise CheckpointError(f"Checkpoint '{checkpoint}' was trained on --task {given}, not --task {tasks[0]}: "
                              f"give --task {given} (or start a new run without --resume).")
    return checkpoint, saved


def share_among_ranks(env_cfg, agent_cfg, rank: Rank, split_processes: bool) -> None:
    """Under torchrun: each rank its own seed (``seed + rank``: else every rank would collect the same experience),
    and on a CPU the task's simulation processes split among the ranks (``split_processes``: none asked for), so
    that the ranks together keep one process per core."""
    if not rank.distributed:
        return
    if env_cfg.seed is not None:
        env_cfg.seed += rank.rank
    if agent_cfg.seed is not None:
        agent_cfg.seed += rank.rank
    if split_processes and env_cfg.sim.device == "cpu":
        env_cfg.sim_processes = max(1, getattr(env_cfg, "sim_processes", 1) // rank.world_size)


def configure(args: argparse.Namespace, task: str, rank: Rank = Rank(), trained: dict | None = None):
    """``(env_cfg, agent_cfg, overridden)``: the registered configs with the flags and overrides applied and checked
    (a ValueError, OverrideError or MissingAssetError names the first problem); ``rank``: torchrun's process.

    ``trained``: a resumed checkpoint, whose agent settings (network sizes, schedules, plan, gate) replace the
    registered ones before the flags and overrides: a run goes on as it started even if this version's defaults moved.
    """
    env_cfg, agent_cfg = load_task_cfgs(task, AGENT_ENTRY_POINTS[(args.agent, args.phase)],
                                        num_envs=args.num_envs, device=args.device, seed=args.seed)
    if trained is not None:
        restore_agent_cfg(agent_cfg, trained)
        if args.seed is not None:
            agent_cfg.seed = args.seed
    if args.max_iterations is not None:  # exactly N iterations (on a resume N more; the plan stays): no walking gate
        if trained is None:
            agent_cfg.max_iterations = args.max_iterations
        if getattr(agent_cfg, "walking_gate", None) is not None:
            agent_cfg.walking_gate.extra_iterations = 0
    if args.collector is not None:
        agent_cfg.collector = args.collector
    if args.sim_processes is not None:
        env_cfg.sim_processes = args.sim_processes
    overridden = apply_overrides(env_cfg, agent_cfg, args.overrides)
    if "agent.seed" in overridden and "env.seed" not in overridden:
        env_cfg.seed = agent_cfg.seed
    share_among_ranks(env_cfg, agent_cfg, rank, args.sim_processes is None and "env.sim_processes" not in overridden)
    if args.agent == "sac":
        check_sac_cfg(agent_cfg)
    else:
        check_update_precision(agent_cfg.update_precision)
    check_obs_groups(env_cfg, agent_cfg)
    check_dynamics_cfg(env_cfg)
    check_terrain_curriculum(env_cfg)
    check_physics_engine(env_cfg)
    if getattr(args, "frontend", "torch") == "warp":
        from locolab.envs.warp_frontend import check_warp_frontend  # only then: it loads isaaclab_experimental

        check_warp_frontend(env_cfg, getattr(env_cfg, "sim_processes", 1))
    check_periodic_eval_cfg(getattr(agent_cfg, "evaluation", None))
    gate = getattr(agent_cfg, "walking_gate", None)
    if gate is not None and not gate.play_seconds > 0:
        raise ValueError(f"agent.walking_gate.play_seconds must be positive, got {gate.play_seconds}.")
    sim_processes = getattr(env_cfg, "sim_processes", 1)
    if sim_processes > 1 and env_cfg.sim.device != "cpu":
        raise ValueError("--sim_processes applies to CPU simulation; on a GPU one process steps every robot.")
    if sim_processes < 1 or sim_processes > env_cfg.scene.num_envs:
        raise ValueError(f"--sim_processes must be between 1 and the number of environments "
                         f"({env_cfg.scene.num_envs}), got {sim_processes}.")
    check_assets_offline(env_cfg)  # again: an override may name another asset
    check_folder_name(agent_cfg.experiment_name, "agent.experiment_name")
    if trained is not None and args.max_iterations is None:
        check_work_left(trained, agent_cfg)
    return env_cfg, agent_cfg, overridden


def check_work_left(trained: dict, agent_cfg) -> None:
    """A plain resume of a checkpoint past its plan, with no walking gate to play (its run started with
    ``--max_iterations``, which turns the gate off), would end at once with nothing trained: a ValueError says so."""
    gate = getattr(agent_cfg, "walking_gate", None)
    iteration = trained.get("iter", 0)
    if plan_left(iteration + 1, agent_cfg.max_iterations) or (gate is not None and gate.extra_iterations > 0):
        return
    why, how = (("its agent has no walking gate", "") if gate is None else
                ("its run has no walking gate to play (it started with --max_iterations)",
                 ", or agent.walking_gate.extra_iterations=500 to play the walking gate and train on until it passes"))
    raise ValueError(f"nothing to train: the checkpoint is at iteration {iteration}, past its plan of "
                     f"{agent_cfg.max_iterations}, and {why}; give --max_iterations N for N more{how}.")


def started_line(task: str, env_cfg, agent_cfg, log_dir: str, rank: Rank = Rank()) -> str:
    """The line train.py prints when training starts; it names the run directory last (the harnesses find the run
    by it: :data:`locolab.bench.launcher.RUN_DIR_LINE`)."""
    ranks = f" on each of {rank.world_size} ranks" if rank.distributed else ""
    return (f"[LocoLab] Training {task} ({type(env_cfg).__name__}, {type(agent_cfg).__name__}) on {env_cfg.sim.device} "
            f"with {env_cfg.scene.num_envs} envs in {env_cfg.sim_processes} simulation process(es){ranks}: {log_dir}")


def run_dir(log_root: str, experiment: str, run_name: str) -> str:
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    return os.path.abspath(os.path.join(log_root, experiment, f"{stamp}_{run_name}" if run_name else stamp))


def train(args: argparse.Namespace) -> int:
    """Train as ``args`` (train.py's) say; the exit code: 0 done, 2 bad input (one line on stderr), 130 stopped by a
    signal, 1 a non-finite update."""
    try:
        check_arguments(args)
        rank = this_rank()
        args.device = resolve_device(rank_device(args.device, rank))
        task = training_task(args) if rank.main else quietly(training_task, args)
        resume, trained = (checked_checkpoint(args.resume, args.agent, args.phase, (args.task, task))
                           if args.resume else (None, None))
        env_cfg, agent_cfg, overridden = configure(args, task, rank, trained)
        teacher = checked_checkpoint(args.teacher, args.agent, "train")[0] if args.teacher else None
        init_from = checked_checkpoint(args.init_from, args.agent, args.phase)[0] if args.init_from else None
    except (ValueError, CheckpointError, MissingAssetError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for key, value in overridden.items() if rank.main else ():
        print(f"[LocoLab] Override: {key}={value!r}")
    agent_cfg.run_name = args.run_name
    try:
        join(rank, args.device)
        log_dir = from_rank_zero(run_dir(args.log_root, agent_cfg.experiment_name, args.run_name))
        env_cfg.log_dir = log_dir
        return train_in_run_dir(args, task, env_cfg, agent_cfg, resume, teacher, log_dir, rank, init_from)
    except RanksDivergedError as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        return 1
    except (RuntimeError, torch.distributed.DistError) as error:
        if not rank.distributed or (message := lost_rank_message(error, rank)) is None:
            raise
        print(message, file=sys.stderr, flush=True)
        return 1
    finally:
        leave()


def quietly(function, *args):
    """``function(*args)`` with its prints dropped (ranks other than 0 repeat nothing rank 0 says)."""
    with contextlib.redirect_stdout(io.StringIO()):
        return function(*args)


def planned_iterations(runner, max_iterations: int, resumed: bool, more: int | None = None) -> int:
    """Iterations ``learn`` runs: ``more`` (``--max_iterations N``: on a resume N more) when given, else a fresh run's
    ``max_iterations`` and a resumed run the rest of its plan, up to iteration ``max_iterations - 1`` (rsl_rl's
    ``learn(n)`` always runs n more, so an interrupted run resumed plainly would train a whole plan again, schedules and
    all). A resumed run past its plan trains none: ``current_learning_iteration`` steps back to the checkpoint's own
    (loading sets the next one)."""
    if more is not None:
        return more
    if not resumed:
        return max_iterations
    if left := plan_left(runner.current_learning_iteration, max_iterations):
        return left
    runner.current_learning_iteration -= 1
    return 0


def plan_left(next_iteration: int, max_iterations: int) -> int:
    """Iterations of a plan of ``max_iterations`` still to run when the next one is ``next_iteration``."""
    return max(0, max_iterations - next_iteration)


def train_in_run_dir(args: argparse.Namespace, task: str, env_cfg, agent_cfg, resume, teacher, log_dir: str,
                     rank: Rank, init_from=None) -> int:
    """:func:`train` once the configs are checked and the run directory named (rank 0 alone writes it)."""
    with (open_training_env(task, env_cfg, env_cfg.sim_processes, agent_cfg.clip_actions,
                            getattr(args, "frontend", "torch")) as env,
          periodic_evaluation(task, env_cfg, agent_cfg) if rank.main else contextlib.nullcontext() as evaluator):
        try:
            runner = build_runner(env, agent_cfg, log_dir, evaluator)
        except ActionBoundsError as error:
            print(f"error: agent.actor.{error}", file=sys.stderr)
            return 2
        try:
            if resume is not None:
                runner.load(str(resume))
                if rank.main:
                    print(f"[LocoLab] Resumed from {resume} at iteration {runner.current_learning_iteration}")
                    print(f"[LocoLab] Resumed state: {json.dumps(runner.training_state())}")
            if teacher is not None:
                runner.load(str(teacher), load_cfg={"teacher": True})
                print(f"[LocoLab] Finetuning the student of teacher {teacher}")
            if init_from is not None:
                grown = warm_start(runner, read_checkpoint(init_from, map_location=runner.device), str(init_from))
                if rank.main:
                    print(f"[LocoLab] Networks start from {init_from}; grown (new inputs and units at zero weight): "
                          f"{', '.join(grown) or 'none'}")
        except (CheckpointError, WarmStartError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if rank.main:
            dump_yaml(os.path.join(log_dir, "params", "env.yaml"), env_cfg)
            dump_yaml(os.path.join(log_dir, "params", "agent.yaml"), agent_cfg)
            print(started_line(task, env_cfg, agent_cfg, log_dir, rank), flush=True)
        gate = getattr(agent_cfg, "walking_gate", None)
        iterations = planned_iterations(runner, agent_cfg.max_iterations, resumed=resume is not None,
                                        more=args.max_iterations)
        try:
            if gate is not None and gate.extra_iterations > 0:
                # the checks play the task as given (its -Play variant, MuJoCo-Warp), not the training's engine
                learn_until_walking(runner, iterations, gate,
                                    play_checks(args.task, env_cfg.sim.device, gate.play_seconds,
                                                gate.terrain_tiles, terrain_min_success=gate.terrain_min_success),
                                    init_at_random_ep_len=agent_cfg.init_at_random_ep_len, main=rank.main,
                                    planned_last=agent_cfg.max_iterations - 1)
            else:
                runner.learn(iterations, init_at_random_ep_len=agent_cfg.init_at_random_ep_len)
        except TrainingInterrupted:
            return STOPPED_EXIT_CODE
        except NonFiniteUpdateError as error:
            print(f"error: {'; '.join([str(error), *getattr(error, '__notes__', [])])}. Lower "
                  "agent.algorithm.learning_rate or check the task's rewards and observations.", file=sys.stderr)
            return 1
    if rank.main:
        print(f"[LocoLab] Done: {log_dir}")
    return 0
