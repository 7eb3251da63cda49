"""LocoLab's tasks on Isaac Lab's Warp frontend (``isaaclab_experimental``): MDP terms as Warp kernels, and on a GPU
the environment step's managers captured in CUDA graphs.

Isaac Lab's :class:`~isaaclab_experimental.envs.frontend.WarpFrontend` finds a stable term's Warp twin by mirroring
its module path (``isaaclab.*`` to ``isaaclab_experimental.*``, ``isaaclab_tasks.*`` to
``isaaclab_tasks_experimental.*``) and accepts only twins defined under those packages; LocoLab's own terms live in
``locolab.envs.mdp`` and their twins beside them (:data:`locolab.envs.mdp.warp_twins.WARP_TWINS`), which that mirror
never reaches. What this module adds, and nothing else:

- :class:`LocoLabWarpFrontend`: the frontend with one more source of twins, LocoLab's mapping, consulted before the
  mirror; Isaac Lab's own terms resolve exactly as before.
- :class:`LocoLabRLEnvWarp`: Isaac Lab's :class:`~isaaclab_experimental.envs.ManagerBasedRLEnvWarp`, adapted by
  :class:`LocoLabWarpFrontend`. That env's ``__init__`` runs the base frontend's ``adapt_cfg`` again (idempotent for
  its own twins, a hard error for anyone else's), so LocoLab's swapped terms sit that pass out (set to None, keeping
  their place in their group) and are put back in the base env's ``_apply_manager_term_cfg_profile`` hook, which runs
  before any manager reads the config.
- :func:`check_warp_frontend`: the combinations that cannot work, each a one-line ValueError.
- :func:`warp_manager_modes`: captured managers on a GPU (the frontend's default), uncaptured on a CPU, where Warp
  runs its kernels but CUDA graphs do not exist.
"""

from __future__ import annotations

import copy
from typing import Any

from isaaclab_experimental.envs import ManagerBasedRLEnvWarp
from isaaclab_experimental.envs.frontend import WarpFrontend
from isaaclab_experimental.utils.manager_call_switch import ManagerCallMode

from .mdp.warp_twins import WARP_TWINS

_LOCOLAB_TWINS = frozenset(WARP_TWINS.values())


def warp_manager_modes(device: str) -> dict[str, int]:
    """The Warp frontend's ``manager_call_config``: every manager captured on a GPU (Isaac Lab's default), Warp
    without capture on a CPU."""
    captured = device.startswith("cuda")
    return {"default": int(ManagerCallMode.WARP_CAPTURED if captured else ManagerCallMode.WARP_NOT_CAPTURED)}


def check_warp_frontend(env_cfg, sim_processes: int = 1) -> None:
    """A one-line ValueError when ``env_cfg`` cannot run on the Warp frontend, naming the fix."""
    engine = getattr(env_cfg, "physics_engine", "mujoco_warp")
    if engine != "mujoco_warp":
        raise ValueError(f"--frontend warp steps Newton's MuJoCo-Warp solver, not physics_engine '{engine}' (the CPU "
                         "profile's): add --no_cpu_profile to train the task as given.")
    if sim_processes > 1:
        raise ValueError(f"--frontend warp builds one environment in one process, not {sim_processes} simulation "
                         "processes: use --sim_processes 1.")
    observations = getattr(env_cfg, "observations", None)
    scanned = [f"{name}.height_scan" for name, group in vars(observations or object()).items()
               if getattr(group, "height_scan", None) is not None]
    if scanned:
        raise ValueError(f"--frontend warp has no Warp twin of the height scan ({', '.join(scanned)}): train rough "
                         "terrain with --frontend torch, or a flat task with --frontend warp.")
    problem = LocoLabWarpFrontend.check_compatibility(copy.deepcopy(env_cfg))  # adapts what it checks
    if problem is not None:
        raise ValueError(" ".join(problem.split()) + " (--frontend warp: train this task with --frontend torch).")


class LocoLabWarpFrontend(WarpFrontend):
    """Isaac Lab's Warp frontend that also swaps LocoLab's terms for their twins (:data:`WARP_TWINS`)."""

    @classmethod
    def _swap_mdp(cls, cfg: Any, label: str) -> None:
        """LocoLab's terms by the mapping, then every other term by Isaac Lab's mirror (which then skips ours)."""
        for path, term in cls._walk_terms(cfg):
            if path and path[0] in cls.WARP_MANAGED_GROUPS:
                for attr in ("func", "class_type"):
                    twin = WARP_TWINS.get(getattr(term, attr, None))
                    if twin is not None:
                        setattr(term, attr, twin)
        super()._swap_mdp(cfg, label)

    @classmethod
    def _is_swap_candidate(cls, value: Any) -> bool:
        """A LocoLab twin is no candidate: it is already swapped (the base frontend's idempotence, for our twins)."""
        return value not in _LOCOLAB_TWINS and super()._is_swap_candidate(value)


def _holder(cfg: Any, path: tuple[str, ...]) -> Any:
    """The group (a config class or a dict) that holds the term at ``path``."""
    node = cfg
    for key in path[:-1]:
        node = node[key] if isinstance(node, dict) else getattr(node, key)
    return node


def _put(cfg: Any, path: tuple[str, ...], value: Any) -> None:
    holder = _holder(cfg, path)
    if isinstance(holder, dict):
        holder[path[-1]] = value
    else:
        setattr(holder, path[-1], value)


class LocoLabRLEnvWarp(ManagerBasedRLEnvWarp):
    """Isaac Lab's Warp RL environment for a LocoLab task config (stable terms, as registered): LocoLab's and Isaac
    Lab's terms swapped for their Warp twins by :class:`LocoLabWarpFrontend`."""

    def __init__(self, cfg, render_mode: str | None = None, **kwargs) -> None:
        LocoLabWarpFrontend.adapt_cfg(cfg)
        self._sitting_out = [(path, term) for path, term in LocoLabWarpFrontend._walk_terms(cfg)
                             if getattr(term, "func", None) in _LOCOLAB_TWINS
                             or getattr(term, "class_type", None) in _LOCOLAB_TWINS]
        for path, _ in self._sitting_out:
            _put(cfg, path, None)
        super().__init__(cfg, render_mode=render_mode, **kwargs)

    def _apply_manager_term_cfg_profile(self) -> None:
        """LocoLab's twins back in their places (after the base frontend's pass, before any manager), then the
        base env's own profile step."""
        for path, term in self._sitting_out:
            _put(self.cfg, path, term)
        self._sitting_out = []
        super()._apply_manager_term_cfg_profile()


def make_warp_env(env_cfg) -> LocoLabRLEnvWarp:
    """The Warp-frontend environment of a checked LocoLab task config (:func:`check_warp_frontend`), its managers
    captured on a GPU and uncaptured on a CPU unless the config sets ``manager_call_config`` itself."""
    if getattr(env_cfg, "manager_call_config", None) is None:
        env_cfg.manager_call_config = warp_manager_modes(env_cfg.sim.device)
    return LocoLabRLEnvWarp(cfg=env_cfg)
