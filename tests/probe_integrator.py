"""Steps the flat task's robots (the CPU profile's physics, one integrator given, MuJoCo-Warp's passive-force stage
computed or skipped) under fixed random actions and prints their joint positions and base heights after every 50
steps, as one JSON line: the states two physics settings reach. With the stage skipped it also reports whether
MuJoCo-Warp's skip flags were set over the run, and again after one joint was given damping and the robots stepped."""

from __future__ import annotations

import argparse
import json

import torch


def skip_flags_set() -> bool:
    from isaaclab_newton.physics.newton_manager import NewtonManager

    from locolab.envs.passive_forces import skipped_stage_flags

    skipped = skipped_stage_flags()
    return NewtonManager._solver.mjw_model.opt.disableflags & skipped == skipped


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--integrator", required=True)
    parser.add_argument("--passive", choices=("computed", "skipped"), default="computed")
    parser.add_argument("--steps", type=int, default=250)
    args = parser.parse_args()

    from locolab.envs import load_task_cfgs, open_env

    task = "LocoLab-Velocity-Flat-Go2-CPU"
    env_cfg, _ = load_task_cfgs(task, num_envs=8, device="cpu", seed=0)
    env_cfg.sim.physics.solver_cfg.integrator = args.integrator
    env_cfg.physics_engine = "mujoco_warp"  # the stages of MuJoCo-Warp's step under test
    env_cfg.skip_absent_passive_forces = args.passive == "skipped"
    env_cfg.events.dynamics.params["ranges"].joint_damping = (0.0, 0.0)  # the Go2 without gearbox damping
    generator = torch.Generator().manual_seed(0)
    states, report = [], {"integrator": args.integrator, "passive": args.passive}
    with open_env(task, env_cfg) as env, torch.inference_mode():
        robot = env.unwrapped.scene["robot"]
        env.reset()
        for step in range(1, args.steps + 1):
            env.step(2 * torch.rand(8, 12, generator=generator) - 1)  # falls and resets included
            if step % 50 == 0:
                states.append({"joint_pos": robot.data.joint_pos.torch.tolist(),
                               "base_height": robot.data.root_pos_w.torch[:, 2].tolist()})
        report["skip_flags_set"] = skip_flags_set()
        robot.write_joint_viscous_friction_coefficient_to_sim_index(
            joint_viscous_friction_coeff=torch.full((1, 1), 0.5), joint_ids=[0], env_ids=[0])
        env.step(torch.zeros(8, 12))
        report["skip_flags_set_with_damping"] = skip_flags_set()
    print(json.dumps({**report, "states": states}))


if __name__ == "__main__":
    main()
