"""The gait clock (locolab.envs.mdp.gait_clock): the environment's term and the torch-free runtime's count give the
same clock; its stepping reward pays a trot on the clock and nothing under a standing command; a mirror image is half
a period away; a policy file that reads a clock without saying how fast it runs is refused in one line."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from locolab.deploy import PolicyFileError, PolicyRuntime
from locolab.deploy.policy_file import _Checker
from locolab.envs.mdp.gait_clock import clock_stepping, gait_clock, gait_phase, trot_stance
from locolab.envs.metrics import FEET
from locolab.envs.symmetry import mirrored_name

STEP_DT, FREQUENCY = 0.02, 2.0


def fake_env(steps: torch.Tensor, contacts: torch.Tensor | None = None, command: torch.Tensor | None = None):
    """What the clock's terms read of an environment: steps since reset, step length, foot contacts, the command."""
    env = SimpleNamespace(episode_length_buf=steps, step_dt=STEP_DT,
                          command_manager=SimpleNamespace(get_command=lambda name: command))
    if contacts is not None:  # metrics.foot_contacts reads the contact sensor's current contact time
        times = contacts.float()
        sensor = SimpleNamespace(find_sensors=lambda names, preserve_order: (list(range(len(FEET))), names),
                                 data=SimpleNamespace(current_contact_time=SimpleNamespace(torch=times)))
        env.scene = SimpleNamespace(sensors={"contact_forces": sensor})
    return env


def test_the_runtime_counts_the_clock_the_environment_observes():
    steps = torch.arange(0, 400)  # 16 periods, past float32's exact multiples
    observed = gait_clock(fake_env(steps), FREQUENCY).numpy()
    runtime = SimpleNamespace(steps=0, clock_step=np.float32(STEP_DT * FREQUENCY))
    counted = []
    for step in steps.tolist():
        runtime.steps = step
        counted.append(PolicyRuntime.clock(runtime))
    assert np.abs(np.array(counted) - observed).max() < 1e-5
    assert observed[0].tolist() == [0.0, 1.0]  # phase 0 at a reset
    period = round(1 / (STEP_DT * FREQUENCY))
    assert np.abs(observed[period::period] - observed[0]).max() < 1e-4  # one cycle every 1 / frequency seconds
    assert observed[period // 2][1] < -0.99  # half way: cos 2 pi phase near -1


def test_a_mirror_image_is_half_a_period_later_the_clock_negated_and_the_diagonal_pairs_swapped():
    phase = gait_phase(fake_env(torch.arange(0, 25)), FREQUENCY)
    later = torch.frac(phase + 0.5)
    assert torch.allclose(gait_clock(fake_env(torch.arange(0, 25) + 12.5), FREQUENCY),
                          -gait_clock(fake_env(torch.arange(0, 25)), FREQUENCY), atol=1e-5)
    mirror = [FEET.index(mirrored_name(f"{foot}_foot").removesuffix("_foot")) for foot in FEET]
    assert torch.equal(trot_stance(phase)[:, mirror], trot_stance(later))


def test_the_stepping_reward_pays_a_trot_on_the_clock_and_nothing_under_a_standing_command():
    steps = torch.tensor([0, 5, 15, 20])  # phases 0, 0.2 (first half), 0.6, 0.8 (second half)
    trot = trot_stance(gait_phase(fake_env(steps), FREQUENCY))
    assert trot.tolist() == [[True, False, False, True]] * 2 + [[False, True, True, False]] * 2
    moving = torch.tensor([[0.3, 0.0, 0.0]] * 4)
    assert clock_stepping(fake_env(steps, trot, moving), FREQUENCY).tolist() == [1.0] * 4
    assert clock_stepping(fake_env(steps, ~trot, moving), FREQUENCY).tolist() == [0.0] * 4
    standing_feet = torch.ones(4, 4, dtype=torch.bool)
    assert clock_stepping(fake_env(steps, standing_feet, moving), FREQUENCY).tolist() == [0.5] * 4
    turning = torch.tensor([[0.0, 0.0, 0.5]] * 4)  # turning in place steps too
    assert clock_stepping(fake_env(steps, trot, turning), FREQUENCY).tolist() == [1.0] * 4
    assert clock_stepping(fake_env(steps, trot, torch.zeros(4, 3)), FREQUENCY).tolist() == [0.0] * 4


@pytest.mark.parametrize("clock, problem", [(None, "gait_clock is missing while the observation has a gait_clock term"),
                                            ({"frequency_hz": 0}, "gait_clock.frequency_hz is 0, not positive"),
                                            ({}, "gait_clock.frequency_hz is missing")])
def test_a_clock_without_its_frequency_is_refused_in_one_line(tmp_path, clock, problem):
    terms = [{"name": "gait_clock", "size": 2, "clip": None, "scale": None}]
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({}))
    with pytest.raises(PolicyFileError, match="^'.*policy.json': " + problem) as error:
        _Checker(path).observation({"terms": terms, "size": 2}, 12, None, clock)
    assert "\n" not in str(error.value)
