"""Atomic writes: the target holds either its old content or the complete new one, and nothing else is left."""

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
