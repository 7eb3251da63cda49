"""Drives LocoLab's training environment with the deployment runtime in the loop and compares, every step, the
runtime's observation (built from raw robot state; for a sighted policy with the environment's noise-free scan as the
robot's terrain sensor, and the runtime's own gait clock) and history with the environment's, and the joint position
targets the runtime returns with those the environment's action term computed from the same action; prints one JSON
line. ``--clip C`` runs a copy of the policy whose metadata clips actions at C, against an environment wrapper that
clips at C (rsl_rl's ``clip_actions``), so the clip branch is compared too.

Each Isaac Lab environment owns the process's simulation context, so the test runs this in a subprocess.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from ideal_gyroscope import ideal_gyroscope


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", required=True, help="an exported policy directory")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--clip", type=float, default=None)
    args = parser.parse_args()

    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from robot_state import robot_state

    from locolab.deploy import PolicyRuntime, gravity_in_base_frame
    from locolab.envs import ProprioHistoryWrapper, load_task_cfgs, open_env, play_variant

    policy_dir = args.policy
    if args.clip is not None:
        import shutil
        import tempfile
        from pathlib import Path

        policy_dir = Path(tempfile.mkdtemp()) / "clipped"
        shutil.copytree(args.policy, policy_dir)
        metadata = json.loads((policy_dir / "policy.json").read_text())
        metadata["action"]["clip"] = args.clip
        (policy_dir / "policy.json").write_text(json.dumps(metadata))
    runtime = PolicyRuntime(policy_dir)
    task = play_variant(runtime.metadata["task"])
    env_cfg, _ = load_task_cfgs(task, num_envs=2, device="cpu", seed=0)
    ideal_gyroscope(env_cfg)  # the robot states given to the runtime carry the true angular velocity
    env_cfg.episode_length_s = (args.steps // 2 + 0.5) * env_cfg.decimation * env_cfg.sim.dt  # a time-out mid-way
    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        robot = unwrapped.scene["robot"]
        vec_env = RslRlVecEnvWrapper(env, clip_actions=args.clip)
        if runtime.history_length:
            vec_env = ProprioHistoryWrapper(vec_env, runtime.history_length)
        action_term = unwrapped.action_manager.get_term("joint_pos")
        obs = vec_env.get_observations()
        runtime.reset()
        groups = runtime.metadata["observation"]["groups"]
        errors = {"observation": 0.0, "history": 0.0, "gravity_from_quaternion": 0.0, "joint_targets": 0.0}
        resets, clipped, target_range = 0, 0, 0.0
        for _ in range(args.steps):
            data = robot.data
            state = robot_state(unwrapped)
            if "scan" in groups:
                state.height_scan = obs["scan"][0].numpy()
            observation = runtime.observation(state)
            targets = runtime.step(state)
            expected = np.concatenate([obs[group][0].numpy() for group in groups])
            errors["observation"] = max(errors["observation"], float(np.abs(observation - expected).max()))
            if runtime.history_length:
                errors["history"] = max(errors["history"],
                                        float(np.abs(runtime.history - obs["history"][0].numpy()).max()))
            quaternion = np.roll(data.root_quat_w.torch[0].numpy(), 1)  # Isaac Lab's (x, y, z, w) -> (w, x, y, z)
            errors["gravity_from_quaternion"] = max(errors["gravity_from_quaternion"], float(
                np.abs(gravity_in_base_frame(quaternion) - state.gravity).max()))
            inputs = {"obs": observation[None]} | ({"history": runtime.history[None]} if runtime.history_length else {})
            raw = runtime.session.run(["actions"], inputs)[0][0]
            clipped += int((np.abs(raw) > args.clip).sum()) if args.clip is not None else 0
            actions = torch.zeros(2, len(runtime.last_action))
            actions[0] = torch.from_numpy(raw)  # the policy's raw output: the wrapper clips like the runtime must
            obs, _, dones, _ = vec_env.step(actions)
            processed = action_term.processed_actions[0].numpy()  # default + scale * action, as the env applied it
            errors["joint_targets"] = max(errors["joint_targets"], float(np.abs(targets - processed).max()))
            target_range = max(target_range, float(np.abs(targets - runtime.default_joint_pos).max()))
            if dones[0]:
                runtime.reset()
                resets += 1
        print(json.dumps({"steps": args.steps, "resets": resets, "max_abs_error": errors,
                          "history_length": runtime.history_length, "clipped_actions": clipped,
                          "max_target_offset": target_range}))


if __name__ == "__main__":
    main()
