"""A share of the robots trains without policy observation noise: each simulation process's first ones, in the
environment, in the CPU profile's PPO configs, and in training's logs of those robots' episodes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from conftest import last_json, run_script, scalars_of_a_short_training

from locolab.tasks.go2_velocity_cpu_env_cfg import NOISE_FREE_OBSERVATION_ENVS
from locolab.envs import load_task_cfgs
from locolab.envs.observation_noise import (
    PartlyUniformNoiseCfg,
    noise_free_env_ids,
    noise_free_share,
    set_noise_free_envs,
    uniform_noise_but_first,
)
from locolab.tasks import AGENT_ENTRY_POINTS, cpu_variant

TASK = "LocoLab-Velocity-Flat-Go2"


def test_the_first_share_of_the_rows_keeps_its_values_and_the_others_get_isaac_labs_uniform_noise():
    data = torch.zeros(8, 3)
    noisy = uniform_noise_but_first(data, PartlyUniformNoiseCfg(n_min=-1.0, n_max=1.0, noise_free_envs=0.25))
    assert torch.equal(noisy[:2], data[:2])
    assert (noisy[2:] != 0).all() and noisy.abs().max() <= 1.0
    assert torch.equal(data, torch.zeros(8, 3))  # out of place, as Isaac Lab's noise functions must be


@pytest.mark.parametrize(("agent", "phase", "share"), [("ppo", "train", NOISE_FREE_OBSERVATION_ENVS),
                                                       ("roa", "train", 0.0), ("roa", "finetune", 0.0),
                                                       ("sac", "train", 0.0)])
def test_the_cpu_tasks_train_a_share_of_ppos_robots_without_observation_noise(agent, phase, share):
    env_cfg, _ = load_task_cfgs(TASK, AGENT_ENTRY_POINTS[(agent, phase)], device="cpu")
    stock = {name: term.noise for name, term in vars(env_cfg.observations.policy).items()
             if getattr(term, "noise", None) is not None}
    env_cfg, _ = load_task_cfgs(cpu_variant(TASK, agent, phase), AGENT_ENTRY_POINTS[(agent, phase)], device="cpu")
    assert noise_free_share(env_cfg) == share
    for name, noise in stock.items():  # the same noise for the other robots
        changed = getattr(env_cfg.observations.policy, name).noise
        assert (changed.n_min, changed.n_max, changed.operation) == (noise.n_min, noise.n_max, noise.operation)
    assert noise_free_share(env_cfg, "critic") == 0.0  # the critic sees no noise at all anyway


def test_the_noise_free_robots_are_the_first_of_every_simulation_process():
    env_cfg, _ = load_task_cfgs(TASK, AGENT_ENTRY_POINTS[("ppo", "train")], device="cpu")
    set_noise_free_envs(env_cfg, 0.25)
    two_processes = SimpleNamespace(cfg=env_cfg, num_envs=16, bounds=[(0, 8), (8, 16)])
    assert noise_free_env_ids(two_processes).tolist() == [0, 1, 8, 9]
    assert noise_free_env_ids(SimpleNamespace(cfg=env_cfg, num_envs=8)).tolist() == [0, 1]
    set_noise_free_envs(env_cfg, 0.0)
    assert noise_free_env_ids(two_processes) is None  # every robot has the same noise: nothing to log apart
    assert noise_free_env_ids(SimpleNamespace(num_envs=8)) is None  # an env without Isaac Lab's configs


@pytest.mark.slow
def test_in_the_environment_only_the_noise_free_robots_policy_view_equals_the_critics():
    result = run_script("tests/probe_env.py", "--task", TASK, "--num_envs", "8", "--seconds", "0.5",
                        "--actions", "random", "--noise_free_envs", "0.25",
                        "--ideal_gyroscope")
    assert result.returncode == 0, result.stderr[-3000:]
    gaps = last_json(result.stdout)["policy_noise_by_env"]
    assert gaps[:2] == [0.0, 0.0]  # the critic's first terms are the policy's, without noise
    assert min(gaps[2:]) > 0.0


@pytest.mark.slow
def test_training_logs_the_noise_free_robots_episodes_apart(tmp_path):
    _, events = scalars_of_a_short_training(tmp_path, "env.episode_length_s=0.25")  # episodes end in each rollout
    noise_free = [event.value for event in events.Scalars("rollout_noise_free/episodes")]
    every = [event.value for event in events.Scalars("rollout/episodes")]
    assert "rollout_noise_free/lin_vel_error" in events.Tags()["scalars"]
    assert 0 < sum(noise_free) < sum(every)  # 2 of the 8 robots (a quarter)
