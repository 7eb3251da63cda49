"""rsl_rl's NaN check, run once a rollout over the stored transitions instead of once a step, still names the group
of a NaN observation at any step, in the observation GAE bootstraps from, and in the rewards."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from tensordict import TensorDict

from locolab.runners.on_policy_runner import LocoLabOnPolicyRunner

STEPS, ENVS = 24, 8


def _runner():
    observations = TensorDict({"policy": torch.zeros(STEPS, ENVS, 5), "critic": torch.zeros(STEPS, ENVS, 7)},
                              batch_size=[STEPS, ENVS])
    storage = SimpleNamespace(observations=observations, rewards=torch.zeros(STEPS, ENVS, 1),
                              dones=torch.zeros(STEPS, ENVS, 1).byte())
    last = TensorDict({"policy": torch.zeros(ENVS, 5), "critic": torch.zeros(ENVS, 7)}, batch_size=[ENVS])
    return SimpleNamespace(alg=SimpleNamespace(storage=storage), _obs=last)


def test_a_finite_rollout_passes():
    LocoLabOnPolicyRunner._check_rollout_finite(_runner())


@pytest.mark.parametrize("where, message", [("stored", "observation group 'critic'"),
                                            ("last", "observation group 'policy'"), ("reward", "rewards")])
def test_a_nan_anywhere_in_the_rollout_is_named(where, message):
    runner = _runner()
    if where == "stored":
        runner.alg.storage.observations["critic"][17, 3, 2] = float("nan")
    elif where == "last":
        runner._obs["policy"][5, 0] = float("nan")
    else:
        runner.alg.storage.rewards[9, 1] = float("nan")
    with pytest.raises(ValueError, match=message):
        LocoLabOnPolicyRunner._check_rollout_finite(runner)
