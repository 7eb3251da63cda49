"""The entropy bonus follows its schedule: constant by default, then linearly to its final value, by iteration
(so a resumed run is at the same point), and training logs it."""

from __future__ import annotations

import pytest

from conftest import scalars_of_a_short_training
from locolab.runners.entropy_schedule import scheduled_entropy


def test_the_coefficient_is_constant_until_start_then_linear_to_final_at_end():
    values = [scheduled_entropy(it, 0.01, 100, 300, 0.0) for it in (0, 100, 200, 250, 300, 1000)]
    assert values == pytest.approx([0.01, 0.01, 0.005, 0.0025, 0.0, 0.0])


def test_without_a_window_the_coefficient_stays_what_the_algorithm_says():
    assert scheduled_entropy(500, 0.01, 0, 0, 0.0) == 0.01
    assert scheduled_entropy(500, 0.01, 300, 100, 0.0) == 0.01


@pytest.mark.slow
def test_training_applies_and_logs_the_schedule(tmp_path):
    _, events = scalars_of_a_short_training(tmp_path, "agent.entropy_schedule.start=0", "agent.entropy_schedule.end=2",
                                            "agent.entropy_schedule.final=0.002")
    assert [e.value for e in events.Scalars("Loss/entropy_coef")] == pytest.approx([0.01, 0.006, 0.002])
