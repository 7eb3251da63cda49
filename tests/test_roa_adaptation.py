"""PPO-ROA adapts: on a task whose best action depends on a hidden gain, the student that reads only its history
gets within 10 % of the privileged teacher and clearly beats blind PPO, and the latent error falls.

Real training through LocoLab's OnPolicyRunner and rsl_rl's storage, on a vectorised torch environment (about a
minute on 2 CPU cores, no simulator).
"""

from __future__ import annotations

import statistics

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from roa_toy_training import mean_return, train_ppo, train_roa

pytestmark = pytest.mark.slow  # trains three toy runs through the runner's learn (about a minute)

TRAIN_ITERATIONS, FINETUNE_ITERATIONS = 40, 30


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    logs = tmp_path_factory.mktemp("roa_toy")
    teacher_run = train_roa(logs / "train", "train", TRAIN_ITERATIONS)
    student_run = train_roa(logs / "finetune", "finetune", FINETUNE_ITERATIONS,
                            teacher=logs / "train" / f"model_{TRAIN_ITERATIONS - 1}.pt")
    blind_run = train_ppo(TRAIN_ITERATIONS)
    return {
        "logs": logs,
        "teacher": mean_return(teacher_run.alg.actor),
        "student_before_finetune": mean_return(teacher_run.alg.actor_adapt),
        "student": mean_return(student_run.alg.actor_adapt),
        "blind": mean_return(blind_run.alg.actor),
    }


def scalars(run_dir, tag: str) -> list[float]:
    return [event.value for event in EventAccumulator(str(run_dir)).Reload().Scalars(tag)]


def test_student_reaches_90_percent_of_the_teacher_and_clearly_beats_blind_ppo(trained):
    teacher, student, blind = trained["teacher"], trained["student"], trained["blind"]
    print(f"returns over a 40-step episode: teacher {teacher:.2f}, student {student:.2f} "
          f"(before finetune {trained['student_before_finetune']:.2f}), blind PPO {blind:.2f}")
    assert teacher > 30.0  # the privileged teacher solved the task (at most 40)
    assert student >= 0.9 * teacher
    assert student >= 1.3 * blind


def test_latent_error_falls_during_training(trained):
    errors = scalars(trained["logs"] / "train", "ROA/latent_error")  # adapt_module's, on each fresh rollout
    assert len(errors) == TRAIN_ITERATIONS
    early, late = statistics.fmean(errors[:10]), statistics.fmean(errors[-5:])
    assert late < 0.6 * early, (early, late)
    finetune_errors = scalars(trained["logs"] / "finetune", "ROA/latent_error")  # adapt_ema's, student rollouts
    assert statistics.fmean(finetune_errors[-5:]) < early  # still informative on the student's own states
