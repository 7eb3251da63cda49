"""The rough task's terrain as the physics collides it (:mod:`locolab.envs.terrain`): a heightfield, on which robots
stand at their standing height above their tiles in MuJoCo's C engine (training's) and in MuJoCo-Warp (play's); and
what PPO-ROA's teacher and blind student see of it."""

from __future__ import annotations

import math

import pytest
import torch

from conftest import probe_report


@pytest.fixture(scope="module", params=["mujoco_c", "mujoco_warp"])
def standing(request) -> dict:
    return probe_report("tests/probe_terrain.py", "--engine", request.param)


def test_robots_stand_on_every_tile_including_pits(standing):
    """Each base rests 0.2-0.4 m above its tile's origin, with no termination. The probe's robots start on every
    difficulty level, so some stand in pits below zero: there, before the heightfield's offset was restored in
    :class:`locolab.envs.mujoco_c.SolverMuJoCoC`, MuJoCo C lifted the terrain by its depth (robots fell through it,
    or stood inside it and ended on base contact)."""
    assert min(standing["origins_z"]) < -0.3  # pits are present
    assert not any(standing["terminated"]), standing
    for height in standing["heights"]:
        assert 0.2 < height < 0.4, standing


def test_mujoco_cs_worlds_share_the_terrains_big_model(standing):
    """The heightfield makes MuJoCo's model big (1.8 GB for a process's 256 copies on the CPU grid): MuJoCo C's
    worlds share one (:data:`locolab.envs.mujoco_c.SHARED_MODEL_MIN_BYTES`; the robots above stood on it)."""
    from locolab.envs.mujoco_c import SHARED_MODEL_MIN_BYTES

    assert standing["model_bytes"] > SHARED_MODEL_MIN_BYTES
    assert standing["shares_world_model"] is (True if standing["engine"] == "mujoco_c" else None)


def test_the_engine_collides_stair_risers_one_5cm_cell_wide(standing):
    """The heightfield the engine collides has the cells of :data:`locolab.envs.terrain.HEIGHTFIELD_SCALE`: a riser is
    a ramp one cell wide. At Isaac Lab's 0.1 m a 10 cm riser was a 45-degree ramp, and a student that crossed the gate's
    10 cm stairs fell on MuJoCo's vertical risers in sim-to-sim (docs/rough-terrain.md)."""
    assert len(standing["hfield_cells"]) == 1, standing["hfield_cells"]
    for cell in standing["hfield_cells"][0]:
        assert cell == pytest.approx(0.05, abs=1e-3)


def flat_centred(standing: dict) -> list[int]:
    """The probe's robots on tiles with a flat centre (every type but random noise): at least 8 of its 16."""
    from locolab.envs.mdp.terrain_levels import column_types
    from locolab.tasks.go2_velocity_cpu_env_cfg import LocoLabGo2RoughEnvCfg_CPU

    types = column_types(LocoLabGo2RoughEnvCfg_CPU().scene.terrain.terrain_generator)
    robots = [i for i, column in enumerate(standing["columns"]) if types[column] != "random_rough"]
    assert len(robots) >= 8, standing["columns"]
    return robots


def test_standing_feet_read_a_clearance_near_zero_where_the_tile_is_flat(standing):
    """Standing feet touch the ground the height scanner sees (:func:`locolab.envs.mdp.swing_clearance.foot_clearance`:
    its nearest ray below each foot, the swing-clearance reward's view): on the tiles' flat centres (every type but
    random noise) each foot's lowest point within 1 cm of it. MuJoCo C once held the feet 2 cm above its heightfield
    (Newton's contact gaps, :meth:`locolab.envs.mujoco_c.SolverMuJoCoC._update_geom_properties`)."""
    for i in flat_centred(standing):
        assert max(abs(value) for value in standing["foot_clearance"][i]) < 0.01, (i, standing["foot_clearance"][i])


def test_standing_feet_carry_the_robot_on_vertical_contact_normals_and_no_stumble(standing):
    """The contact sensor's normal forces, which the foot-stumble penalty reads (:mod:`locolab.envs.mdp.foot_stumble`),
    are filled in by the engine: on the flat-centred tiles the feet's vertical normals carry the robot's weight (within
    15 %) and none leans past 1:1, so a standing robot pays nothing."""
    for i in flat_centred(standing):
        assert standing["feet_normal_z"][i] == pytest.approx(standing["weight"], rel=0.15), (i, standing)
        assert standing["foot_stumble"][i] < 0.01, (i, standing)


def test_no_robot_times_out_while_the_end_for_stalled_robots_is_off(standing):
    """Off by default (:data:`locolab.tasks.go2_velocity_env_cfg.STALLED`): robots that stand still for their probe's
    second under commands to walk are not ended."""
    assert any(math.hypot(*command[:2]) > 0.5 for command in standing["commands"]), standing["commands"]
    assert standing["timed_out_at"] == [0] * len(standing["commands"])


def test_the_end_for_stalled_robots_times_out_each_robot_that_stands_under_a_command_to_walk():
    """With ``stalled.params.seconds`` at 0.5 (:mod:`locolab.envs.mdp.stall`), each robot standing under a linear
    command above 0.2 m/s ends as a time-out (truncated, not terminated) within its probe's second but not before 25
    steps after its first (later where it settled more than 0.1 m at first), and no other robot does."""
    report = probe_report("tests/probe_terrain.py", "--stall_seconds", "0.5")
    walking = [math.hypot(*command[:2]) > 0.2 for command in report["commands"]]
    assert any(walking) and not all(walking), report["commands"]
    for walks, step in zip(walking, report["timed_out_at"]):
        assert 26 <= step <= 50 if walks else step == 0, (report["commands"], report["timed_out_at"])
    assert report["timed_out_at"].count(26) >= sum(walking) // 2, report["timed_out_at"]
    assert not any(report["terminated"])


@pytest.fixture(scope="module")
def rough_roa() -> dict:
    return probe_report("tests/probe_rough_roa.py")


def test_the_teachers_latent_reads_the_terrain_and_the_student_stays_blind(rough_roa):
    """On rough terrain the teacher's privileged input ends with the height scan, its latent moves when the scan
    alone is replaced by level ground, and the student (its estimate from the history, its actor) reads only
    proprioception and the gait clock: the 45 values a flat policy reads and 2, nothing of the scan."""
    assert rough_roa["priv_terms"][-1] == "height_scan"
    assert rough_roa["scan_columns"][1] - rough_roa["scan_columns"][0] == 187  # 17 x 11 rays
    assert rough_roa["scan_spread"] > 0.01  # the robots' scans see uneven ground
    assert rough_roa["latent_change"] > 1e-3
    assert rough_roa["student_estimate_change"] == 0.0
    assert rough_roa["student_groups"] == ["history", "policy"] and rough_roa["policy_dim"] == 45 + 2


def test_the_height_scan_hits_the_heightfield_the_physics_collides_off_the_tiles_centres():
    """What the teacher's encoder and a sighted actor read is the ground the feet meet: robots reset 1-3 m off their
    tiles' centres on every difficulty, each ray's hit within a millimetre of the collided heightfield for 95 % of the
    rays (a riser's one-cell ramp, where interpolations differ, is the rest), over stairs, boxes and slopes."""
    report = probe_report("tests/probe_height_scan.py")
    assert report["missed"] == 0 and report["rays"] == 32 * 187
    assert report["height_span"] > 0.5  # the rays met stairs, pits and slopes, not only flat platforms
    assert report["p95_error"] < 0.002 and report["over_3cm"] < 0.01, report


def test_column_types_follow_isaac_labs_generator_and_levels_are_averaged_per_type(standing):
    """Stairs down and slopes up start a robot on a summit, stairs up and slopes down in a pit: the origins' heights
    on the generated terrain confirm each column's type, and the levels are averaged by it."""
    from locolab.envs.mdp.terrain_levels import column_types, levels_by_type
    from locolab.tasks.go2_velocity_cpu_env_cfg import LocoLabGo2RoughEnvCfg_CPU

    generator = LocoLabGo2RoughEnvCfg_CPU().scene.terrain.terrain_generator
    types = column_types(generator)
    assert types == ["pyramid_stairs"] * 2 + ["pyramid_stairs_inv"] * 2 + ["boxes"] * 2 + ["random_rough"] * 2 + [
        "hf_pyramid_slope", "hf_pyramid_slope_inv"]
    sign = {"pyramid_stairs": 1, "hf_pyramid_slope": 1, "pyramid_stairs_inv": -1, "hf_pyramid_slope_inv": -1}
    checked = 0
    for column, level, height in zip(standing["columns"], standing["levels"], standing["origins_z"]):
        if types[column] in sign and level >= 3:
            assert height * sign[types[column]] > 0.1, (types[column], level, height)
            checked += 1
    assert checked >= 3
    levels, columns = torch.tensor([0, 2, 4, 9]), torch.tensor([0, 1, 9, 9])
    assert levels_by_type(generator, levels, columns) == pytest.approx(
        {"mean": 3.75, "pyramid_stairs": 1.0, "hf_pyramid_slope_inv": 6.5, "pyramid_stairs_inv": float("nan"),
         "boxes": float("nan"), "random_rough": float("nan"), "hf_pyramid_slope": float("nan")}, nan_ok=True)


def test_terrain_levels_move_as_the_curriculum_says_and_are_logged_by_type():
    """Carried 5 m (more than half a tile): one level up; standing under a 1 m/s command (less than half the asked
    distance): one level down, not below 0. TensorBoard gets the mean and each type's mean."""
    from locolab.envs.mdp.terrain_levels import column_types
    from locolab.tasks.go2_velocity_cpu_env_cfg import LocoLabGo2RoughEnvCfg_CPU

    moved = probe_report("tests/probe_terrain_levels.py")
    before, after = moved["before"], moved["after"]
    assert moved["time_outs"] == 8
    assert after[:4] == [level + 1 for level in before[:4]]
    assert after[4:] == [max(level - 1, 0) for level in before[4:]]
    logged = moved["logged"]
    assert logged["Curriculum/terrain_levels/mean"] == pytest.approx(sum(after) / 8)
    types = column_types(LocoLabGo2RoughEnvCfg_CPU().scene.terrain.terrain_generator)
    columns = [int(env / (8 / len(types))) for env in range(8)]  # Isaac Lab spreads robots over the columns
    for name in dict.fromkeys(types):
        levels = [level for level, column in zip(after, columns) if types[column] == name]
        expected = sum(levels) / len(levels) if levels else float("nan")
        assert logged[f"Curriculum/terrain_levels/{name}"] == pytest.approx(expected, nan_ok=True), name


class _Scene(dict):
    """Stands in for an InteractiveScene: ``scene["robot"]``, ``env_origins`` and ``terrain``."""


def fake_curriculum_env(distances: list[float], terminated: list[bool], command: float = 1.0):
    """Robots ``distances`` [m] from their origins along x at their episodes' end, under a ``command`` [m/s] for 20 s
    episodes; the terrain records the moves it is given."""
    from types import SimpleNamespace

    count = len(distances)
    origins = torch.zeros(count, 3)
    position = origins.clone()
    position[:, 0] = torch.tensor(distances)
    moves = []
    generator = SimpleNamespace(size=(8.0, 8.0), num_cols=1, sub_terrains={"flat": SimpleNamespace(proportion=1.0)})
    terrain = SimpleNamespace(cfg=SimpleNamespace(terrain_generator=generator),
                              update_env_origins=lambda ids, up, down: moves.append((up.tolist(), down.tolist())),
                              terrain_levels=torch.zeros(count, dtype=torch.long),
                              terrain_types=torch.zeros(count, dtype=torch.long))
    scene = _Scene(robot=SimpleNamespace(data=SimpleNamespace(root_pos_w=SimpleNamespace(torch=position))))
    scene.env_origins, scene.terrain = origins, terrain
    commands = torch.tensor([[command, 0.0, 0.0]] * count)
    env = SimpleNamespace(scene=scene, command_manager=SimpleNamespace(get_command=lambda name: commands),
                          termination_manager=SimpleNamespace(terminated=torch.tensor(terminated)),
                          max_episode_length_s=20.0)
    return env, moves


def test_a_fall_is_promoted_by_isaac_labs_rule_and_not_when_falls_are_not_promoted():
    """Half a tile away (4 m) then a fall: Isaac Lab promotes it; ``promote_falls=False`` demotes it instead (it walked
    less than half of its 20 m). The rule with falls promoted is Isaac Lab's own, move for move."""
    from isaaclab.managers import SceneEntityCfg
    from isaaclab_tasks.core.velocity.mdp import terrain_levels_vel

    from locolab.envs.mdp.terrain_levels import level_moves

    ids = torch.arange(4)
    env, moves = fake_curriculum_env([5.0, 5.0, 1.0, 1.0], [False, True, False, True])
    terrain_levels_vel(env, ids, SceneEntityCfg("robot"))
    up, down = level_moves(env, ids, SceneEntityCfg("robot"))
    assert moves == [(up.tolist(), down.tolist())] == [([True, True, False, False], [False, False, True, True])]
    up, down = level_moves(env, ids, SceneEntityCfg("robot"), promote_falls=False)
    assert up.tolist() == [True, False, False, False] and down.tolist() == [False, True, True, True]
    env, _ = fake_curriculum_env([5.0], [True], command=0.3)  # asked for 6 m: 5 m is enough not to go down
    up, down = level_moves(env, torch.arange(1), SceneEntityCfg("robot"), promote_falls=False)
    assert up.tolist() == [False] and down.tolist() == [False]


def test_a_types_promotion_distance_moves_its_line_and_no_other_types():
    """``promote_distance={"boxes": 3.0}``: a robot 3.5 m out on a box column goes up, one 3.5 m out on a stairs column
    does not (half a tile, 4 m, still holds there); a name the terrain lacks is a one-line error that lists the types."""
    from types import SimpleNamespace

    from isaaclab.managers import SceneEntityCfg

    from locolab.envs.mdp.terrain_levels import level_moves

    env, _ = fake_curriculum_env([3.5, 3.5, 4.5], [False, False, False], command=0.3)
    generator = env.scene.terrain.cfg.terrain_generator
    generator.num_cols = 2
    generator.sub_terrains = {"boxes": SimpleNamespace(proportion=0.5), "stairs": SimpleNamespace(proportion=0.5)}
    env.scene.terrain.terrain_types = torch.tensor([0, 1, 1])
    ids = torch.arange(3)
    up, _ = level_moves(env, ids, SceneEntityCfg("robot"))
    assert up.tolist() == [False, False, True]
    up, down = level_moves(env, ids, SceneEntityCfg("robot"), promote_distance={"boxes": 3.0})
    assert up.tolist() == [True, False, True] and down.tolist() == [False, False, False]
    with pytest.raises(ValueError, match="promote_distance names box, .*use boxes, stairs"):
        level_moves(env, ids, SceneEntityCfg("robot"), promote_distance={"box": 3.0})
