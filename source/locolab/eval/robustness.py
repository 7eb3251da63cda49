"""``eval.py``: several checkpoints' policies over robustness sweeps, in one environment, into one report.

Every (checkpoint, policy) pair runs the same grid on the same environments with the same reset seed, through
:func:`locolab.eval.evaluate.evaluate_policy` (the rollout and metrics of training and ``play.py``); each grid point's
metrics are its slice's first episodes. A PPO-ROA finetune checkpoint gives its teacher and its student unless
``policy`` picks one, so a blind PPO run and a ROA run make the usual three-way comparison.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path

from locolab.envs import load_task_cfgs, open_env, play_variant
from locolab.runners import read_checkpoint
from locolab.runners.build import load_policy

from .evaluate import evaluate_policy
from .policy import checkpoint_agent, checkpoint_cfgs
from .report import write_report
from .sweeps import DYNAMICS_EVENT, GridPoint, apply_grid, plan_grid, prepare_env_cfg, read_back, sweep_infos
from .terrain_report import write_terrain_report
from .terrain_sweep import DistanceTracker, episode_outcomes, prepare_terrain_env_cfg, tile_rows


@dataclass(frozen=True)
class PolicyToEvaluate:
    checkpoint: Path
    agent: str
    phase: str
    policy: str
    label: str
    """How the report names it: ``<agent> <policy>``, numbered when several checkpoints give the same kind."""
    task: str
    """The task it trained on: its training ranges say which grid points it has seen."""


def policies_to_evaluate(checkpoints: list[Path], requested: str | None) -> tuple[str, list[PolicyToEvaluate]]:
    """The task the checkpoints play on (their training tasks' ``-Play`` variant, which must be one) and the policies
    they hold; a ValueError when they play on different tasks or a policy choice does not apply (checked before any
    environment is built). A CPU training variant plays as its base task, so a PPO run and a PPO-ROA run trained on
    their agents' own CPU variants share a report."""
    played, chosen = {}, []
    for path in checkpoints:
        saved = read_checkpoint(path)
        task = saved.get("task")
        if task is None:
            raise ValueError(f"checkpoint '{path}' does not record its task: retrain it with this LocoLab.")
        played[path] = play_variant(task)
        agent, phase, default = checkpoint_agent(saved, requested)
        names = [default] if agent != "roa" or requested or phase == "train" else ["teacher", "student"]
        chosen += [PolicyToEvaluate(path, agent, phase, name, f"{agent} {name}", task) for name in names]
    if len(set(played.values())) > 1:
        listed = ", ".join(f"'{path}' plays on {task}" for path, task in played.items())
        raise ValueError(f"checkpoints of different tasks cannot share a report ({listed}): evaluate each task "
                         "separately.")
    labels = [p.label for p in chosen]
    if len(set(labels)) < len(labels):  # the same kind of policy from several checkpoints: tell them apart
        chosen = [replace(p, label=f"{p.label} #{i}") for i, p in enumerate(chosen, start=1)]
    return next(iter(played.values())), chosen


def evaluate_robustness(checkpoints: list[Path], sweeps: list[str], episodes: int, out_dir: Path, device: str,
                        seed: int, policy: str | None = None, seconds: float | None = None,
                        grids: dict | None = None, step_csv: bool = False) -> Path:
    """Evaluate the checkpoints' policies over ``sweeps`` and write ``out_dir``'s results.csv, plots and report.md
    (and with ``step_csv`` one row per env per step in ``out_dir/steps/``); returns the report's path."""
    task, chosen = policies_to_evaluate(checkpoints, policy)
    # each training task's configs loaded once: a finetune checkpoint's teacher and student share one
    infos_of = {t: sweep_infos(load_task_cfgs(t, device=device)[0]) for t in {c.task: None for c in chosen}}
    infos = infos_of[chosen[0].task]  # the grid and the report's shaded ranges: the first checkpoint's training
    points = plan_grid(sweeps, episodes, infos, grids)
    env_cfg, _ = load_task_cfgs(task, device=device, seed=seed)
    prepare_env_cfg(env_cfg, points)
    rows = []
    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        steps = int(env.unwrapped.max_episode_length) if seconds is None else round(seconds / unwrapped.step_dt)
        for choice in chosen:
            _, agent_cfg = checkpoint_cfgs(task, choice.agent, choice.phase, device)
            runner, actor = load_policy(env, agent_cfg, choice.checkpoint, choice.policy)
            apply_grid(unwrapped, points)
            print(f"[LocoLab] Evaluating {choice.label} ({choice.checkpoint}) on {len(points)} grid points x "
                  f"{episodes} envs, {steps} steps", flush=True)
            evaluation = evaluate_policy(runner.env, actor, steps, alg=runner.alg, seed=seed, episodes_per_env=1,
                                         record_steps=step_csv)
            for point, value in zip(points, read_back(unwrapped, points)):
                rows.append({"policy": choice.label, "checkpoint": str(choice.checkpoint), "sweep": point.sweep,
                             "value": point.value, "value_read_back": value,
                             "in_training_range": _inside(value, infos_of[choice.task][point.sweep].training_range),
                             **evaluation.summary(point.envs)})
            if step_csv:
                write_step_csv(evaluation.record, points, out_dir / "steps" / f"{choice.label.replace(' ', '_')}.csv")
    return write_report(rows, {name: infos[name] for name in sweeps}, out_dir)


def evaluate_terrain(checkpoints: list[Path], tiles: list, out_dir: Path, device: str, seed: int,
                     policy: str | None = None, seconds: float | None = None) -> Path:
    """The terrain sweep (:mod:`locolab.eval.terrain_sweep`) of the checkpoints' policies on ``tiles``
    (:func:`~locolab.eval.terrain_sweep.plan_tiles`), into ``out_dir``'s results.csv, plots/terrain.png and
    report.md; returns the report's path. ``seconds`` shortens the episodes."""
    return write_terrain_report(terrain_rows(checkpoints, tiles, device, seed, policy, seconds), out_dir)


def terrain_rows(checkpoints: list[Path], tiles: list, device: str, seed: int, policy: str | None = None,
                 seconds: float | None = None) -> list[dict]:
    """Each policy's row per tile of ``tiles`` (:func:`~locolab.eval.terrain_sweep.plan_tiles`): success rate, falls,
    farthest distance."""
    task, chosen = policies_to_evaluate(checkpoints, policy)
    env_cfg, _ = load_task_cfgs(task, device=device, seed=seed)
    prepare_terrain_env_cfg(env_cfg, tiles)
    env_cfg.episode_length_s = seconds or env_cfg.episode_length_s
    rows = []
    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        for choice in chosen:
            _, agent_cfg = checkpoint_cfgs(task, choice.agent, choice.phase, device)
            runner, actor = load_policy(env, agent_cfg, choice.checkpoint, choice.policy)
            unwrapped.event_manager.get_term_cfg(DYNAMICS_EVENT).func.range_scale = 0.0  # the mid-range robot
            print(f"[LocoLab] Terrain sweep of {choice.label} ({choice.checkpoint}): {len(tiles)} tiles x "
                  f"{tiles[0].stop} robots, {int(unwrapped.max_episode_length)} steps", flush=True)
            tracker = DistanceTracker(unwrapped)
            evaluation = evaluate_policy(runner.env, actor, int(unwrapped.max_episode_length), alg=runner.alg,
                                         seed=seed, episodes_per_env=1, log_episodes=True, before_step=tracker)
            lengths, fell = episode_outcomes(evaluation.episodes(), unwrapped.num_envs, unwrapped.device)
            farthest, stopped = tracker.first_episode(lengths), tracker.stopped(lengths, fell)
            rows += [{**row, "checkpoint": str(choice.checkpoint)}
                     for row in tile_rows(tiles, farthest, fell, stopped, tracker.peak_speed(lengths), choice.label)]
    return rows


def _inside(value: float, bounds: tuple[float, float]) -> bool:
    low, high = bounds
    return low - 1e-6 <= value <= high + 1e-6


def write_step_csv(record, points: list[GridPoint], path: Path) -> None:
    """One row per environment per step: the step, the env, its grid point, reward, done and every metric."""
    path.parent.mkdir(parents=True, exist_ok=True)
    values = record.values[:record.steps].cpu()
    grid = {}
    for point in points:
        for env_id in range(point.start, point.stop):
            grid[env_id] = (point.sweep, point.value)
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["step", "env", "sweep", "value", *record.names])
        for step, row in enumerate(values.tolist()):
            for env_id, env_values in enumerate(row):
                writer.writerow([step, env_id, *grid[env_id], *env_values])
