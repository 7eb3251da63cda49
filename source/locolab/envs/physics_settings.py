"""The physics settings a task config spreads over several fields (step, decimation, sensor periods, solver), set and
copied as one: the CPU task variants set them, periodic evaluation copies training's."""

from __future__ import annotations


def set_physics_step(env_cfg, dt: float, decimation: int) -> None:
    """Physics step ``dt`` and ``decimation`` physics steps per policy step, with the sensors ticking every physics
    step and rendering once per policy step, as Isaac Lab's velocity configs set them."""
    env_cfg.sim.dt = dt
    env_cfg.decimation = decimation
    env_cfg.sim.render_interval = decimation
    if getattr(env_cfg.scene, "contact_forces", None) is not None:
        env_cfg.scene.contact_forces.update_period = dt
    if getattr(env_cfg.scene, "height_scanner", None) is not None:
        env_cfg.scene.height_scanner.update_period = dt * decimation


def set_physics(env_cfg, num_substeps: int, dt: float, decimation: int, integrator: str,
                solver_iterations: int) -> None:
    """Substeps, physics step and decimation, integrator and solver iterations."""
    env_cfg.sim.physics.num_substeps = num_substeps
    solver = env_cfg.sim.physics.solver_cfg
    solver.integrator, solver.iterations = integrator, solver_iterations
    set_physics_step(env_cfg, dt, decimation)


def copy_physics(env_cfg, source_cfg) -> None:
    """``source_cfg``'s physics and engine into ``env_cfg``: an evaluation in the physics of training."""
    solver = source_cfg.sim.physics.solver_cfg
    set_physics(env_cfg, source_cfg.sim.physics.num_substeps, source_cfg.sim.dt, source_cfg.decimation,
                solver.integrator, solver.iterations)
    if hasattr(source_cfg, "physics_engine"):
        env_cfg.physics_engine = source_cfg.physics_engine
