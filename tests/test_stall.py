"""The end for stalled robots (locolab.envs.mdp.stall): under a command to walk, a base that has not covered the
distance in the window's seconds ends its episode; one that creeps on, one under a standing or turning command, and
one just reset do not; off at 0 s. On the real rough task: tests/test_cpu_variants.py (a time-out, off by default)."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from conftest import FakeScene

from locolab.envs.mdp.stall import stalled_termination, stalled_under_command

STEP_DT = 0.02
SECONDS, DISTANCE, MIN_SPEED = 1.0, 0.1, 0.2


class Robots:
    """Four robots: stalled under 0.5 m/s; creeping at 0.12 m/s under 0.5 (0.1 m in 0.83 s); stalled under a turn in place; stalled under
    0.5 m/s and reset halfway."""

    def __init__(self):
        self.position = torch.zeros(4, 3)
        self.command = torch.tensor([[0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.5, 0.0]])
        data = SimpleNamespace(root_pos_w=SimpleNamespace(torch=self.position))
        self.env = SimpleNamespace(scene=FakeScene(robot=SimpleNamespace(data=data)), step_dt=STEP_DT, num_envs=4,
                                   device="cpu", command_manager=SimpleNamespace(get_command=lambda name: self.command))

    def run(self, term: stalled_under_command, seconds: float, steps: int) -> list[int]:
        """Each robot's first step (1-based) at which the term ended it, 0 if never; robot 3 is reset at step 30."""
        ended = [0] * 4
        for step in range(1, steps + 1):
            self.position[1, 0] += 0.12 * STEP_DT
            self.position[:, 2] += 0.5  # height is not distance
            if step == 30:
                term.reset([3])
            done = term(self.env, seconds=seconds, distance=DISTANCE, min_speed=MIN_SPEED)
            for i in range(4):
                if done[i] and not ended[i]:
                    ended[i] = step
        return ended


def test_a_base_that_covers_too_little_under_a_command_to_walk_ends_after_the_windows_seconds():
    robots = Robots()
    term = stalled_under_command(stalled_termination(SECONDS, DISTANCE, MIN_SPEED), robots.env)
    window = round(SECONDS / STEP_DT)
    # robot 0: its window starts at the first call (step 1) and ends 50 steps later; robot 3's restarts at its reset
    assert robots.run(term, SECONDS, 200) == [1 + window, 0, 0, 30 + window]


def test_the_term_is_a_time_out_and_off_at_zero_seconds():
    robots = Robots()
    cfg = stalled_termination(0.0, DISTANCE, MIN_SPEED)
    assert cfg.time_out and cfg.params == {"seconds": 0.0, "distance": DISTANCE, "min_speed": MIN_SPEED}
    assert robots.run(stalled_under_command(cfg, robots.env), 0.0, 200) == [0, 0, 0, 0]
