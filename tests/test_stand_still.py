"""The stand-still penalty (locolab.envs.mdp.stand_still): the joints' summed distance from their defaults under a
standing command, nothing under a command that asks to move, turning in place included (where Isaac Lab's own term,
gated on the linear command alone, would penalise it)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from isaaclab.managers import SceneEntityCfg

from conftest import FakeScene

from locolab.envs.mdp.gait_clock import MOVING_COMMAND
from locolab.envs.mdp.stand_still import stand_still_joint_deviation

DEFAULT = torch.tensor([0.1, 0.8, -1.5] * 4)
"""A Go2-like default pose (hip, thigh, calf per leg) [rad]."""


def penalty(joint_pos: torch.Tensor, command: torch.Tensor) -> list[float]:
    """The term on what it reads of an environment: joint positions [N, 12] and the command [N, 3]."""
    data = SimpleNamespace(joint_pos=SimpleNamespace(torch=joint_pos),
                           default_joint_pos=SimpleNamespace(torch=DEFAULT.repeat(len(joint_pos), 1)))
    env = SimpleNamespace(scene=FakeScene(robot=SimpleNamespace(data=data)),
                          command_manager=SimpleNamespace(get_command=lambda name: command))
    asset_cfg = SceneEntityCfg("robot")
    asset_cfg.joint_ids = slice(None)  # what the manager resolves for "every joint"
    return [round(value, 4) for value in stand_still_joint_deviation(env, asset_cfg=asset_cfg).tolist()]


def test_the_joints_distance_from_their_defaults_is_penalised_only_under_a_standing_command():
    offset = torch.zeros(12)
    offset[1], offset[5] = 0.3, -0.2  # a thigh forward, a calf bent further
    poses = torch.stack([DEFAULT, DEFAULT + offset, DEFAULT + offset, DEFAULT + offset, DEFAULT + offset])
    commands = torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.6 * MOVING_COMMAND, 0.0, -0.6 * MOVING_COMMAND],
                             [0.5, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert penalty(poses, commands) == pytest.approx([0.0, 0.5, 0.5, 0.0, 0.0])


def test_the_clocks_threshold_separates_standing_from_moving():
    pose = (DEFAULT + 0.1).unsqueeze(0).repeat(2, 1)
    commands = torch.tensor([[MOVING_COMMAND, 0.0, 0.0], [0.0, 0.0, 1.01 * MOVING_COMMAND]])
    assert penalty(pose, commands) == pytest.approx([1.2, 0.0])
