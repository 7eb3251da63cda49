"""The CPU profile's speed-ups of MuJoCo C under Isaac Lab change no value (issue 65, item 1).

- Forward kinematics once per control period (``MuJoCoCSolverCfg.kinematics_once_per_period``) against Newton's
  after-every-physics-step reference: 16 randomised, pushed robots under 200 steps of violent random actions, with
  falls and resets; observations (every group), rewards, resets, time-outs, episode metrics and body poses
  bit for bit.
- The contacts copied as whole ``mjContact`` records (``locolab.envs.mujoco_c_contacts``) against MuJoCo's own
  field views, world by world.
- One ``MjModel`` shared by every world (``MuJoCoCSolverCfg.share_world_model``, a heightfield's big model) against
  one per world, on robots randomised from the first step: the same values bit for bit.
"""

from __future__ import annotations

from types import SimpleNamespace

import mujoco
import numpy as np
import pytest
import torch

from locolab.fresh_process import in_fresh_process

TASK = "LocoLab-Velocity-Flat-Go2"


def trace(kinematics_once_per_period: bool, num_envs: int = 16, steps: int = 200,
          share_world_model: bool | None = None) -> dict[str, np.ndarray]:
    """Every value the trainer sees, each step, of the PPO CPU task run under fixed random actions; with
    ``share_world_model`` given, the randomised dynamics at their full ranges from the start (no robustness
    curriculum), and the solver's per-world base masses and feet friction."""
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.metrics import metric_terms, step_metric_values
    from locolab.envs.mujoco_c import step_worlds_in_mujoco_c
    from locolab.tasks import cpu_variant

    env_cfg, _ = load_task_cfgs(cpu_variant(TASK, "ppo", "train"), num_envs=num_envs, device="cpu", seed=3)
    step_worlds_in_mujoco_c(env_cfg)  # what opening the -CPU task does, so that the switch below is kept
    env_cfg.sim.physics.solver_cfg.kinematics_once_per_period = kinematics_once_per_period
    if share_world_model is not None:
        env_cfg.sim.physics.solver_cfg.share_world_model = share_world_model
        env_cfg.curriculum.robustness = None
    generator = torch.Generator().manual_seed(1)
    record: dict[str, list] = {}
    with open_env(TASK, env_cfg) as env, torch.inference_mode():
        vec = RslRlVecEnvWrapper(env)
        unwrapped = env.unwrapped
        assert unwrapped.sim.physics_manager._solver.kinematics_once_per_period is kinematics_once_per_period
        if share_world_model is None:  # flat ground's model is small: one per world, the fast path
            assert not unwrapped.sim.physics_manager._solver.shares_world_model
        terms = metric_terms(unwrapped)
        robot = unwrapped.scene["robot"]
        for _ in range(steps):
            obs, rewards, dones, extras = vec.step(1.5 * torch.randn(num_envs, vec.num_actions, generator=generator))
            values = {**{f"obs/{group}": obs[group] for group in obs.keys()}, "rewards": rewards, "dones": dones,
                      "time_outs": extras["time_outs"], "metrics": step_metric_values(unwrapped, terms),
                      "body_pos": robot.data.body_pos_w.torch, "body_lin_vel": robot.data.body_lin_vel_w.torch}
            if share_world_model is not None:
                solver = unwrapped.sim.physics_manager._solver
                assert solver.shares_world_model is share_world_model
                values.update(mass=solver.world_field("body_mass"), friction=solver.world_field("geom_friction"))
            for name, value in values.items():
                record.setdefault(name, []).append(torch.as_tensor(value).clone().numpy())
    return {name: np.stack(values) for name, values in record.items()}


def test_kinematics_once_per_control_period_changes_no_value():
    reference = in_fresh_process(trace, False)
    fast = in_fresh_process(trace, True)
    assert reference["dones"].sum() >= 10  # falls and time-outs reset robots along the way
    assert set(fast) == set(reference)
    for name, values in reference.items():
        assert np.array_equal(fast[name], values), name


def test_worlds_sharing_one_model_step_as_worlds_with_their_own():
    own = in_fresh_process(trace, True, 16, 120, False)
    shared = in_fresh_process(trace, True, 16, 120, True)
    assert own["dones"].sum() >= 5
    for field in ("mass", "friction"):  # every world its own dynamics, changed at resets
        assert len({row.tobytes() for row in own[field][-1]}) == 16, field
        assert not np.array_equal(own[field][0], own[field][-1]), field
    assert set(shared) == set(own)
    for name, values in own.items():
        assert np.array_equal(shared[name], values), name


def stepped_worlds(count: int = 4, steps: int = 60) -> tuple[list[mujoco.MjModel], list[mujoco.MjData]]:
    """``count`` worlds of the generated robot dropped from different heights, so they touch down differently."""
    from locolab.assets import ensure_robot_files

    model = mujoco.MjModel.from_xml_path(str(ensure_robot_files().mjcf))
    datas = []
    for world in range(count):
        data = mujoco.MjData(model)
        data.qpos[2] += 0.02 * world
        for _ in range(steps + 10 * world):
            mujoco.mj_step(model, data)
        datas.append(data)
    return [model] * count, datas


def batched_arrays(models: list[mujoco.MjModel], naconmax: int = 64, njmax: int = 100) -> SimpleNamespace:
    """Stand-ins for MuJoCo-Warp's batched contact and pose arrays (``.numpy()`` views, float32 as there)."""
    array = lambda shape, dtype=np.float32: SimpleNamespace(numpy=lambda values=np.zeros(shape, dtype): values)
    worlds, model = len(models), models[0]
    contact = SimpleNamespace(pos=array((naconmax, 3)), frame=array((naconmax, 3, 3)), friction=array((naconmax, 5)),
                              dist=array((naconmax,)), dim=array((naconmax,), np.int32),
                              geom=array((naconmax, 2), np.int32), efc_address=array((naconmax, 4), np.int32),
                              worldid=array((naconmax,), np.int32))
    return SimpleNamespace(contact=contact, naconmax=naconmax, efc=SimpleNamespace(force=array((worlds, njmax))),
                           xpos=array((worlds, model.nbody, 3)), xquat=array((worlds, model.nbody, 4)))


def test_whole_contact_records_copy_what_mujocos_field_views_hold():
    from locolab.envs.mujoco_c_contacts import ContactGather

    models, datas = stepped_worlds()
    batched = batched_arrays(models)
    gather = ContactGather(models, datas, batched)
    for _ in range(2):  # the second call reuses each world's record view
        count = gather.gather()
        assert count == sum(data.ncon for data in datas) and sum(data.ncon > 0 for data in datas) >= 2
        start = 0
        for world, data in enumerate(datas):
            found, end = data.contact, start + data.ncon
            for name in ("pos", "friction", "dist", "dim", "geom"):
                assert np.array_equal(getattr(batched.contact, name).numpy()[start:end],
                                      getattr(found, name).astype(getattr(batched.contact, name).numpy().dtype)), name
            assert np.array_equal(batched.contact.frame.numpy()[start:end],
                                  found.frame.reshape(-1, 3, 3).astype(np.float32))
            assert np.array_equal(batched.contact.efc_address.numpy()[start:end, 0], found.efc_address)
            assert np.all(batched.contact.worldid.numpy()[start:end] == world)
            assert np.array_equal(batched.efc.force.numpy()[world, :data.nefc], data.efc_force.astype(np.float32))
            assert np.array_equal(batched.xpos.numpy()[world], data.xpos.astype(np.float32))
            start = end
        for data in datas:  # new contacts for the second call
            for _ in range(7):
                mujoco.mj_step(models[0], data)


def test_too_many_contacts_for_the_batched_buffers_is_one_clear_error():
    from locolab.envs.mujoco_c_contacts import ContactGather

    models, datas = stepped_worlds()
    gather = ContactGather(models, datas, batched_arrays(models, naconmax=3))
    with pytest.raises(RuntimeError, match="raise env.sim.physics.solver_cfg.nconmax"):
        gather.gather()
