"""Training logs the rollout's episode metrics and periodic deterministic evaluations with the same definitions as
play.py."""

from __future__ import annotations

import pytest
from conftest import last_json, run_dirs, run_script
from locolab.envs.mdp.rewards import TRAINING_ONLY_REWARDS
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


@pytest.mark.slow
def test_training_and_evaluation_log_the_same_metrics(tmp_path):
    result = run_script("train.py", "--task", "LocoLab-Velocity-Flat-Go2", "--device", "cpu", "--num_envs", "8",
                        "--sim_processes", "1", "--max_iterations", "2", "--seed", "2", "--log_root", str(tmp_path),
                        "agent.evaluation.interval=1", "agent.evaluation.num_envs=4", "agent.evaluation.seconds=1",
                        "env.episode_length_s=0.5")  # every training episode ends within the 2 x 24 steps
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = run_dirs(tmp_path)
    events = EventAccumulator(str(run), size_guidance={"scalars": 0})
    events.Reload()
    tags = events.Tags()["scalars"]
    rollout = {tag.removeprefix("rollout/") for tag in tags if tag.startswith("rollout/")}
    evaluation = {tag.removeprefix("eval/") for tag in tags if tag.startswith("eval/")}
    assert {"return", "length", "lin_vel_error", "fall", "time_out", "reward/track_lin_vel_xy_exp"} <= rollout
    # evaluation and play.py run the -Play task, which pays the task's rewards without the CPU profile's
    # training-only terms (fine tracking, trot gait), all of which this training pays
    training_only = {f"reward/{name}" for name in TRAINING_ONLY_REWARDS}
    assert training_only <= rollout
    played_metrics = rollout - training_only
    assert evaluation == played_metrics | {"seconds"}  # every iteration is evaluated: interval 1
    assert [event.step for event in events.Scalars("eval/return")] == [0, 1]
    assert [event.value for event in events.Scalars("eval/episodes")] == [4, 4]  # each env's first episode
    assert max(event.value for event in events.Scalars("eval/length")) <= 50  # of 1 s (50 steps), not the task's 20 s
    played = run_script("play.py", "--run", str(run), "--device", "cpu", "--num_envs", "2", "--steps", "20")
    assert played.returncode == 0, played.stderr[-3000:]
    assert set(last_json(played.stdout)["metrics"]) == played_metrics  # play.py measures the same metrics
