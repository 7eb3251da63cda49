"""The runner's side of the non-finite guard: counting reset environments, and undoing an update that went NaN.

The environments keep non-finite simulation data out of training (:mod:`locolab.envs.nonfinite_guard`); an update
can still make the policy non-finite (an exploding gradient at a too-high learning rate). rsl_rl then crashes at its
next action. :class:`UpdateGuard` keeps the algorithm's state from before each update (weights, normalisers,
optimizers, ROA's schedule position: what ``alg.save()`` holds); after an update with a non-finite loss or parameter
it restores that state, lowers the learning rate of every optimizer, and lets the run continue, at most
``max_restores`` times.
"""

from __future__ import annotations

import copy
import math

import torch

from locolab.distributed import any_rank

from .runner_cfg import NonFiniteCfg


class NonFiniteUpdateError(RuntimeError):
    """Updates kept going non-finite after ``max_restores`` restores; the last good state was saved."""


def nonfinite_losses(loss_dict: dict) -> list[str]:
    """Names of the update's losses that are NaN or Inf."""
    return [name for name, value in loss_dict.items() if not math.isfinite(float(value))]


def nonfinite_parameters(alg) -> list[str]:
    """Names (``module.parameter``) of the algorithm's parameters and buffers that hold a NaN or Inf (each module
    once, under its first name: rsl_rl keeps compiled and raw handles of the same model)."""
    modules = {}
    for name, module in vars(alg).items():
        if isinstance(module, torch.nn.Module):
            modules.setdefault(id(module), (name, module))
    return [f"{name}.{key}" for name, module in modules.values() for key, value in module.state_dict().items()
            if value.is_floating_point() and not torch.isfinite(value).all()]


def optimizers(alg) -> list[torch.optim.Optimizer]:
    return [value for value in vars(alg).values() if isinstance(value, torch.optim.Optimizer)]


class UpdateGuard:
    """Snapshot before each update, check after it, restore with a lower learning rate when it went non-finite."""

    def __init__(self, alg, cfg: dict) -> None:
        self.alg = alg
        defaults = NonFiniteCfg()
        self.max_restores = int(cfg.get("max_restores", defaults.max_restores))
        self.factor = float(cfg.get("learning_rate_factor", defaults.learning_rate_factor))
        self.restores = 0
        self._good: dict | None = None

    def before_update(self) -> None:
        self._good = copy.deepcopy(self.alg.save())

    def after_update(self, loss_dict: dict) -> str | None:
        """None if the update left everything finite; else restore the state from before it and say what went bad
        (raises :class:`NonFiniteUpdateError` once the restores are used up, with the good state already back)."""
        bad = nonfinite_losses(loss_dict) + nonfinite_parameters(self.alg)
        if not any_rank(bool(bad), self.alg.device):  # under torchrun every rank restores, or none
            return None
        bad = bad or ["another rank's update"]
        self.alg.load(self._good, None, True)
        what = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        if self.restores >= self.max_restores:
            raise NonFiniteUpdateError(f"the update went non-finite ({what}) after {self.restores} restores "
                                       f"(agent.nonfinite.max_restores={self.max_restores})")
        self.restores += 1
        self.alg.learning_rate *= self.factor
        for optimizer in optimizers(self.alg):
            for group in optimizer.param_groups:
                group["lr"] *= self.factor
        return what


class NonFiniteCounter:
    """Environments reset for non-finite values (``extras["nonfinite"]``), per iteration and by first bad term."""

    def __init__(self) -> None:
        self.iteration: dict[str, int] = {}
        self.total = 0
        self.seen: set[str] = set()

    def add(self, counts: dict[str, int] | None) -> None:
        for source, count in (counts or {}).items():
            self.iteration[source] = self.iteration.get(source, 0) + count
            self.total += count

    def take(self) -> tuple[dict[str, int], list[str]]:
        """This iteration's counts (then cleared) and the sources seen for the first time in the run."""
        counts, self.iteration = self.iteration, {}
        new = sorted(set(counts) - self.seen)
        self.seen |= set(counts)
        return counts, new
