"""The number format of the update's matrix products: rsl_rl's float32, or bfloat16 through ``torch.autocast``.

Why: on a 2-core CPU the PPO update (5 epochs x 2 minibatches of 12288 mirrored samples through the 128-128-128
actor and critic) is about a fifth of an iteration, and the simulation processes wait for it. CPUs with AVX-512 BF16
(these machines: AMD EPYC) run those products faster in bfloat16. Autocast computes only the matrix products in
bfloat16 (with float32 accumulation); the weights, the optimizer, the rollout's actions and log-probabilities stay
float32.

Measured on 2 cores (2026-11-27): ten steps of forward, backward and Adam on 12288 samples took 0.35-0.44 s against
0.69-0.75 s in float32 (a probe of the same networks); in ``train.py`` (512 environments, PPO, iterations 1-8) the
update took a median 0.86 s against 1.10 s, about 5 % of an iteration. ``make train``'s recipe (seed 42) trained with
it did not walk at its last iteration (forward 0.30 m/s, error 0.282; turning error 0.425; one fall in each), where
its float32 runs walked. One run, so not attributed, but the CPU profile keeps float32: ``agent.update_precision=
bfloat16`` is an option.
"""

from __future__ import annotations

import contextlib

import torch

PRECISIONS = {"float32": None, "bfloat16": torch.bfloat16}
"""``update_precision`` values and the autocast type each means (None: no autocast)."""


def check_update_precision(precision: str) -> None:
    """Raise ValueError naming the accepted values when ``precision`` is not one of them."""
    if precision not in PRECISIONS:
        raise ValueError(f"agent.update_precision must be one of {', '.join(PRECISIONS)}, got {precision!r}.")


def update_precision(precision: str, device: str | torch.device) -> contextlib.AbstractContextManager:
    """The context the update runs in: autocast to ``precision`` on ``device``'s type, or nothing for float32."""
    dtype = PRECISIONS[precision]
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(torch.device(device).type, dtype=dtype)
