"""The one reader of a run's TensorBoard scalars (rsl_rl logs every scalar with its iteration as step and the wall
time it was written): learning curves, time to walking, soak and throughput read through it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


@dataclass
class ScalarSeries:
    """One scalar of one run: iteration, minutes since the run's first scalar, value."""

    run: Path
    tag: str
    iterations: list[int]
    minutes: list[float]
    values: list[float]
    writer_start_minutes: float = 0.0
    """When the event writer was created (the first event of the file), on the same axis (<= 0): before the first
    iteration is logged, so minutes from the process's start of training are ``minute - writer_start_minutes``."""

    def minutes_since_writer_start(self) -> dict[int, float]:
        """Minutes from the run's first TensorBoard event to the logging of each iteration, by iteration."""
        return {iteration: minute - self.writer_start_minutes
                for iteration, minute in zip(self.iterations, self.minutes)}


def read_scalar(run_dir: str | Path, tag: str) -> ScalarSeries:
    """``tag`` from the TensorBoard events under ``run_dir`` (the first folder that holds any); a ValueError naming
    what is missing."""
    run_dir = Path(run_dir)
    events = sorted(run_dir.rglob("events.out.tfevents.*"))
    if not events:
        raise ValueError(f"no TensorBoard events under '{run_dir}'.")
    accumulator = EventAccumulator(str(events[0].parent), size_guidance={"scalars": 0}).Reload()
    tags = accumulator.Tags()["scalars"]
    if tag not in tags:
        raise ValueError(f"'{run_dir}' has no scalar '{tag}' (it has {len(tags)}, e.g. {sorted(tags)[:5]}).")
    scalars = accumulator.Scalars(tag)
    start = min(accumulator.Scalars(t)[0].wall_time for t in tags)
    return ScalarSeries(run_dir, tag, [s.step for s in scalars], [(s.wall_time - start) / 60.0 for s in scalars],
                        [s.value for s in scalars], (accumulator.FirstEventTimestamp() - start) / 60.0)
