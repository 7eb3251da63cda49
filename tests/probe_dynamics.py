"""Checks that LocoLab's randomised dynamics reach the simulator; prints one JSON line for test_dynamics.py.

Each Isaac Lab environment owns the process's simulation context, so the test runs this in a subprocess.
"""

from __future__ import annotations

import json

import torch

from locolab.eval.sweeps import GridPoint, apply_grid, read_back  # imports locolab.envs, which sets the asset root

NUM_ENVS = 8
TASK = "LocoLab-Velocity-Flat-Go2"
SLIPPERY, GRIPPY = 0.05, 2.5
"""Friction of the first and last four robots in the sliding check."""
SOFT, STIFF = 0.03, 0.01
"""Contact time constants [s] of the first and last four robots in the sinking check."""
CONTACT_RANGE = (0.01, 0.03)
"""The tasks hold the ground material's contacts; the probe samples this range (the one measured, not adopted)."""
SWEEP_POINTS = {"friction": 0.1, "payload": 5.0, "motor": 0.6, "contact": 0.05}
"""One grid point of each of eval.py's dynamics sweeps, each outside the training range."""


def read_back_errors(dynamics, reference: torch.Tensor) -> dict[str, float]:
    """Per randomised parameter, the largest difference between what the physics holds (``read_back``) and
    ``reference`` (a table in the columns of ``dynamics.values``)."""
    error = (dynamics.read_back() - reference).abs()
    parameters = dict.fromkeys(name.partition("/")[0] for name in dynamics.names)
    return {name: error[:, dynamics.columns(name)].max().item() for name in parameters}


def read_back_sweep_points(env) -> dict[str, list[float]]:
    """eval.py's dynamics sweeps on two robots per grid point, beyond the training ranges: ``{sweep: [value, value
    read back]}`` after a reset and a step (what the report's value_read_back column shows)."""
    points = [GridPoint(sweep, value, 2 * i, 2 * i + 2) for i, (sweep, value) in enumerate(SWEEP_POINTS.items())]
    apply_grid(env.unwrapped, points)
    env.reset()
    env.step(torch.zeros(NUM_ENVS, 12))
    return {point.sweep: [point.value, value] for point, value in zip(points, read_back(env.unwrapped, points))}


def main() -> None:
    from locolab.envs import load_task_cfgs, open_env  # first: it points Isaac Lab's asset root at local files

    from isaaclab_newton.physics.newton_manager import NewtonManager

    env_cfg, _ = load_task_cfgs(TASK, num_envs=NUM_ENVS, device="cpu", seed=0)
    env_cfg.events.push_robot = None
    env_cfg.events.dynamics.params["ranges"].contact_time_constant = CONTACT_RANGE
    env_cfg.events.reset_base.params["velocity_range"] = {}
    with open_env(TASK, env_cfg) as env:
        unwrapped = env.unwrapped
        robot = unwrapped.scene["robot"]
        dynamics = unwrapped.event_manager.get_term_cfg("dynamics").func
        obs, _ = env.reset()
        values = dynamics.values.clone()
        names = dynamics.names
        column = {name: i for i, name in enumerate(names)}
        # Newton passes model changes to the solver at the next step: read back what the physics holds after one
        env.step(torch.zeros(NUM_ENVS, 12))
        applied = read_back_errors(dynamics, values)
        # what MuJoCo-Warp itself integrates with: its per-world model, after the change reached the solver
        values_now = dynamics.values
        mjw = NewtonManager._solver.mjw_model
        friction, body_mass, body_com = (mjw.geom_friction.numpy()[..., 0], mjw.body_mass.numpy(),
                                         mjw.body_ipos.numpy())
        base = int(body_mass[0].argmax())  # the trunk is the heaviest body
        robot_geoms = friction != env_cfg.scene.terrain.physics_material.static_friction  # the ground's is 0
        nominal_mass = float(body_mass.sum(axis=1)[0] - values_now[0, column["added_base_mass"]])
        solver = {
            "friction": max(float(abs(friction[w][robot_geoms[w]] - values_now[w, column["friction"]].item()).max())
                            for w in range(NUM_ENVS)),
            "robot_geoms_per_world": [int(r.sum()) for r in robot_geoms],
            "mass": float(abs(body_mass.sum(axis=1) - nominal_mass
                              - values_now[:, column["added_base_mass"]].numpy()).max()),
            "com": float(abs(body_com[:, base] - dynamics._default_com[:, 0].numpy()
                             - values_now[:, column["base_com_x"]: column["base_com_z"] + 1].numpy()).max()),
        }
        # the ground contacts' time constant (MuJoCo mixes the ground's and the robot shape's) is the sampled one
        data = NewtonManager._solver.mjw_data
        contacts = int(data.nacon.numpy()[0])
        contact_world, contact_solref = data.contact.worldid.numpy()[:contacts], data.contact.solref.numpy()[:contacts]
        sampled = values_now[:, column["contact_time_constant"]].numpy()
        solver["contact_time_constant"] = float(abs(contact_solref[:, 0] - sampled[contact_world]).max())
        solver["contacts_per_world"] = [int((contact_world == w).sum()) for w in range(NUM_ENVS)]
        priv_dynamics = obs["priv"][:, 3: 3 + len(names)]
        priv_dynamics_error = (priv_dynamics - dynamics.normalized()).abs().max().item()

        # the read-back is the physics', not what was written: a write reaches MuJoCo's model at the next step,
        # Newton's actuator arrays (which the torques come from) at once
        previous = dynamics.values.clone()
        dynamics.apply(torch.arange(NUM_ENVS), previous.flip(0))  # each robot another's dynamics
        read_back_before_step = {"previous": read_back_errors(dynamics, previous),
                                 "written": read_back_errors(dynamics, dynamics.values)}
        env.step(torch.zeros(NUM_ENVS, 12))
        read_back_after_step = read_back_errors(dynamics, dynamics.values)

        before = dynamics.values.clone()
        unwrapped.event_manager.apply(mode="reset", env_ids=torch.tensor([0, 1]), global_env_step_count=0)
        changed = (dynamics.values != before).any(dim=1).tolist()

        def run(values_per_env: torch.Tensor, steps: int, push: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
            """Reset, apply the given dynamics, optionally push forward, step with zero actions: (x travel, z)."""
            env.reset()
            dynamics.apply(torch.arange(NUM_ENVS), values_per_env)
            for _ in range(25):
                env.step(torch.zeros(NUM_ENVS, 12))
            start = robot.data.root_pos_w.torch[:, 0].clone()
            if push:
                velocity = robot.data.root_vel_w.torch.clone()
                velocity[:, 0] = push
                robot.write_root_velocity_to_sim_index(root_velocity=velocity)
            for _ in range(steps):
                env.step(torch.zeros(NUM_ENVS, 12))
            return robot.data.root_pos_w.torch[:, 0] - start, robot.data.root_pos_w.torch[:, 2].clone()

        middle = ((dynamics.low + dynamics.high) / 2).repeat(NUM_ENVS, 1)
        slippery = middle.clone()
        slippery[:4, column["friction"]] = SLIPPERY
        slippery[4:, column["friction"]] = GRIPPY
        slide, _ = run(slippery, steps=25, push=1.5)
        loaded = middle.clone()
        mass, motors = column["added_base_mass"], slice(column["motor_strength/FL_hip_joint"], column["kd_scale"])
        loaded[:4, mass], loaded[:4, motors] = dynamics.high[mass], dynamics.low[motors]  # heavy, weak motors
        loaded[4:, mass], loaded[4:, motors] = dynamics.low[mass], dynamics.high[motors]  # light, strong motors
        _, height = run(loaded, steps=50)
        # the README's worst case: the heaviest payload on the weakest motors with the softest gains, on the tasks'
        # ground (the material's own contacts, which the robot's shapes then share)
        contact = column["contact_time_constant"]
        worst = middle.clone()
        worst[:, mass], worst[:, motors] = dynamics.high[mass], dynamics.low[motors]
        worst[:, column["kp_scale"]], worst[:, column["kd_scale"]] = dynamics.low[column["kp_scale"]], dynamics.low[
            column["kd_scale"]]
        worst[:, contact] = dynamics._ground_solref[0]
        _, worst_height = run(worst, steps=100)
        model = unwrapped.sim.physics_manager.get_model()
        ground_shape = int((model.shape_world.numpy() == -1).argmax())
        own_material_error = max(
            float((dynamics._contact_ke / float(model.shape_material_ke.numpy()[ground_shape]) - 1).abs().max()),
            float((dynamics._contact_kd / float(model.shape_material_kd.numpy()[ground_shape]) - 1).abs().max()))
        softness = middle.clone()
        softness[:4, contact], softness[4:, contact] = SOFT, STIFF
        _, sunk_height = run(softness, steps=50)

        # the episode metrics name the robot the simulator holds (play.py's fallen robots)
        from locolab.envs import metrics

        held = dynamics.read_back()
        metrics_error = {name: (getattr(metrics, name)(unwrapped) - held[:, dynamics.columns(name)].mean(dim=1))
                         .abs().max().item() for name in metrics.DYNAMICS_METRICS}
        read_back_contact_error = (held[:, contact] - dynamics.values[:, contact]).abs().max().item()
        # draws concentrated near the ranges' ends (the finetuning student's), over every parameter of every robot
        concentration_from_cfg = dynamics.concentration
        dynamics.concentration = 0.05
        unwrapped.event_manager.apply(mode="reset", env_ids=torch.arange(NUM_ENVS), global_env_step_count=0)
        unit = (dynamics.values - dynamics.low) / (dynamics.high - dynamics.low)
        sweep_read_back = read_back_sweep_points(env)
        print(json.dumps({
            "read_back_before_step": read_back_before_step,
            "read_back_after_step": read_back_after_step,
            "sweep_read_back": sweep_read_back,
            "metrics_error": metrics_error,
            "read_back_contact_error": read_back_contact_error,
            "own_material_relative_error": own_material_error,
            "concentration_from_cfg": concentration_from_cfg,
            "concentrated_share_within_2_percent_of_an_end": ((unit < 0.02) | (unit > 0.98)).float().mean().item(),
            "concentrated_range": [unit.min().item(), unit.max().item()],
            "names": names,
            "low": dynamics.low.tolist(),
            "high": dynamics.high.tolist(),
            "values": values.tolist(),
            "applied_error": applied,
            "solver_error": solver,
            "worst_case_height": worst_height.tolist(),
            "priv_shape": list(obs["priv"].shape),
            "priv_dynamics_error": priv_dynamics_error,
            "priv_dynamics_range": [priv_dynamics.min().item(), priv_dynamics.max().item()],
            "changed_after_reset_of_envs_0_1": changed,
            "slide_low_friction": slide[:4].tolist(),
            "slide_high_friction": slide[4:].tolist(),
            "height_heavy_weak": height[:4].tolist(),
            "height_light_strong": height[4:].tolist(),
            "height_soft_ground": sunk_height[:4].tolist(),
            "height_stiff_ground": sunk_height[4:].tolist(),
        }))


if __name__ == "__main__":
    main()
