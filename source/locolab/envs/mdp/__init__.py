"""LocoLab's MDP terms beyond Isaac Lab's: recorded dynamics randomisation (sim-to-real effects included),
privileged observations, a biased gyroscope, per-environment pushes for evaluation sweeps, turning-in-place
commands, terrain levels by type."""

from .commands import TurnInPlaceVelocityCommandCfg, with_turn_in_place
from .curriculums import robustness_curriculum, robustness_curriculum_cfg
from .events import push_at_speed
from .dynamics import (
    DynamicsRandomizationCfg,
    check_dynamics_cfg,
    hold_dynamics,
    parameter_names,
    parse_held_dynamics,
    randomize_dynamics,
    read_back_held,
)
from .observations import dynamics_params, feet_contact, gyro_with_bias
from .terrain_levels import check_terrain_curriculum, terrain_levels_by_type
