"""Runs a LocoLab task for a few seconds and prints what the tests check, as one JSON line.

Each Isaac Lab environment owns the process's simulation context, so tests run this in a subprocess per task.
"""

from __future__ import annotations

import argparse
import json
import math

import torch
from ideal_gyroscope import ideal_gyroscope


def largest(values: torch.Tensor) -> float:
    """The largest magnitude in ``values`` (0 when empty)."""
    return float(values.abs().max()) if values.numel() else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", required=True)
    parser.add_argument("--num_envs", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--actions", choices=("zero", "random"), default="zero")
    parser.add_argument("--nominal_dynamics", action="store_true", help="no dynamics randomisation")
    parser.add_argument("--turn_in_place", type=float, default=None, help="fraction of commands turning in place")
    parser.add_argument("--ideal_gyroscope", action="store_true", help="no gyroscope offset or drift")
    parser.add_argument("--noise_free_envs", type=float, default=None,
                        help="share of robots without policy observation noise")
    args = parser.parse_args()

    from locolab.assets import GO2_SPEC
    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp import DynamicsRandomizationCfg

    env_cfg, _ = load_task_cfgs(args.task, num_envs=args.num_envs, device="cpu", seed=0)
    if args.nominal_dynamics:
        env_cfg.events.dynamics.params["ranges"] = DynamicsRandomizationCfg(
            friction=(1.0, 1.0), added_base_mass=(0.0, 0.0), base_com_offset=((0.0, 0.0),) * 3,
            motor_strength=(1.0, 1.0), kp_scale=(1.0, 1.0), kd_scale=(1.0, 1.0),
        )
    if args.turn_in_place is not None:
        env_cfg.commands.base_velocity.rel_turn_in_place_envs = args.turn_in_place
    if args.ideal_gyroscope:
        ideal_gyroscope(env_cfg)
    if args.noise_free_envs is not None:
        from locolab.envs.observation_noise import set_noise_free_envs

        set_noise_free_envs(env_cfg, args.noise_free_envs)
    with open_env(args.task, env_cfg) as env:
        unwrapped = env.unwrapped
        robot = unwrapped.scene["robot"]
        obs, _ = env.reset()
        command = unwrapped.command_manager.get_term("base_velocity")
        turning = command.is_turn_in_place_env.clone()
        first_command = command.command.clone()
        turning_command_change = 0.0
        steps = math.ceil(args.seconds / unwrapped.step_dt)
        action_dim = unwrapped.action_manager.total_action_dim
        terminated = torch.zeros(args.num_envs, dtype=torch.bool)
        finite = True
        policy_noise = torch.zeros(args.num_envs)  # per robot: the largest gap between its policy and critic views
        for _ in range(steps):
            if args.actions == "zero":
                actions = torch.zeros(args.num_envs, action_dim)
            else:
                actions = 2 * torch.rand(args.num_envs, action_dim) - 1
            obs, reward, term, trunc, _ = env.step(actions)
            terminated |= term
            turning_command_change = max(turning_command_change,
                                         largest((command.command - first_command)[turning]))
            finite &= bool(torch.isfinite(obs["policy"]).all() and torch.isfinite(reward).all())
            policy = obs["policy"]
            policy_noise = torch.maximum(policy_noise, (policy - obs["critic"][:, :policy.shape[1]]).abs().amax(1))
        heights = robot.data.root_pos_w.torch[:, 2] - unwrapped.scene.env_origins[:, 2]
        print(json.dumps({
            "steps": steps,
            "step_dt": unwrapped.step_dt,
            "obs_shapes": {group: list(value.shape) for group, value in obs.items()},
            "action_dim": action_dim,
            "finite": finite,
            "terminated": int(terminated.sum()),
            "base_height_min": float(heights.min()),
            "base_height_max": float(heights.max()),
            "nominal_height": GO2_SPEC.standing_height(),
            "turn_in_place_envs": int(turning.sum()),
            "turning_linear_command_max": largest(first_command[turning, :2]),
            "turning_yaw_command_min": float(first_command[turning, 2].abs().min()) if turning.any() else None,
            "turning_command_change": turning_command_change,
            "policy_noise_by_env": policy_noise.tolist(),
            "body_names": robot.body_names,
            "joint_names": robot.joint_names,
        }))


if __name__ == "__main__":
    main()
