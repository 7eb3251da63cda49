"""The proprioceptive history: newest last, the policy observation itself, restarted per environment on reset."""

from __future__ import annotations

import torch

from hidden_gain_env import HiddenGainEnv

from locolab.envs import ProprioHistory, ProprioHistoryWrapper


def test_history_shifts_in_the_newest_observation_and_restarts_reset_environments():
    history = ProprioHistory(3)
    first = torch.tensor([[1.0], [10.0]])
    assert torch.equal(history.reset(first), torch.tensor([[[1.0], [1.0], [1.0]], [[10.0], [10.0], [10.0]]]))
    history.push(torch.tensor([[2.0], [20.0]]), dones=torch.tensor([0, 0]))
    handed_out = history.buffer
    after = history.push(torch.tensor([[3.0], [-5.0]]), dones=torch.tensor([0, 1]))
    # env 0: oldest first, newest last; env 1 was reset and its new episode's first observation fills the history
    assert torch.equal(after, torch.tensor([[[1.0], [2.0], [3.0]], [[-5.0], [-5.0], [-5.0]]]))
    assert torch.equal(handed_out, torch.tensor([[[1.0], [1.0], [2.0]], [[10.0], [10.0], [20.0]]]))  # not aliased


def test_wrapper_adds_the_history_of_policy_observations_to_every_step():
    env = ProprioHistoryWrapper(HiddenGainEnv(num_envs=3, episode_length=4), length=5)
    obs = env.get_observations()
    assert obs["history"].shape == (3, 5, 3)
    assert torch.equal(obs["history"], obs["policy"][:, None].expand(3, 5, 3))
    policies = [obs["policy"]]
    for step in range(6):
        obs, _, dones, _ = env.step(torch.zeros(3, 1))
        policies.append(obs["policy"])
        assert torch.equal(obs["history"][:, -1], obs["policy"])  # the newest entry is the policy observation
    # episodes of 4 steps: the last reset came after step 4, so the history holds steps 4, 5, 6 of the stream with
    # the first observation of the new episode (step 4) repeated in front of them
    expected = torch.stack([policies[4], policies[4], policies[4], policies[5], policies[6]], dim=1)
    assert torch.equal(obs["history"], expected)
    assert torch.equal(env.get_observations()["history"], expected)


def test_wrapper_forwards_episode_lengths_for_random_initialisation():
    inner = HiddenGainEnv(num_envs=2)
    env = ProprioHistoryWrapper(inner, length=2)
    env.episode_length_buf = torch.tensor([5, 7])
    assert torch.equal(inner.episode_length_buf, torch.tensor([5, 7]))
    assert env.max_episode_length == inner.max_episode_length and env.num_actions == 1
