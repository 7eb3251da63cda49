"""The CPU rough task's terrain curriculum under scripted motions; prints one JSON line.

Eight robots start on level 5 (or lower, Isaac Lab draws up to it); the first four are carried 5 m from their tile's
centre, the last four stand still under a 1 m/s command. After their 2 s episodes time out, the line has each
robot's level before and after, and the curriculum's logged levels (mean and by type).
"""

from __future__ import annotations

import json

import torch

TASK = "LocoLab-Velocity-Rough-Go2-CPU"


def main() -> None:
    from locolab.envs import load_task_cfgs, open_env

    env_cfg, _ = load_task_cfgs(TASK, num_envs=8, device="cpu", seed=0)
    env_cfg.sim_processes = 1
    env_cfg.episode_length_s = 2.0
    env_cfg.scene.terrain.max_init_terrain_level = 5
    env_cfg.commands.base_velocity.ranges.lin_vel_x = (1.0, 1.0)
    env_cfg.commands.base_velocity.ranges.lin_vel_y = (0.0, 0.0)
    env_cfg.commands.base_velocity.rel_standing_envs = 0.0
    env_cfg.commands.base_velocity.rel_turn_in_place_envs = 0.0
    env_cfg.events.push_robot = None
    with open_env(TASK, env_cfg) as env:
        unwrapped = env.unwrapped
        env.reset()
        terrain, robot = unwrapped.scene.terrain, unwrapped.scene["robot"]
        before = terrain.terrain_levels.tolist()
        carried = torch.arange(4)
        actions = torch.zeros(8, unwrapped.action_manager.total_action_dim)
        logged = {}
        for step in range(int(unwrapped.max_episode_length)):
            share = min(step * unwrapped.step_dt / 1.5, 1.0)
            pose = torch.zeros(4, 7)
            pose[:, :3] = unwrapped.scene.env_origins[carried] + torch.tensor([5.0 * share, 0.0, 2.5])  # clear of any slope or stair
            pose[:, 6] = 1.0
            robot.write_root_pose_to_sim_index(root_pose=pose, env_ids=carried)
            robot.write_root_velocity_to_sim_index(root_velocity=torch.zeros(4, 6), env_ids=carried)
            _, _, _, truncated, extras = env.step(actions)
            logged.update({key: float(value) for key, value in extras.get("log", {}).items()
                           if key.startswith("Curriculum/terrain_levels")})
        print(json.dumps({"before": before, "after": terrain.terrain_levels.tolist(), "logged": logged,
                          "time_outs": int(truncated.sum())}))


if __name__ == "__main__":
    main()
