"""MuJoCo's C engine stepping every Isaac Lab world: the CPU's cheaper physics under the same managers.

Newton's :class:`SolverMuJoCo` steps its worlds either in MuJoCo-Warp (whose CPU kernels run on one thread and
spend much of a step on launch overhead) or in MuJoCo C, but its C backend steps one ``MjData`` (one world) and
cannot report contacts, which Isaac Lab's contact sensor needs. :class:`SolverMuJoCoC` extends the Warp solver
instead: Newton still converts the model and state into MuJoCo-Warp's batched arrays (so every randomised
property and every reset reaches them as on a GPU), and only the step itself is replaced by MuJoCo C stepping one
``MjModel``/``MjData`` pair per world. Each world's model copies its row of every batched model field whenever an
event changes the model. A model that holds a terrain's heightfield is big (the CPU's rough grid: a 256-world process
held 5.9 GB with a model per world, 4.1 GB with one, at the same steps/s): its worlds share one ``MjModel``, into
which each world's rows of the fields that differ among worlds are written before that world's step (the same
values, so the same physics). Each step copies the inputs (state, controls, applied forces, warm start) in and the
outputs (state, warm start, body poses, contacts and constraint forces) back, so Newton's own kernels turn them into
Newton's state and contacts as they do after a MuJoCo-Warp step.
"""

from __future__ import annotations

import copy
import dataclasses

import mujoco
import numpy as np
import warp as wp
from isaaclab.utils import configclass
from isaaclab_newton.physics.mjwarp_manager import NewtonMJWarpManager
from isaaclab_newton.physics.mjwarp_manager_cfg import MJWarpSolverCfg
from newton import Contacts, GeoType, Model, State, eval_fk
from newton._src.solvers.mujoco.kernels import convert_mj_coords_to_warp_kernel
from newton.solvers import SolverMuJoCo

from .mujoco_c_contacts import ContactGather

_STATE = mujoco.mjtState
STEP_INPUTS = {"qpos": _STATE.mjSTATE_QPOS, "qvel": _STATE.mjSTATE_QVEL, "act": _STATE.mjSTATE_ACT,
               "qacc_warmstart": _STATE.mjSTATE_WARMSTART, "ctrl": _STATE.mjSTATE_CTRL,
               "qfrc_applied": _STATE.mjSTATE_QFRC_APPLIED, "xfrc_applied": _STATE.mjSTATE_XFRC_APPLIED}
"""Data fields a step reads, in MuJoCo's state-vector order: Newton writes them into MuJoCo-Warp's arrays (and its
reset zeroes the last five)."""
STEP_OUTPUTS = ("qpos", "qvel", "act", "qacc_warmstart")
"""Data fields Newton reads after a step."""
SHARED_MODEL_MIN_BYTES = 8 << 20
"""From this size (``MjModel.nbuffer``) on, the worlds share one model (a heightfield's; the flat Go2's is 2 MB)."""


class SolverMuJoCoC(SolverMuJoCo):
    """:class:`SolverMuJoCo` whose worlds MuJoCo C steps, one ``MjModel``/``MjData`` per world (on a CPU)."""

    def __init__(self, model: Model, share_world_model: bool | None = None, **kwargs):
        """``share_world_model``: one ``MjModel`` for every world (None: when the model is big,
        :data:`SHARED_MODEL_MIN_BYTES`)."""
        if model.device.is_cuda:
            raise ValueError("SolverMuJoCoC steps worlds on the CPU: use Isaac Lab's MJWarpSolverCfg on a GPU.")
        super().__init__(model, **{**kwargs, "use_mujoco_cpu": False, "separate_worlds": True})
        for body in ("body_sameframe", "body_simple", "dof_simplenum"):
            # randomised centres of mass and inertias would break the compiled same-frame shortcuts
            getattr(self.mj_model, body)[:] = 0
        # a diverging world keeps its non-finite state, as in MuJoCo-Warp, for Isaac Lab's resets and LocoLab's
        # non-finite guard to see, instead of MuJoCo C quietly restarting it at the model's origin
        self.mj_model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
        worlds = self.mjw_data.nworld
        if share_world_model is None:
            share_world_model = self.mj_model.nbuffer >= SHARED_MODEL_MIN_BYTES
        self.shares_world_model = share_world_model
        # a copy even when shared: the worlds' values are written into it, Newton's own model is left as it built it
        self.world_models = ([copy.copy(self.mj_model)] * worlds if share_world_model else
                             [copy.copy(self.mj_model) for _ in range(worlds)])
        self.world_data = [mujoco.MjData(world_model) for world_model in self.world_models]
        self._batched_fields = batched_model_fields(self.mjw_model, self.mj_model)
        self._synced = {name: None for name in self._batched_fields}
        self._world_rows: dict[str, np.ndarray] = {}
        """Shared model: each field that differs among worlds, one row per world (written in before a step)."""
        self._swaps: list[tuple[np.ndarray, np.ndarray]] = []
        self._sync_world_models()
        self._inputs = [getattr(self.mjw_data, name).numpy() for name in STEP_INPUTS]
        self._outputs = [getattr(self.mjw_data, name).numpy() for name in STEP_OUTPUTS]
        self._output_columns = np.cumsum([0] + [values[0].size for values in self._outputs])
        self._input_spec = int(sum(STEP_INPUTS.values()))
        self._output_spec = int(sum(STEP_INPUTS[name] for name in STEP_OUTPUTS))
        self._input_columns = np.cumsum([0] + [values[0].size for values in self._inputs])
        self._input_state = np.empty((len(self.world_data), self._input_columns[-1]))
        self._output_state = np.empty((len(self.world_data), self._output_columns[-1]))
        # one tuple per world, built once: the loop over worlds is the hot path of a CPU training
        self._worlds = list(zip(self.world_models, self.world_data, self._input_state, self._output_state))
        self._timestep = None
        self.defer_kinematics = False
        """Set by :class:`NewtonMuJoCoCManager` while it steps one control period: a physics step then leaves the
        bodies' poses and velocities (Newton's forward kinematics) to :meth:`finish_kinematics`, since nothing
        reads them between the period's physics steps (only joint coordinates feed the actuators)."""
        self._kinematics_pending = False
        self.kinematics_once_per_period = True
        """Whether :class:`NewtonMuJoCoCManager` defers the kinematics (``MuJoCoCSolverCfg``'s switch)."""
        self._contact_gather: ContactGather | None = None

    def _update_geom_properties(self) -> None:
        """Newton's geom update, then two corrections for heightfields in MuJoCo C.

        The vertical offset the update drops: Newton compiles a heightfield geom at its shape's height plus the
        field's lowest point (MuJoCo's field starts at 0), but its update kernel writes the shape's height alone:
        every field rose by its depth (robots in a pit fell through, the others stood inside the ground). Newton's
        own collision pipeline, a GPU rough task's default, does not read it.

        The contact gaps: Newton gives every geom a gap (its broad phase's detection distance, 1 cm), and MuJoCo C
        collides a convex geom with a heightfield as if the pair's gaps were a skin: feet stood 2 cm above the field
        (MuJoCo-Warp, and MuJoCo C on a plane: 1-2 mm into it). Worlds with a heightfield get MuJoCo's default gap,
        0 (tests/test_terrain.py: standing feet against the height scanner's ground in both engines)."""
        super()._update_geom_properties()
        if getattr(self, "_heightfield_shifts", None) is None:  # the shapes never change: found once
            self._heightfield_shifts = heightfield_shifts(self.model, self.mjc_geom_to_newton_shape.numpy())
        shifts = self._heightfield_shifts
        if shifts.any():
            positions = self.mjw_model.geom_pos.numpy()
            positions[..., 2] += shifts
            self.mjw_model.geom_pos.assign(positions)
        if (self.mj_model.geom_type == mujoco.mjtGeom.mjGEOM_HFIELD).any():
            self.mjw_model.geom_gap.zero_()

    def notify_model_changed(self, flags: int) -> None:
        super().notify_model_changed(flags)
        if hasattr(self, "world_models"):  # the base class's constructor notifies before the worlds exist
            self._sync_world_models()

    def _sync_world_models(self) -> None:
        """Copy each batched model field's changed rows into the worlds' ``MjModel`` (a shared model: the fields
        every world has alike, and the others' rows to write in before each world's step)."""
        if self.shares_world_model:
            self._sync_shared_model()
            return
        for name, array in self._batched_fields.items():
            values = array.numpy()
            last = self._synced[name]
            if last is None:
                changed = range(len(self.world_models))
            else:
                differs = values != last
                changed = np.flatnonzero(differs.reshape(len(values), -1).any(axis=1))
            rows = np.broadcast_to(values, (len(self.world_models), *values.shape[1:]))
            for world in changed:
                getattr(self.world_models[world], name)[...] = rows[world]
            self._synced[name] = values.copy()

    def _sync_shared_model(self) -> None:
        worlds = len(self.world_models)
        for name, array in self._batched_fields.items():
            values = array.numpy()
            if self._synced[name] is not None and np.array_equal(values, self._synced[name]):
                continue
            self._synced[name] = values.copy()
            if len(values) > 1 and not (values == values[:1]).all():
                self._world_rows[name] = np.ascontiguousarray(np.broadcast_to(values, (worlds, *values.shape[1:])))
            else:
                self._world_rows.pop(name, None)
                getattr(self.world_models[0], name)[...] = values[0]
        self._swaps = [(getattr(self.world_models[0], name), rows) for name, rows in self._world_rows.items()]

    def world_field(self, name: str) -> np.ndarray:
        """MuJoCo model field ``name`` of every world [world, ...] as this solver steps it."""
        if name in self._world_rows:
            return self._world_rows[name].copy()
        return np.stack([getattr(world_model, name) for world_model in self.world_models])

    def step(self, state_in, state_out, control, contacts, dt: float) -> None:
        if state_out.body_qdd is not None or state_out.body_parent_f is not None:
            raise NotImplementedError("physics_engine 'mujoco_c' does not report body accelerations or joint forces, "
                                      "which this scene asks for (an IMU?): use env.physics_engine=mujoco_warp.")
        super().step(state_in, state_out, control, contacts, dt)

    def _mujoco_warp_step(self) -> None:
        """Step every world in MuJoCo C where the base class steps MuJoCo-Warp."""
        timestep = float(self.mjw_model.opt.timestep.numpy()[0])
        if timestep != self._timestep:
            for world_model in self.world_models:
                world_model.opt.timestep = timestep
            self._timestep = timestep
        worlds, inputs, outputs = len(self.world_data), self._input_state, self._output_state
        for values, start, end in zip(self._inputs, self._input_columns[:-1], self._input_columns[1:]):
            inputs[:, start:end] = values.reshape(worlds, -1)
        set_state, step, get_state, copy_to = mujoco.mj_setState, mujoco.mj_step, mujoco.mj_getState, np.copyto
        input_spec, output_spec, swaps = self._input_spec, self._output_spec, self._swaps
        for world, (world_model, data, state_in, state_out) in enumerate(self._worlds):
            for target, rows in swaps:  # a shared model: this world's own values
                copy_to(target, rows[world])
            set_state(world_model, data, state_in, input_spec)
            step(world_model, data)
            get_state(world_model, data, state_out, output_spec)
        for values, start, end in zip(self._outputs, self._output_columns[:-1], self._output_columns[1:]):
            values.reshape(worlds, -1)[:] = outputs[:, start:end]

    def _update_newton_state(self, model: Model, state: State, mj_data, state_prev: State) -> None:
        """Newton's conversion of MuJoCo's coordinates into ``state``; while :attr:`defer_kinematics` is set, only
        the joint coordinates (Newton's own kernel and inputs), the bodies' kinematics left pending."""
        if not self.defer_kinematics or getattr(getattr(state, "mujoco", None), "qfrc_actuator", None) is not None:
            super()._update_newton_state(model, state, mj_data, state_prev)
            return
        mujoco_attributes = getattr(model, "mujoco", None)
        wp.launch(convert_mj_coords_to_warp_kernel, dim=(mj_data.nworld, model.joint_count // mj_data.nworld),
                  inputs=[mj_data.qpos, mj_data.qvel, model.joint_count // mj_data.nworld, model.joint_type,
                          model.joint_q_start, model.joint_qd_start, model.joint_dof_dim, model.joint_child,
                          model.joint_X_p, model.joint_X_c, model.body_com,
                          getattr(mujoco_attributes, "dof_ref", None), model.body_flags, state_prev.joint_q,
                          state_prev.joint_qd, self.mj_q_start, self.mj_qd_start],
                  outputs=[state.joint_q, state.joint_qd], device=model.device)
        self._kinematics_pending = True

    def finish_kinematics(self, state: State) -> None:
        """Newton's forward kinematics of ``state`` (the control period's last state) if a step deferred it."""
        if self._kinematics_pending:
            eval_fk(self.model, state.joint_q, state.joint_qd, state)
            self._kinematics_pending = False

    def update_contacts(self, contacts: Contacts, state=None) -> None:
        """Gather every world's contacts and constraint forces into MuJoCo-Warp's arrays, then let Newton convert
        them as after a MuJoCo-Warp step."""
        if self._contact_gather is None:
            self._contact_gather = ContactGather(self.world_models, self.world_data, self.mjw_data)
        self.mjw_data.nacon.fill_(self._contact_gather.gather())
        super().update_contacts(contacts, state)


def heightfield_shifts(model: Model, geom_to_shape: np.ndarray) -> np.ndarray:
    """Per world and MuJoCo geom (Newton's ``mjc_geom_to_newton_shape`` layout): its heightfield's lowest height, 0
    for a geom that is not a heightfield."""
    shifts = np.zeros(geom_to_shape.shape)
    mapped = geom_to_shape >= 0
    fields = np.zeros(geom_to_shape.shape, dtype=bool)
    fields[mapped] = model.shape_type.numpy()[geom_to_shape[mapped]] == int(GeoType.HFIELD)
    for index in zip(*np.nonzero(fields)):
        shifts[index] = model.shape_source[geom_to_shape[index]].min_z
    return shifts


def batched_model_fields(mjw_model, mj_model: mujoco.MjModel) -> dict[str, wp.array]:
    """MuJoCo-Warp's per-world model arrays (first axis: world, or one row for all) that ``MjModel`` has too."""
    fields = {}
    for field in dataclasses.fields(mjw_model):
        array = getattr(mjw_model, field.name)
        target = getattr(mj_model, field.name, None)
        if not isinstance(array, wp.array) or not isinstance(target, np.ndarray):
            continue
        shape = array.numpy().shape
        if len(shape) == target.ndim + 1 and shape[1:] == target.shape:
            fields[field.name] = array
    return fields


class NewtonMuJoCoCManager(NewtonMJWarpManager):  # Isaac Lab finds its backend by the "newton" prefix
    """Isaac Lab's MuJoCo-Warp manager with :class:`SolverMuJoCoC` as its solver."""

    @classmethod
    def _create_solver(cls, model: Model, solver_cfg: MJWarpSolverCfg) -> SolverMuJoCo:
        kwargs = cls._filter_solver_kwargs(SolverMuJoCo, solver_cfg)
        kwargs.pop("ls_parallel", None)
        solver = SolverMuJoCoC(model, share_world_model=getattr(solver_cfg, "share_world_model", None), **kwargs)
        solver.kinematics_once_per_period = getattr(solver_cfg, "kinematics_once_per_period", True)
        return solver

    @classmethod
    def _simulate_full(cls) -> None:
        """Isaac Lab's control period (actuators and physics steps, then sensors), its bodies' kinematics computed
        once, after the last physics step, instead of after each (identical values: the same kernel and inputs)."""
        cls._solver.defer_kinematics = cls._solver.kinematics_once_per_period
        try:
            super()._simulate_full()
        finally:
            cls._solver.defer_kinematics = False
            cls._solver.finish_kinematics(cls.backend.state_0)

    @classmethod
    def _update_sensors(cls, contacts) -> None:
        cls._solver.finish_kinematics(cls.backend.state_0)  # the contacts' body frames are the last state's
        super()._update_sensors(contacts)


@configclass
class MuJoCoCSolverCfg(MJWarpSolverCfg):
    """Isaac Lab's MuJoCo-Warp solver settings, stepped by MuJoCo C (:class:`SolverMuJoCoC`)."""

    class_type: type = NewtonMuJoCoCManager
    solver_type: str = "mujoco_c"
    use_mujoco_contacts: bool = True
    """MuJoCo C finds each world's contacts itself: Newton's collision pipeline would only repeat that work."""
    kinematics_once_per_period: bool = True
    """Newton's forward kinematics once per control period, after its last physics step (the same values: nothing
    reads the bodies' poses in between); False: after every physics step, as Newton does (the parity test's
    reference)."""
    share_world_model: bool | None = None
    """One ``MjModel`` for every world, each world's own rows written in before its step; None: when the model is
    big (a heightfield's, :data:`SHARED_MODEL_MIN_BYTES`)."""


def step_worlds_in_mujoco_c(env_cfg) -> None:
    """Make ``env_cfg``'s simulation step its worlds in MuJoCo C, keeping every setting of its MuJoCo-Warp solver."""
    physics = env_cfg.sim.physics
    solver = physics.solver_cfg
    if isinstance(solver, MuJoCoCSolverCfg):
        return
    if not isinstance(solver, MJWarpSolverCfg):
        raise ValueError("physics_engine 'mujoco_c' steps only a MuJoCo-Warp simulation; this task's solver is "
                         f"{type(solver).__name__}.")
    kept = {field.name: getattr(solver, field.name) for field in dataclasses.fields(solver)
            if field.name not in ("class_type", "solver_type", "use_mujoco_contacts", "kinematics_once_per_period",
                                  "share_world_model")}
    physics.solver_cfg = MuJoCoCSolverCfg(**kept)
    physics.class_type = NewtonMuJoCoCManager
    physics.collision_cfg = None
