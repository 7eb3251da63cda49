"""A regular (non-editable) install of LocoLab, as on a GPU machine or from a wheel, holds every library module.

The editable install of ``make install`` finds modules in the checkout whether or not setup.py lists their package;
a regular install copies only the listed packages (a first GPU run failed on a missing ``locolab.offpolicy``).
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # runs pip
def test_a_regular_install_holds_every_library_task_and_agent_module(tmp_path):
    source = tmp_path / "checkout"  # setuptools writes build/ and *.egg-info beside setup.py: keep them out of the repo
    for folder in ("source", "tasks", "agents"):
        shutil.copytree(REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy(REPO / "setup.py", source)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-compile", "--target", str(site), str(source)], check=True, capture_output=True)

    expected = {path.relative_to(REPO / "source").as_posix() for path in (REPO / "source" / "locolab").rglob("*.py")}
    for folder in ("tasks", "agents"):
        expected |= {f"locolab/{folder}/{path.name}" for path in (REPO / folder).glob("*.py")}
    installed = {path.relative_to(site).as_posix() for path in (site / "locolab").rglob("*.py")}
    assert not expected - installed, f"setup.py leaves out: {sorted(expected - installed)}"
