"""play.py: a trained checkpoint plays headless, prints finite metrics and writes a MuJoCo-rendered MP4 of env 0."""

from __future__ import annotations

import math

import imageio.v2 as imageio
import numpy as np
import pytest

from conftest import last_json, run_main, run_script

from locolab.envs.metrics import DYNAMICS_METRICS

pytestmark = pytest.mark.slow

VIDEO_LENGTH = 30
NUM_ENVS = 4


@pytest.fixture(scope="module")
def played(trained_run):
    """One play run of the 3-iteration fixture checkpoint, with a video at the default path."""
    result = run_script(
        "play.py", "--task", "LocoLab-Velocity-Flat-Go2", "--run", str(trained_run), "--device", "cpu",
        "--num_envs", str(NUM_ENVS), "--steps", "20", "--seed", "0", "--video", "--video_length", str(VIDEO_LENGTH),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def read_frames(path) -> list[np.ndarray]:
    with imageio.get_reader(str(path)) as reader:
        return [np.asarray(frame) for frame in reader]


def test_summary_has_finite_metrics(played, trained_run):
    summary = last_json(played.stdout)
    assert summary["task"] == "LocoLab-Velocity-Flat-Go2-Play"  # the training id was mapped to its play variant
    assert summary["checkpoint"] == str(trained_run / "model_2.pt")  # --run picks the latest checkpoint
    assert summary["steps"] == VIDEO_LENGTH  # the run is extended to cover the video
    assert summary["episodes"] >= NUM_ENVS  # running episodes are counted when the run ends
    assert isinstance(summary["falls"], int) and 0 <= summary["falls"] <= summary["completed_episodes"]
    for key in ("mean_return", "mean_lin_vel_error", "mean_ang_vel_error"):
        assert isinstance(summary[key], float) and math.isfinite(summary[key]), key
    assert summary["mean_lin_vel_error"] >= 0 and summary["mean_ang_vel_error"] >= 0
    assert played.stdout.count("[LocoLab] episode ") == summary["episodes"]
    assert len(summary["fallen_robots"]) == summary["falls"]  # each fall with the robot that fell
    for robot in summary["fallen_robots"]:
        assert 0 <= robot["env"] < NUM_ENVS and set(DYNAMICS_METRICS) <= set(robot)
    low, high = summary["action_percentiles"]["2.5"], summary["action_percentiles"]["97.5"]
    assert len(low) == len(high) == 12 and all(a <= b for a, b in zip(low, high))  # one range per joint


def test_video_has_the_requested_frames_and_shows_motion(played, trained_run):
    video = trained_run / "videos" / "play_2.mp4"
    assert last_json(played.stdout)["video"] == str(video)
    frames = read_frames(video)
    assert len(frames) == VIDEO_LENGTH
    first, last = frames[0].astype(np.float32), frames[-1].astype(np.float32)
    assert first.shape == (480, 640, 3)
    for frame in (first, last):
        assert 20 < frame.mean() < 235 and frame.std() > 10  # a scene, not a blank or saturated image
    assert np.abs(first - last).mean() > 1.0  # the robot moved


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    missing = tmp_path / "model_9.pt"
    result = run_main("play.py", "--checkpoint", str(missing), "--device", "cpu")
    assert result.returncode == 2
    assert str(missing) in result.stderr and "error:" in result.stderr
    assert "Traceback" not in result.stderr


def test_corrupt_checkpoint_and_unknown_task_are_clear_errors(tmp_path, trained_run):
    corrupt = tmp_path / "model_7.pt"
    corrupt.write_bytes(b"not a checkpoint")
    result = run_main("play.py", "--checkpoint", str(corrupt), "--device", "cpu")
    assert result.returncode == 2 and f"Checkpoint '{corrupt}' cannot be read" in result.stderr
    unknown = run_main("play.py", "--task", "LocoLab-Nope", "--run", str(trained_run), "--device", "cpu")
    assert unknown.returncode == 2 and "Unknown task 'LocoLab-Nope'" in unknown.stderr
    for result in (result, unknown):
        assert "Traceback" not in result.stderr


def test_roa_checkpoints_play_their_student_or_the_requested_actor(roa_runs):
    finetuned = run_script("play.py", "--run", str(roa_runs["student"]), "--device", "cpu", "--num_envs", "2",
                           "--steps", "10")
    assert finetuned.returncode == 0, finetuned.stderr[-3000:]
    summary = last_json(finetuned.stdout)
    assert (summary["agent"], summary["policy"]) == ("roa", "student")  # what ships, by default
    assert math.isfinite(summary["mean_return"]) and summary["episodes"] >= 2
    teacher = run_script("play.py", "--run", str(roa_runs["teacher"]), "--device", "cpu", "--num_envs", "2",
                         "--steps", "10", "--policy", "student")
    assert teacher.returncode == 0, teacher.stderr[-3000:]
    assert last_json(teacher.stdout)["policy"] == "student"


def test_policy_choice_on_a_ppo_checkpoint_is_a_clear_error(trained_run):
    result = run_script("play.py", "--run", str(trained_run), "--device", "cpu", "--policy", "student")  # a process
    assert result.returncode == 2 and "'student' applies to PPO-ROA checkpoints" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1  # all of its stderr


def test_fixed_command_is_every_envs_command_for_the_whole_run(trained_run):
    result = run_script("play.py", "--run", str(trained_run), "--device", "cpu", "--num_envs", "4", "--steps", "30",
                        "--command", "0.3", "-0.2", "0.5")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = last_json(result.stdout)
    assert summary["command"] == [0.3, -0.2, 0.5]
    # read back from the environment's command manager at every step, over every env: never resampled
    assert summary["commanded_min"] == pytest.approx([0.3, -0.2, 0.5])
    assert summary["commanded_max"] == pytest.approx([0.3, -0.2, 0.5])
    vx, vy, wz = summary["mean_base_velocity"]
    assert summary["mean_forward_velocity"] == vx
    assert summary["mean_speed"] >= math.hypot(vx, vy) - 1e-6  # mean of |v| is at least |mean of v|
    assert summary["noisy_observations"] == []  # the -Play task observes without noise


def test_observation_noise_puts_the_trainings_noise_back(trained_run):
    result = run_script("play.py", "--run", str(trained_run), "--device", "cpu", "--num_envs", "4", "--steps", "10",
                        "--command", "0.5", "0", "0", "--observation_noise")
    assert result.returncode == 0, result.stderr[-3000:]
    # read back from the environment's observation manager: the terms Isaac Lab's velocity task trains with noise
    assert last_json(result.stdout)["noisy_observations"] == ["base_ang_vel", "projected_gravity", "joint_pos",
                                                              "joint_vel"]


@pytest.mark.parametrize(("command", "message"), [
    (["0.5", "0"], "--command takes three numbers VX VY WZ"),
    (["nan", "0", "0"], "--command VX must be finite"),
    (["0.5", "fast", "0"], "--command VY 'fast' is not a number"),
])
def test_bad_fixed_commands_are_one_line_errors(trained_run, command, message):
    result = run_main("play.py", "--run", str(trained_run), "--device", "cpu", "--command", *command)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_held_dynamics_are_every_robots_for_the_whole_run(trained_run):
    result = run_script("play.py", "--run", str(trained_run), "--device", "cpu", "--num_envs", "4", "--steps", "30",
                        "--dynamics", "added_base_mass=2.5", "base_com_x=0.1", "motor_strength=0.7")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = last_json(result.stdout)
    held = {"added_base_mass": 2.5, "base_com_x": 0.1, "motor_strength": 0.7}  # motors 0.7: below the training range
    assert summary["dynamics"] == held
    # what the physics stepped with at the end, read from MuJoCo-Warp's model and Newton's actuator arrays
    assert summary["dynamics_read_back"] == pytest.approx(held, abs=1e-5)
    # the applied values the episode metrics record, over every episode (resets keep them)
    metrics = summary["metrics"]
    assert {name: metrics[name] for name in held} == pytest.approx(held, abs=1e-5)


@pytest.mark.parametrize(("spec", "message"), [
    ("mass=2", "unknown parameter 'mass'; choose from friction, added_base_mass"),
    ("added_base_mass=nan", "the value must be a finite number"),
])
def test_bad_held_dynamics_are_one_line_errors(trained_run, spec, message):
    result = run_main("play.py", "--run", str(trained_run), "--device", "cpu", "--dynamics", spec)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
