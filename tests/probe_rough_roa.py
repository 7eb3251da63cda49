"""The PPO-ROA pair on the rough CPU task, built as training builds it; prints one JSON line.

Robots stand on tiles of every level. The line says where the height scan sits in the teacher's privileged input,
how much the teacher's latent and the student's estimate move when the scan alone is replaced by a flat ground's,
and which observation groups the student reads.
"""

from __future__ import annotations

import json

import torch

TASK = "LocoLab-Velocity-Rough-Go2-Roa-CPU"


def main() -> None:
    from locolab.envs import load_task_cfgs, open_env
    from locolab.runners.build import build_runner

    env_cfg, agent_cfg = load_task_cfgs(TASK, "rsl_rl_roa_cfg_entry_point", num_envs=8, device="cpu", seed=0)
    env_cfg.sim_processes = 1
    env_cfg.scene.terrain.max_init_terrain_level = env_cfg.scene.terrain.terrain_generator.num_rows - 1
    with open_env(TASK, env_cfg) as env:
        runner = build_runner(env, agent_cfg, log_dir=None)
        manager = env.unwrapped.observation_manager
        terms, dims = manager.active_terms["priv"], [dim[0] for dim in manager.group_obs_term_dim["priv"]]
        start = sum(dims[:terms.index("height_scan")])
        scan = slice(start, start + dims[terms.index("height_scan")])
        for _ in range(25):  # the robots settle on their tiles
            obs, *_ = runner.env.step(torch.zeros(8, env.unwrapped.action_manager.total_action_dim))
        alg = runner.alg
        flat = obs.clone()
        flat["priv"][:, scan] = obs["priv"][:, scan].amax()  # every ray at the same height: level ground
        with torch.no_grad():
            z, z_flat = alg.encoder_priv(obs), alg.encoder_priv(flat)
            z_hat, z_hat_flat = alg.adapt_ema(obs), alg.adapt_ema(flat)
        print(json.dumps({
            "priv_terms": terms, "scan_columns": [scan.start, scan.stop],
            "scan_spread": float(obs["priv"][:, scan].std(dim=1).max()),
            "latent_change": float((z - z_flat).abs().max()),
            "student_estimate_change": float((z_hat - z_hat_flat).abs().max()),
            "student_groups": sorted(set(alg.adapt_ema.obs_groups) | set(alg.actor_adapt.obs_groups)),
            "policy_dim": int(obs["policy"].shape[1]),
        }))


if __name__ == "__main__":
    main()
