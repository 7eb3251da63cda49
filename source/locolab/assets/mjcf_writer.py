"""Writes a quadruped spec as MJCF, the same robot as the USD, for MuJoCo rendering and sim-to-sim checks."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .quadruped_spec import LEGS, LinkSpec, QuadrupedSpec, Vec3
from .usd_writer import leg_frames, leg_link


def _fmt(values) -> str:
    return " ".join(f"{v:.9g}" for v in values)


def _inertial(body: ET.Element, link: LinkSpec) -> None:
    ET.SubElement(body, "inertial", pos=_fmt(link.com), mass=f"{link.mass:.9g}", diaginertia=_fmt(link.inertia))


def _sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def write_mjcf(spec: QuadrupedSpec, path: str, timestep: float = 0.005) -> None:
    """Author ``spec`` as an MJCF model at ``path``: floor, lights, floating base, 12 hinges, 12 motors."""
    model = ET.Element("mujoco", model=spec.name)
    ET.SubElement(model, "compiler", angle="radian", autolimits="true")
    ET.SubElement(model, "option", timestep=f"{timestep:.9g}", integrator="implicitfast", cone="pyramidal")
    default = ET.SubElement(model, "default")
    ET.SubElement(default, "joint", armature=f"{spec.armature:.9g}", damping="0", frictionloss="0")
    ET.SubElement(default, "geom", friction="1.0 0.005 0.0001", condim="3", rgba="0.25 0.27 0.3 1")
    asset = ET.SubElement(model, "asset")
    ET.SubElement(asset, "texture", name="grid", type="2d", builtin="checker", rgb1="0.55 0.6 0.65",
                  rgb2="0.35 0.4 0.45", width="512", height="512")
    ET.SubElement(asset, "material", name="grid", texture="grid", texrepeat="10 10", reflectance="0.1")
    ET.SubElement(asset, "texture", name="sky", type="skybox", builtin="gradient", rgb1="0.6 0.75 0.9",
                  rgb2="0.1 0.15 0.2", width="256", height="256")
    world = ET.SubElement(model, "worldbody")
    ET.SubElement(world, "light", pos="0 0 4", dir="0 0 -1", directional="true", diffuse="0.8 0.8 0.8")
    ET.SubElement(world, "geom", name="floor", type="plane", size="0 0 0.05", material="grid")

    base = ET.SubElement(world, "body", name="base", pos=f"0 0 {spec.standing_height() + 0.05:.9g}")
    ET.SubElement(base, "freejoint", name="root")
    _inertial(base, spec.base)
    ET.SubElement(base, "geom", name="base", type="box", size=_fmt(s / 2 for s in spec.base_size),
                  rgba="0.85 0.55 0.15 1")
    ET.SubElement(base, "site", name="imu", pos="0 0 0")
    for leg in LEGS:
        frames = leg_frames(spec, leg)
        parent, parent_pos = base, (0.0, 0.0, 0.0)
        for part in ("hip", "thigh", "calf"):
            body = ET.SubElement(parent, "body", name=f"{leg}_{part}", pos=_fmt(_sub(frames[part], parent_pos)))
            _inertial(body, leg_link(spec, leg, part))
            joint = spec.joint(leg, part)
            axis = {"x": "1 0 0", "y": "0 1 0", "z": "0 0 1"}[joint.axis]
            ET.SubElement(body, "joint", name=f"{leg}_{part}_joint", axis=axis, range=_fmt((joint.lower, joint.upper)),
                          actuatorfrcrange=_fmt((-joint.effort_limit, joint.effort_limit)))
            parent, parent_pos = body, frames[part]
            if part == "thigh":
                ET.SubElement(body, "geom", name=f"{leg}_thigh", type="capsule", size=f"{spec.thigh_radius:.9g}",
                              fromto=_fmt((0, 0, -spec.thigh_radius, 0, 0, -spec.thigh_length + spec.thigh_radius)))
            elif part == "calf":
                end = spec.calf_length - spec.foot_radius
                ET.SubElement(body, "geom", name=f"{leg}_calf", type="capsule", size=f"{spec.calf_radius:.9g}",
                              fromto=_fmt((0, 0, -spec.calf_radius, 0, 0, -end + spec.calf_radius)))
        foot = ET.SubElement(parent, "body", name=f"{leg}_foot", pos=_fmt((0.0, 0.0, -spec.calf_length)))
        _inertial(foot, spec.foot)
        ET.SubElement(foot, "geom", name=f"{leg}_foot", type="sphere", size=f"{spec.foot_radius:.9g}",
                      rgba="0.1 0.1 0.1 1")

    actuators = ET.SubElement(model, "actuator")
    for name in spec.joint_names():
        ET.SubElement(actuators, "motor", name=name, joint=name)
    sensors = ET.SubElement(model, "sensor")
    ET.SubElement(sensors, "gyro", name="imu_gyro", site="imu")
    ET.SubElement(sensors, "framequat", name="imu_quat", objtype="site", objname="imu")
    ET.indent(model)
    ET.ElementTree(model).write(path, encoding="unicode")
