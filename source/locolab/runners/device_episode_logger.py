"""rsl_rl's Logger with its per-step episode bookkeeping kept on the device.

rsl_rl's ``Logger.process_env_step`` moves each step's finished episodes to the host (a ``nonzero`` and two
``.cpu()`` copies): three GPU synchronisations a step, which stop the host from queueing the next step's kernels
while the GPU works. :class:`DeviceEpisodeLogger` writes each step's episode sums and done flags into device tensors
and moves them once per iteration, just before rsl_rl's ``log`` reads its buffers: the same episodes reach the same
deques in the same order (step by step, environments in order within a step). RND's extrinsic and intrinsic sums
keep rsl_rl's own per-step path.
"""

from __future__ import annotations

import torch

from rsl_rl.utils.logger import Logger


class DeviceEpisodeLogger(Logger):
    """rsl_rl's Logger whose finished episodes travel to the host once per ``log`` instead of once per step."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._steps: list[torch.Tensor] = []  # per step: [(episode sum, length, done), envs]

    @classmethod
    def replacing(cls, logger: Logger) -> "DeviceEpisodeLogger":
        """This logger in place of rsl_rl's ``logger`` (built by rsl_rl's runner), with its state."""
        replacement = cls.__new__(cls)
        replacement.__dict__.update(logger.__dict__)
        replacement._steps = []
        return replacement

    def process_env_step(self, rewards: torch.Tensor, dones: torch.Tensor, extras: dict,
                         intrinsic_rewards: torch.Tensor | None = None) -> None:
        if intrinsic_rewards is not None or self.writer is None:
            super().process_env_step(rewards, dones, extras, intrinsic_rewards)
            return
        if "episode" in extras:
            self.ep_extras.append(extras["episode"])
        elif "log" in extras:
            self.ep_extras.append(extras["log"])
        self.cur_reward_sum += rewards
        self.cur_episode_length += 1
        done = dones > 0
        self._steps.append(torch.stack([self.cur_reward_sum, self.cur_episode_length, done.float()]))
        self.cur_reward_sum.masked_fill_(done, 0.0)
        self.cur_episode_length.masked_fill_(done, 0.0)

    def flush_episodes(self) -> None:
        """Move the episodes finished since the last flush into rsl_rl's reward and length buffers."""
        if not self._steps:
            return
        steps = torch.stack(self._steps)  # [steps, (sum, length, done), envs]
        self._steps.clear()
        done = steps[:, 2] > 0
        finished = torch.stack([steps[:, 0][done], steps[:, 1][done]]).tolist()
        self.rewbuffer.extend(finished[0])
        self.lenbuffer.extend(finished[1])

    def log(self, *args, **kwargs) -> None:
        self.flush_episodes()
        super().log(*args, **kwargs)
