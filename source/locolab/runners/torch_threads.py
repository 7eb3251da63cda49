"""How many threads torch may use in the trainer's process, per phase of an iteration.

On a CPU the simulation processes (:class:`~locolab.envs.multiprocess.SubprocessVecEnv`) step the robots on every
core while the trainer waits for them, then the trainer computes the next actions. The trainer's per-step work (a
few small matrix products over the environments, storage, bookkeeping) gains nothing from a second thread, and its
OpenMP threads compete with the simulation processes for the same cores. rsl_rl's runner uses torch's default (one
thread per core) throughout; this sets the count for collection and for the update separately.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """``torch.set_num_threads(count)`` for the ``with`` block, the previous count restored after it (0: unchanged)."""
    if count <= 0:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
