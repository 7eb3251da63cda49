"""Turns a checkpoint that holds more than plain data (numpy arrays and scalars, as some tools pickle them) into one
that :func:`~.checkpoints.read_checkpoint` loads as data. It unpickles the source with code allowed to run, so it runs
only when its user names it (``scripts/convert_checkpoint.py``), for a file they trust."""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path

import numpy as np
import torch

from .checkpoints import CheckpointError, read_checkpoint, save_atomically

PLAIN = (str, int, float, bool, type(None), torch.Tensor)


def plain_data(value, where: str = "checkpoint"):
    """``value`` with numpy arrays as tensors and numpy scalars as Python numbers; a CheckpointError names anything
    else that is not plain data (its type and where it sits)."""
    if isinstance(value, np.generic):  # before the Python types: numpy's float64 is a float
        return value.item()
    if isinstance(value, PLAIN):
        return value
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value.copy())
    if isinstance(value, dict):
        converted = {key: plain_data(item, f"{where}[{key!r}]") for key, item in value.items()}
        return OrderedDict(converted) if isinstance(value, OrderedDict) else converted
    if isinstance(value, list | tuple):
        return type(value)(plain_data(item, f"{where}[{index}]") for index, item in enumerate(value))
    raise CheckpointError(f"{where} is a {type(value).__module__}.{type(value).__qualname__}, which has no plain-data "
                          "form: this file cannot be converted.")


def convert_checkpoint(source: str | os.PathLike, destination: str | os.PathLike | None = None) -> Path:
    """Write ``source`` as plain data to ``destination`` (default ``<stem>_data.pt`` beside it) and check that it
    loads as data; the source is left as it is."""
    source = Path(source)
    destination = Path(destination) if destination else source.with_name(f"{source.stem}_data.pt")
    if destination.resolve() == source.resolve():
        raise CheckpointError(f"The converted checkpoint would replace '{source}': give another destination.")
    try:
        data = torch.load(source, weights_only=False, map_location="cpu")
    except Exception as error:  # truncated or foreign files
        raise CheckpointError(f"Checkpoint '{source}' cannot be read ({type(error).__name__}).") from None
    save_atomically(plain_data(data), destination)
    read_checkpoint(destination)
    return destination
