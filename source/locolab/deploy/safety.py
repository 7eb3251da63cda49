"""The deploy runtime's safety layer: what a robot's state estimate or a policy can get wrong never reaches the motors.

A real robot's IMU or encoders sometimes report a NaN or a spike, and a joint target outside a joint's range or far
from where the joint is breaks hardware. This layer holds the last safe target through a bad reading or a non-finite
policy output, clips targets to the joint limits in ``policy.json`` and, if asked, limits a target's change per step;
it counts every intervention by kind. With good inputs it changes nothing (targets bit-identical, tested).
"""

from __future__ import annotations

import math

import numpy as np

from .policy_file import scan_size

INTERVENTIONS = ("nonfinite_observation", "out_of_range_observation", "nonfinite_action", "clipped_to_limits",
                 "rate_limited")
"""The kinds of intervention :attr:`PolicyRuntime.interventions` counts (steps on which each happened)."""

MAX_ANG_VEL = 35.0
"""|base angular velocity| bound [rad/s]: 2000 deg/s, the full scale of the MEMS gyroscopes in legged robots' IMUs
(e.g. Bosch BMI088); a larger reading cannot be a measurement (a trotting Go2 turns at under 5 rad/s)."""
GRAVITY_NORM_TOLERANCE = 0.1
"""The gravity term is a unit vector (from a unit quaternion); a norm off by more than 10 % is a broken estimate."""
JOINT_VEL_FACTOR = 2.0
"""|joint velocity| bound: twice the motor's rated speed in policy.json's ``velocity_limit`` (Go2: 30.1 rad/s hip and
thigh, 15.7 rad/s calf); a motor cannot turn that fast, so such a reading is an encoder glitch."""
JOINT_POS_MARGIN = 0.1
"""Joint position bound beyond ``joint_pos_limits`` [rad]: the mechanical stops; calibration error and a
simulator's limit penetration stay well under 0.1 rad, an encoder glitch or another robot's zero does not."""
UNBOUNDED = float(np.finfo(np.float32).max)
"""The bound of what has no physical range (the operator's command, joints of an older policy.json): finite, so an
infinite reading still fails."""


class SafetyLayer:
    """The checks of one :class:`~locolab.deploy.PolicyRuntime`: a range test on the raw state, a finiteness test on
    the policy's outputs and a guard on the joint targets; interventions are counted into ``interventions``."""

    def __init__(self, metadata: dict, interventions: dict[str, int], output_names: list[str],
                 max_target_change: float | None = None) -> None:
        if max_target_change is not None and not (np.isfinite(max_target_change) and max_target_change > 0):
            raise ValueError(f"max_target_change is {max_target_change!r}: give a positive number of rad per step, "
                             "or None for no rate limit.")
        self.joint_names = list(metadata["joint_names"])
        n = len(self.joint_names)
        self.default_joint_pos = np.asarray(metadata["default_joint_pos"], dtype=np.float32)
        limits = metadata.get("joint_pos_limits")
        # without recorded limits (an older policy.json) the bounds only rule out non-finite targets and readings
        self.limit_low = np.asarray([low for low, _ in limits] if limits else [-UNBOUNDED] * n, dtype=np.float32)
        self.limit_high = np.asarray([high for _, high in limits] if limits else [UNBOUNDED] * n, dtype=np.float32)
        joint_low = self.limit_low - JOINT_POS_MARGIN if limits else np.full(n, -UNBOUNDED)
        joint_high = self.limit_high + JOINT_POS_MARGIN if limits else np.full(n, UNBOUNDED)
        joint_vel = JOINT_VEL_FACTOR * np.asarray(metadata["velocity_limit"], dtype=np.float64)
        scan = scan_size(metadata)
        self.fields = (("joint_pos", n), ("joint_vel", n), ("ang_vel", 3), ("gravity", 3), ("command", 3),
                       ("last_action", n), ("height_scan", scan))
        """The readings' fields, in the order of the bounds below (the last action, the policy's own, is finite; a
        height scan only finite: the observation's clip bounds it, and a missed ray reads far)."""
        gravity = 1 + GRAVITY_NORM_TOLERANCE
        self.low = np.concatenate([joint_low, -joint_vel, np.full(3, -MAX_ANG_VEL), np.full(3, -gravity),
                                   np.full(3 + n + scan, -UNBOUNDED)], dtype=np.float32)
        self.high = np.concatenate([joint_high, joint_vel, np.full(3, MAX_ANG_VEL), np.full(3, gravity),
                                    np.full(3 + n + scan, UNBOUNDED)], dtype=np.float32)
        self.gravity = slice(2 * n + 3, 2 * n + 6)
        self.output_names = output_names
        self.memory = len(output_names) > 1
        """Whether the policy has a memory (outputs besides the actions) whose finiteness is checked too."""
        self.plain = not self.memory and max_target_change is None
        """Whether a finite target within the limits needs no other check (the common case, kept fast)."""
        self.gravity_norm2 = ((1 - GRAVITY_NORM_TOLERANCE) ** 2, (1 + GRAVITY_NORM_TOLERANCE) ** 2)
        self.max_target_change = None if max_target_change is None else np.float32(max_target_change)
        self.interventions = interventions
        self.last: list[str] = []
        """What the latest step's interventions were, one line each (empty when it had none)."""
        self.reset()

    def reset(self) -> None:
        """A new episode: until a target is emitted the safe target is the default pose."""
        self.safe_target = self.default_joint_pos.copy()
        self.emitted = False

    def record(self, kind: str, detail: str) -> None:
        self.interventions[kind] += 1
        self.last.append(f"{kind}: {detail}")

    def hold(self) -> np.ndarray:
        """The last safe target (the default pose before any in this episode)."""
        return self.safe_target.copy()

    def check(self, readings: np.ndarray) -> bool:
        """Whether the robot's ``readings`` (:meth:`PolicyRuntime.readings`) are finite and in range; if not, the
        intervention is recorded."""
        x, y, z = readings[self.gravity].tolist()
        # NaN fails every comparison, so the range test also rules non-finite values out
        if np.count_nonzero((readings >= self.low) & (readings <= self.high)) == readings.size and \
                self.gravity_norm2[0] <= x * x + y * y + z * z <= self.gravity_norm2[1]:
            return True
        bad = ~np.isfinite(readings)
        if bad.any():
            self.record("nonfinite_observation", self._value(readings, int(np.argmax(bad))))
        else:
            outside = (readings < self.low) | (readings > self.high)
            if outside.any():
                i = int(np.argmax(outside))
                detail = f"{self._value(readings, i)} outside [{self.low[i]:.4g}, {self.high[i]:.4g}]"
            else:
                detail = f"|gravity| = {math.sqrt(x * x + y * y + z * z):.4g}, not 1 +- {GRAVITY_NORM_TOLERANCE}"
            self.record("out_of_range_observation", detail)
        return False

    def _value(self, raw: np.ndarray, index: int) -> str:
        """``joint_vel[3] = 87.2``: the field and index of the raw state's entry ``index``."""
        offset = 0
        for name, size in self.fields:
            if index < offset + size:
                return f"{name}[{index - offset}] = {float(raw[index]):.6g}"
            offset += size
        raise IndexError(index)

    def guard(self, targets: np.ndarray, joint_pos, outputs: list[np.ndarray]) -> np.ndarray | None:
        """``targets`` made safe: None (hold) when the policy's ``outputs`` gave a non-finite target or memory;
        otherwise limited in their change from the last safe target (from ``joint_pos`` at an episode's first step)
        when a rate limit is set, then clipped to the joint limits. They become the new safe target."""
        # NaN fails the range test, so one test passes finite targets within the limits
        in_limits = np.count_nonzero((targets >= self.limit_low) & (targets <= self.limit_high)) == targets.size
        if not (in_limits and self.plain):
            targets = self._guard(targets, joint_pos, outputs, in_limits)
            if targets is None:
                return None
        self.safe_target = targets.copy()
        self.emitted = True
        return targets

    def _guard(self, targets: np.ndarray, joint_pos, outputs: list[np.ndarray], in_limits: bool) -> np.ndarray | None:
        if not in_limits and not np.isfinite(targets).all() or self.memory and not self._finite(outputs[1:]):
            counts = [(name, int(np.count_nonzero(~np.isfinite(output))))
                      for name, output in zip(self.output_names, outputs)]
            self.record("nonfinite_action", ", ".join(f"the policy's '{name}' has {count} non-finite values"
                                                      for name, count in counts if count) or "non-finite targets")
            return None
        if self.max_target_change is not None:
            reference = self.safe_target if self.emitted else np.asarray(joint_pos, dtype=np.float32)
            low, high = reference - self.max_target_change, reference + self.max_target_change
            if ((targets < low) | (targets > high)).any():
                self.record("rate_limited", self._joints(targets, low, high))
                targets = np.clip(targets, low, high)
                in_limits = ((targets >= self.limit_low) & (targets <= self.limit_high)).all()
        if not in_limits:
            self.record("clipped_to_limits", self._joints(targets, self.limit_low, self.limit_high))
            targets = np.clip(targets, self.limit_low, self.limit_high)
        return targets

    @staticmethod
    def _finite(arrays: list[np.ndarray]) -> bool:
        return all(np.isfinite(array).all() for array in arrays)

    def _joints(self, targets: np.ndarray, low: np.ndarray, high: np.ndarray) -> str:
        outside = np.flatnonzero((targets < low) | (targets > high))
        return ", ".join(f"{self.joint_names[i]} {float(targets[i]):.4g} -> [{float(low[i]):.4g}, "
                         f"{float(high[i]):.4g}]" for i in outside[:3]) + (" ..." if len(outside) > 3 else "")
