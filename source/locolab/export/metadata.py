"""``policy.json``: everything a robot loop needs besides the network, read from the environment it was trained in.

The runtime (:mod:`locolab.deploy`) reads it; nothing in it is typed by hand, so it cannot drift from the task.
"""

from __future__ import annotations

import hashlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from isaaclab.utils.string import resolve_matching_names_values

from locolab.deploy import FORMAT
from locolab.deploy.policy_file import CLOCK_TERM

TERM_MEANINGS = {
    "base_ang_vel": "base angular velocity (IMU gyroscope), base frame [rad/s]",
    "projected_gravity": "unit gravity direction in the base frame (0, 0, -1 when level)",
    "velocity_commands": "command: lin_vel_x [m/s], lin_vel_y [m/s], ang_vel_z [rad/s]",
    "joint_pos": "joint positions minus default_joint_pos [rad], joint_names order",
    "joint_vel": "joint velocities minus default_joint_vel [rad/s], joint_names order",
    "actions": "the policy's previous output (raw action, before scaling)",
    "height_scan": "ground heights around the base, base_z - ground_z - 0.5 [m]: the points of height_scan, in order",
    "gait_clock": "(sin 2 pi phase, cos 2 pi phase) of the gait clock (see gait_clock)",
}
PACKAGES = ("locolab", "torch", "isaaclab", "rsl-rl-lib", "onnx", "onnxruntime")
COMMAND_NAMES = ("lin_vel_x", "lin_vel_y", "ang_vel_z")


def per_joint(value, joint_names: list[str]) -> list[float]:
    """An actuator setting (one number, or a ``{regex: number}`` dict) resolved for each joint, in order."""
    if isinstance(value, (int, float)):
        return [float(value)] * len(joint_names)
    indices, _, values = resolve_matching_names_values(value, joint_names, preserve_order=False)
    resolved = dict(zip(indices, values))
    missing = [name for i, name in enumerate(joint_names) if i not in resolved]
    if missing:
        raise ValueError(f"no actuator setting matches joints {missing}")
    return [float(resolved[i]) for i in range(len(joint_names))]


def observation_terms(env, groups: list[str]) -> list[dict]:
    """The terms of the observation ``groups`` the actor reads, in order: name, size, and the clip then scale Isaac
    Lab applies."""
    manager = env.observation_manager
    terms = []
    for group in groups:
        group_cfg = getattr(env.cfg.observations, group)
        for name, dims in zip(manager.active_terms[group], manager.group_obs_term_dim[group]):
            term_cfg = getattr(group_cfg, name)
            terms.append({
                "name": name,
                "meaning": TERM_MEANINGS.get(name),
                "size": int(dims[-1]),
                "clip": list(term_cfg.clip) if term_cfg.clip else None,
                "scale": term_cfg.scale,
            })
    return terms


def height_scan_layout(sensor) -> dict:
    """How the points of the height scan of ``sensor`` (a ``RayCasterCfg``) are laid, so a robot's terrain sensor, or
    a simulator, can produce them in the order the policy read them (Isaac Lab's yaw-aligned grid only)."""
    pattern = sensor.pattern_cfg
    if type(pattern).__name__ != "GridPatternCfg" or pattern.ordering != "xy" or sensor.ray_alignment != "yaw":
        raise ValueError("export describes a height scan on a yaw-aligned grid in xy order; this task's scanner is "
                         f"{type(pattern).__name__} ({getattr(pattern, 'ordering', None)}, {sensor.ray_alignment}).")
    points = [int(round(extent / pattern.resolution)) + 1 for extent in pattern.size]
    return {"size": points[0] * points[1], "points_x": points[0], "points_y": points[1],
            "resolution_m": pattern.resolution, "length_x_m": pattern.size[0], "width_y_m": pattern.size[1],
            "offset_xy_m": list(sensor.offset.pos[:2]),
            "order": "x fastest: point i at x = -length_x/2 + (i % points_x) * resolution, "
                     "y = -width_y/2 + (i // points_x) * resolution, in the base frame turned by yaw only",
            "value": "base_z - ground_z - 0.5 [m] (before the term's clip)"}


def gait_clock_description(cfg, groups: list[str]) -> dict | None:
    """How a robot's loop runs the gait clock of the observation ``groups`` (None: they read none): the phase is a
    step count, so the loop needs only its frequency (:mod:`locolab.envs.mdp.gait_clock`)."""
    terms = [getattr(getattr(cfg.observations, group), CLOCK_TERM, None) for group in groups]
    terms = [term for term in terms if term is not None]
    if not terms:
        return None
    return {"frequency_hz": float(terms[0].params["frequency_hz"]),
            "phase": "fractional part of steps_since_reset * control_period_s * frequency_hz (0 at a reset)",
            "stance": "FL and RR on the ground while phase < 0.5, FR and RL while phase >= 0.5"}


def package_versions() -> dict[str, str | None]:
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    return versions


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def policy_metadata(env, *, task: str, inputs: dict[str, list[int]], policy: dict, checkpoint: Path,
                    iteration: int, parity: dict, onnx_file: Path, action_clip: float | None,
                    recurrent: dict | None = None, observation_groups: tuple[str, ...] = ("policy",)) -> dict:
    """The ``policy.json`` of a policy trained on ``env`` (the unwrapped Isaac Lab environment); ``onnx_file`` the
    written ONNX file beside it (its name and sha256 are recorded, so the runtime refuses another file);
    ``action_clip`` is the agent's ``clip_actions`` (applied to the policy's output before the environment sees it);
    ``recurrent`` the memory of a recurrent policy (:func:`~locolab.export.onnx_policy.recurrent_description`);
    ``observation_groups`` the groups the actor reads, in order (a sighted actor's ``scan`` after ``policy``)."""
    onnx_file = Path(onnx_file)
    if not onnx_file.is_file():
        raise ValueError(f"policy.json describes the written ONNX file: '{onnx_file}' is not one.")
    cfg = env.cfg
    robot = env.scene["robot"]
    joint_names = list(robot.joint_names)
    actuators = list(cfg.scene.robot.actuators.values())
    if len(actuators) != 1:
        raise ValueError(f"export expects one actuator group for the robot, found {len(actuators)}")
    actuator = actuators[0]
    action_cfg = cfg.actions.joint_pos
    if not isinstance(action_cfg.scale, (int, float)) or action_cfg.clip is not None:
        raise ValueError("export describes one action scale and no per-joint action clip; this task's joint_pos "
                         f"action has scale {action_cfg.scale!r} and clip {action_cfg.clip!r}.")
    ranges = cfg.commands.base_velocity.ranges
    terms = observation_terms(env, list(observation_groups))
    reads_scan = any(term["name"] == "height_scan" for term in terms)
    scan = height_scan_layout(cfg.scene.height_scanner) if reads_scan else None
    clock = gait_clock_description(cfg, list(observation_groups))
    history = None
    if "history" in inputs:
        history = {"length": inputs["history"][0], "order": "oldest_first", "source": "observation",
                   "reset": "filled_with_first_observation"}
    return {
        "format": FORMAT,
        "onnx": onnx_file.name,
        "onnx_sha256": file_sha256(onnx_file),
        "inputs": inputs,
        "outputs": {"actions": [len(joint_names)]},
        **policy,
        "task": task,
        "checkpoint": {"path": str(checkpoint), "iteration": iteration, "sha256": file_sha256(checkpoint)},
        "joint_names": joint_names,
        "default_joint_pos": robot.data.default_joint_pos.torch[0].tolist(),
        "default_joint_vel": robot.data.default_joint_vel.torch[0].tolist(),
        "joint_pos_limits": robot.data.joint_pos_limits.torch[0].tolist(),  # the simulated robot's, [lower, upper]
        "action": {
            "type": "joint_position_target",
            "scale": float(action_cfg.scale),
            "offset": "default_joint_pos" if action_cfg.use_default_offset else "zero",
            "clip": action_clip,
            "formula": "target = default_joint_pos + scale * clip(action, -clip, clip)",
        },
        "pd_gains": {"stiffness": per_joint(actuator.stiffness, joint_names),
                     "damping": per_joint(actuator.damping, joint_names)},
        "effort_limit": per_joint(actuator.actuator_effort_limit, joint_names),
        "velocity_limit": per_joint(actuator.actuator_velocity_limit, joint_names),
        "control_period_s": env.step_dt,
        "physics_dt_s": env.physics_dt,
        "observation": {"groups": list(observation_groups), "size": sum(term["size"] for term in terms),
                        "terms": terms},
        "height_scan": scan,
        "gait_clock": clock,
        "history": history,
        "recurrent": recurrent,
        "command": {"names": list(COMMAND_NAMES),
                    "ranges": {name: list(getattr(ranges, name)) for name in COMMAND_NAMES}},
        "parity": parity,
        "trained_for": trained_effects(cfg, env.physics_dt),
        "versions": package_versions(),
    }


def trained_effects(cfg, physics_dt: float) -> dict | None:
    """The ranges of the sim-to-real effects the policy trained under (None: a task without LocoLab's dynamics
    event): what a robot's loop must stay within, its latency above all."""
    term = getattr(getattr(cfg, "events", None), "dynamics", None)
    if term is None:
        return None
    ranges = term.params["ranges"]
    delay = [steps * physics_dt for steps in ranges.action_delay]
    return {"action_latency_s": delay,
            "gyro_bias_rad_s": list(ranges.gyro_bias),
            "foot_torsional_friction_m": list(ranges.foot_torsional_friction),
            "foot_rolling_friction_m": list(ranges.foot_rolling_friction),
            "joint_damping_nms_rad": list(ranges.joint_damping),
            "joint_friction_nm": list(ranges.joint_friction),
            "motor_strength": list(ranges.motor_strength),
            "motor_model": "DC motor: torque within effort_limit * (+-1 - joint_vel / velocity_limit), "
                           "clipped to +-effort_limit"}
