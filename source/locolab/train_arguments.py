"""Checks of train.py's arguments that need no simulator: a mistyped flag fails at once, before the seconds that
importing Isaac Lab takes."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
"""A folder name that stays where it is put: no separator, no leading dot (so no '..')."""


def check_folder_name(value: str, what: str) -> None:
    """A ValueError unless ``value`` is a plain folder name (``what`` names the flag or setting)."""
    if not PLAIN_NAME.fullmatch(value):
        raise ValueError(f"{what} '{value}' must be a plain folder name (letters, digits, '_', '-', '.', not starting "
                         "with '.'): it names a folder inside the log root, never a path.")

FRONTENDS = ("torch", "warp")
"""``--frontend``: Isaac Lab's stable (torch) managers, or its Warp frontend's (:mod:`locolab.envs.warp_frontend`)."""
SEED_RANGE = (0, 2**32 - 1)
"""Seeds numpy, torch and Warp accept alike."""


def check_arguments(args: argparse.Namespace) -> None:
    """Numbers in range and combinations of --agent, --phase, --teacher and --resume that make sense, else a
    ValueError saying why."""
    if args.max_iterations is not None and args.max_iterations < 1:
        raise ValueError(f"--max_iterations must be at least 1, got {args.max_iterations}.")
    if args.seed is not None and not SEED_RANGE[0] <= args.seed <= SEED_RANGE[1]:
        raise ValueError(f"--seed must be between {SEED_RANGE[0]} and {SEED_RANGE[1]}, got {args.seed}.")
    if args.run_name:
        check_folder_name(args.run_name, "--run_name")
    if Path(args.log_root).exists() and not Path(args.log_root).is_dir():
        raise ValueError(f"--log_root '{args.log_root}' is a file: give a folder (it is created when missing).")
    if args.agent != "roa" and (args.phase != "train" or args.teacher):
        raise ValueError("--phase finetune and --teacher belong to --agent roa.")
    if args.collector is not None and args.agent != "sac":
        raise ValueError("--collector belongs to --agent sac.")
    if args.phase == "finetune" and not (args.teacher or args.resume):
        raise ValueError("--phase finetune starts from a train-phase checkpoint: give --teacher <run dir or "
                         "model_<it>.pt> (or --resume a finetune run).")
    if args.init_from and (args.resume or args.teacher or args.agent == "sac"):
        raise ValueError("--init_from starts a new PPO, recurrent PPO or PPO-ROA teacher run: use it without "
                         "--resume and --teacher, and not with --agent sac.")
    if args.teacher and (args.phase != "finetune" or args.resume):
        raise ValueError("--teacher starts a new finetune run: use it with --phase finetune and without --resume.")
