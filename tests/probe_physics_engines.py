"""Steps the flat task's robots in one physics engine (the CPU profile's physics, the task's full randomised dynamics,
pushes, falls and resets) under fixed random actions; prints one JSON line for test_mujoco_c.py: base heights, joint
positions and the feet's contact forces every 20 steps, what the engine's per-world models hold, and how far the
dynamics term's read-back of them is from the values it applied.

Each Isaac Lab environment owns the process's simulation context, so the test runs this in a subprocess per engine.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

TASK = "LocoLab-Velocity-Flat-Go2"
NUM_ENVS = 8


def world_models(solver) -> dict:
    """What MuJoCo C steps with: each world's base mass and feet friction, beside MuJoCo-Warp's rows for them."""
    base = 1
    models = getattr(solver, "world_models", None)
    if models is None:
        return {}
    return {"base_mass": [float(model.body_mass[base]) for model in models],
            "batched_base_mass": solver.mjw_model.body_mass.numpy()[:, base].tolist(),
            "friction": [model.geom_friction[:, 0].tolist() for model in models],
            "batched_friction": np.broadcast_to(solver.mjw_model.geom_friction.numpy()[..., 0],
                                                (len(models), models[0].ngeom)).tolist()}


def read_back_error(env) -> dict:
    """Per randomised parameter, the largest difference between what the engine steps with (``read_back``: MuJoCo
    C's per-world models or MuJoCo-Warp's batched one) and the applied table, over the robots the last step did not
    reset (their new dynamics reach the engine at the next step); ``robots``: how many."""
    dynamics = env.event_manager.get_term_cfg("dynamics").func
    kept = ~env.reset_buf
    error = (dynamics.read_back() - dynamics.values)[kept].abs()
    parameters = dict.fromkeys(name.partition("/")[0] for name in dynamics.names)
    return {"robots": int(kept.sum()), **{name: error[:, dynamics.columns(name)].max().item() for name in parameters}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", choices=("mujoco_warp", "mujoco_c"), required=True)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--every", type=int, default=20)
    args = parser.parse_args()

    from locolab.envs import load_task_cfgs, open_env  # first: it points Isaac Lab's asset root at local files

    from isaaclab_newton.physics.newton_manager import NewtonManager

    from locolab.envs.physics_settings import copy_physics

    env_cfg, _ = load_task_cfgs(TASK, num_envs=NUM_ENVS, device="cpu", seed=0)
    # the CPU training's physics, without its curriculum: the full randomisation ranges from the start
    copy_physics(env_cfg, load_task_cfgs(f"{TASK}-CPU", device="cpu")[0])
    env_cfg.skip_absent_passive_forces = True
    env_cfg.physics_engine = args.engine
    generator = torch.Generator().manual_seed(0)
    states = []
    with open_env(TASK, env_cfg) as env, torch.inference_mode():
        unwrapped = env.unwrapped
        robot, contacts = unwrapped.scene["robot"], unwrapped.scene["contact_forces"]
        feet = contacts.find_sensors(".*_foot")[0]
        env.reset()
        for step in range(1, args.steps + 1):
            env.step(0.5 * torch.randn(NUM_ENVS, 12, generator=generator))
            if step % args.every == 0:
                states.append({"base_height": robot.data.root_pos_w.torch[:, 2].tolist(),
                               "joint_pos": robot.data.joint_pos.torch.tolist(),
                               "feet_force": contacts.data.net_forces_w.torch[:, feet].norm(dim=-1).tolist()})
        report = {"solver": type(NewtonManager._solver).__name__, "states": states,
                  "world_models": world_models(NewtonManager._solver), "read_back_error": read_back_error(unwrapped)}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
