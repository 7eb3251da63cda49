"""benchmark.py measures simulation, our training and stock Isaac Lab training in one run (no speed threshold:
performance figures live in its JSON, not in timed tests)."""

from __future__ import annotations

import math

import pytest

from conftest import last_json, run_script

pytestmark = pytest.mark.slow


def test_benchmark_reports_all_throughputs_and_the_ratio(tmp_path):
    output = tmp_path / "bench.json"
    result = run_script("benchmark.py", "--num_envs", "8", "--device", "cpu", "--sim_steps", "20",
                        "--iterations", "2", "--output", str(output))
    assert result.returncode == 0, result.stderr[-3000:]
    report = last_json(result.stdout)
    assert report == last_json(output.read_text())
    assert report["task"] == "LocoLab-Velocity-Flat-Go2" and report["num_envs"] == 8 and report["device"] == "cpu"
    for key in ("sim_random_actions_steps_per_s", "train_steps_per_s", "stock_train_steps_per_s"):
        assert math.isfinite(report[key]) and report[key] > 0, key
    assert report["train_vs_stock_ratio"] == pytest.approx(
        report["train_steps_per_s"] / report["stock_train_steps_per_s"]
    )


def test_benchmark_refuses_a_single_iteration():
    result = run_script("benchmark.py", "--iterations", "1")
    assert result.returncode == 2 and "--iterations must be at least 2" in result.stderr
