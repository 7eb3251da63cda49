"""Guards of the test suite itself: a hanging test fails instead of holding its worker, a test not marked slow
neither trains nor runs pip (tests/training_guard.py), and no test writes the user's robot-file cache."""

from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import training_guard

REPO = Path(__file__).resolve().parents[1]


def test_every_test_has_a_timeout():
    ini = configparser.ConfigParser()
    ini.read(REPO / "pytest.ini")
    assert 0 < int(ini["pytest"]["timeout"]) <= 1200


def test_a_hanging_test_fails_on_its_timeout(tmp_path):
    (tmp_path / "test_hang.py").write_text("import time\n\ndef test_hangs():\n    time.sleep(60)\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "timeout=2",
                             str(tmp_path / "test_hang.py")], capture_output=True, text=True, timeout=50, cwd=tmp_path)
    assert result.returncode == 1 and "Timeout" in result.stdout


PLANTED = '''
import contextlib
import subprocess
import sys
from types import SimpleNamespace

import pytest

from rsl_rl.runners import OnPolicyRunner

TRAIN = "from rsl_rl.runners import OnPolicyRunner; OnPolicyRunner.learn(None, 1)"


def test_trains():
    with contextlib.suppress(Exception):  # caught refusals fail the test too
        OnPolicyRunner.learn(SimpleNamespace(), 1)


def test_trains_in_a_child_process():
    subprocess.run([sys.executable, "-c", TRAIN], capture_output=True)


def test_runs_pip():
    with contextlib.suppress(Exception):
        subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)


def test_starts_other_programs():
    assert subprocess.run([sys.executable, "-c", "print('pip')"], capture_output=True, text=True).stdout == "pip\\n"


@pytest.mark.slow
def test_slow_may_train():
    with pytest.raises(AttributeError):  # rsl_rl's own learn, on a stand-in runner
        OnPolicyRunner.learn(SimpleNamespace(), 1)
    subprocess.run([sys.executable, "-c", TRAIN], capture_output=True)
'''


def test_a_test_not_marked_slow_fails_when_it_or_a_process_it_starts_trains_or_runs_pip(tmp_path):
    """``-m "not slow"`` trains nothing and installs nothing, and the suite checks it (tests/training_guard.py): each
    planted violation fails its test, even when the refusal is caught or happens in a child process, while a slow
    test trains and a fast one starts other programs."""
    (tmp_path / "test_planted.py").write_text(PLANTED)
    env = {name: value for name, value in os.environ.items() if name not in (training_guard.ARMED, "PYTHONPATH")}
    env["PYTHONPATH"] = str(REPO / "tests")  # the plugin, and nothing of the outer run's guard
    result = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-o", "markers=slow",
                             "-p", "training_guard_plugin", str(tmp_path / "test_planted.py")],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    outcomes = dict(re.findall(r"test_planted\.py::(\w+) (PASSED|FAILED)", result.stdout))
    assert outcomes == {"test_trains": "FAILED", "test_trains_in_a_child_process": "FAILED",
                        "test_runs_pip": "FAILED", "test_starts_other_programs": "PASSED",
                        "test_slow_may_train": "PASSED"}, result.stdout[-5000:]
    assert "training (OnPolicyRunner.learn of a SimpleNamespace)" in result.stdout
    assert "training (OnPolicyRunner.learn of a NoneType)" in result.stdout  # refused in the child
    assert "may not train or run pip" in result.stdout and "-m pip --version" in result.stdout


@pytest.mark.parametrize(("command", "pip"), [
    (["pip", "install", "x"], True),
    (["/usr/bin/pip3.12", "install", "x"], True),
    ([sys.executable, "-m", "pip", "install", "--target", "site", "."], True),
    ([sys.executable, "-m", "ensurepip"], True),
    (["uv", "pip", "install", "x"], True),
    (["/bin/sh", "-c", "cd /tmp && pip install x"], True),
    (["/bin/sh", "-c", "pip install x"], True),
    ("pip install x", True),
    ([sys.executable, "-c", "print('pip')"], False),
    (["grep", "pip", "requirements.txt"], False),
    ([sys.executable, "scripts/train.py", "--device", "cpu"], False),
])
def test_the_guard_knows_a_pip_command(command, pip):
    """pip is refused however it is started (its program, as a module, inside a shell line), and a command that only
    mentions it is not."""
    assert training_guard.runs_pip(command) is pip


def test_no_test_writes_the_users_robot_file_cache():
    """The robot files a test run generates, in this process and in the processes it starts (train.py, the probes),
    go to a temporary folder (conftest.py), not to ~/.cache/locolab where the user's own runs read them."""
    from locolab.assets import robot_files

    cache = Path(os.environ["LOCOLAB_CACHE_DIR"])
    assert robot_files.CACHE_DIR == cache and cache.is_relative_to(tempfile.gettempdir())
    assert robot_files.ASSET_ROOT.is_relative_to(cache)
    child = subprocess.run([sys.executable, "-c", "from locolab.assets import ASSET_ROOT; print(ASSET_ROOT)"],
                           capture_output=True, text=True, timeout=300)
    assert child.stdout.strip() == str(robot_files.ASSET_ROOT), child.stderr[-2000:]
