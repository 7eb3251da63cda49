"""N-step transitions from collected steps, with terminations and time-outs handled per environment.

From step ``s`` of environment ``e`` the n-step transition holds
    return   = sum_k gamma^k r[s+k]      over the steps up to and including the first that ended the episode
    discount = gamma^(k+1) (1 - terminated[s+k]),  k = the last step counted
    bootstrap = next_obs[s+k], or obs[s+k] when the episode timed out at s+k
so the learner's target is ``return + discount * V(bootstrap)``. Isaac Lab resets an environment inside its step and
returns the next episode's first observation, so a timed-out episode's last state is not observed; like rsl_rl's PPO
(which bootstraps a time-out with the value of the state it acted in), the target bootstraps from the last observed
state. A termination does not bootstrap.
"""

from __future__ import annotations

import torch
from tensordict import TensorDict

STEP_KEYS = ("obs", "action", "reward", "terminated", "time_out", "next_obs")
"""What a collected step holds (``obs`` and ``next_obs`` are TensorDicts of observation groups)."""


def nstep_transitions(steps: TensorDict, n: int, gamma: float) -> TensorDict:
    """The n-step transitions starting at each step of ``steps`` ``[L, N]`` that has ``n - 1`` steps after it:
    ``[L - n + 1, N]`` with ``obs``, ``action``, ``reward`` (the n-step return), ``discount``, ``bootstrap_obs``."""
    length, num_envs = steps.batch_size
    starts = length - n + 1
    if starts < 1:
        raise ValueError(f"{length} steps hold no {n}-step transition.")
    windows = torch.arange(starts, device=steps.device)[:, None] + torch.arange(n, device=steps.device)  # [S, n]
    reward = steps["reward"][windows]                                      # [S, n, N]
    ended = (steps["terminated"] | steps["time_out"])[windows].float()
    alive = torch.cumprod(torch.cat([torch.ones_like(ended[:, :1]), 1.0 - ended[:, :-1]], dim=1), dim=1)
    powers = gamma ** torch.arange(n, device=steps.device, dtype=reward.dtype)
    last = alive.sum(dim=1).long() - 1                                     # [S, N]: the last step counted
    rows = torch.arange(starts, device=steps.device)[:, None] + last       # [S, N]: its index in ``steps``
    cols = torch.arange(num_envs, device=steps.device).expand(starts, num_envs)
    timed_out = steps["time_out"][rows, cols] & ~steps["terminated"][rows, cols]
    def bootstrap_leaf(next_obs: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        next_obs, obs = next_obs[rows, cols], obs[rows, cols]
        return torch.where(_expand(timed_out, next_obs), obs, next_obs)

    bootstrap = steps["next_obs"].apply(bootstrap_leaf, steps["obs"], batch_size=[starts, num_envs])
    return TensorDict({
        "obs": steps["obs"][:starts],
        "action": steps["action"][:starts],
        "reward": (powers[None, :, None] * alive * reward).sum(dim=1),
        "discount": gamma ** (last + 1).to(reward.dtype) * (~steps["terminated"][rows, cols]).to(reward.dtype),
        "bootstrap_obs": bootstrap,
    }, batch_size=[starts, num_envs], device=steps.device)


def _expand(mask: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return mask.reshape(*mask.shape, *([1] * (like.dim() - mask.dim())))


class NStepWindow:
    """Turns consecutive collected chunks ``[T, N]`` into n-step transitions, carrying the last ``n - 1`` steps of
    each chunk over to the next, so every step becomes exactly one transition once its ``n - 1`` successors exist."""

    def __init__(self, n: int, gamma: float) -> None:
        if n < 1:
            raise ValueError(f"n_step must be at least 1, got {n}.")
        self.n = n
        self.gamma = gamma
        self._tail: TensorDict | None = None

    def add(self, chunk: TensorDict) -> TensorDict | None:
        """The transitions completed by ``chunk`` (None while fewer than ``n`` steps have been seen)."""
        steps = chunk.select(*STEP_KEYS)
        if self._tail is not None:
            steps = torch.cat([self._tail, steps], dim=0)
        self._tail = steps[steps.batch_size[0] - self.n + 1:] if self.n > 1 else None
        if steps.batch_size[0] < self.n:
            return None
        return nstep_transitions(steps, self.n, self.gamma)
