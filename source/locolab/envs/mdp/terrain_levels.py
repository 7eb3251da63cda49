"""Isaac Lab's terrain curriculum, logged per sub-terrain type.

Isaac Lab's ``terrain_levels_vel`` promotes a robot that walked more than half a tile and demotes one that walked less
than half of what its command asked; it logs only the mean level over all robots, in which stairs a policy cannot
climb hide behind slopes it has mastered. :func:`terrain_levels_by_type` runs the same promotion and logs the mean
level of the robots on each sub-terrain type beside it (TensorBoard: ``Curriculum/terrain_levels/<type>``); it can
promote a type's robots at another distance than half a tile (``promote_distance``), which Isaac Lab's rule cannot.
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


def check_promote_distance(generator: TerrainGeneratorCfg, promote_distance: dict[str, float]) -> None:
    """A ValueError for a ``promote_distance`` that names a type the terrain lacks or holds no positive number."""
    unknown = sorted(set(promote_distance) - set(generator.sub_terrains))
    if unknown:
        raise ValueError(f"promote_distance names {', '.join(unknown)}, which the terrain does not have: use "
                         f"{', '.join(generator.sub_terrains)}.")
    for name, metres in promote_distance.items():
        if isinstance(metres, bool) or not isinstance(metres, int | float) or not 0 < metres < float("inf"):
            raise ValueError(f"promote_distance[{name}] must be a positive distance in metres, got {metres!r}.")


def check_terrain_curriculum(env_cfg) -> None:
    """Refuse a terrain curriculum whose ``promote_distance`` is bad (:func:`check_promote_distance`) before any
    environment is built: inside the simulation it would stop the run at the first episode's end."""
    term = getattr(getattr(env_cfg, "curriculum", None), "terrain_levels", None)
    generator = getattr(getattr(env_cfg.scene, "terrain", None), "terrain_generator", None)
    if term is not None and generator is not None and term.params.get("promote_distance"):
        check_promote_distance(generator, term.params["promote_distance"])


def promotion_distances(generator: TerrainGeneratorCfg, columns: torch.Tensor,
                        promote_distance: dict[str, float]) -> torch.Tensor:
    """For robots on terrain ``columns``, the distance [m] that promotes each: its sub-terrain type's entry in
    ``promote_distance``, else half a tile (Isaac Lab's)."""
    check_promote_distance(generator, promote_distance)
    half_tile = generator.size[0] / 2
    per_column = [float(promote_distance.get(kind, half_tile)) for kind in column_types(generator)]
    return torch.tensor(per_column, device=columns.device)[columns]


def level_moves(env: ManagerBasedRLEnv, env_ids: Sequence[int], asset_cfg: SceneEntityCfg,
                promote_falls: bool = True, promote_distance: dict[str, float] | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """Isaac Lab's ``terrain_levels_vel`` rule, (move_up, move_down) for ``env_ids`` as their episodes end: up past half
    a tile from the origin, down under half the commanded distance. ``promote_falls=False`` promotes no robot whose
    episode ended in a termination other than a time-out (a fall), however far it got first; ``promote_distance``
    (:func:`promotion_distances`) moves the promotion line of the sub-terrain types it names."""
    asset = env.scene[asset_cfg.name]
    terrain = env.scene.terrain
    command = env.command_manager.get_command("base_velocity")
    distance = torch.linalg.norm(asset.data.root_pos_w.torch[env_ids, :2] - env.scene.env_origins[env_ids, :2], dim=1)
    generator = terrain.cfg.terrain_generator
    move_up = distance > promotion_distances(generator, terrain.terrain_types[env_ids], promote_distance or {})
    if not promote_falls:
        move_up &= ~env.termination_manager.terminated[env_ids]
    move_down = distance < torch.linalg.norm(command[env_ids, :2], dim=1) * env.max_episode_length_s * 0.5
    return move_up, move_down & ~move_up


def terrain_levels_by_type(env: ManagerBasedRLEnv, env_ids: Sequence[int],
                           asset_cfg: SceneEntityCfg = SceneEntityCfg("robot"),
                           promote_falls: bool = True, promote_distance: dict[str, float] | None = None,
                           ) -> dict[str, float]:
    """Isaac Lab's ``terrain_levels_vel`` (the same promotion and demotion), returning the levels by type.
    ``promote_falls=False`` (:func:`level_moves`): Isaac Lab promotes a robot that got half a tile away and then fell,
    which the terrain sweep counts as a failure. ``promote_distance``: {sub-terrain: metres} that promote there."""
    terrain = env.scene.terrain
    if promote_falls and not promote_distance:
        terrain_levels_vel(env, env_ids, asset_cfg)
    else:
        terrain.update_env_origins(env_ids, *level_moves(env, env_ids, asset_cfg, promote_falls, promote_distance))
    return levels_by_type(terrain.cfg.terrain_generator, terrain.terrain_levels, terrain.terrain_types)
