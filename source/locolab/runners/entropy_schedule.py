"""The PPO entropy bonus (and SAC's entropy target) as a schedule over iterations (rsl_rl keeps ``entropy_coef``
constant).

Measured on CPU runs of the flat Go2 task: under the constant bonus of 0.01 the action noise stays near 0.7, and the
policy learns a gait that the noise drives: the stochastic policy walked (0.49 m/s under a 0.5 m/s command) while its
mean action, what play.py, export and the robot run, stood (0.03 m/s). Taking the bonus away once tracking is learnt
lets the noise shrink and the mean action take over the gait. The coefficient follows the iteration number, so a
resumed run is at the same point of the schedule.
"""

from __future__ import annotations

from locolab.schedule import linear_ramp

def scheduled_entropy(iteration: int, initial: float, start: int, end: int, final: float) -> float:
    """PPO's entropy coefficient or SAC's entropy target at ``iteration`` (see
    :class:`~locolab.runners.runner_cfg.EntropyScheduleCfg`)."""
    return initial if end <= start else linear_ramp(iteration, start, end, initial, final)
