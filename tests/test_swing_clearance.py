"""The swing-clearance reward (locolab.envs.mdp.swing_clearance): the ground below a foot is the nearest ray's hit (a
step up counts from its top), the clock's swing feet are paid up to the target and the stance feet not at all, nothing
under a standing command. On the real rough task: tests/test_terrain.py (standing robots' feet read near zero)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from isaaclab.managers import SceneEntityCfg

from conftest import FakeScene

from locolab.envs.mdp.gait_clock import trot_stance
from locolab.envs.mdp.swing_clearance import ground_below, swing_clearance
from locolab.envs.metrics import FEET

STEP_DT, FREQUENCY, TARGET, RADIUS = 0.02, 2.0, 0.08, 0.02
BOX = 0.1
"""A box 10 cm high covers x > 0 of the test ground."""


def rays(num_envs: int) -> torch.Tensor:
    """[N, 21 x 11, 3] a 0.1 m grid of ray hits over x, y in [-1, 1] x [-0.5, 0.5]: the ground at 0, the box at
    x > 0."""
    x, y = torch.meshgrid(torch.linspace(-1.0, 1.0, 21), torch.linspace(-0.5, 0.5, 11), indexing="ij")
    z = torch.where(x > 0.0, BOX, 0.0)
    return torch.stack((x, y, z), dim=-1).reshape(1, -1, 3).repeat(num_envs, 1, 1)


def reward(feet: torch.Tensor, steps: torch.Tensor, command: torch.Tensor) -> list[float]:
    """The term on what it reads of an environment: foot positions ([N, 4, 3], FEET order), the scanner's hits, the
    clock's steps and the command."""
    robot = SimpleNamespace(find_bodies=lambda names, preserve_order: (list(range(len(FEET))), names),
                            data=SimpleNamespace(body_pos_w=SimpleNamespace(torch=feet)))
    scanner = SimpleNamespace(data=SimpleNamespace(ray_hits_w=SimpleNamespace(torch=rays(len(feet)))))
    env = SimpleNamespace(scene=FakeScene(robot=robot, sensors={"height_scanner": scanner}), episode_length_buf=steps,
                          step_dt=STEP_DT, command_manager=SimpleNamespace(get_command=lambda name: command))
    values = swing_clearance(env, FREQUENCY, TARGET, RADIUS, SceneEntityCfg("height_scanner"))
    return [round(value, 4) for value in values.tolist()]


def test_the_ground_below_is_the_nearest_rays_and_rays_that_hit_nothing_are_skipped():
    hits = rays(1)
    points = torch.tensor([[[-0.52, 0.03], [0.04, -0.21], [0.07, -0.21], [0.96, 0.49]]])
    assert ground_below(points, hits)[0].tolist() == pytest.approx([0.0, 0.0, BOX, BOX])
    hits[0][hits[0, :, 0].abs() < 0.05] = float("inf")  # the rays at x = 0 hit nothing
    assert ground_below(torch.tensor([[[0.04, 0.0], [-0.04, 0.0]]]), hits)[0].tolist() == pytest.approx([BOX, 0.0])


def test_swing_feet_are_paid_up_to_the_target_above_the_ground_below_them_and_stance_feet_not_at_all():
    steps = torch.zeros(4, dtype=torch.long)  # phase 0: the first diagonal pair (FL, RR) in stance
    swing = ~trot_stance(torch.zeros(1))[0]
    assert [FEET[i] for i in range(4) if swing[i]] == ["FR", "RL"]
    moving = torch.tensor([[0.5, 0.0, 0.0]]).repeat(4, 1)

    def feet(swing_bottom: float, stance_bottom: float, x: float = -0.5) -> torch.Tensor:
        """Feet at x, their lowest points at these heights (world z) by role."""
        z = torch.where(swing, swing_bottom, stance_bottom) + RADIUS
        return torch.stack((torch.full((4,), x), torch.zeros(4), z), dim=-1)

    batch = torch.stack([feet(TARGET, 0.0), feet(TARGET / 2, 0.0), feet(2 * TARGET, 0.0), feet(0.0, TARGET)])
    assert reward(batch, steps, moving) == [1.0, 0.5, 1.0, 0.0]
    on_box = torch.stack([feet(BOX + TARGET / 4, BOX, x=0.5), feet(BOX - 0.02, BOX, x=0.5),
                          feet(TARGET, 0.0), feet(TARGET, 0.0)])  # a step up counts from the box's top
    assert reward(on_box, steps, moving) == [0.25, 0.0, 1.0, 1.0]
    standing = torch.zeros(4, 3)
    assert reward(batch, steps, standing) == [0.0] * 4
    half_period = torch.full((4,), 13, dtype=torch.long)  # phase 0.52: the other diagonal pair swings
    assert reward(batch, half_period, moving) == [0.0, 0.0, 0.0, 1.0]
