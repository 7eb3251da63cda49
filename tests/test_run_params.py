"""A run's saved configs are read as data (docs/reliability.md, "Untrusted checkpoints"): Isaac Lab's tuples come back
as tuples, and a Python tag that names a callable is never called."""

from __future__ import annotations

from pathlib import Path

import pytest
from isaaclab.utils.io import dump_yaml

from locolab.bench.time_to_walk import run_judge, samples_per_iteration
from locolab.envs import load_task_cfgs
from locolab.run_params import read_run_params
from locolab.tasks import AGENT_ENTRY_POINTS, cpu_variant

ROUGH = "LocoLab-Velocity-Rough-Go2"


def write_params(run_dir: Path, name: str, text: str) -> None:
    (run_dir / "params").mkdir(parents=True, exist_ok=True)
    (run_dir / "params" / f"{name}.yaml").write_text(text)


def test_a_python_tag_in_a_run_folder_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    write_params(tmp_path, "agent", f"num_steps_per_env: !!python/object/apply:os.system ['touch {marker}']\n"
                                    "walking_gate: !!python/object/new:builtins.dict {}\n"
                                    "seed: !!python/name:os.remove\n")
    write_params(tmp_path, "env", "scene: {num_envs: 8}\n")
    agent = read_run_params(tmp_path, "agent")
    assert not marker.exists()
    assert agent["num_steps_per_env"] == [f"touch {marker}"] and agent["seed"] == ""
    with pytest.raises(TypeError):  # a list where a count belongs: bad data, not a call
        samples_per_iteration(tmp_path)
    assert not marker.exists()


def test_the_rough_teachers_saved_configs_read_back_with_their_tuples(tmp_path):
    env_cfg, agent_cfg = load_task_cfgs(cpu_variant(ROUGH, "roa", "train"), AGENT_ENTRY_POINTS[("roa", "train")],
                                        device="cpu")
    dump_yaml(str(tmp_path / "params" / "env.yaml"), env_cfg)  # as train.py writes them
    dump_yaml(str(tmp_path / "params" / "agent.yaml"), agent_cfg)
    assert "!!python/" in (tmp_path / "params" / "env.yaml").read_text()  # the tags the loader must read
    agent = read_run_params(tmp_path, "agent")
    assert agent["walking_gate"]["terrain_tiles"] == tuple(tuple(tile) for tile in agent_cfg.walking_gate.terrain_tiles)
    assert samples_per_iteration(tmp_path) == env_cfg.scene.num_envs * agent_cfg.num_steps_per_env
    assert callable(run_judge(tmp_path, f"{ROUGH}-Play", "cpu"))  # judged by its own gate's tiles


def test_a_folder_without_params_is_a_one_line_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="pass a run directory that train.py wrote"):
        read_run_params(tmp_path, "agent")
