"""A run's saved configs (``params/env.yaml``, ``params/agent.yaml``) read as data, never as code.

Isaac Lab's ``dump_yaml`` tags tuples and slices with PyYAML's Python tags (``!!python/tuple``,
``!!python/object/apply:builtins.slice``), which only ``yaml.unsafe_load`` rebuilds, by calling whatever a tag names: a
run folder from elsewhere could then run code when the benchmark measures it. This loader extends PyYAML's
``SafeLoader`` with tuples; any other Python tag gives its node's plain value (mapping, list or string)."""

from __future__ import annotations

from pathlib import Path

import yaml

PYTHON_TAG = "tag:yaml.org,2002:python/"


class RunParamsLoader(yaml.SafeLoader):
    """``SafeLoader`` that reads Isaac Lab's ``!!python/tuple`` as a tuple and other ``!!python/`` tags as data."""


def _tuple(loader: RunParamsLoader, node: yaml.Node) -> tuple:
    return tuple(loader.construct_sequence(node, deep=True))


def _plain(loader: RunParamsLoader, tag_suffix: str, node: yaml.Node):
    """A Python object's tag, e.g. a slice's ``object/apply:builtins.slice``: its fields, nothing called."""
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_scalar(node)


RunParamsLoader.add_constructor(PYTHON_TAG + "tuple", _tuple)
RunParamsLoader.add_multi_constructor(PYTHON_TAG, _plain)


def read_run_params(run_dir: str | Path, name: str) -> dict:
    """``run_dir/params/<name>.yaml`` (``env`` or ``agent``) as nested dicts, lists, tuples and scalars."""
    path = Path(run_dir) / "params" / f"{name}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: pass a run directory that train.py wrote (it holds params/)")
    return yaml.load(path.read_text(), Loader=RunParamsLoader) or {}
