"""MuJoCo-Warp's per-world warning at the solver's iteration cap, off where a config caps the solver on purpose.

MuJoCo-Warp prints one line from inside its solver kernel for every world and physics step that ends at
``opt.iterations`` without meeting the tolerance (``opt.warn_overflow``, on by default; Newton and Isaac Lab do not
expose it). With the solver capped at 3 iterations (measured for the -CPU tasks, which keep 100; an
override such as ``env.sim.physics.solver_cfg.iterations=3`` sets it), a training log grew by 300 000 such lines
(20 MB) in 10 minutes. Where the solver is capped below Isaac Lab's 100 iterations, the warning is
turned off on the solver Isaac Lab built. The flag also governs MuJoCo-Warp's other overflow warnings (contact and
constraint buffers), which go quiet with it in those runs.
"""

from __future__ import annotations

ISAACLAB_SOLVER_ITERATIONS = 100
"""``MJWarpSolverCfg.iterations``' default: a tolerance-ended solve, whose cap is an error worth a warning."""


def quiet_capped_solver(env_cfg) -> None:
    """Turn off the overflow warnings of the MuJoCo-Warp model Isaac Lab built for ``env_cfg`` when its solver is capped
    below Isaac Lab's default. Call after the environment is built, before it steps."""
    solver_cfg = getattr(env_cfg.sim.physics, "solver_cfg", None)
    if getattr(solver_cfg, "iterations", ISAACLAB_SOLVER_ITERATIONS) >= ISAACLAB_SOLVER_ITERATIONS:
        return
    from isaaclab_newton.physics.newton_manager import NewtonManager

    model = getattr(NewtonManager._solver, "mjw_model", None)  # None: MuJoCo's C backend, which does not print
    if model is not None:
        model.opt.warn_overflow = False
