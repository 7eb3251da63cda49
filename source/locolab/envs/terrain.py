"""Rough terrain as the physics collides it: Isaac Lab's generated terrain, rasterised into one heightfield.

Isaac Lab's terrain generator builds one triangle mesh (stairs, box grids, noise, slopes). MuJoCo collides a mesh geom
as its convex hull, so under MuJoCo's C engine robots stood on the hull of the whole terrain (measured: bases metres
above their tiles). Isaac Lab can tag the terrain for Newton to rasterise into a heightfield at the generator's
horizontal scale when every sub-terrain asks for it; Newton hands that heightfield to MuJoCo (C and Warp) as an
``hfield``, which both collide exactly. A stair's riser or a box's edge becomes a ramp one cell wide
(:data:`HEIGHTFIELD_SCALE`).
"""

from __future__ import annotations

from isaaclab.terrains import TerrainGeneratorCfg


HEIGHTFIELD_SCALE = 0.05
"""Cell [m] of the collided heightfield (the generator's ``horizontal_scale``; stock 0.1). At 0.1 m a 10 cm riser was a
45-degree ramp: a blind student that crossed the gate's 10 cm stairs fell on MuJoCo's vertical risers in sim-to-sim.
At 0.05 m it is a 63-degree face (docs/rough-terrain.md)."""


def collide_as_heightfield(generator: TerrainGeneratorCfg) -> None:
    """Ask for the generated terrain to be collided as a heightfield (every sub-terrain must ask: Isaac Lab's rule)
    with cells of :data:`HEIGHTFIELD_SCALE`; height-field noise keeps the generator's own pitch (its
    ``downsampled_scale``), so that only the edges sharpen, not the noise."""
    for sub_terrain in generator.sub_terrains.values():
        sub_terrain.convert_to_heightfield = True
        if getattr(sub_terrain, "downsampled_scale", False) is None:
            sub_terrain.downsampled_scale = generator.horizontal_scale
    generator.horizontal_scale = HEIGHTFIELD_SCALE


def flat_ground(env_cfg) -> None:
    """A rough task's config on a plane, in place: the same observations (the height scan reads level ground), so a
    rough-terrain policy plays the flat walking checks on the task it trained on."""
    env_cfg.scene.terrain.terrain_type, env_cfg.scene.terrain.terrain_generator = "plane", None
    env_cfg.curriculum.terrain_levels = None
