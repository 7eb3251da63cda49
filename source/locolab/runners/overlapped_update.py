"""PPO's update of one rollout while the next rollout is collected, so that the simulation processes never wait for it.

Why: on a CPU the simulation processes idle while the trainer updates (0.9 s of a 2.6 s iteration at 512
environments), and the trainer's process is nearly idle while they step (3 % of a core). Here the update of the rollout
collected in iteration ``k - 1`` runs in a background thread while the main thread collects rollout ``k`` with a
copy of the policy as it was before that update (the *acting* copy: actor, critic and their normalisers). As soon as
the update has finished (between two environment steps), the acting copy takes the updated weights and collects the
rest of the rollout with them.

What it changes in PPO: the steps collected while the update ran are one update old (at 512 environments about half
of a 24-step rollout). rsl_rl's PPO computes its ratio against the log probabilities stored at collection time, so
the clipped objective is still taken against the policy that acted; for those steps the ratio just starts away from
1, and the adaptive learning rate sees part of the previous update's change in its KL. Collecting the whole rollout
with the old policy learnt worse on a toy task (hidden-gain, returns 17.9 and 15.6 after 60 iterations against
24.0 and 19.5 for sequential PPO, two seeds). The advantages use the values stored by whichever critic acted.

Extends rsl_rl's ``PPO`` without changing it: the acting copy is a shallow copy of the algorithm with its own
actor, critic, storage and transition, so ``act``, ``process_env_step`` and ``compute_returns`` are rsl_rl's own; the
two storages swap each iteration. Not for recurrent actors (their hidden states would cross the copy), RND, PPO-ROA
(its adaptation module acts beside the actor) or multi-GPU runs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import torch
from rsl_rl.algorithms import PPO
from torch import nn
from torch.distributions import Distribution

from .nonfinite import nonfinite_parameters


class OverlapUnsupportedError(ValueError):
    """The algorithm or policy cannot update while it collects; the message names what and how to turn it off."""


def check_overlap_supported(alg, multi_gpu: bool) -> None:
    """Raise :class:`OverlapUnsupportedError` unless ``alg`` is plain PPO with feed-forward networks on one device."""
    reason = None
    if type(alg) is not PPO:
        reason = f"{type(alg).__name__} is not plain PPO"
    elif alg.actor.is_recurrent or alg.critic.is_recurrent:
        reason = "a recurrent actor or critic carries hidden states across the acting copy"
    elif alg.rnd is not None:
        reason = "RND's intrinsic rewards come from the learner's networks"
    elif multi_gpu:
        reason = "multi-GPU runs synchronise the update across processes"
    if reason is not None:
        raise OverlapUnsupportedError(f"overlap_update=True is not supported here ({reason}); set "
                                      "agent.overlap_update=False.")


def copy_without_last_forward(module: nn.Module) -> nn.Module:
    """A deep copy of ``module`` whose copies of what its last forward pass left behind are None: rsl_rl's
    distributions keep their last output (a tensor with its autograd graph), which ``copy.deepcopy`` refuses."""
    memo = {}
    for submodule in module.modules():
        for value in vars(submodule).values():
            if isinstance(value, Distribution) or (isinstance(value, torch.Tensor) and not value.is_leaf):
                memo[id(value)] = None
    return copy.deepcopy(module, memo)


class OverlappedUpdate:
    """The acting copy of a PPO algorithm, the rollout it has collected, and the background update."""

    def __init__(self, alg: PPO) -> None:
        self.learner = alg
        self.acting = copy.copy(alg)
        self.acting.actor = copy_without_last_forward(alg.actor)
        self.acting.critic = copy_without_last_forward(alg.critic)
        self.acting.storage = copy.deepcopy(alg.storage)
        self.acting.transition = type(alg.transition)()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ppo-update")
        self._running: Future | None = None

    def sync(self) -> None:
        """Make the acting copy the learner's current policy and value function (normalisers included)."""
        self.acting.actor.load_state_dict(self.learner.actor.state_dict())
        self.acting.critic.load_state_dict(self.learner.critic.state_dict())

    @property
    def collected(self) -> bool:
        """The acting storage holds a full rollout not yet updated on (the learner's update clears its storage)."""
        return self.acting.storage.step == self.acting.storage.num_transitions_per_env

    def start_update(self, update: Callable[[], dict]) -> Future:
        """Hand the collected rollout to the learner and run ``update`` on it in the background."""
        if not self.collected:
            raise RuntimeError("no collected rollout to update on")
        self.learner.storage, self.acting.storage = self.acting.storage, self.learner.storage
        self._running = self._executor.submit(update)
        return self._running

    def act(self, obs):
        """The acting copy's ``act``; first, once the running update has finished and left finite weights, the
        acting copy takes them (a failed or non-finite update is left to the caller's ``result()`` and guard)."""
        running = self._running
        if running is not None and running.done():
            self._running = None
            if running.exception() is None and not nonfinite_parameters(self.learner):
                self.sync()
        return self.acting.act(obs)

    def close(self) -> None:
        """Wait for a running update (an interrupted iteration) and stop the background thread."""
        self._executor.shutdown(wait=True)
