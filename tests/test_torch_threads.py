"""The trainer's torch threads: one count while it collects, another while it updates, torch's own count after."""

from __future__ import annotations

import pytest
import torch

from hidden_gain_env import HiddenGainEnv
from roa_toy_training import PPO_CFG, runner_cfg
from locolab.runners.on_policy_runner import LocoLabOnPolicyRunner
from locolab.runners.torch_threads import torch_threads


def test_a_block_runs_on_the_given_thread_count_and_zero_leaves_it_alone():
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with torch_threads(0):
        assert torch.get_num_threads() == before


@pytest.mark.slow
def test_the_runner_collects_and_updates_on_the_configured_thread_counts():
    """Two iterations of the runner's own learn (a toy task): the thread counts are set around its phases, so only
    a training loop shows them; it trains, so it is slow (tests/training_guard.py)."""
    before = torch.get_num_threads()
    learning = 2 if before != 2 else 3  # a count different from both torch's default and the collection's
    cfg = runner_cfg(PPO_CFG, {"actor": ["policy"], "critic": ["critic"]}) | {
        "num_steps_per_env": 4, "threads": {"collection": 1, "learning": learning}}
    runner = LocoLabOnPolicyRunner(HiddenGainEnv(16, seed=0), cfg, log_dir=None, device="cpu")
    seen = {"act": set(), "update": set()}
    act, update = runner.alg.act, runner.alg.update

    def counting_act(obs):
        seen["act"].add(torch.get_num_threads())
        return act(obs)

    def counting_update():
        seen["update"].add(torch.get_num_threads())
        return update()

    runner.alg.act, runner.alg.update = counting_act, counting_update
    runner.learn(2)
    assert seen == {"act": {1}, "update": {learning}}
    assert torch.get_num_threads() == before
