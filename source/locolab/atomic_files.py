"""Atomic file writes, shared by checkpoints, generated robot files and exported policies: a reader, or a crash
half-way, never sees half a file, and a failed write leaves neither a temporary file nor a changed target."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: str | os.PathLike, write: Callable[[Path], None]) -> Path:
    """Call ``write`` on a temporary path beside ``path`` (same folder, same suffix, for writers that choose the
    format by it), then rename it to ``path``; if ``write`` raises, ``path`` is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
