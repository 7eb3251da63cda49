"""Untrusted files and names stay data: checkpoints load without running anything, names never become paths."""

from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np
import pytest
import torch

from conftest import run_main, run_script

from locolab.runners.checkpoint_conversion import convert_checkpoint
from locolab.runners.checkpoints import CheckpointError, read_checkpoint


class Payload:
    """Pickles as a call of ``os.system``: what a hostile checkpoint would carry."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def hostile_checkpoint(directory, name: str = "model_5.pt"):
    """A checkpoint-shaped file whose unpickling would create ``<directory>/ran`` (its path, the marker's)."""
    marker = directory / "ran"
    path = directory / name
    torch.save({"iter": 5, "model_state_dict": OrderedDict(w=torch.zeros(2)), "infos": Payload(marker)}, path)
    return path, marker


def test_a_pickled_payload_is_refused_with_one_line_naming_it_and_never_runs(tmp_path):
    path, marker = hostile_checkpoint(tmp_path)
    with pytest.raises(CheckpointError) as error:
        read_checkpoint(path)
    message = str(error.value)
    assert "holds a posix.system, which is not plain data" in message and "convert_checkpoint.py" in message
    assert len(message.splitlines()) == 1 and not marker.exists()


def test_numpy_in_a_checkpoint_is_refused_and_converts_only_when_asked(tmp_path):
    path = tmp_path / "model_3.pt"
    weights = OrderedDict(w=torch.ones(2))
    torch.save({"iter": 3, "model_state_dict": weights, "infos": {"mean": np.float64(0.5), "seen": np.arange(3)}}, path)
    with pytest.raises(CheckpointError, match="holds a numpy.*convert it once with python scripts/convert_checkpoint"):
        read_checkpoint(path)
    written = convert_checkpoint(path)
    assert written == tmp_path / "model_3_data.pt"
    loaded = read_checkpoint(written)
    assert loaded["infos"]["mean"] == 0.5 and torch.equal(loaded["infos"]["seen"], torch.arange(3))
    assert torch.equal(loaded["model_state_dict"]["w"], weights["w"])
    with pytest.raises(CheckpointError):
        read_checkpoint(path)  # the source is left as it was


def test_the_converter_refuses_to_replace_its_source_and_names_what_has_no_plain_form(tmp_path):
    path = tmp_path / "model_1.pt"
    torch.save({"iter": 1, "infos": {"when": np.datetime64("2026-12-02"), "seen": slice(1, 2)}}, path)
    with pytest.raises(CheckpointError, match="would replace"):
        convert_checkpoint(path, path)
    with pytest.raises(CheckpointError, match=r"checkpoint\['infos'\]\['seen'\] is a builtins.slice"):
        convert_checkpoint(path)
    assert not (tmp_path / "model_1_data.pt").exists()


@pytest.mark.parametrize("content", [b"", b"not a checkpoint at all", b"PK\x03\x04truncated zip"])
def test_truncated_or_foreign_files_are_one_line_errors(tmp_path, content):
    path = tmp_path / "model_1.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match="cannot be read") as error:
        read_checkpoint(path)
    assert len(str(error.value).splitlines()) == 1


def test_a_checkpoint_of_plain_data_without_an_iteration_is_not_a_checkpoint(tmp_path):
    path = tmp_path / "model_1.pt"
    torch.save({"weights": torch.zeros(1)}, path)
    with pytest.raises(CheckpointError, match="no 'iter' entry"):
        read_checkpoint(path)


@pytest.mark.parametrize("flag", ["--resume", "--teacher"])
def test_train_refuses_a_hostile_checkpoint_before_anything_runs_or_is_built(tmp_path, flag):
    path, marker = hostile_checkpoint(tmp_path)
    extra = ("--agent", "roa", "--phase", "finetune") if flag == "--teacher" else ()
    result = run_main("train.py", "--device", "cpu", "--num_envs", "8", "--log_root", str(tmp_path / "logs"),
                      *extra, flag, str(path))
    assert result.returncode == 2 and "holds a posix.system" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not marker.exists() and not (tmp_path / "logs").exists()


def test_the_converter_script_converts_a_trusted_file(tmp_path):
    path = tmp_path / "model_2.pt"
    torch.save({"iter": 2, "infos": {"mean": np.float32(1.5)}}, path)
    result = run_script("convert_checkpoint.py", str(path), "--out", str(tmp_path / "clean.pt"))
    assert result.returncode == 0, result.stderr
    assert read_checkpoint(tmp_path / "clean.pt")["infos"]["mean"] == 1.5


@pytest.mark.parametrize(("argument", "message"), [
    (("--run_name", "../escape"), "--run_name '../escape' must be a plain folder name"),
    (("--run_name", "a/b"), "--run_name 'a/b' must be a plain folder name"),
    (("--run_name", ".."), "--run_name '..' must be a plain folder name"),
    (("agent.experiment_name=../../elsewhere",), "agent.experiment_name '../../elsewhere' must be a plain folder"),
])
def test_run_and_experiment_names_that_are_paths_are_refused_and_nothing_is_written(tmp_path, argument, message):
    result = run_main("train.py", "--device", "cpu", "--max_iterations", "1", "--log_root", str(tmp_path / "logs"),
                      *argument)
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_log_root_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "logs").write_text("not a folder")
    result = run_main("train.py", "--device", "cpu", "--log_root", str(tmp_path / "logs"))
    assert result.returncode == 2 and "--log_root" in result.stderr and "is a file" in result.stderr
    assert (tmp_path / "logs").read_text() == "not a folder"


@pytest.mark.parametrize("script", ["play.py", "export.py", "eval.py"])
def test_play_export_and_eval_refuse_a_hostile_checkpoint_before_anything_runs(tmp_path, script):
    path, marker = hostile_checkpoint(tmp_path)
    extra = ("--out", str(tmp_path / "out")) if script != "play.py" else ()
    result = run_main(script, "--device", "cpu", "--checkpoint", str(path), *extra)
    assert result.returncode == 2 and "holds a posix.system" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not marker.exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("name", "message"), [
    ("missing/folder/play.mp4", "--video_path's folder"),
    ("play.gif", "must name an .mp4 file"),
    (".", "is a folder"),
])
def test_a_video_path_into_a_missing_folder_or_not_an_mp4_is_refused_and_nothing_is_created(tmp_path, name,
                                                                                            message):
    path, _ = hostile_checkpoint(tmp_path)  # never read: the video path is checked first
    before = sorted(tmp_path.rglob("*"))
    result = run_main("play.py", "--device", "cpu", "--checkpoint", str(path), "--video", "--video_path",
                      str(tmp_path / name))
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert sorted(tmp_path.rglob("*")) == before  # no folder made on the way
