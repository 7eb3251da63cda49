"""Writes a policy as one self-contained ONNX file, after checking it against the torch policy with onnxruntime.

rsl_rl's models provide ``as_onnx()`` (plain-tensor copies with named inputs); LocoLab's LatentMLPModel does too, so
ROA's student exports with its observation normaliser and adapt_ema inside the graph. What this module adds to
rsl_rl's exporter: weights embedded in the file (torch 2.11 writes a ``.onnx.data`` sidecar by default, which gets
left behind when the file is copied to a robot), a batch axis, and a parity check on recorded inputs that refuses to
write a file that disagrees.
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


def export_onnx(model: nn.Module, path: str | os.PathLike, recorded_inputs: dict[str, np.ndarray],
                expected_actions: np.ndarray, tolerance: float = PARITY_TOLERANCE) -> float:
    """Export ``model`` (an ``as_onnx()`` module) to ``path`` if onnxruntime reproduces ``expected_actions`` on
    ``recorded_inputs`` (batches keyed by input name) within ``tolerance``; returns the largest difference.

    ``expected_actions`` are the trained (live) policy's deterministic actions on the same inputs, not the export
    copy's: a copy that lost a piece of the forward pass (the normaliser, the encoder) is refused.

    The file is written next to ``path`` under a temporary name and renamed only after the check passes
    (:func:`~locolab.atomic_files.write_atomically`).
    """
    import onnxruntime

    model = model.to("cpu").eval()
    batch = torch.export.Dim("batch")
    arguments = list(inspect.signature(model.forward).parameters)  # what dynamic_shapes is keyed by
    difference = math.nan

    def export_and_check(tmp: Path) -> None:
        nonlocal difference
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.export's deprecation chatter
            torch.onnx.export(model, model.get_dummy_inputs(), str(tmp), input_names=model.input_names,
                              output_names=model.output_names, opset_version=OPSET, dynamo=True,
                              external_data=False, dynamic_shapes={name: {0: batch} for name in arguments})
        sidecars = [p for p in tmp.parent.iterdir() if p.name.startswith(tmp.name) and p != tmp]
        if sidecars:
            raise ExportError(f"the exporter wrote weights outside the ONNX file: {[p.name for p in sidecars]}")
        session = onnxruntime.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
        exported = session.run(model.output_names, {name: recorded_inputs[name] for name in model.input_names})[0]
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
