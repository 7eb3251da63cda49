"""Rough terrain as the physics collides it: Isaac Lab's generated terrain, rasterised into one heightfield.

Isaac Lab's terrain generator builds one triangle mesh (stairs, box grids, noise, slopes). MuJoCo collides a mesh geom
as its convex hull, so under MuJoCo's C engine robots stood on the hull of the whole terrain (measured: bases metres
above their tiles). Isaac Lab can tag the terrain for Newton to rasterise into a heightfield at the generator's
horizontal scale when every sub-terrain asks for it; Newton hands that heightfield to MuJoCo (C and Warp) as an
``hfield``, which both collide exactly. A stair's riser becomes a one-cell ramp (0.1 m at the stock scale).
"""

from __future__ import annotations

from isaaclab.terrains import TerrainGeneratorCfg


def collide_as_heightfield(generator: TerrainGeneratorCfg) -> None:
    """Ask for the generated terrain to be collided as a heightfield (every sub-terrain must ask: Isaac Lab's rule)."""
    for sub_terrain in generator.sub_terrains.values():
        sub_terrain.convert_to_heightfield = True


def flat_ground(env_cfg) -> None:
    """A rough task's config on a plane, in place: the same observations (the height scan reads level ground), so a
    rough-terrain policy plays the flat walking checks on the task it trained on."""
    env_cfg.scene.terrain.terrain_type, env_cfg.scene.terrain.terrain_generator = "plane", None
    env_cfg.curriculum.terrain_levels = None
