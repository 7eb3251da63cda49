"""The deployment path: export.py writes the student as one ONNX file with complete metadata; the numpy runtime
builds the training environment's observation and history value for value; sim2sim drives MuJoCo with it."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from conftest import REPO, last_json, run_script

from locolab.assets import GO2_SPEC

pytestmark = pytest.mark.slow

EXPORT_STEPS, EXPORT_ENVS = 20, 4


def export(checkpoint, out, *arguments: str) -> subprocess.CompletedProcess:
    return run_script("export.py", "--checkpoint", str(checkpoint), "--out", str(out), "--steps", str(EXPORT_STEPS),
                      "--num_envs", str(EXPORT_ENVS), *arguments)


@pytest.fixture(scope="module")
def exported(roa_runs, tmp_path_factory) -> dict:
    """The finetuned student of the session's 2-iteration ROA runs, exported."""
    out = tmp_path_factory.mktemp("exported")
    result = export(roa_runs["student"], out)
    assert result.returncode == 0, result.stderr[-3000:]
    return {"dir": out, "summary": last_json(result.stdout), "metadata": json.loads((out / "policy.json").read_text())}


def test_export_writes_one_self_contained_onnx_file_that_matches_torch(exported):
    assert sorted(p.name for p in exported["dir"].iterdir()) == ["policy.json", "policy.onnx"]
    summary = exported["summary"]
    assert summary["agent"] == "roa" and summary["policy"] == "student"
    assert summary["samples"] == EXPORT_STEPS * EXPORT_ENVS  # inputs recorded from the environment
    assert summary["max_abs_diff"] <= 1e-5
    assert exported["metadata"]["parity"]["max_abs_diff"] == summary["max_abs_diff"]


def test_metadata_is_complete_and_agrees_with_the_task_config(exported, roa_runs):
    from locolab.envs import load_task_cfgs
    from locolab.tasks.go2_velocity_env_cfg import GO2_DAMPING, GO2_STIFFNESS

    meta = exported["metadata"]
    env_cfg, _ = load_task_cfgs("LocoLab-Velocity-Flat-Go2", device="cpu")
    joints = GO2_SPEC.joint_names()
    assert meta["task"] == "LocoLab-Velocity-Flat-Go2"
    assert meta["joint_names"] == joints
    default_pose = GO2_SPEC.default_joint_pos()
    assert meta["default_joint_pos"] == pytest.approx([default_pose[name] for name in joints])
    assert meta["default_joint_vel"] == [0.0] * 12
    assert meta["action"]["scale"] == env_cfg.actions.joint_pos.scale and meta["action"]["clip"] is None
    assert meta["action"]["offset"] == "default_joint_pos"
    assert meta["pd_gains"] == {"stiffness": [GO2_STIFFNESS] * 12, "damping": [GO2_DAMPING] * 12}
    assert meta["effort_limit"] == pytest.approx([GO2_SPEC.joint(n[:2], n[3:-6]).effort_limit for n in joints])
    assert meta["control_period_s"] == pytest.approx(env_cfg.decimation * env_cfg.sim.dt)
    policy_terms = [name for name, term in vars(env_cfg.observations.policy).items()
                    if hasattr(term, "func") and term is not None]
    assert [term["name"] for term in meta["observation"]["terms"]] == policy_terms
    assert meta["observation"]["size"] == 45 and meta["inputs"] == {"obs": [45], "history": [50, 45]}
    assert meta["history"] == {"length": env_cfg.history_length, "order": "oldest_first", "source": "observation",
                               "reset": "filled_with_first_observation"}
    ranges = env_cfg.commands.base_velocity.ranges
    assert meta["command"]["ranges"] == {name: list(getattr(ranges, name))
                                         for name in ("lin_vel_x", "lin_vel_y", "ang_vel_z")}
    assert meta["checkpoint"]["path"] == str(roa_runs["student"] / "model_1.pt") and meta["checkpoint"]["iteration"] == 1
    assert len(meta["checkpoint"]["sha256"]) == 64
    assert all(meta["versions"][package] for package in ("locolab", "torch", "isaaclab", "rsl-rl-lib", "onnxruntime"))


def test_runtime_observation_and_history_equal_the_environments_value_for_value(exported):
    result = run_script("tests/probe_runtime.py", "--policy", str(exported["dir"]), "--steps", "40")
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    assert probe["history_length"] == 50 and probe["resets"] == 1  # the comparison spans a reset
    assert probe["max_abs_error"]["observation"] == 0.0
    assert probe["max_abs_error"]["history"] == 0.0
    assert probe["max_abs_error"]["gravity_from_quaternion"] < 1e-6  # IMU quaternion -> projected gravity


def test_runtime_imports_and_runs_with_only_numpy_and_onnxruntime(exported, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "numpy", "onnxruntime"],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-2000:]
    script = f"""
import sys
sys.path.insert(0, {str(REPO / "source")!r})
import numpy as np
from locolab.deploy import PolicyRuntime, RobotState
runtime = PolicyRuntime({str(exported["dir"])!r})
state = RobotState(joint_pos=runtime.default_joint_pos, joint_vel=np.zeros(12), ang_vel=np.zeros(3),
                   gravity=np.array([0.0, 0.0, -1.0]), command=np.array([0.5, 0.0, 0.0]))
runtime.reset()
targets = runtime.step(state)
assert targets.shape == (12,) and np.isfinite(targets).all()
assert not any(name.split(".")[0] in ("torch", "isaaclab", "rsl_rl", "pxr") for name in sys.modules)
print("ok")
"""
    result = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


def test_sim2sim_drives_the_mujoco_robot_and_reports_finite_numbers(exported, tmp_path):
    video = tmp_path / "sim2sim.mp4"
    result = run_script("sim2sim.py", "--policy", str(exported["dir"]), "--seconds", "2", "--command", "0.3", "0",
                        "0", "--friction", "0.8", "--payload", "1.0", "--video", str(video))
    assert result.returncode == 0, result.stderr[-3000:]
    report = last_json(result.stdout)
    assert (report["seconds"], report["friction"], report["payload_kg"]) == (2.0, 0.8, 1.0)
    for key in ("lin_vel_error", "ang_vel_error", "distance", "time_upright"):
        assert isinstance(report[key], float) and math.isfinite(report[key]) and report[key] >= 0, key
    assert isinstance(report["falls"], int) and report["falls"] >= 0
    assert report["time_upright"] <= 2.0 + 1e-9
    import imageio.v2 as imageio

    with imageio.get_reader(str(video)) as reader:
        assert sum(1 for _ in reader) == 100  # one frame per 20 ms control step


def test_train_phase_student_exports_with_a_warning_and_the_teacher_reads_priv(roa_runs, tmp_path):
    student = export(roa_runs["teacher"], tmp_path / "student")
    assert student.returncode == 0, student.stderr[-3000:]
    assert "was distilled but not finetuned" in student.stderr
    teacher = export(roa_runs["teacher"], tmp_path / "teacher", "--which", "teacher")
    assert teacher.returncode == 0, teacher.stderr[-3000:]
    meta = json.loads((tmp_path / "teacher" / "policy.json").read_text())
    assert meta["policy"] == "teacher" and meta["inputs"] == {"obs": [45], "priv": [26]} and meta["history"] is None


def test_corrupt_mismatched_or_wrong_kind_of_checkpoint_is_a_clear_error(roa_runs, trained_run, tmp_path):
    corrupt = tmp_path / "model_5.pt"
    corrupt.write_bytes(b"\x00not a checkpoint")
    unreadable = export(corrupt, tmp_path / "a")
    assert unreadable.returncode == 2 and f"Checkpoint '{corrupt}' cannot be read" in unreadable.stderr
    rough = export(roa_runs["student"], tmp_path / "b", "--task", "LocoLab-Velocity-Rough-Go2")
    assert rough.returncode == 2 and "was trained on another environment" in rough.stderr
    ppo = export(trained_run, tmp_path / "c", "--which", "student")
    assert ppo.returncode == 2 and "applies to PPO-ROA checkpoints" in ppo.stderr
    for result in (unreadable, rough, ppo):
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "b" / "policy.onnx").exists()
