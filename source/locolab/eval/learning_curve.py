"""Learning curves from a run's TensorBoard events: metrics against wall-clock minutes, one line per run.

The series come from :func:`locolab.bench.tensorboard.read_scalar`; the wall-clock axis starts at the run's first
scalar, so runs started at different times compare from their own starts. A run stopped and resumed (each resume
writes a new run directory) is joined into one series by :func:`continued`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from locolab.bench.tensorboard import ScalarSeries

TRACKING_ERROR_TAG = "Metrics/base_velocity/error_vel_xy"
"""Isaac Lab's episode-mean linear-velocity tracking error [m/s] (the velocity command term's metric)."""


def smoothed(values: list[float], window: int) -> list[float]:
    """Trailing moving average over ``window`` points (the first points average what there is)."""
    out, total = [], 0.0
    for index, value in enumerate(values):
        total += value
        if index >= window:
            total -= values[index - window]
        out.append(total / min(index + 1, window))
    return out


def continued(segments: list[ScalarSeries]) -> ScalarSeries:
    """One training from the series of its segments (a run, then each resume of it, in order): a later segment's
    minutes start where the earlier segment's last logged iteration ended, plus its own start-up (environment build,
    loading: from its event writer's creation), so the gap between the processes does not count and the restarts do;
    iterations an earlier segment logged past the checkpoint the next resumed from are dropped (they were redone)."""
    iterations, minutes, values = [], [], []
    for segment in segments:
        first = segment.iterations[0] if segment.iterations else None
        keep = [i for i, iteration in enumerate(iterations) if first is None or iteration < first]
        iterations, minutes, values = ([iterations[i] for i in keep], [minutes[i] for i in keep],
                                       [values[i] for i in keep])
        offset = (minutes[-1] - segment.writer_start_minutes) if minutes else 0.0
        iterations += segment.iterations
        minutes += [offset + minute for minute in segment.minutes]
        values += segment.values
    return replace(segments[0], iterations=iterations, minutes=minutes, values=values)


def first_below(series: ScalarSeries, value: float, smooth: int = 1) -> dict[str, float | None]:
    """The first iteration (and its minute) at which ``series``, averaged over the trailing ``smooth`` iterations,
    is below ``value``; both None if it never is. Why: on 2 CPU cores whether a PPO run walks at its final iteration was
    decided early, by when its tracking error left the standing plateau (docs/measurements/cpu_ppo_walking.md), so
    short probes of a setting compare by this iteration instead of by hour-long runs."""
    for iteration, minute, mean in zip(series.iterations, series.minutes, smoothed(series.values, smooth)):
        if mean < value:
            return {"iteration": iteration, "minutes": round(minute, 2)}
    return {"iteration": None, "minutes": None}


def plot_learning_curves(panels: list[list[ScalarSeries]], labels: list[str], out: str | Path, title: str = "",
                         thresholds: list[float | None] | None = None, smooth: int = 1) -> Path:
    """A PNG of series against wall-clock minutes: one panel per metric (``panels``: each a list of series, one per
    run, in ``labels``' order), stacked on one minutes axis; ``thresholds``: a dashed horizontal line per panel (None:
    none); ``smooth``: a trailing moving average over that many iterations, since Isaac Lab's episode metrics are
    noisy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, rows = plt.subplots(len(panels), 1, figsize=(7, 1.0 + 3.0 * len(panels)), dpi=120, sharex=True,
                                squeeze=False)
    for axes, series, threshold in zip(rows[:, 0], panels, thresholds or [None] * len(panels)):
        for one, label in zip(series, labels):
            axes.plot(one.minutes, smoothed(one.values, max(1, smooth)), label=label, linewidth=1.2)
        if threshold is not None:
            axes.axhline(threshold, color="gray", linestyle="--", linewidth=1, label=f"{threshold:g}")
        axes.set_ylabel(series[0].tag.split("/", 1)[-1], fontsize=8)
        axes.grid(alpha=0.3)
        axes.legend(fontsize=8)
    rows[0, 0].set_title(title)
    rows[-1, 0].set_xlabel("wall-clock minutes")
    figure.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out)
    plt.close(figure)
    return out
