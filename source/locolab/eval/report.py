"""Robustness report: evaluation rows (one per policy and sweep grid point) into results.csv, one plot per sweep and
report.md.

A row holds the policy's label and checkpoint, the sweep, the value the evaluation set and the value read back from
the simulator, whether that value lies in the training range, the episode count, and any number of metrics (every
other key). Plots use the read-back value, so they show what the simulator ran rather than what was asked for.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

TEXT_COLUMNS = ("policy", "checkpoint", "sweep", "terrain")
BOOL_COLUMNS = ("in_training_range",)
PANELS = (("fall", "fall rate"), ("lin_vel_error", "linear velocity error [m/s]"), ("return", "episode return"))
"""The metric of each plot panel and its axis label."""
OOD_POINTS = {"friction": 0.2, "payload": 3.0, "motor": 0.7}
"""Grid points outside the training ranges that the report's out-of-distribution table compares policies at."""
SWEEP_TABLE_COLUMNS = ("policy", "value", "value_read_back", "episodes", "fall", "lin_vel_error", "return")


@dataclass(frozen=True)
class SweepInfo:
    """What a plot needs to know of a sweep: its x-axis label (with unit) and the range the policies trained on."""

    name: str
    label: str
    training_range: tuple[float, float]


def write_results_csv(rows: list[dict], path: Path) -> None:
    """All rows, one line each, so a report can be re-made or compared without re-running the simulator. Columns
    are the union of the rows' keys (a metric only some policies have, e.g. latent_error, is "nan" for the rest);
    NaN is written as "nan" and booleans as 0/1 so that :func:`read_results_csv` gives the same values back."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, columns, restval="nan")
        writer.writeheader()
        writer.writerows({key: _cell(key, value) for key, value in row.items()} for row in rows)


def read_results_csv(path: Path) -> list[dict]:
    """The rows :func:`write_results_csv` wrote: text for policy, checkpoint and sweep, a bool for
    in_training_range, floats for everything else."""
    with path.open(newline="") as file:
        return [{key: _parse(key, text) for key, text in row.items()} for row in csv.DictReader(file)]


def plot_sweep(rows: list[dict], info: SweepInfo, path: Path) -> Path:
    """A 1500 x 450 PNG of fall rate, velocity tracking error and return against the read-back value of ``info``'s
    sweep, one line per policy (the same colour in every panel and, given all rows, in every sweep's plot), with the
    training range shaded so that extrapolation is visible at a glance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    names = policies(rows)
    rows = [row for row in rows if row["sweep"] == info.name]
    figure, axes = plt.subplots(1, 3, figsize=(15, 4.5), dpi=100)
    for ax, (metric, label) in zip(axes, PANELS):
        ax.axvspan(*info.training_range, color="lightgrey", alpha=0.6, label="training range")
        for index, policy in enumerate(names):
            points = sorted(((row["value_read_back"], row[metric]) for row in rows if row["policy"] == policy),
                            key=lambda point: point[0])
            if points:
                ax.plot(*zip(*points), marker="o", color=colours[index % len(colours)], label=policy)
        ax.set(title=f"{label} ({info.name} sweep)", xlabel=info.label, ylabel=label)
        ax.grid(alpha=0.3)
    axes[0].set_ylim(-0.05, 1.05)
    axes[0].legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)  # not bbox_inches="tight": it would change the pixel size
    plt.close(figure)
    return path


def summary_table(rows: list[dict], sweeps: dict[str, SweepInfo]) -> list[dict]:
    """One entry per policy (in order of appearance) over the rows of ``sweeps``: mean return, tracking error and
    fall rate inside the training ranges, fall rate outside them (NaN without such rows), where the policy falls,
    and its in-range return relative to a teacher's (the teacher of its own checkpoint, else the first teacher; NaN
    without one), which shows what a student loses by not seeing the privileged state."""
    rows = [row for row in rows if row["sweep"] in sweeps]
    table = []
    for policy in policies(rows):
        own = [row for row in rows if row["policy"] == policy]
        inside = [row for row in own if row["in_training_range"]]
        table.append({"policy": policy,
                      "return_in_range": _mean(row["return"] for row in inside),
                      "lin_vel_error_in_range": _mean(row["lin_vel_error"] for row in inside),
                      "fall_rate_in_range": _mean(row["fall"] for row in inside),
                      "fall_rate_out_of_range": _mean(row["fall"] for row in own if not row["in_training_range"]),
                      "falls_at": _falls_at(own, sweeps)})
    returns = {entry["policy"]: entry["return_in_range"] for entry in table}
    for entry in table:
        teacher = teacher_of(entry["policy"], rows)
        reference = returns[teacher] if teacher is not None else math.nan
        entry["return_vs_teacher"] = entry["return_in_range"] / reference if reference != 0 else math.nan
    return table


def out_of_distribution_falls(rows: list[dict], points: dict[str, float]) -> dict[str, float]:
    """Each policy's mean fall rate at the grid point of each sweep in ``points`` whose value is closest to the one
    given (sweeps without rows are skipped): one number that ranks policies beyond their training ranges."""
    nearest = {sweep: _nearest(rows, sweep, target) for sweep, target in points.items()}
    chosen = [row for row in rows if row["sweep"] in nearest and row["value"] == nearest[row["sweep"]]]
    return {policy: _mean(row["fall"] for row in chosen if row["policy"] == policy) for policy in policies(rows)}


def write_report(rows: list[dict], sweeps: dict[str, SweepInfo], out_dir: Path,
                 title: str = "LocoLab robustness evaluation") -> Path:
    """``out_dir``'s results.csv, plots/<sweep>.png for every sweep of ``sweeps`` with rows, and report.md, which
    summarises the policies, compares them out of distribution and embeds each sweep's plot; returns its path."""
    write_results_csv(rows, out_dir / "results.csv")
    present = [name for name in sweeps if any(row["sweep"] == name for row in rows)]
    checkpoints = dict.fromkeys((row["policy"], row["checkpoint"]) for row in rows)
    lines = [f"# {title}", "", "Policies: " + "; ".join(f"{policy} (`{path}`)" for policy, path in checkpoints) + ".",
             "", "## Summary", "", *markdown_table(summary_table(rows, sweeps)), "", "## Out of distribution", ""]
    points = {name: _nearest(rows, name, value) for name, value in OOD_POINTS.items() if name in present}
    if points:
        falls = out_of_distribution_falls(rows, points)
        at = ", ".join(f"{name} {value:g}" for name, value in points.items())
        lines += [f"Mean fall rate at {at}.", "",
                  *markdown_table([{"policy": policy, "fall_rate": fall} for policy, fall in falls.items()])]
    else:
        lines.append("No friction, payload or motor sweep in this evaluation.")
    for name in present:
        info = sweeps[name]
        plot_sweep(rows, info, out_dir / "plots" / f"{name}.png")
        low, high = info.training_range
        lines += ["", f"## {name}", "", f"![{name}](plots/{name}.png)", "",
                  f"x: {info.label}; training range {low:g} to {high:g} (shaded).", "",
                  *markdown_table([{key: row[key] for key in SWEEP_TABLE_COLUMNS}
                                    for row in rows if row["sweep"] == name])]
    path = out_dir / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _cell(key: str, value):
    return int(bool(value)) if key in BOOL_COLUMNS or isinstance(value, bool) else value


def _parse(key: str, text: str):
    if key in TEXT_COLUMNS:
        return text
    return bool(int(text)) if key in BOOL_COLUMNS else float(text)


def policies(rows: list[dict]) -> list[str]:
    """The policies in ``rows``, in the order they first appear."""
    return list(dict.fromkeys(row["policy"] for row in rows))


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def _nearest(rows: list[dict], sweep: str, target: float) -> float | None:
    grid = dict.fromkeys(row["value"] for row in rows if row["sweep"] == sweep)
    return min(grid, key=lambda value: abs(value - target)) if grid else None


def _falls_at(rows: list[dict], sweeps: dict[str, SweepInfo]) -> str:
    """E.g. "friction 0.1, 0.2; payload 5": the read-back values (2 decimals) of the grid points with falls."""
    parts = []
    for name in sweeps:
        values = sorted({round(row["value_read_back"], 2) for row in rows if row["sweep"] == name and row["fall"] > 0})
        if values:
            parts.append(f"{name} " + ", ".join(f"{value:g}" for value in values))
    return "; ".join(parts) or "never"


def teacher_of(policy: str, rows: list[dict]) -> str | None:
    """The teacher from ``policy``'s checkpoint, else the first teacher (labels may carry a " #n" suffix)."""
    checkpoint = {row["policy"]: row["checkpoint"] for row in rows}
    teachers = [name for name in checkpoint if name.split(" #")[0].endswith("teacher")]
    same = [name for name in teachers if checkpoint[name] == checkpoint[policy]]
    return (same or teachers or [None])[0]


def markdown_table(entries: list[dict]) -> list[str]:
    """``entries`` (dicts with the same keys) as the lines of a Markdown table."""
    columns = list(entries[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    return lines + ["| " + " | ".join(_format(entry[column]) for column in columns) + " |" for entry in entries]


def _format(value) -> str:
    """3 significant digits (whole numbers from 1000 on), NaN as a dash."""
    if isinstance(value, str):
        return value
    if math.isnan(value):
        return "–"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
