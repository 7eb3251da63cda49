"""Curriculum progress as checkpoint data, so that a resumed run continues its curricula instead of restarting them.

Isaac Lab keeps a curriculum's progress in memory only: each environment's terrain level in the terrain importer, a
class-based term's attributes (LocoLab's robustness level). rsl_rl's checkpoints hold the agent alone, so a resumed
run (after a crash, ``kill -9`` or a planned stop) starts every curriculum again from its beginning and spends its
first hundreds of iterations on terrain and dynamics the policy has long outgrown.

The state of a run is ``{"terms": [per simulation slice: {term: term.state_dict()}], "terrain_levels": tensor or
None}``: class-based terms that define ``state_dict``/``load_state_dict`` are saved per slice (one per simulation
process), terrain levels as one vector over all environments, so a run resumed with another number of simulation
processes still gives every robot its level.
"""

from __future__ import annotations

import torch


def curriculum_state(env) -> dict:
    """One Isaac Lab environment's curriculum progress: ``{"terms": {name: state}, "terrain_levels": tensor|None}``
    (both empty for an environment without curricula or terrain)."""
    manager = getattr(env, "curriculum_manager", None)
    terms = {} if manager is None else {name: cfg.func.state_dict()
                                        for name, cfg in zip(manager.active_terms, manager._term_cfgs)
                                        if hasattr(cfg.func, "state_dict")}
    terrain = getattr(getattr(env, "scene", None), "terrain", None)
    levels = getattr(terrain, "terrain_levels", None)
    return {"terms": terms, "terrain_levels": None if levels is None else levels.detach().cpu().clone()}


def load_curriculum_state(env, terms: dict, terrain_levels: torch.Tensor | None) -> None:
    """Give one Isaac Lab environment saved curriculum progress (see :func:`curriculum_state`), in place."""
    manager = getattr(env, "curriculum_manager", None)
    for name, cfg in zip(manager.active_terms, manager._term_cfgs) if manager is not None else ():
        if name in terms and hasattr(cfg.func, "load_state_dict"):
            cfg.func.load_state_dict(terms[name])
    terrain = getattr(getattr(env, "scene", None), "terrain", None)
    if terrain_levels is not None and getattr(terrain, "terrain_levels", None) is not None:
        if terrain_levels.shape != terrain.terrain_levels.shape:
            raise ValueError(f"the checkpoint holds terrain levels of {terrain_levels.numel()} environments, this run "
                             f"has {terrain.terrain_levels.numel()}: resume with the same number of environments.")
        terrain.terrain_levels[:] = terrain_levels.to(terrain.terrain_levels.device)
        terrain.env_origins[:] = terrain.terrain_origins[terrain.terrain_levels, terrain.terrain_types]


def vec_env_curriculum_state(vec_env) -> dict:
    """A training VecEnv's curriculum progress: over its simulation processes, or of its one environment."""
    if hasattr(vec_env, "curriculum_states"):  # locolab.envs.multiprocess.SubprocessVecEnv
        states = vec_env.curriculum_states()
    else:
        states = [curriculum_state(getattr(vec_env, "unwrapped", None))]
    levels = [state["terrain_levels"] for state in states]
    return {"terms": [state["terms"] for state in states],
            "terrain_levels": None if any(level is None for level in levels) else torch.cat(levels)}


def load_vec_env_curriculum_state(vec_env, state: dict) -> None:
    """Give a training VecEnv saved progress (:func:`vec_env_curriculum_state`); a run with another number of
    simulation processes gives each slice the term state of the saved slice at the same index (modulo), and each
    environment its own terrain level."""
    terms = state["terms"]
    if hasattr(vec_env, "load_curriculum_states"):
        vec_env.load_curriculum_states(terms, state["terrain_levels"])
    else:
        load_curriculum_state(getattr(vec_env, "unwrapped", None), terms[0] if terms else {}, state["terrain_levels"])
