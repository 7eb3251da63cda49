"""Throughput of a LocoLab task, in env-steps/s, printed as one JSON object (last line of stdout); or, with
--time_to_walk, the minutes and samples to the first checkpoint that walks.

    python scripts/benchmark.py --task LocoLab-Velocity-Flat-Go2 --num_envs 64 --device cpu
The figures (random-action simulation, each trainer's training steps, their ratios): locolab.bench.throughput.

    # one physics setting against the profile's: run twice, with and without the override
    python scripts/benchmark.py --num_envs 256 --trainers none --sim_override env.sim.physics.solver_cfg.solver=cg
    python scripts/benchmark.py --time_to_walk --train_args "--agent roa"   # minutes and samples to walking

``--time_to_walk`` trains instead (locolab.bench.time_to_walk): every checkpoint, as it is written, is played under the
walking checks (a rough run: its own gate). ``--run RUN[,RESUMED_RUN]`` trains nothing: a finished run's checkpoints
are played in order from ``--first_iteration``, the minutes read from its TensorBoard events:
    python scripts/benchmark.py --time_to_walk --device cpu --run logs/<experiment>/<run> --first_iteration 200
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from locolab.bench.launcher import TRAINERS
from locolab.stop_signal import stops_on_signal

SCRIPTS = Path(__file__).resolve().parent
DEFAULT_TASK = "LocoLab-Velocity-Flat-Go2"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default=None, help=f"default: {DEFAULT_TASK}; --run: the task the run trained on")
    parser.add_argument("--num_envs", type=int, default=64)
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: cuda if available, else cpu)")
    parser.add_argument("--sim_steps", type=int, default=200, help="random-action env steps to time")
    parser.add_argument("--iterations", type=int, default=5, help="training iterations per trainer run (>= 2)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each trainer, alternating")
    parser.add_argument("--output", default=None, help="also write the JSON here")
    parser.add_argument("--trainers", type=trainer_names, default=TRAINERS, help="comma-separated trainers to "
                        f"time (default: all: {','.join(TRAINERS)}; none: the simulation only); "
                        "train_vs_stock_ratio needs train and stock_train")
    parser.add_argument("--sim_override", action="append", default=[], metavar="KEY=VALUE", help="an override of "
                        "the profile-physics random-action simulation (repeatable; the JSON's sim_overrides)")
    parser.add_argument("--time_to_walk", action="store_true", help="train until a checkpoint walks (see above)")
    parser.add_argument("--max_minutes", type=float, default=180.0, help="--time_to_walk: give up after this long")
    parser.add_argument("--train_args", default="", help="--time_to_walk: more train.py arguments, one string")
    parser.add_argument("--log_root", default="logs/time_to_walk", help="--time_to_walk: where the run goes")
    parser.add_argument("--run", default=None, help="--time_to_walk: a finished run (RUN,RESUMED_RUN) to measure")
    parser.add_argument("--first_iteration", type=int, default=0, help="--run: skip checkpoints before this iteration")
    return parser.parse_args(argv)


def trainer_names(text: str) -> tuple[str, ...]:
    """``--trainers``' comma-separated names, each one of ``TRAINERS``; ``none``: time the simulation only."""
    if text == "none":
        return ()
    names = tuple(name for name in text.split(",") if name)
    unknown = [name for name in names if name not in TRAINERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown trainer(s) {','.join(unknown) or '(none)'}: choose from "
                                         f"{','.join(TRAINERS)}")
    return names


@stops_on_signal("Stopped by a signal; no figures were written.")
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    given_task, args.task = args.task, args.task or DEFAULT_TASK
    if problem := ("--iterations must be at least 2 (the first is dropped as warm-up)." if args.iterations < 2 else
                   "--repeats, --sim_steps and --num_envs must be at least 1."
                   if min(args.repeats, args.sim_steps, args.num_envs) < 1 else
                   "--run names a finished run for --time_to_walk; add --time_to_walk."
                   if args.run and not args.time_to_walk else None):
        return _error(problem, 2)
    from locolab.bench.throughput import sim_cfgs, throughput
    from locolab.bench.time_to_walk import time_to_walk, time_to_walk_of_run
    from locolab.envs import play_variant, resolve_device

    try:
        device = resolve_device(args.device)
    except ValueError as error:
        return _error(error, 2)
    if args.sim_override:
        try:
            sim_cfgs(args.task, args.num_envs, device, overrides=args.sim_override)  # fail before anything runs
        except ValueError as error:  # an OverrideError, or a bad physics engine
            return _error(f"--sim_override: {error}", 2)
    if args.time_to_walk and args.run:
        try:
            report = time_to_walk_of_run(list(map(Path, args.run.split(","))), given_task, device, args.first_iteration)
        except (ValueError, RuntimeError) as error:  # RuntimeError: a CheckpointError (an unreadable checkpoint)
            return _error(f"--run: {error}", 2)
        return _emit({"device": device, **report}, args.output)
    if args.time_to_walk:
        report = time_to_walk(["--task", args.task, *shlex.split(args.train_args)], Path(args.log_root),
                              play_variant(args.task), device, args.max_minutes, scripts=SCRIPTS)
        return _emit({"task": args.task, "device": device, **report}, args.output)
    try:
        return _emit(throughput(args, device, SCRIPTS), args.output)
    except (RuntimeError, ValueError) as error:
        return _error(error, 1)


def _error(message, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _emit(result: dict, output: str | None) -> int:
    text = json.dumps(result)
    if output:
        Path(output).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
