"""An open-loop trot (or bound) through the flat task's own actuators and contacts in Newton; prints one JSON line.

Trot: diagonal pairs (FL+RR, FR+RL) in antiphase; bound (``--gait bound``): front and rear pairs in antiphase. Per
leg the thigh target is default - 0.3 sin(phase) and the calf is lifted 0.6 rad while its leg swings forward. Rules
the robot in or out before learning is blamed: if this gait does not walk in the training simulator, no policy will.
The line also holds what the gait earns of the trot gait reward that the CPU profile adds (``trot_gait``, per
policy step, unweighted).
"""

from __future__ import annotations

import argparse
import json
import math

import torch

THIGH_AMPLITUDE = 0.3
CALF_LIFT = 0.6
LEG_PHASES = {
    "trot": {"FL": 0.0, "RR": 0.0, "FR": math.pi, "RL": math.pi},
    "bound": {"FL": 0.0, "FR": 0.0, "RL": math.pi, "RR": math.pi},
}


def gait_targets(joint_names: list[str], default: torch.Tensor, time_s: float, frequency: float,
                 gait: str = "trot") -> torch.Tensor:
    """Joint position targets of the open-loop ``gait`` at ``time_s`` (``default``: [num_envs, num_joints])."""
    targets = default.clone()
    for index, name in enumerate(joint_names):
        leg, part = name.split("_")[:2]
        phase = 2 * math.pi * frequency * time_s + LEG_PHASES[gait][leg]
        if part == "thigh":
            targets[:, index] -= THIGH_AMPLITUDE * math.sin(phase)
        elif part == "calf":
            targets[:, index] -= CALF_LIFT * max(0.0, math.cos(phase))
    return targets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gait", choices=sorted(LEG_PHASES), default="trot")
    parser.add_argument("--frequency", type=float, default=3.0)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--num_envs", type=int, default=4)
    parser.add_argument("--gait_std", type=float, default=None, help="the trot gait reward's kernel width [s^2] "
                        "(default: the -CPU tasks')")
    parser.add_argument("--num_substeps", type=int, default=None, help="default: the -CPU tasks'")
    args = parser.parse_args()

    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp.rewards import TROT_GAIT_TERM, trot_gait
    from locolab.envs.physics_settings import copy_physics
    from locolab.tasks.go2_velocity_cpu_env_cfg import TROT_GAIT
    from locolab.envs.mdp import DynamicsRandomizationCfg
    from locolab.envs.metrics import diagonal_contact_agreement, lateral_contact_agreement, touchdown_rate

    task = "LocoLab-Velocity-Flat-Go2"
    env_cfg, _ = load_task_cfgs(task, num_envs=args.num_envs, device="cpu", seed=0)
    copy_physics(env_cfg, load_task_cfgs(f"{task}-CPU", device="cpu")[0])  # the CPU training's physics
    env_cfg.skip_absent_passive_forces = True
    setattr(env_cfg.rewards, TROT_GAIT_TERM, trot_gait(1.0, args.gait_std or TROT_GAIT["std"]))
    env_cfg.sim.physics.num_substeps = args.num_substeps or env_cfg.sim.physics.num_substeps
    env_cfg.events.push_robot = None
    env_cfg.events.dynamics.params["ranges"] = DynamicsRandomizationCfg(
        friction=(1.0, 1.0), added_base_mass=(0.0, 0.0), base_com_offset=((0.0, 0.0),) * 3,
        motor_strength=(1.0, 1.0), kp_scale=(1.0, 1.0), kd_scale=(1.0, 1.0),
    )
    with open_env(task, env_cfg) as env, torch.inference_mode():
        unwrapped = env.unwrapped
        robot = unwrapped.scene["robot"]
        action_term = unwrapped.action_manager.get_term("joint_pos")
        env.reset()
        default = robot.data.default_joint_pos.torch.clone()
        steps = round(args.seconds / unwrapped.step_dt)
        settle = round(1.0 / unwrapped.step_dt)
        trot_reward = unwrapped.reward_manager.get_term_cfg(TROT_GAIT_TERM)
        forward, lateral, trot_gait, terminated = [], [], [], torch.zeros(args.num_envs, dtype=torch.bool)
        gait = {"touchdown_rate": [], "diagonal_contact_agreement": [], "lateral_contact_agreement": []}
        for step in range(steps):
            targets = gait_targets(robot.joint_names, default, step * unwrapped.step_dt, args.frequency, args.gait)
            actions = (targets - default) / action_term.cfg.scale
            _, _, term, _, _ = env.step(actions)
            terminated |= term
            if step >= settle:
                velocity = robot.data.root_lin_vel_b.torch
                forward.append(velocity[:, 0].mean().item())
                lateral.append(velocity[:, 1].mean().item())
                trot_gait.append(trot_reward.func(unwrapped, **trot_reward.params).mean().item())
                for name, metric in zip(gait, (touchdown_rate, diagonal_contact_agreement, lateral_contact_agreement)):
                    gait[name].append(metric(unwrapped).mean().item())
        heights = robot.data.root_pos_w.torch[:, 2]
        print(json.dumps({
            "gait": args.gait,
            "frequency": args.frequency,
            "num_substeps": env_cfg.sim.physics.num_substeps,
            "integrator": env_cfg.sim.physics.solver_cfg.integrator,
            "solver_iterations": env_cfg.sim.physics.solver_cfg.iterations,
            "forward_velocity": sum(forward) / len(forward),
            "lateral_velocity": sum(lateral) / len(lateral),
            "trot_gait_reward": sum(trot_gait) / len(trot_gait),
            "falls": int(terminated.sum()),
            "base_height_min": float(heights.min()),
            **{name: sum(values) / len(values) for name, values in gait.items()},
        }))


if __name__ == "__main__":
    main()
