"""A replay buffer of TensorDict transitions, preallocated on the training device.

torchrl's buffers would do this job, but torchrl 0.14.1 (the release on the package index) pins tensordict below 0.15
while rsl-rl-lib runs with 0.15.3 here; a ring buffer over one preallocated TensorDict is a few lines, keeps every
transition on the device (sampling is one gather), and leaves the environment stack's versions alone.
"""

from __future__ import annotations

import torch
from tensordict import TensorDict


class ReplayBuffer:
    """A ring buffer of ``capacity`` transitions; the oldest are overwritten once it is full."""

    def __init__(self, capacity: int, device: str | torch.device, generator: torch.Generator | None = None) -> None:
        if capacity < 1:
            raise ValueError(f"buffer_size must be at least 1, got {capacity}.")
        self.capacity = capacity
        self.device = torch.device(device)
        self.generator = generator
        self._storage: TensorDict | None = None
        self._next = 0
        self.size = 0
        self.added = 0
        """Transitions added since the start (overwritten ones included)."""

    def extend(self, transitions: TensorDict) -> None:
        """Add a flat ``[B]`` batch of transitions."""
        transitions = transitions.to(self.device)
        count = transitions.batch_size[0]
        if self._storage is None:
            self._storage = transitions[0].expand(self.capacity).clone()
        if count > self.capacity:
            transitions, count = transitions[count - self.capacity:], self.capacity
        index = (self._next + torch.arange(count, device=self.device)) % self.capacity
        self._storage[index] = transitions
        self._next = (self._next + count) % self.capacity
        self.size = min(self.size + count, self.capacity)
        self.added += count

    def sample(self, batch_size: int) -> TensorDict:
        """``batch_size`` transitions drawn uniformly with replacement."""
        if self.size == 0:
            raise RuntimeError("sampling from an empty replay buffer")
        index = torch.randint(self.size, (batch_size,), device=self.device, generator=self.generator)
        return self._storage[index]

    def contents(self) -> TensorDict:
        """Every stored transition (oldest first once the buffer has wrapped)."""
        if self.size < self.capacity:
            return self._storage[: self.size]
        return torch.cat([self._storage[self._next:], self._storage[: self._next]])
