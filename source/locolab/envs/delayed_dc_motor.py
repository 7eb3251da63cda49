"""A DC motor whose position targets arrive late: Isaac Lab's DC-motor clamp and its actuator delay on one joint.

Isaac Lab authors a Newton actuator from a config type: :class:`DCMotorCfg` gives the PD drive and the DC motor's
torque-speed clamp, :class:`DelayedPDActuatorCfg` the PD drive and Newton's per-joint delay buffer; no stock type
gives both, which a real Go2 has (its motors' torque falls with speed; its targets arrive 10-20 ms after the
measurement they answer). :class:`DelayedDCMotorCfg` is both types at once, so Isaac Lab's USD authoring
(``isaaclab.sim.schemas.schemas_actuators``) writes the DC-motor clamp and a delay buffer of ``max_delay`` physics
steps on every joint. Newton then applies each joint's own ``delay_steps`` (0 to ``max_delay``), which
:class:`locolab.envs.mdp.randomize_dynamics` rewrites per environment at every reset.
"""

from __future__ import annotations

from isaaclab.actuators import DCMotorCfg, DelayedPDActuator, DelayedPDActuatorCfg
from isaaclab.utils import configclass


@configclass
class DelayedDCMotorCfg(DCMotorCfg, DelayedPDActuatorCfg):
    """DC motor (``saturation_effort``, ``actuator_velocity_limit``) with a command delay of up to ``max_delay``
    physics steps, executed by Newton's actuators (``sim.use_newton_actuators``).

    ``class_type`` is Isaac Lab's delayed PD actuator, the type it accepts for a Newton-executed delayed config;
    Newton's actuator, not that class, computes the torques."""

    class_type: type = DelayedPDActuator
