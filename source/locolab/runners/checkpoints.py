"""Checkpoint files: atomic writes, lookup of the latest one in a run, and loading with clear errors."""

from __future__ import annotations

import io
import os
import pickle
import re
from pathlib import Path

import torch

from locolab.atomic_files import write_atomically

from .agent_kind import RECURRENT_ACTOR, agent_kind

CHECKPOINT_PATTERN = re.compile(r"^model_(\d+)\.pt$")


class CheckpointError(RuntimeError):
    """A checkpoint is missing, unreadable or does not fit the model it is loaded into."""


def save_atomically(obj: dict, path: str | os.PathLike) -> None:
    """``torch.save`` through :func:`~locolab.atomic_files.write_atomically`: a reader never sees half a file.

    The checkpoint is serialised in memory first and then written with Python's file I/O, so a file system that
    refuses it (full, read-only) raises an ``OSError`` (torch's own zip writer reports that as a RuntimeError)."""
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    write_atomically(path, lambda tmp: tmp.write_bytes(buffer.getbuffer()))


def latest_checkpoint(run_dir: str | os.PathLike) -> Path:
    """The ``model_<it>.pt`` with the highest iteration in ``run_dir``."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise CheckpointError(f"Run directory not found: '{run_dir}'.")
    found = [(int(m.group(1)), p) for p in run_dir.iterdir() if (m := CHECKPOINT_PATTERN.match(p.name))]
    if not found:
        raise CheckpointError(f"No model_<iteration>.pt checkpoint in '{run_dir}'.")
    return max(found)[1]


def resolve_checkpoint(path: str | os.PathLike) -> Path:
    """A checkpoint file, or the latest checkpoint of a run directory."""
    path = Path(path)
    if path.is_dir():
        return latest_checkpoint(path)
    if not path.is_file():
        raise CheckpointError(f"Checkpoint not found: '{path}' (give a model_<it>.pt file or a run directory).")
    return path


CONVERTER = "scripts/convert_checkpoint.py"
"""The one place a checkpoint is unpickled with code allowed to run: only when its user names it."""


def read_checkpoint(path: str | os.PathLike, map_location: str = "cpu") -> dict:
    """Load a checkpoint dictionary as data only (``weights_only=True``: tensors, numbers, strings and containers;
    nothing in the file runs), turning unreadable files and files that need more into a :class:`CheckpointError`.

    LocoLab and rsl_rl write nothing else; rsl_rl's own loader allows any pickle (``weights_only=False``)."""
    try:
        data = torch.load(path, weights_only=True, map_location=map_location)
    except Exception as error:  # torch raises several types for truncated or foreign files
        found = re.search(r"GLOBAL ([\w.]+)", str(error)) if isinstance(error, pickle.UnpicklingError) else None
        if found:
            raise CheckpointError(f"Checkpoint '{path}' holds a {found.group(1)}, which is not plain data, so it was "
                                  f"not loaded (nothing in it ran); if you trust the file, convert it once with "
                                  f"python {CONVERTER} '{path}'.") from None
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise CheckpointError(f"Checkpoint '{path}' cannot be read ({type(error).__name__}: {reason}).") from None
    if not isinstance(data, dict) or "iter" not in data:
        raise CheckpointError(f"'{path}' is not a LocoLab/rsl_rl checkpoint (no 'iter' entry).")
    return data


AGENT_CFG_KEY = "agent_cfg"
"""The checkpoint entry holding the agent config it was trained with (a plain dictionary, as ``to_dict`` gives it)."""


def trained_agent(checkpoint: dict) -> tuple[str, str]:
    """The ``(--agent, --phase)`` a checkpoint was trained with, from the agent config it carries; a checkpoint
    written before it carried one (2026-12-02) is read from its entries: SAC's and PPO-ROA's own, an RNN's weights."""
    if AGENT_CFG_KEY in checkpoint:
        return agent_kind(checkpoint[AGENT_CFG_KEY])
    if "sac" in checkpoint:
        return "sac", "train"
    if "roa" in checkpoint:
        return "roa", checkpoint["roa"]["phase"]
    recurrent = any(key.startswith("rnn.") for key in checkpoint.get("actor_state_dict", {}))
    return ("ppo_rnn" if recurrent else "ppo"), "train"


def restore_agent_cfg(agent_cfg, checkpoint: dict) -> None:
    """Give ``agent_cfg`` (the registered config of the checkpoint's agent) the settings the checkpoint was trained
    with: those it carries, or for an older checkpoint the network sizes its weights show
    (:func:`fit_recurrent_actor`, :func:`fit_sac_networks`). Settings this version no longer has are skipped."""
    if AGENT_CFG_KEY not in checkpoint:
        fit_recurrent_actor(agent_cfg, checkpoint)
        fit_sac_networks(agent_cfg, checkpoint)
        return
    device = agent_cfg.device  # where the caller runs it, not where it trained
    _restore(agent_cfg, checkpoint[AGENT_CFG_KEY])
    agent_cfg.device = device


def _restore(cfg, saved: dict) -> None:
    """``saved``'s values into ``cfg``, group by group. Skipped: entries ``cfg`` has no field for (settings of another
    version), the sub-settings of a group ``cfg`` turns off (None: e.g. the mirroring a training used, which
    playback does not), and functions: a file names one as a module path, and importing what a file names would run
    code it chose, so ``cfg`` keeps this version's own. Isaac Lab's ``from_dict`` refuses a value where the config
    holds None."""
    for key, value in saved.items():
        if not hasattr(cfg, key):
            continue
        current = getattr(cfg, key)
        if isinstance(value, dict) and not isinstance(current, dict):
            if current is not None:
                _restore(current, value)
            continue
        if callable(current):
            continue
        setattr(cfg, key, value)


def fit_recurrent_actor(agent_cfg, checkpoint: dict) -> None:
    """Give a recurrent actor config (rsl_rl's ``RNNModel``) the RNN type, size and depth of the checkpoint's actor,
    read from its weights: ``--agent ppo_rnn`` defaults to a GRU, and a run trained with ``agent.actor.rnn_type=lstm``
    (or another size) must play, evaluate and export with its own. Other configs are left alone."""
    recurrent = {key: value for key, value in checkpoint.get("actor_state_dict", {}).items()
                 if key.startswith("rnn.rnn.weight_hh_l")}
    if not recurrent or getattr(agent_cfg.actor, "class_name", None) != RECURRENT_ACTOR:
        return
    gates, hidden = recurrent["rnn.rnn.weight_hh_l0"].shape  # LSTM: 4 gates, GRU: 3
    agent_cfg.actor.rnn_type = "lstm" if gates == 4 * hidden else "gru"
    agent_cfg.actor.rnn_hidden_dim = hidden
    agent_cfg.actor.rnn_num_layers = len(recurrent)


def fit_sac_networks(agent_cfg, checkpoint: dict) -> None:
    """Give a SAC config the hidden layer sizes of the checkpoint's actor and critics, read from their weights: the CPU
    profile trains smaller networks than the GPU defaults, and playback, evaluation and export apply no profile.
    Other checkpoints are left alone."""
    if "sac" not in checkpoint:
        return
    agent_cfg.actor.hidden_dims = hidden_sizes(checkpoint["actor_state_dict"], "mlp.")
    agent_cfg.critic.hidden_dims = hidden_sizes(checkpoint["critic_state_dict"], "q1.")
    agent_cfg.critic.layer_norm = any(key.startswith("q1.") and key.endswith(".weight") and value.dim() == 1
                                      for key, value in checkpoint["critic_state_dict"].items())


def hidden_sizes(state_dict: dict, prefix: str) -> list[int]:
    """The output sizes of a sequential network's linear layers (2-D weights: LayerNorms are left out), the last
    (output) layer left out."""
    layers = sorted((int(key[len(prefix):].split(".")[0]), value.shape[0]) for key, value in state_dict.items()
                    if key.startswith(prefix) and key.endswith(".weight") and value.dim() == 2)
    return [size for _, size in layers[:-1]]


POLICY_MODULES = {"policy": "actor", "teacher": "actor", "student": "actor_adapt"}
"""The algorithm attribute of each policy: PPO's or SAC's actor, PPO-ROA's actor (teacher) or actor_adapt (student)."""


def checkpoint_policy(checkpoint: dict, requested: str | None, roa_default: str | None = None) -> tuple[str, str, str]:
    """``(agent, phase, policy)`` to run a checkpoint with: PPO has one policy; PPO-ROA a teacher and a student
    (``requested``, else ``roa_default``, else the one that acted in the checkpoint's phase)."""
    agent, phase = trained_agent(checkpoint)
    if agent != "roa":
        if requested is not None:
            raise ValueError(f"'{requested}' applies to PPO-ROA checkpoints; this one was trained with {agent}.")
        return agent, phase, "policy"
    return agent, phase, requested or roa_default or ("teacher" if phase == "train" else "student")
