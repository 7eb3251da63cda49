"""Drives LocoLab's training environment with the deployment runtime in the loop and compares, every step, the
runtime's observation and history (built from raw robot state) with the environment's; prints one JSON line.

Each Isaac Lab environment owns the process's simulation context, so the test runs this in a subprocess.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", required=True, help="an exported policy directory")
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()

    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from locolab.deploy import PolicyRuntime, RobotState, gravity_in_base_frame
    from locolab.envs import ProprioHistoryWrapper, load_task_cfgs, open_env, play_variant

    runtime = PolicyRuntime(args.policy)
    task = play_variant(runtime.metadata["task"])
    env_cfg, _ = load_task_cfgs(task, num_envs=2, device="cpu", seed=0)
    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        robot = unwrapped.scene["robot"]
        vec_env = ProprioHistoryWrapper(RslRlVecEnvWrapper(env), runtime.history_length)
        obs = vec_env.get_observations()
        runtime.reset()
        unwrapped.episode_length_buf[0] = unwrapped.max_episode_length - args.steps // 2  # a time-out mid-way
        errors = {"observation": 0.0, "history": 0.0, "gravity_from_quaternion": 0.0}
        resets = 0
        for _ in range(args.steps):
            data = robot.data
            state = RobotState(
                joint_pos=data.joint_pos.torch[0].numpy(),
                joint_vel=data.joint_vel.torch[0].numpy(),
                ang_vel=data.root_ang_vel_b.torch[0].numpy(),
                gravity=data.projected_gravity_b.torch[0].numpy(),
                command=unwrapped.command_manager.get_command("base_velocity")[0].numpy(),
            )
            runtime.step(state)
            errors["observation"] = max(errors["observation"],
                                        float(np.abs(runtime.history[-1] - obs["policy"][0].numpy()).max()))
            errors["history"] = max(errors["history"], float(np.abs(runtime.history - obs["history"][0].numpy()).max()))
            quaternion = np.roll(data.root_quat_w.torch[0].numpy(), 1)  # Isaac Lab's (x, y, z, w) -> (w, x, y, z)
            errors["gravity_from_quaternion"] = max(errors["gravity_from_quaternion"], float(
                np.abs(gravity_in_base_frame(quaternion) - state.gravity).max()))
            actions = torch.zeros(2, len(runtime.last_action))
            actions[0] = torch.from_numpy(runtime.last_action)
            obs, _, dones, _ = vec_env.step(actions)
            if dones[0]:
                runtime.reset()
                resets += 1
        print(json.dumps({"steps": args.steps, "resets": resets, "max_abs_error": errors,
                          "history_length": runtime.history_length}))


if __name__ == "__main__":
    main()
