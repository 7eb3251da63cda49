"""The short soak: a few minutes of training sampled every few seconds shows no growth in memory or open files
(scripts/soak.py; the hours-long soak is the same command with more minutes)."""

from __future__ import annotations

import json

import pytest

from conftest import last_json, run_script

@pytest.mark.slow
def test_a_short_soak_shows_no_growth_in_memory_or_open_files(tmp_path):
    out = tmp_path / "soak.json"
    result = run_script("soak.py", "--minutes", "3", "--sample_s", "5", "--out", str(out), "--", "--device", "cpu",
                        "--num_envs", "8", "--sim_processes", "1", "--max_iterations", "100000",
                        "--log_root", str(tmp_path / "logs"), timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    summary = last_json(result.stdout)
    report = json.loads(out.read_text())
    assert len(report["samples"]) >= 20 and summary["iterations"] >= 10
    assert all(sample["processes"] >= 1 and sample["rss_mb"] > 100 for sample in report["samples"])
    assert abs(summary["rss_growth_percent"]) < 5.0  # noise on a shared machine is a few percent at most
    assert summary["open_files_growth"] <= 0 and summary["threads_growth"] <= 0
    assert (tmp_path / "soak.train.log").read_text().count("Interrupted: saved") == 1  # stopped cleanly


def test_a_training_run_that_finished_is_not_sampled_as_alive(tmp_path):
    """A launched run that ends before the soak does stays a zombie until the soak reaps it: the soak stops there
    instead of sampling an empty process until its time is up. Its time (10 minutes) is far from the stop's
    (milliseconds), so a tenth of it holds on a loaded machine too."""
    import subprocess
    import time

    import psutil

    from locolab.bench.soak import sample_processes, soak

    finished = subprocess.Popen(["true"])
    while psutil.Process(finished.pid).status() != psutil.STATUS_ZOMBIE:  # exited, not reaped (no poll or wait)
        time.sleep(0.05)
    assert sample_processes([finished.pid])[3] == 0
    duration_s = 600.0
    start = time.monotonic()
    assert soak(finished.pid, tmp_path, duration_s=duration_s, sample_s=1.0) == {}
    assert time.monotonic() - start < duration_s / 10
    finished.wait()


def test_the_harnesses_find_the_run_directory_in_the_line_train_py_prints():
    """The soak and the benchmarks wait for this line; when its wording changed, they waited 900 s for nothing."""
    from types import SimpleNamespace

    from locolab.bench.launcher import RUN_DIR_LINE
    from locolab.training import started_line

    env_cfg = SimpleNamespace(sim=SimpleNamespace(device="cpu"), scene=SimpleNamespace(num_envs=8), sim_processes=1)
    line = started_line("LocoLab-Velocity-Flat-Go2-CPU", env_cfg, SimpleNamespace(), "/tmp/logs/go2/2026-12-03_run")
    assert RUN_DIR_LINE.match(line).group(1) == "/tmp/logs/go2/2026-12-03_run"
