"""Robustness sweeps: grids of dynamics, pushes and commands, each grid point on its own slice of the environments.

One vectorised run evaluates every grid point of every requested sweep at once: the slice of a grid point holds its
swept parameter at the grid value and every other randomised parameter at the middle of its training range, under
the walking check's forward command (the command sweep varies that command instead). Grid values go beyond the
training ranges (friction down to 0.1, payload up to 5 kg, motor strength down to 0.6, ground contacts as soft as
0.05 s, pushes up to 1.5 m/s, the sim-to-real effects to twice their training tops: foot torsional and rolling
friction, joint damping and friction loss, the motors' delay, the gyroscope's offset);
the ranges themselves are read from the training task's config, and the values a run used are read back from the
simulator (:func:`read_back`), not copied from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from locolab.envs.commands import COMMAND_NAME, fix_velocity_command

from .report import SweepInfo

NOMINAL_COMMAND = (0.5, 0.0, 0.0)
"""The command of every dynamics and push sweep: the forward check of locolab.eval.walking."""
PUSH_INTERVAL_S = 3.0
PUSH_EVENT = "push_sweep"
DYNAMICS_EVENT = "dynamics"

GRIDS = {
    "friction": (0.1, 0.2, 0.3, 0.6, 1.0, 1.5, 2.0, 2.5),
    "payload": (-0.5, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0),
    "motor": (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2),
    "contact": (0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05),
    "torsional": (0.005, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08),
    "rolling": (0.0001, 0.005, 0.01, 0.02, 0.03, 0.04),
    "joint_damping": (0.0, 0.1, 0.2, 0.3, 0.4),
    "joint_friction": (0.0, 0.2, 0.4, 0.6, 0.8),
    "delay": (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0),
    "gyro_bias": (-0.1, -0.05, 0.0, 0.05, 0.1),
    "push": (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5),
    "command": None,  # the task's forward-velocity command range, five points
}
"""Default grid of each sweep."""
SWEEP_NAMES = tuple(GRIDS)
DYNAMICS_PARAMETER = {"friction": "friction", "payload": "added_base_mass", "motor": "motor_strength",
                      "contact": "contact_time_constant", "torsional": "foot_torsional_friction",
                      "rolling": "foot_rolling_friction", "joint_damping": "joint_damping",
                      "joint_friction": "joint_friction", "delay": "action_delay", "gyro_bias": "gyro_bias"}
"""The :class:`~locolab.envs.mdp.randomize_dynamics` parameter each dynamics sweep holds."""


@dataclass(frozen=True)
class GridPoint:
    sweep: str
    value: float
    start: int
    stop: int
    """Environments ``[start, stop)`` evaluate this point."""

    @property
    def envs(self) -> slice:
        return slice(self.start, self.stop)


def parse_sweeps(names: list[str]) -> list[str]:
    """Sweep names (``all`` for every one), checked; a ValueError names an unknown one."""
    chosen = []
    for name in names:
        if name == "all":
            chosen += [sweep for sweep in SWEEP_NAMES if sweep not in chosen]
        elif name not in SWEEP_NAMES:
            raise ValueError(f"unknown sweep '{name}': choose from {', '.join(SWEEP_NAMES)} or all.")
        elif name not in chosen:
            chosen.append(name)
    return chosen


def parse_grid_overrides(specs: list[str], parse_names=parse_sweeps) -> dict[str, tuple[float, ...]]:
    """``NAME=V1,V2,...`` grid overrides; an unknown name (checked by ``parse_names``: sweeps, or terrain types),
    an empty grid or a non-number is a ValueError."""
    grids = {}
    for spec in specs:
        name, _, values = spec.partition("=")
        parse_names([name])
        if name == "all":
            raise ValueError("--grid takes one sweep per NAME=V1,V2,... (not 'all').")
        items = [item for item in values.split(",") if item.strip()]
        if not items:
            raise ValueError(f"--grid {name}: the grid is empty; give values as {name}=V1,V2,...")
        try:
            grids[name] = tuple(float(item) for item in items)
        except ValueError:
            raise ValueError(f"--grid {name}: '{values}' is not a comma-separated list of numbers.") from None
        if not all(math.isfinite(v) for v in grids[name]):
            raise ValueError(f"--grid {name}: values must be finite, got '{values}'.")
    return grids


def sweep_infos(train_cfg) -> dict[str, SweepInfo]:
    """Axis label and training range of each sweep, from the training task's config."""
    ranges = train_cfg.events.dynamics.params["ranges"]
    push = train_cfg.events.push_robot
    push_max = math.hypot(*(max(abs(low), abs(high)) for low, high in push.params["velocity_range"].values())) \
        if push is not None else 0.0
    command = getattr(train_cfg.commands, COMMAND_NAME).ranges.lin_vel_x
    return {
        "friction": SweepInfo("friction", "friction coefficient", tuple(ranges.friction)),
        "payload": SweepInfo("payload", "added base mass [kg]", tuple(ranges.added_base_mass)),
        "motor": SweepInfo("motor", "motor strength (torque scale)", tuple(ranges.motor_strength)),
        "contact": SweepInfo("contact", "ground contact time constant [s]", contact_training_range(train_cfg)),
        "torsional": SweepInfo("torsional", "foot torsional friction [m]", tuple(ranges.foot_torsional_friction)),
        "rolling": SweepInfo("rolling", "foot rolling friction [m]", tuple(ranges.foot_rolling_friction)),
        "joint_damping": SweepInfo("joint_damping", "joint damping [N m s/rad]", tuple(ranges.joint_damping)),
        "joint_friction": SweepInfo("joint_friction", "joint friction loss [N m]", tuple(ranges.joint_friction)),
        "delay": SweepInfo("delay", f"action delay [physics steps of {train_cfg.sim.dt * 1000:g} ms]",
                           tuple(ranges.action_delay)),
        "gyro_bias": SweepInfo("gyro_bias", "gyroscope offset, each axis [rad/s]", tuple(ranges.gyro_bias)),
        "push": SweepInfo("push", "push speed [m/s]", (0.0, push_max)),
        "command": SweepInfo("command", "forward velocity command [m/s]", tuple(command)),
    }


def contact_training_range(train_cfg) -> tuple[float, float]:
    """The sampled contact time constants, or where the task holds the ground material's (Newton's 1.8 ms): every
    time constant up to two physics substeps, which MuJoCo raises to that one contact."""
    sampled = train_cfg.events.dynamics.params["ranges"].contact_time_constant
    if sampled is not None:
        return tuple(sampled)
    return 0.0, 2 * train_cfg.sim.dt / train_cfg.sim.physics.num_substeps


def plan_grid(sweeps: list[str], episodes: int, infos: dict[str, SweepInfo],
              overrides: dict[str, tuple[float, ...]] | None = None) -> list[GridPoint]:
    """Grid points of ``sweeps``, ``episodes`` environments each, on consecutive slices."""
    points, start = [], 0
    for sweep in sweeps:
        values = (overrides or {}).get(sweep) or GRIDS[sweep]
        if values is None:  # the command range, five points
            low, high = infos[sweep].training_range
            values = tuple(low + (high - low) * i / 4 for i in range(5))
        for value in values:
            points.append(GridPoint(sweep, float(value), start, start + episodes))
            start += episodes
    return points


def prepare_env_cfg(env_cfg, points: list[GridPoint]) -> None:
    """Make an evaluation (``-Play``) config ready for :func:`apply_grid`, in place: the nominal command everywhere
    (per-environment commands possible), and a per-environment push event when pushes are swept."""
    from isaaclab.managers import EventTermCfg

    from locolab.envs.mdp import push_at_speed
    from locolab.envs.swept_command import SweptVelocityCommand

    env_cfg.scene.num_envs = points[-1].stop
    fix_velocity_command(env_cfg, NOMINAL_COMMAND)
    getattr(env_cfg.commands, COMMAND_NAME).class_type = SweptVelocityCommand
    delays = [point.value for point in points if point.sweep == "delay"]
    if delays:  # the motors' delay buffers must hold the longest delay swept
        for actuator in env_cfg.scene.robot.actuators.values():
            actuator.max_delay = max(actuator.max_delay, math.ceil(max(delays)))
    if any(point.sweep == "push" for point in points):
        setattr(env_cfg.events, PUSH_EVENT, EventTermCfg(func=push_at_speed, mode="interval",
                                                         interval_range_s=(PUSH_INTERVAL_S, PUSH_INTERVAL_S)))


def _push_term(env):
    return env.event_manager.get_term_cfg(PUSH_EVENT).func if PUSH_EVENT in env.event_manager.active_terms.get(
        "interval", []) else None


def apply_grid(env, points: list[GridPoint]) -> None:
    """Hold each slice of the (unwrapped) environment at its grid value from the next reset on; every other
    randomised parameter at the middle of its range."""
    dynamics = env.event_manager.get_term_cfg(DYNAMICS_EVENT).func
    dynamics.range_scale = 0.0
    device = env.device
    held = {name: torch.full((env.num_envs,), float("nan"), device=device) for name in DYNAMICS_PARAMETER.values()}
    command = env.command_manager.get_term(COMMAND_NAME)
    push = _push_term(env)
    for point in points:
        if point.sweep in DYNAMICS_PARAMETER:
            held[DYNAMICS_PARAMETER[point.sweep]][point.envs] = point.value
        elif point.sweep == "command":
            command.fixed[point.envs] = torch.tensor([point.value, 0.0, 0.0], device=device)
        elif point.sweep == "push":
            push.speeds[point.envs] = point.value
    for name, values in held.items():
        dynamics.fix(name, values)
    if push is not None:
        push.applied_sum.zero_()
        push.pushes.zero_()


def read_back(env, points: list[GridPoint]) -> list[float]:
    """Each grid point's value as the simulator holds (or, for pushes, applied) it, averaged over its slice: the
    dynamics from the solver's own model (:meth:`~locolab.envs.mdp.randomize_dynamics.read_back`)."""
    dynamics = env.event_manager.get_term_cfg(DYNAMICS_EVENT).func
    solver_values = dynamics.read_back()
    simulated = {name: solver_values[:, dynamics.columns(name)].mean(dim=1) for name in DYNAMICS_PARAMETER.values()}
    simulated["command"] = env.command_manager.get_command(COMMAND_NAME)[:, 0]
    push = _push_term(env)
    if push is not None:
        simulated["push"] = push.applied_speed()
    values = []
    for point in points:
        key = DYNAMICS_PARAMETER.get(point.sweep, point.sweep)
        values.append(float(simulated[key][point.envs].float().mean()))
    return values
