"""The action noise's ceiling falls linearly over its window and stays at its final value; it clamps rsl_rl's learnt
std (either parameterisation) without touching the mean; the learning rate is held once the window starts; training
applies and logs it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from rsl_rl.models import MLPModel
from tensordict import TensorDict

from conftest import scalars_of_a_short_training
from locolab.runners.action_noise_schedule import action_std_ceiling, cap_action_std, hold_learning_rate


def gaussian_actor(std_type: str = "scalar") -> MLPModel:
    obs = TensorDict({"policy": torch.zeros(1, 3)}, batch_size=[1])
    return MLPModel(obs, {"actor": ["policy"]}, "actor", 2, hidden_dims=[8],
                    distribution_cfg={"class_name": "GaussianDistribution", "init_std": 1.0, "std_type": std_type})


def test_no_ceiling_before_the_window_then_linear_to_final_and_constant_after():
    values = [action_std_ceiling(it, 100, 300, 1.0, 0.2) for it in (0, 99, 100, 200, 300, 1000)]
    assert values[:2] == [None, None]
    assert values[2:] == pytest.approx([1.0, 0.6, 0.2, 0.2])


def test_without_a_window_there_is_no_ceiling():
    assert action_std_ceiling(500, 0, 0, 1.0, 0.1) is None
    assert action_std_ceiling(500, 300, 100, 1.0, 0.1) is None


@pytest.mark.parametrize("std_type", ["scalar", "log"])
def test_the_cap_clamps_the_learnt_std_only(std_type):
    actor = gaussian_actor(std_type)
    with torch.no_grad():  # one joint's noise already below the ceiling keeps its value
        (actor.distribution.std_param if std_type == "scalar" else actor.distribution.log_std_param)[1] = \
            0.05 if std_type == "scalar" else torch.log(torch.tensor(0.05))
    obs = TensorDict({"policy": torch.randn(4, 3)}, batch_size=[4])
    mean_before = actor(obs)
    cap_action_std(actor, 0.1)
    actor(obs, stochastic_output=True)
    assert actor.output_std[0].tolist() == pytest.approx([0.1, 0.05])
    assert torch.equal(actor(obs), mean_before)


def test_a_model_without_a_learnt_std_parameter_is_a_clear_error():
    with pytest.raises(ValueError, match="action_noise_schedule"):
        cap_action_std(torch.nn.Linear(2, 2), 0.1)


def test_the_learning_rate_is_switched_to_the_held_value_once():
    optimizer = torch.optim.Adam(gaussian_actor().parameters(), lr=2.6e-5)
    alg = SimpleNamespace(schedule="adaptive", learning_rate=2.6e-5, optimizer=optimizer)  # what PPO's switch touches
    hold_learning_rate(alg, 3e-4)
    assert (alg.schedule, alg.learning_rate, alg.optimizer.param_groups[0]["lr"]) == ("fixed", 3e-4, 3e-4)
    alg.learning_rate = 1.5e-4  # e.g. lowered by the non-finite guard: it stands
    hold_learning_rate(alg, 3e-4)
    assert alg.learning_rate == 1.5e-4


@pytest.mark.slow
def test_training_caps_the_noise_holds_the_learning_rate_and_logs_the_ceiling(tmp_path):
    run, events = scalars_of_a_short_training(tmp_path, "agent.action_noise_schedule.start=0",
                                              "agent.action_noise_schedule.end=2",
                                              "agent.action_noise_schedule.final=0.2")
    assert [e.value for e in events.Scalars("Policy/action_std_ceiling")] == pytest.approx([1.0, 0.6, 0.2])
    assert [e.value for e in events.Scalars("Loss/learning_rate")] == pytest.approx([3e-4] * 3)
    std = torch.load(run / "model_2.pt", weights_only=False)["actor_state_dict"]["distribution.std_param"]
    assert float(std.max()) <= 0.2 + 0.02  # capped before the last update, which may move it a little
