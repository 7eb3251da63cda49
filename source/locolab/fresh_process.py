"""Running one function in a fresh process and taking back its result: Isaac Lab runs one simulation per process, so
a second environment (a play, a timed simulation) beside a running one needs a process of its own."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor


def silence_output() -> None:
    """Discard what this process prints (its own lines and Isaac Lab's); results and exceptions come back pickled."""
    silent = os.open(os.devnull, os.O_WRONLY)
    os.dup2(silent, 1)
    os.dup2(silent, 2)


def in_fresh_process(function: Callable, *args, initializer: Callable[[], None] = silence_output, **kwargs):
    """``function(*args, **kwargs)`` in a new (spawned) process prepared by ``initializer``: its result, or its
    exception raised here."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=initializer) as pool:
        return pool.submit(function, *args, **kwargs).result()
