"""benchmark.py's per-stage profile of the CPU profile's environment step (locolab.bench.step_profile)."""

from __future__ import annotations

import pytest

from locolab.fresh_process import in_fresh_process


def profile_and_patched_leftovers(num_envs: int, steps: int) -> tuple[dict[str, float], list[str]]:
    """The profile, and the entry points still wrapped after it returned (none should be)."""
    import mujoco
    from newton.solvers import SolverMuJoCo

    from locolab.bench.step_profile import step_profile

    originals = {"mj_step": mujoco.mj_step, "_update_newton_state": SolverMuJoCo._update_newton_state}
    report = step_profile("LocoLab-Velocity-Flat-Go2", num_envs, "cpu", steps, warmup=2)
    now = {"mj_step": mujoco.mj_step, "_update_newton_state": SolverMuJoCo._update_newton_state}
    return report, [name for name in originals if now[name] is not originals[name]]


def test_the_stages_add_up_to_the_step_and_every_timer_is_removed():
    report, leftovers = in_fresh_process(profile_and_patched_leftovers, 8, 10)
    assert leftovers == []
    for stage in ("physics", "physics.actuators", "physics.newton_to_mujoco", "physics.solver.mj_step",
                  "physics.mujoco_to_newton", "physics.contacts", "observations", "rewards", "resets"):
        assert report.get(stage, 0.0) >= 0.0, stage
    assert 0.0 < report["physics.solver.mj_step"] < report["physics.solver"] < report["physics"] < report["step"]
    top = sum(value for stage, value in report.items() if "." not in stage and stage != "step")
    assert top + report["step._other"] == pytest.approx(report["step"])
    children = sum(value for stage, value in report.items() if stage.startswith("physics.") and stage.count(".") == 1)
    assert children == pytest.approx(report["physics"])  # physics._other included
