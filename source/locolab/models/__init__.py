"""Networks LocoLab adds to rsl_rl's: observation-set encoders and latent-conditioned MLP policies (PPO-ROA)."""

from .encoders import HistoryEncoder, HistoryMLPEncoder, MLPEncoder, ObsSetEncoder, TemporalConvEncoder
from .latent_mlp_model import LatentMLPModel
