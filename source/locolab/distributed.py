"""Training on several processes through ``torchrun``: which rank this process is, and the process group.

rsl_rl's runner reads torchrun's ``WORLD_SIZE``/``RANK``/``LOCAL_RANK`` and joins a process group with a hard-coded
NCCL backend, so it needs one GPU per rank. Here the backend follows the device: NCCL on GPUs, gloo on CPUs (so that
two ranks on two cores train, and the distributed path is tested on machines without a GPU). Each rank steps its
own ``--num_envs`` robots with its own seed (``seed + rank``); gradients are averaged over the ranks by the
algorithms' existing all-reduce, so every rank holds the same parameters after every update
(:func:`check_same_parameters` checks it each iteration), and rank 0 alone writes the run directory.

A rank that dies is seen by torchrun, which stops the others; one waiting in a collective meanwhile hears of the
lost peer from gloo at once (6.7 s from the kill to the end of the run, measured on 2 CPU ranks), from NCCL by
torchrun's stop; :func:`lost_rank_message` turns the failed collective into one line.
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
from rsl_rl.utils.utils import reduce_gradients_in_buckets

COLLECTIVE_TIMEOUT_S = 1800
"""A collective that waits longer than this ends the run (a rank hangs). Long: the other ranks wait at their next
collective while rank 0 alone plays the walking gate's checks or a periodic evaluation (minutes on a CPU)."""


class RanksDivergedError(RuntimeError):
    """After an update, some rank holds other parameters than rank 0."""


@dataclass(frozen=True)
class Rank:
    """This process's place among torchrun's processes (rank 0 of 1 without torchrun)."""

    rank: int = 0
    local_rank: int = 0
    world_size: int = 1

    @property
    def distributed(self) -> bool:
        return self.world_size > 1

    @property
    def main(self) -> bool:
        """Whether this process writes the run directory, logs and checkpoints."""
        return self.rank == 0


def this_rank() -> Rank:
    """The rank torchrun's environment variables give this process; a ValueError for inconsistent ones."""
    try:
        world_size = int(os.environ.get("WORLD_SIZE", "1"))
        rank, local_rank = int(os.environ.get("RANK", "0")), int(os.environ.get("LOCAL_RANK", "0"))
    except ValueError as error:
        raise ValueError(f"torchrun's WORLD_SIZE, RANK and LOCAL_RANK must be integers ({error}).") from None
    if world_size < 1 or not 0 <= rank < world_size or not 0 <= local_rank < world_size:
        raise ValueError(f"RANK {rank} / LOCAL_RANK {local_rank} do not fit WORLD_SIZE {world_size}: start "
                         "distributed runs with torchrun --nproc_per_node N scripts/train.py ...")
    return Rank(rank, local_rank, world_size)


def rank_device(device: str | None, rank: Rank) -> str | None:
    """The ``--device`` a rank trains on, before it is resolved: unchanged without torchrun or on a CPU; on GPUs each
    local rank takes its own (``cuda``, or no ``--device`` where a GPU is visible -> ``cuda:<local_rank>``); another
    index is refused, since two ranks on one GPU would only contend."""
    if not rank.distributed:
        return device
    if device == "cuda" or (device is None and torch.cuda.is_available()):
        return f"cuda:{rank.local_rank}"
    if device is not None and device.startswith("cuda") and device != f"cuda:{rank.local_rank}":
        raise ValueError(f"--device {device}: under torchrun each rank trains on its own GPU; give --device cuda "
                         f"(local rank {rank.local_rank} takes cuda:{rank.local_rank}).")
    return device


def join(rank: Rank, device: str) -> None:
    """Join torchrun's process group (gloo on a CPU, NCCL on a GPU) unless joined already or not distributed."""
    if not rank.distributed or dist.is_initialized():
        return
    if device.startswith("cuda"):
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if device.startswith("cuda") else "gloo", rank=rank.rank,
                            world_size=rank.world_size, timeout=datetime.timedelta(seconds=COLLECTIVE_TIMEOUT_S))


def leave() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def any_rank(flag: bool, device: str) -> bool:
    """Whether ``flag`` holds on any rank (a collective: every rank must call it); ``flag`` itself when alone."""
    if not dist.is_initialized():
        return flag
    value = torch.tensor([1.0 if flag else 0.0], device=device)
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return bool(value.item())


def from_rank_zero(value):
    """Rank 0's ``value`` on every rank (a picklable object; a collective)."""
    if not dist.is_initialized():
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def average_gradients(parameters, bucket_mb: float = 25.0) -> None:
    """Average the gradients of ``parameters`` over the ranks (rsl_rl's bucketed all-reduce); nothing when alone."""
    if dist.is_initialized() and dist.get_world_size() > 1:
        reduce_gradients_in_buckets(list(parameters), dist.get_world_size(), bucket_mb)


def broadcast_from_rank_zero(tensors) -> None:
    """Overwrite ``tensors`` in place with rank 0's (a collective); nothing when alone."""
    if dist.is_initialized():
        for tensor in tensors:
            dist.broadcast(tensor.data, src=0)


def parameter_fingerprint(modules: list[torch.nn.Module], device: str) -> torch.Tensor:
    """One float64 sum per parameter and buffer: ranks with identical weights have identical fingerprints."""
    values = [value.detach().double().sum() for module in modules for value in module.state_dict().values()
              if value.is_floating_point()]
    return torch.stack(values).to(device) if values else torch.zeros(1, device=device)


def check_same_parameters(modules: list[torch.nn.Module], device: str, iteration: int) -> None:
    """Raise a :class:`RanksDivergedError` naming the ranks whose parameters differ from rank 0's after
    ``iteration``'s update."""
    if not dist.is_initialized():
        return
    mine = parameter_fingerprint(modules, device)
    gathered = [torch.empty_like(mine) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, mine)
    differing = [rank for rank, values in enumerate(gathered) if not torch.equal(values, gathered[0])]
    if differing:
        raise RanksDivergedError(f"after iteration {iteration}'s update rank(s) {differing} hold other parameters "
                                 "than rank 0: the ranks' gradients were not averaged alike.")


def lost_rank_message(error: BaseException, rank: Rank) -> str | None:
    """One line for a collective that failed because another rank died or hung; None for any other error."""
    text = str(error)
    lost = ("Connection closed by peer", "Connection reset by peer", "timed out", "Timed out", "NCCL", "Gloo",
            "gloo", "Broken pipe", "DistBackendError")
    if not (isinstance(error, dist.DistError) or any(marker in text for marker in lost)):
        return None
    first = text.strip().splitlines()[0][:200] if text.strip() else type(error).__name__
    return (f"error: rank {rank.rank} of {rank.world_size} lost the other ranks (one died or hangs; torchrun ends "
            f"the run): {first}")
