"""A falling ceiling on PPO's action noise, with the learning rate held fixed once it starts.

rsl_rl learns the Gaussian's standard deviation like any weight. Measured on a CPU run of the flat Go2 task that had the
entropy bonus switched off at iteration 215 (:mod:`.entropy_schedule`): the noise settled at 0.21-0.25 and kept a gait
that the noise itself made. At iteration 899 the stochastic policy ran 0.37 m/s under a 0.5 m/s command in play.py,
its mean action (what play.py, export and the robot run) 0.09 m/s. Its feet touched down about 7 times a second each
with 0.08 s air times, in no pattern: any two feet agreed on contact 37-50 % of the time, as independent feet do.
From that checkpoint, with the noise scaled to 0.4x (about 0.1) and a fixed learning rate of 3e-4, the mean action ran
0.26 m/s after 25 iterations and 0.29 m/s after 100, with diagonal feet in step more often (71-73 %) than lateral ones
(55 %). The learnt noise crept back up (0.098 to 0.111 in 60 iterations), so a ceiling, not a one-off cut, keeps it low.
From scratch with the CPU profile's ceiling (1.0 at iteration 215 to 0.1 at 450; same seed as the run above), the
mean action ran 0.43 m/s at iteration 500 and 0.55 m/s at 899.

rsl_rl's adaptive schedule keeps the KL divergence between successive policies near its target; as the noise narrows
that divergence grows for the same change of the mean action, and the schedule shrinks the step (2.6e-5 at iteration
900 of the run above). So from ``start`` the learning rate is held at ``learning_rate``.
"""

from __future__ import annotations

import math

from locolab.schedule import linear_ramp


def action_std_ceiling(iteration: int, start: int, end: int, initial: float, final: float) -> float | None:
    """The noise ceiling at ``iteration`` (see :class:`~locolab.runners.runner_cfg.ActionNoiseScheduleCfg`); None while
    there is none."""
    if end <= start or iteration < start:
        return None
    return linear_ramp(iteration, start, end, initial, final)


def cap_action_std(model, ceiling: float) -> None:
    """Clamp the learnt standard deviation of ``model``'s Gaussian (rsl_rl's ``scalar`` or ``log`` parameter) to at
    most ``ceiling``, in place; a ValueError for a model whose noise is not such a parameter."""
    distribution = getattr(model, "distribution", None)
    if hasattr(distribution, "std_param"):
        distribution.std_param.data.clamp_(max=ceiling)
    elif hasattr(distribution, "log_std_param"):
        distribution.log_std_param.data.clamp_(max=math.log(ceiling))
    else:
        raise ValueError(f"action_noise_schedule needs a Gaussian with a learnt std parameter; "
                         f"{type(model).__name__} has {type(distribution).__name__}. Switch the schedule off "
                         "(agent.action_noise_schedule.end=0).")


def hold_learning_rate(alg, learning_rate: float) -> None:
    """Switch ``alg`` (rsl_rl's PPO or PPO-ROA) from its adaptive schedule to ``learning_rate``, once: later changes
    (the non-finite guard's lowering) stand."""
    if alg.schedule == "fixed":
        return
    alg.schedule = "fixed"
    alg.learning_rate = learning_rate
    for group in alg.optimizer.param_groups:
        group["lr"] = learning_rate
