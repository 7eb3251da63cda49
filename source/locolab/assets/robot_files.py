"""Generated robot files and the offline asset root that makes Isaac Lab resolve them instead of cloud URLs.

Isaac Lab reads ``ISAACSIM_ASSET_ROOT`` once, when ``isaaclab.utils.assets`` is imported, and builds every stock
asset path from it. LocoLab points it at a local folder that mirrors the sub-paths the stock Go2 configs expect
(robot USD, ground plane), filled from :mod:`quadruped_spec`. Files are regenerated whenever the spec or the
writers change (a digest stamp), written atomically and under a file lock so parallel processes agree.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from locolab.atomic_files import write_atomically

from . import mjcf_writer, usd_writer
from .quadruped_spec import GO2_SPEC, QuadrupedSpec

CACHE_DIR = Path(os.environ.get("LOCOLAB_CACHE_DIR", Path.home() / ".cache" / "locolab")).expanduser()
"""Where generated files live (override with ``LOCOLAB_CACHE_DIR``)."""

ASSET_ROOT = CACHE_DIR / "asset_root"
"""The offline stand-in for Isaac Sim's asset root."""

ROBOT_USD_SUBPATH = "Isaac/IsaacLab/Robots/Unitree/Go2/go2.usd"
GROUND_PLANE_SUBPATH = "Isaac/IsaacLab/Environments/Grid/default_ground_plane_checker_v1/default_ground_plane.usda"


@dataclass(frozen=True)
class RobotFiles:
    """Paths of one robot's generated files."""

    usd: Path
    mjcf: Path
    ground_plane: Path


def _digest(spec: QuadrupedSpec) -> str:
    """The spec's digest combined with the writers' source, so a writer change also regenerates."""
    writers = "".join(inspect.getsource(module) for module in (usd_writer, mjcf_writer))
    return hashlib.sha256((spec.digest() + writers).encode()).hexdigest()[:16]


def ensure_robot_files(spec: QuadrupedSpec = GO2_SPEC) -> RobotFiles:
    """Generate (or reuse) the robot's USD and MJCF and the ground plane under the offline asset root."""
    files = RobotFiles(
        usd=ASSET_ROOT / ROBOT_USD_SUBPATH if spec is GO2_SPEC else CACHE_DIR / spec.name / f"{spec.name}.usd",
        mjcf=CACHE_DIR / spec.name / f"{spec.name}.xml",
        ground_plane=ASSET_ROOT / GROUND_PLANE_SUBPATH,
    )
    stamp = CACHE_DIR / spec.name / "digest"
    digest = _digest(spec)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE_DIR / f"{spec.name}.lock")):
        current = stamp.exists() and stamp.read_text() == digest
        if not (current and files.usd.exists() and files.mjcf.exists()):
            write_atomically(files.usd, lambda tmp: usd_writer.write_usd(spec, str(tmp)))
            write_atomically(files.mjcf, lambda tmp: mjcf_writer.write_mjcf(spec, str(tmp)))
            stamp.write_text(digest)
        if not files.ground_plane.exists():
            write_atomically(files.ground_plane, lambda tmp: usd_writer.write_ground_plane_usd(str(tmp)))
    return files


def use_offline_asset_root() -> RobotFiles:
    """Generate the robot files and point Isaac Lab's asset root at them, unless the user set ``ISAACSIM_ASSET_ROOT``
    or Isaac Lab already resolved its root (it reads the variable once, on import)."""
    if "isaaclab.utils.assets" not in sys.modules:
        os.environ.setdefault("ISAACSIM_ASSET_ROOT", str(ASSET_ROOT))
    return ensure_robot_files()
