"""Episode metrics and the one rollout routine, on a scripted environment whose episodes are known in advance."""

from __future__ import annotations

import pytest
import torch
from tensordict import TensorDict

from locolab.eval.evaluate import fallen_robots
from locolab.envs.metrics import STATE, STEP, EpisodeAccumulator
from locolab.runners.rollout import StepRecord, rollout

KINDS = {"error": STATE, "fall": STEP}


class ScriptedEnv:
    """Two environments. Env 0: episodes of 3 steps, reward 1 per step, error = 10 * step index, never falls.
    Env 1: one 5-step episode that ends in a fall, reward 2 per step, error 1."""

    num_envs, num_actions, device = 2, 1, "cpu"
    metric_kinds = KINDS

    def __init__(self) -> None:
        self.t = 0

    def get_observations(self) -> TensorDict:
        return TensorDict({"policy": torch.zeros(2, 1)}, batch_size=[2])

    def step(self, actions):
        self.t += 1
        done0 = self.t % 3 == 0
        done1 = self.t == 5
        rewards = torch.tensor([1.0, 2.0])
        dones = torch.tensor([done0, done1], dtype=torch.long)
        metrics = torch.tensor([[10.0 * self.t, 0.0], [1.0, float(done1)]])
        return self.get_observations(), rewards, dones, {"metrics": metrics, "time_outs": torch.zeros(2)}


def run(steps: int, **kwargs) -> tuple[EpisodeAccumulator, StepRecord]:
    env = ScriptedEnv()
    accumulator = EpisodeAccumulator(KINDS, 2, "cpu", **kwargs)
    record = StepRecord(list(KINDS), steps, 2, "cpu")
    rollout(env, lambda obs: torch.zeros(2, 1), steps, env.get_observations(), accumulator, record=record)
    return accumulator, record


def test_state_metrics_average_the_episode_steps_before_its_last_and_step_metrics_sum():
    accumulator, _ = run(6)
    # env 0: episodes t=1..3 and t=4..6; the state after the last step of each is the next reset state, left out
    assert accumulator.summary(slice(0, 1)) == pytest.approx(
        {"return": 3.0, "length": 3.0, "error": ((10 + 20) / 2 + (40 + 50) / 2) / 2, "fall": 0.0, "episodes": 2})
    # env 1: one 5-step episode, a fall; its 6th step starts an episode that has not ended
    assert accumulator.summary(slice(1, 2)) == pytest.approx(
        {"return": 10.0, "length": 5.0, "error": 1.0, "fall": 1.0, "episodes": 1})
    assert accumulator.summary()["episodes"] == 3


def test_first_episodes_only_and_cut_episodes():
    accumulator, _ = run(7, episodes_per_env=1, log_capacity=8)
    accumulator.close_running()
    log = accumulator.episode_log()
    assert [(e["env"], e["cut"], e["length"]) for e in log] == [(0.0, 0.0, 3.0), (1.0, 0.0, 5.0)]
    cut, _ = run(2, log_capacity=8)
    cut.close_running()
    assert [(e["env"], e["cut"], e["length"]) for e in cut.episode_log()] == [(0.0, 1.0, 2.0), (1.0, 1.0, 2.0)]


def test_no_finished_episode_is_an_empty_summary_and_training_totals_reset_per_iteration():
    accumulator, _ = run(2)
    assert accumulator.summary() == {}
    finished, _ = run(3)
    finished.reset_totals()
    assert finished.summary() == {}
    assert finished.running[1, 1] == 3  # env 1's episode goes on across iterations


def test_the_step_record_holds_every_env_at_every_step():
    _, record = run(5)
    assert record.names == ["reward", "done", "error", "fall"]
    assert record.values.shape == (5, 2, 4)
    assert record.values[:, 1, 1].tolist() == [0, 0, 0, 0, 1]
    assert record.values[2, 0].tolist() == [1.0, 1.0, 30.0, 0.0]


def test_fallen_robots_are_the_falls_with_the_dynamics_their_robots_had():
    robot = {"friction": 0.71234, "added_base_mass": 2.35, "base_com_x": 0.099, "motor_strength": 0.9}
    episodes = [{"env": 3.0, "length": 55.0, "fall": 1.0, "lin_vel_error": 0.4, **robot},
                {"env": 4.0, "length": 1000.0, "fall": 0.0, "lin_vel_error": 0.1, **robot}]
    assert fallen_robots(episodes) == [{"env": 3, "steps": 55, **robot, "friction": 0.7123}]
    assert fallen_robots([{"env": 0.0, "length": 9.0, "fall": 1.0}]) == [{"env": 0, "steps": 9}]  # no dynamics kept
