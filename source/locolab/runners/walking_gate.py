"""Train until the final checkpoint walks: the planned iterations, then the walking checks on the last checkpoint and,
while it fails them, more training in chunks, each chunk's last checkpoint checked again, up to a cap.

Why: the CPU recipe does not walk in every run (two ``make train`` runs of 2026-11-28 ended at 0.28 and 0.39 m/s under
a 0.5 m/s command), and a user who runs ``make train`` should end with a walking policy, training as long as that
takes.
The checks are :data:`locolab.eval.walking.WALKING_CHECKS`, played by the caller's ``evaluate`` (train.py passes
:func:`locolab.eval.walking.play_checks`: ``play.py --command``'s plays) exactly as the README's checks are, but with
another play seed (:attr:`WalkingGateCfg.play_seed`): the README's checks (play seed 0) stay a
measurement on robots, commands and initial states the gate did not select on.

This extends rsl_rl's runner from outside its loop: each chunk is one more ``learn`` call that continues the iteration
count, optimizer, normalisers and schedules, as a resume does. Training stands still while a checkpoint is played.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from locolab.atomic_files import write_atomically
from locolab.distributed import from_rank_zero

from .runner_cfg import WalkingGateCfg

REPORT_NAME = "walking_gate.json"
"""The gate's verdicts, in the run directory: one entry per checked checkpoint, with the seconds its plays took."""


Evaluate = Callable[[Path, int], tuple[bool, list[dict]]]
"""Plays a checkpoint (path, play seed) under the walking checks: whether it walked, and each check's summary."""


def learn_until_walking(runner, iterations: int, cfg: WalkingGateCfg, evaluate: Evaluate,
                        init_at_random_ep_len: bool = False, main: bool = True, planned_last: int = -1) -> dict:
    """``runner.learn(iterations)``, then checks and more chunks of training until a final checkpoint walks or
    ``cfg.extra_iterations`` more have run. Writes and returns the report (``walked``, ``evaluations``). Under
    torchrun rank 0 alone (``main``) plays the checks and writes the report; every rank follows its verdict.
    ``planned_last``: the plan's last iteration, so that a run resumed during its chunks keeps the plan's budget."""
    runner.learn(iterations, init_at_random_ep_len=init_at_random_ep_len)
    run_dir = Path(runner.logger.log_dir)
    last_allowed = (planned_last if planned_last >= 0 else runner.current_learning_iteration) + cfg.extra_iterations
    report = {"play_seed": cfg.play_seed, "play_seconds": cfg.play_seconds, "walked": False, "evaluations": []}
    while True:
        iteration = runner.current_learning_iteration
        started = time.monotonic()
        walked, checks = from_rank_zero(evaluate(run_dir / f"model_{iteration}.pt", cfg.play_seed) if main else None)
        seconds = round(time.monotonic() - started, 1)  # training stands still meanwhile: the gate's cost
        report["walked"] = walked
        report["evaluations"].append({"iteration": iteration, "walked": walked, "seconds": seconds, "checks": checks})
        if main:
            write_atomically(run_dir / REPORT_NAME, lambda path: path.write_text(json.dumps(report, indent=1)))
        failures = [failure for check in checks for failure in check["failures"]]
        if main:
            print(f"[LocoLab] Walking gate, iteration {iteration} ({seconds:.0f} s of plays): "
                  f"{'walks' if walked else 'does not walk (' + '; '.join(failures) + ')'}", flush=True)
        if walked or iteration >= last_allowed:
            if not walked and main:
                print(f"[LocoLab] Walking gate: no final checkpoint walked by iteration {iteration} "
                      f"({cfg.extra_iterations} past the planned ones); the verdicts are in {run_dir / REPORT_NAME}",
                      flush=True)
            return report
        runner.current_learning_iteration = iteration + 1
        runner.learn(min(cfg.chunk, last_allowed - iteration))
