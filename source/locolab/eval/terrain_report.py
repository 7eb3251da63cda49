"""The terrain sweep's report: results.csv, a plot of success against difficulty (one panel per terrain type, one line
per policy) and report.md with the per-type table and, for PPO-ROA, the student's success relative to its teacher's."""

from __future__ import annotations

from pathlib import Path

from .report import markdown_table, policies, teacher_of, write_results_csv
from .terrain_sweep import PEAK_SECONDS, STOP_DISTANCE, STOP_SECONDS, SUCCESS_DISTANCE, TERRAIN_TYPES

AXIS = {"step_height_range": "riser [m]", "slope_range": "rise over run", "grid_height_range": "box height [m]",
        None: "noise [m]"}


def plot_terrain(rows: list[dict], path: Path) -> Path:
    """Success rate against each type's difficulty value, a panel per type, a line per policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = list(dict.fromkeys(row["terrain"] for row in rows))
    figure, axes = plt.subplots(1, len(kinds), figsize=(3 * len(kinds), 3.2), squeeze=False)
    for axis, kind in zip(axes[0], kinds):
        for policy in policies(rows):
            own = sorted((row["value"], row["success"]) for row in rows if row["terrain"] == kind
                         and row["policy"] == policy)
            axis.plot([value for value, _ in own], [success for _, success in own], marker="o", label=policy)
        axis.set_title(kind)
        axis.set_xlabel(AXIS[TERRAIN_TYPES[kind][1]])
        axis.set_ylim(-0.05, 1.05)
    axes[0][0].set_ylabel(f"success (>= {SUCCESS_DISTANCE:g} m, no fall)")
    axes[0][-1].legend(fontsize=7)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def terrain_table(rows: list[dict]) -> list[dict]:
    """One entry per (type, value): each policy's success rate and, for a student, its share of its teacher's."""
    entries = []
    for kind, value in dict.fromkeys((row["terrain"], row["value"]) for row in rows):
        entry = {"terrain": kind, "value": value}
        at = {row["policy"]: row for row in rows if row["terrain"] == kind and row["value"] == value}
        for policy, row in at.items():
            entry[f"{policy} success"] = row["success"]
            if "stopped" in row:
                entry[f"{policy} stopped"] = row["stopped"]
            if "peak_speed" in row:
                entry[f"{policy} peak m/s"] = row["peak_speed"]
            teacher = teacher_of(policy, rows)
            if policy.split(" #")[0].endswith("student") and teacher in at:
                reference = at[teacher]["success"]
                entry[f"{policy} / teacher"] = row["success"] / reference if reference > 0 else float("nan")
        entries.append(entry)
    return entries


def write_terrain_report(rows: list[dict], out_dir: Path) -> Path:
    """``out_dir``'s results.csv, plots/terrain.png and report.md; returns the report's path."""
    write_results_csv(rows, out_dir / "results.csv")
    plot_terrain(rows, out_dir / "plots" / "terrain.png")
    checkpoints = dict.fromkeys((row["policy"], row["checkpoint"]) for row in rows)
    lines = ["# LocoLab terrain evaluation", "",
             "Policies: " + "; ".join(f"{policy} (`{path}`)" for policy, path in checkpoints) + ".", "",
             f"Each tile: {int(rows[0]['episodes'])} robots commanded 0.5 m/s forward from its centre; success: at "
             f"least {SUCCESS_DISTANCE:g} m from the centre without a fall; stopped: no fall, and less than "
             f"{STOP_DISTANCE:g} m moved in its last {STOP_SECONDS:g} s (crossed or not); peak m/s: the tile's mean "
             f"of each robot's fastest {PEAK_SECONDS:g} s.", "",
             "![terrain](plots/terrain.png)", "",
             *markdown_table(terrain_table(rows))]
    path = out_dir / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path
