"""scripts/eval.py on CPU-trained checkpoints: a full small report, read-back values, repeatability, step CSV, and
clear errors for bad arguments."""

from __future__ import annotations

import csv
import math

import pytest
from conftest import run_main, run_script, run_side_by_side

from locolab.eval.report import read_results_csv

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SHORT = ("--device", "cpu", "--episodes", "1", "--seconds", "4", "--seed", "5")


@pytest.fixture(scope="module")
def report(trained_run, roa_runs, tmp_path_factory):
    """PPO (blind) plus a PPO-ROA finetune run (teacher and student), every sweep, one env per grid point, 4 s."""
    out = tmp_path_factory.mktemp("report")
    result = run_script("eval.py", "--checkpoint", str(trained_run), str(roa_runs["student"]), *SHORT,
                        "--step_csv", "--out", str(out), timeout=1800)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


@pytest.mark.slow
def test_report_compares_every_policy_on_every_sweep(report):
    rows = read_results_csv(report / "results.csv")
    assert {row["policy"] for row in rows} == {"ppo policy", "roa teacher", "roa student"}
    assert {row["sweep"] for row in rows} == {"friction", "payload", "motor", "contact", "torsional", "rolling",
                                              "joint_damping", "joint_friction", "delay", "gyro_bias", "push",
                                              "command"}
    # values outside the training ranges are part of the grid
    values = {(row["sweep"], row["value"]) for row in rows}
    assert {("friction", 0.1), ("payload", 5.0), ("motor", 0.6), ("contact", 0.05), ("push", 1.5),
            ("torsional", 0.08), ("joint_friction", 0.8), ("delay", 6.0), ("gyro_bias", -0.1)} <= values
    assert not all(row["in_training_range"] for row in rows)
    assert all(math.isnan(row["latent_error"]) for row in rows if row["policy"] == "ppo policy")
    assert all(row["latent_error"] >= 0 for row in rows if row["policy"].startswith("roa"))
    markdown = (report / "report.md").read_text()
    for sweep in ("friction", "payload", "motor", "contact", "delay", "gyro_bias", "push", "command"):
        png = report / "plots" / f"{sweep}.png"
        assert png.read_bytes().startswith(PNG_SIGNATURE)
        assert f"(plots/{sweep}.png)" in markdown
    for policy in ("ppo policy", "roa teacher", "roa student"):
        assert policy in markdown


@pytest.mark.slow
def test_swept_values_are_read_back_from_the_simulator(report):
    for row in read_results_csv(report / "results.csv"):
        if row["sweep"] == "push" and row["value"] > 0:
            # a 4 s run sees one push (every 3 s): the velocity change the articulation received
            assert row["value_read_back"] == pytest.approx(row["value"], rel=1e-3)
        else:
            assert row["value_read_back"] == pytest.approx(row["value"], abs=1e-5)
        if row["sweep"] == "command":
            assert row["command_x"] == pytest.approx(row["value"], abs=1e-5)  # the episode's command, every step


@pytest.mark.slow
def test_the_step_csv_has_one_row_per_env_per_step(report):
    num_points = len({(row["sweep"], row["value"]) for row in read_results_csv(report / "results.csv")})
    for name in ("ppo_policy", "roa_teacher", "roa_student"):
        with (report / "steps" / f"{name}.csv").open() as file:
            rows = list(csv.DictReader(file))
        assert len(rows) == 200 * num_points  # 4 s at 50 Hz, one env per grid point
        assert {"step", "env", "sweep", "value", "reward", "done", "lin_vel_error",
                "reward/track_lin_vel_xy_exp"} <= set(rows[0])


@pytest.mark.slow
def test_same_seed_same_results_bit_for_bit(trained_run, tmp_path):
    outputs = []
    runs = run_side_by_side(*(("eval.py", "--checkpoint", str(trained_run), "--sweep", "friction", "push", *SHORT,
                               "--out", str(tmp_path / name)) for name in ("a", "b")))
    for name, result in zip(("a", "b"), runs):
        assert result.returncode == 0, result.stderr[-3000:]
        outputs.append((tmp_path / name / "results.csv").read_text())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(("args", "message"), [
    (("--sweep", "gravity"), "unknown sweep 'gravity'"),
    (("--sweep", "friction", "--grid", "friction="), "--grid friction: the grid is empty"),
    (("--sweep", "friction", "--grid", "payload=1,2"), "--grid names payload, which --sweep does not include"),
    (("--episodes", "0"), "--episodes must be at least 1"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, args, message):
    """Arguments are checked before any checkpoint is read: the one named here does not even exist."""
    result = run_main("eval.py", "--checkpoint", str(tmp_path / "model_2.pt"), "--device", "cpu", *args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_checkpoints_of_different_tasks_cannot_share_a_report(tmp_path):
    """Refused from what the checkpoints record (their iteration and task), before any environment is built: a CPU
    training variant plays as its base task, which is not the rough one."""
    import torch

    flat, rough = tmp_path / "model_2.pt", tmp_path / "model_0.pt"
    torch.save({"iter": 2, "task": "LocoLab-Velocity-Flat-Go2-CPU"}, flat)
    torch.save({"iter": 0, "task": "LocoLab-Velocity-Rough-Go2"}, rough)
    result = run_script("eval.py", "--checkpoint", str(flat), str(rough), "--device", "cpu")  # a process
    assert result.returncode == 2 and "checkpoints of different tasks cannot share a report" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1  # all of its stderr
