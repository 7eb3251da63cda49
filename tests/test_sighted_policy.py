"""A policy that sees the terrain (docs/rough-terrain.md, "A policy that reads the height scan"): trained on the rough
task with ``agent.obs_groups.actor=[policy,scan]``, exported with its scan's layout, run by the torch-free runtime in
MuJoCo with sim-to-sim's own scan."""

from __future__ import annotations

import json

import pytest

from conftest import last_json, run_dirs, run_script

from locolab.tasks.go2_velocity_env_cfg import GAIT_CLOCK

pytestmark = pytest.mark.slow

ROUGH = "LocoLab-Velocity-Rough-Go2"
SIGHTED = "agent.obs_groups.actor=[policy,scan]"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    logs = tmp_path_factory.mktemp("sighted")
    train = run_script("train.py", "--task", ROUGH, "--device", "cpu", "--num_envs", "8", "--max_iterations", "1",
                       "--sim_processes", "1", "--seed", "2", "--log_root", str(logs), SIGHTED)
    assert train.returncode == 0, train.stderr[-3000:]
    (run,) = run_dirs(logs)
    out = logs / "exported"
    export = run_script("export.py", "--checkpoint", str(run), "--out", str(out), "--num_envs", "4", "--steps", "20")
    assert export.returncode == 0, export.stderr[-3000:]
    return {"dir": out, "summary": last_json(export.stdout), "metadata": json.loads((out / "policy.json").read_text())}


def test_the_export_reads_proprioception_then_the_scan_and_says_how_the_scan_is_laid(exported):
    meta, summary = exported["metadata"], exported["summary"]
    assert summary["agent"] == "ppo" and summary["max_abs_diff"] <= 1e-5
    assert meta["observation"]["groups"] == ["policy", "scan"]
    names = [term["name"] for term in meta["observation"]["terms"]]
    assert names[-2:] == ["gait_clock", "height_scan"] and names.count("height_scan") == 1 and len(names) == 8
    assert meta["inputs"] == {"obs": [47 + 187]} and meta["observation"]["size"] == 234
    assert {key: meta["height_scan"][key] for key in ("size", "points_x", "points_y", "resolution_m")} == {
        "size": 187, "points_x": 17, "points_y": 11, "resolution_m": 0.1}
    assert meta["observation"]["terms"][-1]["clip"] == [-1.0, 1.0]


def test_the_runtime_builds_the_observation_with_its_own_gait_clock_as_the_environment_does(exported):
    assert exported["metadata"]["gait_clock"]["frequency_hz"] == GAIT_CLOCK["frequency_hz"]
    result = run_script("tests/probe_runtime.py", "--policy", str(exported["dir"]), "--steps", "40")
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    assert probe["resets"] == 1  # the clock restarts with the episode in both
    assert probe["max_abs_error"]["observation"] < 1e-6  # numpy's and torch's float32 sine differ in the last bit
    assert probe["max_abs_error"]["joint_targets"] < 1e-6


def test_sim2sim_scans_a_staircase_for_it_through_the_runtime(exported):
    result = run_script("sim2sim.py", "--policy", str(exported["dir"]), "--terrain", "stairs", "--seconds", "1")
    report = last_json(result.stdout)
    assert result.returncode == (0 if report["passed"] else 1), result.stderr[-3000:]
    assert len(report["runs"]) == 5 and all(run["kind"] == "stairs" for run in report["runs"])


def test_a_blind_task_refuses_the_scan_in_one_line(tmp_path):
    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "1",
                        "--log_root", str(tmp_path), SIGHTED)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: agent.obs_groups.actor reads ['scan'], which this task does not have (it has policy, critic, priv, "
        "history): the height scan ('scan') exists on the rough task only."]
