"""How the randomised dynamics are drawn over their ranges: uniform by default, more often near the ends when asked."""

from __future__ import annotations

import math

import pytest
import torch

from locolab.envs.mdp.dynamics import check_concentration, unit_draws

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
