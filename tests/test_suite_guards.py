"""Guards of the test suite itself: a hanging test fails instead of holding its worker."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

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
