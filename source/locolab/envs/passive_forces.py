"""MuJoCo-Warp's passive-force stage skipped while the robot has no passive forces: a cheaper step, the same physics.

Every physics step MuJoCo-Warp computes joint springs and dampers, gravity compensation and fluid forces, and its
Euler integrator factorises the mass matrix again to integrate joint damping implicitly, even when every stiffness,
damping, gravity-compensation and fluid coefficient of the model is zero, as for LocoLab's Go2 (its DC motors are
explicit torques). MuJoCo's disable flags for springs and dampers skip both stages (MuJoCo's C engine skips the damping
solve by itself when no joint has damping); Newton and Isaac Lab expose only the contact and sensor flags. So this sets
them on the model Isaac Lab built, only while those coefficients are all zero: the skipped stages would add zero
forces, and the robot moves as with them up to float32 rounding (``tests/test_cpu_variants.py``). Newton rewrites the
model's joint and body properties when an event changes them (``notify_model_changed``); the flags are decided again
after every such change, so a task whose events give the joints damping keeps it.

CPU only: on a GPU Isaac Lab replays a captured CUDA graph of the step, which a flag changed later would not reach.
"""

from __future__ import annotations


def skipped_stage_flags() -> int:
    """MuJoCo-Warp's disable flags that skip the passive-force stage and Euler's implicit damping."""
    from mujoco_warp._src.types import DisableBit

    return int(DisableBit.SPRING | DisableBit.DAMPER)


def has_passive_forces(model) -> bool:
    """Whether the MuJoCo-Warp ``model`` (any world) has a joint spring or damper, a tendon, a flex, gravity
    compensation, fluid forces or a passive-force callback."""
    if model.ntendon or model.nflex or model.has_fluid or model.callback.passive is not None:
        return True
    coefficients = (model.dof_damping, model.dof_dampingpoly, model.jnt_stiffness, model.jnt_stiffnesspoly,
                    model.body_gravcomp)
    return any(array.size and array.numpy().any() for array in coefficients)


def _decide(model, skipped: int) -> None:
    if has_passive_forces(model):
        model.opt.disableflags &= ~skipped
    else:
        model.opt.disableflags |= skipped


def skip_absent_passive_forces(env_cfg) -> None:
    """Skip MuJoCo-Warp's passive-force stage and Euler's implicit damping on the model Isaac Lab built for
    ``env_cfg`` while the model has no passive forces (:func:`has_passive_forces`), when ``env_cfg`` asks for it
    (``skip_absent_passive_forces``, set by the CPU profile) on a CPU. Call after the environment is built."""
    if not getattr(env_cfg, "skip_absent_passive_forces", False) or env_cfg.sim.device != "cpu":
        return
    from isaaclab_newton.physics.newton_manager import NewtonManager

    solver = NewtonManager._solver
    model = getattr(solver, "mjw_model", None)  # None: MuJoCo's C backend, which skips absent stages itself
    if model is None:
        return
    skipped = skipped_stage_flags()
    notify = solver.notify_model_changed

    def notify_and_decide(flags) -> None:
        notify(flags)
        _decide(model, skipped)

    solver.notify_model_changed = notify_and_decide
    _decide(model, skipped)
