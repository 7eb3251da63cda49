"""Per-environment dynamics randomisation whose sampled values the privileged observation can read.

Isaac Lab's event terms randomise friction, mass, CoM and PD gains, but they keep no record of what they sampled,
sample friction per shape and gains per joint, and have no motor-strength (torque-scale) term. ROA's teacher must
observe exactly the parameters that were applied, so :class:`randomize_dynamics` samples one table per
environment, applies it through the articulation's own setters and Newton's actuator parameters, and keeps it for
:func:`locolab.envs.mdp.dynamics_params`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
import warp as wp
from newton import ModelFlags

from isaaclab.actuators.newton import read_group_parameter, write_group_parameter
from isaaclab.managers import EventTermCfg, ManagerTermBase, SceneEntityCfg
from isaaclab.utils import configclass

from locolab.envs.solver_model import (
    contact_friction,
    contact_time_constant,
    foot_contacts,
    ground_contacts,
    model_field,
    robot_dofs,
)

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedEnv

Range = tuple[float, float]


@configclass
class DynamicsRandomizationCfg:
    """Ranges of the per-environment dynamics, resampled at every reset (uniform).

    Defaults follow the published ROA (Go1) and RMA ranges: friction and payload as ROA, CoM shift, PD gains and
    motor strength a little narrower than ROA's widest so a 15 kg Go2 still stands under every sample.
    """

    friction: Range = (0.3, 2.5)
    """Friction coefficient of every robot shape (the ground's is set below this range, so the robot's decides)."""
    added_base_mass: Range = (-0.5, 2.5)
    """Mass added to the base [kg] (a payload)."""
    base_com_offset: tuple[Range, Range, Range] = ((-0.1, 0.1), (-0.05, 0.05), (-0.05, 0.05))
    """Offset of the base's centre of mass along x, y, z [m]."""
    motor_strength: Range = (0.8, 1.2)
    """Torque scale per motor: PD torque and torque limits are multiplied by it."""
    kp_scale: Range = (0.8, 1.2)
    """Scale of every joint's PD stiffness."""
    kd_scale: Range = (0.7, 1.3)
    """Scale of every joint's PD damping."""
    contact_time_constant: Range | None = None
    """Time constant [s] of the robot's contacts with the ground (MuJoCo's ``solref``; the damping ratio stays the
    ground material's): how soft the ground is. None holds the ground material's own (Newton's 1.8 ms, which MuJoCo
    raises to two physics steps: 10 ms at 5 ms steps; MuJoCo's default, sim2sim.py's, is 20 ms). (0.01, 0.03) was
    measured and not adopted (docs/measurements/cpu_ppo_walking.md, 2026-12-02): it closed one seed's MuJoCo gap
    (0.34 to 0.46 m/s) but the policies walked slower (0.42-0.47 m/s in Newton against 0.54-0.60), and each run
    failed one walking check."""
    foot_torsional_friction: Range = (0.005, 0.04)
    """Torsional friction of the feet's contacts [m] (MuJoCo's second friction coefficient, condim 6: the feet's
    ``mjc:condim``, locolab.assets.usd_writer): how hard a standing foot resists pivoting. MuJoCo Menagerie's
    ``unitree_go2`` gives 0.02; 0.005 is MuJoCo's default and the ground's (MuJoCo takes the larger of two geoms')."""
    foot_rolling_friction: Range = (0.0001, 0.02)
    """Rolling friction of the feet's contacts [m] (Menagerie's Go2: 0.01; MuJoCo's default and the ground's
    0.0001)."""
    joint_damping: Range = (0.0, 0.2)
    """Viscous damping of every joint's gearbox [N m s/rad] (Newton's ``joint_damping``, MuJoCo's ``dof_damping``;
    Menagerie's Go2: 0.1)."""
    joint_friction: Range = (0.0, 0.4)
    """Coulomb friction loss of every joint [N m] (Newton's ``joint_friction``, MuJoCo's ``dof_frictionloss``;
    Menagerie's Go2: 0.2)."""
    action_delay: Range = (0.0, 4.0)
    """Delay between a policy's joint targets and the torques they cause [physics steps, integers; 4 = 20 ms, one
    control period at 5 ms steps]: Newton's actuator delay (:class:`locolab.envs.delayed_dc_motor.DelayedDCMotorCfg`,
    whose ``max_delay`` must reach the range's top). A Go2 answers 10-20 ms after the measurement that its command
    answers (sensing, the policy's inference, DDS transport to the motor drivers)."""
    gyro_bias: Range = (-0.05, 0.05)
    """Offset of each gyroscope axis at the episode's start [rad/s] (the policy's ``base_ang_vel`` reads it, and a
    slow drift on top: :class:`locolab.envs.mdp.gyro_with_bias`): a MEMS gyroscope's zero-rate offset is about
    +-1 deg/s (0.017 rad/s; Bosch BMI088 datasheet), widened three times for drift with temperature."""
    sample_concentration: float = 1.0
    """Shape ``c`` of the Beta(c, c) law each parameter is drawn from over its range: 1 is uniform; below 1 puts more
    draws near both ends of every range (0.5, the arcsine law: 20 % of draws in each range's outer tenth instead of
    10 %, 4.5 % in its outer 0.5 % instead of 0.5 %). The ranges stay the same."""


PARAMETERS = ("friction", "added_base_mass", "base_com_x", "base_com_y", "base_com_z", "motor_strength", "kp_scale",
              "kd_scale", "contact_time_constant", "foot_torsional_friction", "foot_rolling_friction", "joint_damping",
              "joint_friction", "action_delay", "gyro_bias")
"""The randomised parameters in column order (``motor_strength``: one column per joint, ``gyro_bias`` one per axis);
what :func:`hold_dynamics` can hold."""
AXES = ("x", "y", "z")
EFFECTS = ("foot_torsional_friction", "foot_rolling_friction", "joint_damping", "joint_friction", "action_delay",
           "gyro_bias")
"""The sim-to-real effects among them (docs/sim-to-real.md)."""
INTEGER_PARAMETERS = ("action_delay",)
"""Parameters drawn as whole numbers: each integer of the range equally often."""


def parameter_names(joint_names: Sequence[str]) -> list[str]:
    """Names of the randomised parameters, in the order of :attr:`randomize_dynamics.values` columns."""
    parts = {"motor_strength": joint_names, "gyro_bias": AXES}
    return [column for name in PARAMETERS
            for column in ([f"{name}/{part}" for part in parts[name]] if name in parts else [name])]


def check_concentration(concentration: float) -> None:
    """A ValueError naming a ``sample_concentration`` that is not a positive finite number."""
    if not (isinstance(concentration, (int, float)) and math.isfinite(concentration) and concentration > 0):
        raise ValueError(f"the dynamics event's ranges.sample_concentration must be a positive number (1: uniform, "
                         f"below 1: more draws near the ranges' ends), got {concentration!r}.")


def check_dynamics_cfg(env_cfg) -> None:
    """Refuse a task config whose ``dynamics`` event samples with a bad shape or a sim-to-real effect's range no
    physics can take, before any environment is built."""
    term = getattr(getattr(env_cfg, "events", None), "dynamics", None)
    if term is not None:
        ranges = term.params["ranges"]
        check_concentration(ranges.sample_concentration)
        for name in EFFECTS:
            low, high = getattr(ranges, name)
            signed = name == "gyro_bias"
            if not (math.isfinite(low) and math.isfinite(high) and low <= high and (signed or low >= 0)):
                raise ValueError(f"the dynamics event's ranges.{name} is ({low}, {high}): give finite (low, high) "
                                 f"with low <= high{'' if signed else ', both at least 0'}.")
        depths = [getattr(actuator, "max_delay", 0) for actuator in env_cfg.scene.robot.actuators.values()]
        check_delay_range(ranges.action_delay, min(depths, default=0))


def check_delay_range(delay_range: Range, depth: int) -> None:
    """A ValueError when ``delay_range`` is not whole physics steps or exceeds the actuators' delay buffer of
    ``depth`` steps (``max_delay`` of :class:`~locolab.envs.delayed_dc_motor.DelayedDCMotorCfg`)."""
    low, high = delay_range
    if not (0 <= low <= high and float(low).is_integer() and float(high).is_integer()):
        raise ValueError(f"ranges.action_delay {tuple(delay_range)}: give whole physics steps, 0 <= low <= high, "
                         "as (0.0, 4.0).")
    if high > depth:
        raise ValueError(f"ranges.action_delay reaches {high:g} physics steps but the robot's actuators buffer "
                         f"{depth}: give them locolab.envs.delayed_dc_motor.DelayedDCMotorCfg(max_delay={high:g}).")


def unit_draws(num: int, dims: int, concentration: float, device: str | torch.device) -> torch.Tensor:
    """``[num, dims]`` draws in [0, 1] from Beta(concentration, concentration): uniform at 1 (checked by the caller:
    :func:`check_concentration`)."""
    if concentration == 1.0:
        return torch.rand(num, dims, device=device)
    shape = torch.tensor(float(concentration), device=device)
    return torch.distributions.Beta(shape, shape).sample((num, dims))


def values_from_unit(unit: torch.Tensor, low: torch.Tensor, high: torch.Tensor, integer: torch.Tensor,
                     range_scale: float) -> torch.Tensor:
    """Parameter values of draws ``unit`` in [0, 1] (a row per environment): the ranges ``low``-``high`` narrowed
    around their middles by ``range_scale``, whole numbers where ``integer`` (the Warp twin,
    :mod:`locolab.envs.mdp.warp_dynamics`, does the same arithmetic)."""
    widen = integer.float() * 0.5  # whole numbers draw over [low - 1/2, high + 1/2] and round: each equally often
    sample = low - widen + (high - low + 2 * widen) * unit
    middle = (low + high) / 2
    values = middle + range_scale * (sample - middle)
    values = torch.where(integer, values.round(), values)
    return torch.minimum(torch.maximum(values, low), high)  # float32 rounding


def parse_held_dynamics(specs: list[str]) -> dict[str, float]:
    """``NAME=VALUE`` specs (``play.py --dynamics``) as ``{name: value}``; a ValueError names a bad one."""
    held = {}
    for spec in specs:
        name, _, text = spec.partition("=")
        if name not in PARAMETERS:
            raise ValueError(f"--dynamics {spec}: unknown parameter '{name}'; choose from {', '.join(PARAMETERS)} "
                             "(as NAME=VALUE).")
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(f"--dynamics {spec}: the value must be a finite number, as {name}=VALUE.")
        held[name] = value
    return held


def hold_dynamics(env: ManagerBasedEnv, held: dict[str, float], event_name: str = "dynamics") -> None:
    """Hold each parameter of ``held`` at its value in every environment: applied now and kept over resets."""
    term: randomize_dynamics = env.event_manager.get_term_cfg(event_name).func
    for name, value in held.items():
        term.fix(name, torch.full((term.num_envs,), value))
    every_env = torch.arange(term.num_envs, device=term.device)
    term.apply(every_env, term.values.clone())


def read_back_held(env: ManagerBasedEnv, held: dict[str, float], event_name: str = "dynamics") -> dict[str, float]:
    """Each parameter of ``held`` as the physics steps with it (:meth:`randomize_dynamics.read_back`), averaged over
    the environments (and motors): what a run held, from the solver rather than from what was written."""
    term: randomize_dynamics = env.event_manager.get_term_cfg(event_name).func
    simulated = term.read_back()
    return {name: float(simulated[:, term.columns(name)].mean()) for name in held}


class randomize_dynamics(ManagerTermBase):
    """Sample and apply friction, payload, CoM offset, motor strength, PD gain scales, the ground contact's softness
    and the sim-to-real effects (foot torsional and rolling friction, joint damping and friction loss, the motors'
    delay, the gyroscope's offset) per environment.

    Use it as a ``reset`` event: each reset draws a new table for the environments being reset (uniform, or with more
    draws near the ranges' ends: ``sample_concentration``; the ranges are read once, at construction, which applies
    their midpoints). Motor strength and gain scales are written into the
    Newton-executed actuators (controller ``kp``/``kd`` and the DC-motor clamp), so the task must run its actuators
    through Newton (``sim.use_newton_actuators = True``).
    """

    def __init__(self, cfg: EventTermCfg, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        asset_cfg: SceneEntityCfg = cfg.params["asset_cfg"]
        ranges: DynamicsRandomizationCfg = cfg.params["ranges"]
        self.robot = env.scene[asset_cfg.name]
        if isinstance(asset_cfg.body_ids, slice) or len(asset_cfg.body_ids) != 1:
            raise ValueError(
                f"randomize_dynamics: asset_cfg must name exactly one body (the base), got {asset_cfg.body_names}."
            )
        self.base_ids = torch.as_tensor(asset_cfg.body_ids, dtype=torch.int32, device=self.device)
        self._base_label = self.robot._root_view.body_labels[asset_cfg.body_ids[0]]
        """Newton's label of the base body (world 0's), which finds it in the solver's model."""
        self.names = parameter_names(self.robot.joint_names)
        num_joints = self.robot.num_joints
        self._physics = env.sim.physics_manager
        model = self._physics.get_model()
        self._ground_solref = ground_solref(model)
        contact = ranges.contact_time_constant or (self._ground_solref[0], self._ground_solref[0])
        check_contact_time_constants(contact, self._ground_solref[0])
        bounds = [ranges.friction, ranges.added_base_mass, *ranges.base_com_offset]
        bounds += [ranges.motor_strength] * num_joints + [ranges.kp_scale, ranges.kd_scale, contact]
        bounds += [ranges.foot_torsional_friction, ranges.foot_rolling_friction, ranges.joint_damping,
                   ranges.joint_friction, ranges.action_delay] + [ranges.gyro_bias] * len(AXES)
        self.low, self.high = torch.tensor(bounds, device=self.device).T
        self._slices = {name: slice(columns[0], columns[-1] + 1) for name in PARAMETERS
                        if (columns := self.columns(name))}
        self._integer = torch.zeros(len(self.names), dtype=torch.bool, device=self.device)
        for name in INTEGER_PARAMETERS:
            self._integer[self._slices[name]] = True
        check_concentration(ranges.sample_concentration)
        self.concentration = ranges.sample_concentration
        self.values = torch.empty(self.num_envs, len(self.names), device=self.device)
        """Applied values, one row per environment, columns named by :attr:`names`."""
        self.fixed = torch.full_like(self.values, float("nan"))
        """Per-environment values that replace the samples where not NaN (evaluation sweeps, :meth:`fix`)."""
        self.applied_gyro_bias = torch.zeros(self.num_envs, len(AXES), device=self.device)
        """The gyroscope offsets the policy's last observation carried (its drift aside), which
        :class:`~locolab.envs.mdp.gyro_with_bias` writes: :meth:`read_back`'s ``gyro_bias``."""
        self.range_scale = 1.0
        """Fraction of each range sampled, around its midpoint (a curriculum lowers it; 1: the configured ranges).
        The privileged observation keeps mapping the configured ranges to [-1, 1]."""

        self._default_mass = self.robot.data.body_mass.torch[:, self.base_ids].clone()
        self._default_com = self.robot.data.body_com_pos_b.torch[:, self.base_ids].clone()
        view = self.robot._root_view
        self._friction = wp.to_torch(view.get_attribute("shape_material_mu", model)[:, 0])
        self._contact_ke = wp.to_torch(view.get_attribute("shape_material_ke", model)[:, 0])
        self._contact_kd = wp.to_torch(view.get_attribute("shape_material_kd", model)[:, 0])
        self._torsional = wp.to_torch(view.get_attribute("shape_material_mu_torsional", model)[:, 0])
        self._rolling = wp.to_torch(view.get_attribute("shape_material_mu_rolling", model)[:, 0])
        self._actuators = self.robot.actuators
        native = getattr(self._actuators, "_native_group_names", set())
        if set(self._actuators) != native:
            raise ValueError(
                "randomize_dynamics writes motor strength and PD gains into Newton-executed actuators, but groups "
                f"{sorted(set(self._actuators) - native)} are not: set the task's sim.use_newton_actuators = True."
            )
        self._defaults = {
            (group, component, attr): read_group_parameter(self._actuators, group, component, attr).clone()
            for group in self._actuators
            for component, attr in _SCALED_ACTUATOR_PARAMETERS
        }
        self._group_joints = {group: self._actuators._group_joint_indices[group] for group in self._actuators}
        check_delay_depth(self._actuators, ranges.action_delay)
        all_envs = torch.arange(self.num_envs, device=self.device)
        self.apply(all_envs, ((self.low + self.high) / 2).expand(self.num_envs, -1))

    def __call__(self, env: ManagerBasedEnv, env_ids: torch.Tensor | slice | None, asset_cfg: SceneEntityCfg,
                 ranges: DynamicsRandomizationCfg) -> None:
        if env_ids is None or isinstance(env_ids, slice):
            env_ids = torch.arange(self.num_envs, device=self.device)[env_ids or slice(None)]
        if len(env_ids) > 0:
            unit = unit_draws(len(env_ids), len(self.names), self.concentration, self.device)
            self.apply(env_ids, values_from_unit(unit, self.low, self.high, self._integer, self.range_scale))

    def fix(self, name: str, values: torch.Tensor) -> None:
        """Hold parameter ``name`` (a column of :attr:`names`; ``motor_strength`` sets every motor) at ``values``
        (one per environment, NaN: sample) from the next reset on."""
        if name == "contact_time_constant":
            check_contact_time_constants(values[~torch.isnan(values)].tolist(), self._ground_solref[0])
        self.fixed[:, self.columns(name)] = values.to(self.device, torch.float).unsqueeze(1)

    def columns(self, name: str) -> list[int]:
        """The columns of parameter ``name`` (``motor_strength``: every motor's); a ValueError if there is none."""
        columns = [i for i, column in enumerate(self.names) if column == name or column.startswith(f"{name}/")]
        if not columns:
            raise ValueError(f"randomize_dynamics has no parameter '{name}': {self.names}.")
        return columns

    def read_back(self) -> torch.Tensor:
        """Every parameter of every environment as the physics steps with it now, in the columns of :attr:`values`.

        Read from the solver's own model (MuJoCo-Warp's, or MuJoCo C's per world: :mod:`locolab.envs.solver_model`)
        and the arrays Newton's actuators compute torques from, never from what :meth:`apply` kept, so it disagrees
        with :attr:`values` where a write did not reach the physics (Newton forwards model changes at the next step:
        read after one). Friction and contact time constant: the mean over the robot-ground geom pairs of what MuJoCo
        gives their contacts (torsional and rolling friction: over the feet's); motor strength: the DC-motor clamp's
        efforts over their defaults, averaged; gain scales: the controller's gains over their defaults and the
        joint's strength; joint damping and friction loss: MuJoCo's, averaged over the hinges; the delay: Newton's
        actuators'. The gyroscope offset is no physics: it is the one the last policy observation carried (its slow
        drift aside)."""
        solver = self._physics._solver
        contacts = ground_contacts(solver, self._physics.get_model(), self._base_label)
        feet = foot_contacts(solver, contacts)
        joints = robot_dofs(solver)
        solver_values = [contact_friction(solver, contacts).mean(dim=1, keepdim=True),
                         model_field(solver, "body_mass")[:, [contacts.base]],
                         model_field(solver, "body_ipos")[:, contacts.base],
                         contact_time_constant(solver, contacts).mean(dim=1, keepdim=True),
                         contact_friction(solver, feet, axis=1).mean(dim=1, keepdim=True),
                         contact_friction(solver, feet, axis=2).mean(dim=1, keepdim=True),
                         model_field(solver, "dof_damping")[:, joints].mean(dim=1, keepdim=True),
                         model_field(solver, "dof_frictionloss")[:, joints].mean(dim=1, keepdim=True)]
        friction, mass, com, contact, torsional, rolling, damping, friction_loss = (
            values.to(self.device, torch.float) for values in solver_values)
        strength, kp_scale, kd_scale, delay = self._actuator_read_back()
        return torch.cat([friction, mass - self._default_mass, com - self._default_com[:, 0], strength,
                          kp_scale, kd_scale, contact, torsional, rolling, damping, friction_loss, delay,
                          self.applied_gyro_bias], dim=1)

    def _actuator_read_back(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per-joint motor strength and the mean kp and kd scales and delay, from the Newton actuators' parameter
        arrays: the physics' torques come from them (MuJoCo gets them as applied joint forces; its own effort limits
        act only on MuJoCo actuators, which the model has none of)."""
        strength = torch.empty(self.num_envs, self.robot.num_joints, device=self.device)
        kp_scale, kd_scale, delay = torch.empty_like(strength), torch.empty_like(strength), torch.empty_like(strength)
        for group, joints in self._group_joints.items():
            delay[:, joints] = read_group_parameter(self._actuators, group, "delay", "delay_steps").float()
            live = {key: read_group_parameter(self._actuators, group, *key) for key in _SCALED_ACTUATOR_PARAMETERS}
            default = {key: self._defaults[(group, *key)] for key in _SCALED_ACTUATOR_PARAMETERS}
            strength[:, joints] = sum(live[key] / default[key] for key in _DC_MOTOR_EFFORTS) / len(_DC_MOTOR_EFFORTS)
            for scale, gain in ((kp_scale, ("controller", "kp")), (kd_scale, ("controller", "kd"))):
                scale[:, joints] = live[gain] / default[gain] / strength[:, joints]
        return (strength, kp_scale.mean(dim=1, keepdim=True), kd_scale.mean(dim=1, keepdim=True),
                delay.mean(dim=1, keepdim=True))

    def apply(self, env_ids: torch.Tensor, values: torch.Tensor) -> None:
        """Write ``values`` (one row per environment in ``env_ids``, columns named by :attr:`names`) into the sim;
        :attr:`fixed` values win."""
        fixed = self.fixed[env_ids]
        values = torch.where(torch.isnan(fixed), values, fixed)
        values = torch.where(self._integer, values.round(), values)
        self.values[env_ids] = values
        column = {name: values[:, part] for name, part in self._slices.items()}
        mass, com, strength = column["added_base_mass"][:, 0], values[:, 2:5], column["motor_strength"]
        kp_scale, kd_scale = column["kp_scale"], column["kd_scale"]
        for shapes, name in ((self._friction, "friction"), (self._torsional, "foot_torsional_friction"),
                             (self._rolling, "foot_rolling_friction")):
            shapes[env_ids] = column[name]  # every robot shape; only the feet's condim reads the last two
        ke, kd = robot_contact_gains(column["contact_time_constant"][:, 0], *self._ground_solref)
        self._contact_ke[env_ids], self._contact_kd[env_ids] = ke[:, None], kd[:, None]
        self._physics.add_model_change(ModelFlags.SHAPE_PROPERTIES)
        joints = self.robot.num_joints
        self.robot.write_joint_viscous_friction_coefficient_to_sim_index(
            joint_viscous_friction_coeff=column["joint_damping"].expand(-1, joints), env_ids=env_ids)
        self.robot.write_joint_friction_coefficient_to_sim_index(
            joint_friction_coeff=column["joint_friction"].expand(-1, joints), env_ids=env_ids)
        env_ids_i32 = env_ids.to(torch.int32)
        self.robot.set_masses_index(masses=self._default_mass[env_ids] + mass[:, None], body_ids=self.base_ids,
                                    env_ids=env_ids_i32)
        self.robot.set_coms_index(coms=self._default_com[env_ids] + com[:, None], body_ids=self.base_ids,
                                  env_ids=env_ids_i32)
        for group, joints in self._group_joints.items():
            group_strength = strength[:, joints]
            scales = {"kp": group_strength * kp_scale, "kd": group_strength * kd_scale}
            for component, attr in _SCALED_ACTUATOR_PARAMETERS:
                default = self._defaults[(group, component, attr)][env_ids]
                write_group_parameter(self._actuators, group, component, attr,
                                      values=default * scales.get(attr, group_strength), env_ids=env_ids)
            write_group_parameter(self._actuators, group, "delay", "delay_steps", env_ids=env_ids,
                                  values=column["action_delay"].expand_as(group_strength).to(torch.int32))

    def normalized(self) -> torch.Tensor:
        """The applied values mapped linearly from their ranges to [-1, 1] (0 where a range is a single value)."""
        span = self.high - self.low
        return torch.where(span > 0, 2 * (self.values - self.low) / span.clamp_min(1e-12) - 1, 0.0)


def check_delay_depth(actuators, delay_range: Range) -> None:
    """:func:`check_delay_range` against the delay buffers Newton built for the articulation's actuator groups."""
    for group in actuators:
        groups = actuators[group] if isinstance(actuators[group], tuple) else (actuators[group],)
        check_delay_range(delay_range, min(getattr(getattr(actuator, "delay", None), "buf_depth", 0)
                                           for actuator in groups))


def ground_solref(model) -> tuple[float, float]:
    """MuJoCo's (time constant, damping ratio) of the ground: the global shapes' Newton contact stiffness and damping,
    as Newton's SolverMuJoCo converts them (``timeconst = 2 / kd``, ``dampratio = kd / (2 sqrt(ke))``)."""
    ground = model.shape_world.numpy() == -1
    ke, kd = model.shape_material_ke.numpy()[ground], model.shape_material_kd.numpy()[ground]
    if len(ke) == 0 or (ke != ke[0]).any() or (kd != kd[0]).any():
        raise ValueError("randomize_dynamics: the contact time constant needs one ground material (global shapes "
                         f"with the same stiffness and damping), got ke {ke.tolist()}, kd {kd.tolist()}.")
    return 2.0 / float(kd[0]), float(kd[0]) / (2.0 * math.sqrt(float(ke[0])))


def check_contact_time_constants(time_constants, ground_time_constant: float) -> None:
    """A ValueError naming a contact time constant that no robot shape can give: the mix with the ground's needs more
    than half the ground's (:func:`robot_contact_gains`)."""
    lowest = ground_time_constant / 2
    bad = [value for value in time_constants if not value > lowest]
    if bad:
        raise ValueError(f"contact_time_constant {bad[0]:g} s: the ground's contacts ({ground_time_constant:.3g} s) "
                         f"mix with the robot's, so it must exceed {lowest:.3g} s (MuJoCo raises any under two "
                         "physics steps to two anyway).")


def robot_contact_gains(time_constant: torch.Tensor, ground_time_constant: float,
                        damping_ratio: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Newton contact stiffness and damping of the robot's shapes that give its ground contacts ``time_constant`` at
    the ground's ``damping_ratio``.

    MuJoCo gives a contact the mean of its two shapes' ``solref`` (equal ``solmix``), so the robot's shapes take
    ``2 T - T_ground``; at ``T_ground`` they get the ground's own stiffness and damping."""
    own_time_constant = 2.0 * time_constant - ground_time_constant
    return 1.0 / (own_time_constant * damping_ratio) ** 2, 2.0 / own_time_constant


_SCALED_ACTUATOR_PARAMETERS = (
    ("controller", "kp"),
    ("controller", "kd"),
    ("clamping", "saturation_effort"),
    ("clamping", "max_motor_effort"),
)
"""Newton actuator parameters scaled per joint: gains by strength x gain scale, DC-motor limits by strength."""

_DC_MOTOR_EFFORTS = (("clamping", "saturation_effort"), ("clamping", "max_motor_effort"))
"""The DC-motor clamp's efforts, which bound its whole torque-speed envelope: motor strength scales both."""
