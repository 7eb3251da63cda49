"""When a policy walks: the fixed-command checks of the CPU-walking milestone, in one place, and playing a checkpoint
under them.

Each check is a play (:func:`locolab.eval.play.play`, what ``play.py --command VX VY WZ`` runs) on a ``-Play`` task
(no pushes, no noise) and a condition on its summary. train.py's walking gate (:mod:`locolab.runners.walking_gate`),
``benchmark.py --time_to_walk`` and the README use these; tests read them rather than restating numbers. Each play runs
in a fresh process of its own (Isaac Lab runs one simulation per process), at low priority on one thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import torch

from locolab.envs import play_variant
from locolab.fresh_process import in_fresh_process, map_side_by_side, silence_output

from locolab.runners import checkpoint_policy, read_checkpoint, resolve_checkpoint

from .play import play
from .robustness import terrain_rows
from .terrain_sweep import plan_tiles
from .walking_checks import WALKING_CHECKS, WalkingCheck

PLAY_NUM_ENVS = 16
PLAY_SECONDS = 20.0


EVALUATION_NICENESS = 10
"""An evaluation runs at this lower CPU priority, on one torch thread, so that it takes the cores only when
training leaves them idle. Measured on 2 cores: while a default-priority evaluation ran beside a training run, the
trainer's two-thread update took 2.3-13.5 s instead of 0.83 s, and a rollout took 5.9 s instead of 3.1 s."""
GAIT_METRICS = ("touchdown_rate", "diagonal_contact_agreement", "lateral_contact_agreement")
"""Reported beside each check: whether the mean action trots or shuffles (locolab.envs.metrics)."""
CONTROL_DT = 0.02
"""The tasks' control period [s]: a check plays ``PLAY_SECONDS / CONTROL_DT`` steps."""


def _evaluation_process() -> None:
    """A play's process: low priority, one thread, its printing (the play's and Isaac Lab's) discarded."""
    os.nice(EVALUATION_NICENESS)
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
    silence_output()


def in_evaluation_process(function: Callable, *args, **kwargs):
    """``function(*args, **kwargs)`` in a fresh process (:func:`_evaluation_process`); its result, or its exception."""
    return in_fresh_process(function, *args, initializer=_evaluation_process, **kwargs)


def play_summary(checkpoint: Path, command: tuple[float, float, float], task: str, device: str,
                 seed: int = 0, seconds: float = PLAY_SECONDS, flat_ground: bool = False) -> dict:
    """The summary of playing ``checkpoint`` under ``command`` (16 envs, 20 s) in its own evaluation process
    (``flat_ground``: a rough task on a plane)."""
    return in_evaluation_process(play, task, checkpoint=checkpoint, device=device, num_envs=PLAY_NUM_ENVS,
                                 steps=round(seconds / CONTROL_DT), seed=seed,
                                 command=[str(c) for c in command], flat_ground=flat_ground, echo=None)


def evaluate_walking(checkpoint: Path, task: str, device: str, seed: int = 0, plays_at_once: int = 1,
                     seconds: float = PLAY_SECONDS, flat_ground: bool = False) -> tuple[bool, list[dict]]:
    """Play ``checkpoint`` under the walking checks (play seed ``seed``), ``plays_at_once`` checks at a time, each in
    its own process, in their order; stop after the first group with a failure.

    One at a time beside a training run; train.py's gate, where training stands still while it plays, runs one per
    core: each play's physics runs on one thread (Warp's CPU kernels), so on 2 cores forward and turning play together
    (the gate's three plays on a walking checkpoint: 196 s against 246 s one at a time; a play's start-up is not all
    one thread)."""
    results = []
    for first in range(0, len(WALKING_CHECKS), plays_at_once):
        group = WALKING_CHECKS[first:first + plays_at_once]
        summaries = map_side_by_side(
            lambda check: play_summary(checkpoint, check.command, task, device, seed, seconds, flat_ground), group)
        results += [check_result(check, summary) for check, summary in zip(group, summaries)]
        if any(result["failures"] for result in results):
            return False, results
    return True, results


def check_result(check: WalkingCheck, summary: dict) -> dict:
    """One check's verdict with the play summary's figures it was judged on and the gait it played."""
    return {**check.verdict(summary), **{key: summary.get("metrics", {}).get(key) for key in GAIT_METRICS}}


def tile_groups(tiles: tuple, groups: int) -> list[tuple]:
    """``tiles`` (``(type, value)`` pairs) in at most ``groups`` consecutive groups of near-equal size, in order."""
    groups = max(1, min(groups, len(tiles)))
    bounds = [index * len(tiles) // groups for index in range(groups + 1)]
    return [tuple(tiles[start:stop]) for start, stop in zip(bounds, bounds[1:])]


def _tile_plan(tiles: tuple) -> list:
    """:func:`plan_tiles` for ``(type, value)`` pairs."""
    kinds = list(dict.fromkeys(kind for kind, _ in tiles))
    return plan_tiles(kinds, values={kind: tuple(value for other, value in tiles if other == kind) for kind in kinds})


def terrain_checks(checkpoint: Path, device: str, seed: int, tiles: tuple, min_success: float,
                   seconds: float = PLAY_SECONDS, plays_at_once: int = 1) -> list[dict]:
    """The terrain sweep's ``(type, value)`` tiles played by ``checkpoint``'s acting policy (``seconds``) in
    evaluation processes, ``plays_at_once`` of them side by side with a share of the tiles each (a play's physics runs
    on one thread): one verdict per tile, failing under ``min_success`` of its robots crossing it."""
    checkpoint = resolve_checkpoint(checkpoint)  # a run directory: its latest
    agent, _, acting = checkpoint_policy(read_checkpoint(checkpoint), None)  # PPO-ROA: the phase's acting policy
    groups = tile_groups(tuple(tiles), plays_at_once)
    rows = [row for group in map_side_by_side(
        lambda group: in_evaluation_process(terrain_rows, [checkpoint], _tile_plan(group), device, seed,
                                            acting if agent == "roa" else None, seconds), groups)
            for row in group]
    return [{"check": f"terrain {row['terrain']} {row['value']:g}", "success": row["success"], "falls": row["fall"],
             "failures": [] if row["success"] >= min_success else
             [f"terrain {row['terrain']} {row['value']:g}: success {row['success']:.2f} not >= {min_success}"]}
            for row in rows]


def play_checks(task: str, device: str, seconds: float = PLAY_SECONDS, terrain_tiles: tuple = (), *,
                terrain_min_success: float) -> Callable[[Path, int], tuple[bool, list[dict]]]:
    """The walking checks on ``task``'s ``-Play`` variant as train.py's walking gate plays them (``seconds`` each), one
    play per core (training stands still meanwhile); with ``terrain_tiles`` on flat ground, then those tiles, each
    crossed by ``terrain_min_success`` of its robots (the gate config's, which holds the one default)."""
    play_task = play_variant(task)
    plays_at_once = os.cpu_count() or 1

    def evaluate(checkpoint: Path, seed: int) -> tuple[bool, list[dict]]:
        walked, checks = evaluate_walking(checkpoint, play_task, device, seed, plays_at_once=plays_at_once,
                                          seconds=seconds, flat_ground=bool(terrain_tiles))
        if walked and terrain_tiles:
            checks += terrain_checks(checkpoint, device, seed, terrain_tiles, terrain_min_success, seconds,
                                     plays_at_once=plays_at_once)
        return walked and not any(check["failures"] for check in checks), checks

    return evaluate
