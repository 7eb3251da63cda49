"""Hydra-style overrides of a task's configs on the command line, as ``isaaclab train`` accepts them.

    env.scene.num_envs=256  agent.algorithm.learning_rate=3e-4  env.events.push_robot=null

Isaac Lab applies such overrides inside ``resolve_task_config`` through a Hydra app, and LocoLab's tasks (the -CPU
variants included) resolve there exactly as here (``tests/test_config_overrides.py``). train.py checks them itself
because Isaac Lab 3.0.0's path sets an unknown key (``env.scene.num_env=8``) and a wrongly typed value
(``agent.algorithm.learning_rate=fast``) without a word, to fail later inside the simulation or the algorithm. Here
each key is checked against the config objects, and every problem is an :class:`OverrideError` whose message names
the key and what would be valid, raised before any environment is built. Values use Hydra's own override grammar
(``OverridesParser``): numbers, ``true``/``false``, ``null``, quoted strings and ``[lists]``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

ROOTS = ("env", "agent")


class OverrideError(ValueError):
    """An override that cannot be applied: bad syntax, unknown key, or a value of the wrong type."""


def parse_override(text: str) -> tuple[str, Any]:
    """``"a.b=1e-3"`` -> ``("a.b", 0.001)`` with Hydra's grammar; an OverrideError for anything else."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    if "=" not in text:
        raise OverrideError(f"override '{text}' has no '=': write KEY=VALUE, e.g. env.scene.num_envs=256.")
    try:
        (override,) = OverridesParser.create().parse_overrides([text])
    except HydraException as error:
        reason = str(error).splitlines()[0]
        raise OverrideError(f"override '{text}' is not valid override syntax ({reason}).") from None
    if override.is_add() or override.is_delete() or override.is_force_add():
        raise OverrideError(f"override '{text}': '+', '++' and '~' are not supported; set an existing key.")
    return override.key_or_group, override.value()


def apply_overrides(env_cfg, agent_cfg, overrides: Sequence[str]) -> dict[str, Any]:
    """Apply ``overrides`` in order to the configs; return ``{key: new value}`` of what was set."""
    applied = {}
    for text in overrides:
        key, value = parse_override(text)
        root, _, path = key.partition(".")
        if root not in ROOTS or not path:
            raise OverrideError(f"override '{text}': a key starts with 'env.' or 'agent.', e.g. "
                                "env.scene.num_envs=256 or agent.algorithm.learning_rate=3e-4.")
        target = env_cfg if root == "env" else agent_cfg
        *parents, leaf = path.split(".")
        walked = root
        for name in parents:
            target = _child(target, name, walked)
            walked += f".{name}"
            if target is None:
                raise OverrideError(f"override '{text}': '{walked}' is None (disabled), so it has no '{leaf}'.")
        current = _child(target, leaf, walked)
        converted = _converted(value, current, key)
        if isinstance(target, dict):
            target[leaf] = converted
        else:
            setattr(target, leaf, converted)
        applied[key] = converted
    return applied


def _fields(node) -> list[str]:
    if isinstance(node, dict):
        return [str(k) for k in node]
    return [name for name in vars(node) if not name.startswith("_")]


def _child(node, name: str, walked: str):
    fields = _fields(node)
    if name not in fields:
        close = difflib.get_close_matches(name, fields, n=3)
        hint = f" Did you mean {', '.join(f'{walked}.{c}' for c in close)}?" if close else ""
        raise OverrideError(f"unknown key '{walked}.{name}'.{hint}")
    return node[name] if isinstance(node, dict) else getattr(node, name)


def _converted(value: Any, current: Any, key: str) -> Any:
    """``value`` in the type of the ``current`` value of ``key`` (ints widen to floats, lists to tuples)."""
    if value is None or current is None:
        return value
    if isinstance(current, bool):
        if isinstance(value, bool):
            return value
    elif isinstance(current, int | float):
        if isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(current, int) and isinstance(value, float):
                if value.is_integer():
                    return int(value)
            else:
                return type(current)(value)
    elif isinstance(current, str):
        if isinstance(value, str):
            return value
    elif isinstance(current, list | tuple):
        if isinstance(value, list | tuple):
            return type(current)(value)
    elif isinstance(current, dict):
        if isinstance(value, dict):
            return value
    else:
        fields = ", ".join(_fields(current)[:12])
        raise OverrideError(f"'{key}' is a group of settings, not a value: set one of its fields ({fields}), "
                            "or null to disable it.")
    raise OverrideError(f"'{key}' takes a {type(current).__name__} (now {current!r}), got {value!r}.")
