"""Learning curves from TensorBoard events: a scalar against wall-clock minutes since the run's first event."""

from __future__ import annotations

import json

import pytest
from torch.utils.tensorboard import SummaryWriter

from conftest import run_script

from locolab.bench.tensorboard import read_scalar
from locolab.eval.learning_curve import first_below, smoothed

TAG = "Metrics/base_velocity/error_vel_xy"


def write_run(run_dir, values):
    writer = SummaryWriter(str(run_dir))
    for step, value in enumerate(values):
        writer.add_scalar(TAG, value, step, walltime=1000.0 + 60.0 * step)  # one iteration a minute
    writer.close()


def test_scalar_is_read_with_iterations_and_minutes_from_the_first_event(tmp_path):
    write_run(tmp_path / "run", [0.8, 0.6, 0.4])
    series = read_scalar(tmp_path / "run", TAG)
    assert series.iterations == [0, 1, 2]
    assert series.minutes == pytest.approx([0.0, 1.0, 2.0])
    assert series.values == pytest.approx([0.8, 0.6, 0.4])
    with pytest.raises(ValueError, match="has no scalar 'Nope'"):
        read_scalar(tmp_path / "run", "Nope")


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
    result = run_script("plot_learning_curve.py", str(tmp_path / "a"), str(tmp_path / "b"), "--smooth", "2",
                        "--threshold", "0.15", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run_script("plot_learning_curve.py", str(tmp_path / "a"), "--labels", "x", "y")
    assert bad.returncode == 2 and "--labels has 2 labels for 1 runs" in bad.stderr
