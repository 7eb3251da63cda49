"""Long runs survive faults: kill -9 in the middle of an iteration loses at most one save interval and the resumed
run continues exactly where the checkpoint stands (iteration, learning rate, normalisers, ROA's lambda, curricula);
a disk that refuses a checkpoint keeps the previous one while the run goes on; bad numbers are one-line errors."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import torch

from conftest import run_dirs, run_main, run_script, start_training, wait_for_line

pytestmark = pytest.mark.slow

RESUMED = "[LocoLab] Resumed state: "
CURRICULUM_MOVES = ("env.curriculum.robustness.params.initial_level=0.3",
                    "env.curriculum.robustness.params.threshold=0.0", "env.curriculum.robustness.params.step=0.01")
"""The robustness level starts at 0.3 and every ending episode raises it a little; the resumed run is started without
these overrides (its level would start at 0), so only a restored level can match the saved one."""
AGENT_ARGS = {"ppo": (), "roa": ("--agent", "roa", "agent.algorithm.reg_lambda_window=[0,20]"),
              "sac": ("--agent", "sac", "agent.algorithm.learning_starts=64", "agent.algorithm.batch_size=64",
                      "agent.algorithm.num_updates=2", "agent.algorithm.buffer_size=4096")}


@pytest.mark.parametrize("agent", ["ppo", "roa", "sac"])
def test_kill_9_mid_iteration_then_resume_continues_exactly_from_the_latest_checkpoint(tmp_path, agent):
    logs = tmp_path / "logs"
    process = start_training(logs, "--seed", "4", "agent.save_interval=2", *CURRICULUM_MOVES, *AGENT_ARGS[agent])
    wait_for_line(process, "Learning iteration 5/")  # model_4.pt is written, iteration 6 is running
    time.sleep(1.0)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    (run,) = run_dirs(logs)
    saved_iterations = sorted(int(p.stem.split("_")[1]) for p in run.glob("model_*.pt"))
    latest = saved_iterations[-1]
    assert latest >= 4 and saved_iterations == list(range(0, latest + 1, 2))  # every save interval, nothing after
    saved = torch.load(run / f"model_{latest}.pt", weights_only=False)

    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "1", "--resume",
                        str(run), "--log_root", str(tmp_path / "resumed"), *AGENT_ARGS[agent])
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith(RESUMED))
    state = json.loads(line[len(RESUMED):])
    assert state["iteration"] == saved["iter"] + 1 == latest + 1
    saved_lr = saved[agent]["learning_rate"] if agent in ("roa", "sac") else \
        saved["optimizer_state_dict"]["param_groups"][0]["lr"]
    assert state["learning_rate"] == pytest.approx(saved_lr)
    actor = saved["actor_state_dict"]
    assert state["normalizer_count"] == float(actor["obs_normalizer.count"])
    levels = [terms["robustness"]["level"] for terms in saved["curriculum"]["terms"]]
    assert len(levels) == 2 and min(levels) >= 0.3  # two simulation processes, each with its own level
    assert [terms["robustness"]["level"] for terms in state["curriculum"]] == pytest.approx(levels)
    if agent == "roa":
        assert state["reg_lambda"] == pytest.approx(saved["roa"]["reg_lambda"]) and state["reg_lambda"] > 0.0
    if agent == "sac":
        assert state["updates"] == saved["sac"]["updates"] > 0
        assert state["temperature"] == pytest.approx(float(saved["log_alpha"].exp()))


@contextlib.contextmanager
def small_disk(path: Path, size: str = "64m"):
    """``path`` as a small file system that a test can fill: a tmpfs when running as root, else a folder whose
    write permission the test takes away (root ignores permissions)."""
    path.mkdir(parents=True)
    if os.geteuid() != 0:
        yield "chmod"
        return
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield "tmpfs"
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(path: Path) -> Path:
    """Write to ``path`` until the file system is full. Unbuffered: a buffered file would hold the bytes the full
    disk refused and raise ENOSPC again when it closes."""
    filler = path / "filler"
    with filler.open("wb", buffering=0) as file, contextlib.suppress(OSError):
        while True:
            file.write(b"\0" * (1 << 20))
    return filler


def test_a_checkpoint_the_disk_refuses_keeps_the_previous_one_and_the_run_goes_on(tmp_path):
    disk = tmp_path / "disk"
    with small_disk(disk) as kind:
        process = start_training(disk, "agent.save_interval=1", "--sim_processes", "1")
        try:
            wait_for_line(process, "Learning iteration 1/")
            (run,) = run_dirs(disk)
            if kind == "tmpfs":
                filler = fill(disk)
            else:
                run.chmod(0o555)
            lines = wait_for_line(process, "Could not write checkpoint")
            refused = next(line for line in lines if "Could not write checkpoint" in line)
            assert "the previous checkpoint is kept and the run goes on" in refused
            wait_for_line(process, "Learning iteration 4/")  # training continued past the refused saves
            kept = sorted(run.glob("model_*.pt"), key=lambda p: int(p.stem.split("_")[1]))[-1]
            assert torch.load(kept, weights_only=False)["iter"] >= 1  # the last written one is whole
            assert not list(run.glob(".*.tmp*"))
            if kind == "tmpfs":
                filler.unlink()
            else:
                run.chmod(0o755)
            wait_for_line(process, "Learning iteration 7/")
            newest = max(int(p.stem.split("_")[1]) for p in run.glob("model_*.pt"))
            assert newest >= 5  # the next save interval wrote again
        finally:
            process.send_signal(signal.SIGINT)
            process.communicate(timeout=300)
    assert process.returncode == 130


@pytest.mark.parametrize("arguments, message", [
    (("--max_iterations", "0"), "--max_iterations must be at least 1, got 0."),
    (("--max_iterations", "-5"), "--max_iterations must be at least 1, got -5."),
    (("--seed", "-1"), "--seed must be between 0 and 4294967295, got -1."),
    (("--seed", str(2**32)), f"--seed must be between 0 and 4294967295, got {2**32}."),
])
def test_bad_numbers_are_one_line_errors(arguments, message):
    result = run_script("train.py", "--device", "cpu", *arguments)
    assert result.returncode == 2 and result.stderr.strip() == f"error: {message}"


def test_resuming_a_run_of_another_task_is_a_one_line_error(trained_run):
    result = run_main("train.py", "--device", "cpu", "--task", "LocoLab-Velocity-Rough-Go2", "--resume",
                      str(trained_run))
    assert result.returncode == 2
    assert result.stderr.strip().endswith("was trained on --task LocoLab-Velocity-Flat-Go2, not --task "
                                          "LocoLab-Velocity-Rough-Go2: give --task LocoLab-Velocity-Flat-Go2 (or "
                                          "start a new run without --resume).")
    assert len(result.stderr.strip().splitlines()) == 1
