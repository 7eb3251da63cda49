"""Throughput of a LocoLab task, in env-steps/s, printed as one JSON object (last line of stdout).

    python scripts/benchmark.py --task LocoLab-Velocity-Flat-Go2 --num_envs 64 --device cpu

Measures, in one run so that ratios compare like with like on a shared machine:
- ``sim_random_actions_steps_per_s``: the environment alone, uniform random actions (after a warm-up);
- ``train_steps_per_s``: full PPO iterations through ``scripts/train.py``;
- ``stock_train_steps_per_s``: the stock ``isaaclab train`` (rsl_rl backend) on the same task and settings.
Both trainers log rsl_rl's ``Perf/total_fps`` to TensorBoard; the first iteration (warm-up) is dropped and the rest
averaged. With ``--repeats R`` the two trainers alternate (ABBA...) and the means are taken over all runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FPS_TAG = "Perf/total_fps"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="LocoLab-Velocity-Flat-Go2")
    parser.add_argument("--num_envs", type=int, default=64)
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: cuda if available, else cpu)")
    parser.add_argument("--sim_steps", type=int, default=200, help="random-action env steps to time")
    parser.add_argument("--iterations", type=int, default=5, help="training iterations per trainer run (>= 2)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each trainer, alternating")
    parser.add_argument("--output", default=None, help="also write the JSON here")
    return parser.parse_args(argv)


def sim_steps_per_s(task: str, num_envs: int, device: str, steps: int, warmup: int = 10) -> float:
    """Env-steps/s of the environment stepped with uniform random actions in [-1, 1]."""
    import torch

    from locolab.envs import load_task_cfgs, open_env

    env_cfg, _ = load_task_cfgs(task, num_envs=num_envs, device=device, seed=0)
    with open_env(task, env_cfg) as env, torch.inference_mode():
        env.reset()
        action_dim = env.unwrapped.action_manager.total_action_dim
        for step in range(warmup + steps):
            if step == warmup:
                start = time.perf_counter()
            env.step(2 * torch.rand(num_envs, action_dim, device=device) - 1)
        elapsed = time.perf_counter() - start
    return steps * num_envs / elapsed


def mean_fps(log_dir: Path) -> list[float]:
    """``Perf/total_fps`` of every iteration but the first, from the run's TensorBoard events."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = list(log_dir.rglob("events.out.tfevents.*"))
    if not events:
        raise RuntimeError(f"no TensorBoard events under {log_dir}")
    accumulator = EventAccumulator(str(events[0].parent)).Reload()
    return [event.value for event in accumulator.Scalars(FPS_TAG)[1:]]


def run_trainer(command: list[str], cwd: Path, env: dict | None = None) -> float:
    """Run one trainer subprocess; returns its wall time. Raises with the output tail on failure."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return time.perf_counter() - start


def ours_command(args: argparse.Namespace, device: str, log_root: Path) -> list[str]:
    return [sys.executable, str(REPO / "scripts" / "train.py"), "--task", args.task, "--num_envs",
            str(args.num_envs), "--device", device, "--max_iterations", str(args.iterations), "--seed", "0",
            "--log_root", str(log_root)]


def stock_command(args: argparse.Namespace, device: str) -> list[str]:
    isaaclab = str(Path(sys.executable).with_name("isaaclab"))
    return [isaaclab, "train", "--rl_library", "rsl_rl", "--task", args.task, "--num_envs", str(args.num_envs),
            "--device", device, "--max_iterations", str(args.iterations), "--seed", "0",
            "--external_callback", "locolab.tasks.external_callback", f"agent.device={device}"]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.iterations < 2:
        print("error: --iterations must be at least 2 (the first is dropped as warm-up).", file=sys.stderr)
        return 2
    from locolab.assets import ASSET_ROOT
    from locolab.envs import resolve_device

    device = resolve_device(args.device)
    result = {"task": args.task, "num_envs": args.num_envs, "device": device, "iterations": args.iterations,
              "repeats": args.repeats, "torch": version("torch"), "isaaclab": version("isaaclab"),
              "rsl_rl": version("rsl-rl-lib")}
    try:
        result["sim_random_actions_steps_per_s"] = sim_steps_per_s(args.task, args.num_envs, device, args.sim_steps)
        # the stock entry point resolves Isaac Lab's asset root before our callback runs: hand it the offline root
        stock_env = dict(os.environ, ISAACSIM_ASSET_ROOT=str(ASSET_ROOT))
        fps = {"train": [], "stock_train": []}
        wall = {"train": [], "stock_train": []}
        order = [("train", "stock_train"), ("stock_train", "train")]
        with tempfile.TemporaryDirectory(prefix="locolab_bench_") as tmp:
            for repeat in range(args.repeats):
                for name in order[repeat % 2]:
                    run_root = Path(tmp) / f"{name}_{repeat}"
                    run_root.mkdir()
                    if name == "train":
                        wall[name].append(run_trainer(ours_command(args, device, run_root), REPO))
                    else:
                        wall[name].append(run_trainer(stock_command(args, device), run_root, stock_env))
                    fps[name] += mean_fps(run_root)
    except (RuntimeError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for name in fps:
        result[f"{name}_steps_per_s"] = statistics.fmean(fps[name])
        result[f"{name}_wall_s"] = statistics.fmean(wall[name])
    result["train_vs_stock_ratio"] = result["train_steps_per_s"] / result["stock_train_steps_per_s"]
    text = json.dumps(result)
    if args.output:
        Path(args.output).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
