"""The deploy runtime refuses a broken policy.json or ONNX file with one line, and its safety layer keeps NaNs and
impossible targets from the motors; pinned on a tiny hand-built ONNX policy, without Isaac Lab or training."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import last_json, run_script

from locolab.deploy import (INTERVENTIONS, PolicyFileError, PolicyFileWarning, PolicyRuntime, RobotState,
                            safety_overhead)
from locolab.deploy.safety import JOINT_POS_MARGIN, MAX_ANG_VEL

LEGS, PARTS = ("FL", "FR", "RL", "RR"), ("hip", "thigh", "calf")
JOINTS = [f"{leg}_{part}_joint" for part in PARTS for leg in LEGS]  # grouped by part: the order is the policy's own
N = len(JOINTS)
LIMITS = [[-1.0472, 1.0472]] * 4 + [[-1.5708, 3.4907]] * 2 + [[-0.5236, 4.5379]] * 2 + [[-2.7227, -0.83776]] * 4
"""The Go2's joint limits (locolab.assets.GO2_SPEC)."""
DEFAULT = [0.1, -0.1, 0.1, -0.1] + [0.8] * 2 + [1.0] * 2 + [-1.5] * 4
TERMS = [("base_ang_vel", 3, 0.25), ("projected_gravity", 3, None), ("velocity_commands", 3, None),
         ("joint_pos", N, None), ("joint_vel", N, 0.05), ("actions", N, None)]
OBS = sum(size for _, size, _ in TERMS)
COMMAND_X = 6
"""Where the forward command sits in the observation: the tiny policy's output is NaN when it is below -10."""
HISTORY = 5
HIDDEN = 4


def tiny_onnx(path, gain: float = 1.0, recurrent: bool = False, scan: int = 0) -> None:
    """``actions = gain * tanh((obs + mean(history)) @ W) + 0 * log(command_x + 10)`` (NaN for command_x < -10);
    the recurrent variant reads ``obs`` and a memory ``h_in`` -> ``h_out`` instead of a history; ``scan``: a
    height scan of that many points ends ``obs``."""
    rng = np.random.default_rng(0)
    obs_size = OBS + scan
    init = [numpy_helper.from_array(rng.normal(0, 0.3, (obs_size, N)).astype(np.float32), "W"),
            numpy_helper.from_array(np.array([gain], np.float32), "gain"),
            numpy_helper.from_array(np.array(COMMAND_X, np.int64), "command_x"),
            numpy_helper.from_array(np.array([10.0], np.float32), "ten"),
            numpy_helper.from_array(np.array([0.0], np.float32), "zero"),
            numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    inputs = [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", obs_size])]
    outputs = [helper.make_tensor_value_info("actions", TensorProto.FLOAT, ["batch", N])]
    nodes = []
    if recurrent:
        init += [numpy_helper.from_array(rng.normal(0, 0.3, (OBS, HIDDEN)).astype(np.float32), "Wh"),
                 numpy_helper.from_array(rng.normal(0, 0.3, (HIDDEN, N)).astype(np.float32), "Wa"),
                 numpy_helper.from_array(np.array([0], np.int64), "axis0")]
        inputs.append(helper.make_tensor_value_info("h_in", TensorProto.FLOAT, [1, "batch", HIDDEN]))
        outputs.append(helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [1, "batch", HIDDEN]))
        nodes += [helper.make_node("MatMul", ["obs", "Wh"], ["drive"]),
                  helper.make_node("Unsqueeze", ["drive", "axis0"], ["drive3"]),
                  helper.make_node("Add", ["h_in", "drive3"], ["h_sum"]),
                  helper.make_node("Tanh", ["h_sum"], ["h_out"]),
                  helper.make_node("Squeeze", ["h_out", "axis0"], ["h"]),
                  helper.make_node("MatMul", ["h", "Wa"], ["memory"]),
                  helper.make_node("MatMul", ["obs", "W"], ["a0"]),
                  helper.make_node("Add", ["a0", "memory"], ["a"])]
    else:
        inputs.append(helper.make_tensor_value_info("history", TensorProto.FLOAT, ["batch", HISTORY, obs_size]))
        nodes += [helper.make_node("ReduceMean", ["history", "axis1"], ["mean"], keepdims=0),
                  helper.make_node("Add", ["obs", "mean"], ["z"]),
                  helper.make_node("MatMul", ["z", "W"], ["a"])]
    nodes += [helper.make_node("Tanh", ["a"], ["t"]),
              helper.make_node("Mul", ["t", "gain"], ["g"]),
              helper.make_node("Gather", ["obs", "command_x"], ["c"], axis=1),
              helper.make_node("Add", ["c", "ten"], ["c10"]),
              helper.make_node("Log", ["c10"], ["log"]),
              helper.make_node("Mul", ["log", "zero"], ["nan_or_zero"]),
              helper.make_node("Unsqueeze", ["nan_or_zero", "axis1"], ["poison"]),
              helper.make_node("Add", ["g", "poison"], ["actions"])]
    graph = helper.make_graph(nodes, "tiny_policy", inputs, outputs, init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


SCAN_X, SCAN_Y = 3, 2
"""The tiny sighted policy's scan grid."""


def tiny_metadata(onnx_path, recurrent: bool = False, scan: bool = False) -> dict:
    """A policy.json as export writes it (the fields the runtime reads), for the tiny policy (``scan``: sighted)."""
    meta = {
        "format": "locolab-policy/1", "onnx": onnx_path.name,
        "onnx_sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
        "inputs": {"obs": [OBS]} if recurrent else {"obs": [OBS], "history": [HISTORY, OBS]},
        "outputs": {"actions": [N]}, "joint_names": list(JOINTS),
        "default_joint_pos": list(DEFAULT), "default_joint_vel": [0.0] * N,
        "joint_pos_limits": [list(pair) for pair in LIMITS],
        "action": {"type": "joint_position_target", "scale": 0.25, "offset": "default_joint_pos", "clip": None},
        "pd_gains": {"stiffness": [25.0] * N, "damping": [0.5] * N},
        "effort_limit": [23.7] * 8 + [45.43] * 4, "velocity_limit": [30.1] * 8 + [15.7] * 4,
        "control_period_s": 0.02, "physics_dt_s": 0.005,
        "observation": {"group": "policy", "size": OBS, "terms": [
            {"name": name, "size": size, "clip": None, "scale": scale} for name, size, scale in TERMS]},
        "history": None if recurrent else {"length": HISTORY, "order": "oldest_first", "source": "observation",
                                           "reset": "filled_with_first_observation"},
        "recurrent": {"type": "gru", "state": {"h_in": {"output": "h_out", "shape": [1, 1, HIDDEN]}}}
        if recurrent else None,
    }
    meta["observation"]["terms"][0]["clip"] = [-100.0, 100.0]
    if scan:
        points = SCAN_X * SCAN_Y
        meta["observation"]["terms"].append({"name": "height_scan", "size": points, "clip": [-1.0, 1.0],
                                             "scale": None})
        meta["observation"]["size"] += points
        meta["inputs"] = {name: [*shape[:-1], shape[-1] + points] for name, shape in meta["inputs"].items()}
        meta["height_scan"] = {"size": points, "points_x": SCAN_X, "points_y": SCAN_Y, "resolution_m": 0.1,
                               "length_x_m": 0.2, "width_y_m": 0.1}
    return meta


def write_policy(directory, gain: float = 1.0, recurrent: bool = False, edit=None, scan: bool = False):
    """A tiny exported policy in ``directory``; ``edit(metadata)`` changes its policy.json first; ``scan``: one that
    reads a height scan of ``SCAN_X * SCAN_Y`` points."""
    directory.mkdir(parents=True, exist_ok=True)
    tiny_onnx(directory / "policy.onnx", gain, recurrent, SCAN_X * SCAN_Y if scan else 0)
    meta = tiny_metadata(directory / "policy.onnx", recurrent, scan)
    if edit is not None:
        edit(meta)
    (directory / "policy.json").write_text(json.dumps(meta))
    return directory


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    return write_policy(tmp_path_factory.mktemp("tiny"))


def good_state(rng: np.random.Generator, command=(0.5, 0.0, 0.0)) -> RobotState:
    tilt = rng.normal(0, 0.1, 3) + [0, 0, -1]
    return RobotState(joint_pos=np.asarray(DEFAULT, np.float32) + rng.normal(0, 0.2, N).astype(np.float32),
                      joint_vel=rng.normal(0, 2, N).astype(np.float32), ang_vel=rng.normal(0, 1, 3).astype(np.float32),
                      gravity=(tilt / np.linalg.norm(tilt)).astype(np.float32),
                      command=np.asarray(command, np.float32))


class ReferenceRuntime:
    """The runtime's step before the safety layer existed (observation, history, ONNX, clip, scale), as a check
    that good inputs give bit-identical targets."""

    def __init__(self, directory):
        import onnxruntime

        self.meta = json.loads((directory / "policy.json").read_text())
        self.session = onnxruntime.InferenceSession(str(directory / "policy.onnx"), providers=["CPUExecutionProvider"])
        self.default = np.asarray(self.meta["default_joint_pos"], np.float32)
        self.history, self.last_action = None, np.zeros(N, np.float32)

    def step(self, state: RobotState) -> np.ndarray:
        raw = {"base_ang_vel": state.ang_vel, "projected_gravity": state.gravity, "velocity_commands": state.command,
               "joint_pos": np.asarray(state.joint_pos, np.float32) - self.default,
               "joint_vel": np.asarray(state.joint_vel, np.float32), "actions": self.last_action}
        parts = []
        for term in self.meta["observation"]["terms"]:
            value = np.asarray(raw[term["name"]]).astype(np.float32)
            if term["clip"] is not None:
                value = np.clip(value, *term["clip"])
            if term["scale"] is not None:
                value = value * np.asarray(term["scale"], dtype=np.float32)
            parts.append(value)
        obs = np.concatenate(parts).astype(np.float32)
        self.history = (np.repeat(obs[None], HISTORY, 0) if self.history is None
                        else np.concatenate([self.history[1:], obs[None]]))
        action = self.session.run(["actions"], {"obs": obs[None], "history": self.history[None]})[0][0]
        self.last_action = action.astype(np.float32)
        return self.default + np.float32(self.meta["action"]["scale"]) * self.last_action


# --- policy.json and the ONNX file ------------------------------------------------------------------------------

def _set(path: str, value):
    def edit(meta):
        *parents, key = path.split(".")
        target = meta
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if value is DELETE:
            del target[key]
        elif isinstance(target, list):
            target[int(key)] = value
        else:
            target[key] = value
    return edit


DELETE = object()
BAD_FIELDS = {
    "unknown format": (_set("format", "locolab-policy/9"), "format is 'locolab-policy/9', this runtime reads"),
    "missing key": (_set("default_joint_pos", DELETE), "default_joint_pos is missing"),
    "wrong type": (_set("action.scale", "0.25"), 'action.scale is str "0.25", not int or float'),
    "bool for a number": (_set("control_period_s", True), "control_period_s is bool"),
    "wrong length": (lambda m: m["default_joint_pos"].pop(), "default_joint_pos has 11 entries, not one per joint"),
    "duplicate joint names": (_set("joint_names.4", "FL_hip_joint"), "joint_names names ['FL_hip_joint'] more"),
    "names not matching the action size": (_set("outputs.actions", [13]),
                                           "outputs.actions is [13], but joint_names has 12 joints"),
    "NaN action scale": (_set("action.scale", math.nan), "action.scale is nan, not a finite number"),
    "inf joint limit": (_set("joint_pos_limits.2.1", math.inf), "joint_pos_limits[2] is inf, not a finite number"),
    "NaN default pose": (_set("default_joint_pos.3", math.nan), "default_joint_pos[3] is nan"),
    "NaN term scale": (_set("observation.terms.4.scale", math.nan), "observation.terms[4].scale is nan"),
    "inf term clip": (_set("observation.terms.0.clip", [-math.inf, 1.0]), "observation.terms[0].clip is -inf"),
    "negative action clip": (_set("action.clip", -1.0), "action.clip is -1.0, not positive"),
    "zero velocity limit": (_set("velocity_limit.0", 0.0), "velocity_limit[0] is 0.0, not positive"),
    "inverted joint limits": (_set("joint_pos_limits.0", [1.0, -1.0]), "joint_pos_limits[0] is [1.0, -1.0], not lower"),
    "default pose outside the limits": (_set("default_joint_pos.8", 0.5), "default_joint_pos[8] 0.5 is outside"),
    "unknown observation term": (_set("observation.terms.2.name", "base_lin_vel"), "is 'base_lin_vel', which this"),
    "wrong term size": (_set("observation.terms.3.size", 11), "observation.terms[3].size is 11, joint_pos has 12"),
    "observation size": (_set("observation.size", 44), "observation.size is 44, its terms add up to 45"),
    "history length": (_set("inputs.history", [6, OBS]), "inputs.history is [6, 45], not [5, 45]"),
    "teacher input": (_set("inputs.priv", [35]), "inputs include ['priv'], which a robot cannot measure"),
    "onnx outside the folder": (_set("onnx", "../policy.onnx"), "onnx is '../policy.onnx', not a file name beside"),
    "malformed sha256": (_set("onnx_sha256", "abc"), 'onnx_sha256 is "abc", not 64 lowercase hex digits'),
    "sha256 of another file": (_set("onnx_sha256", "0" * 64), "the ONNX file is not the one exported with this"),
    "not an object": (lambda m: m.clear(), "format is None"),
}


@pytest.mark.parametrize("case", list(BAD_FIELDS))
def test_each_bad_policy_json_field_is_one_line_naming_it(case, tmp_path):
    edit, message = BAD_FIELDS[case]
    write_policy(tmp_path, edit=edit)
    with pytest.raises(PolicyFileError) as raised:
        PolicyRuntime(tmp_path)
    text = str(raised.value)
    assert isinstance(raised.value, ValueError) and "\n" not in text
    assert message in text, text
    assert text.endswith(".") and ("export" in text or "copy" in text)  # the fix is named


def test_json_that_is_not_an_object_or_not_json_is_one_line(tmp_path):
    write_policy(tmp_path)
    (tmp_path / "policy.json").write_text("[1, 2]")
    with pytest.raises(PolicyFileError, match="holds a JSON list, not an object"):
        PolicyRuntime(tmp_path)
    (tmp_path / "policy.json").write_text('{"format": "locolab-polic')  # truncated
    with pytest.raises(PolicyFileError, match=r"is not valid JSON \(.*\): re-export"):
        PolicyRuntime(tmp_path)
    with pytest.raises(PolicyFileError, match="No policy.json in"):
        PolicyRuntime(tmp_path / "missing")


def test_a_renamed_truncated_or_foreign_onnx_file_is_refused(tmp_path):
    renamed = write_policy(tmp_path / "renamed")
    (renamed / "policy.onnx").rename(renamed / "model.onnx")
    with pytest.raises(PolicyFileError, match="names the ONNX file 'policy.onnx', which is not in"):
        PolicyRuntime(renamed)
    truncated = write_policy(tmp_path / "truncated")
    data = (truncated / "policy.onnx").read_bytes()
    (truncated / "policy.onnx").write_bytes(data[: len(data) // 2])
    with pytest.raises(PolicyFileError, match="has sha256 .* records .*: the ONNX file is not the one exported"):
        PolicyRuntime(truncated)
    # without a recorded hash (an older export) onnxruntime's own refusal becomes the same one-line error
    unhashed = json.loads((truncated / "policy.json").read_text())
    del unhashed["onnx_sha256"]
    (truncated / "policy.json").write_text(json.dumps(unhashed))
    with pytest.warns(PolicyFileWarning), pytest.raises(PolicyFileError, match="is not an ONNX model onnxruntime"):
        PolicyRuntime(truncated)
    # another policy's ONNX file (a recurrent one), with its hash recorded by hand: the graph's inputs differ
    foreign = write_policy(tmp_path / "foreign")
    tiny_onnx(foreign / "policy.onnx", recurrent=True)
    meta = json.loads((foreign / "policy.json").read_text())
    meta["onnx_sha256"] = hashlib.sha256((foreign / "policy.onnx").read_bytes()).hexdigest()
    (foreign / "policy.json").write_text(json.dumps(meta))
    with pytest.raises(PolicyFileError, match=r"describes ONNX inputs \['history', 'obs'\], the ONNX file takes"):
        PolicyRuntime(foreign)


def test_a_policy_json_from_before_the_checks_loads_with_a_warning_and_no_clip(tmp_path):
    old = write_policy(tmp_path, gain=8.0, edit=lambda m: (m.pop("onnx_sha256"), m.pop("joint_pos_limits")))
    with pytest.warns(PolicyFileWarning, match="no onnx_sha256 and no joint_pos_limits .* re-export"):
        runtime = PolicyRuntime(old)
    assert runtime.unchecked == ["onnx_sha256", "joint_pos_limits"]
    runtime.reset()
    targets = runtime.step(good_state(np.random.default_rng(1)))
    assert np.isfinite(targets).all() and runtime.interventions["clipped_to_limits"] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PolicyRuntime(write_policy(tmp_path / "new"))  # a current export: no warning


# --- the safety layer -------------------------------------------------------------------------------------------

def test_good_inputs_give_bit_identical_targets_and_no_intervention(policy):
    runtime, bare, reference = PolicyRuntime(policy), PolicyRuntime(policy, safety=False), ReferenceRuntime(policy)
    rng = np.random.default_rng(2)
    for runner in (runtime, bare):
        runner.reset()
    for step in range(60):
        state = good_state(rng)
        if step % 2:  # a robot's driver may hand over float64 readings and lists
            state.joint_pos, state.command = state.joint_pos.astype(np.float64), state.command.tolist()
        expected = reference.step(state)
        assert np.array_equal(runtime.step(state), expected) and np.array_equal(bare.step(state), expected)
        assert np.array_equal(runtime.history, reference.history)  # the observation, value for value
    assert runtime.interventions == dict.fromkeys(INTERVENTIONS, 0) and runtime.last_interventions == []
    assert np.abs(expected - np.asarray(DEFAULT)).max() > 0.05  # the policy moves the targets


def state_with(field: str, index: int, value: float, rng) -> RobotState:
    state = good_state(rng)
    array = np.array(getattr(state, field), dtype=np.float32)
    array[index] = value
    setattr(state, field, array)
    return state


HOSTILE_STATES = {
    "NaN joint position": ("joint_pos", 3, math.nan, "nonfinite_observation", "joint_pos[3] = nan"),
    "inf joint velocity": ("joint_vel", 7, math.inf, "nonfinite_observation", "joint_vel[7] = inf"),
    "NaN gyroscope": ("ang_vel", 0, math.nan, "nonfinite_observation", "ang_vel[0] = nan"),
    "-inf gravity": ("gravity", 2, -math.inf, "nonfinite_observation", "gravity[2] = -inf"),
    "NaN command": ("command", 1, math.nan, "nonfinite_observation", "command[1] = nan"),
    "gyroscope spike": ("ang_vel", 2, MAX_ANG_VEL + 5, "out_of_range_observation", "ang_vel[2] = 40 outside"),
    "huge joint velocity": ("joint_vel", 11, 1e6, "out_of_range_observation", "joint_vel[11] = 1e+06 outside"),
    "huge float": ("joint_vel", 0, 3e38, "out_of_range_observation", "joint_vel[0] = 3e+38 outside"),
    "joint beyond its limit": ("joint_pos", 8, LIMITS[8][0] - JOINT_POS_MARGIN - 0.05, "out_of_range_observation",
                               "joint_pos[8] = -2.8727 outside"),
    "gravity not a unit vector": ("gravity", 2, -0.5, "out_of_range_observation", "|gravity| = "),
}


@pytest.mark.parametrize("case", list(HOSTILE_STATES))
def test_a_bad_observation_holds_the_last_safe_target_and_is_counted(case, policy):
    field, index, value, kind, detail = HOSTILE_STATES[case]
    rng = np.random.default_rng(3)
    runtime = PolicyRuntime(policy)
    runtime.reset()
    first = runtime.step(state_with(field, index, value, rng))  # before any target: the default pose
    assert np.array_equal(first, np.asarray(DEFAULT, np.float32)) and runtime.history is None
    assert runtime.interventions[kind] == 1 and runtime.last_interventions[0].startswith(f"{kind}: {detail}")
    good = runtime.step(good_state(rng))
    history, last_action = runtime.history.copy(), runtime.last_action.copy()
    for _ in range(3):
        held = runtime.step(state_with(field, index, value, rng))
        assert np.array_equal(held, good) and np.isfinite(held).all()
    assert np.array_equal(runtime.history, history) and np.array_equal(runtime.last_action, last_action)
    assert runtime.interventions[kind] == 4 and sum(runtime.interventions.values()) == 4
    assert runtime.step(good_state(rng)) is not None and runtime.last_interventions == []


def test_a_state_of_the_wrong_size_is_a_clear_error(policy):
    state = good_state(np.random.default_rng(4))
    state.joint_pos = state.joint_pos[:11]
    with pytest.raises(ValueError, match=r"RobotState has sizes \{'joint_pos': 11"):
        PolicyRuntime(policy).step(state)


def test_targets_outside_the_joint_limits_are_clipped_and_counted_and_the_policy_sees_its_own_action(tmp_path):
    narrow = [[d - 0.02, d + 0.02] for d in DEFAULT]
    directory = write_policy(tmp_path, gain=4.0, edit=lambda m: m.update(joint_pos_limits=narrow))
    runtime, bare = PolicyRuntime(directory), PolicyRuntime(directory, safety=False)
    low, high = np.asarray(narrow, np.float32).T
    rng = np.random.default_rng(5)
    clipped_steps = 0
    for _ in range(20):
        state = good_state(rng)
        state.joint_pos = np.asarray(DEFAULT, np.float32)  # inside the narrow limits
        targets, unclipped = runtime.step(state), bare.step(state)
        assert np.all(targets >= low) and np.all(targets <= high)
        outside = (unclipped < low) | (unclipped > high)
        clipped_steps += bool(outside.any())
        assert np.array_equal(targets[~outside], unclipped[~outside])
        assert np.array_equal(runtime.history, bare.history)  # the clip is the robot's, not the policy's
    assert clipped_steps > 10 and runtime.interventions["clipped_to_limits"] == clipped_steps
    assert "clipped_to_limits: " in runtime.last_interventions[-1] and "->" in runtime.last_interventions[-1]


def test_the_rate_limit_is_off_by_default_and_bounds_each_targets_change(tmp_path):
    directory = write_policy(tmp_path, gain=4.0)
    rng = np.random.default_rng(6)
    states = [good_state(rng, command=(0.5 * (-1) ** i, 0, 0)) for i in range(30)]
    free = PolicyRuntime(directory)
    limited = PolicyRuntime(directory, max_target_change=0.01)
    free_targets = [free.step(s) for s in states]
    limited_targets = [limited.step(s) for s in states]
    assert free.interventions["rate_limited"] == 0
    assert max(np.abs(np.diff(free_targets, axis=0)).max(), 0) > 0.1  # without the limit targets jump
    assert np.abs(limited_targets[0] - states[0].joint_pos).max() <= 0.01 + 1e-6  # from the measured position
    assert np.abs(np.diff(limited_targets, axis=0)).max() <= 0.01 + 1e-6
    assert limited.interventions["rate_limited"] >= 25
    with pytest.raises(ValueError, match="max_target_change is -1"):
        PolicyRuntime(directory, max_target_change=-1)
    with pytest.raises(ValueError, match="max_target_change is nan"):
        PolicyRuntime(directory, max_target_change=math.nan)


@pytest.mark.parametrize("recurrent", [False, True], ids=["history", "recurrent"])
def test_a_nan_from_the_onnx_policy_is_held_and_leaves_its_memory_alone(recurrent, tmp_path):
    runtime = PolicyRuntime(write_policy(tmp_path, recurrent=recurrent))
    rng = np.random.default_rng(7)
    poisoned = good_state(rng, command=(-20.0, 0.0, 0.0))  # a finite command: the policy's log makes it NaN
    assert np.array_equal(runtime.step(poisoned), np.asarray(DEFAULT, np.float32))
    good = runtime.step(good_state(rng))
    last_action, memory = runtime.last_action.copy(), copy.deepcopy(runtime.state)
    held = runtime.step(poisoned)
    assert np.array_equal(held, good) and not np.isnan(held).any()
    assert np.array_equal(runtime.last_action, last_action)
    assert all(np.array_equal(runtime.state[k], memory[k]) for k in memory) and (not recurrent or memory)
    assert runtime.interventions["nonfinite_action"] == 2
    assert runtime.last_interventions == ["nonfinite_action: the policy's 'actions' has 12 non-finite values"]
    runtime.reset()  # a new episode holds the default pose again
    assert np.array_equal(runtime.step(poisoned), np.asarray(DEFAULT, np.float32))


def test_safety_overhead_reports_its_timings(policy):
    report = safety_overhead(policy, steps=50, repeats=2)
    for key in ("inference_us", "checks_us", "step_safety_on_us", "step_safety_off_us", "overhead_percent"):
        assert math.isfinite(report[key]) and report[key] > 0, key


def test_sim2sim_reports_the_interventions(tmp_path):
    narrow = [[d - 0.02, d + 0.02] for d in DEFAULT]
    directory = write_policy(tmp_path / "policy", gain=4.0, edit=lambda m: m.update(joint_pos_limits=narrow))
    result = run_script("sim2sim.py", "--policy", str(directory), "--seconds", "0.2", "--command", "0.3", "0", "0")
    assert result.returncode == 0, result.stderr[-3000:]
    report = last_json(result.stdout)
    assert set(report["interventions"]) == set(INTERVENTIONS)
    assert report["interventions"]["clipped_to_limits"] > 0


# --- a policy that reads a height scan (a robot with a terrain sensor) -------------------------------------------

SCAN = np.array([0.0, 0.2, -0.3, 2.0, -5.0, 0.1], np.float32)


def scan_state(rng: np.random.Generator, scan=SCAN) -> RobotState:
    state = good_state(rng)
    state.height_scan = np.asarray(scan, np.float32)
    return state


def test_a_sighted_policy_reads_the_scan_after_proprioception_clipped_and_asks_for_it(tmp_path):
    runtime = PolicyRuntime(write_policy(tmp_path / "sighted", scan=True))
    blind = PolicyRuntime(write_policy(tmp_path / "blind"))
    rng = np.random.default_rng(5)
    with pytest.raises(ValueError, match="reads a height scan of 6 points: give RobotState.height_scan"):
        runtime.step(good_state(rng))
    state = scan_state(rng)
    observation = runtime.observation(state)
    assert observation.shape == (OBS + SCAN.size,)
    assert np.array_equal(observation[OBS:], np.clip(SCAN, -1.0, 1.0))
    assert np.array_equal(observation[:OBS], blind.observation(state))  # proprioception as a blind policy reads it
    assert np.isfinite(runtime.step(state)).all() and runtime.last_interventions == []


def test_a_nan_in_the_scan_holds_the_last_safe_target(tmp_path):
    runtime = PolicyRuntime(write_policy(tmp_path, scan=True))
    rng = np.random.default_rng(6)
    good = runtime.step(scan_state(rng))
    broken = SCAN.copy()
    broken[2] = np.nan
    held = runtime.step(scan_state(rng, broken))
    assert np.array_equal(held, good)
    assert runtime.last_interventions == ["nonfinite_observation: height_scan[2] = nan"]


BAD_SCAN_FIELDS = {
    "no layout": (_set("height_scan", DELETE), "height_scan is missing while the observation has a height_scan term"),
    "layout size": (_set("height_scan.points_x", 4), "height_scan.size is 6, not points_x * points_y (8)"),
    "term size": (_set("observation.terms.6.size", 5), "observation.terms[6].size is 5, height_scan has 6 values"),
}


@pytest.mark.parametrize("case", list(BAD_SCAN_FIELDS))
def test_a_bad_height_scan_description_is_one_line_naming_it(case, tmp_path):
    edit, message = BAD_SCAN_FIELDS[case]
    write_policy(tmp_path, edit=edit, scan=True)
    with pytest.raises(PolicyFileError) as raised:
        PolicyRuntime(tmp_path)
    assert message in str(raised.value) and "\n" not in str(raised.value)
