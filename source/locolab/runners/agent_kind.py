"""What an agent is, read from its config: the ``class_name`` of its algorithm and actor, as rsl_rl resolves them.

``--agent`` and ``--phase`` name an agent when a run starts; everywhere after (the runner to build, a checkpoint to
resume, play, export or evaluate), the agent config, the one a checkpoint carries included, says which it is.
"""

from __future__ import annotations

from typing import Any

ALGORITHMS = {"PPO": "ppo", "locolab.algorithms.ppo_roa:PPOROA": "roa", "locolab.algorithms.sac:SAC": "sac"}
"""Each algorithm ``class_name`` LocoLab trains, and its ``--agent``."""
RECURRENT_ACTOR = "RNNModel"
"""rsl_rl's recurrent model: a PPO agent whose actor is one is ``ppo_rnn``."""


def agent_kind(agent_cfg: Any) -> tuple[str, str]:
    """``(--agent, --phase)`` of an agent config (a configclass or its dictionary); a ValueError for an algorithm
    LocoLab does not train."""
    cfg = agent_cfg if isinstance(agent_cfg, dict) else agent_cfg.to_dict()
    algorithm = cfg["algorithm"]["class_name"]
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm '{algorithm}' is not one LocoLab trains ({', '.join(ALGORITHMS)}).")
    agent = ALGORITHMS[algorithm]
    if agent == "ppo" and str(cfg["actor"].get("class_name", "")).split(":")[-1].endswith(RECURRENT_ACTOR):
        agent = "ppo_rnn"
    return agent, cfg["algorithm"].get("phase", "train")
