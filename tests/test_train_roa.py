"""train.py runs PPO-ROA's two phases on the Go2 task on a CPU, logs what ROA needs, and refuses wrong inputs."""

from __future__ import annotations

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from conftest import ROA_SMALL_RUN, run_dirs, run_main, run_script

pytestmark = pytest.mark.slow


def scalars(run, tag: str) -> list[float]:
    return [event.value for event in EventAccumulator(str(run)).Reload().Scalars(tag)]


def test_teacher_checkpoint_holds_every_module_optimizer_normaliser_and_schedule(roa_runs):
    checkpoint = torch.load(roa_runs["teacher"] / "model_1.pt", weights_only=False)
    for module in ("actor", "actor_adapt", "adapt_module", "critic"):
        assert f"{module}_state_dict" in checkpoint
    assert any(key.startswith("encoder.") for key in checkpoint["actor_state_dict"])  # encoder_priv
    assert any(key.startswith("encoder.") for key in checkpoint["actor_adapt_state_dict"])  # adapt_ema
    assert checkpoint["actor_state_dict"]["obs_normalizer.count"] > 0
    for optimizer in ("optimizer", "adaptation_optimizer", "distillation_optimizer"):
        assert checkpoint[f"{optimizer}_state_dict"]["state"]
    assert checkpoint["iter"] == 1
    assert checkpoint["roa"]["phase"] == "train" and checkpoint["roa"]["updates"] == 2
    assert checkpoint["env"]["observations"]["history"] == [50, 45]  # 50 policy observations of 45 values
    assert checkpoint["env"]["observations"]["priv"] == [35]


def test_tensorboard_has_ppo_losses_roa_diagnostics_throughput_and_reward_terms(roa_runs):
    tags = set(EventAccumulator(str(roa_runs["teacher"])).Reload().Tags()["scalars"])
    expected = {"Loss/surrogate", "Loss/value", "Loss/entropy", "Loss/regularization", "Loss/adaptation",
                "Loss/distillation", "Loss/learning_rate", "ROA/lambda", "ROA/phase", "ROA/latent_error",
                "Perf/total_fps", "Episode_Reward/track_lin_vel_xy_exp"}
    assert expected <= tags
    assert scalars(roa_runs["teacher"], "ROA/phase") == [0.0, 0.0]
    assert scalars(roa_runs["student"], "ROA/phase") == [1.0, 1.0]


def test_finetune_starts_from_the_teacher_and_keeps_it_frozen(roa_runs):
    assert "Finetuning the student of teacher" in roa_runs["finetune_stdout"]
    teacher = torch.load(roa_runs["teacher"] / "model_1.pt", weights_only=False)
    student = torch.load(roa_runs["student"] / "model_1.pt", weights_only=False)
    assert student["roa"]["phase"] == "finetune" and student["iter"] == 1  # iterations restart at 0
    for key, value in teacher["actor_state_dict"].items():  # actor and encoder_priv, bit for bit
        assert torch.equal(student["actor_state_dict"][key], value), key
    assert any(not torch.equal(student["actor_adapt_state_dict"][key], value)
               for key, value in teacher["actor_adapt_state_dict"].items() if key.startswith("mlp."))


def test_resume_continues_a_roa_run_and_its_lambda_schedule(roa_runs, tmp_path):
    result = run_script("train.py", "--agent", "roa", *ROA_SMALL_RUN[:4], "--max_iterations", "1", "--resume",
                        str(roa_runs["teacher"]), "--log_root", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "model_1.pt at iteration 2" in result.stdout
    (resumed,) = run_dirs(tmp_path)
    checkpoint = torch.load(resumed / "model_2.pt", weights_only=False)
    assert checkpoint["roa"]["updates"] == 3


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--agent", "roa", "--phase", "finetune"), "--phase finetune starts from a train-phase checkpoint"),
        (("--agent", "ppo", "--phase", "finetune"), "--phase finetune and --teacher belong to --agent roa"),
        (("--agent", "roa", "--teacher", "x"), "--teacher starts a new finetune run"),
        (("--agent", "sac", "--init_from", "x"), "--init_from starts a new PPO, recurrent PPO or PPO-ROA teacher run"),
        (("--resume", "x", "--init_from", "y"), "use it without --resume and --teacher"),
    ],
)
def test_inconsistent_arguments_are_clear_errors(arguments, message):
    result = run_script("train.py", *arguments, "--device", "cpu")
    assert result.returncode == 2 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_wrong_teacher_checkpoints_are_clear_errors(roa_runs, trained_run, tmp_path):
    finetune = ("--agent", "roa", "--phase", "finetune", "--device", "cpu", "--num_envs", "8")
    ppo = run_main("train.py", *finetune, "--teacher", str(trained_run), "--log_root", str(tmp_path))
    assert ppo.returncode == 2 and "was trained with --agent ppo, not --agent roa" in ppo.stderr
    student = run_main("train.py", *finetune, "--teacher", str(roa_runs["student"]), "--log_root", str(tmp_path))
    assert student.returncode == 2 and "is from ROA phase 'finetune', expected phase 'train'" in student.stderr
    corrupt = tmp_path / "model_3.pt"
    corrupt.write_bytes(b"\x80garbage")
    unreadable = run_main("train.py", *finetune, "--teacher", str(corrupt), "--log_root", str(tmp_path))
    assert unreadable.returncode == 2 and f"Checkpoint '{corrupt}' cannot be read" in unreadable.stderr
    # found once the environment is built: a process of its own
    rough = run_script("train.py", *finetune, "--task", "LocoLab-Velocity-Rough-Go2", "--teacher",
                       str(roa_runs["teacher"]), "--log_root", str(tmp_path))
    assert rough.returncode == 2
    assert "was trained on another environment: observation 'critic' has shape [80] in the checkpoint, [269] here" \
        in rough.stderr
    for result in (ppo, student, unreadable, rough):
        assert "Traceback" not in result.stderr
