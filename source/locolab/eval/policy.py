"""A checkpoint's policy in its environment: checkpoint -> agent config -> environment config -> environment -> policy,
the chain that play, export and the robustness evaluation share.

:func:`checkpoint_cfgs` is the one place that decides a checkpoint's agent config (from the agent it was trained as).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from torch import nn

from locolab.envs import load_task_cfgs, open_env, play_variant
from locolab.runners import checkpoint_policy, latest_checkpoint, read_checkpoint, resolve_checkpoint
from locolab.runners.build import load_policy
from locolab.task_ids import base_task
from locolab.tasks import AGENT_ENTRY_POINTS


@dataclass
class OpenedPolicy:
    """A loaded policy (in evaluation mode) with the runner and environment it runs in."""

    env: object
    runner: object
    policy: nn.Module
    checkpoint: Path
    saved: dict
    """The checkpoint's dictionary (``iter``, ``task``, the weights)."""
    agent: str
    phase: str
    policy_name: str
    task: str
    """The task played: the ``-Play`` variant of ``trained_task`` when there is one."""
    trained_task: str
    agent_cfg: object


def checkpoint_agent(saved: dict, requested: str | None = None, roa_default: str | None = None) -> tuple[str, str, str]:
    """``(agent, phase, policy)`` of a checkpoint's dictionary (see :func:`locolab.runners.checkpoint_policy`)."""
    return checkpoint_policy(saved, requested, roa_default)


def checkpoint_cfgs(task: str, agent: str, phase: str, device: str | None = None, num_envs: int | None = None,
                    seed: int | None = None):
    """``(env_cfg, agent_cfg)`` to run a checkpoint trained as ``agent`` in ``phase`` on ``task``; the weights' own
    settings are given to the agent config when it is loaded (:func:`locolab.runners.build.load_policy`)."""
    return load_task_cfgs(task, AGENT_ENTRY_POINTS[(agent, phase)], num_envs=num_envs, device=device, seed=seed)


@contextlib.contextmanager
def open_policy(source: str | Path, task: str | None = None, device: str | None = None, requested: str | None = None,
                roa_default: str | None = None, num_envs: int | None = None, seed: int | None = None,
                configure: Callable[[object], None] | None = None, latest_of_run: bool = False,
                announce: Callable[[Path, str, str], None] | None = None) -> Iterator[OpenedPolicy]:
    """The policy of checkpoint ``source`` (a file or a run directory: its latest; with ``latest_of_run`` a run
    directory only) on ``task``'s ``-Play`` variant (default: the task it trained on), the environment config first
    passed to ``configure``; ``announce(checkpoint, phase, policy)`` hears what will play before it is built.
    Everything that can be checked is checked before the environment is built: a ValueError, CheckpointError or
    MissingAssetError says what."""
    checkpoint = (latest_checkpoint(source) if latest_of_run else resolve_checkpoint(source)).resolve()
    saved = read_checkpoint(checkpoint)
    agent, phase, policy_name = checkpoint_agent(saved, requested, roa_default)
    trained_task = task or saved.get("task")
    if trained_task is not None:  # a -CPU training variant is the same task, sized for a CPU
        trained_task = base_task(trained_task)
    if trained_task is None:
        raise ValueError(f"'{checkpoint}' does not record its task: give --task.")
    played = play_variant(trained_task)
    env_cfg, agent_cfg = checkpoint_cfgs(played, agent, phase, device, num_envs, seed)
    if configure is not None:
        configure(env_cfg)
    if announce is not None:
        announce(checkpoint, phase, policy_name)
    failure = None
    with open_env(played, env_cfg) as env:
        try:
            runner, policy = load_policy(env, agent_cfg, checkpoint, policy_name)
            yield OpenedPolicy(env, runner, policy, checkpoint, saved, agent, phase, policy_name, played, trained_task,
                               agent_cfg)
        except Exception as error:  # noqa: BLE001  (raised once the simulation has closed: Isaac Lab's launcher
            failure = error         # prints the traceback of anything that passes through it)
    if failure is not None:
        raise failure
