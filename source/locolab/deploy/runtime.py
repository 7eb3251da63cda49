"""Runs an exported LocoLab policy on a robot: numpy and onnxruntime only (no torch, no Isaac Lab).

It reads ``policy.json`` and ``policy.onnx`` written by ``scripts/export.py``, turns raw robot state into the
observation the policy was trained on (term by term, with the metadata's scales and clips, in its order), keeps the
proprioceptive history exactly as LocoLab's training environment does (newest last; refilled with the first
observation after a reset), carries a recurrent policy's memory from step to step (zeros after a reset), runs a
policy's gait clock from its step count (phase 0 at a reset) and returns joint position targets for the robot's PD
controller.

Both files are checked before use (:mod:`.policy_file`): one :class:`PolicyFileError` (a ValueError) names the first
problem and its fix. A ``policy.json`` written before the checks existed (no ``onnx_sha256``, no ``joint_pos_limits``)
still loads, with a :class:`PolicyFileWarning` saying what goes unchecked (the ONNX file's hash, the clip to the joint
limits) and to re-export. The safety layer (:mod:`.safety`, on by default) is described on :class:`PolicyRuntime`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime

from .policy_file import (CLOCK_TERM, FORMAT, MEASURABLE_TERM_SIZES, METADATA_FILE, PolicyFileError, check_session,
                          clock_frequency, read_policy_file, scan_size)
from .safety import INTERVENTIONS, SafetyLayer

__all__ = ["FORMAT", "METADATA_FILE", "PolicyFileError", "PolicyRuntime", "RobotState", "gravity_in_base_frame"]


@dataclass
class RobotState:
    """What the robot measures, in the policy's joint order and the base (IMU) frame."""

    joint_pos: np.ndarray
    """Joint positions [rad]."""
    joint_vel: np.ndarray
    """Joint velocities [rad/s]."""
    ang_vel: np.ndarray
    """Base angular velocity (gyroscope), base frame [rad/s]."""
    gravity: np.ndarray
    """Unit gravity direction in the base frame (0, 0, -1 when level); see :func:`gravity_in_base_frame`."""
    command: np.ndarray
    """Velocity command (lin_vel_x [m/s], lin_vel_y [m/s], ang_vel_z [rad/s])."""
    height_scan: np.ndarray | None = None
    """Only for a policy that reads the terrain (``policy.json``'s ``height_scan`` says how the points are laid):
    each point's ground height below the base, ``base_z - ground_z - 0.5`` [m]."""


def gravity_in_base_frame(quat_wxyz: np.ndarray) -> np.ndarray:
    """The unit gravity vector seen from a base whose orientation is the quaternion (w, x, y, z)."""
    w, x, y, z = (float(v) for v in quat_wxyz)
    # third row of the rotation matrix, negated: R^T (0, 0, -1)
    return -np.array([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], dtype=np.float32)


class PolicyRuntime:
    """One robot's policy loop: ``reset()`` at the start of an episode, then ``step(state)`` every control
    period (``metadata["control_period_s"]``), each returning the joint position targets.

    The safety layer (``safety=True``, the default) never lets a NaN or an impossible reading reach the motors:

    - a non-finite state, or one out of range (:mod:`.safety`'s bounds: gyroscope full scale, a unit gravity vector,
      twice the motors' rated speed, the joint limits plus a margin) is not observed: the step returns the last safe
      target (the default pose before any in the episode) and leaves the history, last action and memory as they were;
    - a non-finite policy output (actions or a recurrent memory) is held the same way;
    - targets are clipped to ``policy.json``'s ``joint_pos_limits``; with ``max_target_change`` (rad per step, off by
      default) each target also moves at most that far from the last one (from the measured joint position at an
      episode's first step), before the clip.

    Each step with an intervention adds one to ``interventions[kind]`` (kinds: :data:`INTERVENTIONS`) and
    ``last_interventions`` says what it was. On good inputs the targets are bit-identical to ``safety=False``'s.
    """

    def __init__(self, policy_dir: str | Path, *, safety: bool = True, max_target_change: float | None = None) -> None:
        self.metadata, onnx_path, self.unchecked = read_policy_file(policy_dir)
        try:
            self.session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own classes for a truncated or foreign file
            message = " ".join(str(error).split())[:200]
            raise PolicyFileError(f"'{onnx_path}' is not an ONNX model onnxruntime can load ({message}): copy the "
                                  "policy.onnx exported with this policy.json.") from None
        check_session(self.session, self.metadata, Path(policy_dir) / METADATA_FILE)
        self.terms = self.metadata["observation"]["terms"]
        self.default_joint_pos = np.asarray(self.metadata["default_joint_pos"], dtype=np.float32)
        self.default_joint_vel = np.asarray(self.metadata["default_joint_vel"], dtype=np.float32)
        action = self.metadata["action"]
        self.action_scale = np.float32(action["scale"])
        self.action_clip = action["clip"]
        history = self.metadata.get("history")
        self.history_length = history["length"] if history else 0
        self.history: np.ndarray | None = None
        self.last_action = np.zeros(len(self.default_joint_pos), dtype=np.float32)
        recurrent = self.metadata.get("recurrent") or {"state": {}}
        self.state_outputs = {name: entry["output"] for name, entry in recurrent["state"].items()}
        """A recurrent policy's memory inputs and the outputs that update them (empty for a feed-forward policy)."""
        self.state = {name: np.zeros(entry["shape"], dtype=np.float32) for name, entry in recurrent["state"].items()}
        self.output_names = ["actions", *self.state_outputs.values()]
        frequency = clock_frequency(self.metadata)
        self.clock_step = None if frequency is None else np.float32(self.metadata["control_period_s"] * frequency)
        """Gait-clock cycles a control period (None: a policy without a clock)."""
        self.steps = 0
        """Calls of :meth:`step` since the reset: the gait clock's count (it advances on held steps too)."""
        self._gather_observation()
        self.interventions = dict.fromkeys(INTERVENTIONS, 0)
        """Steps on which the safety layer intervened, by kind (all zero with ``safety=False``)."""
        if not safety and max_target_change is not None:
            raise ValueError("max_target_change needs the safety layer: leave safety=True.")
        self.safety = SafetyLayer(self.metadata, self.interventions, self.output_names,
                                  max_target_change) if safety else None

    def _gather_observation(self) -> None:
        """Where each observation entry comes from in :meth:`readings`, and its offset, clip and scale."""
        n = len(self.default_joint_pos)
        self.sizes = (n, n, 3, 3, 3, n, scan_size(self.metadata))
        self.readings_shape = (sum(self.sizes),)
        clock = (0 if self.clock_step is None else MEASURABLE_TERM_SIZES[CLOCK_TERM],)  # after the robot's readings
        starts = dict(zip(_TERM_READINGS, np.cumsum((0, *self.sizes, *clock))))
        offsets = {"joint_pos": self.default_joint_pos, "joint_vel": self.default_joint_vel}
        gather, offset, low, high, scale = [], [], [], [], []
        for term in self.terms:
            name, size = term["name"], term["size"]
            gather.append(starts[name] + np.arange(size))
            offset.append(offsets.get(name, np.zeros(size, np.float32)))
            clip = term["clip"] or (-np.inf, np.inf)
            low.append(np.full(size, clip[0], np.float32))
            high.append(np.full(size, clip[1], np.float32))
            scale.append(np.broadcast_to(np.asarray(1.0 if term["scale"] is None else term["scale"], np.float32),
                                         (size,)))
        self.gather = np.concatenate(gather)
        self.offset, self.scale = np.concatenate(offset), np.concatenate(scale)
        self.clip = None
        if any(term["clip"] is not None for term in self.terms):
            self.clip = (np.concatenate(low), np.concatenate(high))

    @property
    def last_interventions(self) -> list[str]:
        """The latest step's interventions, one line each (``kind: detail``); empty when it had none."""
        return list(self.safety.last) if self.safety is not None else []

    def reset(self) -> None:
        """Start a new episode: no last action, the next observation refills the history, the memory is zeroed, the
        gait clock restarts at phase 0."""
        self.history = None
        self.steps = 0
        self.last_action[:] = 0.0
        for value in self.state.values():
            value[:] = 0.0
        if self.safety is not None:
            self.safety.reset()

    def readings(self, state: RobotState) -> np.ndarray:
        """``state`` and the last action as one float32 vector (joint_pos, joint_vel, ang_vel, gravity, command,
        last action): what the observation is gathered from and the safety layer checks, in one copy."""
        scan = self.sizes[-1]
        if scan and state.height_scan is None:
            raise ValueError(f"This policy reads a height scan of {scan} points: give RobotState.height_scan "
                             "(policy.json's height_scan says how its points are laid).")
        readings = np.concatenate((state.joint_pos, state.joint_vel, state.ang_vel, state.gravity, state.command,
                                   self.last_action, *((state.height_scan,) if scan else ())), dtype=np.float32)
        if readings.shape != self.readings_shape:
            fields = [name for name in _READINGS if name != "last_action"]
            sizes = {name: int(np.size(getattr(state, name))) for name in fields}
            needs = dict(zip(_READINGS, self.sizes))
            raise ValueError(f"RobotState has sizes {sizes}, the policy needs "
                             f"{ {name: needs[name] for name in fields} } (policy joint order).")
        return readings

    def observation(self, state: RobotState) -> np.ndarray:
        """The policy observation of ``state``: the metadata's terms in order, each clipped then scaled."""
        return self._observe(self.readings(state))

    def clock(self) -> np.ndarray:
        """The gait clock at this step, ``(sin 2 pi phase, cos 2 pi phase)``, the phase the fractional part of the
        cycles since the reset: float32 operations as locolab.envs.mdp.gait_clock's."""
        cycles = np.float32(self.steps) * self.clock_step
        angle = np.float32(2.0 * np.pi) * (cycles - np.trunc(cycles))
        return np.array([np.sin(angle), np.cos(angle)], dtype=np.float32)

    def _observe(self, readings: np.ndarray) -> np.ndarray:
        # element by element the same float32 operations as term by term: minus the offset, clip, times the scale
        # (x - 0, a clip to +-inf and x * 1 leave x as it is), so the observation is bit-identical
        if self.clock_step is not None:
            readings = np.concatenate((readings, self.clock()))
        value = readings[self.gather] - self.offset
        if self.clip is not None:
            value = np.clip(value, self.clip[0], self.clip[1])
        return value * self.scale

    def push_history(self, observation: np.ndarray) -> np.ndarray:
        """Append ``observation`` (newest last); right after a reset it fills the whole history."""
        if self.history is None:
            self.history = np.repeat(observation[None], self.history_length, axis=0)
        else:
            self.history = np.concatenate([self.history[1:], observation[None]], axis=0)
        return self.history

    def step(self, state: RobotState) -> np.ndarray:
        """Observe ``state``, run the policy, and return the joint position targets [rad] (never NaN with the safety
        layer on: a bad state or policy output returns the last safe target)."""
        safety = self.safety
        readings = self.readings(state)
        observation = self._observe(readings)
        self.steps += 1  # a control period passes whether or not the step is held
        if safety is not None:
            safety.last.clear()
            if not safety.check(readings):
                return safety.hold()
        inputs = {"obs": observation[None]}
        if self.history_length:
            inputs["history"] = self.push_history(observation)[None]
        outputs = self.session.run(self.output_names, inputs | self.state)
        action = outputs[0][0]
        if self.action_clip is not None:
            action = np.clip(action, -self.action_clip, self.action_clip)
        action = action.astype(np.float32)
        targets = self.default_joint_pos + self.action_scale * action
        if safety is not None:
            targets = safety.guard(targets, state.joint_pos, outputs)
            if targets is None:  # a non-finite output: nothing of this step is kept
                return safety.hold()
        self.state = dict(zip(self.state_outputs, outputs[1:]))
        self.last_action = action
        return targets


_READINGS = ("joint_pos", "joint_vel", "ang_vel", "gravity", "command", "last_action", "height_scan")
"""The order of :meth:`PolicyRuntime.readings` (the height scan only for a policy that reads one)."""
_TERM_READINGS = ("joint_pos", "joint_vel", "base_ang_vel", "projected_gravity", "velocity_commands", "actions",
                  "height_scan", "gait_clock")
"""The observation term each reading is, in the same order, then the runtime's own gait clock."""
assert set(_TERM_READINGS) == set(MEASURABLE_TERM_SIZES)
