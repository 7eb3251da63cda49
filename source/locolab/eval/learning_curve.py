"""Learning curves from a run's TensorBoard events: a metric against wall-clock minutes, one line per run.

The series come from :func:`locolab.bench.tensorboard.read_scalar`; the wall-clock axis starts at the run's first
scalar, so runs started at different times compare from their own starts.
"""

from __future__ import annotations

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


def first_below(series: ScalarSeries, value: float, smooth: int = 1) -> dict[str, float | None]:
    """The first iteration (and its minute) at which ``series``, averaged over the trailing ``smooth`` iterations,
    is below ``value``; both None if it never is. Why: on 2 CPU cores whether a PPO run walks at its final iteration was
    decided early, by when its tracking error left the standing plateau (docs/measurements/cpu_ppo_walking.md), so
    short probes of a setting compare by this iteration instead of by hour-long runs."""
    for iteration, minute, mean in zip(series.iterations, series.minutes, smoothed(series.values, smooth)):
        if mean < value:
            return {"iteration": iteration, "minutes": round(minute, 2)}
    return {"iteration": None, "minutes": None}


def plot_learning_curves(series: list[ScalarSeries], labels: list[str], out: str | Path, title: str = "",
                         ylabel: str | None = None, threshold: float | None = None, smooth: int = 1) -> Path:
    """A PNG of each series against wall-clock minutes (``threshold``: a dashed horizontal line; ``smooth``: a
    trailing moving average over that many iterations, since Isaac Lab's episode metrics are noisy)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4), dpi=120)
    for one, label in zip(series, labels):
        axes.plot(one.minutes, smoothed(one.values, max(1, smooth)), label=label, linewidth=1.2)
    if threshold is not None:
        axes.axhline(threshold, color="gray", linestyle="--", linewidth=1, label=f"{threshold:g}")
    axes.set_xlabel("wall-clock minutes")
    axes.set_ylabel(ylabel or series[0].tag)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out)
    plt.close(figure)
    return out
