"""The pytest side of ``training_guard``: each test not marked slow runs (its fixtures' setup and its body) with the
guard armed, and fails if it, or any process it started, tried to train or to run pip (``-m "not slow"`` trains
nothing and installs nothing). Registered by ``conftest.py``; ``test_suite_guards.py`` checks it."""

from __future__ import annotations

import shutil
import tempfile

import pytest

import training_guard

_armed: dict = {}
"""The folder of the test that runs and what :func:`training_guard.disarm` restores, while a fast test runs."""


def _fail_if_refused() -> None:
    found = training_guard.take_refusals(_armed["folder"]) if _armed else []
    if found:
        pytest.fail("\n".join(found), pytrace=False)


def _guarded_phase():
    """A hook wrapper's body: the phase runs, then fails if anything was refused in it (by a child process, or
    caught by the test); a refusal that the phase raises reports itself."""
    try:
        result = yield
    except training_guard.RefusedInFastTest:
        if _armed:
            training_guard.take_refusals(_armed["folder"])
        raise
    except BaseException:
        _fail_if_refused()
        raise
    _fail_if_refused()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    if item.get_closest_marker("slow") is None:
        folder = tempfile.mkdtemp(prefix="training_guard_")
        _armed.update(folder=folder, previous=training_guard.arm(folder))
    return (yield from _guarded_phase())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _guarded_phase())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    if _armed:
        training_guard.disarm(_armed["previous"])
        shutil.rmtree(_armed.pop("folder"), ignore_errors=True)
        _armed.clear()
