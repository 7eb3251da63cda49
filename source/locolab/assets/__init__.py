"""LocoLab's robots: one physical table per robot, generated into USD (Isaac Lab) and MJCF (MuJoCo)."""

from .quadruped_spec import GO2_SPEC, LEGS, JointSpec, LinkSpec, QuadrupedSpec
from .robot_files import ASSET_ROOT, CACHE_DIR, RobotFiles, ensure_robot_files, use_offline_asset_root
