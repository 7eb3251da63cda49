"""Writes a policy as one self-contained ONNX file, after checking it against the torch policy with onnxruntime.

rsl_rl's models provide ``as_onnx()`` (plain-tensor copies with named inputs); LocoLab's LatentMLPModel does too, so
ROA's student exports with its observation normaliser and adapt_ema inside the graph. What this module adds to
rsl_rl's exporter: weights embedded in the file (torch 2.11 writes a ``.onnx.data`` sidecar by default, which gets
left behind when the file is copied to a robot), a batch axis, and a parity check on recorded inputs that refuses to
write a file that disagrees.

A recurrent model (rsl_rl's ``RNNModel``) exports with its memory as explicit inputs and outputs: ``h_in`` -> ``h_out``
(and an LSTM's ``c_in`` -> ``c_out``), each ``[num_layers, batch, hidden]``, zeros at an episode start. Its parity
check replays a recorded sequence step by step, feeding each step's state outputs back as the next step's inputs and
zeroing the state of every environment whose episode ended, as the robot loop must.
"""

from __future__ import annotations

import inspect
import math
import os
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from locolab.atomic_files import write_atomically

PARITY_TOLERANCE = 1e-5
"""Largest absolute difference between onnxruntime's and torch's actions that an export accepts."""
OPSET = 18


class ExportError(RuntimeError):
    """The policy could not be exported, or the exported file does not compute what the torch policy computes."""


RECURRENT_STATES = {"h_in": "h_out", "c_in": "c_out"}
"""A recurrent export's state inputs and the outputs that carry them to the next step (batch on axis 1)."""


def recurrent_state_names(model: nn.Module) -> dict[str, str]:
    """The state inputs of an ``as_onnx()`` module and their outputs (empty for a feed-forward model)."""
    return {name: RECURRENT_STATES[name] for name in model.input_names if name in RECURRENT_STATES}


def recurrent_description(model: nn.Module) -> dict | None:
    """``policy.json``'s ``recurrent`` entry for an ``as_onnx()`` module: which inputs carry the memory, the outputs
    that update them, their shapes, and when to zero them (None for a feed-forward model)."""
    states = recurrent_state_names(model)
    if not states:
        return None
    shape = [model.num_layers, 1, model.hidden_size]
    return {
        "type": model.rnn_type,
        "state": {name: {"output": output, "shape": shape} for name, output in states.items()},
        "batch_axis": 1,
        "init": "zeros",
        "reset": "zeros at every episode start; each step's outputs are the next step's inputs",
    }


def run_recurrent(session, states: dict[str, str], observations: np.ndarray, dones: np.ndarray,
                  state_shape: tuple[int, int]) -> np.ndarray:
    """Actions ``[T, N, A]`` of an exported recurrent policy over ``observations`` ``[T, N, D]``: its state starts
    at zero, is carried from each step's outputs to the next step's inputs, and is zeroed for the environments whose
    episode ended at that step (``dones[t]``). ``state_shape``: (num_layers, hidden size)."""
    layers, hidden = state_shape
    num_envs = observations.shape[1]
    state = {name: np.zeros((layers, num_envs, hidden), dtype=np.float32) for name in states}
    outputs = ["actions", *states.values()]
    actions = []
    for observation, done in zip(observations, dones):
        results = session.run(outputs, {"obs": observation, **state})
        actions.append(results[0])
        for name, value in zip(states, results[1:]):
            value[:, done.astype(bool)] = 0.0
            state[name] = value
    return np.stack(actions)


def export_onnx(model: nn.Module, path: str | os.PathLike, recorded_inputs: dict[str, np.ndarray],
                expected_actions: np.ndarray, tolerance: float = PARITY_TOLERANCE,
                dones: np.ndarray | None = None) -> float:
    """Export ``model`` (an ``as_onnx()`` module) to ``path`` if onnxruntime reproduces ``expected_actions`` on
    ``recorded_inputs`` (batches keyed by input name) within ``tolerance``; returns the largest difference.

    A recurrent model is checked over a sequence: ``recorded_inputs["obs"]`` is ``[T, N, D]``, ``dones`` ``[T, N]``
    marks the environments whose episode ended at each step, ``expected_actions`` is ``[T, N, A]``.

    ``expected_actions`` are the trained (live) policy's deterministic actions on the same inputs, not the export
    copy's: a copy that lost a piece of the forward pass (the normaliser, the encoder) is refused.

    The file is written next to ``path`` under a temporary name and renamed only after the check passes
    (:func:`~locolab.atomic_files.write_atomically`).
    """
    import onnxruntime

    model = model.to("cpu").eval()
    states = recurrent_state_names(model)
    if states and dones is None:
        raise ExportError("a recurrent policy is checked over a recorded sequence: give its dones.")
    batch = torch.export.Dim("batch")
    # dynamic_shapes is keyed by the forward arguments given (a GRU leaves out the LSTM's c_in)
    arguments = list(inspect.signature(model.forward).parameters)[:len(model.get_dummy_inputs())]
    dynamic_shapes = {name: {1 if name in states else 0: batch} for name in arguments}
    difference = math.nan

    def export_and_check(tmp: Path) -> None:
        nonlocal difference
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.export's deprecation chatter
            torch.onnx.export(model, model.get_dummy_inputs(), str(tmp), input_names=model.input_names,
                              output_names=model.output_names, opset_version=OPSET, dynamo=True,
                              external_data=False, dynamic_shapes=dynamic_shapes)
        sidecars = [p for p in tmp.parent.iterdir() if p.name.startswith(tmp.name) and p != tmp]
        if sidecars:
            raise ExportError(f"the exporter wrote weights outside the ONNX file: {[p.name for p in sidecars]}")
        session = onnxruntime.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
        if states:
            exported = run_recurrent(session, states, recorded_inputs["obs"], dones,
                                     (model.num_layers, model.hidden_size))
        else:
            exported = session.run(["actions"], {name: recorded_inputs[name] for name in model.input_names})[0]
        if exported.shape != expected_actions.shape:
            raise ExportError(f"onnxruntime's actions have shape {exported.shape}, the trained policy's "
                              f"{expected_actions.shape}; nothing was written.")
        difference = float(np.abs(exported - expected_actions).max())
        if not difference <= tolerance:
            raise ExportError(f"onnxruntime's actions differ from the trained policy's by up to {difference:.3g} on "
                              f"{len(expected_actions)} recorded inputs (tolerance {tolerance:g}); nothing was "
                              "written.")

    write_atomically(path, export_and_check)
    return difference
