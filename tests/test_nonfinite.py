"""Non-finite values never reach training: planted into a real task (an observation term, a reward term, one robot's
joint state), the environment is reset and counted while training goes on; a planted non-finite update is undone with
a lower learning rate, and when that keeps happening the run stops with its last good state saved."""

from __future__ import annotations

import pytest

import torch

from conftest import last_json, run_script

pytestmark = pytest.mark.slow

PLANTS = ("obs/policy/base_ang_vel", "reward/track_lin_vel_xy_exp", "state/robot/joint_vel")


def probe(tmp_path, *args: str) -> tuple[dict, str]:
    """The probe's JSON report and its whole output."""
    result = run_script("tests/probe_nonfinite.py", "--log_dir", str(tmp_path / "run"), *args)
    assert result.returncode == 0, result.stderr[-3000:]
    return last_json(result.stdout), result.stdout


@pytest.mark.parametrize("agent, sim_processes", [("ppo", 1), ("roa", 2)])
def test_planted_nonfinite_values_are_reset_and_counted_and_a_nonfinite_update_is_undone(tmp_path, agent,
                                                                                        sim_processes):
    report, stdout = probe(tmp_path, "--agent", agent, "--sim_processes", str(sim_processes),
                           "--plant_steps", "30", "40", "50", "--nan_update", "1", "--iterations", "4")
    scalars = report["scalars"]
    for plant in PLANTS:  # each planted once per simulation process, each reset once
        assert sum(scalars[f"NonFinite/{plant}"]) == sim_processes
        assert f"first bad term: {plant}" in stdout
    assert scalars["NonFinite/env_resets"] == [0.0, 2.0 * sim_processes, 1.0 * sim_processes, 0.0]
    # the planted NaN update (iteration 1) was restored with half the learning rate, and training went on
    assert scalars["NonFinite/update_restores"] == [0.0, 1.0, 1.0, 1.0]
    assert "Iteration 1: the update went non-finite" in stdout and "restore 1 of 3" in stdout
    assert report["stopped"] is None and report["iteration"] == 3
    # nothing non-finite reached the policy, its normalisers, the losses or the observations handed to the policy
    assert report["nonfinite_parameters"] == [] and report["losses_finite"] and report["finite_observations"]


def test_updates_that_keep_going_nonfinite_stop_the_run_with_the_last_good_state_saved(tmp_path):
    report, stdout = probe(tmp_path, "--nan_update", "1", "2", "--max_restores", "1", "--iterations", "4")
    assert "restore 1 of 1" in stdout
    assert report["stopped"].startswith("the update went non-finite")
    assert "agent.nonfinite.max_restores=1" in report["stopped"]
    saved = tmp_path / "run" / "model_1.pt"
    assert f"the last good state is saved as {saved}" in report["stopped"]
    checkpoint = torch.load(saved, weights_only=False)
    assert checkpoint["iter"] == 1
    assert all(torch.isfinite(value).all() for value in checkpoint["actor_state_dict"].values()
               if value.is_floating_point())
    # restored to the learning rate before the first bad update (after update 0), halved
    assert report["final_learning_rate"] == pytest.approx(report["learning_rates"][0] * 0.5)
