"""The deployment path: export.py writes the student as one ONNX file with complete metadata; the numpy runtime
builds the training environment's observation and history value for value; sim2sim drives MuJoCo with it."""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, last_json, run_main, run_script, run_side_by_side

from locolab.assets import GO2_SPEC

pytestmark = pytest.mark.slow

EXPORT_STEPS, EXPORT_ENVS = 20, 4


def export_invocation(checkpoint, out, *arguments: str) -> tuple[str, ...]:
    return ("export.py", "--checkpoint", str(checkpoint), "--out", str(out), "--steps", str(EXPORT_STEPS),
            "--num_envs", str(EXPORT_ENVS), *arguments)


def export(checkpoint, out, *arguments: str) -> subprocess.CompletedProcess:
    return run_script(*export_invocation(checkpoint, out, *arguments))


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
    effects = env_cfg.events.dynamics.params["ranges"]
    assert meta["trained_for"]["action_latency_s"] == pytest.approx([0.0, 4 * env_cfg.sim.dt])  # up to 20 ms
    assert meta["trained_for"]["gyro_bias_rad_s"] == pytest.approx(list(effects.gyro_bias))
    assert meta["trained_for"]["joint_friction_nm"] == pytest.approx(list(effects.joint_friction))
    policy_terms = [name for name, term in vars(env_cfg.observations.policy).items()
                    if hasattr(term, "func") and term is not None]
    assert [term["name"] for term in meta["observation"]["terms"]] == policy_terms
    assert meta["observation"]["size"] == 45 and meta["inputs"] == {"obs": [45], "history": [50, 45]}
    assert meta["history"] == {"length": env_cfg.history_length, "order": "oldest_first", "source": "observation",
                               "reset": "filled_with_first_observation"}
    ranges = env_cfg.commands.base_velocity.ranges
    assert meta["command"]["ranges"] == {name: list(getattr(ranges, name))
                                         for name in ("lin_vel_x", "lin_vel_y", "ang_vel_z")}
    assert meta["checkpoint"]["path"] == str(roa_runs["student"] / "model_1.pt")
    assert meta["checkpoint"]["iteration"] == 1
    assert len(meta["checkpoint"]["sha256"]) == 64
    # what the runtime checks before use: the ONNX file's hash and the joint limits the targets are clipped to
    assert meta["onnx_sha256"] == hashlib.sha256((exported["dir"] / "policy.onnx").read_bytes()).hexdigest()
    spec_limits = [(GO2_SPEC.joint(n[:2], n[3:-6]).lower, GO2_SPEC.joint(n[:2], n[3:-6]).upper) for n in joints]
    assert [tuple(pair) for pair in meta["joint_pos_limits"]] == [pytest.approx(pair, abs=1e-6) for pair in spec_limits]
    assert all(meta["versions"][package] for package in ("locolab", "torch", "isaaclab", "rsl-rl-lib", "onnxruntime"))


def test_runtime_observation_and_history_equal_the_environments_value_for_value(exported):
    result = run_script("tests/probe_runtime.py", "--policy", str(exported["dir"]), "--steps", "40")
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    assert probe["history_length"] == 50 and probe["resets"] == 1  # the comparison spans a reset
    assert probe["max_abs_error"]["observation"] == 0.0
    assert probe["max_abs_error"]["history"] == 0.0
    assert probe["max_abs_error"]["gravity_from_quaternion"] < 1e-6  # IMU quaternion -> projected gravity
    # the joint targets the runtime returns are the ones the environment's action term applied (scale and offset)
    assert probe["max_abs_error"]["joint_targets"] < 1e-6
    assert probe["max_target_offset"] > 0.01  # the targets moved: a wrong scale would show


def test_runtime_clips_actions_like_the_training_environment(exported):
    result = run_script("tests/probe_runtime.py", "--policy", str(exported["dir"]), "--steps", "30", "--clip", "0.05")
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    assert probe["clipped_actions"] > 0  # the clip branch was exercised
    assert probe["max_abs_error"]["joint_targets"] < 1e-6
    assert probe["max_abs_error"]["observation"] == 0.0  # last_action is the clipped one, as in the environment


ROBOT_PACKAGES = ("numpy", "numpy.libs", "onnxruntime", "flatbuffers", "packaging")
"""What a robot's Python needs for the runtime: numpy and onnxruntime (and what onnxruntime imports)."""


def robot_python(tmp_path) -> Path:
    """A Python with no site-packages of its own but links to the packages a robot would install, taken from this
    venv (offline), and only the two things the README says to copy: locolab/__init__.py and locolab/deploy/."""
    import shutil
    import site

    venv = tmp_path / "robot_venv"
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    packages = tmp_path / "robot_packages"
    packages.mkdir()
    installed = Path(site.getsitepackages()[0])
    for name in ROBOT_PACKAGES:
        if (installed / name).exists():
            (packages / name).symlink_to(installed / name)
    copied = tmp_path / "robot_code" / "locolab"
    copied.mkdir(parents=True)
    shutil.copy(REPO / "source" / "locolab" / "__init__.py", copied / "__init__.py")
    shutil.copytree(REPO / "source" / "locolab" / "deploy", copied / "deploy")
    (site_dir,) = (venv / "lib").glob("python3.*/site-packages")
    (site_dir / "robot.pth").write_text(f"{packages}\n{copied.parent}\n")
    return venv / "bin" / "python"


def test_runtime_runs_offline_with_only_numpy_onnxruntime_and_the_copied_files(exported, tmp_path):
    import numpy as np
    import onnxruntime

    python = robot_python(tmp_path)
    script = f"""
import json, sys
import numpy as np
from locolab.deploy import PolicyRuntime, RobotState
runtime = PolicyRuntime({str(exported["dir"])!r})
state = RobotState(joint_pos=runtime.default_joint_pos + 0.1, joint_vel=np.full(12, 0.5), ang_vel=np.array([0.1, 0, 0]),
                   gravity=np.array([0.0, 0.0, -1.0]), command=np.array([0.5, 0.0, 0.0]))
runtime.reset()
targets = runtime.step(state)
heavy = [name for name in sys.modules if name.split(".")[0] in ("torch", "isaaclab", "rsl_rl", "pxr", "warp")]
print(json.dumps({{"targets": targets.tolist(), "heavy": heavy, "locolab": sys.modules["locolab"].__file__}}))
"""
    result = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    report = last_json(result.stdout)
    assert report["heavy"] == []
    assert report["locolab"].startswith(str(tmp_path))  # the copied files, not the repository's
    # the same step computed here by hand from policy.json and the ONNX file
    meta = exported["metadata"]
    default = np.asarray(meta["default_joint_pos"], dtype=np.float32)
    raw = {"base_ang_vel": [0.1, 0.0, 0.0], "projected_gravity": [0.0, 0.0, -1.0], "velocity_commands": [0.5, 0, 0],
           "joint_pos": [0.1] * 12, "joint_vel": [0.5] * 12, "actions": [0.0] * 12}
    parts = []
    for term in meta["observation"]["terms"]:
        value = np.asarray(raw[term["name"]], dtype=np.float32)
        if term["clip"] is not None:
            value = np.clip(value, *term["clip"])
        parts.append(value * np.float32(term["scale"] if term["scale"] is not None else 1.0))
    obs = np.concatenate(parts)[None].astype(np.float32)
    history = np.repeat(obs[None], meta["history"]["length"], axis=1)
    session = onnxruntime.InferenceSession(str(exported["dir"] / "policy.onnx"))
    action = session.run(["actions"], {"obs": obs, "history": history})[0][0]
    expected = default + meta["action"]["scale"] * action
    assert np.abs(np.asarray(report["targets"]) - expected).max() < 1e-5
    assert np.abs(expected - default).max() > 1e-3  # the policy's action is not zero: scale errors would show


def test_sim2sim_drives_the_mujoco_robot_and_reports_finite_numbers(exported, tmp_path):
    """Finite numbers, and the ones that must agree do (they hold for any policy, trained 2 iterations or not)."""
    video = tmp_path / "sim2sim.mp4"
    result = run_script("sim2sim.py", "--policy", str(exported["dir"]), "--seconds", "2", "--command", "0.3", "0",
                        "0", "--friction", "0.8", "--payload", "1.0", "--video", str(video))
    assert result.returncode == 0, result.stderr[-3000:]
    report = last_json(result.stdout)
    assert (report["seconds"], report["friction"], report["payload_kg"]) == (2.0, 0.8, 1.0)
    assert report["command"] == [0.3, 0.0, 0.0] and report["contact_time_constant"] is None
    for key in ("lin_vel_error", "ang_vel_error", "distance", "time_upright"):
        assert isinstance(report[key], float) and math.isfinite(report[key]) and report[key] >= 0, key
    assert isinstance(report["falls"], int) and report["falls"] >= 0
    assert set(report["interventions"]) == {"nonfinite_observation", "out_of_range_observation", "nonfinite_action",
                                            "clipped_to_limits", "rate_limited"}  # the safety layer's counts
    assert all(isinstance(count, int) and count >= 0 for count in report["interventions"].values())
    # each of the 100 control steps (20 ms) is either upright or a fall
    assert report["time_upright"] == pytest.approx((100 - report["falls"]) * 0.02)
    # a mean of errors is at least the error of the mean velocity (Jensen): the two summaries agree
    vx, vy, yaw_rate = report["mean_base_velocity"]
    assert all(math.isfinite(v) for v in (vx, vy, yaw_rate))
    assert report["lin_vel_error"] >= math.hypot(0.3 - vx, 0.0 - vy) - 1e-9
    assert report["ang_vel_error"] >= abs(yaw_rate) - 1e-9
    import imageio.v2 as imageio

    with imageio.get_reader(str(video)) as reader:
        assert sum(1 for _ in reader) == 100  # one frame per 20 ms control step


def test_train_phase_student_exports_with_a_warning_and_the_teacher_reads_priv(roa_runs, tmp_path):
    student, teacher = run_side_by_side(export_invocation(roa_runs["teacher"], tmp_path / "student"),
                                        export_invocation(roa_runs["teacher"], tmp_path / "teacher", "--which",
                                                          "teacher"))
    assert student.returncode == 0, student.stderr[-3000:]
    assert "was distilled but not finetuned" in student.stderr
    assert teacher.returncode == 0, teacher.stderr[-3000:]
    meta = json.loads((tmp_path / "teacher" / "policy.json").read_text())
    assert meta["policy"] == "teacher" and meta["inputs"] == {"obs": [45], "priv": [35]} and meta["history"] is None


def test_corrupt_mismatched_or_wrong_kind_of_checkpoint_is_a_clear_error(roa_runs, trained_run, tmp_path):
    corrupt = tmp_path / "model_5.pt"
    corrupt.write_bytes(b"\x00not a checkpoint")
    unreadable = run_main("export.py", "--checkpoint", str(corrupt), "--out", str(tmp_path / "a"))
    assert unreadable.returncode == 2 and f"Checkpoint '{corrupt}' cannot be read" in unreadable.stderr
    # found once the environment is built: a process
    rough = export(roa_runs["student"], tmp_path / "b", "--task", "LocoLab-Velocity-Rough-Go2")
    assert rough.returncode == 2 and "was trained on another environment" in rough.stderr
    ppo = run_main("export.py", "--checkpoint", str(trained_run), "--out", str(tmp_path / "c"), "--which", "student")
    assert ppo.returncode == 2 and "applies to PPO-ROA checkpoints" in ppo.stderr
    for result in (unreadable, rough, ppo):
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "b" / "policy.onnx").exists()
