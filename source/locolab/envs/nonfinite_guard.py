"""Keeps non-finite simulation data out of training: an environment that goes NaN/Inf is reset and counted.

One exploding environment among thousands is the most common way a long Isaac Lab + rsl_rl run dies: its NaN
observation reaches the policy ("Expected parameter loc ... found invalid values"), the normalisers or the rollout
storage, and the run crashes with everything since its last checkpoint lost. MuJoCo-Warp keeps each world apart, so
the fault stays in that environment, but nothing ends its episode: a NaN state terminates nothing and stays NaN.

:class:`NonFiniteGuard` wraps Isaac Lab's ``RslRlVecEnvWrapper`` (in the training process, or in each simulation
process of :class:`~locolab.envs.multiprocess.SubprocessVecEnv`). After every step it checks each environment's
robot state, reward terms and observation terms; an environment with any non-finite value is reset (Isaac Lab's own
reset of those environments, then the simulator's state written and forwarded) and its step is replaced by a
truncated one: the reset's observation, reward 0, done, time-out (so PPO bootstraps from the value of the state it
acted in rather than learning a fall). Its episode sums are cleared first, so no NaN reaches the episode logs or the
curricula. ``extras["nonfinite"]`` counts the step's resets by the first term that went bad, in the order the step
computes them: ``state/<robot>/<quantity>``, ``reward/<term>``, ``obs/<group>/<term>``.
"""

from __future__ import annotations

from collections import Counter

import torch
from tensordict import TensorDict

from .vec_env_wrapper import VecEnvWrapper

STATE_QUANTITIES = ("joint_pos", "joint_vel", "root_pos_w", "root_quat_w", "root_lin_vel_w", "root_ang_vel_w")
"""Articulation data checked every step (a NaN in the physics shows here before it reaches any term)."""


def nonfinite_rows(value: torch.Tensor) -> torch.Tensor:
    """[N] bool: rows of ``value`` ([N] or [N, ...]) with any NaN or Inf."""
    finite = torch.isfinite(value)
    return ~(finite if finite.dim() == 1 else finite.flatten(1).all(dim=1))


class NonFiniteGuard(VecEnvWrapper):
    """Resets environments whose state, rewards or observations are non-finite and reports them in
    ``extras["nonfinite"]`` (``{first bad term: count}``, present only on steps with resets)."""

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        obs, rewards, dones, extras = self.env.step(actions)
        extras.pop("nonfinite", None)  # Isaac Lab hands out the same extras dict every step
        env = self.env.unwrapped
        sources = self._first_bad_terms(env, obs, rewards)
        if sources is None:
            return obs, rewards, dones, extras
        ids = torch.tensor(sorted(sources), dtype=torch.long, device=rewards.device)
        self._reset(env, ids, extras)
        fresh = env.observation_manager.compute()
        for group in obs.keys():
            obs[group][ids] = fresh[group][ids].to(obs[group].dtype)
        rewards[ids] = 0.0
        dones[ids] = 1
        time_outs = extras.get("time_outs")
        extras["time_outs"] = (torch.zeros_like(dones, dtype=torch.bool) if time_outs is None else time_outs.clone())
        extras["time_outs"][ids] = True
        extras["nonfinite"] = dict(Counter(sources.values()))
        return obs, rewards, dones, extras

    @staticmethod
    def _first_bad_terms(env, obs: TensorDict, rewards: torch.Tensor) -> dict[int, str] | None:
        """``{env id: first non-finite term}``, or None when every value is finite (the per-step cost is one
        ``isfinite`` per checked tensor; terms are named only when something is bad)."""
        robots = env.scene.articulations
        state = {f"state/{name}/{quantity}": getattr(robot.data, quantity) for name, robot in robots.items()
                 for quantity in STATE_QUANTITIES}
        state = {key: getattr(value, "torch", value) for key, value in state.items()}  # Warp arrays -> torch views
        bad = nonfinite_rows(rewards)
        for value in (*state.values(), *obs.values()):
            bad |= nonfinite_rows(value)
        if not bad.any():
            return None
        rewards_manager = env.reward_manager
        checks = list(state.items())
        checks += [(f"reward/{name}", rewards_manager._step_reward[:, index])
                   for index, name in enumerate(rewards_manager.active_terms)]
        manager = env.observation_manager
        for group, value in obs.items():
            if group not in manager.active_terms:
                continue
            start = 0
            for name, shape in zip(manager.active_terms[group], manager.group_obs_term_dim[group]):
                width = int(torch.tensor(shape).prod())
                checks.append((f"obs/{group}/{name}", value[:, start:start + width]))
                start += width
        checks.append(("reward/total", rewards))
        sources: dict[int, str] = {}
        for name, value in checks:
            for env_id in (nonfinite_rows(value) & bad).nonzero()[:, 0].tolist():
                sources.setdefault(env_id, name)
        for env_id in bad.nonzero()[:, 0].tolist():
            sources.setdefault(env_id, "obs/other")
        return sources

    @staticmethod
    def _reset(env, ids: torch.Tensor, extras: dict) -> None:
        """Isaac Lab's reset of ``ids`` (as its step does for ended episodes, then as its ``reset`` finishes), with
        their episode sums cleared first and the step's episode log kept."""
        for sums in env.reward_manager._episode_sums.values():
            sums[ids] = 0.0
        log = dict(extras.get("log", {}))
        env._reset_idx(ids.to(torch.int32))
        env.scene.write_data_to_sim()
        env.sim.forward()
        extras["log"] = log
