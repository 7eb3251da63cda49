"""Both Go2 tasks build and step on the CPU, on our robot, and the robot stands under the task's PD gains."""

from __future__ import annotations

import os

import pytest

from conftest import last_json, run_script

from locolab.assets import GO2_SPEC

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("task", "extra_shapes"),  # rough: the gait clock (2) for actor and critic, the height scan (187) for the critic,
    # ROA's teacher and a sighted actor ('scan')
    [("LocoLab-Velocity-Flat-Go2", {"critic": [8, 45 + 35], "priv": [8, 35]}),
     ("LocoLab-Velocity-Rough-Go2", {"policy": [8, 47], "critic": [8, 47 + 35 + 187], "priv": [8, 35 + 187],
                                     "scan": [8, 187]})],
)
def test_task_builds_and_steps_on_cpu_with_random_actions(task, extra_shapes):
    result = run_script("tests/probe_env.py", "--task", task, "--num_envs", "8", "--seconds", "1",
                        "--actions", "random")
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    assert probe["steps"] == 50
    # policy: IMU angular velocity and gravity, command, joint positions and velocities, last action (45; rough 47)
    assert probe["obs_shapes"] == {"policy": [8, 45], **extra_shapes}
    assert probe["action_dim"] == 12
    assert probe["finite"]
    assert probe["joint_names"] == GO2_SPEC.joint_names()
    assert {"base", "FL_foot", "RR_thigh"} <= set(probe["body_names"])


@pytest.mark.parametrize(
    ("dynamics", "lowest"),
    [("--nominal_dynamics", 0.9), ("", 0.85)],  # randomised: down to a 2.5 kg payload on 0.8-strength motors
)
def test_robot_stands_for_two_seconds_with_zero_actions(dynamics, lowest):
    result = run_script("tests/probe_env.py", "--task", "LocoLab-Velocity-Flat-Go2", "--num_envs", "16", "--seconds",
                        "2", *filter(None, [dynamics]))
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    assert probe["steps"] == 100
    assert probe["terminated"] == 0
    nominal = GO2_SPEC.standing_height()
    assert lowest * nominal <= probe["base_height_min"]
    assert probe["base_height_max"] <= 1.1 * nominal


def test_turn_in_place_commands_have_no_linear_velocity_and_keep_their_yaw_rate():
    result = run_script("tests/probe_env.py", "--task", "LocoLab-Velocity-Flat-Go2", "--num_envs", "64", "--seconds",
                        "1", "--turn_in_place", "0.5")
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    assert 16 <= probe["turn_in_place_envs"] <= 48  # half of 64, drawn
    assert probe["turning_linear_command_max"] == 0.0
    assert probe["turning_yaw_command_min"] > 0.0
    # heading control would change the yaw rate as the robot turns; a turn-in-place command is held
    assert probe["turning_command_change"] == 0.0


def test_missing_asset_is_an_immediate_error_naming_the_file(tmp_path):
    env = dict(os.environ, ISAACSIM_ASSET_ROOT=str(tmp_path / "empty_asset_root"))
    result = run_script(
        "train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "1", "--log_root", str(tmp_path),
        env=env, timeout=45,  # a cloud lookup would stall about 60 s before failing
    )
    assert result.returncode == 2
    assert "Asset file not found" in result.stderr
    assert "empty_asset_root/Isaac/IsaacLab/Environments/Grid" in result.stderr
    assert "Traceback" not in result.stderr
