"""Videos draw the ground the robot walked on (:mod:`locolab.render.terrain`): the simulation's heightfield, read from
a Newton model, and sim-to-sim courses, read back from the recorder's MuJoCo model."""

from __future__ import annotations

import numpy as np
import pytest

from locolab.render import MujocoVideoRecorder, TerrainHeights, newton_terrain  # noqa: I001  (MUJOCO_GL first)
from locolab.assets import ensure_robot_files
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
    recorder = MujocoVideoRecorder(ensure_robot_files().mjcf, width=64, height=48, ground=terrain)
    middle_row = ROWS // 2  # y = -2.0, the field's centre line
    xs = 1.0 + np.linspace(-HALF_X, HALF_X, COLS)[1:-1]
    drawn = read_heights(recorder.model, xs, y=-2.0)
    np.testing.assert_allclose(drawn, terrain.heights[middle_row, 1:-1], atol=1e-4)
    assert recorder.world_frame and recorder.model.geom("floor").pos[2] < terrain.heights.min()
    assert recorder.render().shape == (48, 64, 3)
    recorder.close()


def test_flat_ground_has_no_terrain_and_a_course_is_drawn():
    import newton

    builder = newton.ModelBuilder()
    builder.add_ground_plane()
    assert newton_terrain(builder.finalize(device="cpu")) is None
    course = TerrainCourse("stairs", step_height=0.08)
    recorder = MujocoVideoRecorder(ensure_robot_files().mjcf, width=64, height=48, ground=course)
    assert not recorder.world_frame
    assert read_heights(recorder.model, [course.start + 0.15])[0] == pytest.approx(0.08)
    recorder.close()


def test_terrain_heights_span_their_field():
    terrain = TerrainHeights(bumpy(), HALF_X, HALF_Y, (0.0, 0.0))
    import mujoco

    spec = mujoco.MjSpec.from_file(str(ensure_robot_files().mjcf))
    terrain.add_to(spec)
    model = spec.compile()
    assert model.nhfield == 1 and (model.hfield_nrow[0], model.hfield_ncol[0]) == (ROWS, COLS)
    np.testing.assert_allclose(model.hfield_size[0][:2], [HALF_X, HALF_Y])
