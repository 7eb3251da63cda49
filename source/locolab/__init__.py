"""LocoLab: massively parallel legged-robot locomotion training on Isaac Lab 3 (Newton) and rsl_rl.

Importing the package points Isaac Lab's asset root at LocoLab's generated offline assets (unless the user set
``ISAACSIM_ASSET_ROOT`` or Isaac Lab already resolved it), so no code path reaches for a cloud URL.
"""

import os
import sys

from .assets import ASSET_ROOT, ensure_robot_files

if "isaaclab.utils.assets" not in sys.modules:
    os.environ.setdefault("ISAACSIM_ASSET_ROOT", str(ASSET_ROOT))
ensure_robot_files()
