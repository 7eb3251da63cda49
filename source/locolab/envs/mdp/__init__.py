"""LocoLab's MDP terms beyond Isaac Lab's: recorded dynamics randomisation and privileged observations."""

from .curriculums import robustness_curriculum
from .dynamics import DynamicsRandomizationCfg, parameter_names, randomize_dynamics
from .observations import dynamics_params, feet_contact
