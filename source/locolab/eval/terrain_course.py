"""Terrain courses for sim-to-sim in MuJoCo: a staircase or a ramp (up, a landing, down) ahead of the robot.

The courses take training's numbers: Isaac Lab's stock stairs (``MeshPyramidStairsTerrainCfg`` in the rough terrain:
0.3 m treads, risers from the task's step-height range) and its slopes as rise over run (``HfPyramidSlopedTerrainCfg``
calls its slope an angle in radians, but builds ``height = slope x run``: 0.3 is 16.7 degrees). Stairs are stacked
boxes and the ramp is one trapezoid prism, which MuJoCo collides exactly (a mesh as its convex hull: this one is
convex). Torch-free, like the rest of sim-to-sim.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass

import mujoco
import numpy as np

from .mujoco_height_scan import ground_depth

STAIR_TREAD = 0.3
"""Depth of a step [m]: the stock rough terrain's ``step_width``."""
COURSE_WIDTH = 4.0
"""Width of a course across the robot's path [m]."""
KINDS = ("stairs", "slope")
START_OFFSETS = ((0.0, 0.0), (-0.2, 0.0), (0.2, 0.0), (0.0, -0.3), (0.0, 0.3))
"""(x, y) shifts of the robot's start [m]: nearer, farther and to either side of the course's first edge."""


@dataclass(frozen=True)
class TerrainCourse:
    """A course along +x: ``start`` metres of flat ground from the robot, up, a ``landing``, down, flat again."""

    kind: str = "stairs"
    step_height: float = 0.10
    """Riser of each step [m] (stairs)."""
    steps: int = 5
    """Steps up, and as many down (stairs)."""
    slope: float = 0.3
    """Rise over run of both ramps (slope)."""
    rise: float = 0.5
    """Height of the ramp's landing [m] (slope)."""
    landing: float = 1.0
    """Length of the flat top [m]."""
    start: float = 1.0
    """Flat ground between the robot's start and the course [m]."""

    def check(self) -> None:
        """One-line errors for values no course can have."""
        if self.kind not in KINDS:
            raise ValueError(f"unknown terrain '{self.kind}': choose one of {', '.join(KINDS)}.")
        numbers = asdict(self)
        del numbers["kind"]
        if not all(math.isfinite(value) and value > 0 for value in numbers.values()):
            raise ValueError(f"a terrain course takes positive finite numbers, got {numbers}.")
        if self.kind == "stairs" and (self.step_height > 0.3 or self.steps != int(self.steps)):
            raise ValueError(f"--step_height {self.step_height} m is over 0.3 m or --steps {self.steps} is not whole: "
                             "the Go2 trains on risers up to 0.12 m.")
        if self.kind == "slope" and self.slope > 1.0:
            raise ValueError(f"--slope {self.slope} (rise over run) is over 1.0 (45 degrees): the Go2 trains to 0.4.")

    @property
    def climb(self) -> float:
        """Horizontal length of the way up [m]."""
        return self.steps * STAIR_TREAD if self.kind == "stairs" else self.rise / self.slope

    @property
    def top(self) -> float:
        """Height of the landing [m]."""
        return self.steps * self.step_height if self.kind == "stairs" else self.rise

    @property
    def end(self) -> float:
        """x of the course's last edge (back on flat ground) [m]."""
        return self.start + 2 * self.climb + self.landing

    def height(self, x: np.ndarray) -> np.ndarray:
        """The course's surface height at ``x`` [m] (the profile the MuJoCo geoms are built from)."""
        x = np.asarray(x, dtype=float)
        up, down = x - self.start, self.end - x
        nearest = np.minimum(up, down)
        if self.kind == "stairs":
            steps = np.floor(nearest / STAIR_TREAD) + 1
            return np.where(nearest < 0, 0.0, np.minimum(steps, self.steps) * self.step_height)
        return np.clip(nearest * self.slope, 0.0, self.rise)

    def add_to(self, spec: mujoco.MjSpec) -> None:
        """Add the course's geoms to ``spec``'s world (ground-coloured, colliding with everything)."""
        world = spec.worldbody
        half_width = COURSE_WIDTH / 2
        if self.kind == "stairs":
            for step in range(1, self.steps + 1):  # stacked slabs, each one tread shorter at both ends
                first, last = self.start + (step - 1) * STAIR_TREAD, self.end - (step - 1) * STAIR_TREAD
                world.add_geom(name=f"course_step_{step}", type=mujoco.mjtGeom.mjGEOM_BOX,
                               size=[(last - first) / 2, half_width, self.step_height / 2],
                               pos=[(first + last) / 2, 0.0, (step - 0.5) * self.step_height], rgba=[0.5, 0.5, 0.55, 1])
            return
        top_first, top_last = self.start + self.climb, self.end - self.climb
        profile = [(self.start, 0.0), (top_first, self.rise), (top_last, self.rise), (self.end, 0.0)]
        vertices = [(x, y, z) for x, z in profile for y in (-half_width, half_width)]
        spec.add_mesh(name="course_ramp", uservert=np.asarray(vertices, dtype=float).ravel().tolist())
        world.add_geom(name="course_ramp", type=mujoco.mjtGeom.mjGEOM_MESH, meshname="course_ramp",
                       rgba=[0.5, 0.5, 0.55, 1])


def read_heights(model: mujoco.MjModel, xs: np.ndarray, y: float = 0.0) -> np.ndarray:
    """The ground's height under each ``x`` in a compiled model, by casting rays down onto its world geoms (through
    the robot's: :func:`~.mujoco_height_scan.ground_depth`); NaN where there is none."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    depths = [ground_depth(model, data, (x, y, 5.0)) for x in xs]
    return np.asarray([5.0 - depth if math.isfinite(depth) else math.nan for depth in depths])


def add_course_arguments(parser: argparse.ArgumentParser) -> None:
    """sim2sim.py's terrain options."""
    group = parser.add_argument_group("terrain course (default: flat ground)")
    group.add_argument("--terrain", choices=KINDS, help="a staircase or a ramp ahead of the robot: up, a landing, "
                                                        "down; runs the robot across it from each start offset")
    group.add_argument("--step_height", type=float, default=TerrainCourse.step_height, help="stairs: riser [m]")
    group.add_argument("--steps", type=int, default=TerrainCourse.steps, help="stairs: steps up (and down)")
    group.add_argument("--slope", type=float, default=TerrainCourse.slope, help="ramp: rise over run")
    group.add_argument("--no_heading_hold", dest="hold_course_heading", action="store_false",
                       help="command a yaw rate of 0 throughout instead of steering back to the course's axis as "
                            "training's heading commands (and an operator) do")


def course_from_args(args: argparse.Namespace) -> TerrainCourse | None:
    """The checked course that sim2sim.py's options ask for (None: flat ground)."""
    if args.terrain is None:
        return None
    course = TerrainCourse(args.terrain, step_height=args.step_height, steps=args.steps, slope=args.slope)
    course.check()
    return course
