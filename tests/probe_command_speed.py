"""A checkpoint's mean-action speed under one held forward command, in its training task (not the -Play variant):
the training's physics, terrain columns and levels; prints one JSON line (the rough dead band's table,
docs/measurements/rough_terrain.md).

    .venv/bin/python tests/probe_command_speed.py logs/.../model_550.pt --task LocoLab-Velocity-Rough-Go2-CPU --vx 0.5
"""

from __future__ import annotations

import argparse
import json

import torch

from locolab.envs import open_env
from locolab.envs.commands import fix_velocity_command
from locolab.eval.evaluate import evaluate_policy
from locolab.eval.policy import checkpoint_cfgs
from locolab.runners.build import load_policy

STEPS, SETTLE = 400, 100
"""Steps played, and the first steps left out of the average (the robots start from standing)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--task", default="LocoLab-Velocity-Rough-Go2-CPU")
    parser.add_argument("--vx", type=float, default=0.5)
    parser.add_argument("--num_envs", type=int, default=32)
    parser.add_argument("--observation_noise", action="store_true", help="keep the policy observations' noise")
    args = parser.parse_args()
    env_cfg, agent_cfg = checkpoint_cfgs(args.task, "ppo", "train", "cpu", args.num_envs, 0)
    env_cfg.sim_processes = 1
    fix_velocity_command(env_cfg, (args.vx, 0.0, 0.0))
    env_cfg.observations.policy.enable_corruption = args.observation_noise
    with open_env(args.task, env_cfg) as env:
        runner, policy = load_policy(env, agent_cfg, args.checkpoint, "policy")
        robot, speeds = env.unwrapped.scene["robot"], []
        evaluate_policy(runner.env, policy, STEPS,
                        before_step=lambda: speeds.append(robot.data.root_lin_vel_b.torch[:, 0].clone()))
        speed = torch.stack(speeds[SETTLE:]).mean(0)
        terrain = env.unwrapped.scene.terrain
        print(json.dumps({"vx": args.vx, "mean_forward_velocity": round(speed.mean().item(), 3),
                          "per_robot": [round(v, 2) for v in speed.tolist()],
                          "terrain_columns": terrain.terrain_types.tolist(),
                          "terrain_levels": terrain.terrain_levels.tolist()}))


if __name__ == "__main__":
    main()
