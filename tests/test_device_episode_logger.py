"""DeviceEpisodeLogger keeps rsl_rl's episode buffers exactly: same episodes, same order, the last 100 kept."""

from __future__ import annotations

import torch

from rsl_rl.utils.logger import Logger

from locolab.runners.device_episode_logger import DeviceEpisodeLogger

NUM_ENVS = 16
STEPS = 30


def _logger(cls):
    logger = cls(log_dir=None, cfg={"algorithm": {}}, env_cfg=None, num_envs=NUM_ENVS, is_distributed=False,
                 gpu_world_size=1, gpu_global_rank=0, device="cpu")
    logger.writer = object()  # both loggers book episodes only with a writer
    return logger


def _feed(loggers, steps: int, seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rewards = torch.randn(NUM_ENVS, generator=generator)
        dones = (torch.rand(NUM_ENVS, generator=generator) < 0.15).long()
        extras = {"log": {"Episode_Reward/x": torch.rand(())}}
        for logger in loggers:
            logger.process_env_step(rewards.clone(), dones.clone(), extras)


def test_same_episodes_in_the_same_order_as_rsl_rl():
    stock, device = _logger(Logger), _logger(DeviceEpisodeLogger)
    _feed((stock, device), STEPS, seed=0)
    assert len(device.rewbuffer) == 0  # nothing moved to the host before the flush
    device.flush_episodes()
    assert 100 > len(stock.rewbuffer) > 50  # a partial deque: every finished episode is compared
    assert list(device.rewbuffer) == list(stock.rewbuffer)
    assert list(device.lenbuffer) == list(stock.lenbuffer)
    _feed((stock, device), 4 * STEPS, seed=1)  # past the deque's 100: which episodes stay must agree too
    device.flush_episodes()
    assert len(stock.rewbuffer) == 100
    assert list(device.rewbuffer) == list(stock.rewbuffer)
    assert list(device.lenbuffer) == list(stock.lenbuffer)
    assert torch.equal(device.cur_reward_sum, stock.cur_reward_sum)
    assert torch.equal(device.cur_episode_length, stock.cur_episode_length)
    assert len(device.ep_extras) == len(stock.ep_extras) == 5 * STEPS


def test_replacing_keeps_the_runners_logger_state():
    stock = _logger(Logger)
    _feed((stock,), 10, seed=2)
    device = DeviceEpisodeLogger.replacing(stock)
    assert list(device.rewbuffer) == list(stock.rewbuffer) and device.num_envs == NUM_ENVS
    _feed((stock, device), 10, seed=3)
    device.flush_episodes()
    assert list(device.rewbuffer) == list(stock.rewbuffer)
