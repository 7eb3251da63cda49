"""train.py: a CPU run writes checkpoints, TensorBoard events and configs; resume continues it; signals save."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
import torch
import yaml
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from conftest import REPO, run_dirs, run_script

pytestmark = pytest.mark.slow


def scalar_steps(run, tag: str) -> list[int]:
    events = EventAccumulator(str(run)).Reload()
    return [event.step for event in events.Scalars(tag)]


def test_training_run_writes_checkpoint_events_and_configs(trained_run):
    assert (trained_run / "model_2.pt").is_file()
    assert list(trained_run.glob("events.out.tfevents.*"))
    assert scalar_steps(trained_run, "Loss/surrogate") == [0, 1, 2]
    env_cfg = yaml.load((trained_run / "params" / "env.yaml").read_text(), Loader=yaml.UnsafeLoader)
    agent_cfg = yaml.load((trained_run / "params" / "agent.yaml").read_text(), Loader=yaml.UnsafeLoader)
    assert env_cfg["scene"]["num_envs"] == 8 and env_cfg["sim"]["device"] == "cpu"
    assert agent_cfg["device"] == "cpu" and agent_cfg["experiment_name"] == "locolab_go2_flat"
    assert not list(trained_run.glob(".*.tmp*"))  # atomic writes leave no temporary files
    checkpoint = torch.load(trained_run / "model_2.pt", weights_only=False)
    assert checkpoint["iter"] == 2
    assert {"actor_state_dict", "critic_state_dict", "optimizer_state_dict"} <= set(checkpoint)


def test_resume_continues_iterations_optimizer_and_normaliser(trained_run, tmp_path):
    result = run_script(
        "train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "2", "--resume", str(trained_run),
        "--log_root", str(tmp_path),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Resumed from" in result.stdout and "model_2.pt at iteration 3" in result.stdout
    (resumed,) = run_dirs(tmp_path)
    assert scalar_steps(resumed, "Loss/surrogate") == [3, 4]
    before = torch.load(trained_run / "model_2.pt", weights_only=False)
    after = torch.load(resumed / "model_4.pt", weights_only=False)
    assert after["iter"] == 4
    norm_before = before["actor_state_dict"]["obs_normalizer.count"]
    norm_after = after["actor_state_dict"]["obs_normalizer.count"]
    assert norm_after > norm_before  # statistics continued, not restarted
    steps_before = before["optimizer_state_dict"]["state"][0]["step"]
    assert after["optimizer_state_dict"]["state"][0]["step"] > steps_before  # Adam moments carried over


def test_sigterm_saves_a_checkpoint_before_exiting(tmp_path):
    command = [
        sys.executable, str(REPO / "scripts" / "train.py"), "--device", "cpu", "--num_envs", "8",
        "--max_iterations", "1000", "--log_root", str(tmp_path),
    ]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        if "Learning iteration 1/" in line:  # iteration 0 is complete
            break
    time.sleep(1.0)
    process.send_signal(signal.SIGTERM)
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 130, output[-2000:]
    (run,) = run_dirs(tmp_path)
    saved_line = next(line for line in output.splitlines() if "Interrupted: saved" in line)
    saved = run / saved_line.rsplit("/", 1)[1]
    assert torch.load(saved, weights_only=False)["iter"] == int(saved.stem.split("_")[1]) >= 0
    assert not list(run.glob(".*.tmp*"))


def test_corrupt_checkpoint_is_a_clear_error(tmp_path):
    corrupt = tmp_path / "model_7.pt"
    corrupt.write_bytes(b"not a checkpoint")
    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--resume", str(corrupt),
                        "--log_root", str(tmp_path))
    assert result.returncode == 2
    assert f"Checkpoint '{corrupt}' cannot be read" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_task_and_missing_checkpoint_are_clear_errors(tmp_path):
    unknown = run_script("train.py", "--task", "LocoLab-Nope", "--device", "cpu")
    assert unknown.returncode == 2 and "Unknown task 'LocoLab-Nope'" in unknown.stderr
    assert "LocoLab-Velocity-Flat-Go2" in unknown.stderr
    missing = run_script("train.py", "--device", "cpu", "--resume", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "Checkpoint not found" in missing.stderr
