"""A task config whose gyroscope reads the true angular velocity: no randomised offset and no drift. For the checks
that compare the policy's observation with what the robot's state gives (the deployment runtime, the critic's
noise-free view), which the offset, a modelled sensor error, would otherwise differ from by design."""


def ideal_gyroscope(env_cfg) -> None:
    env_cfg.events.dynamics.params["ranges"].gyro_bias = (0.0, 0.0)
    env_cfg.observations.policy.base_ang_vel.params["drift_std"] = 0.0
