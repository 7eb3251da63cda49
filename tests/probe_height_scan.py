"""Where the height scanner's rays hit the rough task's ground against the heightfield the physics collides; prints one
JSON line.

Robots reset 1-3 m off their tiles' centres on every difficulty (where the scan's 1.6 x 1.0 m grid covers stair
edges, box sides and slopes, not only the flat platforms) and take one step; each ray's hit height is compared with the
Newton heightfield (:func:`locolab.render.terrain.newton_terrain`, the field MuJoCo collides) interpolated at the hit's
x, y. ``--shift`` moves the heightfield's sampling point by that many metres along x (a planted misalignment).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

TASK = "LocoLab-Velocity-Rough-Go2-CPU"


def field_height(terrain, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear height of a :class:`~locolab.render.terrain.TerrainHeights` at world points (rows along y)."""
    nrow, ncol = terrain.heights.shape
    fx = (x - terrain.center[0] + terrain.half_x) / (2 * terrain.half_x) * (ncol - 1)
    fy = (y - terrain.center[1] + terrain.half_y) / (2 * terrain.half_y) * (nrow - 1)
    i, j = np.clip(np.floor(fy).astype(int), 0, nrow - 2), np.clip(np.floor(fx).astype(int), 0, ncol - 2)
    ty, tx = fy - i, fx - j
    h = terrain.heights
    return ((h[i, j] * (1 - tx) + h[i, j + 1] * tx) * (1 - ty) + (h[i + 1, j] * (1 - tx) + h[i + 1, j + 1] * tx) * ty)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_envs", type=int, default=32)
    parser.add_argument("--shift", type=float, default=0.0)
    args = parser.parse_args()

    from isaaclab_newton.physics.newton_manager import NewtonManager

    from locolab.envs import load_task_cfgs, open_env
    from locolab.render.terrain import newton_terrain

    env_cfg, _ = load_task_cfgs(TASK, num_envs=args.num_envs, device="cpu", seed=0)
    env_cfg.sim_processes = 1
    env_cfg.scene.terrain.max_init_terrain_level = env_cfg.scene.terrain.terrain_generator.num_rows - 1
    env_cfg.events.reset_base.params["pose_range"] = {"x": (1.0, 3.0), "y": (-3.0, 3.0), "yaw": (-3.14, 3.14)}
    with open_env(TASK, env_cfg) as env:
        unwrapped = env.unwrapped
        env.reset()
        env.step(torch.zeros(args.num_envs, unwrapped.action_manager.total_action_dim))
        hits = unwrapped.scene.sensors["height_scanner"].data.ray_hits_w.torch.numpy().reshape(-1, 3)
        terrain = newton_terrain(NewtonManager.get_model())
    missed = ~np.isfinite(hits).all(axis=1)
    hits = hits[~missed]
    error = np.abs(hits[:, 2] - field_height(terrain, hits[:, 0] + args.shift, hits[:, 1]))
    print(json.dumps({"rays": len(hits), "missed": int(missed.sum()), "median_error": float(np.median(error)),
                      "p95_error": float(np.percentile(error, 95)), "over_3cm": float((error > 0.03).mean()),
                      "height_span": float(np.ptp(hits[:, 2])),
                      "cell": 2 * terrain.half_x / (terrain.heights.shape[1] - 1)}))


if __name__ == "__main__":
    main()
