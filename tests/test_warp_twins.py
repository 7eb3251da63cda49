"""Every Warp twin of a LocoLab term (locolab.envs.mdp.warp_twins, warp_dynamics and warp_command,
locolab.envs.warp_metrics) gives its torch counterpart's values, on the CPU.

Runs of the PPO CPU task (8 randomised, pushed robots, violent random actions, falls and resets): at each of 60 steps
every twin writes into its own warp buffer, beside the torch term on the same state. Draws are held to their term's
law (Warp's generator is not torch's): the noise-free rows untouched and the others moved within the noise's range;
the command's turning, heading and standing shares and its ranges.
"""

from __future__ import annotations

import math

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
        # the Warp env's per-environment generators, which the stable env does not have
        unwrapped.rng_state_wp = wp.array(np.arange(1, num_envs + 1, dtype=np.uint32), device="cpu")
        observations = unwrapped.observation_manager
        terms = {name: cfg for name, cfg in zip(observations.active_terms["critic"],
                                                observations._group_obs_term_cfgs["critic"])}
        gait_cfg = unwrapped.reward_manager.get_term_cfg("trot_gait")
        gait = warp_twins.trot_gait_reward(gait_cfg, unwrapped)
        gyro_cfg = dict(zip(observations.active_terms["policy"], observations._group_obs_term_cfgs["policy"]))[
            "base_ang_vel"]
        gyro, drifting_gyro = (warp_twins.gyro_with_bias(gyro_cfg, unwrapped) for _ in range(2))
        twins = {"feet_contact": warp_twins.feet_contact,
                 "dynamics_params": warp_twins.dynamics_params(terms["dynamics"], unwrapped)}
        for _ in range(steps):
            vec.step(1.5 * torch.randn(num_envs, vec.num_actions, generator=generator))
            seen["resets"] += int(unwrapped.reset_buf.sum())
            for name, term in (("feet_contact", "feet_contact"), ("dynamics_params", "dynamics")):
                cfg = terms[term]
                expected = cfg.func(unwrapped, **cfg.params)
                out = wp.zeros(tuple(expected.shape), dtype=wp.float32, device="cpu")
                twins[name](unwrapped, out, **cfg.params)
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



def command_twin_differences(num_envs: int = 8, steps: int = 60, draws: int = 400) -> dict:
    """The velocity command's twin against the torch term on the same state at every step of a randomised run (heading
    control and standing, the tracking errors, the episode metrics at a reset), then its own draws' statistics."""
    import warp as wp
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp.warp_command import TurnInPlaceVelocityCommandWarp
    from locolab.tasks import cpu_variant

    env_cfg, _ = load_task_cfgs(cpu_variant(TASK, "ppo", "train"), num_envs=num_envs, device="cpu", seed=7)
    generator = torch.Generator().manual_seed(3)
    largest = {"command": 0.0, "error_sums": 0.0, "episode_metrics": 0.0}
    seen = {"heading_controlled": 0, "standing": 0, "wrapped": 0}
    with open_env(TASK, env_cfg) as env, torch.inference_mode():
        vec, unwrapped = RslRlVecEnvWrapper(env), env.unwrapped
        # the Warp env's per-environment generators, which the stable env does not have
        unwrapped.rng_state_wp = wp.array(np.arange(1, num_envs + 1, dtype=np.uint32), device="cpu")
        term = unwrapped.command_manager.get_term("base_velocity")
        twin = TurnInPlaceVelocityCommandWarp(term.cfg, unwrapped)
        state_names = ("vel_command_b", "heading_target", "is_heading_env", "is_standing_env", "_error_xy_sum",
                       "_error_yaw_sum", "_step_count", "time_left")
        mask = torch.arange(num_envs) % 2 == 0
        for step in range(steps):
            vec.step(1.5 * torch.randn(num_envs, vec.num_actions, generator=generator))
            saved = {name: getattr(term, name).clone() for name in state_names}
            # every branch each step: one robot standing, one heading-controlled with an error past pi (the wrap)
            standing, steered = step % num_envs, (step + 1) % num_envs
            term.is_standing_env[standing] = True
            term.is_heading_env[steered], term.is_standing_env[steered] = True, False
            term.heading_target[steered] = term.robot.data.heading_w.torch[steered] + 4.0
            for name, twin_name in (("vel_command_b", "vel_command_b"), ("heading_target", "heading_target"),
                                    ("is_heading_env", "is_heading_env"), ("is_standing_env", "is_standing_env"),
                                    ("_error_xy_sum", "error_xy_sum"), ("_error_yaw_sum", "error_yaw_sum"),
                                    ("_step_count", "step_count")):
                wp.to_torch(getattr(twin, twin_name)).copy_(getattr(term, name))
            term._update_metrics()
            twin._update_metrics()
            largest["error_sums"] = max(largest["error_sums"], *(
                float((wp.to_torch(getattr(twin, name)) - getattr(term, "_" + name)).abs().max())
                for name in ("error_xy_sum", "error_yaw_sum", "step_count")))
            term._update_command()
            twin._update_command()
            largest["command"] = max(largest["command"],
                                     float((wp.to_torch(twin.vel_command_b) - term.vel_command_b).abs().max()))
            heading_error = term.heading_target - term.robot.data.heading_w.torch
            seen["heading_controlled"] += int((term.is_heading_env & ~term.is_standing_env).sum())
            seen["wrapped"] += int((term.is_heading_env & (heading_error.abs() > math.pi)).sum())
            seen["standing"] += int(term.is_standing_env.sum())
            expected = {name: term.metrics[name].clone() for name in ("error_vel_xy", "error_vel_yaw", "success_rate")}
            extras = term.reset(torch.nonzero(mask).squeeze(1))
            twin_extras = twin.reset(env_mask=wp.array(mask.numpy(), dtype=wp.bool, device="cpu"))
            largest["episode_metrics"] = max(largest["episode_metrics"], *(
                abs(float(twin_extras[name]) - float(extras.get(name, unwrapped.extras["log"].get(
                    "Metrics/" + name, float("nan"))))) for name in expected))
            for name, value in saved.items():  # the torch term goes on as if nothing had been asked of it
                getattr(term, name).copy_(value)
        # the twin's draws: ``draws`` resamples of every environment
        everything = wp.array(np.ones(num_envs, dtype=bool), dtype=wp.bool, device="cpu")
        rows, flags = [], []
        for _ in range(draws):
            twin._resample_command(everything)
            rows.append(wp.to_torch(twin.vel_command_b).clone())
            flags.append(torch.stack([wp.to_torch(getattr(twin, name)).clone() for name in (
                "is_turn_in_place_env", "is_heading_env", "is_standing_env")], dim=1))
        cfg = term.cfg
    rows, flags = torch.cat(rows), torch.cat(flags)
    turning = flags[:, 0]
    return {"largest": largest, "seen": seen, "turning_share": float(turning.float().mean()),
            "turning_linear": float(rows[turning, :2].abs().max()),
            "turning_flags": int((flags[turning, 1] | flags[turning, 2]).sum()),
            "heading_share": float(flags[~turning, 1].float().mean()),
            "standing_share": float(flags[~turning, 2].float().mean()),
            "low": rows.min(dim=0).values.tolist(), "high": rows.max(dim=0).values.tolist(),
            "ranges": [list(cfg.ranges.lin_vel_x), list(cfg.ranges.lin_vel_y), list(cfg.ranges.ang_vel_z)],
            "expected_shares": [cfg.rel_turn_in_place_envs, cfg.rel_heading_envs, cfg.rel_standing_envs]}


def test_the_velocity_commands_warp_twin_gives_its_torch_terms_values_and_draws():
    result = in_fresh_process(command_twin_differences)
    for name, difference in result["largest"].items():
        assert difference < 1e-5, (name, difference)
    # heading control, standing and a heading error past pi (the wrap) were all compared
    assert min(result["seen"].values()) > 0, result["seen"]
    turn, heading, standing = result["expected_shares"]
    assert turn > 0 and abs(result["turning_share"] - turn) < 0.05  # 3200 draws: 5 standard deviations
    assert result["turning_linear"] == 0.0 and result["turning_flags"] == 0
    assert abs(result["heading_share"] - heading) < 0.05 and abs(result["standing_share"] - standing) < 0.05
    for low, high, (lower, upper) in zip(result["low"], result["high"], result["ranges"]):
        assert lower <= low < lower + 0.05 * (upper - lower) and upper - 0.05 * (upper - lower) < high <= upper


def metrics_twin_differences(num_envs: int = 8, steps: int = 60) -> dict:
    """The per-step metric table of the Warp twin against the torch path's over a randomised run, per column."""
    import warp as wp
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.metrics import MetricTermCfg, metric_terms, step_metric_values
    from locolab.envs.warp_metrics import WarpStepMetrics
    from locolab.tasks import cpu_variant

    env_cfg, _ = load_task_cfgs(cpu_variant(TASK, "ppo", "train"), num_envs=num_envs, device="cpu", seed=11)
    generator = torch.Generator().manual_seed(4)
    with open_env(TASK, env_cfg) as env, torch.inference_mode():
        vec, unwrapped = RslRlVecEnvWrapper(env), env.unwrapped
        terms = metric_terms(unwrapped)
        twin = WarpStepMetrics(unwrapped, terms)
        dynamics = unwrapped.event_manager.get_term_cfg("dynamics").func
        largest = torch.zeros(len(terms))
        nonzero = torch.zeros(len(terms), dtype=torch.bool)
        for _ in range(steps):
            vec.step(1.5 * torch.randn(num_envs, vec.num_actions, generator=generator))
            # the robustness curriculum starts at the nominal robot: give the dynamics record values of its own
            dynamics.values.copy_(torch.rand(dynamics.values.shape, generator=generator))
            expected = step_metric_values(unwrapped, terms)
            largest = torch.maximum(largest, (wp.to_torch(twin(unwrapped)) - expected).abs().amax(dim=0))
            nonzero |= (expected != 0).any(dim=0)
        try:
            WarpStepMetrics(unwrapped, {**terms, "height": MetricTermCfg(func=lambda env: env.reward_buf)})
            error = ""
        except ValueError as caught:
            error = str(caught)
    return {"largest": dict(zip(terms, largest.tolist())), "nonzero": dict(zip(terms, nonzero.tolist())),
            "error": error}


def test_the_episode_metrics_warp_twin_gives_the_torch_paths_table():
    result = in_fresh_process(metrics_twin_differences)
    assert len(result["largest"]) > 20  # the velocity metrics, the robot's dynamics and every reward term
    for name, difference in result["largest"].items():
        assert difference < 1e-5, (name, difference)
    zero = [name for name, seen in result["nonzero"].items() if not seen]
    assert set(zero) <= {"time_out", "reward/dof_pos_limits"}, zero  # every other column was exercised
    assert result["error"].startswith("metric 'height' (<lambda>) has no Warp twin") and "\n" not in result["error"]


def dynamics_twin_differences(num_envs: int = 8, steps: int = 30, draws: int = 300) -> dict:
    """The dynamics event's twin beside the torch term on one environment: the values of the same draws (at the
    configured ranges and at a curriculum's narrowed ones), what a masked reset changes and writes into Newton's
    actuators, and the law of its own draws (uniform, and Beta(0.5, 0.5) for ``sample_concentration=0.5``)."""
    import warp as wp
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from locolab.envs import load_task_cfgs, open_env
    from locolab.envs.mdp.dynamics import values_from_unit
    from locolab.envs.mdp.warp_dynamics import randomize_dynamics

    env_cfg, _ = load_task_cfgs(TASK, num_envs=num_envs, device="cpu", seed=5)
    generator = torch.Generator().manual_seed(6)
    largest = {"values": 0.0, "narrowed": 0.0, "actuators": 0.0}
    with open_env(TASK, env_cfg) as env, torch.inference_mode():
        vec, unwrapped = RslRlVecEnvWrapper(env), env.unwrapped
        unwrapped.rng_state_wp = wp.array(np.arange(1, num_envs + 1, dtype=np.uint32), device="cpu")
        event_cfg = unwrapped.event_manager.get_term_cfg("dynamics")
        term, twin = event_cfg.func, randomize_dynamics(event_cfg, unwrapped)
        everything = wp.array(np.ones(num_envs, dtype=bool), dtype=wp.bool, device="cpu")
        for step in range(steps):
            vec.step(1.5 * torch.randn(num_envs, vec.num_actions, generator=generator))
            unit = torch.rand(twin.unit.shape, generator=generator)
            unit[0, :] = torch.tensor([0.0, 1.0]).repeat(unit.shape[1])[:unit.shape[1]]  # the ranges' ends
            wp.to_torch(twin.unit).copy_(unit)
            for scale, key in ((1.0, "values"), (0.3, "narrowed")):
                term.range_scale = twin.range_scale = scale
                twin.values_from_unit(everything)
                expected = values_from_unit(unit, term.low, term.high, term._integer, term.range_scale)
                largest[key] = max(largest[key], float((wp.to_torch(twin.sampled) - expected).abs().max()))
            term.range_scale = twin.range_scale = 1.0
        # a masked reset: new values in the masked rows alone, and in the actuators Newton steps with
        before = twin.values.clone()
        mask = torch.arange(num_envs) % 2 == 1
        twin(unwrapped, wp.array(mask.numpy(), dtype=wp.bool, device="cpu"), **event_cfg.params)
        strength, kp_scale, kd_scale, delay = twin._actuator_read_back()
        columns = {name: twin.columns(name) for name in ("motor_strength", "kp_scale", "kd_scale", "action_delay")}
        for name, read in (("motor_strength", strength), ("kp_scale", kp_scale), ("kd_scale", kd_scale),
                           ("action_delay", delay)):
            largest["actuators"] = max(largest["actuators"], float((read[mask] - twin.values[mask][
                :, columns[name]]).abs().max()))
        unchanged = bool((twin.values[~mask] == before[~mask]).all())
        changed = float((twin.values[mask] != before[mask]).float().mean())
        inside = bool(((twin.values >= twin.low) & (twin.values <= twin.high)).all())
        delays = twin.values[:, columns["action_delay"]]
        whole = bool((delays == delays.round()).all())
        # the law of the draws: ``draws`` resamples of every environment, each column a draw
        laws = {}
        for concentration in (1.0, 0.5):
            twin.concentration = concentration
            samples = []
            for _ in range(draws):
                twin.draw(everything, unwrapped.rng_state_wp)
                samples.append(wp.to_torch(twin.unit).clone())
            samples = torch.cat(samples).flatten()
            laws[str(concentration)] = {"mean": float(samples.mean()), "var": float(samples.var()),
                                        "outer_tenth": float(((samples < 0.05) | (samples > 0.95)).float().mean()),
                                        "min": float(samples.min()), "max": float(samples.max())}
    return {"largest": largest, "unchanged": unchanged, "changed": changed, "inside": inside, "whole": whole,
            "laws": laws, "capturable": getattr(randomize_dynamics, "_warp_capturable", True)}


def test_the_dynamics_events_warp_twin_gives_its_torch_terms_values_and_law():
    result = in_fresh_process(dynamics_twin_differences)
    for name, difference in result["largest"].items():
        assert difference < 1e-5, (name, difference)
    assert result["unchanged"] and result["changed"] > 0.8  # the masked rows alone were drawn anew
    assert result["inside"] and result["whole"]  # within the ranges; whole physics steps of delay
    uniform, arcsine = result["laws"]["1.0"], result["laws"]["0.5"]  # 67200 draws each
    for law, variance, outer in ((uniform, 1 / 12, 0.1), (arcsine, 1 / 8, 0.2872)):
        assert abs(law["mean"] - 0.5) < 0.01 and abs(law["var"] - variance) < 0.005, law
        assert abs(law["outer_tenth"] - outer) < 0.01 and 0.0 <= law["min"] and law["max"] <= 1.0, law
    assert result["capturable"] is False  # the event manager runs it uncaptured, as Isaac Lab's own CoM event
