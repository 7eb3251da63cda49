"""The physical description of a quadruped, as one table from which every robot file is generated.

Links and joints are described once for the front-left leg; the other legs mirror it (``y`` flips for the right
side, the hip's ``x`` for the rear). Names follow Isaac Lab's Go2 asset so its stock configs run on ours.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass

Vec3 = tuple[float, float, float]

LEGS: tuple[str, ...] = ("FL", "FR", "RL", "RR")
"""Leg prefixes in Isaac Lab's Go2 order."""


@dataclass(frozen=True)
class LinkSpec:
    """A rigid body's inertial properties, expressed for the front-left leg (or the base)."""

    mass: float
    """Mass [kg]."""
    com: Vec3
    """Centre of mass in the link frame [m]."""
    inertia: Vec3
    """Principal moments of inertia about the centre of mass (ixx, iyy, izz) [kg m^2]."""


@dataclass(frozen=True)
class JointSpec:
    """A revolute joint: axis, position limits and motor limits."""

    axis: str
    """Rotation axis in the parent frame: "x", "y" or "z"."""
    lower: float
    """Lower position limit [rad]."""
    upper: float
    """Upper position limit [rad]."""
    effort_limit: float
    """Motor torque limit [N m]."""
    velocity_limit: float
    """Motor speed limit [rad/s]."""


@dataclass(frozen=True)
class QuadrupedSpec:
    """Everything that defines the robot's kinematics, dynamics and nominal pose."""

    name: str
    base: LinkSpec
    base_size: Vec3
    """Collision box of the trunk (length, width, height) [m]."""
    hip: LinkSpec
    thigh: LinkSpec
    calf: LinkSpec
    foot: LinkSpec
    hip_offset: Vec3
    """Front-left hip joint origin in the base frame [m]."""
    thigh_offset: Vec3
    """Front-left thigh joint origin in the hip frame [m]."""
    thigh_length: float
    calf_length: float
    thigh_radius: float
    """Capsule radius of the thigh collider [m]."""
    calf_radius: float
    """Capsule radius of the calf collider [m]."""
    foot_radius: float
    hip_joint: JointSpec
    front_thigh_joint: JointSpec
    rear_thigh_joint: JointSpec
    calf_joint: JointSpec
    default_hip: float
    """Default hip angle of the left legs (right legs use its negative) [rad]."""
    default_front_thigh: float
    default_rear_thigh: float
    default_calf: float
    armature: float
    """Reflected rotor inertia added to every joint [kg m^2]."""

    # -- derived, per leg ---------------------------------------------------------------------------------------

    def joint_names(self) -> list[str]:
        """Joint names in Isaac Lab's Go2 order (leg-major)."""
        return [f"{leg}_{part}_joint" for leg in LEGS for part in ("hip", "thigh", "calf")]

    def joint(self, leg: str, part: str) -> JointSpec:
        """The joint spec of one leg's hip, thigh or calf."""
        if part == "thigh":
            return self.front_thigh_joint if leg[0] == "F" else self.rear_thigh_joint
        return self.hip_joint if part == "hip" else self.calf_joint

    def default_joint_pos(self) -> dict[str, float]:
        """Nominal standing pose, by joint name."""
        pose = {}
        for leg in LEGS:
            pose[f"{leg}_hip_joint"] = self.default_hip if leg[1] == "L" else -self.default_hip
            pose[f"{leg}_thigh_joint"] = self.default_front_thigh if leg[0] == "F" else self.default_rear_thigh
            pose[f"{leg}_calf_joint"] = self.default_calf
        return pose

    def standing_height(self) -> float:
        """Base height [m] with the feet on flat ground in the default pose (mean over legs, level trunk).

        The hip rotation both tilts the leg plane (``cos``) and lifts the laterally offset thigh joint (``sin``).
        """
        heights = []
        for leg in LEGS:
            thigh = self.default_front_thigh if leg[0] == "F" else self.default_rear_thigh
            leg_drop = self.thigh_length * math.cos(thigh) + self.calf_length * math.cos(thigh + self.default_calf)
            hip = abs(self.default_hip)
            lift = self.thigh_offset[1] * math.sin(hip)
            heights.append(leg_drop * math.cos(hip) - lift - self.hip_offset[2] + self.foot_radius)
        return sum(heights) / len(heights)

    def total_mass(self) -> float:
        """Mass of the whole robot [kg]."""
        return self.base.mass + len(LEGS) * (self.hip.mass + self.thigh.mass + self.calf.mass + self.foot.mass)

    def digest(self) -> str:
        """A short hash of the table: generated files are stamped with it and rebuilt when it changes."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


def mirror(vec: Vec3, leg: str, flip_x_for_rear: bool = False) -> Vec3:
    """Mirror a front-left vector into ``leg``: ``y`` flips on the right, ``x`` optionally on the rear."""
    x, y, z = vec
    if leg[1] == "R":
        y = -y
    if flip_x_for_rear and leg[0] == "R":
        x = -x
    return (x, y, z)


GO2_SPEC = QuadrupedSpec(
    # Published Unitree Go2 figures (unitree_ros go2_description); see ../shared/notes/go2-facts.md.
    name="go2",
    base=LinkSpec(mass=6.921, com=(0.021112, 0.0, -0.005366), inertia=(0.02448, 0.098077, 0.107)),
    base_size=(0.3762, 0.0935, 0.114),
    hip=LinkSpec(mass=0.678, com=(-0.0054, 0.00194, -0.000105), inertia=(0.00048, 0.000884, 0.000596)),
    thigh=LinkSpec(mass=1.152, com=(-0.00374, -0.0223, -0.0327), inertia=(0.00584, 0.0058, 0.00103)),
    calf=LinkSpec(mass=0.154, com=(0.00548, -0.000975, -0.115), inertia=(0.00108, 0.0011, 3.29e-05)),
    foot=LinkSpec(mass=0.04, com=(0.0, 0.0, 0.0), inertia=(9.6e-06, 9.6e-06, 9.6e-06)),
    hip_offset=(0.1934, 0.0465, 0.0),
    thigh_offset=(0.0, 0.0955, 0.0),
    thigh_length=0.213,
    calf_length=0.213,
    thigh_radius=0.02,
    calf_radius=0.013,
    foot_radius=0.022,
    hip_joint=JointSpec(axis="x", lower=-1.0472, upper=1.0472, effort_limit=23.7, velocity_limit=30.1),
    front_thigh_joint=JointSpec(axis="y", lower=-1.5708, upper=3.4907, effort_limit=23.7, velocity_limit=30.1),
    rear_thigh_joint=JointSpec(axis="y", lower=-0.5236, upper=4.5379, effort_limit=23.7, velocity_limit=30.1),
    calf_joint=JointSpec(axis="y", lower=-2.7227, upper=-0.83776, effort_limit=45.43, velocity_limit=15.70),
    default_hip=0.1,
    default_front_thigh=0.8,
    default_rear_thigh=1.0,
    default_calf=-1.5,
    armature=0.01,
)
"""The Go2-class robot LocoLab trains."""
