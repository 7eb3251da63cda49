"""The walking checks: fixed commands and what a run under each must show, in one place for every simulator (Newton
plays: :mod:`locolab.eval.walking`; MuJoCo sim-to-sim: :func:`locolab.eval.sim2sim.sim2sim_walking`). No torch or
Isaac Lab here, so the MuJoCo side imports it as it is.
"""

from __future__ import annotations

from dataclasses import dataclass


JUDGED = ("mean_forward_velocity", "mean_speed", "mean_lin_vel_error", "mean_ang_vel_error", "falls")
"""The summary's figures a check is judged on."""


@dataclass(frozen=True)
class WalkingCheck:
    """One fixed command and what the summary of playing it must show."""

    name: str
    command: tuple[float, float, float]
    min_forward_velocity: float | None = None
    max_lin_vel_error: float | None = None
    max_ang_vel_error: float | None = None
    max_mean_speed: float | None = None
    max_falls: int | None = 0

    def failures(self, summary: dict) -> list[str]:
        """What the play summary misses of this check, in words (empty when it passes)."""
        failed = []
        limits = (
            ("mean_forward_velocity", self.min_forward_velocity, ">="),
            ("mean_lin_vel_error", self.max_lin_vel_error, "<="),
            ("mean_ang_vel_error", self.max_ang_vel_error, "<="),
            ("mean_speed", self.max_mean_speed, "<"),
            ("falls", self.max_falls, "<="),
        )
        for key, limit, relation in limits:
            if limit is None:
                continue
            value = summary.get(key)
            ok = value is not None and {">=": value >= limit, "<=": value <= limit, "<": value < limit}[relation]
            if not ok:
                failed.append(f"{self.name}: {key} {value} not {relation} {limit}")
        return failed

    def verdict(self, summary: dict) -> dict:
        """This check's verdict with the summary's figures it was judged on."""
        return {"check": self.name, "command": list(self.command), "failures": self.failures(summary),
                **{key: summary.get(key) for key in JUDGED}}


WALKING_CHECKS = (
    WalkingCheck("forward", (0.5, 0.0, 0.0), min_forward_velocity=0.4, max_lin_vel_error=0.15),
    WalkingCheck("turn", (0.0, 0.0, 1.0), max_ang_vel_error=0.3),
    WalkingCheck("stand", (0.0, 0.0, 0.0), max_mean_speed=0.1),
)
"""Forward at 0.5 m/s, turning at 1 rad/s and standing still, 16 environments for 20 s, no falls."""
