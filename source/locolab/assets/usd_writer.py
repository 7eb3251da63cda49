"""Writes a quadruped spec as a USD articulation with plain UsdPhysics schemas (what Newton's importer reads).

Isaac Lab's URDF/MJCF importers cannot be installed beside Isaac Lab 3.0 (pip conflict), so the robot is authored
directly with pxr. Bodies are flat children of the root prim, as in Isaac Lab's Go2 asset, so that the stock
prim-path patterns (``Robot/base``, ``Robot/.*_foot``) match.
"""

from __future__ import annotations

import math

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from .quadruped_spec import LEGS, JointSpec, LinkSpec, QuadrupedSpec, Vec3, mirror

FOOT_CONTACT_DIMENSION = 6
"""MuJoCo's ``condim`` of the feet (``mjc:condim``, which Newton gives its MuJoCo solvers): sliding, torsional and
rolling friction, as published Go2 models (MuJoCo Menagerie's ``unitree_go2``) give rubber feet. With 3 a foot
pivots freely about the contact normal and a policy learns to turn on it (docs/sim-to-real.md). The friction
coefficients themselves are randomised per environment (:class:`locolab.envs.mdp.DynamicsRandomizationCfg`)."""


def _add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def leg_frames(spec: QuadrupedSpec, leg: str) -> dict[str, Vec3]:
    """Positions of a leg's link frames in the base frame, with every joint at zero."""
    hip = mirror(spec.hip_offset, leg, flip_x_for_rear=True)
    thigh = _add(hip, mirror(spec.thigh_offset, leg))
    calf = _add(thigh, (0.0, 0.0, -spec.thigh_length))
    foot = _add(calf, (0.0, 0.0, -spec.calf_length))
    return {"hip": hip, "thigh": thigh, "calf": calf, "foot": foot}


def leg_link(spec: QuadrupedSpec, leg: str, part: str) -> LinkSpec:
    """A leg link's inertial properties, mirrored into ``leg``."""
    link: LinkSpec = getattr(spec, part)
    return LinkSpec(link.mass, mirror(link.com, leg, flip_x_for_rear=part == "hip"), link.inertia)


def _rigid_body(stage: Usd.Stage, path: str, position: Vec3, link: LinkSpec) -> Usd.Prim:
    xform = UsdGeom.Xform.Define(stage, path)
    xform.AddTranslateOp().Set(Gf.Vec3d(*position))
    prim = xform.GetPrim()
    UsdPhysics.RigidBodyAPI.Apply(prim)
    mass = UsdPhysics.MassAPI.Apply(prim)
    mass.CreateMassAttr(link.mass)
    mass.CreateCenterOfMassAttr(Gf.Vec3f(*link.com))
    mass.CreateDiagonalInertiaAttr(Gf.Vec3f(*link.inertia))
    mass.CreatePrincipalAxesAttr(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
    return prim


def _collider(prim: UsdGeom.Gprim) -> None:
    UsdPhysics.CollisionAPI.Apply(prim.GetPrim())


def _capsule(stage: Usd.Stage, path: str, radius: float, length: float, centre_z: float) -> None:
    capsule = UsdGeom.Capsule.Define(stage, path)
    capsule.CreateAxisAttr("Z")
    capsule.CreateRadiusAttr(radius)
    capsule.CreateHeightAttr(max(length - 2.0 * radius, 1e-3))
    capsule.AddTranslateOp().Set(Gf.Vec3d(0.0, 0.0, centre_z))
    _collider(capsule)


def _revolute(
    stage: Usd.Stage, path: str, parent: str, child: str, anchor: Vec3, spec_joint: JointSpec, armature: float
) -> None:
    joint = UsdPhysics.RevoluteJoint.Define(stage, path)
    joint.CreateBody0Rel().SetTargets([Sdf.Path(parent)])
    joint.CreateBody1Rel().SetTargets([Sdf.Path(child)])
    joint.CreateLocalPos0Attr(Gf.Vec3f(*anchor))
    joint.CreateLocalPos1Attr(Gf.Vec3f(0.0, 0.0, 0.0))
    joint.CreateLocalRot0Attr(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
    joint.CreateLocalRot1Attr(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
    joint.CreateAxisAttr(spec_joint.axis.upper())
    joint.CreateLowerLimitAttr(math.degrees(spec_joint.lower))
    joint.CreateUpperLimitAttr(math.degrees(spec_joint.upper))
    drive = UsdPhysics.DriveAPI.Apply(joint.GetPrim(), "angular")
    drive.CreateTypeAttr("force")
    drive.CreateStiffnessAttr(0.0)
    drive.CreateDampingAttr(0.0)
    drive.CreateMaxForceAttr(spec_joint.effort_limit)
    prim = joint.GetPrim()
    prim.CreateAttribute("newton:velocityLimit", Sdf.ValueTypeNames.Float).Set(math.degrees(spec_joint.velocity_limit))
    prim.CreateAttribute("newton:armature", Sdf.ValueTypeNames.Float).Set(armature)


def write_usd(spec: QuadrupedSpec, path: str) -> None:
    """Author ``spec`` as a USD articulation at ``path`` (overwritten)."""
    stage = Usd.Stage.CreateNew(path)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    root_path = f"/{spec.name}"
    root = UsdGeom.Xform.Define(stage, root_path).GetPrim()
    stage.SetDefaultPrim(root)
    UsdPhysics.ArticulationRootAPI.Apply(root)

    base_path = f"{root_path}/base"
    _rigid_body(stage, base_path, (0.0, 0.0, 0.0), spec.base)
    trunk = UsdGeom.Cube.Define(stage, f"{base_path}/collision")
    trunk.CreateSizeAttr(1.0)
    trunk.AddScaleOp().Set(Gf.Vec3f(*spec.base_size))
    _collider(trunk)

    joints_path = f"{root_path}/joints"
    UsdGeom.Scope.Define(stage, joints_path)
    for leg in LEGS:
        frames = leg_frames(spec, leg)
        parent, parent_pos = base_path, (0.0, 0.0, 0.0)
        for part in ("hip", "thigh", "calf"):
            body = f"{root_path}/{leg}_{part}"
            _rigid_body(stage, body, frames[part], leg_link(spec, leg, part))
            anchor = tuple(f - p for f, p in zip(frames[part], parent_pos))
            joint_path = f"{joints_path}/{leg}_{part}_joint"
            _revolute(stage, joint_path, parent, body, anchor, spec.joint(leg, part), spec.armature)
            parent, parent_pos = body, frames[part]
        _capsule(stage, f"{root_path}/{leg}_thigh/collision", spec.thigh_radius, spec.thigh_length,
                 -spec.thigh_length / 2)
        calf_length = spec.calf_length - spec.foot_radius
        _capsule(stage, f"{root_path}/{leg}_calf/collision", spec.calf_radius, calf_length, -calf_length / 2)

        foot = f"{root_path}/{leg}_foot"
        _rigid_body(stage, foot, frames["foot"], spec.foot)
        sphere = UsdGeom.Sphere.Define(stage, f"{foot}/collision")
        sphere.CreateRadiusAttr(spec.foot_radius)
        _collider(sphere)
        sphere.GetPrim().CreateAttribute("mjc:condim", Sdf.ValueTypeNames.Int).Set(FOOT_CONTACT_DIMENSION)
        fixed = UsdPhysics.FixedJoint.Define(stage, f"{joints_path}/{leg}_foot_joint")
        fixed.CreateBody0Rel().SetTargets([Sdf.Path(parent)])
        fixed.CreateBody1Rel().SetTargets([Sdf.Path(foot)])
        fixed.CreateLocalPos0Attr(Gf.Vec3f(0.0, 0.0, -spec.calf_length))
        fixed.CreateLocalPos1Attr(Gf.Vec3f(0.0, 0.0, 0.0))
    stage.GetRootLayer().Save()


def write_ground_plane_usd(path: str, size: float = 100.0) -> None:
    """A local stand-in for Isaac Lab's default ground plane, shaped as ``spawn_ground_plane`` expects.

    The spawner binds its physics material to the first child of type ``Plane``, scales ``Environment``
    and tints ``Looks/theGrid/Shader``; each of those prims exists here.
    """
    stage = Usd.Stage.CreateNew(path)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    root = UsdGeom.Xform.Define(stage, "/GroundPlane").GetPrim()
    stage.SetDefaultPrim(root)
    environment = UsdGeom.Xform.Define(stage, "/GroundPlane/Environment")
    environment.AddScaleOp().Set(Gf.Vec3f(1.0, 1.0, 1.0))
    half = size / 2.0
    mesh = UsdGeom.Mesh.Define(stage, "/GroundPlane/Environment/Geometry")
    mesh.CreatePointsAttr([(-half, -half, 0.0), (half, -half, 0.0), (half, half, 0.0), (-half, half, 0.0)])
    mesh.CreateFaceVertexCountsAttr([4])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
    UsdGeom.PrimvarsAPI(mesh).CreatePrimvar("st", Sdf.ValueTypeNames.TexCoord2fArray, UsdGeom.Tokens.varying)
    plane = UsdGeom.Plane.Define(stage, "/GroundPlane/CollisionPlane")
    plane.CreateAxisAttr("Z")
    plane.CreatePurposeAttr(UsdGeom.Tokens.guide)
    _collider(plane)
    shader = stage.DefinePrim("/GroundPlane/Looks/theGrid/Shader", "Shader")
    shader.CreateAttribute("inputs:diffuse_tint", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(0.5, 0.5, 0.5))
    stage.GetRootLayer().Save()
