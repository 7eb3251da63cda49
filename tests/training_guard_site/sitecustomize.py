"""Run by every Python process that a test not marked slow starts (``tests/training_guard.py`` puts this folder on
``PYTHONPATH`` while it is armed): installs that guard here, then runs the ``sitecustomize`` this one hides, if any."""

import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))

if os.environ.get("LOCOLAB_TRAINING_GUARD"):
    _spec = importlib.util.spec_from_file_location("training_guard", os.path.join(_HERE, "..", "training_guard.py"))
    _guard = importlib.util.module_from_spec(_spec)
    sys.modules["training_guard"] = _guard
    _spec.loader.exec_module(_guard)
    _guard.install()

_hidden = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [path for path in sys.path if os.path.abspath(path or os.curdir) != _HERE])
if _hidden is not None:
    _hidden.loader.exec_module(importlib.util.module_from_spec(_hidden))
