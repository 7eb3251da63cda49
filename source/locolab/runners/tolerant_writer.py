"""A TensorBoard writer that survives a full or read-only disk.

rsl_rl logs through ``torch.utils.tensorboard.SummaryWriter``, whose background thread dies on the first failed
write and re-raises that error from the next ``add_scalar``: a full disk kills the run from inside the logger, even
though the checkpoints (:meth:`~.on_policy_runner.LocoLabOnPolicyRunner.save`) are written to survive it.
:class:`DiskTolerantWriter` drops what the disk refuses, says so in one line (at most once per retry), and opens a
fresh event file (at most every ``retry_s`` seconds) so logging resumes when space comes back.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable


class DiskTolerantWriter:
    """Forwards to a SummaryWriter made by ``make``; an ``OSError`` drops the event instead of ending the run."""

    def __init__(self, make: Callable[[], object], retry_s: float = 30.0) -> None:
        self._make = make
        self._retry_s = retry_s
        self._writer = make()
        self._failed_at: float | None = None

    def _call(self, method: str, *args, **kwargs) -> None:
        if self._writer is None:
            if time.monotonic() - self._failed_at < self._retry_s:
                return
            try:
                self._writer = self._make()
            except OSError:
                self._failed_at = time.monotonic()
                return
        try:
            getattr(self._writer, method)(*args, **kwargs)
        except OSError as error:
            print(f"[LocoLab] TensorBoard cannot write ({error.strerror or error}); its events are dropped until "
                  f"the disk takes them again (next try in {self._retry_s:.0f} s). Training goes on.",
                  file=sys.stderr, flush=True)
            self._failed_at = time.monotonic()
            with contextlib.suppress(Exception):
                self._writer.close()
            self._writer = None

    def add_scalar(self, *args, **kwargs) -> None:
        self._call("add_scalar", *args, **kwargs)

    def flush(self) -> None:
        self._call("flush")

    def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(OSError):
                self._writer.close()

    def __getattr__(self, name: str):
        return getattr(self._writer, name)
