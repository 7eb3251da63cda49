"""Warm start (``train.py --init_from``): a new run whose networks start from another run's, where they fit.

rsl_rl loads a checkpoint whole (resume) or not at all; a rough-terrain run started from a flat-ground policy needs
more: the rough task appends the height scan to the critic's (and the PPO-ROA teacher's privileged) inputs, and its
teacher encoder may be wider. Every network tensor is copied into the leading block of its new shape, and the weights
that read a new input or a new hidden unit start at zero, so the new network computes exactly the old one's function
(it ignores the height scan until training teaches it to read it) while every new weight still gets its gradient.
An observation normaliser that grew restarts its statistics (sample count 0: the first rollout sets them) so that
the new inputs are not frozen at mean 0, std 1 by the old run's large count. Optimizers, the iteration count and the
curricula start fresh: it is a new run.
"""

from __future__ import annotations

import torch

NORMALIZER_BUFFERS = ("_mean", "_var", "_std")
"""rsl_rl's EmpiricalNormalization statistics: they grow with their input; its ``count`` restarts when they do."""


class WarmStartError(ValueError):
    """A checkpoint whose networks cannot seed this run's (another robot, a smaller network)."""


def grown_state(old: dict[str, torch.Tensor], new: dict[str, torch.Tensor], what: str) -> tuple[dict, list[str]]:
    """``new``'s entries with ``old``'s values in their leading blocks (see the module's docstring); the names of the
    tensors that grew. A WarmStartError names an entry that is missing from ``old`` or would have to shrink."""
    state, grown, restarted = {}, [], set()
    for name, fresh in new.items():
        if name not in old:
            raise WarmStartError(f"{what} has no '{name}': it is another network (give a checkpoint of the same "
                                 "agent).")
        saved = old[name].to(fresh.device)
        if saved.shape == fresh.shape:
            state[name] = saved.clone()
            continue
        if name.startswith("rnn.") or ".rnn." in name:
            raise WarmStartError(f"{what}: recurrent layer '{name}' is {tuple(saved.shape)}, this run's "
                                 f"{tuple(fresh.shape)}: a recurrent layer cannot grow (keep its size and inputs).")
        if saved.dim() != fresh.dim() or any(s > f for s, f in zip(saved.shape, fresh.shape)):
            raise WarmStartError(f"{what}: '{name}' is {tuple(saved.shape)}, this run's {tuple(fresh.shape)}: a "
                                 "warm start can only add inputs or units, never remove them.")
        value = fresh.clone()
        block = tuple(slice(0, size) for size in saved.shape)
        value[block] = saved
        if value.dim() == 2 and not name.split(".")[-1].startswith(NORMALIZER_BUFFERS):
            value[:, saved.shape[1]:] = 0.0  # weights from new inputs or new units: the old function, unchanged
        state[name] = value
        grown.append(name)
        module, _, buffer = name.rpartition(".")
        if buffer in NORMALIZER_BUFFERS:
            restarted.add(module)
    for module in restarted:
        state[f"{module}.count"] = torch.zeros_like(new[f"{module}.count"])
    return state, grown


def check_same_robot(saved_env: dict | None, signature: dict, path: str) -> None:
    """The checkpoint's robot must be this run's: same actions, same joints (observations may grow)."""
    if saved_env is None:
        return
    for key in ("num_actions", "joint_names"):
        if key in saved_env and key in signature and saved_env[key] != signature[key]:
            raise WarmStartError(f"Checkpoint '{path}' drives another robot ({key} {saved_env[key]} against "
                                 f"{signature[key]}): a warm start needs the same actions and joints.")


def warm_start(runner, checkpoint: dict, path: str) -> list[str]:
    """Seed ``runner``'s networks from ``checkpoint`` (read as data); returns the tensors that grew. The algorithm's
    own ``load`` puts them in place, with its fresh optimizer states and counters."""
    check_same_robot(checkpoint.get("env"), runner.environment_signature(), path)
    current = runner.alg.save()
    merged, grown = dict(current), []
    for key, state in current.items():
        if not key.endswith("_state_dict") or "optimizer" in key or not isinstance(state, dict):
            continue
        if key not in checkpoint:
            raise WarmStartError(f"Checkpoint '{path}' has no {key}: it is another agent's.")
        merged[key], names = grown_state(checkpoint[key], state, f"Checkpoint '{path}' ({key})")
        grown += [f"{key.removesuffix('_state_dict')}.{name}" for name in names]
    runner.alg.load(merged, None, strict=True)
    return grown
