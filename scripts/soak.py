"""Soak benchmark: train for a long time and record memory, open files and iteration time (locolab.bench.soak).

    python scripts/soak.py --minutes 120 --out soak.json -- --seed 1          # train.py with these arguments
    python scripts/soak.py --attach <pid> --run_dir logs/<exp>/<run> --minutes 60 --out soak.json

Launched, training runs as ``scripts/train.py`` (its output in ``<out>.train.log``) and is stopped with SIGINT (it
saves and exits) when the time is up. Attached, an existing training process is watched and left running. The JSON
(rewritten after every sample, printed at the end) holds every sample and the growth of resident memory, open files,
threads and iteration time between the second and the last quarter of the soak. Not part of ``make test``: a short
soak is (tests/test_soak.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, required=True, help="length of the soak")
    parser.add_argument("--sample_s", type=float, default=60.0, help="seconds between samples")
    parser.add_argument("--out", type=Path, required=True, help="JSON report")
    parser.add_argument("--attach", type=int, default=None, help="watch this running training process")
    parser.add_argument("--run_dir", type=Path, default=None, help="--attach: the run directory it writes")
    parser.add_argument("train_args", nargs="*", help="after --: train.py's arguments")
    args = parser.parse_args(argv)
    if (args.attach is None) != (args.run_dir is None):
        parser.error("--attach and --run_dir go together.")
    if args.minutes <= 0 or args.sample_s <= 0:
        parser.error("--minutes and --sample_s must be positive.")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from locolab.bench.soak import soak, soak_training

    if args.attach is not None:
        report = soak(args.attach, args.run_dir, args.minutes * 60.0, args.sample_s, args.out)
    else:
        report = soak_training(SCRIPTS, args.train_args, args.minutes * 60.0, args.sample_s, args.out)
    print(json.dumps({key: value for key, value in report.items() if key != "samples"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
