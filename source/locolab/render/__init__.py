"""Videos of LocoLab environments without Omniverse Kit or a GPU.

Isaac Lab's renderers need Kit and an RTX GPU; LocoLab draws the simulated state with MuJoCo's offscreen renderer
on the generated MJCF of the same robot (OSMesa on CPU machines, EGL on GPU ones). Import this package before
building an environment: it chooses ``MUJOCO_GL`` and MuJoCo reads that once, on its first import.
"""

from .mujoco_video import MUJOCO_GL, MujocoVideoRecorder, configure_mujoco_gl
from .terrain import TerrainHeights, newton_terrain
