"""Documented claims that no other test pins: play variants (README.md and docs/tasks.md), refusal of another robot's
checkpoint (docs/ppo_roa.md), PPO export on ``obs`` into the default folder (docs/deployment.md)."""

from __future__ import annotations

import json

import onnx
import pytest

from conftest import last_json, run_script

from locolab.runners.on_policy_runner import signature_differences

SIGNATURE = {"observations": {"policy": [45], "critic": [72]}, "num_actions": 12,
             "joint_names": {"robot": ["FL_hip_joint", "FR_hip_joint"]}}


def test_play_variants_have_32_envs_no_pushes_no_curriculum_no_noise():
    from locolab.envs import load_task_cfgs

    for task in ("LocoLab-Velocity-Flat-Go2-Play", "LocoLab-Velocity-Rough-Go2-Play"):
        env_cfg, _ = load_task_cfgs(task, device="cpu", num_envs=None)
        assert env_cfg.scene.num_envs == 32, task
        assert env_cfg.events.push_robot is None, task
        assert env_cfg.curriculum.terrain_levels is None, task
        assert env_cfg.observations.policy.enable_corruption is False, task


def test_a_checkpoint_of_another_robot_or_action_size_is_refused_with_the_difference_named():
    other_robot = json.loads(json.dumps(SIGNATURE))
    other_robot["joint_names"]["robot"] = ["LF_HAA", "RF_HAA"]
    assert "robot 'robot' has joints ['FL_hip_joint', 'FR_hip_joint'] in the checkpoint, ['LF_HAA', 'RF_HAA'] here" \
        in signature_differences(SIGNATURE, other_robot)
    other_actions = dict(SIGNATURE, num_actions=8)
    assert signature_differences(SIGNATURE, other_actions) == "12 actions in the checkpoint, 8 here"
    assert signature_differences(SIGNATURE, SIGNATURE) == ""


@pytest.mark.slow
def test_ppo_checkpoint_exports_its_policy_on_obs_into_the_default_folder(trained_run):
    result = run_script("export.py", "--checkpoint", str(trained_run / "model_2.pt"), "--steps", "10",
                        "--num_envs", "2")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = last_json(result.stdout)
    out = trained_run / "exported"
    assert summary["onnx"] == str(out / "policy.onnx") and summary["agent"] == "ppo"
    assert summary["max_abs_diff"] <= 1e-5
    graph = onnx.load(str(out / "policy.onnx"))
    assert [i.name for i in graph.graph.input] == ["obs"]
    metadata = json.loads((out / "policy.json").read_text())
    assert metadata["inputs"] == {"obs": [45]} and "history" not in metadata["inputs"]
