"""Scripted motions on the terrain sweep's tiles, measured by the sweep's own rule; prints one JSON line.

Each tile's four robots: the first is carried 3.5 m from the centre, the second 2 m, the third is turned upside down
and dropped on its back (a base contact: a fall), the fourth stands. The line has each robot's farthest distance in its
first episode, whether it fell, whether it stopped, and the sweep's per-tile rows.
"""

from __future__ import annotations

import json

import torch

TASK = "LocoLab-Velocity-Rough-Go2-Play"
CARRIED = {0: 3.5, 1: 2.0}
KNOCKED, KNOCK_STEP, CARRY_SECONDS = 2, 50, 3.0


def main() -> None:
    from locolab.envs import load_task_cfgs, open_env
    from locolab.eval.evaluate import evaluate_policy
    from locolab.eval.terrain_sweep import (DistanceTracker, episode_outcomes, plan_tiles, prepare_terrain_env_cfg,
                                            tile_rows)
    from locolab.runners.build import wrap_for_agent

    tiles = plan_tiles(["rough", "boxes"], robots=4)
    env_cfg, agent_cfg = load_task_cfgs(TASK, device="cpu", seed=0)
    prepare_terrain_env_cfg(env_cfg, tiles)
    env_cfg.episode_length_s = 4.0
    with open_env(TASK, env_cfg) as env:
        unwrapped = env.unwrapped
        vec_env = wrap_for_agent(env, agent_cfg)
        robot, origins = unwrapped.scene["robot"], unwrapped.scene.env_origins
        role = torch.arange(unwrapped.num_envs) % 4
        tracker, step = DistanceTracker(unwrapped), 0

        def script() -> None:
            nonlocal step
            tracker()
            share = min(step * unwrapped.step_dt / CARRY_SECONDS, 1.0)
            for kind, distance in CARRIED.items():
                ids = torch.nonzero(role == kind).squeeze(1)
                pose = torch.zeros(len(ids), 7)
                pose[:, :3] = origins[ids] + torch.tensor([share * distance, 0.0, 0.55])
                pose[:, 6] = 1.0  # (x, y, z, w): upright
                robot.write_root_pose_to_sim_index(root_pose=pose, env_ids=ids)
                robot.write_root_velocity_to_sim_index(root_velocity=torch.zeros(len(ids), 6), env_ids=ids)
            if step == KNOCK_STEP:
                ids = torch.nonzero(role == KNOCKED).squeeze(1)
                pose = torch.zeros(len(ids), 7)
                pose[:, :3] = origins[ids] + torch.tensor([0.0, 0.0, 0.3])
                pose[:, 3] = 1.0  # (x, y, z, w): upside down, to land on its back whatever the ground under it
                robot.write_root_pose_to_sim_index(root_pose=pose, env_ids=ids)
            step += 1

        steps = int(unwrapped.max_episode_length)
        evaluation = evaluate_policy(vec_env, lambda obs: torch.zeros(unwrapped.num_envs, vec_env.num_actions), steps,
                                     seed=0, episodes_per_env=1, log_episodes=True, before_step=script)
        lengths, fell = episode_outcomes(evaluation.episodes(), unwrapped.num_envs, unwrapped.device)
        farthest = tracker.first_episode(lengths)
        stopped, peak_speed = tracker.stopped(lengths, fell), tracker.peak_speed(lengths)
        tracker.positions = tracker.positions[1:]  # from the first carried pose: the spawn pose is teleported from
        carried = tracker.peak_speed(lengths - 1)
        print(json.dumps({"role": role.tolist(), "farthest": farthest.tolist(), "fell": fell.tolist(),
                          "stopped": stopped.tolist(), "peak_speed_carried": carried.tolist(),
                          "rows": tile_rows(tiles, farthest, fell, stopped, peak_speed, "scripted")}))


if __name__ == "__main__":
    main()
