"""The foot-stumble penalty (locolab.envs.mdp.foot_stumble): a foot's contact normal leaning past the ratio,
horizontal over vertical, in units of the robot's weight; a foot on the ground, on a slope below the ratio's angle or
in the air pays nothing. On the real rough task: tests/test_terrain.py (standing robots pay nothing)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from isaaclab.managers import SceneEntityCfg

from conftest import FakeScene

from locolab.envs.mdp.foot_stumble import foot_stumble, foot_stumble_reward

WEIGHT = 150.0
"""The reference force [N]: about a Go2's weight."""


def penalty(normals: torch.Tensor, ratio: float = 1.0) -> list[float]:
    """The term on a contact sensor whose feet (the first four of five bodies: the fifth is the base) carry these
    normal forces [N, 4, 3]; the base's force is huge and horizontal, and must not count."""
    base = torch.tensor([1000.0, 0.0, 0.0]).expand(len(normals), 1, 3)
    data = SimpleNamespace(net_normal_forces_w=SimpleNamespace(torch=torch.cat((normals, base), dim=1)))
    env = SimpleNamespace(scene=FakeScene(sensors={"contact_forces": SimpleNamespace(data=data)}))
    feet = SceneEntityCfg("contact_forces")
    feet.body_ids = [0, 1, 2, 3]  # what the manager resolves for ".*_foot"
    return [round(value, 4) for value in foot_stumble(env, ratio, WEIGHT, feet).tolist()]


def normal(magnitude: float, lean: float) -> list[float]:
    """A normal force of ``magnitude`` [N] leaning ``lean`` [rad] from vertical, in x."""
    return [magnitude * math.sin(lean), 0.0, magnitude * math.cos(lean)]


def test_only_the_normal_leaning_past_the_ratio_pays_by_how_much_it_leans_past_it():
    still = [normal(40.0, 0.0)] * 4
    slope = [normal(40.0, 0.4)] * 4  # the curriculum's steepest slope, below 45 degrees
    face = [normal(60.0, math.pi / 2), normal(40.0, 0.0), [0.0, 0.0, 0.0], normal(40.0, 0.0)]  # FL against a box side
    edge = [normal(math.sqrt(2) * 30.0, 1.25), normal(40.0, 0.0), normal(40.0, 0.0), normal(40.0, 0.0)]
    values = penalty(torch.tensor([still, slope, face, edge]))
    lean = math.sqrt(2) * 30.0
    assert values == pytest.approx([0.0, 0.0, 60.0 / WEIGHT, lean * (math.sin(1.25) - math.cos(1.25)) / WEIGHT],
                                   abs=1e-4)
    assert penalty(torch.tensor([slope]), ratio=0.3)[0] == pytest.approx(
        4 * 40.0 * (math.sin(0.4) - 0.3 * math.cos(0.4)) / WEIGHT, abs=1e-4)


def test_the_term_reads_the_feet_of_the_contact_sensor_and_is_off_at_weight_zero():
    term = foot_stumble_reward(0.0, 1.0, 15.0)
    assert term.weight == 0.0 and term.params["ratio"] == 1.0
    assert term.params["reference_force"] == pytest.approx(15.0 * 9.81)
    assert term.params["sensor_cfg"].name == "contact_forces" and term.params["sensor_cfg"].body_names == ".*_foot"
