"""SubprocessVecEnv: the robots split over simulation processes behave as one rsl_rl VecEnv."""

from __future__ import annotations

import pytest
import torch

from locolab.envs.multiprocess import SubprocessVecEnv, WorkerError, split_envs

TASK = "LocoLab-Velocity-Flat-Go2"


def test_environments_split_into_contiguous_slices_that_differ_by_at_most_one():
    assert split_envs(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert split_envs(8, 2) == [(0, 4), (4, 8)]
    with pytest.raises(ValueError, match="cannot be split"):
        split_envs(1, 2)


def cpu_cfg(num_envs: int):
    from locolab.envs import load_task_cfgs

    env_cfg, _ = load_task_cfgs(TASK, num_envs=num_envs, device="cpu", seed=3)
    return env_cfg


@pytest.mark.slow
def test_two_processes_step_every_robot_and_merge_observations_rewards_dones_and_logs():
    vec = SubprocessVecEnv(TASK, cpu_cfg(6), num_workers=2)
    try:
        obs = vec.get_observations()
        assert vec.num_envs == 6 and vec.num_actions == 12
        assert {group: tuple(value.shape) for group, value in obs.items()} == {
            "policy": (6, 45), "critic": (6, 80), "priv": (6, 35)}
        assert vec.robot_joint_names["robot"][0].endswith("_joint")
        # the two slices have their own seeds: their first observations differ
        assert not torch.equal(obs["policy"][0], obs["policy"][3])
        vec.episode_length_buf = torch.full((6,), int(vec.max_episode_length) - 2)
        seen_done = torch.zeros(6, dtype=torch.bool)
        logs = {}
        for _ in range(4):
            obs, rewards, dones, extras = vec.step(torch.zeros(6, 12))
            assert rewards.shape == (6,) and dones.shape == (6,) and extras["time_outs"].shape == (6,)
            assert torch.isfinite(rewards).all() and torch.isfinite(obs["policy"]).all()
            seen_done |= dones.bool()
            logs.update(extras["log"])
        # every robot in both processes reached its time-out: the episode lengths reached each process
        assert seen_done.all()
        assert any(key.startswith("Episode_Reward/") for key in logs)
    finally:
        vec.close()
    assert not vec._processes


@pytest.mark.slow
def test_a_failing_simulation_process_is_an_error_carrying_its_traceback():
    env_cfg = cpu_cfg(4)
    env_cfg.events.dynamics.params["asset_cfg"].body_names = ["base", "FL_foot"]  # the event refuses two bodies
    with pytest.raises(WorkerError, match="simulation process 0 failed") as raised:
        SubprocessVecEnv(TASK, env_cfg, num_workers=2)
    assert "must name exactly one body" in str(raised.value)
