"""The training simulator and the sim-to-sim simulator resolve a standing robot's contacts alike: at the same physics
step and contact ``solref`` (time constant and damping ratio), Newton (MuJoCo-Warp, Newton's collision pipeline and
actuators) and MuJoCo's C engine (the generated MJCF, sim2sim.py's PD loop) sink the feet equally deep and hold the
base at the same height. So a policy's sim-to-sim gap comes from the settings that differ (the MJCF's softer default
contacts), which sim2sim.py's ``--contact_time_constant`` and eval.py's contact sweep measure."""

from __future__ import annotations

import pytest

from conftest import probe_report

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def probe() -> dict:
    return probe_report("tests/probe_contact_parity.py")


def test_newton_holds_the_asked_contact_solref(probe):
    for newton in probe["newton"]:
        for time_constant, damping_ratio in newton["solref"]:
            assert time_constant == pytest.approx(newton["time_constant"], rel=1e-5)
            assert damping_ratio == pytest.approx(probe["damping_ratio"], rel=1e-5)


def test_the_feet_sink_equally_deep_in_both_simulators(probe):
    """0.1 mm: 1.6 times the largest difference measured over the probe's two robots (0.063 mm; 0.02 mm on the first:
    docs/tasks.md), with feet that sink 0.9 to 11 mm."""
    for newton, mujoco in zip(probe["newton"], probe["mujoco"]):
        assert len(mujoco["penetration"]) == 4  # one contact per foot
        for world in newton["penetration"]:
            assert world == pytest.approx(mujoco["penetration"], abs=1e-4), newton["time_constant"]


def test_the_base_stands_at_the_same_height_in_both_simulators(probe):
    """1.5 mm, where the softer contacts lower the base by 12 mm. With condim-3 feet the engines agreed to 0.11 mm
    (docs/tasks.md); with the feet's condim-6 contacts (torsional and rolling friction, both engines) they differ by
    0.69-0.74 mm (measured 2026-12-03, the same with rolling friction 0.0001: the torsional rows, solved by
    MuJoCo-Warp and MuJoCo C, settle the stance apart), so the bound is twice that."""
    softest = probe["mujoco"][-1]["base_height"]
    assert probe["mujoco"][0]["base_height"] - softest > 0.005  # softer contacts lower it measurably
    for newton, mujoco in zip(probe["newton"], probe["mujoco"]):
        for height in newton["base_height"]:
            assert height == pytest.approx(mujoco["base_height"], abs=1.5e-3), newton["time_constant"]
