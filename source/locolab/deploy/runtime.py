"""Runs an exported LocoLab policy on a robot: numpy and onnxruntime only (no torch, no Isaac Lab).

It reads ``policy.json`` and ``policy.onnx`` written by ``scripts/export.py``, turns raw robot state into the
observation the policy was trained on (term by term, with the metadata's scales and clips, in its order), keeps the
proprioceptive history exactly as LocoLab's training environment does (newest last; refilled with the first
observation after a reset), carries a recurrent policy's memory from step to step (zeros after a reset) and returns
joint position targets for the robot's PD controller.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime

METADATA_FILE = "policy.json"
FORMAT = "locolab-policy/1"


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


def gravity_in_base_frame(quat_wxyz: np.ndarray) -> np.ndarray:
    """The unit gravity vector seen from a base whose orientation is the quaternion (w, x, y, z)."""
    w, x, y, z = (float(v) for v in quat_wxyz)
    # third row of the rotation matrix, negated: R^T (0, 0, -1)
    return -np.array([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], dtype=np.float32)


class PolicyRuntime:
    """One robot's policy loop: ``reset(state)`` at the start of an episode, then ``step(state)`` every control
    period (``metadata["control_period_s"]``), each returning the joint position targets."""

    def __init__(self, policy_dir: str | Path) -> None:
        policy_dir = Path(policy_dir)
        metadata_path = policy_dir / METADATA_FILE
        if not metadata_path.is_file():
            raise FileNotFoundError(f"No {METADATA_FILE} in '{policy_dir}': export the policy with scripts/export.py.")
        self.metadata = json.loads(metadata_path.read_text())
        if self.metadata.get("format") != FORMAT:
            raise ValueError(f"'{metadata_path}' is format {self.metadata.get('format')!r}, "
                             f"this runtime reads {FORMAT}.")
        self.session = onnxruntime.InferenceSession(str(policy_dir / self.metadata["onnx"]),
                                                    providers=["CPUExecutionProvider"])
        self.terms = self.metadata["observation"]["terms"]
        unknown = [term["name"] for term in self.terms if term["name"] not in _TERMS]
        if unknown:
            raise ValueError(f"The policy observes {unknown}, which this runtime cannot measure "
                             f"(known: {list(_TERMS)}).")
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

    def reset(self) -> None:
        """Start a new episode: no last action, the next observation refills the history, the memory is zeroed."""
        self.history = None
        self.last_action[:] = 0.0
        for value in self.state.values():
            value[:] = 0.0

    def observation(self, state: RobotState) -> np.ndarray:
        """The policy observation of ``state``: the metadata's terms in order, each clipped then scaled."""
        parts = []
        for term in self.terms:
            value = _TERMS[term["name"]](self, state).astype(np.float32)
            if term["clip"] is not None:
                value = np.clip(value, term["clip"][0], term["clip"][1])
            if term["scale"] is not None:
                value = value * np.asarray(term["scale"], dtype=np.float32)
            parts.append(value)
        return np.concatenate(parts).astype(np.float32)

    def push_history(self, observation: np.ndarray) -> np.ndarray:
        """Append ``observation`` (newest last); right after a reset it fills the whole history."""
        if self.history is None:
            self.history = np.repeat(observation[None], self.history_length, axis=0)
        else:
            self.history = np.concatenate([self.history[1:], observation[None]], axis=0)
        return self.history

    def step(self, state: RobotState) -> np.ndarray:
        """Observe ``state``, run the policy, and return the joint position targets [rad]."""
        observation = self.observation(state)
        inputs = {"obs": observation[None]}
        if self.history_length:
            inputs["history"] = self.push_history(observation)[None]
        outputs = self.session.run(["actions", *self.state_outputs.values()], inputs | self.state)
        self.state = dict(zip(self.state_outputs, outputs[1:]))
        action = outputs[0][0]
        if self.action_clip is not None:
            action = np.clip(action, -self.action_clip, self.action_clip)
        self.last_action = action.astype(np.float32)
        return self.default_joint_pos + self.action_scale * self.last_action


_TERMS = {
    "base_ang_vel": lambda runtime, state: np.asarray(state.ang_vel),
    "projected_gravity": lambda runtime, state: np.asarray(state.gravity),
    "velocity_commands": lambda runtime, state: np.asarray(state.command),
    "joint_pos": lambda runtime, state: np.asarray(state.joint_pos, dtype=np.float32) - runtime.default_joint_pos,
    "joint_vel": lambda runtime, state: np.asarray(state.joint_vel, dtype=np.float32) - runtime.default_joint_vel,
    "actions": lambda runtime, state: runtime.last_action,
}
"""How each observation term LocoLab's tasks use is read from a robot's raw state."""
