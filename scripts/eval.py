"""Evaluate trained policies over robustness sweeps and write a report with plots.

    python scripts/eval.py --checkpoint logs/locolab_go2_flat/<run> logs/locolab_go2_flat_roa_finetune/<run> \\
        --sweep all --episodes 8 --out logs/eval/report1

Each checkpoint (a model_<it>.pt or a run directory: its latest) gives its policy; a PPO-ROA finetune checkpoint
gives its teacher and its student (``--policy`` picks one). Every grid point of every sweep (friction, payload, motor
strength, contact softness, the sim-to-real effects, pushes, forward command; values inside and outside the training
ranges) runs on its own slice of
``--episodes`` environments of the task's -Play variant, in one vectorised run per policy, with the same reset seed
for every policy. Writes ``results.csv``, ``plots/<sweep>.png`` and ``report.md`` under ``--out``;
``--step_csv`` adds ``steps/<policy>.csv`` (one row per env per step: every metric and reward term).
``--sweep terrain`` (alone; rough-terrain policies) runs each terrain type at fixed difficulties instead
(``--terrain_types``; locolab.eval.terrain_sweep): success = 3 m from the tile's centre without a fall.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from locolab.stop_signal import stops_on_signal

ROBUSTNESS_EPISODES = 8
"""Environments per grid point of the robustness sweeps when --episodes is not given."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", nargs="+", required=True, help="model_<it>.pt files or run directories")
    parser.add_argument("--policy", choices=("teacher", "student"), default=None,
                        help="PPO-ROA checkpoints: only this actor (default: teacher and student of finetune runs)")
    parser.add_argument("--sweep", nargs="+", default=["all"],
                        help="friction, payload, motor, contact, torsional, rolling, joint_damping, joint_friction, "
                             "delay, gyro_bias, push, command or all; or terrain (alone)")
    parser.add_argument("--terrain_types", nargs="+", default=None,
                        help="the terrain sweep's types: stairs_up, stairs_down, slope_up, slope_down, boxes, rough "
                             "(default all)")
    parser.add_argument("--grid", nargs="+", default=[], metavar="NAME=V1,V2", help="replace a sweep's grid values "
                        "(terrain: a type's difficulties, e.g. stairs_down=0.05,0.08)")
    parser.add_argument("--episodes", type=int, default=None, help="environments (first episodes) per grid point "
                        f"(default {ROBUSTNESS_EPISODES}; terrain: robots per tile, default 16)")
    parser.add_argument("--seconds", type=float, default=None, help="run this long instead of one full episode")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: cuda if available)")
    parser.add_argument("--step_csv", action="store_true", help="also write one row per env per step")
    parser.add_argument("--out", default="logs/eval/report", help="output folder (default logs/eval/report)")
    return parser.parse_args(argv)


@stops_on_signal("Stopped by a signal; the report is not complete.")
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from locolab.envs import MissingAssetError, resolve_device
    from locolab.eval.robustness import evaluate_robustness, evaluate_terrain
    from locolab.eval.sweeps import parse_grid_overrides, parse_sweeps
    from locolab.eval.terrain_sweep import ROBOTS_PER_TILE, parse_terrain_types, plan_tiles
    from locolab.runners import CheckpointError, resolve_checkpoint

    try:
        if args.episodes is not None and args.episodes < 1:
            raise ValueError(f"--episodes must be at least 1, got {args.episodes}.")
        if args.seconds is not None and not args.seconds > 0:
            raise ValueError(f"--seconds must be positive, got {args.seconds}.")
        terrain = "terrain" in args.sweep
        if terrain and len(args.sweep) > 1:
            raise ValueError("--sweep terrain runs alone (its terrain replaces the task's): drop the other sweeps.")
        if terrain and args.step_csv:
            raise ValueError("--step_csv is for the robustness sweeps; the terrain sweep writes one row per tile.")
        sweeps = parse_terrain_types(args.terrain_types) if terrain else parse_sweeps(args.sweep)
        grids = parse_grid_overrides(args.grid, parse_terrain_types if terrain else parse_sweeps)
        if unswept := sorted(set(grids) - set(sweeps)):
            raise ValueError(f"--grid names {', '.join(unswept)}, which "
                             f"{'--terrain_types' if terrain else '--sweep'} does not include.")
        tiles = plan_tiles(sweeps, args.episodes or ROBOTS_PER_TILE, grids) if terrain else None
        checkpoints = [resolve_checkpoint(path).resolve() for path in args.checkpoint]
        device = resolve_device(args.device)
        if terrain:
            report = evaluate_terrain(checkpoints, tiles, Path(args.out), device, args.seed, policy=args.policy,
                                      seconds=args.seconds)
        else:
            report = evaluate_robustness(checkpoints, sweeps, args.episodes or ROBUSTNESS_EPISODES, Path(args.out),
                                         device, args.seed, policy=args.policy, seconds=args.seconds, grids=grids,
                                         step_csv=args.step_csv)
    except (ValueError, CheckpointError, MissingAssetError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"[LocoLab] Report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
