"""Play a trained LocoLab policy headless: deterministic actions, tracking metrics, and an optional MP4 of env 0.

    python scripts/play.py --run logs/locolab_go2_flat/<run> --device cpu --num_envs 8 --steps 500 --video

Runs the policy's mean action under ``torch.inference_mode``. Prints one line per episode (return, velocity-tracking
errors, how it ended) and, last, one JSON summary line. Episodes still running when --steps ends are counted too
(marked "cut"), so a policy that never falls still gets numbers.

--command VX VY WZ fixes the velocity command of every environment (no resampling, no heading control, no standing
envs): the summary's mean_base_velocity (vx, vy, wz in the base frame, over every env and step), mean_forward_velocity
and mean_speed say what the robot did under it, beside the tracking errors and falls.

--dynamics NAME=VALUE ... holds randomised parameters in every environment, now and over resets (a payload of 2.5 kg
carried 0.1 m ahead of the base's centre of mass: added_base_mass=2.5 base_com_x=0.1). The summary's fallen_robots
names each fall's environment and the friction, payload, centre-of-mass shift and motor strength its robot had.

--observation_noise keeps the policy observations' noise on, as in training (the -Play tasks turn it off): a gait
that only the training's noise keeps up walks slower without it (locolab.envs.observation_noise). The summary's
noisy_observations names the terms the environment corrupted.

The summary's action_percentiles gives each action's 2.5th and 97.5th percentile over every step and env, in the
policy's joint order: the range a walking policy uses, which SAC can take as its bounds (agent.actor.action_bounds).

PPO-ROA checkpoints are recognised: --policy student (the default for a finetune checkpoint) runs actor_adapt on
adapt_ema's estimate from the proprioceptive history, what ships to a robot; --policy teacher (the default for a
train checkpoint) runs the privileged actor.

Video: env 0's state is drawn each step with MuJoCo's offscreen renderer on the robot's generated MJCF (Isaac
Lab's renderers need Kit and an RTX GPU; see locolab.render). The MJCF has a flat floor only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT_TASK = "LocoLab-Velocity-Flat-Go2-Play"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default=DEFAULT_TASK, help=f"gymnasium task id (default {DEFAULT_TASK}); a "
                        "training task id is replaced by its -Play variant when one is registered")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--checkpoint", default=None, help="a model_<it>.pt file")
    source.add_argument("--run", default=None, help="a run directory: its latest model_<it>.pt")
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N for simulator AND policy (default: cuda "
                        "if available, else cpu)")
    parser.add_argument("--policy", choices=("teacher", "student"), default=None, help="PPO-ROA checkpoints: which "
                        "actor plays (default: the one that acted in the checkpoint's phase)")
    parser.add_argument("--num_envs", type=int, default=None, help="default: the task's (32 for -Play tasks)")
    parser.add_argument("--steps", type=int, default=500, help="environment steps to run (default 500)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--video", action="store_true", help="record env 0 as an MP4")
    parser.add_argument("--video_length", type=int, default=200, help="frames to record, one per step (default 200); "
                        "the run is extended to at least this many steps")
    parser.add_argument("--video_path", default=None, help="default: <checkpoint dir>/videos/play_<iteration>.mp4")
    parser.add_argument("--dynamics", nargs="+", default=[], metavar="NAME=VALUE",
                        help="hold randomised parameters in every env, e.g. added_base_mass=2.5 base_com_x=0.1 "
                             "(friction, added_base_mass [kg], base_com_x/y/z [m], motor_strength, kp_scale, kd_scale, "
                             "contact_time_constant [s])")
    parser.add_argument("--observation_noise", action="store_true", help="keep the policy observations' noise on, "
                        "as in training (the -Play tasks turn it off)")
    parser.add_argument("--command", nargs="+", default=None, metavar="V", help="VX VY WZ: a fixed velocity command "
                        "(m/s, m/s, rad/s) in every environment, never resampled (default: the task's sampling)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for name in ("steps", "video_length"):
        if getattr(args, name) < 1:
            print(f"error: --{name} must be at least 1, got {getattr(args, name)}.", file=sys.stderr)
            return 2
    if args.video:
        # chooses MUJOCO_GL (osmesa/egl); must precede the environment, whose physics imports mujoco
        from locolab.render import MujocoVideoRecorder

    from locolab.envs import (
        MissingAssetError,
        fix_velocity_command,
        keep_observation_noise,
        load_task_cfgs,
        noisy_observation_terms,
        open_env,
        parse_velocity_command,
        play_variant,
    )
    from locolab.envs.mdp import hold_dynamics, parse_held_dynamics
    from locolab.runners import (
        CheckpointError,
        checkpoint_policy,
        latest_checkpoint,
        read_checkpoint,
        resolve_checkpoint,
    )
    from locolab.runners.build import load_policy
    from locolab.tasks import AGENT_ENTRY_POINTS

    task = play_variant(args.task)
    if task != args.task:
        print(f"[LocoLab] Playing {task} (the play variant of {args.task})")
    try:
        checkpoint = resolve_checkpoint(args.checkpoint) if args.checkpoint else latest_checkpoint(args.run)
        saved = read_checkpoint(checkpoint)  # fail before the environment is built
        agent, phase, policy_name = checkpoint_policy(saved, args.policy)
        command = parse_velocity_command(args.command) if args.command is not None else None
        held = parse_held_dynamics(args.dynamics)
        env_cfg, agent_cfg = load_task_cfgs(task, AGENT_ENTRY_POINTS[(agent, phase)], num_envs=args.num_envs,
                                            device=args.device, seed=args.seed)
        if command is not None:
            fix_velocity_command(env_cfg, command)
        if args.observation_noise:
            keep_observation_noise(env_cfg)
    except (ValueError, CheckpointError, MissingAssetError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    iteration = saved["iter"]
    checkpoint = checkpoint.resolve()
    video_path = None
    if args.video:
        video_path = Path(args.video_path or checkpoint.parent / "videos" / f"play_{iteration}.mp4").resolve()
    total_steps = max(args.steps, args.video_length) if args.video else args.steps

    from locolab.assets import ensure_robot_files
    from locolab.eval.evaluate import evaluate_policy, play_summary
    from locolab.envs.metrics import DYNAMICS_METRICS

    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        try:
            runner, policy = load_policy(env, agent_cfg, checkpoint, policy_name)
            if held:
                hold_dynamics(unwrapped, held)  # a value the simulator cannot take is a ValueError
        except (CheckpointError, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        num_envs = unwrapped.num_envs
        print(f"[LocoLab] Playing {checkpoint} (iteration {iteration}, {agent} {policy_name}) on {task}, "
              f"{agent_cfg.device}, {num_envs} envs, {total_steps} steps")
        capture = None
        if video_path is not None:
            recorder = MujocoVideoRecorder(ensure_robot_files().mjcf, fps=1.0 / unwrapped.step_dt)

            def capture() -> None:
                if len(recorder.frames) < args.video_length:
                    recorder.capture(unwrapped, env_id=0)
                    if len(recorder.frames) == args.video_length:
                        recorder.save(video_path)
                        recorder.close()
                        print(f"[LocoLab] Video: {video_path} ({args.video_length} frames)")

        evaluation = evaluate_policy(runner.env, policy, total_steps, alg=runner.alg, log_episodes=True,
                                     record_steps=True, before_step=capture)
        noisy_observations = noisy_observation_terms(env)
    summary = play_summary(evaluation, total_steps)
    for number, episode in enumerate(evaluation.episodes(), start=1):
        end = "cut" if episode["cut"] else "fall" if episode["fall"] else "time_out" if episode["time_out"] \
            else "terminated"
        robot = "".join(f", {name} {episode[name]:.3f}" for name in DYNAMICS_METRICS if name in episode)
        print(f"[LocoLab] episode {number} (env {int(episode['env'])}): {int(episode['length'])} steps, return "
              f"{episode['return']:.3f}, lin_vel_error {episode['lin_vel_error']:.3f} m/s, ang_vel_error "
              f"{episode['ang_vel_error']:.3f} rad/s, end: {end}{robot}")
    summary.update({
        "command": list(command) if command is not None else None,
        "dynamics": held,
        "noisy_observations": noisy_observations,
        "num_envs": num_envs,
        "task": task,
        "agent": agent,
        "policy": policy_name,
        "checkpoint": str(checkpoint),
        "video": str(video_path) if video_path is not None else None,
    })
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
