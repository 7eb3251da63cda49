"""Probe: seconds of PPO-ROA's teacher PPO epochs at the rough CPU agent's sizes, with the teacher and the regulariser
sharing one encoder_priv pass (LocoLab's) against the teacher running its encoder itself (the regulariser's second
pass). Random observations shaped like the rough task's (policy 45, critic 235, priv 204, history 50 x 45), one
thread, symmetry off; alternating runs, each on a fresh rollout.

    .venv/bin/python tests/probe_roa_update.py [NUM_ENVS (default 512)] [REPEATS (default 3)]
"""

from __future__ import annotations

import sys
import time

import torch
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from tensordict import TensorDict

from locolab.agents.go2_roa_cfg import LocoLabGo2RoughRoaRunnerCfg_CPU
from locolab.algorithms import PPOROA


class RandomObservations:
    """The little of a VecEnv that PPOROA's constructor reads."""

    num_actions = 12

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs

    def get_observations(self) -> TensorDict:
        n = self.num_envs
        return TensorDict({"policy": torch.randn(n, 45), "critic": torch.randn(n, 235), "priv": torch.randn(n, 204),
                           "history": torch.randn(n, 50, 45)}, batch_size=[n])


def time_update(env: RandomObservations, cfg: dict, shared: bool) -> float:
    torch.manual_seed(0)
    alg = PPOROA.construct_algorithm(env.get_observations(), env, dict(cfg, algorithm=dict(cfg["algorithm"])), "cpu")
    alg.updates = 10_000  # lambda at its maximum
    if not shared:
        alg.actor.latent_key = None
    n, obs = env.num_envs, env.get_observations()
    with torch.inference_mode():
        for _ in range(cfg["num_steps_per_env"]):
            alg.act(obs)
            alg.process_env_step(obs, torch.randn(n), torch.zeros(n, dtype=torch.long), {})
        alg.compute_returns(obs)
    start = time.perf_counter()
    alg._update_policy()
    return time.perf_counter() - start


def main() -> None:
    num_envs = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    torch.set_num_threads(1)
    cfg = handle_deprecated_rsl_rl_cfg(LocoLabGo2RoughRoaRunnerCfg_CPU(), check_rsl_rl_version()).to_dict()
    cfg["algorithm"]["symmetry_cfg"] = None
    cfg["obs_groups"] = {"actor": ["policy"], "critic": ["critic"], "priv": ["priv"], "history": ["history"]}
    cfg["multi_gpu"] = None
    env = RandomObservations(num_envs)
    seconds = {"shared": [], "twice": []}
    for _ in range(repeats):
        for shared in (True, False):
            seconds["shared" if shared else "twice"].append(time_update(env, cfg, shared))
    best = {key: min(values) for key, values in seconds.items()}
    print({"num_envs": num_envs, "seconds": seconds, "best_ratio_shared_to_twice": best["shared"] / best["twice"]})


if __name__ == "__main__":
    main()
