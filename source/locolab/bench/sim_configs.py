"""The configs a benchmark's random-action simulation runs (``benchmark.py``: throughput and the per-stage profile)."""

from __future__ import annotations

from locolab.config_overrides import apply_overrides
from locolab.envs import check_physics_engine, load_task_cfgs
from locolab.tasks import cpu_variant


def sim_cfgs(task: str, num_envs: int, device: str, cpu_profile: bool = True, overrides: list[str] = ()):
    """The configs the random-action simulation runs: the task's, or on a CPU its -CPU variant (PPO's) unless
    ``cpu_profile`` is False, then ``overrides`` (an OverrideError names a bad one; a ValueError a bad engine)."""
    cpu_task = cpu_variant(task, "ppo", "train") if cpu_profile and device == "cpu" else None
    env_cfg, agent_cfg = load_task_cfgs(cpu_task or task, num_envs=num_envs, device=device, seed=0)
    apply_overrides(env_cfg, agent_cfg, overrides)
    check_physics_engine(env_cfg)
    return env_cfg, agent_cfg
