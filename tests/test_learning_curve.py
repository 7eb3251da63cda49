"""Learning curves from TensorBoard events: a scalar against wall-clock minutes since the run's first event."""

from __future__ import annotations

import json
import time

import pytest
from torch.utils.tensorboard import SummaryWriter

from conftest import run_script

from locolab.bench.tensorboard import read_scalar
from locolab.eval.learning_curve import continued, first_below, smoothed

TAG = "Metrics/base_velocity/error_vel_xy"


def write_run(run_dir, values, first_step: int = 0, start_up_s: float | None = None):
    """One iteration a minute; ``start_up_s``: the first scalar that long after the writer's creation (now)."""
    writer = SummaryWriter(str(run_dir))
    start = 1000.0 if start_up_s is None else time.time() + start_up_s
    for step, value in enumerate(values):
        writer.add_scalar(TAG, value, first_step + step, walltime=start + 60.0 * step)
    writer.close()


def test_scalar_is_read_with_iterations_and_minutes_from_the_first_event(tmp_path):
    write_run(tmp_path / "run", [0.8, 0.6, 0.4])
    series = read_scalar(tmp_path / "run", TAG)
    assert series.iterations == [0, 1, 2]
    assert series.minutes == pytest.approx([0.0, 1.0, 2.0])
    assert series.values == pytest.approx([0.8, 0.6, 0.4])
    with pytest.raises(ValueError, match="has no scalar 'Nope'"):
        read_scalar(tmp_path / "run", "Nope")


def test_a_resumed_run_joins_its_first_part_without_the_gap_and_without_the_iterations_it_redid(tmp_path):
    write_run(tmp_path / "first", [0.9, 0.8, 0.7, 0.6, 0.5], start_up_s=0.0)  # stopped after logging 4, saved at 2
    write_run(tmp_path / "resumed", [0.65, 0.55, 0.45], first_step=3, start_up_s=120.0)  # 2 min of start-up
    joined = continued([read_scalar(tmp_path / "first", TAG), read_scalar(tmp_path / "resumed", TAG)])
    assert joined.iterations == [0, 1, 2, 3, 4, 5]
    assert joined.values == pytest.approx([0.9, 0.8, 0.7, 0.65, 0.55, 0.45])
    assert joined.minutes == pytest.approx([0, 1, 2, 4, 5, 6], abs=0.02)  # 2 + its start-up, not the hours between


def test_trailing_moving_average():
    assert smoothed([1.0, 3.0, 5.0, 7.0], 2) == [1.0, 2.0, 4.0, 6.0]
    assert smoothed([1.0, 3.0], 1) == [1.0, 3.0]


def test_first_below_is_the_first_iteration_whose_trailing_mean_is_below_the_value(tmp_path):
    write_run(tmp_path / "run", [0.7, 0.6, 0.3, 0.5, 0.2])
    series = read_scalar(tmp_path / "run", TAG)
    assert first_below(series, 0.45) == {"iteration": 2, "minutes": 2.0}
    assert first_below(series, 0.45, smooth=2) == {"iteration": 3, "minutes": 3.0}  # (0.3 + 0.5) / 2 = 0.4
    assert first_below(series, 0.1) == {"iteration": None, "minutes": None}


def test_script_prints_when_each_run_fell_below(tmp_path):
    write_run(tmp_path / "fast", [0.7, 0.4, 0.3])
    write_run(tmp_path / "slow", [0.7, 0.6, 0.5])
    result = run_script("plot_learning_curve.py", str(tmp_path / "fast"), str(tmp_path / "slow"), "--labels", "fast",
                        "slow", "--first_below", "0.45", "--out", str(tmp_path / "curve.png"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == [
        {"run": "fast", "tag": TAG, "first_below": 0.45, "iteration": 1, "minutes": 1.0},
        {"run": "slow", "tag": TAG, "first_below": 0.45, "iteration": None, "minutes": None}]


def test_script_writes_a_png_and_refuses_mismatched_labels(tmp_path):
    write_run(tmp_path / "a", [0.8, 0.7])
    write_run(tmp_path / "b", [0.9, 0.5])
    out = tmp_path / "curve.png"
    result = run_script("plot_learning_curve.py", str(tmp_path / "a"), f"{tmp_path / 'a'},{tmp_path / 'b'}",
                        "--tag", TAG, TAG, "--smooth", "2", "--threshold", "0.15", "0.2", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run_script("plot_learning_curve.py", str(tmp_path / "a"), "--labels", "x", "y")
    assert bad.returncode == 2 and "--labels has 2 labels for 1 runs" in bad.stderr
    bad = run_script("plot_learning_curve.py", str(tmp_path / "a"), "--threshold", "0.1", "0.2")
    assert bad.returncode == 2 and "--threshold has 2 values for 1 tags" in bad.stderr
