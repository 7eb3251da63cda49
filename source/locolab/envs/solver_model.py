"""What the physics engine steps with: MuJoCo's per-world model arrays, as MuJoCo-Warp or MuJoCo C holds them.

Isaac Lab's articulation data and LocoLab's own tensors hold what an event wrote into Newton's model; Newton passes a
change on to the solver only at the next physics step, and only for the properties the event named
(``add_model_change``). A check of what the robots simulate reads the solver's own arrays instead, so it can disagree
with what was written: MuJoCo-Warp's batched model, or with MuJoCo's C engine (:mod:`locolab.envs.mujoco_c`) the
``MjModel`` it steps each world with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import warp as wp
from newton import Model
from newton.solvers import SolverMuJoCo

WORLD_BODY = 0
"""MuJoCo's world body, which holds the ground's geoms."""
MJ_HINGE = 3
"""MuJoCo's ``mjJNT_HINGE`` (a constant here: importing ``mujoco`` must wait for play.py's ``MUJOCO_GL``)."""


def model_field(solver: SolverMuJoCo, name: str) -> torch.Tensor:
    """MuJoCo model field ``name`` of every world (first axis: the world) as the engine steps with it.

    MuJoCo C's worlds are read as it steps them (``world_field`` of :class:`~locolab.envs.mujoco_c.SolverMuJoCoC`,
    found by its attribute: importing that module imports ``mujoco``, which must wait for play.py's choice of
    ``MUJOCO_GL``); MuJoCo-Warp's from its batched model, whose field has a single row for every world until something
    randomises it."""
    world_field = getattr(solver, "world_field", None)
    if world_field is not None:
        return torch.from_numpy(world_field(name))
    values = wp.to_torch(getattr(solver.mjw_model, name))
    return values.expand(solver.mjw_data.nworld, *values.shape[1:])


@dataclass(frozen=True)
class GroundContacts:
    """Where one articulation sits in MuJoCo's model (the same indices in every world) and which of its geoms can
    touch the ground's."""

    base: int
    """MuJoCo body of the articulation's base."""
    robot_geoms: torch.Tensor
    ground_geoms: torch.Tensor
    """One (robot geom, ground geom) pair per entry: every pair whose collision masks let them collide."""


def ground_contacts(solver: SolverMuJoCo, model: Model, base_label: str) -> GroundContacts:
    """The MuJoCo body of Newton body ``base_label`` and the pairs of its kinematic tree's geoms and the world body's
    geoms that can collide."""
    newton_body = model.body_label.index(base_label)
    base = int(np.flatnonzero(solver.mjc_body_to_newton.numpy()[0] == newton_body)[0])
    mj_model = solver.mj_model  # the worlds' common structure: bodies, geoms, collision masks
    geom_root = mj_model.body_rootid[mj_model.geom_bodyid]
    robot = np.flatnonzero(geom_root == mj_model.body_rootid[base])
    ground = np.flatnonzero(mj_model.geom_bodyid == WORLD_BODY)
    contype, conaffinity = mj_model.geom_contype, mj_model.geom_conaffinity
    collide = ((contype[robot, None] & conaffinity[None, ground]) | (contype[None, ground] & conaffinity[robot, None]))
    pairs_robot, pairs_ground = np.nonzero(collide)
    if len(pairs_robot) == 0:
        raise ValueError(f"MuJoCo's model has no geom in the tree of '{base_label}' that can touch the ground.")
    priority = mj_model.geom_priority
    if (priority[robot[pairs_robot]] != priority[ground[pairs_ground]]).any():
        raise ValueError("ground_contacts mixes contact parameters as MuJoCo does for geoms of equal priority; "
                         f"the geoms of '{base_label}' and the ground's have different ones.")
    return GroundContacts(base, torch.as_tensor(robot[pairs_robot]), torch.as_tensor(ground[pairs_ground]))


def foot_contacts(solver: SolverMuJoCo, contacts: GroundContacts) -> GroundContacts:
    """The pairs of ``contacts`` whose robot geom has torsional and rolling friction (MuJoCo's ``condim`` 6: the
    feet); a ValueError if none has."""
    condim = solver.mj_model.geom_condim
    feet = torch.as_tensor(condim[contacts.robot_geoms.numpy()] == 6)
    if not feet.any():
        raise ValueError("no robot geom that touches the ground has condim 6 (torsional and rolling friction): "
                         "the robot files predate it; delete ~/.cache/locolab to regenerate them.")
    return GroundContacts(contacts.base, contacts.robot_geoms[feet], contacts.ground_geoms[feet])


def robot_dofs(solver: SolverMuJoCo) -> torch.Tensor:
    """MuJoCo's hinge degrees of freedom (the joints the motors drive; a free base has none)."""
    model = solver.mj_model
    return torch.as_tensor(np.flatnonzero(model.jnt_type[model.dof_jntid] == MJ_HINGE))


def contact_friction(solver: SolverMuJoCo, contacts: GroundContacts, axis: int = 0) -> torch.Tensor:
    """[world, pair] friction MuJoCo gives each robot-ground geom pair, the larger of the two geoms': sliding
    (``axis`` 0), torsional (1) or rolling (2)."""
    friction = model_field(solver, "geom_friction")[..., axis]
    return torch.maximum(friction[:, contacts.robot_geoms], friction[:, contacts.ground_geoms])


def contact_time_constant(solver: SolverMuJoCo, contacts: GroundContacts) -> torch.Tensor:
    """[world, pair] contact time constant (``solref[0]``) MuJoCo gives each robot-ground geom pair: the geoms'
    mixed by their ``solmix`` weights (equal weights: the mean), as MuJoCo mixes two positive (standard) time
    constants, which Newton writes. Before MuJoCo's ``refsafe`` raises one below two physics steps to two: the value
    the model holds, as a sweep sets it."""
    time_constant, solmix = model_field(solver, "geom_solref")[..., 0], model_field(solver, "geom_solmix")
    robot_mix, ground_mix = solmix[:, contacts.robot_geoms], solmix[:, contacts.ground_geoms]
    total = robot_mix + ground_mix
    mix = torch.where(total > 0, robot_mix / total.clamp_min(1e-15), 0.5)
    return mix * time_constant[:, contacts.robot_geoms] + (1 - mix) * time_constant[:, contacts.ground_geoms]
