"""The robustness curriculum starts from the nominal robot without pushes and widens both with good tracking."""

from __future__ import annotations

import pytest

from conftest import probe_report

pytestmark = pytest.mark.slow


def test_level_scales_dynamics_and_pushes_and_follows_tracking():
    probe = probe_report("tests/probe_curriculum.py")
    assert probe["initial_level"] == 0.0
    assert probe["initial_spread"] < 1e-6  # every environment at the ranges' midpoints
    assert probe["initial_push"] == {"x": [0.0, 0.0], "y": [0.0, 0.0]}
    # 90 % of the best tracking raises the level, 20 % lowers it, 50 % (between half the threshold and it) keeps it
    assert probe["levels"] == [0.25, 0.5, 0.25, 0.25]
    assert probe["push_at_level"] == {"x": [-0.125, 0.125], "y": [-0.125, 0.125]}
    assert 0.0 < probe["relative_spread_at_level"] <= 0.25 + 1e-6
