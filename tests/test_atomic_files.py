"""Atomic writes: the target holds either its old content or the complete new one, and nothing else is left."""

from pathlib import Path

import pytest

from locolab.atomic_files import write_atomically


def test_a_completed_write_replaces_the_target_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "policy.json"
    target.write_text("old")
    seen = []
    write_atomically(target, lambda tmp: (seen.append(tmp), tmp.write_text("new")))
    assert target.read_text() == "new"
    assert seen[0].parent == tmp_path and seen[0].suffix == ".json" and seen[0] != target  # writers see the suffix
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.json"]


def test_a_failed_write_keeps_the_old_target_and_removes_the_partial_file(tmp_path):
    target = tmp_path / "model_3.pt"
    target.write_text("old")

    def fail_half_way(tmp):
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, fail_half_way)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model_3.pt"]


def test_a_checkpoint_write_that_fails_part_way_keeps_the_previous_checkpoint_and_leaves_no_litter(tmp_path,
                                                                                                   monkeypatch):
    from locolab.runners import checkpoints

    path = tmp_path / "model_5.pt"
    checkpoints.save_atomically({"iter": 4}, path)
    before = path.read_bytes()

    write_bytes = Path.write_bytes

    def write_half_then_fail(target, data):
        write_bytes(target, bytes(data)[: len(data) // 2])
        raise OSError("No space left on device")

    monkeypatch.setattr(Path, "write_bytes", write_half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        checkpoints.save_atomically({"iter": 5}, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model_5.pt"]
