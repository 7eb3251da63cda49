"""A velocity command that also asks for turning in place.

Isaac Lab's Go2 command steers every environment by heading: the yaw rate is 0.5 x the heading error, drawn together
with a forward and a sideways speed from [-1, 1] m/s each. A command to turn at 1 rad/s without walking is then rare
(both speeds near zero and the heading more than 2 rad away), and a policy may never learn it: the PPO-ROA teacher
of the CPU recipe (900 iterations) stood under ``play.py --command 0 0 1`` (0.00 rad/s) while it tracked the
combined commands of training to 0.19-0.23 rad/s; the PPO policy of the same recipe happened to learn it. With a
tenth of the commands turning in place the teacher turned at 0.29 rad/s at iteration 750 and stood again at 899
(0.06 rad/s), so the LocoLab tasks leave it off (``rel_turn_in_place_envs``, an override away); the CPU tasks
turn it on for every agent (``tasks/go2_velocity_cpu_env_cfg.py``: ``TURN_IN_PLACE_ENVS``).
"""

from __future__ import annotations

import dataclasses

from isaaclab.envs.mdp.commands.commands_cfg import UniformVelocityCommandCfg
from isaaclab.utils import configclass


@configclass
class TurnInPlaceVelocityCommandCfg(UniformVelocityCommandCfg):
    """Isaac Lab's uniform velocity command with a fraction of the environments asked to turn in place
    (:class:`locolab.envs.turn_in_place_command.TurnInPlaceVelocityCommand`)."""

    class_type: type | str = "locolab.envs.turn_in_place_command:TurnInPlaceVelocityCommand"

    rel_turn_in_place_envs: float = 0.0
    """Probability that a resample asks an environment to turn in place."""


def with_turn_in_place(command: UniformVelocityCommandCfg, rel_envs: float) -> TurnInPlaceVelocityCommandCfg:
    """``command`` (Isaac Lab's uniform velocity command config) with turning in place for ``rel_envs`` of the
    environments; every other setting kept."""
    settings = {field.name: getattr(command, field.name) for field in dataclasses.fields(command)}
    settings.pop("class_type")
    return TurnInPlaceVelocityCommandCfg(**settings, rel_turn_in_place_envs=rel_envs)
