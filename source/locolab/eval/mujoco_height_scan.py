"""The height scan in a MuJoCo scene: Isaac Lab's yaw-aligned grid ray caster (``RayCasterCfg`` with a
``GridPatternCfg``), as sim-to-sim gives it to a policy that reads the terrain (``policy.json``'s ``height_scan``).

Isaac Lab's scanner casts from 20 m above the base straight down onto the terrain alone; here the rays pass through
the robot's own geoms (anything not on MuJoCo's world body) the same way. Torch-free, like the rest of sim-to-sim.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

CAST_HEIGHT = 20.0
"""Height of the rays' start above the base [m] (Isaac Lab's ``height_scanner`` offset)."""
SCAN_OFFSET = 0.5
"""What Isaac Lab's ``height_scan`` term subtracts from the scanner-to-ground distance [m]."""
DOWN = np.array([0.0, 0.0, -1.0])


def grid_points(layout: dict) -> np.ndarray:
    """The ``(size, 2)`` base-frame (x, y) of each point of a ``policy.json`` ``height_scan`` layout, in order."""
    index = np.arange(layout["size"])
    resolution = layout["resolution_m"]
    offset_x, offset_y = layout.get("offset_xy_m", (0.0, 0.0))
    x = -layout["length_x_m"] / 2 + (index % layout["points_x"]) * resolution + offset_x
    y = -layout["width_y_m"] / 2 + (index // layout["points_x"]) * resolution + offset_y
    return np.stack([x, y], axis=1)


class HeightScanner:
    """``scanner(data)``: the height scan of the robot whose base is body ``base``, laid as ``layout`` says."""

    def __init__(self, model: mujoco.MjModel, layout: dict, base: int) -> None:
        self.model, self.base = model, base
        self.points = grid_points(layout)

    def __call__(self, data: mujoco.MjData) -> np.ndarray:
        rotation = data.xmat[self.base].reshape(3, 3)
        yaw = math.atan2(rotation[1, 0], rotation[0, 0])
        cos, sin = math.cos(yaw), math.sin(yaw)
        base = data.xpos[self.base]
        xs = base[0] + cos * self.points[:, 0] - sin * self.points[:, 1]
        ys = base[1] + sin * self.points[:, 0] + cos * self.points[:, 1]
        depth = np.array([ground_depth(self.model, data, (x, y, base[2] + CAST_HEIGHT))
                          for x, y in zip(xs, ys)])
        return (depth - CAST_HEIGHT - SCAN_OFFSET).astype(np.float32)


def ground_depth(model: mujoco.MjModel, data: mujoco.MjData, point) -> float:
    """Distance from ``point`` (x, y, z) straight down to the first geom of MuJoCo's world body, through any other
    body's (the robot's); inf if none."""
    geom = np.zeros(1, dtype=np.int32)
    start, travelled = np.array(point, dtype=float), 0.0
    for _ in range(model.ngeom):
        distance = mujoco.mj_ray(model, data, start, DOWN, None, 1, -1, geom)
        if distance < 0:
            return math.inf
        if model.geom_bodyid[geom[0]] == 0:
            return travelled + distance
        step = distance + 1e-6  # a robot geom: go on from just below where the ray met it
        travelled += step
        start[2] -= step
    return math.inf
