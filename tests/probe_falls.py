"""Each robot's last second before its first fall on one terrain-sweep tile, for one checkpoint; prints JSON lines.

Why policies that read the height scan fall on stairs down where blind PPO walks: the sweep's robots (its tile, its
forward command, its seed, the mid-range robot) are played and, before every action, each robot's base position,
gravity in the base frame, body velocity, which bodies touch the ground, the action and which joints' torques the motor
model clipped are kept. One line per fallen robot: where it fell (distance from the centre, and on a staircase which
step and how far into its tread), its speed, pitch and roll, feet on the ground, action size and clipped joints over
its last second, and the bodies touching at its last step; then one summary line (falls, crossings, medians, and how
pitched, how fast and how clipped the fallen and the walking robots went over the steps).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import torch

LAST_SECOND = 50  # steps at 50 Hz
CLIPPED = 1.0  # [N m] a joint's torque counts as clipped this far short of the PD law's


def tilt_degrees(gravity_b: torch.Tensor) -> torch.Tensor:
    """The tilts [deg] whose sines are gravity's components in the base frame (x: nose down, y: rolled)."""
    return torch.rad2deg(torch.asin(gravity_b.clamp(-1.0, 1.0)))


def ring_distance(pos: torch.Tensor, origins: torch.Tensor) -> torch.Tensor:
    """Distance from the tile's centre along the farther axis: a pyramid's steps are square rings."""
    return (pos[..., :2] - origins[:, :2]).abs().amax(dim=-1)


def median_of(values: torch.Tensor, digits: int) -> float:
    """The median of the values that are not NaN (NaN when none is), rounded."""
    return round(values.nanmedian().item(), digits)


def clipped_share(clip: torch.Tensor, mask: torch.Tensor, joints: list[str]) -> dict[str, float]:
    """Each joint's share of the masked [steps, robots] samples with its torque clipped (shares of 5 % or more)."""
    shares = clip[mask].mean(0).tolist() if mask.any() else []
    return {joint: round(share, 2) for joint, share in zip(joints, shares) if share >= 0.05}


def flight_steps(ring: torch.Tensor, lengths: torch.Tensor, sub_terrain, reach: float) -> torch.Tensor:
    """[steps, robots]: the first episode's steps a robot spent over the flight of steps (off the platform, inside
    ``reach`` of the centre); every step of the first episode on a tile without steps."""
    steps = torch.arange(len(ring)).unsqueeze(1)
    inside = steps < lengths.unsqueeze(0)
    if sub_terrain is None or not hasattr(sub_terrain, "step_width"):
        return inside
    return inside & (ring > sub_terrain.platform_width / 2 + 0.1) & (ring < reach)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--tile", default="stairs_down")
    parser.add_argument("--value", type=float, default=0.1)
    parser.add_argument("--robots", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policy", default=None)
    args = parser.parse_args()

    from locolab.envs import load_task_cfgs, open_env
    from locolab.eval.evaluate import evaluate_policy
    from locolab.eval.policy import checkpoint_cfgs
    from locolab.eval.robustness import policies_to_evaluate
    from locolab.eval.sweeps import DYNAMICS_EVENT
    from locolab.eval.terrain_sweep import (SUCCESS_DISTANCE, TERRAIN_TYPES, DistanceTracker, crossed,
                                            episode_outcomes, plan_tiles, prepare_terrain_env_cfg)
    from locolab.runners.build import load_policy

    tiles = plan_tiles([args.tile], robots=args.robots, values={args.tile: (args.value,)})
    task, chosen = policies_to_evaluate([args.checkpoint], args.policy)
    choice = chosen[0]
    env_cfg, _ = load_task_cfgs(task, device="cpu", seed=args.seed)
    sub_terrain = env_cfg.scene.terrain.terrain_generator.sub_terrains.get(TERRAIN_TYPES[args.tile][0])
    prepare_terrain_env_cfg(env_cfg, tiles)
    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        _, agent_cfg = checkpoint_cfgs(task, choice.agent, choice.phase, "cpu")
        runner, actor = load_policy(env, agent_cfg, choice.checkpoint, choice.policy)
        unwrapped.event_manager.get_term_cfg(DYNAMICS_EVENT).func.range_scale = 0.0
        robot, sensor = unwrapped.scene["robot"], unwrapped.scene["contact_forces"]
        names = list(sensor.sensor_names)
        tracker, kept = DistanceTracker(unwrapped), {k: [] for k in ("pos", "grav", "vel", "touch", "action", "clip")}

        def before_step() -> None:
            tracker()
            kept["pos"].append(robot.data.root_pos_w.torch.clone())
            kept["grav"].append(robot.data.projected_gravity_b.torch.clone())
            kept["vel"].append(robot.data.root_lin_vel_b.torch.clone())
            kept["touch"].append(torch.linalg.norm(sensor.data.net_forces_w.torch, dim=-1) > 1.0)
            # the motor model's torque short of what the PD law asked: the torque-speed curve or the effort limit
            kept["clip"].append((robot.data.computed_torque.torch - robot.data.applied_torque.torch).abs() > CLIPPED)

        def act(obs):
            action = actor(obs)
            kept["action"].append(torch.linalg.norm(action, dim=1).clone())
            return action

        evaluation = evaluate_policy(runner.env, act, int(unwrapped.max_episode_length), alg=runner.alg,
                                     seed=args.seed, episodes_per_env=1, log_episodes=True, before_step=before_step)
        lengths, fell = episode_outcomes(evaluation.episodes(), unwrapped.num_envs, unwrapped.device)
        farthest = tracker.first_episode(lengths)
        origins = unwrapped.scene.env_origins
    pos, grav, vel = (torch.stack(kept[k]) for k in ("pos", "grav", "vel"))
    touch, action, clip = torch.stack(kept["touch"]), torch.stack(kept["action"]), torch.stack(kept["clip"]).float()
    tilt, ring = tilt_degrees(grav), ring_distance(pos, origins)  # [steps, robots, 3], [steps, robots]
    joints = list(robot.joint_names)
    feet = [i for i, name in enumerate(names) if name.endswith("_foot")]
    rows = []
    for env_id in torch.nonzero(fell).squeeze(1).tolist():
        last = int(lengths[env_id]) - 1
        window = slice(max(last - LAST_SECOND + 1, 0), last + 1)
        offset = (pos[last, env_id] - origins[env_id]).tolist()
        box_distance = ring[last, env_id].item()
        nose_down = tilt[window, env_id, 0]
        row = {"env": env_id, "time_s": round((last + 1) * unwrapped.step_dt, 2),
               "distance_m": round(math.hypot(offset[0], offset[1]), 2), "ring_distance_m": round(box_distance, 2),
               "height_m": round(offset[2], 3),
               "speed_x_mean_last_s": round(vel[window, env_id, 0].mean().item(), 2),
               "speed_x_max_last_s": round(vel[window, env_id, 0].max().item(), 2),
               "nose_down_deg_last_s": [round(v, 1) for v in nose_down[::10].tolist() + [nose_down[-1].item()]],
               "roll_deg_end": round(tilt[last, env_id, 1].item(), 1),
               "feet_down_mean_last_s": round(touch[window, env_id][:, feet].float().sum(1).mean().item(), 2),
               "action_norm_mean_last_s": round(action[window, env_id].mean().item(), 2),
               "clipped_share_last_s": {joints[j]: round(share, 2) for j, share in
                                        enumerate(clip[window, env_id].mean(0).tolist()) if share >= 0.1},
               "touching_end": [names[i] for i in torch.nonzero(touch[last, env_id]).squeeze(1).tolist()
                                if i not in feet]}
        if sub_terrain is not None and hasattr(sub_terrain, "step_width"):
            into = box_distance - sub_terrain.platform_width / 2
            row["step"], row["into_tread"] = math.floor(into / sub_terrain.step_width) + 1, round(
                (into % sub_terrain.step_width) / sub_terrain.step_width, 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    success = crossed(farthest, fell)
    on_steps = flight_steps(ring, lengths, sub_terrain, SUCCESS_DISTANCE)
    nose_down, speed = (torch.where(on_steps, values, torch.nan).nanmedian(dim=0).values
                        for values in (tilt[..., 0], vel[..., 0]))
    groups = {"fell": fell, "walked": ~fell}
    median = (lambda key: sorted(r[key] for r in rows)[len(rows) // 2] if rows else None)
    print(json.dumps({"checkpoint": str(args.checkpoint), "tile": args.tile, "value": args.value, "robots": args.robots,
                      "fell": len(rows), "crossed": int(success.sum()), "median_fall_distance_m": median("distance_m"),
                      "median_speed_last_s": median("speed_x_mean_last_s"),
                      **{f"on_the_steps_{name}": {"robots": int((chosen & on_steps.any(0)).sum()),
                                                   "median_nose_down_deg": median_of(nose_down[chosen], 1),
                                                   "median_speed_x": median_of(speed[chosen], 2),
                                                   "clipped_share": clipped_share(clip, on_steps & chosen, joints)}
                         for name, chosen in groups.items()},
                      "step_width": getattr(sub_terrain, "step_width", None),
                      "platform_width": getattr(sub_terrain, "platform_width", None)}), flush=True)


if __name__ == "__main__":
    main()
