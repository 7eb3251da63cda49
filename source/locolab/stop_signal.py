"""A stop signal for LocoLab's scripts: SIGTERM (what ``kill``, a job scheduler or a container's stop sends) handled
as Ctrl-C, ending in one line and exit code 130 instead of a traceback.

Python's default SIGTERM ends the process without unwinding it, so the fresh processes a script started
(:mod:`locolab.fresh_process`: the walking gate's plays, the benchmark's timed simulations) outlived it and ran to
their end; raised as ``KeyboardInterrupt`` the signal unwinds through them, and they are ended on the way.
"""

from __future__ import annotations

import functools
import signal
import sys
from collections.abc import Callable

STOPPED_EXIT_CODE = 130
"""What a shell reports for a process ended by SIGINT (128 + 2); a stopped script exits with it."""


def stops_on_signal(message: str) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Decorate a script's ``main``: SIGTERM raises ``KeyboardInterrupt`` in it, and an interrupt that reaches its top
    prints ``[LocoLab] <message>`` to stderr and returns :data:`STOPPED_EXIT_CODE`."""

    def decorate(main: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(main)
        def stoppable_main(*args, **kwargs) -> int:
            signal.signal(signal.SIGTERM, signal.default_int_handler)
            try:
                return main(*args, **kwargs)
            except KeyboardInterrupt:
                print(f"[LocoLab] {message}", file=sys.stderr, flush=True)
                return STOPPED_EXIT_CODE

        return stoppable_main

    return decorate
