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
names each fall's environment and the friction, payload, centre-of-mass shift and motor strength its robot had;
dynamics_read_back gives each held parameter as the physics steps with it at the end (from the solver's own model).

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
    from locolab.envs import MissingAssetError
    from locolab.eval.play import play
    from locolab.runners import CheckpointError

    try:
        summary = play(args.task, checkpoint=args.checkpoint, run=args.run, device=args.device, policy=args.policy,
                       num_envs=args.num_envs, steps=args.steps, seed=args.seed,
                       video_length=args.video_length if args.video else None, video_path=args.video_path,
                       dynamics=args.dynamics, observation_noise=args.observation_noise, command=args.command)
    except (ValueError, CheckpointError, MissingAssetError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
