"""train.py under torchrun on CPU ranks (gloo): the distributed path of issue 65, tested without a GPU.

Each rank steps its own 16 robots in one simulation process; after every update the ranks' parameters are compared
(locolab.distributed.check_same_parameters, which ends the run naming the differing ranks), so a run that finishes
had identical parameters on both ranks at every iteration.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, run_dirs

pytestmark = pytest.mark.slow

RANKS = 2
SMALL_RUN = ("--device", "cpu", "--num_envs", "16", "--sim_processes", "1", "--seed", "5")


def torchrun(*args: str) -> subprocess.Popen:
    """``torchrun --standalone --nproc_per_node 2 scripts/train.py ARGS`` in its own session."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(RANKS),
               str(REPO / "scripts" / "train.py"), *args]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def finished(process: subprocess.Popen, timeout: float = 900) -> subprocess.CompletedProcess:
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def checkpoints(run: Path) -> list[str]:
    return sorted(path.name for path in run.glob("model_*.pt"))


@pytest.mark.parametrize("agent", [("ppo",), ("roa",), ("sac", "agent.algorithm.learning_starts=0")],
                         ids=["ppo", "roa", "sac"])
def test_two_cpu_ranks_train_in_step_and_rank_zero_alone_writes(tmp_path, agent):
    result = finished(torchrun(*SMALL_RUN, "--agent", *agent, "--max_iterations", "3", "--log_root", str(tmp_path),
                               "agent.save_interval=1"))
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = run_dirs(tmp_path)  # one run directory, rank 0's
    assert checkpoints(run) == ["model_0.pt", "model_1.pt", "model_2.pt"]  # one checkpoint per save
    assert len({path.name.split(".")[-2] for path in run.glob("events.out.tfevents.*")}) == 1  # one writing process
    started = [line for line in result.stdout.splitlines() if line.startswith("[LocoLab] Training ")]
    assert len(started) == 1 and f"on each of {RANKS} ranks" in started[0]
    assert "other parameters than rank 0" not in result.stderr


def test_a_torchrun_resume_continues_the_iteration_count(tmp_path):
    first = finished(torchrun(*SMALL_RUN, "--max_iterations", "2", "--log_root", str(tmp_path / "first")))
    assert first.returncode == 0, first.stderr[-3000:]
    (run,) = run_dirs(tmp_path / "first")
    resumed = finished(torchrun(*SMALL_RUN, "--max_iterations", "2", "--log_root", str(tmp_path / "second"),
                                "--resume", str(run)))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"Resumed from {run / 'model_1.pt'} at iteration 2" in resumed.stdout
    (second,) = run_dirs(tmp_path / "second")
    assert checkpoints(second)[-1] == "model_3.pt"


def rank_pids(launcher: int) -> dict[int, int]:
    """torchrun's rank processes (its children with a ``RANK``; their simulation processes are their own children):
    {rank: pid}."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) if entry.name.isdigit() else None
            if parent != launcher:
                continue
            items = (entry / "environ").read_bytes().split(b"\0")
            environ = dict(item.split(b"=", 1) for item in items if b"=" in item)
        except OSError:
            continue
        if b"RANK" in environ:
            found[int(environ[b"RANK"])] = int(entry.name)
    return found


def test_a_killed_rank_ends_the_run_within_a_minute_with_one_line(tmp_path):
    process = torchrun(*SMALL_RUN, "--max_iterations", "1000", "--log_root", str(tmp_path))
    try:
        deadline = time.monotonic() + 600
        while not list(tmp_path.glob("*/*/model_*.pt")):  # training is under way on both ranks
            assert process.poll() is None and time.monotonic() < deadline, "the run did not start"
            time.sleep(1)
        ranks = rank_pids(process.pid)
        assert set(ranks) == {0, 1}, ranks
        os.kill(ranks[1], signal.SIGKILL)
        killed = time.monotonic()
        result = finished(process, timeout=120)
        assert time.monotonic() - killed < 60
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert result.returncode != 0
    lost = [line for line in result.stderr.splitlines() if "lost the other ranks" in line]
    assert len(lost) == 1, result.stderr[-3000:]
