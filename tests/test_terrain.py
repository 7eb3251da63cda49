"""The rough task's terrain as the physics collides it (:mod:`locolab.envs.terrain`): a heightfield, on which robots
stand at their standing height above their tiles in MuJoCo's C engine (training's) and in MuJoCo-Warp (play's)."""

from __future__ import annotations

import pytest

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
