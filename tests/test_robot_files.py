"""The robot is described once (the spec table); its USD and MJCF are generated, cached, and agree."""

from __future__ import annotations

import dataclasses
import math

import mujoco
import numpy as np
import pytest
from pxr import Usd, UsdGeom, UsdPhysics

from locolab.assets import GO2_SPEC, LEGS, ensure_robot_files
from locolab.assets import robot_files

BODIES = ["base"] + [f"{leg}_{part}" for leg in LEGS for part in ("hip", "thigh", "calf", "foot")]


@pytest.fixture(scope="module")
def files():
    return ensure_robot_files()


@pytest.fixture(scope="module")
def usd_robot(files):
    """Per body: mass, world position at zero joints; per joint: axis and limits [rad] from the USD."""
    stage = Usd.Stage.Open(str(files.usd))
    root = stage.GetDefaultPrim()
    bodies, joints = {}, {}
    for prim in Usd.PrimRange(root):
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            mass = UsdPhysics.MassAPI(prim)
            position = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(0).ExtractTranslation()
            bodies[prim.GetName()] = {
                "mass": mass.GetMassAttr().Get(),
                "com": tuple(mass.GetCenterOfMassAttr().Get()),
                "inertia": tuple(mass.GetDiagonalInertiaAttr().Get()),
                "pos": tuple(position),
            }
        if prim.IsA(UsdPhysics.RevoluteJoint):
            joint = UsdPhysics.RevoluteJoint(prim)
            joints[prim.GetName()] = {
                "axis": joint.GetAxisAttr().Get().lower(),
                "range": (math.radians(joint.GetLowerLimitAttr().Get()), math.radians(joint.GetUpperLimitAttr().Get())),
                "effort": UsdPhysics.DriveAPI(prim, "angular").GetMaxForceAttr().Get(),
            }
    return {"root_is_articulation": root.HasAPI(UsdPhysics.ArticulationRootAPI), "bodies": bodies, "joints": joints}


@pytest.fixture(scope="module")
def mj_model(files):
    return mujoco.MjModel.from_xml_path(str(files.mjcf))


def test_usd_is_an_articulation_with_isaac_lab_go2_names(usd_robot):
    assert usd_robot["root_is_articulation"]
    assert sorted(usd_robot["bodies"]) == sorted(BODIES)
    assert sorted(usd_robot["joints"]) == sorted(GO2_SPEC.joint_names())


def test_usd_masses_and_limits_come_from_the_spec(usd_robot):
    total = sum(body["mass"] for body in usd_robot["bodies"].values())
    assert total == pytest.approx(GO2_SPEC.total_mass(), rel=1e-6)
    assert total == pytest.approx(15.0, abs=0.2)  # published Go2 mass with battery
    calf = usd_robot["joints"]["RR_calf_joint"]
    assert calf["range"] == pytest.approx((GO2_SPEC.calf_joint.lower, GO2_SPEC.calf_joint.upper), abs=1e-5)
    assert calf["effort"] == pytest.approx(45.43, rel=1e-6)
    assert usd_robot["joints"]["RL_thigh_joint"]["range"] == pytest.approx((-0.5236, 4.5379), abs=1e-4)
    assert usd_robot["joints"]["FL_thigh_joint"]["range"] == pytest.approx((-1.5708, 3.4907), abs=1e-4)


def test_mjcf_agrees_with_usd_on_masses_inertias_and_kinematics(usd_robot, mj_model):
    data = mujoco.MjData(mj_model)
    data.qpos[:3] = 0.0  # base at the origin, as in the USD
    mujoco.mj_kinematics(mj_model, data)
    for name, body in usd_robot["bodies"].items():
        index = mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_BODY, name)
        assert index >= 0, name
        assert mj_model.body_mass[index] == pytest.approx(body["mass"], rel=1e-6), name
        assert sorted(mj_model.body_inertia[index]) == pytest.approx(sorted(body["inertia"]), rel=1e-4), name
        assert mj_model.body_ipos[index] == pytest.approx(body["com"], abs=1e-6), name
        assert data.xpos[index] == pytest.approx(body["pos"], abs=1e-6), name
    assert mj_model.body_subtreemass[1] == pytest.approx(GO2_SPEC.total_mass(), rel=1e-6)


def test_mjcf_agrees_with_usd_on_joints_and_limits(usd_robot, mj_model):
    hinges = [mj_model.joint(i) for i in range(mj_model.njnt) if mj_model.jnt_type[i] == mujoco.mjtJoint.mjJNT_HINGE]
    assert sorted(j.name for j in hinges) == sorted(usd_robot["joints"])
    for joint in hinges:
        usd_joint = usd_robot["joints"][joint.name]
        axis = np.zeros(3)
        axis["xyz".index(usd_joint["axis"])] = 1.0
        assert joint.axis == pytest.approx(axis), joint.name
        assert joint.range == pytest.approx(usd_joint["range"], abs=1e-5), joint.name
        assert mj_model.jnt_actfrcrange[joint.id] == pytest.approx((-usd_joint["effort"], usd_joint["effort"]))
        assert mj_model.dof_armature[joint.dofadr[0]] == pytest.approx(GO2_SPEC.armature)


def test_default_pose_stands_at_the_published_height():
    assert 0.30 <= GO2_SPEC.standing_height() <= 0.34


def in_a_cache_of_its_own(monkeypatch, folder) -> None:
    """Generated files go to ``folder``: the cache folder and the asset root under it (both set on import)."""
    monkeypatch.setattr(robot_files, "CACHE_DIR", folder)
    monkeypatch.setattr(robot_files, "ASSET_ROOT", folder / "asset_root")


def test_files_are_cached_and_regenerated_when_the_table_changes(tmp_path, monkeypatch):
    in_a_cache_of_its_own(monkeypatch, tmp_path)
    spec = dataclasses.replace(GO2_SPEC, name="go2_probe")
    first = robot_files.ensure_robot_files(spec)
    stamp = first.usd.stat().st_mtime_ns
    assert robot_files.ensure_robot_files(spec).usd.stat().st_mtime_ns == stamp  # unchanged table: reused

    heavier = dataclasses.replace(spec, base=dataclasses.replace(spec.base, mass=8.0))
    second = robot_files.ensure_robot_files(heavier)
    assert second.usd == first.usd
    stage = Usd.Stage.Open(str(second.usd))
    base = stage.GetPrimAtPath("/go2_probe/base")
    assert UsdPhysics.MassAPI(base).GetMassAttr().Get() == pytest.approx(8.0)
    base_mj = mujoco.MjModel.from_xml_path(str(second.mjcf)).body("base")
    assert base_mj.mass[0] == pytest.approx(8.0)


def test_a_change_in_a_writers_source_regenerates_the_files(tmp_path, monkeypatch):
    in_a_cache_of_its_own(monkeypatch, tmp_path)
    spec = dataclasses.replace(GO2_SPEC, name="go2_writer_probe")
    first = robot_files.ensure_robot_files(spec)
    stamp = first.mjcf.stat().st_mtime_ns
    real_getsource = robot_files.inspect.getsource

    def edited_source(module):  # as if mjcf_writer.py had been edited
        return real_getsource(module) + ("\n# edited" if module is robot_files.mjcf_writer else "")

    monkeypatch.setattr(robot_files.inspect, "getsource", edited_source)
    second = robot_files.ensure_robot_files(spec)
    assert second.mjcf.stat().st_mtime_ns != stamp
