"""rsl_rl algorithms LocoLab adds: PPO-ROA (teacher-student Regularized Online Adaptation)."""

from .ppo_roa import PPOROA, clipped_surrogate_loss, value_function_loss
