"""A fresh process gives back its function's result or exception, and an interrupt ends it at once (train.py's
SIGTERM during the walking gate waited about two minutes for the plays in flight), also in the scripts that stop on
SIGTERM as on Ctrl-C (locolab.stop_signal)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import psutil
import pytest
from conftest import kill_script, start_script

from locolab.fresh_process import (TERMINATE_TIMEOUT_S, FreshProcessEnded, end_fresh_processes, in_fresh_process,
                                   map_side_by_side)

SLEEP_S = 30.0
"""What the interrupted processes would run for: far longer than an interrupt may take to end them."""
ENDED_WITHIN_S = TERMINATE_TIMEOUT_S + 8.0
"""An interrupted call returns within this: the signal comes 3 s in, and a process deaf to SIGTERM is killed
``TERMINATE_TIMEOUT_S`` after it."""


def _no_setup() -> None:
    """Keep the fresh process's printing (the default discards it)."""


def _fails(message: str) -> None:
    raise ValueError(message)


def _deaf_sleep(seconds: float) -> None:
    """Sleep, ignoring SIGTERM (as a library in an Isaac Lab process may handle it)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(seconds)


@pytest.fixture
def sigterm_interrupts():
    """SIGTERM raises KeyboardInterrupt in the main thread, as scripts/train.py sets it up."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    yield
    signal.signal(signal.SIGTERM, previous)


def _signal_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    return timer


def test_result_and_exception_come_back():
    assert in_fresh_process(divmod, 17, 5, initializer=_no_setup) == (3, 2)
    with pytest.raises(ValueError, match="bad input") as raised:
        in_fresh_process(_fails, "bad input")
    assert any("raised in a fresh process" in note for note in raised.value.__notes__)
    assert map_side_by_side(lambda n: in_fresh_process(pow, n, 2), [2, 3]) == [4, 9]


@pytest.mark.parametrize("sleep", [time.sleep, _deaf_sleep], ids=["sleep", "deaf to SIGTERM"])
@pytest.mark.parametrize("side_by_side", [False, True], ids=["one call", "side by side"])
def test_sigterm_ends_fresh_processes_at_once(sigterm_interrupts, side_by_side, sleep):
    started = time.monotonic()
    timer = _signal_after(3.0)
    with pytest.raises(KeyboardInterrupt):
        if side_by_side:
            map_side_by_side(lambda seconds: in_fresh_process(sleep, seconds), [SLEEP_S, SLEEP_S])
        else:
            in_fresh_process(sleep, SLEEP_S)
    timer.join()
    elapsed = time.monotonic() - started
    assert elapsed < ENDED_WITHIN_S, f"the interrupt waited {elapsed:.1f} s for the fresh processes"
    assert not multiprocessing.active_children()


def test_ending_from_another_thread_is_a_clear_error():
    timer = threading.Timer(3.0, end_fresh_processes)
    timer.start()
    started = time.monotonic()
    with pytest.raises(FreshProcessEnded, match="running sleep ended"):
        in_fresh_process(time.sleep, SLEEP_S)
    timer.join()
    assert time.monotonic() - started < ENDED_WITHIN_S


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_to_benchmark_ends_its_timed_simulation_at_once():
    """benchmark.py times its simulation in a fresh process; Python's default SIGTERM ended the script alone and left
    that process simulating to its end. Now the script exits with one line and code 130, and nothing it started is
    left (it runs in a session of its own: its process group)."""
    process = start_script("benchmark.py", "--trainers", "none", "--num_envs", "8", "--sim_steps", "1000000",
                           "--device", "cpu")
    try:
        deadline = time.monotonic() + 120.0
        while not psutil.Process(process.pid).children():  # the fresh process (or its resource tracker) started
            assert process.poll() is None and time.monotonic() < deadline, "benchmark.py started no fresh process"
            time.sleep(0.2)
        time.sleep(3.0)  # the fresh process builds its simulation
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60.0)
        elapsed = time.monotonic() - started
        gone_by = time.monotonic() + 3.0  # the resource tracker exits once its parent has
        while _group_alive(process.pid) and time.monotonic() < gone_by:
            time.sleep(0.1)
        assert not _group_alive(process.pid), "a process benchmark.py started outlived it"
    except BaseException:
        if _group_alive(process.pid):
            kill_script(process)
        raise
    assert process.returncode == 130, stderr[-2000:]
    assert stderr.strip().splitlines()[-1] == "[LocoLab] Stopped by a signal; no figures were written."
    assert "Traceback" not in stderr
    assert elapsed < ENDED_WITHIN_S, f"the stop took {elapsed:.1f} s"
