"""SAC through the whole tool chain on the real Go2 task: train.py (both collectors), the metric names PPO logs,
play.py, export.py's parity check, and the one-line errors of options that cannot work."""

from __future__ import annotations

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from conftest import SMALL_SAC_SETTINGS, last_json, run_dirs, run_main, run_script
from locolab.algorithms.sac_cfg import SacRunnerCfg, check_sac_cfg

SMALL_SAC = ("--device", "cpu", "--num_envs", "8", "--max_iterations", "3", "--seed", "5", *SMALL_SAC_SETTINGS,
             "env.episode_length_s=0.3")
"""A few seconds of SAC, with 15-step episodes, so episodes end within the run."""


SYNC_BOUNDS = (0.4, 0.6)
BOUNDS_OVERRIDE = f"agent.actor.action_bounds=[{','.join([f'[{SYNC_BOUNDS[0]},{SYNC_BOUNDS[1]}]'] * 12)}]"
"""The sync run's actions lie in [0.4, 0.6], a range its untrained actor's default-pose action (0) is outside."""
ENTROPY_SCHEDULE = ("agent.algorithm.target_entropy=10", "agent.entropy_schedule.start=0",
                    "agent.entropy_schedule.end=2", "agent.entropy_schedule.final=-2")
"""The sync run's entropy target falls from 10 to -2 over its 3 iterations."""


@pytest.fixture(scope="module")
def sac_runs(tmp_path_factory) -> dict:
    runs = {}
    for collector in ("sync", "async"):
        logs = tmp_path_factory.mktemp(f"sac_{collector}")
        # both paths: the async run mirrors its transitions, the sync run has its own bounds for every action and
        # an entropy schedule
        extra = (("agent.algorithm.symmetry_augmentation=true",) if collector == "async"
                 else (BOUNDS_OVERRIDE, *ENTROPY_SCHEDULE))
        result = run_script("train.py", *SMALL_SAC, *extra, "--collector", collector, "--log_root", str(logs))
        assert result.returncode == 0, result.stderr[-3000:]
        (runs[collector],) = run_dirs(logs)
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("collector", ["sync", "async"])
def test_sac_trains_and_logs_under_ppos_metric_names(sac_runs, collector):
    run = sac_runs[collector]
    assert sorted(p.name for p in run.glob("model_*.pt")) == ["model_0.pt", "model_2.pt"]
    events = EventAccumulator(str(run)).Reload()
    tags = set(events.Tags()["scalars"])
    for tag in ("Loss/value_function", "Loss/surrogate", "Loss/entropy", "Loss/learning_rate", "Policy/mean_std",
                "Perf/total_fps", "Perf/collection_time", "Train/mean_reward", "rollout/lin_vel_error",
                "SAC/temperature", "SAC/q_value", "NonFinite/env_resets"):
        assert tag in tags, tag
    updates = [event.value for event in events.Scalars("SAC/updates")]
    assert updates[-1] >= 4  # 2 per iteration once the warm-up is full
    # 3 iterations x 8 steps x 8 envs, the last 2 steps of each env still waiting for their 3-step return; the
    # async run adds each transition's mirror image too
    added = events.Scalars("SAC/buffer_transitions")[-1].value
    assert added == (3 * 8 - 2) * 8 * (2 if collector == "async" else 1)
    assert f"collector: {collector}" in (run / "params" / "agent.yaml").read_text()


@pytest.mark.slow
def test_sacs_entropy_target_follows_its_schedule_by_iteration(sac_runs):
    events = EventAccumulator(str(sac_runs["sync"])).Reload()
    assert [event.value for event in events.Scalars("SAC/target_entropy")] == pytest.approx([10.0, 4.0, -2.0])
    assert "entropy_schedule:\n  start: 0\n  end: 2\n  final: -2.0" in (sac_runs["sync"] / "params" / "agent.yaml").read_text()


@pytest.mark.slow
def test_a_sac_checkpoint_plays_and_exports_with_parity(sac_runs, tmp_path):
    checkpoint = sac_runs["sync"] / "model_2.pt"
    played = run_script("play.py", "--checkpoint", str(checkpoint), "--device", "cpu", "--num_envs", "4",
                        "--steps", "20", "--command", "0.5", "0", "0")
    assert played.returncode == 0, played.stderr[-3000:]
    summary = last_json(played.stdout)
    assert summary["agent"] == "sac" and summary["commanded_min"] == [0.5, 0.0, 0.0]
    low, high = summary["action_percentiles"]["2.5"], summary["action_percentiles"]["97.5"]
    assert SYNC_BOUNDS[0] <= min(low) and max(high) <= SYNC_BOUNDS[1]  # the checkpoint's bounds, not the config's
    exported = run_script("export.py", "--checkpoint", str(checkpoint), "--out", str(tmp_path))
    assert exported.returncode == 0, exported.stderr[-3000:]
    result = last_json(exported.stdout)
    assert result["agent"] == "sac" and result["max_abs_diff"] <= 1e-5
    assert (tmp_path / "policy.onnx").is_file() and (tmp_path / "policy.json").is_file()


@pytest.mark.slow
def test_a_ppo_checkpoint_given_to_sac_is_a_one_line_error(trained_run, tmp_path):
    result = run_main("train.py", *SMALL_SAC, "--resume", str(trained_run), "--log_root", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [line for line in result.stderr.strip().splitlines()
                                                  if line.startswith("error:")]
    assert "was trained with --agent ppo, not --agent sac" in result.stderr


@pytest.mark.parametrize("arguments, message", [
    (("agent.algorithm.batch_size=9000",), "is larger than the replay buffer"),
    (("agent.algorithm.learning_starts=5000",), "updates would never start"),
    (("agent.actor.action_bounds=[[-1.0,1.0],[0.5,-0.5]]",), "every pair needs finite low < high"),
])
def test_sac_settings_that_cannot_train_are_one_line_errors(arguments, message, tmp_path):
    result = run_main("train.py", *SMALL_SAC, *arguments, "--log_root", str(tmp_path))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr
    assert not list(tmp_path.iterdir())  # nothing was built or written


def test_the_collector_option_belongs_to_sac(tmp_path):
    result = run_script("train.py", "--collector", "async", "--device", "cpu", "--log_root", str(tmp_path))
    assert result.returncode == 2 and "--collector belongs to --agent sac" in result.stderr


def test_the_async_collector_is_refused_on_a_gpu():
    cfg = SacRunnerCfg(max_iterations=1, experiment_name="x", device="cuda:0", collector="async")
    with pytest.raises(ValueError, match="on cuda:0 use --collector sync"):
        check_sac_cfg(cfg)


@pytest.mark.slow
def test_a_resumed_run_refills_learning_starts_transitions_before_its_first_update(sac_runs, tmp_path):
    """docs/agents.md: the replay buffer is not checkpointed, so a resumed run collects ``learning_starts``
    transitions with the resumed actor before its first update. Here 64: the first resumed iteration adds 48 (8 steps
    of 8 envs, the last 2 of each waiting for their 3-step return) and updates nothing, the second reaches 112."""
    import torch

    checkpoint = sac_runs["sync"] / "model_2.pt"
    saved_updates = torch.load(checkpoint, weights_only=False)["sac"]["updates"]
    assert saved_updates >= 4
    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "2", "--seed", "5",
                        *SMALL_SAC_SETTINGS, "env.episode_length_s=0.3", BOUNDS_OVERRIDE, *ENTROPY_SCHEDULE,
                        "--resume", str(checkpoint), "--log_root", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "model_2.pt at iteration 3" in result.stdout
    (run,) = run_dirs(tmp_path)
    events = EventAccumulator(str(run)).Reload()
    added = [(event.step, event.value) for event in events.Scalars("SAC/buffer_transitions")]
    assert added == [(3, 48), (4, 112)]  # an empty buffer at the resume, refilled
    # no update in iteration 3 (nothing logged), the first 2 in iteration 4
    assert [(event.step, event.value) for event in events.Scalars("SAC/updates")] == [(4, saved_updates + 2)]
    assert [event.step for event in events.Scalars("Loss/value_function")] == [4]
