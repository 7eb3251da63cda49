"""Steps the flat task's robots (the CPU profile's physics, one integrator given) under fixed random actions and prints
their joint positions and base heights after every 50 steps, as one JSON line: the states two integrators reach."""

from __future__ import annotations

import argparse
import json

import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--integrator", required=True)
    parser.add_argument("--steps", type=int, default=250)
    args = parser.parse_args()

    from locolab.cpu_profile import CpuProfileCfg, apply_cpu_profile
    from locolab.envs import load_task_cfgs, open_env

    task = "LocoLab-Velocity-Flat-Go2"
    env_cfg, agent_cfg = load_task_cfgs(task, num_envs=8, device="cpu", seed=0)
    apply_cpu_profile(env_cfg, agent_cfg, CpuProfileCfg(), num_envs_given=True)
    env_cfg.sim.physics.solver_cfg.integrator = args.integrator
    generator = torch.Generator().manual_seed(0)
    states = []
    with open_env(task, env_cfg) as env, torch.inference_mode():
        robot = env.unwrapped.scene["robot"]
        env.reset()
        for step in range(1, args.steps + 1):
            env.step(2 * torch.rand(8, 12, generator=generator) - 1)  # falls and resets included
            if step % 50 == 0:
                states.append({"joint_pos": robot.data.joint_pos.torch.tolist(),
                               "base_height": robot.data.root_pos_w.torch[:, 2].tolist()})
    print(json.dumps({"integrator": args.integrator, "states": states}))


if __name__ == "__main__":
    main()
