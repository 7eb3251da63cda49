"""The terrain sweep (``eval.py --sweep terrain``): each terrain type at fixed difficulties, robots commanded 0.5 m/s
forward from the middle of their tile; a robot succeeds when it gets at least 3 m from the tile's centre and does not
fall in its 20 s (a fall after 3 m, on the last steps of a staircase, fails too).

The sweep lays its own terrain from the training task's sub-terrains: one tile per (type, difficulty), the tile's
parameter held at the difficulty's value (a stair riser, a slope as rise over run, a box height), one tile per
column (Isaac Lab's curriculum generator gives each column one sub-terrain when their shares are equal), and
:data:`ROBOTS_PER_TILE` robots on each. Stairs and slopes "up" are Isaac Lab's inverted pyramids (a pit the robot
climbs out of), "down" its pyramids (a summit it descends from). Random rough ground has no difficulty parameter in
Isaac Lab (its noise is the same at every level): it is swept at the training noise.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import torch

from locolab.envs.commands import fix_velocity_command

SUCCESS_DISTANCE = 3.0
"""Distance from the tile's centre [m] that counts as crossing the terrain."""
ROBOTS_PER_TILE = 16
SECONDS = 20.0
COMMAND = (0.5, 0.0, 0.0)
TERRAIN_TYPES = {
    "stairs_up": ("pyramid_stairs_inv", "step_height_range", (0.05, 0.08, 0.10, 0.12)),
    "stairs_down": ("pyramid_stairs", "step_height_range", (0.05, 0.08, 0.10, 0.12)),
    "slope_up": ("hf_pyramid_slope_inv", "slope_range", (0.2, 0.3, 0.4)),
    "slope_down": ("hf_pyramid_slope", "slope_range", (0.2, 0.3, 0.4)),
    "boxes": ("boxes", "grid_height_range", (0.10,)),
    "rough": ("random_rough", None, (0.06,)),
}
"""Type: (the training terrain's sub-terrain, its difficulty parameter (a range, held at one value), the values)."""
STOP_SECONDS = 2.0
STOP_DISTANCE = 0.1
"""A robot that ends its episode without a fall having moved less than this [m] in its last :data:`STOP_SECONDS`
stopped (crossed or not): on boxes the failures are robots that stall before an edge, not falls."""
PEAK_SECONDS = 1.0
"""Window [s] of a robot's peak speed: its highest distance covered in this long during its first episode, per
second (under the 0.5 m/s command a policy that runs down a staircase at 1.5 m/s tumbles; this shows it)."""
SWEEP_BORDER = 10.0
"""Flat ground around the sweep's tiles [m]: robots that walk off the outer tiles keep walking."""


@dataclass(frozen=True)
class TerrainTile:
    kind: str
    value: float
    start: int
    stop: int
    """Environments ``[start, stop)`` stand on this tile."""


def parse_terrain_types(names: list[str] | None) -> list[str]:
    """Terrain types to sweep (None or ``all``: every one); a ValueError names an unknown one."""
    if not names or "all" in names:
        return list(TERRAIN_TYPES)
    unknown = [name for name in names if name not in TERRAIN_TYPES]
    if unknown:
        raise ValueError(f"unknown terrain type {', '.join(unknown)}: choose from {', '.join(TERRAIN_TYPES)} or all.")
    return list(dict.fromkeys(names))


def plan_tiles(kinds: list[str], robots: int = ROBOTS_PER_TILE, values: dict[str, tuple] | None = None
               ) -> list[TerrainTile]:
    """One tile per (type, value), ``robots`` consecutive environments each; ``values`` replaces some types' values
    (a ValueError names an unknown type)."""
    parse_terrain_types(list(kinds) + list(values or {}))
    for kind, chosen in (values or {}).items():
        _, parameter, default = TERRAIN_TYPES[kind]
        if parameter is None and tuple(chosen) != default:
            raise ValueError(f"the {kind} tiles have no difficulty to set (Isaac Lab's noise is the same at every "
                             f"level, {', '.join(f'{value:g}' for value in default)}): drop {kind} from --grid.")
        if not all(value > 0 for value in chosen):
            raise ValueError(f"{kind} values must be positive (a stair riser, a slope's rise over run, a box height "
                             f"[m]), got {', '.join(f'{value:g}' for value in chosen)}.")
    if robots < 1:
        raise ValueError(f"a terrain tile needs at least one robot, got {robots}.")
    tiles = []
    for kind in kinds:
        for value in (values or {}).get(kind, TERRAIN_TYPES[kind][2]):
            tiles.append(TerrainTile(kind, float(value), len(tiles) * robots, (len(tiles) + 1) * robots))
    return tiles


def sweep_generator(train_generator, tiles: list[TerrainTile]):
    """The sweep's terrain generator config: the training terrain's sub-terrains, one column per tile."""
    generator = copy.deepcopy(train_generator)
    sub_terrains = {}
    for tile in tiles:
        name, parameter, _ = TERRAIN_TYPES[tile.kind]
        if name not in train_generator.sub_terrains:
            raise ValueError(f"the training terrain has no '{name}' sub-terrain for the {tile.kind} tiles.")
        sub_terrain = copy.deepcopy(train_generator.sub_terrains[name])
        sub_terrain.proportion = 1.0
        if parameter is not None:
            setattr(sub_terrain, parameter, (tile.value, tile.value))
        sub_terrains[f"{tile.kind}_{tile.value:g}"] = sub_terrain
    generator.sub_terrains = sub_terrains
    generator.num_rows, generator.num_cols = 1, len(tiles)
    generator.curriculum, generator.border_width = True, SWEEP_BORDER
    return generator


def prepare_terrain_env_cfg(env_cfg, tiles: list[TerrainTile]) -> None:
    """Make a rough ``-Play`` config the sweep's, in place: its terrain, robot count, forward command."""
    generator = env_cfg.scene.terrain.terrain_generator
    if generator is None:
        raise ValueError("the terrain sweep needs a policy trained on rough terrain (a task with a terrain "
                         "generator, LocoLab-Velocity-Rough-Go2); this one trained on flat ground.")
    env_cfg.scene.terrain.terrain_generator = sweep_generator(generator, tiles)
    env_cfg.scene.terrain.max_init_terrain_level = 0
    env_cfg.scene.num_envs = tiles[-1].stop
    env_cfg.episode_length_s = SECONDS
    fix_velocity_command(env_cfg, COMMAND)


def crossed(farthest: torch.Tensor, fell: torch.Tensor) -> torch.Tensor:
    """The success rule: at least :data:`SUCCESS_DISTANCE` from the tile's centre, and no fall."""
    return (farthest >= SUCCESS_DISTANCE) & ~fell


class DistanceTracker:
    """Each robot's farthest distance from its tile's centre during its first episode (call it before each step;
    :meth:`first_episode` then limits it to the steps before that episode ended), and whether it stopped
    (:meth:`stopped`) and how fast it went at its fastest (:meth:`peak_speed`)."""

    def __init__(self, env) -> None:
        self.env = env
        self.positions: list[torch.Tensor] = []

    def __call__(self) -> None:
        self.positions.append(self.env.scene["robot"].data.root_pos_w.torch[:, :2].clone())

    def stopped(self, lengths: torch.Tensor, fell: torch.Tensor) -> torch.Tensor:
        """Robots that did not fall and moved less than :data:`STOP_DISTANCE` in the last :data:`STOP_SECONDS` of
        their first episode (of ``lengths`` actions; an episode still running counts to the last recorded step)."""
        positions = torch.stack(self.positions)  # [steps, envs, 2]
        window = round(STOP_SECONDS / self.env.step_dt)
        last = (lengths.clamp(max=len(positions)) - 1).long().clamp(min=0)
        first = (last - window).clamp(min=0)
        envs = torch.arange(positions.shape[1], device=positions.device)
        moved = torch.linalg.norm(positions[last, envs] - positions[first, envs], dim=1)
        return ~fell & (moved < STOP_DISTANCE)

    def peak_speed(self, lengths: torch.Tensor) -> torch.Tensor:
        """Each robot's highest mean horizontal speed [m/s] over :data:`PEAK_SECONDS` within its first episode (of
        ``lengths`` actions); 0 for an episode shorter than the window."""
        positions = torch.stack(self.positions)  # [steps, envs, 2]
        window = round(PEAK_SECONDS / self.env.step_dt)
        if len(positions) <= window:
            return torch.zeros(positions.shape[1], device=positions.device)
        speeds = torch.linalg.norm(positions[window:] - positions[:-window], dim=2) / (window * self.env.step_dt)
        ends = torch.arange(window, len(positions), device=positions.device).unsqueeze(1)  # each window's last step
        return torch.where(ends < lengths.unsqueeze(0), speeds, 0.0).amax(dim=0)

    def first_episode(self, lengths: torch.Tensor) -> torch.Tensor:
        """Farthest distance per robot before each of its first episode's ``lengths`` actions (the state an episode
        ends in is reset away before it can be read)."""
        origins = self.env.scene.env_origins[:, :2]  # fixed in a sweep: its play config has no terrain curriculum
        distances = torch.linalg.norm(torch.stack(self.positions) - origins, dim=2)  # [steps, envs]
        steps = torch.arange(len(distances), device=distances.device).unsqueeze(1)
        return torch.where(steps < lengths.unsqueeze(0), distances, 0.0).amax(dim=0)


def tile_rows(tiles: list[TerrainTile], farthest: torch.Tensor, fell: torch.Tensor, stopped: torch.Tensor,
              peak_speed: torch.Tensor, label: str) -> list[dict]:
    """One results row per tile: success rate, fall rate, share stopped (:meth:`DistanceTracker.stopped`), mean
    farthest distance, mean peak speed (:meth:`DistanceTracker.peak_speed`)."""
    success = crossed(farthest, fell)
    return [{"policy": label, "sweep": "terrain", "terrain": tile.kind, "value": tile.value,
             "episodes": tile.stop - tile.start, "success": float(success[tile.start:tile.stop].float().mean()),
             "fall": float(fell[tile.start:tile.stop].float().mean()),
             "stopped": float(stopped[tile.start:tile.stop].float().mean()),
             "farthest": float(farthest[tile.start:tile.stop].mean()),
             "peak_speed": float(peak_speed[tile.start:tile.stop].mean())} for tile in tiles]


def episode_outcomes(episodes: list[dict], num_envs: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(length [steps], fell) of each environment's first episode, from the evaluation's episode log."""
    lengths = torch.full((num_envs,), math.inf, device=device)
    fell = torch.zeros(num_envs, dtype=torch.bool, device=device)
    for episode in episodes:
        env = int(episode["env"])
        lengths[env] = episode["length"]
        fell[env] = episode["fall"] > 0.5
    return lengths, fell
