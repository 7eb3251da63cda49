"""The one linear ramp that LocoLab's schedules share: the entropy schedule, the action-noise ceiling and PPO-ROA's
regularisation weight each move a value linearly over a window of iterations (or updates)."""

from __future__ import annotations


def linear_ramp(step: float, start: float, end: float, initial: float, final: float) -> float:
    """``initial`` up to ``start``, ``final`` from ``end`` on (``final`` wins where the two meet), linear between."""
    if step >= end:
        return final
    if step <= start:
        return initial
    return initial + (final - initial) * (step - start) / (end - start)
