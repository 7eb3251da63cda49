"""What a robot would measure, read from environment 0 of a LocoLab environment: the runtime probes' input."""

from __future__ import annotations

from locolab.deploy import RobotState


def robot_state(unwrapped) -> RobotState:
    """Environment 0's joint state, IMU readings and velocity command, in the policy's joint order."""
    data = unwrapped.scene["robot"].data
    return RobotState(
        joint_pos=data.joint_pos.torch[0].numpy(),
        joint_vel=data.joint_vel.torch[0].numpy(),
        ang_vel=data.root_ang_vel_b.torch[0].numpy(),
        gravity=data.projected_gravity_b.torch[0].numpy(),
        command=unwrapped.command_manager.get_command("base_velocity")[0].numpy(),
    )
