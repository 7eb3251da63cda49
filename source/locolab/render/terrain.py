"""The ground a video draws: the simulation's heightfield (rough terrain) or a sim-to-sim course, added to the MJCF.

Rough terrain reaches the physics as one Newton heightfield (:mod:`locolab.envs.terrain`); a video draws that same
field as a MuJoCo ``hfield`` (MuJoCo's layout is Newton's: Newton hands it to MuJoCo unchanged), so the robot is seen
on the ground it walked on. The MJCF's flat floor is lowered out of sight under it.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

FLOOR = "floor"
"""The generated MJCF's ground plane (:func:`locolab.assets.mjcf_writer.write_mjcf`)."""


@dataclass(frozen=True)
class TerrainHeights:
    """A heightfield in world coordinates: ``heights[row, col]`` [m], rows along y, columns along x (MuJoCo's
    layout), spanning ``2 half_x`` by ``2 half_y`` metres around ``center`` (x, y)."""

    heights: np.ndarray
    half_x: float
    half_y: float
    center: tuple[float, float]

    def add_to(self, spec: mujoco.MjSpec) -> None:
        """Draw the field in ``spec``'s world and move its floor below the field's lowest point."""
        low, high = float(self.heights.min()), float(self.heights.max())
        span = max(high - low, 1e-4)
        nrow, ncol = self.heights.shape
        spec.add_hfield(name="terrain", nrow=nrow, ncol=ncol, size=[self.half_x, self.half_y, span, 0.1],
                        userdata=((self.heights - low) / span).ravel().tolist())
        spec.worldbody.add_geom(name="terrain", type=mujoco.mjtGeom.mjGEOM_HFIELD, hfieldname="terrain",
                                pos=[self.center[0], self.center[1], low], rgba=[0.55, 0.55, 0.5, 1.0])
        floor = spec.geom(FLOOR)
        if floor is not None:
            floor.pos = [0.0, 0.0, low - 1.0]


def model_with_ground(mjcf, ground=None) -> mujoco.MjModel:
    """The MJCF compiled with ``ground`` in it: a :class:`TerrainHeights`, anything else with ``add_to(spec)`` (a
    sim-to-sim course), or None (its flat floor)."""
    spec = mujoco.MjSpec.from_file(str(mjcf))
    if ground is not None:
        ground.add_to(spec)
    return spec.compile()


def newton_terrain(model) -> TerrainHeights | None:
    """The first heightfield shape of a Newton model (the rough terrain), None when it has none (flat ground)."""
    from newton import GeoType

    types = model.shape_type.numpy()
    for shape in np.flatnonzero(types == int(GeoType.HFIELD)):
        field = model.shape_source[shape]
        position = model.shape_transform.numpy()[shape][:3]
        heights = field.min_z + np.asarray(field.data, dtype=float).reshape(field.nrow, field.ncol) * (
            field.max_z - field.min_z)
        return TerrainHeights(heights + position[2], float(field.hx), float(field.hy),
                              (float(position[0]), float(position[1])))
    return None
