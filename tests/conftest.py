"""Shared helpers: run LocoLab's scripts as a user would, and one small CPU training run reused by several tests."""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

# No test writes the user's robot-file cache (~/.cache/locolab, or their LOCOLAB_CACHE_DIR): this process and the
# processes it starts generate the robot files (a tenth of a second) in a temporary folder, named before anything
# imports locolab.assets, which reads the variable on import.
os.environ["LOCOLAB_CACHE_DIR"] = TEST_CACHE_DIR = tempfile.mkdtemp(prefix="locolab_test_cache_")
atexit.register(shutil.rmtree, TEST_CACHE_DIR, ignore_errors=True)

from locolab.bench.launcher import run_dirs, train_command  # noqa: E402, F401  (run_dirs: for the tests)
from training_guard_plugin import (  # noqa: E402, F401  (tests not marked slow train nothing or pip)
    pytest_runtest_call, pytest_runtest_setup, pytest_runtest_teardown)

REPO = Path(__file__).resolve().parents[1]


def start_script(script: str, *args: str, env: dict | None = None) -> subprocess.Popen:
    """Start ``scripts/<script>`` (or a path relative to the repository) with this interpreter, in its own session so
    that :func:`kill_script` reaches its children too (a training's gate plays outlived a kill of the script)."""
    return subprocess.Popen([sys.executable, str(script_path(script)), *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


def kill_script(process: subprocess.Popen) -> None:
    """Kill a :func:`start_script` process and every process it started, and reap it."""
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def run_script(script: str, *args: str, timeout: float = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``scripts/<script>`` (or a path relative to the repository) with this interpreter. Past ``timeout`` it
    and its children are killed and ``TimeoutExpired`` is raised."""
    with start_script(script, *args, env=env) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_script(process)
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def script_path(script: str) -> Path:
    """``scripts/<script>``, or ``script`` relative to the repository when it has a ``/``."""
    return REPO / "scripts" / script if "/" not in script else REPO / script


def run_side_by_side(*invocations: tuple[str, ...], timeout: float = 600) -> list[subprocess.CompletedProcess]:
    """``run_script`` of each ``(script, *args)`` at the same time: for independent runs that each keep about one core
    busy (Warp steps its CPU physics on one thread)."""
    processes = [start_script(*invocation) for invocation in invocations]
    results = []
    try:
        for process in processes:
            stdout, stderr = process.communicate(timeout=timeout)
            results.append(subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr))
    finally:
        for process in processes:  # none outlives a timeout, nor do its children
            if process.poll() is None:
                kill_script(process)
    return results


def load_script(name: str):
    """``scripts/<name>`` imported as a module: its functions, without running it."""
    spec = importlib.util.spec_from_file_location(f"locolab_script_{Path(name).stem}", script_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_main(script: str, *args: str) -> subprocess.CompletedProcess:
    """``scripts/<script>``'s ``main(args)`` in this process, with its exit code and printed output as ``run_script``
    returns them: for bad-input cases that end before an environment is built, without a new process's seconds of
    imports. What the process alone shows (nothing else, such as an import's warning, on stderr) is checked by one
    case per script that stays a process (train.py, play.py, eval.py, benchmark.py)."""
    module = load_script(script)
    stdout, stderr = io.StringIO(), io.StringIO()
    sigterm = signal.getsignal(signal.SIGTERM)  # train.py's main makes SIGTERM stop like Ctrl-C
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = module.main(list(args))
            except SystemExit as exit_:  # argparse's usage errors
                code = exit_.code
    finally:
        signal.signal(signal.SIGTERM, sigterm)
    return subprocess.CompletedProcess([script, *args], code, stdout.getvalue(), stderr.getvalue())


def probe_report(script: str, *args: str, timeout: float = 600) -> dict:
    """Run a probe (``run_script``), require that it succeeded (else fail with its stderr's tail) and return the JSON
    object it printed last."""
    result = run_script(script, *args, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    return last_json(result.stdout)


def last_json(stdout: str) -> dict:
    """The last line of ``stdout`` that parses as a JSON object."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no JSON line in output:\n{stdout[-2000:]}")


def start_training(tmp_path, *extra: str) -> subprocess.Popen:
    """train.py in the background (8 envs, up to 1000 iterations, logs under ``tmp_path``), output on a pipe."""
    command = train_command(REPO / "scripts", "--device", "cpu", "--num_envs", "8", "--max_iterations", "1000",
                            "--log_root", str(tmp_path), *extra)
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for_line(process: subprocess.Popen, text: str) -> list[str]:
    """Read the process's output up to the first line containing ``text`` (the lines read so far)."""
    lines = []
    for line in process.stdout:
        lines.append(line)
        if text in line:
            return lines
    raise AssertionError("".join(lines[-50:]))


SMALL_SAC_SETTINGS = ("--agent", "sac", "agent.algorithm.learning_starts=64", "agent.algorithm.batch_size=64",
                      "agent.algorithm.num_updates=2", "agent.algorithm.buffer_size=4096")
"""SAC sized for a few seconds of 8 environments: the 64-transition warm-up fills in the first iteration (8 steps x
8 envs)."""


def scalars_of_a_short_training(tmp_path: Path, *overrides: str):
    """train.py for 3 iterations (8 envs, one simulation process) with ``overrides``: its run directory and its
    TensorBoard events (an ``EventAccumulator``)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "3", "--sim_processes",
                        "1", "--log_root", str(tmp_path), *overrides)
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = run_dirs(tmp_path)
    return run, EventAccumulator(str(run)).Reload()


@pytest.fixture(scope="session")
def trained_run(tmp_path_factory) -> Path:
    """A 3-iteration CPU training run of the flat Go2 task (8 envs)."""
    log_root = tmp_path_factory.mktemp("logs")
    result = run_script(
        "train.py", "--task", "LocoLab-Velocity-Flat-Go2", "--device", "cpu", "--num_envs", "8",
        "--max_iterations", "3", "--seed", "1", "--run_name", "fixture", "--log_root", str(log_root),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = run_dirs(log_root)
    return run


ROA_SMALL_RUN = ("--device", "cpu", "--num_envs", "8", "--max_iterations", "2", "--seed", "3")


def experiment_runs(log_root: Path, experiment: str) -> list[Path]:
    return [run for run in run_dirs(log_root) if run.parent.name == experiment]


@pytest.fixture(scope="session")
def roa_runs(tmp_path_factory) -> dict:
    """A 2-iteration PPO-ROA teacher (phase train) of the flat Go2 task and a 2-iteration student finetuned from it."""
    logs = tmp_path_factory.mktemp("roa_logs")
    train = run_script("train.py", "--agent", "roa", *ROA_SMALL_RUN, "--log_root", str(logs))
    assert train.returncode == 0, train.stderr[-3000:]
    (teacher,) = experiment_runs(logs, "locolab_go2_flat_roa")
    finetune = run_script("train.py", "--agent", "roa", "--phase", "finetune", "--teacher", str(teacher),
                          *ROA_SMALL_RUN, "--log_root", str(logs))
    assert finetune.returncode == 0, finetune.stderr[-3000:]
    (student,) = experiment_runs(logs, "locolab_go2_flat_roa_finetune")
    return {"logs": logs, "teacher": teacher, "student": student, "finetune_stdout": finetune.stdout}


class FakeScene(SimpleNamespace):
    """A stand-in for Isaac Lab's ``InteractiveScene`` in reward-term tests: entities by attribute and by ``[name]``."""

    def __getitem__(self, name):
        return getattr(self, name)
