"""The terrain sweep (:mod:`locolab.eval.terrain_sweep`): its success rule on scripted motions in the sweep's own
terrain, its tiles, its report, and one-line errors."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from conftest import probe_report

from locolab.eval.terrain_report import terrain_table, write_terrain_report
from locolab.eval.terrain_sweep import (TERRAIN_TYPES, DistanceTracker, crossed, parse_terrain_types, plan_tiles,
                                        prepare_terrain_env_cfg)


@pytest.fixture(scope="module")
def scripted() -> dict:
    return probe_report("tests/probe_terrain_sweep.py")


def test_a_base_carried_3_m_succeeds_one_carried_2_m_fails_and_a_fall_fails(scripted):
    for role, farthest, fell in zip(scripted["role"], scripted["farthest"], scripted["fell"]):
        if role == 0:
            assert farthest == pytest.approx(3.5, abs=0.01) and not fell
        elif role == 1:
            assert farthest == pytest.approx(2.0, abs=0.01) and not fell
        elif role == 2:
            assert fell and farthest < 3.0  # dropped on its back near its start
        else:
            assert not fell and farthest < 1.0
    assert [row["success"] for row in scripted["rows"]] == [0.25, 0.25]  # only the 3.5 m robot of each tile
    # stopped: the robot that stands; not those carried until the end, nor the one that fell
    assert scripted["stopped"] == [role == 3 for role in scripted["role"]]
    assert [row["stopped"] for row in scripted["rows"]] == [0.25, 0.25]
    assert [row["terrain"] for row in scripted["rows"]] == ["rough", "boxes"]
    # peak speed: the carried robots at their carrying speed (3.5 m and 2 m in 3 s; the probe measures from the
    # first carried pose, not the spawn pose it teleports from), the standing one near 0
    for role, peak in zip(scripted["role"], scripted["peak_speed_carried"]):
        if role in (0, 1):
            assert peak == pytest.approx({0: 3.5, 1: 2.0}[role] / 3.0, abs=0.03)
        elif role == 3:
            assert peak < 0.1


def test_the_rule_itself():
    farthest, fell = torch.tensor([3.0, 2.99, 5.0, 0.0]), torch.tensor([False, False, True, False])
    assert crossed(farthest, fell).tolist() == [True, False, False, False]


def test_each_tile_holds_its_difficulty_on_its_own_column():
    from locolab.tasks.go2_velocity_env_cfg import LocoLabGo2RoughEnvCfg_PLAY

    tiles = plan_tiles(["stairs_up", "slope_down", "rough"])
    assert [(tile.kind, tile.value) for tile in tiles] == [
        ("stairs_up", 0.05), ("stairs_up", 0.08), ("stairs_up", 0.10), ("stairs_up", 0.12),
        ("slope_down", 0.2), ("slope_down", 0.3), ("slope_down", 0.4), ("rough", 0.06)]
    assert [tile.start for tile in tiles] == [16 * i for i in range(8)] and tiles[-1].stop == 128
    env_cfg = LocoLabGo2RoughEnvCfg_PLAY()
    prepare_terrain_env_cfg(env_cfg, tiles)
    generator = env_cfg.scene.terrain.terrain_generator
    assert (generator.num_rows, generator.num_cols, generator.curriculum) == (1, 8, True)
    subs = list(generator.sub_terrains.values())
    assert subs[2].step_height_range == (0.10, 0.10) and "Inverted" in type(subs[2]).__name__  # up: out of a pit
    assert subs[5].slope_range == (0.3, 0.3) and not subs[5].inverted  # down: off a summit
    assert all(sub.convert_to_heightfield for sub in subs)  # collided as training collides it
    assert env_cfg.scene.num_envs == 128 and env_cfg.episode_length_s == 20.0
    assert env_cfg.commands.base_velocity.ranges.lin_vel_x == (0.5, 0.5)


def test_bad_terrain_names_and_flat_policies_are_one_line_errors():
    with pytest.raises(ValueError, match="unknown terrain type gravel") as error:
        parse_terrain_types(["stairs_up", "gravel"])
    assert "\n" not in str(error.value)
    assert parse_terrain_types(None) == parse_terrain_types(["all"]) == list(TERRAIN_TYPES)
    from locolab.tasks.go2_velocity_env_cfg import LocoLabGo2FlatEnvCfg_PLAY

    with pytest.raises(ValueError, match="trained on flat ground"):
        prepare_terrain_env_cfg(LocoLabGo2FlatEnvCfg_PLAY(), plan_tiles(["rough"]))


def test_a_terrain_grid_sets_a_types_difficulties_and_bad_ones_are_one_line_errors():
    tiles = plan_tiles(["stairs_down", "rough"], robots=4, values={"stairs_down": (0.05, 0.07)})
    assert [(tile.kind, tile.value, tile.start, tile.stop) for tile in tiles] == [
        ("stairs_down", 0.05, 0, 4), ("stairs_down", 0.07, 4, 8), ("rough", 0.06, 8, 12)]
    assert plan_tiles(["rough"], values={"rough": (0.06,)})[0].value == 0.06  # its own noise, as the gate names it
    for values, message in [({"rough": (0.1,)}, "no difficulty to set"), ({"slope_up": (0.0,)}, "must be positive"),
                            ({"gravel": (0.1,)}, "unknown terrain type gravel")]:
        with pytest.raises(ValueError, match=message) as error:
            plan_tiles(list(TERRAIN_TYPES), values=values)
        assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="at least one robot"):
        plan_tiles(["rough"], robots=0)


@pytest.mark.parametrize(("arguments", "message"), [
    (["--grid", "stairs_down=0.05", "--terrain_types", "stairs_up"], "--grid names stairs_down"),
    (["--grid", "friction=0.5"], "unknown terrain type friction"),
    (["--grid", "rough=0.1"], "no difficulty to set"),
    (["--step_csv"], "--step_csv is for the robustness sweeps"),
])
def test_eval_refuses_a_bad_terrain_request_in_one_line_before_loading_anything(arguments, message, capsys):
    from conftest import load_script

    eval_script = load_script("eval.py")
    assert eval_script.main(["--checkpoint", "no/such/run", "--sweep", "terrain", *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_the_report_compares_the_student_with_its_teacher(tmp_path):
    rows = [{"policy": policy, "checkpoint": "run/model_9.pt", "sweep": "terrain", "terrain": "stairs_up",
             "value": value, "episodes": 16, "success": success, "fall": 0.0, "farthest": 3.0, "peak_speed": 0.625}
            for policy, value, success in [("roa teacher", 0.1, 1.0), ("roa student", 0.1, 0.875),
                                           ("roa teacher", 0.12, 0.0), ("roa student", 0.12, 0.5)]]
    table = terrain_table(rows)
    assert table[0]["roa student / teacher"] == pytest.approx(0.875)
    assert table[0]["roa teacher peak m/s"] == 0.625
    assert math.isnan(table[1]["roa student / teacher"])  # no share of a teacher that never succeeded
    report = write_terrain_report(rows, tmp_path)
    assert (tmp_path / "plots" / "terrain.png").stat().st_size > 1000
    assert "| stairs_up | 0.1 | 1 | 0.625 | 0.875 | 0.625 | 0.875 |" in report.read_text()


@pytest.mark.slow
def test_eval_sweeps_terrain_with_a_rough_teacher_and_its_student(tmp_path):
    """A 2-iteration PPO-ROA pair of the rough task (the teacher's encoder reads the height scan), then
    ``eval.py --sweep terrain`` on two of its types: a report with both policies on every tile."""
    from conftest import ROA_SMALL_RUN, experiment_runs, run_script

    logs = tmp_path / "logs"
    rough = ("--task", "LocoLab-Velocity-Rough-Go2", *ROA_SMALL_RUN, "--log_root", str(logs))
    assert run_script("train.py", "--agent", "roa", *rough).returncode == 0
    (teacher,) = experiment_runs(logs, "locolab_go2_rough_roa")
    finetune = run_script("train.py", "--agent", "roa", "--phase", "finetune", "--teacher", str(teacher), *rough)
    assert finetune.returncode == 0, finetune.stderr[-3000:]
    (student,) = experiment_runs(logs, "locolab_go2_rough_roa_finetune")
    result = run_script("eval.py", "--checkpoint", str(student), "--sweep", "terrain", "--terrain_types", "rough",
                        "slope_up", "--seconds", "1", "--device", "cpu", "--out", str(tmp_path / "report"))
    assert result.returncode == 0, result.stderr[-3000:]
    from locolab.eval.report import read_results_csv

    rows = read_results_csv(tmp_path / "report" / "results.csv")
    assert {(row["policy"], row["terrain"], row["value"]) for row in rows} == {
        (policy, kind, value) for policy in ("roa teacher", "roa student")
        for kind, value in [("rough", 0.06), ("slope_up", 0.2), ("slope_up", 0.3), ("slope_up", 0.4)]}
    assert all(row["episodes"] == 16 and 0.0 <= row["success"] <= 1.0 and 0.0 <= row["stopped"] <= 1.0 for row in rows)
    assert (tmp_path / "report" / "plots" / "terrain.png").exists()
    # the rough gate's parts: the walking checks on flat ground, then tiles judged on their share of crossings
    from locolab.eval.walking import play_summary, terrain_checks

    flat = play_summary(student, (0.5, 0.0, 0.0), "LocoLab-Velocity-Rough-Go2-Play", "cpu", seconds=1.0,
                        flat_ground=True)
    assert flat["steps"] == 50 and flat["episodes"] >= 16
    verdicts = terrain_checks(student, "cpu", 1, (("rough", 0.06), ("slope_up", 0.3)), 0.9, seconds=1.0,
                              plays_at_once=2)  # one evaluation process per tile, side by side
    assert [verdict["check"] for verdict in verdicts] == ["terrain rough 0.06", "terrain slope_up 0.3"]
    assert all(verdict["success"] == 0.0 for verdict in verdicts)  # 1 s: nobody gets 3 m away
    assert verdicts[0]["failures"] == ["terrain rough 0.06: success 0.00 not >= 0.9"]


def test_a_robot_that_fell_is_not_counted_as_stopped_and_the_window_is_the_episodes_last_2_s():
    """``DistanceTracker.stopped``: still robots stopped unless they fell; a robot that moved 1 m in its last 2 s did
    not; one still only after its first episode ended (length 50 of 300 steps) is judged on its episode."""
    tracker = DistanceTracker(SimpleNamespace(step_dt=0.02))
    for step in range(300):  # robots: still, still and fell, moving to the end, moving only until step 50
        tracker.positions.append(torch.tensor([[0.0, 0.0], [0.0, 0.0], [step / 100, 0.0], [min(step, 50) / 50, 0.0]]))
    lengths, fell = torch.tensor([math.inf, 40, 300, 50]), torch.tensor([False, True, False, False])
    assert tracker.stopped(lengths, fell).tolist() == [True, False, False, False]


def test_the_peak_speed_is_the_fastest_second_of_the_first_episode_only():
    """``DistanceTracker.peak_speed``: a robot at 0.5 m/s peaks at 0.5; one that runs 1.5 m/s for 1.5 s peaks at 1.5;
    one whose sprint comes after its first episode ended (length 100) peaks at its walk, 0.5; an episode shorter
    than the 1 s window gives 0."""
    tracker, x = DistanceTracker(SimpleNamespace(step_dt=0.02)), torch.zeros(4)
    for step in range(300):
        tracker.positions.append(torch.stack([x, torch.zeros(4)], dim=1).clone())
        sprint = 1.5 if 100 <= step < 175 else 0.5
        x = x + 0.02 * torch.tensor([0.5, sprint, sprint, sprint])
    lengths = torch.tensor([math.inf, 300, 100, 40])
    assert tracker.peak_speed(lengths).tolist() == pytest.approx([0.5, 1.5, 0.5, 0.0], abs=1e-4)
