"""Sim-to-sim's height scan for a sighted policy: the points where Isaac Lab's grid scanner puts them, in its order,
and the heights of a MuJoCo course under them, through the robot's own geoms."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from isaaclab.sensors.ray_caster import patterns

from locolab.eval.mujoco_height_scan import HeightScanner, grid_points
from locolab.eval.terrain_course import TerrainCourse
from locolab.export.metadata import height_scan_layout
from locolab.tasks.go2_velocity_env_cfg import LocoLabGo2RoughEnvCfg

BASE_HEIGHT = 0.4
ROBOT = f"""<mujoco><worldbody><geom name="floor" type="plane" size="20 20 0.1"/>
<body name="base" pos="0 0 {BASE_HEIGHT}"><freejoint/><geom type="box" size="0.3 0.15 0.05"/>
<body name="leg" pos="0.2 0.1 -0.2"><geom type="capsule" size="0.02 0.15"/></body></body></worldbody></mujoco>"""
"""A base box over a leg, both in the rays' way (Isaac Lab's scanner sees the terrain alone)."""


def layout() -> dict:
    return height_scan_layout(LocoLabGo2RoughEnvCfg().scene.height_scanner)


def test_the_points_are_isaac_labs_grid_in_its_order():
    cfg = LocoLabGo2RoughEnvCfg().scene.height_scanner
    starts, _ = patterns.grid_pattern(cfg.pattern_cfg, "cpu")
    described = layout()
    assert (described["points_x"], described["points_y"], described["size"]) == (17, 11, 187)
    assert np.allclose(grid_points(described), starts[:, :2].numpy(), atol=1e-6)


@pytest.mark.parametrize("yaw", [0.0, math.pi / 2, 2.5])
def test_the_scan_reads_the_course_under_each_point_through_the_robot(yaw):
    course = TerrainCourse("stairs", step_height=0.1, steps=5)
    spec = mujoco.MjSpec.from_string(ROBOT)
    course.add_to(spec)
    model = spec.compile()
    data = mujoco.MjData(model)
    data.qpos[:3] = (1.05, 0.02, BASE_HEIGHT)  # the grid spans flat ground and the first steps
    data.qpos[3:7] = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
    mujoco.mj_forward(model, data)
    base = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "base")
    scan = HeightScanner(model, layout(), base)(data)
    points = grid_points(layout())
    world_x = 1.05 + math.cos(yaw) * points[:, 0] - math.sin(yaw) * points[:, 1]
    expected = BASE_HEIGHT - course.height(world_x) - 0.5
    assert scan.shape == (187,) and scan.dtype == np.float32
    assert np.allclose(scan, expected, atol=1e-5)
    assert len(np.unique(np.round(expected, 3))) > 1  # the grid does span several heights
