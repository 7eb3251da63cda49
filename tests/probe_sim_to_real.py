"""The sim-to-real effects as the physics engine holds them; prints one JSON line for test_sim_to_real.py.

In one engine (``--engine``: MuJoCo-Warp, or MuJoCo C as the CPU profile trains): the feet's contact dimension and
each world's torsional and rolling friction, joint damping and friction loss read from the engine's own model, the
actuators' delays from Newton's actuator arrays; a step input on one joint and the physics step at which its torque
jumps, per delay; the policy's gyroscope against the true angular velocity.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

NUM_ENVS = 8
DELAYS = [0, 1, 2, 3, 4, 0, 1, 2]
"""Held action delay [physics steps] of each robot in the step-input check."""
STEP_JOINT = 0
"""The joint whose target jumps (the policy's first)."""
STEP_ACTION = 1.2
"""The jump in its action (x 0.25 action scale: 0.3 rad, about 15 N m at the PD stiffness of 50)."""
GYRO_BIAS = 0.04


def engine_model_effects(solver) -> dict:
    """Per world, from the engine's own model: the robot geoms with condim 6, their torsional and rolling friction,
    the hinges' damping and friction loss (MuJoCo C: each world's MjModel; MuJoCo-Warp: its batched arrays)."""
    models = getattr(solver, "world_models", None)
    hinges = np.flatnonzero(solver.mj_model.jnt_type[solver.mj_model.dof_jntid] == 3)
    if models is not None:
        fields = {name: np.stack([getattr(model, name) for model in models])
                  for name in ("geom_condim", "geom_friction", "dof_damping", "dof_frictionloss")}
    else:
        fields = {name: np.broadcast_to(getattr(solver.mjw_model, name).numpy(),
                                        (NUM_ENVS, *getattr(solver.mj_model, name).shape))
                  for name in ("geom_friction", "dof_damping", "dof_frictionloss")}
        fields["geom_condim"] = np.broadcast_to(solver.mj_model.geom_condim, (NUM_ENVS, solver.mj_model.ngeom))
    feet = fields["geom_condim"][0] == 6
    return {"feet_per_world": [int((condim == 6).sum()) for condim in fields["geom_condim"]],
            "torsional": fields["geom_friction"][:, feet, 1].mean(axis=1).tolist(),
            "rolling": fields["geom_friction"][:, feet, 2].mean(axis=1).tolist(),
            "damping": fields["dof_damping"][:, hinges].tolist(),
            "frictionloss": fields["dof_frictionloss"][:, hinges].tolist()}


def torque_steps(env, solver, actions: list[torch.Tensor], substeps: int) -> list[list[list[float]]]:
    """Each robot's joint torques as the engine received them (Newton's ``control.joint_f``, per physics step: the
    first of its ``substeps`` solver steps) over one environment step per action."""
    torques = []
    step = solver.step

    def record(state_in, state_out, control, contacts, dt):
        torques.append(control.joint_f.numpy().reshape(NUM_ENVS, -1).tolist())
        step(state_in, state_out, control, contacts, dt)

    solver.step = record
    try:
        for action in actions:
            env.step(action)
    finally:
        solver.step = step
    return torques[::substeps]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", choices=("mujoco_warp", "mujoco_c"), required=True)
    args = parser.parse_args()

    from locolab.envs import load_task_cfgs, open_env  # first: it points Isaac Lab's asset root at local files

    from isaaclab_newton.physics.newton_manager import NewtonManager

    task = "LocoLab-Velocity-Flat-Go2" + ("-CPU" if args.engine == "mujoco_c" else "")
    env_cfg, _ = load_task_cfgs(task, num_envs=NUM_ENVS, device="cpu", seed=0)
    env_cfg.sim_processes = 1
    env_cfg.events.push_robot = None
    env_cfg.events.reset_base.params["velocity_range"] = {}
    env_cfg.observations.policy.enable_corruption = False  # the gyroscope check compares without white noise
    assert env_cfg.physics_engine == args.engine
    with open_env(task, env_cfg) as env:
        unwrapped = env.unwrapped
        robot = unwrapped.scene["robot"]
        dynamics = unwrapped.event_manager.get_term_cfg("dynamics").func
        dynamics.range_scale = 1.0  # the CPU profile's curriculum would start at the middle of every range
        env.reset()
        zeros = torch.zeros(NUM_ENVS, 12)
        env.step(zeros)  # model changes reach the engine at the next step
        sampled = {name: dynamics.values[:, dynamics.columns(name)].mean(dim=1).tolist()
                   for name in ("foot_torsional_friction", "foot_rolling_friction", "joint_damping",
                                "joint_friction", "action_delay")}
        engine = engine_model_effects(NewtonManager._solver)
        legs = robot.actuators._groups["base_legs"]  # Newton's actuator(s) of the group
        legs = legs if isinstance(legs, tuple) else (legs,)
        newton_delays = np.concatenate([actuator.delay.delay_steps.numpy().reshape(NUM_ENVS, -1)
                                        for actuator in legs], axis=1).tolist()

        # a step input: every robot stands 10 control steps with its delay held, then one joint's target jumps
        dynamics.fix("action_delay", torch.tensor(DELAYS, dtype=torch.float))
        dynamics.fix("gyro_bias", torch.full((NUM_ENVS,), GYRO_BIAS))
        env.reset()
        for _ in range(10):
            env.step(zeros)
        step = zeros.clone()
        step[:, STEP_JOINT] = STEP_ACTION
        # one control step before the jump, two after it
        torques = torque_steps(env, NewtonManager._solver, [zeros, step, step], env_cfg.sim.physics.num_substeps)

        # the gyroscope: policy observation (no white noise) against the critic's true angular velocity
        offsets = []
        for _ in range(50):
            obs, *_ = env.step(zeros)
            offsets.append((obs["policy"][:, :3] - obs["critic"][:, :3]).tolist())
        print(json.dumps({"engine": args.engine, "sampled": sampled, "engine_model": engine,
                          "newton_delays": newton_delays, "delays": DELAYS, "torques": torques,
                          "physics_steps_per_control_step": env_cfg.decimation,
                          "gyro_offsets": offsets, "gyro_bias": GYRO_BIAS,
                          "gyro_bias_read_back": dynamics.read_back()[:, dynamics.columns("gyro_bias")].tolist()}))


if __name__ == "__main__":
    main()
