"""MuJoCo's C engine under Isaac Lab (locolab.envs.mujoco_c): the -CPU tasks' physics engine, the same physics as
MuJoCo-Warp's with every randomised property reaching each world, chosen by the task's ``physics_engine``."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import last_json, run_side_by_side

from locolab.envs import load_task_cfgs
from locolab.envs.factory import check_physics_engine, select_physics_engine

TASK = "LocoLab-Velocity-Flat-Go2"


def test_the_cpu_tasks_train_on_mujoco_c_and_play_keeps_mujoco_warp():
    env_cfg, _ = load_task_cfgs(f"{TASK}-CPU", device="cpu")
    assert env_cfg.physics_engine == "mujoco_c"
    play_cfg, _ = load_task_cfgs(f"{TASK}-Play", device="cpu")
    assert play_cfg.physics_engine == "mujoco_warp"  # the checks run in a simulator the policy did not train in


def test_selecting_mujoco_c_keeps_the_solver_settings_and_drops_newtons_collision_pipeline():
    from locolab.envs.mujoco_c import MuJoCoCSolverCfg, NewtonMuJoCoCManager

    env_cfg, _ = load_task_cfgs(f"{TASK}-CPU", device="cpu")
    before = env_cfg.sim.physics.solver_cfg
    select_physics_engine(env_cfg)
    after = env_cfg.sim.physics.solver_cfg
    assert isinstance(after, MuJoCoCSolverCfg) and env_cfg.sim.physics.class_type is NewtonMuJoCoCManager
    for name in ("integrator", "iterations", "ls_iterations", "tolerance", "njmax", "nconmax", "cone", "impratio"):
        assert getattr(after, name) == getattr(before, name), name
    assert after.use_mujoco_contacts and env_cfg.sim.physics.collision_cfg is None  # MuJoCo C collides itself


@pytest.mark.parametrize(("engine", "device", "message"), [
    ("bullet", "cpu", "physics_engine 'bullet' is not known: use one of mujoco_warp, mujoco_c."),
    ("mujoco_c", "cuda:0", "physics_engine 'mujoco_c' steps the worlds on the CPU, not on cuda:0: use "
                           "env.physics_engine=mujoco_warp there."),
])
def test_a_bad_engine_is_refused_before_anything_is_built(engine, device, message):
    env_cfg, _ = load_task_cfgs(TASK, device="cpu")
    env_cfg.physics_engine, env_cfg.sim.device = engine, device
    for check in (check_physics_engine, select_physics_engine):  # train.py checks before anything is built
        with pytest.raises(ValueError) as error:
            check(env_cfg)
        assert str(error.value) == message


@pytest.mark.slow
def test_mujoco_c_moves_randomised_pushed_robots_as_mujoco_warp_does():
    """8 robots, each with its own randomised friction, payload, centre of mass, motor strength, gains and contact
    softness, pushed and reset, under the same 150 random actions: the two engines keep the same base heights
    (0.2 mm here), joint angles (1.1 mrad) and foot forces (0.12 N), and MuJoCo C's per-world models hold MuJoCo-Warp's
    rows of the randomised properties, which the dynamics term reads back from each engine as it applied them."""
    engines = ("mujoco_c", "mujoco_warp")
    results = run_side_by_side(*(("tests/probe_physics_engines.py", "--engine", engine, "--steps", "150",
                                  "--every", "25") for engine in engines))
    runs = {}
    for engine, result in zip(engines, results):
        assert result.returncode == 0, result.stderr[-3000:]
        runs[engine] = last_json(result.stdout)
    assert (runs["mujoco_c"]["solver"], runs["mujoco_warp"]["solver"]) == ("SolverMuJoCoC", "SolverMuJoCo")
    models = runs["mujoco_c"]["world_models"]
    assert models["base_mass"] == pytest.approx(models["batched_base_mass"])
    assert np.allclose(models["friction"], models["batched_friction"])
    assert len(set(np.round(models["base_mass"], 4))) == len(models["base_mass"])  # each world its own payload
    for engine, run in runs.items():  # the dynamics term reads each engine's own model: MuJoCo C's per world
        errors = run["read_back_error"]
        assert errors.pop("robots") >= 4, engine
        assert max(errors.values()) < 1e-5, (engine, errors)
    assert len(runs["mujoco_c"]["states"]) == 6
    # about twice the differences measured (2026-12-03: 0.18 mm, 1.06 mrad, 0.117 N of up to 254 N; the figures of
    # docs/measurements/cpu_benchmark.md), so that a change in either engine's physics shows here
    for c, warp in zip(runs["mujoco_c"]["states"], runs["mujoco_warp"]["states"]):
        assert np.allclose(c["base_height"], warp["base_height"], rtol=0, atol=4e-4)
        assert np.allclose(c["joint_pos"], warp["joint_pos"], rtol=0, atol=2e-3)
        assert np.allclose(c["feet_force"], warp["feet_force"], rtol=0, atol=0.25)
        assert np.sum(c["feet_force"]) > 100  # the feet stand and carry the robots
