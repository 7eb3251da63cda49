"""Every Warp twin of a LocoLab term (locolab.envs.mdp.warp_twins) gives its torch term's values, on the CPU.

One run of the PPO CPU task (8 randomised, pushed robots, violent random actions, falls and resets): at each of 60
steps every twin writes into its own warp buffer, beside the torch term on the same state. The noise twin is held to
its term's distribution (Warp's generator is not torch's): the noise-free rows untouched, the others moved within
the noise's range.
"""

from __future__ import annotations

import numpy as np
import torch

from locolab.fresh_process import in_fresh_process

TASK = "LocoLab-Velocity-Flat-Go2"


def twin_differences(num_envs: int = 8, steps: int = 60) -> dict:
    """Per twin, the largest difference from its torch term over the run, and what the noise twin did."""
    import warp as wp
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp import warp_twins
    from locolab.envs.observation_noise import PartlyUniformNoiseCfg
    from locolab.tasks import cpu_variant

    env_cfg, _ = load_task_cfgs(cpu_variant(TASK, "ppo", "train"), num_envs=num_envs, device="cpu", seed=7)
    generator = torch.Generator().manual_seed(2)
    largest = {"feet_contact": 0.0, "dynamics_params": 0.0, "trot_gait": 0.0, "gyro_with_bias": 0.0}
    drifts = []
    seen = {"contact": 0.0, "gait": 0.0, "resets": 0}
    with open_env(TASK, env_cfg) as env, torch.inference_mode():
        vec, unwrapped = RslRlVecEnvWrapper(env), env.unwrapped
        observations = unwrapped.observation_manager
        terms = {name: cfg for name, cfg in zip(observations.active_terms["critic"],
                                                observations._group_obs_term_cfgs["critic"])}
        gait_cfg = unwrapped.reward_manager.get_term_cfg("trot_gait")
        gait = warp_twins.trot_gait_reward(gait_cfg, unwrapped)
        gyro_cfg = dict(zip(observations.active_terms["policy"], observations._group_obs_term_cfgs["policy"]))[
            "base_ang_vel"]
        gyro, drifting_gyro = (warp_twins.gyro_with_bias(gyro_cfg, unwrapped) for _ in range(2))
        for _ in range(steps):
            vec.step(1.5 * torch.randn(num_envs, vec.num_actions, generator=generator))
            seen["resets"] += int(unwrapped.reset_buf.sum())
            for name, term in (("feet_contact", "feet_contact"), ("dynamics_params", "dynamics")):
                cfg = terms[term]
                expected = cfg.func(unwrapped, **cfg.params)
                out = wp.zeros(tuple(expected.shape), dtype=wp.float32, device="cpu")
                getattr(warp_twins, name)(unwrapped, out, **cfg.params)
                largest[name] = max(largest[name], float((wp.to_torch(out) - expected).abs().max()))
            seen["contact"] = max(seen["contact"], float(terms["feet_contact"].func(
                unwrapped, **terms["feet_contact"].params).sum()))
            expected = gait_cfg.func(unwrapped, **gait_cfg.params)
            out = wp.zeros(num_envs, dtype=wp.float32, device="cpu")
            gait(unwrapped, out, **gait_cfg.params)
            largest["trot_gait"] = max(largest["trot_gait"], float((wp.to_torch(out) - expected).abs().max()))
            seen["gait"] = max(seen["gait"], float(expected.max()))
            # the gyroscope: the same offset (drift aside: Warp's draws are not torch's), and a drift of its own
            expected = gyro_cfg.func(unwrapped, **gyro_cfg.params) - gyro_cfg.func.drift
            out = wp.zeros((num_envs, 3), dtype=wp.float32, device="cpu")
            gyro(unwrapped, out, **{**gyro_cfg.params, "drift_std": 0.0})
            largest["gyro_with_bias"] = max(largest["gyro_with_bias"], float((wp.to_torch(out) - expected).abs().max()))
            drifting_gyro(unwrapped, out, **gyro_cfg.params)
            drifts.append((wp.to_torch(out) - expected).tolist())
    data = np.linspace(-1.0, 1.0, 16 * 5, dtype=np.float32).reshape(16, 5)
    noisy = wp.array(data, dtype=wp.float32, device="cpu")
    warp_twins.uniform_noise_but_first_warp(noisy, PartlyUniformNoiseCfg(n_min=-0.1, n_max=0.1,
                                                                         noise_free_envs=0.25), seed=3)
    moved = noisy.numpy() - data
    return {"largest": largest, "seen": seen, "drifts": drifts, "clean_rows": moved[:4].tolist(),
            "noisy_rows": moved[4:].tolist()}


def test_every_warp_twin_gives_its_torch_terms_values():
    result = in_fresh_process(twin_differences)
    for name, difference in result["largest"].items():
        assert difference < 1e-5, (name, difference)
    assert result["seen"]["contact"] > 0 and result["seen"]["gait"] > 0  # the terms were not all zero
    assert result["seen"]["resets"] > 0  # and robots were reset along the way
    assert np.all(np.array(result["clean_rows"]) == 0.0)  # the noise-free share: untouched
    noisy = np.abs(np.array(result["noisy_rows"]))
    assert noisy.max() <= 0.1 + 1e-6 and np.all(noisy > 0.0) and noisy.std() > 0.02
    drifts = np.array(result["drifts"])  # [step, robot, axis]: the twin's own drift, a bounded random walk
    assert np.abs(drifts).max() <= 0.05 + 1e-6 and np.abs(drifts[-1]).max() > 1e-3
    assert np.abs(np.diff(drifts, axis=0)).max() < 0.01

