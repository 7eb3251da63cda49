"""Time to walking: train, evaluate each checkpoint as it is written, stop at the first one that walks.

Training runs as ``scripts/train.py`` in a subprocess; whenever it writes a newer ``model_<it>.pt`` the newest one is
played under the fixed commands of :data:`locolab.eval.walking.WALKING_CHECKS` (a ``play.py --command`` play each in
its own process, :func:`locolab.eval.walking.evaluate_walking`, stopping at the first check it fails). The wall-clock
minutes are those from the start of the training process to the checkpoint's write; evaluation runs beside training,
at low priority on one thread, and is not counted. When a checkpoint walks, training is stopped with SIGINT (it saves
and exits). The report's
``cores_used`` is the training process tree's CPU time (trainer and simulation processes, not the evaluations) over
its wall time, sampled at each poll: 1.0 is one core busy. Ctrl-C (SIGINT) stops training the same way and still
returns the report so far, marked ``interrupted``. On flat ground a CPU training without ``--max_iterations`` has
train.py's walking gate (:mod:`locolab.runners.walking_gate`): past its planned iterations it pauses to play its own
checks, and those pauses count in the minutes (and its plays in ``cores_used``), as they do for a user. The caller
names the folder holding ``train.py`` (a script of the checkout, not part of the installed package); it runs with the
checkout as working folder.

:func:`time_to_walk_of_run` measures a run that has already finished, e.g. one trained on a lent GPU whose device time
is too short to play checkpoints beside training: its checkpoints are played in order with the same checks, and the
minutes are read from its TensorBoard events (an iteration's wall clock against the run's first event, so the process
start-up before training is not counted, unlike the live measurement). A run stopped and resumed is measured across its
run directories (the first, then each resume's: :func:`locolab.eval.learning_curve.continued` joins their minutes).
A run whose walking gate has terrain tiles (the rough CPU runs) is judged by its own gate: the walking checks on flat
ground, then the tiles (:func:`locolab.eval.walking.play_checks`). Its checkpoints say which task they trained on, and
they play on that task's ``-Play`` variant; a task given that differs is refused before anything plays.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from locolab.envs.factory import play_variant
from locolab.eval.learning_curve import continued
from locolab.eval.walking import evaluate_walking, play_checks
from locolab.run_params import read_run_params
from locolab.runners.checkpoints import read_checkpoint
from locolab.stop_signal import STOPPED_EXIT_CODE
from locolab.task_ids import base_task

from .launcher import run_dirs, start_training, stop_training, train_command
from .processes import tree_cpu_seconds
from .tensorboard import read_scalar

CHECKPOINT_PATTERN = re.compile(r"model_(\d+)\.pt$")


def samples_per_iteration(run_dir: Path) -> int:
    """Environment steps one training iteration collects, from the run's saved configs."""
    env, agent = read_run_params(run_dir, "env"), read_run_params(run_dir, "agent")
    return int(env["scene"]["num_envs"]) * int(agent["num_steps_per_env"])


def newest_checkpoint(run_dir: Path) -> tuple[int, Path] | None:
    found = checkpoints_in_order(run_dir)
    return found[-1] if found else None


def checkpoints_in_order(run_dir: Path) -> list[tuple[int, Path]]:
    """Every ``model_<it>.pt`` of ``run_dir`` (not those still being written), by iteration."""
    return sorted((int(m.group(1)), p) for p in run_dir.glob("model_*.pt") if (m := CHECKPOINT_PATTERN.search(p.name)))


def training_minutes(run_dirs: list[Path], tag: str = "Perf/total_fps") -> dict[int, float]:
    """Minutes from the run's first TensorBoard event to the logging of each iteration's ``tag`` (one per iteration),
    by iteration, across a run's directories (a resume's minutes continue its predecessor's, :func:`continued`). The
    run's checkpoint of an iteration is written right after that iteration is logged."""
    for run_dir in run_dirs:
        if not any(run_dir.glob("events.out.tfevents.*")):
            raise ValueError(f"{run_dir} has no TensorBoard events: pass the run directory that holds them")
    segments = [read_scalar(run_dir, tag) for run_dir in run_dirs]
    joined = continued(segments)
    return {iteration: minute - segments[0].writer_start_minutes
            for iteration, minute in zip(joined.iterations, joined.minutes)}


def run_judge(run_dir: Path, play_task: str, device: str) -> Callable[[Path], tuple[bool, list[dict]]]:
    """How a run's checkpoints are judged, from its saved agent config: by its own walking gate where that has
    terrain tiles (its play seed and seconds), else by the walking checks, one play at a time (training may be
    running beside them)."""
    agent = read_run_params(run_dir, "agent")
    gate = agent.get("walking_gate") or {}
    if not gate.get("terrain_tiles"):
        return lambda checkpoint: evaluate_walking(checkpoint, play_task, device)
    tiles = tuple(tuple(tile) for tile in gate["terrain_tiles"])
    checks = play_checks(play_task, device, gate["play_seconds"], tiles,
                         terrain_min_success=gate["terrain_min_success"])
    return lambda checkpoint: checks(checkpoint, gate["play_seed"])


def trained_task(checkpoint: Path, task: str | None = None) -> str:
    """The task ``checkpoint`` trained on (a CPU variant as its base task): ``task`` where the checkpoint does not
    record one; a ValueError when neither says, or when ``task`` is given and differs (a CheckpointError when the file
    cannot be read)."""
    saved = read_checkpoint(checkpoint).get("task")
    if saved is None:
        if task is None:
            raise ValueError(f"'{checkpoint}' does not record its task: give --task")
        return task
    if task is not None and base_task(task) != base_task(saved):
        raise ValueError(f"'{checkpoint}' was trained on --task {base_task(saved)}, not --task {task}: give --task "
                         f"{base_task(saved)} or leave --task out")
    return base_task(saved)


def time_to_walk_of_run(run_dirs: Path | list[Path], task: str | None, device: str, first_iteration: int = 0) -> dict:
    """Play a finished run's checkpoints (``run_dirs``: its directory, or the first and each resume's) from
    ``first_iteration`` on, in order, under its checks (:func:`run_judge`) on the ``-Play`` variant of the task they
    trained on (:func:`trained_task`: ``task`` must be that one if given); stop at the first that walks. Minutes are
    training time (:func:`training_minutes`); a checkpoint with no logged iteration (one saved on an interrupt after
    the last log) gets the last logged minute."""
    run_dirs = [run_dirs] if isinstance(run_dirs, Path) else list(run_dirs)
    for run_dir in run_dirs:
        if not (run_dir / "params").is_dir():
            raise ValueError(f"{run_dir} is not a run directory (no params/ in it): pass logs/<experiment>/<run>")
    found = {it: path for run_dir in run_dirs for it, path in checkpoints_in_order(run_dir)}  # a resume's win
    checkpoints = sorted((it, path) for it, path in found.items() if it >= first_iteration)
    if not checkpoints:
        raise ValueError(f"{', '.join(map(str, run_dirs))} has no model_<it>.pt at or after iteration "
                         f"{first_iteration}")
    task = trained_task(checkpoints[-1][1], task)
    minutes = training_minutes(run_dirs)
    per_iteration = samples_per_iteration(run_dirs[0])
    judge = run_judge(run_dirs[-1], play_variant(task), device)
    report = {"task": task, "run": ",".join(map(str, run_dirs)),
              "minutes_from": "the run's first TensorBoard event (start-up not counted)",
              "walked": False, "evaluations": []}
    for iteration, checkpoint in checkpoints:
        if evaluate_into(report, iteration, checkpoint, minutes.get(iteration, minutes[max(minutes)]),
                         (iteration + 1) * per_iteration, judge):
            break
    return report


def evaluate_into(report: dict, iteration: int, checkpoint: Path, minutes: float, samples: int,
                  judge: Callable[[Path], tuple[bool, list[dict]]]) -> bool:
    """Judge ``checkpoint`` (:func:`run_judge`), append (and print) its evaluation to ``report``, and when it walks
    record it as the report's result; returns whether it walked."""
    walked, results = judge(checkpoint)
    report["evaluations"].append({"iteration": iteration, "minutes": round(minutes, 2), "samples": samples,
                                  "walked": walked, "checks": results})
    print(json.dumps(report["evaluations"][-1]), flush=True)
    if walked:
        report.update(walked=True, minutes_to_walk=round(minutes, 2), samples_to_walk=samples, iteration=iteration,
                      checkpoint=str(checkpoint))
    return walked


def time_to_walk(train_args: list[str], log_root: Path, play_task: str, device: str, max_minutes: float,
                 scripts: Path, poll_s: float = 10.0) -> dict:
    """Train with ``scripts/train.py train_args`` under ``log_root`` until a checkpoint walks or time runs out."""
    log_root.mkdir(parents=True, exist_ok=True)
    args = ["--device", device, "--log_root", str(log_root), *train_args]
    start = time.time()
    process = start_training(scripts, args, log_root / "train.log")
    # cores_used stays 0.0 until the tree's CPU time reads above zero (10 ms ticks: a trainer that has just started
    # can read 0), and is not overwritten once the tree has exited and reads 0 again
    report = {"train_command": train_command(scripts, *args)[1:], "walked": False, "evaluations": [],
              "cores_used": 0.0}
    try:
        _watch(process, report, start, log_root, play_task, device, max_minutes, poll_s)
    except KeyboardInterrupt:  # Ctrl-C ends the measurement, not the report
        report["interrupted"] = True
    finally:
        stop_training(process)
    report["wall_minutes"] = round((time.time() - start) / 60.0, 2)
    return report


def _watch(process: subprocess.Popen, report: dict, start: float, log_root: Path, play_task: str, device: str,
           max_minutes: float, poll_s: float) -> None:
    """Evaluate each newest checkpoint into ``report`` until one walks, training ends or ``max_minutes`` pass."""
    evaluated, judge = -1, None
    while True:
        if (cpu := tree_cpu_seconds(process.pid)) > 0.0:
            report["cores_used"] = round(cpu / (time.time() - start), 2)
        finished = process.poll() is not None
        runs = run_dirs(log_root)
        newest = newest_checkpoint(runs[-1]) if runs else None
        if newest is not None and newest[0] > evaluated:
            iteration, checkpoint = newest
            evaluated = iteration
            minutes = (checkpoint.stat().st_mtime - start) / 60.0
            samples = (iteration + 1) * samples_per_iteration(runs[-1])
            judge = judge or run_judge(runs[-1], play_task, device)  # the run's saved config, read once
            if evaluate_into(report, iteration, checkpoint, minutes, samples, judge):
                report["run"] = str(runs[-1])
                return
            continue
        if finished:
            if process.returncode not in (0, STOPPED_EXIT_CODE):
                raise RuntimeError(f"training failed (exit {process.returncode}); see {log_root / 'train.log'}")
            return
        if (time.time() - start) / 60.0 > max_minutes:
            return
        time.sleep(poll_s)
