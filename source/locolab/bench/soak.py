"""Soak benchmark: a long training run watched for growth in memory, open files and iteration time.

A run that leaks a little per iteration dies hours in, or slows down until it is useless; neither shows in a
five-minute test. :func:`soak` samples a training process and its simulation processes every ``sample_s`` seconds
from ``/proc`` (resident memory, open file descriptors, threads) and reads the run's iteration times from its
TensorBoard events (rsl_rl's ``Perf/collection_time`` + ``Perf/learning_time``). Growth compares the median of the
last quarter of the samples with that of the second quarter (the first quarter is warm-up: allocator pools, Warp's
kernel cache, TensorBoard's buffers), in percent.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .launcher import start_training, stop_training, wait_for_run_dir
from .processes import process_tree
from .tensorboard import read_scalar


@dataclass
class Sample:
    seconds: float
    iteration: int | None
    rss_mb: float
    open_files: int
    threads: int
    processes: int


def _status_value(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    return 0


def sample_processes(pids: list[int]) -> tuple[float, int, int, int]:
    """Resident memory [MB], open file descriptors, threads and live processes of ``pids`` together. A zombie (an
    exited process its parent has not reaped yet: a launched training run that finished) does not count."""
    rss_kb = files = threads = alive = 0
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            rss_kb += _status_value(pid, "VmRSS")
            threads += _status_value(pid, "Threads")
            files += len(os.listdir(f"/proc/{pid}/fd"))
            alive += 1
        except OSError:  # the process ended between listing and reading
            continue
    return rss_kb / 1024.0, files, threads, alive


def iteration_times(run_dir: Path) -> tuple[list[int], list[float]]:
    """Iterations logged so far and each one's seconds (collection + learning); empty before the first."""
    try:
        collect = read_scalar(run_dir, "Perf/collection_time")
        learn = read_scalar(run_dir, "Perf/learning_time")
    except ValueError:
        return [], []
    count = min(len(collect.values), len(learn.values))
    return collect.iterations[:count], [c + u for c, u in zip(collect.values[:count], learn.values[:count])]


def growth_percent(values: list[float]) -> float | None:
    """Median of the last quarter over the median of the second quarter, minus one, in percent (None: too few)."""
    quarter = len(values) // 4
    if quarter < 1:
        return None
    reference = statistics.median(values[quarter:2 * quarter])
    return 100.0 * (statistics.median(values[-quarter:]) / reference - 1.0) if reference else None


def soak(pid: int, run_dir: Path, duration_s: float, sample_s: float, out: Path | None = None) -> dict:
    """Watch the training process ``pid`` (and its children) writing ``run_dir`` for ``duration_s`` seconds or until
    it exits; returns (and writes to ``out`` after every sample) the samples and the growth summary."""
    start = time.monotonic()
    samples: list[Sample] = []
    report: dict = {}
    while time.monotonic() - start < duration_s:
        pids = [process.pid for process in process_tree(pid)]
        rss, files, threads, alive = sample_processes(pids)
        if alive == 0:
            break
        iterations, _ = iteration_times(run_dir)
        samples.append(Sample(time.monotonic() - start, iterations[-1] if iterations else None, rss, files, threads,
                              alive))
        report = summarize(samples, run_dir)
        if out is not None:
            out.write_text(json.dumps(report, indent=1))
        time.sleep(sample_s)
    return report


def soak_training(scripts: Path, train_args: list[str], duration_s: float, sample_s: float, out: Path) -> dict:
    """:func:`soak` of ``scripts/train.py train_args`` launched here (its output in ``<out>.train.log``), stopped with
    SIGINT (it saves and exits) when the time is up."""
    log = out.with_suffix(".train.log")
    process = start_training(scripts, train_args, log)
    try:
        return soak(process.pid, wait_for_run_dir(log, process), duration_s, sample_s, out)
    finally:
        stop_training(process)


def summarize(samples: list[Sample], run_dir: Path) -> dict:
    _, seconds = iteration_times(run_dir)
    return {
        "run_dir": str(run_dir),
        "minutes": samples[-1].seconds / 60.0 if samples else 0.0,
        "iterations": len(seconds),
        "rss_growth_percent": growth_percent([s.rss_mb for s in samples]),
        "open_files_growth": (samples[-1].open_files - samples[len(samples) // 4].open_files) if samples else None,
        "threads_growth": (samples[-1].threads - samples[len(samples) // 4].threads) if samples else None,
        "iteration_time_growth_percent": growth_percent(seconds),
        "iteration_seconds_median": statistics.median(seconds) if seconds else None,
        "samples": [asdict(s) for s in samples],
    }
