"""The flat Go2 task on Isaac Lab's Warp frontend (locolab.envs.warp_frontend), on the CPU: built with LocoLab's Warp
twins, wrapped as training wraps it, stepped with random actions; and the same run on the stable (torch) managers.

With every draw of the task collapsed to a point (reset pose and velocity, joint scale, dynamics, commands; no noise,
no pushes, no gyroscope drift) both frontends run the same MDP on the same physics from the same seed, so their
observations and rewards must agree: at the reset and along 20 steps of the same random actions (the stiff feet
contacts, and two stock Isaac Lab reward twins, excepted: see :data:`FEET` and :data:`STOCK_DIFFERENCES`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from locolab.fresh_process import in_fresh_process

TASK = "LocoLab-Velocity-Flat-Go2"
NUM_ENVS = 8
STEPS = 20
FEET = 4
"""The last columns of ``critic`` and ``priv``: feet contacts, 0 or 1 by a 1 N threshold. Contact forces are stiff: two
runs whose states differ by float rounding (the solver's order of operations) cross it at different steps, so each
run's contacts are held to the torch term on its own state instead."""


def collapse_draws(env_cfg) -> None:
    """Every random draw of ``env_cfg`` a single value (not the ranges' midpoints: the event must write them)."""
    from locolab.envs.mdp import DynamicsRandomizationCfg

    events = env_cfg.events
    events.reset_base.params["pose_range"] = {"x": (0.1, 0.1), "y": (-0.2, -0.2), "yaw": (0.5, 0.5)}
    events.reset_base.params["velocity_range"] = {"x": (0.3, 0.3), "yaw": (0.2, 0.2)}
    events.reset_robot_joints.params["position_range"] = (1.1, 1.1)
    events.push_robot = None
    ranges = events.dynamics.params["ranges"]
    points = {}
    for field in dataclasses.fields(DynamicsRandomizationCfg):
        value = getattr(ranges, field.name)
        if field.name == "base_com_offset":
            points[field.name] = tuple((low + 0.25 * (high - low),) * 2 for low, high in value)
        elif field.name == "action_delay":
            points[field.name] = (1.0, 1.0)
        elif isinstance(value, tuple):
            points[field.name] = (value[0] + 0.25 * (value[1] - value[0]),) * 2
    events.dynamics.params["ranges"] = DynamicsRandomizationCfg(**points)
    command = env_cfg.commands.base_velocity
    command.heading_command, command.rel_standing_envs = False, 0.0
    command.ranges.lin_vel_x, command.ranges.lin_vel_y, command.ranges.ang_vel_z = (0.6, 0.6), (-0.1, -0.1), (0.3, 0.3)
    env_cfg.observations.policy.enable_corruption = False
    env_cfg.observations.policy.base_ang_vel.params["drift_std"] = 0.0


def run(frontend: str) -> dict:
    """Observations and rewards at the reset and at each step of a seeded random-action run on ``frontend``."""
    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp import observations as torch_terms
    from locolab.envs.metrics import step_rewards
    from locolab.runners.build import wrap_for_agent

    env_cfg, agent_cfg = load_task_cfgs(TASK, num_envs=NUM_ENVS, device="cpu", seed=11)
    collapse_draws(env_cfg)
    generator = torch.Generator().manual_seed(12)
    with open_env(TASK, env_cfg, frontend) as env, torch.inference_mode():
        vec = wrap_for_agent(env, agent_cfg)
        unwrapped = env.unwrapped
        observations = vec.get_observations()
        manager = unwrapped.observation_manager
        feet_cfg = dict(zip(manager.active_terms["priv"], manager._group_obs_term_cfgs["priv"]))["feet_contact"]
        dynamics = unwrapped.event_manager.get_term_cfg("dynamics").func
        record = {"kind": type(unwrapped).__name__, "reset": {k: v.clone().numpy() for k, v in observations.items()},
                  "steps": [], "rewards": [], "dones": 0,
                  "events": {name: type(unwrapped.event_manager.get_term_cfg(name).func).__module__
                             for name in ("dynamics",)}}
        for _ in range(STEPS):
            observations, rewards, dones, _ = vec.step(torch.rand(NUM_ENVS, vec.num_actions,
                                                                       generator=generator) * 2 - 1)
            record["steps"].append({k: v.clone().numpy() for k, v in observations.items()})
            record["rewards"].append(rewards.clone().numpy())
            record.setdefault("terms", []).append(step_rewards(unwrapped).clone().numpy())
            # the feet contacts the observation carries, against the torch term on this run's own state
            feet = torch_terms.feet_contact(unwrapped, feet_cfg.params["sensor_cfg"], feet_cfg.params["threshold"])
            record["feet_vs_torch_term"] = max(record.get("feet_vs_torch_term", 0.0),
                                               float((observations["priv"][:, -FEET:] - feet).abs().max()))
            record["dones"] += int(dones.sum())
        record["term_names"] = list(unwrapped.reward_manager.active_terms)
        record["dynamics"] = dynamics.values.clone().numpy()
    return record


STOCK_DIFFERENCES = ("dof_acc_l2", "feet_air_time")
"""Reward terms whose stock Isaac Lab twins differ from their torch terms on the same run: joint acceleration is a
finite difference over the time since it was last read, and the frontends read it at different times; the air time
reward counts first contacts, which follow the feet's threshold crossings. Held to finite values only."""


@pytest.mark.slow
def test_the_flat_task_runs_on_the_warp_frontend_and_matches_the_torch_frontend():
    warp, stable = in_fresh_process(run, "warp"), in_fresh_process(run, "torch")
    assert warp["kind"] == "LocoLabRLEnvWarp" and stable["kind"] != warp["kind"]
    assert warp["events"]["dynamics"] == "locolab.envs.mdp.warp_dynamics"  # the twin ran the resets
    widths = {"policy": 45, "critic": 80, "priv": 35}
    for record in (warp, stable):
        assert {k: v.shape for k, v in record["reset"].items()} == {k: (NUM_ENVS, w) for k, w in widths.items()}
        assert all(np.isfinite(step[k]).all() and step[k].shape == (NUM_ENVS, w)
                   for step in record["steps"] for k, w in widths.items())
        assert all(r.shape == (NUM_ENVS,) and np.isfinite(r).all() for r in record["rewards"])
    for group in widths:  # the same observations at the reset
        assert np.abs(warp["reset"][group] - stable["reset"][group]).max() < 1e-5, group
    for step, (ours, theirs) in enumerate(zip(warp["steps"], stable["steps"])):  # and along the run
        for group, width in widths.items():
            kept = width - (FEET if group != "policy" else 0)
            assert np.abs(ours[group][:, :kept] - theirs[group][:, :kept]).max() < 1e-3, (group, step)
    for record in (warp, stable):
        assert record["feet_vs_torch_term"] == 0.0
        assert max(float(step["priv"][:, -FEET:].sum()) for step in record["steps"]) > 0  # the feet touched down
    assert np.abs(warp["dynamics"] - stable["dynamics"]).max() < 1e-6  # the same (collapsed) dynamics applied
    assert warp["term_names"] == stable["term_names"]
    terms = np.abs(np.array(warp["terms"]) - np.array(stable["terms"])).max(axis=(0, 1))
    for name, difference in zip(warp["term_names"], terms):
        assert name in STOCK_DIFFERENCES or difference < 1e-4, (name, difference)
    assert np.abs(np.array(stable["rewards"])).max() > 0.01  # the rewards were not all zero
    assert warp["dones"] == stable["dones"]


def refusals() -> dict:
    """What check_warp_frontend says of the CPU profile, rough terrain, simulation processes and the flat task, and
    what the benchmark's Warp entry says on a CPU."""
    from types import SimpleNamespace

    from locolab.bench.throughput import warp_step_figures
    from locolab.envs import load_task_cfgs
    from locolab.envs.warp_frontend import check_warp_frontend

    said = {}
    for name, task, processes in (("cpu_profile", f"{TASK}-CPU", 1), ("rough", "LocoLab-Velocity-Rough-Go2", 1),
                                  ("processes", TASK, 2), ("flat", TASK, 1)):
        env_cfg, _ = load_task_cfgs(task, num_envs=NUM_ENVS, device="cpu")
        try:
            said[name] = check_warp_frontend(env_cfg, processes)
        except ValueError as error:
            said[name] = str(error)
    args = SimpleNamespace(task=TASK, num_envs=NUM_ENVS, sim_steps=10, sim_override=[])
    said["benchmark"] = warp_step_figures(args, "cpu", 1.0)
    return said


@pytest.mark.slow
def test_the_warp_frontend_refuses_what_it_cannot_run_in_one_line():
    said = in_fresh_process(refusals)
    assert said["flat"] is None
    assert "physics_engine 'mujoco_c'" in said["cpu_profile"] and "--no_cpu_profile" in said["cpu_profile"]
    assert "height scan" in said["rough"] and "--frontend torch" in said["rough"]
    assert "2 simulation processes" in said["processes"] and "--sim_processes 1" in said["processes"]
    assert all("\n" not in said[name] for name in ("cpu_profile", "rough", "processes"))
    assert said["benchmark"]["sim_warp_captured_skipped"].startswith("the Warp frontend's captured step needs a CUDA")
