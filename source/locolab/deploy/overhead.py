"""What the safety layer costs per control step, measured against the policy's own inference (goal: under 5 %).

On a robot the control loop's budget is the period (20 ms); the layer's checks must stay small beside the network.
"""

from __future__ import annotations

import timeit

import numpy as np

from .runtime import PolicyRuntime, RobotState


def safety_overhead(policy_dir, steps: int = 2000, repeats: int = 5, max_target_change: float | None = None) -> dict:
    """The safety layer's time per step against the policy's own inference (best of ``repeats`` runs of ``steps``
    steps, a level robot at its default pose): the figure behind the "under 5 %" goal in docs/deployment.md."""
    runtime = PolicyRuntime(policy_dir, max_target_change=max_target_change)
    bare = PolicyRuntime(policy_dir, safety=False)
    n = len(runtime.default_joint_pos)
    state = RobotState(joint_pos=runtime.default_joint_pos.copy(), joint_vel=np.zeros(n, np.float32),
                       ang_vel=np.zeros(3, np.float32), gravity=np.array([0, 0, -1], np.float32),
                       command=np.array([0.5, 0, 0], np.float32))
    targets = runtime.step(state)
    bare.step(state)
    names = ["actions", *runtime.state_outputs.values()]
    inputs = {"obs": runtime.observation(state)[None]} | runtime.state
    if runtime.history_length:
        inputs["history"] = runtime.history[None]
    outputs = runtime.session.run(names, inputs)
    safety = runtime.safety

    readings = runtime.readings(state)  # the observation's gathering copy, which the checks share

    def checks():
        safety.check(readings)
        safety.guard(targets, state.joint_pos, outputs)

    def per_step(function) -> float:
        return min(timeit.repeat(function, number=steps, repeat=repeats)) / steps * 1e6

    timings = {"inference_us": per_step(lambda: runtime.session.run(names, inputs)), "checks_us": per_step(checks),
               "step_safety_on_us": per_step(lambda: runtime.step(state)),
               "step_safety_off_us": per_step(lambda: bare.step(state))}
    if any(runtime.interventions.values()):  # the level default pose must pass every check, or nothing was timed
        raise RuntimeError(f"the safety layer intervened on a robot standing still: {runtime.last_interventions}")
    return {"steps": steps, "repeats": repeats, **timings,
            "overhead_percent": 100.0 * timings["checks_us"] / timings["inference_us"]}
