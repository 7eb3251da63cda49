"""Running one function in a fresh process and taking back its result: Isaac Lab runs one simulation per process, so
a second environment (a play, a timed simulation) beside a running one needs a process of its own.

An interrupt (Ctrl-C, or train.py's SIGTERM) ends the fresh processes at once instead of waiting for their functions:
the standard library's ``ProcessPoolExecutor`` cannot end a running worker before Python 3.14, so a SIGTERM during
the walking gate waited about two minutes for the plays in flight. Hence a spawned process and a pipe of our own.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for_any
from multiprocessing.process import BaseProcess

_LIVE: set[BaseProcess] = set()
"""The fresh processes running now, from any thread: what :func:`end_fresh_processes` ends."""
_LIVE_LOCK = threading.Lock()
TERMINATE_TIMEOUT_S = 5.0
"""A terminated (SIGTERM) fresh process that is still alive after this is killed: a library may handle SIGTERM."""


class FreshProcessEnded(RuntimeError):
    """A fresh process ended without sending back a result (ended by an interrupt, killed, or crashed)."""


def silence_output() -> None:
    """Discard what this process prints (its own lines and Isaac Lab's); results and exceptions come back pickled."""
    silent = os.open(os.devnull, os.O_WRONLY)
    os.dup2(silent, 1)
    os.dup2(silent, 2)


def _serve(sender: Connection, label: str, initializer: Callable[[], None], function: Callable, args: tuple,
           kwargs: dict):
    """The fresh process: ``function``'s result or exception (with its traceback's text) sent back pickled."""
    initializer()
    try:
        outcome = (True, function(*args, **kwargs), "")
    except BaseException as error:  # the caller gets it, whatever it is
        outcome = (False, error, traceback.format_exc())
    try:
        sender.send(outcome)
    except Exception as error:  # a result or exception that does not pickle
        sender.send((False, FreshProcessEnded(f"{label} returned what cannot be sent back: {error}"), ""))
    sender.close()


def in_fresh_process(function: Callable, *args, initializer: Callable[[], None] = silence_output, **kwargs):
    """``function(*args, **kwargs)`` in a new (spawned) process prepared by ``initializer``: its result, or its
    exception raised here (the fresh process's traceback in a note). Interrupted here, or ended by
    :func:`end_fresh_processes`, the process is terminated at once."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    label = getattr(function, "__name__", "a function")
    process = context.Process(target=_serve, args=(sender, label, initializer, function, args, kwargs),
                              name=label)
    try:
        with _LIVE_LOCK:  # registered only once started, so that an ending never meets an unstarted process
            process.start()
            _LIVE.add(process)
        sender.close()
        try:
            ok, value, trace = receiver.recv()
        except EOFError:
            process.join()
            raise FreshProcessEnded(f"the fresh process running {label} ended (exit code "
                                    f"{process.exitcode}) without a result") from None
    except BaseException:
        if process.pid is not None:
            _stop([process])  # interrupted: do not wait for the function to finish
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(process)
        if process.pid is not None:
            process.join()
        sender.close()
        receiver.close()
    if ok:
        return value
    value.add_note(f"raised in a fresh process:\n{trace}")
    raise value


def _stop(processes: list[BaseProcess]) -> None:
    """Terminate ``processes``, then kill those still running after :data:`TERMINATE_TIMEOUT_S`. Waits on their
    sentinels rather than joining, so that the thread that started each one stays the only one to reap it."""
    for process in processes:
        process.terminate()
    running = {process.sentinel: process for process in processes}
    deadline = time.monotonic() + TERMINATE_TIMEOUT_S
    while running and (left := deadline - time.monotonic()) > 0:
        for sentinel in wait_for_any(list(running), left):
            running.pop(sentinel)
    for process in running.values():
        process.kill()


def end_fresh_processes() -> None:
    """Stop every fresh process running now, from any thread (their callers raise :class:`FreshProcessEnded`)."""
    with _LIVE_LOCK:
        processes = list(_LIVE)
    _stop(processes)


def map_side_by_side(function: Callable, items: Iterable) -> list:
    """``[function(item) for item in items]``, each call in a thread of its own (each waits on a fresh process), the
    results in order. When one raises or this thread is interrupted, the fresh processes are ended rather than
    waited for, and the exception goes on."""
    items = list(items)
    with ThreadPoolExecutor(max(1, len(items))) as threads:
        futures = [threads.submit(function, item) for item in items]
        try:
            return [future.result() for future in futures]
        except BaseException:
            while not all(future.done() for future in futures):  # a thread may start its process after an ending
                end_fresh_processes()
                wait(futures, timeout=0.2)
            raise
