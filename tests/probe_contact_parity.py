"""Stands the robot in Newton (the training simulator, the CPU profile's physics) and in MuJoCo's C engine (the
sim-to-sim simulator) on the same contacts; prints one JSON line for test_contact_parity.py.

Each Isaac Lab environment owns the process's simulation context, so the test runs this in a subprocess.
"""

from __future__ import annotations

import json

import mujoco
import numpy as np
import torch

TASK = "LocoLab-Velocity-Flat-Go2"
NUM_ENVS = 2
TIME_CONSTANTS = (0.01, 0.03)
"""Contact time constants [s]: the profile physics' own (the ground material's, raised to two 5 ms steps), and
three times softer."""
SECONDS = 2.0
FEET = {"foot_torsional_friction": 0.02, "foot_rolling_friction": 0.01}
"""The feet's torsional and rolling friction (condim 6) in both simulators."""
NOMINAL = {"friction": 1.0, "added_base_mass": 0.0, "base_com_x": 0.0, "base_com_y": 0.0, "base_com_z": 0.0,
           "motor_strength": 1.0, "kp_scale": 1.0, "kd_scale": 1.0, "joint_damping": 0.0, "joint_friction": 0.0,
           "action_delay": 0.0, "gyro_bias": 0.0, **FEET}


def mujoco_standing(time_constant: float, damping_ratio: float, physics_dt: float, stiffness: float,
                    damping: float) -> dict:
    """The generated MJCF standing under the PD loop of sim2sim.py for ``SECONDS`` on contacts of the given solref."""
    from locolab.assets import GO2_SPEC, ensure_robot_files
    from locolab.eval.robot_effects import RobotEffects
    from locolab.eval.sim2sim import MujocoRobot

    names = GO2_SPEC.joint_names()
    pose = GO2_SPEC.default_joint_pos()
    targets = np.array([pose[name] for name in names])
    effort = np.array([GO2_SPEC.joint(name[:2], name.split("_")[1]).effort_limit for name in names])
    robot = MujocoRobot(ensure_robot_files().mjcf, names,
                        effects=RobotEffects(foot_condim=6, **FEET))
    robot.model.opt.timestep = physics_dt
    robot.model.geom_solref[:] = (time_constant, damping_ratio)
    robot.reset(targets)
    for _ in range(round(SECONDS / physics_dt)):
        robot.apply_pd(targets, stiffness, damping, effort)
        mujoco.mj_step(robot.model, robot.data)
    data = robot.data
    return {"base_height": float(data.xpos[robot.base, 2]),
            "penetration": sorted(-data.contact[i].dist for i in range(data.ncon))}


def main() -> None:
    from locolab.envs import load_task_cfgs, open_env  # first: it points Isaac Lab's asset root at local files

    from isaaclab_newton.physics.newton_manager import NewtonManager

    from locolab.envs.mdp.dynamics import hold_dynamics

    env_cfg, _ = load_task_cfgs(f"{TASK}-CPU", num_envs=NUM_ENVS, device="cpu", seed=0)
    env_cfg.events.push_robot = None
    env_cfg.physics_engine = "mujoco_warp"  # Newton's own MuJoCo-Warp against the C engine
    env_cfg.events.reset_base.params["velocity_range"] = {}
    env_cfg.events.dynamics.params["ranges"].contact_time_constant = (min(TIME_CONSTANTS), max(TIME_CONSTANTS))
    legs = env_cfg.scene.robot.actuators["base_legs"]
    report = {"physics_dt": env_cfg.sim.dt / env_cfg.sim.physics.num_substeps, "newton": [], "mujoco": []}
    with open_env(TASK, env_cfg) as env:
        env.reset()
        dynamics = env.unwrapped.event_manager.get_term_cfg("dynamics").func
        report["damping_ratio"] = dynamics._ground_solref[1]
        for time_constant in TIME_CONSTANTS:
            hold_dynamics(env.unwrapped, {**NOMINAL, "contact_time_constant": time_constant})
            env.reset()
            for _ in range(round(SECONDS / env.unwrapped.step_dt)):
                env.step(torch.zeros(NUM_ENVS, 12))
            data = NewtonManager._solver.mjw_data
            contacts = int(data.nacon.numpy()[0])
            world, dist = data.contact.worldid.numpy()[:contacts], data.contact.dist.numpy()[:contacts]
            report["newton"].append({
                "time_constant": time_constant,
                "solref": data.contact.solref.numpy()[:contacts].tolist(),
                "base_height": env.unwrapped.scene["robot"].data.root_pos_w.torch[:, 2].tolist(),
                "penetration": [sorted((-dist[world == w]).tolist()) for w in range(NUM_ENVS)]})
            report["mujoco"].append(mujoco_standing(time_constant, report["damping_ratio"], report["physics_dt"],
                                                    float(legs.stiffness), float(legs.damping)))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
