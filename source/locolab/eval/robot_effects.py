"""What a real Go2 adds to the idealised MJCF robot of sim-to-sim: foot torsional and rolling friction, joint damping
and friction loss, the motors' torque-speed limit, the delay of a command, a biased and noisy gyroscope.

Training randomises each of them (:class:`locolab.envs.mdp.DynamicsRandomizationCfg` has the ranges and their
sources); here each is one number that sim2sim.py sets on MuJoCo's own model and loop, and :data:`REALISTIC` is all
of them at once, at published or measured values: the check to run before a policy meets hardware.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import asdict, dataclass, fields, replace

import mujoco
import numpy as np

CONDIMS = (1, 3, 4, 6)
"""MuJoCo's contact dimensions: normal only, + sliding friction, + torsional, + rolling."""


@dataclass(frozen=True)
class RobotEffects:
    """The sim-to-real effects of one sim-to-sim run (the defaults: none, the MJCF as written)."""

    foot_condim: int = 3
    """MuJoCo ``condim`` of the feet: 6 gives them torsional and rolling friction."""
    foot_torsional_friction: float | None = None
    """Torsional friction of the feet [m] (None: the MJCF's, MuJoCo's 0.005); acts with condim 4 or 6."""
    foot_rolling_friction: float | None = None
    """Rolling friction of the feet [m] (None: the MJCF's, 0.0001); acts with condim 6."""
    joint_damping: float = 0.0
    """Viscous damping of every joint [N m s/rad]."""
    joint_friction: float = 0.0
    """Coulomb friction loss of every joint [N m]."""
    latency_ms: float = 0.0
    """Delay from the policy's targets to the motors [ms], a whole number of physics steps."""
    motor_torque_speed: bool = False
    """The DC motor's envelope: torque falls linearly from the effort limit at rest to zero at the joint's velocity
    limit (policy.json's), as Isaac Lab's and Newton's DC motor; off: a flat effort limit."""
    gyro_bias: float = 0.0
    """Constant offset of each gyroscope axis [rad/s] (either sign)."""
    gyro_noise: float = 0.0
    """Standard deviation of the gyroscope's white noise per reading [rad/s]."""

    def check(self, timestep: float) -> None:
        """A ValueError naming the first value MuJoCo or the loop cannot take."""
        if self.foot_condim not in CONDIMS:
            raise ValueError(f"--foot_condim {self.foot_condim}: MuJoCo takes {', '.join(map(str, CONDIMS))}.")
        for item in fields(self):
            value = getattr(self, item.name)
            signed = item.name == "gyro_bias"
            if isinstance(value, float) and not (math.isfinite(value) and (signed or value >= 0)):
                raise ValueError(f"--{item.name} {value}: give a finite number{'' if signed else ', at least 0'}.")
        steps = self.latency_ms / 1000 / timestep
        if abs(steps - round(steps)) > 1e-6:
            raise ValueError(f"--latency_ms {self.latency_ms:g}: give a multiple of the physics step "
                             f"({timestep * 1000:g} ms).")

    def latency_steps(self, timestep: float) -> int:
        return round(self.latency_ms / 1000 / timestep)

    def as_dict(self) -> dict:
        return asdict(self)


REALISTIC = RobotEffects(foot_condim=6, foot_torsional_friction=0.02, foot_rolling_friction=0.01, joint_damping=0.1,
                         joint_friction=0.2, latency_ms=15.0, motor_torque_speed=True, gyro_bias=0.03,
                         gyro_noise=0.01)
"""Every effect at a realistic value: MuJoCo Menagerie's Go2 feet (condim 6, 0.02 torsional, 0.01 rolling) and joints
(damping 0.1, friction loss 0.2), 15 ms of latency (the middle of a Go2's 10-20 ms), the DC-motor envelope of the
published limits, a 0.03 rad/s gyroscope offset (1.7 deg/s, past a MEMS gyroscope's +-1 deg/s) and 0.01 rad/s of
white noise."""


def mjcf_timestep(mjcf) -> float:
    """The physics step [s] of an MJCF file."""
    return float(mujoco.MjModel.from_xml_path(str(mjcf)).opt.timestep)


def with_overrides(base: RobotEffects, **values) -> RobotEffects:
    """``base`` with every given value that is not None."""
    return replace(base, **{name: value for name, value in values.items() if value is not None})


def apply_to_model(model: mujoco.MjModel, effects: RobotEffects, foot_geoms: np.ndarray, dofs: np.ndarray) -> None:
    """Write the feet's contact dimension and friction and the joints' damping and friction loss into ``model``."""
    model.geom_condim[foot_geoms] = effects.foot_condim
    if effects.foot_torsional_friction is not None:
        model.geom_friction[foot_geoms, 1] = effects.foot_torsional_friction
    if effects.foot_rolling_friction is not None:
        model.geom_friction[foot_geoms, 2] = effects.foot_rolling_friction
    model.dof_damping[dofs] = effects.joint_damping
    model.dof_frictionloss[dofs] = effects.joint_friction


def torque_limits(effort: np.ndarray, velocity_limit: np.ndarray,
                  joint_vel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) torque each motor can give at ``joint_vel``: the DC-motor envelope (stall torque
    ``effort``, zero torque at ``velocity_limit``) clipped to the effort limit."""
    ratio = joint_vel / velocity_limit
    return np.maximum(effort * (-1.0 - ratio), -effort), np.minimum(effort * (1.0 - ratio), effort)


class TargetDelay:
    """The targets the motors act on, ``steps`` physics steps after the policy gave them (the oldest it has
    before then: the first target after a reset)."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.queue: deque[np.ndarray] = deque(maxlen=steps + 1)

    def reset(self) -> None:
        self.queue.clear()

    def __call__(self, targets: np.ndarray) -> np.ndarray:
        self.queue.append(targets)
        return self.queue[0]


class Gyroscope:
    """The IMU's angular velocity with a constant offset and white noise (seeded: a run repeats)."""

    def __init__(self, bias: float, noise: float, seed: int = 0) -> None:
        self.bias, self.noise = bias, noise
        self.random = np.random.default_rng(seed)

    def __call__(self, ang_vel: np.ndarray) -> np.ndarray:
        reading = ang_vel + self.bias
        if self.noise:
            reading = reading + self.random.normal(0.0, self.noise, size=ang_vel.shape)
        return reading.astype(np.float32)
