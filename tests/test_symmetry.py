"""Left-right mirror symmetry: observations and actions map consistently (mirror twice = identity; sides swap by
name in the robot's joint order; lateral and yaw components change sign), in every group an agent reads; a mirror
loss that is only logged is measured on a sample of the minibatch."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from rsl_rl.extensions import Symmetry

from conftest import last_json, run_script

from locolab.assets import GO2_SPEC
from locolab.envs.symmetry import joint_mirror, mirrored_name, name_permutation
from locolab.runners.logged_mirror_loss import LOGGED_SAMPLES, LoggedMirrorLoss
from locolab.runners.on_policy_runner import LocoLabOnPolicyRunner


def test_mirrored_names_swap_left_and_right_only():
    assert mirrored_name("FL_hip_joint") == "FR_hip_joint"
    assert mirrored_name("RR_calf_joint") == "RL_calf_joint"
    assert mirrored_name("RL_foot") == "RR_foot"


def test_joint_mirror_in_policy_order_swaps_sides_negates_hips_and_is_an_involution():
    names = GO2_SPEC.joint_names()  # the order of policy.json's joint_names and of the actions
    perm, sign = joint_mirror(names)
    for index, name in enumerate(names):
        assert names[perm[index]] == mirrored_name(name)
        assert sign[index] == (-1.0 if "_hip_" in name else 1.0)
    assert [perm[p] for p in perm] == list(range(len(names)))
    # the default pose is its own mirror image (hips +0.1 left, -0.1 right; thighs and calves equal per side)
    default = GO2_SPEC.default_joint_pos()
    pose = [default[name] for name in names]
    assert [sign[i] * pose[perm[i]] for i in range(len(names))] == pytest.approx(pose)


def test_a_name_without_a_counterpart_is_an_error():
    with pytest.raises(ValueError, match="no counterpart"):
        name_permutation(["FL_foot", "FR_foot", "RL_foot"])


@pytest.mark.slow
@pytest.mark.parametrize("task", ["LocoLab-Velocity-Flat-Go2", "LocoLab-Velocity-Rough-Go2"])
def test_maps_of_every_observation_group_are_consistent_in_the_environment(task):
    result = run_script("tests/probe_symmetry.py", "--task", task)
    assert result.returncode == 0, result.stderr[-3000:]
    probe = last_json(result.stdout)
    for group, checks in probe["groups"].items():
        assert checks["involution"], group  # mirror twice = identity, exactly
        assert checks["covers_every_column"], group
    assert probe["actions_involution"]
    policy = probe["policy_terms"]
    # a state and its mirror image: lateral velocity, roll and yaw rates, lateral gravity and command change sign
    assert policy["base_ang_vel"] == [-1.0, 1.0, -1.0]
    assert policy["projected_gravity"] == [1.0, -1.0, 1.0]
    assert policy["velocity_commands"] == [1.0, -1.0, -1.0]
    assert probe["critic_base_lin_vel"] == [1.0, -1.0, 1.0]
    assert probe["dynamics_com_y_sign"] == -1.0 and probe["dynamics_friction_sign"] == 1.0
    assert probe["motor_strength_swap"] == {"FL_hip_joint": "FR_hip_joint", "RR_calf_joint": "RL_calf_joint"}
    assert probe["feet_swap"] == {"FL_foot": "FR_foot", "RL_foot": "RR_foot"}
    assert probe["history_mirrors_like_policy"]
    if task.startswith("LocoLab-Velocity-Rough"):
        assert probe["height_scan_rows_flipped"]


@pytest.mark.parametrize("until, iteration, mirrored", [(900, 899, True), (900, 900, False), (900, 1200, False),
                                                          (0, 5000, True)])
def test_mirroring_stops_from_symmetry_until_on_also_when_a_resume_starts_past_it(until, iteration, mirrored):
    runner = SimpleNamespace(cfg={"symmetry_until": until}, alg=SimpleNamespace(symmetry=object()))
    LocoLabOnPolicyRunner._schedule_symmetry(runner, iteration)
    assert (runner.alg.symmetry is not None) == mirrored


def negate(env, obs, actions):
    """A toy mirror: the originals, then their negatives."""
    return (None if obs is None else torch.cat([obs, -obs]),
            None if actions is None else torch.cat([actions, -actions]))


def test_a_logged_only_mirror_loss_is_rsl_rl_s_measured_on_a_sample_without_a_graph():
    torch.manual_seed(0)
    actor = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ELU(), torch.nn.Linear(8, 2))
    logged = LoggedMirrorLoss.replacing(Symmetry(env=None, data_augmentation_func=negate, use_data_augmentation=True))
    stock = Symmetry(env=None, data_augmentation_func=negate, use_data_augmentation=True)
    size = LOGGED_SAMPLES + 100
    obs, _ = negate(None, torch.randn(size, 3), None)  # an augmented minibatch: originals, then mirror images
    loss = logged.compute_loss(actor, SimpleNamespace(observations=obs), size)
    sample = torch.cat([obs[:LOGGED_SAMPLES], obs[size:size + LOGGED_SAMPLES]])
    assert loss.item() == pytest.approx(stock.compute_loss(actor, SimpleNamespace(observations=sample),
                                                           LOGGED_SAMPLES).item())
    assert loss.item() != pytest.approx(stock.compute_loss(actor, SimpleNamespace(observations=obs), size).item())
    assert not loss.requires_grad


def test_a_mirror_loss_that_trains_stays_rsl_rl_s():
    actor = torch.nn.Linear(3, 2)
    trained = LoggedMirrorLoss(env=None, data_augmentation_func=negate, use_data_augmentation=True,
                               use_mirror_loss=True, mirror_loss_coeff=1.0)
    obs, _ = negate(None, torch.randn(LOGGED_SAMPLES + 100, 3), None)
    assert trained.compute_loss(actor, SimpleNamespace(observations=obs), LOGGED_SAMPLES + 100).requires_grad
