"""Isaac Lab's terrain curriculum, logged per sub-terrain type.

Isaac Lab's ``terrain_levels_vel`` promotes a robot that walked more than half a tile and demotes one that walked less
than half of what its command asked; it logs only the mean level over all robots, in which stairs a policy cannot
climb hide behind slopes it has mastered. :func:`terrain_levels_by_type` runs the same promotion and logs the mean
level of the robots on each sub-terrain type beside it (TensorBoard: ``Curriculum/terrain_levels/<type>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch
from isaaclab.managers import SceneEntityCfg
from isaaclab.terrains import TerrainGeneratorCfg
from isaaclab_tasks.core.velocity.mdp import terrain_levels_vel

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv


def column_types(generator: TerrainGeneratorCfg) -> list[str]:
    """Each terrain column's sub-terrain name, by the rule of Isaac Lab's curriculum generator
    (``TerrainGenerator._generate_curriculum_terrains``: columns in order of the proportions, not drawn)."""
    names = list(generator.sub_terrains)
    shares = np.cumsum([sub.proportion for sub in generator.sub_terrains.values()], dtype=float)
    shares /= shares[-1]
    return [names[int(np.min(np.flatnonzero(column / generator.num_cols + 0.001 < shares)))]
            for column in range(generator.num_cols)]


def levels_by_type(generator: TerrainGeneratorCfg, levels: torch.Tensor, columns: torch.Tensor) -> dict[str, float]:
    """The mean level of all robots (``mean``) and of the robots on each sub-terrain type (NaN where none is)."""
    types = column_types(generator)
    result = {"mean": levels.float().mean().item()}
    for name in generator.sub_terrains:
        of_type = torch.tensor([index for index, kind in enumerate(types) if kind == name], device=columns.device)
        on = torch.isin(columns, of_type)
        result[name] = levels[on].float().mean().item() if on.any() else float("nan")
    return result


def terrain_levels_by_type(env: ManagerBasedRLEnv, env_ids: Sequence[int],
                           asset_cfg: SceneEntityCfg = SceneEntityCfg("robot")) -> dict[str, float]:
    """Isaac Lab's ``terrain_levels_vel`` (the same promotion and demotion), returning the levels by type."""
    terrain_levels_vel(env, env_ids, asset_cfg)
    terrain = env.scene.terrain
    return levels_by_type(terrain.cfg.terrain_generator, terrain.terrain_levels, terrain.terrain_types)
