"""Plot metrics of training runs against wall-clock minutes, from their TensorBoard events, as a PNG.

    python scripts/plot_learning_curve.py logs/locolab_go2_flat/<run> [more runs] --out learning_curve.png
    python scripts/plot_learning_curve.py RUN --tag Metrics/base_velocity/error_vel_yaw --labels "PPO"
    python scripts/plot_learning_curve.py RUN,RESUMED_RUN --tag Curriculum/terrain_levels/mean \\
        Metrics/base_velocity/error_vel_xy          # a run and its resume as one line; one panel per tag

Default metric: the linear-velocity tracking error Isaac Lab logs per iteration (Metrics/base_velocity/error_vel_xy).
Run directories joined by commas are one training stopped and resumed (each resume writes a new run directory): one
line, its minutes counting each process's time but not the gaps between them.
With --first_below VALUE it also prints, as JSON, when each run's smoothed metric (the first tag) first fell below VALUE:

    python scripts/plot_learning_curve.py RUN [more runs] --tag rollout/lin_vel_error --smooth 25 --first_below 0.45
"""

from __future__ import annotations

import argparse
import json
import sys

from locolab.bench.tensorboard import read_scalar
from locolab.eval.learning_curve import TRACKING_ERROR_TAG, continued, first_below, plot_learning_curves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="run directories (with events.out.tfevents.*); RUN,RESUMED_RUN: one")
    parser.add_argument("--tag", nargs="+", default=[TRACKING_ERROR_TAG],
                        help=f"scalars to plot, one panel each (default {TRACKING_ERROR_TAG})")
    parser.add_argument("--labels", nargs="+", default=None, help="one legend label per run (default: run names)")
    parser.add_argument("--title", default="")
    parser.add_argument("--threshold", type=float, nargs="+", default=None,
                        help="a dashed line at this value, one per tag")
    parser.add_argument("--smooth", type=int, default=1, help="moving average over this many iterations")
    parser.add_argument("--out", default="learning_curve.png")
    parser.add_argument("--first_below", type=float, default=None,
                        help="also print, per run, the first iteration at which the smoothed metric is below this")
    args = parser.parse_args(argv)
    labels = args.labels or [run.split(",")[0].rstrip("/").split("/")[-1] for run in args.runs]
    if len(labels) != len(args.runs):
        print(f"error: --labels has {len(labels)} labels for {len(args.runs)} runs.", file=sys.stderr)
        return 2
    if args.threshold is not None and len(args.threshold) != len(args.tag):
        print(f"error: --threshold has {len(args.threshold)} values for {len(args.tag)} tags.", file=sys.stderr)
        return 2
    if args.smooth < 1:
        print(f"error: --smooth must be at least 1, got {args.smooth}.", file=sys.stderr)
        return 2
    try:
        panels = [[continued([read_scalar(segment, tag) for segment in run.split(",")]) for run in args.runs]
                  for tag in args.tag]
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = plot_learning_curves(panels, labels, args.out, title=args.title, thresholds=args.threshold,
                               smooth=args.smooth)
    print(out)
    if args.first_below is not None:
        print(json.dumps([{"run": label, "tag": args.tag[0], "first_below": args.first_below,
                           **first_below(one, args.first_below, args.smooth)}
                          for one, label in zip(panels[0], labels)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
