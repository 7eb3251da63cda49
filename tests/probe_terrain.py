"""Robots standing on the CPU rough task's terrain in one engine; prints one JSON line.

Each robot starts on its tile's centre (Isaac Lab's terrain origin, at the tile's platform height) and holds its
default pose for a second: the line has each base's height above its origin, the terminations, the origins'
heights (pits of inverted stairs and slopes lie below zero) and each foot's clearance as the swing-clearance reward
reads it (the height scanner's ground below the foot), the feet's summed vertical contact normal force and the
foot-stumble penalty's value (what leans past 1:1), the cell of the heightfield the engine collides [m], and the
size of MuJoCo's model and whether MuJoCo C's worlds share it. With ``--stall_seconds`` the end for stalled robots is
on: the line has each robot's first command and the step at which it first timed out (0: never).
"""

from __future__ import annotations

import argparse
import json
import math

import torch

TASK = "LocoLab-Velocity-Rough-Go2-CPU"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", choices=("mujoco_c", "mujoco_warp"), default="mujoco_c")
    parser.add_argument("--num_envs", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--stall_seconds", type=float, default=0.0)
    args = parser.parse_args()

    from isaaclab.managers import SceneEntityCfg
    from isaaclab_newton.physics.newton_manager import NewtonManager

    from locolab.assets import GO2_SPEC
    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp.foot_stumble import STANDARD_GRAVITY, foot_stumble
    from locolab.envs.mdp.swing_clearance import foot_clearance

    env_cfg, _ = load_task_cfgs(TASK, num_envs=args.num_envs, device="cpu", seed=0)
    env_cfg.sim_processes = 1
    env_cfg.physics_engine = args.engine
    env_cfg.terminations.stalled.params["seconds"] = args.stall_seconds
    env_cfg.scene.terrain.max_init_terrain_level = env_cfg.scene.terrain.terrain_generator.num_rows - 1
    with open_env(TASK, env_cfg) as env:
        unwrapped = env.unwrapped
        env.reset()
        actions = torch.zeros(args.num_envs, unwrapped.action_manager.total_action_dim)
        terminated = torch.zeros(args.num_envs, dtype=torch.bool)
        timed_out = torch.zeros(args.num_envs, dtype=torch.long)
        commands = unwrapped.command_manager.get_command("base_velocity").clone()
        for step in range(1, math.ceil(args.seconds / unwrapped.step_dt) + 1):
            _, _, term, truncated, _ = env.step(actions)
            terminated |= term
            timed_out[(timed_out == 0) & truncated] = step
        origins = unwrapped.scene.env_origins
        heights = unwrapped.scene["robot"].data.root_pos_w.torch[:, 2] - origins[:, 2]
        clearance = foot_clearance(unwrapped, GO2_SPEC.foot_radius, SceneEntityCfg("height_scanner"))
        feet = SceneEntityCfg("contact_forces", body_names=".*_foot")
        feet.resolve(unwrapped.scene)
        normals = unwrapped.scene.sensors["contact_forces"].data.net_normal_forces_w.torch[:, feet.body_ids]
        stumble = foot_stumble(unwrapped, 1.0, GO2_SPEC.total_mass() * STANDARD_GRAVITY, feet)
        model = NewtonManager._solver.mj_model  # MuJoCo's model of the scene: its hfield as both engines collide it
        cells = [[2 * model.hfield_size[i, 0] / (model.hfield_ncol[i] - 1),
                  2 * model.hfield_size[i, 1] / (model.hfield_nrow[i] - 1)] for i in range(model.nhfield)]
        print(json.dumps({"engine": args.engine, "heights": heights.tolist(), "terminated": terminated.tolist(),
                          "origins_z": origins[:, 2].tolist(), "hfield_cells": cells,
                          "foot_clearance": clearance.tolist(), "feet_normal_z": normals[..., 2].sum(1).tolist(),
                          "foot_stumble": stumble.tolist(),
                          "commands": commands.tolist(), "timed_out_at": timed_out.tolist(),
                          "weight": GO2_SPEC.total_mass() * STANDARD_GRAVITY, "model_bytes": model.nbuffer,
                          "shares_world_model": getattr(NewtonManager._solver, "shares_world_model", None),
                          "levels": unwrapped.scene.terrain.terrain_levels.tolist(),
                          "columns": unwrapped.scene.terrain.terrain_types.tolist()}))


if __name__ == "__main__":
    main()
