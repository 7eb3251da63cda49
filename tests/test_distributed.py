"""torchrun's ranks as train.py reads them (locolab.distributed), without starting any: the rank from torchrun's
environment variables, each rank's device, and the one line for a lost rank."""

from __future__ import annotations

import pytest
import torch

from locolab.distributed import Rank, lost_rank_message, rank_device, this_rank


def test_the_rank_comes_from_torchruns_variables(monkeypatch):
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    assert this_rank() == Rank(0, 0, 1) and not this_rank().distributed and this_rank().main
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert this_rank() == Rank(3, 1, 4) and this_rank().distributed and not this_rank().main
    monkeypatch.setenv("RANK", "4")
    with pytest.raises(ValueError, match="do not fit WORLD_SIZE 4"):
        this_rank()
    monkeypatch.setenv("RANK", "x")
    with pytest.raises(ValueError, match="must be integers"):
        this_rank()


def test_each_gpu_rank_takes_its_own_gpu_and_cpu_ranks_stay_on_the_cpu():
    second = Rank(1, 1, 2)
    assert rank_device("cuda", second) == "cuda:1"
    assert rank_device("cuda:1", second) == "cuda:1"
    assert rank_device("cpu", second) == "cpu"
    assert rank_device("cuda", Rank()) == "cuda"  # alone: as given
    assert rank_device(None, second) == ("cuda:1" if torch.cuda.is_available() else None)
    with pytest.raises(ValueError, match="each rank trains on its own GPU"):
        rank_device("cuda:0", second)


def test_a_lost_peer_is_one_line_and_other_errors_are_not_rewritten():
    error = RuntimeError("[../third_party/gloo/gloo/transport/tcp/pair.cc:547] Connection closed by peer "
                         "[127.0.0.1]:44943\nmore detail")
    line = lost_rank_message(error, Rank(0, 0, 2))
    assert line.startswith("error: rank 0 of 2 lost the other ranks") and "\n" not in line
    assert lost_rank_message(RuntimeError("mat1 and mat2 shapes cannot be multiplied"), Rank(0, 0, 2)) is None


def test_a_runner_that_only_plays_a_checkpoint_never_joins_torchruns_group(monkeypatch):
    """The walking gate's plays run in processes that inherit torchrun's variables; their runners (no log
    directory) must stay alone instead of waiting to join a group of ranks that are not coming."""
    from locolab.runners.on_policy_runner import LocoLabOnPolicyRunner

    for name, value in (("WORLD_SIZE", "2"), ("RANK", "0"), ("LOCAL_RANK", "0")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    player = LocoLabOnPolicyRunner.__new__(LocoLabOnPolicyRunner)
    player.cfg, player.device, player.joins_ranks = {}, "cpu", False
    player._configure_multi_gpu()
    assert not player.is_distributed and player.cfg["multi_gpu"] is None
    assert not torch.distributed.is_initialized()
    trainer = LocoLabOnPolicyRunner.__new__(LocoLabOnPolicyRunner)
    trainer.cfg, trainer.device, trainer.joins_ranks = {}, "cpu", True
    with pytest.raises(ValueError, match="MASTER_ADDR"):  # a training runner does try to join
        trainer._configure_multi_gpu()
