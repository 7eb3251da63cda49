"""Builds the flat task with the robustness curriculum and reports how the level scales dynamics and pushes and how
tracking moves it; prints one JSON line."""

from __future__ import annotations

import json

import torch


def main() -> None:
    from isaaclab.managers import CurriculumTermCfg

    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp import robustness_curriculum

    task = "LocoLab-Velocity-Flat-Go2"
    env_cfg, _ = load_task_cfgs(task, num_envs=16, device="cpu", seed=0)
    env_cfg.curriculum.robustness = CurriculumTermCfg(func=robustness_curriculum, params={"step": 0.25})
    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        env.reset()
        term = unwrapped.curriculum_manager._term_cfgs[unwrapped.curriculum_manager.active_terms.index("robustness")]
        curriculum = term.func
        dynamics = unwrapped.event_manager.get_term_cfg("dynamics").func
        push = unwrapped.event_manager.get_term_cfg("push_robot")
        middle = (dynamics.low + dynamics.high) / 2
        report = {"initial_level": curriculum.level,
                  "initial_spread": float((dynamics.values - middle).abs().max()),
                  "initial_push": push.params["velocity_range"]}
        all_envs = torch.arange(16)
        manager = unwrapped.reward_manager
        weight = manager.get_term_cfg("track_lin_vel_xy_exp").weight
        unwrapped.episode_length_buf[:] = 500
        seconds = 500 * unwrapped.step_dt
        levels = []
        for fraction in (0.9, 0.9, 0.2, 0.5):  # good, good, bad, in between
            manager._episode_sums["track_lin_vel_xy_exp"][:] = fraction * weight * seconds
            levels.append(float(curriculum(unwrapped, all_envs, step=0.25)))
        report["levels"] = levels
        report["push_at_level"] = push.params["velocity_range"]
        unwrapped.event_manager.apply(mode="reset", env_ids=all_envs, global_env_step_count=0)
        span = (dynamics.high - dynamics.low) / 2
        continuous = ~dynamics._integer  # the delay draws whole physics steps: rounding widens its spread
        report["relative_spread_at_level"] = float(((dynamics.values - middle).abs() / span.clamp_min(1e-9))[
            :, continuous].max())
        print(json.dumps(report))


if __name__ == "__main__":
    main()
