"""Left-right mirror symmetry of the Go2 tasks' observations and actions, for rsl_rl's symmetry augmentation.

rsl_rl's ``Symmetry`` extension appends mirrored (observation, action) pairs to every PPO minibatch when given a
``data_augmentation_func(env, obs, actions)``. Isaac Lab ships one for ANYmal's policy layout only; this one is built
from the environment itself: each observation group's term names and sizes come from the observation manager, each
term has one mirror rule, and joints and feet are matched by name, so the maps follow any joint order and every
group an agent reads (``policy``, ``critic``, ``priv``, the ``history`` stack). A term without a rule is an error
naming it, never a silently unmirrored column.

A quadruped mirrored through its sagittal (x-z) plane: lateral components (y) and the rotations about x and z change
sign; FL<->FR and RL<->RR swap, and hip (ab/adduction) angles change sign. The front-back mirror is not a symmetry of
a Go2 (its legs bend one way), so only the left-right mirror is used.
"""

from __future__ import annotations

import weakref

import torch
from tensordict import TensorDict

from locolab.envs.mdp.gait_clock import GAIT_CLOCK_TERM

VECTOR_SIGNS = {
    "base_lin_vel": (1.0, -1.0, 1.0),
    "base_ang_vel": (-1.0, 1.0, -1.0),
    "projected_gravity": (1.0, -1.0, 1.0),
    "velocity_commands": (1.0, -1.0, -1.0),
}
"""Sign per component of the 3-vector terms under the left-right mirror."""
JOINT_TERMS = ("joint_pos", "joint_vel", "actions")
"""Terms with one column per joint, in the articulation's joint order."""
HISTORY_GROUP = "history"
"""The stacked ``policy`` history that :class:`locolab.envs.ProprioHistoryWrapper` adds."""

_SIDE_SWAP = str.maketrans("LR", "RL")
_maps_of_env: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def mirrored_name(name: str) -> str:
    """``FL_hip_joint`` -> ``FR_hip_joint``: the same part on the other side (Go2 names legs front/rear, then
    left/right)."""
    return name[0] + name[1].translate(_SIDE_SWAP) + name[2:]


def name_permutation(names: list[str]) -> list[int]:
    """For each name, the index of its mirror image in ``names``."""
    missing = [mirrored_name(n) for n in names if mirrored_name(n) not in names]
    if missing:
        raise ValueError(f"mirror symmetry: no counterpart for {missing} among {names}.")
    return [names.index(mirrored_name(name)) for name in names]


def joint_mirror(joint_names: list[str]) -> tuple[list[int], list[float]]:
    """Source column and sign of each joint column: sides swapped, hip angles negated."""
    return name_permutation(joint_names), [-1.0 if "_hip_" in name else 1.0 for name in joint_names]


class MirrorMaps:
    """Column permutations and signs of every observation group and of the actions of one environment."""

    def __init__(self, env) -> None:
        self.env = env
        self.robot = env.scene["robot"]
        self.joint_names = list(self.robot.joint_names)
        perm, sign = joint_mirror(self.joint_names)
        self.actions = (torch.tensor(perm, device=env.device), torch.tensor(sign, device=env.device))
        self.groups = {}
        manager = env.observation_manager
        for group, terms in manager.active_terms.items():
            perm, sign = [], []
            # the resolved term configs (their SceneEntityCfg body ids) live only in the manager
            term_cfgs = manager._group_obs_term_cfgs[group]
            for term, shape, cfg in zip(terms, manager.group_obs_term_dim[group], term_cfgs):
                term_perm, term_sign = self._term_mirror(group, term, shape, cfg)
                perm += [len(sign) + p for p in term_perm]
                sign += term_sign
            self.groups[group] = (torch.tensor(perm, device=env.device), torch.tensor(sign, device=env.device))

    def _term_mirror(self, group: str, term: str, shape: tuple[int, ...], cfg) -> tuple[list[int], list[float]]:
        size = int(torch.Size(shape).numel())
        if term in VECTOR_SIGNS:
            return [0, 1, 2], list(VECTOR_SIGNS[term])
        if term in JOINT_TERMS:
            return joint_mirror(self.joint_names)
        if term == "dynamics":
            return self._dynamics_mirror()
        if term == "feet_contact":
            sensor = self.env.scene.sensors[cfg.params["sensor_cfg"].name]
            feet = [sensor.body_names[i] for i in cfg.params["sensor_cfg"].body_ids]
            return name_permutation(feet), [1.0] * len(feet)
        if term == "height_scan":
            return self._height_scan_mirror(group, term, size)
        if term == GAIT_CLOCK_TERM:  # the diagonal pairs swap: half a period later
            return [0, 1], [-1.0, -1.0]
        raise ValueError(f"mirror symmetry: observation term '{term}' of group '{group}' has no mirror rule; add one "
                         "to locolab.envs.symmetry or turn symmetry augmentation off.")

    def _dynamics_mirror(self) -> tuple[list[int], list[float]]:
        """Randomised parameters (see randomize_dynamics.names): the lateral CoM offset changes sign (its range is
        symmetric, so its [-1, 1] value does too), per-motor strengths swap sides, the rest stay."""
        event = self.env.event_manager.get_term_cfg("dynamics").func
        low, high = event.low, event.high
        names = list(event.names)
        perm, sign = [], []
        for index, name in enumerate(names):
            if name.startswith("motor_strength/"):
                perm.append(names.index("motor_strength/" + mirrored_name(name.split("/", 1)[1])))
                sign.append(1.0)
            else:
                perm.append(index)
                if name == "base_com_y":
                    if not torch.isclose(low[index], -high[index]):
                        raise ValueError("mirror symmetry needs a base_com_offset y range symmetric about 0, got "
                                         f"({float(low[index])}, {float(high[index])}).")
                    sign.append(-1.0)
                else:
                    sign.append(1.0)
        return perm, sign

    def _height_scan_mirror(self, group: str, term: str, size: int) -> tuple[list[int], list[float]]:
        """The scan is a row-major (y, x) grid (Isaac Lab's ``xy`` ordering): mirroring flips its rows."""
        pattern = self.env.scene.sensors["height_scanner"].cfg.pattern_cfg
        if getattr(pattern, "ordering", "xy") != "xy":
            raise ValueError(f"mirror symmetry: '{term}' of group '{group}' needs a grid pattern with 'xy' ordering.")
        num_x = round(pattern.size[0] / pattern.resolution) + 1
        grid = torch.arange(size).view(-1, num_x).flip(0)
        return grid.flatten().tolist(), [1.0] * size

    def as_lists(self) -> dict:
        """The maps as plain lists (to send from a simulation process to the trainer)."""
        return {"actions": [t.tolist() for t in self.actions],
                "groups": {group: [t.tolist() for t in maps] for group, maps in self.groups.items()}}

    @classmethod
    def from_lists(cls, lists: dict, device: str) -> MirrorMaps:
        maps = cls.__new__(cls)
        maps.actions = tuple(torch.tensor(t, device=device) for t in lists["actions"])
        maps.groups = {group: tuple(torch.tensor(t, device=device) for t in pair)
                       for group, pair in lists["groups"].items()}
        return maps

    def mirror_observations(self, obs: TensorDict) -> TensorDict:
        mirrored = {}
        for group, value in obs.items():
            source = "policy" if group == HISTORY_GROUP else group
            if source not in self.groups:
                raise ValueError(f"mirror symmetry: no map for observation group '{group}'.")
            perm, sign = self.groups[source]
            mirrored[group] = value[..., perm] * sign
        return TensorDict(mirrored, batch_size=obs.batch_size, device=obs.device)

    def mirror_actions(self, actions: torch.Tensor) -> torch.Tensor:
        perm, sign = self.actions
        return actions[..., perm] * sign


def mirror_maps(env) -> MirrorMaps:
    """The (cached) maps of an Isaac Lab environment, of a wrapper around one, or of a
    :class:`~locolab.envs.multiprocess.SubprocessVecEnv` (whose first simulation process computed them)."""
    lists = getattr(env, "mirror", None)
    if lists is not None:
        if env not in _maps_of_env:
            _maps_of_env[env] = MirrorMaps.from_lists(lists, env.device)
        return _maps_of_env[env]
    unwrapped = env.unwrapped
    if unwrapped not in _maps_of_env:
        _maps_of_env[unwrapped] = MirrorMaps(unwrapped)
    return _maps_of_env[unwrapped]


@torch.no_grad()
def compute_symmetric_states(env, obs: TensorDict | None = None, actions: torch.Tensor | None = None):
    """rsl_rl's ``data_augmentation_func``: the originals followed by their left-right mirror images."""
    maps = mirror_maps(env)
    obs_aug = None if obs is None else torch.cat([obs, maps.mirror_observations(obs)], dim=0)
    actions_aug = None if actions is None else torch.cat([actions, maps.mirror_actions(actions)], dim=0)
    return obs_aug, actions_aug


@torch.no_grad()
def mirror_transitions(maps: MirrorMaps, transitions: TensorDict) -> TensorDict:
    """The left-right mirror images of replay-buffer transitions (``obs``, ``action``, ``bootstrap_obs``; the
    n-step ``reward`` and ``discount`` are the same for the mirrored robot, whose command is mirrored with it): the
    off-policy counterpart of :func:`compute_symmetric_states`."""
    mirrored = transitions.clone(recurse=False)
    mirrored["obs"] = maps.mirror_observations(transitions["obs"])
    mirrored["bootstrap_obs"] = maps.mirror_observations(transitions["bootstrap_obs"])
    mirrored["action"] = maps.mirror_actions(transitions["action"])
    return mirrored
