"""Validation of ``policy.json`` and its ONNX file before a robot runs them (numpy and onnxruntime only).

A policy file can be edited by hand, belong to another robot or come with the wrong ONNX file; each of these must stop
the runtime before its first step with one line that names the first problem and how to fix it.
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from pathlib import Path

METADATA_FILE = "policy.json"
FORMAT = "locolab-policy/1"
REEXPORT = "re-export the policy with scripts/export.py"
SCAN_TERM = "height_scan"
"""The terrain sensor's term: heights around the base, as ``policy.json``'s ``height_scan`` describes them."""
CLOCK_TERM = "gait_clock"
"""The gait clock's term: ``(sin, cos)`` of a phase the runtime keeps itself, as ``policy.json``'s ``gait_clock``
says."""
MEASURABLE_TERM_SIZES = {"base_ang_vel": 3, "projected_gravity": 3, "velocity_commands": 3, "joint_pos": None,
                         "joint_vel": None, "actions": None, SCAN_TERM: 0, CLOCK_TERM: 2}
"""The observation terms a robot can measure (or, the gait clock, the runtime count) and their sizes (None: one per
joint; 0: the height scan's points)."""
MEASURABLE_INPUTS = ("obs", "history")
"""The ONNX inputs the runtime feeds besides a recurrent policy's memory (a teacher's ``priv`` is simulation-only)."""


def reads_term(metadata: dict, name: str) -> bool:
    """Whether the policy's observation has the term ``name``."""
    return any(term.get("name") == name for term in metadata["observation"]["terms"])


def clock_frequency(metadata: dict) -> float | None:
    """Cycles a second of the gait clock the policy reads (None: a policy without one)."""
    return float(metadata["gait_clock"]["frequency_hz"]) if reads_term(metadata, CLOCK_TERM) else None


def scan_size(metadata: dict) -> int:
    """Points of the height scan the policy reads (0: a blind policy)."""
    return int(metadata["height_scan"]["size"]) if reads_term(metadata, SCAN_TERM) else 0


class PolicyFileError(ValueError):
    """``policy.json`` or its ONNX file cannot be run safely; the message is one line: the problem, then the fix."""


class PolicyFileWarning(UserWarning):
    """``policy.json`` predates a check (no ``onnx_sha256`` or no ``joint_pos_limits``): it runs, less checked."""


def read_policy_file(policy_dir: str | Path) -> tuple[dict, Path, list[str]]:
    """``policy.json`` of ``policy_dir`` checked field by field, the ONNX file it names (its sha256 checked) and what
    the file lacks because an older export wrote it (each also issued as a :class:`PolicyFileWarning`)."""
    policy_dir = Path(policy_dir)
    path = policy_dir / METADATA_FILE
    if not path.is_file():
        raise PolicyFileError(f"No {METADATA_FILE} in '{policy_dir}': export the policy with scripts/export.py.")
    try:
        metadata = json.loads(path.read_text())
    except (UnicodeDecodeError, ValueError) as error:
        raise PolicyFileError(f"'{path}' is not valid JSON ({_one_line(error)}): {REEXPORT}.") from None
    check = _Checker(path)
    check.metadata(metadata)
    onnx_path = policy_dir / metadata["onnx"]
    if not onnx_path.is_file():
        raise PolicyFileError(f"'{path}' names the ONNX file '{metadata['onnx']}', which is not in '{policy_dir}': "
                              f"copy the policy.onnx exported with this {METADATA_FILE} beside it.")
    missing = [key for key in ("onnx_sha256", "joint_pos_limits") if key not in metadata]
    if "onnx_sha256" in metadata:
        digest = hashlib.sha256(onnx_path.read_bytes()).hexdigest()
        if digest != metadata["onnx_sha256"]:
            raise PolicyFileError(f"'{onnx_path}' has sha256 {digest[:12]}..., '{path}' records "
                                  f"{metadata['onnx_sha256'][:12]}...: the ONNX file is not the one exported with "
                                  f"this {METADATA_FILE}; copy both files from the same export.")
    if missing:
        unchecked = {"onnx_sha256": "the ONNX file is not checked against it",
                     "joint_pos_limits": "joint targets are not clipped to the joint limits"}
        warnings.warn(f"'{path}' has no {' and no '.join(missing)} (written by an older export): "
                      f"{'; '.join(unchecked[key] for key in missing)}; {REEXPORT} to record them.",
                      PolicyFileWarning, stacklevel=3)
    return metadata, onnx_path, missing


def check_session(session, metadata: dict, path: Path) -> None:
    """The ONNX graph's inputs and outputs are the ones ``policy.json`` describes (names and fixed sizes)."""
    inputs = {node.name: node.shape for node in session.get_inputs()}
    outputs = {node.name: node.shape for node in session.get_outputs()}
    state = (metadata.get("recurrent") or {}).get("state", {})
    expected = {name: [None, *shape] for name, shape in metadata["inputs"].items()}
    expected |= {name: entry["shape"] for name, entry in state.items()}
    if set(inputs) != set(expected):
        raise PolicyFileError(f"'{path}' describes ONNX inputs {sorted(expected)}, the ONNX file takes "
                              f"{sorted(inputs)}: copy both files from the same export.")
    wanted_outputs = {"actions": [None, len(metadata["joint_names"])]}
    wanted_outputs |= {entry["output"]: entry["shape"] for entry in state.values()}
    for name, shape in [*expected.items(), *wanted_outputs.items()]:
        actual = inputs.get(name, outputs.get(name))
        if actual is None:
            raise PolicyFileError(f"the ONNX file beside '{path}' has no output '{name}': copy both files from the "
                                  "same export.")
        fixed = [(a, e) for a, e in zip(actual, shape) if isinstance(a, int) and e is not None and a != e]
        if len(actual) != len(shape) or fixed:
            raise PolicyFileError(f"the ONNX file beside '{path}' has '{name}' of shape {actual}, {METADATA_FILE} "
                                  f"says {shape}: copy both files from the same export.")


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Checker:
    """Checks ``policy.json`` field by field in a fixed order, raising at the first problem."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, field: str, problem: str, fix: str = REEXPORT) -> None:
        raise PolicyFileError(f"'{self.path}': {field} {problem}: {fix}.")

    def get(self, mapping: dict, key: str, field: str, kind: type | tuple, optional: bool = False):
        if key not in mapping:
            if optional:
                return None
            self.fail(field, "is missing")
        value = mapping[key]
        if value is None and optional:
            return None
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            self.fail(field, f"is {type(value).__name__} {_short(value)}, not {names}")
        return value

    def number(self, value, field: str, positive: bool = False) -> float:
        if not _is_number(value):
            self.fail(field, f"is {type(value).__name__} {_short(value)}, not a number")
        if not math.isfinite(value):
            self.fail(field, f"is {value}, not a finite number")
        if positive and value <= 0:
            self.fail(field, f"is {value}, not positive")
        return float(value)

    def numbers(self, mapping: dict, key: str, field: str, length: int, positive: bool = False) -> list[float]:
        values = self.get(mapping, key, field, list)
        if len(values) != length:
            self.fail(field, f"has {len(values)} entries, not one per joint ({length})")
        return [self.number(value, f"{field}[{i}]", positive) for i, value in enumerate(values)]

    def size(self, value, field: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            self.fail(field, f"is {_short(value)}, not a positive integer")
        return value

    def metadata(self, meta) -> None:
        if not isinstance(meta, dict):
            self.fail("the file", f"holds a JSON {type(meta).__name__}, not an object")
        fmt = meta.get("format")
        if fmt != FORMAT:
            self.fail("format", f"is {fmt!r}, this runtime reads {FORMAT!r}",
                      f"export it with this LocoLab version's scripts/export.py")
        onnx = self.get(meta, "onnx", "onnx", str)
        if not onnx or Path(onnx).name != onnx or onnx in (".", ".."):
            self.fail("onnx", f"is {onnx!r}, not a file name beside {METADATA_FILE}",
                      "name the ONNX file exported beside it (policy.onnx)")
        digest = self.get(meta, "onnx_sha256", "onnx_sha256", str, optional=True)
        if digest is not None and (len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest)):
            self.fail("onnx_sha256", f"is {_short(digest)}, not 64 lowercase hex digits")
        names = self.get(meta, "joint_names", "joint_names", list)
        if not names or not all(isinstance(name, str) and name for name in names):
            self.fail("joint_names", f"is {_short(names)}, not a list of joint names")
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            self.fail("joint_names", f"names {duplicates} more than once")
        n = len(names)
        outputs = self.get(meta, "outputs", "outputs", dict)
        actions = self.get(outputs, "actions", "outputs.actions", list)
        if actions != [n]:
            self.fail("outputs.actions", f"is {_short(actions)}, but joint_names has {n} joints (one action each)")
        default = self.numbers(meta, "default_joint_pos", "default_joint_pos", n)
        self.numbers(meta, "default_joint_vel", "default_joint_vel", n)
        self.action(self.get(meta, "action", "action", dict))
        self.limits(meta, default, n)
        self.numbers(meta, "velocity_limit", "velocity_limit", n, positive=True)
        self.numbers(meta, "effort_limit", "effort_limit", n, positive=True)
        gains = self.get(meta, "pd_gains", "pd_gains", dict)
        self.numbers(gains, "stiffness", "pd_gains.stiffness", n)
        self.numbers(gains, "damping", "pd_gains.damping", n)
        self.number(self.get(meta, "control_period_s", "control_period_s", (int, float)), "control_period_s", True)
        size = self.observation(self.get(meta, "observation", "observation", dict), n,
                                self.get(meta, "height_scan", "height_scan", dict, optional=True),
                                self.get(meta, "gait_clock", "gait_clock", dict, optional=True))
        self.inputs(meta, size)

    def action(self, action: dict) -> None:
        self.number(self.get(action, "scale", "action.scale", (int, float)), "action.scale")
        clip = self.get(action, "clip", "action.clip", (int, float), optional=True)
        if clip is not None:
            self.number(clip, "action.clip", positive=True)

    def limits(self, meta: dict, default: list[float], n: int) -> None:
        limits = self.get(meta, "joint_pos_limits", "joint_pos_limits", list, optional=True)
        if limits is None:
            return
        if len(limits) != n:
            self.fail("joint_pos_limits", f"has {len(limits)} entries, not one per joint ({n})")
        for i, pair in enumerate(limits):
            if not isinstance(pair, list) or len(pair) != 2:
                self.fail(f"joint_pos_limits[{i}]", f"is {_short(pair)}, not [lower, upper]")
            low, high = (self.number(value, f"joint_pos_limits[{i}]") for value in pair)
            if not low < high:
                self.fail(f"joint_pos_limits[{i}]", f"is {pair}, not lower < upper")
            if not low <= default[i] <= high:
                self.fail(f"default_joint_pos[{i}]", f"{default[i]} is outside its joint's limits {pair}",
                          f"the file belongs to another robot or was edited; {REEXPORT}")

    def observation(self, observation: dict, n: int, scan: dict | None, clock: dict | None) -> int:
        terms = self.get(observation, "terms", "observation.terms", list)
        if not terms:
            self.fail("observation.terms", "is empty")
        total = 0
        for i, term in enumerate(terms):
            field = f"observation.terms[{i}]"
            if not isinstance(term, dict):
                self.fail(field, f"is {_short(term)}, not an object")
            name = self.get(term, "name", f"{field}.name", str)
            if name not in MEASURABLE_TERM_SIZES:
                self.fail(f"{field}.name", f"is {name!r}, which this runtime cannot measure "
                          f"(known: {list(MEASURABLE_TERM_SIZES)})", "export a policy that observes only those")
            size = self.size(term.get("size"), f"{field}.size")
            wanted = MEASURABLE_TERM_SIZES[name] or n
            if name == SCAN_TERM:
                wanted = self.scan(scan)
            if name == CLOCK_TERM:
                self.clock(clock)
            if size != wanted:
                self.fail(f"{field}.size", f"is {size}, {name} has {wanted} values")
            clip = self.get(term, "clip", f"{field}.clip", list, optional=True)
            if clip is not None:
                if len(clip) != 2:
                    self.fail(f"{field}.clip", f"is {_short(clip)}, not [low, high]")
                low, high = (self.number(value, f"{field}.clip") for value in clip)
                if not low <= high:
                    self.fail(f"{field}.clip", f"is {clip}, not low <= high")
            scale = self.get(term, "scale", f"{field}.scale", (int, float, list), optional=True)
            if isinstance(scale, list):
                if len(scale) != size:
                    self.fail(f"{field}.scale", f"has {len(scale)} entries, not {size}")
                for value in scale:
                    self.number(value, f"{field}.scale")
            elif scale is not None:
                self.number(scale, f"{field}.scale")
            total += size
        declared = observation.get("size")
        if declared != total:
            self.fail("observation.size", f"is {_short(declared)}, its terms add up to {total}")
        return total

    def scan(self, scan: dict | None) -> int:
        """The points of the height scan ``policy.json`` describes (a policy that reads one must say how it is laid)."""
        if scan is None:
            self.fail("height_scan", "is missing while the observation has a height_scan term")
        size = self.size(scan.get("size"), "height_scan.size")
        for key in ("points_x", "points_y"):
            self.size(scan.get(key), f"height_scan.{key}")
        if scan["points_x"] * scan["points_y"] != size:
            self.fail("height_scan.size", f"is {size}, not points_x * points_y ({scan['points_x'] * scan['points_y']})")
        return size

    def clock(self, clock: dict | None) -> None:
        """A policy that reads the gait clock must say how fast it runs."""
        if clock is None:
            self.fail("gait_clock", "is missing while the observation has a gait_clock term")
        self.number(self.get(clock, "frequency_hz", "gait_clock.frequency_hz", (int, float)), "gait_clock.frequency_hz",
                    True)

    def inputs(self, meta: dict, size: int) -> None:
        inputs = self.get(meta, "inputs", "inputs", dict)
        unknown = sorted(set(inputs) - set(MEASURABLE_INPUTS))
        if unknown:
            self.fail("inputs", f"include {unknown}, which a robot cannot measure (a teacher export is for "
                      "simulation only)", "export the student or a PPO policy")
        if inputs.get("obs") != [size]:
            self.fail("inputs.obs", f"is {_short(inputs.get('obs'))}, the observation has {size} values")
        history = self.get(meta, "history", "history", dict, optional=True)
        if history is not None:
            length = self.size(history.get("length"), "history.length")
            if inputs.get("history") != [length, size]:
                self.fail("inputs.history", f"is {_short(inputs.get('history'))}, not [{length}, {size}]")
        elif "history" in inputs:
            self.fail("history", "is missing while inputs has a history")
        recurrent = self.get(meta, "recurrent", "recurrent", dict, optional=True)
        if recurrent is not None:
            state = self.get(recurrent, "state", "recurrent.state", dict)
            for name, entry in state.items():
                field = f"recurrent.state.{name}"
                if not isinstance(entry, dict):
                    self.fail(field, f"is {_short(entry)}, not an object")
                self.get(entry, "output", f"{field}.output", str)
                shape = self.get(entry, "shape", f"{field}.shape", list)
                for i, dim in enumerate(shape):
                    self.size(dim, f"{field}.shape[{i}]")


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
