"""The robustness report: results.csv round-trips, one exact-size PNG per sweep, report.md links the plots, and the
summary numbers equal hand-computed ones. Synthetic rows, no simulator."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from matplotlib.image import imread

from locolab.eval.report import (SweepInfo, out_of_distribution_falls, read_results_csv, summary_table,
                                 write_report, write_results_csv)
from locolab.eval.sweeps import contact_training_range

SWEEPS = {"friction": SweepInfo("friction", "friction coefficient", (0.3, 2.5)),
          "payload": SweepInfo("payload", "added base mass [kg]", (-0.5, 2.5))}
GRIDS = {"friction": (0.1, 0.3, 1.0, 2.5), "payload": (-0.5, 2.5, 5.0)}
RETURN_IN_RANGE = {"ppo policy": 8.0, "roa teacher": 10.0, "roa student": 9.0}
FALLS = {("ppo policy", "friction", 0.1): 0.5, ("ppo policy", "payload", 5.0): 0.25,
         ("roa student", "friction", 0.1): 0.25}
"""Fall rates of the grid points where a policy falls; every other point has none."""
CHECKPOINTS = {"ppo policy": "logs/ppo/model_100.pt", "roa teacher": "logs/roa/model_200.pt",
               "roa student": "logs/roa/model_200.pt"}


def make_rows(policies=tuple(RETURN_IN_RANGE)) -> list[dict]:
    rows = []
    for policy in policies:
        for sweep, grid in GRIDS.items():
            low, high = SWEEPS[sweep].training_range
            for value in grid:
                inside = low <= value <= high
                rows.append({"policy": policy, "checkpoint": CHECKPOINTS[policy], "sweep": sweep, "value": value,
                             "value_read_back": value + 0.0004,  # the simulator stores float32
                             "in_training_range": inside, "episodes": 8.0,
                             "return": RETURN_IN_RANGE[policy] * (1.0 if inside else 0.5), "length": 500.0,
                             "lin_vel_error": 0.1 if inside else 0.3, "ang_vel_error": 0.05, "base_vel_x": 0.45,
                             "speed": 0.46, "fall": FALLS.get((policy, sweep, value), 0.0), "time_out": 1.0,
                             "latent_error": math.nan if policy == "ppo policy" else 0.02,
                             "reward/track_lin_vel_xy_exp": 0.8})
    return rows


def same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def test_results_csv_round_trips_values_types_and_nan(tmp_path):
    rows = make_rows()
    write_results_csv(rows, tmp_path / "results.csv")
    back = read_results_csv(tmp_path / "results.csv")
    assert len(back) == len(rows)
    for original, read in zip(rows, back):
        assert list(read) == list(original)
        assert all(same(read[key], value) and type(read[key]) is type(value) for key, value in original.items())
    assert math.isnan(back[0]["latent_error"]) and back[-1]["latent_error"] == 0.02


def test_results_csv_has_every_column_even_when_only_some_policies_have_a_metric(tmp_path):
    rows = make_rows()
    for row in rows:
        if row["policy"] == "ppo policy":
            del row["latent_error"]  # PPO has no latent to compare
    write_results_csv(rows, tmp_path / "results.csv")
    back = read_results_csv(tmp_path / "results.csv")
    assert math.isnan(back[0]["latent_error"]) and back[-1]["latent_error"] == 0.02


def test_report_writes_csv_one_exact_size_png_per_sweep_and_markdown_linking_them(tmp_path):
    report = write_report(make_rows(), SWEEPS, tmp_path / "eval")
    assert report == tmp_path / "eval" / "report.md"
    assert len(read_results_csv(tmp_path / "eval" / "results.csv")) == 3 * 7
    for sweep in SWEEPS:
        png = tmp_path / "eval" / "plots" / f"{sweep}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert imread(png).shape[:2] == (450, 1500)
    text = report.read_text()
    assert text.startswith("# LocoLab robustness evaluation\n")
    for sweep in SWEEPS:
        assert f"## {sweep}" in text and f"![{sweep}](plots/{sweep}.png)" in text
    for policy, checkpoint in CHECKPOINTS.items():
        assert policy in text and checkpoint in text
    assert "## Out of distribution" in text and ", payload 2.5." in text  # the payload grid point nearest 3 kg


def test_summary_matches_hand_computed_means_falls_and_teacher_ratio():
    table = {entry["policy"]: entry for entry in summary_table(make_rows(), SWEEPS)}
    assert list(table) == ["ppo policy", "roa teacher", "roa student"]
    ppo, teacher, student = table["ppo policy"], table["roa teacher"], table["roa student"]
    assert ppo["return_in_range"] == pytest.approx(8.0)
    assert ppo["lin_vel_error_in_range"] == pytest.approx(0.1)
    assert ppo["fall_rate_in_range"] == 0.0
    assert ppo["fall_rate_out_of_range"] == pytest.approx((0.5 + 0.25) / 2)  # friction 0.1, payload 5
    assert student["fall_rate_out_of_range"] == pytest.approx(0.25 / 2)
    assert teacher["return_vs_teacher"] == 1.0
    assert student["return_vs_teacher"] == pytest.approx(0.9)
    assert ppo["return_vs_teacher"] == pytest.approx(0.8)


def test_falls_at_names_the_rounded_read_back_values_per_sweep():
    table = {entry["policy"]: entry["falls_at"] for entry in summary_table(make_rows(), SWEEPS)}
    assert table == {"ppo policy": "friction 0.1; payload 5", "roa teacher": "never", "roa student": "friction 0.1"}


def test_without_a_teacher_the_teacher_ratio_is_nan_and_the_out_of_range_rate_too_without_such_rows():
    rows = [row for row in make_rows(("ppo policy",)) if row["in_training_range"]]
    (entry,) = summary_table(rows, SWEEPS)
    assert math.isnan(entry["return_vs_teacher"]) and math.isnan(entry["fall_rate_out_of_range"])


def test_out_of_distribution_falls_uses_the_closest_grid_point_of_each_sweep_present():
    rows = make_rows()
    # friction 0.15 -> 0.1, payload 4.0 -> 5.0; there is no motor sweep
    falls = out_of_distribution_falls(rows, {"friction": 0.15, "payload": 4.0, "motor": 0.7})
    assert falls == pytest.approx({"ppo policy": 0.375, "roa teacher": 0.0, "roa student": 0.125})
    assert out_of_distribution_falls(rows, {"payload": 3.0}) == {"ppo policy": 0.0, "roa teacher": 0.0,
                                                                 "roa student": 0.0}  # 2.5 is closer than 5


def test_the_contact_sweeps_training_range_is_the_sampled_one_or_what_mujoco_makes_of_the_held_material():
    def task(sampled, dt=0.005, substeps=2):
        ranges = SimpleNamespace(contact_time_constant=sampled)
        return SimpleNamespace(events=SimpleNamespace(dynamics=SimpleNamespace(params={"ranges": ranges})),
                               sim=SimpleNamespace(dt=dt, physics=SimpleNamespace(num_substeps=substeps)))

    assert contact_training_range(task((0.01, 0.03))) == (0.01, 0.03)
    # held at the ground material's 1.8 ms, which MuJoCo raises to two physics substeps
    assert contact_training_range(task(None)) == (0.0, 0.005)
    assert contact_training_range(task(None, substeps=1)) == (0.0, 0.01)
