"""Runs a recurrent checkpoint's torch policy and its exported runtime side by side in LocoLab's environment, over a
sequence with a time-out in it: every step the runtime (numpy + onnxruntime, memory carried between ``step`` calls,
zeroed by ``reset()``) gets environment 0's raw state and must return the joint targets of the torch policy's action
(memory reset at dones by the evaluation rollout's rule). Prints one JSON line.

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
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--policy", required=True, help="its exported policy directory")
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()

    from robot_state import robot_state

    from locolab.deploy import PolicyRuntime
    from locolab.envs import load_task_cfgs, open_env, play_variant
    from locolab.eval.evaluate import recurrent_memory
    from locolab.runners.build import load_policy
    from locolab.tasks import AGENT_ENTRY_POINTS

    runtime = PolicyRuntime(args.policy)
    task = play_variant(runtime.metadata["task"])
    env_cfg, agent_cfg = load_task_cfgs(task, AGENT_ENTRY_POINTS[("ppo_rnn", "train")], num_envs=2, device="cpu",
                                        seed=0)
    ideal_gyroscope(env_cfg)  # the robot states given to the runtime carry the true angular velocity
    with open_env(task, env_cfg) as env, torch.inference_mode():
        unwrapped = env.unwrapped
        runner, actor = load_policy(env, agent_cfg, args.checkpoint, "policy")
        obs = runner.env.get_observations()
        runtime.reset()
        unwrapped.episode_length_buf[0] = unwrapped.max_episode_length - args.steps // 2  # a time-out mid-way
        error, resets, memory_after_reset = 0.0, 0, None
        with recurrent_memory(actor, fresh=True) as reset_memory:
            for _ in range(args.steps):
                targets = runtime.step(robot_state(unwrapped))
                actions = actor(obs)
                expected = runtime.default_joint_pos + runtime.action_scale * actions[0].numpy()
                error = max(error, float(np.abs(targets - expected).max()))
                obs, rewards, dones, extras = runner.env.step(actions)
                reset_memory(obs, rewards, dones, extras)
                if dones[0]:
                    runtime.reset()
                    resets += 1
                    memory_after_reset = max(float(np.abs(value).max()) for value in runtime.state.values())
        print(json.dumps({"steps": args.steps, "resets": resets, "max_abs_target_error": error,
                          "memory_after_reset": memory_after_reset,
                          "memory_inputs": sorted(runtime.state)}))


if __name__ == "__main__":
    main()
