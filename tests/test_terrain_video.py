"""Videos draw the ground the robot walked on (:mod:`locolab.render.terrain`): the simulation's heightfield, read from
a Newton model, and sim-to-sim courses, read back from the model the recorder draws (the drawing itself needs an
OpenGL context chosen before MuJoCo's first import: test_play's video runs it in a process of its own)."""

from __future__ import annotations

import numpy as np
import pytest

from locolab.assets import ensure_robot_files
from locolab.render.terrain import TerrainHeights, model_with_ground, newton_terrain
from locolab.eval.terrain_course import TerrainCourse, read_heights

ROWS, COLS, HALF_X, HALF_Y = 5, 9, 2.0, 1.0


def bumpy() -> np.ndarray:
    """Heights [m] with a ridge along x, rows along y."""
    columns = np.linspace(-HALF_X, HALF_X, COLS)
    return np.tile(0.2 * np.sin(columns), (ROWS, 1)) + np.linspace(0.0, 0.1, ROWS)[:, None]


def test_the_newton_heightfield_is_drawn_where_the_physics_has_it():
    import newton
    import warp as wp

    builder = newton.ModelBuilder()
    field = newton.Heightfield(bumpy(), ROWS, COLS, hx=HALF_X, hy=HALF_Y)
    builder.add_shape_heightfield(heightfield=field, xform=wp.transform((1.0, -2.0, 0.3), wp.quat_identity()))
    terrain = newton_terrain(builder.finalize(device="cpu"))
    np.testing.assert_allclose(terrain.heights, bumpy() + 0.3, atol=1e-5)
    assert (terrain.half_x, terrain.half_y, terrain.center) == (HALF_X, HALF_Y, (1.0, -2.0))
    model = model_with_ground(ensure_robot_files().mjcf, terrain)
    middle_row = ROWS // 2  # y = -2.0, the field's centre line
    xs = 1.0 + np.linspace(-HALF_X, HALF_X, COLS)[1:-1]
    drawn = read_heights(model, xs, y=-2.0)
    np.testing.assert_allclose(drawn, terrain.heights[middle_row, 1:-1], atol=1e-4)
    assert model.geom("floor").pos[2] < terrain.heights.min()


def test_flat_ground_has_no_terrain_and_a_course_is_drawn():
    import newton

    builder = newton.ModelBuilder()
    builder.add_ground_plane()
    assert newton_terrain(builder.finalize(device="cpu")) is None
    course = TerrainCourse("stairs", step_height=0.08)
    assert read_heights(model_with_ground(ensure_robot_files().mjcf, course), [course.start + 0.15])[0] == \
        pytest.approx(0.08)
    assert model_with_ground(ensure_robot_files().mjcf).nhfield == 0


def test_terrain_heights_span_their_field():
    model = model_with_ground(ensure_robot_files().mjcf, TerrainHeights(bumpy(), HALF_X, HALF_Y, (0.0, 0.0)))
    assert model.nhfield == 1 and (model.hfield_nrow[0], model.hfield_ncol[0]) == (ROWS, COLS)
    np.testing.assert_allclose(model.hfield_size[0][:2], [HALF_X, HALF_Y])
