"""LocoLab's robots: one physical table per robot, generated into USD (Isaac Lab) and MJCF (MuJoCo).

Importing it registers Newton's USD schemas with OpenUSD first (``newton_usd_schemas``): OpenUSD's schema registry
is built once, on its first use, and a plugin registered later is not in it; Newton's actuator parser then reads
every ``newton:`` attribute of an actuator prim as its drive's (a delay's ``delaySteps`` given twice: the robot
could not be built). Isaac Lab registers them only when Newton's USD importer loads, after the stage exists.
"""

import newton_usd_schemas  # noqa: F401  (first: see above)

from .quadruped_spec import GO2_SPEC, LEGS, JointSpec, LinkSpec, QuadrupedSpec
from .robot_files import ASSET_ROOT, CACHE_DIR, RobotFiles, ensure_robot_files, use_offline_asset_root
