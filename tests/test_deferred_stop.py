"""The runner's signal handling: the first SIGTERM waits for the iteration's end, a second stops at once even when it
lands inside a library that wraps every Exception (as Warp's kernel launch does)."""

from __future__ import annotations

import os
import signal

import pytest

from locolab.runners.on_policy_runner import TrainingInterrupted
from locolab.runners.on_policy_runner import _DeferredStop


def library_call_that_wraps_every_exception(work) -> None:
    """Warp's ``pack_arg`` in small: any Exception raised inside comes out as a RuntimeError."""
    try:
        work()
    except Exception as error:
        raise RuntimeError("Error launching kernel") from error


def test_the_first_signal_only_marks_the_stop_and_the_second_is_not_wrapped_by_libraries():
    stop, before = _DeferredStop(), signal.getsignal(signal.SIGTERM)
    with stop.installed():
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.pending == "SIGTERM"
        with pytest.raises(TrainingInterrupted, match="twice"):
            library_call_that_wraps_every_exception(lambda: os.kill(os.getpid(), signal.SIGTERM))
    assert signal.getsignal(signal.SIGTERM) is before  # the previous handler is back once training ends
