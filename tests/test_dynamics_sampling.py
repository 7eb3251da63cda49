"""How the randomised dynamics are drawn over their ranges (uniform by default, more often near the ends when asked),
and how a contact time constant becomes the robot shapes' contact stiffness and damping."""

from __future__ import annotations

import math

import pytest
import torch

from locolab.envs.mdp.dynamics import check_concentration, check_contact_time_constants, robot_contact_gains, unit_draws

DRAWS = 200_000


def outer_share(draws: torch.Tensor, width: float) -> float:
    """Fraction of draws within ``width`` of either end of [0, 1]."""
    return ((draws < width) | (draws > 1 - width)).float().mean().item()


def test_concentration_one_is_uniform():
    torch.manual_seed(0)
    draws = unit_draws(DRAWS, 3, 1.0, "cpu")
    assert draws.shape == (DRAWS, 3) and 0 <= draws.min() and draws.max() <= 1
    assert outer_share(draws, 0.1) == pytest.approx(0.2, abs=0.005)
    assert draws.mean().item() == pytest.approx(0.5, abs=0.005)


def test_concentration_half_is_the_arcsine_law_with_twice_the_draws_near_the_ends():
    torch.manual_seed(0)
    draws = unit_draws(DRAWS, 3, 0.5, "cpu")
    assert 0 <= draws.min() and draws.max() <= 1  # the same ranges
    arcsine_tail = 1 - 2 / math.pi * math.asin(math.sqrt(0.9))  # P(u > 0.9): 0.205
    assert outer_share(draws, 0.1) == pytest.approx(2 * arcsine_tail, abs=0.005)
    assert draws.mean().item() == pytest.approx(0.5, abs=0.005)  # symmetric: the ranges' midpoints stay the mean


@pytest.mark.parametrize("concentration", [0.0, -1.0, float("nan"), float("inf"), "0.5"])
def test_a_concentration_that_is_not_a_positive_number_is_refused(concentration):
    with pytest.raises(ValueError, match="sample_concentration must be a positive number"):
        check_concentration(concentration)


GROUND_TIME_CONSTANT, GROUND_DAMPING_RATIO = 2 / 1100, 1.375
"""MuJoCo's solref of Newton's ground material in the tasks (stiffness 1.6e5, damping 1100)."""


def test_at_the_grounds_time_constant_the_robot_gets_the_ground_material():
    ke, kd = robot_contact_gains(torch.tensor([GROUND_TIME_CONSTANT]), GROUND_TIME_CONSTANT, GROUND_DAMPING_RATIO)
    assert ke.item() == pytest.approx(1.6e5, rel=1e-5) and kd.item() == pytest.approx(1100, rel=1e-5)


def test_the_mix_of_the_robot_shapes_and_the_grounds_solref_is_the_asked_time_constant():
    asked = torch.tensor([0.01, 0.02, 0.03])
    ke, kd = robot_contact_gains(asked, GROUND_TIME_CONSTANT, GROUND_DAMPING_RATIO)
    own_time_constant, own_damping_ratio = 2 / kd, kd / (2 * ke.sqrt())  # Newton's conversion to solref
    assert torch.allclose((own_time_constant + GROUND_TIME_CONSTANT) / 2, asked)
    assert torch.allclose(own_damping_ratio, torch.full_like(asked, GROUND_DAMPING_RATIO))


def test_a_contact_time_constant_no_robot_shape_can_give_is_refused():
    check_contact_time_constants((0.01, 0.03), GROUND_TIME_CONSTANT)
    with pytest.raises(ValueError, match="contact_time_constant 0.0005 s.*must exceed 0.000909 s"):
        check_contact_time_constants((0.0005, 0.03), GROUND_TIME_CONSTANT)
