"""The one launcher of ``scripts/train.py`` for the harnesses (time to walking, soak, throughput) and the one way to
find the run directory it writes. train.py is a script of the checkout, not of the installed package: callers name the
folder that holds it, and it runs with the checkout as working folder."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

TRAINERS = ("train", "ppo_rnn_train", "roa_train", "sac_sync_train", "sac_async_train", "roa_finetune", "stock_train")
"""The trainer runs the throughput benchmark can time (:mod:`.throughput`; ``sac_async_train`` on a CPU only)."""
RUN_DIR_LINE = re.compile(r"^\[LocoLab\] Training .* simulation process\(es\): (/.+)$")
"""train.py's line naming its run directory, printed when training starts (locolab.training.started_line)."""


def train_command(scripts: Path, *args: str) -> list[str]:
    """``scripts/train.py args`` with this interpreter."""
    return [sys.executable, str(scripts / "train.py"), *args]


def start_training(scripts: Path, args: list[str], log: Path) -> subprocess.Popen:
    """train.py with ``args`` in the background, its output (stdout and stderr) written to ``log``."""
    with log.open("w") as output:
        return subprocess.Popen(train_command(scripts, *args), cwd=scripts.parent, stdout=output,
                                stderr=subprocess.STDOUT)


def stop_training(process: subprocess.Popen, timeout_s: float = 600.0) -> None:
    """SIGINT (train.py saves and exits), then a kill if it has not ended within ``timeout_s``."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_dirs(log_root: Path) -> list[Path]:
    """The run directories (those with ``params/``) under ``log_root``, by name: oldest first."""
    return sorted(p.parent for p in Path(log_root).glob("*/*/params"))


def wait_for_run_dir(log: Path, process: subprocess.Popen, timeout_s: float = 900.0) -> Path:
    """The run directory train.py names in ``log`` once training starts; a RuntimeError if it exits or times out
    first."""
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        for line in log.read_text().splitlines():
            if match := RUN_DIR_LINE.match(line):
                return Path(match.group(1))
        if process.poll() is not None:
            raise RuntimeError(f"train.py exited ({process.returncode}) before training; see {log}")
        time.sleep(2.0)
    raise RuntimeError(f"train.py did not start training within {timeout_s:.0f} s; see {log}")
