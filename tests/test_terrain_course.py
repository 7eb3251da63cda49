"""sim2sim's terrain courses (:mod:`locolab.eval.terrain_course`): built from training's terrain numbers (read back
from Isaac Lab's generated stairs and slopes and from MuJoCo's model), the crossing rule, start offsets, bad values."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from locolab.assets import ensure_robot_files
from locolab.eval.sim2sim import MujocoRobot, run_sim2sim, sim2sim_course
from locolab.eval.terrain_course import STAIR_TREAD, TerrainCourse, read_heights
from locolab.tasks.go2_velocity_cpu_env_cfg import LocoLabGo2RoughEnvCfg_CPU

from test_sim2sim_state import POLICY_JOINTS, RecordingController


def training_tile(name: str, difficulty: float):
    """One sub-terrain of the CPU rough task, as Isaac Lab generates it: (mesh, origin)."""
    generator = LocoLabGo2RoughEnvCfg_CPU().scene.terrain.terrain_generator
    cfg = generator.sub_terrains[name]
    cfg.size = generator.size
    meshes, origin = cfg.function(difficulty, cfg)
    return trimesh.util.concatenate(meshes), np.asarray(origin), cfg


def heights_along_x(mesh: trimesh.Trimesh, origin: np.ndarray, distances: np.ndarray) -> np.ndarray:
    """The mesh's top surface at ``distances`` along +x from ``origin``, relative to the origin's height."""
    starts = np.stack([origin[0] + distances, np.full_like(distances, origin[1]), np.full_like(distances, 10.0)], 1)
    locations, rays, _ = mesh.ray.intersects_location(starts, np.tile([0.0, 0.0, -1.0], (len(distances), 1)))
    tops = np.full(len(distances), -np.inf)
    np.maximum.at(tops, rays, locations[:, 2])
    return tops - origin[2]


def first_rise(mesh: trimesh.Trimesh, origin: np.ndarray) -> float:
    """Distance along +x from the origin at which the surface first leaves the origin's height [m] (5 mm steps)."""
    distances = np.arange(0.0, 3.5, 0.005)
    return float(distances[np.argmax(np.abs(heights_along_x(mesh, origin, distances)) > 1e-3)])


def course_model(course: TerrainCourse):
    import mujoco

    spec = mujoco.MjSpec.from_file(str(ensure_robot_files().mjcf))
    course.add_to(spec)
    return spec.compile()


@pytest.mark.parametrize("riser", [0.05, 0.10, 0.12])
def test_the_staircase_has_the_training_stairs_treads_and_risers(riser):
    """Up the stairs of an inverted pyramid (a pit: the robot climbs out), from its platform's edge: each tread's
    centre in Isaac Lab's mesh and in MuJoCo's course are at the same height."""
    low, high = LocoLabGo2RoughEnvCfg_CPU().scene.terrain.terrain_generator.sub_terrains[
        "pyramid_stairs_inv"].step_height_range
    mesh, origin, cfg = training_tile("pyramid_stairs_inv", (riser - low) / (high - low))
    course = TerrainCourse("stairs", step_height=riser)
    assert cfg.step_width == STAIR_TREAD
    centres = (np.arange(course.steps) + 0.5) * STAIR_TREAD
    trained = heights_along_x(mesh, origin, first_rise(mesh, origin) + centres)
    built = read_heights(course_model(course), course.start + centres)
    np.testing.assert_allclose(built, trained, atol=1e-4)
    np.testing.assert_allclose(np.diff(built), riser, atol=1e-4)
    down = read_heights(course_model(course), course.end - centres)  # and the way down, tread for tread
    np.testing.assert_allclose(down, built, atol=1e-4)


def test_the_ramp_has_the_training_slopes_rise_over_run():
    low, high = LocoLabGo2RoughEnvCfg_CPU().scene.terrain.terrain_generator.sub_terrains[
        "hf_pyramid_slope_inv"].slope_range
    mesh, origin, cfg = training_tile("hf_pyramid_slope_inv", (0.3 - low) / (high - low))
    run = np.array([0.5, 1.5])
    trained = heights_along_x(mesh, origin, first_rise(mesh, origin) + run)
    course = TerrainCourse("slope", slope=0.3)
    built = read_heights(course_model(course), course.start + run)
    assert np.diff(built)[0] == pytest.approx(0.3, abs=1e-6)
    assert np.diff(trained)[0] == pytest.approx(np.diff(built)[0], abs=0.011)  # Isaac Lab's 5 mm height steps


def carry_across(course: TerrainCourse, knock_down_at: float | None = None):
    """A run whose base is carried along the course at 0.6 m/s, clear of the surface (or knocked down once)."""
    def carry(robot: MujocoRobot, time_s: float) -> None:
        x = course.start - 0.5 + 0.6 * time_s
        if knock_down_at is not None and knock_down_at <= time_s < knock_down_at + 0.1:
            robot.data.qpos[2] = 0.05
            return
        robot.data.qpos[0:3] = [x, 0.0, course.height(np.array([x]))[0] + 0.45]
        robot.data.qpos[3:7] = [1.0, 0.0, 0.0, 0.0]
        robot.data.qvel[:] = 0.0

    return run_sim2sim(RecordingController(), ensure_robot_files().mjcf, seconds=12.0, command=(0.5, 0.0, 0.0),
                       disturbance=carry, course=course)


@pytest.mark.parametrize("kind", ["stairs", "slope"])
def test_crossing_counts_only_a_robot_that_passes_the_last_edge_before_any_fall(kind):
    course = TerrainCourse(kind)
    crossed = carry_across(course)
    assert crossed.course["crossed"] and crossed.falls == 0 and crossed.course["farthest_x"] > course.end
    knocked = carry_across(course, knock_down_at=3.0)  # fell on the way up, then carried across: not counted
    assert knocked.falls >= 1 and not knocked.course["crossed"]
    assert knocked.course["farthest_x"] < course.start + course.climb


@pytest.mark.parametrize("yaw,yaw_rate", [(0.4, -0.2), (-0.4, 0.2), (3.0, -1.0), (2 * np.pi + 0.4, -0.2)])
def test_the_course_commands_the_yaw_rate_that_turns_the_robot_back_to_its_axis(yaw, yaw_rate):
    """A base held at ``yaw``: each command the policy reads asks for Isaac Lab's heading-command yaw rate (0.5 per
    radian of wrapped error, within +-1 rad/s), and the tracking error is measured against that command."""
    def hold_turned(robot: MujocoRobot, _: float) -> None:
        robot.data.qpos[0:3] = [0.0, 0.0, 0.45]
        robot.data.qpos[3:7] = [np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)]
        robot.data.qvel[:] = 0.0

    controller = RecordingController()
    held = run_sim2sim(controller, ensure_robot_files().mjcf, seconds=0.5, command=(0.5, 0.0, 0.0),
                       disturbance=hold_turned, course=TerrainCourse(), hold_heading=0.0)
    later = np.array([state.command for state in controller.states[1:]])  # the first is read before the hold
    assert later[:, 2] == pytest.approx(yaw_rate, abs=1e-3) and later[:, 0] == pytest.approx(0.5)
    asked = np.abs([state.command[2] for state in controller.states]).mean()  # the base is held still
    assert held.ang_vel_error == pytest.approx(asked, abs=0.02) and held.course["hold_heading"] == 0.0
    fixed = RecordingController()
    run_sim2sim(fixed, ensure_robot_files().mjcf, seconds=0.2, command=(0.5, 0.0, 0.0), disturbance=hold_turned)
    assert all(state.command[2] == 0.0 for state in fixed.states)


def test_a_course_holds_its_axis_unless_told_not_to():
    mjcf, course = ensure_robot_files().mjcf, TerrainCourse()
    _, held = sim2sim_course(RecordingController(), mjcf, course, seconds=0.1, offsets=((0.0, 0.0),))
    _, free = sim2sim_course(RecordingController(), mjcf, course, seconds=0.1, offsets=((0.0, 0.0),),
                             hold_course_heading=False)
    assert held[0]["hold_heading"] == 0.0 and free[0]["hold_heading"] is None


def test_the_robot_starts_at_its_offset_and_the_flat_run_has_no_course():
    robot = MujocoRobot(ensure_robot_files().mjcf, POLICY_JOINTS, course=TerrainCourse(), start_offset=(-0.2, 0.3))
    robot.reset(np.zeros(12))
    assert robot.data.qpos[0:2] == pytest.approx([-0.2, 0.3])
    flat = run_sim2sim(RecordingController(), ensure_robot_files().mjcf, seconds=0.1, command=(0.0, 0.0, 0.0))
    assert flat.course is None


@pytest.mark.parametrize("course,message", [
    (TerrainCourse("stairs", step_height=-0.1), "positive finite"),
    (TerrainCourse("stairs", step_height=0.5), "over 0.3 m"),
    (TerrainCourse("slope", slope=1.5), "over 1.0"),
    (TerrainCourse("stairs", steps=0), "positive finite"),
    (TerrainCourse("gravel"), "unknown terrain"),
])
def test_bad_courses_are_one_line_errors(course, message):
    with pytest.raises(ValueError, match=message) as error:
        course.check()
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("option,message", [
    (["--terrain", "stairs", "--step_height", "0.5"],
     "--step_height 0.5 m is over 0.3 m or --steps 5 is not whole: the Go2 trains on risers up to 0.12 m."),
    (["--terrain", "slope", "--slope", "-0.2"], "a terrain course takes positive finite numbers, got "),
])
def test_sim2sim_refuses_a_bad_course_in_one_line(option, message, capsys, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("sim2sim_script", "scripts/sim2sim.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--policy", str(tmp_path), *option]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"error: {message}") and "\n" not in error
